/*
 * l2r_primal.c - L2-regularised LR, L2-loss SVC and L2-loss SVR in the
 * primal, minimised by the truncated Newton driver (see l2r_primal.h,
 * solvers.h, newton.h; Lin, Weng & Keerthi, JMLR 2008; Galli & Lin 2022).
 *
 * With z = X w, f and its derivatives depend on the rows only through z:
 *   grad f = w_reg + X^T (C .* loss'(z)),
 *   H v    = v_reg + X^T (C .* loss''(z) .* X v),
 * and along a direction s, f(w + a s) needs only z + a X s and three dot
 * products of w and s. So each line search step costs O(l), not a pass
 * over the rows.
 *
 * Threads. The rows are cut into parts (struct row_parts) whose number
 * depends on the data only; loops over rows run as OpenMP loops over the
 * parts. Results are bit-identical for any thread count because every
 * floating-point sum is taken in an order fixed by the data:
 *  - scalar sums over rows (the loss): part k sums its rows in row order
 *    into part_sum[k], and the part sums are added in part order;
 *  - X^T products (gradient, H v, diag(H)) are summed in one of two ways,
 *    chosen from the data's shape (l2r_objective_init):
 *    by row parts, when n is small next to the nonzeros: part k adds its
 *    rows into its own n-vector in part_acc, and the vectors are added in
 *    part order, by column chunks on all threads;
 *    by columns, when partial n-vectors would cost too much: element j is
 *    the sum over all rows in row order. One thread gets it by adding row
 *    after row into the output; several threads walk a column-major copy
 *    of X (columns.h), one column at a time, in ascending row order. Both
 *    perform the same additions in the same order (rows with coefficient
 *    0 are skipped by both), so they agree to the bit.
 * Loops that write one value per row (X w, X s, loss derivatives,
 * line_accept) only need the split. diag(H) adds weight[i] x_ij^2 through
 * rows_axpy_squared, row by row, like the other X^T products.
 */

/*
 * The two ways of summing X^T products agree only if neither fuses
 * a * x + s into one rounding (an FMA) where the other does not: forbid
 * contraction in this file, before the includes so that it covers the
 * rows.h functions too. (GCC does not contract in ISO C mode, -std=c11.)
 */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "l2r_primal.h"
#include "vec.h"

/* A part has at least this many rows, so that a thread's work is worth it. */
static const int PART_MIN_ROWS = 1024;
/* At most this many parts: the most threads the row loops can use. */
static const int PART_MAX = 24;
/*
 * Part counts from this on are multiples of it, so that 2, 3, 4, 6 or 12
 * threads get equal numbers of parts (below it, counts are even).
 */
static const int PART_GRAIN = 12;

/* Rows of at least this many nonzeros on average take dot products in pairs (rows_dots). */
static const int PAIR_ROW_NNZ = 32;

/* A cache line (64 bytes on current x86-64 and ARM cores). */
enum { CACHE_LINE = 64 };

/* Columns added up together when combining partial vectors (fits in L1). */
static const size_t COMBINE_CHUNK = 1024;
/* Columns a thread takes at a time when summing by columns. */
enum { COLUMN_CHUNK = 256 };

static int threads_available(void)
{
#ifdef _OPENMP
	return omp_get_max_threads();
#else
	return 1;
#endif
}

/*
 * count rounded up so that count elements of elem_size bytes (a divisor
 * of CACHE_LINE) fill whole cache lines. Per-thread or per-part buffers
 * that many elements apart, in a block aligned to a line, never share a
 * line: threads writing them do not slow each other down.
 */
static size_t whole_lines(size_t count, size_t elem_size)
{
	size_t per_line = CACHE_LINE / elem_size;
	return (count + per_line - 1) / per_line * per_line;
}

static int part_begin(const struct row_parts *pt, int k)
{
	return (int)((int64_t)k * pt->l / pt->count);
}

