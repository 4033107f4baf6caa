"""scikit-learn estimators on the Isolation Kernel and the exact-sparse kernels.

``IsolationKernel`` is a transformer: ``fit`` builds the map (t random
partitionings of psi sampled rows each) and ``transform`` returns, for every
row, a CSR row with exactly t nonzeros of value 1/sqrt(t) at columns
k*psi + cell (0-based), the features ``train -k`` trains on; so
``X' X'.T`` is the kernel matrix K(x, y) = (shared cells) / t.

``IKLinearClassifier`` and ``IKLinearRegressor`` train LIBLINEAR on that map:
the same rows, the same solvers, the same model as ``train -k`` with the same
options and seed (``-r`` is ``random_state``).

Where this layer differs from the programs, and why:

* psi larger than the number of rows: ``train -k`` refuses it; ``fit`` uses
  psi = n with a ``UserWarning`` that says so (scikit-learn's own checks fit
  on sets of 1 to 30 rows, and a pipeline's inner folds may be small). This
  is for the Isolation Kernel types only (psi is sampled rows there):
  ``kernel="minmax"`` (psi = 2^b cells) and ``kernel="acos"`` (2 cells)
  take their psi whatever the number of rows.
* ``random_state`` defaults to 1, the programs' ``-r 1``, so that an
  estimator with default parameters reproduces ``train -k``. An int is the
  seed itself; a ``numpy.random.RandomState`` or None draws one.
* Class labels may be anything numpy can sort (LIBLINEAR's are integers):
  they are encoded as 0..K-1 in ``classes_`` order before training, and
  ``predict`` follows the sign / argmax of ``decision_function`` (LIBLINEAR's
  rule, up to an exact zero decision value, where it picks its second label).
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import assert_all_finite, check_is_fitted, validate_data

from ._ik import IKMap
from . import liblinear as _ll
from . import liblinearutil as _util

__all__ = ["IsolationKernel", "IKLinearClassifier", "IKLinearRegressor"]

_KERNELS = ("anne", "iforest", "minmax", "acos")
# psi is sampled rows for these (capped by the rows in fit); cells for minmax and acos
_IK_KERNELS = ("anne", "iforest")
_DEFAULT_PSI = {"anne": 64, "iforest": 32, "minmax": 256, "acos": 2}
_DEVICES = ("auto", "cpu", "gpu")
_CLASSIFIERS = (0, 1, 2, 3, 4, 5, 6, 7)
_LOGISTIC = (0, 6, 7)
_REGRESSORS = (11, 12, 13)


def _rows_of(estimator, X, reset):
    """X validated for the map. A dense array's finiteness is left to the C library, which
    checks every value as it reads the rows anyway (scikit-learn's check was a second pass
    over them, some 6 % of fit_transform on 10000 x 784 rows); sparse values are checked here."""
    X = validate_data(estimator, X, accept_sparse="csr", dtype=np.float64, reset=reset,
                      ensure_all_finite=False)
    if sp.issparse(X):
        assert_all_finite(X.data, input_name="X")
    return X


def _mapped(make, X, **kwargs):
    """make(X, **kwargs); when the library refuses dense rows, scikit-learn's own error
    for a non-finite value where X has one (as its check would have raised it before)."""
    try:
        return make(X, **kwargs)
    except ValueError:
        if not sp.issparse(X):
            assert_all_finite(X, input_name="X")
        raise


def _seed_of(random_state):
    """The map's seed: an int as given (train's -r), else one drawn from it."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return int(random_state)
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


def _positive_int(name, value):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


