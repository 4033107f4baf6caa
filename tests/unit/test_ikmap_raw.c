/*
 * test_ikmap_raw.c - the raw part of a map (issue 28, ikmap.h "Raw
 * features"): each row's raw features, transformed as the map's own -S
 * (iForest: range factors under -S 2, else none) and times w, against
 * statistics computed here from the rows; cells untouched by w; the
 * columns; the file's raw part (round trip, version 2 with the flag, the
 * bytes of w = 0 maps without it) and its refusals (bad w at build; a
 * damaged w, flag or factor in a file, with the checksum made right so
 * that the value checks themselves are what refuses).
 */
#include <limits.h>
#include <math.h>
#include <string.h>
#include "ikmap.h"
#include "ikmap_fixtures.h"
#include "unit.h"

enum { N = 60, D = 7 };

static struct ikmap_params params(enum ikmap_method m, int t, int psi, int scale, double w)
{
	struct ikmap_params p = {0};
	p.method = m;
	p.t = t;
	p.psi = psi;
	p.seed = 5;
	p.scale = scale;
	p.threads = 1;
	p.raw_weight = w;
	return p;
}

/* Rows with some features absent and values of both signs (non-negative when asked). */
static struct data rows(int nonnegative)
{
	return random_data(N, D, 0.6, nonnegative ? 0 : -2, 3, 11);
}

/* max |x_j| and min_j, max_j over the rows, an absent feature counting as 0. */
static void stats(const struct data *x, double *maxabs, double *lo, double *hi)
{
	for (int j = 0; j <= D; j++)
		maxabs[j] = lo[j] = hi[j] = 0;
	for (int i = 0; i < x->n; i++)
		for (const struct feature_node *f = x->row[i]; f->index != -1; f++) {
			int j = f->index;
			maxabs[j] = fmax(maxabs[j], fabs(f->value));
			lo[j] = fmin(lo[j], f->value);
			hi[j] = fmax(hi[j], f->value);
		}
}

/* The raw part of every row equals want(j, x) * w for each nonzero (none dropped here). */
static void check_raw(const struct ikmap *map, const struct data *x, double w,
	double (*want)(int j, double v, const double *maxabs, const double *lo, const double *hi))
{
	double maxabs[D + 1], lo[D + 1], hi[D + 1];
	stats(x, maxabs, lo, hi);
	ck_assert_double_eq(ikmap_raw_weight(map), w);
	ck_assert_int_eq(ikmap_raw_columns(map), D);
	ck_assert_int_eq(ikmap_columns(map), ikmap_t(map) * ikmap_psi(map) + D);
	for (int i = 0; i < x->n; i++) {
		struct feature_node out[D + 1];
		size_t c = ikmap_raw_row(map, x->row[i], out);
		size_t k = 0;
		for (const struct feature_node *f = x->row[i]; f->index != -1; f++, k++) {
			ck_assert_uint_lt(k, c);
			ck_assert_int_eq(out[k].index, f->index);
			double expect = w * want(f->index, f->value, maxabs, lo, hi);
			ck_assert_msg(fabs(out[k].value - expect) <= 1e-12 * fabs(expect),
				"row %d feature %d: %.17g, want %.17g", i, f->index, out[k].value, expect);
		}
		ck_assert_uint_eq(k, c);
		ck_assert_int_eq(out[c].index, -1);
	}
}

static double as_is(int j, double v, const double *maxabs, const double *lo, const double *hi)
{
	(void)j, (void)maxabs, (void)lo, (void)hi;
	return v;
}

static double by_maxabs(int j, double v, const double *maxabs, const double *lo, const double *hi)
{
	(void)lo, (void)hi;
	return v / maxabs[j];
}

static double by_range(int j, double v, const double *maxabs, const double *lo, const double *hi)
{
	(void)maxabs;
	return v / (hi[j] - lo[j]);
}

static double log1p_by_max(int j, double v, const double *maxabs, const double *lo, const double *hi)
{
	(void)lo, (void)hi;
	return log1p(v) / log1p(maxabs[j]);
}

