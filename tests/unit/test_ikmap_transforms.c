/*
 * test_ikmap_transforms.c - issue 28's transforms -S 0..4 on every map type
 * (ikmap.h, Scaling; the file format in ikmap_file.c).
 *
 * What is asserted, each against an expectation computed here, not by the
 * library:
 *  - the stored factors are the definitions' (max |x|, range, population
 *    standard deviation, max log1p; implicit zeros counted; zero
 *    statistics give factor 1), within 1e-12 relative of libm arithmetic;
 *  - aNNE under -S 2 and 3 gives the cells of an unscaled aNNE map built
 *    and mapped on rows divided by hand (every path: dense, sparse, dense
 *    input), and under -S 4 on rows put through log1p and divided by hand;
 *    iForest under -S 4 the cells of iForest on log1p'ed rows;
 *  - iForest's bytes under -S 1-3 are its -S 0 bytes (version 1);
 *  - every (type, -S) round-trips through its file: the version the format
 *    says, the same checksum and cells after loading;
 *  - damaged and crafted version-2 files of the new kinds are refused;
 *  - -S 4 refuses a negative value at build and map time (sparse and
 *    dense), naming the row and the feature; -k minmax refuses one under
 *    -S 3 too, -k acos does not.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "detmath.h"
#include "ikmap.h"
#include "rng.h"
#include "unit.h"
#include "ikmap_fixtures.h"

static struct ikmap_params params(enum ikmap_method m, int t, int psi, int scale)
{
	struct ikmap_params p = { m, t, psi, 5, scale, 2, 0 };
	return p;
}

static struct ikmap *build(const struct data *x, struct ikmap_params p)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_build(x->row, x->n, x->d, &p, err);
	ck_assert_msg(map != NULL, "%s", err);
	return map;
}

/* The cells of rows, widened to uint32_t (caller frees). */
static uint32_t *cells_of(const struct ikmap *map, struct feature_node *const *rows, int n)
{
	size_t m = (size_t)n * (size_t)ikmap_t(map);
	unsigned char *raw = malloc(m * ikmap_cell_size(map));
	uint32_t *out = malloc(m * sizeof *out);
	ck_assert(raw && out);
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_msg(ikmap_map(map, rows, (size_t)n, raw, 2, err) == 0, "%s", err);
	for (size_t i = 0; i < m; i++)
		out[i] = ikmap_cell_at(map, raw, i);
	free(raw);
	return out;
}

static void same_cells(const uint32_t *a, const uint32_t *b, size_t m, const char *what)
{
	for (size_t i = 0; i < m; i++)
		ck_assert_msg(a[i] == b[i], "%s: cell %zu differs (%u, %u)", what, i, a[i], b[i]);
}

/* x's rows with each value v of feature j replaced by f(v) * factor[j] (factor NULL: 1). */
static struct data transformed_copy(const struct data *x, int log1p_first, const double *factor)
{
	struct data y = data_new(x->n, x->d);
	for (int i = 0; i < x->n; i++)
		for (const struct feature_node *f = x->row[i]; f->index != -1; f++) {
			double v = log1p_first ? det_log1p(f->value) : f->value;
			set(&y, i, f->index, factor ? v * factor[f->index] : v);
		}
	return y;
}

/* The dense form of x (n x d, row-major; caller frees). */
static double *dense_of(const struct data *x)
{
	double *m = calloc((size_t)x->n * (size_t)x->d, sizeof(double));
	ck_assert_ptr_nonnull(m);
	for (int i = 0; i < x->n; i++)
		for (const struct feature_node *f = x->row[i]; f->index != -1; f++)
			m[(size_t)i * x->d + f->index - 1] = f->value;
	return m;
}

static int close_rel(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fabs(b);
}

/*
 * Six rows of four features, by hand: feature 1 positive everywhere,
 * feature 2 signed and absent from two rows, feature 3 constant 2 where
 * present but absent from one row, feature 4 never present.
 */
