/*
 * dist_cv.h - train-mpi's cross-validation (-v) and parameter search
 * (-C), and the CV scorer that -C -k's walks use (dist_ksearch.h).
 *
 * Contract: every function is collective over the job's comm. The folds
 * are train -v's (a shuffle of the global row numbers 0..L-1), the same
 * for any number of processes; each fold's model is trained by all
 * processes together (dist_train.h) with the fold's rows left out, so
 * every score, and every choice made from the scores, is the same on
 * every process and for any number of processes. Rank 0 prints.
 */
#ifndef LIBLINEAR_IK_DIST_CV_H
#define LIBLINEAR_IK_DIST_CV_H

#include <stdbool.h>
#include <stdint.h>
#include "c_walk.h"
#include "dist_train.h"

/* -v: train -v's lines ("Cross Validation Accuracy = ...", or the MSE and r^2). 0, or -1. */
int cross_validate(const struct job *j, const struct options *o, const struct classes *c,
	int nr_fold);

/* -C: train -C's lines (one per C, the best at the end). 0, or -1. */
int find_parameters_dist(const struct job *j, const struct options *o,
	const struct classes *c);

/* CV scores at any (C, p) on the job's rows, each fold warm-started from its last model. */
struct cv_search {
	const struct job *j;
	const struct options *o;
	const struct classes *c;	/* NULL: -s 11 */
	struct parameter param;		/* the job's, with C and p varied */
	struct job fold_job;		/* j with param */
	int nr_fold;
	int *fold;			/* local row -> fold */
	unsigned char **held;		/* per fold: local rows left out */
	int64_t **held_count;		/* per fold: left-out rows per class, then all */
	double **w;			/* per fold: its last model's w (NULL: zeros) */
	double *target;			/* each local row's CV prediction */
	double *dec;
	double max_sqnorm;		/* -s 11: max ||x_i||^2 over all rows, for each p's C_min */
	double sum_abs_y;		/* -s 11: sum |y_i| over all rows */
	double *best_folds;		/* NULL, or each fold's score at the walk's best */
};

/* o->nr_fold folds of the job's rows. 0, or -1 (out of memory, said once). */
int cv_search_init(struct cv_search *s, const struct job *j, const struct options *o,
	const struct classes *c);
void cv_search_free(struct cv_search *s);
/* The CV accuracy (a fraction) or MSE at (C, p); *unchanged: no fold model moved. 0, or -1. */
int cv_search_score(struct cv_search *s, double C, double p, double *score, bool *unchanged);
/* The next score starts every fold from zeros. */
void cv_search_restart(struct cv_search *s);
/* Each fold's own score at the last (C, p) scored, into out[nr_fold]. */
void cv_search_fold_scores(struct cv_search *s, double *out);
/* max ||x_i||^2 over every process's rows of the job: an exact maximum. */
double cv_max_row_sqnorm(const struct job *j);
/*
 * train -C's walk (c_walk.h) on these folds: one walk of C for -s 0 and 2,
 * the walks of C and p for -s 11; patience and patience_from_C as
 * c_walk's (0: upstream's). The best into *best, each fold's score there
 * into best_folds (NULL: not wanted). 0, or -1.
 */
int cv_search_walk(struct cv_search *s, int patience, double patience_from_C, double start_C,
	double start_p, struct c_walk_best *best, double *best_folds);

#endif /* LIBLINEAR_IK_DIST_CV_H */
