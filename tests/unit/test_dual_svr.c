/*
 * test_dual_svr.c - the SVR dual coordinate descent solver (-s 12, -s 13)
 * meets the optimality conditions of its problem, reports what upstream
 * reports, and matches upstream's results on heart_scale.
 */
#include <stdbool.h>
#include <stdint.h>
#include "dual_fixtures.h"
#include "dual_svr.h"
#include "solvers.h"

struct svr_setup {
	double C;
	double p;
	bool l1_loss;
	double eps;
	int max_iter;
	uint64_t seed;
};

struct svr_run {
	double *w;
	double *beta;
	int status;
	char output[4096];
};

static struct svr_setup setup(double C, double p, bool l1_loss, double eps)
{
	struct svr_setup s = {C, p, l1_loss, eps, 100000, 1};
	return s;
}

static struct svr_run *run_svr(const struct fixture *f, struct svr_setup s)
{
	struct svr_run *r = malloc(sizeof *r);
	ck_assert(r != NULL);
	r->w = malloc((size_t)f->n * sizeof *r->w);
	r->beta = malloc((size_t)f->l * sizeof *r->beta);
	ck_assert(r->w && r->beta);
	struct rng g;
	rng_seed(&g, s.seed);
	capture_start();
	r->status = solve_l2r_svr_dual_beta(&f->X, f->y, s.C, s.p, s.l1_loss, s.eps, s.max_iter,
		&g, r->w, r->beta);
	set_print_string_function(NULL);
	snprintf(r->output, sizeof r->output, "%s", captured);
	return r;
}

static void free_run(struct svr_run *r)
{
	free(r->w);
	free(r->beta);
	free(r);
}

static double row_dot(const struct fixture *f, int i, const double *w)
{
	double d = 0;
	for (const struct feature_node *q = f->x[i]; q->index != -1; q++)
		d += w[q->index - 1] * q->value;
	return d;
}

static double *beta_to_w(const struct fixture *f, const double *beta)
{
	double *w = calloc((size_t)f->n, sizeof *w);
	ck_assert(w != NULL);
	for (int i = 0; i < f->l; i++)
		for (const struct feature_node *q = f->x[i]; q->index != -1; q++)
			w[q->index - 1] += beta[i] * q->value;
	return w;
}

static double diag(struct svr_setup s)
{
	return s.l1_loss ? 0 : 0.5 / s.C;
}

static double dual_objective(const struct fixture *f, struct svr_setup s, const double *beta)
{
	double *w = beta_to_w(f, beta);
	double v = 0.5 * dot_dense(w, w, f->n);
	for (int i = 0; i < f->l; i++)
		v += s.p * fabs(beta[i]) - f->y[i] * beta[i] + 0.5 * diag(s) * beta[i] * beta[i];
	free(w);
	return v;
}

static double primal_objective(const struct fixture *f, struct svr_setup s, const double *w)
{
	double v = 0.5 * dot_dense(w, w, f->n);
	for (int i = 0; i < f->l; i++) {
		double outside = fmax(0, fabs(row_dot(f, i, w) - f->y[i]) - s.p);
		v += s.C * (s.l1_loss ? outside : outside * outside);
	}
	return v;
}

/*
 * The largest distance from 0 to the subdifferential of the dual in
 * beta_i (restricted to the box), with w rebuilt from beta.
 */
static double max_violation(const struct fixture *f, struct svr_setup s, const double *beta)
{
	double *w = beta_to_w(f, beta);
	double upper = s.l1_loss ? s.C : INFINITY;
	double worst = 0;
	for (int i = 0; i < f->l; i++) {
		double g = row_dot(f, i, w) - f->y[i] + diag(s) * beta[i];
		double right = g + s.p, left = g - s.p;	/* one-sided slopes at beta = 0 */
		double v;
		if (beta[i] == 0)
			v = fmax(fmax(-right, left), 0);
		else if (beta[i] == upper)
			v = fmax(right, 0);
		else if (beta[i] == -upper)
			v = fmax(-left, 0);
		else
			v = fabs(beta[i] > 0 ? right : left);
		worst = fmax(worst, v);
	}
	free(w);
	return worst;
}

/*
 * Feasibility, w = sum beta x, small violations and the duality gap:
 * P(w) + D(beta) is a sum of nonnegative row terms, each at most
 * 2C v_i (L1 loss) or 2C v_i^2 (L2 loss) for row violation v_i.
 */
