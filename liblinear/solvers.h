/*
 * solvers.h - the optimisers behind train(); one binary problem each.
 *
 * Contract: each solver reads rows only through rows.h, takes y as +1/-1
 * labels (classification) or real targets (regression), writes the
 * solution into w (length X->n, feature j at w[j-1]), prints upstream's
 * progress lines through info(), and returns a solver_status.
 * Randomised solvers draw only from the struct rng they are given.
 */
#ifndef LIBLINEAR_SOLVERS_H
#define LIBLINEAR_SOLVERS_H

#include <stdbool.h>
#include "rows.h"
#include "rng.h"

enum solver_status {
	SOLVER_OK = 0,
	SOLVER_MAX_ITER = 1,	/* stopped at the iteration cap; w is still usable */
	SOLVER_NOMEM = -1	/* out of memory; w is unspecified */
};

/* Losses of the L2-regularised primal problems solved by Newton's method. */
enum l2r_loss {
	L2R_LOSS_LR,		/* -s 0: log(1 + exp(-y w.x)) */
	L2R_LOSS_L2SVC,		/* -s 2: max(0, 1 - y w.x)^2 */
	L2R_LOSS_L2SVR		/* -s 11: max(0, |w.x - y| - p)^2 */
};

/*
 * min_w  0.5 w.w + sum_i C[i] loss_i(w)   (the bias weight is left out of
 * 0.5 w.w when regularize_bias is 0; it is then w[X->n - 1]).
 * On entry w is the starting point (zeros, init_sol or a dual solution).
 * Stops when ||grad f(w)|| <= eps * ||grad f(0)|| (the caller scales eps
 * as upstream does per solver). Prints the "init f"/"iter" lines.
 * Returns SOLVER_MAX_ITER after 1000 Newton iterations.
 */
int solve_l2r_primal(const struct row_set *X, const double *y, const double *C,
	enum l2r_loss loss, double p, int regularize_bias, double eps, double *w);

/*
 * Dual coordinate descent with shrinking (Hsieh et al., ICML 2008) for
 * the L2-regularised L1-loss (-s 3, l1_loss true) or L2-loss (-s 1) SVC,
 * no bias regularisation special case. y[i] is +1 or -1; rows with y +1
 * have cost Cp, the others Cn. Stops when the projected-gradient gap
 * (and, as in 2.42+, |max|,|min|) fall below eps, or after max_iter outer
 * iterations (returns SOLVER_MAX_ITER; the caller may switch to -s 2).
 * With w_recalc, w is recomputed as sum alpha_i y_i x_i at the end.
 * Prints dots, "optimization finished, #iter = %d", "Objective value =
 * %lf", "nSV = %d" like upstream.
 */
int solve_l2r_svc_dual(const struct row_set *X, const double *y, double Cp, double Cn,
	bool l1_loss, double eps, int max_iter, bool w_recalc, struct rng *rng, double *w);

#endif /* LIBLINEAR_SOLVERS_H */
