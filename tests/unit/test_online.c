/*
 * test_online.c - the online solver -s 30 (liblinear/online.c) against
 * small examples computed by hand: the exact weights after each row.
 * Every number below is a sum of halves, exact in binary floating point,
 * so the weights are compared with ==.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "linear.h"
#include "linear_rows.h"
#include "online.h"
#include "rows.h"
#include "unit.h"

static struct parameter ogd(double eta)
{
	struct parameter p;
	memset(&p, 0, sizeof p);
	p.solver_type = ONLINE_OGD;
	p.C = eta;
	p.eps = 0.1;
	p.regularize_bias = 1;
	return p;
}

/* Learns row i alone (one pass over a one-row view) so the weights can be checked after it. */
static void learn_one(struct model *m, const struct parameter *p, struct feature_node **x, int n,
	const double *y, int i)
{
	struct row_set one = rows_sparse(1, n, x + i);
	ck_assert_int_eq(online_learn(m, p, &one, y + i, 1, NULL), 0);
}

START_TEST(binary_update_rule_by_hand)
{
	/* rows: +1 (1,2); -1 (2,0); +1 (0,1); -1 (1,1); eta 0.5 */
	struct feature_node r1[] = { {1, 1}, {2, 2}, {-1, 0} }, r2[] = { {1, 2}, {-1, 0} },
		r3[] = { {2, 1}, {-1, 0} }, r4[] = { {1, 1}, {2, 1}, {-1, 0} };
	struct feature_node *x[] = { r1, r2, r3, r4 };
	double y[] = { 1, -1, 1, -1 };
	struct parameter p = ogd(0.5);
	struct model *m = online_model_new(2, -1, &p);
	ck_assert_ptr_nonnull(m);
	/* f = 0: hinge loss, w += 0.5 * (1,2) */
	learn_one(m, &p, x, 2, y, 0);
	ck_assert(m->w[0] == 0.5 && m->w[1] == 1.0);
	/* f = 1, y f = -1 < 1: w -= 0.5 * (2,0) */
	learn_one(m, &p, x, 2, y, 1);
	ck_assert(m->w[0] == -0.5 && m->w[1] == 1.0);
	/* f = 1, y f = 1: no loss, no change */
	learn_one(m, &p, x, 2, y, 2);
	ck_assert(m->w[0] == -0.5 && m->w[1] == 1.0);
	/* f = 0.5, y f = -0.5: w -= 0.5 * (1,1) */
	learn_one(m, &p, x, 2, y, 3);
	ck_assert(m->w[0] == -1.0 && m->w[1] == 0.5);
	ck_assert_int_eq(m->nr_class, 2);
	ck_assert_int_eq(m->label[0], 1);
	ck_assert_int_eq(m->label[1], -1);
	/* one pass of train_rows (the path of train -s 30) gives the same model */
	struct row_set all = rows_sparse(4, 2, x);
	struct model *t = train_rows(&all, y, -1, &p);
	ck_assert_ptr_nonnull(t);
	ck_assert(t->w[0] == -1.0 && t->w[1] == 0.5);
	free_and_destroy_model(&t);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(minus_one_first_swaps_to_plus_one_first)
{
	/* -1 (1,0) then +1 (0,2): +1 becomes label[0] and the column is negated */
	struct feature_node r1[] = { {1, 1}, {-1, 0} }, r2[] = { {2, 2}, {-1, 0} };
	struct feature_node *x[] = { r1, r2 };
	double y[] = { -1, 1 };
	struct parameter p = ogd(0.5);
	struct model *m = online_model_new(2, -1, &p);
	learn_one(m, &p, x, 2, y, 0);
	ck_assert(m->w[0] == 0.5 && m->w[1] == 0);	/* one class: -1 against nothing */
	learn_one(m, &p, x, 2, y, 1);
	ck_assert_int_eq(m->label[0], 1);
	ck_assert_int_eq(m->label[1], -1);
	ck_assert(m->w[0] == -0.5 && m->w[1] == 1.0);
	ck_assert(!signbit(m->w[1]) || m->w[1] != 0);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(third_label_joins_one_vs_rest)
{
	/* 1 (1,0); 2 (0,1); 3 (1,1): the third makes columns (w, -w, 0) first */
	struct feature_node r1[] = { {1, 1}, {-1, 0} }, r2[] = { {2, 1}, {-1, 0} },
		r3[] = { {1, 1}, {2, 1}, {-1, 0} };
	struct feature_node *x[] = { r1, r2, r3 };
	double y[] = { 1, 2, 3 };
	struct parameter p = ogd(0.5);
	struct model *m = online_model_new(2, -1, &p);
	learn_one(m, &p, x, 2, y, 0);
	ck_assert(m->w[0] == 0.5 && m->w[1] == 0);
	learn_one(m, &p, x, 2, y, 1);
	ck_assert(m->w[0] == 0.5 && m->w[1] == -0.5);
	learn_one(m, &p, x, 2, y, 2);
	ck_assert_int_eq(m->nr_class, 3);
	/* feature-major: feature 1 = (0, -1, 0.5), feature 2 = (-1, 0, 0.5) */
	double want[] = { 0, -1, 0.5, -1, 0, 0.5 };
	for (int j = 0; j < 6; j++)
		ck_assert_msg(m->w[j] == want[j], "w[%d] = %g, want %g", j, m->w[j], want[j]);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(kernel_cells_reproduce_the_papers_step)
{
	/* t = 4, psi = 2, cell value 1/2: phi.phi = K = shared cells / 4; eta 0.5 */
	uint16_t cells[] = { 0, 1, 0, 1, 0, 0, 1, 1 };
	struct row_set X = {0};
	X.kind = ROWS_CELLS;
	X.l = 2;
	X.t = 4;
	X.psi = 2;
	X.n = 8;
	X.cell_value = 0.5;
	X.cells16 = cells;
	X.bias = -1;
	double y[] = { 1, -1 };
	struct parameter p = ogd(0.5);
	struct model *m = online_model_new(8, -1, &p);
	struct row_set first = X;
	first.l = 1;
	ck_assert_int_eq(online_learn(m, &p, &first, y, 1, NULL), 0);
	double after1[] = { 0.25, 0, 0, 0.25, 0.25, 0, 0, 0.25 };	/* 0.5 * 1/2 each */
	for (int j = 0; j < 8; j++)
		ck_assert_msg(m->w[j] == after1[j], "row 1: w[%d] = %g", j, m->w[j]);
	struct row_set second = X;
	second.l = 1;
	second.cells16 = cells + 4;
	/* f = (0.25 + 0.25) / 2 = 0.25 = eta * K(x1, x2) = 0.5 * 2/4: the paper's f; -0.25 < 1 */
	double dec;
	rows_decision(&second, 0, m->w, 1, 8, &dec);
	ck_assert(dec == 0.25);
	ck_assert_int_eq(online_learn(m, &p, &second, y + 1, 1, NULL), 0);
	double after2[] = { 0, 0, -0.25, 0.25, 0.25, -0.25, 0, 0 };
	for (int j = 0; j < 8; j++)
		ck_assert_msg(m->w[j] == after2[j], "row 2: w[%d] = %g", j, m->w[j]);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(passes_and_determinism)
{
	struct feature_node r1[] = { {1, 1}, {2, 2}, {-1, 0} }, r2[] = { {1, 2}, {-1, 0} },
		r3[] = { {2, 1}, {-1, 0} }, r4[] = { {1, 1}, {2, 1}, {-1, 0} };
	struct feature_node *x[] = { r1, r2, r3, r4 };
	double y[] = { 1, -1, 1, -1 };
	struct parameter p = ogd(0.5);
	struct row_set all = rows_sparse(4, 2, x);
	struct model *a = online_train_rows(&all, y, -1, &p, 3);
	struct model *b = online_model_new(2, -1, &p);
	for (int pass = 0; pass < 3; pass++)
		ck_assert_int_eq(online_learn(b, &p, &all, y, 1, NULL), 0);
	ck_assert(a->w[0] == b->w[0] && a->w[1] == b->w[1]);
	free_and_destroy_model(&a);
	free_and_destroy_model(&b);
}
END_TEST

START_TEST(growing_features_keeps_the_bias_last)
{
	struct parameter p = ogd(0.5);
	struct model *m = online_model_new(1, 1, &p);
	struct feature_node r1[] = { {1, 1}, {2, 1}, {-1, 0} };	/* feature 1 and the bias node */
	struct feature_node *x[] = { r1 };
	double y[] = { 1 };
	struct row_set one = rows_sparse(1, 2, x);
	ck_assert_int_eq(online_learn(m, &p, &one, y, 1, NULL), 0);
	ck_assert(m->w[0] == 0.5 && m->w[1] == 0.5);
	ck_assert_int_eq(online_grow_features(m, 3), 0);
	ck_assert_int_eq(m->nr_feature, 3);
	ck_assert(m->w[0] == 0.5 && m->w[1] == 0 && m->w[2] == 0 && m->w[3] == 0.5);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(check_parameter_accepts_it_and_not_init_sol)
{
	struct feature_node r1[] = { {1, 1}, {-1, 0} };
	struct feature_node *x[] = { r1 };
	double y[] = { 1 };
	struct problem prob = { 1, 1, y, x, -1 };
	struct parameter p = ogd(0.5);
	ck_assert_ptr_null(check_parameter(&prob, &p));
	p.C = 0;
	ck_assert_str_eq(check_parameter(&prob, &p), "C <= 0");
	p.C = 0.5;
	double w0[] = { 0 };
	p.init_sol = w0;
	ck_assert_ptr_nonnull(check_parameter(&prob, &p));
}
END_TEST

static Suite *online_suite(void)
{
	Suite *s = suite_create("online");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, binary_update_rule_by_hand);
	tcase_add_test(tc, minus_one_first_swaps_to_plus_one_first);
	tcase_add_test(tc, third_label_joins_one_vs_rest);
	tcase_add_test(tc, kernel_cells_reproduce_the_papers_step);
	tcase_add_test(tc, passes_and_determinism);
	tcase_add_test(tc, growing_features_keeps_the_bias_last);
	tcase_add_test(tc, check_parameter_accepts_it_and_not_init_sol);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(online_suite)