START_TEST(raw_part_is_the_transformed_row_times_w)
{
	char err[IKMAP_ERR_SIZE];
	struct data x = rows(0), nn = rows(1);
	struct { enum ikmap_method m; int t, psi, scale; struct data *x;
		double (*want)(int, double, const double *, const double *, const double *); } c[] = {
		{ IKMAP_ANNE, 10, 8, 0, &x, as_is },
		{ IKMAP_ANNE, 10, 8, 1, &x, by_maxabs },
		{ IKMAP_ANNE, 10, 8, 2, &x, by_range },
		{ IKMAP_ANNE, 10, 8, 4, &nn, log1p_by_max },
		{ IKMAP_IFOREST, 10, 8, 0, &x, as_is },
		{ IKMAP_IFOREST, 10, 8, 1, &x, as_is },		/* iForest: -S 2 or nothing */
		{ IKMAP_IFOREST, 10, 8, 2, &x, by_range },
		{ IKMAP_IFOREST, 10, 8, 4, &nn, as_is },
		{ IKMAP_MINMAX, 16, 16, 2, &x, by_range },	/* unshifted: rows stay sparse */
		{ IKMAP_ACOS, 16, 2, 1, &x, by_maxabs },
	};
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
		struct ikmap_params p = params(c[k].m, c[k].t, c[k].psi, c[k].scale, 0.3);
		struct ikmap *map = ikmap_build(c[k].x->row, N, D, &p, err);
		ck_assert_msg(map != NULL, "case %zu: %s", k, err);
		check_raw(map, c[k].x, 0.3, c[k].want);
		ikmap_free(map);
	}
	data_free(&x);
	data_free(&nn);
}
END_TEST

START_TEST(without_w_no_raw_part)
{
	char err[IKMAP_ERR_SIZE];
	struct data x = rows(0);
	struct ikmap_params p = params(IKMAP_ANNE, 6, 8, 1, 0);
	struct ikmap *map = ikmap_build(x.row, N, D, &p, err);
	ck_assert_ptr_nonnull(map);
	struct feature_node out[D + 1];
	ck_assert_uint_eq(ikmap_raw_row(map, x.row[0], out), 0);
	ck_assert_int_eq(out[0].index, -1);
	ck_assert_int_eq(ikmap_raw_columns(map), 0);
	ck_assert_int_eq(ikmap_columns(map), 48);
	ck_assert_double_eq(ikmap_raw_weight(map), 0);
	ikmap_free(map);
	data_free(&x);
}
END_TEST

/* Features above d are ignored, as ikmap_map ignores them. */
START_TEST(features_above_d_ignored)
{
	char err[IKMAP_ERR_SIZE];
	struct data x = rows(0);
	struct ikmap_params p = params(IKMAP_IFOREST, 4, 8, 0, 2);
	struct ikmap *map = ikmap_build(x.row, N, D, &p, err);
	ck_assert_ptr_nonnull(map);
	struct feature_node row[] = { {2, 1.5}, {D, -1}, {D + 1, 4}, {D + 5, 4}, {-1, 0} };
	struct feature_node out[6];
	ck_assert_uint_eq(ikmap_raw_row(map, row, out), 2);
	ck_assert_int_eq(out[0].index, 2);
	ck_assert_double_eq(out[0].value, 3);
	ck_assert_int_eq(out[1].index, D);
	ck_assert_double_eq(out[1].value, -2);
	ck_assert_int_eq(out[2].index, -1);
	ikmap_free(map);
	data_free(&x);
}
END_TEST

/* The cells are the map's alone: w (and iForest's raw factors) change none of them. */
START_TEST(cells_do_not_depend_on_w)
{
	char err[IKMAP_ERR_SIZE];
	struct data x = rows(0);
	enum ikmap_method m[3] = { IKMAP_ANNE, IKMAP_IFOREST, IKMAP_ACOS };
	int psi[3] = { 8, 8, 2 };
	for (int k = 0; k < 3; k++) {
		struct ikmap_params p0 = params(m[k], 12, psi[k], 2, 0), p1 = p0;
		p1.raw_weight = 1.25;
		struct ikmap *a = ikmap_build(x.row, N, D, &p0, err);
		struct ikmap *b = ikmap_build(x.row, N, D, &p1, err);
		ck_assert(a && b);
		uint16_t ca[N * 12], cb[N * 12];
		ck_assert_int_eq(ikmap_map(a, x.row, N, ca, 1, err), 0);
		ck_assert_int_eq(ikmap_map(b, x.row, N, cb, 1, err), 0);
		ck_assert_mem_eq(ca, cb, sizeof ca);
		ikmap_free(a);
		ikmap_free(b);
	}
	data_free(&x);
}
END_TEST

START_TEST(bad_weights_refused)
{
	char err[IKMAP_ERR_SIZE];
	struct data x = rows(0);
	double bad[] = { -0.5, NAN, INFINITY, -INFINITY };
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		struct ikmap_params p = params(IKMAP_ANNE, 4, 8, 1, bad[k]);
		err[0] = '\0';
		ck_assert_ptr_null(ikmap_build(x.row, N, D, &p, err));
		ck_assert_msg(strstr(err, "weight") != NULL, "%s", err);
	}
	data_free(&x);
}
END_TEST