static struct data hand_rows(void)
{
	static const double v1[6] = { 1, 2, 3, 4, 5, 6 };
	static const double v2[6] = { -3, 0, 1.5, 0, 7, -0.5 };
	struct data x = data_new(6, 4);
	for (int i = 0; i < 6; i++) {
		set(&x, i, 1, v1[i]);
		if (v2[i] != 0)
			set(&x, i, 2, v2[i]);
		if (i != 4)
			set(&x, i, 3, 2);
	}
	return x;
}

START_TEST(factors_follow_the_definitions)
{
	struct data x = hand_rows();
	/* independent statistics over the six values of each feature, zeros included */
	double col[4][6] = { { 1, 2, 3, 4, 5, 6 }, { -3, 0, 1.5, 0, 7, -0.5 },
		{ 2, 2, 2, 2, 0, 2 }, { 0, 0, 0, 0, 0, 0 } };
	double maxabs[4], range[4], sd[4];
	for (int j = 0; j < 4; j++) {
		double lo = col[j][0], hi = col[j][0], mean = 0, ss = 0;
		maxabs[j] = 0;
		for (int i = 0; i < 6; i++) {
			lo = fmin(lo, col[j][i]);
			hi = fmax(hi, col[j][i]);
			maxabs[j] = fmax(maxabs[j], fabs(col[j][i]));
			mean += col[j][i] / 6;
		}
		for (int i = 0; i < 6; i++)
			ss += (col[j][i] - mean) * (col[j][i] - mean);
		range[j] = hi - lo;
		sd[j] = sqrt(ss / 6);
	}
	for (int m = 0; m < 4; m++) {
		enum ikmap_method method = (enum ikmap_method)m;
		if (method == IKMAP_IFOREST)
			continue;	/* stores no factors: below */
		int t = method == IKMAP_MINMAX ? 4 : 3, psi = method == IKMAP_MINMAX ? 16
			: method == IKMAP_ACOS ? 2 : 3;
		for (int s = 1; s <= 3; s++) {
			if (method == IKMAP_MINMAX && s != 2)
				continue;	/* negative data: refused, tested below */
			if (method != IKMAP_ANNE && s == 2)
				continue;	/* the shifted form: test_ikmap_kernels.c */
			struct ikmap *map = build(&x, params(method, t, psi, s));
			const double *f = ikmap_scale_factors(map);
			ck_assert_ptr_nonnull(f);
			ck_assert_ptr_null(ikmap_scale_shift(map));
			for (int j = 0; j < 4; j++) {
				double stat = s == 1 ? maxabs[j] : s == 2 ? range[j] : sd[j];
				double want = stat > 0 ? 1 / stat : 1;
				ck_assert_msg(close_rel(f[j + 1], want), "%s -S %d feature %d: %g, want %g",
					ikmap_method_name(method), s, j + 1, f[j + 1], want);
			}
			ikmap_free(map);
		}
	}
	/* -S 4 on non-negative rows: 1 / max log1p */
	struct data y = random_data(40, 5, 0.6, 0, 300, 77);
	for (int m = 0; m < 4; m++) {
		enum ikmap_method method = (enum ikmap_method)m;
		int psi = method == IKMAP_MINMAX ? 16 : method == IKMAP_ACOS ? 2 : 4;
		struct ikmap *map = build(&y, params(method, 5, psi, 4));
		ck_assert_int_eq(ikmap_scaled(map), 4);
		const double *f = ikmap_scale_factors(map);
		if (method == IKMAP_IFOREST) {
			ck_assert_ptr_null(f);
			ikmap_free(map);
			continue;
		}
		for (int j = 1; j <= 5; j++) {
			double top = 0;
			for (int i = 0; i < y.n; i++)
				for (const struct feature_node *e = y.row[i]; e->index != -1; e++)
					if (e->index == j)
						top = fmax(top, log1p(e->value));
			double want = top > 0 ? 1 / top : 1;
			ck_assert_msg(close_rel(f[j], want), "%s -S 4 feature %d", ikmap_method_name(method), j);
		}
		ikmap_free(map);
	}
	data_free(&y);
	data_free(&x);
}
END_TEST

