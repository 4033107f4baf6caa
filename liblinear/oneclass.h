/*
 * oneclass.h - the linear one-class SVM (-s 21, ONECLASS_SVM) in the dual
 * (Schoelkopf et al. 2001, with a linear kernel).
 *
 * Contract: with l = X->l rows and Q = X X^T, solves
 *
 *   min_alpha  0.5 alpha^T Q alpha   s.t.  0 <= alpha_i <= 1,
 *                                          sum_i alpha_i = nu * l,
 *
 * starting, as LIBSVM does, from alpha_i = 1 for the first floor(nu l)
 * rows, the fraction nu l - floor(nu l) for the next one and 0 after.
 * Any nu is safe: nu l is clamped to [0, l] (NaN to 0), so nu >= 1 acts
 * as nu = 1 and nu <= 0 as an all-zero start (check_parameter refuses
 * nu outside (0, 1] before train gets here).
 * Writes w = sum_i alpha_i x_i (X->n doubles, overwritten) and *rho, the
 * offset of the decision value w.x - rho: the mean gradient of the free
 * alphas, or the midpoint of the interval the bounded ones allow (which
 * may be infinite, as upstream's "rho = inf" with nu = 1).
 *
 * The method: two-variable coordinate descent on maximal violating pairs
 * with shrinking; it stops when max{G_t : alpha_t > 0} - min{G_t :
 * alpha_t < 1} < eps (G = Q alpha) on the whole set, or after max_iter
 * outer iterations (upstream: 1000). rng only picks quick-select pivots;
 * ties are broken by row index, so the result does not depend on it.
 * Prints a "." every 10 iterations, "*" when the shrunk set is reset,
 * "optimization finished, #iter = %d", the max-iteration warning,
 * "Objective value = %lf", "nSV = %d" and "rho = %lf" like upstream.
 * Returns a solver_status (solvers.h).
 */
#ifndef LIBLINEAR_ONECLASS_H
#define LIBLINEAR_ONECLASS_H

#include "rows.h"
#include "rng.h"

int solve_oneclass_svm(const struct row_set *X, double nu, double eps, int max_iter,
	struct rng *rng, double *w, double *rho);

#endif /* LIBLINEAR_ONECLASS_H */