class IsolationKernel(TransformerMixin, BaseEstimator):
    """A kernel's exact feature map (``train -k``'s map).

    Parameters
    ----------
    kernel : {"anne", "iforest", "minmax", "acos"}, default "anne"
        aNNE Voronoi cells (-k anne), isolation trees (-k iforest), the
        min-max kernel by 0-bit consistent weighted sampling (-k minmax) or
        the acos kernel by sign random projections (-k acos).
    t : int, default 100
        Number of partitionings, or samples for minmax and acos (at most
        65536) (-t): the map has t nonzeros per row.
    psi : int or None, default None
        anne, iforest: rows sampled per partitioning (-g); above the number
        of rows, fit uses psi = n with a warning. minmax: 2^b cells per
        sample, a power of two from 16 to 65536, whatever the rows. acos:
        2 (None or 2). None: the programs' default (64 for aNNE, 32 for
        iForest, 256 for minmax, 2 for acos).
    scale : None, bool, 0..4 or "none", "maxabs", "minmax", "std", "log1p", default None
        The per-feature transform (-S), learnt over the rows given to fit
        and stored with the map; every code for every kernel. None: the
        kernel's default, max-abs for anne and iforest (-S 1; iforest
        ignores 1-3), none for minmax and acos (-S 0). False/0: none;
        True/1/"maxabs": divide by max |x|; 2/"minmax": min-max (anne:
        divide by the range; minmax and acos: to [0, 1], later values
        clipped); 3/"std": divide by the standard deviation; 4/"log1p":
        log1p, then as 1. A negative value is a ValueError naming the row
        and feature under 4, and for minmax under every scale but 2.
    random_state : int, RandomState or None, default 1
        The seed (-r).
    device : {"auto", "cpu", "gpu"}, default "auto"
        Where rows are mapped (-d).
    n_jobs : int or None, default None
        Threads (-m); None: OpenMP's default. Results do not depend on it.
    raw_weight : float, default 0.0
        w (-a): w > 0 appends each row's features, transformed as scale
        (iforest: divided by their range under scale 2, else as they are),
        times w, after the cells; the kernel becomes K + w^2 <x', y'>.

    Attributes
    ----------
    map_ : the fitted map; psi_ : the psi it used; n_features_in_.
    """

    def __init__(self, kernel="anne", t=100, psi=None, scale=None, random_state=1,
                 device="auto", n_jobs=None, raw_weight=0.0):
        self.raw_weight = raw_weight
        self.kernel = kernel
        self.t = t
        self.psi = psi
        self.scale = scale
        self.random_state = random_state
        self.device = device
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags

    def _threads(self):
        return 0 if self.n_jobs is None or self.n_jobs < 0 else int(self.n_jobs)

    def fit(self, X, y=None):
        self._fit(X, transform=False)
        return self

    def fit_transform(self, X, y=None):
        """fit(X).transform(X), with X converted to rows once (the map is built on them)."""
        return self._fit(X, transform=True)

    def _fit(self, X, transform):
        X = _rows_of(self, X, reset=True)
        if self.kernel not in _KERNELS:
            raise ValueError(f"kernel must be one of {_KERNELS}, got {self.kernel!r}")
        if self.device not in _DEVICES:
            raise ValueError(f"device must be one of {_DEVICES}, got {self.device!r}")
        t = _positive_int("t", self.t)
        psi = _DEFAULT_PSI[self.kernel] if self.psi is None else _positive_int("psi", self.psi)
        n = X.shape[0]
        if psi > n and self.kernel in _IK_KERNELS:
            warnings.warn(f"psi = {psi} is larger than the {n} rows given to fit: "
                          f"using psi = {n}", UserWarning)
            psi = n
        make = IKMap.build_transform if transform else IKMap.build
        made = _mapped(make, X, kernel=self.kernel, t=t, psi=psi,
                       seed=_seed_of(self.random_state), scale=self.scale, device=self.device,
                       threads=self._threads(), raw_weight=self.raw_weight)
        self.map_, Z = made if transform else (made, None)
        self.psi_ = psi
        return Z

    def transform(self, X):
        check_is_fitted(self, "map_")
        X = _rows_of(self, X, reset=False)
        return _mapped(self.map_.transform, X)


