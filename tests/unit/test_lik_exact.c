/*
 * test_lik_exact.c - the minmax and acos kernels in the C API (issue 27)
 * against the rules: each type's defaults, every parameter
 * combination lik_map_params_check must refuse or accept, negative values
 * refused under minmax without scale 2 with LIK_EDATA naming the row and
 * feature that this test finds by its own scan (sparse and dense, build
 * and map), psi not capped by the rows, acos's psi 0 taken as 2, and the
 * searches' grids (minmax 16, 64, ..., 4096 whatever the rows; acos C
 * only).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "lik_fixtures.h"
#include "liblinear_ik.h"

static struct lik_map_params params_of(int kernel, int t, int psi, int scale)
{
	struct lik_map_params p;
	lik_map_params_default(&p, kernel);
	p.t = t;
	p.psi = psi;
	p.scale = scale;
	p.seed = 3;
	p.device = LIK_DEVICE_CPU;
	p.threads = 2;
	return p;
}

static void quiet(const char *s)
{
	(void)s;
}

/* The first negative value of the rows, by this test's own scan: 1-based row and feature. */
static int first_negative(const struct problem *prob, int *row, int *feature)
{
	for (int i = 0; i < prob->l; i++)
		for (const struct feature_node *f = prob->x[i]; f->index != -1; f++)
			if (f->value < 0) {
				*row = i + 1;
				*feature = f->index;
				return 1;
			}
	return 0;
}

/* Every value made non-negative (in place). */
static void absolute_values(struct problem *prob)
{
	for (int i = 0; i < prob->l; i++)
		for (struct feature_node *f = prob->x[i]; f->index != -1; f++)
			f->value = fabs(f->value);
}

/* The rows as a dense row-major matrix of d columns (zeros absent). */
static double *dense_of(const struct problem *prob, int d)
{
	double *x = calloc((size_t)prob->l * (size_t)d, sizeof *x);
	ck_assert_ptr_nonnull(x);
	for (int i = 0; i < prob->l; i++)
		for (const struct feature_node *f = prob->x[i]; f->index != -1; f++)
			x[(size_t)i * d + f->index - 1] = f->value;
	return x;
}

START_TEST(defaults_of_each_type)
{
	struct lik_map_params p;
	lik_map_params_default(&p, LIK_KERNEL_MINMAX);
	ck_assert_int_eq(p.kernel, LIK_KERNEL_MINMAX);
	ck_assert_int_eq(p.t, 100);
	ck_assert_int_eq(p.psi, 256);
	ck_assert_int_eq(p.scale, 0);
	lik_map_params_default(&p, LIK_KERNEL_ACOS);
	ck_assert_int_eq(p.psi, 2);
	ck_assert_int_eq(p.scale, 0);
	ck_assert_int_eq(p.t, 100);
	/* the IK types keep theirs */
	lik_map_params_default(&p, LIK_KERNEL_ANNE);
	ck_assert_int_eq(p.psi, 64);
	ck_assert_int_eq(p.scale, 1);
	lik_map_params_default(&p, LIK_KERNEL_IFOREST);
	ck_assert_int_eq(p.psi, 32);
	ck_assert_int_eq(p.scale, 1);
	ck_assert_int_eq(LIK_KERNEL_MINMAX, 3);
	ck_assert_int_eq(LIK_KERNEL_ACOS, 4);
}
END_TEST

