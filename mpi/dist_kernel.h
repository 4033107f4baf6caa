/*
 * dist_kernel.h - train-mpi -k: one Isolation Kernel (or min-max, acos)
 * map for rows spread over MPI processes.
 *
 * Contract: dist_map_build() is collective. It returns on every process
 * the same map, byte for byte the map that train -k (lik_map_build on the
 * whole file, the same parameters and seed) builds, or NULL on every
 * process after one message on stderr.
 *
 * How: the rows a map reads are known before reading them. aNNE and
 * iForest draw psi distinct row numbers per partitioning from generators
 * seeded by the seed alone (ikmap/sample.c; ikmap.c "the draws never look
 * at the rows, and only drawn rows are read"). The scales (-S 1-4, and -a's
 * raw part) need statistics of every row: train -k gathers them with an
 * ikmap scan (ikmap.h "Streaming build"), and so does every process here,
 * over its own rows, the passes combined so that the scan ends where the
 * single scan over the whole file ends, bit for bit (dist_kernel.c
 * scan_everywhere: maxima of values >= 0 and counts with MPI_MAX and
 * MPI_SUM; sums and signed extremes by a chain through the ranks in row
 * order). Each process then sends rank 0 its drawn rows (global row number
 * and nodes), and rank 0 builds the map from the scan and those rows,
 * as train -k does (lik_map_build_scanned), and broadcasts it as its .ik
 * bytes.
 *
 * Negative values, which -k minmax and -S 4 refuse, are looked for by
 * each process in its own rows and reported with their global line, in
 * train -k's words (the first in the file: the lowest rank's).
 */
#ifndef LIBLINEAR_IK_DIST_KERNEL_H
#define LIBLINEAR_IK_DIST_KERNEL_H

#include <mpi.h>
#include "dist_data.h"
#include "liblinear_ik.h"

/* path: the training file, for messages (per_rank: FILE.RANK). */
struct lik_map *dist_map_build(MPI_Comm comm, const struct dist_data *d,
	const struct lik_map_params *params, const char *path, bool per_rank);

/*
 * Collective: when maps of params refuse negative values, the first one
 * in the file (the lowest rank's) is reported in train -k's words with its
 * line, and every process gets -1; else 0. dist_map_build checks this first.
 */
int dist_refuse_negative(MPI_Comm comm, const struct dist_data *d,
	const struct lik_map_params *params, const char *path, bool per_rank);

/*
 * Collective: the rows ids[0..count) (ascending global row numbers, the
 * same list on every process) of all processes, on every process, in
 * that order, as a problem: its labels, its rows (each with the bias node
 * (n, bias) when bias >= 0, n = d->max_index + 1, then the terminator)
 * and l, n and bias. x, y and *storage are allocated: the caller frees
 * all three. 0, or -1 on every process after one message.
 */
int dist_gather_rows(MPI_Comm comm, const struct dist_data *d, const int *ids, size_t count,
	double bias, struct problem *out, struct feature_node **storage);

#endif /* LIBLINEAR_IK_DIST_KERNEL_H */
