"""Our package against liblinear-official 2.50: the same snippet runs in the
oracle's environment and in ours (conftest.Both), and what each printed and
returned is compared.

Identical: printed lines of predict, returned labels and (ACC, MSE, SCC),
exceptions (type and message), readers, evaluations, scaling, model queries.
Within the solvers' tolerance: weights and decision values (the Newton
solvers -s 0, 2, 11 are deterministic: tight; the randomized solvers draw
their permutations from our seeded generator instead of rand(), README
"Differences": accuracy within a few points, same shapes). -v and -C split
random folds, so their lines are compared in format and their values in
plausibility.
"""
import re

import pytest

from compare import assert_close, shape_of_text

PRELUDE = """
from liblinear.liblinearutil import *
import liblinear.liblinear as L
import numpy as np, scipy.sparse as sp
y, x = svm_read_problem(DATA['heart'])
ys, xs = svm_read_problem(DATA['heart'], return_scipy=True)
"""


def run(both, code):
    return both.run(PRELUDE + code)


@pytest.mark.parametrize("options", ["-s 0", "-s 2", "-s 0 -B 1", "-s 2 -c 4 -B 1 -R", "-s 2 -w1 3 -w-1 0.5",
                                     "-s 11", "-s 11 -p 0.3 -B 1", "-s 0 -e 0.0001"])
def test_newton_solvers_predict_identically(both, options):
    (up, up_out), (ours, our_out) = run(both, """
m = train(y[:200], x[:200], %r)
r = predict(y[200:], x[200:], m)
emit('labels', r[0]); emit('acc', r[1]); emit('values', r[2])
emit('nr_feature', m.get_nr_feature()); emit('nr_class', m.get_nr_class()); emit('labels_of_model', m.get_labels())
emit('w', m.get_decfun()[0]); emit('b', m.get_decfun()[1])
emit('flags', [m.is_probability_model(), m.is_regression_model(), m.is_oneclass_model()])
if m.is_probability_model():
    r = predict(y[200:], x[200:], m, '-b 1')
    emit('prob_labels', r[0]); emit('prob', r[2])
""" % (options + " -q"))
    assert our_out == up_out
    assert re.search(r"(Accuracy = [0-9.]+% \(\d+/70\) \(classification\)|Mean squared error = .* \(regression\))",
                     our_out)
    if "-s 11" in options:  # regression: the labels are the predicted values
        assert_close(up["labels"], ours["labels"], rel=1e-6, abs_=1e-8)
    else:
        assert ours["labels"] == up["labels"]
    assert ours["nr_feature"] == up["nr_feature"] and ours["nr_class"] == up["nr_class"]
    assert ours["labels_of_model"] == up["labels_of_model"] and ours["flags"] == up["flags"]
    assert_close(up["acc"], ours["acc"], rel=1e-12)
    assert_close(up["values"], ours["values"], rel=1e-6, abs_=1e-8)
    assert_close(up["w"], ours["w"], rel=1e-6, abs_=1e-8)
    assert_close(up["b"], ours["b"], rel=1e-6, abs_=1e-8)
    if "prob" in up:
        assert ours["prob_labels"] == up["prob_labels"]
        assert_close(up["prob"], ours["prob"], rel=1e-6, abs_=1e-9)


@pytest.mark.parametrize("options", ["-s 0", "-s 2", "-s 0 -B 1", "-s 4", "-s 1"])
def test_multiclass(both, options):
    """vowel (11 classes): one value per class, labels in the model's order."""
    (up, up_out), (ours, our_out) = both.run("""
from liblinear.liblinearutil import *
y, x = svm_read_problem(DATA['vowel'])
m = train(y[::2], x[::2], %r)
r = predict(y[1::2], x[1::2], m)
emit('labels', r[0]); emit('acc', r[1]); emit('values', r[2]); emit('model_labels', m.get_labels())
emit('nr_class', m.get_nr_class())
""" % (options + " -q"))
    assert ours["model_labels"] == up["model_labels"] and ours["nr_class"] == up["nr_class"] == 11
    assert len(ours["values"][0]) == len(up["values"][0]) == 11
    if options in ("-s 0", "-s 2", "-s 0 -B 1"):
        assert our_out == up_out
        assert ours["labels"] == up["labels"]
        assert_close(up["values"], ours["values"], rel=1e-5, abs_=1e-7)
    else:
        assert shape_of_text(our_out) == shape_of_text(up_out)
        assert abs(ours["acc"][0] - up["acc"][0]) <= 5.0


