"""ctypes bindings of the Isolation Kernel's C library (ik/liblinear_ik.h,
libliblinear-ik.so.1) and what the package builds on them: IKMap (the map
the sklearn layer uses), training with -k, the model pair's files,
pickling, and prediction over whole matrices in one C call.

Errors of the C library become Python exceptions carrying its message:
LIK_EINVAL, LIK_EDATA, LIK_EMODEL and LIK_EDEVICE -> ValueError, LIK_EIO ->
OSError, LIK_ENOMEM -> MemoryError.
"""
import ctypes
import numbers
import os
import re
from ctypes import CFUNCTYPE, POINTER, Structure, byref, c_char, c_char_p, c_double, c_int, c_size_t, c_uint64, c_void_p

import numpy as np

from . import liblinear as _core
from .liblinear import ONLINE_OGD_HINGE, NodeRows, feature_node, model, parameter, problem, rows_to_csr, solver_names

__all__ = ['IKMap', 'LIK_KERNEL_ANNE', 'LIK_KERNEL_IFOREST', 'LIK_KERNEL_MINMAX', 'LIK_KERNEL_ACOS']

LIK_OK, LIK_EINVAL, LIK_EDATA, LIK_EIO, LIK_ENOMEM, LIK_EDEVICE, LIK_EMODEL = range(7)
LIK_KERNEL_ANNE, LIK_KERNEL_IFOREST, LIK_KERNEL_MINMAX, LIK_KERNEL_ACOS = 1, 2, 3, 4
LIK_DEVICE_CPU, LIK_DEVICE_GPU, LIK_DEVICE_AUTO = 0, 1, 2
LIK_OUTPUT_LABEL, LIK_OUTPUT_VALUES, LIK_OUTPUT_PROBABILITY = 0, 1, 2
LIK_MESSAGE_SIZE = 512

KERNEL_NAMES = {LIK_KERNEL_ANNE: 'anne', LIK_KERNEL_IFOREST: 'iforest', LIK_KERNEL_MINMAX: 'minmax',
                LIK_KERNEL_ACOS: 'acos'}
# the option words of -k (and IKMap.build's kernel=): names and numbers
KERNEL_CODES = {'0': 0, 'none': 0, '1': LIK_KERNEL_ANNE, 'anne': LIK_KERNEL_ANNE,
                '2': LIK_KERNEL_IFOREST, 'iforest': LIK_KERNEL_IFOREST,
                '3': LIK_KERNEL_MINMAX, 'minmax': LIK_KERNEL_MINMAX,
                '4': LIK_KERNEL_ACOS, 'acos': LIK_KERNEL_ACOS}
# minmax and acos (issue 27): psi is cells, not sampled rows, and their default -S is 0
EXACT_KERNELS = (LIK_KERNEL_MINMAX, LIK_KERNEL_ACOS)
# the transforms' names (issue 28), beside their codes 0..4 (-S)
SCALE_CODES = {'none': 0, 'maxabs': 1, 'minmax': 2, 'std': 3, 'log1p': 4}
DEVICE_NAMES = {'cpu': LIK_DEVICE_CPU, 'gpu': LIK_DEVICE_GPU, 'auto': LIK_DEVICE_AUTO}


class lik_error(Structure):
    _fields_ = [('code', c_int), ('message', c_char * LIK_MESSAGE_SIZE)]


class lik_map_params(Structure):
    _fields_ = [('kernel', c_int), ('t', c_int), ('psi', c_int), ('seed', c_uint64), ('scale', c_int),
                ('device', c_int), ('threads', c_int), ('raw_weight', c_double)]


class lik_search_row(Structure):
    _fields_ = [('psi', c_int), ('rows', c_int), ('C', c_double), ('p', c_double), ('score', c_double),
                ('seconds', c_double)]


_SEARCH_ROW_FUN = CFUNCTYPE(None, POINTER(lik_search_row), c_void_p)


class lik_search_options(Structure):
    _fields_ = [('patience', c_int), ('subsample_rows', c_int), ('confirm', c_int), ('grid_max', c_int),
                ('max_psi', c_int), ('time_budget', c_double), ('verbose', c_int),
                ('on_row', _SEARCH_ROW_FUN), ('context', c_void_p), ('dual_scoring', c_int)]


class lik_search_table(Structure):
    _fields_ = [('count', c_size_t), ('rows', POINTER(lik_search_row)), ('best', c_size_t),
                ('plain', c_size_t), ('at_edge', c_int), ('note', c_char * LIK_MESSAGE_SIZE),
                ('best_map', c_void_p), ('plain_versus', c_size_t), ('kernel_wins', c_int)]


class lik_auto_row(Structure):
    _fields_ = [('kernel', c_int), ('t', c_int), ('psi', c_int), ('scale', c_int), ('w', c_double),
                ('C', c_double), ('score', c_double), ('se', c_double), ('rows', c_int), ('stage', c_int),
                ('seconds', c_double), ('columns', c_double), ('ops', c_double)]


_AUTO_ROW_FUN = CFUNCTYPE(None, POINTER(lik_auto_row), c_void_p)


class lik_auto_options(Structure):
    _fields_ = [('budget', c_double), ('subsample_rows', c_int), ('confirm', c_int), ('t', c_int),
                ('psi', c_int), ('scale', c_int), ('verbose', c_int), ('on_row', _AUTO_ROW_FUN),
                ('context', c_void_p), ('w', c_double)]


class lik_auto_table(Structure):
    _fields_ = [('count', c_size_t), ('rows', POINTER(lik_auto_row)), ('nr_fold', c_int),
                ('fold_scores', POINTER(c_double)), ('best', c_size_t), ('plain', c_size_t),
                ('kernel_wins', c_int), ('stopped', c_int), ('skipped', c_char * LIK_MESSAGE_SIZE)]


# -k auto in an option string: not a map type but train -C's choice among them (lik_auto_search)
KERNEL_AUTO = -1

_lib = _core._kernel_library


def available():
    """True when the kernel's library (libliblinear-ik.so.1) was built and loaded."""
    return _lib is not None


def _require():
    if _lib is None:
        raise ImportError('liblinear-ik: libliblinear-ik.so.1 is missing: the Isolation Kernel is not available')


def _raise(err):
    """The exception for a failed call, with the C library's message."""
    message = err.message.decode('utf-8', 'replace') or 'the Isolation Kernel library failed'
    if err.code == LIK_EIO:
        raise OSError(message)
    if err.code == LIK_ENOMEM:
        raise MemoryError(message)
    raise ValueError(message)


