"""oracle_lib - what the oracle tests share: data and model parsing, primal
objectives, the suboptimality bounds that a stopping tolerance implies, and
runners for our CLI and for upstream LIBLINEAR 2.50 (liblinear-official).

Everything here is independent of our C code: data and model files are
parsed in numpy, objectives are recomputed from the weights alone.
"""
import ctypes
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from liblinear.liblinear import PRINT_STRING_FUN, parameter, problem
from liblinear.liblinearutil import load_model, predict, save_model, svm_read_problem
from liblinear.liblinearutil import train as upstream_train

# Upstream's randomized solvers draw from the C library's rand().
LIBC = ctypes.CDLL(None)

REPO = Path(__file__).resolve().parents[2]
# The programs under test: ours, built at the repository root, unless
# LIBLINEAR_IK_BIN names another folder (e.g. an installed bin/).
BIN_DIR = Path(os.environ.get("LIBLINEAR_IK_BIN", REPO))
TRAIN = BIN_DIR / "train"
PREDICT = BIN_DIR / "predict"
# The ikmap command: tools/ikmap in a build tree (./ikmap is the map
# library's folder), bin/ikmap when installed.
IKMAP_TOOL = (BIN_DIR / "tools" / "ikmap" if (BIN_DIR / "tools").is_dir()
    else BIN_DIR / "ikmap")
OUR_LIB = REPO / "liblinear" / "liblinear.so.6"
DATA_DIR = Path(os.environ.get("LIBLINEAR_IK_DATA", REPO.parent / "shared" / "data"))

SOLVER_NAMES = {0: "L2R_LR", 1: "L2R_L2LOSS_SVC_DUAL", 2: "L2R_L2LOSS_SVC",
    3: "L2R_L1LOSS_SVC_DUAL", 4: "MCSVM_CS", 5: "L1R_L2LOSS_SVC", 6: "L1R_LR", 7: "L2R_LR_DUAL",
    11: "L2R_L2LOSS_SVR", 12: "L2R_L2LOSS_SVR_DUAL", 13: "L2R_L1LOSS_SVR_DUAL", 21: "ONECLASS_SVM"}
SOLVER_BY_NAME = {v: k for k, v in SOLVER_NAMES.items()}
DEFAULT_EPS = {0: 0.01, 1: 0.1, 2: 0.01, 3: 0.1, 4: 0.1, 5: 0.01, 6: 0.01, 7: 0.1,
    11: 0.0001, 12: 0.1, 13: 0.1, 21: 0.01}
REGRESSION = {11, 12, 13}
PROBABILITY = {0, 6, 7}
L1_REGULARISED = {5, 6}
# Solvers that may leave the bias out of the regulariser (-R).
UNREGULARISED_BIAS_OK = {0, 2, 5, 6, 11}

# Solvers whose upstream result depends on rand() (they visit variables
# in a shuffled order); ours draw from another generator (common/rng.h).
RANDOMIZED = {1, 3, 4, 5, 6, 7, 12, 13, 21}

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
    if "rho" in m:
        m["rho"] = float(m["rho"])
    w_size = m["nr_feature"] + (1 if m["bias"] >= 0 else 0)
    # Crammer-Singer keeps one column per class even for two classes.
    nr_w = 1 if m["nr_class"] == 2 and m["solver"] != 4 else m["nr_class"]
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

def loss_and_slope(solver, u, p=0.1):
    """Per-instance loss and its derivative in u, where u is the margin
    t_i w.x_i for classification and the residual w.x_i - y_i for regression
    (p: the epsilon of the SVR losses). For the hinge losses the slope is a
    subgradient."""
    if solver in (0, 6, 7):
        return np.logaddexp(0.0, -u), -expit(-u)
    if solver in (1, 2, 5):
        h = np.maximum(0.0, 1.0 - u)
        return h * h, -2.0 * h
    if solver == 3:
        return np.maximum(0.0, 1.0 - u), -(u < 1.0).astype(float)
    h = np.maximum(0.0, np.abs(u) - p)
    if solver in (11, 12):
        return h * h, 2.0 * np.sign(u) * h
    if solver == 13:
        return h, np.sign(u) * (h > 0)
    raise ValueError(f"no per-instance loss for -s {solver}")


def regularised_part(w, bias_regularised):
    """The weights the regulariser sees: all of them, or all but the bias
    weight (the last) under -R."""
    return w if bias_regularised else w[:-1]


def primal_objective(solver, w, t, X, C, p=0.1, bias_regularised=True):
    """reg(w) + sum C_i loss_i: reg is 0.5 w.w, or |w|_1 for -s 5 and 6; the
    losses as in loss_and_slope; t holds the +1/-1 targets (classification)
    or the real ones (regression); C is a number or one per instance.
    Also returns u, the margins (classification) or residuals (regression)."""
    u = X @ w - t if solver in REGRESSION else t * (X @ w)
    loss, _ = loss_and_slope(solver, u, p)
    v = regularised_part(w, bias_regularised)
    reg = np.abs(v).sum() if solver in L1_REGULARISED else 0.5 * v @ v
    return reg + np.sum(C * loss), u


