"""train, predict, load_model, save_model: upstream LIBLINEAR 2.50's
`liblinear.liblinearutil`, same names, arguments, printed lines and
results, plus the Isolation Kernel and the minmax and acos kernels (-k and
its options in train's option string; -k models predict, save, load and pickle like plain ones).

predict converts the rows once (numpy, no Python loop per row for numpy or
scipy input) and predicts them all in one call into the C library when the
kernel's library is there (lik_predict_rows); otherwise row by row.
"""
import numpy as np

from . import liblinear as _core
from .commonutil import *  # noqa: F401,F403 (upstream re-exports these)
from .commonutil import __all__ as common_all
from .commonutil import evaluations
from .liblinear import *  # noqa: F401,F403
from .liblinear import __all__ as liblinear_all
from .liblinear import (ONLINE_OGD_HINGE, NodeRows, c_double, feature_node, liblinear, model, parameter,
                        print_null, problem, rows_to_csr, solver_names, toPyModel)

# upstream's names exactly (test_compat checks them): online_update and train_from, ours, are
# imported by name (from liblinear.liblinearutil import online_update, train_from)
__all__ = ['load_model', 'save_model', 'train', 'predict'] + liblinear_all + common_all

_REGRESSION_SOLVERS = (solver_names.L2R_L2LOSS_SVR, solver_names.L2R_L2LOSS_SVR_DUAL,
                       solver_names.L2R_L1LOSS_SVR_DUAL)


def load_model(model_file_name):
    """
    load_model(model_file_name) -> model

    Load a LIBLINEAR model from model_file_name and return. A model saved
    with its Isolation Kernel map (MODEL and MODEL.ik) is loaded with it.
    """
    from . import _ik
    if _ik.available():
        return _ik.load_model(model_file_name)
    loaded = liblinear.load_model(model_file_name.encode())
    if not loaded:
        print("can't open model file %s" % model_file_name)
        return None
    return toPyModel(loaded)


def save_model(model_file_name, model):
    """
    save_model(model_file_name, model) -> None

    Save a LIBLINEAR model to the file model_file_name (and its Isolation
    Kernel map to model_file_name + '.ik' for a -k model).
    """
    from . import _ik
    if _ik.available():
        return _ik.save_model(model_file_name, model)
    liblinear.save_model(model_file_name.encode(), model)


def _is_rows(x):
    return isinstance(x, (list, tuple, np.ndarray)) or _core._is_sparse(x)


