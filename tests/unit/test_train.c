/*
 * test_train.c - the training driver: class grouping and label order as
 * upstream, per-class costs and the one-vs-rest scheme (checked bit for bit
 * against direct solver calls on the grouped rows), warnings, refusals,
 * bias handling, cross-validation folds and the parameter search.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include "unit.h"
#include "dual_fixtures.h"
#include "api_fixtures.h"
#include "linear.h"
#include "linear_rows.h"
#include "rng.h"
#include "solvers.h"

static void quiet(const char *s)
{
	(void)s;
}

static struct parameter dual_param(int solver, double C)
{
	struct parameter p = { .solver_type = solver, .eps = 0.1, .C = C, .p = 0.1, .nu = 0.5,
		.regularize_bias = 1 };
	return p;
}

/* A problem of l one-feature rows x_i = (i+1)/l with the given labels. */
struct tiny {
	struct feature_node nodes[64][2];
	struct feature_node *x[64];
	double y[64];
	struct problem prob;
};

static void tiny_make(struct tiny *t, const double *y, int l)
{
	ck_assert_int_le(l, 64);
	for (int i = 0; i < l; i++) {
		t->nodes[i][0] = (struct feature_node){ 1, (double)(i + 1) / l };
		t->nodes[i][1] = (struct feature_node){ -1, 0 };
		t->x[i] = t->nodes[i];
		t->y[i] = y[i];
	}
	t->prob = (struct problem){ .l = l, .n = 1, .y = t->y, .x = t->x, .bias = -1 };
}

static void assert_labels(const double *y, int l, const int *want, int nr_class)
{
	struct tiny t;
	tiny_make(&t, y, l);
	struct parameter param = dual_param(L2R_L1LOSS_SVC_DUAL, 1);
	struct model *m = train(&t.prob, &param);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nr_class, nr_class);
	for (int k = 0; k < nr_class; k++)
		ck_assert_int_eq(m->label[k], want[k]);
	free_and_destroy_model(&m);
}

START_TEST(labels_in_order_of_first_appearance)
{
	set_print_string_function(quiet);
	assert_labels((double[]){ 2, 1, 2, 3, 1 }, 5, (int[]){ 2, 1, 3 }, 3);
	assert_labels((double[]){ -1, 1, -1, 1 }, 4, (int[]){ 1, -1 }, 2);	/* the swap */
	assert_labels((double[]){ 1, -1, -1 }, 3, (int[]){ 1, -1 }, 2);
	assert_labels((double[]){ -1, 2, 2 }, 3, (int[]){ -1, 2 }, 2);	/* no swap */
	assert_labels((double[]){ -1, 1, 2 }, 3, (int[]){ -1, 1, 2 }, 3);
	assert_labels((double[]){ 1.5, -1, 2.7, -1.9 }, 4, (int[]){ 1, -1, 2 }, 3);
}
END_TEST

