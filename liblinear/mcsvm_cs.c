/*
 * mcsvm_cs.c - the sequential dual method for the Crammer-Singer
 * multi-class SVM (see mcsvm_cs.h).
 *
 * Each pass visits the active instances in a random order. For instance i
 * the k dual variables alpha_i^m form a small problem with one equality,
 *
 *   min_beta  sum_m 0.5 A (beta_m - alpha_m)^2 + G_m (beta_m - alpha_m)
 *   s.t.      sum_m beta_m = 0,  beta_m <= C_m,          A = ||x_i||^2,
 *
 * whose solution is beta_m = C_m - max(0, D_m - lambda) / A with
 * D_m = G_m - A alpha_m + A C_m and lambda the root of
 * sum_m max(0, D_m - lambda) = A C_{y_i}, found by sorting D (Crammer and
 * Singer's fixed-point solution).
 *
 * Shrinking: a class sitting at its bound (alpha_i^m = 0 for m != y_i,
 * alpha_i^{y_i} = C_{y_i}) whose gradient is below every movable gradient
 * of the instance is likely to stay there (at the sub-problem's optimum a
 * bounded G_m is <= lambda = every free G_m) and is set aside; an instance
 * left with one class is set aside too. Shrinking y_i matters: rows with
 * alpha_i^{y_i} = C (bounded support vectors, most rows of a9a) otherwise
 * stay active, each pass computing their gradients for nothing (a9a: 3.8x
 * the time). With y_i set aside at C, the others solve the same
 * sub-problem, their sum held at -C_{y_i} (see mcsvm_update).
 * Cooling: the shrunk problem is first solved to a loose tolerance,
 * max(10 eps, 1); each time it meets the tolerance the whole set is
 * brought back and the tolerance halves, down to eps, where a pass over
 * the whole set decides whether to stop.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include "mcsvm_cs.h"
#include "max_min.h"
#include "print.h"
#include "solvers.h"

struct mcsvm {
	const struct row_set *X;
	const int *y;			/* class of each row */
	int k;				/* number of classes */
	const double *C;		/* cost of each class */
	double *w;			/* feature-major, X->n * k */

	double *alpha;			/* l * k, alpha[i*k + m] */
	double *sqnorm;			/* ||x_i||^2 */
	int *classes;			/* l * k; row i's active classes first */
	int *n_active;			/* active classes of each row */
	int *order;			/* rows; the active ones first */
	int active_size;

	/* scratch for one instance */
	const struct feature_node *row;	/* its nonzeros, ended by index -1 */
	struct feature_node *cell_row;	/* room for a ROWS_CELLS row (else NULL) */
	double *G;			/* k gradients */
	double *D;			/* k sub-problem thresholds */
	double *sorted;			/* the same, sorted */
	double *beta;			/* k new alpha_i^m */
	double *delta;			/* k changes of alpha_i^m */
	int *moved;			/* classes whose alpha_i^m changed */
};

static void mcsvm_free(struct mcsvm *s)
{
	free(s->alpha);
	free(s->sqnorm);
	free(s->classes);
	free(s->n_active);
	free(s->order);
	free(s->cell_row);
	free(s->G);
	free(s->D);
	free(s->sorted);
	free(s->beta);
	free(s->delta);
	free(s->moved);
}

/* Allocates the state; returns false (with everything freed) when out of memory. */
static bool mcsvm_alloc(struct mcsvm *s)
{
	size_t l = (size_t)s->X->l, k = (size_t)s->k;
	size_t lk = l * k > 0 ? l * k : 1;
	size_t l1 = l > 0 ? l : 1;
	s->alpha = calloc(lk, sizeof *s->alpha);
	s->sqnorm = malloc(l1 * sizeof *s->sqnorm);
	s->classes = malloc(lk * sizeof *s->classes);
	s->n_active = malloc(l1 * sizeof *s->n_active);
	s->order = malloc(l1 * sizeof *s->order);
	/* the longest row (cells, raw part, bias) and the end marker */
	if (s->X->kind == ROWS_CELLS)
		s->cell_row = malloc(((size_t)rows_max_nnz(s->X) + 1) * sizeof *s->cell_row);
	s->G = malloc(k * sizeof *s->G);
	s->D = malloc(k * sizeof *s->D);
	s->sorted = malloc(k * sizeof *s->sorted);
	s->beta = malloc(k * sizeof *s->beta);
	s->delta = malloc(k * sizeof *s->delta);
	s->moved = malloc(k * sizeof *s->moved);
	if (!s->alpha || !s->sqnorm || !s->classes || !s->n_active || !s->order
			|| (s->X->kind == ROWS_CELLS && !s->cell_row) || !s->G || !s->D || !s->sorted
			|| !s->beta || !s->delta || !s->moved) {
		mcsvm_free(s);
		return false;
	}
	return true;
}

/* Every instance and every class active again. */
static void mcsvm_activate_all(struct mcsvm *s)
{
	for (int i = 0; i < s->X->l; i++)
		s->n_active[i] = s->k;
	s->active_size = s->X->l;
}