START_TEST(parameter_combinations)
{
	static const struct {
		int kernel, t, psi, scale;
		int ok;
		const char *says;	/* a part of the message when refused */
	} cases[] = {
		{ LIK_KERNEL_MINMAX, 100, 16, 0, 1, NULL },
		{ LIK_KERNEL_MINMAX, 100, 65536, 2, 1, NULL },
		{ LIK_KERNEL_MINMAX, 65536, 16, 0, 1, NULL },
		{ LIK_KERNEL_MINMAX, 100, 8, 0, 0, "power of two from 16 to 65536" },
		{ LIK_KERNEL_MINMAX, 100, 48, 0, 0, "power of two from 16 to 65536" },
		{ LIK_KERNEL_MINMAX, 100, 131072, 0, 0, "power of two from 16 to 65536" },
		{ LIK_KERNEL_MINMAX, 100, 0, 0, 0, "power of two" },
		{ LIK_KERNEL_MINMAX, 65537, 16, 0, 0, "at most 65536 samples" },
		/* issue 28: every -S 0..4 for every kernel, nothing else */
		{ LIK_KERNEL_MINMAX, 100, 256, 1, 1, NULL },
		{ LIK_KERNEL_MINMAX, 100, 256, 3, 1, NULL },
		{ LIK_KERNEL_MINMAX, 100, 256, 4, 1, NULL },
		{ LIK_KERNEL_MINMAX, 100, 256, 5, 0, "must be 0 (none), 1 (max-abs)" },
		{ LIK_KERNEL_MINMAX, 100, 256, -1, 0, "must be 0 (none)" },
		/* k * cells beyond INT_MAX - 2 */
		{ LIK_KERNEL_MINMAX, 65536, 65536, 0, 0, "too large" },
		{ LIK_KERNEL_ACOS, 100, 2, 0, 1, NULL },
		{ LIK_KERNEL_ACOS, 100, 0, 2, 1, NULL },
		{ LIK_KERNEL_ACOS, 100, 4, 0, 0, "2 cells per projection" },
		{ LIK_KERNEL_ACOS, 100000, 2, 0, 0, "at most 65536 samples" },
		{ LIK_KERNEL_ACOS, 100, 2, 1, 1, NULL },
		{ LIK_KERNEL_ANNE, 100, 64, 2, 1, NULL },
		{ LIK_KERNEL_ANNE, 100, 64, 4, 1, NULL },
		{ LIK_KERNEL_IFOREST, 100, 64, 2, 1, NULL },	/* ignored there */
		{ LIK_KERNEL_IFOREST, 100, 64, 4, 1, NULL },
		{ LIK_KERNEL_ANNE, 100, 64, 5, 0, "4 (log1p, then max-abs)" },
		{ LIK_KERNEL_IFOREST, 100, 64, 1, 1, NULL },	/* ignored there, as before */
		{ LIK_KERNEL_ANNE, 100000, 64, 0, 1, NULL },	/* IK t is not capped at 65536 */
		{ 5, 100, 64, 0, 0, "minmax (3) or acos (4)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct lik_map_params p = params_of(cases[i].kernel, cases[i].t, cases[i].psi,
			cases[i].scale);
		struct lik_error err;
		int rc = lik_map_params_check(&p, &err);
		if (cases[i].ok) {
			ck_assert_msg(rc == 0, "case %zu: %s", i, err.message);
			ck_assert_int_eq(err.code, LIK_OK);
		} else {
			ck_assert_msg(rc == -1, "case %zu accepted", i);
			ck_assert_int_eq(err.code, LIK_EINVAL);
			ck_assert_msg(strstr(err.message, cases[i].says) != NULL, "case %zu: %s", i, err.message);
		}
	}
	struct lik_error err;
	ck_assert_int_eq(lik_map_params_check(NULL, &err), -1);
	ck_assert_int_eq(err.code, LIK_EINVAL);
}
END_TEST