START_TEST(single_class_trains_all_positive)
{
	set_print_string_function(quiet);
	struct tiny t;
	tiny_make(&t, (double[]){ 3, 3, 3, 3 }, 4);
	struct parameter param = dual_param(L2R_L2LOSS_SVC_DUAL, 1);
	struct model *m = train(&t.prob, &param);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nr_class, 1);
	ck_assert_int_eq(m->label[0], 3);
	ck_assert(m->w[0] > 0);
	for (int i = 0; i < 4; i++)
		ck_assert(predict(m, t.x[i]) == 3);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(empty_problem_gives_an_empty_model)
{
	struct problem prob = { .l = 0, .n = 2, .y = NULL, .x = NULL, .bias = -1 };
	struct parameter param = dual_param(L2R_L2LOSS_SVC_DUAL, 1);
	struct model *m = train(&prob, &param);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nr_class, 0);
	ck_assert_int_eq(m->nr_feature, 2);
	char path[256];
	snprintf(path, sizeof path, "%s/empty.model", scratch_dir());
	ck_assert_int_eq(save_model(path, m), 0);
	char *text = slurp(path);
	ck_assert_str_eq(text, "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 0\nlabel\nnr_feature 2\n"
		"bias -1\nw\n\n\n");
	free(text);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(refuses_bad_labels_indices_and_solvers)
{
	set_print_string_function(quiet);
	struct tiny t;
	tiny_make(&t, (double[]){ 1, NAN, -1 }, 3);
	struct parameter param = dual_param(L2R_L2LOSS_SVC_DUAL, 1);
	stderr_capture_start();
	struct model *m = train(&t.prob, &param);
	const char *err = stderr_capture_end();
	ck_assert_ptr_null(m);
	ck_assert_str_eq(err, "ERROR: label nan of row 2 is not a valid class label\n");

	tiny_make(&t, (double[]){ 1, -1, -1 }, 3);
	t.nodes[1][0].index = 2;	/* past n = 1 */
	stderr_capture_start();
	m = train(&t.prob, &param);
	err = stderr_capture_end();
	ck_assert_ptr_null(m);
	ck_assert_str_eq(err, "ERROR: feature index 2 of row 2 is outside 1..1\n");
	t.nodes[1][0].index = 1;

	/* Below 1 too: 0, a negative index, the most negative int (which the
	 * check's unsigned wrap must still catch). */
	const int below[3] = { 0, -7, INT_MIN };
	for (int b = 0; b < 3; b++) {
		t.nodes[2][0].index = below[b];
		stderr_capture_start();
		m = train(&t.prob, &param);
		err = stderr_capture_end();
		ck_assert_ptr_null(m);
		char want[96];
		snprintf(want, sizeof want, "ERROR: feature index %d of row 3 is outside 1..1\n", below[b]);
		ck_assert_str_eq(err, want);
	}
	t.nodes[2][0].index = 1;

	param.solver_type = 8;
	stderr_capture_start();
	m = train(&t.prob, &param);
	err = stderr_capture_end();
	ck_assert_ptr_null(m);
	ck_assert_str_eq(err, "ERROR: unknown solver type 8\n");
}
END_TEST

START_TEST(warns_about_weights_for_absent_labels)
{
	set_print_string_function(quiet);
	struct tiny t;
	tiny_make(&t, (double[]){ 1, -1, 1, -1 }, 4);
	int wl[] = { 7, -1 };
	double wv[] = { 2, 0.5 };
	struct parameter param = dual_param(L2R_L2LOSS_SVC_DUAL, 1);
	param.nr_weight = 2;
	param.weight_label = wl;
	param.weight = wv;
	stderr_capture_start();
	struct model *m = train(&t.prob, &param);
	const char *err = stderr_capture_end();
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(err, "WARNING: class label 7 specified in weight is not found\n");
	/* train() keeps the caller's parameters, pointers included, as upstream. */
	ck_assert_ptr_eq(m->param.weight_label, wl);
	ck_assert(m->param.C == 1);
	free_and_destroy_model(&m);
}
END_TEST

/* ---- the driver's contract, bit for bit ---- */

/* heart_scale relabelled as the reference's heart3: 1 for +1, 2 if feature 2 is 1, else 3. */
static void make_heart3(struct fixture *f)
{
	for (int i = 0; i < f->l; i++) {
		bool f2 = false;
		for (const struct feature_node *x = f->x[i]; x->index != -1; x++)
			f2 |= x->index == 2 && x->value == 1;
		f->y[i] = f->y[i] > 0 ? 1 : f2 ? 2 : 3;
	}
}


/* Row indices of fixture rows grouped by class in the given label order. */
static int group_rows(const struct fixture *f, const int *labels, int nr_class, int *perm)
{
	int at = 0;
	for (int k = 0; k < nr_class; k++)
		for (int i = 0; i < f->l; i++)
			if ((int)f->y[i] == labels[k])
				perm[at++] = i;
	return at;
}

