/*
 * dist_newton.c - the distributed Newton objective (see dist_newton.h).
 *
 * Each local block is an l2r_objective with no regularisation term
 * (n_reg = 0), so it yields the block's loss, loss gradient, H v and
 * diag(H) parts alone; this file adds the blocks up in global block order
 * and then adds the regularisation once, as l2r_primal.c does for its
 * parts (sum of the rows' terms first, then + w).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dist_newton.h"
#include "l2r_primal.h"
#include "newton.h"
#include "vec.h"

/* Doubles per message of the chain: big enough to hide latency, small enough to overlap. */
enum { SLICE = 32768 };

enum { TAG_CHAIN = 24 };

static long long bytes_sent, sums_taken;

long long dist_bytes_sent(void)
{
	return bytes_sent;
}

long long dist_sums_taken(void)
{
	return sums_taken;
}

/* This rank's place in the chain that adds block results in block order. */
struct chain {
	MPI_Comm comm;
	int rank, size;
	bool receives;		/* some rank before this one holds blocks */
	bool sends;		/* the next rank receives */
	int nr_blocks;
};

static struct chain chain_of(const struct dist_rows *rows)
{
	struct chain c;
	c.comm = rows->comm;
	MPI_Comm_rank(c.comm, &c.rank);
	MPI_Comm_size(c.comm, &c.size);
	c.receives = rows->first_block_of_rank[c.rank] > 0;
	c.sends = c.rank + 1 < c.size && rows->first_block_of_rank[c.rank + 1] > 0;
	c.nr_blocks = rows->nr_blocks;
	return c;
}

struct dist_objective {
	struct chain chain;
	int nr_blocks;
	struct row_set *views;	/* one per block */
	struct l2r_objective *blocks;
	struct newton_objective *f;
	size_t n, n_reg;
	double *partial;	/* nr_blocks n-vectors, block k at k * n */
	double *scalar;		/* nr_blocks values */
	double wTw, wTs, sTs;
};

/* Rows [begin, end) of X as a row set of their own. */
static struct row_set block_view(const struct row_set *X, int begin, int end)
{
	struct row_set v = *X;
	v.l = end - begin;
	if (X->kind == ROWS_SPARSE) {
		v.x = X->x + begin;
		return v;
	}
	size_t skip = (size_t)begin * (size_t)X->t;
	if (X->cells16)
		v.cells16 = X->cells16 + skip;
	if (X->cells32)
		v.cells32 = X->cells32 + skip;
	if (X->raw)
		v.raw = X->raw + begin;
	return v;
}

/*
 * out[0..m) = the sum over every block of every rank of the blocks'
 * m-vectors (local block k at parts + k * stride), added in global block
 * order, the first block copied rather than added to 0 (as l2r_primal.c's
 * add_parts_to). Collective; every rank gets the same bits.
 */
static void combine(const struct chain *o, const double *parts, size_t stride, size_t m,
	double *out)
{
	for (size_t lo = 0; lo < m; lo += SLICE) {
		size_t hi = lo + SLICE < m ? lo + SLICE : m;
		int len = (int)(hi - lo);
		int k = 0;
		if (o->receives) {
			MPI_Recv(out + lo, len, MPI_DOUBLE, o->rank - 1, TAG_CHAIN, o->comm,
				MPI_STATUS_IGNORE);
		} else if (o->nr_blocks > 0) {
			memcpy(out + lo, parts + lo, (size_t)len * sizeof *out);
			k = 1;
		}
		for (; k < o->nr_blocks; k++) {
			const double *b = parts + (size_t)k * stride;
			for (size_t j = lo; j < hi; j++)
				out[j] += b[j];
		}
		if (o->sends) {
			MPI_Send(out + lo, len, MPI_DOUBLE, o->rank + 1, TAG_CHAIN, o->comm);
			bytes_sent += (long long)len * (long long)sizeof(double);
		}
	}
	sums_taken++;
	/* the last rank holds the total (the chain always reaches it) */
	MPI_Bcast(out, (int)m, MPI_DOUBLE, o->size - 1, o->comm);
	if (o->rank == o->size - 1 && o->size > 1)
		bytes_sent += (long long)m * (long long)sizeof(double);
}

/* A total of the blocks' scalars, in block order. */
static double combine_scalars(struct dist_objective *o)
{
	double total = 0;
	combine(&o->chain, o->scalar, 1, 1, &total);
	return total;
}

/* Large vectors are combined one slice of columns at a time; m fits an int per slice. */
static void combine_vectors(struct dist_objective *o, double *out)
{
	combine(&o->chain, o->partial, o->n, o->n, out);
}

static double d_value(void *ctx, const double *w)
{
	struct dist_objective *o = ctx;
	for (int k = 0; k < o->nr_blocks; k++)
		o->scalar[k] = o->f[k].value(o->f[k].ctx, w);
	return 0.5 * vec_dot(o->n_reg, w, w) + combine_scalars(o);
}

static void add_regularised(const struct dist_objective *o, const double *add, double *out)
{
	for (size_t j = 0; j < o->n_reg; j++)
		out[j] += add[j];
}

static void d_gradient(void *ctx, const double *w, double *g)
{
	struct dist_objective *o = ctx;
	for (int k = 0; k < o->nr_blocks; k++)
		o->f[k].gradient(o->f[k].ctx, w, o->partial + (size_t)k * o->n);
	combine_vectors(o, g);
	add_regularised(o, w, g);
}

