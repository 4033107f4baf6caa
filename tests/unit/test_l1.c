/*
 * test_l1.c - the L1-regularised solvers (-s 5 CDN, -s 6 newGLMNET) reach
 * the optimum: closed-form 1-D answers, the subgradient conditions on
 * random problems, the unregularised bias, per-class costs, determinism,
 * cell rows equal to their sparse twin, and upstream's printed summary.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "l1_solvers.h"
#include "linear.h"
#include "rng.h"
#include "rows.h"

typedef int (*l1_solver)(const struct row_set *, const double *, double, double,
	double, int, struct rng *, double *);

enum loss { SQUARED_HINGE, LOGISTIC };

/* Up to 64 rows of up to 16 features, each row ended by index -1. */
struct problem_buf {
	int l, n;
	double y[64];
	struct feature_node nodes[64][17];
	struct feature_node *rows[64];
};

static struct row_set view(struct problem_buf *p)
{
	for (int i = 0; i < p->l; i++)
		p->rows[i] = p->nodes[i];
	return rows_sparse(p->l, p->n, p->rows);
}

/* Row i from a list of values for features 1..count (zeros skipped). */
static void set_row(struct problem_buf *p, int i, double y, const double *x, int count)
{
	int k = 0;
	for (int j = 0; j < count; j++)
		if (x[j] != 0) {
			p->nodes[i][k].index = j + 1;
			p->nodes[i][k].value = x[j];
			k++;
		}
	p->nodes[i][k].index = -1;
	p->y[i] = y;
}

/*
 * A random problem: features uniform in [-1, 1], each zero with
 * probability zero_share, labels from a noisy linear rule. With bias, the
 * last feature is 1.
 */
static void random_problem_zeros(struct problem_buf *p, int l, int features, bool bias,
	double zero_share, uint64_t seed)
{
	struct rng g;
	rng_seed(&g, seed);
	double truth[16];
	for (int j = 0; j < features; j++)
		truth[j] = j % 2 ? 0 : 2 * rng_unit(&g) - 1;
	p->l = l;
	p->n = features + (bias ? 1 : 0);
	for (int i = 0; i < l; i++) {
		double x[17], s = 0.3;
		for (int j = 0; j < features; j++) {
			x[j] = rng_unit(&g) < zero_share ? 0 : 2 * rng_unit(&g) - 1;
			s += truth[j] * x[j];
		}
		if (bias)
			x[features] = 1;
		set_row(p, i, s + 0.4 * (rng_unit(&g) - 0.5) > 0 ? 1 : -1, x, p->n);
	}
}

/* random_problem_zeros with about a third of the features zero. */
static void random_problem(struct problem_buf *p, int l, int features, bool bias, uint64_t seed)
{
	random_problem_zeros(p, l, features, bias, 0.35, seed);
}

/* q = p with every zero of features 1..n written out as a node of value 0. */
static void explicit_zeros(const struct problem_buf *p, struct problem_buf *q)
{
	q->l = p->l;
	q->n = p->n;
	for (int i = 0; i < p->l; i++) {
		const struct feature_node *f = p->nodes[i];
		for (int j = 1; j <= p->n; j++) {
			q->nodes[i][j - 1].index = j;
			q->nodes[i][j - 1].value = f->index == j ? (f++)->value : 0;
		}
		q->nodes[i][p->n].index = -1;
		q->y[i] = p->y[i];
	}
}

/* The loss part's gradient, written straight from the loss definitions. */
static void loss_gradient(const struct row_set *X, const double *y, double Cp, double Cn,
	enum loss loss, const double *w, double *grad)
{
	for (int j = 0; j < X->n; j++)
		grad[j] = 0;
	for (int i = 0; i < X->l; i++) {
		double C = y[i] > 0 ? Cp : Cn;
		double m = y[i] * rows_dot(X, i, w);
		double coef = loss == SQUARED_HINGE
			? (m < 1 ? -2 * C * (1 - m) * y[i] : 0)
			: -C * y[i] / (1 + exp(m));
		rows_axpy(X, i, coef, grad);
	}
}

static double objective(const struct row_set *X, const double *y, double Cp, double Cn,
	enum loss loss, int regularize_bias, const double *w)
{
	double f = 0;
	for (int j = 0; j < X->n; j++)
		if (regularize_bias || j != X->n - 1)
			f += fabs(w[j]);
	for (int i = 0; i < X->l; i++) {
		double C = y[i] > 0 ? Cp : Cn;
		double m = y[i] * rows_dot(X, i, w);
		f += loss == SQUARED_HINGE ? (m < 1 ? C * (1 - m) * (1 - m) : 0) : C * log1p(exp(-m));
	}
	return f;
}

