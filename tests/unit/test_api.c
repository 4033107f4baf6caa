/*
 * test_api.c - the model-side API on hand-made models with hand-computed
 * answers: decision values, labels, probabilities, get_decfun_*, the
 * check_*_model predicates, check_parameter's messages and their order
 * (as upstream 2.50 gives them), and the release functions.
 */
#include <math.h>
#include "unit.h"
#include "api_fixtures.h"
#include "linear.h"

/* ---- decision values and labels ---- */

static const int pm_labels[] = { 1, -1 };

START_TEST(binary_decision_ignores_unknown_features)
{
	const double w[] = { 1, -2, 0.5 };
	struct model *m = hand_model(L2R_LR, 2, pm_labels, 3, -1, w, 3);
	const struct feature_node x[] = { {1, 1}, {2, 0.25}, {3, 2}, {7, 100}, {-1, 0} };
	double dec[2] = { 0, 42 };
	ck_assert(predict_values(m, x, dec) == 1);
	ck_assert(dec[0] == 1.5);
	ck_assert(dec[1] == 42);	/* one column: one value written */
	const struct feature_node negative[] = { {2, 1}, {-1, 0} };
	ck_assert(predict(m, negative) == -1);
	/* A decision value of exactly 0 goes to the second label, as upstream. */
	const struct feature_node zero[] = { {1, 1}, {2, 0.5}, {-1, 0} };
	ck_assert(predict_values(m, zero, dec) == -1);
	ck_assert(dec[0] == 0);
	const struct feature_node empty[] = { {-1, 0} };
	ck_assert(predict(m, empty) == -1);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(bias_feature_is_the_row_after_the_features)
{
	const double w[] = { 1, 1, 0.25 };
	struct model *m = hand_model(L2R_L2LOSS_SVC, 2, pm_labels, 2, 2, w, 3);
	/* The caller appends (nr_feature + 1, bias); index 4 is past w. */
	const struct feature_node x[] = { {1, 1}, {3, 2}, {4, 9}, {-1, 0} };
	double dec[1];
	ck_assert(predict_values(m, x, dec) == 1);
	ck_assert(dec[0] == 1.5);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(multiclass_takes_the_first_largest_value)
{
	const int labels[] = { 5, 7, 9 };
	const double w[] = { 0, 2, -1, 1, 1, 0 };
	struct model *m = hand_model(L2R_L2LOSS_SVC, 3, labels, 2, -1, w, 6);
	const struct feature_node first[] = { {1, 1}, {-1, 0} };
	double dec[3];
	ck_assert(predict_values(m, first, dec) == 7);
	ck_assert(dec[0] == 0 && dec[1] == 2 && dec[2] == -1);
	const struct feature_node tie[] = { {2, 1}, {-1, 0} };
	ck_assert(predict(m, tie) == 5);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(two_class_crammer_singer_gives_both_columns)
{
	const double w[] = { -0.5, 0.5 };
	struct model *m = hand_model(MCSVM_CS, 2, pm_labels, 1, -1, w, 2);
	const struct feature_node plus[] = { {1, 1}, {-1, 0} };
	double dec[2];
	ck_assert(predict_values(m, plus, dec) == -1);
	ck_assert(dec[0] == -0.5 && dec[1] == 0.5);
	const struct feature_node minus[] = { {1, -1}, {-1, 0} };
	ck_assert(predict(m, minus) == 1);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(regression_returns_the_value)
{
	const double w[] = { 2, -1 };
	struct model *m = hand_model(L2R_L2LOSS_SVR, 2, NULL, 2, -1, w, 2);
	const struct feature_node x[] = { {1, 1.5}, {2, 1}, {-1, 0} };
	double dec[1];
	ck_assert(predict_values(m, x, dec) == 2);
	ck_assert(dec[0] == 2);
	ck_assert(predict(m, x) == 2);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(oneclass_subtracts_rho_and_returns_plus_or_minus_one)
{
	const double w[] = { 1, 1 };
	struct model *m = hand_model(ONECLASS_SVM, 2, NULL, 2, -1, w, 2);
	m->rho = 0.5;
	const struct feature_node in[] = { {1, 0.25}, {2, 0.5}, {-1, 0} };
	double dec[1];
	ck_assert(predict_values(m, in, dec) == 1);
	ck_assert(dec[0] == 0.25);
	const struct feature_node edge[] = { {1, 0.25}, {2, 0.25}, {-1, 0} };
	ck_assert(predict_values(m, edge, dec) == -1);
	ck_assert(dec[0] == 0);
	free_and_destroy_model(&m);
}
END_TEST

/* ---- probabilities ---- */

START_TEST(binary_probability_is_a_sigmoid)
{
	const double w[] = { 1, -2, 0.5 };
	struct model *m = hand_model(L2R_LR, 2, pm_labels, 3, -1, w, 3);
	const struct feature_node x[] = { {1, 1}, {2, 0.25}, {3, 2}, {-1, 0} };
	double p[2];
	ck_assert(predict_probability(m, x, p) == 1);
	ck_assert_double_eq_tol(p[0], 0.81757447619364365, 1e-15);
	ck_assert_double_eq_tol(p[1], 0.18242552380635635, 1e-15);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(multiclass_probability_normalises_one_vs_rest_sigmoids)
{
	/* Decision values 0, ln 3, -ln 3: sigmoids 1/2, 3/4, 1/4, sum 3/2. */
	const int labels[] = { 5, 7, 9 };
	const double w[] = { 0, log(3.0), -log(3.0) };
	struct model *m = hand_model(L1R_LR, 3, labels, 1, -1, w, 3);
	const struct feature_node x[] = { {1, 1}, {-1, 0} };
	double p[3];
	ck_assert(predict_probability(m, x, p) == 7);
	ck_assert_double_eq_tol(p[0], 1.0 / 3, 1e-15);
	ck_assert_double_eq_tol(p[1], 1.0 / 2, 1e-15);
	ck_assert_double_eq_tol(p[2], 1.0 / 6, 1e-15);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(probability_only_for_logistic_models)
{
	const double w[] = { 1 };
	struct model *m = hand_model(L2R_L2LOSS_SVC, 2, pm_labels, 1, -1, w, 1);
	const struct feature_node x[] = { {1, 1}, {-1, 0} };
	double p[2] = { 7, 7 };
	ck_assert(predict_probability(m, x, p) == 0);
	ck_assert(p[0] == 7 && p[1] == 7);
	free_and_destroy_model(&m);
}
END_TEST

/* ---- what a model holds ---- */

START_TEST(counts_and_labels)
{
	const int labels[] = { 5, 7, 9 };
	const double w[] = { 1, 2, 3 };
	struct model *m = hand_model(L2R_LR, 3, labels, 1, -1, w, 3);
	ck_assert_int_eq(get_nr_feature(m), 1);
	ck_assert_int_eq(get_nr_class(m), 3);
	int got[3];
	get_labels(m, got);
	ck_assert(got[0] == 5 && got[1] == 7 && got[2] == 9);
	free_and_destroy_model(&m);

	m = hand_model(L2R_L2LOSS_SVR, 2, NULL, 1, -1, w, 1);
	int untouched[2] = { 11, 12 };
	get_labels(m, untouched);
	ck_assert(untouched[0] == 11 && untouched[1] == 12);
	ck_assert_int_eq(get_nr_class(m), 2);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(decfun_of_a_binary_model)
{
	const double w[] = { 0.5, -1, 3 };
	struct model *m = hand_model(L2R_LR, 2, pm_labels, 2, 1, w, 3);
	ck_assert(get_decfun_coef(m, 1, 0) == 0.5);
	ck_assert(get_decfun_coef(m, 1, 1) == -0.5);
	ck_assert(get_decfun_coef(m, 2, 0) == -1);
	ck_assert(get_decfun_coef(m, 1, 2) == 0);
	ck_assert(get_decfun_coef(m, 1, -1) == 0);
	ck_assert(get_decfun_coef(m, 0, 0) == 0);
	ck_assert(get_decfun_coef(m, 3, 0) == 0);	/* the bias index is not a feature */
	ck_assert(get_decfun_bias(m, 0) == 3);
	ck_assert(get_decfun_bias(m, 1) == -3);
	ck_assert(get_decfun_bias(m, 2) == 0);
	ck_assert(get_decfun_bias(m, -1) == 0);
	stderr_capture_start();
	double rho = get_decfun_rho(m);
	const char *err = stderr_capture_end();
	ck_assert(rho == 0);
	ck_assert_str_eq(err, "ERROR: get_decfun_rho can be called only for a one-class SVM model\n");
	m->bias = 0;	/* a zero bias contributes nothing */
	ck_assert(get_decfun_bias(m, 0) == 0);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(decfun_of_multiclass_and_crammer_singer_models)
{
	const int labels[] = { 5, 7, 9 };
	const double w[] = { 1, 2, 3, 4, 5, 6 };
	struct model *m = hand_model(L2R_L2LOSS_SVC, 3, labels, 1, 2, w, 6);
	ck_assert(get_decfun_coef(m, 1, 2) == 3);
	ck_assert(get_decfun_bias(m, 1) == 10);
	ck_assert(get_decfun_bias(m, 3) == 0);
	ck_assert(get_decfun_bias(m, -1) == 0);
	free_and_destroy_model(&m);

	const double cs[] = { -0.25, 0.25 };
	m = hand_model(MCSVM_CS, 2, pm_labels, 1, -1, cs, 2);
	ck_assert(get_decfun_coef(m, 1, 0) == -0.25);
	ck_assert(get_decfun_coef(m, 1, 1) == 0.25);	/* its own column, not -w */
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(decfun_of_regression_and_oneclass_ignore_label_idx)
{
	const double w[] = { 7, 8 };
	struct model *m = hand_model(L2R_L2LOSS_SVR_DUAL, 2, NULL, 1, 1, w, 2);
	ck_assert(get_decfun_coef(m, 1, 5) == 7);
	ck_assert(get_decfun_coef(m, 1, -1) == 7);
	ck_assert(get_decfun_bias(m, 9) == 8);
	free_and_destroy_model(&m);

	m = hand_model(ONECLASS_SVM, 2, NULL, 2, -1, w, 2);
	m->rho = 1.25;
	ck_assert(get_decfun_coef(m, 2, 3) == 8);
	ck_assert(get_decfun_rho(m) == 1.25);
	stderr_capture_start();
	double b = get_decfun_bias(m, 0);
	const char *err = stderr_capture_end();
	ck_assert(b == 0);
	ck_assert_str_eq(err, "ERROR: get_decfun_bias can not be called for a one-class SVM model\n");
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(model_kind_predicates)
{
	const int solvers[] = { 0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 21 };
	const int probability[] = { 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0 };
	const int regression[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0 };
	struct model m = {0};
	for (int i = 0; i < 12; i++) {
		m.param.solver_type = solvers[i];
		ck_assert_int_eq(check_probability_model(&m), probability[i]);
		ck_assert_int_eq(check_regression_model(&m), regression[i]);
		ck_assert_int_eq(check_oneclass_model(&m), solvers[i] == ONECLASS_SVM);
	}
}
END_TEST

/* ---- check_parameter ---- */

struct param_case {
	int solver;
	double eps, C, p, bias;
	int regularize_bias;
	bool init_sol, w_recalc;
	const char *message;	/* NULL: accepted */
};

#define REG_BIAS_ONLY "-R option supported only for solver L2R_LR, L2R_L2LOSS_SVC, " \
	"L1R_L2LOSS_SVC, L1R_LR, and L2R_L2LOSS_SVR"
#define NEED_B1 "To not regularize bias, must specify -B 1 along with -R"
#define INIT_ONLY "Initial-solution specification supported only for solvers L2R_LR, " \
	"L2R_L2LOSS_SVC, and L2R_L2LOSS_SVR"
#define RECALC_ONLY "Recalculating w in the end is only for dual solvers for " \
	"L2-regularized L1/L2-loss SVM"
#define ONECLASS_BIAS "prob->bias >=0, but this is ignored in ONECLASS_SVM"

/* Each row was run through upstream 2.50's check_parameter. */
static const struct param_case param_cases[] = {
	{ 0, 0.01, 1, 0.1, -1, 1, false, false, NULL },
	{ 0, 0, 1, 0.1, -1, 1, false, false, "eps <= 0" },
	{ 0, -1, -1, 0.1, -1, 1, false, false, "eps <= 0" },
	{ 0, 0.01, 0, 0.1, -1, 1, false, false, "C <= 0" },
	{ 11, 0.01, 1, -1, -1, 1, false, false, "p < 0" },
	{ 11, 0.01, 0, -1, -1, 1, false, false, "C <= 0" },
	{ 0, 0.01, 1, -1, -1, 1, false, false, NULL },
	{ 12, 0.01, 1, -1, -1, 1, false, false, NULL },
	{ 8, 0.01, 1, 0.1, -1, 1, false, false, "unknown solver type" },
	{ 8, 0, 1, 0.1, -1, 1, false, false, "eps <= 0" },
	{ -1, 0.01, 1, 0.1, -1, 1, false, false, "unknown solver type" },
	{ 8, 0.01, 1, 0.1, -1, 1, true, false, "unknown solver type" },
	{ 0, 0.01, 1, 0.1, -1, 0, false, false, NEED_B1 },
	{ 0, 0.01, 1, 0.1, 2, 0, false, false, NEED_B1 },
	{ 0, 0.01, 1, 0.1, 1.0000001, 0, false, false, NEED_B1 },
	{ 0, 0.01, 1, 0.1, 1, 0, false, false, NULL },
	{ 3, 0.01, 1, 0.1, 1, 0, false, false, REG_BIAS_ONLY },
	{ 8, 0.01, 1, 0.1, 1, 0, false, false, REG_BIAS_ONLY },
	{ 1, 0.01, 1, 0.1, 1, 0, true, false, REG_BIAS_ONLY },
	{ 3, 0.01, 1, 0.1, -1, 0, true, true, NEED_B1 },
	{ 21, 0.01, 1, 0.1, 0, 1, false, false, ONECLASS_BIAS },
	{ 21, 0.01, 1, 0.1, 1, 0, false, false, ONECLASS_BIAS },
	{ 21, 0.01, 1, 0.1, -1, 0, false, false, NEED_B1 },
	{ 21, 0.01, 1, 0.1, 1, 1, true, false, ONECLASS_BIAS },
	{ 21, 0.01, 1, 0.1, -1, 1, false, false, NULL },
	{ 1, 0.01, 1, 0.1, -1, 1, true, false, INIT_ONLY },
	{ 4, 0.01, 1, 0.1, -1, 1, true, false, INIT_ONLY },
	{ 21, 0.01, 1, 0.1, -1, 1, true, true, INIT_ONLY },
	{ 0, 0.01, 1, 0.1, -1, 1, true, false, NULL },
	{ 2, 0.01, 1, 0.1, -1, 1, true, false, NULL },
	{ 11, 0.01, 1, 0.1, -1, 1, true, false, NULL },
	{ 1, 0.01, 1, 0.1, -1, 1, false, true, NULL },
	{ 3, 0.01, 1, 0.1, -1, 1, false, true, NULL },
	{ 0, 0.01, 1, 0.1, -1, 1, false, true, RECALC_ONLY },
	{ 21, 0.01, 1, 0.1, -1, 1, false, true, RECALC_ONLY },
	{ 0, 0.01, 1, 0.1, -1, 1, true, true, RECALC_ONLY },
	{ 0, 0, 1, 0.1, -1, 1, false, true, "eps <= 0" },
	{ 0, NAN, NAN, 0.1, -1, 1, false, false, NULL },
	{ 21, 0.01, 1, 0.1, -1, 1, false, false, NULL },
};

START_TEST(check_parameter_messages_in_upstream_order)
{
	double sol[3] = { 0 };
	for (size_t i = 0; i < sizeof param_cases / sizeof param_cases[0]; i++) {
		const struct param_case *c = &param_cases[i];
		struct problem prob = { .l = 0, .n = 2, .bias = c->bias };
		struct parameter param = { .solver_type = c->solver, .eps = c->eps, .C = c->C,
			.p = c->p, .nu = 0.5, .regularize_bias = c->regularize_bias,
			.init_sol = c->init_sol ? sol : NULL, .w_recalc = c->w_recalc };
		const char *got = check_parameter(&prob, &param);
		if (c->message == NULL)
			ck_assert_msg(got == NULL, "case %zu: unexpected \"%s\"", i, got);
		else
			ck_assert_msg(got != NULL && strcmp(got, c->message) == 0,
				"case %zu: got \"%s\", want \"%s\"", i, got ? got : "(null)", c->message);
	}
}
END_TEST

/*
 * Ours (upstream 2.50 accepts every nu, then its solver writes out of
 * bounds): ONECLASS_SVM needs 0 < nu <= 1, NaN refused; the rule comes
 * after upstream's, and other solvers ignore nu as upstream does.
 */
START_TEST(check_parameter_refuses_nu_outside_0_1_for_oneclass)
{
	const double bad[] = { 0, -0.0, -1, 1.0000001, 2, 1e9, INFINITY, -INFINITY, NAN };
	const double good[] = { 1e-300, 0.001, 0.5, 1 };
	struct problem prob = { .l = 0, .n = 2, .bias = -1 };
	struct parameter param = { .solver_type = ONECLASS_SVM, .eps = 0.01, .C = 1, .p = 0.1,
		.regularize_bias = 1 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		param.nu = bad[i];
		const char *got = check_parameter(&prob, &param);
		ck_assert_msg(got != NULL && strcmp(got, "nu <= 0 or nu > 1") == 0,
			"nu %g: got \"%s\"", bad[i], got ? got : "(null)");
	}
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		param.nu = good[i];
		ck_assert_ptr_null(check_parameter(&prob, &param));
	}
	/* upstream's rules come first */
	param.nu = NAN;
	param.eps = 0;
	ck_assert_str_eq(check_parameter(&prob, &param), "eps <= 0");
	param.eps = 0.01;
	prob.bias = 1;
	ck_assert_str_eq(check_parameter(&prob, &param), ONECLASS_BIAS);
	/* nu means nothing to the other solvers */
	prob.bias = -1;
	param.solver_type = L2R_L2LOSS_SVC_DUAL;
	ck_assert_ptr_null(check_parameter(&prob, &param));
}
END_TEST

/* ---- releasing ---- */

START_TEST(release_functions_clear_pointers)
{
	struct parameter param = {0};
	param.weight_label = malloc(2 * sizeof(int));
	param.weight = malloc(2 * sizeof(double));
	param.init_sol = malloc(2 * sizeof(double));
	destroy_param(&param);
	ck_assert_ptr_null(param.weight_label);
	ck_assert_ptr_null(param.weight);
	ck_assert_ptr_null(param.init_sol);

	const double w[] = { 1 };
	struct model *m = hand_model(L2R_LR, 2, pm_labels, 1, -1, w, 1);
	free_model_content(m);
	ck_assert_ptr_null(m->w);
	ck_assert_ptr_null(m->label);
	free_and_destroy_model(&m);
	ck_assert_ptr_null(m);
	free_and_destroy_model(&m);	/* a second call is harmless */
	ck_assert_int_eq(liblinear_version, 250);
}
END_TEST

static Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *dec = tcase_create("decisions");
	tcase_add_test(dec, binary_decision_ignores_unknown_features);
	tcase_add_test(dec, bias_feature_is_the_row_after_the_features);
	tcase_add_test(dec, multiclass_takes_the_first_largest_value);
	tcase_add_test(dec, two_class_crammer_singer_gives_both_columns);
	tcase_add_test(dec, regression_returns_the_value);
	tcase_add_test(dec, oneclass_subtracts_rho_and_returns_plus_or_minus_one);
	suite_add_tcase(s, dec);
	TCase *prob = tcase_create("probabilities");
	tcase_add_test(prob, binary_probability_is_a_sigmoid);
	tcase_add_test(prob, multiclass_probability_normalises_one_vs_rest_sigmoids);
	tcase_add_test(prob, probability_only_for_logistic_models);
	suite_add_tcase(s, prob);
	TCase *held = tcase_create("model contents");
	tcase_add_test(held, counts_and_labels);
	tcase_add_test(held, decfun_of_a_binary_model);
	tcase_add_test(held, decfun_of_multiclass_and_crammer_singer_models);
	tcase_add_test(held, decfun_of_regression_and_oneclass_ignore_label_idx);
	tcase_add_test(held, model_kind_predicates);
	suite_add_tcase(s, held);
	TCase *params = tcase_create("parameters");
	tcase_add_test(params, check_parameter_messages_in_upstream_order);
	tcase_add_test(params, check_parameter_refuses_nu_outside_0_1_for_oneclass);
	tcase_add_test(params, release_functions_clear_pointers);
	suite_add_tcase(s, params);
	return s;
}

UNIT_MAIN(api_suite)
