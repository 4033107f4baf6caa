/*
 * oneclass.c - two-variable dual coordinate descent for the linear
 * one-class SVM (see oneclass.h).
 *
 * With one equality constraint, a feasible descent step must move two
 * alphas: raise alpha_i (alpha_i < 1, the "up" set) and lower alpha_j
 * (alpha_j > 0, the "low" set) by the same amount; it descends when
 * G_i < G_j. The most violating pair is the smallest gradient of the up
 * set against the largest of the low set (Keerthi et al. 2001; Fan, Chen
 * and Lin 2005). With a linear kernel the whole gradient G = X w costs a
 * pass over the data, so each outer iteration computes it once, picks
 * several of the most violating indices from each side by quick-select,
 * and then updates the pairs (1st smallest up, 1st largest low), (2nd,
 * 2nd), ... with gradients recomputed from the current w, which costs only
 * the two rows.
 *
 * Shrinking (as in LIBSVM): an alpha at 1 whose gradient is below every
 * up-set gradient, or at 0 with its gradient above every low-set gradient,
 * cannot move and leaves the active set until the shrunk problem is
 * solved; then the whole set comes back ("*") and is checked again.
 *
 * Speed: one pass both shrinks and lists the working-set candidates, the
 * pair's x_i . x_j walks the two rows where they lie, and the chosen
 * candidates are sorted by an inline quicksort rather than qsort's
 * callbacks. None of it changes a result: the candidates' order is total
 * (gradient, then row), so the rows chosen and their order are the same
 * whatever order they are listed and sorted in.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include "oneclass.h"
#include "max_min.h"
#include "print.h"
#include "solvers.h"

/* Below this, the curvature ||x_i - x_j||^2 of a pair is taken as this. */
#define MIN_CURVATURE 1e-12

/* A candidate row of the working set with its sort key. */
struct keyed_row {
	double key;
	int row;
};

struct oneclass {
	const struct row_set *X;
	double *w;

	double *alpha;
	double *G;			/* x_t . w, fresh for the active rows */
	double *sqnorm;			/* ||x_t||^2 */
	int *order;			/* rows; the active ones first */
	int active_size;

	struct keyed_row *up;		/* working set: rows to raise (key G), */
	struct keyed_row *low;		/* rows to lower (key -G) */

	/* ROWS_CELLS: two rows' nonzeros, for x_i . x_j (else NULL) */
	struct feature_node *cells_i, *cells_j;
};

static void oneclass_free(struct oneclass *s)
{
	free(s->alpha);
	free(s->G);
	free(s->sqnorm);
	free(s->order);
	free(s->up);
	free(s->low);
	free(s->cells_i);
	free(s->cells_j);
}

/* Allocates the state; returns false (with everything freed) when out of memory. */
static bool oneclass_alloc(struct oneclass *s)
{
	size_t l = s->X->l > 0 ? (size_t)s->X->l : 1;
	s->alpha = malloc(l * sizeof *s->alpha);
	s->G = malloc(l * sizeof *s->G);
	s->sqnorm = malloc(l * sizeof *s->sqnorm);
	s->order = malloc(l * sizeof *s->order);
	s->up = malloc(l * sizeof *s->up);
	s->low = malloc(l * sizeof *s->low);
	bool cells = s->X->kind == ROWS_CELLS;
	if (cells) {
		/* the longest row (cells, raw part, bias) and the end marker */
		size_t room = (size_t)rows_max_nnz(s->X) + 1;
		s->cells_i = malloc(room * sizeof *s->cells_i);
		s->cells_j = malloc(room * sizeof *s->cells_j);
	}
	if (!s->alpha || !s->G || !s->sqnorm || !s->order || !s->up || !s->low
			|| (cells && (!s->cells_i || !s->cells_j))) {
		oneclass_free(s);
		return false;
	}
	return true;
}

/*
 * LIBSVM's start: nu*l alphas at 1 in row order, the fraction after them.
 * check_parameter refuses nu outside (0, 1], but an API caller may skip
 * it: the mass nu*l is clamped to [0, l] first (NaN counts as 0), so no nu
 * can index past alpha or convert an out-of-range double to int.
 */
static void oneclass_init(struct oneclass *s, double nu)
{
	int l = s->X->l;
	double total = nu * l;
	if (!(total > 0))
		total = 0;
	else if (total > l)
		total = l;
	int full = (int)total;
	for (int i = 0; i < l; i++)
		s->alpha[i] = i < full ? 1 : 0;
	if (full < l)
		s->alpha[full] = total - full;

	for (int j = 0; j < s->X->n; j++)
		s->w[j] = 0;
	for (int i = 0; i < l; i++) {
		s->sqnorm[i] = rows_sqnorm(s->X, i);
		s->order[i] = i;
		if (s->alpha[i] != 0)
			rows_axpy(s->X, i, s->alpha[i], s->w);
	}
	s->active_size = l;
}