static void mcsvm_init(struct mcsvm *s)
{
	size_t wlen = (size_t)s->X->n * (size_t)s->k;
	for (size_t j = 0; j < wlen; j++)
		s->w[j] = 0;
	for (int i = 0; i < s->X->l; i++) {
		s->sqnorm[i] = rows_sqnorm(s->X, i);
		s->order[i] = i;
		int *cls = s->classes + (size_t)i * (size_t)s->k;
		for (int m = 0; m < s->k; m++)
			cls[m] = m;
	}
	mcsvm_activate_all(s);
}

/* Upper bound of alpha_i^m. */
static double mcsvm_bound(const struct mcsvm *s, int i, int m)
{
	return m == s->y[i] ? s->C[m] : 0;
}

/*
 * Points s->row at row i as feature nodes: a ROWS_SPARSE row is read where
 * it lies (counting and copying it first cost a9a about a fifth of the
 * solver's time), a ROWS_CELLS row is written out into the scratch, with
 * the indices and values rows_copy_row gives.
 */
static void mcsvm_load_row(struct mcsvm *s, int i)
{
	s->row = rows_node_row(s->X, i, s->cell_row);
}

/*
 * Loads row i and sets G[m] = w_m.x_i + [m != y_i] for the row's active
 * classes (with shrinking, usually a few of the k).
 */
static void mcsvm_gradient(struct mcsvm *s, int i)
{
	int k = s->k, na = s->n_active[i];
	const int *cls = s->classes + (size_t)i * (size_t)k;
	mcsvm_load_row(s, i);
	/*
	 * Class by class, summing in a local: accumulating into G[] feature by
	 * feature made every addition wait on the store before it. The sums
	 * run over the features in the same order either way.
	 */
	for (int p = 0; p < na; p++) {
		int m = cls[p];
		double g = m == s->y[i] ? 0 : 1;
		for (const struct feature_node *f = s->row; f->index != -1; f++)
			g += s->w[(size_t)(f->index - 1) * (size_t)k + (size_t)m] * f->value;
		s->G[m] = g;
	}
}

static int descending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

/*
 * Sorts v[0..n-1] in descending order. The sub-problems usually have a few
 * active classes, where insertion in place beats qsort's calls (and glibc's
 * merge sort); many classes go to qsort. Either way the same sorted values.
 */
static void sort_descending(double *v, int n)
{
	if (n > 16) {
		qsort(v, (size_t)n, sizeof *v, descending);
		return;
	}
	for (int a = 1; a < n; a++) {
		double x = v[a];
		int b = a;
		for (; b > 0 && v[b - 1] < x; b--)
			v[b] = v[b - 1];
		v[b] = x;
	}
}

/*
 * The lambda with sum_p max(0, D[p] - lambda) = budget (>= 0) over the
 * count values of D, which must be sorted in descending order.
 */
static double mcsvm_lambda(const double *D, int count, double budget)
{
	double sum = 0, lambda = D[0];
	for (int r = 1; r <= count; r++) {
		sum += D[r - 1];
		lambda = (sum - budget) / r;
		if (r == count || lambda >= D[r])
			break;
	}
	return lambda;
}

/*
 * Solves instance i's sub-problem over its active classes and applies the
 * change to alpha and w. The set-aside classes keep their bounds: 0 for
 * m != y_i, and C_{y_i} for y_i, so the active alphas sum to 0 with y_i
 * active and to -C_{y_i} without it; with beta_m = C_m - max(0, D_m -
 * lambda) / A both read sum_active max(0, D_m - lambda) = A C_{y_i}, the
 * one equation mcsvm_lambda solves.
 */
static void mcsvm_update(struct mcsvm *s, int i)
{
	int k = s->k, na = s->n_active[i], yi = s->y[i];
	const int *cls = s->classes + (size_t)i * (size_t)k;
	double *a = s->alpha + (size_t)i * (size_t)k;
	double A = s->sqnorm[i];

	for (int p = 0; p < na; p++) {
		int m = cls[p];
		s->D[p] = s->G[m] - A * a[m] + A * mcsvm_bound(s, i, m);
		s->sorted[p] = s->D[p];
	}
	sort_descending(s->sorted, na);
	double lambda = mcsvm_lambda(s->sorted, na, A * s->C[yi]);

	/*
	 * The formula gives exact bounds (0, or C_{y_i}) where D <= lambda, so
	 * the bound tests of the violation and of shrinking stay exact. When
	 * every other class stays at 0 the equality makes alpha_i^{y_i}
	 * exactly 0 too, instead of the rounding left of C - (D - lambda) / A
	 * (only with y_i active: set aside, it sits at C and the others cannot
	 * all be 0).
	 */
	bool others_zero = true, yi_active = false;
	for (int p = 0; p < na; p++) {
		int m = cls[p];
		if (m == yi)
			yi_active = true;
		s->beta[m] = mcsvm_bound(s, i, m) - max2(0, s->D[p] - lambda) / A;
		if (m != yi && s->beta[m] != 0)
			others_zero = false;
	}
	if (others_zero && yi_active)
		s->beta[yi] = 0;

	int n_moved = 0;
	for (int p = 0; p < na; p++) {
		int m = cls[p];
		s->delta[m] = s->beta[m] - a[m];
		if (s->delta[m] != 0) {
			a[m] = s->beta[m];
			s->moved[n_moved++] = m;
		}
	}
	for (const struct feature_node *f = s->row; f->index != -1; f++) {
		double *wj = s->w + (size_t)(f->index - 1) * (size_t)k;
		double v = f->value;
		for (int q = 0; q < n_moved; q++)
			wj[s->moved[q]] += s->delta[s->moved[q]] * v;
	}
}