@pytest.mark.parametrize("solver", [1, 3, 4, 5, 6, 7, 12, 13, 21])
def test_randomized_solvers(both, solver):
    """Their permutations come from our seeded generator: same shapes, accuracy within a few points."""
    (up, up_out), (ours, our_out) = run(both, """
m = train(y[:200], x[:200], '-s %d -q')
r = predict(y[200:], x[200:], m)
emit('acc', r[1]); emit('nvalues', [len(v) for v in r[2]]); emit('nr_feature', m.get_nr_feature())
emit('flags', [m.is_probability_model(), m.is_regression_model(), m.is_oneclass_model()])
""" % solver)
    assert shape_of_text(our_out) == shape_of_text(up_out)
    assert ours["nvalues"] == up["nvalues"] and ours["nr_feature"] == up["nr_feature"]
    assert ours["flags"] == up["flags"]
    if solver in (12, 13):
        assert abs(ours["acc"][1] - up["acc"][1]) <= 0.1 * up["acc"][1] + 0.02
    else:
        assert abs(ours["acc"][0] - up["acc"][0]) <= 6.0


def test_one_class_rho_and_decfun(both):
    (up, _), (ours, _) = run(both, """
m = train(y, x, '-s 21 -q -e 0.0001')
emit('rho', m.get_decfun_rho()); emit('decfun_b', m.get_decfun()[1]); emit('labels', m.get_labels())
""")
    assert ours["labels"] == up["labels"]
    assert_close(up["rho"], ours["rho"], rel=1e-2, abs_=1e-3)
    assert_close(up["decfun_b"], ours["decfun_b"], rel=1e-2, abs_=1e-3)


@pytest.mark.parametrize("options,regression", [("-v 5", False), ("-s 0 -v 3", False), ("-s 11 -v 5", True),
                                                ("-s 12 -v 4", True)])
def test_cross_validation_line_and_value(both, options, regression):
    (up, up_out), (ours, our_out) = run(both, "emit('cv', train(y, x, %r))" % (options + " -q"))
    assert shape_of_text(our_out) == shape_of_text(up_out)
    if regression:
        assert re.fullmatch(r"Cross Validation Mean squared error = \S+\n"
                            r"Cross Validation Squared correlation coefficient = \S+\n", our_out)
        assert abs(ours["cv"] - up["cv"]) <= 0.1 * up["cv"]
    else:
        assert re.fullmatch(r"Cross Validation Accuracy = \S+%\n", our_out)
        assert our_out == "Cross Validation Accuracy = %g%%\n" % ours["cv"]
        assert abs(ours["cv"] - up["cv"]) <= 5.0


@pytest.mark.parametrize("options", ["-C", "-C -s 0", "-C -s 11", "-C -s 2 -c 0.5", "-C -v 3"])
def test_parameter_search_line_and_result(both, options):
    (up, up_out), (ours, our_out) = run(both, "emit('best', train(y, x, %r))" % (options + " -q"))
    assert shape_of_text(our_out) == shape_of_text(up_out)
    assert len(ours["best"]) == len(up["best"]) == 3
    if "-s 11" in options:
        C, p, score = ours["best"]
        assert our_out == "Best C = %g Best p = %g  CV MSE = %g\n\n" % (C, p, score)
    else:
        C, p, score = ours["best"]
        assert p == up["best"][1] == -1.0
        assert our_out == "Best C = %g  CV accuracy = %g%%\n\n" % (C, 100.0 * score)
        assert abs(score - up["best"][2]) <= 0.05


def test_training_progress_lines(both):
    """Without -q the solver's lines reach stdout (Newton: the same iterations)."""
    (up, up_out), (ours, our_out) = run(both, "m = train(y, x, '-s 2')")
    assert our_out == up_out
    assert "iter" in our_out


