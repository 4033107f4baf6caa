/*
 * test_ikmap.c - iForest partitionings, the kernel, partitioning files and
 * build errors (aNNE exactness is in test_ikmap_anne.c).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "ikmap.h"
#include "ikmap_impl.h"
#include "rng.h"

struct data {
	int n, d;
	struct feature_node **row;
};

/* n rows of d features; feature j is present with probability density. */
static struct data random_data(int n, int d, double density, uint64_t seed)
{
	struct data x = { n, d, malloc((size_t)n * sizeof(struct feature_node *)) };
	ck_assert_ptr_nonnull(x.row);
	struct rng g;
	rng_seed(&g, seed);
	for (int i = 0; i < n; i++) {
		struct feature_node *f = x.row[i] = malloc(((size_t)d + 1) * sizeof *f);
		ck_assert_ptr_nonnull(f);
		for (int j = 1; j <= d; j++)
			if (rng_unit(&g) < density) {
				f->index = j;
				f->value = 4 * rng_unit(&g) - 2;
				f++;
			}
		f->index = -1;
	}
	return x;
}

static void data_free(struct data *x)
{
	for (int i = 0; i < x->n; i++)
		free(x->row[i]);
	free(x->row);
}

static int same_row(const struct feature_node *a, const struct feature_node *b)
{
	for (; a->index != -1 && b->index != -1; a++, b++)
		if (a->index != b->index || a->value != b->value)
			return 0;
	return a->index == b->index;
}

/* The rows partitioning k drew (ikmap.h's sampling, re-derived). */
static int *reference_draws(uint64_t seed, int n, int t, int psi)
{
	int *out = malloc((size_t)t * psi * sizeof(int));
	int *a = malloc((size_t)n * sizeof(int));
	ck_assert(out && a);
	struct rng master, g;
	rng_seed(&master, seed);
	for (int k = 0; k < t; k++) {
		rng_seed(&g, rng_next(&master));
		for (int i = 0; i < n; i++)
			a[i] = i;
		for (int i = 0; i < psi; i++) {
			int j = i + (int)rng_below(&g, (uint64_t)(n - i));
			int tmp = a[i];
			a[i] = a[j];
			a[j] = tmp;
			out[k * psi + i] = a[i];
		}
	}
	free(a);
	return out;
}

static struct ikmap *build(const struct data *x, enum ikmap_method method, int t, int psi)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap_params p = { method, t, psi, 5, 1, 0, 0 };
	struct ikmap *map = ikmap_build(x->row, x->n, x->d, &p, err);
	ck_assert_msg(map != NULL, "build failed: %s", err);
	return map;
}

static void *map_rows(const struct ikmap *map, struct feature_node *const *rows, int n,
	int threads)
{
	char err[IKMAP_ERR_SIZE] = "";
	void *cells = malloc((size_t)n * ikmap_t(map) * ikmap_cell_size(map));
	ck_assert_ptr_nonnull(cells);
	ck_assert_msg(ikmap_map(map, rows, (size_t)n, cells, threads, err) == 0, "%s", err);
	return cells;
}

/*
 * In every tree the sampled rows reach pairwise different leaves unless
 * identical, the leaves are numbered 0..L-1 (L = distinct sampled rows),
 * and any other row reaches one of those leaves.
 */
static void check_forest(const struct data *train, const struct data *query, int t, int psi)
{
	struct ikmap *map = build(train, IKMAP_IFOREST, t, psi);
	int *drawn = reference_draws(5, train->n, t, psi);
	struct feature_node **sampled = malloc((size_t)psi * sizeof *sampled);
	int *seen = malloc((size_t)psi * sizeof(int));
	ck_assert(sampled && seen);
	void *qcells = map_rows(map, query->row, query->n, 0);
	for (int k = 0; k < t; k++) {
		for (int i = 0; i < psi; i++)
			sampled[i] = train->row[drawn[k * psi + i]];
		void *cells = map_rows(map, sampled, psi, 1);
		int distinct = 0;
		for (int i = 0; i < psi; i++) {
			int dup = 0;
			for (int j = 0; j < i && !dup; j++)
				dup = same_row(sampled[i], sampled[j]);
			distinct += !dup;
			seen[i] = 0;
		}
		for (int i = 0; i < psi; i++) {
			uint32_t ci = ikmap_cell_at(map, cells, (size_t)i * t + k);
			ck_assert_uint_lt(ci, (uint32_t)distinct);
			seen[ci] = 1;
			for (int j = 0; j < i; j++)
				ck_assert_int_eq(ci == ikmap_cell_at(map, cells, (size_t)j * t + k),
					same_row(sampled[i], sampled[j]));
		}
		for (int c = 0; c < distinct; c++)
			ck_assert_msg(seen[c], "tree %d: leaf %d holds no sampled row", k, c);
		for (int r = 0; r < query->n; r++)
			ck_assert_uint_lt(ikmap_cell_at(map, qcells, (size_t)r * t + k),
				(uint32_t)distinct);
		free(cells);
	}
	free(qcells);
	free(drawn);
	free(sampled);
	free(seen);
	ikmap_free(map);
}