static struct row_parts row_parts_for(int l)
{
	struct row_parts pt;
	pt.l = l;
	int count = l / PART_MIN_ROWS;
	if (count > PART_MAX)
		count = PART_MAX;
	if (count >= PART_GRAIN)
		count -= count % PART_GRAIN;
	else if (count > 1)
		count -= count % 2;
	pt.count = count < 1 ? 1 : count;
	return pt;
}

/*
 * Summing X^T products by row parts costs, per part, n doubles of memory
 * and about 3n memory operations per product (clear, then add into the
 * output). Allowed while that stays below 1/4 of the
 * nonzeros: then combining costs a small fraction of the row work (about
 * 3 operations a nonzero), and the partial vectors take at most an
 * eighth of the memory of the rows (16 bytes a nonzero).
 */
static bool sum_by_columns(const struct row_parts *pt, size_t n, int64_t nnz)
{
	return pt->count > 1 && n > 0 && nnz / (4 * (int64_t)n) < pt->count;
}

/* ---- the losses, as functions of z = x_i . w ---- */

static double log_one_plus_exp_minus(double t)
{
	/* log(1 + e^-t) without overflow for t << 0. */
	return t >= 0 ? log1p(exp(-t)) : -t + log1p(exp(t));
}

/* max(0, x) for x never NaN; compiles to a compare and select, no branch. */
static inline double positive_part(double x)
{
	return x > 0 ? x : 0;
}

/*
 * C[i] * loss of row i at z. The L2 losses take max(0, .) rather than
 * branching on the margin: the line search evaluates every row at each
 * step, and a branch taken at random (rows on either side of the margin)
 * cost it about twice upstream's time on w8a. C (m m) with m = 0 is the
 * 0 the branch gave.
 */
static double row_loss(const struct l2r_objective *o, int i, double z)
{
	double yi = o->y[i];
	switch (o->loss) {
	case L2R_LOSS_LR:
		return o->C[i] * log_one_plus_exp_minus(yi * z);
	case L2R_LOSS_L2SVC: {
		double margin = positive_part(1 - yi * z);
		return o->C[i] * margin * margin;
	}
	case L2R_LOSS_L2SVR: {
		double excess = positive_part(fabs(z - yi) - o->p);
		return o->C[i] * excess * excess;
	}
	}
	return 0;
}

/* C[i] times the first and (generalised) second derivative in z. */
static void row_derivatives(const struct l2r_objective *o, int i, double z, double *d1, double *d2)
{
	double yi = o->y[i], Ci = o->C[i];
	*d1 = 0;
	*d2 = 0;
	switch (o->loss) {
	case L2R_LOSS_LR: {
		double sigma = 1 / (1 + exp(-yi * z));
		*d1 = Ci * (sigma - 1) * yi;
		*d2 = Ci * sigma * (1 - sigma);
		break;
	}
	case L2R_LOSS_L2SVC: {
		double margin = 1 - yi * z;
		if (margin > 0) {
			*d1 = -2 * Ci * yi * margin;
			*d2 = 2 * Ci;
		}
		break;
	}
	case L2R_LOSS_L2SVR: {
		double r = z - yi;
		if (r > o->p) {
			*d1 = 2 * Ci * (r - o->p);
			*d2 = 2 * Ci;
		} else if (r < -o->p) {
			*d1 = 2 * Ci * (r + o->p);
			*d2 = 2 * Ci;
		}
		break;
	}
	}
}

/* ---- loops over rows (see the comment at the top) ---- */

/*
 * Every parallel loop runs on at most o->threads threads (fixed at init)
 * and only when there is more than one
 * part; the schedule of part loops is dynamic because parts differ in cost.
 */

/*
 * out[i] = x_i . v for rows [begin, end); with o->pair_rows two rows at a
 * time (rows_dot_pair, the same sums). Pairs pay where the additions'
 * latency is what a row costs: rows of one length (their loop exits are
 * predicted) or long ones (a9a, letter, satimage -s 0: 8% to 24% fewer
 * samples in H v). Rows of many short lengths lose by them (w8a: 8% more:
 * the mispredicted loop exits cost more, and there are more of them).
 */
