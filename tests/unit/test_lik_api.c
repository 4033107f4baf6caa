/*
 * test_lik_api.c - the kernel's C API (ik/liblinear_ik.h) against
 * independent expectations: the map's cells against ikmap's own, kernel
 * values counted by hand from the cells, a -k model against a plain model
 * trained on the cell rows written out as feature nodes (to rounding), save/load and
 * bytes round trips (identical bytes), damaged and mismatched input
 * refused with the right code, error codes of bad parameters, and a
 * library that never writes to stdout or stderr. (The pair written by
 * `train -k` and the output of `predict` are compared with the library's
 * in tests/oracle/test_lik_library.py.)
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "scratch_dir.h"
#include "lik_fixtures.h"
#include "ikmap.h"
#include "liblinear_ik.h"

static struct lik_map_params params_of(int kernel, int t, int psi)
{
	struct lik_map_params p;
	lik_map_params_default(&p, kernel);
	p.t = t;
	p.psi = psi;
	p.seed = 5;
	p.device = LIK_DEVICE_CPU;
	p.threads = 2;
	return p;
}

/* Progress lines of training go here, never to stdout. */
static char printed[8192];
static void collect(const char *s)
{
	size_t used = strlen(printed);
	snprintf(printed + used, sizeof printed - used, "%s", s);
}

static void quiet_setup(void)
{
	printed[0] = '\0';
	lik_set_print_string_function(collect);
}

/* Every row's cells as the feature rows training sees (k*psi + cell + 1, 1/sqrt(t), bias). */
static struct feature_node **cell_feature_rows(const uint32_t *cells, int l, int t, int psi,
	double bias)
{
	struct feature_node **rows = malloc((size_t)l * sizeof *rows);
	ck_assert_ptr_nonnull(rows);
	for (int i = 0; i < l; i++) {
		rows[i] = malloc(((size_t)t + 2) * sizeof **rows);
		ck_assert_ptr_nonnull(rows[i]);
		int n = 0;
		for (int k = 0; k < t; k++, n++) {
			rows[i][n].index = k * psi + (int)cells[(size_t)i * t + k] + 1;
			rows[i][n].value = 1 / sqrt((double)t);
		}
		if (bias >= 0) {
			rows[i][n].index = t * psi + 1;
			rows[i][n].value = bias;
			n++;
		}
		rows[i][n].index = -1;
	}
	return rows;
}

static void free_rows(struct feature_node **rows, int l)
{
	for (int i = 0; i < l; i++)
		free(rows[i]);
	free(rows);
}

START_TEST(map_rows_equal_ikmap_cells)
{
	struct test_problem p = problem_make(120, 7, -1, 3);
	for (int kernel = LIK_KERNEL_ANNE; kernel <= LIK_KERNEL_IFOREST; kernel++) {
		struct lik_map_params mp = params_of(kernel, 9, 16);
		struct lik_error err;
		struct lik_map *map = lik_map_build(&p.prob, &mp, &err);
		ck_assert_msg(map != NULL, "%s", err.message);
		ck_assert_int_eq(err.code, LIK_OK);
		ck_assert_int_eq(lik_map_t(map), 9);
		ck_assert_int_eq(lik_map_psi(map), 16);
		ck_assert_int_eq(lik_map_dim(map), 7);
		ck_assert_int_eq(lik_map_kernel(map), kernel);
		ck_assert_uint_eq(lik_map_seed(map), 5);
		ck_assert_int_eq(lik_map_scaled(map), kernel == LIK_KERNEL_ANNE);
		ck_assert_double_eq_tol(lik_map_cell_value(map), 1 / 3.0, 1e-15);

		uint32_t *cells = malloc(120 * 9 * sizeof *cells);
		ck_assert_ptr_nonnull(cells);
		ck_assert_int_eq(lik_map_rows(map, p.prob.x, 120, cells, LIK_DEVICE_CPU, 2, &err), 0);

		struct ikmap_params ip = { kernel == LIK_KERNEL_IFOREST ? IKMAP_IFOREST : IKMAP_ANNE,
			9, 16, 5, 1, 1, 0 };
		char why[IKMAP_ERR_SIZE];
		struct ikmap *direct = ikmap_build(p.prob.x, 120, 7, &ip, why);
		ck_assert_ptr_nonnull(direct);
		ck_assert_uint_eq(ikmap_checksum(direct), lik_map_checksum(map));
		uint16_t *expected = malloc(120 * 9 * sizeof *expected);
		ck_assert_ptr_nonnull(expected);
		ck_assert_int_eq(ikmap_map(direct, p.prob.x, 120, expected, 1, why), 0);
		for (int k = 0; k < 120 * 9; k++)
			ck_assert_uint_eq(cells[k], expected[k]);
		free(expected);
		ikmap_free(direct);
		free(cells);
		lik_map_free(&map);
		ck_assert_ptr_null(map);
	}
	problem_free(&p);
}
END_TEST

