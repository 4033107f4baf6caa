"""Our liblinear.so.6 driven through upstream's own ctypes Structures (the
ones LIBLINEAR's Python interface uses): the ABI is upstream 2.50's."""
import ctypes
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import oracle_lib as ol
from cases import A9A, DNA, HEART, MODEL_CASES, SATIMAGE
from liblinear.liblinear import PRINT_STRING_FUN, parameter, problem
from liblinear import liblinear as upstream_module
from liblinear.liblinear import liblinear as upstream_lib
from liblinear.liblinearutil import svm_read_problem
from oracle_lib import Case

# Model files of every solver type, two-class and multi-class, with and
# without bias (all trained for test_model_files).
ABI_MODEL_CASES = [c for c in MODEL_CASES if c.dataset == "heart"] + [
    Case(*DNA, s) for s in (0, 1, 4, 6, 7)] + [Case(*SATIMAGE, 6)]
SIDES = ["ours", "upstream"]

def test_version(ours):
    assert ctypes.c_int.in_dll(ours, "liblinear_version").value == 250


def test_train_through_upstream_structs_matches_our_cli(ours, data, trained, tmp_path):
    """train() called with upstream's problem/parameter Structures returns a
    model struct upstream's code can read, equal to what our CLI wrote."""
    heart = data("heart", "heart.all")
    y, x = svm_read_problem(str(heart), return_scipy=True)
    prob, param = problem(y, x), parameter("-s 0 -q")
    assert ours.check_parameter(prob, param) is None
    m = ours.train(prob, param)
    assert ours.get_nr_class(m) == 2
    assert upstream_lib.get_nr_class(m.contents) == 2
    w = np.array([ours.get_decfun_coef(m, j, 0) for j in range(1, 14)])
    cli = ol.parse_model(trained(ol.Case("heart", "heart.all", "heart.all", 0)).ours_model)
    np.testing.assert_array_equal(w, cli["w"][:, 0])
    saved = tmp_path / "abi.model"
    assert ours.save_model(str(saved).encode(), m) == 0
    assert saved.read_bytes() == trained(ol.Case("heart", "heart.all", "heart.all", 0)).ours_model.read_bytes()
    ours.free_and_destroy_model(ctypes.byref(m))


def test_check_parameter_messages_are_upstreams(ours):
    prob = problem([1, -1], [{1: 1.0}, {1: -1.0}])
    for options in ("-c 0", "-e 0", "-s 0 -R", "-s 11 -p -1"):
        param = parameter(options)
        assert ours.check_parameter(prob, param) == upstream_lib.check_parameter(prob, param), options


# ------------------------------------------------- both libraries, one file

def model_file(t, side):
    return t.ours_model if side == "ours" else t.up_model


def rows_of_test_set(dataset_arrays, case, m):
    """The test set as upstream's problem Structure, the way predict feeds a
    model: features beyond nr_feature dropped, the bias node appended."""
    y, X = dataset_arrays(case.dataset, case.test_stem)
    return problem(y, ol.with_columns(X, m.nr_feature, -1), m.bias)


