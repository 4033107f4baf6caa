/*
 * dual_fixtures.h - problems and output capture shared by the dual solver
 * tests (test_dual_cd.c, test_dual_svr.c, test_dual_lr.c).
 *
 * Contract: a fixture owns l upstream-style sparse rows (feature_node
 * arrays ended by index -1), their labels and a ROWS_SPARSE view of them.
 * Random fixtures are drawn from the library's seeded rng, so every run
 * sees the same numbers. capture_start() routes info() into a buffer that
 * captured_double()/captured_int() read back ("Objective value = ").
 * A cell_fixture holds one small Isolation Kernel problem twice: as
 * ROWS_CELLS rows and as the same rows written out as feature_nodes, so a
 * solver can be asked to give the same w on both.
 */
#ifndef TESTS_DUAL_FIXTURES_H
#define TESTS_DUAL_FIXTURES_H

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linear.h"
#include "rng.h"
#include "rows.h"
#include "unit.h"

struct fixture {
	int l;
	int n;
	struct feature_node *pool;
	struct feature_node **x;
	double *y;
	struct row_set X;
};

enum fixture_labels {
	LABELS_NOISY_SIGN,	/* +1/-1 from a hidden hyperplane, 15% flipped */
	LABELS_SEPARABLE,	/* +1/-1 from a hidden hyperplane, margin kept */
	LABELS_REAL		/* hidden hyperplane plus Gaussian-ish noise */
};

static inline void fixture_alloc(struct fixture *f, int l, int n, size_t nodes)
{
	f->l = l;
	f->n = n;
	f->pool = malloc(nodes * sizeof *f->pool);
	f->x = malloc((size_t)(l > 0 ? l : 1) * sizeof *f->x);
	f->y = malloc((size_t)(l > 0 ? l : 1) * sizeof *f->y);
	ck_assert(f->pool && f->x && f->y);
}

static inline void fixture_free(struct fixture *f)
{
	free(f->pool);
	free(f->x);
	free(f->y);
}

/* l rows over n features, each feature present with probability density. */
static inline void fixture_random(struct fixture *f, int l, int n, double density,
	enum fixture_labels labels, uint64_t seed)
{
	struct rng g;
	rng_seed(&g, seed);
	double hidden[64];
	ck_assert_int_le(n, 64);
	for (int j = 0; j < n; j++)
		hidden[j] = 2 * rng_unit(&g) - 1;
	fixture_alloc(f, l, n, (size_t)l * (size_t)(n + 1));
	size_t at = 0;
	for (int i = 0; i < l; i++) {
		f->x[i] = f->pool + at;
		double score = 0;
		for (int j = 0; j < n; j++) {
			if (rng_unit(&g) >= density)
				continue;
			double v = 2 * rng_unit(&g) - 1;
			f->pool[at].index = j + 1;
			f->pool[at].value = v;
			at++;
			score += hidden[j] * v;
		}
		f->pool[at++].index = -1;
		double noise = rng_unit(&g) + rng_unit(&g) + rng_unit(&g) - 1.5;
		if (labels == LABELS_REAL) {
			f->y[i] = score + 0.3 * noise;
			continue;
		}
		if (labels == LABELS_SEPARABLE && fabs(score) < 0.2) {
			/* too close to the hidden plane: draw row i again */
			at = (size_t)(f->x[i] - f->pool);
			i--;
			continue;
		}
		f->y[i] = score >= 0 ? 1 : -1;
		if (labels == LABELS_NOISY_SIGN && rng_unit(&g) < 0.15)
			f->y[i] = -f->y[i];
	}
	f->X = rows_sparse(l, n, f->x);
}

/* Rows given as dense vectors (zeros left out), for hand-made problems. */
static inline void fixture_dense(struct fixture *f, int l, int n, const double *dense, const double *y)
{
	fixture_alloc(f, l, n, (size_t)l * (size_t)(n + 1));
	size_t at = 0;
	for (int i = 0; i < l; i++) {
		f->x[i] = f->pool + at;
		for (int j = 0; j < n; j++) {
			double v = dense[(size_t)i * (size_t)n + (size_t)j];
			if (v == 0)
				continue;
			f->pool[at].index = j + 1;
			f->pool[at].value = v;
			at++;
		}
		f->pool[at++].index = -1;
		f->y[i] = y[i];
	}
	f->X = rows_sparse(l, n, f->x);
}