static void assert_optimal(const struct fixture *f, struct svr_setup s, const struct svr_run *r,
	double tol)
{
	ck_assert_int_eq(r->status, SOLVER_OK);
	double *w = beta_to_w(f, r->beta);
	for (int j = 0; j < f->n; j++)
		ck_assert_double_eq_tol(w[j], r->w[j], 1e-9);
	free(w);
	for (int i = 0; i < f->l; i++)
		if (s.l1_loss)
			ck_assert(fabs(r->beta[i]) <= s.C);
	double v = max_violation(f, s, r->beta);
	ck_assert_msg(v <= tol, "max violation %g > %g", v, tol);
	double bound = s.l1_loss ? 2 * s.C * f->l * v : 2 * s.C * f->l * v * v;
	double gap = primal_objective(f, s, r->w) + dual_objective(f, s, r->beta);
	ck_assert_msg(gap >= -1e-9 && gap <= bound + 1e-9, "gap %g, bound %g", gap, bound);
}

/* One point x = 2 with target y, p = 0.1. */
static struct svr_run *one_point(double y, struct svr_setup s)
{
	struct fixture f;
	const double x[] = {2};
	fixture_dense(&f, 1, 1, x, &y);
	struct svr_run *r = run_svr(&f, s);
	fixture_free(&f);
	return r;
}

START_TEST(one_point_l1_stops_at_tube_edge)
{
	/* min 0.5 w^2 + 10 max(0, |2w - 1| - 0.1): w = 0.45, beta = w / 2, dual -0.10125 */
	struct svr_run *r = one_point(1, setup(10, 0.1, true, 1e-12));
	ck_assert_int_eq(r->status, SOLVER_OK);
	ck_assert_double_eq_tol(r->w[0], 0.45, 1e-14);
	ck_assert_double_eq_tol(r->beta[0], 0.225, 1e-14);
	ck_assert_double_eq_tol(captured_double("Objective value = "), -0.10125, 1e-6);
	ck_assert_int_eq(captured_int("nSV = "), 1);
	free_run(r);
	r = one_point(-1, setup(10, 0.1, true, 1e-12));
	ck_assert_double_eq_tol(r->w[0], -0.45, 1e-14);
	ck_assert_double_eq_tol(r->beta[0], -0.225, 1e-14);
	free_run(r);
}
END_TEST

START_TEST(one_point_l1_at_bound)
{
	/* C = 0.1 caps beta: w = 0.2, primal 0.02 + 0.1 * 0.5 = 0.07 = -dual */
	struct svr_run *r = one_point(1, setup(0.1, 0.1, true, 1e-12));
	ck_assert_double_eq(r->beta[0], 0.1);
	ck_assert_double_eq_tol(r->w[0], 0.2, 1e-15);
	ck_assert_double_eq_tol(captured_double("Objective value = "), -0.07, 1e-6);
	free_run(r);
}
END_TEST

START_TEST(one_point_l2)
{
	/* min 0.5 w^2 + (0.9 - 2w)^2: w = 0.4, beta = 0.2, optimum 0.09 = -dual */
	struct svr_run *r = one_point(1, setup(1, 0.1, false, 1e-12));
	ck_assert_double_eq_tol(r->w[0], 0.4, 1e-14);
	ck_assert_double_eq_tol(r->beta[0], 0.2, 1e-14);
	ck_assert_double_eq_tol(captured_double("Objective value = "), -0.09, 1e-6);
	free_run(r);
}
END_TEST

START_TEST(one_point_inside_tube)
{
	/* |0 - 0.05| <= p: w = 0 already fits, nothing is a support vector */
	for (int l1 = 0; l1 <= 1; l1++) {
		struct svr_run *r = one_point(0.05, setup(1, 0.1, l1, 1e-12));
		ck_assert_int_eq(r->status, SOLVER_OK);
		ck_assert_double_eq(r->w[0], 0);
		ck_assert_double_eq(r->beta[0], 0);
		ck_assert_int_eq(captured_int("nSV = "), 0);
		free_run(r);
	}
}
END_TEST

START_TEST(zero_rows_l1)
{
	/* all-zero rows predict 0: outside the tube beta goes to +-C, inside it stays 0 */
	struct fixture f;
	const double x[] = {0, 0, 0, 2}, y[] = {1, -1, 0.05, 1};
	fixture_dense(&f, 4, 1, x, y);
	struct svr_setup s = setup(0.5, 0.1, true, 1e-12);
	struct svr_run *r = run_svr(&f, s);
	assert_optimal(&f, s, r, 1e-12);
	ck_assert_double_eq(r->beta[0], 0.5);
	ck_assert_double_eq(r->beta[1], -0.5);
	ck_assert_double_eq(r->beta[2], 0);
	ck_assert_double_eq_tol(r->w[0], 0.45, 1e-14);
	ck_assert_int_eq(captured_int("nSV = "), 3);
	free_run(r);
	fixture_free(&f);
}
END_TEST

