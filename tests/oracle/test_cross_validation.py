"""train -v 5 on heart against upstream's cross-validation.

Folds are random, and ours come from a seeded generator while upstream's
come from rand(), so single runs cannot match fold for fold. Upstream run
REPEATS times (its rand() state moves on, giving fresh folds each time)
gives the spread of CV accuracy over random folds; ours must be a plausible
draw from it. On heart that spread is about 0.8 points (one instance is
0.37 points)."""
import re

import numpy as np
import pytest

import oracle_lib as ol

REPEATS = 20
SPREAD_FACTOR = 4.0
SLACK = 0.5


@pytest.mark.parametrize("solver", [0, 1, 2, 3])
def test_cv_accuracy_is_plausible_for_random_folds(solver, data, binaries, upstream, tmp_path):
    heart = data("heart", "heart.all")
    r = ol.run([binaries[0], "-s", solver, "-v", 5, heart], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    found = ol.CV_LINE.findall(r.stdout)
    assert len(found) == 1, r.stdout
    ours = float(found[0])
    # The printed value is 100*k/l, %g-formatted, for some count k.
    l = 270
    k = round(ours * l / 100)
    assert found[0] == "%g" % (100.0 * k / l)
    # -v writes no model file.
    assert list(tmp_path.iterdir()) == []

    runs = np.array([upstream.cross_validation(heart, f"-s {solver} -v 5 -q") for _ in range(REPEATS)])
    mean, spread = runs.mean(), runs.std()
    assert abs(ours - mean) <= SPREAD_FACTOR * spread + SLACK, \
        f"ours {ours} upstream mean {mean:.3f} std {spread:.3f}"


def test_cv_output_line_format(data, binaries, tmp_path):
    """Exactly one result line, 'Cross Validation Accuracy = %g%%', last."""
    heart = data("heart", "heart.all")
    r = ol.run([binaries[0], "-q", "-v", 3, heart], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"Cross Validation Accuracy = [0-9.]+%\n", r.stdout), r.stdout


@pytest.mark.parametrize("options", ["-s 0", "-s 1", "-s 4", "-s 6", "-s 12", "-s 21",
                                     "-s 2 -k anne -g 8 -t 20"])
def test_cv_progress_lines_for_any_thread_count(options, data, binaries, tmp_path):
    """Parallel folds (the default -m, all cores) print the progress lines
    that -m 1 prints, in fold order (issue 18: they printed nothing)."""
    heart = data("heart", "heart.all")
    runs = {}
    for threads in ([], ["-m", "1"], ["-m", "2"], ["-m", "3"]):
        r = ol.run([binaries[0], *options.split(), *threads, "-v", "5", heart], cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        runs[" ".join(threads)] = r.stdout
    sequential = runs.pop("-m 1")
    assert len(sequential.splitlines()) > 5, sequential
    for threads, out in runs.items():
        assert out == sequential, threads
