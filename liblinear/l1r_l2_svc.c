/*
 * l1r_l2_svc.c - -s 5: L1-regularised L2-loss SVC by CDN (see l1_solvers.h).
 *
 * Each pass visits the active coordinates in random order. For coordinate
 * j, with b_i = 1 - y_i w.x_i and I = {i : b_i > 0}, the loss part
 * L(w) = sum_i C_i max(0, b_i)^2 has
 *   L'_j  = -2 sum_{i in I} C_i y_i x_ij b_i,
 *   L''_j =  2 sum_{i in I} C_i x_ij^2     (generalised; L' is not smooth),
 * the Newton step d minimises the quadratic model plus |w_j + d|, and a
 * backtracking line search takes the largest lambda in {1, 1/2, ...} with
 *   f(w + lambda d e_j) - f(w) <= sigma lambda (L'_j d + |w_j + d| - |w_j|).
 * Because every term's second derivative in z is at most 2 C_i x_ij^2, the
 * loss change is at most L'_j z + (sum_i C_i x_ij^2) z^2; when that bound
 * already satisfies the test, the exact change need not be computed.
 *
 * Speed (the column loops are all the time): the loops take max(0, r)
 * without a branch (r > 0 flips at random from row to row, and the
 * mispredicted branches cost more than the arithmetic; adding 0 or u * 0
 * leaves every sum bit for bit as the branch did), and an exact trial
 * writes the trial slacks into r as it sums the change, keeping the old
 * ones in a scratch: the accepted trial is then already applied, instead
 * of a second pass over the column to move r. Where column j and the next
 * coordinate's column list the same rows (dense data: every row), the
 * pass that writes column j's new slacks also sums the next coordinate's
 * derivatives from them (struct next_derivatives): the derivative loop is
 * a chain of dependent additions that runs at the adder's latency, so
 * adding its chains to the update's loop costs little, and a pass over
 * the column is saved (satimage: about half of each coordinate's work).
 * Every sum still adds the same terms in the same order: bit for bit.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "columns.h"
#include "l1_solvers.h"
#include "l1_step.h"
#include "print.h"

#define MAX_PASSES 1000
#define MAX_LINE_SEARCH 20
#define SIGMA 0.01		/* sufficient decrease fraction */
#define MIN_CURVATURE 1e-12	/* keeps the Newton step finite when I misses column j */
#define NEGLIGIBLE_STEP 1e-12

/*
 * Row i enters only through C_i max(0, b_i)^2, so the solver works with
 * rows scaled by sqrt(C_i): u_ij = sqrt(C_i) y_i x_ij and r_i = sqrt(C_i)
 * b_i. Then L = sum max(0, r_i)^2, L'_j = -2 sum_{r_i > 0} u_ij r_i,
 * L''_j = 2 sum_{r_i > 0} u_ij^2, and a step z on w_j moves r_i by
 * -u_ij z: the inner loops read no per-row cost or label.
 */
struct cdn {
	struct columns cols;	/* values are u_ij */
	double *r;		/* sqrt(C_i) (1 - y_i w.x_i) */
	double *row_scale;	/* sqrt(C_i): r_i at w = 0 */
	double *curvature_bound;	/* per column: sum_i u_ij^2 */
	double *saved_r;	/* r of one column's rows before an exact trial */
	bool *full;		/* per column: it lists every row, 0..l-1 */
	int unpenalised;	/* the bias column when it is not regularised, else -1 */
};

/*
 * The next coordinate's L'_j and L''_j sums, taken in the pass that gives
 * column j its final slacks: u is the next column's values (NULL: none
 * asked for), dg and dh its sums, ready once they hold the final r's.
 */
struct next_derivatives {
	const double *u;
	double dg, dh;
	bool ready;
};

static void cdn_free(struct cdn *s)
{
	columns_free(&s->cols);
	free(s->r);
	free(s->row_scale);
	free(s->curvature_bound);
	free(s->saved_r);
	free(s->full);
}

/*
 * Fills columns that list at least PAD_SHARE_NUM/PAD_SHARE_DEN of the
 * rows (each row at most once) with explicit zeros for the rows they
 * miss, so that they list every row and take part in the fused passes
 * (data with a few zeros left out: satimage's columns list 94% to 99% of
 * the rows). A zero changes no sum or slack: its terms are +0 or -0
 * (u = +-0), r is never -0 (it starts at sqrt(C) > 0, and x - x is +0),
 * so r - (+-0) = r, and a sum that starts at +0 and never is -0 is left
 * unchanged by adding +-0. The grown copy costs at most a third more.
 * Returns 0, or -1 when out of memory (cols then unchanged).
 */
