"""Our liblinear.so.6 driven through upstream's own ctypes Structures (the
ones LIBLINEAR's Python interface uses): the ABI is upstream 2.50's."""
import ctypes

import numpy as np
import pytest

import oracle_lib as ol
from liblinear.liblinear import PRINT_STRING_FUN, model, parameter, problem
from liblinear.liblinear import liblinear as upstream_lib
from liblinear.liblinearutil import svm_read_problem

OUR_LIB = ol.REPO / "liblinear" / "liblinear.so.6"


@pytest.fixture(scope="module")
def ours():
    if not OUR_LIB.exists():
        pytest.fail(f"{OUR_LIB} is not built; run make first")
    lib = ctypes.CDLL(str(OUR_LIB))
    lib.train.restype = ctypes.POINTER(model)
    lib.train.argtypes = [ctypes.POINTER(problem), ctypes.POINTER(parameter)]
    lib.check_parameter.restype = ctypes.c_char_p
    lib.check_parameter.argtypes = [ctypes.POINTER(problem), ctypes.POINTER(parameter)]
    lib.save_model.restype = ctypes.c_int
    lib.save_model.argtypes = [ctypes.c_char_p, ctypes.POINTER(model)]
    lib.free_and_destroy_model.restype = None
    lib.free_and_destroy_model.argtypes = [ctypes.POINTER(ctypes.POINTER(model))]
    lib.get_nr_class.restype = ctypes.c_int
    lib.get_nr_class.argtypes = [ctypes.POINTER(model)]
    lib.get_decfun_coef.restype = ctypes.c_double
    lib.get_decfun_coef.argtypes = [ctypes.POINTER(model), ctypes.c_int, ctypes.c_int]
    lib.set_print_string_function.restype = None
    lib.set_print_string_function.argtypes = [PRINT_STRING_FUN]
    lib.quiet = PRINT_STRING_FUN(lambda s: None)  # kept alive with the library
    lib.set_print_string_function(lib.quiet)
    return lib


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