_MAP_P = c_void_p
_MODEL_P = c_void_p
_ROWS = POINTER(POINTER(feature_node))

if _lib is not None:
    def _proto(name, restype, argtypes):
        function = getattr(_lib, name)
        function.restype = restype
        function.argtypes = argtypes

    _ERR = POINTER(lik_error)
    _proto('lik_map_params_default', None, [POINTER(lik_map_params), c_int])
    _proto('lik_map_params_check', c_int, [POINTER(lik_map_params), POINTER(lik_error)])
    _proto('lik_version', c_int, [])
    _proto('lik_set_print_string_function', None, [_core.PRINT_STRING_FUN])
    _proto('lik_set_threads', None, [c_int])
    _proto('lik_map_build', _MAP_P, [POINTER(problem), POINTER(lik_map_params), _ERR])
    _proto('lik_map_rows', c_int, [_MAP_P, _ROWS, c_size_t, POINTER(ctypes.c_uint32), c_int, c_int, _ERR])
    _proto('lik_map_free', None, [POINTER(_MAP_P)])
    _proto('lik_map_build_dense', _MAP_P,
           [POINTER(c_double), c_size_t, c_size_t, c_size_t, POINTER(lik_map_params), _ERR])
    _proto('lik_map_rows_dense', c_int,
           [_MAP_P, POINTER(c_double), c_size_t, c_size_t, c_size_t, POINTER(ctypes.c_uint32), c_int, c_int,
            _ERR])
    for _name in ('lik_map_kernel', 'lik_map_t', 'lik_map_psi', 'lik_map_dim', 'lik_map_scaled',
                  'lik_map_columns'):
        _proto(_name, c_int, [_MAP_P])
    _proto('lik_map_raw_weight', c_double, [_MAP_P])
    _proto('lik_map_raw_values', c_int, [_MAP_P, _ROWS, c_size_t, POINTER(c_double), _ERR])
    _proto('lik_map_seed', c_uint64, [_MAP_P])
    _proto('lik_map_checksum', c_uint64, [_MAP_P])
    _proto('lik_map_cell_value', c_double, [_MAP_P])
    _proto('lik_kernel_value', c_double, [_MAP_P, POINTER(feature_node), POINTER(feature_node), _ERR])
    _proto('lik_kernel_matrix', c_int, [_MAP_P, _ROWS, c_size_t, _ROWS, c_size_t, POINTER(c_double), c_int, _ERR])
    _proto('lik_map_to_bytes', c_int, [_MAP_P, POINTER(POINTER(ctypes.c_ubyte)), POINTER(c_size_t), _ERR])
    _proto('lik_map_from_bytes', _MAP_P, [c_char_p, c_size_t, _ERR])
    _proto('lik_free', None, [c_void_p])
    _proto('lik_train', _MODEL_P, [POINTER(problem), POINTER(parameter), POINTER(lik_map_params), _ERR])
    _proto('lik_train_with_map', _MODEL_P, [POINTER(problem), POINTER(parameter), _MAP_P, _ERR])
    _proto('lik_cross_validation', c_int,
           [POINTER(problem), POINTER(parameter), POINTER(lik_map_params), c_int, POINTER(c_double), _ERR])
    _proto('lik_find_parameters', c_int,
           [POINTER(problem), POINTER(parameter), POINTER(lik_map_params), c_int, c_double, c_double,
            POINTER(c_int), POINTER(c_double), POINTER(c_double), POINTER(c_double), _ERR])
    _proto('lik_search_options_default', None, [POINTER(lik_search_options)])
    _proto('lik_search', POINTER(lik_search_table),
           [POINTER(problem), POINTER(parameter), POINTER(lik_map_params), c_int, c_double, c_double,
            POINTER(lik_search_options), _ERR])
    _proto('lik_search_table_free', None, [POINTER(POINTER(lik_search_table))])
    _proto('lik_search_row_text', c_int, [POINTER(lik_search_row), c_int, c_char_p, c_size_t])
    _proto('lik_search_summary_text', c_int, [POINTER(lik_search_table), c_int, c_int, c_char_p, c_size_t])
    _proto('lik_auto_options_default', None, [POINTER(lik_auto_options)])
    _proto('lik_auto_search', POINTER(lik_auto_table),
           [POINTER(_core.problem), POINTER(_core.parameter), POINTER(lik_map_params), c_int, c_double,
            POINTER(lik_auto_options), _ERR])
    _proto('lik_auto_table_free', None, [POINTER(POINTER(lik_auto_table))])
    _proto('lik_auto_row_text', c_int, [POINTER(lik_auto_row), c_char_p, c_size_t])
    _proto('lik_auto_summary_text', c_int, [POINTER(lik_auto_table), c_char_p, c_size_t])
    _proto('lik_auto_kernel_name', c_char_p, [c_int])
    _proto('lik_model_assemble', _MODEL_P, [POINTER(model), _MAP_P, _ERR])
    _proto('lik_model_free', None, [POINTER(_MODEL_P)])
    _proto('lik_model_linear', POINTER(model), [_MODEL_P])
    _proto('lik_model_map', _MAP_P, [_MODEL_P])
    _proto('lik_model_save', c_int, [c_char_p, _MODEL_P, _ERR])
    _proto('lik_model_load', _MODEL_P, [c_char_p, _ERR])
    _proto('lik_model_to_bytes', c_int, [_MODEL_P, POINTER(POINTER(ctypes.c_ubyte)), POINTER(c_size_t), _ERR])
    _proto('lik_model_from_bytes', _MODEL_P, [c_char_p, c_size_t, _ERR])
    _proto('lik_model_nr_outputs', c_int, [_MODEL_P, c_int])
    _proto('lik_predict_rows', c_int,
           [_MODEL_P, _ROWS, c_size_t, c_int, POINTER(c_double), POINTER(c_double), c_int, c_int, _ERR])
    _proto('lik_online_update', c_int,
           [_MODEL_P, _ROWS, POINTER(c_double), c_size_t, POINTER(parameter), c_int, c_int, c_int, _ERR])
    _proto('lik_train_from', _MODEL_P,
           [POINTER(problem), POINTER(parameter), _MODEL_P, c_int, c_int, c_int, _ERR])


def _take_bytes(pointer_to_bytes, size):
    """Copies a buffer the library allocated into Python bytes and frees it."""
    try:
        return ctypes.string_at(pointer_to_bytes, size.value)
    finally:
        _lib.lik_free(ctypes.cast(pointer_to_bytes, c_void_p))