/* A LIBSVM file from the shared data (xz-compressed), e.g. "heart/heart.all.xz". */
static inline void fixture_read_shared(struct fixture *f, const char *name)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "xz -dc '%s/%s'", shared_data_dir(), name);
	FILE *in = popen(cmd, "r");
	ck_assert_msg(in != NULL, "cannot run %s", cmd);
	size_t cap_rows = 1024, cap_nodes = 16384, at = 0;
	int l = 0, n = 0;
	size_t *starts = malloc(cap_rows * sizeof *starts);
	struct feature_node *pool = malloc(cap_nodes * sizeof *pool);
	double *y = malloc(cap_rows * sizeof *y);
	ck_assert(starts && pool && y);
	char line[65536];
	while (fgets(line, sizeof line, in)) {
		if ((size_t)l == cap_rows) {
			cap_rows *= 2;
			starts = realloc(starts, cap_rows * sizeof *starts);
			y = realloc(y, cap_rows * sizeof *y);
			ck_assert(starts && y);
		}
		starts[l] = at;
		char *tok = strtok(line, " \t\n");
		ck_assert(tok != NULL);
		y[l] = strtod(tok, NULL);
		while ((tok = strtok(NULL, " \t\n")) != NULL) {
			if (at + 2 >= cap_nodes) {
				cap_nodes *= 2;
				pool = realloc(pool, cap_nodes * sizeof *pool);
				ck_assert(pool != NULL);
			}
			ck_assert_int_eq(sscanf(tok, "%d:%lf", &pool[at].index, &pool[at].value), 2);
			if (pool[at].index > n)
				n = pool[at].index;
			at++;
		}
		pool[at++].index = -1;
		l++;
	}
	ck_assert_int_eq(pclose(in), 0);
	ck_assert_int_gt(l, 0);
	f->l = l;
	f->n = n;
	f->pool = pool;
	f->y = y;
	f->x = malloc((size_t)l * sizeof *f->x);
	ck_assert(f->x != NULL);
	for (int i = 0; i < l; i++)
		f->x[i] = pool + starts[i];
	free(starts);
	f->X = rows_sparse(l, n, f->x);
}

static inline double dot_dense(const double *a, const double *b, int n)
{
	double s = 0;
	for (int j = 0; j < n; j++)
		s += a[j] * b[j];
	return s;
}

/* The Isolation Kernel problem of a cell_fixture: L rows, T cells of PSI each, a bias. */
enum { CELL_ROWS_L = 120, CELL_ROWS_T = 4, CELL_ROWS_PSI = 6 };
enum { CELL_ROWS_N = CELL_ROWS_T * CELL_ROWS_PSI + 1 };

enum cell_labels {
	CELL_LABELS_SIGN,	/* +1/-1 from the centred cell sum, 10% flipped */
	CELL_LABELS_REAL	/* uniform offset plus 0.1 times the cell sum */
};

struct cell_fixture {
	uint16_t cells16[CELL_ROWS_L * CELL_ROWS_T];
	uint32_t cells32[CELL_ROWS_L * CELL_ROWS_T];
	struct feature_node nodes[CELL_ROWS_L * (CELL_ROWS_T + 2)];
	struct feature_node *rows[CELL_ROWS_L];
	double y[CELL_ROWS_L];
	struct row_set sparse;	/* ROWS_SPARSE view of rows */
	struct row_set cell;	/* ROWS_CELLS view of the same problem */
};

/*
 * Draws the cells from seed; wide_cells stores them as cells32 instead of
 * cells16, so both ROWS_CELLS storages get tested. The fixture must not
 * move after this call (its row_sets point into it).
 */
static inline void cell_fixture_fill(struct cell_fixture *c, uint64_t seed,
	enum cell_labels labels, bool wide_cells)
{
	enum { L = CELL_ROWS_L, T = CELL_ROWS_T, PSI = CELL_ROWS_PSI, N = CELL_ROWS_N };
	const double cell_value = 0.5, bias = 1;
	struct rng g;
	rng_seed(&g, seed);
	for (int i = 0; i < L; i++) {
		struct feature_node *row = c->nodes + i * (T + 2);
		c->rows[i] = row;
		/* real labels take their offset before the cells are drawn */
		double real = labels == CELL_LABELS_REAL ? rng_unit(&g) - 0.5 : 0;
		double score = 0;
		for (int k = 0; k < T; k++) {
			uint32_t cell = (uint32_t)rng_below(&g, PSI);
			c->cells16[i * T + k] = (uint16_t)cell;
			c->cells32[i * T + k] = cell;
			row[k].index = k * PSI + (int)cell + 1;
			row[k].value = cell_value;
			score += cell - (PSI - 1) / 2.0;
			real += 0.1 * cell;
		}
		row[T].index = N;
		row[T].value = bias;
		row[T + 1].index = -1;
		if (labels == CELL_LABELS_REAL)
			c->y[i] = real;
		else
			c->y[i] = (score > 0) != (rng_unit(&g) < 0.1) ? 1 : -1;
	}
	c->sparse = rows_sparse(L, N, c->rows);
	c->cell = (struct row_set){0};
	c->cell.kind = ROWS_CELLS;
	c->cell.l = L;
	c->cell.n = N;
	c->cell.t = T;
	c->cell.psi = PSI;
	c->cell.cell_value = cell_value;
	if (wide_cells)
		c->cell.cells32 = c->cells32;
	else
		c->cell.cells16 = c->cells16;
	c->cell.bias = bias;
}

static char captured[1 << 16];
static size_t captured_len;

static inline void capture_append(const char *s)
{
	size_t k = strlen(s);
	if (captured_len + k >= sizeof captured)
		k = sizeof captured - 1 - captured_len;
	memcpy(captured + captured_len, s, k);
	captured_len += k;
	captured[captured_len] = '\0';
}

static inline void capture_start(void)
{
	captured_len = 0;
	captured[0] = '\0';
	set_print_string_function(capture_append);
}

/* The number after the last occurrence of key in the captured output. */
static inline double captured_double(const char *key)
{
	const char *at = NULL;
	for (const char *p = strstr(captured, key); p; p = strstr(p + 1, key))
		at = p;
	ck_assert_msg(at != NULL, "no '%s' in output: %.200s", key, captured);
	return strtod(at + strlen(key), NULL);
}

static inline int captured_int(const char *key)
{
	return (int)captured_double(key);
}

#endif /* TESTS_DUAL_FIXTURES_H */
