/* folds.c - cross-validation folds (see folds.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "report.h"
#include "folds.h"
#include "rng.h"

int folds_make(int l, int nr_fold, struct folds *f)
{
	f->perm = NULL;
	f->start = NULL;
	if (nr_fold < 2) {
		report_error("ERROR: n-fold cross validation needs n >= 2\n");
		return -1;
	}
	if (nr_fold > l) {
		report_error("WARNING: # folds > # data. Will use # folds = # data instead "
			"(i.e., leave-one-out cross validation)\n");
		nr_fold = l;
	}
	f->nr_fold = nr_fold;
	f->perm = malloc((size_t)(l > 0 ? l : 1) * sizeof *f->perm);
	f->start = malloc(((size_t)nr_fold + 1) * sizeof *f->start);
	if (f->perm == NULL || f->start == NULL) {
		report_error("ERROR: out of memory in cross validation\n");
		folds_free(f);
		return -1;
	}
	for (int i = 0; i < l; i++)
		f->perm[i] = i;
	struct rng rng;
	rng_seed(&rng, RNG_DEFAULT_SEED);
	rng_shuffle_int(&rng, f->perm, l);
	for (int k = 0; k <= nr_fold; k++)
		f->start[k] = nr_fold > 0 ? (int)((int64_t)k * l / nr_fold) : 0;
	return 0;
}

void folds_free(struct folds *f)
{
	free(f->perm);
	free(f->start);
	f->perm = NULL;
	f->start = NULL;
}

int folds_training_set(const struct folds *f, int k, const struct row_set *X,
	const double *y, struct row_set *rows, double **labels)
{
	int l = X->l;
	int begin = f->start[k], end = f->start[k + 1];
	int count = l - (end - begin);
	int *idx = malloc((size_t)(count > 0 ? count : 1) * sizeof *idx);
	double *sub_y = malloc((size_t)(count > 0 ? count : 1) * sizeof *sub_y);
	if (idx == NULL || sub_y == NULL)
		goto nomem;
	int n = 0;
	for (int i = 0; i < begin; i++)
		idx[n++] = f->perm[i];
	for (int i = end; i < l; i++)
		idx[n++] = f->perm[i];
	for (int i = 0; i < count; i++)
		sub_y[i] = y[idx[i]];
	if (rows_subset(X, idx, count, rows) != 0)
		goto nomem;
	free(idx);
	*labels = sub_y;
	return 0;
nomem:
	report_error("ERROR: out of memory in cross validation\n");
	free(idx);
	free(sub_y);
	return -1;
}