/* t*psi + d past INT_MAX - 2 is refused with w > 0 (the columns of one model), fine without. */
START_TEST(column_count_overflow_refused)
{
	char err[IKMAP_ERR_SIZE];
	struct feature_node r0[] = { {1, 1}, {-1, 0} }, r1[] = { {2, 1}, {-1, 0} };
	struct feature_node *x[2] = { r0, r1 };
	int d = INT_MAX - 2 - 65536 * 2 + 1;	/* one column too many with k = 65536 acos samples */
	struct ikmap_params p = params(IKMAP_ACOS, 65536, 2, 0, 0.5);
	ck_assert_ptr_null(ikmap_build(x, 2, d, &p, err));
	ck_assert_msg(strstr(err, "too many") != NULL, "%s", err);
	p.raw_weight = 0;
	struct ikmap *map = ikmap_build(x, 2, d, &p, err);
	ck_assert_msg(map != NULL, "%s", err);
	ikmap_free(map);
	p.raw_weight = 0.5;
	map = ikmap_build(x, 2, d - 1, &p, err);
	ck_assert_msg(map != NULL, "%s", err);
	ck_assert_int_eq(ikmap_columns(map), INT_MAX - 2);
	ikmap_free(map);
}
END_TEST

static uint32_t u32_at(const unsigned char *b, size_t at)
{
	return (uint32_t)b[at] | (uint32_t)b[at + 1] << 8 | (uint32_t)b[at + 2] << 16
		| (uint32_t)b[at + 3] << 24;
}

static void put_u32_at(unsigned char *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[at + i] = (unsigned char)(v >> (8 * i));
}

static void put_f64_at(unsigned char *b, size_t at, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, 8);
	for (int i = 0; i < 8; i++)
		b[at + i] = (unsigned char)(bits >> (8 * i));
}

/* The file's trailing 64-bit FNV-1a, recomputed (the format's published checksum). */
static void fix_checksum(unsigned char *b, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < size - 8; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	for (int i = 0; i < 8; i++)
		b[size - 8 + i] = (unsigned char)(h >> (8 * i));
}

enum { AT_VERSION = 8, AT_SCALE = 28, AT_W = 56 };

START_TEST(file_round_trip_keeps_the_raw_part)
{
	char err[IKMAP_ERR_SIZE];
	struct data x = rows(0);
	enum ikmap_method m[4] = { IKMAP_ANNE, IKMAP_IFOREST, IKMAP_IFOREST, IKMAP_MINMAX };
	int scale[4] = { 1, 2, 0, 2 }, psi[4] = { 8, 8, 8, 16 };
	for (int k = 0; k < 4; k++) {
		struct ikmap_params p = params(m[k], 10, psi[k], scale[k], 0.3);
		struct ikmap *map = ikmap_build(x.row, N, D, &p, err);
		ck_assert_msg(map != NULL, "%s", err);
		unsigned char *bytes;
		size_t size;
		ck_assert_int_eq(ikmap_to_memory(map, &bytes, &size, err), 0);
		ck_assert_uint_eq(u32_at(bytes, AT_VERSION), 2);
		ck_assert_uint_eq(u32_at(bytes, AT_SCALE), 0x100u | (uint32_t)ikmap_scaled(map));
		struct ikmap *back = ikmap_from_memory(bytes, size, "round trip", err);
		ck_assert_msg(back != NULL, "%s", err);
		ck_assert_double_eq(ikmap_raw_weight(back), 0.3);
		ck_assert_int_eq(ikmap_scaled(back), ikmap_scaled(map));
		ck_assert_int_eq(ikmap_columns(back), ikmap_columns(map));
		for (int i = 0; i < N; i++) {
			struct feature_node a[D + 1], b[D + 1];
			size_t ca = ikmap_raw_row(map, x.row[i], a), cb = ikmap_raw_row(back, x.row[i], b);
			ck_assert_uint_eq(ca, cb);
			for (size_t e = 0; e <= ca; e++) {	/* field by field: nodes have padding */
				ck_assert_int_eq(a[e].index, b[e].index);
				ck_assert(a[e].value == b[e].value);
			}
		}
		unsigned char *again;
		size_t size2;
		ck_assert_int_eq(ikmap_to_memory(back, &again, &size2, err), 0);
		ck_assert_uint_eq(size, size2);
		ck_assert_mem_eq(bytes, again, size);
		ck_assert_uint_eq(ikmap_checksum(map), ikmap_checksum(back));
		free(again);
		free(bytes);
		ikmap_free(back);
		ikmap_free(map);
	}
	data_free(&x);
}
END_TEST