def loss_gradient(solver, w, t, X, C, p=0.1):
    """Gradient in w of sum C_i loss_i (a subgradient for hinge losses)."""
    u = X @ w - t if solver in REGRESSION else t * (X @ w)
    _, slope = loss_and_slope(solver, u, p)
    du = C * slope if solver in REGRESSION else C * slope * t
    return X.T @ du


def stopping_ratio(solver, t):
    """The factor max(min(pos,neg),1)/l that the primal stopping rules of
    -s 0, 2, 5 and 6 put before eps (1 for regression)."""
    if solver in REGRESSION:
        return 1.0
    pos = int(np.count_nonzero(t > 0))
    return max(min(pos, len(t) - pos), 1) / len(t)


def smooth_gradient(solver, w, t, X, C, p=0.1, bias_regularised=True):
    """grad f(w) of an L2-regularised smooth primal (-s 0, 2, 11)."""
    g = loss_gradient(solver, w, t, X, C, p)
    g[:len(w) - (0 if bias_regularised else 1)] += regularised_part(w, bias_regularised)
    return g


def newton_gradient_claim(solver, eps, t, X, C, p=0.1):
    """What Newton's stopping rule promises about ||grad f(w)||_2:
    eps * ratio * ||grad f(0)||_2. At w = 0 only the losses contribute."""
    zero = np.zeros(X.shape[1])
    return eps * stopping_ratio(solver, t) * np.linalg.norm(loss_gradient(solver, zero, t, X, C, p))


def newton_gap_bound(solver, eps, t, X, C, p=0.1):
    """Upper bound on f(w) - f* when Newton stopped at the rule above.
    f is 1-strongly convex (its regulariser is 0.5 w.w and the losses are
    convex), so f(w) - f* <= ||grad f(w)||^2 / 2. Not for -R: without the
    bias in the regulariser f is not strongly convex."""
    g = newton_gradient_claim(solver, eps, t, X, C, p)
    return g * g / 2


def l1_subgradient(solver, w, t, X, C, bias_regularised=True):
    """The minimum-norm subgradient of |w|_1 + sum C_i loss_i (-s 5, 6): the
    measure their stopping rule takes the 1-norm of. For w_j = 0 the |w_j|
    term contributes anything in [-1, 1], so the loss slope shrinks by 1."""
    g = loss_gradient(solver, w, t, X, C)
    reg = np.ones(len(w), dtype=bool)
    if not bias_regularised:
        reg[-1] = False
    s = g.copy()
    s[reg & (w > 0)] += 1.0
    s[reg & (w < 0)] -= 1.0
    at_zero = reg & (w == 0)
    s[at_zero] = np.sign(g[at_zero]) * np.maximum(np.abs(g[at_zero]) - 1.0, 0.0)
    return s


def l1_subgradient_claim(solver, eps, t, X, C, bias_regularised=True):
    """What the -s 5/6 stopping rule promises about |subgradient(w)|_1:
    eps * min(pos,neg)/l * |subgradient(0)|_1 (w0 = 0, no init_sol)."""
    zero = np.zeros(X.shape[1])
    g0 = l1_subgradient(solver, zero, t, X, C, bias_regularised)
    return eps * stopping_ratio(solver, t) * np.abs(g0).sum()


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


def dual_lr_gap_bound(eps, C):
    """-s 7: upper bound on P(w) + D(alpha) when every |G_i| <= eps, where
    G_i = z_i + log(alpha_i / (C_i - alpha_i)) is the dual gradient. Each
    instance's gap is the Bregman divergence of H(v) = C_i log(1 + e^v)
    between -z_i and log(alpha_i/(C_i - alpha_i)), two points G_i apart;
    H'' <= C_i/4, so the term is at most C_i G_i^2 / 8. C: one per instance."""
    return np.sum(C) * eps * eps / 8


def svr_dual_gap_bound(solver, eps, y, C, p):
    """-s 12/13: upper bound on P(w) + D(beta) when the dual's minimum-norm
    (projected) gradient g has |g|_1 <= eps |g(0)|_1, |g(0)|_1 =
    sum max(|y_i| - p, 0). Per instance, with r_i = w.x_i - y_i:
     -s 13 (|beta_i| <= C): the gap term beta_i r_i + p|beta_i| +
      C max(0, |r_i| - p) is at most 2 C |g_i|;
     -s 12: the term is the Fenchel gap of h(r) = C max(0, |r| - p)^2, whose
      h'' <= 2C, so it is at most C g_i^2, and sum g_i^2 <= |g|_1^2."""
    g = eps * np.sum(np.maximum(np.abs(y) - p, 0.0))
    return 2 * C * g if solver == 13 else C * g * g


