/*
 * test_mcsvm_cs.c - the Crammer-Singer solver (-s 4) reaches the optimum:
 * hand-solved problems, a vanishing duality gap on random data, the dual
 * constraints read back from orthogonal rows, upstream's messages,
 * determinism, and cell rows giving what their feature_node form gives.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "linear.h"
#include "mcsvm_cs.h"
#include "solver_fixtures.h"
#include "solvers.h"

/* Primal objective 0.5 ||W||^2 + sum_i C_{y_i} max(0, max_{m != y_i} 1 + (w_m - w_{y_i}).x_i). */
static double primal(const struct row_set *X, const int *y, int k, const double *C, const double *w)
{
	double p = 0;
	for (size_t j = 0; j < (size_t)X->n * (size_t)k; j++)
		p += 0.5 * w[j] * w[j];
	double dec[16];
	for (int i = 0; i < X->l; i++) {
		rows_decision(X, i, w, k, X->n, dec);
		double loss = 0;
		for (int m = 0; m < k; m++)
			if (m != y[i])
				loss = fmax(loss, 1 + dec[m] - dec[y[i]]);
		p += C[y[i]] * loss;
	}
	return p;
}

START_TEST(two_points_hand_solved)
{
	/*
	 * x = 1 in class 0, x = -1 in class 1. With u = w_0 - w_1 = -2 w_1 the
	 * problem is min u^2/4 + 2C max(0, 1 - u): u = 4C while 4C < 1, else 1.
	 */
	double a[2] = {1, -1};
	int y[2] = {0, 1};
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, 2, 1);
	const double costs[2] = {0.1, 1};
	const double want_w0[2] = {0.2, 0.5};
	const double want_obj[2] = {-0.16, -0.25};
	for (int c = 0; c < 2; c++) {
		double C[2] = {costs[c], costs[c]}, w[2];
		struct rng g;
		rng_seed(&g, 1);
		start_capture();
		ck_assert_int_eq(solve_mcsvm_cs(&X, y, 2, C, 1e-10, 1000, &g, w), SOLVER_OK);
		ck_assert_double_eq_tol(w[0], want_w0[c], 1e-9);
		ck_assert_double_eq_tol(w[1], -want_w0[c], 1e-9);
		ck_assert_double_eq_tol(printed_number("Objective value = "), want_obj[c], 1e-6);
		/* At C = 0.1 all four alphas sit at +-C; at C = 1 they are not unique. */
		if (c == 0)
			ck_assert_int_eq((int)printed_number("nSV = "), 4);
	}
	set_print_string_function(NULL);
	free_rows(&d);
}
END_TEST

START_TEST(orthogonal_three_classes_hand_solved)
{
	/*
	 * Row i = e_i in class i: each feature decouples into
	 * min 0.5 (a^2 + 2 b^2) s.t. a + b >= 1, so w_{i,i} = 2/3 and the other
	 * classes get -1/3; the dual objective is -(3 * 1/3) = -1.
	 */
	double a[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	int y[3] = {0, 1, 2};
	double C[3] = {1, 1, 1}, w[9];
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, 3, 3);
	struct rng g;
	rng_seed(&g, 5);
	start_capture();
	ck_assert_int_eq(solve_mcsvm_cs(&X, y, 3, C, 1e-12, 1000, &g, w), SOLVER_OK);
	for (int j = 0; j < 3; j++)
		for (int m = 0; m < 3; m++)
			ck_assert_double_eq_tol(w[j * 3 + m], m == j ? 2.0 / 3 : -1.0 / 3, 1e-9);
	ck_assert_double_eq_tol(printed_number("Objective value = "), -1, 1e-6);
	ck_assert_int_eq((int)printed_number("nSV = "), 9);
	set_print_string_function(NULL);
	free_rows(&d);
}
END_TEST

