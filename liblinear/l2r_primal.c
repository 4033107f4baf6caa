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
 * Threads (not used yet): every loop over rows is written per row part
 * (struct row_parts). A part's rows are summed in row order and the parts
 * are added in part order. To parallelise, run the parts of a loop as an
 * OpenMP "parallel for" with one partial sum (scalar loops) or one
 * n-vector (X^T products: part_acc becomes one buffer per part) per part,
 * and one row_index/row_value scratch per thread, then add them in part
 * order as done here: the sums, and hence w, stay bit-identical for any
 * thread count. Loops that write one value per row (X w, X s, loss
 * derivatives, line_accept) need no change beyond the pragma.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "l2r_primal.h"

/* A part has at least this many rows, so that a thread's work is worth it. */
static const int PART_MIN_ROWS = 2048;
/* At most this many parts: the most threads the row loops can use. */
static const int PART_MAX = 16;

static int part_begin(const struct row_parts *pt, int k)
{
	return (int)((int64_t)k * pt->l / pt->count);
}

/*
 * Each part beyond the first costs about 2n to add into an X^T product,
 * so there are no more parts than nnz / 2n: combining never costs more
 * than the row work itself.
 */
static struct row_parts row_parts_for(int l, size_t n, int64_t nnz)
{
	struct row_parts pt;
	pt.l = l;
	int64_t count = l / PART_MIN_ROWS;
	if (n > 0 && nnz / (2 * (int64_t)n) < count)
		count = nnz / (2 * (int64_t)n);
	if (count > PART_MAX)
		count = PART_MAX;
	pt.count = count < 1 ? 1 : (int)count;
	return pt;
}

/* ---- the losses, as functions of z = x_i . w ---- */

static double log_one_plus_exp_minus(double t)
{
	/* log(1 + e^-t) without overflow for t << 0. */
	return t >= 0 ? log1p(exp(-t)) : -t + log1p(exp(t));
}

