/*
 * dual_lr.c - dual coordinate descent for L2-regularised logistic
 * regression (dual_lr.h).
 *
 * The one-variable problem of row i (Yu, Huang and Lin 2011), in the new
 * value z of alpha_i, is
 *
 *     min_{0 < z < C}  z log z + (C - z) log(C - z) + 0.5 a (z - alpha_i)^2 + b (z - alpha_i),
 *
 * a = x_i.x_i, b = y_i w.x_i. Its derivative log(z / (C - z)) + a (z - alpha_i) + b
 * increases from -inf to +inf, so there is one root; its sign at C/2 says
 * in which half. The root is sought in whichever of z and C - z is at
 * most C/2 there: that variable's log is accurate however close to 0 it
 * gets, and on (0, C/2] the derivative is concave, so a Newton step from
 * left of the root never passes it, and one from the right that lands at
 * or below 0 is replaced by a move toward 0. Both alpha_i and C - alpha_i
 * are stored so that neither is ever rebuilt from the other by cancellation.
 *
 * A row counts as settled when the derivative at Newton's starting point
 * is below the tolerance. A row whose variable sits on the far side of C/2
 * from its root starts from a point moved toward 0, so it is not taken as
 * settled while it still has to cross C/2. This test, stricter than the
 * plain |gradient|, makes the outer iteration counts follow upstream's:
 * on a9a (C = 1, eps = 0.1) 29-32 iterations against upstream's 29-36
 * over rand() seeds, where the plain |gradient| test stops after 19.
 */
#include <math.h>
#include <stdlib.h>
#include "dual_lr.h"
#include "print.h"
#include "solvers.h"

/* Newton steps allowed per one-variable problem. */
#define NEWTON_MAX_STEPS 100
/* How far toward 0 a Newton step that left (0, C/2] moves instead. */
#define NEWTON_SHRINK 0.1
/* The starting inner tolerance, loosened early when precision is cheap to skip. */
#define INNER_EPS_START 1e-2

struct lr_dual {
	const struct row_set *X;
	const double *y;
	double Cp;
	double Cn;
	double *w;
	double *alpha;
	double *rest;		/* C_i - alpha_i */
	double *qd;		/* x_i.x_i */
	int *index;
};

static double row_cost(const struct lr_dual *s, int i)
{
	return s->y[i] > 0 ? s->Cp : s->Cn;
}

/*
 * Newton's method for the root of
 *     d(v) = log(v / (C - v)) + a (v - current) + lin,  v in (0, C/2],
 * given that d(C/2) >= 0, so the root is there. It starts at the current
 * value, or, when that lies beyond C/2 where the root is not, at
 * NEWTON_SHRINK times it. Stops when |d| < tol. *start_violation gets
 * |d| at the start: the row counts as settled only if no step is needed.
 * *steps counts the Newton steps taken.
 */
static double newton_small_half(double C, double a, double current, double lin, double tol,
	double *start_violation, int *steps)
{
	double v = current <= 0.5 * C ? current : NEWTON_SHRINK * current;
	for (int k = 0; k < NEWTON_MAX_STEPS; k++) {
		double d1 = log(v / (C - v)) + a * (v - current) + lin;
		if (k == 0)
			*start_violation = fabs(d1);
		if (fabs(d1) < tol)
			break;
		double d2 = a + C / ((C - v) * v);
		double next = v - d1 / d2;
		v = next > 0 ? next : v * NEWTON_SHRINK;
		++*steps;
	}
	return v;
}

/*
 * Solves row i's one-variable problem (see the top of the file) to
 * tolerance tol and updates alpha_i, C - alpha_i and w. Returns the
 * row's violation as newton_small_half measures it.
 */
