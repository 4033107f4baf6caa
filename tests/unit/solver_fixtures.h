/*
 * solver_fixtures.h - output capture and dense-matrix rows shared by the
 * solver tests that build hand-made problems (test_mcsvm_cs.c,
 * test_oneclass.c).
 *
 * Contract: start_capture() routes info() into a buffer; printed_number()
 * reads the number after the FIRST occurrence of a label in it. make_rows()
 * turns a dense row-major l x n matrix into upstream-style feature_node
 * rows (zeros left out, index -1 at the end) and returns their ROWS_SPARSE
 * view, which lives until free_rows().
 */
#ifndef TESTS_SOLVER_FIXTURES_H
#define TESTS_SOLVER_FIXTURES_H

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "linear.h"
#include "rows.h"

/* What the solver printed, for reading back its objective and counts. */
static char printed[1 << 16];

static inline void capture(const char *s)
{
	strncat(printed, s, sizeof printed - strlen(printed) - 1);
}

static inline void start_capture(void)
{
	printed[0] = '\0';
	set_print_string_function(capture);
}

static inline double printed_number(const char *label)
{
	const char *at = strstr(printed, label);
	ck_assert_msg(at != NULL, "no \"%s\" in output: %s", label, printed);
	return strtod(at + strlen(label), NULL);
}

/* Rows of a dense l x n matrix (row-major), as feature_node rows. */
struct dense_rows {
	struct feature_node *nodes;
	struct feature_node **x;
};

static inline struct row_set make_rows(struct dense_rows *d, const double *a, int l, int n)
{
	d->nodes = malloc((size_t)l * (size_t)(n + 1) * sizeof *d->nodes);
	d->x = malloc((size_t)l * sizeof *d->x);
	ck_assert(d->nodes && d->x);
	for (int i = 0; i < l; i++) {
		struct feature_node *f = d->nodes + (size_t)i * (size_t)(n + 1);
		d->x[i] = f;
		for (int j = 0; j < n; j++)
			if (a[i * n + j] != 0)
				*f++ = (struct feature_node){j + 1, a[i * n + j]};
		f->index = -1;
	}
	return rows_sparse(l, n, d->x);
}

static inline void free_rows(struct dense_rows *d)
{
	free(d->nodes);
	free(d->x);
}

#endif /* TESTS_SOLVER_FIXTURES_H */