static void d_hessian_times(void *ctx, const double *v, double *Hv)
{
	struct dist_objective *o = ctx;
	for (int k = 0; k < o->nr_blocks; k++)
		o->f[k].hessian_times(o->f[k].ctx, v, o->partial + (size_t)k * o->n);
	combine_vectors(o, Hv);
	add_regularised(o, v, Hv);
}

static void d_hessian_diag(void *ctx, double *diag)
{
	struct dist_objective *o = ctx;
	for (int k = 0; k < o->nr_blocks; k++)
		o->f[k].hessian_diag(o->f[k].ctx, o->partial + (size_t)k * o->n);
	combine_vectors(o, diag);
	for (size_t j = 0; j < o->n_reg; j++)
		diag[j] += 1;
}

static void d_line_prepare(void *ctx, const double *w, const double *s)
{
	struct dist_objective *o = ctx;
	for (int k = 0; k < o->nr_blocks; k++)
		o->f[k].line_prepare(o->f[k].ctx, w, s);
	o->wTw = vec_dot(o->n_reg, w, w);
	o->wTs = vec_dot(o->n_reg, w, s);
	o->sTs = vec_dot(o->n_reg, s, s);
}

static double d_line_value(void *ctx, double step)
{
	struct dist_objective *o = ctx;
	for (int k = 0; k < o->nr_blocks; k++)
		o->scalar[k] = o->f[k].line_value(o->f[k].ctx, step);
	double reg = o->wTw + 2 * step * o->wTs + step * step * o->sTs;
	return 0.5 * reg + combine_scalars(o);
}

static void d_line_accept(void *ctx, double step)
{
	struct dist_objective *o = ctx;
	for (int k = 0; k < o->nr_blocks; k++)
		o->f[k].line_accept(o->f[k].ctx, step);
}

static void objective_free(struct dist_objective *o)
{
	if (o->blocks != NULL)
		for (int k = 0; k < o->nr_blocks; k++)
			l2r_objective_free(&o->blocks[k]);
	free(o->blocks);
	free(o->views);
	free(o->f);
	free(o->partial);
	free(o->scalar);
}

/* 0, or -1 when out of memory here (the caller agrees with the other ranks). */
static int objective_init(struct dist_objective *o, const struct dist_rows *rows,
	const double *y, const double *C, enum l2r_loss loss, double p, int regularize_bias)
{
	memset(o, 0, sizeof *o);
	o->chain = chain_of(rows);
	o->nr_blocks = rows->nr_blocks;
	o->n = rows->X->n > 0 ? (size_t)rows->X->n : 0;
	o->n_reg = (!regularize_bias && o->n > 0) ? o->n - 1 : o->n;
	size_t nb = o->nr_blocks > 0 ? (size_t)o->nr_blocks : 1;
	o->views = malloc(nb * sizeof *o->views);
	o->blocks = calloc(nb, sizeof *o->blocks);
	o->f = malloc(nb * sizeof *o->f);
	o->partial = malloc(nb * (o->n > 0 ? o->n : 1) * sizeof *o->partial);
	o->scalar = malloc(nb * sizeof *o->scalar);
	if (!o->views || !o->blocks || !o->f || !o->partial || !o->scalar)
		goto nomem;
	for (int k = 0; k < o->nr_blocks; k++) {
		int begin = rows->block_begin[k], end = rows->block_begin[k + 1];
		o->views[k] = block_view(rows->X, begin, end);
		if (l2r_objective_init(&o->blocks[k], &o->views[k], y + begin, C + begin, loss, p,
				regularize_bias) != 0) {
			/* blocks before k are freed by objective_free; k needs nothing */
			o->nr_blocks = k;
			goto nomem;
		}
		/* the block's terms alone: the regularisation is added once, after the sum */
		o->blocks[k].n_reg = 0;
		o->f[k] = l2r_objective_newton(&o->blocks[k]);
	}
	return 0;
nomem:
	objective_free(o);
	memset(o, 0, sizeof *o);
	return -1;
}

int dist_solve_l2r_primal(const struct dist_rows *rows, const double *y, const double *C,
	enum l2r_loss loss, double p, int regularize_bias, double eps, double *w)
{
	struct dist_objective o;
	int ok = objective_init(&o, rows, y, C, loss, p, regularize_bias) == 0;
	/*
	 * newton_minimize allocates 7 n-vectors first and returns at once when
	 * it cannot; the other processes would then wait for it in their first
	 * sum. So every process tries that much memory here, agrees, and frees
	 * it just before: the allocator hands the same block back at once.
	 * (Not a guarantee, but failing then needs another thread to take the
	 * memory in between.)
	 */
	if (ok) {
		size_t m = o.n > 0 ? o.n : 1;
		double *probe = m <= SIZE_MAX / 7 / sizeof *probe ? malloc(7 * m * sizeof *probe) : NULL;
		ok = probe != NULL;
		free(probe);
		if (!ok)
			objective_free(&o);
	}
	int all_ok = 0;
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, rows->comm);
	if (!all_ok) {
		if (ok)
			objective_free(&o);
		return SOLVER_NOMEM;
	}
	struct newton_objective f = {
		.ctx = &o, .n = o.n, .value = d_value, .gradient = d_gradient,
		.hessian_times = d_hessian_times, .hessian_diag = d_hessian_diag,
		.line_prepare = d_line_prepare, .line_value = d_line_value,
		.line_accept = d_line_accept
	};
	struct newton_params par = newton_default_params(eps);
	int status = newton_minimize(&f, &par, w);
	objective_free(&o);
	return status;
}

void dist_combine(const struct dist_rows *rows, const double *parts, size_t stride, size_t m,
	double *out)
{
	struct chain c = chain_of(rows);
	combine(&c, parts, stride, m, out);
}
