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

#endif /* LIBLINEAR_FIND_PARAMETERS_H */
