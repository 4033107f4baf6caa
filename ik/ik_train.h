/*
 * ik_train.h - what `train -k` does between reading the data and
 * training: build the map, map every training row, and hold the result
 * as ROWS_CELLS rows (rows.h); and the -C search over psi.
 *
 * Contract. data must have been read without bias nodes (bias -1), so
 * its rows hold only real features 1..max_index. The map is built from
 * ALL training rows; no label is used, so cross-validation on the mapped
 * rows (train -k -v, -C) is the papers' protocol (Ting et al., DMKD 2021:
 * map once, then cross-validate the linear learner). Functions print
 * their errors on stderr and return NULL or -1.
 */
#ifndef IK_TRAIN_H
#define IK_TRAIN_H

#include "ik_options.h"
#include "ikmap.h"
#include "linear.h"
#include "reader.h"
#include "rows.h"

/* The largest psi the -C search tries, and its smallest. */
#define IK_SEARCH_PSI_MIN 4
#define IK_SEARCH_PSI_MAX 4096

/* A map of every row of data with o's -k, -t, -r, -S and this psi. */
struct ikmap *ik_train_build(const struct libsvm_data *data, const struct ik_options *o,
	int psi, int threads);

/* Every row's cells (l * t of ikmap_cell_size bytes, allocated) mapped on device, or NULL. */
void *ik_train_map(const struct ikmap *map, const struct libsvm_data *data, int threads,
	enum ikmap_device device);

/* The ROWS_CELLS view of l mapped rows: cell value 1/sqrt(t), bias feature t*psi+1 if bias >= 0. */
struct row_set ik_train_rows(const struct ikmap *map, int l, const void *cells, double bias);

/*
 * train -C -k: for each psi = 4, 8, ..., 4096 not above the number of
 * rows (only o->psi when -g was given), build and map as above, then run
 * find_parameters_rows at that psi and print one line:
 *   "psi = %d  Best C = %g  CV accuracy = %g%%"
 *   "psi = %d  Best C = %g Best p = %g  CV MSE = %g"   (-s 11)
 * and at the end the best of all:
 *   "Best psi = %d  Best C = %g  CV accuracy = %g%%"  (or the MSE form).
 * No model is written. 0, or -1 after a message.
 */
int ik_train_search(const struct libsvm_data *data, const struct ik_options *o,
	const struct parameter *param, double bias, int nr_fold, double start_C, double start_p,
	int threads);

#endif /* IK_TRAIN_H */