# ---- option strings: -k -t -g -r -S -d -m as the train program reads them ----

_INTEGER = re.compile(r'^[+-]?[0-9]+$')


# the C programs' number syntax (cli_number.h): an optional sign, digits, a point, an exponent
_REAL = re.compile(r'^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$')


def _strict_weight(text, message):
    """-a's w: a finite number >= 0 written as the programs accept it."""
    if not _REAL.match(text):
        raise ValueError(message)
    value = float(text)
    if not (value >= 0) or not np.isfinite(value):
        raise ValueError(message)
    return value


def _strict_integer(text, low, high, message):
    if not _INTEGER.match(text):
        raise ValueError(message)
    value = int(text)
    if value < low or value > high:
        raise ValueError(message)
    return value


class KernelOptions(object):
    """The Isolation Kernel's options of one option string (psi None: not given, -g absent)."""

    def __init__(self):
        self.kernel = 0
        self.t = 100
        self.psi = None
        self.seed = 1
        self.scale = None  # None: the kernel's default (lik_map_params_default: 1 IK, 0 minmax/acos)
        self.t_given = False  # -k auto: -t fixes every candidate's t
        self.device = LIK_DEVICE_AUTO
        self.threads = 0
        self.raw_weight = 0.0  # -a: the raw features beside the cells (0: off)
        self.raw_given = False

    def params(self, psi=None):
        _require()
        p = lik_map_params()
        _lib.lik_map_params_default(byref(p), self.kernel)
        p.t = self.t
        chosen = psi if psi is not None else self.psi
        if chosen is not None:
            p.psi = chosen
        p.seed = self.seed
        if self.scale is not None:
            p.scale = self.scale
        p.device = self.device
        p.threads = self.threads
        p.raw_weight = self.raw_weight
        return p


def parse_kernel_options(pairs, param):
    """The (option, value) pairs of -k -t -g -r -S -a -d -m; None when -k is absent or 0 (none)."""
    options = KernelOptions()
    for option, value in pairs:
        if option == '-k' and value == 'auto':
            options.kernel = KERNEL_AUTO
        elif option == '-k':
            if value not in KERNEL_CODES:
                raise ValueError("-k needs 0 (none), 1 (anne), 2 (iforest), 3 (minmax) or 4 (acos)")
            options.kernel = KERNEL_CODES[value]
        elif option == '-t':
            options.t = _strict_integer(value, 1, 2147483647, "-t needs a number of partitionings >= 1")
            options.t_given = True
        elif option == '-g':
            options.psi = _strict_integer(value, 1, 2147483647,
                                          "-g needs a number of cells per partitioning (psi) >= 1")
        elif option == '-r':
            options.seed = _strict_integer(value, 0, 18446744073709551615,
                                           "-r needs a seed, a whole number from 0 to 18446744073709551615")
        elif option == '-S':
            options.scale = _strict_integer(value, 0, 4, "-S needs 0 (none), 1 (divide by max |x|), 2 (min-max),"
                                            " 3 (divide by the standard deviation) or 4 (log1p, then as 1)")
        elif option == '-a':
            options.raw_weight = _strict_weight(value, "-a needs the raw features' weight w, a finite"
                                                " number >= 0 (0: off)")
            options.raw_given = True
        elif option == '-d':
            if value not in DEVICE_NAMES:
                raise ValueError("-d needs auto, cpu or gpu")
            options.device = DEVICE_NAMES[value]
        elif option == '-m':
            options.threads = _strict_integer(value, 1, 2147483647,
                                              '-m needs a number of threads >= 1, not "%s"' % value)
    if options.threads and available():
        _lib.lik_set_threads(options.threads)
    if options.kernel == 0:
        if options.raw_given:
            raise ValueError("-a (the raw features' weight) needs -k")
        return None
    if options.kernel == KERNEL_AUTO:
        _require()
        return options  # every candidate's options are checked by the search (refused ones skipped)
    if options.kernel == LIK_KERNEL_ACOS and options.psi is not None:
        raise ValueError("-g cannot be used with -k acos (each projection has 2 cells)")
    _require()
    # the library's checks of how -k, -t, -g and -S combine, before any data is converted
    # (the same messages as the programs'); psi None: the kernel's default
    probe = options.params()
    err = lik_error()
    if _lib.lik_map_params_check(byref(probe), byref(err)) != 0:
        _raise(err)
    return options


# ---- maps ----

def _as_csr_rows(X):
    """Any accepted input as (indptr, 1-based indices, values) numpy arrays, vectorised for numpy/scipy.

    Values must be finite: a map's cells are undefined for NaN or infinity,
    so such a row is refused (as the programs' reader refuses it) rather
    than mapped somewhere arbitrary."""
    indptr, index, value, _ = rows_to_csr(X)
    finite = np.isfinite(value)
    if not finite.all():
        first = int(np.flatnonzero(~finite)[0])
        row = int(np.searchsorted(indptr, first, side='right')) - 1
        raise ValueError('row %d: feature %d is not a finite number' % (row + 1, int(index[first])))
    return indptr, index, value


def _dense_rows(X):
    """A 2-D numeric numpy array as (float64 matrix, rows, columns, leading dimension), else None.

    Such input goes to the library's dense entries (lik_map_build_dense,
    lik_map_rows_dense), which give the cells of its sparse form without
    building it. A float64 array whose rows are each contiguous is used in
    place (its row stride is the leading dimension); anything else is
    copied once to a C-ordered float64 array, as rows_to_csr converts it."""
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype == object or X.dtype.kind not in 'biuf':
        return None
    item = np.dtype(np.float64).itemsize
    if not (X.dtype == np.float64 and X.strides[1] == item and X.strides[0] % item == 0
            and X.strides[0] >= X.shape[1] * item and X.flags.aligned):
        X = np.ascontiguousarray(X, dtype=np.float64)
    rows, cols = X.shape
    ld = X.strides[0] // item if rows > 1 else cols
    return X, rows, cols, ld