/*
 * The optimality conditions of min |w|_1 + L(w): grad_j L = -sign(w_j)
 * where w_j != 0, |grad_j L| <= 1 where w_j = 0, and grad_j L = 0 for the
 * unregularised bias. Returns the largest violation.
 */
static double worst_violation(const struct row_set *X, const double *y, double Cp, double Cn,
	enum loss loss, int regularize_bias, const double *w)
{
	double grad[17], worst = 0;
	loss_gradient(X, y, Cp, Cn, loss, w, grad);
	for (int j = 0; j < X->n; j++) {
		double v;
		if (!regularize_bias && j == X->n - 1)
			v = fabs(grad[j]);
		else if (w[j] > 0)
			v = fabs(grad[j] + 1);
		else if (w[j] < 0)
			v = fabs(grad[j] - 1);
		else
			v = fmax(fabs(grad[j]) - 1, 0);
		worst = fmax(worst, v);
	}
	return worst;
}

static void quiet(const char *s)
{
	(void)s;
}

static int solve(l1_solver solver, const struct row_set *X, const double *y, double Cp,
	double Cn, double eps, int regularize_bias, uint64_t seed, double *w)
{
	struct rng g;
	rng_seed(&g, seed);
	set_print_string_function(quiet);
	int status = solver(X, y, Cp, Cn, eps, regularize_bias, &g, w);
	set_print_string_function(NULL);
	return status;
}

/* Two rows with feature value 1: y = +1 (cost Cp) and y = -1 (cost Cn). */
static struct row_set two_opposite_rows(struct problem_buf *p)
{
	double one = 1;
	p->l = 2;
	p->n = 1;
	set_row(p, 0, 1, &one, 1);
	set_row(p, 1, -1, &one, 1);
	return view(p);
}

START_TEST(svc_one_feature_by_hand)
{
	/* f = |w| + Cp (1-w)^2 + Cn (1+w)^2; for w > 0: w = (2Cp - 2Cn - 1) / (2Cp + 2Cn). */
	struct problem_buf p;
	struct row_set X = two_opposite_rows(&p);
	double w[1];
	ck_assert_int_eq(solve(solve_l1r_l2_svc, &X, p.y, 5, 1, 1e-10, 1, 1, w), SOLVER_OK);
	ck_assert_double_eq_tol(w[0], 7.0 / 12.0, 1e-9);
	/* Cp = 1, Cn = 0.75: the slopes at 0 are -2 + 1.5 +- 1, which bracket 0: w = 0. */
	solve(solve_l1r_l2_svc, &X, p.y, 1, 0.75, 1e-10, 1, 1, w);
	ck_assert(w[0] == 0);
}
END_TEST

START_TEST(lr_one_feature_by_hand)
{
	/* f = |w| + Cp log(1+e^-w) + Cn log(1+e^w); for w > 0: e^w = (Cp - 1) / (1 + Cn). */
	struct problem_buf p;
	struct row_set X = two_opposite_rows(&p);
	double w[1];
	ck_assert_int_eq(solve(solve_l1r_lr, &X, p.y, 5, 1, 1e-10, 1, 1, w), SOLVER_OK);
	ck_assert_double_eq_tol(w[0], log(2.0), 1e-7);
	/* Cp = 2, Cn = 1: the slope of the loss at 0 is -1 + 1/2, inside [-1, 1]: w = 0. */
	solve(solve_l1r_lr, &X, p.y, 2, 1, 1e-10, 1, 1, w);
	ck_assert(w[0] == 0);
}
END_TEST

/* Four positive rows and one negative, with only the bias feature (value 1). */
static struct row_set bias_only_rows(struct problem_buf *p)
{
	double one = 1;
	p->l = 5;
	p->n = 1;
	for (int i = 0; i < 5; i++)
		set_row(p, i, i < 4 ? 1 : -1, &one, 1);
	return view(p);
}

START_TEST(unregularised_bias_by_hand)
{
	struct problem_buf p;
	struct row_set X = bias_only_rows(&p);
	double w[1];
	/* -s 5: 4 (1-b)^2 + (1+b)^2 is least at b = 3/5; with |b| added, at b = 1/2. */
	solve(solve_l1r_l2_svc, &X, p.y, 1, 1, 1e-10, 0, 1, w);
	ck_assert_double_eq_tol(w[0], 0.6, 1e-9);
	solve(solve_l1r_l2_svc, &X, p.y, 1, 1, 1e-10, 1, 1, w);
	ck_assert_double_eq_tol(w[0], 0.5, 1e-9);
	/* -s 6: 4 log(1+e^-b) + log(1+e^b) is least at e^b = 4; with |b| added, at
	 * e^b = 3/2. */
	solve(solve_l1r_lr, &X, p.y, 1, 1, 1e-10, 0, 1, w);
	ck_assert_double_eq_tol(w[0], log(4.0), 1e-7);
	solve(solve_l1r_lr, &X, p.y, 1, 1, 1e-10, 1, 1, w);
	ck_assert_double_eq_tol(w[0], log(1.5), 1e-7);
}
END_TEST