START_TEST(negative_values_are_refused_with_row_and_feature)
{
	struct test_problem tp = problem_make(60, 6, -1, 11);
	int row, feature;
	ck_assert(first_negative(&tp.prob, &row, &feature));
	char says[64];
	snprintf(says, sizeof says, "row %d: feature %d is negative", row, feature);
	struct lik_map_params p = params_of(LIK_KERNEL_MINMAX, 20, 16, 0);
	struct lik_error err;
	ck_assert_ptr_null(lik_map_build(&tp.prob, &p, &err));
	ck_assert_int_eq(err.code, LIK_EDATA);
	ck_assert_msg(strncmp(err.message, says, strlen(says)) == 0, "%s", err.message);
	double *x = dense_of(&tp.prob, 6);
	ck_assert_ptr_null(lik_map_build_dense(x, 60, 6, 6, &p, &err));
	ck_assert_int_eq(err.code, LIK_EDATA);
	ck_assert_msg(strncmp(err.message, says, strlen(says)) == 0, "%s", err.message);
	/* training and cross-validation refuse them the same way, before any map */
	struct parameter param = default_param(L2R_L2LOSS_SVC_DUAL);
	lik_set_print_string_function(quiet);
	ck_assert_ptr_null(lik_train(&tp.prob, &param, &p, &err));
	ck_assert_int_eq(err.code, LIK_EDATA);
	ck_assert_msg(strstr(err.message, says) != NULL, "%s", err.message);
	/* the search checks all rows before drawing its subsample */
	struct lik_map_params search = p;
	search.psi = 0;
	struct parameter svc = default_param(L2R_L2LOSS_SVC);
	ck_assert_ptr_null(lik_search(&tp.prob, &svc, &search, 3, -1, -1, NULL, &err));
	ck_assert_int_eq(err.code, LIK_EDATA);
	ck_assert_msg(strstr(err.message, says) != NULL, "%s", err.message);
	/* so does the search of an IK kernel under -S 4 (log1p), with -S 4's reason */
	struct lik_map_params logged = params_of(LIK_KERNEL_ANNE, 20, 0, 4);
	ck_assert_ptr_null(lik_search(&tp.prob, &svc, &logged, 3, -1, -1, NULL, &err));
	ck_assert_int_eq(err.code, LIK_EDATA);
	ck_assert_msg(strstr(err.message, says) != NULL, "%s", err.message);
	ck_assert_msg(strstr(err.message, "-S 4") != NULL, "%s", err.message);
	free(x);
	problem_free(&tp);
}
END_TEST

START_TEST(maps_of_the_new_types)
{
	struct test_problem tp = problem_make(50, 6, -1, 12);
	struct test_problem raw = problem_make(50, 6, -1, 12);	/* the same rows, signs kept */
	absolute_values(&tp.prob);
	struct lik_error err;
	/* 256 cells over 50 rows: minmax psi is cells, never capped by the rows */
	struct lik_map_params p = params_of(LIK_KERNEL_MINMAX, 30, 256, 0);
	struct lik_map *m = lik_map_build(&tp.prob, &p, &err);
	ck_assert_msg(m != NULL, "%s", err.message);
	ck_assert_int_eq(lik_map_kernel(m), LIK_KERNEL_MINMAX);
	ck_assert_int_eq(lik_map_t(m), 30);
	ck_assert_int_eq(lik_map_psi(m), 256);
	ck_assert_int_eq(lik_map_scaled(m), 0);
	uint32_t *cells = malloc(50 * 30 * sizeof *cells);
	ck_assert_ptr_nonnull(cells);
	ck_assert_int_eq(lik_map_rows(m, tp.prob.x, 50, cells, LIK_DEVICE_CPU, 1, &err), 0);
	for (int i = 0; i < 50 * 30; i++)
		ck_assert_uint_lt(cells[i], 256);
	/* mapping rows with a negative value: LIK_EDATA naming the row within the call */
	int row, feature;
	ck_assert(first_negative(&raw.prob, &row, &feature));
	char says[64];
	snprintf(says, sizeof says, "row %d: feature %d is negative", row, feature);
	ck_assert_int_eq(lik_map_rows(m, raw.prob.x, 50, cells, LIK_DEVICE_CPU, 1, &err), -1);
	ck_assert_int_eq(err.code, LIK_EDATA);
	ck_assert_msg(strstr(err.message, says) != NULL, "%s", err.message);
	double *x = dense_of(&raw.prob, 6);
	ck_assert_int_eq(lik_map_rows_dense(m, x, 50, 6, 6, cells, LIK_DEVICE_CPU, 1, &err), -1);
	ck_assert_int_eq(err.code, LIK_EDATA);
	ck_assert_msg(strstr(err.message, says) != NULL, "%s", err.message);
	/* a model on them: nr_feature = k * cells */
	struct parameter param = default_param(L2R_L2LOSS_SVC_DUAL);
	lik_set_print_string_function(quiet);
	struct lik_model *model = lik_train(&tp.prob, &param, &p, &err);
	ck_assert_msg(model != NULL, "%s", err.message);
	ck_assert_int_eq(lik_model_nr_feature(model), 30 * 256);
	lik_model_free(&model);
	lik_map_free(&m);

	/* scale 2 takes the negative rows */
	p = params_of(LIK_KERNEL_MINMAX, 30, 16, 2);
	m = lik_map_build(&raw.prob, &p, &err);
	ck_assert_msg(m != NULL, "%s", err.message);
	ck_assert_int_eq(lik_map_scaled(m), 2);
	ck_assert_int_eq(lik_map_rows(m, raw.prob.x, 50, cells, LIK_DEVICE_CPU, 1, &err), 0);
	lik_map_free(&m);

	/* acos: psi 0 is its one width, 2; negative values are fine */
	p = params_of(LIK_KERNEL_ACOS, 40, 0, 0);
	m = lik_map_build(&raw.prob, &p, &err);
	ck_assert_msg(m != NULL, "%s", err.message);
	ck_assert_int_eq(lik_map_kernel(m), LIK_KERNEL_ACOS);
	ck_assert_int_eq(lik_map_psi(m), 2);
	lik_map_free(&m);
	free(x);
	free(cells);
	problem_free(&tp);
	problem_free(&raw);
}
END_TEST

