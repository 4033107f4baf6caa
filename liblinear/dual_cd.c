/*
 * dual_cd.c - dual coordinate descent for the L2-regularised L1- and
 * L2-loss SVC (solvers.h, dual_cd.h).
 *
 * The dual problem (Hsieh, Chang, Lin, Keerthi, Sundararajan, ICML 2008) is
 *
 *     min_alpha  0.5 alpha' (Q + D) alpha - sum_i alpha_i,  0 <= alpha_i <= U_i,
 *
 * with Q_ij = y_i y_j x_i.x_j. L1 loss: U_i = C_i and D_ii = 0; L2 loss:
 * U_i = infinity and D_ii = 1/(2 C_i). Each outer iteration visits the
 * active rows in a fresh random order and minimises the dual exactly over
 * one alpha_i at a time. w = sum_i alpha_i y_i x_i is kept up to date, so
 * a coordinate step costs two passes over one row.
 */
#include <math.h>
#include <stdlib.h>
#include "dual_cd.h"
#include "max_min.h"
#include "print.h"
#include "solvers.h"

/* Projected gradients whose size is at rounding level are not worth a step. */
#define PG_NEGLIGIBLE 1e-12

/* The box and diagonal shift of the dual variables of one class. */
struct svc_class {
	double upper;	/* U */
	double diag;	/* D_ii */
};

struct svc_dual {
	const struct row_set *X;
	const double *y;
	struct svc_class pos;	/* rows with y > 0 */
	struct svc_class neg;
	double *w;
	double *alpha;
	double *qd;		/* (Q + D)_ii */
	int *index;		/* row numbers; the first `active` are not shrunk */
	int active;
};

/*
 * The extremes of the projected gradient over one pass, with 0 always
 * included. Including 0 makes "max - min <= eps" the same test as
 * upstream's 2.42 rule (gap, |max| and |min| all <= eps), and an empty
 * pass counts as converged.
 */
struct pg_range {
	double max;
	double min;
};

static struct svc_class svc_class_for(double C, bool l1_loss)
{
	struct svc_class c;
	if (l1_loss) {
		c.upper = C;
		c.diag = 0;
	} else {
		c.upper = HUGE_VAL;
		c.diag = 0.5 / C;
	}
	return c;
}

static const struct svc_class *class_of_row(const struct svc_dual *s, int i)
{
	return s->y[i] > 0 ? &s->pos : &s->neg;
}

/* The exact minimiser over alpha_i, given the gradient g there; w follows. */
static void svc_step(struct svc_dual *s, int i, const struct svc_class *c, double g)
{
	double old = s->alpha[i];
	double a;
	if (s->qd[i] > 0)
		a = min2(max2(old - g / s->qd[i], 0), c->upper);
	else	/* an all-zero row under the L1 loss: the dual is linear in alpha_i */
		a = g < 0 ? c->upper : 0;
	s->alpha[i] = a;
	rows_axpy(s->X, i, (a - old) * s->y[i], s->w);
}

/* Moves active row number k behind the active part. */
static void svc_shrink(struct svc_dual *s, int k)
{
	s->active--;
	int tmp = s->index[k];
	s->index[k] = s->index[s->active];
	s->index[s->active] = tmp;
}

/*
 * One sweep over the active rows in a random order. A row at a bound
 * whose gradient points out of the box by more than the last pass's
 * largest violation (the thresholds in `shrink`) is shrunk: such rows
 * rarely move again, and the final unshrunk pass checks them anyway.
 */
static struct pg_range svc_pass(struct svc_dual *s, struct pg_range shrink, struct rng *rng)
{
	struct pg_range pg = {0, 0};
	rng_shuffle_int(rng, s->index, s->active);
	for (int k = 0; k < s->active; k++) {
		int i = s->index[k];
		const struct svc_class *c = class_of_row(s, i);
		double a = s->alpha[i];
		double g = s->y[i] * rows_dot(s->X, i, s->w) - 1 + c->diag * a;
		double projected = g;
		if (a == 0) {
			if (g > shrink.max) {
				svc_shrink(s, k);
				k--;	/* slot k now holds an unvisited row */
				continue;
			}
			projected = min2(g, 0);
		} else if (a == c->upper) {
			if (g < shrink.min) {
				svc_shrink(s, k);
				k--;	/* slot k now holds an unvisited row */
				continue;
			}
			projected = max2(g, 0);
		}
		pg.max = max2(projected, pg.max);
		pg.min = min2(projected, pg.min);
		if (fabs(projected) > PG_NEGLIGIBLE)
			svc_step(s, i, c, g);
	}
	return pg;
}

/*
 * Outer iterations until the projected gradient of the whole problem is
 * within eps of zero. Convergence on a shrunk problem restores every row
 * ("*") and goes on, so that the shrunk rows are checked too.
 */
