/*
 * cross_validation.c - n-fold cross-validation (see linear_rows.h, folds.h).
 *
 * Each fold's model is trained on the other folds' rows and predicts its
 * own rows; target[i] is that prediction for row i. With one thread the
 * fold models train in turn and print their progress as train() does,
 * like upstream. With more (train -m), the folds train in parallel; their
 * progress lines go through info_order (print.h), so they come out in fold
 * order, the same text as with one thread, each fold's as soon as it and
 * all folds before it are done (fold 0's as it runs). Each fold writes
 * only its own rows' targets and every model is seeded per fold, so the
 * targets are the same for any number of threads.
 */
#include <math.h>
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "report.h"
#include "folds.h"
#include "export.h"
#include "linear.h"
#include "linear_rows.h"
#include "print.h"

/* Trains fold k and predicts its block into target; 0 or -1. */
static int run_fold(const struct folds *f, int k, const struct row_set *X, const double *y,
	double bias, const struct parameter *param, double *target)
{
	struct row_set rows;
	double *labels;
	if (folds_training_set(f, k, X, y, &rows, &labels) != 0)
		return -1;
	struct model *m = train_rows(&rows, labels, bias, param);
	rows_free_subset(&rows);
	free(labels);
	if (m == NULL)
		return -1;
	int slots = m->nr_class > 2 ? m->nr_class : 2;
	double *dec = malloc((size_t)slots * sizeof *dec);
	if (dec == NULL) {
		report_error("ERROR: out of memory in cross validation\n");
		free_and_destroy_model(&m);
		return -1;
	}
	for (int j = f->start[k]; j < f->start[k + 1]; j++)
		target[f->perm[j]] = predict_values_row(m, X, f->perm[j], dec);
	free(dec);
	free_and_destroy_model(&m);
	return 0;
}

int cross_validation_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double *target)
{
	/* Whatever fails below, the caller never reads uninitialised targets. */
	for (int i = 0; i < X->l; i++)
		target[i] = NAN;
	struct folds f;
	if (folds_make(X->l, nr_fold, &f) != 0)
		return -1;
	int failed = 0;
	if (omp_get_max_threads() > 1) {
		/* out of memory for the ordering: train silently, as before it existed */
		struct info_order *order = info_order_begin(f.nr_fold);
		bool was_muted = order == NULL ? info_mute(true) : false;
#pragma omp parallel for schedule(dynamic, 1) reduction(|:failed)
		for (int k = 0; k < f.nr_fold; k++) {
			if (order != NULL)
				info_order_enter(order, k);
			failed |= run_fold(&f, k, X, y, bias, param, target) != 0;
			if (order != NULL)
				info_order_leave();
		}
		if (order == NULL)
			info_mute(was_muted);
		info_order_end(order);
	} else {
		for (int k = 0; k < f.nr_fold && !failed; k++)
			failed = run_fold(&f, k, X, y, bias, param, target) != 0;
	}
	folds_free(&f);
	return failed ? -1 : 0;
}

LIBLINEAR_EXPORT void cross_validation(const struct problem *prob, const struct parameter *param, int nr_fold, double *target)
{
	struct row_set X = rows_sparse(prob->l, prob->n, prob->x);
	cross_validation_rows(&X, prob->y, prob->bias, param, nr_fold, target);
}
