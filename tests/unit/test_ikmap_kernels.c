/*
 * test_ikmap_kernels.c - the min-max and acos maps of issue 27 at the
 * library level (ikmap/ikmap.h): their parameters and caps, scale 2, the
 * acos projections (Gaussians, reference, fast path), the .ik version 2
 * and version 1's bytes.
 *
 * Independent expectations: the acos collision share against 1 -
 * angle/pi from libm's acos (within 4/sqrt(k), the bound); the
 * Gaussian against this file's own reading of ikmap.h's transform text;
 * the reference cells against a plain dot product written here; the
 * version-2 layout against bytes assembled here from ikmap_file.c's
 * format comment; version 1 against checksums of the same maps computed
 * by the code before issue 27 (commit 9a0c583). Min-max tests need the
 * sampler (ikmap/cws.c, written on its own branch); they compile to
 * nothing where ikmap/cws.h is missing and are listed by the suite then.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counter_rng.h"
#include "detmath.h"
#include "ikmap.h"
#include "ikmap_impl.h"
#include "rng.h"
#include "scratch_dir.h"
#include "unit.h"

#if defined(__has_include)
#if __has_include("cws.h")
#define HAVE_CWS 1
#endif
#endif

/* ---- rows ---- */

struct rows {
	int n, d;
	struct feature_node **row;
	double *dense;		/* n x d, row-major: the same values */
};

/* n rows of d features, nonzero with probability density, uniform in [lo, hi). */
static struct rows rows_random(int n, int d, double density, double lo, double hi, uint64_t seed)
{
	struct rows x = { n, d, malloc((size_t)n * sizeof(struct feature_node *)),
		calloc((size_t)n * (size_t)d, sizeof(double)) };
	ck_assert(x.row && x.dense);
	struct rng g;
	rng_seed(&g, seed);
	for (int i = 0; i < n; i++) {
		x.row[i] = malloc(((size_t)d + 1) * sizeof(struct feature_node));
		ck_assert_ptr_nonnull(x.row[i]);
		int c = 0;
		for (int j = 1; j <= d; j++)
			if (rng_unit(&g) < density) {
				double v = lo + (hi - lo) * rng_unit(&g);
				if (v == 0)
					continue;
				x.row[i][c].index = j;
				x.row[i][c++].value = v;
				x.dense[(size_t)i * d + j - 1] = v;
			}
		x.row[i][c].index = -1;
		x.row[i][c].value = 0;
	}
	return x;
}

static void rows_free(struct rows *x)
{
	for (int i = 0; i < x->n; i++)
		free(x->row[i]);
	free(x->row);
	free(x->dense);
}

static struct ikmap_params params(enum ikmap_method m, int k, int cells, int scale, uint64_t seed)
{
	struct ikmap_params p = { m, k, cells, seed, scale, 1, 0 };
	return p;
}

static struct ikmap *build(const struct rows *x, struct ikmap_params p)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_build(x->row, x->n, x->d, &p, err);
	ck_assert_msg(map != NULL, "build: %s", err);
	return map;
}

/* Cells of rows as uint32 (count * k), by ikmap_map_on on threads. */
static uint32_t *cells_of(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	int threads)
{
	size_t k = (size_t)ikmap_t(map);
	void *raw = malloc(count * k * ikmap_cell_size(map));
	uint32_t *out = malloc(count * k * sizeof(uint32_t));
	ck_assert(raw && out);
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_msg(ikmap_map_on(map, rows, count, raw, threads, IKMAP_DEVICE_CPU, err) == 0,
		"map: %s", err);
	for (size_t c = 0; c < count * k; c++)
		out[c] = ikmap_cell_at(map, raw, c);
	free(raw);
	return out;
}

/* ---- acos: the Gaussian and the reference, read from ikmap.h's text ---- */

/* Marsaglia's polar method as ikmap.h words it. */
static double contract_gaussian(uint64_t seed, int j, int i)
{
	uint64_t stream = crng_stream(seed, (uint64_t)j);
	for (uint64_t a = 0; a < 1000; a++) {
		uint64_t key = (uint64_t)i + (a / 8) * 4294967296ULL;
		unsigned draw = (unsigned)(2 * (a % 8));
		double u0 = crng_unit_open(crng_at(stream, key, draw));
		double u1 = crng_unit_open(crng_at(stream, key, draw + 1));
		double u = 2 * u0 - 1, v = 2 * u1 - 1;
		volatile double uu = u * u, vv = v * v;	/* no fused multiply-add here either */
		double s = uu + vv;
		if (s < 1) {
			volatile double l = -2 * det_log(s);
			volatile double q = l / s;
			return u * sqrt(q);
		}
	}
	ck_abort_msg("1000 rejections");
	return 0;
}

/* The reference cell of projection j for a sparse row (no transform). */
static int contract_cell(uint64_t seed, int j, const struct feature_node *x, int d)
{
	double sum = 0;
	for (; x->index != -1; x++) {
		if (x->index > d || x->value == 0)
			continue;
		volatile double p = x->value * contract_gaussian(seed, j, x->index);
		sum += p;
	}
	return sum >= 0;
}

START_TEST(acos_gaussian_follows_the_contract)
{
	double sum = 0, sq = 0;
	int n = 0;
	for (int j = 0; j < 50; j++)
		for (int i = 1; i <= 400; i++) {
			double g = ikmap_acos_gaussian(crng_stream(99, (uint64_t)j), i);
			double want = contract_gaussian(99, j, i);
			ck_assert_msg(memcmp(&g, &want, sizeof g) == 0, "g(%d, %d)", j, i);
			sum += g;
			sq += g * g;
			n++;
		}
	/* N(0, 1): mean within 5 standard errors, variance within 5 of its own (sd sqrt(2/n)) */
	ck_assert(fabs(sum / n) < 5 / sqrt(n));
	ck_assert(fabs(sq / n - 1) < 5 * sqrt(2.0 / n));
}
END_TEST

