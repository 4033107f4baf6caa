/*
 * folds.h - the folds of cross-validation and of the parameter search.
 *
 * Contract: the rows 0..l-1 are shuffled by an rng seeded with
 * RNG_DEFAULT_SEED (so the folds depend only on l and nr_fold, never on
 * earlier calls) and cut into nr_fold contiguous blocks of that order,
 * block k being perm[start[k] .. start[k+1]). Fold k trains on every
 * other row, in permutation order, and is tested on its block.
 * With more folds than rows, upstream's warning is printed on stderr and
 * there is one fold per row (leave-one-out).
 */
#ifndef LIBLINEAR_FOLDS_H
#define LIBLINEAR_FOLDS_H

#include "rows.h"

struct folds {
	int nr_fold;
	int *perm;	/* l row indices */
	int *start;	/* nr_fold + 1 block boundaries into perm */
};

/* Returns 0, or -1 (after a message on stderr) for nr_fold < 2 or no memory. */
int folds_make(int l, int nr_fold, struct folds *f);
void folds_free(struct folds *f);

/*
 * The training rows of fold k as a row view and their labels; release
 * with rows_free_subset and free. Returns 0, or -1 when out of memory.
 */
int folds_training_set(const struct folds *f, int k, const struct row_set *X,
	const double *y, struct row_set *rows, double **labels);

#endif /* LIBLINEAR_FOLDS_H */
