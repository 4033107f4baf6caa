"""Our liblinear.so.6 driven through upstream's own ctypes Structures (the
ones LIBLINEAR's Python interface uses): the ABI is upstream 2.50's."""
import ctypes

import numpy as np
import pytest

import oracle_lib as ol
from liblinear.liblinear import parameter, problem
from liblinear.liblinear import liblinear as upstream_lib
from liblinear.liblinearutil import svm_read_problem

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
