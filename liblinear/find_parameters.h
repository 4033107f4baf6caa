/*
 * find_parameters.h - the warm-started parameter search (train -C) on rows.
 *
 * Contract: find_parameters() of linear.h on a row_set with separate
 * labels, as linear_rows.h does for train and cross-validation, so the
 * Isolation Kernel can search C on its cell rows too. Only -s 0 and -s 2
 * (C) and -s 11 (C and p) are searched; any other solver gets upstream's
 * message on stderr and NaN results. best_score is the CV accuracy as a
 * fraction for classification (best_p = -1) and the CV mean squared error
 * for regression.
 */
#ifndef LIBLINEAR_FIND_PARAMETERS_H
#define LIBLINEAR_FIND_PARAMETERS_H

#include "linear.h"
#include "rows.h"

void find_parameters_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double start_C, double start_p,
	double *best_C, double *best_p, double *best_score);

/*
 * The same search, but a walk over C also stops once `patience` (> 0)
 * steps in a row have not beaten the walk's best score, counted once the
 * score has risen above the walk's first (the smallest C are all alike)
 * and C >= patience_from_C (below it the score is noise and the steps are
 * cheap); patience 0: never, as find_parameters_rows. Not upstream's rule: the kernel's search uses it,
 * plain -C never does. The score depends only on the rows and the folds,
 * never on the threads, so the stop does not either.
 */
void find_parameters_rows_patient(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double start_C, double start_p, int patience,
	double patience_from_C, double *best_C, double *best_p, double *best_score);

/*
 * find_parameters_rows_patient, and with best_folds != NULL (room for
 * nr_fold, or the rows when fewer) each fold's own score at the best
 * (C, p) found: the spread that `-k auto` takes a standard error from.
 */
void find_parameters_rows_folds(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double start_C, double start_p, int patience,
	double patience_from_C, double *best_C, double *best_p, double *best_score,
	double *best_folds);

/*
 * One CV score at a time, on folds made once (as the walks above make
 * them): for a caller that picks its own C values (the kernel search's
 * short walks). param's solver may be any that train takes (the kernel
 * search scores with the dual solvers); the solvers that take init_sol
 * start each fold from its model at the previous C scored. Each score
 * prints upstream's log2c line through info(). The scores depend only on
 * the rows, the folds and the order of the calls, never on the threads.
 */
struct cv_scorer;
/* NULL on error (a line through report_error). */
struct cv_scorer *cv_scorer_new(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold);
/* CV accuracy (a fraction) or MSE at (C, p) into *score. 0, or -1. */
int cv_scorer_at(struct cv_scorer *c, double C, double p, double *score);
/* Where upstream's classification walk starts on these rows (start_C > 0: start_C). */
double cv_scorer_first_C(const struct cv_scorer *c, double start_C);
/* The next score starts cold (no fold model nor dual point to start from). */
void cv_scorer_forget(struct cv_scorer *c);
/* Each fold's own score at the last C scored into out[]; returns the folds made (nr_fold, or the rows when fewer). */
int cv_scorer_fold_scores(const struct cv_scorer *c, double *out);
int cv_scorer_nr_fold(const struct cv_scorer *c);
/* The largest C of upstream's classification walk (1024). */
double cv_scorer_max_C(void);
void cv_scorer_free(struct cv_scorer *c);

#endif /* LIBLINEAR_FIND_PARAMETERS_H */