/* w of the class-k one-vs-rest (or binary) problem solved directly. */
static void direct_dual(const struct fixture *f, const int *labels, int nr_class, int k,
	double Cp, double Cn, bool l1_loss, double *w)
{
	int perm[1024];
	ck_assert_int_le(f->l, 1024);
	ck_assert_int_eq(group_rows(f, labels, nr_class, perm), f->l);
	struct row_set grouped;
	ck_assert_int_eq(rows_subset(&f->X, perm, f->l, &grouped), 0);
	double y[1024];
	for (int i = 0; i < f->l; i++)
		y[i] = (int)f->y[perm[i]] == labels[k] ? 1 : -1;
	struct rng g;
	rng_seed(&g, RNG_DEFAULT_SEED + (uint64_t)k);
	int status = solve_l2r_svc_dual(&grouped, y, Cp, Cn, l1_loss, 0.1, 300, false, &g, w);
	ck_assert_int_ge(status, 0);
	rows_free_subset(&grouped);
}

START_TEST(binary_costs_are_weighted_per_label)
{
	set_print_string_function(quiet);
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	/* Start at row 1 (label -1) so the -1/+1 swap is exercised too. */
	struct problem prob = { .l = f.l - 1, .n = f.n, .y = f.y + 1, .x = f.x + 1, .bias = -1 };
	struct fixture shifted = f;
	shifted.l = f.l - 1;
	shifted.y = f.y + 1;
	shifted.x = f.x + 1;
	shifted.X = rows_sparse(shifted.l, f.n, shifted.x);
	int wl[] = { -1, 1 };
	double wv[] = { 0.5, 2 };
	struct parameter param = dual_param(L2R_L2LOSS_SVC_DUAL, 0.75);
	param.nr_weight = 2;
	param.weight_label = wl;
	param.weight = wv;
	struct model *m = train(&prob, &param);
	ck_assert_ptr_nonnull(m);
	ck_assert(m->label[0] == 1 && m->label[1] == -1);
	double w[64];
	direct_dual(&shifted, m->label, 2, 0, 2 * 0.75, 0.5 * 0.75, false, w);
	for (int j = 0; j < f.n; j++)
		ck_assert_msg(m->w[j] == w[j], "w[%d] %.17g vs %.17g", j, m->w[j], w[j]);
	free_and_destroy_model(&m);
	fixture_free(&f);
}
END_TEST

START_TEST(one_vs_rest_uses_unweighted_C_for_the_rest)
{
	set_print_string_function(quiet);
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	make_heart3(&f);
	struct problem prob = { .l = f.l, .n = f.n, .y = f.y, .x = f.x, .bias = -1 };
	int wl[] = { 3, 2 };
	double wv[] = { 2, 0.5 };
	struct parameter param = dual_param(L2R_L1LOSS_SVC_DUAL, 1);
	param.nr_weight = 2;
	param.weight_label = wl;
	param.weight = wv;
	struct model *m = train(&prob, &param);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nr_class, 3);
	ck_assert(m->label[0] == 1 && m->label[1] == 3 && m->label[2] == 2);
	const double Cp[] = { 1, 2, 0.5 };
	for (int k = 0; k < 3; k++) {
		double w[64];
		direct_dual(&f, m->label, 3, k, Cp[k], 1, true, w);
		for (int j = 0; j < f.n; j++)
			ck_assert_msg(m->w[j * 3 + k] == w[j], "class %d w[%d] %.17g vs %.17g",
				k, j, m->w[j * 3 + k], w[j]);
	}
	free_and_destroy_model(&m);
	fixture_free(&f);
}
END_TEST