START_TEST(bias_nodes_are_not_mapped)
{
	/* the same rows with and without bias nodes give the same map */
	struct test_problem plain = problem_make(60, 5, -1, 8);
	struct test_problem biased = problem_make(60, 5, 1, 8);
	struct lik_map_params mp = params_of(LIK_KERNEL_ANNE, 6, 8);
	struct lik_map *a = lik_map_build(&plain.prob, &mp, NULL);
	struct lik_map *b = lik_map_build(&biased.prob, &mp, NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(lik_map_checksum(a), lik_map_checksum(b));
	ck_assert_int_eq(lik_map_dim(b), 5);
	lik_map_free(&a);
	lik_map_free(&b);
	problem_free(&plain);
	problem_free(&biased);
}
END_TEST

START_TEST(kernel_values_count_shared_cells)
{
	struct test_problem p = problem_make(50, 6, -1, 4);
	struct lik_map_params mp = params_of(LIK_KERNEL_ANNE, 10, 8);
	struct lik_map *map = lik_map_build(&p.prob, &mp, NULL);
	ck_assert_ptr_nonnull(map);
	uint32_t cells[50 * 10];
	ck_assert_int_eq(lik_map_rows(map, p.prob.x, 50, cells, LIK_DEVICE_CPU, 1, NULL), 0);
	double matrix[5 * 7];
	struct lik_error err;
	ck_assert_int_eq(lik_kernel_matrix(map, p.prob.x, 5, p.prob.x + 10, 7, matrix, 2, &err), 0);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 7; j++) {
			int shared = 0;
			for (int k = 0; k < 10; k++)
				shared += cells[i * 10 + k] == cells[(10 + j) * 10 + k];
			double want = shared / 10.0;
			ck_assert_double_eq(lik_kernel_value(map, p.prob.x[i], p.prob.x[10 + j], &err), want);
			ck_assert_int_eq(err.code, LIK_OK);
			ck_assert_double_eq(matrix[i * 7 + j], want);
		}
	ck_assert_double_eq(lik_kernel_value(map, p.prob.x[3], p.prob.x[3], NULL), 1.0);
	ck_assert(isnan(lik_kernel_value(map, NULL, p.prob.x[3], &err)));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	lik_map_free(&map);
	problem_free(&p);
}
END_TEST

/* A -k model is a plain model of the cell rows: same weights, same predictions. */
START_TEST(a_kernel_model_is_trained_on_the_cells)
{
	quiet_setup();
	for (int with_bias = 0; with_bias <= 1; with_bias++) {
		double bias = with_bias ? 1 : -1;
		struct test_problem p = problem_make(80, 5, bias, 6);
		struct parameter param = default_param(L2R_LR);
		struct lik_map_params mp = params_of(LIK_KERNEL_ANNE, 7, 8);
		struct lik_error err;
		struct lik_model *model = lik_train(&p.prob, &param, &mp, &err);
		ck_assert_msg(model != NULL, "%s", err.message);
		ck_assert_int_eq(lik_model_nr_feature(model), 7 * 8);
		ck_assert_ptr_nonnull(lik_model_map(model));

		uint32_t cells[80 * 7];
		ck_assert_int_eq(lik_map_rows(lik_model_map(model), p.prob.x, 80, cells,
			LIK_DEVICE_CPU, 1, NULL), 0);
		struct problem cp = { 80, 7 * 8 + with_bias, p.prob.y,
			cell_feature_rows(cells, 80, 7, 8, bias), bias };
		struct lik_model *plain = lik_train(&cp, &param, NULL, &err);
		ck_assert_msg(plain != NULL, "%s", err.message);
		ck_assert_ptr_null(lik_model_map(plain));
		const struct model *a = lik_model_linear(model), *b = lik_model_linear(plain);
		ck_assert_int_eq(a->nr_feature, b->nr_feature);
		/* the cell rows' sums are formed in another order (rows.h: sum, then times
		   1/sqrt(t)), so the weights agree to rounding, not bit for bit */
		for (int j = 0; j < 7 * 8 + with_bias; j++)
			ck_assert_double_eq_tol(a->w[j], b->w[j], 1e-9);

		/* prediction on raw rows = prediction of the cell rows */
		double dec_k[1], dec_p[1], prob_k[2], prob_p[2];
		for (int i = 0; i < 80; i++) {
			ck_assert_double_eq(lik_predict(model, p.prob.x[i], NULL), lik_predict(plain, cp.x[i], NULL));
			ck_assert_double_eq(lik_predict_values(model, p.prob.x[i], dec_k, NULL),
				lik_predict_values(plain, cp.x[i], dec_p, NULL));	/* labels */
			ck_assert_double_eq_tol(dec_k[0], dec_p[0], 1e-9);
			lik_predict_probability(model, p.prob.x[i], prob_k, NULL);
			lik_predict_probability(plain, cp.x[i], prob_p, NULL);
			ck_assert_double_eq_tol(prob_k[1], prob_p[1], 1e-9);
		}

		/* cross-validation: the same folds on the same rows */
		double target_k[80], target_p[80];
		ck_assert_int_eq(lik_cross_validation(&p.prob, &param, &mp, 4, target_k, &err), 0);
		ck_assert_int_eq(lik_cross_validation(&cp, &param, NULL, 4, target_p, &err), 0);
		for (int i = 0; i < 80; i++)
			ck_assert_double_eq(target_k[i], target_p[i]);

		lik_model_free(&model);
		lik_model_free(&plain);
		ck_assert_ptr_null(model);
		free_rows(cp.x, 80);
		problem_free(&p);
	}
}
END_TEST

START_TEST(train_with_map_equals_train)
{
	quiet_setup();
	struct test_problem p = problem_make(70, 4, 1, 12);
	struct parameter param = default_param(L2R_L2LOSS_SVC_DUAL);
	struct lik_map_params mp = params_of(LIK_KERNEL_IFOREST, 5, 16);
	struct lik_model *a = lik_train(&p.prob, &param, &mp, NULL);
	struct lik_map *map = lik_map_build(&p.prob, &mp, NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(map);
	struct lik_model *b = lik_train_with_map(&p.prob, &param, map, NULL);
	lik_map_free(&map);	/* the model holds its own copy */
	ck_assert_ptr_nonnull(b);
	unsigned char *ba, *bb;
	size_t na, nb;
	ck_assert_int_eq(lik_model_to_bytes(a, &ba, &na, NULL), 0);
	ck_assert_int_eq(lik_model_to_bytes(b, &bb, &nb, NULL), 0);
	ck_assert_uint_eq(na, nb);
	ck_assert_int_eq(memcmp(ba, bb, na), 0);
	lik_free(ba);
	lik_free(bb);
	lik_model_free(&a);
	lik_model_free(&b);
	problem_free(&p);
}
END_TEST

/* The whole contents of path, allocated (*size bytes). */
static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *fp = fopen(path, "rb");
	ck_assert_msg(fp != NULL, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	*size = (size_t)ftell(fp);
	rewind(fp);
	unsigned char *b = malloc(*size + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, *size, fp), *size);
	fclose(fp);
	return b;
}

