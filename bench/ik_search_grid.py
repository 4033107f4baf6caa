#!/usr/bin/env python3
"""bench/ik_search_grid.py - the exhaustive (psi, C) reference for issue 21's
quality goal, in a form that finishes on a 2-core machine.

  ik_search_grid.py [--sets a,b,...] [--threads M] [--budget S]

For each set (the rows bench/ik_search.py searches: letter's first 16000,
the other sets' training files): every psi in 4, 8, ..., 4096 (not above
the number of rows), on ALL rows, and every C = 2^-6, ..., 2^10, scored by
5-fold CV with the dual solver -s 1 (the same L2-regularised L2-loss SVM
problem as -s 2, which `train -C -k` trains; the staged search also scores
its C walks with -s 1), t = 100 and seed 1 (the defaults, as the search).

The score of (psi, C) is that of `train -s 1 -k anne -g PSI -c C -v 5`.
The map does not depend on C, so each psi is mapped once (tools/ikmap
builds the partitioning of all rows and maps them, as train -k does) and
`train -s 1 -c C -v 5` runs on the mapped rows for every C; at the first
psi of each set the script checks that this gives the score of the
`train -k` command itself and stops if it does not.

Output: bench/results/ik_search_grid_<set>.txt, one line per (psi, C):
"psi C score seconds" (seconds: that CV run's wall time; the psi's map
time is on a '# map' line). Lines already in the file are not run again
(resume). Before each psi the script estimates its cost from the psi
before it (its seconds times their growth from the psi before that) and
stops the set, with a '# skipped' line, when that would pass --budget
seconds for the set (counted over this run). --descending runs the largest
psi first, so that a cut drops the small psi instead (on letter and ijcnn1
the small psi at large C are the slowest points: letter psi 4, C = 64: 19 s).
"""
import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ik_search  # noqa: E402  (dataset(): the same rows as the search)

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
TRAIN = str(REPO / "train")
IKMAP = str(REPO / "tools" / "ikmap")
CV = re.compile(r"Cross Validation Accuracy = (\S+)%")
PSIS = [4 << i for i in range(11)]          # 4 .. 4096
LOG2C = list(range(-6, 11))                # C = 2^-6 .. 2^10


def cv_score(cmd):
    started = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - started
    m = CV.search(r.stdout)
    if r.returncode != 0 or not m:
        sys.exit(f"{' '.join(cmd)} failed: {r.stdout[-500:]} {r.stderr[-500:]}")
    return float(m.group(1)), seconds


def done_lines(path):
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            f = line.split()
            if len(f) == 4 and not line.startswith("#"):
                done[(int(f[0]), float(f[1]))] = (float(f[2]), float(f[3]))
    return done


def append(path, line):
    with open(path, "a") as f:
        f.write(line + "\n")


def grid(name, threads, budget, descending=False, max_log2c=LOG2C[-1], only=None):
    data = ik_search.dataset(name)
    rows = sum(1 for _ in open(data))
    out = RESULTS / f"ik_search_grid_{name}.txt"
    done = done_lines(out)
    if not out.exists():
        append(out, f"# {name}: {rows} rows; psi C 5-fold-CV-accuracy(%) seconds; "
               f"train -s 1 -k anne -g psi -c C -v 5 -m {threads} (t = 100, seed 1)")
    if max_log2c < LOG2C[-1]:
        append(out, f"# this run: C up to 2^{max_log2c} only")
    work = ik_search.WORK
    started = time.monotonic()
    costs = []          # wall seconds of each psi run here, map included
    checked = False
    psis = [p for p in PSIS if p <= rows and (only is None or p in only)]
    for psi in (psis[::-1] if descending else psis):
        todo = [c for c in LOG2C if (psi, 2.0 ** c) not in done and c <= max_log2c]
        if not todo:
            continue
        if len(costs) >= 1:
            growth = costs[-1] / costs[-2] if len(costs) >= 2 else (1.0 if descending else 2.0)
            guess = costs[-1] * min(max(growth, 1.0), 4.0) * len(todo) / len([c for c in LOG2C if c <= max_log2c])
            spent = time.monotonic() - started
            if spent + guess > budget:
                rest = [p for p in (psis[::-1] if descending else psis)
                        if (p >= psi if not descending else p <= psi)]
                append(out, f"# skipped psi {', '.join(map(str, rest))}: estimated {guess:.0f} s for psi {psi} "
                       f"alone, {spent:.0f} s spent of this run's budget {budget:.0f} s")
                print(f"{name}: stopped before psi {psi} (estimate {guess:.0f} s)", flush=True)
                return
        t0 = time.monotonic()
        part, mapped = work / f"{name}.grid.part", work / f"{name}.grid.mapped"
        subprocess.run([IKMAP, "-k", "anne", "-g", str(psi), "-m", str(threads), str(data), str(part)],
                       check=True, capture_output=True)
        with open(data) as src, open(mapped, "w") as dst:
            subprocess.run([IKMAP, "-m", str(threads), str(part)], stdin=src, stdout=dst, check=True)
        append(out, f"# map psi {psi}: {time.monotonic() - t0:.1f} s")
        for c in todo:
            C = 2.0 ** c
            score, seconds = cv_score([TRAIN, "-s", "1", "-c", f"{C:g}", "-v", "5", "-m", str(threads),
                                       str(mapped)])
            if not checked:
                direct, dsec = cv_score([TRAIN, "-s", "1", "-k", "anne", "-g", str(psi), "-c", f"{C:g}",
                                         "-v", "5", "-m", str(threads), str(data)])
                if direct != score:
                    sys.exit(f"{name}: mapped rows give {score}%, train -k gives {direct}% (psi {psi}, C {C:g})")
                append(out, f"# check psi {psi} C {C:g}: train -k gives the same {direct}% ({dsec:.1f} s)")
                checked = True
            append(out, f"{psi} {C:g} {score:g} {seconds:.2f}")
        costs.append(time.monotonic() - t0)
        print(f"{name}: psi {psi} done in {costs[-1]:.0f} s", flush=True)
    os.unlink(work / f"{name}.grid.mapped")
    done = done_lines(out)
    best = max(done.items(), key=lambda kv: (kv[1][0], -kv[0][0], -kv[0][1]))
    append(out, f"# best psi {best[0][0]} C {best[0][1]:g} CV {best[1][0]:g}% "
           f"(first in psi, then C order among equal scores); {len(done)} points")
    print(f"{name}: best psi {best[0][0]} C {best[0][1]:g} CV {best[1][0]:g}%", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="satimage,pendigits,usps,letter,a9a,ijcnn1")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--budget", type=float, default=1800, help="seconds per set in this run")
    ap.add_argument("--max-log2c", type=int, default=LOG2C[-1],
                    help="leave out C above 2^this (a cut, stated in the table; default 10: none)")
    ap.add_argument("--psis", help="only these psi (comma-separated), e.g. to fill one psi's C range")
    ap.add_argument("--descending", action="store_true",
                    help="largest psi first (where the search's choices lie), so that a budget cut drops the small ones")
    a = ap.parse_args()
    for name in a.sets.split(","):
        grid(name, a.threads, a.budget, a.descending, a.max_log2c,
             None if a.psis is None else [int(p) for p in a.psis.split(",")])


if __name__ == "__main__":
    main()
