"""ctypes bindings of LIBLINEAR (liblinear.so.6, built from this project's
sources and installed beside this file), with the names, signatures and
behaviour of upstream LIBLINEAR 2.50's Python module `liblinear.liblinear`.

Rows become feature_node arrays in numpy (one structured array per problem,
filled without a Python loop per row for numpy and scipy input), so a
problem's memory is a few numpy arrays that it keeps alive.
"""
import ctypes
import os
import sys
from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char_p, c_double, c_int, c_void_p,
                    cast, pointer)
from enum import IntEnum

import numpy as np

try:
    import scipy.sparse as sparse
except ImportError:  # scipy is a dependency; without it only lists and numpy arrays work
    sparse = None

__all__ = ['liblinear', 'feature_node', 'gen_feature_nodearray', 'problem',
           'parameter', 'model', 'toPyModel', 'solver_names', 'print_null']

_HERE = os.path.dirname(os.path.abspath(__file__))


def _load_libraries():
    """liblinear.so.6, then the kernel's library (which carries its own hidden copy of the solvers).

    Both are loaded RTLD_LOCAL (ctypes' default), as upstream's package loads its library:
    loaded RTLD_GLOBAL, liblinear.so.6's train, check_parameter, ... would be bound by any
    extension loaded later that has unresolved names of the same spelling, e.g.
    scikit-learn's own LIBLINEAR copy (sklearn.svm._liblinear, whose struct parameter
    differs), which then crashed or refused its parameters."""
    path = os.path.join(_HERE, 'liblinear.so.6')
    override = os.environ.get('LIBLINEAR_IK_LIBDIR')
    if override:
        path = os.path.join(override, 'liblinear.so.6')
    if not os.path.isfile(path):
        raise ImportError('liblinear-ik: %s is missing (the package was not built)' % path)
    core = ctypes.CDLL(path)
    kernel = None
    kernel_path = os.path.join(os.path.dirname(path), 'libliblinear-ik.so.1')
    if os.path.isfile(kernel_path):
        kernel = ctypes.CDLL(kernel_path)
    return core, kernel


liblinear, _kernel_library = _load_libraries()


class solver_names(IntEnum):
    L2R_LR = 0
    L2R_L2LOSS_SVC_DUAL = 1
    L2R_L2LOSS_SVC = 2
    L2R_L1LOSS_SVC_DUAL = 3
    MCSVM_CS = 4
    L1R_L2LOSS_SVC = 5
    L1R_LR = 6
    L2R_LR_DUAL = 7
    L2R_L2LOSS_SVR = 11
    L2R_L2LOSS_SVR_DUAL = 12
    L2R_L1LOSS_SVR_DUAL = 13
    ONECLASS_SVM = 21


# Ours (issue 23): -s 30, online gradient descent with the hinge loss. Not a member of
# solver_names, whose members are upstream's exactly (scripts may list them; test_compat
# checks it); parameter() accepts 30 beside them. Its -c is the learning rate eta, whose
# default is the paper's 0.5, as train -s 30 without -c.
ONLINE_OGD_HINGE = 30
ONLINE_DEFAULT_ETA = 0.5


PRINT_STRING_FUN = CFUNCTYPE(None, c_char_p)


def print_null(s):
    return


# One C callback object for the quiet mode, kept alive for the process.
_quiet_printer = PRINT_STRING_FUN(print_null)
# A NULL function pointer: the library's default (stdout).
_default_printer = cast(None, PRINT_STRING_FUN)


def _prototype(function, restype, argtypes):
    function.restype = restype
    function.argtypes = argtypes


class feature_node(Structure):
    _names = ['index', 'value']
    _types = [c_int, c_double]
    _fields_ = list(zip(_names, _types))

    def __str__(self):
        return '%d:%g' % (self.index, self.value)


# The same layout as struct feature_node, for numpy: int, padding, double.
NODE_DTYPE = np.dtype([('index', np.int32), ('value', np.float64)], align=True)
assert NODE_DTYPE.itemsize == ctypes.sizeof(feature_node)