@pytest.mark.parametrize("case", ABI_MODEL_CASES, ids=str)
@pytest.mark.parametrize("side", SIDES)
def test_predictions_through_both_libraries(case, side, trained, dataset_arrays, ours):
    """The same model file loaded by each library: predict, predict_values
    and predict_probability give the same label, decision values and
    probabilities (to 1e-12) on every test row; for a model that is not
    logistic regression predict_probability returns 0 and leaves the
    array alone, in both."""
    path = str(model_file(trained(case), side)).encode()
    mo, mu = ours.load_model(path), upstream_lib.load_model(path)
    assert mo and mu
    nr_class = mu.contents.nr_class
    nr_w = 1 if nr_class == 2 and case.solver != 4 else nr_class
    prob = rows_of_test_set(dataset_arrays, case, mu.contents)
    probability = case.solver in ol.PROBABILITY
    for i in range(prob.l):
        dec = {}
        for name, lib, m in (("ours", ours, mo), ("upstream", upstream_lib, mu)):
            values = (ctypes.c_double * nr_w)()
            p = (ctypes.c_double * nr_class)(*[-7.0] * nr_class)
            label = lib.predict_values(m, prob.x[i], values)
            assert lib.predict(m, prob.x[i]) == label
            p_label = lib.predict_probability(m, prob.x[i], p)
            dec[name] = (label, np.array(values[:]), p_label, np.array(p[:]))
        (lo, vo, plo, po), (lu, vu, plu, pu) = dec["ours"], dec["upstream"]
        assert lo == lu, f"row {i}"
        np.testing.assert_allclose(vo, vu, rtol=1e-12, atol=1e-12, err_msg=f"row {i}")
        assert plo == plu
        np.testing.assert_allclose(po, pu, rtol=0, atol=1e-12, err_msg=f"row {i}")
        if not probability:
            assert plo == 0 and np.all(po == -7.0)
    ours.free_and_destroy_model(ctypes.byref(mo))


def model_queries(lib, m, solver):
    """Everything the model query functions answer, out-of-range indices
    included (upstream answers 0 there)."""
    nr_feature, nr_class = lib.get_nr_feature(m), lib.get_nr_class(m)
    labels = (ctypes.c_int * nr_class)(*[-99] * nr_class)
    lib.get_labels(m, labels)
    label_indices = [-1, *range(nr_class), nr_class]
    return {
        "nr_feature": nr_feature,
        "nr_class": nr_class,
        "labels": labels[:],
        "coef": [lib.get_decfun_coef(m, j, k) for j in range(-1, nr_feature + 3) for k in label_indices],
        "bias": [lib.get_decfun_bias(m, k) for k in label_indices],
        "rho": lib.get_decfun_rho(m),
        "probability": lib.check_probability_model(m),
        "regression": lib.check_regression_model(m),
        "oneclass": lib.check_oneclass_model(m),
    }


@pytest.mark.parametrize("case", ABI_MODEL_CASES, ids=str)
@pytest.mark.parametrize("side", SIDES)
def test_model_queries_through_both_libraries(case, side, trained, ours, capfd):
    """get_nr_feature/class, get_labels, get_decfun_coef/bias/rho and the
    check_*_model functions answer the same for the same file, and print
    the same errors on stderr (bias of a one-class model, rho of others)."""
    path = str(model_file(trained(case), side)).encode()
    answers, errors = {}, {}
    for name, lib in (("ours", ours), ("upstream", upstream_lib)):
        m = lib.load_model(path)
        assert m
        capfd.readouterr()
        answers[name] = model_queries(lib, m, case.solver)
        errors[name] = capfd.readouterr().err
    assert answers["ours"] == answers["upstream"]
    assert errors["ours"] == errors["upstream"]
    q = answers["ours"]
    assert (q["probability"], q["regression"], q["oneclass"]) == (
        int(case.solver in ol.PROBABILITY), int(case.solver in ol.REGRESSION), int(case.solver == 21))


# ------------------------------------------------------ init_sol, w_recalc

class Capture:
    """A print function collecting a library's progress text; kept alive
    while the library may call it."""

    def __init__(self):
        self.parts = []
        self.func = PRINT_STRING_FUN(lambda s: self.parts.append(s.decode()))

    @property
    def text(self):
        return "".join(self.parts)


def train_with(lib, prob, options, init_sol=None, w_recalc=False):
    """(w as a flat feature-major array, training log) of lib's train()."""
    param = parameter(options)  # (upstream's parameter() resets its printer)
    param.w_recalc = w_recalc
    if init_sol is not None:
        param.init_sol = init_sol.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    assert lib.check_parameter(prob, param) is None
    log = Capture()
    lib.set_print_string_function(log.func)
    ol.LIBC.srand(1)
    m = lib.train(prob, param)
    c = m.contents
    nr_w = 1 if c.nr_class == 2 and c.param.solver_type != 4 else c.nr_class
    w = np.ctypeslib.as_array(c.w, shape=((c.nr_feature + (c.bias >= 0)) * nr_w,)).copy()
    lib.free_and_destroy_model(ctypes.byref(m))
    return w, log.text