static void spill(const char *path, const void *bytes, size_t size)
{
	FILE *fp = fopen(path, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(bytes, 1, size, fp), size);
	ck_assert_int_eq(fclose(fp), 0);
}

static void assert_same_file(const char *a, const char *b)
{
	size_t na, nb;
	unsigned char *ba = slurp(a, &na), *bb = slurp(b, &nb);
	ck_assert_msg(na == nb && memcmp(ba, bb, na) == 0, "%s and %s differ", a, b);
	free(ba);
	free(bb);
}

static struct lik_model *small_kernel_model(int solver, int kernel, double bias)
{
	quiet_setup();
	struct test_problem p = problem_make(60, 5, bias, 21);
	struct parameter param = default_param(solver);
	struct lik_map_params mp = params_of(kernel, 6, 8);
	struct lik_error err;
	struct lik_model *model = lik_train(&p.prob, &param, &mp, &err);
	ck_assert_msg(model != NULL, "%s", err.message);
	problem_free(&p);
	return model;
}

START_TEST(save_load_and_bytes_round_trips)
{
	scratch_dir_make("lik_api");
	ck_assert_int_eq(mkdir(scratch_path("a"), 0700), 0);
	ck_assert_int_eq(mkdir(scratch_path("b"), 0700), 0);
	for (int kernel = 0; kernel <= LIK_KERNEL_IFOREST; kernel++) {
		struct lik_model *model;
		if (kernel == 0) {
			quiet_setup();
			struct test_problem p = problem_make(60, 5, 1, 21);
			struct parameter param = default_param(L2R_LR);
			model = lik_train(&p.prob, &param, NULL, NULL);
			problem_free(&p);
		} else {
			model = small_kernel_model(L2R_LR, kernel, 1);
		}
		ck_assert_ptr_nonnull(model);
		struct lik_error err;
		ck_assert_msg(lik_model_save(scratch_path("a/m"), model, &err) == 0, "%s", err.message);
		struct stat st;
		ck_assert_int_eq(stat(scratch_path("a/m.ik"), &st) == 0, kernel != 0);	/* plain: no .ik */
		struct lik_model *loaded = lik_model_load(scratch_path("a/m"), &err);
		ck_assert_msg(loaded != NULL, "%s", err.message);
		ck_assert_int_eq(lik_model_map(loaded) != NULL, kernel != 0);
		ck_assert_int_eq(lik_model_save(scratch_path("b/m"), loaded, &err), 0);
		assert_same_file(scratch_path("a/m"), scratch_path("b/m"));
		if (kernel != 0)
			assert_same_file(scratch_path("a/m.ik"), scratch_path("b/m.ik"));

		unsigned char *b1, *b2, *b3;
		size_t n1, n2, n3;
		ck_assert_int_eq(lik_model_to_bytes(model, &b1, &n1, &err), 0);
		ck_assert_int_eq(lik_model_to_bytes(loaded, &b2, &n2, &err), 0);
		ck_assert_uint_eq(n1, n2);
		ck_assert_int_eq(memcmp(b1, b2, n1), 0);
		struct lik_model *back = lik_model_from_bytes(b1, n1, &err);
		ck_assert_msg(back != NULL, "%s", err.message);
		ck_assert_int_eq(lik_model_to_bytes(back, &b3, &n3, &err), 0);
		ck_assert_uint_eq(n1, n3);
		ck_assert_int_eq(memcmp(b1, b3, n1), 0);
		ck_assert_int_eq(lik_model_nr_class(back), 2);
		int labels[2];
		lik_model_labels(back, labels);
		ck_assert_int_eq(labels[0] * labels[1], -1);
		ck_assert(lik_model_is_probability(back));
		ck_assert(!lik_model_is_regression(back));
		ck_assert(!lik_model_is_oneclass(back));

		if (kernel != 0) {	/* the map alone, both ways, and as its .ik file */
			unsigned char *m1, *m2;
			size_t k1, k2;
			ck_assert_int_eq(lik_map_to_bytes(lik_model_map(model), &m1, &k1, &err), 0);
			struct lik_map *map = lik_map_from_bytes(m1, k1, &err);
			ck_assert_msg(map != NULL, "%s", err.message);
			ck_assert_int_eq(lik_map_to_bytes(map, &m2, &k2, &err), 0);
			ck_assert_uint_eq(k1, k2);
			ck_assert_int_eq(memcmp(m1, m2, k1), 0);
			size_t kf;
			unsigned char *file = slurp(scratch_path("a/m.ik"), &kf);
			ck_assert_uint_eq(kf, k1);
			ck_assert_int_eq(memcmp(file, m1, k1), 0);
			free(file);
			/* assembled from its parts, the model is the same */
			struct lik_model *again = lik_model_assemble(lik_model_linear(model), map, &err);
			ck_assert_msg(again != NULL, "%s", err.message);
			lik_map_free(&map);
			lik_free(b3);
			ck_assert_int_eq(lik_model_to_bytes(again, &b3, &n3, &err), 0);
			ck_assert_uint_eq(n1, n3);
			ck_assert_int_eq(memcmp(b1, b3, n1), 0);
			lik_model_free(&again);
			lik_free(m1);
			lik_free(m2);
		}
		lik_free(b1);
		lik_free(b2);
		lik_free(b3);
		lik_model_free(&back);
		lik_model_free(&loaded);
		lik_model_free(&model);
	}
	scratch_dir_remove();
}
END_TEST

