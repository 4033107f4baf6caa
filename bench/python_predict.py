#!/usr/bin/env python3
"""Python predict() on a 100k-row CSR matrix: our package against upstream's
(liblinear-official 2.50, a Python loop over the rows).

The two packages share an import name, so each runs in its own
environment: this script (run with any python) starts
    OURS_PYTHON   python_predict.py --worker ours   RESULT.json
    ORACLE_PYTHON python_predict.py --worker upstream RESULT.json
which generate the same data (numpy, fixed seed), train the same plain
model (-s 2 on 5,000 rows) and time predict(y, X, m, '-q') on the 100,000
rows (best of REPEATS); ours also times a -k model (mapping included).
The table goes to bench/results/python-predict.md (and its .json).

Usage: python3 bench/python_predict.py [--ours PY] [--oracle PY] [--rows N]
Defaults: build/pyvenv/bin/python (make python-install) and
/opt/liblinear-ik-venv/bin/python.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
REPEATS = 3


def make_data(rows, columns=300, density=0.05, seed=7):
    import numpy as np
    import scipy.sparse as sp
    rng = np.random.default_rng(seed)
    X = sp.random(rows, columns, density=density, format="csr", random_state=rng, dtype=np.float64)
    w = rng.normal(size=columns)
    y = np.where(X @ w > 0, 1.0, -1.0)
    return y, X


def best_time(function):
    times = []
    result = None
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def worker(which, result_path, rows):
    from liblinear.liblinearutil import predict, train
    y, X = make_data(rows + 5000)
    y_train, X_train = y[:5000], X[:5000]
    y_test, X_test = y[5000:], X[5000:]
    out = {"rows": rows, "nnz": int(X_test.nnz), "columns": X_test.shape[1]}
    m = train(y_train, X_train, "-s 2 -q")
    seconds, result = best_time(lambda: predict(y_test, X_test, m, "-q"))
    out["plain_s"] = seconds
    out["plain_acc"] = result[1][0]
    out["plain_labels_head"] = result[0][:20]
    if which == "ours":
        mk = train(y_train, X_train, "-k anne -t 100 -g 64 -s 2 -q")
        seconds, result = best_time(lambda: predict(y_test, X_test, mk, "-q"))
        out["ik_s"] = seconds
        out["ik_acc"] = result[1][0]
    with open(result_path, "w") as handle:
        json.dump(out, handle)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", choices=["ours", "upstream"])
    parser.add_argument("result", nargs="?")
    parser.add_argument("--ours", default=os.path.join(REPO, "build", "pyvenv", "bin", "python"))
    parser.add_argument("--oracle", default="/opt/liblinear-ik-venv/bin/python")
    parser.add_argument("--rows", type=int, default=100000)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.result, args.rows)
        return
    results = {}
    for which, python in (("ours", args.ours), ("upstream", args.oracle)):
        path = os.path.join(HERE, "results", "python-predict-%s.tmp.json" % which)
        subprocess.run([python, os.path.abspath(__file__), "--worker", which, path, "--rows", str(args.rows)],
                       check=True, env=dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1")))
        with open(path) as handle:
            results[which] = json.load(handle)
        os.remove(path)
    ours, upstream = results["ours"], results["upstream"]
    assert ours["plain_labels_head"] == upstream["plain_labels_head"], "the two packages predict differently"
    ratio = upstream["plain_s"] / ours["plain_s"]
    results["ratio"] = ratio
    results["machine"] = "%s, %s, %d CPUs (OMP_NUM_THREADS=%s)" % (
        platform.platform(), platform.processor() or platform.machine(), os.cpu_count(),
        os.environ.get("OMP_NUM_THREADS", "1"))
    with open(os.path.join(HERE, "results", "python-predict.json"), "w") as handle:
        json.dump(results, handle, indent=1)
    lines = [
        "# Python predict on a 100k-row CSR matrix: ours against upstream's",
        "",
        "`python3 bench/python_predict.py` (this table and python-predict.json). Synthetic data:",
        "%d rows x %d columns, %d nonzeros (density 0.05, numpy seed 7), a -s 2 model trained on"
        % (ours["rows"], ours["columns"], ours["nnz"]),
        "5,000 more rows; `predict(y, X, m, '-q')` on the CSR matrix, best of %d runs, each package in its"
        % REPEATS,
        "own environment. Upstream's predict loops over the rows in Python (one ctypes call and one",
        "feature_node array per row); ours converts the matrix with numpy and predicts every row in one",
        "call into the C library (`lik_predict_rows`). Same labels (checked).",
        "",
        "| package | predict (s) | rows/s | accuracy |",
        "| --- | --- | --- | --- |",
        "| upstream liblinear-official 2.50 | %.3f | %.0f | %.2f%% |" % (
            upstream["plain_s"], ours["rows"] / upstream["plain_s"], upstream["plain_acc"]),
        "| liblinear-ik (ours) | %.3f | %.0f | %.2f%% |" % (
            ours["plain_s"], ours["rows"] / ours["plain_s"], ours["plain_acc"]),
        "| liblinear-ik, `-k anne -t 100 -g 64` model (mapping included) | %.3f | %.0f | %.2f%% |" % (
            ours["ik_s"], ours["rows"] / ours["ik_s"], ours["ik_acc"]),
        "",
        "Speed-up of ours over upstream's Python predict: **%.1fx** (goal: 20x)." % ratio,
        "",
        "Machine: %s." % results["machine"],
        "",
    ]
    with open(os.path.join(HERE, "results", "python-predict.md"), "w") as handle:
        handle.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
