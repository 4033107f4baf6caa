/*
 * dist_newton.h - the Newton solvers of -s 0, 2 and 11 over rows spread
 * across MPI processes.
 *
 * Contract: dist_solve_l2r_primal() is collective over comm and minimises
 *     f(w) = 0.5 w.w + sum over all processes' rows of C[i] loss(y[i], x_i.w)
 * (bias weight out of 0.5 w.w when regularize_bias is 0) with the driver
 * of newton.h, the weight vector replicated on every process. On return
 * w is the same, bit for bit, on every process. Returns a solver_status
 * (solvers.h), the same on every process.
 *
 * Determinism: each block of rows (dist_data.h) is one l2r_objective
 * (l2r_primal.h) whose sums depend on the block's rows only; the blocks'
 * loss values and X^T products are combined in global block order by a
 * chain through the ranks (rank r adds its blocks to the running sum it
 * receives from rank r-1, in slices so that ranks overlap), and the last
 * rank broadcasts the total. So every sum is taken in the same order for
 * any number of processes and threads, and the model does not depend on
 * them. (MPI_Allreduce's order is unspecified, hence not used for
 * floating point.)
 *
 * Sent per Newton iteration, by each process: one n-vector slice chain
 * and one broadcast per gradient, per CG step (H v) and per diag(H), and
 * one double per function value (start and each line-search step).
 */
#ifndef LIBLINEAR_IK_DIST_NEWTON_H
#define LIBLINEAR_IK_DIST_NEWTON_H

#include <mpi.h>
#include "rows.h"
#include "solvers.h"

/*
 * X is this process's rows, cut into nr_blocks blocks: block k is rows
 * [block_begin[k], block_begin[k+1]). first_block_of_rank[r] (r = 0..P)
 * gives every rank's first global block (dist_data.h).
 */
struct dist_rows {
	MPI_Comm comm;
	const struct row_set *X;
	int nr_blocks;
	const int *block_begin;
	const int *first_block_of_rank;
};

int dist_solve_l2r_primal(const struct dist_rows *rows, const double *y, const double *C,
	enum l2r_loss loss, double p, int regularize_bias, double eps, double *w);

/*
 * Collective: out[0..m) = the sum over all blocks of all ranks of the
 * blocks' m-vectors (this rank's block k at parts + k * stride), added in
 * global block order; the same bits on every rank.
 */
void dist_combine(const struct dist_rows *rows, const double *parts, size_t stride, size_t m,
	double *out);

/*
 * Since the start, for the benchmark: the bytes this process passed along
 * the chain (plus, on the last rank, each total once for the broadcast;
 * a broadcast tree forwards more, which MPI does not report), and the
 * number of sums (vector or scalar) combined.
 */
long long dist_bytes_sent(void);
long long dist_sums_taken(void);

#endif /* LIBLINEAR_IK_DIST_NEWTON_H */
