#!/usr/bin/env python3
"""bench/run.py - `make bench`: time our train() against upstream 2.50's.

Both libraries are loaded into this one process: ours
(liblinear/liblinear.so.6) and upstream's (the library that the Python
package liblinear-official loads). Both take the very same ctypes problem
and parameter objects - upstream's own Structures, which mirror linear.h
field for field, as ours does (same ABI). For each solver and dataset the
problem is built once; then the two train() calls alternate for --rounds
rounds and the median time of each is reported, with each model's primal
objective (recomputed in numpy from w) and test accuracy.

Writes bench/results/issue2-solvers.md (or --out). Never a test: timings
here are information, not assertions.
"""
import argparse
import ctypes
import lzma
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("LIBLINEAR_IK_DATA", REPO.parent / "shared" / "data"))
OUR_LIB = REPO / "liblinear" / "liblinear.so.6"

SOLVERS = {0: "L2R_LR", 1: "L2R_L2LOSS_SVC_DUAL", 2: "L2R_L2LOSS_SVC", 3: "L2R_L1LOSS_SVC_DUAL"}
# name -> (training file, test file or None: every 5th row is held out)
DATASETS = {
    "a9a": ("a9a.train", "a9a.test"),
    "w8a": ("w8a.train", "w8a.test"),
    "ijcnn1": ("ijcnn1.train", None),
    "cod-rna": ("cod-rna.train", None),
    "letter": ("letter.all", None),
}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=1,
        help="OMP_NUM_THREADS for our library (upstream is single-threaded)")
    p.add_argument("--solvers", default="0,1,2,3")
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--our-lib", default=str(OUR_LIB), help="our shared library to load")
    p.add_argument("--out", default=str(REPO / "bench" / "results" / "issue2-solvers.md"))
    return p.parse_args()


ARGS = parse_args()
# OpenMP reads this when our library is loaded, so set it first.
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)

from liblinear.liblinear import liblinear as upstream  # noqa: E402
from liblinear.liblinear import model, parameter, problem  # noqa: E402
from liblinear.liblinear import PRINT_STRING_FUN  # noqa: E402


def load_ours():
    path = Path(ARGS.our_lib)
    if not path.exists():
        sys.exit(f"bench: {path} is missing; run make first")
    lib = ctypes.CDLL(str(path))
    lib.train.restype = ctypes.POINTER(model)
    lib.train.argtypes = [ctypes.POINTER(problem), ctypes.POINTER(parameter)]
    lib.free_and_destroy_model.restype = None
    lib.free_and_destroy_model.argtypes = [ctypes.POINTER(ctypes.POINTER(model))]
    lib.check_parameter.restype = ctypes.c_char_p
    lib.check_parameter.argtypes = [ctypes.POINTER(problem), ctypes.POINTER(parameter)]
    lib.set_print_string_function.restype = None
    lib.set_print_string_function.argtypes = [PRINT_STRING_FUN]
    return lib


def read_libsvm(path):
    y, rows, cols, vals = [], [], [], []
    with lzma.open(path, "rt") as f:
        for r, line in enumerate(f):
            tokens = line.split()
            y.append(float(tokens[0]))
            for tok in tokens[1:]:
                idx, val = tok.split(":")
                rows.append(r)
                cols.append(int(idx) - 1)
                vals.append(float(val))
    X = sp.csr_matrix((vals, (rows, cols)), shape=(len(y), max(cols) + 1))
    return np.array(y), X


def load_dataset(name):
    train_file, test_file = DATASETS[name]
    y, X = read_libsvm(DATA_DIR / name / f"{train_file}.xz")
    if test_file:
        yt, Xt = read_libsvm(DATA_DIR / name / f"{test_file}.xz")
        return y, X, yt, Xt, f"{test_file} ({len(yt)} rows)"
    held = np.arange(len(y)) % 5 == 4
    return y[~held], X[~held], y[held], X[held], f"every 5th row held out ({held.sum()} rows)"


def model_weights(m):
    """(w of shape (w_size, nr_w), labels) of a trained model struct."""
    nr_w = 1 if m.nr_class == 2 else m.nr_class
    w_size = m.nr_feature + (1 if m.bias >= 0 else 0)
    w = np.ctypeslib.as_array(m.w, shape=(w_size * nr_w,)).reshape(w_size, nr_w).copy()
    return w, list(m.label[:m.nr_class])


def targets(y, labels, nr_w, k):
    positive = labels[0] if nr_w == 1 else labels[k]
    return np.where(y.astype(int) == positive, 1.0, -1.0)


def primal_objective(solver, w, labels, y, X, C):
    """Sum over the model's binary problems of 0.5 w.w + C sum loss."""
    total = 0.0
    for k in range(w.shape[1]):
        z = targets(y, labels, w.shape[1], k) * (X @ w[:, k])
        if solver == 0:
            loss = np.logaddexp(0.0, -z)
        elif solver in (1, 2):
            loss = np.maximum(0.0, 1.0 - z) ** 2
        else:
            loss = np.maximum(0.0, 1.0 - z)
        total += 0.5 * w[:, k] @ w[:, k] + C * loss.sum()
    return total


