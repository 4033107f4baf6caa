/*
 * test_oneclass.c - the one-class SVM solver (-s 21) reaches the optimum:
 * hand-solved problems, feasible alphas read back from orthogonal rows, a
 * vanishing duality gap, rho, upstream's messages, results that do not
 * depend on the generator, and cell rows giving what their feature_node
 * form gives.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "linear.h"
#include "oneclass.h"
#include "solver_fixtures.h"
#include "solvers.h"

static double half_sqnorm(const double *w, int n)
{
	double s = 0;
	for (int j = 0; j < n; j++)
		s += w[j] * w[j];
	return 0.5 * s;
}

START_TEST(points_on_a_line_hand_solved)
{
	/*
	 * x = 4, 3, 2, 1: the mass nu*l goes to the smallest x. nu = 0.5: alphas
	 * 1 on x = 1, 2 (the start has them on 4, 3), w = 3, G = 3x, no free
	 * alpha, so rho = (min over alpha 0 + max over alpha 1) / 2 = (9 + 6) / 2.
	 * nu = 0.375: alpha 1 on x = 1 and 0.5 on x = 2, w = 2, rho = G(2) = 4.
	 */
	double a[4] = {4, 3, 2, 1};
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, 4, 1);
	const double nu[2] = {0.5, 0.375}, want_w[2] = {3, 2}, want_rho[2] = {7.5, 4};
	for (int c = 0; c < 2; c++) {
		double w, rho;
		struct rng g;
		rng_seed(&g, 1);
		start_capture();
		ck_assert_int_eq(solve_oneclass_svm(&X, nu[c], 1e-9, 1000, &g, &w, &rho), SOLVER_OK);
		ck_assert_double_eq_tol(w, want_w[c], 1e-9);
		ck_assert_double_eq_tol(rho, want_rho[c], 1e-9);
		ck_assert_double_eq_tol(printed_number("Objective value = "), 0.5 * want_w[c] * want_w[c], 1e-6);
		ck_assert_int_eq((int)printed_number("nSV = "), 2);
		ck_assert_double_eq_tol(printed_number("rho = "), want_rho[c], 1e-6);
	}
	set_print_string_function(NULL);
	free_rows(&d);
}
END_TEST

/* The lambda with sum_i min(1, lambda / q[i]) = total, by bisection. */
static double water_level(const double *q, int l, double total)
{
	double lo = 0, hi = 1;
	for (int i = 0; i < l; i++)
		hi = fmax(hi, q[i]);
	for (int it = 0; it < 200; it++) {
		double mid = 0.5 * (lo + hi), sum = 0;
		for (int i = 0; i < l; i++)
			sum += fmin(1, mid / q[i]);
		if (sum < total)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

START_TEST(orthogonal_rows_show_feasible_alphas)
{
	/*
	 * Row i = s_i e_i makes w_i = s_i alpha_i, so the alphas can be read
	 * back. The problem min 0.5 sum s_i^2 alpha_i^2 is solved by water
	 * filling: alpha_i = min(1, lambda / s_i^2), and rho = lambda.
	 * nu * l = 5.3 is not whole, so the start has a fractional alpha.
	 */
	enum { L = 10 };
	double a[L * L] = {0}, s[L], q[L], w[L], rho;
	for (int i = 0; i < L; i++) {
		s[i] = 0.4 + 0.37 * ((i * 7) % L);
		q[i] = s[i] * s[i];
		a[i * L + i] = s[i];
	}
	double nu = 0.53, lambda = water_level(q, L, nu * L);
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, L, L);
	struct rng g;
	rng_seed(&g, 4);
	start_capture();
	ck_assert_int_eq(solve_oneclass_svm(&X, nu, 1e-10, 1000, &g, w, &rho), SOLVER_OK);
	double sum = 0;
	for (int i = 0; i < L; i++) {
		double alpha = w[i] / s[i];
		/* (w_i / s_i only rounds back to alpha_i) */
		ck_assert_double_ge(alpha, -1e-12);
		ck_assert_double_le(alpha, 1 + 1e-12);
		ck_assert_double_eq_tol(alpha, fmin(1, lambda / q[i]), 1e-9);
		sum += alpha;
	}
	ck_assert_double_eq_tol(sum, nu * L, 1e-12);
	ck_assert_double_eq_tol(rho, lambda, 1e-9);
	set_print_string_function(NULL);
	free_rows(&d);
}
END_TEST

/* A random problem with all-positive means, as one-class data usually has. */
static double *random_problem(int l, int n, uint64_t seed)
{
	struct rng g;
	rng_seed(&g, seed);
	double *a = calloc((size_t)l * (size_t)n, sizeof *a);
	ck_assert(a);
	for (int i = 0; i < l; i++)
		for (int j = 0; j < n; j++)
			if (rng_unit(&g) < 0.6)
				a[i * n + j] = 1 + rng_unit(&g) - 0.5 * j / n;
	return a;
}

START_TEST(random_problems_close_duality_gap)
{
	/*
	 * The primal of this dual is min 0.5 ||w||^2 - nu l rho +
	 * sum_i max(0, rho - w.x_i); weak duality makes it >= -0.5 ||w||^2 at
	 * any feasible alpha, with equality at the optimum.
	 */
	enum { L = 80, N = 7 };
	double *a = random_problem(L, N, 17);
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, L, N);
	const double nus[4] = {0.02, 0.1, 0.5, 0.85};
	for (int c = 0; c < 4; c++) {
		double w[N], rho;
		struct rng g;
		rng_seed(&g, 1);
		start_capture();
		ck_assert_int_eq(solve_oneclass_svm(&X, nus[c], 1e-9, 1000, &g, w, &rho), SOLVER_OK);
		double dual = half_sqnorm(w, N);
		double p = dual - nus[c] * L * rho;
		for (int i = 0; i < L; i++)
			p += fmax(0, rho - rows_dot(&X, i, w));
		ck_assert_double_ge(p + dual, -1e-6 * (1 + dual));
		ck_assert_double_le(p + dual, 1e-6 * (1 + dual));
		ck_assert_double_eq_tol(printed_number("Objective value = "), dual, 1e-6 * (1 + dual));
	}
	set_print_string_function(NULL);
	free_rows(&d);
	free(a);
}
END_TEST

