/*
 * c_walk.h - upstream's warm-started walk over C (and p for -s 11), the
 * part of `train -C` that does not depend on where the rows are.
 *
 * Contract (internal: liblinear/find_parameters.c on one process's rows,
 * mpi/train_mpi.c on rows spread over processes): the caller scores one
 * (C, p) by cross-validation through evaluate(); this file chooses the C
 * (and p) to score, in upstream's order, prints one line per score in
 * upstream's format (info()), keeps the best and says when a walk stops.
 * The same scores give the same walk and the same best, so both callers
 * choose alike by construction.
 *
 * A walk: C, 2C, 4C, ... up to max_C; it stops early once five scores in
 * a row left every fold model where it started (upstream's rule), or,
 * with patience > 0, once `patience` steps in a row have not beaten the
 * walk's best, counted after the score rose above the walk's first and
 * from C >= patience_from_C (the kernel's rule; never upstream's -C).
 */
#ifndef LIBLINEAR_C_WALK_H
#define LIBLINEAR_C_WALK_H

#include <stdbool.h>

#define C_WALK_MAX_C_CLASSIFICATION 1024.0
#define C_WALK_MAX_C_REGRESSION 1048576.0	/* 2^20 */

struct c_walk_best {
	double C, p, score;	/* p = -1 for classification; score NaN until one is kept */
};

struct c_walk {
	bool regression;	/* score is an MSE (lower is better), else an accuracy */
	int patience;		/* 0: upstream's walk */
	double patience_from_C;
	/* the CV score at (C, p); *unchanged: no fold model moved. 0, or -1 (the walk stops) */
	int (*evaluate)(void *context, double C, double p, double *score, bool *unchanged);
	/* each walk's folds start from zeros: forget the models of the last walk */
	void (*restart)(void *context);
	/* NULL, or called right after (C, p) became the best */
	void (*on_best)(void *context);
	void *context;
};

/* An empty best: any score beats it. */
struct c_walk_best c_walk_no_best(bool regression);

/* Upstream's first C: 2^floor(log2 C_min), or start_C when > 0, at most max_C (1 when C_min is 0 or NaN). */
double c_walk_first_C(double C_min, double start_C, double max_C);

/* Upstream's C_min of -s 0 (l2r_lr true) and -s 2: 1 / (l max||x||^2), halved for -s 2. */
double c_walk_classification_C_min(bool l2r_lr, double l, double max_sqnorm);

/* -s 11's C_min at p: sum max(|y|-p, 0)^2 / (800 max||x||^2 (sum |y|)^2). */
double c_walk_svr_C_min(double loss_at_zero, double max_sqnorm, double sum_abs_y);

/* One walk from C up to max_C at p; best is updated. 0, or -1. */
int c_walk_run(const struct c_walk *w, double C, double max_C, double p, struct c_walk_best *best);

/*
 * -s 11's search: p = i * max_abs_y / 20 for i = 19 down to 0 (from the
 * largest not above start_p when start_p > 0), a walk at each p from
 * c_walk_first_C(C_min_at(context, p), start_C, 2^20). 0, or -1.
 */
int c_walk_svr(const struct c_walk *w, double max_abs_y, double start_C, double start_p,
	double (*C_min_at)(void *context, double p), struct c_walk_best *best);

#endif /* LIBLINEAR_C_WALK_H */