START_TEST(forest_isolates_sampled_rows)
{
	struct data dense = random_data(300, 8, 1.0, 21);
	struct data sparse = random_data(300, 2000, 0.01, 22);
	check_forest(&dense, &sparse, 20, 64);
	check_forest(&sparse, &dense, 20, 64);
	data_free(&dense);
	data_free(&sparse);
}
END_TEST

START_TEST(forest_keeps_duplicates_together)
{
	/* 10 distinct rows, each 20 times: trees have at most 10 leaves. */
	struct data base = random_data(10, 4, 1.0, 23);
	struct data x = { 200, 4, malloc(200 * sizeof(struct feature_node *)) };
	ck_assert_ptr_nonnull(x.row);
	for (int i = 0; i < 200; i++) {
		x.row[i] = malloc(5 * sizeof(struct feature_node));
		ck_assert_ptr_nonnull(x.row[i]);
		memcpy(x.row[i], base.row[i % 10], 5 * sizeof(struct feature_node));
	}
	check_forest(&x, &base, 15, 50);
	data_free(&base);
	data_free(&x);
}
END_TEST

START_TEST(forest_never_splits_on_a_constant_feature)
{
	/* Feature 2 is 7 in every row: changing it in a query must not move any cell. */
	struct data x = random_data(200, 3, 1.0, 31);
	for (int i = 0; i < x.n; i++)
		x.row[i][1].value = 7;
	struct ikmap *map = build(&x, IKMAP_IFOREST, 40, 64);
	void *before = map_rows(map, x.row, 50, 0);
	for (int i = 0; i < 50; i++)
		x.row[i][1].value = i % 2 ? -1e9 : 1e9;
	void *after = map_rows(map, x.row, 50, 0);
	ck_assert_int_eq(memcmp(before, after, 50 * 40 * ikmap_cell_size(map)), 0);
	free(before);
	free(after);
	ikmap_free(map);
	data_free(&x);
}
END_TEST

START_TEST(forest_has_no_dense_path)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct data x = random_data(30, 3, 1.0, 32);
	struct ikmap *map = build(&x, IKMAP_IFOREST, 3, 8);
	ck_assert_int_ne(ikmap_set_path(map, IKMAP_PATH_DENSE, err), 0);
	ck_assert_ptr_nonnull(strstr(err, "iForest"));
	ck_assert_int_eq(ikmap_scaled(map), 0);
	ck_assert_ptr_null(ikmap_scale_factors(map));
	ikmap_free(map);
	data_free(&x);
}
END_TEST

START_TEST(forest_thread_count_does_not_matter)
{
	struct data x = random_data(400, 12, 0.7, 24);
	struct ikmap *one = build(&x, IKMAP_IFOREST, 30, 64);
	void *ref = map_rows(one, x.row, x.n, 1);
	for (int threads = 2; threads <= 4; threads *= 2) {
		char err[IKMAP_ERR_SIZE];
		struct ikmap_params p = { IKMAP_IFOREST, 30, 64, 5, 1, threads, 0 };
		struct ikmap *other = ikmap_build(x.row, x.n, x.d, &p, err);
		ck_assert_ptr_nonnull(other);
		ck_assert_uint_eq(ikmap_checksum(other), ikmap_checksum(one));
		void *cells = map_rows(other, x.row, x.n, threads);
		ck_assert_int_eq(memcmp(cells, ref, (size_t)x.n * 30 * ikmap_cell_size(one)), 0);
		free(cells);
		ikmap_free(other);
	}
	free(ref);
	ikmap_free(one);
	data_free(&x);
}
END_TEST