enum { PAD_SHARE_NUM = 3, PAD_SHARE_DEN = 4 };

static bool column_to_pad(const struct columns *c, int j, int l)
{
	size_t begin = c->start[j], count = c->start[j + 1] - begin;
	if (count == (size_t)l || count * PAD_SHARE_DEN < (size_t)l * PAD_SHARE_NUM)
		return false;
	for (size_t k = begin + 1; k < begin + count; k++)
		if (c->row[k] <= c->row[k - 1])
			return false;	/* a row twice: leave the column as it is */
	return true;
}

static int pad_near_full_columns(struct columns *c, int l)
{
	size_t total = 0;
	bool any = false;
	for (int j = 0; j < c->n; j++) {
		bool pad = column_to_pad(c, j, l);
		any |= pad;
		total += pad ? (size_t)l : c->start[j + 1] - c->start[j];
	}
	if (!any)
		return 0;
	size_t room = total > 0 ? total : 1;
	size_t *start = malloc(((size_t)c->n + 1) * sizeof *start);
	int *row = malloc(room * sizeof *row);
	double *value = malloc(room * sizeof *value);
	if (!start || !row || !value) {
		free(start);
		free(row);
		free(value);
		return -1;
	}
	size_t at = 0;
	for (int j = 0; j < c->n; j++) {
		start[j] = at;
		size_t begin = c->start[j], end = c->start[j + 1];
		if (!column_to_pad(c, j, l)) {
			for (size_t k = begin; k < end; k++, at++) {
				row[at] = c->row[k];
				value[at] = c->value[k];
			}
			continue;
		}
		for (int i = 0; i < l; i++) {
			row[at + (size_t)i] = i;
			value[at + (size_t)i] = 0;
		}
		for (size_t k = begin; k < end; k++)
			value[at + (size_t)c->row[k]] = c->value[k];
		at += (size_t)l;
	}
	start[c->n] = at;
	int n = c->n;
	columns_free(c);
	c->n = n;
	c->start = start;
	c->row = row;
	c->value = value;
	return 0;
}

static int cdn_init(struct cdn *s, const struct row_set *X, const double *y,
	double Cp, double Cn, int regularize_bias)
{
	size_t l = X->l > 0 ? (size_t)X->l : 1;
	size_t n = X->n > 0 ? (size_t)X->n : 1;
	*s = (struct cdn){ .unpenalised = regularize_bias ? -1 : X->n - 1 };
	s->r = malloc(l * sizeof *s->r);
	s->row_scale = malloc(l * sizeof *s->row_scale);
	s->curvature_bound = malloc(n * sizeof *s->curvature_bound);
	s->full = malloc(n * sizeof *s->full);
	if (!s->r || !s->row_scale || !s->curvature_bound || !s->full
			|| columns_build(X, &s->cols) != 0 || pad_near_full_columns(&s->cols, X->l) != 0)
		goto fail;
	/* Room for the longest column's slacks. */
	size_t longest = 1;
	for (int j = 0; j < X->n; j++)
		if (s->cols.start[j + 1] - s->cols.start[j] > longest)
			longest = s->cols.start[j + 1] - s->cols.start[j];
	s->saved_r = malloc(longest * sizeof *s->saved_r);
	if (!s->saved_r)
		goto fail;
	for (int j = 0; j < X->n; j++) {
		size_t begin = s->cols.start[j];
		bool full = s->cols.start[j + 1] - begin == (size_t)X->l;
		for (int i = 0; full && i < X->l; i++)
			full = s->cols.row[begin + (size_t)i] == i;
		s->full[j] = full;
	}
	for (int i = 0; i < X->l; i++) {
		s->row_scale[i] = sqrt(y[i] > 0 ? Cp : Cn);
		s->r[i] = s->row_scale[i];	/* w starts at 0 */
	}
	for (int j = 0; j < X->n; j++) {
		double sum = 0;
		for (size_t k = s->cols.start[j]; k < s->cols.start[j + 1]; k++) {
			int i = s->cols.row[k];
			double u = s->row_scale[i] * y[i] * s->cols.value[k];
			s->cols.value[k] = u;
			sum += u * u;
		}
		s->curvature_bound[j] = sum;
	}
	return 0;
fail:
	cdn_free(s);	/* columns_free and free take the NULLs of what was not made */
	return -1;
}