/* 1 - angle/pi of two sparse rows, from libm. */
static double acos_kernel(const struct feature_node *x, const struct feature_node *y)
{
	double xy = 0, xx = 0, yy = 0;
	const struct feature_node *a = x, *b = y;
	for (; a->index != -1; a++)
		xx += a->value * a->value;
	for (; b->index != -1; b++)
		yy += b->value * b->value;
	for (a = x, b = y; a->index != -1 && b->index != -1;) {
		if (a->index == b->index)
			xy += (a++)->value * (b++)->value;
		else if (a->index < b->index)
			a++;
		else
			b++;
	}
	return 1 - acos(xy / sqrt(xx * yy)) / 3.14159265358979323846;
}

START_TEST(acos_collision_share_is_one_minus_angle_over_pi)
{
	/* correlated pairs: row 2i+1 = row 2i plus noise, so angles spread over (0, pi) */
	int k = 2000, pairs = 12, d = 60;
	struct rows x = rows_random(2 * pairs, d, 0.7, -1, 1, 5);
	struct rng g;
	rng_seed(&g, 6);
	for (int p = 0; p < pairs; p++) {
		struct feature_node *a = x.row[2 * p], *b = x.row[2 * p + 1];
		double mix = p / (double)pairs;	/* 0: independent rows, near 1: nearly the same */
		int c = 0;
		for (int e = 0; a[e].index != -1; e++) {
			b[c].index = a[e].index;
			b[c++].value = mix * a[e].value + (1 - mix) * (2 * rng_unit(&g) - 1);
		}
		b[c].index = -1;
	}
	struct ikmap *map = build(&x, params(IKMAP_ACOS, k, 2, 0, 7));
	uint32_t *cells = cells_of(map, x.row, (size_t)x.n, 2);
	for (int p = 0; p < pairs; p++) {
		int same = 0;
		for (int j = 0; j < k; j++)
			same += cells[(size_t)2 * p * k + j] == cells[(size_t)(2 * p + 1) * k + j];
		double want = acos_kernel(x.row[2 * p], x.row[2 * p + 1]);
		double got = (double)same / k;
		ck_assert_msg(fabs(got - want) <= 4 / sqrt(k), "pair %d: share %g, 1 - angle/pi %g",
			p, got, want);
		double kk = ikmap_kernel(map, x.row[2 * p], x.row[2 * p + 1]);
		ck_assert(kk == got);
		ck_assert(ikmap_kernel(map, x.row[2 * p], x.row[2 * p]) == 1);
	}
	free(cells);
	ikmap_free(map);
	rows_free(&x);
}
END_TEST

/* Every path and thread count gives the contract's cells. */
static void check_paths(struct rows *x, int k, uint64_t seed, int check_contract)
{
	struct ikmap *map = build(x, params(IKMAP_ACOS, k, 0, 0, seed));
	ck_assert_int_eq(ikmap_psi(map), 2);
	char err[IKMAP_ERR_SIZE];
	ck_assert_int_eq(ikmap_set_path(map, IKMAP_PATH_SPARSE, err), 0);
	uint32_t *ref = cells_of(map, x->row, (size_t)x->n, 1);
	if (check_contract)
		for (int i = 0; i < x->n; i += 7)
			for (int j = 0; j < k; j += 13)
				ck_assert_msg(ref[(size_t)i * k + j] == (uint32_t)contract_cell(seed, j,
					x->row[i], x->d), "row %d projection %d", i, j);
	enum ikmap_path paths[3] = { IKMAP_PATH_SPARSE, IKMAP_PATH_DENSE, IKMAP_PATH_AUTO };
	size_t bytes = (size_t)x->n * (size_t)k * ikmap_cell_size(map);
	void *dense_cells = malloc(bytes);
	ck_assert_ptr_nonnull(dense_cells);
	for (int p = 0; p < 3; p++) {
		ck_assert_int_eq(ikmap_set_path(map, paths[p], err), 0);
		for (int threads = 1; threads <= 3; threads++) {
			/* 3 threads: the generic sign pass instead of the AVX2 one (where there is one) */
			ikmap_generic_scans = threads == 3;
			uint32_t *got = cells_of(map, x->row, (size_t)x->n, threads);
			ikmap_generic_scans = 0;
			ck_assert_msg(memcmp(got, ref, (size_t)x->n * k * sizeof(uint32_t)) == 0,
				"path %d, %d threads", p, threads);
			free(got);
		}
		/* dense input: the same cells */
		ck_assert_int_eq(ikmap_map_dense_on(map, x->dense, (size_t)x->n, x->d, (size_t)x->d,
			dense_cells, 2, IKMAP_DEVICE_CPU, err), 0);
		for (size_t c = 0; c < (size_t)x->n * k; c++)
			ck_assert(ikmap_cell_at(map, dense_cells, c) == ref[c]);
	}
	free(dense_cells);
	free(ref);
	ikmap_free(map);
}

START_TEST(acos_fast_path_equals_the_reference_dense_rows)
{
	/* 784 features, most nonzero in [0, 1) (an image-like set), k = 500 */
	struct rows x = rows_random(70, 784, 0.8, 0, 1, 11);
	check_paths(&x, 500, 12, 1);
	rows_free(&x);
}
END_TEST