/* Cholesky of a + jitter I (n x n, overwritten); 0 when positive definite. */
static int cholesky(double *a, int n, double jitter)
{
	for (int j = 0; j < n; j++) {
		double s = a[j * n + j] + jitter;
		for (int k = 0; k < j; k++)
			s -= a[j * n + k] * a[j * n + k];
		if (!(s > 0))
			return -1;
		a[j * n + j] = sqrt(s);
		for (int i = j + 1; i < n; i++) {
			double v = a[i * n + j];
			for (int k = 0; k < j; k++)
				v -= a[i * n + k] * a[j * n + k];
			a[i * n + j] = v / a[j * n + j];
		}
	}
	return 0;
}

static void check_kernel(enum ikmap_method method)
{
	const int n = 200, t = 50;
	struct data x = random_data(n, 6, 0.8, 25);
	struct ikmap *map = build(&x, method, t, 32);
	void *cells = map_rows(map, x.row, n, 0);
	size_t stride = (size_t)t * ikmap_cell_size(map);
	double *k = malloc((size_t)n * n * sizeof(double));
	ck_assert_ptr_nonnull(k);
	double off_diagonal = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			const char *ci = (const char *)cells + i * stride, *cj = (const char *)cells + j * stride;
			int same = 0;
			for (int c = 0; c < t; c++)
				same += ikmap_cell_at(map, ci, c) == ikmap_cell_at(map, cj, c);
			k[i * n + j] = ikmap_kernel_cells(map, ci, cj);
			ck_assert_double_eq(k[i * n + j], (double)same / t);
			off_diagonal += i != j ? k[i * n + j] : 0;
		}
	for (int i = 0; i < n; i++) {
		ck_assert_double_eq(k[i * n + i], 1.0);
		for (int j = 0; j < i; j++)
			ck_assert_double_eq(k[i * n + j], k[j * n + i]);
	}
	/* Not a trivial kernel: similar rows share some cells, most do not. */
	off_diagonal /= (double)n * (n - 1);
	ck_assert(off_diagonal > 0.001 && off_diagonal < 0.5);
	ck_assert_double_eq(ikmap_kernel(map, x.row[3], x.row[7]), k[3 * n + 7]);
	ck_assert_double_eq(ikmap_kernel(map, x.row[7], x.row[3]), k[3 * n + 7]);
	ck_assert_double_eq(ikmap_kernel(map, x.row[9], x.row[9]), 1.0);
	ck_assert_int_eq(cholesky(k, n, 1e-9), 0);
	free(k);
	free(cells);
	ikmap_free(map);
	data_free(&x);
}

START_TEST(kernel_is_a_kernel)
{
	check_kernel(IKMAP_ANNE);
	check_kernel(IKMAP_IFOREST);
}
END_TEST

START_TEST(cholesky_rejects_an_indefinite_matrix)
{
	/* The PSD check can fail: [[1, 2], [2, 1]] has eigenvalue -1. */
	double a[4] = { 1, 2, 2, 1 };
	ck_assert_int_ne(cholesky(a, 2, 1e-9), 0);
}
END_TEST

/* ---- files ---- */

static char dir[64];

static void make_dir(void)
{
	strcpy(dir, "/tmp/test_ikmap.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	for (struct dirent *e; (e = readdir(d));) {
		char path[512];
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
	}
	closedir(d);
	rmdir(dir);
}

static int files_in_dir(void)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static unsigned char *slurp(const char *path, long *size)
{
	FILE *fp = fopen(path, "rb");
	ck_assert_ptr_nonnull(fp);
	fseek(fp, 0, SEEK_END);
	*size = ftell(fp);
	rewind(fp);
	unsigned char *buf = malloc((size_t)*size);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)*size, fp), (size_t)*size);
	fclose(fp);
	return buf;
}

