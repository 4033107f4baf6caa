#!/usr/bin/env python3
"""bench/ik_search_summary.py - issue 21's quality table from the committed
outputs: the staged search's choice (bench/results/ik_search_new_<set>.txt)
against the best of the exhaustive dual-scored grid
(bench/results/ik_search_grid_<set>.txt, bench/ik_search_grid.py), and the
grid against the primal exhaustive tables (`train -C -k anne -E 1`,
bench/results/ik_search_exhaustive_<set>[.partial].txt) where they exist.

  ik_search_summary.py [--sets a,b,...]

Prints markdown. Runs nothing.
"""
import argparse
import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results"
BEST = re.compile(r"^Best psi = (\d+)  Best C = (\S+)  CV accuracy = (\S+)%$", re.M)
WALL = re.compile(r"^# wall (\d+) s, CPU \(user \+ sys\) (\d+) s, -m (\d+), load average (\S+)", re.M)


def grid(name):
    path = RESULTS / f"ik_search_grid_{name}.txt"
    if not path.exists():
        return None, ""
    pts = {}
    rows = None
    for line in path.read_text().splitlines():
        m = re.match(r"# \S+: (\d+) rows", line)
        if m:
            rows = int(m.group(1))
        f = line.split()
        if len(f) == 4 and not line.startswith("#"):
            pts[(int(f[0]), float(f[1]))] = float(f[2])
    psis = [4 << i for i in range(11) if rows is None or 4 << i <= rows]
    full, cut, missing = [], [], []
    for psi in psis:
        n = sum(1 for (p, _) in pts if p == psi)
        (full if n == 17 else cut if n > 0 else missing).append((psi, n))
    notes = []
    if cut:
        notes.append("psi with some C only: " + ", ".join(f"{p} ({n} C)" for p, n in cut))
    if missing:
        notes.append("psi not run: " + ", ".join(str(p) for p, _ in missing))
    return pts, "; ".join(notes)


def primal(name):
    for suffix in ("", ".partial"):
        path = RESULTS / f"ik_search_exhaustive_{name}{suffix}.txt"
        if path.exists():
            break
    else:
        return None
    pts, pending = {}, []
    for line in path.read_text().splitlines():
        m = re.match(r"log2c=\s*(\S+)\s+rate=(\S+)", line)
        if m:
            pending.append((float(m.group(1)), float(m.group(2))))
        m = re.match(r"psi = (\d+)  Best C", line)
        if m:
            for l2, rate in pending:
                pts[(int(m.group(1)), 2.0 ** l2)] = rate
            pending = []
    return pts


def best(pts):
    return max(pts.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="satimage,pendigits,usps,letter,a9a,ijcnn1,images")
    a = ap.parse_args()
    print("| set | search wall s (CPU s, load at start) | search choice (psi, C, printed CV %) | "
          "grid at that (psi, C) | grid best (psi, C, CV %) | gap (points) |")
    print("|---|---|---|---|---|---|")
    compare = []
    for name in a.sets.split(","):
        new_path = RESULTS / f"ik_search_new_{name}.txt"
        text = new_path.read_text() if new_path.exists() else ""
        m, w = BEST.search(text), WALL.search(text)
        choice = (int(m.group(1)), float(m.group(2)), float(m.group(3))) if m else None
        pts, notes = grid(name)
        cells = [name,
                 f"{w.group(1)} ({w.group(2)}, {float(w.group(4)):.1f})" if w else "not run",
                 f"({choice[0]}, {choice[1]:g}, {choice[2]:g})" if choice else "-"]
        if pts:
            (bp, bc), bs = best(pts)
            at = pts.get((choice[0], choice[1])) if choice else None
            cells.append(f"{at:g}" if at is not None else "not in grid")
            cells.append(f"({bp}, {bc:g}, {bs:g})" + (f" [{notes}]" if notes else ""))
            if choice:
                gap = bs - (at if at is not None else choice[2])
                cells.append(f"{gap:.2f} ({'pass' if gap <= 0.5 else 'FAIL'})" + (" partial grid" if notes else ""))
            else:
                cells.append("-")
        else:
            cells += ["-", "no grid", "-"]
        print("| " + " | ".join(cells) + " |")
        pr = primal(name)
        if pts and pr:
            common = [k for k in pr if k in pts]
            diffs = [abs(pr[k] - pts[k]) for k in common]
            (pp, pc), ps = best({k: pr[k] for k in common})
            order = sorted(common, key=lambda k: (-pts[k], k))
            compare.append((name, len(common), max(diffs), sum(diffs) / len(diffs), (pp, pc, ps),
                            pts[(pp, pc)], order.index((pp, pc)) + 1, best({k: pts[k] for k in common})))
    if compare:
        print()
        print("| set | common (psi, C) points | max abs(dual - primal) | mean | primal best (psi, C, %) | "
              "dual at it | its rank in the dual grid | dual best on those points |")
        print("|---|---|---|---|---|---|---|---|")
        for name, n, mx, mean, (pp, pc, ps), dual_at, rank, ((dp, dc), ds) in compare:
            print(f"| {name} | {n} | {mx:.2f} | {mean:.3f} | ({pp}, {pc:g}, {ps:g}) | {dual_at:g} | {rank} | "
                  f"({dp}, {dc:g}, {ds:g}) |")


if __name__ == "__main__":
    main()
