/*
 * dist_train.h - one model of -s 0, 2 or 11 trained by every process
 * together, the rows spread over them (train-mpi).
 *
 * Contract: every function here is collective over the job's comm; it
 * returns the same result on every process (the same model, bit for bit,
 * whatever the number of processes: dist_newton.h), or fails on every
 * process after one message on stderr.
 */
#ifndef LIBLINEAR_IK_DIST_TRAIN_H
#define LIBLINEAR_IK_DIST_TRAIN_H

#include <stdint.h>
#include <mpi.h>
#include "dist_data.h"
#include "dist_newton.h"
#include "linear.h"
#include "train_mpi.h"

/* The classes of -s 0 and 2, over all processes. */
struct classes {
	int nr_class;
	int *label;		/* order of first appearance in global row order */
	int64_t *count;		/* global rows per class */
	int *row_class;		/* local row -> class */
};

/* What a model is trained on: this process's rows (d, and rows: d's rows or their map) and the parameters. */
struct job {
	MPI_Comm comm;
	const struct dist_data *d;
	const struct dist_rows *rows;
	const struct parameter *param;
};

/*
 * Labels grouped as train groups them ((int) cast, order of first
 * appearance over the whole file, {-1, +1} swapped so that +1 comes
 * first), and train's warning for a -wi label that is not there; nothing
 * for -s 11. 0, or -1.
 */
int classes_of(const struct job *j, const struct options *o, struct classes *c);
void classes_free(struct classes *c);

/*
 * One model on every process alike. c: the classes (NULL for -s 11).
 * held_out (NULL: none): local rows left out (cross-validation), given
 * cost 0, which takes them out of every sum exactly; counts of the
 * left-out rows come with held_count (per class, then the total; NULL:
 * none). init (NULL: zeros): the start point, a feature-major w of this
 * model's shape. NULL on every process when it fails.
 */
struct model *train_distributed(const struct job *j, const struct options *o,
	const struct classes *c, const unsigned char *held_out, const int64_t *held_count,
	const double *init);

#endif /* LIBLINEAR_IK_DIST_TRAIN_H */