START_TEST(generator_only_picks_pivots)
{
	enum { L = 200, N = 5 };
	double *a = random_problem(L, N, 23);
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, L, N);
	double w1[N], w2[N], rho1, rho2;
	struct rng g;
	start_capture();
	rng_seed(&g, 1);
	solve_oneclass_svm(&X, 0.2, 0.01, 1000, &g, w1, &rho1);
	char first[sizeof printed];
	strcpy(first, printed);
	start_capture();
	rng_seed(&g, 99);
	solve_oneclass_svm(&X, 0.2, 0.01, 1000, &g, w2, &rho2);
	ck_assert_int_eq(memcmp(w1, w2, sizeof w1), 0);
	ck_assert(rho1 == rho2);
	ck_assert_str_eq(first, printed);
	set_print_string_function(NULL);
	free_rows(&d);
	free(a);
}
END_TEST

START_TEST(many_tied_rows_close_gap_whatever_the_seed)
{
	/*
	 * 1500 rows, each of 300 distinct rows five times: many equal
	 * gradients, so the working set's order rests on the row index, and
	 * each pass sorts a hundred or more candidates (its quicksort, not
	 * only the insertion of short runs). The optimum must be reached and
	 * the seed, which only picks pivots, must not change a bit.
	 */
	enum { DISTINCT = 300, COPIES = 5, L = DISTINCT * COPIES, N = 6 };
	double *base = random_problem(DISTINCT, N, 29);
	double *a = malloc(sizeof(double) * L * N);
	ck_assert_ptr_nonnull(a);
	for (int i = 0; i < L; i++)
		memcpy(a + (size_t)i * N, base + (size_t)(i % DISTINCT) * N, sizeof(double) * N);
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, L, N);
	double w1[N], w2[N], rho1, rho2;
	struct rng g;
	start_capture();
	rng_seed(&g, 3);
	ck_assert_int_eq(solve_oneclass_svm(&X, 0.3, 1e-8, 1000, &g, w1, &rho1), SOLVER_OK);
	double dual = half_sqnorm(w1, N);
	double p = dual - 0.3 * L * rho1;
	for (int i = 0; i < L; i++)
		p += fmax(0, rho1 - rows_dot(&X, i, w1));
	ck_assert_double_le(fabs(p + dual), 1e-6 * (1 + dual));
	rng_seed(&g, 12345);
	solve_oneclass_svm(&X, 0.3, 1e-8, 1000, &g, w2, &rho2);
	ck_assert_int_eq(memcmp(w1, w2, sizeof w1), 0);
	ck_assert(rho1 == rho2);
	set_print_string_function(NULL);
	free_rows(&d);
	free(a);
	free(base);
}
END_TEST

START_TEST(nu_one_keeps_every_alpha_at_one)
{
	/* Nothing can move: upstream stops at #iter = 0 and prints rho = inf. */
	enum { L = 6, N = 3 };
	double *a = random_problem(L, N, 5);
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, L, N);
	double w[N], rho, sum[N] = {0};
	struct rng g;
	rng_seed(&g, 1);
	start_capture();
	ck_assert_int_eq(solve_oneclass_svm(&X, 1, 0.01, 1000, &g, w, &rho), SOLVER_OK);
	for (int i = 0; i < L; i++)
		for (int j = 0; j < N; j++)
			sum[j] += a[i * N + j];
	for (int j = 0; j < N; j++)
		ck_assert_double_eq_tol(w[j], sum[j], 1e-12);
	ck_assert(isinf(rho) && rho > 0);
	const char *want = "\noptimization finished, #iter = 0\nObjective value = ";
	ck_assert_int_eq(strncmp(printed, want, strlen(want)), 0);
	ck_assert_ptr_nonnull(strstr(printed, "\nrho = inf\n"));
	set_print_string_function(NULL);
	free_rows(&d);
	free(a);
}
END_TEST