static void rows_dots(const struct l2r_objective *o, int begin, int end, const double *v,
	double *out)
{
	if (!o->pair_rows) {
		for (int i = begin; i < end; i++)
			out[i] = rows_dot(o->X, i, v);
		return;
	}
	int i = begin;
	for (; i + 1 < end; i += 2)
		rows_dot_pair(o->X, i, i + 1, v, &out[i], &out[i + 1]);
	if (i < end)
		out[i] = rows_dot(o->X, i, v);
}

/* out[i] = x_i . v for every row. */
static void rows_times(const struct l2r_objective *o, const double *v, double *out)
{
	#pragma omp parallel for schedule(dynamic, 1) num_threads(o->threads) if(o->threads > 1)
	for (int k = 0; k < o->parts.count; k++) {
		int end = part_begin(&o->parts, k + 1);
		rows_dots(o, part_begin(&o->parts, k), end, v, out);
	}
}

/* The partial sums in part order. */
static double add_part_sums(const struct l2r_objective *o)
{
	double total = 0;
	for (int k = 0; k < o->parts.count; k++)
		total += o->part_sum[k];
	return total;
}

/* sum_i C[i] loss(z[i] + step zs[i]); zs may be NULL (step unused). */
static double loss_sum(const struct l2r_objective *o, const double *zs, double step)
{
	#pragma omp parallel for schedule(dynamic, 1) num_threads(o->threads) if(o->threads > 1)
	for (int k = 0; k < o->parts.count; k++) {
		int end = part_begin(&o->parts, k + 1);
		double part = 0;
		for (int i = part_begin(&o->parts, k); i < end; i++) {
			double zi = zs ? o->z[i] + step * zs[i] : o->z[i];
			part += row_loss(o, i, zi);
		}
		o->part_sum[k] = part;
	}
	return add_part_sums(o);
}

/*
 * z = X w and sum_i C[i] loss(z[i]), in one pass over the rows. At w = 0
 * (where every solve from scratch starts) z is +0 without the pass: each
 * dot product adds terms +-0 to +0, which stays +0 (for finite values,
 * which the reader and the models' users give).
 */
static double rows_times_and_loss(const struct l2r_objective *o, const double *w)
{
	bool zero = vec_all_zero(o->n, w);
	#pragma omp parallel for schedule(dynamic, 1) num_threads(o->threads) if(o->threads > 1)
	for (int k = 0; k < o->parts.count; k++) {
		int begin = part_begin(&o->parts, k), end = part_begin(&o->parts, k + 1);
		if (zero)
			memset(o->z + begin, 0, (size_t)(end - begin) * sizeof *o->z);
		else
			rows_dots(o, begin, end, w, o->z);
		double part = 0;
		for (int i = begin; i < end; i++)
			part += row_loss(o, i, o->z[i]);
		o->part_sum[k] = part;
	}
	return add_part_sums(o);
}

/* Rows [begin, end)'s loss derivatives at z: dloss, and D for the Hessian. */
static void derivatives(const struct l2r_objective *o, int begin, int end)
{
	for (int i = begin; i < end; i++)
		row_derivatives(o, i, o->z[i], &o->dloss[i], &o->D[i]);
}

/* The row's coefficient in H v's X^T product: weight[i] (x_i . v), 0 when weight[i] is. */
static double hessian_coefficient(const struct l2r_objective *o, int i, const double *weight,
	const double *v)
{
	return weight[i] == 0 ? 0 : weight[i] * rows_dot(o->X, i, v);
}

/* ---- X^T products by row parts ---- */

/*
 * Row i's share of the gradient's X^T product, acc += dloss[i] x_i, and,
 * when diag is not NULL, of diag(X^T D X), diag_j += D[i] x_ij^2, in one
 * pass over the row. A row of coefficient 0 is skipped by either sum, as
 * in the separate sums (and column_sums), so both come out bit for bit.
 */
