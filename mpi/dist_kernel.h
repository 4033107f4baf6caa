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
 * at the rows, and only drawn rows are read"); the scale -S 1 needs each
 * feature's max |x| over all rows, an exact maximum in any order. So each
 * process sends rank 0 its drawn rows (global row number and nodes), all
 * take the feature maxima with MPI_MAX, and rank 0 builds the map from a
 * stand-in problem of as many rows as the file: the drawn rows where they
 * are, one row holding the maxima where no row was drawn, empty rows
 * elsewhere (a pointer per row on rank 0: 8 bytes a row). The map is then
 * broadcast as its .ik bytes. Only what this reproduces exactly is
 * accepted: -S 0 and 1 (2-4 depend on every row's values and, for 2, on
 * which rows store a feature), no -a. dist_kernel_check() says so.
 *
 * Negative values, which -k minmax refuses, are looked for by each
 * process in its own rows and reported with their line.
 */
#ifndef LIBLINEAR_IK_DIST_KERNEL_H
#define LIBLINEAR_IK_DIST_KERNEL_H

#include <mpi.h>
#include "dist_data.h"
#include "liblinear_ik.h"

/* NULL when train-mpi can build this map; else why not (one line). */
const char *dist_kernel_check(const struct lik_map_params *params);

/* path: the training file, for messages (per_rank: FILE.RANK). */
struct lik_map *dist_map_build(MPI_Comm comm, const struct dist_data *d,
	const struct lik_map_params *params, const char *path, bool per_rank);

#endif /* LIBLINEAR_IK_DIST_KERNEL_H */
