#!/usr/bin/env python3
"""Where the time of IK-OGD goes: train -s 30 -k iforest (t 100, psi 1024 unless --psi) and
predict on one set, split into phases by timing program runs that stop at each phase (issue 23).

Every number is the CPU seconds (user + sys, from the children's rusage) of one program run,
the smallest (or with --stat median, the median) of REPEAT runs:
  read + plain OGD : train -s 30 (reading the rows, linear OGD, a small model)
  build map        : tools/ikmap -k iforest -g PSI (reading the rows, growing the
                     forest, writing the .ik), less "read + plain OGD"
  map + learn + files : train -s 30 -k iforest -g PSI, less tools/ikmap's run
                     (mapping the rows, the update, writing MODEL and MODEL.ik)
  train total      : train -s 30 -k iforest -g PSI
  load pair        : predict on the test rows' first row (loading MODEL and MODEL.ik)
  predict total    : predict on the test rows
each with -m 1 (one thread) unless --threads says otherwise.
The differences are estimates (each run also starts a process).

Sets (--set): a9a (its train and test files), ijcnn1 and covtype-20k (the shared file shuffled
and cut 80/20 exactly as bench/online_ogd.py does). --rows N1,N2,... times prefixes of the set:
the first 80% of N rows of the training part and the first 20% of the test part (the parts are
already shuffled, so a prefix is a random subset); then the train + predict CPU seconds of each
build are fitted by least squares as fixed + per-row x rows, and the fit is evaluated at the
paper's row count for the set (an estimate, stated as such in the output: the paper's full set
is not run here).

--bin DIR times the programs of another build (default: this tree); --base DIR also times DIR's
programs, each run interleaved with this tree's (base first, then this tree, REPEAT times), and
says whether both wrote the same MODEL (but its last line, which names the .ik file), MODEL.ik
and predictions (cmp). --threads 0 leaves -m out (all cores, the programs' default);
--env KEY=VALUE (repeatable) sets the programs' environment.
Appends to bench/results/online-phases.md (machine and load stated).
Usage: bench/online_phases.py [--set a9a|ijcnn1|covtype-20k] [--rows N1,N2] [--psi P] [--bin DIR]
       [--base DIR] [--label TEXT] [--base-label TEXT] [--repeat N] [--stat min|median] [--threads M]
"""
import argparse, filecmp, os, platform, resource, statistics, subprocess, sys, tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import online_ogd  # noqa: E402  (the sets, their split and the paper's Table 5 figures)

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "results" / "online-phases.md"
# the header of the table that has set and rows columns (older rows above it are a9a only)
SECTION = "## Phases by set and row count"


def cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def once(args):
    c = cpu()
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {args}: {r.stderr}")
    return cpu() - c


def timed(commands, repeat, keep):
    """commands: one argument list per build; runs them in turn REPEAT times; one figure each."""
    got = [[] for _ in commands]
    for _ in range(repeat):
        for i, args in enumerate(commands):
            got[i].append(once(args))
    return [keep(g) for g in got]


def same_bytes(a, b):
    """MODEL (but its last line, the .ik file's name), MODEL.ik and predictions of two runs."""
    ma, mb = (Path(a) / "m").read_text().splitlines(), (Path(b) / "m").read_text().splitlines()
    return ma[:-1] == mb[:-1] and all(filecmp.cmp(Path(a) / f, Path(b) / f, False) for f in ("m.ik", "o"))


def phases(builds, folder, tr, te, one, psi, m_opt, repeat, keep):
    """The phase figures of each build (a dict per build) on one train/test pair."""
    k = ["-k", "iforest", "-g", psi, *m_opt]
    work = [folder / f"b{i}" for i in range(len(builds))]
    for w in work:
        w.mkdir(exist_ok=True)
    plain = timed([[b / "train", "-s", 30, *m_opt, "-q", tr, w / "plain"] for b, w in zip(builds, work)],
                  repeat, keep)
    build = timed([[b / "tools" / "ikmap", *k, tr, w / "p.ik"] for b, w in zip(builds, work)], repeat, keep)
    whole = timed([[b / "train", "-s", 30, *k, "-q", tr, w / "m"] for b, w in zip(builds, work)], repeat, keep)
    load = timed([[b / "predict", *m_opt, one, w / "m", w / "o1"] for b, w in zip(builds, work)], repeat, keep)
    pred = timed([[b / "predict", *m_opt, te, w / "m", w / "o"] for b, w in zip(builds, work)], repeat, keep)
    out = []
    for i, w in enumerate(work):
        out.append({"plain": plain[i], "build": build[i] - plain[i], "files": whole[i] - build[i],
                    "train": whole[i], "load": load[i], "pred": pred[i], "total": whole[i] + pred[i],
                    "sizes": ((w / "m").stat().st_size, (w / "m.ik").stat().st_size)})
    if len(work) == 2:
        out[1]["same"] = "yes" if same_bytes(work[0], work[1]) else "NO"
    return out


