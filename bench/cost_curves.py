#!/usr/bin/env python3
"""Cost curves: time and peak memory of `train` against rows (issue 22 part 3).

On generated covtype-like data (54 columns: 10 continuous, one-hot groups of
4 and 40; bench/stream_memory.py's make_dense, seed 1; written to --work, not
committed) at each row count, runs one after another:

  ours      train -s 1 -m 1, train -s 2 -m 1,
            train -k anne -t 100 -m 1, train -k iforest -t 100 -m 1 (default
            psi: 64 for anne, 32 for iforest; default solver)
  upstream  liblinear-train -s 1, -s 2 (Debian's liblinear-tools)

each process's wall time and peak RSS (getrusage's ru_maxrss of the child, read
through /usr/bin/time -f %M), median over --repeats runs (interleaved: the order rotates). One
thread for ours so the comparison with upstream's single-threaded train is
like for like. Writes the markdown table to stdout, the raw numbers to
--json and the plot (two panels, log-log) to --png.

With --images-log (default bench/results/issue22-images-growth.txt when it
exists) the plot also shows the 784-column image-like points that
`bench/stream_memory.py growth --images` printed there (binary train -k anne
-t 100 -g 256 -s 1 -m 2 and upstream's -s 1 on the same files; a run stopped
by its time limit shows its memory only), as separate, dotted series: their
own data, threads and psi, not comparable point for point with the 54-column
runs. --plot-only redraws the plot and prints the table from --json without
running anything.

Usage: bench/cost_curves.py [--rows 10000,100000,1000000] [--repeats 3]
       bench/cost_curves.py --plot-only
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from stream_memory import make_dense  # noqa: E402
from reading import machine  # noqa: E402

MB = 1024 * 1024


def runs(ours, upstream):
    return [
        ("ours -s 1", [ours, "-s", "1", "-m", "1", "-q"]),
        ("ours -s 2", [ours, "-s", "2", "-m", "1", "-q"]),
        ("ours -k anne", [ours, "-k", "anne", "-t", "100", "-m", "1", "-q"]),
        ("ours -k iforest", [ours, "-k", "iforest", "-t", "100", "-m", "1", "-q"]),
        ("upstream -s 1", [upstream, "-s", "1", "-q"]),
        ("upstream -s 2", [upstream, "-s", "2", "-q"]),
    ]


def measure(cmd, work):
    """Wall seconds and peak RSS bytes of one child process.

    Peak RSS comes from /usr/bin/time's %M, not from this Python's os.wait4: a
    child forked from Python keeps Python's own peak (about 15 MB) in its
    ru_maxrss across exec, which would hide the small runs' real peaks.
    """
    out = work / "time.out"
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(out)] + [str(c) for c in cmd],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - start
    if p.returncode != 0:
        raise SystemExit(f"{cmd}: exit {p.returncode}: {p.stderr}")
    kb = int(out.read_text().split()[-1])
    return took, kb * 1024


def images_points(log):
    """{series: {rows: (wall seconds or None, peak bytes)}} from a growth --images log.

    Its table lines are "| rows | run | peak RSS (MB)[ (...)] | .ik | cells | wall (s) | ...";
    a wall that is not a number (upstream stopped at its limit) gives None.
    """
    names = {"train -k -s 1": "ours -k anne -g 256 -s 1 -m 2, 784 cols",
             "upstream train -s 1": "upstream -s 1, 784 cols"}
    out = {}
    for line in Path(log).read_text().splitlines():
        f = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(f) < 6 or not f[0].isdigit():
            continue
        stopped = "stopped" in f[1]
        run = f[1].split(" (")[0]
        if run not in names:
            continue
        wall = None if stopped else float(f[5])
        out.setdefault(names[run], {})[int(f[0])] = (wall, float(f[2].split()[0]) * 1e6)
    return out


def plot(results, rows, png, images=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name in results:
        xs = [n for n in rows if str(n) in results[name]]
        style = "--" if name.startswith("upstream") else "-"
        ax1.plot(xs, [results[name][str(n)]["wall_s"] for n in xs], style, marker="o", label=name)
        ax2.plot(xs, [results[name][str(n)]["peak_rss_bytes"] / MB for n in xs], style,
                 marker="o", label=name)
    for name, pts in (images or {}).items():
        xs = sorted(pts)
        tx = [n for n in xs if pts[n][0] is not None]
        style = "--" if name.startswith("upstream") else ":"
        ax1.plot(tx, [pts[n][0] for n in tx], style, marker="s", label=name)
        ax2.plot(xs, [pts[n][1] / MB for n in xs], style, marker="s", label=name)
    for ax, what in ((ax1, "wall time (s)"), (ax2, "peak RSS (MB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("training rows (covtype-like, 54 columns; squares: 784-column images)"
                      if images else "training rows (covtype-like, 54 columns)")
        ax.set_ylabel(what)
        ax.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=8)
    fig.suptitle("train: cost against rows (one thread; the 784-column squares -m 2)" if images
                 else "train: cost against rows (one thread)")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def print_table(results, rows, images):
    print("| rows | " + " | ".join(f"{name}: s / MB" for name in results) + " |")
    print("|---:" + "|---:" * len(results) + "|")
    for n in rows:
        cells = []
        for name in results:
            x = results[name].get(str(n))
            cells.append(f"{x['wall_s']:.2f} / {x['peak_rss_bytes'] / MB:.0f}" if x else "-")
        print(f"| {n} | " + " | ".join(cells) + " |")
    if images:
        print("\n784-column image-like points (growth --images log; '-' where upstream was stopped):\n")
        print("| rows | " + " | ".join(f"{name}: s / MB" for name in images) + " |")
        print("|---:" + "|---:" * len(images) + "|")
        for n in sorted({n for pts in images.values() for n in pts}):
            cells = []
            for pts in images.values():
                w, b = pts.get(n, (None, None))
                cells.append("-" if b is None else f"{'-' if w is None else f'{w:.1f}'} / {b / MB:.0f}")
            print(f"| {n} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default="10000,100000,1000000")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--repeats-large", type=int, default=1,
                    help="repeats at 1M rows and more, to keep runs short")
    ap.add_argument("--ours", default=str(ROOT / "train"))
    ap.add_argument("--upstream", default="/usr/bin/liblinear-train")
    ap.add_argument("--work", default=str(ROOT / "bench" / "work" / "cost"))
    ap.add_argument("--json", default=str(ROOT / "bench" / "results" / "cost-curves.json"))
    ap.add_argument("--png", default=str(ROOT / "bench" / "results" / "cost-curves.png"))
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--skip", default="",
                    help="comma-separated run names to leave out, e.g. 'ours -s 1,upstream -s 1'")
    ap.add_argument("--merge", action="store_true",
                    help="add these row counts to the results already in --json (e.g. a later 4M run)")
    ap.add_argument("--images-log", default=str(ROOT / "bench" / "results" / "issue22-images-growth.txt"),
                    help="growth --images output whose points join the plot (skipped when missing)")
    ap.add_argument("--plot-only", action="store_true",
                    help="redraw the plot and print the table from --json, running nothing")
    a = ap.parse_args()
    images = images_points(a.images_log) if Path(a.images_log).exists() else None
    if a.plot_only:
        with open(a.json) as f:
            saved = json.load(f)
        print_table(saved["results"], saved["meta"]["rows"], images)
        plot(saved["results"], saved["meta"]["rows"], a.png, images)
        return
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = [int(x) for x in a.rows.split(",")]
    a_rows = list(rows)
    progs = runs(a.ours, a.upstream)
    skip = set(filter(None, a.skip.split(",")))
    unknown = skip - {name for name, _ in progs}
    if unknown:
        raise SystemExit(f"--skip: no such run: {', '.join(sorted(unknown))}")
    results = {name: {} for name, _ in progs}
    earlier = None
    if a.merge and Path(a.json).exists():
        with open(a.json) as f:
            earlier = json.load(f)
        for name in results:
            results[name].update(earlier["results"].get(name, {}))
    load0 = os.getloadavg()
    for n in rows:
        data = work / f"covtype-like-{n}.libsvm"
        if not data.exists():
            make_dense(data, n, 54, 1)
        model = work / "cost.model"
        t = {}
        reps = a.repeats if n < 1000000 else a.repeats_large
        todo = [(name, cmd) for name, cmd in progs if name not in skip]
        for r in range(reps):
            k = r % len(todo)
            for name, cmd in todo[k:] + todo[:k]:
                t.setdefault(name, []).append(measure(cmd + [data, model], work))
        for name, v in t.items():
            results[name][str(n)] = {
                "wall_s": statistics.median(x[0] for x in v),
                "peak_rss_bytes": statistics.median(x[1] for x in v),
                "runs": len(v), "file_bytes": data.stat().st_size}
        print(f"{n} rows done: " + ", ".join(
            f"{k} {results[k][str(n)]['wall_s']:.2f}s" for k in t), file=sys.stderr, flush=True)
        if not a.keep:
            data.unlink()
    load1 = os.getloadavg()
    meta = {"machine": machine(), "load_before": load0, "load_after": load1, "rows": rows,
            "repeats": a.repeats, "repeats_large": a.repeats_large, "skipped": sorted(skip)}
    if earlier:
        # the earlier runs keep their own machine and load lines
        meta["earlier"] = [earlier["meta"]] + earlier["meta"].get("earlier", [])
        rows = sorted(set(rows) | set(earlier["meta"]["rows"]))
        meta["rows"] = rows
    with open(a.json, "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    print(f"Machine: {meta['machine']}. This run's load average (1, 5, 15 min) before "
          f"{' '.join(f'{x:.2f}' for x in load0)}, after {' '.join(f'{x:.2f}' for x in load1)}.")
    print(f"Medians of {a.repeats} interleaved runs below 1M rows, {a.repeats_large} at 1M and more"
          + (f"; this run (rows {', '.join(map(str, a_rows))}) without {', '.join(sorted(skip))}."
             if skip else "."))
    for e in meta.get("earlier", []):
        skipped = f", without {', '.join(e['skipped'])}" if e.get("skipped") else ""
        print(f"Earlier run merged in (rows {', '.join(map(str, e['rows']))}{skipped}): load average before "
              f"{' '.join(f'{x:.2f}' for x in e['load_before'])}, after "
              f"{' '.join(f'{x:.2f}' for x in e['load_after'])}.")
    print()
    print_table(results, rows, images)
    try:
        plot(results, rows, a.png, images)
    except ImportError as e:
        print(f"(no plot: {e})", file=sys.stderr)


if __name__ == "__main__":
    main()