class _IKLinear(BaseEstimator):
    """What the classifier and the regressor share: the map, then LIBLINEAR on it."""

    def _kernel(self):
        return IsolationKernel(kernel=self.kernel, t=self.t, psi=self.psi, scale=self.scale,
                               random_state=self.random_state, device=self.device,
                               n_jobs=self.n_jobs, raw_weight=self.raw_weight)

    def _options(self, solver, extra=""):
        if not isinstance(self.C, numbers.Real) or not self.C > 0:
            raise ValueError(f"C must be > 0, got {self.C!r}")
        opts = f"-q -s {solver} -c {float(self.C)!r} -B {float(self.bias)!r}"
        if self.eps is not None:
            if not isinstance(self.eps, numbers.Real) or not self.eps > 0:
                raise ValueError(f"eps must be > 0, got {self.eps!r}")
            opts += f" -e {float(self.eps)!r}"
        if self.n_jobs is not None and self.n_jobs > 0:
            opts += f" -m {int(self.n_jobs)}"
        return opts + extra

    def _fit_map(self, X):
        self.ik_ = self._kernel()
        return self.ik_.fit_transform(X)

    def _raw_outputs(self, X, probability=False):
        check_is_fitted(self, "model_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        cells = self.ik_.map_.transform(X)
        opts = "-q -b 1" if probability else "-q"
        _, _, values = _util.predict([], cells, self.model_, opts)
        return np.asarray(values, dtype=np.float64).reshape(X.shape[0], -1)


class IKLinearClassifier(ClassifierMixin, _IKLinear):
    """A LIBLINEAR classifier on a kernel map (``train -k -s solver``; any of the four kernels).

    Parameters: the kernel's (see IsolationKernel) and LIBLINEAR's:
    solver (-s, 0..7, default 1), C (-c), eps (-e; None: the solver's
    default), bias (-B, default 1: an intercept, as scikit-learn's LinearSVC
    fits one; -1: none, the programs' default), class_weight (-w; a dict or
    "balanced"). ``predict_proba`` exists for the logistic solvers 0, 6, 7.
    """

    def __init__(self, kernel="anne", t=100, psi=None, scale=None, random_state=1,
                 device="auto", n_jobs=None, solver=1, C=1.0, eps=None, bias=1.0,
                 class_weight=None, raw_weight=0.0):
        self.raw_weight = raw_weight
        self.kernel = kernel
        self.t = t
        self.psi = psi
        self.scale = scale
        self.random_state = random_state
        self.device = device
        self.n_jobs = n_jobs
        self.solver = solver
        self.C = C
        self.eps = eps
        self.bias = bias
        self.class_weight = class_weight

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X, y):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=True)
        check_classification_targets(y)
        if self.solver not in _CLASSIFIERS:
            raise ValueError(f"solver must be one of {_CLASSIFIERS} for a classifier, got {self.solver!r}")
        encoder = LabelEncoder().fit(y)
        self.classes_ = encoder.classes_
        codes = encoder.transform(y)
        weights = ""
        if self.class_weight is not None:
            w = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
            weights = "".join(f" -w{k} {float(w[k])!r}" for k in range(len(self.classes_)))
        options = self._options(self.solver, weights)
        cells = self._fit_map(X)
        self.model_ = _util.train(codes.astype(np.float64), cells, options)
        # LIBLINEAR's decision values follow its label order (first appearance)
        self.label_order_ = np.asarray(self.model_.get_labels(), dtype=np.int64)
        return self

    def decision_function(self, X):
        check_is_fitted(self, "model_")
        k = len(self.classes_)
        if k == 2 and self.solver == 4:
            return self._crammer_singer_binary(X)
        values = self._raw_outputs(X)
        if k == 2:
            # LIBLINEAR: > 0 means its first label; scikit-learn: > 0 means classes_[1]
            sign = 1.0 if self.label_order_[0] == 1 else -1.0
            return sign * values[:, 0]
        if k == 1:
            return values[:, 0]
        out = np.empty((values.shape[0], k))
        out[:, self.label_order_] = values
        return out

    def _crammer_singer_binary(self, X):
        """Crammer-Singer keeps a weight column per class even for two, but
        predict() returns only the first score (as upstream's does): both
        are computed here from the weights, and their difference returned."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        Z = self.ik_.map_.transform(X)
        m = self.model_
        width = m.nr_feature + (1 if m.bias >= 0 else 0)
        W = np.ctypeslib.as_array(m.w, shape=(width * 2,)).reshape(width, 2)
        scores = Z @ W[:m.nr_feature]
        if m.bias >= 0:
            scores = scores + m.bias * W[m.nr_feature]
        out = np.empty_like(scores)
        out[:, self.label_order_] = scores
        return out[:, 1] - out[:, 0]

    def predict(self, X):
        check_is_fitted(self, "model_")
        if len(self.classes_) == 1:
            X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
            return np.repeat(self.classes_, X.shape[0])
        d = self.decision_function(X)
        index = (d > 0).astype(np.int64) if d.ndim == 1 else np.argmax(d, axis=1)
        return self.classes_[index]

    def _has_proba(self):
        return self.solver in _LOGISTIC

    @available_if(_has_proba)
    def predict_proba(self, X):
        values = self._raw_outputs(X, probability=True)
        out = np.empty((values.shape[0], len(self.classes_)))
        out[:, self.label_order_] = values
        return out

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))


class IKLinearRegressor(RegressorMixin, _IKLinear):
    """A LIBLINEAR regressor on a kernel map (``train -k -s 11|12|13``; any of the four kernels).

    Parameters: the kernel's (see IsolationKernel) and LIBLINEAR's: solver
    (-s, 11, 12 or 13, default 11), C (-c), epsilon (-p, default 0.1), eps
    (-e), bias (-B, default 1 as for the classifier).
    """

    def __init__(self, kernel="anne", t=100, psi=None, scale=None, random_state=1,
                 device="auto", n_jobs=None, solver=11, C=1.0, epsilon=0.1, eps=None,
                 bias=1.0, raw_weight=0.0):
        self.raw_weight = raw_weight
        self.kernel = kernel
        self.t = t
        self.psi = psi
        self.scale = scale
        self.random_state = random_state
        self.device = device
        self.n_jobs = n_jobs
        self.solver = solver
        self.C = C
        self.epsilon = epsilon
        self.eps = eps
        self.bias = bias

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X, y):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=True,
                             y_numeric=True)
        if self.solver not in _REGRESSORS:
            raise ValueError(f"solver must be one of {_REGRESSORS} for a regressor, got {self.solver!r}")
        if not isinstance(self.epsilon, numbers.Real) or not self.epsilon >= 0:
            raise ValueError(f"epsilon must be >= 0, got {self.epsilon!r}")
        options = self._options(self.solver, f" -p {float(self.epsilon)!r}")
        cells = self._fit_map(X)
        self.model_ = _util.train(np.asarray(y, dtype=np.float64), cells, options)
        return self

    def predict(self, X):
        return self._raw_outputs(X)[:, 0]