def fit(xs, ys):
    """Least squares ys = a + b xs: (a, b)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - b * mx, b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default="a9a", choices=("a9a", "ijcnn1", "covtype-20k"))
    ap.add_argument("--rows", default="")
    ap.add_argument("--psi", type=int, default=1024)
    ap.add_argument("--bin", default=str(REPO))
    ap.add_argument("--base")
    ap.add_argument("--label", default="this tree")
    ap.add_argument("--base-label", default="before")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--stat", choices=("min", "median"), default="min")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--env", action="append", default=[])
    a = ap.parse_args()
    for kv in a.env:
        key, value = kv.split("=", 1)
        os.environ[key] = value
    keep = min if a.stat == "min" else statistics.median
    m_opt = ["-m", a.threads] if a.threads > 0 else []
    builds = ([Path(a.base)] if a.base else []) + [Path(a.bin)]
    labels = ([a.base_label] if a.base else []) + [a.label]
    train_file, test_file, _, _, paper_s, paper_rows = online_ogd.SETS[a.set]
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    results = []	# (rows, train rows, test rows, [figures per build])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        tr_all, te_all, n_tr, n_te = online_ogd.files(folder, a.set, train_file, test_file)
        tr_lines = tr_all.read_text().splitlines(keepends=True)
        te_lines = te_all.read_text().splitlines(keepends=True)
        counts = [int(r) for r in a.rows.split(",")] if a.rows else [n_tr + n_te]
        for rows in counts:
            n1 = min(n_tr, round(rows * n_tr / (n_tr + n_te)))
            n2 = min(n_te, rows - n1)
            tr, te, one = folder / "tr", folder / "te", folder / "one"
            tr.write_text("".join(tr_lines[:n1]))
            te.write_text("".join(te_lines[:n2]))
            one.write_text(te_lines[0])
            results.append((n1 + n2, n1, n2, phases(builds, folder, tr, te, one, a.psi, m_opt, a.repeat, keep)))
            print(rows, results[-1], flush=True)
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    cpu_name = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
                    platform.processor())
    threads = f"-m {a.threads}" if a.threads > 0 else "all"
    stat = "smallest" if a.stat == "min" else "median"
    with open(OUT, "a") as f:
        if SECTION not in OUT.read_text():
            f.write(f"\n{SECTION}\n\nThe rows from here on name their set, psi and rows (train + test; a prefix of the\n"
                    "shuffled split, see the script's docstring), and say whether each CPU figure is the smallest or\n"
                    "the median of the runs. per-row x: the paper's Table 5 IK_i-OGD seconds over its full set's\n"
                    "rows, divided by ours (train total + predict total over our rows). same bytes: MODEL (but its\n"
                    "last line), MODEL.ik and predictions identical to the build in the row above (cmp).\n")
        # a table per run, so that notes written after one run never split the next run's table
        f.write("\n| build | set, psi, rows (train + test) | threads, environment, statistic | machine, load before / after "
                    "| read + plain OGD | build map | map + learn + files | train total | load pair | predict total "
                    "| train + predict | per-row x | MODEL / .ik bytes | same bytes |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for rows, n1, n2, figs in results:
            for label, p in zip(labels, figs):
                ratio = (paper_s / paper_rows) / (p["total"] / rows)
                f.write(f"| {label} | {a.set}, {a.psi}, {rows} ({n1} + {n2}) | {threads} {' '.join(a.env)}, "
                        f"{stat} of {a.repeat} | {cpu_name}, {os.cpu_count()} cores; `{load_before}` / `{load_after}` "
                        f"| {p['plain']:.3f} | {p['build']:.3f} | {p['files']:.3f} | {p['train']:.3f} | {p['load']:.3f} "
                        f"| {p['pred']:.3f} | {p['total']:.3f} | {ratio:.2f} | {p['sizes'][0]} / {p['sizes'][1]} "
                        f"| {p.get('same', '-')} |\n")
        if len(results) > 1:
            f.write("\n")
            for i, label in enumerate(labels):
                xs = [r[0] for r in results]
                ys = [r[3][i]["total"] for r in results]
                fixed, per_row = fit(xs, ys)
                at = fixed + per_row * paper_rows
                ratio = paper_s / at
                f.write(f"Fit, {label} ({a.set}, psi {a.psi}, {threads}, {stat} CPU s of train + predict over "
                        f"rows {', '.join(str(x) for x in xs)}): fixed {fixed:.4f} s + {per_row * 1e6:.3f} us "
                        f"per row. **Estimate**, not a run: at the paper's {paper_rows:,} rows that is {at:.2f} s, "
                        f"{ratio:.1f}x the paper's per-row time ({paper_s} s).\n")
            f.write("\n")
    print("appended to", OUT)


if __name__ == "__main__":
    main()
