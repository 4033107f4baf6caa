/*
 * dual_svr.c - dual coordinate descent for L2-regularised L1- and L2-loss
 * SVR (dual_svr.h).
 *
 * With beta_i = alpha+_i - alpha-_i, the two dual variables of a row
 * merge into one whose cost carries p |beta_i| (Ho and Lin, JMLR 2012).
 * The one-variable problem in d = (new beta_i) - beta_i,
 *
 *     min_d  p |beta_i + d| + G d + 0.5 H d^2,  -U <= beta_i + d <= U,
 *
 * with G = w.x_i - y_i + D_ii beta_i and H = (Q + D)_ii, has a closed form:
 * the smooth parts on either side of 0 are quadratics with slopes G + p
 * (beta > 0) and G - p (beta < 0) at d = 0.
 */
#include <math.h>
#include <stdlib.h>
#include "dual_svr.h"
#include "max_min.h"
#include "print.h"
#include "solvers.h"

/* Steps at rounding level are not worth a pass over the row. */
#define STEP_NEGLIGIBLE 1e-12

struct svr_dual {
	const struct row_set *X;
	const double *y;
	double p;
	double upper;		/* U */
	double diag;		/* D_ii */
	double *w;
	double *beta;
	double *qd;		/* (Q + D)_ii */
	int *index;		/* row numbers; the first `active` are not shrunk */
	int active;
};

/* What one pass measured: the largest and the summed optimality violation. */
struct svr_violation {
	double max;
	double sum;
};

/*
 * How far beta_i is from optimal for its one-variable problem: the size
 * of the smallest element of the subdifferential (0 when optimal).
 * *firmly is set when beta_i sits at 0 or at a bound with the whole
 * subdifferential more than `margin` inside the optimal side.
 */
static double svr_row_violation(const struct svr_dual *s, double b, double g, double margin,
	bool *firmly)
{
	double gp = g + s->p, gn = g - s->p;
	*firmly = false;
	if (b == 0) {
		if (gp < 0)
			return -gp;
		if (gn > 0)
			return gn;
		*firmly = gp > margin && gn < -margin;
		return 0;
	}
	if (b >= s->upper) {
		*firmly = gp < -margin;
		return max2(gp, 0);
	}
	if (b <= -s->upper) {
		*firmly = gn > margin;
		return max2(-gn, 0);
	}
	return b > 0 ? fabs(gp) : fabs(gn);
}

/* The exact minimiser of the one-variable problem of row i; w follows. */
static void svr_step(struct svr_dual *s, int i, double g)
{
	double b = s->beta[i], h = s->qd[i];
	double gp = g + s->p, gn = g - s->p;
	double nb;
	if (h > 0) {
		if (gp < h * b)
			nb = b - gp / h;
		else if (gn > h * b)
			nb = b - gn / h;
		else
			nb = 0;
	} else if (gp < 0) {	/* an all-zero row under the L1 loss: linear on each side of 0 */
		nb = s->upper;
	} else if (gn > 0) {
		nb = -s->upper;
	} else {
		nb = 0;
	}
	nb = min2(max2(nb, -s->upper), s->upper);
	if (fabs(nb - b) <= STEP_NEGLIGIBLE)
		return;
	s->beta[i] = nb;
	rows_axpy(s->X, i, nb - b, s->w);
}

static void svr_shrink(struct svr_dual *s, int k)
{
	s->active--;
	int tmp = s->index[k];
	s->index[k] = s->index[s->active];
	s->index[s->active] = tmp;
}

/*
 * One sweep over the active rows in a random order. Rows held firmly at
 * 0 or a bound by more than the last pass's largest violation are shrunk.
 */
static struct svr_violation svr_pass(struct svr_dual *s, double margin, struct rng *rng)
{
	struct svr_violation v = {0, 0};
	rng_shuffle_int(rng, s->index, s->active);
	for (int k = 0; k < s->active; k++) {
		int i = s->index[k];
		double b = s->beta[i];
		double g = rows_dot(s->X, i, s->w) - s->y[i] + s->diag * b;
		bool firmly;
		double violation = svr_row_violation(s, b, g, margin, &firmly);
		if (firmly) {
			svr_shrink(s, k);
			k--;	/* slot k now holds an unvisited row */
			continue;
		}
		v.max = max2(violation, v.max);
		v.sum += violation;
		svr_step(s, i, g);
	}
	return v;
}

/*
 * Outer iterations until the summed violation falls to eps times that of
 * the first pass. Convergence on a shrunk problem restores every row
 * ("*") and goes on, so that the shrunk rows are checked too.
 */
static int svr_iterate(struct svr_dual *s, double eps, int max_iter, struct rng *rng, int *iter)
{
	double margin = HUGE_VAL;
	double first_sum = 0;
	for (*iter = 0; *iter < max_iter;) {
		struct svr_violation v = svr_pass(s, margin, rng);
		if (*iter == 0)
			first_sum = v.sum;
		++*iter;
		if (*iter % 10 == 0)
			info(".");
		if (v.sum <= eps * first_sum) {
			if (s->active == s->X->l)
				return SOLVER_OK;
			s->active = s->X->l;
			info("*");
			margin = HUGE_VAL;
			continue;
		}
		margin = v.max;
	}
	return SOLVER_MAX_ITER;
}

/* Upstream's closing lines; the objective is the dual one, minimised. */
static void svr_report(const struct svr_dual *s, int iter)
{
	info("\noptimization finished, #iter = %d\n", iter);
	double v = 0;
	for (int j = 0; j < s->X->n; j++)
		v += s->w[j] * s->w[j];
	v *= 0.5;
	int nsv = 0;
	for (int i = 0; i < s->X->l; i++) {
		double b = s->beta[i];
		v += s->p * fabs(b) - s->y[i] * b + 0.5 * s->diag * b * b;
		if (b != 0)
			nsv++;
	}
	info("Objective value = %lf\n", v);
	info("nSV = %d\n", nsv);
}

int solve_l2r_svr_dual_beta(const struct row_set *X, const double *y, double C, double p,
	bool l1_loss, double eps, int max_iter, struct rng *rng, double *w, double *beta)
{
	size_t room = X->l > 0 ? (size_t)X->l : 1;
	struct svr_dual s = {
		.X = X, .y = y, .p = p, .w = w, .beta = beta, .active = X->l,
		.upper = l1_loss ? C : HUGE_VAL, .diag = l1_loss ? 0 : 0.5 / C,
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
		beta[i] = 0;
		s.qd[i] = rows_sqnorm(X, i) + s.diag;
		s.index[i] = i;
	}
	int iter;
	int status = svr_iterate(&s, eps, max_iter, rng, &iter);
	svr_report(&s, iter);
	free(s.qd);
	free(s.index);
	return status;
}

int solve_l2r_svr_dual(const struct row_set *X, const double *y, double C, double p,
	bool l1_loss, double eps, int max_iter, struct rng *rng, double *w)
{
	double *beta = malloc((X->l > 0 ? (size_t)X->l : 1) * sizeof *beta);
	if (!beta)
		return SOLVER_NOMEM;
	int status = solve_l2r_svr_dual_beta(X, y, C, p, l1_loss, eps, max_iter, rng, w, beta);
	free(beta);
	return status;
}