def cs_scores(W, yk, X):
    """Crammer-Singer: G[i, m] = w_m.x_i + (m != y_i), the quantities of its
    dual gradient; yk[i] is the model column of instance i's class."""
    G = np.asarray(X @ W) + 1.0
    G[np.arange(len(yk)), yk] -= 1.0
    return G


def cs_primal_objective(W, yk, X, C):
    """0.5 |W|_F^2 + sum C_i (max_m G[i, m] - G[i, y_i]) (-s 4); C per instance."""
    G = cs_scores(W, yk, X)
    xi = G.max(axis=1) - G[np.arange(len(yk)), yk]
    return 0.5 * np.sum(W * W) + np.sum(C * xi)


def cs_gap_bound(eps, W, yk, X, C):
    """-s 4: upper bound on P(W) + D(alpha) when each instance's violation
    max_m G_im - min{G_im : alpha_im < C_i [m = y_i]} is <= eps. With
    sum_m alpha_im = 0 the instance's gap term is
    (C_i - alpha_iy)(Gmax - G_iy) + sum_{m != y} |alpha_im| (Gmax - G_im);
    both parts are <= C_i eps, and both vanish when the margin
    G_iy - max_{m != y} G_im exceeds eps (then alpha_i = 0)."""
    G = cs_scores(W, yk, X)
    rows = np.arange(len(yk))
    own = G[rows, yk].copy()
    G[rows, yk] = -np.inf
    contributing = G.max(axis=1) >= own - eps
    return 2 * eps * np.sum(np.broadcast_to(C, own.shape)[contributing])


def oneclass_objectives(w, rho, X, nu):
    """-s 21 (upstream's scaling, 0 <= alpha_i <= 1, sum alpha = nu l):
    the dual D = 0.5 w.w and the primal at (w, rho),
    P = 0.5 w.w - nu l rho + sum max(0, rho - w.x_i); P* = -D*."""
    l = X.shape[0]
    dual = 0.5 * w @ w
    primal = dual - nu * l * rho + np.sum(np.maximum(0.0, rho - X @ w))
    return primal, dual


def oneclass_gap_bound(eps, w, rho, X):
    """-s 21: upper bound on P + D when max{G_i : alpha_i > 0} -
    min{G_i : alpha_i < 1} <= eps, G_i = w.x_i, and rho lies between the two
    (as upstream picks it). Each instance's gap term is at most eps and is
    zero unless |G_i - rho| <= eps."""
    return eps * np.count_nonzero(np.abs(X @ w - rho) <= eps)


def dual_objectives_in_log(log):
    """The 'Objective value = %lf' values of a training log: the dual
    objective of each sub-problem, in training (label) order."""
    return [float(v) for v in re.findall(r"^Objective value = (\S+)$", log, re.M)]


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

    @property
    def eps(self):
        return option_value(self.options, "-e", DEFAULT_EPS[self.solver])

    @property
    def p(self):
        return option_value(self.options, "-p", 0.1)

    @property
    def nu(self):
        return option_value(self.options, "-n", 0.5)

    @property
    def bias_regularised(self):
        return "-R" not in self.options.split()

    @property
    def weights(self):
        """{label: factor} of the -wi options."""
        tokens = self.options.split()
        return {int(tok[2:]): float(tokens[i + 1]) for i, tok in enumerate(tokens)
            if tok.startswith("-w")}

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


def instance_costs(m, y, k, C, weights):
    """C_i of every instance in the problem behind column k of model m
    (upstream's rules): two classes, each class's own -wi factor times C;
    one-vs-rest, the factor of class k for its instances and plain C for the
    rest; Crammer-Singer, each instance's class factor."""
    yi = y.astype(int)
    labels = m["labels"]
    if m["solver"] == 4:
        return C * np.array([weights.get(v, 1.0) for v in yi])
    if m["w"].shape[1] == 1:
        return C * np.where(yi == labels[0], weights.get(labels[0], 1.0), weights.get(labels[1], 1.0))
    return C * np.where(yi == labels[k], weights.get(labels[k], 1.0), 1.0)


# The dual solvers measure each violation during their last pass, before later
# coordinates move w a little more; their claims are taken at DRIFT * eps.
DRIFT = 2.0
# After the iteration cap, -s 1, 7 and 12 rerun a primal Newton solver with
# a tighter eps (upstream's factors).
SWITCHES = {1: (2, 0.1), 7: (0, 0.1), 12: (11, 0.001)}


