"""predict's output: the Accuracy line, quiet mode, -b 1 probabilities."""
import numpy as np
import pytest

import oracle_lib as ol
from oracle_lib import Case

HEART_LR = Case("heart", "heart.all", "heart.all", 0)
DNA_LR = Case("dna", "dna.train", "dna.test", 0)
HEART_SVM = Case("heart", "heart.all", "heart.all", 1)


@pytest.mark.parametrize("case", [HEART_SVM, DNA_LR], ids=str)
def test_accuracy_line(case, trained, dataset_arrays, our_predictions):
    """stdout is exactly 'Accuracy = %g%% (%d/%d)' for the written labels."""
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


@pytest.mark.parametrize("case", [HEART_LR, DNA_LR], ids=str)
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