def accuracy(w, labels, y, X):
    n = w.shape[0]
    X = X[:, :n] if X.shape[1] >= n else sp.hstack([X, sp.csr_matrix((X.shape[0], n - X.shape[1]))]).tocsr()
    dec = X @ w
    if w.shape[1] == 1:
        predicted = np.where(dec[:, 0] > 0, labels[0], labels[1])
    else:
        predicted = np.array(labels)[np.argmax(dec, axis=1)]
    return 100.0 * np.mean(predicted == y.astype(int))


def timed_train(lib, prob, param):
    start = time.perf_counter()
    m = lib.train(prob, param)
    return time.perf_counter() - start, m


class Log:
    """Collects a library's progress text (kept alive: C holds the pointer)."""

    def __init__(self):
        self.text = []
        self.callback = PRINT_STRING_FUN(lambda s: self.text.append(s.decode()))


def bench_one(ours, solver, y, X, yt, Xt):
    """Per side: train() times, objectives and accuracies of every round, and
    whether any round stopped at a solver's iteration cap."""
    prob = problem(y, X)
    param = parameter(f"-s {solver}")
    logs = {"ours": Log(), "upstream": Log()}
    libs = {"ours": ours, "upstream": upstream}
    for side, lib in libs.items():
        lib.set_print_string_function(logs[side].callback)
        err = lib.check_parameter(prob, param)
        if err:
            sys.exit(f"bench: check_parameter: {err}")
    result = {side: {"time": [], "objective": [], "accuracy": []} for side in libs}
    for r in range(ARGS.rounds):
        # Alternate which side goes first, so neither always runs warm.
        sides = ["ours", "upstream"] if r % 2 == 0 else ["upstream", "ours"]
        for side in sides:
            seconds, m = timed_train(libs[side], prob, param)
            w, labels = model_weights(m.contents)
            libs[side].free_and_destroy_model(ctypes.byref(m))
            result[side]["time"].append(seconds)
            result[side]["objective"].append(primal_objective(solver, w, labels, y, X, param.C))
            result[side]["accuracy"].append(accuracy(w, labels, yt, Xt))
    for side in libs:
        result[side]["capped"] = "reaching max" in "".join(logs[side].text)
    return result


def spread(values, fmt):
    """One value, or 'low - high' when the rounds disagree."""
    lo, hi = min(values), max(values)
    if hi - lo <= 1e-9 * max(abs(hi), 1.0):
        return format(lo, fmt)
    return f"{format(lo, fmt)} - {format(hi, fmt)}"


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average():
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


def main():
    ours = load_ours()
    solvers = [int(s) for s in ARGS.solvers.split(",")]
    names = ARGS.datasets.split(",")
    lines = [
        "# Issue 2: our train() against upstream LIBLINEAR 2.50, solvers -s 0-3",
        "",
        f"- Machine: {cpu_model()}, {os.cpu_count()} logical cores; {platform.system()} {platform.release()}; "
        f"1-minute load average at start {load_average()} (other work on the machine makes times noisy)",
        f"- Python {platform.python_version()}, numpy {np.__version__}; upstream = liblinear-official "
        f"2.50.0 (its own compiled library); ours = {Path(ARGS.our_lib).name}, "
        f"OMP_NUM_THREADS={ARGS.threads}",
        f"- Method: `make bench` (bench/run.py). Both libraries in one process, called through ctypes "
        f"with the same problem and parameter structs (C = 1, default -e per solver, no bias); "
        f"{ARGS.rounds} alternating rounds, median wall time of train() alone (no file I/O).",
        "- Objective: primal 0.5 w.w + C sum loss, recomputed in numpy from each model's w "
        "(summed over the one-vs-rest problems for letter). Accuracy on the test set named below. "
        "A range means the rounds disagreed; (cap) means a dual solver stopped at its "
        "300-iteration cap in some round, so its result depends on the random permutation.",
        "",
        "| dataset | -s | ours (s) | upstream (s) | ours/upstream | objective ours | objective upstream | acc. ours (%) | acc. upstream (%) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    test_notes = []
    ratios = {s: [] for s in solvers}
    for name in names:
        y, X, yt, Xt, note = load_dataset(name)
        test_notes.append(f"- {name}: {X.shape[0]} training rows, {X.shape[1]} features; test: {note}")
        for solver in solvers:
            r = bench_one(ours, solver, y, X, yt, Xt)
            o, u = r["ours"], r["upstream"]
            t_o, t_u = statistics.median(o["time"]), statistics.median(u["time"])
            ratios[solver].append(t_o / t_u)
            mark = {side: " (cap)" if r[side]["capped"] else "" for side in r}
            row = (f"| {name} | {solver} | {t_o:.3f} | {t_u:.3f} | {t_o / t_u:.2f} "
                f"| {spread(o['objective'], '.8g')}{mark['ours']} | {spread(u['objective'], '.8g')}{mark['upstream']} "
                f"| {spread(o['accuracy'], '.2f')} | {spread(u['accuracy'], '.2f')} |")
            print(row, flush=True)
            lines.append(row)
    lines += ["", "Geometric mean of ours/upstream per solver: " + ", ".join(
        f"-s {s}: {np.exp(np.mean(np.log(v))):.2f}" for s, v in ratios.items()) + ".",
        "Dual solvers (-s 1, 3) shuffle with different generators (ours seeded, upstream rand()),",
        "so their iteration counts, and times, differ run to run even for the same code.",
        "", "Datasets (../shared/data):", *test_notes, ""]
    out = Path(ARGS.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
