#!/usr/bin/env python3
"""bench/run.py - `make bench`: time our train() against upstream 2.50's.

Both libraries are loaded into this one process: ours
(liblinear/liblinear.so.6) and upstream's (the library that the Python
package liblinear-official loads). Both take the very same ctypes problem
and parameter objects - upstream's own Structures, which mirror linear.h
field for field, as ours does (same ABI). For each solver and dataset the
problem is built once; then, for --rounds rounds, our train() runs at each
thread count of --threads (OpenMP's omp_set_num_threads, called through
ctypes on libgomp, the runtime our library uses) and upstream's train()
once (single-threaded; rand() reseeded to 1 first, as in a fresh upstream
train process); the order rotates from round to round and the median time
of each is reported, with each model's objective (recomputed in numpy from
w, with tests/oracle/oracle_lib.py) and test score.

Classification solvers (-s 0-7) and one-class (-s 21) run on every
dataset; the regression solvers (-s 11-13) on the two-class sets, with
their +1/-1 labels as targets (there is no regression set in
../shared/data). Writes bench/results/issue3-solvers.md (or --out). Never a
test: timings here are information, not assertions.

--base-lib adds another build of our library (e.g. the main branch's,
built in a copy) as a fourth kind in the same rotation, at the first
thread count, so that before/after ratios come from one run. --min-run S
makes each timed run call train() as many times as upstream's first call
says it takes to last S seconds (at least once; the same count for every
kind) and reports the time per call, so that small sets are timed over
runs long enough to measure. --orders N adds, per row, ours/upstream over
N shuffled row orders: a randomized solver's pass count (and time) at one
seed is partly luck, its mean over orders is not.
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

# numpy's BLAS threads spin for a while after each call (the objectives are
# computed in numpy between timed runs): on a small machine they take CPU
# from the timed train() calls, and --clock cpu would count them. One
# thread; set before numpy loads its BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import scipy.sparse as sp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "oracle"))
import oracle_lib as ol  # noqa: E402
from liblinear.liblinear import liblinear as upstream  # noqa: E402
from liblinear.liblinear import model, parameter, problem  # noqa: E402
from liblinear.liblinear import PRINT_STRING_FUN  # noqa: E402

DATA_DIR = ol.DATA_DIR
SOLVERS = sorted(ol.SOLVER_NAMES)
# name -> (training file, test file or None: every 5th row is held out)
DATASETS = {
    "a9a": ("a9a.train", "a9a.test"),
    "w8a": ("w8a.train", "w8a.test"),
    "ijcnn1": ("ijcnn1.train", None),
    "cod-rna": ("cod-rna.train", None),
    "letter": ("letter.all", None),
    "dna": ("dna.train", "dna.test"),
    "satimage": ("satimage.train", "satimage.test"),
}
C, P, NU = 1.0, 0.1, 0.5  # the defaults every run uses
# Left out by default: on cod-rna's unscaled features (values up to ~1000)
# Crammer-Singer runs for many minutes on both sides (measured once, on a
# loaded machine: ours 591 s, upstream 778 s).
SKIP = "cod-rna:4"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", default="1,2",
        help="thread counts for our library, comma-separated (upstream is single-threaded)")
    p.add_argument("--solvers", default=",".join(map(str, SOLVERS)))
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--skip", default=SKIP, help="dataset:solver pairs to leave out, comma-separated")
    p.add_argument("--our-lib", default=str(ol.OUR_LIB), help="our shared library to load")
    p.add_argument("--base-lib", default=None,
        help="another build of our library, timed beside ours at the first thread count")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
        help="wall: elapsed time; cpu: the process's CPU time (time.process_time), which other "
        "work on a loaded machine inflates far less; at -m 1 both sides run on one thread")
    p.add_argument("--orders", type=int, default=0,
        help="also time each solver on this many shuffled row orders of the training set "
        "(numpy seeds 1..N) and report the geometric mean of ours/upstream over them")
    p.add_argument("--min-run", type=float, default=0.0,
        help="repeat train() within each timed run until it lasts about this many seconds")
    p.add_argument("--title", default="Issue 3: our train() against upstream LIBLINEAR 2.50, every solver")
    p.add_argument("--out", default=str(REPO / "bench" / "results" / "issue3-solvers.md"))
    return p.parse_args()


ARGS = parse_args()
# The clock of every timing: elapsed, or the CPU time of all the process's threads.
CLOCK = time.perf_counter if ARGS.clock == "wall" else time.process_time
THREADS = [int(t) for t in ARGS.threads.split(",")]
GOMP = ctypes.CDLL("libgomp.so.1")


def load_ours(path=None):
    path = Path(path or ARGS.our_lib)
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
        note = f"{test_file} ({len(yt)} rows)"
    else:
        held = np.arange(len(y)) % 5 == 4
        y, X, yt, Xt = y[~held], X[~held], y[held], X[held]
        note = f"every 5th row held out ({held.sum()} rows)"
    return y, X, yt, ol.with_columns(Xt, X.shape[1], -1), note


def solvers_for(y):
    """Every solver on every set, except regression on multi-class sets."""
    two_classes = len(np.unique(y)) == 2
    return [s for s in SOLVERS if s not in ol.REGRESSION or two_classes]


def model_contents(m):
    """(w of shape (w_size, nr_w), labels or None, rho) of a model struct."""
    solver = m.param.solver_type
    nr_w = 1 if m.nr_class == 2 and solver != 4 else m.nr_class
    w_size = m.nr_feature + (1 if m.bias >= 0 else 0)
    w = np.ctypeslib.as_array(m.w, shape=(w_size * nr_w,)).reshape(w_size, nr_w).copy()
    labels = list(m.label[:m.nr_class]) if m.label else None
    return w, labels, m.rho


def objective(solver, w, labels, rho, y, X):
    """The objective in numpy: the primal (summed over one-vs-rest
    problems), Crammer-Singer's primal for -s 4, the dual 0.5 w.w for -s 21
    (what its log prints)."""
    if solver == 21:
        return ol.oneclass_objectives(w[:, 0], rho, X, NU)[1]
    if solver == 4:
        return ol.cs_primal_objective(w, np.array([labels.index(v) for v in y.astype(int)]), X, C)
    if solver in ol.REGRESSION:
        return ol.primal_objective(solver, w[:, 0], y, X, C, P)[0]
    m = {"labels": labels, "w": w}
    return sum(ol.primal_objective(solver, w[:, k], ol.binary_targets(y, m, k), X, C)[0]
        for k in range(w.shape[1]))


def test_score(solver, w, labels, rho, y, X):
    """Accuracy (%) for classification, MSE for regression, the percentage
    of outliers (-1) for one-class."""
    dec = X @ w
    if solver == 21:
        return 100.0 * np.mean(dec[:, 0] - rho < 0)
    if solver in ol.REGRESSION:
        return np.mean((dec[:, 0] - y) ** 2)
    if w.shape[1] == 1:
        predicted = np.where(dec[:, 0] > 0, labels[0], labels[1])
    else:
        predicted = np.array(labels)[np.argmax(dec, axis=1)]
    return 100.0 * np.mean(predicted == y.astype(int))


class Log:
    """Collects a library's progress text (kept alive: C holds the pointer)."""

    def __init__(self):
        self.text = []
        self.callback = PRINT_STRING_FUN(lambda s: self.text.append(s.decode()))


