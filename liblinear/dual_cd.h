/*
 * dual_cd.h - the SVC dual coordinate descent solver with its dual
 * variables exposed.
 *
 * Contract: solve_l2r_svc_dual_alpha() is solve_l2r_svc_dual() (solvers.h)
 * that also leaves the final dual solution in alpha[0..X->l-1]
 * (0 <= alpha[i] <= C of row i for the L1 loss, alpha[i] >= 0 for the L2
 * loss; w = sum_i alpha[i] y[i] x_i). It exists so that callers and tests
 * can inspect the dual point, e.g. to check the KKT conditions.
 */
#ifndef LIBLINEAR_DUAL_CD_H
#define LIBLINEAR_DUAL_CD_H

#include <stdbool.h>
#include "rows.h"
#include "rng.h"

int solve_l2r_svc_dual_alpha(const struct row_set *X, const double *y, double Cp, double Cn,
	bool l1_loss, double eps, int max_iter, bool w_recalc, struct rng *rng, double *w,
	double *alpha);

/*
 * The same solver started from the dual point in alpha (clipped into the
 * box; w is rebuilt from it): the kernel search's C walks start each fold
 * and class at its solution for the previous C. Any alpha >= 0 is feasible
 * for the L2 loss at every C, so the start needs no other repair.
 */
int solve_l2r_svc_dual_warm(const struct row_set *X, const double *y, double Cp, double Cn,
	bool l1_loss, double eps, int max_iter, bool w_recalc, struct rng *rng, double *w,
	double *alpha);

#endif /* LIBLINEAR_DUAL_CD_H */