START_TEST(acos_fast_path_equals_the_reference_sparse_and_odd_rows)
{
	struct rows x = rows_random(60, 300, 0.03, -5, 5, 21);
	/* row 0 empty, row 1 tiny values (float subnormal or zero), row 2 large, row 3 mixed */
	x.row[0][0].index = -1;
	memset(x.dense, 0, 300 * sizeof(double));
	double scale[3] = { 1e-42, 1e35, 1 };
	for (int r = 1; r <= 3; r++) {
		memset(x.dense + (size_t)r * 300, 0, 300 * sizeof(double));
		for (int j = 1; j <= 300; j++) {
			double v = (r == 3 && j % 2 ? 1e-30 : scale[r - 1]) * ((j * 37 % 11) - 5);
			x.row[r][j - 1].index = j;
			x.row[r][j - 1].value = v;
			x.dense[(size_t)r * 300 + j - 1] = v;
		}
		x.row[r][300].index = -1;
	}
	/* row 4: two features whose products cancel for projection 0: x1 g(0,2) - x2 g(0,1) = 0 */
	double g1 = ikmap_acos_gaussian(crng_stream(22, 0), 1);
	double g2 = ikmap_acos_gaussian(crng_stream(22, 0), 2);
	struct feature_node *r4 = x.row[4];
	r4[0].index = 1;
	r4[0].value = g2;
	r4[1].index = 2;
	r4[1].value = -g1;
	r4[2].index = -1;
	memset(x.dense + 4 * 300, 0, 300 * sizeof(double));
	x.dense[4 * 300] = g2;
	x.dense[4 * 300 + 1] = -g1;
	/* row 5: a value far beyond float's range (the reference takes the row) */
	struct feature_node *r5 = x.row[5];
	r5[0].index = 1;
	r5[0].value = 1e200;
	r5[1].index = 7;
	r5[1].value = -3;
	r5[2].index = -1;
	memset(x.dense + 5 * 300, 0, 300 * sizeof(double));
	x.dense[5 * 300] = 1e200;
	x.dense[5 * 300 + 6] = -3;
	check_paths(&x, 64, 22, 1);

	/* empty row: cell 1 everywhere */
	struct ikmap *map = build(&x, params(IKMAP_ACOS, 64, 2, 0, 22));
	uint32_t *c = cells_of(map, x.row, 1, 1);
	for (int j = 0; j < 64; j++)
		ck_assert_uint_eq(c[j], 1);
	free(c);
	ikmap_free(map);
	rows_free(&x);
}
END_TEST

START_TEST(acos_wide_map_has_no_table_and_ignores_features_above_d)
{
	/*
	 * k * d above IKMAP_ACOS_TABLE: no k x d table; batches of rows share
	 * their features' Gaussians (about 100 nonzeros a row: 40 rows make
	 * two batches of 2^21 numbers), and row 5, of 2500 nonzeros, is too
	 * long for a batch and recomputes them.
	 */
	struct rows x = rows_random(40, 5000, 0.02, -1, 1, 31);
	for (int j = 1; j <= 2500; j++) {
		x.row[5][j - 1].index = 2 * j;
		x.row[5][j - 1].value = (j % 7) - 3.5;
	}
	x.row[5][2500].index = -1;
	struct ikmap *map = build(&x, params(IKMAP_ACOS, 1000, 2, 0, 32));
	char err[IKMAP_ERR_SIZE];
	ck_assert_int_eq(ikmap_path(map), IKMAP_PATH_SPARSE);
	ck_assert_int_eq(ikmap_set_path(map, IKMAP_PATH_DENSE, err), -1);
	uint32_t *c = cells_of(map, x.row, (size_t)x.n, 2);
	for (int i = 0; i < x.n; i++)
		for (int j = i % 5; j < 1000; j += 97)
			ck_assert_msg(c[(size_t)i * 1000 + j] == (uint32_t)contract_cell(32, j, x.row[i],
				5000), "row %d projection %d", i, j);
	uint32_t *c1 = cells_of(map, x.row, (size_t)x.n, 1);
	ck_assert(memcmp(c, c1, (size_t)x.n * 1000 * sizeof(uint32_t)) == 0);
	free(c1);
	/* a feature above d changes nothing */
	struct feature_node a[] = { { 3, 0.5 }, { 4999, -1 }, { -1, 0 } };
	struct feature_node b[] = { { 3, 0.5 }, { 4999, -1 }, { 6000, 7 }, { -1, 0 } };
	ck_assert(ikmap_kernel(map, a, b) == 1);
	/* the device is ignored: the CPU maps */
	void *cells = malloc(1000 * ikmap_cell_size(map));
	struct feature_node *rows[1] = { a };
	ck_assert_ptr_nonnull(cells);
	ck_assert_int_eq(ikmap_map_on(map, rows, 1, cells, 1, IKMAP_DEVICE_GPU, err), 0);
	free(cells);
	free(c);
	ikmap_free(map);
	rows_free(&x);
}
END_TEST

