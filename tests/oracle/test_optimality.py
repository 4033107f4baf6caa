"""Solvers -s 4, 5, 6, 7, 11, 12, 13, 21 and the options -R, -p, -n, -wi
against upstream LIBLINEAR 2.50: each model is judged in numpy against the
stopping rule its -e promises (oracle_lib.judge), both sides' objectives
agree within what those promises imply, and test accuracies, regression
errors and one-class decisions agree.

The stopping rules, measured on the model file alone (plus the dual
objective the log prints):
 - Newton (-s 11; -s 0, 2 with -R; and -s 1, 7, 12 after they switch to
   -s 2, 0, 11 at their iteration cap, at upstream's tighter eps):
   |grad f(w)|_2 <= eps ratio |grad f(0)|_2;
 - -s 5, 6: |min-norm subgradient|_1 <= eps min(pos,neg)/l |same at 0|_1;
 - dual solvers (-s 4, 7, 12, 13, 21): the duality gap P(w) + D(alpha), D
   from the log, is at most what a maximal violation (or for -s 12/13 a
   relative gradient 1-norm) of eps allows; see the bounds in oracle_lib.
Solvers that measure during a pass (the dual ones, -s 5) are held to
DRIFT * eps. Upstream's models are held to the same rules: that checks the
measures themselves.
"""
import numpy as np
import pytest

import oracle_lib as ol
from cases import OPTION_CASES, OTHER_BIAS_CASES, OTHER_DEFAULT_CASES, OTHER_TIGHT_CASES, SWITCH_CASES

JUDGED_CASES = OTHER_TIGHT_CASES + OPTION_CASES + SWITCH_CASES
CLASSIFICATION_CASES = [c for c in OTHER_DEFAULT_CASES + OTHER_BIAS_CASES + JUDGED_CASES
    if c.solver not in ol.REGRESSION and c.solver != 21]
REGRESSION_CASES = [c for c in JUDGED_CASES if c.solver in ol.REGRESSION]
ONECLASS_CASES = [c for c in OTHER_DEFAULT_CASES + JUDGED_CASES if c.solver == 21]

# Objective values printed with %lf carry 6 decimals.
PRINTED = 1e-6
# Rounding in the numpy sums, relative to the objective.
ROUNDING = 1e-9


def slack(*values):
    return PRINTED + ROUNDING * max(abs(v) for v in values if v is not None)


@pytest.fixture(scope="module")
def judged(trained, dataset_arrays):
    """judged(case) -> (ours, upstream): [Judged] per side, computed once."""
    done = {}

    def get(case):
        if case not in done:
            t = trained(case)
            y, X = dataset_arrays(case.dataset, case.train_stem)
            done[case] = tuple(ol.judge(case, ol.parse_model(model), log, y, X)
                for model, log in ((t.ours_model, t.ours_log), (t.up_model, t.up_log)))
        return done[case]

    return get


@pytest.mark.parametrize("case", JUDGED_CASES, ids=str)
@pytest.mark.parametrize("side", [0, 1], ids=["ours", "upstream"])
def test_model_meets_its_stopping_rule(case, side, judged):
    for k, j in enumerate(judged(case)[side]):
        assert not j.capped, f"sub-problem {k} stopped at the iteration cap"
        assert j.measure is not None, f"sub-problem {k}: no dual objective in the log"
        if j.kind == "dual":
            # Weak duality: the printed dual objective belongs to this w.
            assert j.measure >= -slack(j.f, j.dual), f"sub-problem {k}: P + D = {j.measure:.3g} < 0"
        assert j.measure <= j.claim * (1 + ROUNDING) + (slack(j.f, j.dual) if j.kind == "dual" else 0), \
            f"sub-problem {k}: {j.kind} measure {j.measure:.4g} above the -e claim {j.claim:.4g}"
        if case.solver == 21:
            # The one-class dual is 0.5 w.w; the log prints it.
            assert abs(j.f - j.dual) <= slack(j.f)


