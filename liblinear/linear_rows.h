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

#include <stdbool.h>
#include <stddef.h>
#include "linear.h"
#include "rows.h"

/* NULL when out of memory (after a message on stderr). */
struct model *train_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param);

/*
 * train_rows, with the L2-loss SVC dual solver (-s 1) started from the dual
 * points that ws kept from the previous call on the same rows and labels
 * (the first call, or another solver: a cold start). For a search that
 * trains one fold at a growing or shrinking C: a warm start saves most of
 * the coordinate-descent passes, and the solution is the same problem's
 * within the solver's tolerance. ws starts as { 0 }; dual_warm_start_free
 * frees it.
 */
struct dual_warm_start {
	double *alpha;	/* one block of l per binary problem */
	size_t size;
	bool ready;	/* alpha holds the last call's points */
};
struct model *train_rows_warm(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, struct dual_warm_start *ws);
void dual_warm_start_free(struct dual_warm_start *ws);

/* target[i] = the prediction for row i from the fold model that did not see it.
 * Returns 0, or -1 when out of memory. */
int cross_validation_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double *target);

/* predict_values() for row i of X (features beyond the model's are ignored). */
double predict_values_row(const struct model *m, const struct row_set *X, int i, double *dec_values);

#endif /* LIBLINEAR_LINEAR_ROWS_H */
