"""train -C (warm-started parameter search by cross-validation) on heart
against upstream's find_parameters, for -s 0, 2 and 11.

Upstream's folds come from rand(), ours from a seeded generator, so one run
cannot match fold for fold. Upstream run REPEATS times (rand() moves on, so
each run has fresh folds) gives, for every grid point, the spread of the CV
score over random folds; ours must be a plausible draw from it at every
grid point, and the C (and p) we pick must score near upstream's best on
upstream's own curves. The grid itself (start C, the p values, the doubling)
is deterministic and must be upstream's."""
import re

import numpy as np
import pytest

import oracle_lib as ol
from liblinear.liblinear import parameter, problem
from liblinear.liblinearutil import svm_read_problem
from liblinear.liblinearutil import train as upstream_train

REPEATS = 8
SPREAD_FACTOR = 4.0
# One heart instance is 0.37 points of accuracy; MSE spreads less.
SLACK = {"rate": 0.75, "mse": 0.01}

FIRST_LINE = re.compile(r"Doing parameter search with (\d+)-fold cross validation\.")
RATE_LINE = re.compile(r"log2c=(\s*-?\d+\.\d\d)\trate=(\S+)")
MSE_LINE = re.compile(r"log2c=(\s*-?\d+\.\d\d)\tp=(\s*-?\d+\.\d\d)\tMean squared error=(\S+)")
BEST_RATE = re.compile(r"Best C = (\S+)  CV accuracy = (\S+)%")
BEST_MSE = re.compile(r"Best C = (\S+) Best p = (\S+)  CV MSE = (\S+)")
MAX_C_WARNING = "WARNING: maximum C reached."

SEARCHES = ["-s 0", "-s 2", "-s 11", "-s 0 -c 0.5 -v 3", "-s 11 -p 0.5"]


def is_g(text):
    """Whether text is how %g prints its own value."""
    return text == "%g" % float(text)


def parse_search(lines):
    """{(log2c, p): score} of the grid lines (p = None for classification,
    score a % rate or an MSE), in printed order."""
    grid = {}
    for line in lines:
        m = RATE_LINE.fullmatch(line)
        if m:
            assert "%7.2f" % float(m.group(1)) == m.group(1) and is_g(m.group(2)), line
            grid[(float(m.group(1)), None)] = float(m.group(2))
            continue
        m = MSE_LINE.fullmatch(line)
        assert m, f"not a grid line: {line!r}"
        assert "%7.2f" % float(m.group(1)) == m.group(1) and "%7.2f" % float(m.group(2)) == m.group(2)
        assert is_g(m.group(3)), line
        grid[(float(m.group(1)), float(m.group(2)))] = float(m.group(3))
    return grid


def best_of(grid, regression):
    """The first best grid point in printed order: upstream keeps the first
    of equal scores (checked on its own runs below)."""
    pick = min if regression else max
    score = pick(grid.values())
    return next(k for k, v in grid.items() if v == score), score


def ours_search(binaries, heart, options, cwd):
    r = ol.run([binaries[0], "-C", *options.split(), heart], cwd=cwd)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    return lines, r.stderr


def upstream_searches(heart, options):
    """REPEATS upstream searches: [(grid, best (C, p, score))]."""
    y, x = svm_read_problem(str(heart), return_scipy=True)
    log = []
    runs = []
    printer = ol.PRINT_STRING_FUN(lambda s: log.append(s.decode()))
    for _ in range(REPEATS):
        param = parameter("-C -q " + options)
        param.print_func = printer
        log.clear()
        best = upstream_train(problem(y, x), param)
        lines = [l for l in "".join(log).splitlines() if l and l != MAX_C_WARNING]
        runs.append((parse_search(lines), best))
    return runs


@pytest.fixture(scope="module")
def searches(data, binaries, tmp_path_factory):
    """searches(options) -> (our stdout lines, our stderr, upstream runs)."""
    done = {}
    heart = data("heart", "heart.all")

    def get(options):
        if options not in done:
            folder = tmp_path_factory.mktemp("search")
            lines, stderr = ours_search(binaries, heart, options, folder)
            # -C writes no model file.
            assert list(folder.iterdir()) == []
            done[options] = (lines, stderr, upstream_searches(heart, options))
        return done[options]

    return get


