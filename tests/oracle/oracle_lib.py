"""oracle_lib - what the oracle tests share: data and model parsing, primal
objectives, the suboptimality bounds that a stopping tolerance implies, and
runners for our CLI and for upstream LIBLINEAR 2.50 (liblinear-official).

Everything here is independent of our C code: data and model files are
parsed in numpy, objectives are recomputed from the weights alone.
"""
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from liblinear.liblinear import PRINT_STRING_FUN, parameter, problem
from liblinear.liblinearutil import load_model, predict, save_model, svm_read_problem
from liblinear.liblinearutil import train as upstream_train

REPO = Path(__file__).resolve().parents[2]
# The programs under test: ours, built at the repository root, unless
# LIBLINEAR_IK_BIN names another folder (e.g. an installed bin/).
BIN_DIR = Path(os.environ.get("LIBLINEAR_IK_BIN", REPO))
TRAIN = BIN_DIR / "train"
PREDICT = BIN_DIR / "predict"
DATA_DIR = Path(os.environ.get("LIBLINEAR_IK_DATA", REPO.parent / "shared" / "data"))

SOLVER_NAMES = {0: "L2R_LR", 1: "L2R_L2LOSS_SVC_DUAL", 2: "L2R_L2LOSS_SVC", 3: "L2R_L1LOSS_SVC_DUAL"}
SOLVER_BY_NAME = {v: k for k, v in SOLVER_NAMES.items()}
DEFAULT_EPS = {0: 0.01, 1: 0.1, 2: 0.01, 3: 0.1}

MAX_ITER_TEXT = "reaching max number of iterations"
SWITCH_TEXT = "Switching to use -s 2"


# ---------------------------------------------------------------- data files

def read_libsvm(path):
    """(y, X) of a LIBSVM file: y float array, X CSR with max-index columns.
    A plain reader on purpose (the files here are well formed)."""
    y, rows, cols, vals = [], [], [], []
    with open(path) as f:
        for r, line in enumerate(f):
            tokens = line.split()
            y.append(float(tokens[0]))
            for tok in tokens[1:]:
                idx, val = tok.split(":")
                rows.append(r)
                cols.append(int(idx) - 1)
                vals.append(float(val))
    n = max(cols) + 1 if cols else 0
    X = sp.csr_matrix((vals, (rows, cols)), shape=(len(y), n))
    return np.array(y), X


def with_columns(X, n, bias):
    """X cut or padded to n feature columns, plus a bias column if bias >= 0."""
    X = X.tocsc()
    if X.shape[1] >= n:
        X = X[:, :n]
    else:
        X = sp.hstack([X, sp.csc_matrix((X.shape[0], n - X.shape[1]))])
    if bias >= 0:
        X = sp.hstack([X, sp.csc_matrix(np.full((X.shape[0], 1), bias))])
    return sp.csr_matrix(X)


# --------------------------------------------------------------- model files

def parse_model(path):
    """The model file as a dict; w has shape (w_size, nr_w)."""
    text = Path(path).read_text()
    head, sep, body = text.partition("\nw\n")
    assert sep, f"no 'w' line in {path}"
    m = {"header": head.split("\n")}
    for line in m["header"]:
        key, _, rest = line.partition(" ")
        m[key] = rest
    m["solver"] = SOLVER_BY_NAME[m["solver_type"]]
    m["nr_class"] = int(m["nr_class"])
    m["labels"] = [int(t) for t in m.get("label", "").split()]
    m["nr_feature"] = int(m["nr_feature"])
    m["bias"] = float(m["bias"])
    w_size = m["nr_feature"] + (1 if m["bias"] >= 0 else 0)
    nr_w = 1 if m["nr_class"] == 2 else m["nr_class"]
    values = [float(t) for t in body.split()]
    assert len(values) == w_size * nr_w, f"{path}: {len(values)} weights, expected {w_size}x{nr_w}"
    m["w"] = np.array(values).reshape(w_size, nr_w)
    return m


def binary_targets(y, m, k):
    """The +1/-1 targets of the binary problem behind column k of model m:
    label[0] is the positive side of a two-class model; one-vs-rest otherwise."""
    yi = y.astype(int)
    positive = m["labels"][0] if m["w"].shape[1] == 1 else m["labels"][k]
    return np.where(yi == positive, 1.0, -1.0)


# ----------------------------------------------------------------- objectives

def primal_objective(solver, w, t, X, C):
    """0.5 w.w + C sum loss(t_i w.x_i) for -s 0 (logistic), -s 1/2 (squared
    hinge) and -s 3 (hinge); also returns the margins z_i = t_i w.x_i."""
    z = t * (X @ w)
    if solver == 0:
        loss = np.logaddexp(0.0, -z)
    elif solver in (1, 2):
        loss = np.maximum(0.0, 1.0 - z) ** 2
    else:
        loss = np.maximum(0.0, 1.0 - z)
    return 0.5 * w @ w + C * loss.sum(), z