START_TEST(bias_is_the_last_feature_and_not_counted)
{
	set_print_string_function(quiet);
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	/* Rows with the bias node (n+1, 1) appended, as train's callers build them. */
	struct feature_node *rows[270];
	struct feature_node pool[270 * 16];
	ck_assert_int_eq(f.l, 270);
	size_t at = 0;
	for (int i = 0; i < f.l; i++) {
		rows[i] = pool + at;
		for (const struct feature_node *x = f.x[i]; x->index != -1; x++)
			pool[at++] = *x;
		pool[at++] = (struct feature_node){ f.n + 1, 1 };
		pool[at++] = (struct feature_node){ -1, 0 };
	}
	struct problem prob = { .l = f.l, .n = f.n + 1, .y = f.y, .x = rows, .bias = 1 };
	struct parameter param = dual_param(L2R_L2LOSS_SVC_DUAL, 1);
	struct model *m = train(&prob, &param);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nr_feature, f.n);
	ck_assert(m->bias == 1);
	ck_assert(get_decfun_bias(m, 0) == m->w[f.n]);
	ck_assert(m->w[f.n] != 0);
	free_and_destroy_model(&m);
	fixture_free(&f);
}
END_TEST

START_TEST(l1_loss_dual_at_its_cap_suggests_the_primal)
{
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	struct problem prob = { .l = f.l, .n = f.n, .y = f.y, .x = f.x, .bias = -1 };
	/* Upstream's -s 3 -c 1000 on heart_scale runs into the 300-iteration cap. */
	struct parameter param = dual_param(L2R_L1LOSS_SVC_DUAL, 1000);
	capture_start();
	struct model *m = train(&prob, &param);
	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(captured, "optimization finished, #iter = 300\n") != NULL, "%s", captured);
	ck_assert_ptr_nonnull(strstr(captured,
		"\nWARNING: reaching max number of iterations\nUsing -s 2 may be faster (also see FAQ)\n\n"));
	free_and_destroy_model(&m);
	fixture_free(&f);
}
END_TEST

/* The class-k problem solved directly by Newton on the grouped rows. */
static void direct_primal(const struct fixture *f, const int *labels, int nr_class, int k,
	double Cp, double Cn, enum l2r_loss loss, double eps, double *w)
{
	int perm[1024];
	ck_assert_int_eq(group_rows(f, labels, nr_class, perm), f->l);
	struct row_set grouped;
	ck_assert_int_eq(rows_subset(&f->X, perm, f->l, &grouped), 0);
	double y[1024], C[1024];
	int pos = 0;
	for (int i = 0; i < f->l; i++) {
		y[i] = (int)f->y[perm[i]] == labels[k] ? 1 : -1;
		C[i] = y[i] > 0 ? Cp : Cn;
		pos += y[i] > 0;
	}
	int smaller = pos < f->l - pos ? pos : f->l - pos;
	double scaled = eps * (smaller > 1 ? smaller : 1) / f->l;
	for (int j = 0; j < f->n; j++)
		w[j] = 0;
	ck_assert_int_ge(solve_l2r_primal(&grouped, y, C, loss, 0, 1, scaled, w), 0);
	rows_free_subset(&grouped);
}

START_TEST(primal_classifiers_scale_eps_by_the_smaller_class)
{
	set_print_string_function(quiet);
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	make_heart3(&f);
	struct problem prob = { .l = f.l, .n = f.n, .y = f.y, .x = f.x, .bias = -1 };
	int wl[] = { 2 };
	double wv[] = { 3 };
	struct parameter param = { .solver_type = L2R_LR, .eps = 0.01, .C = 0.5, .p = 0.1,
		.regularize_bias = 1, .nr_weight = 1, .weight_label = wl, .weight = wv };
	struct model *m = train(&prob, &param);
	ck_assert_ptr_nonnull(m);
	const double Cp[] = { 0.5, 0.5, 1.5 };	/* labels 1 3 2 */
	for (int k = 0; k < 3; k++) {
		double w[64];
		direct_primal(&f, m->label, 3, k, Cp[k], 0.5, L2R_LOSS_LR, 0.01, w);
		for (int j = 0; j < f.n; j++)
			ck_assert_msg(m->w[j * 3 + k] == w[j], "class %d w[%d]", k, j);
	}
	/* The reference's first w row of heart3 -s 0 (C = 1, no weights). */
	param.C = 1;
	param.nr_weight = 0;
	free_and_destroy_model(&m);
	m = train(&prob, &param);
	ck_assert_double_eq_tol(m->w[0], 0.35950028755298047, 1e-12);
	ck_assert_double_eq_tol(m->w[1], -0.856766343793813, 1e-12);
	ck_assert_double_eq_tol(m->w[2], -0.97330663071741519, 1e-12);
	free_and_destroy_model(&m);
	fixture_free(&f);
}
END_TEST