INPUT_TYPES = """
dense = xs.toarray()
makers = {
    'dicts': lambda d: [{j + 1: v for j, v in enumerate(r) if v != 0} for r in d],
    'lists': lambda d: [list(r) for r in d], 'tuple_of_lists': lambda d: tuple(list(r) for r in d),
    'numpy': lambda d: d, 'numpy_f32': lambda d: d.astype(np.float32), 'numpy_fortran': np.asfortranarray,
    'csr': sp.csr_matrix, 'csc': sp.csc_matrix, 'coo': sp.coo_matrix, 'y_numpy': None,
}
for name, make in makers.items():
    labels = np.array(y) if name == 'y_numpy' else y
    train_rows, test_rows = (x[:150], x[150:]) if make is None else (make(dense[:150]), make(dense[150:]))
    m = train(labels[:150], train_rows, '-s 2 -B 1 -q')
    r = predict(labels[150:], test_rows, m, '-q')
    emit(name, [m.get_decfun()[0], r[0], r[1], r[2]])
"""


def test_input_types(both):
    """Every input type upstream takes gives upstream's model and predictions."""
    (up, _), (ours, _) = run(both, INPUT_TYPES)
    for name in up:
        assert ours[name][1] == up[name][1], name
        assert_close(up[name], ours[name], rel=1e-6, abs_=1e-8, path=name)
    # and all types agree with each other (dicts as the reference)
    for name in ours:
        assert ours[name][1] == ours["dicts"][1], name


def test_sparse_arrays_and_mixed_rows_are_ours_too(both):
    """scipy's sparse arrays (csr_array, ...) are accepted (upstream raises TypeError): same results as matrices."""
    (up, _), (ours, _) = run(both, """
dense = xs.toarray()
m = train(y[:150], sp.csr_matrix(dense[:150]), '-s 0 -q')
emit('matrix', predict(y[150:], sp.csr_matrix(dense[150:]), m, '-b 1 -q'))
for name, make in (('csr_array', sp.csr_array), ('csc_array', sp.csc_array), ('coo_array', sp.coo_array)):
    if hasattr(sp, name):
        def go():
            m2 = train(y[:150], make(dense[:150]), '-s 0 -q')
            return predict(y[150:], make(dense[150:]), m2, '-b 1 -q')
        attempt(name, go)
""")
    for name in ("csr_array", "csc_array", "coo_array"):
        assert up[name]["raised"] in ("TypeError", "AssertionError")
        assert_close(ours["matrix"], ours[name]["returned"], rel=1e-12, abs_=1e-14)
    assert_close(up["matrix"], ours["matrix"], rel=1e-6, abs_=1e-9)


def test_predict_features_beyond_the_model_and_empty_y(both):
    (up, up_out), (ours, our_out) = run(both, """
m = train(y[:100], x[:100], '-s 2 -B 1 -q')
wide = [{**r, 20: 5.0, 13: 1.0} for r in x[100:110]]
emit('wide', predict(y[100:110], wide, m))
emit('wide_numpy', predict(y[100:110], np.hstack([xs[100:110].toarray(), np.ones((10, 7))]), m))
emit('wide_csr', predict(y[100:110], sp.hstack([xs[100:110], sp.csr_matrix(np.ones((10, 7)))]).tocsr(), m))
emit('empty_y', predict([], x[100:105], m))
attempt('empty_x', lambda: predict([], [], m, '-q')[0])
""")
    assert our_out == up_out
    assert_close(up, ours, rel=1e-6, abs_=1e-8)