/* Solves a random problem tightly and checks the subgradient conditions. */
static void check_optimal(l1_solver solver, enum loss loss, double Cp, double Cn,
	bool bias, int regularize_bias, uint64_t seed)
{
	struct problem_buf p;
	random_problem(&p, 60, 8, bias, seed);
	struct row_set X = view(&p);
	double w[17], zero[17] = {0};
	ck_assert_int_eq(solve(solver, &X, p.y, Cp, Cn, 1e-9, regularize_bias, 7, w), SOLVER_OK);
	double at_zero = worst_violation(&X, p.y, Cp, Cn, loss, regularize_bias, zero);
	double at_w = worst_violation(&X, p.y, Cp, Cn, loss, regularize_bias, w);
	ck_assert(at_zero > 1);
	ck_assert_double_le(at_w, 1e-6 * at_zero);
	/* The problem must exercise both cases: some weights at 0, some not. */
	int zeros = 0;
	for (int j = 0; j < X.n; j++)
		zeros += w[j] == 0;
	ck_assert_int_gt(zeros, 0);
	ck_assert_int_lt(zeros, X.n);
	if (bias && !regularize_bias)
		ck_assert(w[X.n - 1] != 0);
}

START_TEST(svc_subgradient_conditions)
{
	check_optimal(solve_l1r_l2_svc, SQUARED_HINGE, 0.1, 0.1, false, 1, 11);
	check_optimal(solve_l1r_l2_svc, SQUARED_HINGE, 0.15, 0.06, false, 1, 12);
	check_optimal(solve_l1r_l2_svc, SQUARED_HINGE, 0.1, 0.1, true, 1, 13);
	check_optimal(solve_l1r_l2_svc, SQUARED_HINGE, 0.07, 0.12, true, 0, 14);
}
END_TEST

START_TEST(svc_backtracking_reaches_optimum)
{
	/*
	 * Large costs make the Newton steps overshoot (the generalised second
	 * derivative counts only rows with positive slack, and a step pushes
	 * many rows across 0): the line search rejects exact trials, halves
	 * and accepts a later trial or a trial on the curvature bound, each
	 * time restoring or keeping the slacks it wrote. A slip there leaves
	 * r off the true slacks and the subgradient conditions unmet.
	 */
	struct problem_buf p;
	random_problem(&p, 64, 10, true, 41);
	struct row_set X = view(&p);
	const double costs[3] = {3, 10, 30};
	for (int c = 0; c < 3; c++) {
		double w[17], zero[17] = {0};
		ck_assert_int_eq(solve(solve_l1r_l2_svc, &X, p.y, costs[c], costs[c] / 2, 1e-8, 1, 5, w),
			SOLVER_OK);
		double at_zero = worst_violation(&X, p.y, costs[c], costs[c] / 2, SQUARED_HINGE, 1, zero);
		double at_w = worst_violation(&X, p.y, costs[c], costs[c] / 2, SQUARED_HINGE, 1, w);
		ck_assert_double_le(at_w, 1e-6 * at_zero);
	}
}
END_TEST

START_TEST(lr_subgradient_conditions)
{
	check_optimal(solve_l1r_lr, LOGISTIC, 0.4, 0.4, false, 1, 21);
	check_optimal(solve_l1r_lr, LOGISTIC, 0.6, 0.25, false, 1, 22);
	check_optimal(solve_l1r_lr, LOGISTIC, 0.4, 0.4, true, 1, 23);
	check_optimal(solve_l1r_lr, LOGISTIC, 0.3, 0.5, true, 0, 24);
}
END_TEST

START_TEST(same_seed_same_weights)
{
	struct problem_buf p;
	random_problem(&p, 60, 8, true, 31);
	struct row_set X = view(&p);
	l1_solver solvers[2] = {solve_l1r_l2_svc, solve_l1r_lr};
	for (int s = 0; s < 2; s++) {
		double a[17], b[17];
		solve(solvers[s], &X, p.y, 1, 1, 0.01, 1, 5, a);
		solve(solvers[s], &X, p.y, 1, 1, 0.01, 1, 5, b);
		ck_assert_mem_eq(a, b, sizeof(double) * (size_t)X.n);
	}
}
END_TEST