/* Cells of map on x through every aNNE path and the dense input, all equal to want. */
static void anne_paths_give(struct ikmap *map, const struct data *x, const uint32_t *want,
	const char *what)
{
	size_t m = (size_t)x->n * (size_t)ikmap_t(map);
	char err[IKMAP_ERR_SIZE] = "";
	for (int path = IKMAP_PATH_DENSE; path <= IKMAP_PATH_SPARSE; path++) {
		ck_assert_msg(ikmap_set_path(map, (enum ikmap_path)path, err) == 0, "%s", err);
		uint32_t *got = cells_of(map, x->row, x->n);
		same_cells(got, want, m, what);
		free(got);
	}
	double *dense = dense_of(x);
	unsigned char *raw = malloc(m * ikmap_cell_size(map));
	ck_assert_ptr_nonnull(raw);
	ck_assert_msg(ikmap_map_dense_on(map, dense, (size_t)x->n, x->d, (size_t)x->d, raw, 2,
		IKMAP_DEVICE_CPU, err) == 0, "%s", err);
	for (size_t i = 0; i < m; i++)
		ck_assert_msg(ikmap_cell_at(map, raw, i) == want[i], "%s, dense input: cell %zu", what, i);
	free(raw);
	free(dense);
}

START_TEST(anne_transforms_equal_rows_transformed_by_hand)
{
	/* signed data for -S 2 and 3, features on very different scales */
	struct data x = random_data(120, 9, 0.5, -1, 1, 31);
	for (int i = 0; i < x.n; i++)
		for (struct feature_node *f = x.row[i]; f->index != -1; f++)
			f->value *= pow(10, f->index % 5);
	for (int s = 2; s <= 3; s++) {
		struct ikmap *scaled = build(&x, params(IKMAP_ANNE, 20, 16, s));
		const double *f = ikmap_scale_factors(scaled);
		struct data y = transformed_copy(&x, 0, f);
		struct ikmap *plain = build(&y, params(IKMAP_ANNE, 20, 16, 0));
		uint32_t *want = cells_of(plain, y.row, y.n);
		anne_paths_give(scaled, &x, want, s == 2 ? "anne -S 2" : "anne -S 3");
		free(want);
		ikmap_free(plain);
		ikmap_free(scaled);
		data_free(&y);
	}
	/* -S 4 on counts */
	struct data c = random_data(120, 9, 0.5, 0, 1000, 32);
	for (int i = 0; i < c.n; i++)
		for (struct feature_node *f = c.row[i]; f->index != -1; f++)
			f->value = floor(f->value) + 1;
	struct ikmap *logged = build(&c, params(IKMAP_ANNE, 20, 16, 4));
	struct data y = transformed_copy(&c, 1, ikmap_scale_factors(logged));
	struct ikmap *plain = build(&y, params(IKMAP_ANNE, 20, 16, 0));
	uint32_t *want = cells_of(plain, y.row, y.n);
	anne_paths_give(logged, &c, want, "anne -S 4");
	free(want);
	ikmap_free(plain);
	ikmap_free(logged);
	data_free(&y);
	/* iForest -S 4: the forest of log1p'ed rows (no factors) */
	struct ikmap *forest = build(&c, params(IKMAP_IFOREST, 20, 16, 4));
	ck_assert_ptr_null(ikmap_scale_factors(forest));
	y = transformed_copy(&c, 1, NULL);
	plain = build(&y, params(IKMAP_IFOREST, 20, 16, 0));
	uint32_t *a = cells_of(forest, c.row, c.n), *b = cells_of(plain, y.row, y.n);
	same_cells(a, b, (size_t)c.n * 20, "iforest -S 4");
	/* and the raw rows through the plain forest differ: the transform did something */
	uint32_t *r = cells_of(plain, c.row, c.n);
	ck_assert(memcmp(r, b, (size_t)c.n * 20 * sizeof *r) != 0);
	free(a);
	free(b);
	free(r);
	ikmap_free(plain);
	ikmap_free(forest);
	data_free(&y);
	data_free(&c);
	data_free(&x);
}
END_TEST

/* The file of a map, in memory (caller frees). */
static unsigned char *bytes_of(const struct ikmap *map, size_t *size)
{
	unsigned char *b;
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_msg(ikmap_to_memory(map, &b, size, err) == 0, "%s", err);
	return b;
}