_XI_TYPE_ERROR = 'xi should be a dictionary, list, tuple, 1-d numpy array, or tuple of (index, data)'


def _sparse_row(xi, feature_max=None):
    """One row as (1-based indices, values) numpy arrays, ascending, zeros dropped (except a sparse pair's)."""
    if isinstance(xi, tuple) and len(xi) == 2 and isinstance(xi[0], np.ndarray) and isinstance(xi[1], np.ndarray):
        # (0-based indices, values), as a CSR row's slice: kept as given, stored zeros too
        index = np.asarray(xi[0], dtype=np.int64) + 1
        value = np.asarray(xi[1], dtype=np.float64)
    elif isinstance(xi, dict):
        keys = [k for k, v in xi.items() if v != 0]
        index = np.array(sorted(keys), dtype=np.int64)
        value = np.array([xi[k] for k in index.tolist()], dtype=np.float64)
    elif isinstance(xi, (list, tuple)) or (isinstance(xi, np.ndarray) and xi.ndim == 1):
        dense = np.asarray(xi, dtype=np.float64)
        if dense.ndim != 1:
            raise TypeError(_XI_TYPE_ERROR)
        index = np.flatnonzero(dense) + 1
        value = dense[index - 1]
    elif isinstance(xi, np.ndarray):
        # upstream takes the nonzero entries of a flattened array of any shape
        dense = np.ascontiguousarray(xi, dtype=np.float64).ravel()
        index = np.flatnonzero(dense) + 1
        value = dense[index - 1]
    else:
        raise TypeError(_XI_TYPE_ERROR)
    if feature_max is not None:
        keep = index <= feature_max
        index, value = index[keep], value[keep]
    return index, value


def gen_feature_nodearray(xi, feature_max=None):
    """A row as a ctypes feature_node array with room for a bias node, and its largest index."""
    index, value = _sparse_row(xi, feature_max)
    nodes = (feature_node * (len(index) + 2))()
    view = np.frombuffer(nodes, dtype=NODE_DTYPE)
    view['index'][:len(index)] = index
    view['value'][:len(index)] = value
    view['index'][len(index):] = -1
    largest = index[-1] if len(index) > 0 else 0
    if isinstance(xi, dict) or isinstance(xi, (list,)) or (isinstance(xi, tuple) and not isinstance(xi[0], np.ndarray)):
        largest = int(largest)
    return nodes, largest


def _is_sparse(x):
    return sparse is not None and (sparse.issparse(x))


def rows_to_csr(x, feature_max=None):
    """Rows (list of dicts/lists, 2-D numpy array, scipy sparse) as (indptr, 1-based indices, values, n).

    n is the problem width as upstream counts it: the CSR's column count for
    scipy input, the largest nonzero index otherwise. Dense and CSR input are
    converted with numpy, without a Python loop per row.
    """
    if _is_sparse(x):
        csr = x.tocsr() if x.format != 'csr' else x
        csr = csr.copy() if not csr.has_sorted_indices else csr
        csr.sort_indices()
        indptr = np.asarray(csr.indptr, dtype=np.int64)
        index = np.asarray(csr.indices, dtype=np.int64) + 1
        value = np.asarray(csr.data, dtype=np.float64)
        width = csr.shape[1]
    elif isinstance(x, np.ndarray) and (x.ndim == 1 or x.dtype == object):
        # a 1-D array of rows (dicts or lists), as upstream iterates it
        return rows_to_csr(list(x), feature_max)
    elif isinstance(x, np.ndarray):
        dense = np.ascontiguousarray(x, dtype=np.float64)
        if dense.ndim != 2:
            raise TypeError(_XI_TYPE_ERROR)
        rows, cols = np.nonzero(dense)
        indptr = np.zeros(dense.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=dense.shape[0]), out=indptr[1:])
        index = cols.astype(np.int64) + 1
        value = dense[rows, cols]
        width = int(index.max()) if len(index) else 0
    elif isinstance(x, (list, tuple)):
        pieces = [_sparse_row(xi) for xi in x]
        counts = np.fromiter((len(p[0]) for p in pieces), dtype=np.int64, count=len(pieces))
        indptr = np.zeros(len(pieces) + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        index = np.concatenate([p[0] for p in pieces]) if pieces else np.zeros(0, np.int64)
        value = np.concatenate([p[1] for p in pieces]) if pieces else np.zeros(0)
        index = index.astype(np.int64)
        width = int(index.max()) if len(index) else 0
    else:
        raise TypeError("type of x: {0} is not supported!".format(type(x)))
    if feature_max is not None and len(index) and index.max() > feature_max:
        keep = index <= feature_max
        row_of = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))[keep]
        index, value = index[keep], value[keep]
        indptr = np.zeros(len(indptr), dtype=np.int64)
        np.cumsum(np.bincount(row_of, minlength=len(indptr) - 1), out=indptr[1:])
    return indptr, index, value, width


