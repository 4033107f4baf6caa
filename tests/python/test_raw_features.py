"""The raw features beside the cells (-a w, issue 28) in the Python layer:
IKMap.build(raw_weight=w).transform equals the rows the `ikmap -a` program
writes (cells, then w times the transformed features), the map's bytes
equal the program's, n_features_out and a -k -a model's nr_feature count
the raw columns, kernel_matrix is ikmap -K's full kernel, and bad -a
options are ValueErrors."""

import os
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

from liblinear.commonutil import svm_read_problem
from liblinear.liblinearutil import predict, train
from liblinear._ik import IKMap

from conftest import BIN_DIR


def program(name):
    for path in (BIN_DIR / "tools" / name, BIN_DIR / name / name, BIN_DIR / name):
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    pytest.fail(f"program {name} not built in {BIN_DIR} (run make first)")


@pytest.fixture(scope="module")
def heart(data):
    y, X = svm_read_problem(data["heart"], return_scipy=True)
    return data["heart"], np.asarray(y), sp.csr_matrix(X)


@pytest.mark.parametrize("kernel,scale,extra", [("iforest", 2, []), ("anne", 1, ["-g", "16"]),
                                                ("minmax", 2, ["-g", "16"])])
def test_transform_equals_the_ikmap_program(heart, tmp_path, kernel, scale, extra):
    path, _, X = heart
    psi = 16 if extra else 8
    if kernel == "iforest":
        extra = ["-g", "8"]
    m = IKMap.build(X, kernel=kernel, t=12, psi=psi, seed=7, scale=scale, raw_weight=0.4)
    assert m.raw_weight == 0.4
    assert m.n_features_out == 12 * psi + 13
    part = tmp_path / "p.ik"
    subprocess.run([program("ikmap"), "-k", kernel, "-t", "12", *extra, "-r", "7", "-S", str(scale),
                    "-a", "0.4", path, str(part)], check=True, capture_output=True)
    assert m.to_bytes() == part.read_bytes()
    with open(path, "rb") as fin:
        mapped = subprocess.run([program("ikmap"), str(part)], stdin=fin, check=True,
                                capture_output=True).stdout.decode().splitlines()
    Z = m.transform(X)
    assert Z.shape == (X.shape[0], 12 * psi + 13)
    for i, line in enumerate(mapped):
        words = line.split()[1:]
        cols = [int(w.split(":")[0]) - 1 for w in words]
        np.testing.assert_array_equal(Z.indices[Z.indptr[i]:Z.indptr[i + 1]], cols)
        np.testing.assert_allclose(Z.data[Z.indptr[i]:Z.indptr[i + 1]],
                                   [float(w.split(":")[1]) for w in words], rtol=1e-15)
    # dense input: the same rows
    assert abs(m.transform(X.toarray()) - Z).max() == 0


def test_kernel_matrix_is_the_inner_product_of_the_rows(heart):
    _, _, X = heart
    m = IKMap.build(X[:40], kernel="anne", t=10, psi=8, raw_weight=0.5)
    Z = m.transform(X[:7])
    np.testing.assert_allclose(m.kernel_matrix(X[:7]), (Z @ Z.T).toarray(), rtol=1e-12, atol=1e-12)


def test_model_counts_the_raw_columns_and_predicts_as_the_program(heart, tmp_path):
    path, y, X = heart
    model = train(y, X, "-q -s 1 -k iforest -t 10 -g 8 -S 2 -a 0.3")
    assert model.get_nr_feature() == 10 * 8 + 13
    labels, _, _ = predict(y, X, model, "-q")
    program_model = tmp_path / "m"
    subprocess.run([program("train"), "-q", "-s", "1", "-k", "iforest", "-t", "10", "-g", "8", "-S", "2",
                    "-a", "0.3", path, str(program_model)], check=True, capture_output=True)
    out = tmp_path / "out"
    subprocess.run([program("predict"), path, str(program_model), str(out)], check=True, capture_output=True)
    assert [float(v) for v in out.read_text().split()] == labels


@pytest.mark.parametrize("options", ["-q -a 0.3", "-q -k anne -a -1", "-q -k anne -a nan",
                                     "-q -k anne -a inf", "-q -k anne -a x"])
def test_bad_a_refused(heart, options):
    _, y, X = heart
    with pytest.raises(ValueError, match="-a"):
        train(y, X, options)


@pytest.mark.parametrize("w", [-1, float("nan"), float("inf"), "0.3", True])
def test_bad_raw_weight_refused(heart, w):
    _, _, X = heart
    with pytest.raises(ValueError, match="raw_weight"):
        IKMap.build(X, raw_weight=w)


def test_sklearn_layer_takes_raw_weight(heart, tmp_path):
    """IsolationKernel(raw_weight=w) is IKMap.build(raw_weight=w)'s transform, and the
    classifier's model is train -k -a's (the same weights, bias -1, -s 2)."""
    from liblinear.sklearn import IKLinearClassifier, IsolationKernel
    path, y, X = heart
    ik = IsolationKernel(kernel="iforest", t=10, psi=8, scale=2, random_state=3, raw_weight=0.3).fit(X)
    m = IKMap.build(X, kernel="iforest", t=10, psi=8, seed=3, scale=2, raw_weight=0.3)
    assert ik.map_.to_bytes() == m.to_bytes()
    assert abs(ik.transform(X) - m.transform(X)).max() == 0
    clf = IKLinearClassifier(kernel="iforest", t=10, psi=8, scale=2, random_state=3, bias=-1, solver=2,
                             raw_weight=0.3).fit(X, y)
    model = tmp_path / "m"
    subprocess.run([program("train"), "-q", "-s", "2", "-k", "iforest", "-t", "10", "-g", "8", "-S", "2",
                    "-r", "3", "-a", "0.3", path, str(model)], check=True, capture_output=True)
    lines = model.read_text().splitlines()
    n = 10 * 8 + 13
    w = np.array([float(v) for v in lines[lines.index("w") + 1:lines.index("w") + 1 + n]])
    ours = np.array([clf.model_.get_decfun_coef(j + 1, 0) for j in range(n)])
    np.testing.assert_allclose(ours, w, rtol=1e-6, atol=1e-9)