START_TEST(iforest_ignores_scales_1_to_3)
{
	struct data x = random_data(50, 6, 0.6, -5, 5, 41);
	struct ikmap *base = build(&x, params(IKMAP_IFOREST, 12, 8, 0));
	size_t n0;
	unsigned char *b0 = bytes_of(base, &n0);
	ck_assert_uint_eq(b0[8], 1);
	for (int s = 1; s <= 3; s++) {
		struct ikmap *map = build(&x, params(IKMAP_IFOREST, 12, 8, s));
		ck_assert_int_eq(ikmap_scaled(map), 0);
		size_t n;
		unsigned char *b = bytes_of(map, &n);
		ck_assert(n == n0 && memcmp(b, b0, n) == 0);
		free(b);
		ikmap_free(map);
	}
	free(b0);
	ikmap_free(base);
	data_free(&x);
}
END_TEST

START_TEST(every_type_and_scale_round_trips_in_its_version)
{
	struct data x = random_data(60, 7, 0.5, 0, 50, 51);
	for (int m = 0; m < 4; m++)
		for (int s = 0; s <= 4; s++) {
			enum ikmap_method method = (enum ikmap_method)m;
			int psi = method == IKMAP_MINMAX ? 32 : method == IKMAP_ACOS ? 2 : 8;
			struct ikmap *map = build(&x, params(method, 10, psi, s));
			size_t n;
			unsigned char *b = bytes_of(map, &n);
			int v1 = (method == IKMAP_ANNE && s <= 1) || (method == IKMAP_IFOREST && s <= 3);
			ck_assert_msg(b[8] == (v1 ? 1 : 2), "%s -S %d: version %d",
				ikmap_method_name(method), s, b[8]);
			char err[IKMAP_ERR_SIZE] = "";
			struct ikmap *back = ikmap_from_memory(b, n, "mem", err);
			ck_assert_msg(back != NULL, "%s -S %d: %s", ikmap_method_name(method), s, err);
			ck_assert(ikmap_checksum(back) == ikmap_checksum(map));
			ck_assert_int_eq(ikmap_scaled(back), ikmap_scaled(map));
			uint32_t *a = cells_of(map, x.row, x.n), *c = cells_of(back, x.row, x.n);
			same_cells(a, c, (size_t)x.n * 10, "after loading");
			/* and the bytes written again are the same */
			size_t n2;
			unsigned char *b2 = bytes_of(back, &n2);
			ck_assert(n2 == n && memcmp(b, b2, n) == 0);
			free(a);
			free(c);
			free(b);
			free(b2);
			ikmap_free(back);
			ikmap_free(map);
		}
	data_free(&x);
}
END_TEST

/* ---- crafted files ---- */

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Recomputes the trailing FNV-1a checksum (the format's, written out here independently). */
static void reseal(unsigned char *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n - 8; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	put_le(b + n - 8, h, 8);
}

static void refused(const unsigned char *b, size_t n, const char *word, const char *what)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_from_memory(b, n, "crafted", err);
	ck_assert_msg(map == NULL, "%s: loaded", what);
	ck_assert_msg(strstr(err, word) != NULL, "%s: %s (expected %s)", what, err, word);
}