/* A random problem: l rows, n features (about half nonzero), k classes. */
static double *random_problem(int l, int n, int k, uint64_t seed, int *y)
{
	struct rng g;
	rng_seed(&g, seed);
	double *a = calloc((size_t)l * (size_t)n, sizeof *a);
	ck_assert(a);
	for (int i = 0; i < l; i++) {
		y[i] = (int)rng_below(&g, (uint64_t)k);
		for (int j = 0; j < n; j++)
			if (rng_unit(&g) < 0.5)
				a[i * n + j] = 2 * rng_unit(&g) - 1 + (j % k == y[i] ? 0.7 : 0);
	}
	return a;
}

START_TEST(random_problem_closes_duality_gap)
{
	enum { L = 60, N = 6, K = 4 };
	int y[L];
	double *a = random_problem(L, N, K, 11, y);
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, L, N);
	double C[K] = {1, 0.5, 2, 0.25}, w[N * K];
	struct rng g;
	rng_seed(&g, 3);
	start_capture();
	ck_assert_int_eq(solve_mcsvm_cs(&X, y, K, C, 1e-8, 100000, &g, w), SOLVER_OK);
	double dual = printed_number("Objective value = ");
	double p = primal(&X, y, K, C, w);
	/* Weak duality makes p + dual >= 0; at the optimum it is 0. */
	ck_assert_double_ge(p + dual, -1e-5);
	ck_assert_double_le(p + dual, 1e-5 * (1 + fabs(p)));
	/* Every feature's weights sum to 0, since each row's alphas do. */
	for (int j = 0; j < N; j++) {
		double sum = 0;
		for (int m = 0; m < K; m++)
			sum += w[j * K + m];
		ck_assert_double_eq_tol(sum, 0, 1e-9);
	}
	set_print_string_function(NULL);
	free_rows(&d);
	free(a);
}
END_TEST

START_TEST(bounded_rows_close_duality_gap)
{
	/*
	 * Noisy classes and a small C put most rows at alpha_i^{y_i} = C, where
	 * shrinking sets y_i itself aside and later sub-problems solve the
	 * other classes alone against the fixed C; the optimum must not move.
	 * Two classes (where each bounded row then retires) and five.
	 */
	enum { L = 200, N = 5 };
	const int ks[2] = {2, 5};
	for (int c = 0; c < 2; c++) {
		int k = ks[c], y[L];
		double *a = random_problem(L, N, k, 31 + (uint64_t)c, y);
		/*
		 * Flip a third of the labels: those rows cannot be fitted. A
		 * constant last feature leaves no row empty (an empty row keeps
		 * alpha = 0 and its loss C would open the gap).
		 */
		for (int i = 0; i < L; i++) {
			if (i % 3 == 0)
				y[i] = (y[i] + 1) % k;
			a[i * N + N - 1] = 1;
		}
		struct dense_rows d;
		struct row_set X = make_rows(&d, a, L, N);
		double C[5] = {0.05, 0.1, 0.05, 0.2, 0.05}, w[N * 5];
		struct rng g;
		rng_seed(&g, 4);
		start_capture();
		ck_assert_int_eq(solve_mcsvm_cs(&X, y, k, C, 1e-9, 100000, &g, w), SOLVER_OK);
		double dual = printed_number("Objective value = ");
		double p = primal(&X, y, k, C, w);
		ck_assert_double_ge(p + dual, -1e-6);
		ck_assert_double_le(p + dual, 1e-6 * (1 + fabs(p)));
		/* Most rows are bounded: nSV counts at least two alphas for each. */
		ck_assert_int_ge((int)printed_number("nSV = "), L);
		set_print_string_function(NULL);
		free_rows(&d);
		free(a);
	}
}
END_TEST

