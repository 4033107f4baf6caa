/*
 * dist_ksearch.h - train-mpi -C -k: train -C -k's search of psi and C
 * (lik_search, liblinear_ik.h) with the rows spread over the processes.
 *
 * Contract: ksearch_run() is collective. It runs lik_search's stages
 * (lik_search_spread, lik_internal.h): stage 1 on the same subsample of
 * rows that train -C -k draws (the same global row numbers, gathered on
 * every process, each process running the same stage-1 walks on it), and
 * every walk on all rows here, across the processes: the map of each
 * psi built once (dist_kernel.h: train -k's map, byte for byte), each
 * process mapping its own rows, each C scored by dist_cv.h's folds. Rank
 * 0 prints train -C -k's lines (one per psi, the Best line, the plain
 * baseline). Every score and choice is the same on every process and for
 * any number of processes. The all-row walks score each C with the
 * distributed primal Newton solver of the options' -s (train -C -k scores
 * them with the dual solver of the same problem, -s 1 for -s 2 and -s 7
 * for -s 0, which does not distribute): the same optimum within the
 * solvers' tolerances, so the CV scores may differ by a row or two.
 *
 * On success *best_psi, *best_C and *best_p (-1 for classification) say
 * the choice and *best_map (NULL unless want_map) holds its map; 0, or -1
 * on every process after one message.
 */
#ifndef LIBLINEAR_IK_DIST_KSEARCH_H
#define LIBLINEAR_IK_DIST_KSEARCH_H

#include "dist_train.h"
#include "liblinear_ik.h"

int ksearch_run(const struct job *j, const struct options *o, const struct classes *c,
	const struct lik_map_params *kernel, int want_map, int *best_psi, double *best_C,
	double *best_p, struct lik_map **best_map);

/*
 * -C -k -E 1: train -C -k -E 1's exhaustive search, collective. At every
 * psi of the kernel's grid (train's: lik_psi_grid_of over all rows; -g's
 * psi alone) the map is built on all rows as -k builds it and train -C's
 * walk over C (and p) runs on dist_cv.h's folds, the same walk as
 * train's find_parameters on the mapped rows. Rank 0 prints train's
 * lines: one per psi and the Best line. Writes no model (train -E
 * writes none). 0, or -1 on every process after one message.
 */
int ksearch_exhaustive(const struct job *j, const struct options *o, const struct classes *c,
	const struct lik_map_params *kernel);

#endif /* LIBLINEAR_IK_DIST_KSEARCH_H */