def train(arg1, arg2=None, arg3=None):
    """
    train(y, x [, options]) -> model | ACC
    train(prob [, options]) -> model | ACC
    train(prob, param) -> model | ACC

    Train a model from data (y, x) or a problem prob using
    'options' or a parameter param.

    If '-v' is specified in 'options' (i.e., cross validation)
    either accuracy (ACC) or mean-squared error (MSE) is returned.
    If '-C' is specified, (best C, best p, best score) is returned.

    options:
        -s type : set type of solver (default 1), as the train program
        -c cost, -p epsilon, -n nu, -e epsilon, -B bias, -R, -wi weight,
        -v n, -C, -q : as the train program
        -k 1|anne|2|iforest|3|minmax|4|acos, -t, -g, -r, -S 0|1|2|3|4, -d, -m : the kernel map,
            as train -k (minmax: -g 2^b, a power of two 16..65536, default 256; acos: no -g;
            -S: 0 none, 1 max-abs, 2 min-max, 3 standard deviation, 4 log1p then max-abs;
            -S 4 refuses negative values, and minmax does without -S 2); -C -k minmax searches 2^b in 16, 64, ..., 4096 and C, -C -k acos C
        -s 30 : online gradient descent (hinge loss; IK-OGD with -k), one pass in row order;
            -c is its learning rate eta (default 0.5). More passes, updates by new rows and
            training from a model: online_update and train_from.
    """
    prob = param = None
    if isinstance(arg1, (list, tuple, np.ndarray)):
        if not _is_rows(arg2):
            raise TypeError("Wrong types for the arguments")
        prob = problem(arg1, arg2)
        param = parameter(arg3)
    elif isinstance(arg1, problem):
        prob = arg1
        param = arg2 if isinstance(arg2, parameter) else parameter(arg2)
    if prob is None or param is None:
        raise TypeError("Wrong types for the arguments")

    from . import _ik
    # -s 30 trains through the kernel's library even without -k: its model is then the library's,
    # which online_update changes in place (upstream's path would give a struct it cannot grow)
    if getattr(param, 'ik', None) is not None or (param.solver_type == ONLINE_OGD_HINGE and _ik.available()):
        return _ik.train(prob, param)

    prob.set_bias(param.bias)
    liblinear.set_print_string_function(param.print_func)
    problem_message = liblinear.check_parameter(prob, param)
    if problem_message:
        raise ValueError('Error: %s' % problem_message)

    if param.flag_find_parameters:
        start_C = param.C if param.flag_C_specified else -1.0
        start_p = param.p if param.flag_p_specified else -1.0
        best_C, best_p, best_score = c_double(), c_double(), c_double()
        liblinear.find_parameters(prob, param, param.nr_fold, start_C, start_p, best_C, best_p, best_score)
        return report_parameter_search(param.solver_type, best_C.value, best_p.value, best_score.value)
    if param.flag_cross_validation:
        target = (c_double * max(prob.l, 1))()
        liblinear.cross_validation(prob, param, param.nr_fold, target)
        return report_cross_validation(param.solver_type, prob.y[:prob.l], target[:prob.l])
    trained = liblinear.train(prob, param)
    if not trained:
        # the library printed why (e.g. a label that is not a number); no model to wrap
        raise ValueError("train: LIBLINEAR returned no model (invalid labels or out of memory)")
    return toPyModel(trained)


def online_update(m, y, x, options=''):
    """
    online_update(m, y, x [, options]) -> m

    Updates the -s 30 model m in place by the rows x with labels y, in
    order: each row is scored and, on a hinge loss, its (mapped) features
    are added to the weights times eta * y (the online solver, train -s 30;
    C: lik_online_update). A label or (plain model) feature that m lacks
    joins with zero weights. m must be this package's own model: trained
    by train() with -s 30, loaded by load_model() or unpickled.

    options:
        -c eta : the learning rate (default 0.5, as train -s 30)
        -wi weight : eta times weight for label i
        -P passes : passes over the rows (default 1)
        -d auto|cpu|gpu, -m threads : where a -k model maps the rows (never changes the result)
        -q : quiet
    """
    from . import _ik
    return _ik.online_update(m, y, x, options)


def train_from(m, y, x, options=''):
    """
    train_from(m, y, x [, options]) -> model

    A new model trained on (y, x) starting from the model m, which is not
    changed (train -i; C: lik_train_from). -s 30 goes on where m stopped
    (as online_update on a copy); -s 0, 2 and 11 start Newton from m's
    weights (the data must have exactly m's labels and, for a plain model,
    no feature above its own). A -k model's map is reused, never rebuilt.

    options: as train's, where -s and -B default to m's and must fit it;
    -c (eta for -s 30, default 0.5; C otherwise, default 1), -e, -wi, -R,
    -q; -P passes (-s 30); -d and -m as online_update's. The kernel's
    options (-k -t -g -r -S) are refused: the map is m's.
    """
    from . import _ik
    return _ik.train_from(m, y, x, options)


def report_parameter_search(solver, best_C, best_p, best_score, best_psi=None):
    """Prints the search's result as upstream's train() does and returns (C, p, score)."""
    psi_text = '' if best_psi is None else 'Best psi = %d  ' % best_psi
    if solver in (solver_names.L2R_LR, solver_names.L2R_L2LOSS_SVC):
        print("%sBest C = %g  CV accuracy = %g%%\n" % (psi_text, best_C, 100.0 * best_score))
    elif solver == solver_names.L2R_L2LOSS_SVR:
        print("%sBest C = %g Best p = %g  CV MSE = %g\n" % (psi_text, best_C, best_p, best_score))
    return best_C, best_p, best_score