static void gradient_row(const struct l2r_objective *o, int i, double *acc, double *diag)
{
	double a = o->dloss[i], d = diag ? o->D[i] : 0;
	if (a != 0 && d != 0)
		rows_axpy_and_squared(o->X, i, a, acc, d, diag);
	else if (a != 0)
		rows_axpy(o->X, i, a, acc);
	else if (d != 0)
		rows_axpy_squared(o->X, i, d, diag);
}

/*
 * Group k's rows in H (D[i] != 0), ascending, at o->in_h + begin: the
 * Hessian products then visit just those rows, as the loops over all rows
 * did when they skipped D[i] == 0, with the same additions in the same
 * order. For the L2 losses most rows are outside H once w fits (w8a -s 2:
 * about 9 in 10), and testing D[i] row by row cost a mispredicted branch
 * for many of them: a third of each H v.
 */
static void list_rows_in_h(const struct l2r_objective *o, int k, int begin, int end)
{
	int *list = o->in_h + begin, count = 0;
	for (int i = begin; i < end; i++) {
		/* Written always, kept (count moves on) only when in H: no branch. */
		list[count] = i;
		count += o->D[i] != 0;
	}
	o->in_h_count[k] = count;
}

/*
 * One group's share of the loss gradient: derivatives, then acc += sum_i
 * dloss[i] x_i; the group's rows in H for the Hessian products; and, when
 * diag is not NULL, diag += sum_{i in H} D[i] x_i^2 (squared elementwise)
 * in the same pass over the rows. Why fused: the preconditioner of the
 * next CG needs diag(H) at this very point, and a separate pass reads
 * every row again (w8a -s 0: a tenth of train()).
 */
static void part_loss_gradient(const struct l2r_objective *o, int k, int begin, int end,
	const double *unused_v, double *acc, double *diag)
{
	(void)unused_v;
	derivatives(o, begin, end);
	list_rows_in_h(o, k, begin, end);
	if (o->loss == L2R_LOSS_LR) {
		/* D can underflow to 0 where dloss does not: every row. */
		for (int i = begin; i < end; i++)
			gradient_row(o, i, acc, diag);
		return;
	}
	/*
	 * The L2 losses have dloss != 0 only where D != 0 (both carry the
	 * factor C[i] and the same margin test), so H's rows are all the
	 * gradient needs; gradient_row's test of dloss stays (it almost never
	 * fails) to skip exactly the rows column_sums skips.
	 */
	const int *list = o->in_h + begin;
	for (int c = 0; c < o->in_h_count[k]; c++)
		gradient_row(o, list[c], acc, diag);
}

/* One group's share of H v's X^T product: acc += sum_{i in H} D[i] (x_i . v) x_i. */
static void part_hessian_times(const struct l2r_objective *o, int k, int begin, int end,
	const double *v, double *acc, double *unused_acc2)
{
	(void)unused_acc2;
	(void)end;
	const int *list = o->in_h + begin;
	for (int c = 0; c < o->in_h_count[k]; c++) {
		int i = list[c];
		rows_axpy(o->X, i, o->D[i] * rows_dot(o->X, i, v), acc);
	}
}

/*
 * part_hessian_times for o->pair_rows (see rows_dots), two rows at a
 * time: both dot products first (they read v only), then the two updates
 * of acc in row order, as one row at a time. A function of its own: with
 * both loops in one, GCC compiles the one-row loop worse (w8a: 8% more
 * samples in H v).
 */
static void part_hessian_times_paired(const struct l2r_objective *o, int k, int begin, int end,
	const double *v, double *acc, double *unused_acc2)
{
	(void)unused_acc2;
	(void)end;
	const int *list = o->in_h + begin;
	int count = o->in_h_count[k], c = 0;
	for (; c + 1 < count; c += 2) {
		int i = list[c], j = list[c + 1];
		double di, dj;
		rows_dot_pair(o->X, i, j, v, &di, &dj);
		rows_axpy(o->X, i, o->D[i] * di, acc);
		rows_axpy(o->X, j, o->D[j] * dj, acc);
	}
	if (c < count) {
		int i = list[c];
		rows_axpy(o->X, i, o->D[i] * rows_dot(o->X, i, v), acc);
	}
}

