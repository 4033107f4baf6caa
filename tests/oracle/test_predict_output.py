"""predict's output: the Accuracy line (and the regression lines), quiet
mode, -b 1 probabilities for logistic regression models and the refusal
for all others."""
import re

import numpy as np
import pytest

import oracle_lib as ol
from cases import A9A, DNA, HEART, SATIMAGE
from oracle_lib import Case

HEART_LR = Case(*HEART, 0)
DNA_LR = Case(*DNA, 0)
HEART_SVM = Case(*HEART, 1)
# Every logistic regression solver (-s 0, 6, 7), two classes and several.
PROBABILITY_CASES = [Case(*d, s) for d in (HEART, DNA) for s in sorted(ol.PROBABILITY)] + [
    Case(*SATIMAGE, 6)]
# One model of every other solver type.
NO_PROBABILITY_CASES = [Case(*HEART, s) for s in sorted(ol.SOLVER_NAMES) if s not in ol.PROBABILITY]
REGRESSION_CASES = [Case(*HEART, s) for s in sorted(ol.REGRESSION)] + [Case(*SATIMAGE, 11), Case(*A9A, 12)]
ONECLASS_CASES = [Case(*HEART, 21), Case(*A9A, 21, "-n 0.1")]


@pytest.mark.parametrize("case", [HEART_SVM, DNA_LR, *ONECLASS_CASES], ids=str)
def test_accuracy_line(case, trained, dataset_arrays, our_predictions):
    """stdout is exactly 'Accuracy = %g%% (%d/%d)' for the written labels
    (one-class: its +1/-1 predictions against the file's labels)."""
    t = trained(case)
    y_test, _ = dataset_arrays(case.dataset, case.test_stem)
    stdout, lines = our_predictions(t.test_path, t.ours_model)
    predicted = np.array([float(v) for v in lines])
    assert stdout == ol.accuracy_line(predicted, y_test) + "\n"


def test_quiet_predict_prints_nothing(trained, binaries, tmp_path):
    t = trained(HEART_SVM)
    out = tmp_path / "out"
    r = ol.run([binaries[1], "-q", t.test_path, t.ours_model, out])
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert len(out.read_text().splitlines()) == 270


@pytest.mark.parametrize("case", PROBABILITY_CASES, ids=str)
@pytest.mark.parametrize("side", ["ours", "upstream"])
def test_probability_output(case, side, trained, upstream, our_predictions):
    """-b 1 writes 'labels' and the model's labels, then per row the label and
    one probability per class, all %g; the values are upstream's predict -b 1 on
    the same model file (to the 6 digits %g keeps)."""
    t = trained(case)
    model = t.ours_model if side == "ours" else t.up_model
    labels = ol.parse_model(model)["labels"]
    stdout, lines = our_predictions(t.test_path, model, "-b 1")
    assert stdout.startswith("Accuracy = ")
    assert lines[0] == "labels " + " ".join(str(v) for v in labels)
    rows = [line.split(" ") for line in lines[1:]]
    up_labels, up_probs = upstream.predict(t.test_path, model, "-b 1")
    assert len(rows) == len(up_labels)
    for tokens in rows:
        assert len(tokens) == 1 + len(labels)
        assert all(tok == "%g" % float(tok) for tok in tokens[1:])
    assert [tokens[0] for tokens in rows] == ["%g" % v for v in up_labels]
    ours = np.array([[float(tok) for tok in tokens[1:]] for tokens in rows])
    np.testing.assert_allclose(ours, up_probs, rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(ours.sum(axis=1), 1.0, atol=1e-5 * len(labels))


@pytest.mark.parametrize("case", NO_PROBABILITY_CASES, ids=str)
@pytest.mark.parametrize("side", ["ours", "upstream"])
def test_probability_refused_for_other_models(case, side, trained, binaries, tmp_path):
    """-b 1 with a model that is not logistic regression: upstream's message
    on stderr, exit 1, no output file."""
    t = trained(case)
    model = t.ours_model if side == "ours" else t.up_model
    assert ol.load_model(str(model)).is_probability_model() is False
    out = tmp_path / "out"
    r = ol.run([binaries[1], "-b", "1", t.test_path, model, out])
    assert r.returncode == 1
    assert r.stderr == "probability output is only supported for logistic regression\n"
    assert not out.exists()


REGRESSION_LINES = re.compile(r"Mean squared error = (\S+) \(regression\)\n"
    r"Squared correlation coefficient = (\S+) \(regression\)\n")


@pytest.mark.parametrize("case", REGRESSION_CASES, ids=str)
def test_regression_output(case, trained, dataset_arrays, our_predictions):
    """A regression model's predict writes each value as %.17g and prints
    upstream's two lines, with the MSE and the squared correlation of the
    written values against the file's targets (%g)."""
    t = trained(case)
    y_test, _ = dataset_arrays(case.dataset, case.test_stem)
    stdout, lines = our_predictions(t.test_path, t.ours_model)
    values = np.array([float(v) for v in lines])
    assert lines == ["%.17g" % v for v in values]
    m = REGRESSION_LINES.fullmatch(stdout)
    assert m, stdout
    mse = np.mean((values - y_test) ** 2)
    scc = np.corrcoef(values, y_test)[0, 1] ** 2
    for printed, expected in zip(m.groups(), (mse, scc)):
        assert printed == "%g" % float(printed)
        assert abs(float(printed) - expected) <= 5e-6 * abs(expected)
