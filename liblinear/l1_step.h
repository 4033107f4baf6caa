/*
 * l1_step.h - the one-variable pieces shared by the L1-regularised
 * coordinate descents (Yuan, Chang, Hsieh, Lin, JMLR 2010; Yuan, Ho,
 * Lin, JMLR 2012).
 *
 * Contract: for one coordinate with value v, smooth-part derivative g and
 * (positive) second derivative h, these give
 *  - l1_violation: |minimum-norm subgradient| of |v| + smooth part, the
 *    per-coordinate term of the stopping measure ||grad^S f||_1;
 *  - l1_shrinkable: whether the coordinate is at zero and so far inside
 *    the subgradient interval (|g| < 1 - margin) that it can be left out
 *    of the next passes (shrinking); l1_shrink_margin gives the margin,
 *    M/l for the largest violation M of the previous pass over l rows;
 *  - l1_newton_step: the z minimising |v + z| + g z + h z^2 / 2;
 * and l1_count_nonzeros gives the "#nonzeros" both solvers print.
 * With penalised false the coordinate has no |v| term (the unregularised
 * bias): plain derivative and Newton step, never shrunk.
 */
#ifndef LIBLINEAR_L1_STEP_H
#define LIBLINEAR_L1_STEP_H

#include <math.h>
#include <stdbool.h>

static inline double l1_violation(double v, double g, bool penalised)
{
	if (!penalised)
		return fabs(g);
	if (v > 0)
		return fabs(g + 1);
	if (v < 0)
		return fabs(g - 1);
	/* At zero the subgradient is [g-1, g+1]; its point nearest 0. */
	if (g + 1 < 0)
		return -(g + 1);
	if (g - 1 > 0)
		return g - 1;
	return 0;
}

/* Infinite (shrink nothing) until a pass has measured M, and for no rows. */
static inline double l1_shrink_margin(double max_violation, int l)
{
	return l > 0 ? max_violation / l : INFINITY;
}

static inline bool l1_shrinkable(double v, double g, bool penalised, double margin)
{
	return penalised && v == 0 && g + 1 > margin && g - 1 < -margin;
}

static inline double l1_newton_step(double v, double g, double h, bool penalised)
{
	if (!penalised)
		return -g / h;
	/* Right of the kink the slope is g+1, left of it g-1. */
	if (g + 1 <= h * v)
		return -(g + 1) / h;
	if (g - 1 >= h * v)
		return -(g - 1) / h;
	return -v;
}

static inline int l1_count_nonzeros(const double *w, int n)
{
	int nnz = 0;
	for (int j = 0; j < n; j++)
		nnz += w[j] != 0;
	return nnz;
}

#endif /* LIBLINEAR_L1_STEP_H */
