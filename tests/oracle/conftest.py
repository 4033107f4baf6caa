"""Fixtures of the oracle tests: decompressed datasets, our binaries, the
upstream LIBLINEAR 2.50 oracle, and a cache of training runs so that each
(dataset, solver, options) is trained once per session by each side."""
import ctypes
import lzma
import shutil

import pytest

import oracle_lib as ol
from liblinear.liblinear import PRINT_STRING_FUN, feature_node, model, parameter, problem


@pytest.fixture(scope="session")
def data(tmp_path_factory):
    """data("a9a", "a9a.train") -> path of the decompressed file; each file
    is decompressed at most once per session."""
    folder = tmp_path_factory.mktemp("data")
    done = {}

    def get(name, stem):
        key = (name, stem)
        if key not in done:
            source = ol.DATA_DIR / name / f"{stem}.xz"
            if not source.exists():
                pytest.fail(f"dataset {source} is missing (set LIBLINEAR_IK_DATA)")
            target = folder / stem
            with lzma.open(source) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
            done[key] = target
        return done[key]

    return get


@pytest.fixture(scope="session")
def binaries():
    """Paths of our ./train and ./predict (built by `make`)."""
    for exe in (ol.TRAIN, ol.PREDICT):
        if not exe.exists():
            pytest.fail(f"{exe} is not built; run make first")
    return ol.TRAIN, ol.PREDICT


@pytest.fixture(scope="session")
def upstream():
    return ol.Upstream()


@pytest.fixture(scope="session")
def trained(tmp_path_factory, data, binaries, upstream):
    """trained(case) -> Trained: both sides trained on case.train_stem, our
    model by our CLI, upstream's by its Python interface, same options."""
    folder = tmp_path_factory.mktemp("models")
    done = {}

    def get(case):
        if case not in done:
            train_path = data(case.dataset, case.train_stem)
            test_path = data(case.dataset, case.test_stem)
            ours = folder / f"{case}.ours.model"
            up = folder / f"{case}.upstream.model"
            r = ol.run([binaries[0], *case.train_options.split(), train_path, ours])
            assert r.returncode == 0, f"our train failed on {case}: {r.stderr}"
            up_log = upstream.train(train_path, case.train_options, up)
            done[case] = ol.Trained(case, train_path, test_path, ours, r.stdout, up, up_log)
        return done[case]

    return get


@pytest.fixture(scope="session")
def dataset_arrays(data):
    """dataset_arrays(name, stem) -> (y, X) parsed once per session."""
    done = {}

    def get(name, stem):
        if (name, stem) not in done:
            done[(name, stem)] = ol.read_libsvm(data(name, stem))
        return done[(name, stem)]

    return get


@pytest.fixture(scope="session")
def our_predictions(tmp_path_factory, binaries):
    """our_predictions(test_path, model_path, options="") -> (stdout, lines of
    the output file) of our ./predict, run once per argument set."""
    folder = tmp_path_factory.mktemp("predictions")
    done = {}

    def get(test_path, model_path, options=""):
        key = (str(test_path), str(model_path), options)
        if key not in done:
            out = folder / f"p{len(done)}.txt"
            r = ol.run([binaries[1], *options.split(), test_path, model_path, out])
            assert r.returncode == 0, f"our predict failed: {r.stderr}"
            done[key] = (r.stdout, out.read_text().splitlines())
        return done[key]

    return get