START_TEST(regression_trains_the_rows_as_given)
{
	set_print_string_function(quiet);
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	struct problem prob = { .l = f.l, .n = f.n, .y = f.y, .x = f.x, .bias = -1 };
	int wl[] = { 1 };
	double wv[] = { 5 };	/* ignored by regression, without a warning */
	struct parameter param = { .solver_type = L2R_L2LOSS_SVR, .eps = 0.0001, .C = 1,
		.p = 0.1, .regularize_bias = 1, .nr_weight = 1, .weight_label = wl, .weight = wv };
	stderr_capture_start();
	struct model *m = train(&prob, &param);
	const char *err = stderr_capture_end();
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nr_class, 2);
	ck_assert_ptr_null(m->label);
	double C[270], w[64] = { 0 };
	for (int i = 0; i < f.l; i++)
		C[i] = 1;
	ck_assert_int_ge(solve_l2r_primal(&f.X, f.y, C, L2R_LOSS_L2SVR, 0.1, 1, 0.0001, w), 0);
	for (int j = 0; j < f.n; j++)
		ck_assert(m->w[j] == w[j]);
	/* Upstream 2.50's -s 11 weights on heart_scale (reference Appendix A.1). */
	ck_assert_double_eq_tol(m->w[0], 0.074375228382131481, 1e-12);
	ck_assert_double_eq_tol(m->w[12], 0.23158151234178731, 1e-12);
	free_and_destroy_model(&m);
	fixture_free(&f);
}
END_TEST

START_TEST(init_sol_is_read_feature_major)
{
	set_print_string_function(quiet);
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	make_heart3(&f);
	struct problem prob = { .l = f.l, .n = f.n, .y = f.y, .x = f.x, .bias = -1 };
	struct parameter param = { .solver_type = L2R_L2LOSS_SVC, .eps = 0.01, .C = 1,
		.p = 0.1, .regularize_bias = 1 };
	struct model *m = train(&prob, &param);
	ck_assert_ptr_nonnull(m);
	/* Started at its own solution, every class is already optimal: no step. */
	param.init_sol = m->w;
	capture_start();
	struct model *again = train(&prob, &param);
	ck_assert_ptr_nonnull(again);
	ck_assert_ptr_null(strstr(captured, "iter  1"));
	for (int j = 0; j < 3 * f.n; j++)
		ck_assert(again->w[j] == m->w[j]);
	free_and_destroy_model(&again);
	free_and_destroy_model(&m);
	fixture_free(&f);
}
END_TEST