class IKMap(object):
    """A kernel's feature map (t partitionings, or samples, of psi cells) held by the C library.

    IKMap.build(X, kernel="anne", t=100, psi=None, seed=1, scale=None, device="auto", threads=0)
        kernel: "anne", "iforest" (Isolation Kernel: psi sampled rows per partitioning, at most
        the rows), "minmax" (min-max kernel, 0-bit CWS: t samples of psi = 2^b cells, a power
        of two from 16 to 65536) or "acos" (acos kernel: t sign projections, psi = 2; give
        None or 2). psi None: 64 for anne and iforest (as before), 256 for minmax, 2 for acos.
        scale (-S, any code for any kernel, learnt from X's rows and stored with the map):
        None: the kernel's default, True/1 for anne and iforest, 0 for minmax and acos;
        0/False none; 1/True or "maxabs": divide by max |x|; 2 or "minmax": min-max (anne:
        divide by the range; minmax and acos: to [0, 1], later values clipped); 3 or "std":
        divide by the standard deviation; 4 or "log1p": log1p, then as 1. iforest ignores
        1-3. A negative value is a ValueError naming the row and feature under scale 4, and
        for minmax under every scale but 2.
    m.cells(X)      -> numpy uint32 (n, t): the cell of each row in each partitioning
    m.transform(X)  -> scipy.sparse.csr_matrix (n, n_features_out), t entries 1/sqrt(t) per row
                       at columns k*psi + cell; with raw_weight w > 0, then w times the
                       transformed features at t*psi + j - 1
    m.kernel(X, Y)  -> numpy (nx, ny): K(x, y), the share of partitionings where x and y meet
    m.to_bytes() / IKMap.from_bytes(b): the exact bytes of the map's .ik file; pickles.
    """

    def __init__(self, handle):
        # built by build(), from_bytes() or a -k model; owns handle (a struct lik_map *)
        self._handle = c_void_p(handle)

    @staticmethod
    def _kernel_code(kernel):
        message = 'kernel must be "anne", "iforest", "minmax" or "acos", not %r' % (kernel,)
        if isinstance(kernel, str):
            code = KERNEL_CODES.get(kernel.lower(), 0)
            if code == 0:
                raise ValueError(message)
            return code
        if not isinstance(kernel, bool) and kernel in KERNEL_NAMES:
            return int(kernel)
        raise ValueError(message)

    @staticmethod
    def _scale_code(scale, code):
        """scale as the library's code 0..4 (-S): None the kernel's default, bools and 0/1 as
        before (max-abs), or a name from SCALE_CODES."""
        message = ('scale must be None, a bool, 0..4 or one of "none", "maxabs", "minmax", "std",'
                   ' "log1p", not %r' % (scale,))
        if scale is None:
            return 0 if code in EXACT_KERNELS else 1
        if isinstance(scale, str):
            if scale.lower() in SCALE_CODES:
                return SCALE_CODES[scale.lower()]
            raise ValueError(message)
        if isinstance(scale, (bool, np.bool_)):
            return int(scale)
        if isinstance(scale, numbers.Integral) and 0 <= int(scale) <= 4:
            return int(scale)
        raise ValueError(message)

    @staticmethod
    def _device_code(device):
        if isinstance(device, str) and device.lower() in DEVICE_NAMES:
            return DEVICE_NAMES[device.lower()]
        if device in (LIK_DEVICE_CPU, LIK_DEVICE_GPU, LIK_DEVICE_AUTO):
            return int(device)
        raise ValueError('device must be "auto", "cpu" or "gpu", not %r' % (device,))

    @classmethod
    def build(cls, X, kernel="anne", t=100, psi=None, seed=1, scale=None, device="auto", threads=0,
              raw_weight=0.0):
        """A map built on the rows of X (numpy 2-D, scipy sparse, or a list of dicts/lists).
        raw_weight (-a): w > 0 adds each row's raw features, transformed as -S and times w,
        after the cells (see transform)."""
        return cls._build_rows(X, kernel, t, psi, seed, scale, device, threads, raw_weight)[0]

    @classmethod
    def build_transform(cls, X, kernel="anne", t=100, psi=None, seed=1, scale=None, device="auto", threads=0,
                        raw_weight=0.0):
        """(build(X, ...), that map's transform(X)), converting X to rows once instead of twice."""
        result, prob = cls._build_rows(X, kernel, t, psi, seed, scale, device, threads, raw_weight)
        if isinstance(prob, tuple):  # dense rows, mapped as they are
            cells = result._csr_of_cells(result._cells_of_dense(prob, None, None))
        else:
            cells = result._csr_of_cells(result._cells_of_nodes(prob._nodes, None, None))
        return result, result._with_raw(cells, X)

    @classmethod
    def _build_rows(cls, X, kernel, t, psi, seed, scale, device, threads, raw_weight=0.0):
        """The map and X's rows, reusable for mapping: the problem holding them as feature_node
        rows, or for a 2-D numeric numpy array the dense matrix (_dense_rows's tuple)."""
        _require()
        params = cls._params(kernel, t, psi, seed, scale, device, threads)
        if isinstance(raw_weight, bool) or not isinstance(raw_weight, numbers.Real) \
                or not np.isfinite(raw_weight) or raw_weight < 0:
            raise ValueError('raw_weight must be a finite number >= 0, not %r' % (raw_weight,))
        params.raw_weight = float(raw_weight)
        err = lik_error()
        dense = _dense_rows(X)
        if dense is not None:
            matrix, rows, cols, ld = dense
            handle = _lib.lik_map_build_dense(matrix.ctypes.data_as(POINTER(c_double)), rows, cols, ld,
                                              byref(params), byref(err))
            prob = dense
        else:
            indptr, index, value = _as_csr_rows(X)
            count = len(indptr) - 1
            prob = problem.__new__(problem)
            width = int(index.max()) if len(index) else 0
            prob._fill(np.zeros(count), indptr, index, value, width, -1)
            handle = _lib.lik_map_build(byref(prob), byref(params), byref(err))
        if not handle:
            _raise(err)
        result = cls(handle)
        result._device = params.device
        result._threads = params.threads
        return result, prob

    @classmethod
    def _params(cls, kernel, t, psi, seed, scale, device, threads):
        params = lik_map_params()
        code = cls._kernel_code(kernel)
        _lib.lik_map_params_default(byref(params), code)
        params.t = _int_parameter('t', t)
        if psi is None:
            # anne and iforest keep build's old default of 64; minmax and acos take the library's
            psi = 64 if code not in EXACT_KERNELS else params.psi
        params.psi = _int_parameter('psi', psi)
        params.seed = _int_parameter('seed', seed, 0, 2 ** 64 - 1)
        params.scale = cls._scale_code(scale, code)
        params.device = cls._device_code(device)
        params.threads = _int_parameter('threads', threads, -(2 ** 31), 2 ** 31 - 1)
        return params

    def __del__(self):
        handle = getattr(self, '_handle', None)
        if handle is not None and handle.value and not getattr(self, '_borrowed', False) and _lib is not None:
            _lib.lik_map_free(byref(handle))
        self._handle = None

    @classmethod
    def _borrow(cls, handle, owner):
        """A view of a map that owner (a -k model) owns and frees."""
        view = cls.__new__(cls)
        view._handle = c_void_p(handle)
        view._borrowed = True
        view._owner = owner
        return view

    # properties
    @property
    def t(self):
        return _lib.lik_map_t(self._handle)

    @property
    def psi(self):
        return _lib.lik_map_psi(self._handle)

    @property
    def dim(self):
        return _lib.lik_map_dim(self._handle)

    @property
    def seed(self):
        return int(_lib.lik_map_seed(self._handle))

    @property
    def scaled(self):
        return bool(_lib.lik_map_scaled(self._handle))

    @property
    def scale(self):
        """The scaling code: 0 none, 1 max-abs (anne), 2 min-max to [0, 1] (minmax, acos)."""
        return int(_lib.lik_map_scaled(self._handle))

    @property
    def checksum(self):
        return int(_lib.lik_map_checksum(self._handle))

    @property
    def raw_weight(self):
        """w of the raw features beside the cells (-a); 0.0: none."""
        return float(_lib.lik_map_raw_weight(self._handle))

    @property
    def n_features_out(self):
        """A model's columns: t*psi, plus dim with raw features (the model's nr_feature)."""
        return int(_lib.lik_map_columns(self._handle))

    def __repr__(self):
        return 'IKMap(kernel=%r, t=%d, psi=%d, seed=%d, scaled=%s, dim=%d, checksum=%016x)' % (
            self.kernel, self.t, self.psi, self.seed, self.scaled, self.dim, self.checksum)

    def _nodes(self, X):
        indptr, index, value = _as_csr_rows(X)
        return NodeRows(indptr, index, value)

    def cells(self, X, device=None, threads=None):
        """numpy uint32 (n, t): cells[r, k] is row r's cell (0..psi-1) in partitioning k."""
        dense = _dense_rows(X)
        if dense is not None:
            return self._cells_of_dense(dense, device, threads)
        return self._cells_of_nodes(self._nodes(X), device, threads)

    def _device_threads(self, device, threads):
        device = self._device_code(device if device is not None else getattr(self, '_device', LIK_DEVICE_AUTO))
        threads = threads if threads is not None else getattr(self, '_threads', 0)
        return device, int(threads)

    def _cells_of_dense(self, dense, device, threads):
        matrix, rows, cols, ld = dense
        out = np.empty((rows, self.t), dtype=np.uint32)
        if rows == 0:
            return out
        err = lik_error()
        device, threads = self._device_threads(device, threads)
        status = _lib.lik_map_rows_dense(self._handle, matrix.ctypes.data_as(POINTER(c_double)), rows, cols, ld,
                                         out.ctypes.data_as(POINTER(ctypes.c_uint32)), device, threads,
                                         byref(err))
        if status != 0:
            _raise(err)
        return out

    def _cells_of_nodes(self, nodes, device, threads):
        t = self.t
        out = np.zeros((nodes.count, t), dtype=np.uint32)
        if nodes.count == 0:
            return out
        err = lik_error()
        device, threads = self._device_threads(device, threads)
        status = _lib.lik_map_rows(self._handle, ctypes.cast(nodes.rows, _ROWS), nodes.count,
                                   out.ctypes.data_as(POINTER(ctypes.c_uint32)), device, int(threads), byref(err))
        if status != 0:
            _raise(err)
        return out

    def transform(self, X, device=None, threads=None):
        """scipy.sparse.csr_matrix (n, n_features_out): row r has 1/sqrt(t) at k*psi + cells[r, k]
        for each k; with raw features (raw_weight w > 0), then w times row r's transformed
        feature j at t*psi + j - 1 (zeros left out): the rows a -k -a model sees."""
        return self._with_raw(self._csr_of_cells(self.cells(X, device, threads)), X)

    def _with_raw(self, cells, X):
        """cells (csr, n x t*psi) with the raw part appended when the map has one."""
        if self.raw_weight == 0:
            return cells
        from scipy import sparse
        indptr, index, value = _as_csr_rows(X)
        count = len(indptr) - 1
        keep = index <= self.dim  # ascending within rows: what the library walks
        out = np.zeros(int(keep.sum()), dtype=np.float64)
        if out.size:
            nodes = NodeRows(indptr, index, value)
            err = lik_error()
            if _lib.lik_map_raw_values(self._handle, ctypes.cast(nodes.rows, _ROWS), count,
                                       out.ctypes.data_as(POINTER(c_double)), byref(err)) != 0:
                _raise(err)
        rows = np.repeat(np.arange(count, dtype=np.int64), np.diff(indptr))[keep]
        raw = sparse.csr_matrix((out, (rows, index[keep].astype(np.int64) - 1)), shape=(count, self.dim))
        raw.eliminate_zeros()
        return sparse.hstack([cells, raw], format='csr')

    def _csr_of_cells(self, cells):
        """cells (a fresh uint32 array of the library's, which this may overwrite) as the CSR matrix."""
        from scipy import sparse
        count, t = cells.shape
        psi = self.psi
        # int32 indices where they fit: scipy would copy int64 ones down to
        # int32 anyway, so building them so spares two copies of n*t values;
        # and then the cells' own array becomes the columns (no copy at all)
        small = max(t * psi, count * t) <= np.iinfo(np.int32).max
        itype = np.int32 if small else np.int64
        if small and cells.dtype == np.uint32 and cells.flags.c_contiguous and cells.flags.writeable:
            columns = cells.view(np.int32)
        else:
            columns = cells.astype(itype)
        columns += np.arange(t, dtype=itype)[np.newaxis, :] * itype(psi)
        values = np.full(count * t, _lib.lik_map_cell_value(self._handle), dtype=np.float64)
        indptr = np.arange(0, count * t + 1, t, dtype=itype)
        return sparse.csr_matrix((values, columns.reshape(-1), indptr), shape=(count, t * psi),
                                 copy=False)

    def kernel_matrix(self, X, Y=None, threads=0):
        """numpy float64 (nx, ny): K(x_i, y_j) in [0, 1]; Y None means X."""
        x_nodes = self._nodes(X)
        y_nodes = x_nodes if Y is None else self._nodes(Y)
        out = np.zeros((x_nodes.count, y_nodes.count), dtype=np.float64)
        if out.size == 0:
            return out
        err = lik_error()
        status = _lib.lik_kernel_matrix(self._handle, ctypes.cast(x_nodes.rows, _ROWS), x_nodes.count,
                                        ctypes.cast(y_nodes.rows, _ROWS), y_nodes.count,
                                        out.ctypes.data_as(POINTER(c_double)), int(threads), byref(err))
        if status != 0:
            _raise(err)
        return out

    def to_bytes(self):
        """The exact bytes of the map's .ik file."""
        data = POINTER(ctypes.c_ubyte)()
        size = c_size_t()
        err = lik_error()
        if _lib.lik_map_to_bytes(self._handle, byref(data), byref(size), byref(err)) != 0:
            _raise(err)
        return _take_bytes(data, size)

    @classmethod
    def from_bytes(cls, data):
        """A map from the bytes of a .ik file (every check of loading one)."""
        _require()
        data = bytes(data)
        err = lik_error()
        handle = _lib.lik_map_from_bytes(data, len(data), byref(err))
        if not handle:
            _raise(err)
        return cls(handle)

    def __reduce__(self):
        return (_map_from_bytes, (self.to_bytes(),))

    def __eq__(self, other):
        return isinstance(other, IKMap) and self.to_bytes() == other.to_bytes()

    def __hash__(self):
        return hash(self.checksum)