static void spill(const char *path, const unsigned char *buf, long size)
{
	FILE *fp = fopen(path, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(buf, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void check_round_trip(enum ikmap_method method)
{
	char path[128], err[IKMAP_ERR_SIZE] = "";
	struct data x = random_data(300, 40, 0.3, 26);
	struct ikmap *map = build(&x, method, 25, 32);
	snprintf(path, sizeof path, "%s/map", dir);
	uint64_t kept;
	ck_assert_int_eq(ikmap_known_checksum(map, &kept), 0);	/* nothing hashed yet */
	ck_assert_msg(ikmap_save(map, path, err) == 0, "%s", err);
	ck_assert_int_eq(files_in_dir(), 1);	/* no temporary left behind */
	/* the save keeps the checksum it wrote (train -k's model trailer asks for it next) */
	ck_assert_int_eq(ikmap_known_checksum(map, &kept), 1);
	struct ikmap *back = ikmap_load(path, err);
	ck_assert_msg(back != NULL, "%s", err);
	ck_assert_int_eq(ikmap_method(back), method);
	ck_assert_int_eq(ikmap_t(back), 25);
	ck_assert_int_eq(ikmap_psi(back), 32);
	ck_assert_int_eq(ikmap_dim(back), 40);
	ck_assert_uint_eq(ikmap_seed(back), 5);
	ck_assert_int_eq(ikmap_scaled(back), method == IKMAP_ANNE);
	ck_assert_uint_eq(ikmap_checksum(back), ikmap_checksum(map));
	/* The checksum is 64-bit FNV-1a over the file before its last 8 bytes. */
	long size;
	unsigned char *buf = slurp(path, &size);
	uint64_t h = 0xcbf29ce484222325ULL;
	for (long i = 0; i < size - 8; i++)
		h = (h ^ buf[i]) * 0x100000001b3ULL;
	ck_assert_uint_eq(h, ikmap_checksum(map));
	ck_assert_uint_eq(kept, h);
	ck_assert_uint_eq(le64(buf + size - 8), h);
	/* Little-endian header: t at byte 16, psi at 20, d at 24, seed at 32. */
	ck_assert_uint_eq(buf[16] | buf[17] << 8, 25);
	ck_assert_uint_eq(buf[20] | buf[21] << 8, 32);
	ck_assert_uint_eq(buf[24] | buf[25] << 8, 40);
	ck_assert_uint_eq(le64(buf + 32), 5);
	void *a = map_rows(map, x.row, x.n, 0), *b = map_rows(back, x.row, x.n, 0);
	ck_assert_int_eq(memcmp(a, b, (size_t)x.n * 25 * ikmap_cell_size(map)), 0);
	free(a);
	free(b);
	free(buf);
	ikmap_free(back);
	ikmap_free(map);
	data_free(&x);
	unlink(path);
}

START_TEST(save_load_round_trip)
{
	make_dir();
	check_round_trip(IKMAP_ANNE);
	check_round_trip(IKMAP_IFOREST);
	remove_dir();
}
END_TEST

static void expect_rejected(const char *path, const char *what)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_load(path, err);
	ck_assert_msg(map == NULL, "%s was accepted", what);
	ck_assert_msg(strlen(err) > 0, "%s: no message", what);
}

/* Every truncation and every single-bit flip of a small map is refused. */
static void check_damage(enum ikmap_method method)
{
	char path[128], bad[128], err[IKMAP_ERR_SIZE];
	struct data x = random_data(20, 3, 1.0, 27);
	struct ikmap *map = build(&x, method, 3, 4);
	snprintf(path, sizeof path, "%s/map", dir);
	snprintf(bad, sizeof bad, "%s/bad", dir);
	ck_assert_int_eq(ikmap_save(map, path, err), 0);
	long size;
	unsigned char *buf = slurp(path, &size);
	for (long len = 0; len < size; len++) {
		spill(bad, buf, len);
		expect_rejected(bad, "a truncated file");
	}
	for (long i = 0; i < size; i++)
		for (int bit = 0; bit < 8; bit++) {
			buf[i] ^= (unsigned char)(1 << bit);
			spill(bad, buf, size);
			expect_rejected(bad, "a bit-flipped file");
			buf[i] ^= (unsigned char)(1 << bit);
		}
	unsigned char *longer = malloc((size_t)size + 1);
	ck_assert_ptr_nonnull(longer);
	memcpy(longer, buf, (size_t)size);
	longer[size] = 0;
	spill(bad, longer, size + 1);
	expect_rejected(bad, "a file with a trailing byte");
	free(longer);
	free(buf);
	ikmap_free(map);
	data_free(&x);
	unlink(path);
	unlink(bad);
}

START_TEST(damaged_files_are_rejected)
{
	make_dir();
	check_damage(IKMAP_ANNE);
	check_damage(IKMAP_IFOREST);
	char path[128];
	snprintf(path, sizeof path, "%s/missing", dir);
	expect_rejected(path, "a missing file");
	expect_rejected(dir, "a directory");
	remove_dir();
}
END_TEST

START_TEST(save_reports_failure)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct data x = random_data(20, 3, 1.0, 28);
	struct ikmap *map = build(&x, IKMAP_ANNE, 2, 4);
	ck_assert_int_ne(ikmap_save(map, "/nonexistent-dir/map", err), 0);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent-dir/map"));
	ikmap_free(map);
	data_free(&x);
}
END_TEST

/* ---- build errors ---- */

static void expect_build_error(struct feature_node *const *rows, int n, int d,
	struct ikmap_params p, const char *needle)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_build(rows, n, d, &p, err);
	ck_assert_msg(map == NULL, "accepted; expected an error about %s", needle);
	ck_assert_msg(strstr(err, needle) != NULL, "message \"%s\" lacks \"%s\"", err, needle);
}