START_TEST(random_problems_optimal)
{
	struct fixture f;
	fixture_random(&f, 300, 12, 0.5, LABELS_REAL, 31);
	const double ps[] = {0, 0.1, 0.5};
	for (int l1 = 0; l1 <= 1; l1++)
		for (int k = 0; k < 3; k++) {
			struct svr_setup s = setup(1, ps[k], l1, 1e-9);
			struct svr_run *r = run_svr(&f, s);
			assert_optimal(&f, s, r, 1e-6);
			free_run(r);
		}
	fixture_free(&f);
}
END_TEST

START_TEST(small_C_l1_has_bounded_rows)
{
	/* small C: many residuals stay outside the tube, their beta at +-C */
	struct fixture f;
	fixture_random(&f, 300, 12, 0.5, LABELS_REAL, 32);
	struct svr_setup s = setup(0.05, 0.05, true, 1e-9);
	struct svr_run *r = run_svr(&f, s);
	assert_optimal(&f, s, r, 1e-6);
	int at_upper = 0, at_lower = 0;
	for (int i = 0; i < f.l; i++) {
		at_upper += r->beta[i] == s.C;
		at_lower += r->beta[i] == -s.C;
	}
	ck_assert_int_gt(at_upper, 10);
	ck_assert_int_gt(at_lower, 10);
	free_run(r);
	fixture_free(&f);
}
END_TEST

START_TEST(printed_objective_is_dual)
{
	struct fixture f;
	fixture_random(&f, 300, 12, 0.5, LABELS_REAL, 33);
	for (int l1 = 0; l1 <= 1; l1++) {
		struct svr_setup s = setup(1, 0.1, l1, 0.1);
		struct svr_run *r = run_svr(&f, s);
		double printed = captured_double("Objective value = ");
		ck_assert_double_eq_tol(printed, dual_objective(&f, s, r->beta), 1e-6);
		int nsv = 0;
		for (int i = 0; i < f.l; i++)
			nsv += r->beta[i] != 0;
		ck_assert_int_eq(captured_int("nSV = "), nsv);
		ck_assert(primal_objective(&f, s, r->w) + printed >= -1e-6);
		free_run(r);
	}
	fixture_free(&f);
}
END_TEST

START_TEST(max_iter_stops_and_says_so)
{
	struct fixture f;
	fixture_random(&f, 300, 12, 0.5, LABELS_REAL, 34);
	struct svr_setup s = setup(1, 0.1, true, 1e-14);
	s.max_iter = 10;
	struct svr_run *r = run_svr(&f, s);
	ck_assert_int_eq(r->status, SOLVER_MAX_ITER);
	const char *head = ".\noptimization finished, #iter = 10\nObjective value = ";
	ck_assert_msg(strncmp(r->output, head, strlen(head)) == 0, "output: %.200s", r->output);
	free_run(r);
	fixture_free(&f);
}
END_TEST

START_TEST(output_format)
{
	struct fixture f;
	fixture_random(&f, 300, 12, 0.5, LABELS_REAL, 35);
	struct svr_run *r = run_svr(&f, setup(1, 0.1, true, 0.001));
	int iter = captured_int("#iter = ");
	char tail[256];
	snprintf(tail, sizeof tail, "\noptimization finished, #iter = %d\nObjective value = %lf\nnSV = %d\n",
		iter, captured_double("Objective value = "), captured_int("nSV = "));
	const char *at = strstr(r->output, "\noptimization");
	ck_assert_ptr_nonnull(at);
	ck_assert_str_eq(at, tail);
	int dots = 0;
	for (const char *q = r->output; q < at; q++) {
		ck_assert(*q == '.' || *q == '*');
		dots += *q == '.';
	}
	ck_assert_int_eq(dots, iter / 10);
	free_run(r);
	fixture_free(&f);
}
END_TEST

START_TEST(seed_determines_result)
{
	struct fixture f;
	fixture_random(&f, 300, 12, 0.5, LABELS_REAL, 36);
	struct svr_setup s = setup(1, 0.1, true, 0.1);
	struct svr_run *a = run_svr(&f, s);
	struct svr_run *b = run_svr(&f, s);
	ck_assert_mem_eq(a->w, b->w, (size_t)f.n * sizeof(double));
	ck_assert_str_eq(a->output, b->output);
	s.seed = 2;
	struct svr_run *c = run_svr(&f, s);
	ck_assert(memcmp(a->beta, c->beta, (size_t)f.l * sizeof(double)) != 0);
	free_run(a);
	free_run(b);
	free_run(c);
	fixture_free(&f);
}
END_TEST