/* Without w, the file is as before: version 1 for aNNE -S 1 and iForest (even -S 2), no flag. */
START_TEST(no_w_no_flag)
{
	char err[IKMAP_ERR_SIZE];
	struct data x = rows(0);
	struct ikmap_params p = params(IKMAP_IFOREST, 5, 8, 2, 0);
	struct ikmap *map = ikmap_build(x.row, N, D, &p, err);
	ck_assert_ptr_nonnull(map);
	ck_assert_int_eq(ikmap_scaled(map), 0);
	unsigned char *bytes;
	size_t size;
	ck_assert_int_eq(ikmap_to_memory(map, &bytes, &size, err), 0);
	ck_assert_uint_eq(u32_at(bytes, AT_VERSION), 1);
	ck_assert_uint_eq(u32_at(bytes, AT_SCALE), 0);
	free(bytes);
	ikmap_free(map);
	data_free(&x);
}
END_TEST

/* A copy of bytes, changed by edit, checksum made right: loading it must fail naming damage. */
static void refused(const unsigned char *bytes, size_t size, void (*edit)(unsigned char *, size_t *),
	const char *what)
{
	char err[IKMAP_ERR_SIZE];
	unsigned char *b = malloc(size + 8);
	ck_assert_ptr_nonnull(b);
	memcpy(b, bytes, size);
	size_t n = size;
	edit(b, &n);
	fix_checksum(b, n);
	err[0] = '\0';
	struct ikmap *map = ikmap_from_memory(b, n, "damaged", err);
	ck_assert_msg(map == NULL, "%s: loaded", what);
	ck_assert_msg(strstr(err, "damaged") != NULL || strstr(err, "wrong size") != NULL,
		"%s: %s", what, err);
	free(b);
}

static void w_nan(unsigned char *b, size_t *n) { (void)n; put_f64_at(b, AT_W, NAN); }
static void w_negative(unsigned char *b, size_t *n) { (void)n; put_f64_at(b, AT_W, -0.3); }
static void w_zero(unsigned char *b, size_t *n) { (void)n; put_f64_at(b, AT_W, 0); }
static void w_infinite(unsigned char *b, size_t *n) { (void)n; put_f64_at(b, AT_W, INFINITY); }
static void stray_bit(unsigned char *b, size_t *n) { (void)n; put_u32_at(b, AT_SCALE, u32_at(b, AT_SCALE) | 0x200); }
static void flag_cleared(unsigned char *b, size_t *n) { (void)n; put_u32_at(b, AT_SCALE, u32_at(b, AT_SCALE) & 0xff); }
static void flag_in_v1(unsigned char *b, size_t *n) { (void)n; put_u32_at(b, AT_VERSION, 1); }
static void factor_zero(unsigned char *b, size_t *n) { (void)n; put_f64_at(b, AT_W + 8 + 8 * 2, 0); }
static void factor_nan(unsigned char *b, size_t *n) { (void)n; put_f64_at(b, AT_W + 8, NAN); }
static void truncated(unsigned char *b, size_t *n) { (void)b; *n -= 8; }

START_TEST(damaged_raw_part_refused)
{
	char err[IKMAP_ERR_SIZE];
	struct data x = rows(0);
	struct ikmap_params p = params(IKMAP_IFOREST, 6, 8, 2, 0.3);
	struct ikmap *map = ikmap_build(x.row, N, D, &p, err);
	ck_assert_ptr_nonnull(map);
	unsigned char *bytes;
	size_t size;
	ck_assert_int_eq(ikmap_to_memory(map, &bytes, &size, err), 0);
	/* the untouched copy loads: the edits are what is refused */
	struct ikmap *ok = ikmap_from_memory(bytes, size, "intact", err);
	ck_assert_msg(ok != NULL, "%s", err);
	ikmap_free(ok);
	refused(bytes, size, w_nan, "w NaN");
	refused(bytes, size, w_negative, "w negative");
	refused(bytes, size, w_zero, "w zero");
	refused(bytes, size, w_infinite, "w infinite");
	refused(bytes, size, stray_bit, "a stray bit in the scale field");
	refused(bytes, size, flag_cleared, "the flag cleared");
	refused(bytes, size, flag_in_v1, "the flag in version 1");
	refused(bytes, size, factor_zero, "a raw factor of 0");
	refused(bytes, size, factor_nan, "a raw factor NaN");
	refused(bytes, size, truncated, "truncated");
	free(bytes);
	ikmap_free(map);
	data_free(&x);
}
END_TEST

static Suite *ikmap_raw_suite(void)
{
	Suite *s = suite_create("ikmap_raw");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, raw_part_is_the_transformed_row_times_w);
	tcase_add_test(tc, without_w_no_raw_part);
	tcase_add_test(tc, features_above_d_ignored);
	tcase_add_test(tc, cells_do_not_depend_on_w);
	tcase_add_test(tc, bad_weights_refused);
	tcase_add_test(tc, column_count_overflow_refused);
	tcase_add_test(tc, file_round_trip_keeps_the_raw_part);
	tcase_add_test(tc, no_w_no_flag);
	tcase_add_test(tc, damaged_raw_part_refused);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(ikmap_raw_suite)