# IKMap.kernel is both a property (the kernel's name) and the kernel matrix
# of the brief's m.kernel(X, Y): the name is a str subclass that can be called.
class _KernelName(str):
    def __new__(cls, name, owner):
        text = str.__new__(cls, name)
        text._owner = owner
        return text

    def __call__(self, X, Y=None, threads=0):
        return self._owner.kernel_matrix(X, Y, threads)

    def __reduce__(self):
        return (str, (str(self),))


def _kernel_property(self):
    return _KernelName(KERNEL_NAMES.get(_lib.lik_map_kernel(self._handle), 'unknown'), self)


IKMap.kernel = property(_kernel_property)


def _map_from_bytes(data):
    return IKMap.from_bytes(data)


def _int_parameter(name, value, low=1, high=2 ** 31 - 1):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError('%s must be an integer, not %r' % (name, value))
    value = int(value)
    if value < low or value > high:
        raise ValueError('%s must be between %d and %d, not %d' % (name, low, high, value))
    return value


# ---- models ----

def _wrap_model(handle):
    """A Python model (upstream's structure) over a lik_model: the model's memory stays the library's."""
    linear = _lib.lik_model_linear(handle)
    m = linear.contents
    m.__createfrom__ = 'lik'
    m._lik_handle = c_void_p(handle)
    map_handle = _lib.lik_model_map(handle)
    m._ik_map = IKMap._borrow(map_handle, m) if map_handle else None
    return m


