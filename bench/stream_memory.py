#!/usr/bin/env python3
"""bench/stream_memory.py - peak memory of streaming `train -k` (issue 22).

  stream_memory.py images DATA [--ref-train BIN] [--upstream BIN] [--threads N]
                    [--solver S] [--kernel anne|iforest] [--psi G]
  stream_memory.py growth OUTDIR [--rows 100000,1000000] [--dims 54 | --images]
                    [--solvers 1,2] [--upstream BIN [--upstream-max-rows N]
                    [--upstream-limit S]] [--predict-at N,...] [--threads N] [--keep]
  stream_memory.py make-dense OUT --rows N [--dims 54] [--seed S]

`images` runs, one after the other on the same file, with /usr/bin/time -v's
peak resident set size of the whole process:
  - upstream's `train -s 1` (--upstream, default liblinear-train, Debian's
    liblinear-tools),
  - --ref-train (e.g. the main branch's train, which reads every raw row
    first) and ./train, both `-k anne -t 100 -g 256 -s 1` (or --kernel,
    --psi, --solver: upstream then runs that -s too),
  - ./predict with that model on the first 10, 10000 and all rows of DATA
    (peak memory flat in the test file's length),
and prints a Markdown table with the .ik file's bytes and the cells' bytes
(rows * t * 2: uint16 cells) beside the goal 1.25 x (.ik + cells) + 32 MB.

`growth` generates covtype-like data (`make-dense`: 54 columns, 10
continuous and 44 one-hot) or with --images the 784-column two-class
image-like set (bench/make_images.py --binary, written in blocks) of each
row count, in a scratch folder, one file at a time, not kept, and prints
binary train -k anne -s 1's (--solvers) peak memory, .ik and cells bytes and
time per row: how memory grows per training row (the cells are t * 2 = 200
bytes a row, the labels 8 and the first pass's line offsets 8). With
--upstream, upstream's `train -s 1` on the same file (up to
--upstream-max-rows, each run stopped after --upstream-limit seconds: its
peak is reached once the rows are read); with --predict-at N, predict's peak
with the first solver's model on the first 10000 and on all N rows.
"""
import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
T, PSI = 100, 256
MB = 1e6


def peak(cmd, stopped_ok=False):
    """(peak RSS in bytes, wall seconds) of cmd under /usr/bin/time -v; fails loudly."""
    return measure(cmd, stopped_ok)[:2]


def measure(cmd, stopped_ok=False):
    """(peak RSS in bytes, wall seconds, CPU seconds) of cmd under /usr/bin/time -v.

    CPU (user + system) is given beside the wall time because on a shared, loaded machine it
    moves less with the load than the wall time does (it still does some: shared caches).

    stopped_ok: cmd runs under timeout(1), and its exit 124 (stopped) gives wall None; the
    peak is then the child's until it was stopped (wait4's maximum covers reaped children).
    """
    start = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-v", *map(str, cmd)], stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if stopped_ok and r.returncode == 124:
        wall = None
    elif r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(map(str, cmd))}\n{r.stderr}")
    kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    cpu = sum(float(re.search(rf"{w} time \(seconds\): ([0-9.]+)", r.stderr).group(1))
        for w in ("User", "System"))
    return kb * 1024, wall, cpu