/*
 * Row i as feature nodes ended by index -1: a ROWS_SPARSE row where it
 * lies, a ROWS_CELLS row written into room (rows_copy_row's indices and
 * values).
 */
static const struct feature_node *oneclass_row(const struct oneclass *s, int i,
	struct feature_node *room)
{
	return rows_node_row(s->X, i, room);
}

/* x_i . x_j, merging the two rows' ascending nonzeros. */
static double oneclass_row_dot(struct oneclass *s, int i, int j)
{
	const struct feature_node *a = oneclass_row(s, i, s->cells_i);
	const struct feature_node *b = oneclass_row(s, j, s->cells_j);
	double dot = 0;
	while (a->index != -1 && b->index != -1) {
		if (a->index == b->index)
			dot += (a++)->value * (b++)->value;
		else if (a->index < b->index)
			a++;
		else
			b++;
	}
	return dot;
}

/* The extreme gradients of the active rows that may rise and may fall. */
struct extremes {
	double min_up;		/* min G_t over alpha_t < 1 */
	double max_low;		/* max G_t over alpha_t > 0 */
};

static struct extremes oneclass_gradient(struct oneclass *s)
{
	struct extremes e = {INFINITY, -INFINITY};
	for (int p = 0; p < s->active_size; p++) {
		int t = s->order[p];
		s->G[t] = rows_dot(s->X, t, s->w);
		if (s->alpha[t] < 1)
			e.min_up = min2(e.min_up, s->G[t]);
		if (s->alpha[t] > 0)
			e.max_low = max2(e.max_low, s->G[t]);
	}
	return e;
}

/*
 * Sets aside the active rows that cannot move, and lists the others that
 * may rise (up, key G) and fall (low, key -G); returns their counts.
 */
static void oneclass_shrink_and_list(struct oneclass *s, struct extremes e, int *n_up, int *n_low)
{
	int nu = 0, nl = 0;
	for (int p = 0; p < s->active_size; p++) {
		int t = s->order[p];
		double a = s->alpha[t], G = s->G[t];
		bool stuck = (a == 1 && G < e.min_up) || (a == 0 && G > e.max_low);
		if (stuck) {
			int last = --s->active_size;
			s->order[p] = s->order[last];
			s->order[last] = t;
			p--;
			continue;
		}
		if (a < 1)
			s->up[nu++] = (struct keyed_row){G, t};
		if (a > 0)
			s->low[nl++] = (struct keyed_row){-G, t};
	}
	*n_up = nu;
	*n_low = nl;
}

/* Smaller key first; equal keys by row index, so the order is total. */
static bool keyed_before(const struct keyed_row *a, const struct keyed_row *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return a->row < b->row;
}

static void swap_keyed(struct keyed_row *a, struct keyed_row *b)
{
	struct keyed_row t = *a;
	*a = *b;
	*b = t;
}

/* Below this many rows, sort_keyed inserts. */
#define SORT_INSERTION 16

/*
 * Sorts v[0..count-1] by keyed_before: quicksort on the median of three,
 * recursing into the smaller side only (depth O(log count)), insertion
 * for short runs. The order is total, so the result is the one sorted
 * order.
 */
static void sort_keyed(struct keyed_row *v, int count)
{
	while (count > SORT_INSERTION) {
		int mid = count / 2, last = count - 1;
		/* v[0] <= v[mid] <= v[last], then the median goes to the end as pivot. */
		if (keyed_before(&v[mid], &v[0]))
			swap_keyed(&v[mid], &v[0]);
		if (keyed_before(&v[last], &v[0]))
			swap_keyed(&v[last], &v[0]);
		if (keyed_before(&v[last], &v[mid]))
			swap_keyed(&v[last], &v[mid]);
		swap_keyed(&v[mid], &v[last]);
		int store = 0;
		for (int i = 0; i < last; i++)
			if (keyed_before(&v[i], &v[last]))
				swap_keyed(&v[i], &v[store++]);
		swap_keyed(&v[store], &v[last]);
		/* v[0..store-1] < pivot = v[store] < v[store+1..count-1] */
		int left = store, right = count - store - 1;
		if (left < right) {
			sort_keyed(v, left);
			v += store + 1;
			count = right;
		} else {
			sort_keyed(v + store + 1, right);
			count = left;
		}
	}
	for (int a = 1; a < count; a++) {
		struct keyed_row x = v[a];
		int b = a;
		for (; b > 0 && keyed_before(&x, &v[b - 1]); b--)
			v[b] = v[b - 1];
		v[b] = x;
	}
}

/*
 * Leaves the q first of v[0..count-1] in v[0..q-1], sorted. Quick-select
 * with random pivots, then a sort of the q; the order is total, so the
 * result does not depend on the pivots.
 */