START_TEST(kernel_parameters_and_caps)
{
	struct rows x = rows_random(5, 8, 0.5, 0, 1, 41);
	struct { enum ikmap_method m; int k, cells, scale; const char *word; } bad[] = {
		{ IKMAP_ACOS, 100, 4, 0, "2 cells" },
		{ IKMAP_ACOS, 0, 2, 0, "1..65536" },
		{ IKMAP_ACOS, 65537, 2, 0, "1..65536" },
		{ IKMAP_ACOS, 10, 2, 5, "scale 5" },	/* codes 0..4 only (issue 28) */
		{ IKMAP_ACOS, 10, 2, -1, "scale -1" },
		{ IKMAP_MINMAX, 10, 100, 0, "power of two" },
		{ IKMAP_MINMAX, 10, 8, 0, "power of two" },
		{ IKMAP_MINMAX, 10, 131072, 0, "power of two" },
		{ IKMAP_MINMAX, 65536, 65536, 0, "too large" },
		{ IKMAP_ANNE, 2, 2, 5, "scale 5" },
		{ IKMAP_IFOREST, 2, 2, 5, "scale 5" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char err[IKMAP_ERR_SIZE] = "";
		struct ikmap_params p = params(bad[i].m, bad[i].k, bad[i].cells, bad[i].scale, 1);
		ck_assert_ptr_null(ikmap_build(x.row, x.n, x.d, &p, err));
		ck_assert_msg(strstr(err, bad[i].word) != NULL, "case %zu: %s", i, err);
	}
	ck_assert_str_eq(ikmap_method_name(IKMAP_MINMAX), "minmax");
	ck_assert_str_eq(ikmap_method_name(IKMAP_ACOS), "acos");
	/* k and cells are not capped by the number of rows */
	struct ikmap *map = build(&x, params(IKMAP_ACOS, 65536, 2, 0, 3));
	ck_assert_int_eq(ikmap_t(map), 65536);
	ikmap_free(map);
	rows_free(&x);
}
END_TEST

START_TEST(minmax_refuses_negative_build_values_naming_row_and_feature)
{
	struct rows x = rows_random(5, 8, 0, 0, 1, 0);
	struct feature_node r1[] = { { 2, 1 }, { 5, -0.5 }, { -1, 0 } };
	struct feature_node *save = x.row[1];
	x.row[1] = r1;
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap_params p = params(IKMAP_MINMAX, 10, 16, 0, 1);
	ck_assert_ptr_null(ikmap_build(x.row, x.n, x.d, &p, err));
	ck_assert_msg(strstr(err, "row 2: feature 5 is negative (-0.5)") != NULL, "%s", err);
	x.dense[1 * 8 + 4] = -0.5;
	ck_assert_ptr_null(ikmap_build_dense(x.dense, x.n, x.d, 8, &p, err));
	ck_assert_msg(strstr(err, "row 2: feature 5 is negative (-0.5)") != NULL, "%s", err);
	x.row[1] = save;
	rows_free(&x);
}
END_TEST

/* ---- scale 2 ---- */

START_TEST(scale2_counts_implicit_zeros_and_clips)
{
	/*
	 * feature 1: 2, 4 in every row -> min 2 (no implicit zero), range 2
	 * feature 2: 3 in rows 0, 1 only -> min 0 (implicit zero), range 3
	 * feature 3: -1, 1, absent -> min -1, range 2: its zero maps to 0.5
	 * feature 4: 7 in every row -> range 0, factor 0
	 * feature 5: never present -> range 0
	 */
	struct feature_node r0[] = { { 1, 2 }, { 2, 3 }, { 3, -1 }, { 4, 7 }, { -1, 0 } };
	struct feature_node r1[] = { { 1, 4 }, { 2, 3 }, { 3, 1 }, { 4, 7 }, { -1, 0 } };
	struct feature_node r2[] = { { 1, 3 }, { 4, 7 }, { -1, 0 } };
	struct feature_node *rows[3] = { r0, r1, r2 };
	struct ikmap_params p = params(IKMAP_ACOS, 16, 2, 2, 5);
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_build(rows, 3, 5, &p, err);
	ck_assert_msg(map != NULL, "%s", err);
	ck_assert_int_eq(ikmap_scaled(map), 2);
	const double *mn = ikmap_scale_shift(map), *f = ikmap_scale_factors(map);
	ck_assert(mn && f);
	double want_min[6] = { 0, 2, 0, -1, 7, 0 }, want_f[6] = { 0, 0.5, 1 / 3.0, 0.5, 0, 0 };
	for (int j = 1; j <= 5; j++) {
		ck_assert_msg(mn[j] == want_min[j], "min %d: %g", j, mn[j]);
		ck_assert_msg(f[j] == want_f[j], "factor %d: %g", j, f[j]);
	}
	/* dense build: the same numbers (and the same file) */
	double dense[15] = { 2, 3, -1, 7, 0, 4, 3, 1, 7, 0, 3, 0, 0, 7, 0 };
	struct ikmap *dmap = ikmap_build_dense(dense, 3, 5, 5, &p, err);
	ck_assert_msg(dmap != NULL, "%s", err);
	ck_assert(ikmap_checksum(dmap) == ikmap_checksum(map));
	ikmap_free(dmap);

	/* map time: shifted, scaled, clipped; feature 3's absent zero becomes 0.5; above d dropped */
	struct feature_node t0[] = { { 1, 9 }, { 2, -4 }, { 4, 100 }, { 6, 5 }, { -1, 0 } };
	struct feature_node *trow[1] = { t0 };
	struct ikmap_rows_in in = { trow, NULL };
	int index[16];
	double value[16];
	ck_assert_uint_le(ikmap_kernel_row_room(map, &in, 0), 16);
	int n = ikmap_kernel_row(map, &in, 0, index, value);
	/* feature 1: (9 - 2) / 2 -> 1 (clipped); 2: -4 -> 0 (dropped); 3: 0.5; 4: factor 0 -> 0 */
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(index[0], 1);
	ck_assert(value[0] == 1);
	ck_assert_int_eq(index[1], 3);
	ck_assert(value[1] == 0.5);
	struct feature_node t1[] = { { 1, 3 }, { 3, 0 }, { -1, 0 } };	/* a present 0 is the absent one */
	trow[0] = t1;
	n = ikmap_kernel_row(map, &in, 0, index, value);
	ck_assert_int_eq(n, 2);
	ck_assert(index[0] == 1 && value[0] == 0.5 && index[1] == 3 && value[1] == 0.5);
	ikmap_free(map);
}
END_TEST

/*
 * Scale 2 end to end: rows with negative values (so the zeros of some
 * features shift to nonzeros), the transform done here from the stored
 * minima and factors as ikmap.h words it, then the contract's cells; the
 * sparse and dense inputs and both paths agree.
 */
START_TEST(acos_scale2_cells_follow_the_transform)
{
	int d = 40, k = 300;
	struct rows x = rows_random(50, d, 0.4, -2, 3, 91);
	struct ikmap *map = build(&x, params(IKMAP_ACOS, k, 2, 2, 92));
	const double *mn = ikmap_scale_shift(map), *f = ikmap_scale_factors(map);
	/* test rows: the build rows, some values beyond the build range */
	struct rows y = rows_random(20, d + 5, 0.5, -4, 6, 93);
	uint32_t *c = cells_of(map, y.row, (size_t)y.n, 2);
	struct feature_node *tr = malloc(((size_t)d + 1) * sizeof *tr);
	ck_assert_ptr_nonnull(tr);
	int shifted = 0;
	for (int i = 0; i < y.n; i++) {
		int n = 0;
		for (int j = 1; j <= d; j++) {
			double v = y.dense[(size_t)i * (d + 5) + j - 1];
			double z = f[j] == 0 ? 0 : (v - mn[j]) * f[j];
			z = z > 1 ? 1 : z < 0 ? 0 : z;
			if (z != 0) {
				tr[n].index = j;
				tr[n++].value = z;
			}
			shifted += v == 0 && z != 0;
		}
		tr[n].index = -1;
		for (int j = 0; j < k; j += 7)
			ck_assert_msg(c[(size_t)i * k + j] == (uint32_t)contract_cell(92, j, tr, d),
				"row %d projection %d", i, j);
	}
	ck_assert_int_gt(shifted, 0);	/* the shift really made absent features nonzero */
	char err[IKMAP_ERR_SIZE];
	void *dense = malloc((size_t)y.n * k * ikmap_cell_size(map));
	ck_assert_ptr_nonnull(dense);
	enum ikmap_path paths[2] = { IKMAP_PATH_DENSE, IKMAP_PATH_SPARSE };
	for (int p = 0; p < 2; p++) {
		ck_assert_int_eq(ikmap_set_path(map, paths[p], err), 0);
		uint32_t *again = cells_of(map, y.row, (size_t)y.n, 3);
		ck_assert(memcmp(again, c, (size_t)y.n * k * sizeof(uint32_t)) == 0);
		free(again);
		ck_assert_int_eq(ikmap_map_dense_on(map, y.dense, (size_t)y.n, d + 5, (size_t)d + 5,
			dense, 1, IKMAP_DEVICE_CPU, err), 0);
		for (size_t e = 0; e < (size_t)y.n * k; e++)
			ck_assert(ikmap_cell_at(map, dense, e) == c[e]);
	}
	free(dense);
	free(tr);
	free(c);
	ikmap_free(map);
	rows_free(&x);
	rows_free(&y);
}
END_TEST

/* ---- files ---- */

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* A version-2 file assembled from ikmap_file.c's format comment (mins, factors: d each or NULL). */
static unsigned char *v2_file(uint32_t version, uint32_t method, uint32_t k, uint32_t cells,
	uint32_t d, uint32_t scale, uint64_t seed, const double *mins, const double *factors,
	size_t *size)
{
	size_t n = 56 + 8 + (mins ? 16 * (size_t)d : 0);
	unsigned char *b = calloc(1, n);
	ck_assert_ptr_nonnull(b);
	memcpy(b, "IKMAP\r\n\x1a", 8);
	put_le(b + 8, version, 4);
	put_le(b + 12, method, 4);
	put_le(b + 16, k, 4);
	put_le(b + 20, cells, 4);
	put_le(b + 24, d, 4);
	put_le(b + 28, scale, 4);
	put_le(b + 32, seed, 8);
	/* count1, count2 = 0 */
	if (mins)
		for (uint32_t j = 0; j < d; j++) {
			uint64_t bits;
			memcpy(&bits, &mins[j], 8);
			put_le(b + 56 + 8 * (size_t)j, bits, 8);
			memcpy(&bits, &factors[j], 8);
			put_le(b + 56 + 8 * ((size_t)d + j), bits, 8);
		}
	put_le(b + n - 8, fnv(b, n - 8), 8);
	*size = n;
	return b;
}

static void reseal(unsigned char *b, size_t n)
{
	put_le(b + n - 8, fnv(b, n - 8), 8);
}

START_TEST(acos_file_round_trips_as_version_2)
{
	scratch_dir_make("ikmap_kernels");
	struct rows x = rows_random(30, 20, 0.6, -3, 2, 51);
	for (int scale = 0; scale <= 2; scale += 2) {
		struct ikmap *map = build(&x, params(IKMAP_ACOS, 40, 2, scale, 52));
		unsigned char *bytes;
		size_t size;
		char err[IKMAP_ERR_SIZE] = "";
		ck_assert_int_eq(ikmap_to_memory(map, &bytes, &size, err), 0);
		/* the layout, byte for byte */
		size_t want_size;
		unsigned char *want = v2_file(2, IKMAP_ACOS, 40, 2, 20, (uint32_t)scale, 52,
			scale ? ikmap_scale_shift(map) + 1 : NULL,
			scale ? ikmap_scale_factors(map) + 1 : NULL, &want_size);
		ck_assert_uint_eq(size, want_size);
		ck_assert(memcmp(bytes, want, size) == 0);
		free(want);
		/* memory and file round trips: same checksum, same cells */
		struct ikmap *back = ikmap_from_memory(bytes, size, "mem", err);
		ck_assert_msg(back != NULL, "%s", err);
		ck_assert_int_eq(ikmap_save(map, scratch_path("a.ik"), err), 0);
		struct ikmap *loaded = ikmap_load(scratch_path("a.ik"), err);
		ck_assert_msg(loaded != NULL, "%s", err);
		int t, psi;
		ck_assert_int_eq(ikmap_peek(scratch_path("a.ik"), &t, &psi, err), 0);
		ck_assert(t == 40 && psi == 2);
		ck_assert(ikmap_checksum(back) == ikmap_checksum(map));
		ck_assert(ikmap_checksum(loaded) == ikmap_checksum(map));
		ck_assert_int_eq(ikmap_method(loaded), IKMAP_ACOS);
		ck_assert_int_eq(ikmap_scaled(loaded), scale);
		uint32_t *a = cells_of(map, x.row, (size_t)x.n, 2);
		uint32_t *b = cells_of(back, x.row, (size_t)x.n, 1);
		uint32_t *c = cells_of(loaded, x.row, (size_t)x.n, 3);
		size_t m = (size_t)x.n * 40 * sizeof(uint32_t);
		ck_assert(memcmp(a, b, m) == 0 && memcmp(a, c, m) == 0);
		free(a);
		free(b);
		free(c);
		free(bytes);
		ikmap_free(back);
		ikmap_free(loaded);
		ikmap_free(map);
	}
	rows_free(&x);
	scratch_dir_remove();
}
END_TEST

static void refused(const unsigned char *b, size_t n, const char *word)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_from_memory(b, n, "crafted", err);
	ck_assert_msg(map == NULL, "loaded; expected: %s", word);
	ck_assert_msg(strstr(err, word) != NULL, "%s (expected %s)", err, word);
}