def _plain_handle(m):
    """The lik_model behind a Python model: its own for a library-made model, else a copy assembled
    once (a plain model trained or loaded by upstream's path), freed with the model."""
    handle = m.__dict__.get('_lik_handle')
    if handle is not None:
        return handle
    assembled = m.__dict__.get('_lik_assembled')
    if assembled is not None and assembled.value:
        return assembled
    err = lik_error()
    handle = _lib.lik_model_assemble(byref(m), None, byref(err))
    if not handle:
        _raise(err)
    m._lik_assembled = c_void_p(handle)
    return m._lik_assembled


def train(prob, param):
    """train() with -k (or -s 30 without it, so that its model is the library's and can be updated
    in place by online_update): a model, the cross-validation's ACC/MSE, or the search's
    (C, p, score, psi)."""
    from .liblinearutil import report_cross_validation
    options = param.ik
    if options is None:
        return _train_plain(prob, param)
    prob.set_bias(param.bias)
    _core.liblinear.set_print_string_function(param.print_func)
    _lib.lik_set_print_string_function(param.print_func)
    err = lik_error()
    if options.kernel == KERNEL_AUTO:
        if not param.flag_find_parameters:
            raise ValueError("-k auto needs -C: it is a search (train the model it chooses with the "
                             "options it reports)")
        return _auto_search(prob, param, options)
    if param.flag_find_parameters:
        return _search(prob, param, options)
    kernel = options.params()
    if param.flag_cross_validation:
        target = (c_double * max(prob.l, 1))()
        if _lib.lik_cross_validation(byref(prob), byref(param), byref(kernel), param.nr_fold, target,
                                     byref(err)) != 0:
            _raise(err)
        return report_cross_validation(param.solver_type, prob.y[:prob.l], target[:prob.l])
    handle = _lib.lik_train(byref(prob), byref(param), byref(kernel), byref(err))
    if not handle:
        _raise(err)
    m = _wrap_model(handle)
    m._ik_device = options.device
    m._ik_threads = options.threads
    return m


SEARCH_ROW_FIELDS = ('psi', 'rows', 'C', 'p', 'score', 'seconds')

# The table of the last train(..., '-C -k ...') in this process: a list of dicts with
# SEARCH_ROW_FIELDS, in the order the search ran them, the plain baseline (psi 0) last.
last_search_table = []


def _library_text(function, *args):
    """A lik_search_*_text function's text (it says how long the text is, as snprintf)."""
    need = function(*args, None, 0)
    text = ctypes.create_string_buffer(need + 1)
    function(*args, text, need + 1)
    return text.value.decode('utf-8', 'replace')


def _search(prob, param, options):
    """train -C -k: lik_search, printed as the program prints it; returns (C, p, score, psi).

    The lines are the program's from the first psi line to the advice (not its
    'Doing parameter search' header nor its 'best model:' command, which name
    files), then an empty line as upstream's Python prints after its Best line."""
    global last_search_table
    regression = param.solver_type == _core.solver_names.L2R_L2LOSS_SVR
    kernel = options.params(psi=options.psi if options.psi is not None else 0)
    if options.psi is None:
        kernel.psi = 0  # search psi too, as train -C -k without -g
    start_C = param.C if param.flag_C_specified else -1.0
    start_p = param.p if param.flag_p_specified else -1.0
    search_options = lik_search_options()
    _lib.lik_search_options_default(byref(search_options))

    def on_row(row, context):
        if row.contents.psi != 0:  # the plain baseline is printed at the end
            print(_library_text(_lib.lik_search_row_text, row, int(regression)), flush=True)

    callback = _SEARCH_ROW_FUN(on_row)  # kept alive until lik_search returns
    search_options.on_row = callback
    err = lik_error()
    table = _lib.lik_search(byref(prob), byref(param), byref(kernel), param.nr_fold, start_C, start_p,
                            byref(search_options), byref(err))
    if not table:
        _raise(err)
    try:
        t = table.contents
        rows = [t.rows[i] for i in range(t.count)]
        last_search_table = [{name: getattr(r, name) for name in SEARCH_ROW_FIELDS} for r in rows]
        best = rows[t.best]
        # the Best line, the note, the baseline and the advice: the library's text, as the program's
        print(_library_text(_lib.lik_search_summary_text, table, int(regression), int(options.psi is None)),
              end="")
        print("")
        return best.C, best.p, best.score, best.psi
    finally:
        _lib.lik_search_table_free(byref(table))


