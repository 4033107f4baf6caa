/*
 * l1_solvers.h - the L1-regularised classifiers, -s 5 and -s 6.
 *
 * Contract: min_w sum_j |w_j| + sum_i C_i loss(y_i w.x_i), where C_i is Cp
 * for y_i = +1 and Cn otherwise, and the bias weight w[X->n - 1] is left
 * out of the sum of |w_j| when regularize_bias is 0.
 *  - solve_l1r_l2_svc (-s 5): loss max(0, 1 - m)^2, by coordinate descent
 *    with a Newton direction and line search (CDN, Yuan et al. JMLR 2010).
 *  - solve_l1r_lr (-s 6): loss log(1 + exp(-m)), by newGLMNET (Yuan, Ho,
 *    Lin, JMLR 2012): Newton steps whose L1 subproblems are solved by
 *    coordinate descent, then a line search.
 * Both start from w = 0, build a column view of X (columns.h), shrink
 * coordinates stuck at zero, visit coordinates in an order shuffled with
 * rng, and stop when sum_j |min-norm subgradient_j| <= eps times its value
 * in the first pass (eps already scaled by the caller). w has X->n
 * entries. Progress goes through info() as upstream prints it.
 * Return a solver_status (solvers.h): SOLVER_MAX_ITER after 1000 passes
 * (-s 5) or 100 Newton steps (-s 6), SOLVER_NOMEM when out of memory.
 */
#ifndef LIBLINEAR_L1_SOLVERS_H
#define LIBLINEAR_L1_SOLVERS_H

#include "rows.h"
#include "rng.h"
#include "solvers.h"

int solve_l1r_l2_svc(const struct row_set *X, const double *y, double Cp, double Cn,
	double eps, int regularize_bias, struct rng *rng, double *w);

int solve_l1r_lr(const struct row_set *X, const double *y, double Cp, double Cn,
	double eps, int regularize_bias, struct rng *rng, double *w);

#endif /* LIBLINEAR_L1_SOLVERS_H */