ERRORS = """
m = train(y[:100], x[:100], '-s 2 -q')
m1 = train(y[:100], x[:100], '-s 1 -q')
attempt('bad_option', lambda: train(y, x, '-z 3'))
attempt('bad_solver', lambda: train(y, x, '-s 9'))
attempt('bad_C', lambda: train(y, x, '-c -1'))
attempt('bad_C_text', lambda: train(y, x, '-c abc'))
attempt('bad_eps', lambda: train(y, x, '-e -1'))
attempt('bad_p', lambda: train(y, x, '-s 11 -p -1'))
attempt('R_with_dual', lambda: train(y, x, '-s 1 -R'))
attempt('missing_value', lambda: train(y, x, '-c'))
attempt('len_mismatch', lambda: train(y[:3], x[:4]))
attempt('v1', lambda: train(y, x, '-v 1'))
attempt('C_with_s5', lambda: train(y, x, '-C -s 5'))
attempt('C_with_s1', lambda: train(y, x, '-C -s 1'))
attempt('wrong_types', lambda: train(3))
attempt('wrong_types2', lambda: train(L.problem(y, x), 3))
attempt('pred_bad_option', lambda: predict(y, x, m, '-z'))
attempt('pred_b_not_lr', lambda: predict(y, x, m1, '-b 1'))
attempt('pred_y_len', lambda: predict(y[:2], x[:3], m, '-q'))
attempt('pred_x_type', lambda: predict(y, 'abc', m))
attempt('pred_y_type', lambda: predict('abc', x, m))
attempt('gfn_str', lambda: L.gen_feature_nodearray('abc'))
attempt('gfn_sparse', lambda: L.gen_feature_nodearray(sp.csr_matrix([[0, 1.0]])))
attempt('prob_y_len', lambda: L.problem(y[:3], x))
attempt('prob_1d', lambda: L.problem(y, np.zeros(270)))
attempt('prob_str', lambda: L.problem(y, 'abc'))
attempt('prob_y_type', lambda: L.problem('abc', x))
attempt('param_type', lambda: L.parameter(3))
attempt('eval_len', lambda: evaluations([1, 2], [1, 2, 4]))
attempt('read_missing', lambda: svm_read_problem('/nonexistent/file'))
open(TMP + '/bad.txt', 'w').write('1 1:2 x\\n')
attempt('read_bad', lambda: svm_read_problem(TMP + '/bad.txt'))
open(TMP + '/bad2.txt', 'w').write('1 1:2\\n\\n')
attempt('read_empty_line', lambda: svm_read_problem(TMP + '/bad2.txt'))
attempt('scale_not_csr', lambda: csr_find_scale_param(np.array([[1.0, 2.0]])))
attempt('scale_bounds', lambda: csr_find_scale_param(sp.csr_matrix([[1.0]]), lower=1, upper=0))
attempt('load_missing', lambda: load_model('no-such-model'))
attempt('rho_of_svc', lambda: m.get_decfun_rho())
m21 = train(y, x, '-s 21 -q')
attempt('bias_of_oneclass', lambda: m21.get_decfun_bias())
attempt('coef_out_of_range', lambda: [m.get_decfun_coef(0), m.get_decfun_coef(14), m.get_decfun_coef(1, 5)])
"""


def test_errors_are_upstream_s(both):
    """Bad input raises what upstream raises, with its message (or returns what it returns)."""
    (up, up_out), (ours, our_out) = run(both, ERRORS)
    assert sorted(up) == sorted(ours)
    for key in up:
        assert ours[key] == up[key], "%s: upstream %r, ours %r" % (key, up[key], ours[key])
    assert our_out == up_out
    # the library's own complaints (get_decfun_rho of an SVC, ...) on stderr, the same lines
    assert both.our_stderr == both.upstream_stderr
    assert "ERROR: get_decfun_rho can be called only for a one-class SVM model" in both.our_stderr


def test_nu_is_checked(capfd):
    """A deliberate difference (README): upstream trains -s 21 with nu outside (0, 1] (and corrupts
    memory for nu > 1); our check_parameter refuses it, and train raises as for any bad parameter."""
    import liblinear.liblinearutil as U
    for nu in ("0", "2", "-0.5"):
        with pytest.raises(ValueError, match=r"^Error: b'nu <= 0 or nu > 1'$"):
            U.train([1, -1], [{1: 1}, {1: -1}], "-s 21 -q -n " + nu)