class NodeRows(object):
    """feature_node rows in one numpy buffer: each row its nodes, a bias slot and the terminator.

    rows is a ctypes array of row pointers (struct feature_node **) into it.
    """

    def __init__(self, indptr, index, value):
        count = len(indptr) - 1
        self.count = count
        if index.size and (index.min() < 1 or index.max() > 2147483646):
            raise ValueError('feature indices must be between 1 and 2147483646')
        starts = indptr[:-1] + 2 * np.arange(count, dtype=np.int64)
        total = int(indptr[-1]) + 2 * count + 1
        self.bias_slots = indptr[1:] + 2 * np.arange(count, dtype=np.int64)
        # every slot but each row's bias slot and terminator (and a last spare one)
        # takes the next nonzero: filled through contiguous arrays and a mask, a few
        # times faster than fancy-indexed writes into the structured array's fields
        feature = np.ones(total, dtype=bool)
        feature[self.bias_slots] = False
        feature[self.bias_slots + 1] = False
        feature[-1] = False
        node_index = np.full(total, -1, dtype=np.int32)
        node_index[feature] = index
        node_index[-1] = 0
        node_value = np.zeros(total, dtype=np.float64)
        node_value[feature] = value
        self.space = np.empty(total, dtype=NODE_DTYPE)
        self.space['index'] = node_index
        self.space['value'] = node_value
        base = self.space.ctypes.data
        self.addresses = (base + starts * NODE_DTYPE.itemsize).astype(np.uintp)
        if count:
            self.rows = (POINTER(feature_node) * count).from_buffer(self.addresses)
        else:
            self.rows = (POINTER(feature_node) * 1)()
        self.starts = starts

    def set_bias_node(self, index, value):
        self.space['index'][self.bias_slots] = index
        self.space['value'][self.bias_slots] = value

    def row(self, i):
        return self.rows[i]