/*
 * -s 5 reads columns that list every row in passes fused with the next
 * coordinate's derivatives, and pads columns listing at least 3/4 of the
 * rows with zeros to get there. Zeros must change nothing: the same rows
 * with their zeros written out (every column full, all fused) give the
 * same weights to the last bit as with the zeros left out, both where the
 * columns list about 65% of the rows (neither padded nor fused) and about
 * 90% (padded, fused), with and without the bias, at costs large enough
 * for the line search to reject and restore trials.
 */
START_TEST(svc_explicit_zeros_change_nothing)
{
	const double shares[2] = {0.35, 0.1}, costs[3] = {0.5, 4, 30};
	for (int z = 0; z < 2; z++)
		for (int b = 0; b < 2; b++) {
			struct problem_buf p, q;
			random_problem_zeros(&p, 64, 12, b == 1, shares[z], 60 + (uint64_t)(2 * z + b));
			explicit_zeros(&p, &q);
			struct row_set X = view(&p), XZ = view(&q);
			for (int c = 0; c < 3; c++) {
				double w[17], wz[17];
				ck_assert_int_eq(solve(solve_l1r_l2_svc, &X, p.y, costs[c], costs[c] / 2,
					1e-6, b == 0, 7, w), SOLVER_OK);
				ck_assert_int_eq(solve(solve_l1r_l2_svc, &XZ, q.y, costs[c], costs[c] / 2,
					1e-6, b == 0, 7, wz), SOLVER_OK);
				ck_assert_mem_eq(w, wz, sizeof(double) * (size_t)X.n);
				int nonzero = 0;
				for (int j = 0; j < X.n; j++)
					nonzero += w[j] != 0;
				ck_assert_int_gt(nonzero, 1);
			}
		}
}
END_TEST

/*
 * Cell rows (t partitionings of psi cells, bias 1) and the same rows
 * written out as feature_nodes from rows.h's definition: the column views
 * are identical, so the weights must be identical to the last bit.
 */
START_TEST(cell_rows_match_sparse_rows)
{
	enum { L = 40, T = 3, PSI = 4, N = T * PSI + 1 };
	struct rng g;
	rng_seed(&g, 41);
	uint16_t cells[L * T];
	struct problem_buf p;
	p.l = L;
	p.n = N;
	double cell_value = 1 / sqrt((double)T);
	for (int i = 0; i < L; i++) {
		double x[N] = {0};
		for (int k = 0; k < T; k++) {
			cells[i * T + k] = (uint16_t)rng_below(&g, PSI);
			x[k * PSI + cells[i * T + k]] = cell_value;
		}
		x[N - 1] = 1;
		/* Labels depend on the cells so that the weights are not all zero. */
		double y = cells[i * T] < 2 ? 1 : -1;
		if (rng_unit(&g) < 0.15)
			y = -y;
		set_row(&p, i, y, x, N);
	}
	struct row_set sparse = view(&p);
	struct row_set cell = {0};
	cell.kind = ROWS_CELLS;
	cell.l = L;
	cell.n = N;
	cell.t = T;
	cell.psi = PSI;
	cell.cell_value = cell_value;
	cell.cells16 = cells;
	cell.bias = 1;

	l1_solver solvers[2] = {solve_l1r_l2_svc, solve_l1r_lr};
	for (int s = 0; s < 2; s++)
		for (int reg = 0; reg < 2; reg++) {
			double a[N], b[N];
			solve(solvers[s], &sparse, p.y, 2, 1, 0.001, reg, 9, a);
			solve(solvers[s], &cell, p.y, 2, 1, 0.001, reg, 9, b);
			ck_assert_mem_eq(a, b, sizeof a);
			int nonzero = 0;
			for (int j = 0; j < N - 1; j++)
				nonzero += a[j] != 0;
			ck_assert_int_gt(nonzero, 0);
		}
}
END_TEST