/* One group's share of diag(X^T D X): acc_j += sum_{i in H} D[i] x_ij^2. */
static void part_weighted_squares(const struct l2r_objective *o, int k, int begin, int end,
	const double *unused, double *acc, double *unused_acc2)
{
	(void)unused_acc2;
	(void)unused;
	(void)end;
	const int *list = o->in_h + begin;
	for (int c = 0; c < o->in_h_count[k]; c++) {
		int i = list[c];
		rows_axpy_squared(o->X, i, o->D[i], acc);
	}
}

/*
 * A group of rows' share of one X^T product into acc, or, for kernels
 * that make two at once (the gradient and diag(H)), of a second one into
 * acc2 when acc2 is not NULL.
 */
typedef void part_kernel(const struct l2r_objective *o, int k, int begin, int end,
	const double *v, double *acc, double *acc2);

/* out[j] += add[j] on the regularised columns; add may be NULL. */
static void add_to_regularised(const struct l2r_objective *o, const double *add, double *out)
{
	if (!add)
		return;
	for (size_t j = 0; j < o->n_reg; j++)
		out[j] += add[j];
}

/* Part k's partial vector in the block of them at base (part_acc or part_acc2). */
static double *part_vector(const struct l2r_objective *o, double *base, int k)
{
	return base + (size_t)k * o->part_stride;
}

/*
 * out[lo..hi) = the parts' partial vectors added in part order (the first
 * one copied, as if added to 0), then + add[j] for the regularised
 * columns when add is not NULL.
 */
static void add_parts_to(const struct l2r_objective *o, double *base, size_t lo, size_t hi,
	const double *add, double *out)
{
	memcpy(out + lo, part_vector(o, base, 0) + lo, (hi - lo) * sizeof *out);
	for (int k = 1; k < o->acc_parts.count; k++) {
		const double *acc = part_vector(o, base, k);
		for (size_t j = lo; j < hi; j++)
			out[j] += acc[j];
	}
	if (!add)
		return;
	size_t reg_hi = hi < o->n_reg ? hi : o->n_reg;
	for (size_t j = lo; j < reg_hi; j++)
		out[j] += add[j];
}

/*
 * out = the kernel summed over all rows + add on the regularised columns,
 * and, when out2 is not NULL, out2 = the kernel's second sum (nothing
 * added). With one group of rows the kernel adds straight into out (and
 * out2); with several, each part adds into its own partial vectors (never
 * into out: out may share cache lines with vectors that other threads
 * read meanwhile), and the vectors are added in part order.
 */
static void sum_parts(const struct l2r_objective *o, part_kernel *kernel,
	const double *v, const double *add, double *out, double *out2)
{
	const struct row_parts *pt = &o->acc_parts;
	size_t n = o->n;
	if (pt->count == 1) {
		memset(out, 0, n * sizeof *out);
		if (out2)
			memset(out2, 0, n * sizeof *out2);
		kernel(o, 0, 0, pt->l, v, out, out2);
		add_to_regularised(o, add, out);
		return;
	}
	size_t chunks = (n + COMBINE_CHUNK - 1) / COMBINE_CHUNK;
	#pragma omp parallel num_threads(o->threads) if(o->threads > 1)
	{
		#pragma omp for schedule(dynamic, 1)
		for (int k = 0; k < pt->count; k++) {
			double *acc = part_vector(o, o->part_acc, k), *acc2 = NULL;
			memset(acc, 0, n * sizeof *acc);
			if (out2) {
				acc2 = part_vector(o, o->part_acc2, k);
				memset(acc2, 0, n * sizeof *acc2);
			}
			kernel(o, k, part_begin(pt, k), part_begin(pt, k + 1), v, acc, acc2);
		}
		#pragma omp for schedule(static)
		for (size_t c = 0; c < chunks; c++) {
			size_t lo = c * COMBINE_CHUNK, hi = lo + COMBINE_CHUNK < n ? lo + COMBINE_CHUNK : n;
			add_parts_to(o, o->part_acc, lo, hi, add, out);
			if (out2)
				add_parts_to(o, o->part_acc2, lo, hi, NULL, out2);
		}
	}
}

