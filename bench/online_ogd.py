#!/usr/bin/env python3
"""IK-OGD (train -s 30 -k) beside the paper's Table 5 and our batch -k solver
(-s 2), and the online update's throughput (issue 23).

For each set and kernel: psi chosen by 5-fold CV (-s 30 -v 5) on the training
rows only, over PSI_GRID; then one pass on all training rows and accuracy on
the test rows, wall time of train + predict (map included); -s 2 -k at the
same psi for comparison. Throughput: (time of -P 101 - time of -P 1) / (100
passes * rows), i.e. the update alone at t = 100 without reading or mapping.
Writes bench/results/online-ogd.md (machine stated). Usage: bench/online_ogd.py
"""
import lzma, os, platform, subprocess, sys, tempfile, time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("LIBLINEAR_IK_DATA", REPO.parent / "shared" / "data"))
TRAIN, PREDICT = REPO / "train", REPO / "predict"
PSI_GRID = [16, 64, 256]
# set: (train file, test file or None for a fixed 80/20 split, paper iForest, paper aNNE, paper iForest s)
SETS = {
    "a9a": ("a9a/a9a.train.xz", "a9a/a9a.test.xz", ".84", ".84", "3"),
    "ijcnn1": ("ijcnn1/ijcnn1.train.xz", None, ".95", ".97", "8"),
    "cod-rna": ("cod-rna/cod-rna.train.xz", None, "-", "-", "-"),
    "covtype-20k": ("covtype.binary.subset20k/covtype.binary.subset20k.all.xz", None, ".86", ".92", "25 (full set)"),
}


def run(*args):
    t = time.perf_counter()
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {args}: {r.stderr}")
    return r.stdout, time.perf_counter() - t


def accuracy(text):
    return float(text.split("Accuracy = ")[1].split("%")[0])


def files(folder, name, train, test):
    lines = lzma.open(DATA / train, "rt").read().splitlines(keepends=True)
    if test is None:
        cut = int(len(lines) * 0.8)
        tr, te = lines[:cut], lines[cut:]
    else:
        tr, te = lines, lzma.open(DATA / test, "rt").read().splitlines(keepends=True)
    a, b = folder / f"{name}.tr", folder / f"{name}.te"
    a.write_text("".join(tr))
    b.write_text("".join(te))
    return a, b, len(tr)


def main():
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, (train, test, p_i, p_a, p_s) in SETS.items():
            tr, te, n = files(folder, name, train, test)
            for kernel, paper in (("iforest", p_i), ("anne", p_a)):
                cv = {}
                for psi in PSI_GRID:
                    out, _ = run(TRAIN, "-s", 30, "-k", kernel, "-g", psi, "-v", 5, "-q", tr)
                    cv[psi] = accuracy(out)
                psi = max(PSI_GRID, key=lambda g: (cv[g], -g))
                m = folder / "m"
                _, t_train = run(TRAIN, "-s", 30, "-k", kernel, "-g", psi, "-q", tr, m)
                out, t_pred = run(PREDICT, te, m, folder / "o")
                acc = accuracy(out)
                _, t11 = run(TRAIN, "-s", 30, "-k", kernel, "-g", psi, "-P", 101, "-q", tr, m)
                rate = 100 * n / max(t11 - t_train, 1e-9)
                _, b_train = run(TRAIN, "-s", 2, "-k", kernel, "-g", psi, "-q", tr, m)
                out, b_pred = run(PREDICT, te, m, folder / "o")
                rows.append((name, kernel, n, psi, cv[psi], acc, paper, t_train + t_pred, p_s if kernel == "iforest" else "-",
                             accuracy(out), b_train + b_pred, rate))
                print(rows[-1], flush=True)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    out = REPO / "bench" / "results" / "online-ogd.md"
    with open(out, "w") as f:
        f.write("# IK-OGD (-s 30 -k) against the paper's Table 5 and batch -s 2 -k\n\n")
        f.write(f"Machine: {cpu}, {os.cpu_count()} cores visible (shared with other jobs), {platform.system()}.\n")
        f.write("Produced by `bench/online_ogd.py`. t = 100, eta = 0.5 (defaults). psi by 5-fold CV of -s 30 on the\n"
                f"training rows only over {PSI_GRID}; one pass in file order. Sets without a test file: first 80% of\n"
                "the shared training file / last 20%. Times: wall seconds of train + predict, map included.\n"
                "Paper: Table 5 (IK_i-OGD / IK_a-OGD accuracy; IK_i-OGD CPU seconds on the full sets, authors' machine).\n"
                "Update rate: rows per second of the update alone ((-P 101) - (-P 1)) / (100 x rows).\n\n")
        f.write("| set | kernel | train rows | psi | CV acc % | test acc % | paper acc | time s | paper s | -s 2 -k acc % | -s 2 -k time s | update rows/s |\n")
        f.write("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write("| %s | %s | %d | %d | %.2f | %.2f | %s | %.2f | %s | %.2f | %.2f | %.3g |\n" % r)
    print("written", out)


if __name__ == "__main__":
    main()
