/*
 * l1r_lr.c - -s 6: L1-regularised logistic regression by newGLMNET
 * (Yuan, Ho, Lin, JMLR 2012; see l1_solvers.h).
 *
 * Each Newton step approximates L(w) = sum_i C_i log(1 + exp(-y_i w.x_i))
 * by its second-order model with H = X^T D X + nu I, D_ii = C_i tau_i
 * (1 - tau_i), tau_i = 1 / (1 + exp(-y_i w.x_i)), and minimises
 *   q(d) = grad L . d + d.H d / 2 + ||w + d||_1 - ||w||_1
 * by coordinate descent over the active coordinates, keeping x_i . d per
 * row so that (H d)_j costs one column. The inner tolerance starts at the
 * outer measure of the first iterate and drops to a quarter whenever one
 * cycle was enough. A backtracking line search on the full objective,
 *   f(w + lambda d) - f(w) <= sigma lambda (grad L . d + ||w+d||_1 - ||w||_1),
 * then moves w. Both levels shrink coordinates stuck at zero.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "columns.h"
#include "l1_solvers.h"
#include "l1_step.h"
#include "print.h"

#define MAX_NEWTON 100
#define MAX_INNER 1000
#define MAX_LINE_SEARCH 20
#define SIGMA 0.01		/* sufficient decrease fraction */
#define NU 1e-12		/* H's diagonal shift: keeps the inner steps finite */
#define NEGLIGIBLE_STEP 1e-12

struct glmnet {
	struct columns cols;
	int l, n;
	const double *y;
	double *C;		/* cost of each row */
	double *margin;		/* y_i w.x_i */
	double *D;		/* C_i tau_i (1 - tau_i): the Hessian's row weights */
	double *residual;	/* C_i (tau_i - 1) y_i: grad L = X^T residual */
	double *xd;		/* x_i . d */
	double *grad;		/* grad_j L at w */
	double *hdiag;		/* H_jj */
	double *d;		/* the Newton direction */
	int unpenalised;	/* the bias column when it is not regularised, else -1 */
	double loss;		/* L(w) */
};

static double *alloc_doubles(int count)
{
	return malloc((count > 0 ? (size_t)count : 1) * sizeof(double));
}

static void glmnet_free(struct glmnet *s)
{
	columns_free(&s->cols);
	free(s->C);
	free(s->margin);
	free(s->D);
	free(s->residual);
	free(s->xd);
	free(s->grad);
	free(s->hdiag);
	free(s->d);
}

/* log(1 + exp(-m)) without overflow for either sign of m. */
static double logistic_loss(double m)
{
	return m >= 0 ? log1p(exp(-m)) : -m + log1p(exp(m));
}

static double total_loss(const struct glmnet *s, const double *margin)
{
	double sum = 0;
	for (int i = 0; i < s->l; i++)
		sum += s->C[i] * logistic_loss(margin[i]);
	return sum;
}

static int glmnet_init(struct glmnet *s, const struct row_set *X, const double *y,
	double Cp, double Cn, int regularize_bias)
{
	memset(s, 0, sizeof *s);
	s->l = X->l;
	s->n = X->n;
	s->y = y;
	s->unpenalised = regularize_bias ? -1 : X->n - 1;
	s->C = alloc_doubles(s->l);
	s->margin = alloc_doubles(s->l);
	s->D = alloc_doubles(s->l);
	s->residual = alloc_doubles(s->l);
	s->xd = alloc_doubles(s->l);
	s->grad = alloc_doubles(s->n);
	s->hdiag = alloc_doubles(s->n);
	s->d = alloc_doubles(s->n);
	if (!s->C || !s->margin || !s->D || !s->residual || !s->xd || !s->grad
		|| !s->hdiag || !s->d || columns_build(X, &s->cols) != 0) {
		glmnet_free(s);
		return -1;
	}
	for (int i = 0; i < s->l; i++) {
		s->C[i] = y[i] > 0 ? Cp : Cn;
		s->margin[i] = 0;	/* w starts at 0 */
	}
	s->loss = total_loss(s, s->margin);
	return 0;
}