/* ---- X^T products by columns, on several threads ---- */

/*
 * out[j] = sum over column j's rows, ascending, of coef[i] x_ij (or
 * coef[i] x_ij x_ij when squared), skipping rows of coef 0, then + add[j]
 * on the regularised columns when add is not NULL.
 */
static void column_sums(const struct l2r_objective *o, const double *coef, bool squared,
	const double *add, double *out)
{
	const struct columns *c = &o->columns;
	#pragma omp parallel for schedule(dynamic, COLUMN_CHUNK) num_threads(o->threads)
	for (int j = 0; j < c->n; j++) {
		double s = 0;
		for (size_t k = c->start[j]; k < c->start[j + 1]; k++) {
			double a = coef[c->row[k]];
			if (a == 0)
				continue;
			s += squared ? a * c->value[k] * c->value[k] : a * c->value[k];
		}
		if (add && (size_t)j < o->n_reg)
			s += add[j];
		out[j] = s;
	}
}

/* Rows' loss derivatives, all rows, in parallel. */
static void all_derivatives(const struct l2r_objective *o)
{
	#pragma omp parallel for schedule(dynamic, 1) num_threads(o->threads)
	for (int k = 0; k < o->parts.count; k++)
		derivatives(o, part_begin(&o->parts, k), part_begin(&o->parts, k + 1));
}

/* row_coef[i] = hessian_coefficient(i), all rows, in parallel. */
static void all_hessian_coefficients(const struct l2r_objective *o, const double *v)
{
	#pragma omp parallel for schedule(dynamic, 1) num_threads(o->threads)
	for (int k = 0; k < o->parts.count; k++) {
		int end = part_begin(&o->parts, k + 1);
		for (int i = part_begin(&o->parts, k); i < end; i++)
			o->row_coef[i] = hessian_coefficient(o, i, o->D, v);
	}
}

/* ---- the newton_objective callbacks ---- */

/* Whether X^T products go through the column copy (by columns, several threads). */
static bool use_columns(const struct l2r_objective *o)
{
	return o->columns.start != NULL;
}

static double objective_value(void *ctx, const double *w)
{
	struct l2r_objective *o = ctx;
	return 0.5 * vec_dot(o->n_reg, w, w) + rows_times_and_loss(o, w);
}

static void objective_gradient(void *ctx, const double *w, double *g)
{
	struct l2r_objective *o = ctx;
	if (use_columns(o)) {
		all_derivatives(o);
		column_sums(o, o->dloss, false, w, g);
	} else {
		sum_parts(o, part_loss_gradient, NULL, w, g, o->diag);
		o->diag_ready = o->diag != NULL;
	}
}

static void objective_hessian_times(void *ctx, const double *v, double *Hv)
{
	struct l2r_objective *o = ctx;
	if (use_columns(o)) {
		all_hessian_coefficients(o, v);
		column_sums(o, o->row_coef, false, v, Hv);
	} else {
		sum_parts(o, o->pair_rows ? part_hessian_times_paired : part_hessian_times, v, v, Hv,
			NULL);
	}
}

static void objective_hessian_diag(void *ctx, double *diag)
{
	struct l2r_objective *o = ctx;
	if (o->diag_ready)
		memcpy(diag, o->diag, o->n * sizeof *diag);
	else if (use_columns(o))
		column_sums(o, o->D, true, NULL, diag);
	else
		sum_parts(o, part_weighted_squares, NULL, NULL, diag, NULL);
	for (size_t j = 0; j < o->n_reg; j++)
		diag[j] += 1;
}

