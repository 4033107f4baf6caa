/*
 * dual_lr.h - dual coordinate descent for L2-regularised logistic
 * regression: -s 7.
 *
 * Contract: solves (Yu, Huang and Lin, Machine Learning 2011)
 *
 *     min_alpha  0.5 alpha' Q alpha
 *                + sum_i [alpha_i log alpha_i + (C_i - alpha_i) log(C_i - alpha_i) - C_i log C_i],
 *     0 < alpha_i < C_i,
 *
 * Q_ij = y_i y_j x_i.x_j, y_i = +1 or -1, C_i = Cp for y_i > 0 and Cn
 * otherwise. Rows are read only through rows.h; w (length X->n, zeroed
 * here) ends as sum_i alpha_i y_i x_i. Each outer iteration visits every
 * row in an order drawn from rng and solves its one-variable problem by a
 * safeguarded Newton method. Stops when the largest |gradient| of the dual
 * seen in an outer iteration is below eps, or after max_iter outer
 * iterations (SOLVER_MAX_ITER; the caller prints upstream's warning).
 * Prints "." every 10 iterations, then "optimization finished, #iter" and
 * "Objective value" (the dual objective above, which is minus the primal
 * at the optimum). Returns a solver_status (solvers.h).
 */
#ifndef LIBLINEAR_DUAL_LR_H
#define LIBLINEAR_DUAL_LR_H

#include "rows.h"
#include "rng.h"

int solve_l2r_lr_dual(const struct row_set *X, const double *y, double Cp, double Cn,
	double eps, int max_iter, struct rng *rng, double *w);

/* The same, also leaving the dual solution in alpha[0..X->l-1]. */
int solve_l2r_lr_dual_alpha(const struct row_set *X, const double *y, double Cp, double Cn,
	double eps, int max_iter, struct rng *rng, double *w, double *alpha);

#endif /* LIBLINEAR_DUAL_LR_H */
