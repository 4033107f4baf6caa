/*
 * newton.h - truncated Newton method with a backtracking line search.
 *
 * Contract: newton_minimize() minimises a smooth (or once-differentiable,
 * with a generalised Hessian) convex objective given through struct
 * newton_objective, the way LIBLINEAR 2.50 does for -s 0, 2 and 11
 * (Galli & Lin, IEEE TNNLS 2022; Chou et al., ACML 2018):
 *  - the Newton direction comes from preconditioned conjugate gradient
 *    (preconditioner M = (1 - a) I + a diag(H), a = pcg_alpha), stopped by
 *    the quadratic-approximation rule j (Q_j - Q_{j-1}) / Q_j <=
 *    min(eps_cg, ||g||_{M^-1}^(1/2)), when d.Hd <= 1e-16, or after
 *    max(n, 5) steps;
 *  - the step size is the first of 1, 1/2, 1/4, ... (at most
 *    max_line_search tries) with f(w + a s) <= f(w) + eta a g.s;
 *  - it stops when ||grad f(w)|| <= eps ||grad f(0)||, after max_iter
 *    iterations, or when the line search fails or f stops changing.
 * It prints upstream's "init f" / "iter" lines and warnings through info().
 *
 * The objective owns its "current point": value() makes w current, and
 * gradient(), hessian_times() and hessian_diag() refer to it. The line
 * search goes through line_prepare()/line_value()/line_accept() so that
 * an objective can evaluate f(w + a s) cheaply from cached products.
 */
#ifndef LIBLINEAR_NEWTON_H
#define LIBLINEAR_NEWTON_H

#include <stddef.h>

struct newton_objective {
	void *ctx;
	size_t n;	/* number of variables */

	/* Makes w the current point and returns f(w). */
	double (*value)(void *ctx, const double *w);
	/* g = grad f at the current point w (the same w value() was given). */
	void (*gradient)(void *ctx, const double *w, double *g);
	/* Hv = H v, H the (generalised) Hessian at the current point. */
	void (*hessian_times)(void *ctx, const double *v, double *Hv);
	/* diag = the diagonal of H at the current point. */
	void (*hessian_diag)(void *ctx, double *diag);

	/* Line search along s from the current point w. */
	void (*line_prepare)(void *ctx, const double *w, const double *s);
	/* f(w + step s), for the w and s of the last line_prepare(). */
	double (*line_value)(void *ctx, double step);
	/* w + step s becomes the current point (the caller updates w). */
	void (*line_accept)(void *ctx, double step);
};

struct newton_params {
	double eps;		/* relative gradient-norm tolerance */
	int max_iter;		/* Newton iterations */
	double eps_cg;		/* CG quadratic-approximation tolerance */
	int max_line_search;	/* step sizes tried per iteration */
	double eta;		/* sufficient-decrease constant */
	double pcg_alpha;	/* weight of diag(H) in the preconditioner */
};

/* LIBLINEAR 2.50's settings with the given eps. */
struct newton_params newton_default_params(double eps);

/*
 * Minimises from w (updated in place). Returns a solver_status
 * (solvers.h): SOLVER_OK, SOLVER_MAX_ITER when max_iter iterations ran
 * without meeting the tolerance, SOLVER_NOMEM (w untouched) when the work
 * vectors cannot be allocated.
 */
int newton_minimize(const struct newton_objective *obj, const struct newton_params *par,
	double *w);

#endif /* LIBLINEAR_NEWTON_H */