static void objective_line_prepare(void *ctx, const double *w, const double *s)
{
	struct l2r_objective *o = ctx;
	rows_times(o, s, o->zs);
	o->wTw = vec_dot(o->n_reg, w, w);
	o->wTs = vec_dot(o->n_reg, w, s);
	o->sTs = vec_dot(o->n_reg, s, s);
}

static double objective_line_value(void *ctx, double step)
{
	struct l2r_objective *o = ctx;
	double reg = o->wTw + 2 * step * o->wTs + step * step * o->sTs;
	return 0.5 * reg + loss_sum(o, o->zs, step);
}

static void objective_line_accept(void *ctx, double step)
{
	struct l2r_objective *o = ctx;
	/* The same expression as in loss_sum, so z is what line_value saw. */
	#pragma omp parallel for schedule(static) num_threads(o->threads) if(o->threads > 1)
	for (int k = 0; k < o->parts.count; k++) {
		int end = part_begin(&o->parts, k + 1);
		for (int i = part_begin(&o->parts, k); i < end; i++)
			o->z[i] = o->z[i] + step * o->zs[i];
	}
}

/* ---- setup ---- */

/*
 * diag(H) summed with the gradient (part_loss_gradient) needs a second
 * set of partial vectors when there are several row groups: allowed
 * while both sets stay within sum_by_columns's budget of a quarter of
 * the nonzeros (in doubles). One group needs none.
 */
static bool diag_with_gradient_fits(const struct row_parts *acc_parts, size_t n, int64_t nnz)
{
	return acc_parts->count == 1 || nnz / (8 * (int64_t)(n > 0 ? n : 1)) >= acc_parts->count;
}

/*
 * The cached diag(H) and, with several row groups, its partial vectors.
 * Without the memory, diag(H) is summed in a pass of its own: slower, the
 * same values.
 */
static void diag_with_gradient_alloc(struct l2r_objective *o)
{
	size_t n = o->n > 0 ? o->n : 1;
	o->diag = malloc(n * sizeof *o->diag);
	if (o->acc_parts.count > 1)
		o->part_acc2 = aligned_alloc(CACHE_LINE,
			(size_t)o->acc_parts.count * o->part_stride * sizeof *o->part_acc2);
	if (o->diag && (o->acc_parts.count == 1 || o->part_acc2))
		return;
	free(o->diag);
	free(o->part_acc2);
	o->diag = o->part_acc2 = NULL;
}

struct newton_objective l2r_objective_newton(struct l2r_objective *o)
{
	struct newton_objective f;
	f.ctx = o;
	f.n = o->n;
	f.value = objective_value;
	f.gradient = objective_gradient;
	f.hessian_times = objective_hessian_times;
	f.hessian_diag = objective_hessian_diag;
	f.line_prepare = objective_line_prepare;
	f.line_value = objective_line_value;
	f.line_accept = objective_line_accept;
	return f;
}

/*
 * Summing by columns on several threads needs the column copy and one
 * coefficient per row. Without the memory for them, the threads add row
 * after row as one thread would: slower, but the same result.
 */
static void columns_for_threads(struct l2r_objective *o)
{
	size_t l = o->parts.l > 0 ? (size_t)o->parts.l : 1;
	o->row_coef = malloc(l * sizeof *o->row_coef);
	if (o->row_coef && columns_build(o->X, &o->columns) == 0)
		return;
	free(o->row_coef);
	o->row_coef = NULL;
	memset(&o->columns, 0, sizeof o->columns);
}

