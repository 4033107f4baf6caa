/*
 * columns.h - a column-major (CSC) copy of a row_set, for solvers that
 * update one feature at a time (the L1-regularised coordinate descents).
 *
 * Contract: columns_build reads the rows only through rows.h and stores,
 * for each feature j = 0..n-1 (feature j+1 of the rows), the rows where
 * it is nonzero in ascending row order: entries start[j] .. start[j+1]-1
 * of row[] and value[]. Offsets are size_t, so the number of nonzeros may
 * exceed INT_MAX. Every row index must be in 1..X->n.
 */
#ifndef LIBLINEAR_COLUMNS_H
#define LIBLINEAR_COLUMNS_H

#include <stddef.h>
#include "rows.h"

struct columns {
	int n;			/* number of columns (features) */
	size_t *start;		/* n+1 offsets into row[] and value[] */
	int *row;		/* row of each nonzero */
	double *value;		/* its value */
};

/* Returns 0, or -1 when out of memory (then nothing is left allocated). */
int columns_build(const struct row_set *X, struct columns *cols);
void columns_free(struct columns *cols);

#endif /* LIBLINEAR_COLUMNS_H */