/*
 * The column loops' arithmetic, on "lanes": on x86-64 the low half of an
 * SSE2 register (__m128d, only its low double used), else a double. Why:
 * max(0, x) and (x > 0 ? v : 0) must be branch-free (r > 0 flips at
 * random from row to row, and mispredicted branches cost more than the
 * arithmetic), and GCC compiles the plain conditionals to compares and
 * jumps; maxsd and a compare mask give exactly what they give (+0 for
 * x <= 0, -0 included). Values stay in registers from load to store, so
 * no instructions are spent moving doubles in and out of vectors. Every
 * operation is the scalar IEEE one: the same bits either way.
 */
#ifdef __SSE2__
typedef __m128d lane;
static inline lane lane_load(const double *p) { return _mm_load_sd(p); }
static inline void lane_store(double *p, lane x) { _mm_store_sd(p, x); }
static inline lane lane_of(double x) { return _mm_set_sd(x); }
static inline double lane_value(lane x) { return _mm_cvtsd_f64(x); }
static inline lane lane_zero(void) { return _mm_setzero_pd(); }
static inline lane lane_add(lane a, lane b) { return _mm_add_sd(a, b); }
static inline lane lane_sub(lane a, lane b) { return _mm_sub_sd(a, b); }
static inline lane lane_mul(lane a, lane b) { return _mm_mul_sd(a, b); }
/* max(0, x) */
static inline lane lane_positive_part(lane x) { return _mm_max_sd(x, _mm_setzero_pd()); }
/* x > 0 ? v : 0 */
static inline lane lane_if_positive(lane x, lane v)
{
	return _mm_and_pd(_mm_cmpgt_sd(x, _mm_setzero_pd()), v);
}
#else
typedef double lane;
static inline lane lane_load(const double *p) { return *p; }
static inline void lane_store(double *p, lane x) { *p = x; }
static inline lane lane_of(double x) { return x; }
static inline double lane_value(lane x) { return x; }
static inline lane lane_zero(void) { return 0; }
static inline lane lane_add(lane a, lane b) { return a + b; }
static inline lane lane_sub(lane a, lane b) { return a - b; }
static inline lane lane_mul(lane a, lane b) { return a * b; }
static inline lane lane_positive_part(lane x) { return x > 0 ? x : 0; }
static inline lane lane_if_positive(lane x, lane v) { return x > 0 ? v : 0; }
#endif

/*
 * One row's terms of L'_j / -2 and L''_j / 2 (u = u_ij, r = r_i): dg +=
 * u max(0, r), dh += (r > 0 ? u u : 0). Rows with r <= 0 add 0 (or
 * u * 0): the sums are unchanged.
 */
static inline void add_derivative_terms(lane u, lane r, lane *dg, lane *dh)
{
	*dg = lane_add(*dg, lane_mul(u, lane_positive_part(r)));
	*dh = lane_add(*dh, lane_if_positive(r, lane_mul(u, u)));
}

/* L'_j and L''_j from the sums of add_derivative_terms. */
static void finish_derivatives(double dg, double dh, double *g, double *h)
{
	*g = -2 * dg;
	*h = 2 * dh > MIN_CURVATURE ? 2 * dh : MIN_CURVATURE;
}

/* L'_j and L''_j at the current w. */
static void cdn_derivatives(const struct cdn *s, int j, double *g, double *h)
{
	lane dg = lane_zero(), dh = lane_zero();
	for (size_t k = s->cols.start[j]; k < s->cols.start[j + 1]; k++)
		add_derivative_terms(lane_load(&s->cols.value[k]), lane_load(&s->r[s->cols.row[k]]),
			&dg, &dh);
	finish_derivatives(lane_value(dg), lane_value(dh), g, h);
}

/*
 * L(w + z e_j) - L(w), exactly, with the trial applied to r: column j's
 * rows get r_i = saved_r - u_ij z. The first trial of a step (first true)
 * saves their r in saved_r; later trials start again from the saved r, so
 * every trial's slacks and change are what they would be from the
 * untouched r. cdn_restore puts the saved r back.
 *
 * try_loop is cdn_try's loop; un (the next column's values, over the same
 * rows) not NULL also sums its derivative terms from the trial's slacks
 * into nx. Inline, and called with first and un constant, so that each
 * copy tests neither per row.
 */