def report_cross_validation(solver, truth, target):
    """Prints cross-validation's result as upstream's train() does and returns ACC or MSE."""
    accuracy, squared_error, correlation = evaluations(truth, target)
    if solver in _REGRESSION_SOLVERS:
        print("Cross Validation Mean squared error = %g" % squared_error)
        print("Cross Validation Squared correlation coefficient = %g" % correlation)
        return squared_error
    print("Cross Validation Accuracy = %g%%" % accuracy)
    return accuracy


def _predict_row_by_row(m, nodes, probability, nr_outputs):
    """Upstream's way: one call per row (when the kernel's library is missing)."""
    labels = []
    values = []
    buffer = (c_double * max(m.get_nr_class(), 1))()
    for i in range(nodes.count):
        row = nodes.row(i)
        if probability:
            label = liblinear.predict_probability(m, row, buffer)
        else:
            label = liblinear.predict_values(m, row, buffer)
        labels.append(label)
        values.append(buffer[:nr_outputs])
    return labels, values


def predict(y, x, m, options=""):
    """
    predict(y, x, m [, options]) -> (p_labels, p_acc, p_vals)

    Predict data (y, x) with the SVM model m.
    options:
        -b probability_estimates: whether to output probability estimates, 0 or 1 (default 0);
            currently for logistic regression only
        -q quiet mode (no outputs)

    The return tuple contains
    p_labels: a list of predicted labels
    p_acc: a tuple including  accuracy (for classification), mean-squared
           error, and squared correlation coefficient (for regression).
    p_vals: a list of decision values or probability estimates (if '-b 1'
            is specified). If k is the number of classes, for decision values,
            each element includes results of predicting k binary-class
            SVMs. if k = 2 and solver is not MCSVM_CS, only one decision value
            is returned. For probabilities, each element contains k values
            indicating the probability that the testing instance is in each class.
            Note that the order of classes here is the same as 'model.label'
            field in the model structure.
    """
    def info(line):
        print(line)

    if not (isinstance(x, (list, tuple, np.ndarray)) or _core._is_sparse(x)):
        raise TypeError("type of x: {0} is not supported!".format(type(x)))
    if not isinstance(y, (list, tuple, np.ndarray)):
        raise TypeError("type of y: {0} is not supported!".format(type(y)))

    probability = 0
    argv = options.split()
    position = 0
    while position < len(argv):
        if argv[position] == '-b':
            position += 1
            probability = int(argv[position])
        elif argv[position] == '-q':
            info = print_null
        else:
            raise ValueError("Wrong options")
        position += 1

    nr_class = m.get_nr_class()
    nr_feature = m.get_nr_feature()
    if probability and not m.is_probability_model():
        raise TypeError('probability output is only supported for logistic regression')
    # upstream returns one decision value for two classes, nr_class otherwise
    nr_outputs = nr_class if (probability or nr_class > 2) else 1

    from . import _ik
    if m.is_ik_model():
        labels, values = _ik.predict_raw(m, x, probability, nr_outputs)
    else:
        indptr, index, value, _ = rows_to_csr(x, feature_max=nr_feature)
        nodes = NodeRows(indptr, index, value)
        if m.bias >= 0:
            nodes.set_bias_node(nr_feature + 1, m.bias)
        if _ik.available():
            labels, values = _ik.predict_nodes(m, nodes, probability, nr_outputs)
        else:
            labels, values = _predict_row_by_row(m, nodes, probability, nr_outputs)

    count = len(labels)
    if len(y) == 0:
        y = [0] * count
    accuracy, squared_error, correlation = evaluations(y, labels)
    if m.is_regression_model():
        info("Mean squared error = %g (regression)" % squared_error)
        info("Squared correlation coefficient = %g (regression)" % correlation)
    else:
        info("Accuracy = %g%% (%d/%d) (classification)" % (accuracy, int(round(count * accuracy / 100)), count))
    return labels, (accuracy, squared_error, correlation), values
