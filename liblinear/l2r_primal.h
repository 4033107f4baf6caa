/*
 * l2r_primal.h - the objectives of -s 0, 2 and 11 for the Newton driver.
 *
 * Contract: an l2r_objective is
 *     f(w) = 0.5 w.w + sum_i C[i] loss(y[i], x_i.w)
 * for one enum l2r_loss (solvers.h), with the bias weight w[n-1] left out
 * of 0.5 w.w when regularize_bias is 0. l2r_objective_newton() exposes it
 * as a struct newton_objective (newton.h). solve_l2r_primal (solvers.h)
 * is built on it; this header exists so that tests can check the
 * value, gradient and Hessian products directly.
 *
 * Threads and reproducibility: the loops over rows run on OpenMP threads
 * (as many as omp_get_max_threads() says at init, at most one per row
 * part), and every sum over rows is taken in an order fixed by the data
 * alone (struct row_parts; by_columns; see l2r_primal.c), so results are
 * bit-identical for any number of threads. Extra memory: at most nnz/4
 * doubles for partial sums (those of diag(H), summed with the gradient,
 * included), or, summing by columns on several threads, a column-major
 * copy of X (12 bytes a nonzero); and a few vectors of n and of l.
 */
#ifndef LIBLINEAR_L2R_PRIMAL_H
#define LIBLINEAR_L2R_PRIMAL_H

#include <stdbool.h>
#include "columns.h"
#include "newton.h"
#include "rows.h"
#include "solvers.h"

/*
 * Rows 0..l-1 cut into count contiguous parts; part k is rows
 * [k*l/count, (k+1)*l/count). count depends only on the data, never on a
 * thread count.
 */
struct row_parts {
	int count;
	int l;
};

struct l2r_objective {
	const struct row_set *X;
	const double *y;
	const double *C;
	enum l2r_loss loss;
	double p;		/* SVR epsilon */
	size_t n;		/* weights */
	size_t n_reg;		/* leading weights in 0.5 w.w: n, or n-1 */
	struct row_parts parts;	/* for loops over rows and scalar sums */
	bool by_columns;	/* X^T products summed by columns, not by parts */
	struct row_parts acc_parts;	/* X^T products' row groups: parts, or 1 by columns */
	int threads;		/* most threads a row loop uses: <= parts.count */
	bool pair_rows;		/* dot products of rows in pairs (rows_dots in l2r_primal.c) */

	double *z;		/* X w at the current point */
	double *zs;		/* X s, s the line search direction */
	double *dloss;		/* C[i] times d loss / d z at the current point */
	double *D;		/* C[i] times d2 loss / d z2; 0: row not in H */
	double *part_acc;	/* acc_parts.count > 1: one partial X^T product per part, part_stride apart */
	double *part_acc2;	/* the same for diag(H) summed with the gradient, or NULL */
	/*
	 * diag(X^T D X), summed with the gradient in the same pass over the
	 * rows when memory allows (else NULL); diag_ready once the gradient
	 * has set it (D changes only there, so it holds until the next one).
	 */
	double *diag;
	bool diag_ready;
	size_t part_stride;	/* n rounded up to whole cache lines */
	double *part_sum;	/* parts.count: one part's share of a scalar sum */
	struct columns columns;	/* by columns on several threads: X column-major; else empty */
	double *row_coef;	/* l, with columns: each row's coefficient in H v */
	/*
	 * By row parts: acc_parts group k's rows with D != 0, ascending, from
	 * in_h[begin of group k], in_h_count[k] of them (set with D by the
	 * gradient; read by H v and diag(H)).
	 */
	int *in_h;
	int *in_h_count;
	double wTw, wTs, sTs;	/* over the regularised weights, for the line search */
};

/* Returns 0, or -1 when out of memory (nothing then needs freeing). */
int l2r_objective_init(struct l2r_objective *o, const struct row_set *X, const double *y,
	const double *C, enum l2r_loss loss, double p, int regularize_bias);
void l2r_objective_free(struct l2r_objective *o);
struct newton_objective l2r_objective_newton(struct l2r_objective *o);

#endif /* LIBLINEAR_L2R_PRIMAL_H */