def rows_of(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def head(path, n, out):
    with open(path, "rb") as src, open(out, "wb") as dst:
        for i, line in enumerate(src):
            if i >= n:
                break
            dst.write(line)


def images(a):
    data = Path(a.data)
    work = Path(a.work or data.parent)
    rows = rows_of(data)
    kopts = ["-k", a.kernel, "-t", T, "-g", a.psi, "-s", a.solver, "-m", a.threads, "-q"]
    table = []
    up, up_s = peak([a.upstream, "-s", a.solver, "-q", data, work / "up.model"])
    table.append((f"upstream train -s {a.solver} (" + a.upstream + ")", up, up_s))
    if a.ref_train:
        ref, ref_s = peak([a.ref_train, *kopts, data, work / "ref.model"])
        table.append(("reference train -k (" + a.ref_train + ")", ref, ref_s))
    new, new_s = peak([ROOT / "train", *kopts, data, work / "new.model"])
    table.append(("this train -k (streaming)", new, new_s))
    ik = (work / "new.model.ik").stat().st_size
    if a.ref_train and (work / "ref.model.ik").read_bytes() != (work / "new.model.ik").read_bytes():
        sys.exit("the two .ik files differ")
    cells = rows * T * 2
    for n in (10, 10000, rows):
        test = work / f"test{n}.libsvm"
        head(data, n, test)
        p, s = peak([ROOT / "predict", "-m", a.threads, test, work / "new.model", work / "out"])
        table.append((f"predict, {n} test rows", p, s))
    goal = 1.25 * (ik + cells) + 32 * MB
    print(f"data: {data.name}, {rows} rows; -k {a.kernel} -t {T} -g {a.psi} -s {a.solver}")
    print(f".ik file: {ik / MB:.1f} MB; cells: {cells / MB:.1f} MB (rows x t x 2 bytes);"
        f" goal 1.25 x (.ik + cells) + 32 MB = {goal / MB:.1f} MB\n")
    print("| run | peak RSS (MB) | wall (s) |")
    print("|---|---:|---:|")
    for name, p, s in table:
        print(f"| {name} | {p / MB:.1f} | {s:.2f} |")


def make_dense(out, rows, dims, seed):
    """covtype-like rows: 10 continuous columns, then one-hot groups of 4 and dims - 14."""
    import random
    rnd = random.Random(seed)
    hot = dims - 14
    with open(out, "w") as f:
        for _ in range(rows):
            x = [rnd.gauss(0, 1) for _ in range(10)]
            w, s = rnd.randrange(4), rnd.randrange(hot)
            label = 1 if x[0] * x[1] + 0.5 * x[2] - (s % 3) * 0.3 > 0 else -1
            cols = " ".join(f"{j + 1}:{v:.4g}" for j, v in enumerate(x))
            f.write(f"{label} {cols} {11 + w}:1 {15 + s}:1\n")


def growth(a):
    """Peak memory and time of train -k against rows, per solver; upstream and predict beside.

    Each row count's file is generated, run on, and (without --keep) deleted before the next,
    so the disk holds one file at a time (the 784-column set is about 4.4 GB a million rows).
    Every line is printed as soon as it is measured: a cut-off run keeps what it had.
    """
    from reading import machine  # here: reading.py imports this file's make_dense
    work = Path(a.outdir)
    work.mkdir(parents=True, exist_ok=True)
    dims = 784 if a.images else a.dims
    print(f"machine: {machine()}; -k anne -t {T} -g {PSI} -m {a.threads}, binary,"
        f" {'image-like (bench/make_images.py --binary)' if a.images else 'covtype-like'}"
        f" {dims} columns", flush=True)
    print("| rows | run | peak RSS (MB) | .ik (MB) | cells (MB) | wall (s) | us per row |"
        " CPU (s) | CPU us per row | load |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|", flush=True)
    last = {}
    for n in (int(x) for x in a.rows.split(",")):
        data = work / f"{'images' if a.images else 'dense'}{n}.libsvm"
        if not data.exists():
            if a.images:
                from make_images import write_binary
                write_binary(data, n, 1)
            else:
                make_dense(data, n, a.dims, 1)
        size = data.stat().st_size
        for solver in a.solvers.split(","):
            model = work / f"g{solver}.model"
            p, s, c = measure([ROOT / "train", "-k", "anne", "-t", T, "-g", PSI, "-s", solver,
                "-m", a.threads, "-q", data, model])
            ik = Path(str(model) + ".ik").stat().st_size
            extra = ""
            if solver in last:
                m, q = last[solver]
                extra = f" ({(p - q) / (n - m):.0f} bytes per added row)"
            last[solver] = (n, p)
            print(f"| {n} | train -k -s {solver} | {p / MB:.1f}{extra} | {ik / MB:.1f} |"
                f" {n * T * 2 / MB:.1f} | {s:.1f} | {s / n * 1e6:.1f} | {c:.1f} | {c / n * 1e6:.1f} |"
                f" {load()} |", flush=True)
        if a.upstream and n <= a.upstream_max_rows:
            p, s, c = measure(["timeout", a.upstream_limit, a.upstream, "-s", "1", "-q", data,
                work / "up.model"], stopped_ok=True)
            note = f" (stopped at {a.upstream_limit} s, still training)" if s is None else ""
            wall = a.upstream_limit if s is None else f"{s:.1f}"
            per = "-" if s is None else f"{s / n * 1e6:.1f}"
            print(f"| {n} | upstream train -s 1{note} | {p / MB:.1f} | - | - | {wall} | {per} |"
                f" {c:.1f} | - | {load()} |", flush=True)
        if n in a.predict_at:
            model = work / f"g{a.solvers.split(',')[0]}.model"
            for m in sorted({min(10000, n), n}):
                test = data
                if m < n:
                    test = work / f"test{m}.libsvm"
                    head(data, m, test)
                p, s, c = measure([ROOT / "predict", "-m", a.threads, test, model, work / "out"])
                print(f"| {n} | predict, {m} test rows | {p / MB:.1f} | - | - | {s:.1f} |"
                    f" {s / m * 1e6:.1f} | {c:.1f} | {c / m * 1e6:.1f} | {load()} |", flush=True)
                if m < n:
                    test.unlink()
        print(f"(rows {n}: {size / 1e9:.2f} GB of text)", flush=True)
        if not a.keep:
            data.unlink()


def load():
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="what", required=True)
    i = sub.add_parser("images")
    i.add_argument("data")
    i.add_argument("--ref-train")
    i.add_argument("--upstream", default="liblinear-train")
    i.add_argument("--threads", default="2")
    i.add_argument("--work")
    i.add_argument("--solver", default="1")
    i.add_argument("--kernel", default="anne")
    i.add_argument("--psi", default=str(PSI))
    g = sub.add_parser("growth")
    g.add_argument("outdir")
    g.add_argument("--rows", default="100000,1000000")
    g.add_argument("--dims", type=int, default=54)
    g.add_argument("--images", action="store_true", help="784-column image-like rows")
    g.add_argument("--solvers", default="1")
    g.add_argument("--upstream")
    g.add_argument("--upstream-max-rows", type=int, default=10 ** 9)
    g.add_argument("--upstream-limit", default="600")
    g.add_argument("--predict-at", default="", type=lambda v: {int(x) for x in v.split(",") if x})
    g.add_argument("--threads", default="2")
    g.add_argument("--keep", action="store_true")
    m = sub.add_parser("make-dense")
    m.add_argument("out")
    m.add_argument("--rows", type=int, required=True)
    m.add_argument("--dims", type=int, default=54)
    m.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.what == "images":
        images(a)
    elif a.what == "growth":
        growth(a)
    else:
        make_dense(a.out, a.rows, a.dims, a.seed)


if __name__ == "__main__":
    main()