def test_readers_evaluations_and_scaling(both):
    (up, _), (ours, _) = both.run("""
from liblinear.commonutil import *
import numpy as np, scipy.sparse as sp, io
for name in ('heart', 'dna.test'):
    emit(name + '_dicts', svm_read_problem(DATA[name]))
    yy, xx = svm_read_problem(DATA[name], return_scipy=True)
    emit(name + '_scipy', [yy, xx.shape, xx.indptr, xx.indices, xx.data, type(xx).__name__, str(xx.dtype)])
    emit(name + '_scale', {k: v for k, v in csr_find_scale_param(xx).items()})
    emit(name + '_scale0', {k: v for k, v in csr_find_scale_param(xx, lower=0).items()})
    scaled = csr_scale(xx, csr_find_scale_param(xx, lower=0))
    emit(name + '_scaled', [type(scaled).__name__, scaled.toarray()])
open(TMP + '/z.txt', 'w').write('1 1:0 3:2\\n-1\\n2 2:1.5 5:0\\n')
emit('zeros_dicts', svm_read_problem(TMP + '/z.txt'))
yy, xx = svm_read_problem(TMP + '/z.txt', return_scipy=True)
emit('zeros_scipy', [yy, xx.shape, xx.toarray()])
emit('file_object', svm_read_problem(open(TMP + '/z.txt')))
emit('string_io', svm_read_problem(io.StringIO('1 1:2\\n-1 3:4\\n')))
emit('eval_lists', evaluations([1, 2, 3], [1, 2, 4]))
emit('eval_numpy', evaluations(np.array([1, 2, 3.]), np.array([1, 2, 4.])))
emit('eval_no_scipy', evaluations([1, 2, 3], [1, 2, 4], useScipy=False))
emit('eval_constant', evaluations([1, 1], [1, 1]))
emit('eval_types', [type(v).__name__ for v in evaluations([1, 2, 3], [1, 2, 4])])
x = sp.csr_matrix([[1., 0, 2], [3, 0, -4], [0, 0, 5]])
emit('scale_small', csr_find_scale_param(x, lower=-1, upper=2))
emit('scaled_small', csr_scale(x, csr_find_scale_param(x)).toarray())
""")
    assert_close(up, ours, rel=1e-12, abs_=1e-15)


def test_scaling_warnings(both):
    (up, up_out), (ours, our_out) = both.run("""
import sys
from liblinear.commonutil import *
import scipy.sparse as sp
x = sp.csr_matrix([[1., 0, 2], [3, 0, -4], [0, 0, 5]])
old = sys.stderr
sys.stderr = sys.stdout
try:
    emit('grown', csr_scale(x, csr_find_scale_param(x)).nnz)
finally:
    sys.stderr = old
""")
    assert our_out == up_out and ours == up
    assert "WARNING: original #nonzeros 5" in our_out


def test_gen_feature_nodearray_and_problem(both):
    (up, _), (ours, _) = run(both, """
def nodes(arg, **kw):
    a, largest = L.gen_feature_nodearray(arg, **kw)
    return [[(n.index, n.value) for n in a], int(largest), len(a)]
emit('dict', nodes({3: 1.5, 1: 0, 2: 2}))
emit('dict_max', nodes({3: 1.5, 1: 0, 2: 2, 7: 1}, feature_max=3))
emit('list', nodes([0, 1.5, 0, 2]))
emit('tuple', nodes((0, 1.5, 0, 2)))
emit('numpy', nodes(np.array([0, 1.5, 0, 2])))
emit('pair', nodes((np.array([0, 2]), np.array([1.0, 3.0]))))
emit('empty', nodes({}))
emit('str', str(L.gen_feature_nodearray({2: 0.5})[0][0]))
for name, rows in (('dicts', x), ('dense', xs.toarray()), ('csr', xs), ('wide_csr', sp.hstack([xs, sp.csr_matrix((270, 3))]).tocsr())):
    p = L.problem(y, rows)
    first = []
    i = 0
    while p.x[0][i].index != -1:
        first.append((p.x[0][i].index, p.x[0][i].value)); i += 1
    p.set_bias(1)
    with_bias = (p.n, p.bias, p.x[0][i].index, p.x[0][i].value, p.x[0][i + 1].index)
    p.set_bias(-1)
    emit(name, [p.l, p.n, list(p.y[:5]), first, with_bias, p.bias])
p = L.problem(y, x, bias=2)
emit('bias_arg', [p.n, p.bias])
for opts in ('', '-s 0 -c 2 -e 0.5', '-s 11 -p 0.2 -B 1', '-w1 2 -w-1 0.5 -q', '-C', '-C -s 0 -v 3', '-s 21 -n 0.3', '-R -s 2'):
    q = L.parameter(opts)
    emit('param ' + opts, [q.solver_type, q.eps, q.C, q.nr_weight, q.weight_label[:q.nr_weight], q.weight[:q.nr_weight],
         q.p, q.nu, q.regularize_bias, q.bias, bool(q.flag_cross_validation), q.nr_fold, q.flag_find_parameters,
         q.flag_C_specified, q.flag_p_specified, q.flag_solver_specified])
import re
for opts in ('', '-c 2 -w1 3 -B 1 -v 4', '-C -s 0 -q'):
    emit('param_str ' + opts, re.sub('0x[0-9a-f]+', 'ADDRESS', str(L.parameter(opts))))
emit('solver_names', [(s.name, int(s)) for s in L.solver_names])
emit('all', sorted(L.__all__))
import liblinear.liblinearutil as U, liblinear.commonutil as C
emit('all_util', sorted(U.__all__)); emit('all_common', sorted(C.__all__))
""")
    assert_close(up, ours, rel=0, abs_=0)


