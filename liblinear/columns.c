/* columns.c - the column view of a row_set (see columns.h). */
#include <stdlib.h>
#include "columns.h"

/* The largest number of nonzeros in one row: the size of a row buffer. */
static int widest_row(const struct row_set *X)
{
	int widest = 0;
	for (int i = 0; i < X->l; i++) {
		int nnz = rows_nnz(X, i);
		if (nnz > widest)
			widest = nnz;
	}
	return widest;
}

int columns_build(const struct row_set *X, struct columns *cols)
{
	size_t n = X->n > 0 ? (size_t)X->n : 0;
	size_t room = (size_t)widest_row(X) + 1;
	int *index = malloc(room * sizeof *index);
	double *value = malloc(room * sizeof *value);
	size_t *start = calloc(n + 1, sizeof *start);
	if (!index || !value || !start)
		goto fail;

	/* Pass 1: count each column's nonzeros into start[j+1]. */
	for (int i = 0; i < X->l; i++) {
		int nnz = rows_nnz(X, i);
		rows_copy_row(X, i, index, value);
		for (int k = 0; k < nnz; k++)
			start[index[k]]++;
	}
	for (size_t j = 0; j < n; j++)
		start[j + 1] += start[j];

	size_t total = start[n] > 0 ? start[n] : 1;
	int *col_row = malloc(total * sizeof *col_row);
	double *col_value = malloc(total * sizeof *col_value);
	if (!col_row || !col_value) {
		free(col_row);
		free(col_value);
		goto fail;
	}

	/* Pass 2: fill; start[j] walks forward and ends at column j+1's start. */
	for (int i = 0; i < X->l; i++) {
		int nnz = rows_nnz(X, i);
		rows_copy_row(X, i, index, value);
		for (int k = 0; k < nnz; k++) {
			size_t at = start[index[k] - 1]++;
			col_row[at] = i;
			col_value[at] = value[k];
		}
	}
	/* Shift back: start[j] is now where column j ends, i.e. column j+1 starts. */
	for (size_t j = n; j > 0; j--)
		start[j] = start[j - 1];
	start[0] = 0;

	cols->n = (int)n;
	cols->start = start;
	cols->row = col_row;
	cols->value = col_value;
	free(index);
	free(value);
	return 0;

fail:
	free(index);
	free(value);
	free(start);
	return -1;
}

void columns_free(struct columns *cols)
{
	free(cols->start);
	free(cols->row);
	free(cols->value);
	cols->start = NULL;
	cols->row = NULL;
	cols->value = NULL;
}