START_TEST(damaged_new_files_are_refused)
{
	struct data x = random_data(40, 5, 0.7, 0, 9, 61);
	/* aNNE -S 3: header (56 bytes), then 5 factors, then the samples */
	struct ikmap *map = build(&x, params(IKMAP_ANNE, 6, 4, 3));
	size_t n;
	unsigned char *b = bytes_of(map, &n);
	ck_assert_uint_eq(b[8], 2);
	unsigned char *c = malloc(n);
	ck_assert_ptr_nonnull(c);
	refused(b, n - 1, "wrong size", "truncated");
	refused(b, n - 8 * 5, "wrong size", "factors cut out");
	double bad[3] = { 0, -1, NAN };
	for (int i = 0; i < 3; i++) {
		memcpy(c, b, n);
		uint64_t bits;
		memcpy(&bits, &bad[i], 8);
		put_le(c + 56 + 8 * 2, bits, 8);	/* feature 3's factor */
		reseal(c, n);
		refused(c, n, "out of range", "a factor of 0, -1 or NaN");
	}
	for (uint32_t s = 0; s <= 5; s++) {
		if (s >= 2 && s <= 4)
			continue;	/* the scales a version-2 aNNE file holds (2 and 4 load: same layout) */
		memcpy(c, b, n);
		put_le(c + 28, s, 4);
		reseal(c, n);
		refused(c, n, s <= 1 ? "impossible header" : "impossible header", "aNNE v2 scale");
	}
	memcpy(c, b, n);
	c[60] ^= 1;
	refused(c, n, "checksum", "a flipped byte");
	free(c);
	free(b);
	ikmap_free(map);

	/* aNNE -S 4: a negative sample value is outside log1p's domain */
	map = build(&x, params(IKMAP_ANNE, 6, 4, 4));
	b = bytes_of(map, &n);
	uint64_t u = 0, z = 0;
	for (int i = 0; i < 8; i++) {
		u |= (uint64_t)b[40 + i] << (8 * i);
		z |= (uint64_t)b[48 + i] << (8 * i);
	}
	size_t first_value = 56 + 8 * 5 + 4 * u + 4 * z;
	ck_assert(z > 0 && first_value + 8 <= n);
	double neg = -0.5;
	uint64_t bits;
	memcpy(&bits, &neg, 8);
	put_le(b + first_value, bits, 8);
	reseal(b, n);
	refused(b, n, "out of range", "a negative sample under -S 4");
	free(b);
	ikmap_free(map);

	/* iForest -S 4: version 2, no factors; any other scale in version 2 is refused */
	map = build(&x, params(IKMAP_IFOREST, 6, 4, 4));
	b = bytes_of(map, &n);
	ck_assert_uint_eq(b[8], 2);
	for (uint32_t s = 0; s <= 3; s++) {
		put_le(b + 28, s, 4);
		reseal(b, n);
		refused(b, n, "impossible header", "iForest v2 scale");
	}
	free(b);
	ikmap_free(map);

	/* acos -S 3: a version-2 kernel file with factors only */
	map = build(&x, params(IKMAP_ACOS, 6, 2, 3));
	b = bytes_of(map, &n);
	ck_assert_uint_eq(n, 56 + 8 * 5 + 8);
	put_le(b + 28, 2, 4);	/* scale 2 needs the minima too */
	reseal(b, n);
	refused(b, n, "wrong size", "acos scale 2 without its minima");
	free(b);
	ikmap_free(map);
	data_free(&x);
}
END_TEST