@pytest.mark.parametrize("case", JUDGED_CASES, ids=str)
def test_objectives_and_weights_agree(case, judged):
    """Both sides lie above the optimum f* by at most their own bound, so the
    objectives differ by at most the larger bound; where f is 1-strongly
    convex, f(w) - f* >= |w - w*|^2 / 2 bounds the weight distance too. Where
    it is not (-s 5/6, -R), convexity gives f(w) - f(v) <= |g(w)| |w - v|
    with the promised subgradient norm (the 1-norm bounds the max-norm)."""
    for k, (a, b) in enumerate(zip(*judged(case))):
        distance = np.linalg.norm(a.w - b.w, a.norm)
        if a.f_bound is not None:
            bound = max(a.f_bound, b.f_bound)
        else:
            bound = max(a.claim, b.claim) * distance
        assert abs(a.f - b.f) <= bound + slack(a.f, b.f), \
            f"sub-problem {k}: f ours {a.f:.10g} upstream {b.f:.10g}, bound {bound:.3g}"
        if a.dual is not None and b.dual is not None:
            assert abs(a.dual - b.dual) <= max(a.claim, b.claim) + slack(a.dual, b.dual), \
                f"sub-problem {k}: dual ours {a.dual:.10g} upstream {b.dual:.10g}"
        if a.f_bound is not None:
            allowed = np.sqrt(2 * a.f_bound) + np.sqrt(2 * b.f_bound)
            assert distance <= allowed + 1e-9 * np.linalg.norm(b.w), \
                f"sub-problem {k}: |w ours - w upstream| {distance:.3g} > {allowed:.3g}"


# rand() seeds whose upstream models show how far a randomized solver's
# accuracy moves with the visiting order alone.
UPSTREAM_SEEDS = range(1, 11)


@pytest.mark.parametrize("case", CLASSIFICATION_CASES, ids=str)
def test_test_accuracy_within_half_a_point(case, trained, dataset_arrays, upstream, our_predictions,
        tmp_path):
    """Within half a point of upstream's accuracy. A randomized solver stops
    at a point that depends on its visiting order, and ours shuffles with
    another generator than upstream's rand(): on a small test set (heart:
    270 rows, 0.37 points each) upstream itself moves by more than half a
    point from one rand() seed to the next (-s 4 -B 1: 84.4% to 85.6%). So
    a randomized solver that misses upstream's seed-1 accuracy must lie
    within half a point of the range upstream's own seeds give."""
    t = trained(case)
    y_test, _ = dataset_arrays(case.dataset, case.test_stem)
    _, lines = our_predictions(t.test_path, t.ours_model)
    ours = ol.accuracy(np.array([float(v) for v in lines]), y_test)
    up_labels, _ = upstream.predict(t.test_path, t.up_model)
    up = ol.accuracy(up_labels, y_test)
    if abs(ours - up) <= 0.5 or case.solver not in ol.RANDOMIZED:
        assert abs(ours - up) <= 0.5, f"ours {ours:.4f}% upstream {up:.4f}%"
        return
    seen = []
    for seed in UPSTREAM_SEEDS:
        model_path = tmp_path / f"up{seed}.model"
        upstream.train(t.train_path, case.train_options, model_path, seed=seed)
        seen.append(ol.accuracy(upstream.predict(t.test_path, model_path)[0], y_test))
    assert min(seen) - 0.5 <= ours <= max(seen) + 0.5, \
        f"ours {ours:.4f}%, upstream {min(seen):.4f}% to {max(seen):.4f}% over rand() seeds"


def regression_metrics(predicted, y):
    """(mean squared error, squared correlation coefficient)."""
    return np.mean((predicted - y) ** 2), np.corrcoef(predicted, y)[0, 1] ** 2