START_TEST(orthogonal_rows_show_feasible_alphas)
{
	/*
	 * Row i = s_i e_i makes w_{i,m} = s_i alpha_i^m, so the alphas can be
	 * read back: each row's sum to 0, alpha_i^m <= 0 off the row's class,
	 * and 0 <= alpha_i^{y_i} <= C_{y_i}. Each row's problem is also solved
	 * by hand: alpha_i^{y_i} = min(C, (k-1) / (k s_i^2)), the others
	 * sharing its negative equally.
	 */
	enum { L = 8, K = 5 };
	double a[L * L] = {0}, s[L], C[K] = {0.2, 0.5, 1, 2, 0.05}, w[L * K];
	int y[L];
	for (int i = 0; i < L; i++) {
		s[i] = 0.5 + 0.3 * i;
		a[i * L + i] = s[i];
		y[i] = i % K;
	}
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, L, L);
	struct rng g;
	rng_seed(&g, 8);
	start_capture();
	ck_assert_int_eq(solve_mcsvm_cs(&X, y, K, C, 1e-12, 1000, &g, w), SOLVER_OK);
	for (int i = 0; i < L; i++) {
		double sum = 0;
		double want = fmin(C[y[i]], (K - 1.0) / (K * s[i] * s[i]));
		for (int m = 0; m < K; m++) {
			double alpha = w[i * K + m] / s[i];
			sum += alpha;
			if (m == y[i]) {
				ck_assert_double_ge(alpha, 0);
				ck_assert_double_le(alpha, C[m] + 1e-12);
				ck_assert_double_eq_tol(alpha, want, 1e-9);
			} else {
				ck_assert_double_le(alpha, 0);
				ck_assert_double_eq_tol(alpha, -want / (K - 1), 1e-9);
			}
		}
		ck_assert_double_eq_tol(sum, 0, 1e-12);
	}
	set_print_string_function(NULL);
	free_rows(&d);
}
END_TEST

START_TEST(zero_row_is_left_alone)
{
	/* Upstream leaves a row with no features at alpha = 0 (ran: heart3 plus
	 * two empty rows gives the same objective); so must we. */
	enum { L = 30, N = 4, K = 3 };
	int y[L + 1];
	double *a = random_problem(L, N, K, 21, y);
	double *a0 = calloc((size_t)(L + 1) * N, sizeof *a0);
	ck_assert(a0);
	memcpy(a0, a, sizeof(double) * L * N);
	y[L] = 1;
	struct dense_rows d, d0;
	struct row_set X = make_rows(&d, a, L, N), X0 = make_rows(&d0, a0, L + 1, N);
	double C[K] = {1, 1, 1}, w[N * K], w0[N * K];
	struct rng g;
	start_capture();
	rng_seed(&g, 1);
	solve_mcsvm_cs(&X, y, K, C, 1e-10, 100000, &g, w);
	start_capture();
	rng_seed(&g, 1);
	solve_mcsvm_cs(&X0, y, K, C, 1e-10, 100000, &g, w0);
	for (int j = 0; j < N * K; j++)
		ck_assert_double_eq_tol(w[j], w0[j], 1e-6);
	set_print_string_function(NULL);
	free_rows(&d);
	free_rows(&d0);
	free(a);
	free(a0);
}
END_TEST

START_TEST(messages_and_iteration_cap)
{
	enum { L = 40, N = 5, K = 3 };
	int y[L];
	double *a = random_problem(L, N, K, 4, y);
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, L, N);
	double C[K] = {10, 10, 10}, w[N * K];
	struct rng g;
	rng_seed(&g, 1);
	start_capture();
	ck_assert_int_eq(solve_mcsvm_cs(&X, y, K, C, 1e-12, 20, &g, w), SOLVER_MAX_ITER);
	/* 20 passes print two dots; then upstream's lines, exactly. */
	ck_assert_ptr_nonnull(strstr(printed,
		"\noptimization finished, #iter = 20\n"
		"\nWARNING: reaching max number of iterations\n"
		"Objective value = "));
	ck_assert_ptr_nonnull(strstr(printed, "\nnSV = "));
	ck_assert_int_eq(printed[strlen(printed) - 1], '\n');

	rng_seed(&g, 1);
	start_capture();
	ck_assert_int_eq(solve_mcsvm_cs(&X, y, K, C, 0.1, 100000, &g, w), SOLVER_OK);
	ck_assert_ptr_null(strstr(printed, "WARNING"));
	ck_assert_ptr_nonnull(strstr(printed, "\noptimization finished, #iter = "));
	set_print_string_function(NULL);
	free_rows(&d);
	free(a);
}
END_TEST