START_TEST(damaged_bytes_are_refused)
{
	struct lik_model *model = small_kernel_model(L2R_L2LOSS_SVC, LIK_KERNEL_ANNE, -1);
	unsigned char *b;
	size_t n;
	struct lik_error err;
	ck_assert_int_eq(lik_model_to_bytes(model, &b, &n, &err), 0);
	/* every cut is refused */
	for (size_t cut = 0; cut < n; cut++) {
		struct lik_model *m = lik_model_from_bytes(b, cut, &err);
		ck_assert_msg(m == NULL, "a cut at %zu of %zu bytes was accepted", cut, n);
		ck_assert_int_eq(err.code, LIK_EMODEL);
		ck_assert(err.message[0] != '\0' && strchr(err.message, '\n') == NULL);
	}
	/* a changed byte: refused, or (in the model's digits) a model; never a crash */
	unsigned char *copy = malloc(n);
	ck_assert_ptr_nonnull(copy);
	size_t text_len = 0;	/* the u64 at byte 24 (lik_model.c, "The bytes of a model") */
	for (int i = 7; i >= 0; i--)
		text_len = text_len << 8 | b[24 + i];
	size_t text_end = 24 + 8 + text_len;
	ck_assert_uint_lt(text_end, n);
	for (size_t at = 0; at < n; at++) {
		memcpy(copy, b, n);
		copy[at] ^= 0x5a;
		struct lik_model *m = lik_model_from_bytes(copy, n, &err);
		if (at < 24 || at >= text_end)	/* header, lengths, the map: always refused */
			ck_assert_msg(m == NULL, "a change at byte %zu was accepted", at);
		if (m == NULL)
			ck_assert_int_eq(err.code, LIK_EMODEL);
		lik_model_free(&m);
	}
	/* a map that is not the model's: refused by the checksum the header names */
	struct lik_model *other = small_kernel_model(L2R_L2LOSS_SVC, LIK_KERNEL_IFOREST, -1);
	unsigned char *ob;
	size_t on;
	ck_assert_int_eq(lik_map_to_bytes(lik_model_map(other), &ob, &on, &err), 0);
	unsigned char *spliced = malloc(text_end + 8 + on);
	ck_assert_ptr_nonnull(spliced);
	memcpy(spliced, b, text_end);
	for (int i = 0; i < 8; i++)
		spliced[text_end + i] = (unsigned char)((uint64_t)on >> (8 * i));
	memcpy(spliced + text_end + 8, ob, on);
	ck_assert_ptr_null(lik_model_from_bytes(spliced, text_end + 8 + on, &err));
	ck_assert_int_eq(err.code, LIK_EMODEL);
	ck_assert_ptr_nonnull(strstr(err.message, "checksum"));
	free(spliced);
	free(copy);
	lik_free(ob);
	/* garbage and a map's bytes given as a model's */
	ck_assert_ptr_null(lik_model_from_bytes("hello", 5, &err));
	ck_assert_int_eq(err.code, LIK_EMODEL);
	ck_assert_ptr_null(lik_map_from_bytes(b, n, &err));
	ck_assert_int_eq(err.code, LIK_EMODEL);
	lik_free(b);
	/* a width that does not fit */
	struct lik_model *wide = small_kernel_model(L2R_L2LOSS_SVC, LIK_KERNEL_ANNE, -1);
	struct test_problem p = problem_make(40, 5, -1, 2);
	struct lik_map_params mp = params_of(LIK_KERNEL_ANNE, 3, 4);
	struct lik_map *narrow = lik_map_build(&p.prob, &mp, NULL);
	ck_assert_ptr_null(lik_model_assemble(lik_model_linear(wide), narrow, &err));
	ck_assert_int_eq(err.code, LIK_EMODEL);
	lik_map_free(&narrow);
	problem_free(&p);
	lik_model_free(&wide);
	lik_model_free(&other);
	lik_model_free(&model);
}
END_TEST

