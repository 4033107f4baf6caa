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

#endif /* LIBLINEAR_FIND_PARAMETERS_H */