class problem(Structure):
    _names = ['l', 'n', 'y', 'x', 'bias']
    _types = [c_int, c_int, POINTER(c_double), POINTER(POINTER(feature_node)), c_double]
    _fields_ = list(zip(_names, _types))

    def __init__(self, y, x, bias=-1):
        if (not isinstance(y, (list, tuple))) and (not isinstance(y, np.ndarray)):
            raise TypeError("type of y: {0} is not supported!".format(type(y)))
        if not (isinstance(x, (list, tuple, np.ndarray)) or _is_sparse(x)):
            raise TypeError("type of x: {0} is not supported!".format(type(x)))
        count = x.shape[0] if (_is_sparse(x) or (isinstance(x, np.ndarray) and x.ndim == 2)) else len(x)
        if len(y) != count:
            raise ValueError("len(y) != len(x)")
        if isinstance(x, np.ndarray) and x.ndim != 2 and not (x.ndim == 1 and x.dtype == object):
            raise TypeError(_XI_TYPE_ERROR)
        indptr, index, value, width = rows_to_csr(x)
        self._fill(np.array(y, dtype=np.float64), indptr, index, value, width, bias)
        # the raw rows, kept for the Isolation Kernel's map (which never sees the bias node)
        self._csr = (indptr, index, value, width)

    def _fill(self, y, indptr, index, value, width, bias):
        self.l = len(y)
        self.n = width
        self.bias = -1
        self._y = np.ascontiguousarray(y, dtype=np.float64)
        self._nodes = NodeRows(indptr, index, value)
        self.y = self._y.ctypes.data_as(POINTER(c_double))
        self.x = cast(self._nodes.rows, POINTER(POINTER(feature_node)))
        self.x_space = self._nodes.space
        if bias >= 0:
            self.set_bias(bias)

    def set_bias(self, bias):
        if self.bias == bias:
            return
        if bias >= 0:
            if self.bias < 0:
                self.n += 1
            self._nodes.set_bias_node(self.n, bias)
        else:
            if self.bias >= 0:
                self.n -= 1
            self._nodes.set_bias_node(-1, bias)
        self.bias = bias

    def copy(self):
        indptr, index, value, width = self._csr
        other = problem.__new__(problem)
        other._fill(self._y.copy(), indptr, index, value, width, -1)
        other._csr = self._csr
        other.n = self.n if self.bias < 0 else self.n - 1
        if self.bias >= 0:
            other.set_bias(self.bias)
        return other


def _default_eps(solver):
    if solver in (solver_names.L2R_LR, solver_names.L2R_L2LOSS_SVC, solver_names.L1R_L2LOSS_SVC,
                  solver_names.L1R_LR, solver_names.ONECLASS_SVM):
        return 0.01
    if solver == solver_names.L2R_L2LOSS_SVR:
        return 0.0001
    return 0.1


# The Isolation Kernel's options in train's option string (as the train program reads them).
IK_OPTIONS = ('-k', '-t', '-g', '-r', '-S', '-a', '-d', '-m')