@pytest.mark.parametrize("case", REGRESSION_CASES, ids=str)
def test_regression_errors_agree(case, trained, dataset_arrays, upstream, our_predictions):
    """Test-set MSE within 0.5% and squared correlation within 0.005 of
    upstream's (measured: at most 0.2% and 0.001 at these tolerances)."""
    t = trained(case)
    y_test, _ = dataset_arrays(case.dataset, case.test_stem)
    _, lines = our_predictions(t.test_path, t.ours_model)
    mse, scc = regression_metrics(np.array([float(v) for v in lines]), y_test)
    up_values, _ = upstream.predict(t.test_path, t.up_model)
    up_mse, up_scc = regression_metrics(up_values, y_test)
    assert abs(mse - up_mse) <= 5e-3 * up_mse, f"MSE ours {mse:.6g} upstream {up_mse:.6g}"
    assert abs(scc - up_scc) <= 5e-3, f"SCC ours {scc:.6g} upstream {up_scc:.6g}"


def decision_values(m, X):
    """w.x - rho of a one-class model for every row of X."""
    return ol.with_columns(X, m["nr_feature"], m["bias"]) @ m["w"][:, 0] - m["rho"]


@pytest.mark.parametrize("case", ONECLASS_CASES, ids=str)
@pytest.mark.parametrize("side", [0, 1], ids=["ours", "upstream"])
def test_oneclass_nu_property(case, side, trained, dataset_arrays):
    """nu bounds the training outliers from above and the support vectors
    from below (0 <= alpha_i <= 1, sum alpha = nu l): within the stopping
    tolerance, w.x_i < rho - eps forces alpha_i = 1 and alpha_i > 0 forces
    w.x_i <= rho + eps, so #{dec < -eps} <= nu l <= #{dec <= eps}."""
    t = trained(case)
    m = ol.parse_model((t.ours_model, t.up_model)[side])
    y, X = dataset_arrays(case.dataset, case.train_stem)
    dec = decision_values(m, X)
    eps = ol.DRIFT * case.eps
    nu_l = case.nu * len(y)
    assert np.count_nonzero(dec < -eps) <= nu_l <= np.count_nonzero(dec <= eps)


@pytest.mark.parametrize("case", ONECLASS_CASES, ids=str)
def test_oneclass_rho_and_decisions_agree(case, trained, dataset_arrays, judged, upstream, our_predictions):
    """rho is, within 2 eps, the (nu l)-th smallest training decision value
    w.x_i (the nu property above), so the two rhos differ by at most the gap
    between the order statistics around nu l, 4 eps, and the shift
    |w ours - w upstream| max|x_i| of every w.x_i. The test-set predictions
    (+1 inlier, -1 outlier) then differ only where upstream's decision value
    is within that shift of 0, and the fraction of -1 is within 0.5 points."""
    t = trained(case)
    ours, up = ol.parse_model(t.ours_model), ol.parse_model(t.up_model)
    y, X = dataset_arrays(case.dataset, case.train_stem)
    (a,), (b,) = judged(case)
    _, X_test = dataset_arrays(case.dataset, case.test_stem)
    longest = max(np.sqrt(Z.multiply(Z).sum(axis=1)).max() for Z in (X, X_test))
    shift = (np.sqrt(2 * a.f_bound) + np.sqrt(2 * b.f_bound)) * longest
    v = np.sort(decision_values(up, X) + up["rho"])
    nu_l = case.nu * len(y)
    quantile_gap = v[int(np.floor(nu_l))] - v[int(np.ceil(nu_l)) - 1]
    rho_gap = abs(ours["rho"] - up["rho"])
    assert rho_gap <= quantile_gap + 4 * ol.DRIFT * case.eps + shift, \
        f"rho ours {ours['rho']:.10g} upstream {up['rho']:.10g}"

    _, lines = our_predictions(t.test_path, t.ours_model)
    predicted = np.array([float(v) for v in lines])
    assert set(predicted) <= {1.0, -1.0}
    up_predicted, _ = upstream.predict(t.test_path, t.up_model)
    differ = predicted != up_predicted
    assert np.all(np.abs(decision_values(up, X_test)[differ]) <= shift + rho_gap)
    assert abs(np.mean(predicted < 0) - np.mean(up_predicted < 0)) * 100 <= 0.5