static void select_first(struct keyed_row *v, int count, int q, struct rng *rng)
{
	int lo = 0, hi = count - 1, target = q - 1;
	while (lo < hi) {
		int p = lo + (int)rng_below(rng, (uint64_t)(hi - lo) + 1);
		swap_keyed(&v[p], &v[hi]);
		int store = lo;
		for (int i = lo; i < hi; i++)
			if (keyed_before(&v[i], &v[hi]))
				swap_keyed(&v[i], &v[store++]);
		swap_keyed(&v[store], &v[hi]);
		if (store == target)
			break;
		if (store < target)
			lo = store + 1;
		else
			hi = store - 1;
	}
	sort_keyed(v, q);
}

/* How many pairs an outer iteration updates. */
static int oneclass_pairs_wanted(int active_size)
{
	int q = active_size / 10;
	return q > 1 ? q : 1;
}

/* Moves alpha_i up and alpha_j down by the optimal feasible step. */
static void oneclass_update_pair(struct oneclass *s, int i, int j)
{
	if (i == j || s->alpha[i] >= 1 || s->alpha[j] <= 0)
		return;
	double Gi = rows_dot(s->X, i, s->w), Gj = rows_dot(s->X, j, s->w);
	if (Gj - Gi <= 0)
		return;
	double curvature = s->sqnorm[i] + s->sqnorm[j] - 2 * oneclass_row_dot(s, i, j);
	if (curvature <= 0)
		curvature = MIN_CURVATURE;
	double step = (Gj - Gi) / curvature;
	double room_i = 1 - s->alpha[i], room_j = s->alpha[j];
	if (step >= room_i && room_i <= room_j) {
		step = room_i;
		s->alpha[i] = 1;
		s->alpha[j] = room_j - room_i;
	} else if (step >= room_j) {
		step = room_j;
		s->alpha[i] += room_j;
		s->alpha[j] = 0;
	} else {
		s->alpha[i] += step;
		s->alpha[j] -= step;
	}
	rows_axpy(s->X, i, step, s->w);
	rows_axpy(s->X, j, -step, s->w);
}

/*
 * Shrinks the active set, picks the most violating rows of what is left
 * and updates them in pairs.
 */
static void oneclass_inner(struct oneclass *s, struct extremes e, struct rng *rng)
{
	int n_up, n_low;
	oneclass_shrink_and_list(s, e, &n_up, &n_low);
	int q = oneclass_pairs_wanted(s->active_size);
	if (q > n_up)
		q = n_up;
	if (q > n_low)
		q = n_low;
	if (q == 0)
		return;
	select_first(s->up, n_up, q, rng);
	select_first(s->low, n_low, q, rng);
	for (int p = 0; p < q; p++)
		oneclass_update_pair(s, s->up[p].row, s->low[p].row);
}

/* Objective, nSV and rho from the final alphas; prints them. */
static void oneclass_report(struct oneclass *s, double *rho)
{
	int l = s->X->l;
	double obj = 0;
	for (int j = 0; j < s->X->n; j++)
		obj += s->w[j] * s->w[j];
	obj *= 0.5;

	int nSV = 0, n_free = 0;
	double free_sum = 0, upper = INFINITY, lower = -INFINITY;
	for (int t = 0; t < l; t++) {
		double G = rows_dot(s->X, t, s->w);
		if (s->alpha[t] > 0)
			nSV++;
		if (s->alpha[t] == 0)
			upper = min2(upper, G);
		else if (s->alpha[t] == 1)
			lower = max2(lower, G);
		else {
			n_free++;
			free_sum += G;
		}
	}
	*rho = n_free > 0 ? free_sum / n_free : (upper + lower) / 2;
	info("Objective value = %lf\n", obj);
	info("nSV = %d\n", nSV);
	info("rho = %lf\n", *rho);
}

int solve_oneclass_svm(const struct row_set *X, double nu, double eps, int max_iter,
	struct rng *rng, double *w, double *rho)
{
	struct oneclass s = {0};
	s.X = X;
	s.w = w;
	if (!oneclass_alloc(&s))
		return SOLVER_NOMEM;
	oneclass_init(&s, nu);

	int iter = 0;
	while (iter < max_iter) {
		struct extremes e = oneclass_gradient(&s);
		if (e.max_low - e.min_up < eps) {
			if (s.active_size == X->l)
				break;
			s.active_size = X->l;
			info("*");
			continue;
		}
		oneclass_inner(&s, e, rng);
		iter++;
		if (iter % 10 == 0)
			info(".");
	}

	info("\noptimization finished, #iter = %d\n", iter);
	if (iter >= max_iter)
		info("\nWARNING: reaching max number of iterations\n\n");
	oneclass_report(&s, rho);
	oneclass_free(&s);
	return iter >= max_iter ? SOLVER_MAX_ITER : SOLVER_OK;
}