class parameter(Structure):
    _names = ['solver_type', 'eps', 'C', 'nr_weight', 'weight_label', 'weight', 'p', 'nu', 'init_sol',
              'regularize_bias', 'w_recalc']
    _types = [c_int, c_double, c_double, c_int, POINTER(c_int), POINTER(c_double), c_double, c_double,
              POINTER(c_double), c_int, c_bool]
    _fields_ = list(zip(_names, _types))

    def __init__(self, options=None):
        if options is None:
            options = ''
        self.parse_options(options)

    def __str__(self):
        # the C fields, then the Python-side options (bias, the flags, nr_fold, print_func)
        names = list(self._names) + [name for name, value in self.__dict__.items()
                                     if not name.startswith('_') and not (name == 'ik' and value is None)]
        return '\n'.join(' %s: %s' % (name, getattr(self, name)) for name in names).strip()

    def set_to_default_values(self):
        self.solver_type = solver_names.L2R_L2LOSS_SVC_DUAL
        self.eps = float('inf')
        self.C = 1
        self.p = 0.1
        self.nu = 0.5
        self.nr_weight = 0
        self.weight_label = None
        self.weight = None
        self.init_sol = None
        self.regularize_bias = 1
        self.w_recalc = False
        self.bias = -1
        self.flag_cross_validation = False
        self.flag_C_specified = False
        self.flag_p_specified = False
        self.flag_solver_specified = False
        self.flag_find_parameters = False
        self.nr_fold = 0
        self.print_func = _default_printer
        self.ik = None

    def parse_options(self, options):
        if isinstance(options, list):
            argv = options
        elif isinstance(options, str):
            argv = options.split()
        else:
            raise TypeError("arg 1 should be a list or a str.")
        self.set_to_default_values()
        self.print_func = _default_printer
        weight_label = []
        weight = []
        ik_argv = []
        position = 0
        while position < len(argv):
            option = argv[position]
            if option == '-s':
                position += 1
                value = int(argv[position])
                self.solver_type = value if value == ONLINE_OGD_HINGE else solver_names(value)
                self.flag_solver_specified = True
            elif option == '-c':
                position += 1
                self.C = float(argv[position])
                self.flag_C_specified = True
            elif option == '-p':
                position += 1
                self.p = float(argv[position])
                self.flag_p_specified = True
            elif option == '-n':
                position += 1
                self.nu = float(argv[position])
            elif option == '-e':
                position += 1
                self.eps = float(argv[position])
            elif option == '-B':
                position += 1
                self.bias = float(argv[position])
            elif option == '-v':
                position += 1
                self.flag_cross_validation = 1
                self.nr_fold = int(argv[position])
                if self.nr_fold < 2:
                    raise ValueError("n-fold cross validation: n must >= 2")
            elif option.startswith('-w'):
                position += 1
                weight_label.append(int(option[2:]))
                weight.append(float(argv[position]))
            elif option == '-q':
                self.print_func = _quiet_printer
            elif option == '-C':
                self.flag_find_parameters = True
            elif option == '-R':
                self.regularize_bias = 0
            elif option in IK_OPTIONS:
                position += 1
                ik_argv.append((option, argv[position]))
            else:
                raise ValueError("Wrong options")
            position += 1

        liblinear.set_print_string_function(self.print_func)
        self._weight_label = (c_int * len(weight_label))(*weight_label)
        self._weight = (c_double * len(weight))(*weight)
        self.nr_weight = len(weight_label)
        self.weight_label = cast(self._weight_label, POINTER(c_int))
        self.weight = cast(self._weight, POINTER(c_double))

        if self.flag_find_parameters:
            if not self.flag_cross_validation:
                self.nr_fold = 5
            if not self.flag_solver_specified:
                self.solver_type = solver_names.L2R_L2LOSS_SVC
                self.flag_solver_specified = True
            elif self.solver_type not in (solver_names.L2R_LR, solver_names.L2R_L2LOSS_SVC,
                                          solver_names.L2R_L2LOSS_SVR):
                raise ValueError("Warm-start parameter search only available for -s 0, -s 2 and -s 11")

        if self.eps == float('inf'):
            self.eps = _default_eps(self.solver_type)
        if self.solver_type == ONLINE_OGD_HINGE and not self.flag_C_specified:
            self.C = ONLINE_DEFAULT_ETA  # -c is eta for -s 30, default 0.5 as in the train program

        if ik_argv:
            from . import _ik
            self.ik = _ik.parse_kernel_options(ik_argv, self)