START_TEST(damaged_and_mismatched_files_are_refused)
{
	scratch_dir_make("lik_files");
	struct lik_model *a = small_kernel_model(L2R_LR, LIK_KERNEL_ANNE, -1);
	struct lik_model *b = small_kernel_model(L2R_LR, LIK_KERNEL_IFOREST, -1);
	struct lik_error err;
	ck_assert_int_eq(lik_model_save(scratch_path("a"), a, &err), 0);
	ck_assert_int_eq(lik_model_save(scratch_path("b"), b, &err), 0);
	size_t n_ik, n_model;
	unsigned char *ik = slurp(scratch_path("a.ik"), &n_ik);
	unsigned char *text = slurp(scratch_path("a"), &n_model);

	ck_assert_ptr_null(lik_model_load(scratch_path("missing"), &err));
	ck_assert_int_eq(err.code, LIK_EIO);
	ck_assert_str_eq(err.message + strlen(err.message) - 7, "missing");

	/* the .ik missing: cannot read it */
	ck_assert_int_eq(rename(scratch_path("a.ik"), scratch_path("a.ik.away")), 0);
	ck_assert_ptr_null(lik_model_load(scratch_path("a"), &err));
	ck_assert_int_eq(err.code, LIK_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "partitioning file"));

	/* a .ik cut short or changed: damaged */
	spill(scratch_path("a.ik"), ik, n_ik / 2);
	ck_assert_ptr_null(lik_model_load(scratch_path("a"), &err));
	ck_assert_int_eq(err.code, LIK_EMODEL);
	ik[n_ik / 3] ^= 1;
	spill(scratch_path("a.ik"), ik, n_ik);
	ck_assert_ptr_null(lik_model_load(scratch_path("a"), &err));
	ck_assert_int_eq(err.code, LIK_EMODEL);

	/* another model's .ik: not the one the model names */
	ck_assert_int_eq(rename(scratch_path("b.ik"), scratch_path("a.ik")), 0);
	ck_assert_ptr_null(lik_model_load(scratch_path("a"), &err));
	ck_assert_int_eq(err.code, LIK_EMODEL);
	ck_assert_ptr_nonnull(strstr(err.message, "checksum"));

	/* the model cut inside its trailer, or before it with the .ik beside it */
	ck_assert_int_eq(rename(scratch_path("a.ik.away"), scratch_path("a.ik")), 0);
	spill(scratch_path("a"), text, n_model - 10);
	ck_assert_ptr_null(lik_model_load(scratch_path("a"), &err));
	ck_assert_int_eq(err.code, LIK_EMODEL);
	const char *trailer = strstr((const char *)text, "ik_partitioning");
	ck_assert_ptr_nonnull(trailer);
	spill(scratch_path("a"), text, (size_t)(trailer - (const char *)text));
	ck_assert_ptr_null(lik_model_load(scratch_path("a"), &err));
	ck_assert_int_eq(err.code, LIK_EMODEL);
	ck_assert_ptr_nonnull(strstr(err.message, "trailer is missing"));
	/* the model's text itself damaged */
	spill(scratch_path("a"), "solver_type L2R_LR\nnr_class 2\n", 30);
	ck_assert_ptr_null(lik_model_load(scratch_path("a"), &err));
	ck_assert_int_eq(err.code, LIK_EMODEL);

	/* every cut of the model file: refused or, cut in its trailing white space, the model */
	spill(scratch_path("a"), text, n_model);
	struct lik_model *whole = lik_model_load(scratch_path("a"), &err);
	ck_assert_msg(whole != NULL, "%s", err.message);
	lik_model_free(&whole);
	for (size_t cut = 0; cut + 1 < n_model; cut += 7) {
		spill(scratch_path("a"), text, cut);
		struct lik_model *m = lik_model_load(scratch_path("a"), &err);
		ck_assert_msg(m == NULL, "a model file cut at %zu of %zu was accepted", cut, n_model);
		ck_assert(err.code == LIK_EMODEL || err.code == LIK_EIO);
	}
	free(ik);
	free(text);
	lik_model_free(&a);
	lik_model_free(&b);
	scratch_dir_remove();
}
END_TEST

START_TEST(predict_rows_equals_row_by_row)
{
	for (int kernel = 0; kernel <= LIK_KERNEL_IFOREST; kernel++)
		for (int solver = 0; solver <= 1; solver++) {
			int s = solver ? MCSVM_CS : L2R_LR;
			quiet_setup();
			struct test_problem p = problem_make(90, 5, kernel == 1 ? 1 : -1, 30);
			for (int i = 0; i < 90; i += 3)
				p.prob.y[i] = 7;	/* three classes */
			struct parameter param = default_param(s);
			struct lik_map_params mp = params_of(kernel ? kernel : 1, 6, 8);
			struct lik_error err;
			struct lik_model *model = lik_train(&p.prob, &param, kernel ? &mp : NULL, &err);
			ck_assert_msg(model != NULL, "%s", err.message);
			int outputs[3] = { 0, lik_model_nr_outputs(model, LIK_OUTPUT_VALUES),
				lik_model_nr_outputs(model, LIK_OUTPUT_PROBABILITY) };
			ck_assert_int_eq(outputs[1], 3);
			ck_assert_int_eq(outputs[2], 3);
			for (int what = LIK_OUTPUT_LABEL; what <= LIK_OUTPUT_PROBABILITY; what++) {
				if (what == LIK_OUTPUT_PROBABILITY && s != L2R_LR) {
					double labels[90], out[90 * 3];
					ck_assert_int_eq(lik_predict_rows(model, p.prob.x, 90, what, labels, out,
						LIK_DEVICE_CPU, 2, &err), -1);
					ck_assert_int_eq(err.code, LIK_EINVAL);
					ck_assert(isnan(lik_predict_probability(model, p.prob.x[0], out, &err)));
					ck_assert_int_eq(err.code, LIK_EINVAL);
					continue;
				}
				double labels[90], out[90 * 3], one[3];
				ck_assert_int_eq(lik_predict_rows(model, p.prob.x, 90, what, labels,
					what ? out : NULL, LIK_DEVICE_AUTO, 2, &err), 0);
				for (int i = 0; i < 90; i++) {
					double label = what == LIK_OUTPUT_LABEL ? lik_predict(model, p.prob.x[i], &err)
						: what == LIK_OUTPUT_VALUES ? lik_predict_values(model, p.prob.x[i], one, &err)
						: lik_predict_probability(model, p.prob.x[i], one, &err);
					ck_assert_int_eq(err.code, LIK_OK);
					ck_assert_double_eq(labels[i], label);
					for (int k = 0; k < outputs[what]; k++)
						ck_assert_double_eq(out[i * outputs[what] + k], one[k]);
				}
			}
			lik_model_free(&model);
			problem_free(&p);
		}
}
END_TEST