def newton_gap_bound(solver, eps, t, X, C):
    """Upper bound on f(w) - f* when Newton stopped at
    ||grad f(w)|| <= eps * max(min(pos,neg),1)/l * ||grad f(0)||.
    f is 1-strongly convex (its regulariser is 0.5 w.w and the losses are
    convex), so f(w) - f* <= ||grad f(w)||^2 / 2. grad f(0) is exact:
    -C/2 sum t_i x_i for the logistic loss, -2C sum t_i x_i for squared hinge."""
    scale = 0.5 if solver in (0, 7) else 2.0
    g0 = np.linalg.norm(scale * C * (X.T @ t))
    pos = int(np.count_nonzero(t > 0))
    neg = len(t) - pos
    g = eps * max(min(pos, neg), 1) / len(t) * g0
    return g * g / 2


def dual_gap_bound(solver, eps, z, C):
    """Upper bound on the duality gap P(w) + D(alpha) when dual CD stopped with
    every projected gradient |PG_i| <= eps (the 2.42+ rule: max - min <= eps
    and |max|, |min| <= eps), w = sum alpha_i t_i x_i. With m_i = z_i - 1:
     -s 3 (0 <= alpha <= C, G_i = m_i): the gap is sum_i alpha_i m_i for m_i >= 0
      and (C - alpha_i)(-m_i) for m_i < 0; either term is nonzero only when
      |m_i| = |PG_i| <= eps, and is then <= C eps.
     -s 1 (alpha >= 0, G_i = m_i + alpha_i/2C): substituting alpha_i =
      2C(G_i - m_i) makes each term C(G_i^2 - m_i^2) + C max(0,-m_i)^2 <= C eps^2,
      and the term is 0 unless m_i < eps.
    alpha is not in the model, so count every instance that could contribute."""
    m = z - 1.0
    if solver == 3:
        return C * eps * np.count_nonzero(np.abs(m) <= eps)
    return C * eps * eps * np.count_nonzero(m < eps)


def option_value(options, flag, default):
    tokens = options.split()
    return float(tokens[tokens.index(flag) + 1]) if flag in tokens else default


def objective_tolerance(solver, options, log, w, t, X, C):
    """How far this model's objective may lie above the optimum, given the
    tolerance -e it was trained with and what its training log says.
    Returns (bound, capped); capped means the -e gave no guarantee because a
    dual solver stopped at its 300-iteration cap without switching."""
    eps = option_value(options, "-e", DEFAULT_EPS[solver])
    f, z = primal_objective(solver, w, t, X, C)
    if solver in (0, 2):
        return newton_gap_bound(solver, eps, t, X, C), False
    # Dual CD evaluates each G_i during the final pass, before later
    # coordinates move w a little more; factor 2 covers that drift.
    bound = 2.0 * dual_gap_bound(solver, eps, z, C)
    if SWITCH_TEXT in log:
        # Upstream (and we) rerun primal Newton at eps/10 after the -s 1 cap.
        bound = max(bound, newton_gap_bound(2, eps / 10, t, X, C))
        return bound, False
    return bound, MAX_ITER_TEXT in log


# --------------------------------------------------------------------- cases

@dataclass(frozen=True)
class Case:
    """One training setting: dataset files, solver, extra train options."""
    dataset: str
    train_stem: str
    test_stem: str
    solver: int
    options: str = ""

    @property
    def train_options(self):
        return f"-s {self.solver} {self.options}".strip()

    @property
    def C(self):
        return option_value(self.options, "-c", 1.0)

    def __str__(self):
        return f"{self.dataset}-s{self.solver}" + self.options.replace(" ", "")


@dataclass
class Trained:
    case: Case
    train_path: Path
    test_path: Path
    ours_model: Path
    ours_log: str
    up_model: Path
    up_log: str


# ------------------------------------------------------------------- runners

def run(cmd, cwd=None, timeout=300):
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
        timeout=timeout, stdin=subprocess.DEVNULL)


class Upstream:
    """Upstream LIBLINEAR 2.50 through its own Python interface."""

    def __init__(self):
        self._log = []
        # Kept alive here: the C library holds a pointer to it.
        self._printer = PRINT_STRING_FUN(lambda s: self._log.append(s.decode()))

    def train(self, data_path, options, model_path):
        """Trains like `train options data_path model_path`; returns the log."""
        y, x = svm_read_problem(str(data_path), return_scipy=True)
        param = parameter(options)
        param.print_func = self._printer
        self._log.clear()
        m = upstream_train(problem(y, x), param)
        save_model(str(model_path), m)
        return "".join(self._log)

    def cross_validation(self, data_path, options):
        """CV accuracy in % as upstream's train -v reports it."""
        y, x = svm_read_problem(str(data_path), return_scipy=True)
        param = parameter(options)
        param.print_func = self._printer
        return upstream_train(problem(y, x), param)

    def predict(self, data_path, model_path, options=""):
        """(labels, values) of upstream's predict on a model file."""
        y, x = svm_read_problem(str(data_path), return_scipy=True)
        m = load_model(str(model_path))
        assert m is not None, f"upstream could not load {model_path}"
        labels, _, values = predict(y, x, m, options + " -q")
        return np.array(labels), np.array(values)


def accuracy_line(predicted, truth):
    correct = int(np.count_nonzero(predicted == truth))
    return "Accuracy = %g%% (%d/%d)" % (100.0 * correct / len(truth), correct, len(truth))


CV_LINE = re.compile(r"^Cross Validation Accuracy = (\S+)%$", re.M)