/* The kernel psi of a search table's rows, in order (the baseline's 0 included). */
static int table_psis(const struct lik_search_table *t, int *psis, int room)
{
	int n = 0;
	for (size_t i = 0; i < t->count && n < room; i++)
		psis[n++] = t->rows[i].psi;
	return n;
}

START_TEST(search_grids)
{
	struct test_problem tp = problem_make(40, 5, -1, 13);
	absolute_values(&tp.prob);
	struct parameter param = default_param(L2R_L2LOSS_SVC);
	lik_set_print_string_function(quiet);
	struct lik_error err;
	struct lik_map_params p = params_of(LIK_KERNEL_MINMAX, 10, 0, 0);
	struct lik_search_table *t = lik_search(&tp.prob, &param, &p, 3, -1, -1, NULL, &err);
	ck_assert_msg(t != NULL, "%s", err.message);
	int psis[32];
	int n = table_psis(t, psis, 32);
	/* 40 rows, yet 2^b = 16 .. 4096 (all rows: no subsample), then the baseline */
	static const int grid[] = { 16, 64, 256, 1024, 4096, 0 };
	ck_assert_int_eq(n, 6);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(psis[i], grid[i]);
	if (t->rows[t->best].psi == 4096)
		ck_assert_ptr_nonnull(strstr(t->note, "largest of -k minmax's grid"));
	lik_search_table_free(&t);

	/* a grid_max below 16 still searches 16 */
	struct lik_search_options o;
	lik_search_options_default(&o);
	o.grid_max = 8;
	t = lik_search(&tp.prob, &param, &p, 3, -1, -1, &o, &err);
	ck_assert_msg(t != NULL, "%s", err.message);
	n = table_psis(t, psis, 32);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(psis[0], 16);
	lik_search_table_free(&t);

	/* acos: C only, at its 2 cells */
	p = params_of(LIK_KERNEL_ACOS, 10, 0, 0);
	t = lik_search(&tp.prob, &param, &p, 3, -1, -1, NULL, &err);
	ck_assert_msg(t != NULL, "%s", err.message);
	n = table_psis(t, psis, 32);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(psis[0], 2);
	ck_assert_int_eq(psis[1], 0);
	lik_search_table_free(&t);

	/* the exhaustive search walks the same minmax grid */
	p = params_of(LIK_KERNEL_MINMAX, 10, 0, 0);
	int best_psi;
	double C, pp, score;
	ck_assert_int_eq(lik_find_parameters(&tp.prob, &param, &p, 3, -1, -1, &best_psi, &C, &pp,
		&score, &err), 0);
	ck_assert(best_psi == 16 || best_psi == 64 || best_psi == 256 || best_psi == 1024
		|| best_psi == 4096);
	problem_free(&tp);
}
END_TEST

static Suite *lik_exact_suite(void)
{
	Suite *s = suite_create("lik_exact");
	TCase *tc = tcase_create("exact");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, defaults_of_each_type);
	tcase_add_test(tc, parameter_combinations);
	tcase_add_test(tc, negative_values_are_refused_with_row_and_feature);
	tcase_add_test(tc, maps_of_the_new_types);
	tcase_add_test(tc, search_grids);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(lik_exact_suite)