AUTO_ROW_FIELDS = ('kernel', 't', 'psi', 'scale', 'w', 'C', 'score', 'se', 'rows', 'stage', 'seconds',
                   'columns', 'ops')


def _auto_search(prob, param, options):
    """train -C -k auto: lik_auto_search, printed as the program prints it (its candidate lines and
    the summary, not the 'best model:' command, which names files); returns (C, p, score, psi) of
    the choice and keeps the table in last_search_table (AUTO_ROW_FIELDS, kernel as its name,
    plus 'folds', the per-fold scores)."""
    global last_search_table
    base = lik_map_params()
    _lib.lik_map_params_default(byref(base), LIK_KERNEL_ANNE)
    base.seed = options.seed
    base.device = options.device
    base.threads = options.threads
    auto_options = lik_auto_options()
    _lib.lik_auto_options_default(byref(auto_options))
    auto_options.t = options.t if options.t_given else 0
    auto_options.psi = options.psi if options.psi is not None else 0
    auto_options.scale = options.scale if options.scale is not None else -1
    auto_options.w = options.raw_weight if options.raw_given else -1.0  # -a w fixes every kernel's w

    def on_row(row, context):
        print(_library_text(_lib.lik_auto_row_text, row), flush=True)

    callback = _AUTO_ROW_FUN(on_row)  # kept alive until lik_auto_search returns
    auto_options.on_row = callback
    start_C = param.C if param.flag_C_specified else -1.0
    err = lik_error()
    table = _lib.lik_auto_search(byref(prob), byref(param), byref(base), param.nr_fold, start_C,
                                 byref(auto_options), byref(err))
    if not table:
        _raise(err)
    try:
        t = table.contents
        rows = []
        for i in range(t.count):
            r = t.rows[i]
            entry = {name: getattr(r, name) for name in AUTO_ROW_FIELDS}
            entry['kernel'] = _lib.lik_auto_kernel_name(r.kernel).decode()
            entry['folds'] = [t.fold_scores[i * t.nr_fold + k] for k in range(t.nr_fold)]
            rows.append(entry)
        last_search_table = rows
        print(_library_text(_lib.lik_auto_summary_text, table), end="")
        print("")
        best = t.rows[t.best]
        return best.C, -1.0, best.score, best.psi
    finally:
        _lib.lik_auto_table_free(byref(table))


def save_model(model_file_name, m):
    """The model's files as the train program writes them (MODEL, and MODEL.ik for a -k model)."""
    err = lik_error()
    if _lib.lik_model_save(model_file_name.encode(), _plain_handle(m), byref(err)) != 0:
        _raise(err)


def load_model(model_file_name):
    """A plain model or a verified -k pair; None (with upstream's line) when the file cannot be read."""
    err = lik_error()
    handle = _lib.lik_model_load(model_file_name.encode(), byref(err))
    if not handle:
        if err.code == LIK_EIO and not os.access(model_file_name, os.R_OK):
            # MODEL itself cannot be read: upstream's answer (a line, None)
            print("can't open model file %s" % model_file_name)
            return None
        _raise(err)  # a pair whose map is missing, damaged or another's is refused
    return _wrap_model(handle)


def model_to_bytes(m):
    _require()
    data = POINTER(ctypes.c_ubyte)()
    size = c_size_t()
    err = lik_error()
    if _lib.lik_model_to_bytes(_plain_handle(m), byref(data), byref(size), byref(err)) != 0:
        _raise(err)
    return _take_bytes(data, size)


def model_from_bytes(data):
    _require()
    data = bytes(data)
    err = lik_error()
    handle = _lib.lik_model_from_bytes(data, len(data), byref(err))
    if not handle:
        _raise(err)
    return _wrap_model(handle)


def _predict_rows(handle, nodes, probability, nr_outputs, device, threads):
    what = LIK_OUTPUT_PROBABILITY if probability else LIK_OUTPUT_VALUES
    width = _lib.lik_model_nr_outputs(handle, what)
    labels = np.zeros(max(nodes.count, 1), dtype=np.float64)
    out = np.zeros((max(nodes.count, 1), max(width, 1)), dtype=np.float64)
    if nodes.count:
        err = lik_error()
        status = _lib.lik_predict_rows(handle, ctypes.cast(nodes.rows, _ROWS), nodes.count, what,
                                       labels.ctypes.data_as(POINTER(c_double)),
                                       out.ctypes.data_as(POINTER(c_double)), device, threads, byref(err))
        if status != 0:
            _raise(err)
    labels = labels[:nodes.count]
    out = out[:nodes.count, :nr_outputs]
    return labels.tolist(), out.tolist()


def predict_nodes(m, nodes, probability, nr_outputs):
    """A plain model's prediction of rows that already carry its bias node, in one C call."""
    return _predict_rows(_plain_handle(m), nodes, probability, nr_outputs, LIK_DEVICE_CPU, 0)


def predict_raw(m, x, probability, nr_outputs):
    """A -k model's prediction of raw rows (mapped by the model's map), in one C call."""
    indptr, index, value = _as_csr_rows(x)
    nodes = NodeRows(indptr, index, value)
    return _predict_rows(m._lik_handle, nodes, probability, nr_outputs,
                         getattr(m, '_ik_device', LIK_DEVICE_AUTO), getattr(m, '_ik_threads', 0))