@pytest.mark.parametrize("options", SEARCHES)
def test_search_output_format(options, searches):
    """'Doing parameter search with N-fold cross validation.', one line per
    grid point, maybe upstream's maximum-C warning, then the Best line; the
    Best line names the first best grid point, as upstream's search does."""
    lines, _, runs = searches(options)
    regression = "-s 11" in options
    folds = int(ol.option_value(options, "-v", 5))
    m = FIRST_LINE.fullmatch(lines[0])
    assert m and int(m.group(1)) == folds, lines[0]
    grid = parse_search([l for l in lines[1:-1] if l != MAX_C_WARNING])
    (log2c, p), score = best_of(grid, regression)
    if regression:
        m = BEST_MSE.fullmatch(lines[-1])
        assert m, lines[-1]
        assert all(is_g(v) for v in m.groups())
        assert float(m.group(1)) == float("%g" % 2 ** log2c)
        assert float(m.group(2)) == float("%g" % p)
        assert abs(float(m.group(3)) - score) <= 1e-5 * score
    else:
        m = BEST_RATE.fullmatch(lines[-1])
        assert m, lines[-1]
        assert all(is_g(v) for v in m.groups())
        assert float(m.group(1)) == float("%g" % 2 ** log2c)
        assert abs(float(m.group(2)) - score) <= 1e-4
    # Upstream's own tie rule, on its own runs: the first best point.
    for up_grid, (up_C, up_p, up_score) in runs:
        (up_log2c, up_pp), _ = best_of(up_grid, regression)
        assert up_C == 2 ** up_log2c
        if regression:
            assert up_p == up_pp


@pytest.mark.parametrize("options", SEARCHES)
def test_search_grid_is_upstreams(options, searches):
    """The same start C for every p, the same p values in the same order,
    C doubling by one log2 step per line."""
    lines, _, runs = searches(options)
    ours = list(parse_search([l for l in lines[1:-1] if l != MAX_C_WARNING]))
    up = list(runs[0][0])
    ps = list(dict.fromkeys(p for _, p in ours))
    assert ps == list(dict.fromkeys(p for _, p in up))
    for p in ps:
        ours_c = [c for c, q in ours if q == p]
        up_c = [c for c, q in up if q == p]
        assert ours_c[0] == up_c[0]
        assert np.all(np.diff(ours_c) == 1.0)


@pytest.mark.parametrize("options", SEARCHES)
def test_search_scores_are_plausible_for_random_folds(options, searches):
    """At each grid point both sides reach, our CV score lies within
    SPREAD_FACTOR standard deviations (plus SLACK) of upstream's scores over
    its REPEATS runs, and the point we pick scores, on upstream's curves,
    within the same tolerance of upstream's mean best score."""
    lines, _, runs = searches(options)
    regression = "-s 11" in options
    slack = SLACK["mse" if regression else "rate"]
    ours = parse_search([l for l in lines[1:-1] if l != MAX_C_WARNING])
    common = [k for k in ours if all(k in grid for grid, _ in runs)]
    assert len(common) >= 0.8 * len(ours)
    for key in common:
        values = np.array([grid[key] for grid, _ in runs])
        assert abs(ours[key] - values.mean()) <= SPREAD_FACTOR * values.std() + slack, \
            f"{key}: ours {ours[key]} upstream {values.mean():.4f} +- {values.std():.4f}"
    best_key, _ = best_of(ours, regression)
    at_ours = np.array([grid.get(best_key, np.nan) for grid, _ in runs])
    up_best = np.array([best_of(grid, regression)[1] for grid, _ in runs])
    spread = SPREAD_FACTOR * max(at_ours.std(), up_best.std()) + slack
    assert abs(np.nanmean(at_ours) - up_best.mean()) <= spread, \
        f"our pick {best_key} scores {np.nanmean(at_ours):.4f} for upstream, its best {up_best.mean():.4f}"


def test_search_without_solver_uses_s2(data, binaries, tmp_path):
    r = ol.run([binaries[0], "-C", "-q", data("heart", "heart.all")], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Solver not specified. Using -s 2" in r.stderr
    assert BEST_RATE.fullmatch(r.stdout.splitlines()[-1])


@pytest.mark.parametrize("solver", [1, 3, 4, 5, 6, 7, 12, 13, 21])
def test_search_refused_for_other_solvers(solver, data, binaries, tmp_path):
    r = ol.run([binaries[0], "-C", "-s", solver, data("heart", "heart.all")], cwd=tmp_path)
    assert r.returncode == 1
    assert "Warm-start parameter search only available for -s 0, -s 2 and -s 11" in r.stderr
    assert r.stdout.startswith("Usage: train")
    assert list(tmp_path.iterdir()) == []