START_TEST(scale_4_refuses_negatives_naming_row_and_feature)
{
	struct data x = random_data(30, 6, 0.8, 0, 4, 71);
	/* row 2's feature 6 becomes -0.25 (set where present, appended where absent) */
	struct feature_node *f = x.row[1];
	while (f->index != -1 && f->index != 6)
		f++;
	if (f->index == 6)
		f->value = -0.25;
	else
		set(&x, 1, 6, -0.25);
	for (int m = 0; m < 4; m++) {
		enum ikmap_method method = (enum ikmap_method)m;
		int psi = method == IKMAP_MINMAX ? 16 : method == IKMAP_ACOS ? 2 : 4;
		struct ikmap_params p = params(method, 5, psi, 4);
		char err[IKMAP_ERR_SIZE] = "";
		ck_assert_ptr_null(ikmap_build(x.row, x.n, x.d, &p, err));
		ck_assert_msg(strstr(err, "row 2: feature 6 is negative") && strstr(err, "-S 4"),
			"%s: %s", ikmap_method_name(method), err);
		double *dense = dense_of(&x);
		err[0] = 0;
		ck_assert_ptr_null(ikmap_build_dense(dense, x.n, x.d, (size_t)x.d, &p, err));
		ck_assert_msg(strstr(err, "row 2: feature 6 is negative"), "dense: %s", err);
		/* a map built without that row refuses it when mapping, sparse and dense */
		struct feature_node **ok = malloc((size_t)x.n * sizeof *ok);
		ck_assert_ptr_nonnull(ok);
		for (int i = 0; i < x.n; i++)
			ok[i] = x.row[i == 1 ? 0 : i];
		struct ikmap *map = ikmap_build(ok, x.n, x.d, &p, err);
		ck_assert_msg(map != NULL, "%s", err);
		unsigned char *cells = malloc((size_t)x.n * 5 * 4);
		ck_assert_ptr_nonnull(cells);
		err[0] = 0;
		ck_assert_int_eq(ikmap_map(map, x.row, (size_t)x.n, cells, 1, err), -2);
		ck_assert_msg(strstr(err, "row 2: feature 6 is negative"), "map: %s", err);
		err[0] = 0;
		ck_assert_int_eq(ikmap_map_dense_on(map, dense, (size_t)x.n, x.d, (size_t)x.d, cells, 1,
			IKMAP_DEVICE_AUTO, err), -2);
		ck_assert_msg(strstr(err, "row 2: feature 6 is negative"), "dense map: %s", err);
		free(cells);
		ikmap_free(map);
		free(ok);
		free(dense);
	}
	/* -S 3 keeps signs: min-max refuses the value, acos takes it */
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap_params p = params(IKMAP_MINMAX, 5, 16, 3);
	ck_assert_ptr_null(ikmap_build(x.row, x.n, x.d, &p, err));
	ck_assert_msg(strstr(err, "row 2: feature 6 is negative") && strstr(err, "minmax"), "%s", err);
	ikmap_free(build(&x, params(IKMAP_ACOS, 5, 2, 3)));
	ck_assert_int_eq(ikmap_needs_nonnegative(IKMAP_ANNE, 3), 0);
	ck_assert_int_eq(ikmap_needs_nonnegative(IKMAP_IFOREST, 4), 1);
	ck_assert_int_eq(ikmap_needs_nonnegative(IKMAP_MINMAX, 2), 0);
	ck_assert_int_eq(ikmap_needs_nonnegative(IKMAP_MINMAX, 1), 1);
	data_free(&x);
}
END_TEST

START_TEST(zero_statistics_give_factor_1_and_codes_are_checked)
{
	/* one feature constant 3 in every row: zero range and deviation; one always 0 */
	struct data x = data_new(10, 2);
	for (int i = 0; i < 10; i++)
		set(&x, i, 1, 3);
	set(&x, 4, 2, 0.0);	/* an explicit zero: still zero range */
	for (int s = 2; s <= 3; s++) {
		struct ikmap *map = build(&x, params(IKMAP_ANNE, 3, 4, s));
		const double *f = ikmap_scale_factors(map);
		ck_assert(f[1] == 1 && f[2] == 1);
		ikmap_free(map);
	}
	struct ikmap *map = build(&x, params(IKMAP_ANNE, 3, 4, 4));
	ck_assert(close_rel(ikmap_scale_factors(map)[1], 1 / log1p(3.0)));
	ck_assert(ikmap_scale_factors(map)[2] == 1);
	ikmap_free(map);
	/* min-max and acos keep issue 27's shifted -S 2: a zero range maps to 0 (factor 0) */
	map = build(&x, params(IKMAP_ACOS, 3, 2, 2));
	ck_assert(ikmap_scale_factors(map)[1] == 0);
	ikmap_free(map);
	for (int s = -1; s <= 5; s += 6) {
		char err[IKMAP_ERR_SIZE] = "";
		struct ikmap_params p = params(IKMAP_ANNE, 3, 4, s);
		ck_assert_ptr_null(ikmap_build(x.row, x.n, x.d, &p, err));
		ck_assert_msg(strstr(err, "scale") != NULL, "%s", err);
	}
	data_free(&x);
}
END_TEST

static Suite *transforms_suite(void)
{
	Suite *s = suite_create("ikmap_transforms");
	TCase *tc = tcase_create("transforms");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, factors_follow_the_definitions);
	tcase_add_test(tc, anne_transforms_equal_rows_transformed_by_hand);
	tcase_add_test(tc, iforest_ignores_scales_1_to_3);
	tcase_add_test(tc, every_type_and_scale_round_trips_in_its_version);
	tcase_add_test(tc, damaged_new_files_are_refused);
	tcase_add_test(tc, scale_4_refuses_negatives_naming_row_and_feature);
	tcase_add_test(tc, zero_statistics_give_factor_1_and_codes_are_checked);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(transforms_suite)