def test_model_files_cross_load(both):
    """A model saved by either package loads in the other and predicts the same."""
    (up, up_out), (ours, our_out) = run(both, """
import os
m = train(y[:200], x[:200], '-s 0 -B 1 -q')
save_model(TMP + '/m.model', m)
emit('saved', open(TMP + '/m.model').read())
emit('reloaded', predict(y[200:], x[200:], load_model(TMP + '/m.model'), '-b 1'))
""")
    assert our_out == up_out
    # the same header; weights within the Newton tolerance
    up_lines, our_lines = up["saved"].splitlines(), ours["saved"].splitlines()
    assert our_lines[:our_lines.index("w") + 1] == up_lines[:up_lines.index("w") + 1]
    assert_close([float(v) for v in up_lines[up_lines.index("w") + 1:]],
                 [float(v) for v in our_lines[our_lines.index("w") + 1:]], rel=1e-6, abs_=1e-8)
    assert_close(up["reloaded"], ours["reloaded"], rel=1e-6, abs_=1e-9)


def test_upstream_model_file_loads_in_ours(both, tmp_path):
    (up, _), _ = run(both, """
m = train(y, x, '-s 1 -q')
save_model(TMP + '/up.model', m)
emit('pred', predict(y, x, m, '-q'))
emit('path', TMP + '/up.model')
""")
    from liblinear.liblinearutil import load_model, predict, svm_read_problem
    yy, xx = svm_read_problem(both.data["heart"])
    m = load_model(up["path"])
    assert m is not None
    labels, acc, values = predict(yy, xx, m, "-q")
    assert labels == up["pred"][0]
    assert_close(up["pred"][2], [list(v) for v in values], rel=1e-12, abs_=1e-14)


def test_python_model_predicted_by_the_program(data, programs, tmp_path, capfd):
    """A model saved from Python: ./predict prints the same line and the same labels."""
    import subprocess
    from liblinear.liblinearutil import predict, save_model, svm_read_problem, train
    y, x = svm_read_problem(data["dna.train"])
    yt, xt = svm_read_problem(data["dna.test"])
    m = train(y, x, "-s 0 -c 0.1 -q")
    save_model(str(tmp_path / "dna.model"), m)
    capfd.readouterr()
    labels, acc, probabilities = predict(yt, xt, m, "-b 1")
    printed = capfd.readouterr().out
    run = subprocess.run([programs[1], "-b", "1", data["dna.test"], str(tmp_path / "dna.model"),
                          str(tmp_path / "out")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # the program prints upstream's CLI line, Python's adds "(classification)"
    assert run.stdout.rstrip("\n") + " (classification)\n" == printed
    lines = (tmp_path / "out").read_text().splitlines()
    assert lines[0].split()[0] == "labels" and [int(v) for v in lines[0].split()[1:]] == m.get_labels()
    assert [float(line.split()[0]) for line in lines[1:]] == labels
    assert_close([[float(v) for v in line.split()[1:]] for line in lines[1:]], probabilities,
                 rel=1e-5, abs_=1e-6)


def test_model_loaded_from_program_predicts_like_it(data, programs, tmp_path, capfd):
    import subprocess
    from liblinear.liblinearutil import load_model, predict, svm_read_problem
    run = subprocess.run([programs[0], "-s", "2", "-q", data["dna.train"], str(tmp_path / "p.model")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    run = subprocess.run([programs[1], data["dna.test"], str(tmp_path / "p.model"), str(tmp_path / "out")],
                         capture_output=True, text=True)
    yt, xt = svm_read_problem(data["dna.test"])
    capfd.readouterr()
    labels, _, _ = predict(yt, xt, load_model(str(tmp_path / "p.model")))
    assert capfd.readouterr().out == run.stdout.rstrip("\n") + " (classification)\n"
    assert [float(v) for v in (tmp_path / "out").read_text().split()] == labels