START_TEST(l2_loss_dual_at_its_cap_switches_to_the_primal)
{
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	struct problem prob = { .l = f.l, .n = f.n, .y = f.y, .x = f.x, .bias = -1 };
	int wl[] = { 1, -1 };
	double wv[] = { 2, 0.5 };
	/* Upstream's -s 1 -c 10 -w1 2 -w-1 0.5 on heart_scale switches to -s 2. */
	struct parameter param = dual_param(L2R_L2LOSS_SVC_DUAL, 10);
	param.nr_weight = 2;
	param.weight_label = wl;
	param.weight = wv;
	capture_start();
	struct model *m = train(&prob, &param);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(strstr(captured, "optimization finished, #iter = 300\n"));
	ck_assert_ptr_nonnull(strstr(captured,
		"\nWARNING: reaching max number of iterations\nSwitching to use -s 2\n\ninit f "));

	/* The same by hand: 300 dual iterations, then Newton at 0.1 eps scaled. */
	double w[64];
	direct_dual(&f, m->label, 2, 0, 20, 5, false, w);
	double y[270], C[270];
	int perm[270];
	group_rows(&f, m->label, 2, perm);
	struct row_set grouped;
	ck_assert_int_eq(rows_subset(&f.X, perm, f.l, &grouped), 0);
	for (int i = 0; i < f.l; i++) {
		y[i] = (int)f.y[perm[i]] == 1 ? 1 : -1;
		C[i] = y[i] > 0 ? 20 : 5;
	}
	ck_assert_int_ge(solve_l2r_primal(&grouped, y, C, L2R_LOSS_L2SVC, 0, 1,
		0.1 * 0.1 * 120 / 270, w), 0);
	rows_free_subset(&grouped);
	for (int j = 0; j < f.n; j++)
		ck_assert_msg(m->w[j] == w[j], "w[%d] %.17g vs %.17g", j, m->w[j], w[j]);
	int correct = 0;
	for (int i = 0; i < f.l; i++)
		correct += predict(m, f.x[i]) == f.y[i];
	ck_assert_int_eq(correct, 216);	/* upstream: 80% (216/270) */
	free_and_destroy_model(&m);
	fixture_free(&f);
}
END_TEST

/* ---- cross-validation ---- */

START_TEST(cross_validation_follows_its_folds)
{
	set_print_string_function(quiet);
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	struct problem prob = { .l = f.l, .n = f.n, .y = f.y, .x = f.x, .bias = -1 };
	struct parameter param = dual_param(L2R_L1LOSS_SVC_DUAL, 1);
	double target[270], again[270];
	cross_validation(&prob, &param, 5, target);
	cross_validation(&prob, &param, 5, again);
	ck_assert(memcmp(target, again, sizeof target) == 0);

	/* The folds: a seeded shuffle cut into blocks l*k/5; train on the rest in order. */
	int perm[270];
	for (int i = 0; i < f.l; i++)
		perm[i] = i;
	struct rng g;
	rng_seed(&g, RNG_DEFAULT_SEED);
	rng_shuffle_int(&g, perm, f.l);
	int correct = 0;
	for (int k = 0; k < 5; k++) {
		int begin = k * f.l / 5, end = (k + 1) * f.l / 5;
		struct feature_node *xs[270];
		double ys[270];
		int n = 0;
		for (int i = 0; i < f.l; i++)
			if (i < begin || i >= end) {
				xs[n] = f.x[perm[i]];
				ys[n++] = f.y[perm[i]];
			}
		struct problem sub = { .l = n, .n = f.n, .y = ys, .x = xs, .bias = -1 };
		struct model *m = train(&sub, &param);
		ck_assert_ptr_nonnull(m);
		for (int i = begin; i < end; i++)
			ck_assert(predict(m, f.x[perm[i]]) == target[perm[i]]);
		free_and_destroy_model(&m);
	}
	for (int i = 0; i < f.l; i++)
		correct += target[i] == f.y[i];
	/* Upstream's 5-fold CV accuracy on heart_scale with -s 3 is 81.1111%. */
	ck_assert_int_ge(correct, 210);
	ck_assert_int_le(correct, 232);
	fixture_free(&f);
}
END_TEST