static inline double try_loop(struct cdn *s, size_t begin, size_t end, double z, bool first,
	const double *un, struct next_derivatives *nx)
{
	lane change = lane_zero(), dg = lane_zero(), dh = lane_zero(), zl = lane_of(z);
	double *saved = s->saved_r - begin;
	for (size_t k = begin; k < end; k++) {
		double *r = &s->r[s->cols.row[k]];
		lane old_r = lane_load(first ? r : &saved[k]);
		if (first)
			lane_store(&saved[k], old_r);
		lane new_r = lane_sub(old_r, lane_mul(lane_load(&s->cols.value[k]), zl));
		lane_store(r, new_r);
		lane p = lane_positive_part(new_r), q = lane_positive_part(old_r);
		/* change += p p - q q */
		change = lane_add(change, lane_sub(lane_mul(p, p), lane_mul(q, q)));
		if (un)
			add_derivative_terms(lane_load(&un[k - begin]), new_r, &dg, &dh);
	}
	if (un) {
		nx->dg = lane_value(dg);
		nx->dh = lane_value(dh);
	}
	return lane_value(change);
}

static double cdn_try(struct cdn *s, int j, double z, bool first, struct next_derivatives *nx)
{
	size_t begin = s->cols.start[j], end = s->cols.start[j + 1];
	if (first)
		return nx->u ? try_loop(s, begin, end, z, true, nx->u, nx)
			: try_loop(s, begin, end, z, true, NULL, nx);
	return nx->u ? try_loop(s, begin, end, z, false, nx->u, nx)
		: try_loop(s, begin, end, z, false, NULL, nx);
}

static void cdn_restore(struct cdn *s, int j)
{
	size_t begin = s->cols.start[j], end = s->cols.start[j + 1];
	for (size_t k = begin; k < end; k++)
		s->r[s->cols.row[k]] = s->saved_r[k - begin];
}

/* w_j += z and the slacks with it; with nx->u, the next coordinate's sums too. */
static void cdn_move(struct cdn *s, int j, double z, double *w, struct next_derivatives *nx)
{
	w[j] += z;
	size_t begin = s->cols.start[j], end = s->cols.start[j + 1];
	if (!nx->u) {
		for (size_t k = begin; k < end; k++)
			s->r[s->cols.row[k]] -= s->cols.value[k] * z;
		return;
	}
	lane dg = lane_zero(), dh = lane_zero(), zl = lane_of(z);
	for (size_t k = begin; k < end; k++) {
		double *r = &s->r[s->cols.row[k]];
		lane new_r = lane_sub(lane_load(r), lane_mul(lane_load(&s->cols.value[k]), zl));
		lane_store(r, new_r);
		add_derivative_terms(lane_load(&nx->u[k - begin]), new_r, &dg, &dh);
	}
	nx->dg = lane_value(dg);
	nx->dh = lane_value(dh);
	nx->ready = true;
}

/* r from scratch, dropping the rounding the updates have accumulated. */
static void cdn_recompute_slacks(struct cdn *s, int l, const double *w)
{
	for (int i = 0; i < l; i++)
		s->r[i] = s->row_scale[i];
	for (int j = 0; j < s->cols.n; j++) {
		if (w[j] == 0)
			continue;
		for (size_t k = s->cols.start[j]; k < s->cols.start[j + 1]; k++)
			s->r[s->cols.row[k]] -= w[j] * s->cols.value[k];
	}
}

/*
 * Backtracks from the step d on coordinate j and takes the first step
 * that decreases f enough. Returns false when none of MAX_LINE_SEARCH
 * steps did (w is then unchanged). With nx->u set, nx->ready says whether
 * nx holds the next coordinate's sums at the final slacks.
 */
