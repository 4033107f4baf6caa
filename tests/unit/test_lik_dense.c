/*
 * test_lik_dense.c - dense input (lik_map_build_dense, lik_map_rows_dense
 * and ikmap's dense functions) against the sparse form of the same rows:
 * the map's bytes and checksum and every cell must be identical, for
 * both kernels, scaled and not, several psi, shapes with empty columns
 * and a leading dimension above the columns, every aNNE path forced in
 * turn (dense, dense pruned, sparse), 1 and 2 threads; and the refusals
 * (non-finite values, bad sizes) with their codes.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "ikmap.h"
#include "ikmap_impl.h"
#include "liblinear_ik.h"

/* A small deterministic generator (splitmix64) so the data need no fixture. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
	return (double)(mix(s) >> 11) * 0x1p-53;
}

/*
 * n rows of cols values (row stride ld, the padding filled with garbage
 * that must never be read as data: NaN), zero with probability zeros;
 * levels > 0 rounds values to that many grey levels, so rows repeat
 * values and the exact recheck of near ties runs. Columns at and above
 * empty_from stay zero (a dense matrix wider than its data).
 */
static double *dense_data(int n, int cols, int ld, double zeros, int levels, int empty_from,
	uint64_t seed)
{
	double *x = malloc((size_t)n * (size_t)ld * sizeof *x);
	ck_assert_ptr_nonnull(x);
	uint64_t s = seed;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < ld; j++) {
			double v = NAN;
			if (j < cols) {
				v = uniform(&s) * 2 - 1;
				if (levels > 0)
					v = round(v * levels) / levels;
				if (uniform(&s) < zeros || j >= empty_from)
					v = 0;
			}
			x[(size_t)i * ld + j] = v;
		}
	return x;
}

/* The sparse form: nonzeros of columns 1..cols ascending, rows into one block. */
struct sparse {
	struct feature_node **rows;
	struct feature_node *nodes;
	int width;		/* the largest column with a nonzero */
};

static struct sparse sparse_of(const double *x, int n, int cols, int ld)
{
	struct sparse sp = { malloc((size_t)n * sizeof *sp.rows),
		malloc(((size_t)n * (size_t)cols + (size_t)n) * sizeof *sp.nodes), 0 };
	ck_assert_ptr_nonnull(sp.rows);
	ck_assert_ptr_nonnull(sp.nodes);
	struct feature_node *at = sp.nodes;
	for (int i = 0; i < n; i++) {
		sp.rows[i] = at;
		for (int j = 0; j < cols; j++)
			if (x[(size_t)i * ld + j] != 0) {
				at->index = j + 1;
				at->value = x[(size_t)i * ld + j];
				if (j + 1 > sp.width)
					sp.width = j + 1;
				at++;
			}
		at->index = -1;
		at->value = 0;
		at++;
	}
	return sp;
}

static void sparse_free(struct sparse *sp)
{
	free(sp->rows);
	free(sp->nodes);
}

struct shape {
	int n, cols, ld, levels, empty_from;
	double zeros;
};

static const struct shape shapes[] = {
	{ 300, 20, 20, 0, 20, 0.3 },	/* low d: the sparse aNNE path by cost */
	{ 200, 784, 784, 0, 784, 0.5 },	/* MNIST-like width: the dense path */
	{ 160, 12, 15, 4, 9, 0.4 },	/* ld > cols, empty last columns, repeated values */
	{ 120, 64, 64, 1, 64, 0.6 },	/* values in {-1, 0, 1}: true ties everywhere */
};

static uint64_t bytes_checksum(const struct lik_map *m, unsigned char **bytes, size_t *size)
{
	struct lik_error err;
	ck_assert_int_eq(lik_map_to_bytes(m, bytes, size, &err), 0);
	return lik_map_checksum(m);
}