START_TEST(messages_and_iteration_cap)
{
	enum { L = 300, N = 6 };
	double *a = random_problem(L, N, 31);
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, L, N);
	double w[N], rho;
	struct rng g;
	rng_seed(&g, 1);
	start_capture();
	ck_assert_int_eq(solve_oneclass_svm(&X, 0.3, 1e-14, 10, &g, w, &rho), SOLVER_MAX_ITER);
	/* Upstream's one-class warning ends with an empty line. */
	ck_assert_ptr_nonnull(strstr(printed,
		".\noptimization finished, #iter = 10\n"
		"\nWARNING: reaching max number of iterations\n"
		"\nObjective value = "));

	rng_seed(&g, 1);
	start_capture();
	ck_assert_int_eq(solve_oneclass_svm(&X, 0.3, 0.01, 1000, &g, w, &rho), SOLVER_OK);
	ck_assert_ptr_null(strstr(printed, "WARNING"));
	char want_rho[64];
	snprintf(want_rho, sizeof want_rho, "\nrho = %f\n", rho);
	const char *tail = strstr(printed, "\nrho = ");
	ck_assert_ptr_nonnull(tail);
	ck_assert_str_eq(tail, want_rho);
	ck_assert_ptr_nonnull(strstr(printed, "\nnSV = "));
	set_print_string_function(NULL);
	free_rows(&d);
	free(a);
}
END_TEST

START_TEST(cell_rows_equal_sparse_rows)
{
	enum { L = 40, T = 4, PSI = 5, N = T * PSI };
	uint16_t cells[L * T];
	struct feature_node nodes[L][T + 1];
	struct feature_node *xs[L];
	double value = 1 / sqrt(T);
	struct rng g;
	rng_seed(&g, 19);
	for (int i = 0; i < L; i++) {
		for (int k = 0; k < T; k++) {
			uint16_t c = (uint16_t)rng_below(&g, PSI);
			cells[i * T + k] = c;
			nodes[i][k] = (struct feature_node){k * PSI + c + 1, value};
		}
		nodes[i][T].index = -1;
		xs[i] = nodes[i];
	}
	struct row_set sparse = rows_sparse(L, N, xs), c = {0};
	c.kind = ROWS_CELLS;
	c.l = L;
	c.n = N;
	c.t = T;
	c.psi = PSI;
	c.cell_value = value;
	c.cells16 = cells;
	c.bias = -1;

	double ws[N], wc[N], rho_s, rho_c;
	start_capture();
	rng_seed(&g, 2);
	ck_assert_int_eq(solve_oneclass_svm(&sparse, 0.3, 0.001, 1000, &g, ws, &rho_s), SOLVER_OK);
	rng_seed(&g, 2);
	ck_assert_int_eq(solve_oneclass_svm(&c, 0.3, 0.001, 1000, &g, wc, &rho_c), SOLVER_OK);
	for (int j = 0; j < N; j++)
		ck_assert_double_eq_tol(ws[j], wc[j], 1e-9);
	ck_assert_double_eq_tol(rho_s, rho_c, 1e-9);
	set_print_string_function(NULL);
}
END_TEST

/*
 * The solver itself survives any nu an API caller hands it (check_parameter
 * refuses them first in train): nu*l is clamped to [0, l], so nu >= 1
 * gives nu = 1's result (every alpha 1: w = 4 + 3 + 2 + 1) and nu <= 0 or
 * NaN an all-zero start (w = 0). Before the clamp, NaN, 1e9 and -1
 * indexed alpha far out of bounds.
 */
START_TEST(any_nu_stays_in_bounds)
{
	double a[4] = {4, 3, 2, 1};
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, 4, 1);
	const double nus[] = { 1e9, INFINITY, 2, 1.0000001, 0, -1, -1e9, -INFINITY, NAN };
	for (size_t c = 0; c < sizeof nus / sizeof nus[0]; c++) {
		double w = -123, rho;
		struct rng g;
		rng_seed(&g, 1);
		start_capture();
		int status = solve_oneclass_svm(&X, nus[c], 0.01, 1000, &g, &w, &rho);
		ck_assert_msg(status == SOLVER_OK, "nu %g: status %d", nus[c], status);
		ck_assert_msg(w == (nus[c] >= 1 ? 10 : 0), "nu %g: w %g", nus[c], w);
	}
	set_print_string_function(NULL);
	free_rows(&d);
}
END_TEST

static Suite *oneclass_suite(void)
{
	Suite *s = suite_create("oneclass");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, points_on_a_line_hand_solved);
	tcase_add_test(tc, orthogonal_rows_show_feasible_alphas);
	tcase_add_test(tc, random_problems_close_duality_gap);
	tcase_add_test(tc, generator_only_picks_pivots);
	tcase_add_test(tc, many_tied_rows_close_gap_whatever_the_seed);
	tcase_add_test(tc, nu_one_keeps_every_alpha_at_one);
	tcase_add_test(tc, messages_and_iteration_cap);
	tcase_add_test(tc, cell_rows_equal_sparse_rows);
	tcase_add_test(tc, any_nu_stays_in_bounds);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(oneclass_suite)