# A print function that drops the text, kept alive here: C holds the pointer.
QUIET = PRINT_STRING_FUN(lambda s: None)


def calls_per_run(prob, param):
    """How many train() calls make one timed run last ARGS.min_run seconds,
    judged by one untimed call of upstream's (1 without --min-run)."""
    if ARGS.min_run <= 0:
        return 1
    upstream.set_print_string_function(QUIET)
    ol.LIBC.srand(1)
    start = CLOCK()
    m = upstream.train(prob, param)
    seconds = CLOCK() - start
    upstream.free_and_destroy_model(ctypes.byref(m))
    return max(1, int(np.ceil(ARGS.min_run / max(seconds, 1e-6))))


def bench_one(libs, solver, y, X, yt, Xt):
    """Per run kind ('ours-1', 'ours-2', ..., 'base-1' with --base-lib,
    'upstream'): train() times (per call), objectives and test scores of
    every round, whether a solver hit its iteration cap in some round, and
    the calls per timed run."""
    prob = problem(y, X)
    param = parameter(f"-s {solver}")
    kinds = [f"ours-{t}" for t in THREADS] + (["base-%d" % THREADS[0]] if "base" in libs else [])
    kinds += ["upstream"]
    logs = {k: Log() for k in kinds}
    result = {k: {"time": [], "objective": [], "score": [], "capped": False} for k in kinds}
    for lib in list(libs.values()) + [upstream]:
        err = lib.check_parameter(prob, param)
        if err:
            sys.exit(f"bench: check_parameter: {err}")
    calls = calls_per_run(prob, param)
    for r in range(ARGS.rounds):
        # Rotate the order so that no kind always runs first (or warm).
        for kind in kinds[r % len(kinds):] + kinds[:r % len(kinds)]:
            lib = upstream if kind == "upstream" else libs[kind.split("-")[0]]
            lib.set_print_string_function(logs[kind].callback)
            if kind != "upstream":
                GOMP.omp_set_num_threads(int(kind.split("-")[1]))
            seconds = 0.0
            for _ in range(calls):
                # Each call as from a fresh train process: the same model every call.
                if kind == "upstream":
                    ol.LIBC.srand(1)
                logs[kind].text.clear()
                start = CLOCK()
                m = lib.train(prob, param)
                seconds += CLOCK() - start
                w, labels, rho = model_contents(m.contents)
                lib.free_and_destroy_model(ctypes.byref(m))
            res = result[kind]
            res["time"].append(seconds / calls)
            res["objective"].append(objective(solver, w, labels, rho, y, X))
            res["score"].append(test_score(solver, w, labels, rho, yt, Xt))
            res["capped"] |= "reaching max" in "".join(logs[kind].text)
    result["calls"] = calls
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
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def ratio_over_orders(libs, solver, y, X, yt, Xt):
    """(geometric mean, lowest, highest) of ours/upstream medians over
    ARGS.orders shuffled row orders (ours at the first thread count, no base)."""
    ours_only = {"ours": libs["ours"]}
    found = []
    for k in range(1, ARGS.orders + 1):
        perm = np.random.default_rng(k).permutation(len(y))
        r = bench_one(ours_only, solver, y[perm], X[perm], yt, Xt)
        r.pop("calls")
        found.append(statistics.median(r[f"ours-{THREADS[0]}"]["time"])
            / statistics.median(r["upstream"]["time"]))
    return float(np.exp(np.mean(np.log(found)))), min(found), max(found)


