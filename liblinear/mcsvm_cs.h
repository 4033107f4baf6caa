/*
 * mcsvm_cs.h - Crammer-Singer multi-class SVM (-s 4, MCSVM_CS), solved in
 * the dual one instance at a time (Keerthi, Sundararajan, Chang, Hsieh and
 * Lin, "A sequential dual method for large scale multi-class linear SVMs",
 * KDD 2008).
 *
 * Contract: with k = nr_class classes, l = X->l rows and class y_i =
 * class_of_row[i] in 0..k-1, solves
 *
 *   min_alpha  0.5 sum_m ||w_m||^2 + sum_i sum_{m != y_i} alpha_i^m
 *   s.t.       sum_m alpha_i^m = 0,  alpha_i^m <= C_i^m,
 *              C_i^m = C_of_class[y_i] if m == y_i, else 0,
 *   w_m = sum_i alpha_i^m x_i,
 *
 * and writes w feature-major: feature j's weight for class m is
 * w[(j-1)*k + m] (X->n * k doubles, overwritten). Rows with ||x_i|| = 0
 * are left at alpha = 0, as upstream does.
 *
 * Stops when every instance's violation, max_m G_i^m - min over
 * alpha_i^m < C_i^m of G_i^m (G_i^m = w_m.x_i + [m != y_i]), is below eps
 * over a pass on the whole set, or after max_iter passes (upstream passes
 * 100000). Instances are visited in an order drawn from rng each pass.
 * Prints a "." every 10 passes, "*" when the shrunk set is reset, then
 * "optimization finished, #iter = %d", the max-iteration warning,
 * "Objective value = %lf" and "nSV = %d" (nonzero alpha_i^m) like upstream.
 * Returns a solver_status (solvers.h).
 */
#ifndef LIBLINEAR_MCSVM_CS_H
#define LIBLINEAR_MCSVM_CS_H

#include "rows.h"
#include "rng.h"

int solve_mcsvm_cs(const struct row_set *X, const int *class_of_row, int nr_class,
	const double *C_of_class, double eps, int max_iter, struct rng *rng, double *w);

#endif /* LIBLINEAR_MCSVM_CS_H */