START_TEST(build_errors)
{
	struct data x = random_data(10, 3, 1.0, 29);
	struct ikmap_params p = { IKMAP_ANNE, 5, 11, 1, 0, 0, 0 };
	expect_build_error(x.row, 10, 3, p, "psi (11) exceeds the number of training rows (10)");
	p.psi = 4;
	p.t = 0;
	expect_build_error(x.row, 10, 3, p, "at least 1");
	p.t = 5;
	expect_build_error(x.row, 10, 2, p, "not in 1..2");
	p.method = (enum ikmap_method)7;
	expect_build_error(x.row, 10, 3, p, "method");
	p.method = IKMAP_IFOREST;
	p.t = INT32_MAX / 4;
	p.psi = 10;
	expect_build_error(x.row, 10, 3, p, "too large");
	p.t = 5;
	p.psi = 4;
	x.row[2][1].value = NAN;
	expect_build_error(x.row, 10, 3, p, "row 3");
	x.row[2][1].value = 1;
	x.row[4][1].index = 1;
	expect_build_error(x.row, 10, 3, p, "row 5: feature indices are not ascending");
	x.row[4][1].index = 2;
	data_free(&x);
}
END_TEST

START_TEST(psi_equal_to_n_uses_every_row)
{
	/* psi = n: every partitioning is a permutation of all rows. */
	struct data x = random_data(30, 4, 1.0, 30);
	struct ikmap *map = build(&x, IKMAP_IFOREST, 4, 30);
	void *cells = map_rows(map, x.row, 30, 0);
	for (int k = 0; k < 4; k++) {
		int seen[30] = { 0 };
		for (int i = 0; i < 30; i++)
			seen[ikmap_cell_at(map, cells, (size_t)i * 4 + k)]++;
		for (int c = 0; c < 30; c++)
			ck_assert_int_eq(seen[c], 1);
	}
	free(cells);
	ikmap_free(map);
	data_free(&x);
}
END_TEST

static Suite *ikmap_suite(void)
{
	Suite *s = suite_create("ikmap");
	TCase *forest = tcase_create("iforest");
	tcase_add_test(forest, forest_isolates_sampled_rows);
	tcase_add_test(forest, forest_keeps_duplicates_together);
	tcase_add_test(forest, forest_thread_count_does_not_matter);
	tcase_add_test(forest, forest_never_splits_on_a_constant_feature);
	tcase_add_test(forest, forest_has_no_dense_path);
	tcase_add_test(forest, psi_equal_to_n_uses_every_row);
	suite_add_tcase(s, forest);
	TCase *kernel = tcase_create("kernel");
	tcase_add_test(kernel, kernel_is_a_kernel);
	tcase_add_test(kernel, cholesky_rejects_an_indefinite_matrix);
	suite_add_tcase(s, kernel);
	TCase *files = tcase_create("files");
	tcase_set_timeout(files, 60);
	tcase_add_test(files, save_load_round_trip);
	tcase_add_test(files, damaged_files_are_rejected);
	tcase_add_test(files, save_reports_failure);
	suite_add_tcase(s, files);
	TCase *errors = tcase_create("errors");
	tcase_add_test(errors, build_errors);
	suite_add_tcase(s, errors);
	return s;
}

UNIT_MAIN(ikmap_suite)
