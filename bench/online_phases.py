#!/usr/bin/env python3
"""Where the time of IK-OGD goes on a9a: train -s 30 -k iforest (t 100, psi 1024) and
predict, split into phases by timing program runs that stop at each phase (issue 23).

Every number is the CPU seconds (user + sys, from the children's rusage) of one program run,
the smallest of REPEAT runs (the machine is shared: the minimum is the run least disturbed):
  read + plain OGD : train -s 30 (reading the rows, linear OGD, a 123-weight model)
  build map        : tools/ikmap -k iforest -g 1024 (reading the rows, growing the
                     forest, writing the .ik), less "read + plain OGD"
  map + learn + files : train -s 30 -k iforest -g 1024, less tools/ikmap's run
                     (mapping the rows, the update, writing MODEL and MODEL.ik)
  train total      : train -s 30 -k iforest -g 1024
  load pair        : predict on a9a.test's first row (loading MODEL and MODEL.ik)
  predict total    : predict on a9a.test
each with -m 1 (one thread) unless --threads says otherwise.
The differences are estimates (each run also starts a process). --bin DIR times the programs of
another build (e.g. a scratch build of an older commit) with the same data; --label names it.
--threads 0 leaves -m out (all cores, the programs' default: CPU seconds then include the threads'
idle waiting); --env KEY=VALUE (repeatable) sets the programs' environment (e.g. OMP_WAIT_POLICY).
Appends one table row per build to bench/results/online-phases.md (machine and load stated).
Usage: bench/online_phases.py [--bin DIR] [--label TEXT] [--repeat N]
"""
import argparse, lzma, os, platform, resource, subprocess, sys, tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("LIBLINEAR_IK_DATA", REPO.parent / "shared" / "data"))
PSI = 1024


def cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def timed(args, repeat):
    best = None
    for _ in range(repeat):
        c = cpu()
        r = subprocess.run([str(a) for a in args], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"failed: {args}: {r.stderr}")
        c = cpu() - c
        best = c if best is None or c < best else best
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(REPO))
    ap.add_argument("--label", default="this tree")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--env", action="append", default=[])
    a = ap.parse_args()
    for kv in a.env:
        key, value = kv.split("=", 1)
        os.environ[key] = value
    m_opt = ["-m", a.threads] if a.threads > 0 else []
    b = Path(a.bin)
    train, predict, ikmap = b / "train", b / "predict", b / "tools" / "ikmap"
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        tr, te, one = t / "a9a.tr", t / "a9a.te", t / "one"
        tr.write_text(lzma.open(DATA / "a9a" / "a9a.train.xz", "rt").read())
        te.write_text(lzma.open(DATA / "a9a" / "a9a.test.xz", "rt").read())
        one.write_text(te.read_text().splitlines(keepends=True)[0])
        m, p, o = t / "m", t / "p.ik", t / "o"
        k = ["-k", "iforest", "-g", PSI, *m_opt]
        plain = timed([train, "-s", 30, *m_opt, "-q", tr, t / "plain"], a.repeat)
        build = timed([ikmap, *k, tr, p], a.repeat)
        whole = timed([train, "-s", 30, *k, "-q", tr, m], a.repeat)
        load = timed([predict, *m_opt, one, m, o], a.repeat)
        pred = timed([predict, *m_opt, te, m, o], a.repeat)
        sizes = (m.stat().st_size, (t / "m.ik").stat().st_size)
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    rows = 32561 + 16281
    total = whole + pred
    # the paper's Table 5: IK_i-OGD on a9a, 3 s of training and testing for its 48,842 rows
    ratio = (3 / rows) / (total / rows)
    out = REPO / "bench" / "results" / "online-phases.md"
    new = not out.exists()
    cpu_name = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
                    platform.processor())
    with open(out, "a") as f:
        if new:
            f.write("# Where IK-OGD's time goes: a9a, train -s 30 -k iforest -g 1024 (t 100) and predict\n\n"
                    "Produced by `bench/online_phases.py` (its docstring defines each column). CPU seconds, the\n"
                    "smallest of the runs (shared machine). per-row x: the paper's Table 5 (IK_i-OGD a9a, 3 s\n"
                    "for 48,842 rows) per row over ours (train total + predict total over 32,561 + 16,281\n"
                    "rows). threads: -m given to every run (all: none given, the default).\n\n"
                    "| build | threads, environment | machine, load before / after | read + plain OGD | build map | map + learn + files "
                    "| train total | load pair | predict total | train + predict | per-row x | MODEL / .ik bytes |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        threads = f"-m {a.threads}" if a.threads > 0 else "all"
        f.write(f"| {a.label} | {threads} {' '.join(a.env)} | {cpu_name}, {os.cpu_count()} cores; `{load_before}` / `{load_after}` "
                f"| {plain:.3f} | {build - plain:.3f} | {whole - build:.3f} | {whole:.3f} | {load:.3f} | {pred:.3f} "
                f"| {total:.3f} | {ratio:.2f} | {sizes[0]} / {sizes[1]} |\n")
    print(a.label, plain, build, whole, load, pred, total, ratio)


if __name__ == "__main__":
    main()
