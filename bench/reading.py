#!/usr/bin/env python3
"""Reading versus solving in `train`, ours against upstream's (issue 22 part 2).

Each program is run as a whole process, side by side and interleaved (the order
rotates every round), and the median wall time of the rounds is kept:

  read   `train -c 0 FILE`: both ours and upstream's read the whole file, then
         refuse C <= 0 and exit, so this is reading plus process start.
  total  `train -s 2 -q FILE` (ours with -m 1: one thread, like upstream's):
         reading and solving; solve = total - read.

Upstream is Debian's liblinear-train (LIBLINEAR 2.x, fgets + strtok + strtod,
two passes over the file). --before names another build's `train` (e.g. main
before this change) to show the change itself. Files: the shared sets named
in --sets (xz, decompressed into --work) and, with --gen-rows N, a generated
covtype-like file (bench/stream_memory.py's make_dense, 54 columns).

Usage: bench/reading.py [--rounds 7] [--before PATH] [--gen-rows 1000000]
Prints a markdown table; the machine and its load go in the header lines.
"""
import argparse
import lzma
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from stream_memory import make_dense  # noqa: E402

SETS = ["a9a/a9a.train", "ijcnn1/ijcnn1.train", "cod-rna/cod-rna.train",
        "covtype.binary.subset20k/covtype.binary.subset20k.all", "letter/letter.all",
        "usps/usps.train", "madelon/madelon.train"]


def wall(cmd, ok_codes):
    start = time.perf_counter()
    p = subprocess.run([str(c) for c in cmd], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - start
    if p.returncode not in ok_codes:
        raise SystemExit(f"{cmd}: exit {p.returncode}: {p.stderr}")
    return took


def machine():
    model = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.environ.get("LIBLINEAR_IK_DATA", "/work/shared/data"))
    ap.add_argument("--work", default=str(ROOT / "bench" / "work" / "reading"))
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--ours", default=str(ROOT / "train"))
    ap.add_argument("--upstream", default="/usr/bin/liblinear-train")
    ap.add_argument("--before", help="another `train` to time beside ours")
    ap.add_argument("--gen-rows", type=int, default=0)
    ap.add_argument("--no-solve", action="store_true", help="time reading only")
    a = ap.parse_args()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    files = []
    for s in filter(None, a.sets.split(",")):
        out = work / Path(s).name
        if not out.exists():
            with lzma.open(Path(a.data) / (s + ".xz")) as f, open(out, "wb") as g:
                g.write(f.read())
        files.append(out)
    if a.gen_rows:
        out = work / f"covtype-like-{a.gen_rows}.libsvm"
        if not out.exists():
            make_dense(out, a.gen_rows, 54, 1)
        files.append(out)
    progs = [("upstream", a.upstream), ("ours", a.ours)]
    if a.before:
        progs.append(("before", a.before))
    model = work / "reading.model"
    load0 = os.getloadavg()
    print(f"Machine: {machine()}. Rounds: {a.rounds}, interleaved, medians of wall time.")
    head = "| file | MB | rows | " + " | ".join(f"read {n} (s)" for n, _ in progs)
    head += " | read ours/upstream |"
    if a.before:
        head += " read ours/before |"
    if not a.no_solve:
        head += " solve upstream (s) | solve ours (s) | total ours/upstream |"
    print()
    print(head)
    print("|---" + "|---:" * (head.count("|") - 2) + "|")
    for f in files:
        t = {}
        jobs = [(n, "read", [p, "-c", "0", f, model], (1,)) for n, p in progs]
        if not a.no_solve:
            # ours at one thread, as upstream's train (no OpenMP) always runs
            jobs += [(n, "total", [p, "-s", "2", "-q"] + (["-m", "1"] if n == "ours" else [])
                      + [f, model], (0,)) for n, p in progs if n != "before"]
        for r in range(a.rounds):
            k = r % len(jobs)
            for name, kind, cmd, ok in jobs[k:] + jobs[:k]:
                t.setdefault((name, kind), []).append(wall(cmd, ok))
        med = {k: statistics.median(v) for k, v in t.items()}
        rows = sum(1 for _ in open(f, "rb"))
        line = f"| {f.name} | {f.stat().st_size / 1e6:.1f} | {rows} | "
        line += " | ".join(f"{med[(n, 'read')]:.3f}" for n, _ in progs)
        line += f" | {med[('ours', 'read')] / med[('upstream', 'read')]:.2f} |"
        if a.before:
            line += f" {med[('ours', 'read')] / med[('before', 'read')]:.2f} |"
        if not a.no_solve:
            su = med[("upstream", "total")] - med[("upstream", "read")]
            so = med[("ours", "total")] - med[("ours", "read")]
            line += (f" {su:.3f} | {so:.3f} |"
                     f" {med[('ours', 'total')] / med[('upstream', 'total')]:.2f} |")
        print(line, flush=True)
    load1 = os.getloadavg()
    print()
    print(f"Load average (1 min) before {load0[0]:.2f}, after {load1[0]:.2f}.")


if __name__ == "__main__":
    main()