@dataclass
class Judged:
    """One sub-problem of one side's model, judged against its stopping rule.
    kind: 'newton' (measure: |grad f|_2), 'l1' (|min-norm subgradient|_1) or
    'dual' (measure: the duality gap P + D, D from the log). claim: what -e
    promises for the measure. f_bound: the bound it implies on f - f*, or None
    where f is not strongly convex (then f - f* <= claim |w - w*|, see norm).
    f: the objective compared across sides: the primal, except for -s 21,
    where it is the dual 0.5 w.w (strongly convex in w; rho is not pinned)."""
    kind: str
    f: float
    dual: float
    measure: float
    claim: float
    f_bound: float
    w: np.ndarray
    norm: int
    capped: bool


def judge(case, m, log, y, X):
    """[Judged] for model m (parse_model) trained on (y, X) with case's options
    and printing log."""
    Xb = with_columns(X, m["nr_feature"], m["bias"])
    solver, eps = case.solver, case.eps
    capped = MAX_ITER_TEXT in log
    if capped and solver in SWITCHES and "Switching to use -s" in log:
        solver, factor = SWITCHES[solver]
        eps, capped = eps * factor, False
    duals = dual_objectives_in_log(log)
    dual = duals[0] if len(duals) == 1 else None
    if solver == 21:
        w = m["w"][:, 0]
        primal, d = oneclass_objectives(w, m["rho"], Xb, case.nu)
        claim = oneclass_gap_bound(DRIFT * eps, w, m["rho"], Xb)
        return [Judged("dual", d, dual, primal + dual, claim, claim, w, 2, capped)]
    if solver == 4:
        yk = np.array([m["labels"].index(v) for v in y.astype(int)])
        Ci = instance_costs(m, y, None, case.C, case.weights)
        W = m["w"]
        f = cs_primal_objective(W, yk, Xb, Ci)
        claim = cs_gap_bound(DRIFT * eps, W, yk, Xb, Ci)
        return [Judged("dual", f, dual, f + dual, claim, claim, W.ravel(), 2, capped)]
    judged = []
    for k in range(m["w"].shape[1]):
        w = m["w"][:, k]
        if solver in REGRESSION:
            t, C = y, case.C
        else:
            t, C = binary_targets(y, m, k), instance_costs(m, y, k, case.C, case.weights)
        f, _ = primal_objective(solver, w, t, Xb, C, case.p, case.bias_regularised)
        if solver in (0, 2, 11):
            measure = np.linalg.norm(smooth_gradient(solver, w, t, Xb, C, case.p, case.bias_regularised))
            claim = newton_gradient_claim(solver, eps, t, Xb, C, case.p)
            f_bound = claim * claim / 2 if case.bias_regularised else None
            judged.append(Judged("newton", f, None, measure, claim, f_bound, w, 2, capped))
        elif solver in L1_REGULARISED:
            measure = np.abs(l1_subgradient(solver, w, t, Xb, C, case.bias_regularised)).sum()
            # -s 5 (CDN) sums the violations during its pass, like the dual
            # solvers; -s 6 (newGLMNET) measures at the w it returns.
            drift = DRIFT if solver == 5 else 1.0
            claim = l1_subgradient_claim(solver, drift * eps, t, Xb, C, case.bias_regularised)
            judged.append(Judged("l1", f, None, measure, claim, None, w, 1, capped))
        else:
            if solver == 7:
                claim = dual_lr_gap_bound(DRIFT * eps, C)
            elif solver in (12, 13):
                claim = svr_dual_gap_bound(solver, DRIFT * eps, y, C, case.p)
            else:
                _, z = primal_objective(solver, w, t, Xb, C)
                claim = dual_gap_bound(solver, DRIFT * eps, z, C)
            dual = duals[k] if len(duals) == m["w"].shape[1] else None
            measure = f + dual if dual is not None else None
            judged.append(Judged("dual", f, dual, measure, claim, claim, w, 2, capped))
    return judged


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

    def train(self, data_path, options, model_path, seed=1):
        """Trains like `train options data_path model_path`; returns the log.
        rand() is reseeded to `seed` first (1: as in a fresh upstream train
        process), so that its randomized solvers give what upstream's train
        gives, whatever ran before in this process."""
        y, x = svm_read_problem(str(data_path), return_scipy=True)
        param = parameter(options)
        param.print_func = self._printer
        self._log.clear()
        LIBC.srand(seed)
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


def accuracy(predicted, truth):
    """Percentage of predicted labels equal to the true ones."""
    return 100.0 * np.count_nonzero(predicted == truth) / len(truth)


def accuracy_line(predicted, truth):
    correct = int(np.count_nonzero(predicted == truth))
    return "Accuracy = %g%% (%d/%d)" % (100.0 * correct / len(truth), correct, len(truth))


CV_LINE = re.compile(r"^Cross Validation Accuracy = (\S+)%$", re.M)
