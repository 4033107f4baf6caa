#!/usr/bin/env python3
"""bench/search_stream_memory.py - peak memory and wall time of `train -C -k`,
reading the file whole (the build before issue 22's search streaming) against
reading it in passes (this build).

  search_stream_memory.py --ref-train BIN [--train NEW] [--rounds N] [--work DIR] DATA OPTIONS

Runs BIN and NEW (default ./train; a copy keeps a rebuild from changing it mid-run) with `-C OPTIONS DATA MODEL` (OPTIONS one string, e.g.
"-k anne -t 10 -T 0 -m 2 -W 1") alternately, N rounds (reference first in each),
under /usr/bin/time -v, and prints a Markdown table of each build's peak
resident set size (the whole process; not affected by load) and wall times
(each round's, then the median), the load average before and after, and
whether the two builds printed the same lines (seconds aside) and, with -W 1
in OPTIONS, wrote the same model pair (same model name in two folders: the
model's trailer names its .ik file). It stops with an error when they differ.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1e6
SECONDS = re.compile(r", \d+\.\d s\)$")
# stage 3's estimate in its note is a time too (over -T's budget)
ESTIMATE = re.compile(r"would take about \d+ s more")


def timed(cmd, cwd):
    """(peak RSS bytes, wall seconds, stdout) of cmd under /usr/bin/time -v; fails loudly."""
    start = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-v", *map(str, cmd)], cwd=cwd, capture_output=True,
        text=True)
    wall = time.monotonic() - start
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(map(str, cmd))}\n{r.stderr}")
    kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    return kb * 1024, wall, r.stdout


def load():
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref-train", required=True)
    ap.add_argument("--train", default=str(ROOT / "train"))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--work", default="/tmp/search_stream_memory")
    ap.add_argument("data")
    ap.add_argument("options")
    a = ap.parse_args()
    builds = [("reference (rows read whole)", Path(a.ref_train).resolve()),
              ("this train (file in passes)", Path(a.train).resolve())]
    peaks = {name: [] for name, _ in builds}
    walls = {name: [] for name, _ in builds}
    lines = {}
    print(f"data: {a.data}; train -C {a.options}; load average before: {load()}")
    for _ in range(a.rounds):
        for k, (name, binary) in enumerate(builds):
            folder = Path(a.work) / str(k)
            folder.mkdir(parents=True, exist_ok=True)
            for old in folder.glob("best.model*"):
                old.unlink()
            p, s, out = timed([binary, "-C", *a.options.split(), Path(a.data).resolve(),
                "best.model"], folder)
            peaks[name].append(p)
            walls[name].append(s)
            lines[name] = [ESTIMATE.sub("would take about N s more", SECONDS.sub(")", line))
                for line in out.splitlines()]
    same_lines = lines[builds[0][0]] == lines[builds[1][0]]
    written = [(Path(a.work) / k / f) for k in ("0", "1") for f in ("best.model", "best.model.ik")]
    if "-W 1" in a.options:
        same_model = all(f.exists() for f in written) and all(
            written[i].read_bytes() == written[i + 2].read_bytes() for i in (0, 1))
    else:
        same_model = not any(f.exists() for f in written)	# nothing written, both
    print(f"load average after: {load()}\n")
    print("| build | peak RSS (MB) | wall (s), each round | median wall (s) |")
    print("|---|---:|---:|---:|")
    for name, _ in builds:
        print(f"| {name} | {max(peaks[name]) / MB:.1f} | "
            f"{', '.join(f'{s:.1f}' for s in walls[name])} | {statistics.median(walls[name]):.1f} |")
    ref, new = (max(peaks[n]) for n, _ in builds)
    print(f"\npeak ratio (this / reference): {new / ref:.2f}; same lines (seconds aside): "
        f"{same_lines}; same model pair: {same_model}")
    print("\n".join(lines[builds[1][0]]))
    if not (same_lines and same_model):
        sys.exit("the two builds differ")


if __name__ == "__main__":
    main()