/* Per-row pieces of the gradient and Hessian at the current w. */
static void glmnet_row_weights(struct glmnet *s)
{
	for (int i = 0; i < s->l; i++) {
		double tau = 1 / (1 + exp(-s->margin[i]));
		s->D[i] = s->C[i] * tau * (1 - tau);
		s->residual[i] = s->C[i] * (tau - 1) * s->y[i];
	}
}

static void glmnet_column_derivatives(struct glmnet *s, int j)
{
	double g = 0, h = 0;
	for (size_t k = s->cols.start[j]; k < s->cols.start[j + 1]; k++) {
		int i = s->cols.row[k];
		double v = s->cols.value[k];
		g += s->residual[i] * v;
		h += s->D[i] * v * v;
	}
	s->grad[j] = g;
	s->hdiag[j] = h + NU;
}

/*
 * The shrinking scan of one outer step: derivatives of every coordinate;
 * those stuck at zero (whose violation is 0) go to the end of order[].
 * Returns the number left active and sets the sum and the largest of the
 * violations.
 */
static int glmnet_scan(struct glmnet *s, const double *w, int *order, double margin,
	double *violation, double *max_violation)
{
	int active = s->n;
	double sum = 0;
	*max_violation = 0;
	for (int k = 0; k < active; k++) {
		int j = order[k];
		bool penalised = j != s->unpenalised;
		glmnet_column_derivatives(s, j);
		if (l1_shrinkable(w[j], s->grad[j], penalised, margin)) {
			active--;
			order[k] = order[active];
			order[active] = j;
			k--;
			continue;
		}
		double v = l1_violation(w[j], s->grad[j], penalised);
		sum += v;
		if (v > *max_violation)
			*max_violation = v;
	}
	*violation = sum;
	return active;
}

/*
 * Coordinate descent on q(d) over order[0..active-1] (reordered in
 * place), until the sum of violations is <= tolerance on every active
 * coordinate or after MAX_INNER cycles. Returns the number of cycles.
 */
static int glmnet_subproblem(struct glmnet *s, const double *w, int *order, int active,
	double tolerance, struct rng *rng)
{
	for (int j = 0; j < s->n; j++)
		s->d[j] = 0;
	for (int i = 0; i < s->l; i++)
		s->xd[i] = 0;

	int inner_active = active;
	double max_violation_old = INFINITY;
	int cycle = 0;
	while (cycle < MAX_INNER) {
		double max_violation = 0, violation = 0;
		double margin = l1_shrink_margin(max_violation_old, s->l);
		rng_shuffle_int(rng, order, inner_active);
		for (int k = 0; k < inner_active; k++) {
			int j = order[k];
			bool penalised = j != s->unpenalised;
			double g = s->grad[j] + NU * s->d[j];
			for (size_t e = s->cols.start[j]; e < s->cols.start[j + 1]; e++) {
				int i = s->cols.row[e];
				g += s->D[i] * s->cols.value[e] * s->xd[i];
			}
			double wd = w[j] + s->d[j];
			if (l1_shrinkable(wd, g, penalised, margin)) {
				inner_active--;
				order[k] = order[inner_active];
				order[inner_active] = j;
				k--;
				continue;
			}
			double v = l1_violation(wd, g, penalised);
			violation += v;
			if (v > max_violation)
				max_violation = v;

			double z = l1_newton_step(wd, g, s->hdiag[j], penalised);
			if (fabs(z) < NEGLIGIBLE_STEP)
				continue;
			s->d[j] += z;
			for (size_t e = s->cols.start[j]; e < s->cols.start[j + 1]; e++)
				s->xd[s->cols.row[e]] += z * s->cols.value[e];
		}
		cycle++;
		if (violation <= tolerance) {
			if (inner_active == active)
				break;
			inner_active = active;
			max_violation_old = INFINITY;
			continue;
		}
		max_violation_old = max_violation;
	}
	return cycle;
}

/*
 * Backtracking line search along d over order[0..active-1]. Moves w and
 * the margins and returns true, or returns false (nothing moved) when no
 * step decreased f enough.
 */
