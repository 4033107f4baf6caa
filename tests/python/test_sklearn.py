"""The scikit-learn layer (liblinear.sklearn): scikit-learn's own estimator
checks, Pipeline and GridSearchCV, and agreement with the programs (the
map equals `ikmap`'s, the classifier's model equals `train -k`'s)."""

import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from liblinear.commonutil import svm_read_problem
from liblinear.sklearn import IKLinearClassifier, IKLinearRegressor, IsolationKernel

from conftest import BIN_DIR


def program(name):
    """A program of this checkout: tools/NAME, else NAME in BIN_DIR (make all)."""
    for path in (BIN_DIR / "tools" / name, BIN_DIR / name / name, BIN_DIR / name):
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    pytest.fail(f"program {name} not built in {BIN_DIR} (run make first)")


@pytest.fixture(scope="module")
def heart(data):
    """heart (270 rows, 13 features): the LIBSVM file and (y, X csr)."""
    y, X = svm_read_problem(data["heart"], return_scipy=True)
    return data["heart"], np.asarray(y), sp.csr_matrix(X)


# scikit-learn's own suite, one pytest per check. Small t keeps it quick;
# the checks fit on 1 to 30 rows, where psi is cut to n with a warning.
@parametrize_with_checks([
    IsolationKernel(t=16),
    IsolationKernel(kernel="iforest", t=16),
    IKLinearClassifier(t=16),
    IKLinearClassifier(t=16, solver=0),
    IKLinearClassifier(t=16, solver=4),
    IKLinearRegressor(t=16),
])
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="psi = .* is larger than")
        check(estimator)


def test_psi_above_rows_is_cut_with_a_warning():
    X = np.arange(20.0).reshape(10, 2)
    with pytest.warns(UserWarning, match=r"psi = 64 is larger than the 10 rows given to fit: using psi = 10"):
        ik = IsolationKernel(t=5).fit(X)
    assert ik.psi_ == 10 and ik.map_.psi == 10
    Z = ik.transform(X)
    assert Z.shape == (10, 50)