/* The C API: maps and cells of both forms for one shape and parameter set. */
static void compare_api(const struct shape *sh, int kernel, int psi, int scale, uint64_t seed)
{
	double *x = dense_data(sh->n, sh->cols, sh->ld, sh->zeros, sh->levels, sh->empty_from, seed);
	struct sparse sp = sparse_of(x, sh->n, sh->cols, sh->ld);
	struct problem prob = { .l = sh->n, .n = sp.width, .x = sp.rows, .bias = -1 };
	struct lik_map_params p;
	lik_map_params_default(&p, kernel);
	p.t = 30;
	p.psi = psi;
	p.seed = seed;
	p.scale = scale;
	p.device = LIK_DEVICE_CPU;
	p.threads = 2;
	struct lik_error err;
	struct lik_map *a = lik_map_build(&prob, &p, &err);
	ck_assert_msg(a != NULL, "%s", err.message);
	struct lik_map *b = lik_map_build_dense(x, (size_t)sh->n, (size_t)sh->cols, (size_t)sh->ld,
		&p, &err);
	ck_assert_msg(b != NULL, "%s", err.message);
	ck_assert_int_eq(err.code, LIK_OK);
	ck_assert_int_eq(lik_map_dim(a), lik_map_dim(b));
	unsigned char *ba, *bb;
	size_t sa, sb;
	ck_assert_uint_eq(bytes_checksum(a, &ba, &sa), bytes_checksum(b, &bb, &sb));
	ck_assert_uint_eq(sa, sb);
	ck_assert_int_eq(memcmp(ba, bb, sa), 0);
	lik_free(ba);
	lik_free(bb);

	size_t cells = (size_t)sh->n * (size_t)p.t;
	uint32_t *ca = malloc(cells * sizeof *ca), *cb = malloc(cells * sizeof *cb);
	ck_assert_ptr_nonnull(ca);
	ck_assert_ptr_nonnull(cb);
	ck_assert_int_eq(lik_map_rows(a, sp.rows, (size_t)sh->n, ca, LIK_DEVICE_CPU, 2, &err), 0);
	for (int threads = 1; threads <= 2; threads++) {
		memset(cb, 0xff, cells * sizeof *cb);
		ck_assert_msg(lik_map_rows_dense(b, x, (size_t)sh->n, (size_t)sh->cols, (size_t)sh->ld,
			cb, LIK_DEVICE_CPU, threads, &err) == 0, "%s", err.message);
		ck_assert_int_eq(memcmp(ca, cb, cells * sizeof *ca), 0);
	}
	/* fewer columns than the map's dim: the missing ones are zeros */
	int fewer = sh->cols / 2;
	struct sparse half = sparse_of(x, sh->n, fewer, sh->ld);
	ck_assert_int_eq(lik_map_rows(a, half.rows, (size_t)sh->n, ca, LIK_DEVICE_CPU, 2, &err), 0);
	ck_assert_int_eq(lik_map_rows_dense(b, x, (size_t)sh->n, (size_t)fewer, (size_t)sh->ld, cb,
		LIK_DEVICE_CPU, 2, &err), 0);
	ck_assert_int_eq(memcmp(ca, cb, cells * sizeof *ca), 0);
	sparse_free(&half);
	free(ca);
	free(cb);
	lik_map_free(&a);
	lik_map_free(&b);
	sparse_free(&sp);
	free(x);
}

START_TEST(api_maps_and_cells_match_the_sparse_form)
{
	static const int psis[] = { 1, 4, 16, 64 };
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
		for (int kernel = LIK_KERNEL_ANNE; kernel <= LIK_KERNEL_IFOREST; kernel++)
			for (int scale = 0; scale <= 1; scale++)
				for (size_t q = 0; q < sizeof psis / sizeof psis[0]; q++)
					compare_api(&shapes[s], kernel, psis[q], scale,
						100 + s * 7 + (uint64_t)q);
}
END_TEST

/* ikmap level, every aNNE path forced: the direct dense packing and the block conversion. */
START_TEST(every_anne_path_gives_the_sparse_cells)
{
	static const enum ikmap_path paths[] = { IKMAP_PATH_DENSE, IKMAP_PATH_SPARSE };
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		const struct shape *sh = &shapes[s];
		double *x = dense_data(sh->n, sh->cols, sh->ld, sh->zeros, sh->levels, sh->empty_from,
			7 + s);
		struct sparse sp = sparse_of(x, sh->n, sh->cols, sh->ld);
		for (int scale = 0; scale <= 1; scale++) {
			struct ikmap_params p = { IKMAP_ANNE, 25, 32, 3 + s, scale, 2, 0 };
			char why[IKMAP_ERR_SIZE];
			struct ikmap *a = ikmap_build(sp.rows, sh->n, sp.width, &p, why);
			ck_assert_msg(a != NULL, "%s", why);
			int d = ikmap_dense_width(x, (size_t)sh->n, (size_t)sh->cols, (size_t)sh->ld);
			ck_assert_int_eq(d, sp.width);
			struct ikmap *b = ikmap_build_dense(x, sh->n, d, (size_t)sh->ld, &p, why);
			ck_assert_msg(b != NULL, "%s", why);
			ck_assert_uint_eq(ikmap_checksum(a), ikmap_checksum(b));
			size_t cells = (size_t)sh->n * 25;
			uint16_t *ca = malloc(cells * 2), *cb = malloc(cells * 2);
			ck_assert_ptr_nonnull(ca);
			ck_assert_ptr_nonnull(cb);
			for (size_t q = 0; q < 2; q++) {
				ck_assert_int_eq(ikmap_set_path(a, paths[q], why), 0);
				ck_assert_int_eq(ikmap_set_path(b, paths[q], why), 0);
				for (int pruned = 0; pruned <= (paths[q] == IKMAP_PATH_DENSE); pruned++) {
					ck_assert_int_eq(ikmap_anne_set_prune(a, pruned, why), 0);
					ck_assert_int_eq(ikmap_anne_set_prune(b, pruned, why), 0);
					ck_assert_int_eq(ikmap_map(a, sp.rows, (size_t)sh->n, ca, 2, why), 0);
					for (int threads = 1; threads <= 2; threads++) {
						memset(cb, 0xff, cells * 2);
						ck_assert_msg(ikmap_map_dense_on(b, x, (size_t)sh->n,
							sh->cols, (size_t)sh->ld, cb, threads,
							IKMAP_DEVICE_CPU, why) == 0, "%s", why);
						ck_assert_msg(memcmp(ca, cb, cells * 2) == 0,
							"shape %zu path %d pruned %d", s,
							(int)paths[q], pruned);
					}
				}
			}
			free(ca);
			free(cb);
			ikmap_free(a);
			ikmap_free(b);
		}
		sparse_free(&sp);
		free(x);
	}
}
END_TEST