@pytest.fixture(scope="session")
def ours():
    """Our liblinear.so.6 through ctypes, with the prototypes that upstream's
    Python interface declares for its own library (same Structures). Quiet:
    tests that read the progress text install their own print function."""
    if not ol.OUR_LIB.exists():
        pytest.fail(f"{ol.OUR_LIB} is not built; run make first")
    lib = ctypes.CDLL(str(ol.OUR_LIB))
    P = ctypes.POINTER
    double, c_int = ctypes.c_double, ctypes.c_int
    prototypes = {
        "train": (P(model), [P(problem), P(parameter)]),
        "check_parameter": (ctypes.c_char_p, [P(problem), P(parameter)]),
        "save_model": (c_int, [ctypes.c_char_p, P(model)]),
        "load_model": (P(model), [ctypes.c_char_p]),
        "free_and_destroy_model": (None, [P(P(model))]),
        "get_nr_class": (c_int, [P(model)]),
        "get_nr_feature": (c_int, [P(model)]),
        "get_labels": (None, [P(model), P(c_int)]),
        "get_decfun_coef": (double, [P(model), c_int, c_int]),
        "get_decfun_bias": (double, [P(model), c_int]),
        "get_decfun_rho": (double, [P(model)]),
        "predict": (double, [P(model), P(feature_node)]),
        "predict_values": (double, [P(model), P(feature_node), P(double)]),
        "predict_probability": (double, [P(model), P(feature_node), P(double)]),
        "check_probability_model": (c_int, [P(model)]),
        "check_regression_model": (c_int, [P(model)]),
        "check_oneclass_model": (c_int, [P(model)]),
        "set_print_string_function": (None, [PRINT_STRING_FUN]),
    }
    for name, (restype, argtypes) in prototypes.items():
        getattr(lib, name).restype = restype
        getattr(lib, name).argtypes = argtypes
    lib.quiet = PRINT_STRING_FUN(lambda s: None)  # kept alive with the library
    lib.set_print_string_function(lib.quiet)
    return lib


# ---- sanitizer runs (`make sanitize-check`, tests/fuzz/README.md) ----------
# LIBLINEAR_IK_SANITIZER_LOGS names the folder where the ASan/UBSan-built
# programs write their reports (ASAN_OPTIONS/UBSAN_OPTIONS log_path). Then
# every test fails when a program it ran wrote a report there, whatever its
# exit code, and the tests that load liblinear.so into this Python process
# through ctypes (the `ours` fixture) are skipped: an ASan-built library
# cannot be loaded into an uninstrumented Python. `make oracle` runs them.
# Reports that a program prints instead (gcc's UBSan ignores log_path when
# linked with ASan) are caught in the output of subprocess.run, through
# which every test runs our programs, and copied to that folder too.
import os  # noqa: E402 (kept in this block, apart from the imports above)
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

SANITIZER_LOGS = os.environ.get("LIBLINEAR_IK_SANITIZER_LOGS")
SANITIZER_MARKERS = ("runtime error:", "AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer")


def _keep_printed_reports(result):
    for stream in (result.stdout, result.stderr):
        text = stream.decode(errors="replace") if isinstance(stream, bytes) else stream
        if text and any(marker in text for marker in SANITIZER_MARKERS):
            fd, _ = tempfile.mkstemp(prefix="printed.", dir=SANITIZER_LOGS)
            with os.fdopen(fd, "w") as f:
                f.write(f"{result.args}:\n{text}")


if SANITIZER_LOGS:
    _plain_run = subprocess.run

    def _run_keeping_reports(*args, **kwargs):
        result = _plain_run(*args, **kwargs)
        _keep_printed_reports(result)
        return result

    subprocess.run = _run_keeping_reports


def pytest_collection_modifyitems(config, items):
    if not SANITIZER_LOGS:
        return
    skip = pytest.mark.skip(reason="sanitizer run: loads liblinear.so through ctypes into an "
        "uninstrumented Python; run by the plain `make oracle`")
    for item in items:
        if "ours" in getattr(item, "fixturenames", ()):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def no_sanitizer_report():
    """In a sanitizer run: fails the test when a report appeared during it."""
    if not SANITIZER_LOGS:
        yield
        return
    before = set(os.listdir(SANITIZER_LOGS))
    yield
    new = sorted(set(os.listdir(SANITIZER_LOGS)) - before)
    if new:
        reports = "\n".join(Path(SANITIZER_LOGS, name).read_text(errors="replace") for name in new)
        pytest.fail(f"sanitizer report(s) {new} in {SANITIZER_LOGS}:\n{reports}")