static bool cdn_line_search(struct cdn *s, int j, double g, double d, double *w,
	struct next_derivatives *nx)
{
	bool penalised = j != s->unpenalised;
	double wj = w[j];
	double reg_change = penalised ? fabs(wj + d) - fabs(wj) : 0;
	double predicted = g * d + reg_change;	/* < 0 for a descent step */
	double lambda = 1;
	bool tried = false;	/* r holds an exact trial's slacks */
	for (int t = 0; t < MAX_LINE_SEARCH; t++, lambda *= 0.5) {
		double z = lambda * d;
		double allowed = SIGMA * lambda * predicted;
		double reg = penalised ? fabs(wj + z) - fabs(wj) : 0;
		double bound = reg + g * z + s->curvature_bound[j] * z * z;
		if (bound <= allowed) {
			/* Accepted on the bound: r moves from the untouched slacks. */
			if (tried)
				cdn_restore(s, j);
			cdn_move(s, j, z, w, nx);
			return true;
		}
		bool first = !tried;
		tried = true;
		if (reg + cdn_try(s, j, z, first, nx) <= allowed) {
			w[j] += z;	/* r already holds this trial */
			nx->ready = nx->u != NULL;
			return true;
		}
	}
	if (tried)
		cdn_restore(s, j);
	return false;
}

static double cdn_objective(const struct cdn *s, int l, const double *w)
{
	double v = 0;
	for (int j = 0; j < s->cols.n; j++)
		if (j != s->unpenalised)
			v += fabs(w[j]);
	for (int i = 0; i < l; i++)
		if (s->r[i] > 0)
			v += s->r[i] * s->r[i];
	return v;
}

int solve_l1r_l2_svc(const struct row_set *X, const double *y, double Cp, double Cn,
	double eps, int regularize_bias, struct rng *rng, double *w)
{
	int l = X->l, n = X->n;
	struct cdn s;
	int *order = malloc((n > 0 ? (size_t)n : 1) * sizeof *order);
	if (!order || cdn_init(&s, X, y, Cp, Cn, regularize_bias) != 0) {
		free(order);
		return SOLVER_NOMEM;
	}
	for (int j = 0; j < n; j++) {
		w[j] = 0;
		order[j] = j;
	}

	/* order[0..active-1] are the coordinates not shrunk. */
	int active = n;
	double max_violation_old = INFINITY;
	double violation_init = 0;
	int pass = 0;
	while (pass < MAX_PASSES) {
		double max_violation = 0, violation = 0;
		double margin = l1_shrink_margin(max_violation_old, l);
		rng_shuffle_int(rng, order, active);
		/* The sums for order[k] taken with order[k-1]'s step, when ready. */
		struct next_derivatives nx = { NULL, 0, 0, false };
		for (int k = 0; k < active; k++) {
			int j = order[k];
			bool penalised = j != s.unpenalised;
			double g, h;
			if (nx.ready)
				finish_derivatives(nx.dg, nx.dh, &g, &h);
			else
				cdn_derivatives(&s, j, &g, &h);
			nx.ready = false;
			if (l1_shrinkable(w[j], g, penalised, margin)) {
				active--;
				order[k] = order[active];
				order[active] = j;
				k--;
				continue;
			}
			double v = l1_violation(w[j], g, penalised);
			violation += v;
			if (v > max_violation)
				max_violation = v;

			double d = l1_newton_step(w[j], g, h, penalised);
			if (fabs(d) < NEGLIGIBLE_STEP)
				continue;
			/*
			 * order[k + 1] is the next coordinate visited (nothing
			 * reorders order[] between this step and its visit).
			 */
			nx.u = NULL;
			if (k + 1 < active && s.full[j] && s.full[order[k + 1]])
				nx.u = s.cols.value + s.cols.start[order[k + 1]];
			/* A descent step that fails has met rounding built up in r. */
			if (!cdn_line_search(&s, j, g, d, w, &nx)) {
				nx.ready = false;
				cdn_recompute_slacks(&s, l, w);
			}
		}
		if (pass == 0)
			violation_init = violation;
		pass++;
		if (pass % 10 == 0)
			info(".");
		if (violation <= eps * violation_init) {
			if (active == n)
				break;
			/* Converged on the active set: check every coordinate again. */
			active = n;
			info("*");
			max_violation_old = INFINITY;
			continue;
		}
		max_violation_old = max_violation;
	}

	info("\noptimization finished, #iter = %d\n", pass);
	if (pass >= MAX_PASSES)
		info("\nWARNING: reaching max number of iterations\n");
	info("Objective value = %lf\n", cdn_objective(&s, l, w));
	info("#nonzeros/#features = %d/%d\n", l1_count_nonzeros(w, n), n);

	cdn_free(&s);
	free(order);
	return pass >= MAX_PASSES ? SOLVER_MAX_ITER : SOLVER_OK;
}