/* C[i] * loss of row i at z. */
static double row_loss(const struct l2r_objective *o, int i, double z)
{
	double yi = o->y[i];
	switch (o->loss) {
	case L2R_LOSS_LR:
		return o->C[i] * log_one_plus_exp_minus(yi * z);
	case L2R_LOSS_L2SVC: {
		double margin = 1 - yi * z;
		return margin > 0 ? o->C[i] * margin * margin : 0;
	}
	case L2R_LOSS_L2SVR: {
		double excess = fabs(z - yi) - o->p;
		return excess > 0 ? o->C[i] * excess * excess : 0;
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

/* ---- row loops, all per part (see the comment at the top) ---- */

/* out[i] = x_i . v for every row. */
static void rows_times(const struct l2r_objective *o, const double *v, double *out)
{
	for (int k = 0; k < o->parts.count; k++) {
		int end = part_begin(&o->parts, k + 1);
		for (int i = part_begin(&o->parts, k); i < end; i++)
			out[i] = rows_dot(o->X, i, v);
	}
}

/* sum_i C[i] loss(z[i] + step zs[i]); zs may be NULL (step unused). */
static double loss_sum(const struct l2r_objective *o, const double *zs, double step)
{
	double total = 0;
	for (int k = 0; k < o->parts.count; k++) {
		int end = part_begin(&o->parts, k + 1);
		double part = 0;
		for (int i = part_begin(&o->parts, k); i < end; i++) {
			double zi = zs ? o->z[i] + step * zs[i] : o->z[i];
			part += row_loss(o, i, zi);
		}
		total += part;
	}
	return total;
}

/*
 * One part's share of an X^T product: acc += sum_i a_i x_i over rows
 * [begin, end), where a_i = weight[i] * (x_i . v), or weight[i] when v is
 * NULL. Rows of weight 0 are skipped (rows outside the SVC/SVR active set).
 */
static void part_transpose_times(const struct l2r_objective *o, int begin, int end,
	const double *weight, const double *v, double *acc)
{
	for (int i = begin; i < end; i++) {
		if (weight[i] == 0)
			continue;
		double a = v ? weight[i] * rows_dot(o->X, i, v) : weight[i];
		rows_axpy(o->X, i, a, acc);
	}
}

/* One part's share of diag(X^T diag(weight) X): acc_j += sum_i weight[i] x_ij^2. */
static void part_weighted_squares(const struct l2r_objective *o, int begin, int end,
	const double *weight, const double *unused, double *acc)
{
	(void)unused;
	for (int i = begin; i < end; i++) {
		if (weight[i] == 0)
			continue;
		int nnz = rows_nnz(o->X, i);
		rows_copy_row(o->X, i, o->row_index, o->row_value);
		for (int k = 0; k < nnz; k++)
			acc[o->row_index[k] - 1] += weight[i] * o->row_value[k] * o->row_value[k];
	}
}

typedef void part_kernel(const struct l2r_objective *o, int begin, int end,
	const double *weight, const double *v, double *acc);

/* out = the kernel summed over all rows: part 0 first, then each part in order. */
static void sum_parts(const struct l2r_objective *o, part_kernel *kernel,
	const double *weight, const double *v, double *out)
{
	memset(out, 0, o->n * sizeof *out);
	kernel(o, 0, part_begin(&o->parts, 1), weight, v, out);
	for (int k = 1; k < o->parts.count; k++) {
		memset(o->part_acc, 0, o->n * sizeof *o->part_acc);
		kernel(o, part_begin(&o->parts, k), part_begin(&o->parts, k + 1), weight, v, o->part_acc);
		for (size_t j = 0; j < o->n; j++)
			out[j] += o->part_acc[j];
	}
}

static double regularised_dot(const struct l2r_objective *o, const double *a, const double *b)
{
	double s = 0;
	for (size_t j = 0; j < o->n_reg; j++)
		s += a[j] * b[j];
	return s;
}

/* ---- the newton_objective callbacks ---- */

static double objective_value(void *ctx, const double *w)
{
	struct l2r_objective *o = ctx;
	rows_times(o, w, o->z);
	return 0.5 * regularised_dot(o, w, w) + loss_sum(o, NULL, 0);
}

static void objective_gradient(void *ctx, const double *w, double *g)
{
	struct l2r_objective *o = ctx;
	for (int k = 0; k < o->parts.count; k++) {
		int end = part_begin(&o->parts, k + 1);
		for (int i = part_begin(&o->parts, k); i < end; i++)
			row_derivatives(o, i, o->z[i], &o->dloss[i], &o->D[i]);
	}
	sum_parts(o, part_transpose_times, o->dloss, NULL, g);
	for (size_t j = 0; j < o->n_reg; j++)
		g[j] += w[j];
}

static void objective_hessian_times(void *ctx, const double *v, double *Hv)
{
	struct l2r_objective *o = ctx;
	sum_parts(o, part_transpose_times, o->D, v, Hv);
	for (size_t j = 0; j < o->n_reg; j++)
		Hv[j] += v[j];
}

static void objective_hessian_diag(void *ctx, double *diag)
{
	struct l2r_objective *o = ctx;
	sum_parts(o, part_weighted_squares, o->D, NULL, diag);
	for (size_t j = 0; j < o->n_reg; j++)
		diag[j] += 1;
}

static void objective_line_prepare(void *ctx, const double *w, const double *s)
{
	struct l2r_objective *o = ctx;
	rows_times(o, s, o->zs);
	o->wTw = regularised_dot(o, w, w);
	o->wTs = regularised_dot(o, w, s);
	o->sTs = regularised_dot(o, s, s);
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
	for (int i = 0; i < o->parts.l; i++)
		o->z[i] = o->z[i] + step * o->zs[i];
}

/* ---- setup ---- */

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

	int64_t nnz = 0;
	int max_row_nnz = 1;
	for (int i = 0; i < X->l; i++) {
		int c = rows_nnz(X, i);
		nnz += c;
		if (c > max_row_nnz)
			max_row_nnz = c;
	}
	o->parts = row_parts_for(X->l, o->n, nnz);

	size_t l = X->l > 0 ? (size_t)X->l : 1;
	size_t n = o->n > 0 ? o->n : 1;
	o->z = malloc(l * sizeof *o->z);
	o->zs = malloc(l * sizeof *o->zs);
	o->dloss = malloc(l * sizeof *o->dloss);
	o->D = malloc(l * sizeof *o->D);
	o->part_acc = malloc(n * sizeof *o->part_acc);
	o->row_index = malloc((size_t)max_row_nnz * sizeof *o->row_index);
	o->row_value = malloc((size_t)max_row_nnz * sizeof *o->row_value);
	if (!o->z || !o->zs || !o->dloss || !o->D || !o->part_acc || !o->row_index || !o->row_value) {
		l2r_objective_free(o);
		return -1;
	}
	return 0;
}

void l2r_objective_free(struct l2r_objective *o)
{
	free(o->z);
	free(o->zs);
	free(o->dloss);
	free(o->D);
	free(o->part_acc);
	free(o->row_index);
	free(o->row_value);
	o->z = o->zs = o->dloss = o->D = o->part_acc = o->row_value = NULL;
	o->row_index = NULL;
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
