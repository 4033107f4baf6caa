/*
 * linear_rows.h - train, cross-validate and predict on any row_set.
 *
 * Contract: these are the public train(), cross_validation() and
 * predict_values() of linear.h with the rows given as a row_set (rows.h)
 * and the labels as a separate array, so that the Isolation Kernel can
 * train on its compact cell rows exactly as on feature_node rows.
 * The public functions are thin wrappers over these.
 * bias is the problem's bias (< 0: none); when bias >= 0, X->n counts the
 * bias feature and every row already carries it.
 * Randomness comes from a struct rng seeded with RNG_DEFAULT_SEED at each
 * call, so results do not depend on earlier calls in the process.
 */
#ifndef LIBLINEAR_LINEAR_ROWS_H
#define LIBLINEAR_LINEAR_ROWS_H

#include "linear.h"
#include "rows.h"

/* NULL when out of memory (after a message on stderr). */
struct model *train_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param);

/* target[i] = the prediction for row i from the fold model that did not see it.
 * Returns 0, or -1 when out of memory. */
int cross_validation_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double *target);

/* predict_values() for row i of X (features beyond the model's are ignored). */
double predict_values_row(const struct model *m, const struct row_set *X, int i, double *dec_values);

#endif /* LIBLINEAR_LINEAR_ROWS_H */