START_TEST(damaged_and_crafted_version_2_files_are_refused)
{
	double mins[3] = { -1, 0, 2 }, factors[3] = { 0.5, 0, 1 };
	size_t n;
	unsigned char *b;
	/* the good ones load */
	b = v2_file(2, IKMAP_ACOS, 10, 2, 3, 2, 7, mins, factors, &n);
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_from_memory(b, n, "good", err);
	ck_assert_msg(map != NULL, "%s", err);
	ikmap_free(map);
	/* truncated, a flipped byte (checksum), a byte added */
	refused(b, n - 1, "wrong size");
	b[60] ^= 1;
	refused(b, n, "checksum");
	b[60] ^= 1;
	unsigned char *longer = calloc(1, n + 8);
	ck_assert_ptr_nonnull(longer);
	memcpy(longer, b, n);
	reseal(longer, n + 8);
	refused(longer, n + 8, "wrong size");
	free(longer);
	/* a NaN min, a negative factor, an infinite factor */
	double nan_min[3] = { NAN, 0, 0 }, neg[3] = { 1, -1, 1 }, inf[3] = { 1, INFINITY, 1 };
	free(b);
	b = v2_file(2, IKMAP_ACOS, 10, 2, 3, 2, 7, nan_min, factors, &n);
	refused(b, n, "out of range");
	free(b);
	b = v2_file(2, IKMAP_ACOS, 10, 2, 3, 2, 7, mins, neg, &n);
	refused(b, n, "out of range");
	free(b);
	b = v2_file(2, IKMAP_ACOS, 10, 2, 3, 2, 7, mins, inf, &n);
	refused(b, n, "out of range");
	free(b);
	/* impossible headers */
	struct { uint32_t version, method, k, cells, d, scale; } bad[] = {
		{ 2, IKMAP_ACOS, 10, 4, 3, 0 },		/* acos cells 4 */
		{ 2, IKMAP_ACOS, 10, 0, 3, 0 },
		{ 2, IKMAP_MINMAX, 10, 48, 3, 0 },	/* not a power of two */
		{ 2, IKMAP_MINMAX, 10, 8, 3, 0 },
		{ 2, IKMAP_MINMAX, 10, 131072, 3, 0 },
		{ 2, IKMAP_MINMAX, 65536, 65536, 3, 0 },	/* k * cells > INT_MAX - 2 */
		{ 2, IKMAP_ACOS, 65537, 2, 3, 0 },
		{ 2, IKMAP_ACOS, 0, 2, 3, 0 },
		{ 2, IKMAP_ACOS, 10, 2, 3, 5 },		/* scale codes are 0..4 */
		{ 2, IKMAP_MINMAX, 16, 16, 3, 7 },
		{ 2, IKMAP_ACOS, 10, 2, 0, 0 },		/* d 0 */
		{ 2, IKMAP_ACOS, 10, 2, 2147483647u, 0 },
		{ 2, IKMAP_ANNE, 10, 2, 3, 0 },		/* v2 aNNE: scales 2-4 only */
		{ 2, IKMAP_ANNE, 10, 2, 3, 1 },
		{ 2, IKMAP_IFOREST, 10, 2, 3, 0 },	/* v2 iForest: scale 4 only */
		{ 2, IKMAP_IFOREST, 10, 2, 3, 2 },
		{ 1, IKMAP_ANNE, 10, 2, 3, 2 },		/* v1 knows no scale 2-4 */
		{ 1, IKMAP_IFOREST, 10, 2, 3, 4 },
		{ 2, 4, 10, 2, 3, 0 },
		{ 1, IKMAP_ACOS, 10, 2, 3, 0 },		/* v1 knows no acos */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		b = v2_file(bad[i].version, bad[i].method, bad[i].k, bad[i].cells, bad[i].d,
			bad[i].scale, 1, NULL, NULL, &n);
		refused(b, n, "impossible header");
		free(b);
	}
	/* reserved counts must be 0 */
	b = v2_file(2, IKMAP_ACOS, 10, 2, 3, 0, 1, NULL, NULL, &n);
	put_le(b + 40, 1, 8);
	reseal(b, n);
	refused(b, n, "impossible header");
	free(b);
	b = v2_file(3, IKMAP_ACOS, 10, 2, 3, 0, 1, NULL, NULL, &n);
	refused(b, n, "version 3");
	free(b);
	/* scale 2 claiming a huge d in a short file: refused by size, before any allocation */
	b = v2_file(2, IKMAP_ACOS, 10, 2, 3, 2, 7, mins, factors, &n);
	put_le(b + 24, 2147483646u, 4);
	reseal(b, n);
	refused(b, n, "wrong size");
	free(b);
}
END_TEST