START_TEST(bad_parameters_get_their_codes)
{
	quiet_setup();
	struct test_problem p = problem_make(30, 4, -1, 9);
	struct parameter param = default_param(L2R_L2LOSS_SVC);
	struct lik_map_params mp = params_of(LIK_KERNEL_ANNE, 4, 8);
	struct lik_error err;
	double target[30];

	mp.psi = 31;
	ck_assert_ptr_null(lik_map_build(&p.prob, &mp, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	ck_assert_str_eq(err.message, "psi (-g 31) exceeds the number of training rows (30)");
	ck_assert_ptr_null(lik_train(&p.prob, &param, &mp, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	mp.psi = 8;
	mp.t = 0;
	ck_assert_ptr_null(lik_train(&p.prob, &param, &mp, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	mp.t = 4;
	mp.kernel = 3;
	ck_assert_ptr_null(lik_map_build(&p.prob, &mp, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	mp.kernel = LIK_KERNEL_ANNE;
	mp.device = 9;
	ck_assert_ptr_null(lik_map_build(&p.prob, &mp, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	mp.device = LIK_DEVICE_CPU;
	mp.scale = 5;	/* codes are 0..4 (issue 28) */
	ck_assert_ptr_null(lik_map_build(&p.prob, &mp, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	mp.scale = 1;

	param.C = -1;
	ck_assert_ptr_null(lik_train(&p.prob, &param, &mp, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	ck_assert_str_eq(err.message, "C <= 0");
	param.C = 1;
	ck_assert_int_eq(lik_cross_validation(&p.prob, &param, &mp, 1, target, &err), -1);
	ck_assert_int_eq(err.code, LIK_EINVAL);
	param.solver_type = L2R_L1LOSS_SVC_DUAL;
	int psi;
	double C, P, score;
	ck_assert_int_eq(lik_find_parameters(&p.prob, &param, &mp, 5, -1, -1, &psi, &C, &P, &score, &err), -1);
	ck_assert_int_eq(err.code, LIK_EINVAL);
	param.solver_type = L2R_L2LOSS_SVC;

	/* data the solvers refuse: a feature index outside 1..n, a label no int holds */
	struct feature_node *saved = p.prob.x[3];
	struct feature_node wrong[] = { { 9, 1.0 }, { -1, 0 } };
	p.prob.x[3] = wrong;
	ck_assert_ptr_null(lik_train(&p.prob, &param, NULL, &err));
	ck_assert_int_eq(err.code, LIK_EDATA);
	ck_assert_str_eq(err.message, "feature index 9 of row 4 is outside 1..4");
	p.prob.x[3] = saved;
	p.prob.y[2] = 1e300;
	ck_assert_ptr_null(lik_train(&p.prob, &param, &mp, &err));
	ck_assert_int_eq(err.code, LIK_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "not a valid class label"));
	p.prob.y[2] = 1;
	/* a non-finite value is refused by the map */
	double keep = p.prob.x[5][0].value;
	p.prob.x[5][0].value = NAN;
	ck_assert_ptr_null(lik_map_build(&p.prob, &mp, &err));
	ck_assert_int_eq(err.code, LIK_EDATA);
	p.prob.x[5][0].value = keep;
	/* no rows */
	struct problem empty = { 0, 4, NULL, NULL, -1 };
	ck_assert_ptr_null(lik_train(&empty, &param, &mp, &err));
	ck_assert_int_eq(err.code, LIK_EDATA);
	/* -C over psi needs 4 rows */
	struct problem three = p.prob;
	three.l = 3;
	mp.psi = 0;
	ck_assert_int_eq(lik_find_parameters(&three, &param, &mp, 2, -1, -1, &psi, &C, &P, &score, &err), -1);
	ck_assert_int_eq(err.code, LIK_EINVAL);
	/* success clears the error */
	mp.psi = 8;
	struct lik_model *m = lik_train(&p.prob, &param, &mp, &err);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(err.code, LIK_OK);
	ck_assert_str_eq(err.message, "");
	/* NULL err is allowed everywhere */
	ck_assert_ptr_null(lik_train(&empty, &param, &mp, NULL));
	lik_model_free(&m);
	problem_free(&p);
}
END_TEST

START_TEST(the_psi_search_reports_through_the_hook)
{
	quiet_setup();
	struct test_problem p = problem_make(40, 4, -1, 13);
	struct parameter param = default_param(L2R_L2LOSS_SVC);
	struct lik_map_params mp = params_of(LIK_KERNEL_ANNE, 5, 0);
	int psi;
	double C, P, score;
	struct lik_error err;
	ck_assert_int_eq(lik_find_parameters(&p.prob, &param, &mp, 3, -1, -1, &psi, &C, &P, &score, &err), 0);
	ck_assert(psi == 4 || psi == 8 || psi == 16 || psi == 32);
	ck_assert(score >= 0 && score <= 1);
	ck_assert_double_eq(P, -1);
	for (int at = 4; at <= 32; at *= 2) {
		char line[64];
		snprintf(line, sizeof line, "psi = %d  Best C = ", at);
		ck_assert_msg(strstr(printed, line) != NULL, "no line for psi %d in:\n%s", at, printed);
	}
	/* the search at the psi it chose gives the same score */
	double C2, P2, score2;
	mp.psi = psi;
	ck_assert_int_eq(lik_find_parameters(&p.prob, &param, &mp, 3, -1, -1, &psi, &C2, &P2, &score2, &err), 0);
	ck_assert_double_eq(score, score2);
	ck_assert_double_eq(C, C2);
	problem_free(&p);
}
END_TEST

/* Runs everything that fails, and a training, with fds 1 and 2 on a file: it stays empty. */
START_TEST(the_library_never_writes_to_stdout_or_stderr)
{
	scratch_dir_make("lik_quiet");
	fflush(stdout);
	fflush(stderr);
	int out = dup(1), errfd = dup(2);
	int sink = open(scratch_path("printed"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert(out >= 0 && errfd >= 0 && sink >= 0);
	dup2(sink, 1);
	dup2(sink, 2);

	lik_set_print_string_function(collect);
	struct test_problem p = problem_make(30, 4, -1, 9);
	struct parameter param = default_param(L2R_L2LOSS_SVC);
	struct lik_map_params mp = params_of(LIK_KERNEL_ANNE, 4, 8);
	struct lik_model *m = lik_train(&p.prob, &param, &mp, NULL);
	double target[30];
	lik_cross_validation(&p.prob, &param, &mp, 40, target, NULL);	/* folds > rows: a warning */
	struct feature_node wrong[] = { { 9, 1.0 }, { -1, 0 } };
	struct feature_node *saved = p.prob.x[3];
	p.prob.x[3] = wrong;
	lik_train(&p.prob, &param, NULL, NULL);
	p.prob.x[3] = saved;
	p.prob.y[0] = 1e300;
	lik_train(&p.prob, &param, NULL, NULL);
	p.prob.y[0] = 1;
	param.solver_type = L2R_L1LOSS_SVC_DUAL;
	int psi;
	double C, P, score;
	lik_find_parameters(&p.prob, &param, &mp, 5, -1, -1, &psi, &C, &P, &score, NULL);
	spill(scratch_path("bad.model"), "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 3\nbias -1\nw\n1\n", 60);
	lik_model_load(scratch_path("bad.model"), NULL);
	spill(scratch_path("bad.model"), "solver_type NOPE\n", 17);
	lik_model_load(scratch_path("bad.model"), NULL);
	lik_model_save("/nonexistent/dir/m", m, NULL);
	lik_model_from_bytes("LIKPAIR", 8, NULL);
	param.solver_type = 99;
	struct model broken = *lik_model_linear(m);
	broken.param.solver_type = 99;
	struct lik_model *bad = lik_model_assemble(&broken, NULL, NULL);
	lik_model_save(scratch_path("bad2.model"), bad, NULL);
	unsigned char *bytes;
	size_t size;
	lik_model_to_bytes(bad, &bytes, &size, NULL);
	lik_model_free(&bad);
	lik_model_free(&m);
	problem_free(&p);

	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(errfd, 2);
	close(out);
	close(errfd);
	close(sink);
	size_t n;
	unsigned char *text = slurp(scratch_path("printed"), &n);
	text[n] = '\0';
	ck_assert_msg(n == 0, "the library wrote: %s", text);
	free(text);
	scratch_dir_remove();
}
END_TEST

START_TEST(version_and_defaults)
{
	ck_assert_int_eq(lik_version(), LIBLINEAR_IK_VERSION);
	struct lik_map_params p;
	lik_map_params_default(&p, LIK_KERNEL_IFOREST);
	ck_assert_int_eq(p.kernel, LIK_KERNEL_IFOREST);
	ck_assert_int_eq(p.t, 100);
	ck_assert_int_eq(p.psi, 32);
	lik_map_params_default(&p, LIK_KERNEL_ANNE);
	ck_assert_int_eq(p.psi, 64);
	ck_assert_uint_eq(p.seed, 1);
	ck_assert_int_eq(p.scale, 1);
	ck_assert_int_eq(p.device, LIK_DEVICE_AUTO);
	ck_assert_int_eq(p.threads, 0);
}
END_TEST

/* Whether two models hold the same labels and bit-identical weights. */
static int same_weights(const struct lik_model *a, const struct lik_model *b)
{
	const struct model *x = lik_model_linear(a), *y = lik_model_linear(b);
	if (x->nr_class != y->nr_class || x->nr_feature != y->nr_feature)
		return 0;
	int columns = x->nr_class == 2 ? 1 : x->nr_class;
	size_t rows = (size_t)x->nr_feature + (x->bias >= 0 ? 1 : 0);
	for (int k = 0; k < x->nr_class; k++)
		if (x->label[k] != y->label[k])
			return 0;
	return memcmp(x->w, y->w, rows * (size_t)columns * sizeof *x->w) == 0;
}

/* -d and -m reach the online update's and lik_train_from's mapping, and never change the model. */
START_TEST(online_update_maps_on_the_given_device_and_threads)
{
	quiet_setup();
	struct test_problem first = problem_make(120, 6, -1, 21), more = problem_make(300, 6, -1, 22);
	struct parameter param = default_param(LIK_SOLVER_OGD);
	param.C = 0.5;
	struct lik_map_params mp = params_of(LIK_KERNEL_ANNE, 20, 16);
	mp.threads = 1;
	struct lik_error err;
	struct lik_model *start = lik_train(&first.prob, &param, &mp, &err);
	ck_assert_msg(start != NULL, "%s", err.message);
	const int devices[] = { LIK_DEVICE_CPU, LIK_DEVICE_CPU, LIK_DEVICE_AUTO };
	const int threads[] = { 1, 2, 2 };
	struct lik_model *updated[3], *continued[3];
	for (int i = 0; i < 3; i++) {
		updated[i] = lik_model_assemble(lik_model_linear(start), lik_model_map(start), &err);
		ck_assert_msg(updated[i] != NULL, "%s", err.message);
		ck_assert_msg(lik_online_update(updated[i], more.prob.x, more.prob.y, 300, &param, 2,
			devices[i], threads[i], &err) == 0, "%s", err.message);
		continued[i] = lik_train_from(&more.prob, &param, start, 2, devices[i], threads[i], &err);
		ck_assert_msg(continued[i] != NULL, "%s", err.message);
		/* the same rows, the same passes: lik_train_from is the update on a copy */
		ck_assert(same_weights(updated[i], continued[i]));
	}
	ck_assert(!same_weights(start, updated[0]));	/* the rows did change the model */
	for (int i = 1; i < 3; i++) {
		ck_assert(same_weights(updated[0], updated[i]));
		ck_assert(same_weights(continued[0], continued[i]));
	}

	/* a device that is none of the three is refused at once, by a plain model too */
	struct lik_model *plain = lik_train(&first.prob, &param, NULL, &err);
	ck_assert_msg(plain != NULL, "%s", err.message);
	struct lik_model *targets[] = { start, plain };
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(lik_online_update(targets[i], more.prob.x, more.prob.y, 300, &param, 1, 7, 1,
			&err), -1);
		ck_assert_int_eq(err.code, LIK_EINVAL);
		ck_assert_ptr_nonnull(strstr(err.message, "device 7"));
		ck_assert_ptr_null(lik_train_from(&more.prob, &param, targets[i], 1, -1, 1, &err));
		ck_assert_int_eq(err.code, LIK_EINVAL);
	}
	for (int i = 0; i < 3; i++) {
		lik_model_free(&updated[i]);
		lik_model_free(&continued[i]);
	}
	lik_model_free(&plain);
	lik_model_free(&start);
	problem_free(&first);
	problem_free(&more);
}
END_TEST

/*
 * -s 30 -P n -v k through the API. Hand-computed: three plain rows,
 * leave-one-out (3 folds), eta 0.5, no bias. The fold of row c trains on
 * a = (2, 0), y +1 and b = (0, 1), y -1 (orthogonal, so their order in the
 * fold does not matter). One pass: w = (1, -0.5) (a: f 0 < 1, w += 0.5 * 2;
 * b: f 0, w -= 0.5), f(c) = 1 - 0.75 = 0.25: +1. A second pass: a has
 * f = 2, no change; b has y f = 0.5 < 1, w = (1, -1), f(c) = 1 - 1.5: -1.
 */
START_TEST(online_cross_validation_learns_by_passes)
{
	quiet_setup();
	struct feature_node rows[3][3] = {
		{ { 1, 2 }, { -1, 0 }, { -1, 0 } },
		{ { 2, 1 }, { -1, 0 }, { -1, 0 } },
		{ { 1, 1 }, { 2, 1.5 }, { -1, 0 } },
	};
	struct feature_node *x[3] = { rows[0], rows[1], rows[2] };
	double y[3] = { 1, -1, 1 };
	struct problem prob = { .l = 3, .n = 2, .y = y, .x = x, .bias = -1 };
	struct parameter param = default_param(LIK_SOLVER_OGD);
	param.C = 0.5;
	struct lik_error err;
	double one[3], two[3], cv[3];
	ck_assert_msg(lik_online_cross_validation(&prob, &param, NULL, 1, 3, one, &err) == 0, "%s", err.message);
	ck_assert_msg(lik_online_cross_validation(&prob, &param, NULL, 2, 3, two, &err) == 0, "%s", err.message);
	ck_assert(one[2] == 1);
	ck_assert(two[2] == -1);
	/* one pass is lik_cross_validation's -s 30 */
	ck_assert_msg(lik_cross_validation(&prob, &param, NULL, 3, cv, &err) == 0, "%s", err.message);
	ck_assert(memcmp(one, cv, sizeof cv) == 0);

	/* with a kernel: passes 1 is lik_cross_validation; the thread count changes nothing */
	struct test_problem p = problem_make(200, 6, -1, 31);
	struct lik_map_params mp = params_of(LIK_KERNEL_ANNE, 20, 16);
	double *a = malloc(200 * sizeof *a), *b = malloc(200 * sizeof *b), *c = malloc(200 * sizeof *c);
	ck_assert(a != NULL && b != NULL && c != NULL);
	mp.threads = 1;
	ck_assert_msg(lik_online_cross_validation(&p.prob, &param, &mp, 1, 5, a, &err) == 0, "%s", err.message);
	ck_assert_msg(lik_cross_validation(&p.prob, &param, &mp, 5, b, &err) == 0, "%s", err.message);
	ck_assert(memcmp(a, b, 200 * sizeof *a) == 0);
	ck_assert_msg(lik_online_cross_validation(&p.prob, &param, &mp, 3, 5, b, &err) == 0, "%s", err.message);
	mp.threads = 2;
	ck_assert_msg(lik_online_cross_validation(&p.prob, &param, &mp, 3, 5, c, &err) == 0, "%s", err.message);
	ck_assert(memcmp(b, c, 200 * sizeof *b) == 0);

	/* refusals: another solver, passes 0, one fold */
	struct parameter svc = default_param(L2R_L2LOSS_SVC);
	ck_assert_int_eq(lik_online_cross_validation(&prob, &svc, NULL, 2, 3, one, &err), -1);
	ck_assert_int_eq(err.code, LIK_EINVAL);
	ck_assert_int_eq(lik_online_cross_validation(&prob, &param, NULL, 0, 3, one, &err), -1);
	ck_assert_int_eq(err.code, LIK_EINVAL);
	ck_assert_int_eq(lik_online_cross_validation(&prob, &param, NULL, 2, 1, one, &err), -1);
	ck_assert_int_eq(err.code, LIK_EINVAL);
	free(a);
	free(b);
	free(c);
	problem_free(&p);
}
END_TEST

static Suite *lik_api_suite(void)
{
	Suite *s = suite_create("lik_api");
	TCase *tc = tcase_create("api");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, map_rows_equal_ikmap_cells);
	tcase_add_test(tc, bias_nodes_are_not_mapped);
	tcase_add_test(tc, kernel_values_count_shared_cells);
	tcase_add_test(tc, a_kernel_model_is_trained_on_the_cells);
	tcase_add_test(tc, train_with_map_equals_train);
	tcase_add_test(tc, save_load_and_bytes_round_trips);
	tcase_add_test(tc, damaged_bytes_are_refused);
	tcase_add_test(tc, damaged_and_mismatched_files_are_refused);
	tcase_add_test(tc, predict_rows_equals_row_by_row);
	tcase_add_test(tc, bad_parameters_get_their_codes);
	tcase_add_test(tc, the_psi_search_reports_through_the_hook);
	tcase_add_test(tc, the_library_never_writes_to_stdout_or_stderr);
	tcase_add_test(tc, version_and_defaults);
	tcase_add_test(tc, online_update_maps_on_the_given_device_and_threads);
	tcase_add_test(tc, online_cross_validation_learns_by_passes);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(lik_api_suite)