static int svc_iterate(struct svc_dual *s, double eps, int max_iter, struct rng *rng, int *iter)
{
	const struct pg_range no_shrinking = {HUGE_VAL, -HUGE_VAL};
	struct pg_range shrink = no_shrinking;
	for (*iter = 0; *iter < max_iter;) {
		struct pg_range pg = svc_pass(s, shrink, rng);
		++*iter;
		if (*iter % 10 == 0)
			info(".");
		if (pg.max - pg.min <= eps) {
			if (s->active == s->X->l)
				return SOLVER_OK;
			s->active = s->X->l;
			info("*");
			shrink = no_shrinking;
			continue;
		}
		shrink.max = pg.max > 0 ? pg.max : HUGE_VAL;
		shrink.min = pg.min < 0 ? pg.min : -HUGE_VAL;
	}
	return SOLVER_MAX_ITER;
}

/* w = sum_i alpha_i y_i x_i from scratch, free of the drift of many small updates. */
static void svc_recompute_w(const struct svc_dual *s)
{
	for (int j = 0; j < s->X->n; j++)
		s->w[j] = 0;
	for (int i = 0; i < s->X->l; i++)
		if (s->alpha[i] != 0)
			rows_axpy(s->X, i, s->alpha[i] * s->y[i], s->w);
}

/* Upstream's closing lines; the objective is the dual one, minimised. */
static void svc_report(const struct svc_dual *s, int iter)
{
	info("\noptimization finished, #iter = %d\n", iter);
	double v = 0;
	for (int j = 0; j < s->X->n; j++)
		v += s->w[j] * s->w[j];
	v *= 0.5;
	int nsv = 0;
	for (int i = 0; i < s->X->l; i++) {
		double a = s->alpha[i];
		v += a * (0.5 * class_of_row(s, i)->diag * a - 1);
		if (a > 0)
			nsv++;
	}
	info("Objective value = %lf\n", v);
	info("nSV = %d\n", nsv);
}

/* warm: alpha holds the start point (clipped into the box), else it starts at 0. */
static int svc_dual_from(const struct row_set *X, const double *y, double Cp, double Cn,
	bool l1_loss, double eps, int max_iter, bool w_recalc, struct rng *rng, double *w,
	double *alpha, bool warm)
{
	size_t room = X->l > 0 ? (size_t)X->l : 1;
	struct svc_dual s = {
		.X = X, .y = y, .w = w, .alpha = alpha, .active = X->l,
		.pos = svc_class_for(Cp, l1_loss), .neg = svc_class_for(Cn, l1_loss),
		.qd = malloc(room * sizeof(double)), .index = malloc(room * sizeof(int)),
	};
	if (!s.qd || !s.index) {
		free(s.qd);
		free(s.index);
		return SOLVER_NOMEM;
	}
	for (int j = 0; j < X->n; j++)
		w[j] = 0;
	for (int i = 0; i < X->l; i++) {
		const struct svc_class *c = class_of_row(&s, i);
		alpha[i] = warm ? fmin(fmax(alpha[i], 0), c->upper) : 0;
		s.qd[i] = rows_sqnorm(X, i) + c->diag;
		s.index[i] = i;
	}
	if (warm)
		svc_recompute_w(&s);
	int iter;
	int status = svc_iterate(&s, eps, max_iter, rng, &iter);
	if (w_recalc)
		svc_recompute_w(&s);
	svc_report(&s, iter);
	free(s.qd);
	free(s.index);
	return status;
}

int solve_l2r_svc_dual_alpha(const struct row_set *X, const double *y, double Cp, double Cn,
	bool l1_loss, double eps, int max_iter, bool w_recalc, struct rng *rng, double *w,
	double *alpha)
{
	return svc_dual_from(X, y, Cp, Cn, l1_loss, eps, max_iter, w_recalc, rng, w, alpha, false);
}

int solve_l2r_svc_dual_warm(const struct row_set *X, const double *y, double Cp, double Cn,
	bool l1_loss, double eps, int max_iter, bool w_recalc, struct rng *rng, double *w,
	double *alpha)
{
	return svc_dual_from(X, y, Cp, Cn, l1_loss, eps, max_iter, w_recalc, rng, w, alpha, true);
}

int solve_l2r_svc_dual(const struct row_set *X, const double *y, double Cp, double Cn,
	bool l1_loss, double eps, int max_iter, bool w_recalc, struct rng *rng, double *w)
{
	double *alpha = malloc((X->l > 0 ? (size_t)X->l : 1) * sizeof *alpha);
	if (!alpha)
		return SOLVER_NOMEM;
	int status = solve_l2r_svc_dual_alpha(X, y, Cp, Cn, l1_loss, eps, max_iter, w_recalc,
		rng, w, alpha);
	free(alpha);
	return status;
}