static bool glmnet_line_search(struct glmnet *s, double *w, const int *order, int active,
	double *trial_margin)
{
	double predicted = 0;
	for (int k = 0; k < active; k++) {
		int j = order[k];
		predicted += s->grad[j] * s->d[j];
		if (j != s->unpenalised)
			predicted += fabs(w[j] + s->d[j]) - fabs(w[j]);
	}
	double lambda = 1;
	for (int t = 0; t < MAX_LINE_SEARCH; t++, lambda *= 0.5) {
		double reg_change = 0;
		for (int k = 0; k < active; k++) {
			int j = order[k];
			if (j != s->unpenalised)
				reg_change += fabs(w[j] + lambda * s->d[j]) - fabs(w[j]);
		}
		for (int i = 0; i < s->l; i++)
			trial_margin[i] = s->margin[i] + lambda * s->y[i] * s->xd[i];
		double loss = total_loss(s, trial_margin);
		if (reg_change + loss - s->loss <= SIGMA * lambda * predicted) {
			for (int k = 0; k < active; k++)
				w[order[k]] += lambda * s->d[order[k]];
			memcpy(s->margin, trial_margin, (size_t)s->l * sizeof *trial_margin);
			s->loss = loss;
			return true;
		}
	}
	return false;
}

static double glmnet_objective(const struct glmnet *s, const double *w)
{
	double v = s->loss;
	for (int j = 0; j < s->n; j++)
		if (j != s->unpenalised)
			v += fabs(w[j]);
	return v;
}

int solve_l1r_lr(const struct row_set *X, const double *y, double Cp, double Cn,
	double eps, int regularize_bias, struct rng *rng, double *w)
{
	struct glmnet s;
	int n = X->n;
	int *order = malloc((n > 0 ? (size_t)n : 1) * sizeof *order);
	double *trial_margin = alloc_doubles(X->l);
	if (!order || !trial_margin || glmnet_init(&s, X, y, Cp, Cn, regularize_bias) != 0) {
		free(order);
		free(trial_margin);
		return SOLVER_NOMEM;
	}
	for (int j = 0; j < n; j++) {
		w[j] = 0;
		order[j] = j;
	}

	/*
	 * Every Newton step rescans all coordinates, so a shrunk one comes
	 * back as soon as its gradient leaves [-1, 1], and the measure over
	 * the active ones is the measure over all (the shrunk add 0).
	 */
	double max_violation_old = INFINITY;
	double violation_init = 0, inner_tolerance = 0;
	int iter = 0;
	while (iter < MAX_NEWTON) {
		glmnet_row_weights(&s);
		double violation, max_violation;
		int active = glmnet_scan(&s, w, order, l1_shrink_margin(max_violation_old, X->l),
			&violation, &max_violation);
		if (iter == 0) {
			violation_init = violation;
			inner_tolerance = violation;
		}
		if (violation <= eps * violation_init)
			break;
		max_violation_old = max_violation;

		int cycles = glmnet_subproblem(&s, w, order, active, inner_tolerance, rng);
		if (cycles == 1)
			inner_tolerance *= 0.25;
		if (cycles >= MAX_INNER)
			info("WARNING: reaching max number of inner iterations\n");
		bool moved = glmnet_line_search(&s, w, order, active, trial_margin);
		iter++;
		info("iter %3d  #CD cycles %d\n", iter, cycles);
		/* No step of a descent direction decreased f: rounding has the last word. */
		if (!moved)
			break;
	}

	info("=========================\n");
	info("optimization finished, #iter = %d\n", iter);
	if (iter >= MAX_NEWTON)
		info("WARNING: reaching max number of iterations\n");
	info("Objective value = %lf\n", glmnet_objective(&s, w));
	info("#nonzeros/#features = %d/%d\n", l1_count_nonzeros(w, n), n);

	glmnet_free(&s);
	free(order);
	free(trial_margin);
	return iter >= MAX_NEWTON ? SOLVER_MAX_ITER : SOLVER_OK;
}