@pytest.fixture
def printing(ours):
    """Leaves both libraries quiet again after a test that sets printers."""
    yield
    ours.set_print_string_function(ours.quiet)
    upstream_lib.set_print_string_function(ours.quiet)


WARM_START_CASES = [("heart", "heart.all", "-s 0"), ("heart", "heart.all", "-s 2"),
    ("heart", "heart.all", "-s 11"), ("heart", "heart.all", "-s 0 -B 1"),
    ("dna", "dna.train", "-s 0"), ("dna", "dna.train", "-s 2 -B 1")]


@pytest.mark.parametrize("dataset,stem,options", WARM_START_CASES)
def test_init_sol_at_the_solution_stops_at_once(dataset, stem, options, data, ours, printing):
    """init_sol (feature-major, like model->w) set to the trained solution:
    Newton finds the stopping rule met at the start, prints only its init
    line per class, exactly upstream's, and returns the same weights. From
    half the solution, at -e 1e-6, both libraries start at the same f and
    |g| (printed) and end at the same optimum (CG can amplify rounding
    differently on the two sides after a few steps, so later lines of the
    two logs may differ)."""
    y, x = svm_read_problem(str(data(dataset, stem)), return_scipy=True)
    bias = ol.option_value(options, "-B", -1)
    prob = problem(y, x, bias)
    w, _ = train_with(ours, prob, options)
    for lib in (ours, upstream_lib):
        w_again, log = train_with(lib, prob, options, init_sol=w)
        assert np.array_equal(w_again, w)
        lines = log.splitlines()
        assert lines and all(line.startswith("init f ") for line in lines), log
    tight = options + " -e 1e-6"
    (w_ours, log_ours), (w_up, log_up) = [train_with(lib, prob, tight, init_sol=w / 2)
        for lib in (ours, upstream_lib)]
    assert log_ours.splitlines()[0] == log_up.splitlines()[0]
    assert np.linalg.norm(w_ours - w_up) <= 1e-4 * np.linalg.norm(w_up)


@pytest.mark.parametrize("solver", [1, 3, 4, 5, 6, 7, 12, 13, 21])
def test_init_sol_refused_like_upstream(solver, ours):
    prob = problem([1, -1], [{1: 1.0}, {1: -1.0}])
    param = parameter(f"-s {solver}")
    start = np.zeros(2)
    param.init_sol = start.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    message = upstream_lib.check_parameter(prob, param)
    assert message is not None
    assert ours.check_parameter(prob, param) == message


@pytest.mark.parametrize("solver", [0, 2, 4, 5, 6, 7, 11, 12, 13, 21])
def test_w_recalc_refused_like_upstream(solver, ours):
    prob = problem([1, -1], [{1: 1.0}, {1: -1.0}])
    param = parameter(f"-s {solver}")
    param.w_recalc = True
    message = upstream_lib.check_parameter(prob, param)
    assert message is not None
    assert ours.check_parameter(prob, param) == message