static double lr_row(struct lr_dual *s, int i, double tol, int *steps)
{
	double C = row_cost(s, i);
	double a = s->qd[i];
	double b = s->y[i] * rows_dot(s->X, i, s->w);
	double violation = 0;
	double delta;	/* new alpha_i - old alpha_i */
	if (a * (0.5 * C - s->alpha[i]) + b >= 0) {
		/* the root is in z <= C/2 */
		double z = newton_small_half(C, a, s->alpha[i], b, tol, &violation, steps);
		delta = z - s->alpha[i];
		s->alpha[i] = z;
		s->rest[i] = C - z;
	} else {
		/* the root is in C - z <= C/2: the same problem with the sign of b flipped */
		double r = newton_small_half(C, a, s->rest[i], -b, tol, &violation, steps);
		delta = s->rest[i] - r;
		s->rest[i] = r;
		s->alpha[i] = C - r;
	}
	if (delta != 0)
		rows_axpy(s->X, i, delta * s->y[i], s->w);
	return violation;
}

/*
 * Outer iterations until every row's violation in a pass is below eps.
 * The inner tolerance starts loose and tightens (down to eps or 1e-8)
 * whenever a pass needed few Newton steps, i.e. the rows are nearly
 * settled and more precision costs little.
 */
static int lr_iterate(struct lr_dual *s, double eps, int max_iter, struct rng *rng, int *iter)
{
	int l = s->X->l;
	double inner_eps = INNER_EPS_START;
	double inner_eps_min = fmin(1e-8, eps);
	for (*iter = 0; *iter < max_iter;) {
		rng_shuffle_int(rng, s->index, l);
		int steps = 0;
		double worst = 0;
		for (int k = 0; k < l; k++)
			worst = fmax(worst, lr_row(s, s->index[k], inner_eps, &steps));
		++*iter;
		if (*iter % 10 == 0)
			info(".");
		if (worst < eps)
			return SOLVER_OK;
		if (steps <= l / 10)
			inner_eps = fmax(inner_eps_min, 0.1 * inner_eps);
	}
	return SOLVER_MAX_ITER;
}

/* Upstream's closing lines; the objective is the dual one, minimised. */
static void lr_report(const struct lr_dual *s, int iter)
{
	info("\noptimization finished, #iter = %d\n", iter);
	double v = 0;
	for (int j = 0; j < s->X->n; j++)
		v += s->w[j] * s->w[j];
	v *= 0.5;
	for (int i = 0; i < s->X->l; i++) {
		double C = row_cost(s, i);
		v += s->alpha[i] * log(s->alpha[i]) + s->rest[i] * log(s->rest[i]) - C * log(C);
	}
	info("Objective value = %lf\n", v);
}

int solve_l2r_lr_dual_alpha(const struct row_set *X, const double *y, double Cp, double Cn,
	double eps, int max_iter, struct rng *rng, double *w, double *alpha)
{
	size_t room = X->l > 0 ? (size_t)X->l : 1;
	struct lr_dual s = {
		.X = X, .y = y, .Cp = Cp, .Cn = Cn, .w = w, .alpha = alpha,
		.rest = malloc(room * sizeof(double)), .qd = malloc(room * sizeof(double)),
		.index = malloc(room * sizeof(int)),
	};
	if (!s.rest || !s.qd || !s.index) {
		free(s.rest);
		free(s.qd);
		free(s.index);
		return SOLVER_NOMEM;
	}
	for (int j = 0; j < X->n; j++)
		w[j] = 0;
	for (int i = 0; i < X->l; i++) {
		/* strictly inside (0, C) where the log terms live; tiny so w starts near 0 */
		double C = row_cost(&s, i);
		alpha[i] = fmin(1e-3 * C, 1e-8);
		s.rest[i] = C - alpha[i];
		s.qd[i] = rows_sqnorm(X, i);
		s.index[i] = i;
		rows_axpy(X, i, alpha[i] * y[i], w);
	}
	int iter;
	int status = lr_iterate(&s, eps, max_iter, rng, &iter);
	lr_report(&s, iter);
	free(s.rest);
	free(s.qd);
	free(s.index);
	return status;
}

int solve_l2r_lr_dual(const struct row_set *X, const double *y, double Cp, double Cn,
	double eps, int max_iter, struct rng *rng, double *w)
{
	double *alpha = malloc((X->l > 0 ? (size_t)X->l : 1) * sizeof *alpha);
	if (!alpha)
		return SOLVER_NOMEM;
	int status = solve_l2r_lr_dual_alpha(X, y, Cp, Cn, eps, max_iter, rng, w, alpha);
	free(alpha);
	return status;
}