def _train_plain(prob, param):
    """train() without a kernel through the library (lik_train, kernel NULL): -s 30's path."""
    from .liblinearutil import report_cross_validation
    prob.set_bias(param.bias)
    _core.liblinear.set_print_string_function(param.print_func)
    _lib.lik_set_print_string_function(param.print_func)
    err = lik_error()
    if param.flag_find_parameters:
        raise ValueError("Warm-start parameter search only available for -s 0, -s 2 and -s 11")
    if param.flag_cross_validation:
        target = (c_double * max(prob.l, 1))()
        if _lib.lik_cross_validation(byref(prob), byref(param), None, param.nr_fold, target, byref(err)) != 0:
            _raise(err)
        return report_cross_validation(param.solver_type, prob.y[:prob.l], target[:prob.l])
    handle = _lib.lik_train(byref(prob), byref(param), None, byref(err))
    if not handle:
        _raise(err)
    return _wrap_model(handle)


# ---- online learning and continued training (issue 23; liblinear_ik.h) ----

class OnlineOptions(object):
    """What online_update and train_from read from their option string besides train's options:
    -P passes, -d, -m (where a -k model's rows are mapped), and the rest for parameter()."""

    def __init__(self, options, allowed):
        argv = options.split() if isinstance(options, str) else list(options)
        self.passes = 1
        self.device = LIK_DEVICE_AUTO
        self.threads = 0
        self.rest = []
        position = 0
        while position < len(argv):
            option = argv[position]
            takes_value = option not in ('-q', '-R', '-C')
            if takes_value and position + 1 >= len(argv):
                raise ValueError("%s needs a value" % option)
            value = argv[position + 1] if takes_value else None
            if option == '-P':
                self.passes = _strict_integer(value, 1, 2147483647, '-P needs a number of passes >= 1, not "%s"' % value)
            elif option == '-d':
                if value not in DEVICE_NAMES:
                    raise ValueError("-d needs auto, cpu or gpu")
                self.device = DEVICE_NAMES[value]
            elif option == '-m':
                self.threads = _strict_integer(value, 1, 2147483647, '-m needs a number of threads >= 1, not "%s"' % value)
            elif option in ('-k', '-t', '-g', '-r', '-S', '-a'):
                raise ValueError("%s does not apply: the model's map (or none) is reused, never rebuilt" % option)
            elif option in allowed or option.startswith('-w'):
                self.rest.append(option)
                if takes_value:
                    self.rest.append(value)
            else:
                raise ValueError("Wrong options: %s" % option)
            position += 2 if takes_value else 1


def _library_model(m):
    """The lik_model a Python model owns (trained by this package with -k or -s 30, loaded, unpickled)."""
    _require()
    handle = m.__dict__.get('_lik_handle') if isinstance(m, model) else None
    if handle is None or not handle.value:
        raise ValueError("the model is not the Isolation Kernel library's: train it with this package's train() "
                         "(-s 30, or -k) or load it with load_model()")
    return handle


def _labels_array(y, count):
    labels = np.ascontiguousarray(np.asarray(y, dtype=np.float64).ravel())
    if labels.shape[0] != count:
        raise ValueError("%d labels for %d rows" % (labels.shape[0], count))
    return labels


def _model_eta(m, param):
    """-s 30 without -c goes on with the model's eta (param.C: the model file's eta line), as train -i."""
    if param.solver_type == ONLINE_OGD_HINGE and not param.flag_C_specified and m.param.C > 0:
        param.C = m.param.C


def online_update(m, y, x, options=''):
    """The online solver's update of a -s 30 model m, in place, by the rows x (labels y), in order.

    options: -c eta (the learning rate; default: m's, the eta it was trained with, which its file
    keeps; 0.5 for a file written before it did), -wi weight (eta times the
    weight for label i), -P passes (default 1), -d auto|cpu|gpu and -m threads (where a -k model
    maps the rows; neither changes the result), -q. A label or (plain model) feature not in m joins
    with zero weights. Returns m. C: lik_online_update.
    """
    handle = _library_model(m)
    online = OnlineOptions(options, ('-c', '-q'))
    param = parameter(['-s', '30'] + online.rest)
    if m.param.solver_type != ONLINE_OGD_HINGE:
        raise ValueError("online_update needs a -s 30 model; this one was trained by -s %d" % m.param.solver_type)
    _model_eta(m, param)
    indptr, index, value = _as_csr_rows(x)
    nodes = NodeRows(indptr, index, value)
    labels = _labels_array(y, nodes.count)
    _lib.lik_set_print_string_function(param.print_func)
    err = lik_error()
    if _lib.lik_online_update(handle, ctypes.cast(nodes.rows, _ROWS), labels.ctypes.data_as(POINTER(c_double)),
                              nodes.count, byref(param), online.passes, online.device, online.threads,
                              byref(err)) != 0:
        _raise(err)
    return m


def train_from(m, y, x, options=''):
    """A new model trained on (y, x) starting from model m, which is not changed (train -i).

    -s 30 goes on where m stopped (-P passes); -s 0, 2 and 11 start Newton from m's weights (the
    data must have exactly m's labels). -s and -B default to m's (others are refused), -c to m's
    eta for -s 30 (0.5 for a file written before models kept it) and 1 otherwise; -e, -wi, -R, -q as train's; -d and -m map the rows of a
    -k model, whose map is reused, never rebuilt. C: lik_train_from.
    """
    _require()
    if not isinstance(m, model):
        raise TypeError("train_from needs a model, not %r" % (type(m),))
    handle = _plain_handle(m)  # not changed, so a plain model trained by upstream's path may lend a copy
    online = OnlineOptions(options, ('-s', '-c', '-e', '-p', '-B', '-q', '-R'))
    argv = list(online.rest)
    saved = m.param.solver_type
    if '-s' not in argv:
        argv = ['-s', str(int(saved))] + argv
    param = parameter(argv)
    if param.solver_type != saved:
        raise ValueError("the model was trained by -s %d, not -s %d" % (saved, param.solver_type))
    if '-B' in argv and param.bias != m.bias:
        raise ValueError("-B %g does not fit the model's bias %g" % (param.bias, m.bias))
    param.bias = m.bias
    _model_eta(m, param)
    indptr, index, value = _as_csr_rows(x)
    prob = problem.__new__(problem)
    width = int(index.max()) if len(index) else 0
    labels = _labels_array(y, len(indptr) - 1)
    prob._fill(labels, indptr, index, value, width, -1)
    prob.set_bias(param.bias)
    _core.liblinear.set_print_string_function(param.print_func)
    _lib.lik_set_print_string_function(param.print_func)
    err = lik_error()
    result = _lib.lik_train_from(byref(prob), byref(param), handle, online.passes, online.device, online.threads,
                                 byref(err))
    if not result:
        _raise(err)
    trained = _wrap_model(result)
    trained._ik_device = online.device
    trained._ik_threads = online.threads
    return trained