int l2r_objective_init(struct l2r_objective *o, const struct row_set *X, const double *y,
	const double *C, enum l2r_loss loss, double p, int regularize_bias)
{
	memset(o, 0, sizeof *o);
	o->X = X;
	o->y = y;
	o->C = C;
	o->loss = loss;
	o->p = p;
	o->n = X->n > 0 ? (size_t)X->n : 0;
	o->n_reg = (!regularize_bias && o->n > 0) ? o->n - 1 : o->n;

	o->parts = row_parts_for(X->l);
	/*
	 * The nonzeros, counted only as far as the choices below look:
	 * diag_with_gradient_fits's test is the highest (8 n part counts).
	 * Most data passes it within a few rows: no pass over all of them.
	 */
	int64_t nnz = 0, enough = 8 * (int64_t)(o->n > 0 ? o->n : 1) * o->parts.count;
	int counted = 0, same_length = 0, last = -1;
	for (; counted < X->l && nnz < enough; counted++) {
		int length = rows_nnz(X, counted);
		nnz += length;
		same_length += length == last;
		last = length;
	}
	/*
	 * Dot products in pairs (rows_dots) where rows_dot_pair really pairs
	 * rows and, judged on the rows counted (all, or at least 8 n nonzeros'
	 * worth), rows are long or 3 in 4 have their predecessor's length.
	 */
	o->pair_rows = X->kind == ROWS_SPARSE && counted > 1
		&& (nnz >= (int64_t)PAIR_ROW_NNZ * counted || 4 * same_length >= 3 * (counted - 1));
	o->by_columns = sum_by_columns(&o->parts, o->n, nnz);
	o->acc_parts = o->parts;
	if (o->by_columns)
		o->acc_parts.count = 1;
	int threads = threads_available();
	o->threads = threads < o->parts.count ? threads : o->parts.count;

	size_t l = X->l > 0 ? (size_t)X->l : 1;
	size_t n = o->n > 0 ? o->n : 1;
	o->z = malloc(l * sizeof *o->z);
	o->zs = malloc(l * sizeof *o->zs);
	o->dloss = malloc(l * sizeof *o->dloss);
	o->D = malloc(l * sizeof *o->D);
	o->part_stride = whole_lines(n, sizeof *o->part_acc);
	size_t vectors = o->acc_parts.count > 1 ? (size_t)o->acc_parts.count : 1;
	o->part_acc = aligned_alloc(CACHE_LINE, vectors * o->part_stride * sizeof *o->part_acc);
	o->part_sum = malloc((size_t)o->parts.count * sizeof *o->part_sum);
	o->in_h = malloc(l * sizeof *o->in_h);
	o->in_h_count = calloc((size_t)o->acc_parts.count, sizeof *o->in_h_count);
	if (!o->z || !o->zs || !o->dloss || !o->D || !o->part_acc || !o->part_sum
			|| !o->in_h || !o->in_h_count) {
		l2r_objective_free(o);
		return -1;
	}
	if (o->by_columns && o->threads > 1)
		columns_for_threads(o);
	if (!use_columns(o) && diag_with_gradient_fits(&o->acc_parts, o->n, nnz))
		diag_with_gradient_alloc(o);
	return 0;
}

void l2r_objective_free(struct l2r_objective *o)
{
	free(o->z);
	free(o->zs);
	free(o->dloss);
	free(o->D);
	free(o->part_acc);
	free(o->part_acc2);
	free(o->diag);
	free(o->part_sum);
	free(o->in_h);
	free(o->in_h_count);
	free(o->row_coef);
	if (o->columns.start)
		columns_free(&o->columns);
	o->z = o->zs = o->dloss = o->D = o->part_acc = o->part_acc2 = o->diag = o->part_sum = NULL;
	o->diag_ready = false;
	o->row_coef = NULL;
	o->in_h = o->in_h_count = NULL;
	memset(&o->columns, 0, sizeof o->columns);
}

int solve_l2r_primal(const struct row_set *X, const double *y, const double *C,
	enum l2r_loss loss, double p, int regularize_bias, double eps, double *w)
{
	struct l2r_objective o;
	if (l2r_objective_init(&o, X, y, C, loss, p, regularize_bias) != 0)
		return SOLVER_NOMEM;
	struct newton_objective f = l2r_objective_newton(&o);
	struct newton_params par = newton_default_params(eps);
	int status = newton_minimize(&f, &par, w);
	l2r_objective_free(&o);
	return status;
}
