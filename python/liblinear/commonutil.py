"""Reading LIBSVM-format data, evaluating predictions and scaling CSR
matrices: upstream LIBLINEAR 2.50's `liblinear.commonutil`, same names,
arguments and results."""
import os
import sys

import numpy as np

try:
    import scipy.sparse as sparse
except ImportError:
    sparse = None

__all__ = ['svm_read_problem', 'evaluations', 'csr_find_scale_param', 'csr_scale']


def _lines(data_source):
    """The lines of a path (str, bytes or os.PathLike) or of an open text file."""
    if isinstance(data_source, (str, bytes, os.PathLike)):
        with open(data_source) as handle:
            for line in handle:
                yield line
    else:
        for line in data_source:
            yield line


def _label_and_features(line):
    """A data line as (label, the rest); a line of only a label has no features (all zero)."""
    parts = line.split(None, 1)
    if len(parts) == 1:
        parts.append('')
    label, features = parts  # an empty line fails here, as upstream's reader does
    return label, features


def svm_read_problem(data_source, return_scipy=False):
    """
    svm_read_problem(data_source, return_scipy=False) -> [y, x], y: list, x: list of dictionary
    svm_read_problem(data_source, return_scipy=True)  -> [y, x], y: ndarray, x: csr_matrix

    Read LIBSVM-format data from data_source and return labels y
    and data instances x.
    """
    labels = []
    if return_scipy and sparse is not None:
        indptr = [0]
        columns = []
        values = []
        for line in _lines(data_source):
            label, features = _label_and_features(line)
            labels.append(float(label))
            for pair in features.split():
                index, value = pair.split(':')
                value = float(value)
                if value != 0:
                    columns.append(int(index) - 1)
                    values.append(value)
            indptr.append(len(columns))
        y = np.array(labels, dtype=np.float64)
        columns = np.array(columns, dtype=np.int64)
        width = int(columns.max()) + 1 if len(columns) else 0
        x = sparse.csr_matrix((np.array(values, dtype=np.float64), columns, np.array(indptr, dtype=np.int64)),
                              shape=(len(labels), width))
        return y, x
    rows = []
    for line in _lines(data_source):
        label, features = _label_and_features(line)
        labels.append(float(label))
        row = {}
        for pair in features.split():
            index, value = pair.split(':')
            row[int(index)] = float(value)
        rows.append(row)
    return labels, rows


def evaluations_scipy(ty, pv):
    """
    evaluations_scipy(ty, pv) -> (ACC, MSE, SCC)
    ty, pv: ndarray

    Calculate accuracy, mean squared error and squared correlation coefficient
    using the true values (ty) and predicted values (pv).
    """
    if not (isinstance(ty, np.ndarray) and isinstance(pv, np.ndarray)):
        raise TypeError("type of ty and pv must be ndarray")
    if len(ty) != len(pv):
        raise ValueError("len(ty) must be equal to len(pv)")
    truth = ty.astype(np.float64, copy=False)
    guess = pv.astype(np.float64, copy=False)
    with np.errstate(divide='ignore', invalid='ignore'):
        accuracy = 100.0 * (truth == guess).mean()
        squared_error = ((guess - truth) ** 2).mean()
        count = len(truth)
        sum_v, sum_y = guess.sum(), truth.sum()
        sum_vv, sum_yy, sum_vy = guess.dot(guess), truth.dot(truth), guess.dot(truth)
        numerator = (count * sum_vy - sum_v * sum_y) ** 2
        denominator = (count * sum_vv - sum_v * sum_v) * (count * sum_yy - sum_y * sum_y)
        correlation = numerator / denominator if denominator != 0 else float('nan')
    return float(accuracy), float(squared_error), float(correlation)


def evaluations(ty, pv, useScipy=True):
    """
    evaluations(ty, pv, useScipy) -> (ACC, MSE, SCC)
    ty, pv: list, tuple or ndarray
    useScipy: convert ty, pv to ndarray, and use scipy functions for the evaluation

    Calculate accuracy, mean squared error and squared correlation coefficient
    using the true values (ty) and predicted values (pv).
    """
    if sparse is not None and useScipy:
        return evaluations_scipy(np.asarray(ty), np.asarray(pv))
    if len(ty) != len(pv):
        raise ValueError("len(ty) must be equal to len(pv)")
    correct = 0
    total_error = 0.0
    sum_v = sum_y = sum_vv = sum_yy = sum_vy = 0.0
    for truth, guess in zip(ty, pv):
        if truth == guess:
            correct += 1
        total_error += (guess - truth) * (guess - truth)
        sum_v += guess
        sum_y += truth
        sum_vv += guess * guess
        sum_yy += truth * truth
        sum_vy += guess * truth
    count = len(ty)
    accuracy = 100.0 * correct / count
    squared_error = total_error / count
    try:
        correlation = (((count * sum_vy - sum_v * sum_y) * (count * sum_vy - sum_v * sum_y))
                       / ((count * sum_vv - sum_v * sum_v) * (count * sum_yy - sum_y * sum_y)))
    except ZeroDivisionError:
        correlation = float('nan')
    return float(accuracy), float(squared_error), float(correlation)


def csr_find_scale_param(x, lower=-1, upper=1):
    """The per-feature coef and offset that map each column of CSR x onto [lower, upper]."""
    assert isinstance(x, sparse.csr_matrix)
    assert lower < upper
    rows, width = x.shape
    # the column extremes over every row, the implicit zeros included
    smallest = np.asarray(x.min(axis=0).todense(), dtype=np.float64).ravel() if rows else np.zeros(width)
    largest = np.asarray(x.max(axis=0).todense(), dtype=np.float64).ravel() if rows else np.zeros(width)
    spread = largest - smallest
    coef = np.zeros(width, dtype=np.float64)
    varying = spread != 0
    coef[varying] = (upper - lower) / spread[varying]
    offset = np.zeros(width, dtype=np.float64)
    offset[varying] = lower - smallest[varying] * coef[varying]
    return {'coef': coef, 'offset': offset}


def csr_scale(x, scale_param):
    """x scaled by csr_find_scale_param's result: each column * coef + offset, as a CSR matrix."""
    assert isinstance(x, sparse.csr_matrix)
    coef = np.asarray(scale_param['coef'], dtype=np.float64)
    offset = np.asarray(scale_param['offset'], dtype=np.float64)
    width = x.shape[1]
    if width != len(coef):
        sys.stderr.write("WARNING: The dimension of scaling parameters and feature number do not match.\n")
        # columns without a parameter become zero (coef 0, offset 0); extra parameters are dropped
        coef = np.concatenate([coef[:width], np.zeros(max(0, width - len(coef)))])
        offset = np.concatenate([offset[:width], np.zeros(max(0, width - len(offset)))])
    scaled = x @ sparse.diags(coef, format='csr')
    if np.any(offset != 0):
        scaled = scaled.toarray() + offset[np.newaxis, :]
    scaled = sparse.csr_matrix(scaled)
    scaled.eliminate_zeros()
    if scaled.nnz > x.nnz:
        sys.stderr.write("WARNING: original #nonzeros %d\n       > new      #nonzeros %d\n"
                         "If feature values are non-negative and sparse, get scale_param by setting "
                         "lower=0 rather than the default lower=-1.\n" % (x.nnz, scaled.nnz))
    return scaled
