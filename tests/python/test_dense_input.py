"""Dense numpy input goes to the library's dense entries (lik_map_build_dense,
lik_map_rows_dense); the same rows as scipy CSR go the sparse way. Both
must give the same map (bytes, checksum) and the same cells and
transform, for both kernels, scaled or not, several psi, float64 arrays
used in place (C order, a row stride wider than the row) and others
converted (Fortran order, float32, int, bool); non-finite values are
refused with the sparse path's message."""
import numpy as np
import pytest
import scipy.sparse as sp

from liblinear import _ik
from liblinear.sklearn import IsolationKernel


def dense_data(rows, cols, seed, zeros=0.5, levels=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, size=(rows, cols))
    if levels:
        x = np.round(x * levels) / levels  # repeated values: exact rechecks of near ties
    x[rng.uniform(size=x.shape) < zeros] = 0
    x[:, -2:] = 0  # empty last columns: the map's dim is the last nonzero one, as for CSR
    return x


SHAPES = [(300, 20, 0), (200, 784, 0), (150, 40, 3)]


@pytest.mark.parametrize("kernel", ["anne", "iforest"])
@pytest.mark.parametrize("scale", [0, 1])
@pytest.mark.parametrize("psi", [2, 16, 64])
@pytest.mark.parametrize("shape", SHAPES)
def test_isolation_kernel_dense_equals_csr(kernel, scale, psi, shape):
    rows, cols, levels = shape
    x = dense_data(rows, cols, seed=rows + psi, levels=levels)
    dense = IsolationKernel(kernel=kernel, t=40, psi=psi, scale=bool(scale), random_state=7)
    sparse = IsolationKernel(kernel=kernel, t=40, psi=psi, scale=bool(scale), random_state=7)
    a = dense.fit_transform(x)
    b = sparse.fit_transform(sp.csr_matrix(x))
    assert (a != b).nnz == 0
    assert dense.map_.to_bytes() == sparse.map_.to_bytes()
    assert dense.map_.checksum == sparse.map_.checksum
    y = dense_data(90, cols, seed=5, levels=levels)
    assert (dense.transform(y) != sparse.transform(sp.csr_matrix(y))).nnz == 0
    wide = dense_data(90, cols + 3, seed=6, levels=levels)  # wider than the map: extra columns ignored
    np.testing.assert_array_equal(dense.map_.cells(wide), sparse.map_.cells(sp.csr_matrix(wide)))


def test_layouts_and_dtypes_give_the_same_cells():
    x = dense_data(120, 30, seed=3)
    m = _ik.IKMap.build(x, t=20, psi=8, seed=2)
    reference = m.cells(sp.csr_matrix(x))
    wide = np.zeros((120, 37))
    wide[:, :30] = x
    views = [x, np.asfortranarray(x), wide[:, :30], x[::-1][::-1]]
    for v in views:
        np.testing.assert_array_equal(m.cells(v), reference)
        assert _ik.IKMap.build(v, t=20, psi=8, seed=2).to_bytes() == m.to_bytes()
    f32 = x.astype(np.float32)
    np.testing.assert_array_equal(m.cells(f32), m.cells(sp.csr_matrix(f32.astype(np.float64))))
    ints = (x * 4).astype(np.int64)
    np.testing.assert_array_equal(m.cells(ints), m.cells(sp.csr_matrix(ints.astype(np.float64))))
    flags = x > 0
    fm = _ik.IKMap.build(flags, t=20, psi=8, seed=2)
    assert fm.to_bytes() == _ik.IKMap.build(sp.csr_matrix(flags.astype(np.float64)), t=20, psi=8, seed=2).to_bytes()
    assert m.cells(np.zeros((0, 30))).shape == (0, 20)
    assert m.transform(x[:1]).shape == (1, 20 * 8)


@pytest.mark.parametrize("kernel", ["anne", "iforest"])
def test_non_finite_values_are_refused(kernel):
    x = dense_data(60, 10, seed=4)
    m = _ik.IKMap.build(x, kernel=kernel, t=10, psi=8)
    for bad in (np.nan, np.inf, -np.inf):
        y = x.copy()
        y[4, 6] = bad
        with pytest.raises(ValueError, match="row 5: feature 7 is not a finite number"):
            _ik.IKMap.build(y, kernel=kernel, t=10, psi=8)
        with pytest.raises(ValueError, match="row 5: feature 7 is not a finite number"):
            m.cells(y)
        with pytest.raises(ValueError, match="row 5: feature 7 is not a finite number"):
            m.cells(sp.csr_matrix(y))


def test_empty_input_is_refused_as_for_csr():
    with pytest.raises(ValueError) as dense:
        _ik.IKMap.build(np.zeros((10, 4)), t=5, psi=2)
    with pytest.raises(ValueError) as sparse:
        _ik.IKMap.build(sp.csr_matrix(np.zeros((10, 4))), t=5, psi=2)
    assert str(dense.value) == str(sparse.value)
    with pytest.raises(ValueError):
        _ik.IKMap.build(np.ones((3, 4)), t=5, psi=4)