START_TEST(non_finite_values_and_bad_sizes_are_refused)
{
	double *x = dense_data(50, 10, 10, 0.3, 0, 10, 11);
	struct lik_map_params p;
	lik_map_params_default(&p, LIK_KERNEL_ANNE);
	p.t = 10;
	p.psi = 8;
	p.device = LIK_DEVICE_CPU;
	struct lik_error err;
	struct lik_map *m = lik_map_build_dense(x, 50, 10, 10, &p, &err);
	ck_assert_msg(m != NULL, "%s", err.message);
	uint32_t cells[50 * 10];
	for (int kernel = LIK_KERNEL_ANNE; kernel <= LIK_KERNEL_IFOREST; kernel++) {
		p.kernel = kernel;
		double keep = x[3 * 10 + 6];
		for (int bad = 0; bad < 3; bad++) {
			x[3 * 10 + 6] = bad == 0 ? NAN : bad == 1 ? INFINITY : -INFINITY;
			ck_assert_ptr_null(lik_map_build_dense(x, 50, 10, 10, &p, &err));
			ck_assert_int_eq(err.code, LIK_EDATA);
			ck_assert_msg(strstr(err.message, "row 4: feature 7 is not a finite number") != NULL,
				"%s", err.message);
			ck_assert_int_eq(lik_map_rows_dense(m, x, 50, 10, 10, cells, LIK_DEVICE_CPU, 2,
				&err), -1);
			ck_assert_int_eq(err.code, LIK_EDATA);
			ck_assert_msg(strstr(err.message, "row 4: feature 7") != NULL, "%s", err.message);
		}
		x[3 * 10 + 6] = keep;
	}
	/* a bad value above the map's dim is refused too, as the Python layer refuses it */
	double wide[50 * 12];
	for (int i = 0; i < 50; i++)
		for (int j = 0; j < 12; j++)
			wide[i * 12 + j] = j < 10 ? x[i * 10 + j] : 0;
	wide[5 * 12 + 11] = NAN;
	ck_assert_int_eq(lik_map_rows_dense(m, wide, 50, 12, 12, cells, LIK_DEVICE_CPU, 2, &err), -1);
	ck_assert_int_eq(err.code, LIK_EDATA);
	/* sizes */
	p.kernel = LIK_KERNEL_ANNE;
	ck_assert_ptr_null(lik_map_build_dense(x, 50, 10, 9, &p, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	p.psi = 51;
	ck_assert_ptr_null(lik_map_build_dense(x, 50, 10, 10, &p, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	p.psi = 8;
	double zero[20] = {0};
	ck_assert_ptr_null(lik_map_build_dense(zero, 10, 2, 2, &p, &err));
	ck_assert_int_eq(err.code, LIK_EDATA);
	ck_assert_ptr_null(lik_map_build_dense(NULL, 10, 2, 2, &p, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	ck_assert_int_eq(lik_map_rows_dense(m, x, 50, 10, 5, cells, LIK_DEVICE_CPU, 2, &err), -1);
	ck_assert_int_eq(err.code, LIK_EINVAL);
	ck_assert_int_eq(lik_map_rows_dense(m, NULL, 0, 10, 10, NULL, LIK_DEVICE_CPU, 2, &err), 0);
	ck_assert_int_eq(err.code, LIK_OK);
	lik_map_free(&m);
	free(x);
}
END_TEST

static Suite *dense_suite(void)
{
	Suite *s = suite_create("lik_dense");
	TCase *tc = tcase_create("dense");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, api_maps_and_cells_match_the_sparse_form);
	tcase_add_test(tc, every_anne_path_gives_the_sparse_cells);
	tcase_add_test(tc, non_finite_values_and_bad_sizes_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(dense_suite)