START_TEST(cross_validation_with_too_many_or_too_few_folds)
{
	set_print_string_function(quiet);
	struct tiny t;
	tiny_make(&t, (double[]){ 1, -1, 1 }, 3);
	struct parameter param = dual_param(L2R_L2LOSS_SVC_DUAL, 1);
	double target[3];
	stderr_capture_start();
	cross_validation(&t.prob, &param, 5, target);
	const char *err = stderr_capture_end();
	ck_assert_str_eq(err, "WARNING: # folds > # data. Will use # folds = # data instead "
		"(i.e., leave-one-out cross validation)\n");
	for (int i = 0; i < 3; i++)
		ck_assert(target[i] == 1 || target[i] == -1);

	stderr_capture_start();
	cross_validation(&t.prob, &param, 1, target);
	err = stderr_capture_end();
	ck_assert_str_eq(err, "ERROR: n-fold cross validation needs n >= 2\n");
	for (int i = 0; i < 3; i++)
		ck_assert(isnan(target[i]));
}
END_TEST

START_TEST(parameter_search_only_for_newton_solvers)
{
	struct tiny t;
	tiny_make(&t, (double[]){ 1, -1, 1 }, 3);
	struct parameter param = dual_param(L2R_L2LOSS_SVC_DUAL, 1);
	double C = 0, p = 0, score = 0;
	stderr_capture_start();
	find_parameters(&t.prob, &param, 5, -1, -1, &C, &p, &score);
	const char *err = stderr_capture_end();
	ck_assert_str_eq(err, "Warm-start parameter search only available for -s 0, -s 2 and -s 11\n");
	ck_assert(isnan(C) && isnan(p) && isnan(score));
}
END_TEST

/* Runs find_parameters on heart_scale; the printed lines land in captured. */
static void search_heart(int solver, double start_C, double start_p, double *C, double *p,
	double *score)
{
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	struct problem prob = { .l = f.l, .n = f.n, .y = f.y, .x = f.x, .bias = -1 };
	struct parameter param = { .solver_type = solver, .eps = solver == L2R_L2LOSS_SVR ? 0.0001 : 0.01,
		.C = 1, .p = 0.1, .regularize_bias = 1 };
	capture_start();
	find_parameters(&prob, &param, 5, start_C, start_p, C, p, score);
	fixture_free(&f);
}

/* The log2c of the first line mentioning p (or of the first line at all). */
static double first_log2c(const char *p_field)
{
	const char *at = p_field ? strstr(captured, p_field) : captured;
	ck_assert_msg(at != NULL, "no %s", p_field);
	while (at > captured && at[-1] != '\n')
		at--;
	ck_assert(strncmp(at, "log2c=", 6) == 0);
	return strtod(at + 6, NULL);
}

START_TEST(search_starts_where_upstream_does)
{
	double C, p, score;
	search_heart(L2R_LR, -1, -1, &C, &p, &score);
	ck_assert(first_log2c(NULL) == -12);	/* upstream -C -s 0 */
	ck_assert(p == -1);
	ck_assert(score > 0.8 && score < 0.86);
	/* The walk ends by itself: fold models stop moving before C = 1024. */
	ck_assert_ptr_null(strstr(captured, "WARNING: maximum C reached."));
	char best_line[64];
	snprintf(best_line, sizeof best_line, "log2c=%7.2f\trate=%g\n", log2(C), 100 * score);
	ck_assert_msg(strstr(captured, best_line) != NULL, "%s", best_line);

	search_heart(L2R_L2LOSS_SVC, -1, -1, &C, &p, &score);
	ck_assert(first_log2c(NULL) == -13);	/* upstream -C */
}
END_TEST

START_TEST(svr_search_starts_each_p_where_upstream_does)
{
	double C, p, score;
	search_heart(L2R_L2LOSS_SVR, -1, -1, &C, &p, &score);
	/* Upstream 2.50's first log2c for p = 0.95, 0.90, ..., 0.00 on heart_scale. */
	const double upstream[20] = { -30, -28, -27, -26, -26, -25, -25, -24, -24, -24,
		-23, -23, -23, -23, -22, -22, -22, -22, -22, -22 };
	for (int i = 0; i < 20; i++) {
		char field[32];
		snprintf(field, sizeof field, "\tp=%7.2f\t", (19 - i) * 0.05);
		ck_assert_msg(first_log2c(field) == upstream[i], "p %s", field);
	}
	ck_assert(p >= 0 && p <= 0.95);
	ck_assert(score > 0.45 && score < 0.6);	/* upstream: 0.514862 */
}
END_TEST

