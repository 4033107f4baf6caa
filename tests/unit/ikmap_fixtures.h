/*
 * ikmap_fixtures.h - feature_node data sets shared by the aNNE mapping
 * tests (test_ikmap_anne.c, test_ikmap_gpu.c).
 *
 * Contract: a struct data owns n rows of upstream-style feature_nodes, each
 * with room for d nonzeros and ended by index -1. data_new() makes them
 * empty; set() appends one feature (callers give ascending indices);
 * random_data() draws them from the library's seeded rng, so every run
 * sees the same numbers; data_free() releases them.
 */
#ifndef TESTS_IKMAP_FIXTURES_H
#define TESTS_IKMAP_FIXTURES_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include "linear.h"
#include "rng.h"

struct data {
	int n, d;
	struct feature_node **row;
};

/* Rows with room for d nonzeros each; fill with set(). */
static inline struct data data_new(int n, int d)
{
	struct data x = { n, d, malloc((size_t)n * sizeof(struct feature_node *)) };
	ck_assert_ptr_nonnull(x.row);
	for (int i = 0; i < n; i++) {
		x.row[i] = malloc(((size_t)d + 1) * sizeof(struct feature_node));
		ck_assert_ptr_nonnull(x.row[i]);
		x.row[i][0].index = -1;
	}
	return x;
}

/* Appends feature j (ascending) with value v to row i. */
static inline void set(struct data *x, int i, int j, double v)
{
	struct feature_node *f = x->row[i];
	while (f->index != -1)
		f++;
	f[0].index = j;
	f[0].value = v;
	f[1].index = -1;
}

static inline void data_free(struct data *x)
{
	for (int i = 0; i < x->n; i++)
		free(x->row[i]);
	free(x->row);
}

/* Nonzeros with probability density, values uniform in [lo, hi). */
static inline struct data random_data(int n, int d, double density, double lo, double hi,
	uint64_t seed)
{
	struct data x = data_new(n, d);
	struct rng g;
	rng_seed(&g, seed);
	for (int i = 0; i < n; i++)
		for (int j = 1; j <= d; j++)
			if (rng_unit(&g) < density)
				set(&x, i, j, lo + (hi - lo) * rng_unit(&g));
	return x;
}

#endif /* TESTS_IKMAP_FIXTURES_H */