/*
 * Visits instance i: shrinks its classes that cannot move, and solves its
 * sub-problem when it violates optimality. Returns the violation seen
 * (-INFINITY for a row that never moves); *retire is set when the instance
 * has nothing left to optimise.
 */
static double mcsvm_visit(struct mcsvm *s, int i, bool *retire)
{
	int k = s->k;
	int *cls = s->classes + (size_t)i * (size_t)k;
	const double *a = s->alpha + (size_t)i * (size_t)k;

	*retire = false;
	if (s->sqnorm[i] == 0) {
		/* A zero row does not change w; upstream leaves its alphas at 0. */
		*retire = true;
		return -INFINITY;
	}
	mcsvm_gradient(s, i);

	double maxG = -INFINITY, minG = INFINITY;
	for (int p = 0; p < s->n_active[i]; p++) {
		int m = cls[p];
		maxG = max2(maxG, s->G[m]);
		if (a[m] < mcsvm_bound(s, i, m))
			minG = min2(minG, s->G[m]);
	}
	for (int p = 0; p < s->n_active[i]; p++) {
		int m = cls[p];
		if (a[m] == mcsvm_bound(s, i, m) && s->G[m] < minG) {
			int last = --s->n_active[i];
			cls[p] = cls[last];
			cls[last] = m;
			p--;
		}
	}
	if (s->n_active[i] <= 1)
		*retire = true;
	double violation = maxG - minG;
	if (!*retire && violation > 0)
		mcsvm_update(s, i);
	return violation;
}

/* One pass over the active instances in random order; returns the largest violation. */
static double mcsvm_pass(struct mcsvm *s, struct rng *rng)
{
	double worst = -INFINITY;
	rng_shuffle_int(rng, s->order, s->active_size);
	for (int p = 0; p < s->active_size; p++) {
		bool retire;
		double v = mcsvm_visit(s, s->order[p], &retire);
		worst = max2(worst, v);
		if (retire) {
			/* The row swapped in from the end has not been visited yet. */
			int last = --s->active_size;
			int tmp = s->order[p];
			s->order[p] = s->order[last];
			s->order[last] = tmp;
			p--;
		}
	}
	return worst;
}

/* Prints the dual objective and the number of nonzero alpha_i^m. */
static void mcsvm_report(const struct mcsvm *s)
{
	size_t wlen = (size_t)s->X->n * (size_t)s->k;
	double obj = 0;
	for (size_t j = 0; j < wlen; j++)
		obj += s->w[j] * s->w[j];
	obj *= 0.5;
	int nSV = 0;
	for (int i = 0; i < s->X->l; i++) {
		const double *a = s->alpha + (size_t)i * (size_t)s->k;
		for (int m = 0; m < s->k; m++) {
			if (m != s->y[i])
				obj += a[m];
			if (a[m] != 0)
				nSV++;
		}
	}
	info("Objective value = %lf\n", obj);
	info("nSV = %d\n", nSV);
}

int solve_mcsvm_cs(const struct row_set *X, const int *class_of_row, int nr_class,
	const double *C_of_class, double eps, int max_iter, struct rng *rng, double *w)
{
	struct mcsvm s = {0};
	s.X = X;
	s.y = class_of_row;
	s.k = nr_class;
	s.C = C_of_class;
	s.w = w;
	if (!mcsvm_alloc(&s))
		return SOLVER_NOMEM;
	mcsvm_init(&s);

	double tol = fmax(10 * eps, 1.0);
	bool whole_set = true;	/* the coming pass starts from every variable */
	int iter = 0;
	while (iter < max_iter) {
		double violation = mcsvm_pass(&s, rng);
		iter++;
		if (iter % 10 == 0)
			info(".");
		if (violation < tol) {
			if (whole_set && violation < eps)
				break;
			mcsvm_activate_all(&s);
			info("*");
			tol = fmax(tol / 2, eps);
			whole_set = true;
		} else {
			whole_set = false;
		}
	}

	info("\noptimization finished, #iter = %d\n", iter);
	if (iter >= max_iter)
		info("\nWARNING: reaching max number of iterations\n");
	mcsvm_report(&s);
	mcsvm_free(&s);
	return iter >= max_iter ? SOLVER_MAX_ITER : SOLVER_OK;
}