START_TEST(svr_search_p_grid_and_caps_as_upstream)
{
	double C, p, score;
	/* p_i = i * (max|y| / 20): 0.3 rounds to 0.30000000000000004 > 0.3. */
	search_heart(L2R_L2LOSS_SVR, 100000, 0.3, &C, &p, &score);
	ck_assert_ptr_nonnull(strstr(captured, "log2c=  16.61\tp=   0.25\tMean squared error="));
	ck_assert(strncmp(captured, "log2c=  16.61\tp=   0.25\t", 24) == 0);
	ck_assert_ptr_nonnull(strstr(captured, "log2c=  19.61\tp=   0.25\tMean squared error="));
	ck_assert_ptr_nonnull(strstr(captured, "\nWARNING: maximum C reached.\nlog2c=  16.61\tp=   0.20\t"));
	ck_assert_ptr_null(strstr(captured, "log2c=  20.61"));
	search_heart(L2R_L2LOSS_SVR, 100000, 0.5, &C, &p, &score);
	ck_assert(strncmp(captured, "log2c=  16.61\tp=   0.50\t", 24) == 0);

	/* A start above the largest C is clamped to it. */
	search_heart(L2R_L2LOSS_SVC, 2000, -1, &C, &p, &score);
	ck_assert(strncmp(captured, "log2c=  10.00\trate=", 19) == 0);
	ck_assert_ptr_nonnull(strstr(captured, "\nWARNING: maximum C reached.\n"));
	ck_assert(C == 1024);
}
END_TEST

static Suite *train_suite(void)
{
	Suite *s = suite_create("train");
	TCase *classes = tcase_create("classes");
	tcase_set_timeout(classes, 60);
	tcase_add_test(classes, labels_in_order_of_first_appearance);
	tcase_add_test(classes, single_class_trains_all_positive);
	tcase_add_test(classes, empty_problem_gives_an_empty_model);
	tcase_add_test(classes, refuses_bad_labels_indices_and_solvers);
	tcase_add_test(classes, warns_about_weights_for_absent_labels);
	tcase_add_test(classes, binary_costs_are_weighted_per_label);
	tcase_add_test(classes, one_vs_rest_uses_unweighted_C_for_the_rest);
	tcase_add_test(classes, bias_is_the_last_feature_and_not_counted);
	tcase_add_test(classes, l1_loss_dual_at_its_cap_suggests_the_primal);
	tcase_add_test(classes, primal_classifiers_scale_eps_by_the_smaller_class);
	tcase_add_test(classes, regression_trains_the_rows_as_given);
	tcase_add_test(classes, init_sol_is_read_feature_major);
	tcase_add_test(classes, l2_loss_dual_at_its_cap_switches_to_the_primal);
	suite_add_tcase(s, classes);
	TCase *cv = tcase_create("cross-validation");
	tcase_set_timeout(cv, 60);
	tcase_add_test(cv, cross_validation_follows_its_folds);
	tcase_add_test(cv, cross_validation_with_too_many_or_too_few_folds);
	tcase_add_test(cv, parameter_search_only_for_newton_solvers);
	tcase_add_test(cv, search_starts_where_upstream_does);
	tcase_add_test(cv, svr_search_starts_each_p_where_upstream_does);
	tcase_add_test(cv, svr_search_p_grid_and_caps_as_upstream);
	suite_add_tcase(s, cv);
	return s;
}

UNIT_MAIN(train_suite)