@pytest.mark.parametrize("solver", [1, 3])
def test_w_recalc_recomputes_w_from_alpha(solver, data, ours, printing):
    """w_recalc rebuilds w = sum alpha_i y_i x_i after -s 1/3: the same
    alphas (our seeded order) give the same w up to rounding, but features
    that occur only in instances with alpha_i = 0 get exactly 0, where the
    running updates of w can leave a residue (a9a -s 3: 1.4e-17 at feature
    97). alpha_i > 0 needs the margin y_i w.x_i <= 1 + eps, so instances
    beyond 1 + 2 eps have alpha_i = 0. Upstream's models obey the same."""
    y, x = svm_read_problem(str(data("a9a", "a9a.train")), return_scipy=True)
    prob = problem(y, x)
    X = x.tocsr()
    t = np.where(y == 1, 1.0, -1.0)  # +1 is the positive side of a +1/-1 model
    for lib in (ours, upstream_lib):
        w, _ = train_with(lib, prob, f"-s {solver}")
        w_recalc, _ = train_with(lib, prob, f"-s {solver}", w_recalc=True)
        assert np.max(np.abs(w - w_recalc)) <= 1e-9 * np.max(np.abs(w))
        beyond = t * (X @ w_recalc) > 1 + 2 * ol.DEFAULT_EPS[solver]
        in_margin = np.asarray((X[~beyond] != 0).sum(axis=0)).ravel() > 0
        only_beyond = ~in_margin & (np.asarray((X != 0).sum(axis=0)).ravel() > 0)
        assert np.count_nonzero(only_beyond) > 0
        assert np.all(w_recalc[only_beyond] == 0.0)
    if solver == 3:
        # Our running w keeps a residue there, so w_recalc did the work.
        w, _ = train_with(ours, prob, "-s 3")
        assert np.any(w[only_beyond] != 0.0)


# ------------------------------------------------ the exported names

def dynamic_symbols(library):
    """{name: 'function' or 'data'} of the symbols a shared library defines
    and exports (nm -D --defined-only)."""
    r = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    kinds = {}
    for line in r.stdout.splitlines():
        kind, name = line.split()[-2:]
        kinds[name] = "function" if kind in "TtWwi" else "data"
    return kinds


def upstream_exports():
    """What upstream 2.50's library exports of its API: the oracle's library
    (upstream's sources built by liblinear-official) less its C++ internals
    (mangled _Z names: NEWTON, the l2r_*_fun classes, Solver_MCSVM_CS) and
    its bundled BLAS (blas/: daxpy_, ddot_, ... in the Fortran naming)."""
    everything = dynamic_symbols(upstream_lib._name)
    return {n: k for n, k in everything.items() if not n.startswith("_Z") and not n.endswith("_")}


def our_library():
    if not ol.OUR_LIB.exists():
        pytest.fail(f"{ol.OUR_LIB} is not built; run make first")
    return ol.OUR_LIB


def test_upstream_api_is_its_python_interfaces_functions_and_the_version():
    """The list the next test compares with, derived a second way: the
    functions upstream's Python interface declares prototypes for (all of
    linear.h's) and the liblinear_version variable."""
    source = Path(upstream_module.__file__).read_text()
    declared = set(re.findall(r"^fillprototype\(liblinear\.(\w+),", source, re.M))
    assert len(declared) == 22
    expected = {n: "function" for n in declared}
    expected["liblinear_version"] = "data"
    assert upstream_exports() == expected


def test_our_library_exports_exactly_upstreams_api():
    """liblinear.so.6 exports upstream 2.50's API and nothing else: no
    solver, row, reader, rng, atomic_file or OpenMP name of ours."""
    ours = dynamic_symbols(our_library())
    upstream = upstream_exports()
    assert sorted(set(ours) - set(upstream)) == []
    assert sorted(set(upstream) - set(ours)) == []
    assert ours == upstream


def test_our_header_declares_exactly_the_exported_functions():
    """linear.h (what make install ships) declares the exported functions,
    no more, no fewer."""
    header = (ol.REPO / "liblinear" / "linear.h").read_text()
    declared = set(re.findall(r"^[a-z][\w ]*[ *](\w+)\(", header, re.M))
    functions = {n for n, k in upstream_exports().items() if k == "function"}
    assert declared == functions
    assert re.search(r"^extern int liblinear_version;$", header, re.M)


def test_our_library_needs_no_blas_and_no_cuda():
    """Programs that want upstream's API load liblinear.so.6 without
    OpenBLAS or the CUDA runtime (the Isolation Kernel's GEMM and GPU
    mapper stay out of it)."""
    r = subprocess.run(["ldd", str(our_library())], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    needed = [line.split()[0] for line in r.stdout.splitlines() if line.strip()]
    assert any(name.startswith("libc.so") for name in needed), r.stdout
    for name in needed:
        assert not re.search(r"blas|lapack|cuda|cublas|gfortran", name, re.I), needed