class model(Structure):
    _names = ['param', 'nr_class', 'nr_feature', 'w', 'label', 'bias', 'rho']
    _types = [parameter, c_int, c_int, POINTER(c_double), POINTER(c_int), c_double, c_double]
    _fields_ = list(zip(_names, _types))

    def __init__(self):
        self.__createfrom__ = 'python'

    def __del__(self):
        # A model made by the library is freed by it: upstream's struct by
        # liblinear.so.6, a lik_model (with its map) by the kernel's library.
        # No import here: __del__ may run while the interpreter shuts down.
        created = self.__dict__.get('__createfrom__')
        try:
            for name in ('_lik_assembled', '_lik_handle'):
                handle = self.__dict__.get(name)
                if handle is not None and handle.value and (name == '_lik_assembled' or created == 'lik'):
                    _kernel_library.lik_model_free(ctypes.byref(handle))
                    handle.value = None
            if created == 'C':
                liblinear.free_and_destroy_model(pointer(pointer(self)))
        except (AttributeError, TypeError):
            pass  # the module is being torn down: the process is ending
        self.__dict__['__createfrom__'] = 'freed'

    def get_nr_feature(self):
        return liblinear.get_nr_feature(self)

    def get_nr_class(self):
        return liblinear.get_nr_class(self)

    def get_labels(self):
        nr_class = self.get_nr_class()
        labels = (c_int * nr_class)()
        liblinear.get_labels(self, labels)
        return labels[:nr_class]

    def get_decfun_coef(self, feat_idx, label_idx=0):
        return liblinear.get_decfun_coef(self, feat_idx, label_idx)

    def get_decfun_bias(self, label_idx=0):
        return liblinear.get_decfun_bias(self, label_idx)

    def get_decfun_rho(self):
        return liblinear.get_decfun_rho(self)

    def get_decfun(self, label_idx=0):
        w = [liblinear.get_decfun_coef(self, feature, label_idx)
             for feature in range(1, self.get_nr_feature() + 1)]
        if self.is_oneclass_model():
            return (w, -self.get_decfun_rho())
        return (w, liblinear.get_decfun_bias(self, label_idx))

    def is_probability_model(self):
        return liblinear.check_probability_model(self) == 1

    def is_regression_model(self):
        return liblinear.check_regression_model(self) == 1

    def is_oneclass_model(self):
        return liblinear.check_oneclass_model(self) == 1

    # ---- beyond upstream: the Isolation Kernel, pickling ----
    def is_ik_model(self):
        """True for a -k model (it carries its map)."""
        return getattr(self, '_ik_map', None) is not None

    def get_ik_map(self):
        """The model's Isolation Kernel map (an IKMap), or None for a plain model."""
        return getattr(self, '_ik_map', None)

    def __reduce__(self):
        from . import _ik
        return (_ik.model_from_bytes, (_ik.model_to_bytes(self),))


def toPyModel(model_ptr):
    """
    toPyModel(model_ptr) -> model

    Convert a ctypes POINTER(model) to a Python model
    """
    if not bool(model_ptr):
        raise ValueError("Null pointer")
    m = model_ptr.contents
    m.__createfrom__ = 'C'
    return m


_prototype(liblinear.train, POINTER(model), [POINTER(problem), POINTER(parameter)])
_prototype(liblinear.find_parameters, None,
           [POINTER(problem), POINTER(parameter), c_int, c_double, c_double, POINTER(c_double),
            POINTER(c_double), POINTER(c_double)])
_prototype(liblinear.cross_validation, None, [POINTER(problem), POINTER(parameter), c_int, POINTER(c_double)])
_prototype(liblinear.predict_values, c_double, [POINTER(model), POINTER(feature_node), POINTER(c_double)])
_prototype(liblinear.predict, c_double, [POINTER(model), POINTER(feature_node)])
_prototype(liblinear.predict_probability, c_double, [POINTER(model), POINTER(feature_node), POINTER(c_double)])
_prototype(liblinear.save_model, c_int, [c_char_p, POINTER(model)])
_prototype(liblinear.load_model, POINTER(model), [c_char_p])
_prototype(liblinear.get_nr_feature, c_int, [POINTER(model)])
_prototype(liblinear.get_nr_class, c_int, [POINTER(model)])
_prototype(liblinear.get_labels, None, [POINTER(model), POINTER(c_int)])
_prototype(liblinear.get_decfun_coef, c_double, [POINTER(model), c_int, c_int])
_prototype(liblinear.get_decfun_bias, c_double, [POINTER(model), c_int])
_prototype(liblinear.get_decfun_rho, c_double, [POINTER(model)])
_prototype(liblinear.free_model_content, None, [POINTER(model)])
_prototype(liblinear.free_and_destroy_model, None, [POINTER(POINTER(model))])
_prototype(liblinear.destroy_param, None, [POINTER(parameter)])
_prototype(liblinear.check_parameter, c_char_p, [POINTER(problem), POINTER(parameter)])
_prototype(liblinear.check_probability_model, c_int, [POINTER(model)])
_prototype(liblinear.check_regression_model, c_int, [POINTER(model)])
_prototype(liblinear.check_oneclass_model, c_int, [POINTER(model)])
_prototype(liblinear.set_print_string_function, None, [PRINT_STRING_FUN])