def test_transform_has_t_cells_of_value_one_over_sqrt_t(heart):
    _, _, X = heart
    Z = IsolationKernel(t=30, psi=16).fit_transform(X)
    assert sp.issparse(Z) and Z.shape == (X.shape[0], 30 * 16)
    Z = sp.csr_matrix(Z)
    assert np.all(np.diff(Z.indptr) == 30)
    np.testing.assert_array_equal(Z.data, np.full(Z.nnz, 1 / np.sqrt(30)))
    # one cell per partitioning: column // psi runs over 0..t-1 in each row
    for i in range(5):
        cols = Z.indices[Z.indptr[i]:Z.indptr[i + 1]]
        np.testing.assert_array_equal(np.sort(cols // 16), np.arange(30))


def test_dense_and_sparse_input_give_the_same_map(heart):
    _, _, X = heart
    a = IsolationKernel(t=20, psi=32).fit(X)
    b = IsolationKernel(t=20, psi=32).fit(X.toarray())
    assert a.map_.checksum == b.map_.checksum
    assert (a.transform(X) != b.transform(X.toarray())).nnz == 0


def test_gram_matrix_is_the_kernel(heart):
    _, _, X = heart
    ik = IsolationKernel(t=25, psi=8).fit(X)
    Z = ik.transform(X[:40])
    gram = (Z @ Z.T).toarray()
    np.testing.assert_allclose(gram, ik.map_.kernel(X[:40], X[:40]), rtol=0, atol=1e-12)
    # shared cells / t: multiples of 1/25, 1 on the diagonal
    np.testing.assert_allclose(np.diag(gram), 1.0, atol=1e-12)
    np.testing.assert_allclose(gram * 25, np.round(gram * 25), atol=1e-9)


@pytest.mark.parametrize("kernel,scale", [("anne", 1), ("anne", 0), ("iforest", 1)])
def test_transform_equals_the_ikmap_program(heart, tmp_path, kernel, scale):
    path, _, X = heart
    ik = IsolationKernel(kernel=kernel, t=12, psi=16, scale=bool(scale), random_state=7).fit(X)
    part = tmp_path / "p.ik"
    subprocess.run([program("ikmap"), "-k", kernel, "-t", "12", "-g", "16", "-r", "7",
                    "-S", str(scale), path, str(part)], check=True, capture_output=True)
    with open(path, "rb") as fin:
        mapped = subprocess.run([program("ikmap"), str(part)], stdin=fin, check=True,
                                capture_output=True).stdout.decode().splitlines()
    Z = sp.csr_matrix(ik.transform(X))
    assert len(mapped) == Z.shape[0]
    for i, line in enumerate(mapped):
        words = line.split()[1:]
        cols = [int(w.split(":")[0]) - 1 for w in words]
        np.testing.assert_array_equal(Z.indices[Z.indptr[i]:Z.indptr[i + 1]], cols)
        np.testing.assert_allclose([float(w.split(":")[1]) for w in words],
                                   Z.data[Z.indptr[i]:Z.indptr[i + 1]], rtol=1e-6)
    assert ik.map_.to_bytes() == part.read_bytes()


def test_classifier_model_equals_train_k(heart, tmp_path):
    """Defaults of the CLI (bias -1): the weights of `train -k anne -s 2`."""
    path, y, X = heart
    clf = IKLinearClassifier(t=40, psi=32, bias=-1, solver=2, random_state=3).fit(X, y)
    model = tmp_path / "m"
    subprocess.run([program("train"), "-q", "-s", "2", "-k", "anne", "-t", "40", "-g", "32",
                    "-r", "3", path, str(model)], check=True, capture_output=True)
    lines = model.read_text().splitlines()
    w = np.array([float(v) for v in lines[lines.index("w") + 1:lines.index("w") + 1 + 40 * 32]])
    ours = np.array([clf.model_.get_decfun_coef(j + 1, 0) for j in range(40 * 32)])
    np.testing.assert_allclose(ours, w, rtol=1e-6, atol=1e-9)
    # the same labels as `predict` on that pair
    out = tmp_path / "out"
    subprocess.run([program("predict"), path, str(model), str(out)], check=True, capture_output=True)
    np.testing.assert_array_equal(clf.predict(X), np.loadtxt(out))


def test_classifier_string_labels_and_decision_function():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(0, 1, (40, 3)), rng.normal(4, 1, (40, 3)), rng.normal(-4, 1, (40, 3))])
    y = np.array(["b"] * 40 + ["c"] * 40 + ["a"] * 40)
    clf = IKLinearClassifier(t=30, psi=16).fit(X, y)
    np.testing.assert_array_equal(clf.classes_, ["a", "b", "c"])
    d = clf.decision_function(X)
    assert d.shape == (120, 3)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[d.argmax(1)])
    assert clf.score(X, y) > 0.95
    binary = IKLinearClassifier(t=30, psi=16).fit(X[:80], y[:80])
    d = binary.decision_function(X[:80])
    assert d.shape == (80,)
    np.testing.assert_array_equal(binary.predict(X[:80]), binary.classes_[(d > 0).astype(int)])
    assert binary.score(X[:80], y[:80]) > 0.95


