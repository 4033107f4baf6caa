#!/usr/bin/env python3
"""bench/stream_memory.py - peak memory of streaming `train -k` (issue 22).

  stream_memory.py images DATA [--ref-train BIN] [--upstream BIN] [--threads N]
                    [--solver S] [--kernel anne|iforest] [--psi G]
  stream_memory.py growth OUTDIR [--rows 100000,1000000] [--dims 54]
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
continuous and 44 one-hot, in a scratch folder, not kept) of each row count
and prints train -k anne -s 1's peak memory and time per row: how memory
grows per training row (the cells are t * 2 = 200 bytes a row, the labels
8 and the first pass's line offsets 8).
"""
import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
T, PSI = 100, 256
MB = 1e6


def peak(cmd):
    """(peak RSS in bytes, wall seconds) of cmd under /usr/bin/time -v; fails loudly."""
    start = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-v", *map(str, cmd)], stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(map(str, cmd))}\n{r.stderr}")
    kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    return kb * 1024, wall


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
    work = Path(a.outdir)
    work.mkdir(parents=True, exist_ok=True)
    print(f"| rows | dims | peak RSS (MB) | cells (MB) | wall (s) | us per row |")
    print("|---:|---:|---:|---:|---:|---:|")
    last = None
    for n in (int(x) for x in a.rows.split(",")):
        data = work / f"dense{n}.libsvm"
        if not data.exists():
            make_dense(data, n, a.dims, 1)
        p, s = peak([ROOT / "train", "-k", "anne", "-t", T, "-g", PSI, "-s", "1", "-m",
            a.threads, "-q", data, work / "g.model"])
        extra = ""
        if last:
            extra = f" ({(p - last[1]) / (n - last[0]):.0f} bytes per added row)"
        print(f"| {n} | {a.dims} | {p / MB:.1f}{extra} | {n * T * 2 / MB:.1f} | {s:.1f} |"
            f" {s / n * 1e6:.2f} |")
        last = (n, p)
        if not a.keep:
            data.unlink()


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