/* No rows at all, an empty row and a feature no row has: w stays 0 there. */
START_TEST(empty_rows_and_columns)
{
	struct problem_buf p;
	p.l = 0;
	p.n = 2;
	struct row_set X = view(&p);
	double w[3] = {5, 5, 5};
	ck_assert_int_eq(solve(solve_l1r_l2_svc, &X, p.y, 1, 1, 0.01, 1, 1, w), SOLVER_OK);
	ck_assert(w[0] == 0 && w[1] == 0);
	ck_assert_int_eq(solve(solve_l1r_lr, &X, p.y, 1, 1, 0.01, 1, 1, w), SOLVER_OK);
	ck_assert(w[0] == 0 && w[1] == 0);

	double a[3] = {2, 0, 1}, b[3] = {0, 0, 0}, c[3] = {-1, 0, 0.5};
	p.l = 3;
	p.n = 3;
	set_row(&p, 0, 1, a, 3);
	set_row(&p, 1, -1, b, 3);
	set_row(&p, 2, -1, c, 3);
	X = view(&p);
	l1_solver solvers[2] = {solve_l1r_l2_svc, solve_l1r_lr};
	enum loss losses[2] = {SQUARED_HINGE, LOGISTIC};
	for (int s = 0; s < 2; s++) {
		ck_assert_int_eq(solve(solvers[s], &X, p.y, 2, 2, 1e-9, 1, 1, w), SOLVER_OK);
		ck_assert(w[1] == 0);
		ck_assert(w[0] != 0);
		ck_assert_double_le(worst_violation(&X, p.y, 2, 2, losses[s], 1, w), 1e-6);
	}
}
END_TEST

/* Collects the printed progress so that its summary can be read back. */
static char printed[1 << 16];

static void capture(const char *s)
{
	strncat(printed, s, sizeof printed - strlen(printed) - 1);
}

static void check_summary(l1_solver solver, enum loss loss, const char *first_line)
{
	struct problem_buf p;
	random_problem(&p, 60, 8, false, 51);
	struct row_set X = view(&p);
	double w[17];
	struct rng g;
	rng_seed(&g, 1);
	printed[0] = '\0';
	set_print_string_function(capture);
	solver(&X, p.y, 1, 1, 0.01, 1, &g, w);
	set_print_string_function(NULL);

	ck_assert_ptr_nonnull(strstr(printed, first_line));
	const char *at = strstr(printed, "optimization finished, #iter = ");
	ck_assert_ptr_nonnull(at);
	double f;
	int nnz, n, iter;
	ck_assert_int_eq(sscanf(at, "optimization finished, #iter = %d\nObjective value = %lf\n"
		"#nonzeros/#features = %d/%d\n", &iter, &f, &nnz, &n), 4);
	ck_assert_int_gt(iter, 0);
	ck_assert_double_eq_tol(f, objective(&X, p.y, 1, 1, loss, 1, w), 1e-6 * f);
	int count = 0;
	for (int j = 0; j < X.n; j++)
		count += w[j] != 0;
	ck_assert_int_eq(nnz, count);
	ck_assert_int_eq(n, X.n);
}

START_TEST(prints_upstream_summary)
{
	check_summary(solve_l1r_l2_svc, SQUARED_HINGE, "\noptimization finished");
	check_summary(solve_l1r_lr, LOGISTIC, "iter   1  #CD cycles ");
	ck_assert_ptr_nonnull(strstr(printed, "=========================\noptimization finished"));
}
END_TEST

START_TEST(svc_reports_iteration_cap)
{
	/* eps = 0 is never met: 1000 passes, then upstream's warning. */
	struct problem_buf p;
	random_problem(&p, 60, 8, false, 61);
	struct row_set X = view(&p);
	double w[17];
	struct rng g;
	rng_seed(&g, 1);
	printed[0] = '\0';
	set_print_string_function(capture);
	int status = solve_l1r_l2_svc(&X, p.y, 1, 1, 0, 1, &g, w);
	set_print_string_function(NULL);
	ck_assert_int_eq(status, SOLVER_MAX_ITER);
	ck_assert_ptr_nonnull(strstr(printed, "optimization finished, #iter = 1000\n"
		"\nWARNING: reaching max number of iterations\n"));
}
END_TEST

static Suite *l1_suite(void)
{
	Suite *s = suite_create("l1");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, svc_one_feature_by_hand);
	tcase_add_test(tc, lr_one_feature_by_hand);
	tcase_add_test(tc, unregularised_bias_by_hand);
	tcase_add_test(tc, svc_subgradient_conditions);
	tcase_add_test(tc, svc_backtracking_reaches_optimum);
	tcase_add_test(tc, lr_subgradient_conditions);
	tcase_add_test(tc, same_seed_same_weights);
	tcase_add_test(tc, cell_rows_match_sparse_rows);
	tcase_add_test(tc, svc_explicit_zeros_change_nothing);
	tcase_add_test(tc, empty_rows_and_columns);
	tcase_add_test(tc, prints_upstream_summary);
	tcase_add_test(tc, svc_reports_iteration_cap);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(l1_suite)