def test_predict_proba_only_for_logistic_solvers(heart):
    _, y, X = heart
    lr = IKLinearClassifier(t=20, psi=16, solver=0).fit(X, y)
    p = lr.predict_proba(X)
    np.testing.assert_allclose(p.sum(1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(lr.classes_[p.argmax(1)], lr.predict(X))
    svm = IKLinearClassifier(t=20, psi=16, solver=1).fit(X, y)
    assert not hasattr(svm, "predict_proba")


def test_pickle_round_trip(heart):
    _, y, X = heart
    for est in (IKLinearClassifier(t=20, psi=16, solver=0), IKLinearRegressor(t=20, psi=16)):
        est.fit(X, y)
        back = pickle.loads(pickle.dumps(est))
        np.testing.assert_array_equal(back.predict(X), est.predict(X))
    ik = IsolationKernel(t=20, psi=16).fit(X)
    back = pickle.loads(pickle.dumps(ik))
    assert (back.transform(X) != ik.transform(X)).nnz == 0
    assert back.map_.checksum == ik.map_.checksum


def test_pipeline_and_grid_search(heart):
    _, y, X = heart
    X = X.toarray()
    search = GridSearchCV(
        make_pipeline(MinMaxScaler(), IKLinearClassifier(t=30)),
        {"iklinearclassifier__psi": [4, 16, 64], "iklinearclassifier__C": [0.1, 1.0]},
        cv=3)
    search.fit(X, y)
    assert search.best_params_["iklinearclassifier__psi"] in (4, 16, 64)
    assert search.best_score_ > 0.7
    # the transformer in front of another linear learner
    pipe = Pipeline([("ik", IsolationKernel(t=30, psi=16)), ("svm", LinearSVC())])
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.mean() > 0.7


def test_same_seed_same_model_any_thread_count(heart):
    _, y, X = heart
    a = IKLinearClassifier(t=20, psi=16, n_jobs=1).fit(X, y).decision_function(X)
    b = IKLinearClassifier(t=20, psi=16, n_jobs=2).fit(X, y).decision_function(X)
    np.testing.assert_array_equal(a, b)
    c = IKLinearClassifier(t=20, psi=16, random_state=2).fit(X, y).decision_function(X)
    assert not np.array_equal(a, c)


def test_scikit_learns_own_liblinear_works_after_ours_is_loaded():
    """Our liblinear.so.6 must not lend its symbols to extensions loaded after it: with
    RTLD_GLOBAL, sklearn.svm's LIBLINEAR copy bound our check_parameter/train (another
    struct parameter) and LinearSVC crashed (SIGSEGV) or refused its parameters."""
    code = ("import liblinear.liblinear, liblinear.sklearn\n"
            "import numpy as np\n"
            "from sklearn.svm import LinearSVC\n"
            "X = np.random.RandomState(0).rand(40, 3); y = np.arange(40) % 2\n"
            "print(LinearSVC().fit(X, y).score(X, y))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert 0.0 <= float(done.stdout.split()[-1]) <= 1.0


def test_bad_parameters_raise_value_error(heart):
    _, y, X = heart
    for bad in (dict(kernel="rbf"), dict(t=0), dict(psi=0), dict(C=-1.0), dict(solver=11),
                dict(device="tpu"), dict(random_state=-1)):
        with pytest.raises(ValueError):
            IKLinearClassifier(**bad).fit(X, y)
    with pytest.raises(ValueError):
        IKLinearRegressor(solver=1).fit(X, y)
    with pytest.raises(ValueError):
        IsolationKernel().fit(np.array([[1.0, np.nan]]))


@pytest.mark.parametrize("kernel", ["anne", "iforest", "minmax", "acos"])
def test_non_finite_input_named_as_scikit_learn_names_it(kernel):
    """Dense rows are checked by the library as it reads them (not by a second pass in
    Python), sparse ones by scikit-learn: either way fit, fit_transform and transform refuse
    NaN and infinity with scikit-learn's own ValueError (whatever the library found first,
    e.g. minmax's negative -inf)."""
    rng = np.random.RandomState(3)
    good = rng.rand(40, 6)
    ik = IsolationKernel(kernel=kernel, t=8, psi=8 if kernel in ("anne", "iforest") else None)
    ik.fit(good)
    for value, said in ((np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")):
        bad = good.copy()
        bad[4, 2] = value
        for call in (lambda X: clone(ik).fit(X), lambda X: clone(ik).fit_transform(X), ik.transform):
            for X in (bad, sp.csr_matrix(bad)):
                with pytest.raises(ValueError, match=f"^Input X contains {said}"):
                    call(X)
