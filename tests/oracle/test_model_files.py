"""Model files of every solver type move between us and upstream 2.50 in
both directions: each side predicts with the other's files exactly as the
other does, our files have upstream's format byte for byte, and each
library's load_model + save_model reproduces the other's files."""
import ctypes

import pytest

import oracle_lib as ol
from cases import MODEL_CASES


def header_without_rho_value(m):
    """The header lines, with the one-class rho value left out: rho is a
    trained number (compared in test_optimality), not part of the format."""
    return [line if not line.startswith("rho ") else "rho" for line in m["header"]]


@pytest.mark.parametrize("case", MODEL_CASES, ids=str)
def test_our_predict_on_upstream_model(case, trained, upstream, our_predictions):
    """Our ./predict reads upstream's model file and predicts exactly what
    upstream predicts with it; labels (values for regression) are written
    as %.17g."""
    t = trained(case)
    _, lines = our_predictions(t.test_path, t.up_model)
    up_labels, _ = upstream.predict(t.test_path, t.up_model)
    assert lines == ["%.17g" % v for v in up_labels]


@pytest.mark.parametrize("case", MODEL_CASES, ids=str)
def test_upstream_predict_on_our_model(case, trained, upstream, our_predictions):
    """Upstream loads our model file and predicts exactly what our ./predict
    predicts with it."""
    t = trained(case)
    _, lines = our_predictions(t.test_path, t.ours_model)
    up_labels, _ = upstream.predict(t.test_path, t.ours_model)
    assert lines == ["%.17g" % v for v in up_labels]


@pytest.mark.parametrize("case", MODEL_CASES, ids=str)
def test_model_file_format(case, trained, tmp_path):
    """Our model file has upstream's header for the same training run, and
    upstream's load_model + save_model reproduces it byte for byte (same
    keywords, order, %.17g weights with a trailing space)."""
    t = trained(case)
    ours, up = ol.parse_model(t.ours_model), ol.parse_model(t.up_model)
    assert header_without_rho_value(ours) == header_without_rho_value(up)
    assert ours["header"][0] == "solver_type " + ol.SOLVER_NAMES[case.solver]
    resaved = tmp_path / "resaved.model"
    m = ol.load_model(str(t.ours_model))
    assert m is not None
    ol.save_model(str(resaved), m)
    assert resaved.read_bytes() == t.ours_model.read_bytes()


@pytest.mark.parametrize("case", MODEL_CASES, ids=str)
def test_our_library_rewrites_upstream_model(case, trained, ours, tmp_path):
    """Our load_model + save_model reproduces upstream's file byte for byte."""
    t = trained(case)
    m = ours.load_model(str(t.up_model).encode())
    assert m, f"our load_model refused {t.up_model}"
    resaved = tmp_path / "resaved.model"
    assert ours.save_model(str(resaved).encode(), m) == 0
    ours.free_and_destroy_model(ctypes.byref(m))
    assert resaved.read_bytes() == t.up_model.read_bytes()
