/*
 * test_lik_raw.c - the C API with raw features (issue 28, lik_map_params
 * raw_weight): a model's nr_feature is lik_map_columns = t*psi + d; its
 * decision values equal those recomputed here from its weights, the
 * row's cells (lik_map_rows) and the raw part w * x_j (scale 0: x as it
 * is), with the bias weight after every column; lik_map_raw_values and
 * lik_kernel_value agree with that layout; a bad weight is LIK_EINVAL.
 */
#include <math.h>
#include "lik_fixtures.h"
#include "unit.h"

enum { L = 60, D = 5, T = 8, PSI = 4 };

static void quiet(const char *s)
{
	(void)s;
}

static struct lik_map_params raw_params(double w)
{
	struct lik_map_params mp;
	lik_map_params_default(&mp, LIK_KERNEL_ANNE);
	mp.t = T;
	mp.psi = PSI;
	mp.scale = 0;
	mp.device = LIK_DEVICE_CPU;
	mp.raw_weight = w;
	return mp;
}

START_TEST(model_uses_cells_then_raw_then_bias)
{
	struct test_problem p = problem_make(L, D, 1, 9);
	struct parameter param = default_param(L2R_L2LOSS_SVC_DUAL);
	struct lik_map_params mp = raw_params(0.5);
	struct lik_error err;
	lik_set_print_string_function(quiet);
	struct lik_model *model = lik_train(&p.prob, &param, &mp, &err);
	lik_set_print_string_function(NULL);
	ck_assert_msg(model != NULL, "%s", err.message);
	const struct lik_map *map = lik_model_map(model);
	ck_assert_int_eq(lik_map_columns(map), T * PSI + D);
	ck_assert_int_eq(lik_model_nr_feature(model), T * PSI + D);
	ck_assert(lik_map_raw_weight(map) == 0.5);
	const struct model *m = lik_model_linear(model);
	int raw_seen = 0;
	for (int i = 0; i < L; i++) {
		uint32_t cells[T];
		ck_assert_int_eq(lik_map_rows(map, p.prob.x + i, 1, cells, LIK_DEVICE_CPU, 1, &err), 0);
		double want = 0;
		for (int k = 0; k < T; k++)
			want += m->w[k * PSI + (int)cells[k]] / sqrt((double)T);
		double raw[D];
		ck_assert_int_eq(lik_map_raw_values(map, p.prob.x + i, 1, raw, &err), 0);
		int e = 0;
		for (const struct feature_node *f = p.prob.x[i]; f->index != -1 && f->index <= D; f++, e++) {
			ck_assert(raw[e] == 0.5 * f->value);	/* scale 0: w * x exactly */
			want += m->w[T * PSI + f->index - 1] * 0.5 * f->value;
			raw_seen++;
		}
		want += m->w[T * PSI + D] * 1.0;	/* the bias, after every column */
		double dec;
		lik_predict_values(model, p.prob.x[i], &dec, &err);
		ck_assert_double_eq_tol(dec, want, 1e-12 * (1 + fabs(want)));
	}
	ck_assert_int_gt(raw_seen, 0);
	/* the full kernel of a row with itself: 1 + w^2 ||x||^2 */
	double sq = 0;
	for (const struct feature_node *f = p.prob.x[0]; f->index != -1 && f->index <= D; f++)
		sq += f->value * f->value;
	ck_assert_double_eq_tol(lik_kernel_value(map, p.prob.x[0], p.prob.x[0], &err), 1 + 0.25 * sq, 1e-12);
	lik_model_free(&model);
	problem_free(&p);
}
END_TEST

START_TEST(bad_weights_are_einval)
{
	double bad[] = { -1, NAN, INFINITY };
	for (int k = 0; k < 3; k++) {
		struct lik_map_params mp = raw_params(bad[k]);
		struct lik_error err;
		ck_assert_int_eq(lik_map_params_check(&mp, &err), -1);
		ck_assert_int_eq(err.code, LIK_EINVAL);
		ck_assert_ptr_nonnull(strstr(err.message, "raw features"));
	}
	struct lik_map_params mp = raw_params(0);
	struct lik_error err;
	ck_assert_int_eq(lik_map_params_check(&mp, &err), 0);
}
END_TEST

static Suite *lik_raw_suite(void)
{
	Suite *s = suite_create("lik_raw");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, model_uses_cells_then_raw_then_bias);
	tcase_add_test(tc, bad_weights_are_einval);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(lik_raw_suite)