START_TEST(cell_rows_match_sparse_rows)
{
	struct cell_fixture c;
	cell_fixture_fill(&c, 41, CELL_LABELS_REAL, true);
	for (int l1 = 0; l1 <= 1; l1++) {
		double w_sparse[CELL_ROWS_N], w_cell[CELL_ROWS_N];
		struct rng g1, g2;
		rng_seed(&g1, 3);
		rng_seed(&g2, 3);
		set_print_string_function(capture_append);
		ck_assert_int_eq(solve_l2r_svr_dual(&c.sparse, c.y, 1, 0.1, l1, 1e-6, 100000, &g1,
			w_sparse), SOLVER_OK);
		ck_assert_int_eq(solve_l2r_svr_dual(&c.cell, c.y, 1, 0.1, l1, 1e-6, 100000, &g2,
			w_cell), SOLVER_OK);
		set_print_string_function(NULL);
		for (int j = 0; j < CELL_ROWS_N; j++)
			ck_assert_double_eq_tol(w_sparse[j], w_cell[j], 1e-8);
	}
}
END_TEST

/*
 * heart_scale, C = 1, p = 0.1, eps = 0.1: upstream 2.50 prints these
 * (reference Appendix A). Under other rand() seeds upstream itself ends
 * between -98.48 and -98.74 (-s 12) and -107.12 and -107.76 (-s 13), so
 * other shuffles are held to that kind of spread.
 */
static void check_heart(bool l1_loss, double objective, double spread, int nsv)
{
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct svr_setup s = setup(1, 0.1, l1_loss, 0.1);
		s.seed = seed;
		struct svr_run *r = run_svr(&f, s);
		ck_assert_int_eq(r->status, SOLVER_OK);
		ck_assert_double_eq_tol(captured_double("Objective value = "), objective, spread);
		ck_assert_int_le(abs(captured_int("nSV = ") - nsv), 8);
		free_run(r);
	}
	fixture_free(&f);
}

START_TEST(heart_l2_loss_matches_upstream)
{
	check_heart(false, -98.740521, 0.3, 243);
}
END_TEST

START_TEST(heart_l1_loss_matches_upstream)
{
	check_heart(true, -107.523480, 0.8, 256);
}
END_TEST

START_TEST(heart_tight_optimum_matches_upstream)
{
	/* upstream -s 12 -e 0.00001: Objective value = -99.496548, nSV = 237 */
	struct fixture f;
	fixture_read_shared(&f, "heart/heart.all.xz");
	struct svr_run *r = run_svr(&f, setup(1, 0.1, false, 1e-5));
	ck_assert_int_eq(r->status, SOLVER_OK);
	ck_assert_double_eq_tol(captured_double("Objective value = "), -99.496548, 2e-6);
	ck_assert_int_eq(captured_int("nSV = "), 237);
	free_run(r);
	fixture_free(&f);
}
END_TEST

static Suite *dual_svr_suite(void)
{
	Suite *s = suite_create("dual_svr");
	TCase *hand = tcase_create("hand");
	tcase_add_test(hand, one_point_l1_stops_at_tube_edge);
	tcase_add_test(hand, one_point_l1_at_bound);
	tcase_add_test(hand, one_point_l2);
	tcase_add_test(hand, one_point_inside_tube);
	tcase_add_test(hand, zero_rows_l1);
	suite_add_tcase(s, hand);
	TCase *kkt = tcase_create("optimality");
	tcase_add_test(kkt, random_problems_optimal);
	tcase_add_test(kkt, small_C_l1_has_bounded_rows);
	tcase_add_test(kkt, printed_objective_is_dual);
	suite_add_tcase(s, kkt);
	TCase *beh = tcase_create("behaviour");
	tcase_add_test(beh, max_iter_stops_and_says_so);
	tcase_add_test(beh, output_format);
	tcase_add_test(beh, seed_determines_result);
	tcase_add_test(beh, cell_rows_match_sparse_rows);
	suite_add_tcase(s, beh);
	TCase *heart = tcase_create("heart");
	/* reads the shared data; allow for a loaded machine */
	tcase_set_timeout(heart, 60);
	tcase_add_test(heart, heart_l2_loss_matches_upstream);
	tcase_add_test(heart, heart_l1_loss_matches_upstream);
	tcase_add_test(heart, heart_tight_optimum_matches_upstream);
	suite_add_tcase(s, heart);
	return s;
}

UNIT_MAIN(dual_svr_suite)