def header(t1, tn):
    cols = ["dataset", "-s"] + [f"ours -m {t} (s)" for t in THREADS]
    cols += [f"base -m {t1} (s)"] if ARGS.base_lib else []
    cols += ["upstream (s)", f"ours -m {t1}/upstream"]
    cols += [f"base -m {t1}/upstream"] if ARGS.base_lib else []
    cols += [f"speedup -m {t} over -m {t1}" for t in THREADS[1:]]
    cols += ["objective ours"] + (["objective base"] if ARGS.base_lib else []) + ["objective upstream"]
    cols += ["test ours", "test upstream"] + (["calls per run"] if ARGS.min_run > 0 else [])
    cols += [f"ours/upstream over {ARGS.orders} row orders"] if ARGS.orders > 0 else []
    return ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]


def main():
    libs = {"ours": load_ours()}
    if ARGS.base_lib:
        libs["base"] = load_ours(ARGS.base_lib)
    solvers = [int(s) for s in ARGS.solvers.split(",")]
    names = ARGS.datasets.split(",")
    t1, tn = THREADS[0], THREADS[-1]
    skipped = set(ARGS.skip.split(",")) if ARGS.skip else set()
    started = load_average()
    rows, notes = [], []
    ratios = {s: [] for s in solvers}
    base_ratios = {s: [] for s in solvers}
    order_ratios = {s: [] for s in solvers}
    speedups = {s: [] for s in solvers}
    for name in names:
        y, X, yt, Xt, note = load_dataset(name)
        notes.append(f"- {name}: {X.shape[0]} training rows, {X.shape[1]} features, "
            f"{len(np.unique(y))} classes; test: {note}")
        for solver in [s for s in solvers_for(y) if s in solvers and f"{name}:{s}" not in skipped]:
            r = bench_one(libs, solver, y, X, yt, Xt)
            calls = r.pop("calls")
            t = {k: statistics.median(v["time"]) for k, v in r.items()}
            first, up = r[f"ours-{t1}"], r["upstream"]
            ratios[solver].append(t[f"ours-{t1}"] / t["upstream"])
            cap = {k: " (cap)" if v["capped"] else "" for k, v in r.items()}
            # † marks a thread count whose model differs from -m t1's.
            same = {k: "" if np.allclose(v["objective"], first["objective"], rtol=1e-9, atol=0) else " †"
                for k, v in r.items()}
            cells = [name, str(solver)] + [f"{t[f'ours-{n}']:.4g}{same[f'ours-{n}']}" for n in THREADS]
            base = f"base-{t1}"
            if ARGS.base_lib:
                cells.append(f"{t[base]:.4g}")
                base_ratios[solver].append(t[base] / t["upstream"])
            cells += [f"{t['upstream']:.4g}", f"{t[f'ours-{t1}'] / t['upstream']:.2f}"]
            if ARGS.base_lib:
                cells.append(f"{t[base] / t['upstream']:.2f}")
            for n in THREADS[1:]:
                speedups[solver].append(t[f"ours-{t1}"] / t[f"ours-{n}"])
                cells.append(f"{t[f'ours-{t1}'] / t[f'ours-{n}']:.2f}")
            fmt = ".6g" if solver in ol.REGRESSION else ".2f"
            cells += [spread(first["objective"], ".8g") + cap[f"ours-{t1}"]]
            if ARGS.base_lib:
                cells.append(spread(r[base]["objective"], ".8g") + cap[base])
            cells += [spread(up["objective"], ".8g") + cap["upstream"],
                spread(first["score"], fmt), spread(up["score"], fmt)]
            if ARGS.min_run > 0:
                cells.append(str(calls))
            if ARGS.orders > 0:
                g, lo, hi = ratio_over_orders(libs, solver, y, X, yt, Xt)
                order_ratios[solver].append(g)
                cells.append(f"{g:.2f} ({lo:.2f} - {hi:.2f})")
            row = "| " + " | ".join(cells) + " |"
            print(row, flush=True)
            rows.append(row)

    def geo(v):
        return np.exp(np.mean(np.log(v))) if v else float("nan")

    lines = [
        f"# {ARGS.title}",
        "",
        f"- Machine: {cpu_model()}, {os.cpu_count()} logical cores; {platform.system()} {platform.release()}. "
        f"Load average (1, 5, 15 min) at start {started}, at end {load_average()}: other work on this "
        "machine makes the times noisy, the multi-thread ones most.",
        f"- Python {platform.python_version()}, numpy {np.__version__}; upstream = liblinear-official "
        f"2.50.0 (its own compiled library, single-threaded); ours = {Path(ARGS.our_lib).name} at "
        f"{', '.join(f'-m {n}' for n in THREADS)} (omp_set_num_threads before each train())"
        + (f"; base = {ARGS.base_lib} at -m {t1}, in the same rotation." if ARGS.base_lib else "."),
        f"- Method: `make bench` (bench/run.py). Both libraries in one process, called through ctypes "
        f"with the same problem and parameter structs (C = 1, p = 0.1, nu = 0.5, default -e per solver, "
        f"no bias); {ARGS.rounds} rounds in rotating order, median "
        f"{'wall' if ARGS.clock == 'wall' else 'CPU (time.process_time)'} time of train() alone (no file "
        "I/O). Upstream's rand() is reseeded to 1 before each of its runs, as in its train program."
        + (f" Each timed run repeats train() until it lasts about {ARGS.min_run:g} s (calls per run: "
           "from one untimed upstream call; the same for every kind) and counts the time per call."
           if ARGS.min_run > 0 else ""),
        "- Objective, recomputed in numpy from each model: the primal 0.5 w.w + C sum loss (|w|_1 for "
        "-s 5, 6; summed over the one-vs-rest problems of multi-class sets; Crammer-Singer's primal for "
        "-s 4), and for -s 21 the dual 0.5 w.w that its log prints. Test: accuracy (%) for "
        "classification, mean squared error for regression (the +1/-1 labels as targets), "
        "the percentage of outliers (-1) for one-class. A range means the rounds disagreed; (cap): "
        "a solver stopped at its iteration cap in some round; †: that thread count's model differs from "
        f"-m {t1}'s (a parallel sum in another order).",
        "",
        *header(t1, tn),
        *rows,
        "",
        "Geometric means per solver of ours(-m {0})/upstream: ".format(t1) + ", ".join(
            f"-s {s}: {geo(v):.2f}" for s, v in ratios.items() if v) + ".",
        "Worst set per solver of ours(-m {0})/upstream: ".format(t1) + ", ".join(
            f"-s {s}: {max(v):.2f}" for s, v in ratios.items() if v) + ".",
    ]
    if ARGS.orders > 0:
        lines.append(f"Geometric means per solver of ours(-m {t1})/upstream over {ARGS.orders} row orders: "
            + ", ".join(f"-s {s}: {geo(v):.2f}" for s, v in order_ratios.items() if v) + "; worst set: "
            + ", ".join(f"-s {s}: {max(v):.2f}" for s, v in order_ratios.items() if v) + ".")
    if ARGS.base_lib:
        lines.append("Geometric means per solver of base(-m {0})/upstream: ".format(t1) + ", ".join(
            f"-s {s}: {geo(v):.2f}" for s, v in base_ratios.items() if v) + ".")
    if len(THREADS) > 1:
        lines.append(f"Geometric means per solver of the speedup -m {tn} over -m {t1}: " + ", ".join(
            f"-s {s}: {geo(v):.2f}" for s, v in speedups.items() if v) + ".")
    lines += ["Randomized solvers shuffle with different generators (ours seeded splitmix64, upstream",
        "rand()), so their iteration counts, and times, differ between the sides even for the same code.",
        *([f"Left out (--skip): {ARGS.skip}."] if ARGS.skip else []),
        "", "Datasets (../shared/data):", *notes, ""]
    out = Path(ARGS.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
