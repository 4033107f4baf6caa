#!/usr/bin/env python3
"""bench/ik_search.py - `train -C -k anne` (lik_search, issue 21) against the
exhaustive search (`-E 1`: all rows mapped at every psi, the full C sweep),
side by side: wall time and the chosen (psi, C, 5-fold CV score).

  ik_search.py [--sets a,b,...] [--exhaustive] [--threads M] [--out FILE]

The exhaustive runs are slow (letter: 40 min at one core), so they run only
with --exhaustive; otherwise their tables are read from
bench/results/ik_search_exhaustive_<set>.txt (the exhaustive run's own
stdout, committed as it completes). Quality: the new search's chosen score
must lie within 0.5 points of the exhaustive search's best CV score (both
are 5-fold CV on the training rows; nothing is chosen by test accuracy).

Sets: satimage, pendigits, usps, letter (its first 16000 rows), a9a,
ijcnn1 from LIBLINEAR_IK_DATA (default ../shared/data), and images: a
60000 x 784 dense image-like set with 10 classes that this script
generates (deterministic, see make_images).
"""
import argparse
import lzma
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("LIBLINEAR_IK_DATA", REPO.parent / "shared" / "data"))
WORK = Path(os.environ.get("IK_SEARCH_WORK", "/tmp/ik_search_bench"))
RESULTS = REPO / "bench" / "results"
BEST = re.compile(r"^Best psi = (\d+)  Best C = (\S+)  CV accuracy = (\S+)%$", re.M)
PSI = re.compile(r"^psi = (\d+)  Best C = (\S+)  CV accuracy = (\S+)%", re.M)

SOURCES = {
    "satimage": ("satimage", "satimage.train", None),
    "pendigits": ("pendigits", "pendigits.train", None),
    "usps": ("usps", "usps.train", None),
    "letter": ("letter", "letter.all", 16000),
    "a9a": ("a9a", "a9a.train", None),
    "ijcnn1": ("ijcnn1", "ijcnn1.train", None),
}


def make_images(path, rows=60000, seed=1):
    """10 classes of 28 x 28 grey images: each class has 20 prototypes of 3
    to 6 blurred strokes; a row is a prototype of its class shifted by up
    to 2 pixels, with its ink scaled and noise on the inked pixels."""
    import numpy as np
    rng = np.random.default_rng(seed)
    side = 28
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float64)
    protos = np.zeros((10, 20, side, side))
    for c in range(10):
        for k in range(20):
            img = np.zeros((side, side))
            for _ in range(rng.integers(3, 7)):
                a, b = rng.uniform(4, 24, size=2), rng.uniform(4, 24, size=2)
                width = rng.uniform(1.2, 2.4)
                ab = b - a
                t = np.clip(((yy - a[0]) * ab[0] + (xx - a[1]) * ab[1]) / max(ab @ ab, 1e-9), 0, 1)
                d2 = (yy - a[0] - t * ab[0]) ** 2 + (xx - a[1] - t * ab[1]) ** 2
                img = np.maximum(img, np.exp(-d2 / (2 * width * width)))
            protos[c, k] = img
    labels = rng.integers(0, 10, size=rows)
    which = rng.integers(0, 20, size=rows)
    shifts = rng.integers(-2, 3, size=(rows, 2))
    ink = rng.uniform(0.7, 1.3, size=rows)
    with open(path, "w") as f:
        for r in range(rows):
            img = np.roll(protos[labels[r], which[r]], tuple(shifts[r]), axis=(0, 1)) * ink[r]
            img = img + (img > 0.05) * rng.normal(0, 0.1, size=img.shape)
            img = np.clip(img, 0, 1).reshape(-1)
            img[img < 0.15] = 0
            nz = np.nonzero(img)[0]
            f.write(f"{labels[r]} " + " ".join(f"{j + 1}:{img[j]:.3g}" for j in nz) + "\n")


def dataset(name):
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / name
    if path.exists():
        return path
    if name == "images":
        make_images(str(path) + ".tmp")
    else:
        folder, stem, rows = SOURCES[name]
        with lzma.open(DATA / folder / f"{stem}.xz", "rt") as src, open(str(path) + ".tmp", "w") as dst:
            for i, line in enumerate(src):
                if rows is not None and i >= rows:
                    break
                dst.write(line)
    os.replace(str(path) + ".tmp", path)
    return path


def run_search(path, extra, threads):
    """stdout, wall seconds, CPU seconds (user + sys of the search), load average before it."""
    cmd = [str(REPO / "train"), "-C", "-k", "anne", "-m", str(threads)] + extra + [str(path), os.devnull]
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {r.stderr}")
    return r.stdout, seconds, cpu, load


def exhaustive_best(name, text):
    """The exhaustive table's best (psi, C, score); None when it did not finish."""
    m = BEST.search(text)
    if m:
        return int(m.group(1)), float(m.group(2)), float(m.group(3))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="satimage,pendigits,usps,letter")
    ap.add_argument("--exhaustive", action="store_true", help="run the exhaustive search too (slow)")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--out", default=str(RESULTS / "ik_search.md"))
    a = ap.parse_args()
    rows = []
    for name in a.sets.split(","):
        path = dataset(name)
        stored = RESULTS / f"ik_search_exhaustive_{name}.txt"
        if a.exhaustive:
            text, seconds, _, _ = run_search(path, ["-E", "1"], a.threads)
            stored.write_text(text + f"# wall {seconds:.0f} s, -m {a.threads}\n")
        exhaustive = exhaustive_best(name, stored.read_text()) if stored.exists() else None
        ex_time = None
        if stored.exists():
            m = re.search(r"^# wall (\d+) s", stored.read_text(), re.M)
            ex_time = int(m.group(1)) if m else None
        text, seconds, cpu, load = run_search(path, [], a.threads)
        (WORK / f"{name}.search.txt").write_text(text)
        (RESULTS / f"ik_search_new_{name}.txt").write_text(
            text + f"# wall {seconds:.0f} s, CPU (user + sys) {cpu:.0f} s, -m {a.threads}, "
            f"load average {load:.2f} when it started\n")
        m = BEST.search(text)
        new = (int(m.group(1)), float(m.group(2)), float(m.group(3)))
        verdict = "no exhaustive table"
        if exhaustive is not None:
            gap = exhaustive[2] - new[2]
            verdict = f"{gap:+.2f} points ({'ok' if gap <= 0.5 else 'OVER 0.5'})"
        rows.append((name, seconds, cpu, load, new, ex_time, exhaustive, verdict))
        print(f"{name}: new {seconds:.0f} s (CPU {cpu:.0f} s, load {load:.2f}) psi {new[0]} C {new[1]:g} "
              f"CV {new[2]:g}% | exhaustive "
              f"{ex_time if ex_time is not None else '-'} s {exhaustive} | {verdict}", flush=True)
    lines = ["| set | new search: wall s (CPU s, load) | new (psi, C, CV %) | exhaustive s | "
             "exhaustive best (psi, C, CV %) | gap |",
             "|---|---|---|---|---|---|"]
    for name, seconds, cpu, load, new, ex_time, ex, verdict in rows:
        ex_text = f"({ex[0]}, {ex[1]:g}, {ex[2]:g})" if ex else "did not finish / not run"
        lines.append(f"| {name} | {seconds:.0f} ({cpu:.0f}, {load:.1f}) | ({new[0]}, {new[1]:g}, {new[2]:g}) | "
                     f"{ex_time if ex_time is not None else '-'} | {ex_text} | {verdict} |")
    Path(a.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