START_TEST(a_huge_unscaled_d_claim_loads_without_a_k_by_d_table)
{
	/* 64 bytes claiming k = 65536 projections of 2^31 - 2 features */
	size_t n;
	unsigned char *b = v2_file(2, IKMAP_ACOS, 65536, 2, 2147483646u, 0, 3, NULL, NULL, &n);
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_from_memory(b, n, "huge", err);
	ck_assert_msg(map != NULL, "%s", err);
	ck_assert_int_eq(ikmap_path(map), IKMAP_PATH_SPARSE);	/* no table */
	struct feature_node r[] = { { 1, 1 }, { 2147483646, -2 }, { -1, 0 } };
	struct feature_node *rows[1] = { r };
	void *cells = malloc(65536 * ikmap_cell_size(map));
	ck_assert_ptr_nonnull(cells);
	ck_assert_int_eq(ikmap_map(map, rows, 1, cells, 2, err), 0);
	for (int j = 0; j < 65536; j += 4099)
		ck_assert(ikmap_cell_at(map, cells, (size_t)j) == (uint32_t)contract_cell(3, j, r,
			2147483646));
	free(cells);
	ikmap_free(map);
	free(b);
}
END_TEST

START_TEST(version_1_files_are_unchanged)
{
	/*
	 * The same rows and maps as a program built on commit 9a0c583 (before
	 * issue 27): its file sizes and checksums. Rows: rng seed 2027, 60 x
	 * 12, each feature present with probability 1/2, value -2 + 5 u.
	 */
	int n = 60, d = 12;
	struct feature_node **rows = malloc((size_t)n * sizeof *rows);
	ck_assert_ptr_nonnull(rows);
	struct rng g;
	rng_seed(&g, 2027);
	for (int i = 0; i < n; i++) {
		rows[i] = malloc(((size_t)d + 1) * sizeof **rows);
		ck_assert_ptr_nonnull(rows[i]);
		int c = 0;
		for (int j = 1; j <= d; j++)
			if (rng_unit(&g) < 0.5) {
				rows[i][c].index = j;
				rows[i][c++].value = -2 + 5 * rng_unit(&g);
			}
		rows[i][c].index = -1;
		rows[i][c].value = 0;
	}
	struct ikmap_params p[3] = {
		{ IKMAP_ANNE, 5, 7, 11, 1, 1, 0 }, { IKMAP_ANNE, 4, 9, 12, 0, 1, 0 },
		{ IKMAP_IFOREST, 6, 8, 13, 0, 1, 0 },
	};
	size_t want_size[3] = { 2440, 2288, 1528 };
	uint64_t want_sum[3] = { 0xab80413cd3fa1b3cULL, 0x31ad11c5c1fd966dULL, 0x1f8966f9b30451d8ULL };
	for (int i = 0; i < 3; i++) {
		char err[IKMAP_ERR_SIZE] = "";
		struct ikmap *map = ikmap_build(rows, n, d, &p[i], err);
		ck_assert_msg(map != NULL, "%s", err);
		unsigned char *bytes;
		size_t size;
		ck_assert_int_eq(ikmap_to_memory(map, &bytes, &size, err), 0);
		ck_assert_uint_eq(size, want_size[i]);
		ck_assert_uint_eq(bytes[8], 1);	/* version 1 */
		ck_assert(fnv(bytes, size - 8) == want_sum[i]);
		ck_assert(ikmap_checksum(map) == want_sum[i]);
		ck_assert_int_eq(ikmap_scaled(map), i == 0);
		free(bytes);
		ikmap_free(map);
	}
	for (int i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
}
END_TEST

START_TEST(acos_refuses_non_finite_map_values)
{
	struct rows x = rows_random(5, 6, 0.5, -1, 1, 61);
	struct ikmap *map = build(&x, params(IKMAP_ACOS, 8, 2, 0, 62));
	struct feature_node r0[] = { { 1, 1 }, { -1, 0 } };
	struct feature_node r1[] = { { 2, 1 }, { 4, NAN }, { -1, 0 } };
	struct feature_node r2[] = { { 2, 1 }, { 9, NAN }, { -1, 0 } };	/* above d: ignored */
	struct feature_node *rows[3] = { r0, r1, r2 };
	void *cells = malloc(3 * 8 * ikmap_cell_size(map));
	ck_assert_ptr_nonnull(cells);
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_int_eq(ikmap_map(map, rows, 3, cells, 2, err), -2);
	ck_assert_msg(strstr(err, "row 2: feature 4 is not a finite number") != NULL, "%s", err);
	rows[1] = r2;
	ck_assert_int_eq(ikmap_map(map, rows, 3, cells, 2, err), 0);
	free(cells);
	ikmap_free(map);
	rows_free(&x);
}
END_TEST

#ifdef HAVE_CWS
/* ---- min-max (needs ikmap/cws.c) ---- */

static double minmax_kernel(const struct feature_node *x, const struct feature_node *y)
{
	double lo = 0, hi = 0;
	const struct feature_node *a = x, *b = y;
	while (a->index != -1 || b->index != -1) {
		if (b->index == -1 || (a->index != -1 && a->index < b->index)) {
			hi += a->value;
			a++;
		} else if (a->index == -1 || b->index < a->index) {
			hi += b->value;
			b++;
		} else {
			lo += a->value < b->value ? a->value : b->value;
			hi += a->value > b->value ? a->value : b->value;
			a++;
			b++;
		}
	}
	return hi > 0 ? lo / hi : 1;
}

START_TEST(minmax_maps_round_trips_and_refuses_negatives_at_map_time)
{
	struct rows x = rows_random(40, 30, 0.5, 0, 2, 71);
	int k = 1000;
	struct ikmap *map = build(&x, params(IKMAP_MINMAX, k, 64, 0, 72));
	uint32_t *one = cells_of(map, x.row, (size_t)x.n, 1);
	for (int threads = 2; threads <= 3; threads++) {
		uint32_t *c = cells_of(map, x.row, (size_t)x.n, threads);
		ck_assert(memcmp(c, one, (size_t)x.n * k * sizeof(uint32_t)) == 0);
		free(c);
	}
	for (size_t c = 0; c < (size_t)x.n * k; c++)
		ck_assert_uint_lt(one[c], 64);
	/* 0-bit collisions include the full samples' collisions: share >= K - 4/sqrt(k) */
	for (int i = 0; i + 1 < x.n; i += 2) {
		int same = 0;
		for (int j = 0; j < k; j++)
			same += one[(size_t)i * k + j] == one[(size_t)(i + 1) * k + j];
		ck_assert((double)same / k >= minmax_kernel(x.row[i], x.row[i + 1]) - 4 / sqrt(k));
	}
	/* empty row: cell 0 of every sample */
	struct feature_node empty[] = { { -1, 0 } };
	struct feature_node *er[1] = { empty };
	uint32_t *c = cells_of(map, er, 1, 1);
	for (int j = 0; j < k; j++)
		ck_assert_uint_eq(c[j], 0);
	free(c);
	/* a negative value at map time: -2, row and feature named */
	struct feature_node bad[] = { { 3, 1 }, { 7, -0.25 }, { -1, 0 } };
	struct feature_node *br[2] = { x.row[0], bad };
	void *cells = malloc(2 * (size_t)k * ikmap_cell_size(map));
	ck_assert_ptr_nonnull(cells);
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_int_eq(ikmap_map(map, br, 2, cells, 1, err), -2);
	ck_assert_msg(strstr(err, "row 2: feature 7 is negative (-0.25)") != NULL, "%s", err);
	/* round trip */
	unsigned char *bytes;
	size_t size;
	ck_assert_int_eq(ikmap_to_memory(map, &bytes, &size, err), 0);
	ck_assert_uint_eq(size, 64);
	ck_assert_uint_eq(bytes[8], 2);
	struct ikmap *back = ikmap_from_memory(bytes, size, "mem", err);
	ck_assert_msg(back != NULL, "%s", err);
	uint32_t *again = cells_of(back, x.row, (size_t)x.n, 2);
	ck_assert(memcmp(again, one, (size_t)x.n * k * sizeof(uint32_t)) == 0);
	free(again);
	free(bytes);
	free(cells);
	free(one);
	ikmap_free(back);
	ikmap_free(map);
	rows_free(&x);
}
END_TEST

START_TEST(minmax_scale2_accepts_negatives)
{
	struct rows x = rows_random(20, 10, 0.6, -1, 1, 81);
	struct ikmap *map = build(&x, params(IKMAP_MINMAX, 50, 16, 2, 82));
	uint32_t *c = cells_of(map, x.row, (size_t)x.n, 2);
	free(c);
	void *cells = malloc((size_t)x.n * 50 * ikmap_cell_size(map));
	ck_assert_ptr_nonnull(cells);
	char err[IKMAP_ERR_SIZE];
	ck_assert_int_eq(ikmap_map_dense_on(map, x.dense, (size_t)x.n, 10, 10, cells, 2,
		IKMAP_DEVICE_CPU, err), 0);
	free(cells);
	ikmap_free(map);
	rows_free(&x);
}
END_TEST
#endif

static Suite *kernels_suite(void)
{
	Suite *s = suite_create("ikmap_kernels");
	TCase *tc = tcase_create("kernels");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, acos_gaussian_follows_the_contract);
	tcase_add_test(tc, acos_collision_share_is_one_minus_angle_over_pi);
	tcase_add_test(tc, acos_fast_path_equals_the_reference_dense_rows);
	tcase_add_test(tc, acos_fast_path_equals_the_reference_sparse_and_odd_rows);
	tcase_add_test(tc, acos_wide_map_has_no_table_and_ignores_features_above_d);
	tcase_add_test(tc, kernel_parameters_and_caps);
	tcase_add_test(tc, minmax_refuses_negative_build_values_naming_row_and_feature);
	tcase_add_test(tc, scale2_counts_implicit_zeros_and_clips);
	tcase_add_test(tc, acos_scale2_cells_follow_the_transform);
	tcase_add_test(tc, acos_file_round_trips_as_version_2);
	tcase_add_test(tc, damaged_and_crafted_version_2_files_are_refused);
	tcase_add_test(tc, a_huge_unscaled_d_claim_loads_without_a_k_by_d_table);
	tcase_add_test(tc, version_1_files_are_unchanged);
	tcase_add_test(tc, acos_refuses_non_finite_map_values);
#ifdef HAVE_CWS
	tcase_add_test(tc, minmax_maps_round_trips_and_refuses_negatives_at_map_time);
	tcase_add_test(tc, minmax_scale2_accepts_negatives);
#else
	fprintf(stderr, "test_ikmap_kernels: no ikmap/cws.h in this tree: the min-max mapping"
		" tests are left out\n");
#endif
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(kernels_suite)