START_TEST(same_seed_same_model)
{
	enum { L = 50, N = 6, K = 3 };
	int y[L];
	double *a = random_problem(L, N, K, 9, y);
	struct dense_rows d;
	struct row_set X = make_rows(&d, a, L, N);
	double C[K] = {1, 1, 1}, w1[N * K], w2[N * K], w3[N * K];
	struct rng g;
	start_capture();
	rng_seed(&g, 7);
	solve_mcsvm_cs(&X, y, K, C, 0.1, 100000, &g, w1);
	rng_seed(&g, 7);
	solve_mcsvm_cs(&X, y, K, C, 0.1, 100000, &g, w2);
	ck_assert_int_eq(memcmp(w1, w2, sizeof w1), 0);
	/* Another order reaches another point, with the same tight optimum. */
	rng_seed(&g, 7);
	solve_mcsvm_cs(&X, y, K, C, 1e-9, 100000, &g, w1);
	rng_seed(&g, 8);
	solve_mcsvm_cs(&X, y, K, C, 1e-9, 100000, &g, w3);
	ck_assert_double_eq_tol(primal(&X, y, K, C, w1), primal(&X, y, K, C, w3), 1e-6);
	set_print_string_function(NULL);
	free_rows(&d);
	free(a);
}
END_TEST

START_TEST(cell_rows_equal_sparse_rows)
{
	enum { L = 24, T = 3, PSI = 4, N = T * PSI + 1, K = 3 };
	uint16_t cells[L * T];
	struct feature_node nodes[L][T + 2];
	struct feature_node *xs[L];
	int y[L];
	double value = 1 / sqrt(T), bias = 1;
	struct rng g;
	rng_seed(&g, 13);
	for (int i = 0; i < L; i++) {
		y[i] = i % K;
		for (int k = 0; k < T; k++) {
			/* Cells lean toward the class, so the classes are learnable. */
			uint16_t c = (uint16_t)(rng_unit(&g) < 0.6 ? (uint64_t)y[i] : rng_below(&g, PSI));
			cells[i * T + k] = c;
			nodes[i][k] = (struct feature_node){k * PSI + c + 1, value};
		}
		nodes[i][T] = (struct feature_node){N, bias};
		nodes[i][T + 1].index = -1;
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
	c.bias = bias;

	double C[K] = {1, 2, 1}, ws[N * K], wc[N * K];
	start_capture();
	rng_seed(&g, 2);
	ck_assert_int_eq(solve_mcsvm_cs(&sparse, y, K, C, 0.01, 100000, &g, ws), SOLVER_OK);
	rng_seed(&g, 2);
	ck_assert_int_eq(solve_mcsvm_cs(&c, y, K, C, 0.01, 100000, &g, wc), SOLVER_OK);
	for (int j = 0; j < N * K; j++)
		ck_assert_double_eq_tol(ws[j], wc[j], 1e-9);
	set_print_string_function(NULL);
}
END_TEST

static Suite *mcsvm_cs_suite(void)
{
	Suite *s = suite_create("mcsvm_cs");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, two_points_hand_solved);
	tcase_add_test(tc, orthogonal_three_classes_hand_solved);
	tcase_add_test(tc, random_problem_closes_duality_gap);
	tcase_add_test(tc, bounded_rows_close_duality_gap);
	tcase_add_test(tc, orthogonal_rows_show_feasible_alphas);
	tcase_add_test(tc, zero_row_is_left_alone);
	tcase_add_test(tc, messages_and_iteration_cap);
	tcase_add_test(tc, same_seed_same_model);
	tcase_add_test(tc, cell_rows_equal_sparse_rows);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(mcsvm_cs_suite)
