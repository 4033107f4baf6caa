/*
 * dual_svr.h - dual coordinate descent for L2-regularised support vector
 * regression: -s 12 (L2 loss) and -s 13 (L1 loss).
 *
 * Contract: solves (Ho and Lin, JMLR 2012)
 *
 *     min_beta  0.5 beta' (Q + D) beta - y' beta + p |beta|_1,  -U <= beta_i <= U,
 *
 * Q_ij = x_i.x_j; L1 loss: U = C, D = 0; L2 loss: U = infinity,
 * D_ii = 1/(2C). Rows are read only through rows.h; w (length X->n, zeroed
 * here) ends as sum_i beta_i x_i. Each outer iteration visits the active
 * rows in an order drawn from rng; rows at a bound (or at 0) that the
 * gradient holds there firmly are shrunk. Stops when the 1-norm of the
 * minimum-norm subgradient is <= eps times its value at the first outer
 * iteration (upstream's -e rule for -s 12/13), after an unshrunk check;
 * or after max_iter outer iterations (SOLVER_MAX_ITER; the caller prints
 * upstream's warning). Prints "." every 10 iterations, "*" when shrinking
 * is undone, then "optimization finished, #iter", "Objective value"
 * (the dual objective above) and "nSV" (rows with beta_i != 0).
 * Returns a solver_status (solvers.h).
 */
#ifndef LIBLINEAR_DUAL_SVR_H
#define LIBLINEAR_DUAL_SVR_H

#include <stdbool.h>
#include "rows.h"
#include "rng.h"

int solve_l2r_svr_dual(const struct row_set *X, const double *y, double C, double p,
	bool l1_loss, double eps, int max_iter, struct rng *rng, double *w);

/* The same, also leaving the dual solution in beta[0..X->l-1]. */
int solve_l2r_svr_dual_beta(const struct row_set *X, const double *y, double C, double p,
	bool l1_loss, double eps, int max_iter, struct rng *rng, double *w, double *beta);

#endif /* LIBLINEAR_DUAL_SVR_H */
