/*
 * test_newton.c - the primal Newton solver of -s 0, 2, 11.
 *
 * Expected values come from outside the solver: hand-solved 1-D problems,
 * bisection on the optimality condition, a dense gradient written here,
 * and finite differences of the objective.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "l2r_primal.h"
#include "linear.h"
#include "rng.h"
#include "solvers.h"

/* ---- captured progress output ---- */

static char captured[1 << 16];

static void capture(const char *s)
{
	size_t used = strlen(captured);
	snprintf(captured + used, sizeof captured - used, "%s", s);
}

static void start_capture(void)
{
	captured[0] = 0;
	set_print_string_function(capture);
}

static void stop_capture(void)
{
	set_print_string_function(NULL);
}

/* ---- a small problem kept both dense (for checking) and as rows ---- */

struct test_problem {
	int l, n;
	double *dense;			/* l*n, row-major */
	double *y, *C;
	struct feature_node *pool;
	struct feature_node **rows;
	struct row_set X;
};

static void problem_build_rows(struct test_problem *p)
{
	p->pool = malloc((size_t)p->l * (size_t)(p->n + 1) * sizeof *p->pool);
	p->rows = malloc((size_t)p->l * sizeof *p->rows);
	ck_assert(p->pool && p->rows);
	struct feature_node *f = p->pool;
	for (int i = 0; i < p->l; i++) {
		p->rows[i] = f;
		for (int j = 0; j < p->n; j++) {
			double v = p->dense[(size_t)i * p->n + j];
			if (v != 0) {
				f->index = j + 1;
				f->value = v;
				f++;
			}
		}
		f->index = -1;
		f++;
	}
	p->X = rows_sparse(p->l, p->n, p->rows);
}

static struct test_problem problem_from(int l, int n, const double *dense, const double *y,
	const double *C)
{
	struct test_problem p;
	p.l = l;
	p.n = n;
	p.dense = malloc((size_t)l * n * sizeof *p.dense);
	p.y = malloc((size_t)l * sizeof *p.y);
	p.C = malloc((size_t)l * sizeof *p.C);
	ck_assert(p.dense && p.y && p.C);
	memcpy(p.dense, dense, (size_t)l * n * sizeof *p.dense);
	memcpy(p.y, y, (size_t)l * sizeof *p.y);
	memcpy(p.C, C, (size_t)l * sizeof *p.C);
	problem_build_rows(&p);
	return p;
}

/*
 * A random sparse problem: about 30% zeros, labels +-1 from a noisy
 * linear rule (or real targets for regression), costs in [0.5, 2).
 * With bias, the last column is all 1.
 */
static struct test_problem problem_random(int l, int n, bool regression, bool bias, uint64_t seed)
{
	struct rng g;
	rng_seed(&g, seed);
	struct test_problem p;
	p.l = l;
	p.n = n;
	p.dense = malloc((size_t)l * n * sizeof *p.dense);
	p.y = malloc((size_t)l * sizeof *p.y);
	p.C = malloc((size_t)l * sizeof *p.C);
	ck_assert(p.dense && p.y && p.C);
	for (int i = 0; i < l; i++) {
		double t = 0;
		for (int j = 0; j < n; j++) {
			double v = rng_unit(&g) < 0.3 ? 0 : 2 * rng_unit(&g) - 1;
			if (bias && j == n - 1)
				v = 1;
			p.dense[(size_t)i * n + j] = v;
			t += v * (j % 3 - 1);
		}
		t += 0.5 * (rng_unit(&g) - 0.5);
		p.y[i] = regression ? t : (t >= 0 ? 1 : -1);
		p.C[i] = 0.5 + 1.5 * rng_unit(&g);
	}
	problem_build_rows(&p);
	return p;
}

static void problem_free(struct test_problem *p)
{
	free(p->dense);
	free(p->y);
	free(p->C);
	free(p->pool);
	free(p->rows);
}

/* ---- the objective written out densely, independently of the solver ---- */

static double sigmoid(double t)
{
	return 1 / (1 + exp(-t));
}

/* d (C_i loss_i) / dz at z. */
static double dense_loss_derivative(enum l2r_loss loss, double y, double C, double p, double z)
{
	switch (loss) {
	case L2R_LOSS_LR:
		return -C * y * (1 - sigmoid(y * z));
	case L2R_LOSS_L2SVC:
		return y * z < 1 ? -2 * C * y * (1 - y * z) : 0;
	case L2R_LOSS_L2SVR:
		if (z - y > p)
			return 2 * C * (z - y - p);
		if (z - y < -p)
			return 2 * C * (z - y + p);
		return 0;
	}
	return 0;
}

static double dense_loss(enum l2r_loss loss, double y, double C, double p, double z)
{
	switch (loss) {
	case L2R_LOSS_LR:
		return C * log(1 + exp(-y * z));
	case L2R_LOSS_L2SVC:
		return y * z < 1 ? C * (1 - y * z) * (1 - y * z) : 0;
	case L2R_LOSS_L2SVR: {
		double e = fabs(z - y) - p;
		return e > 0 ? C * e * e : 0;
	}
	}
	return 0;
}

static double dense_z(const struct test_problem *pr, int i, const double *w)
{
	double z = 0;
	for (int j = 0; j < pr->n; j++)
		z += pr->dense[(size_t)i * pr->n + j] * w[j];
	return z;
}

static double dense_value(const struct test_problem *pr, enum l2r_loss loss, double p,
	int regularize_bias, const double *w)
{
	int n_reg = regularize_bias ? pr->n : pr->n - 1;
	double f = 0;
	for (int j = 0; j < n_reg; j++)
		f += 0.5 * w[j] * w[j];
	for (int i = 0; i < pr->l; i++)
		f += dense_loss(loss, pr->y[i], pr->C[i], p, dense_z(pr, i, w));
	return f;
}

static void dense_gradient(const struct test_problem *pr, enum l2r_loss loss, double p,
	int regularize_bias, const double *w, double *g)
{
	int n_reg = regularize_bias ? pr->n : pr->n - 1;
	for (int j = 0; j < pr->n; j++)
		g[j] = j < n_reg ? w[j] : 0;
	for (int i = 0; i < pr->l; i++) {
		double d = dense_loss_derivative(loss, pr->y[i], pr->C[i], p, dense_z(pr, i, w));
		for (int j = 0; j < pr->n; j++)
			g[j] += d * pr->dense[(size_t)i * pr->n + j];
	}
}

static double norm(int n, const double *v)
{
	double s = 0;
	for (int j = 0; j < n; j++)
		s += v[j] * v[j];
	return sqrt(s);
}

static int solve_quietly(const struct test_problem *pr, enum l2r_loss loss, double p,
	int regularize_bias, double eps, double *w)
{
	start_capture();
	int status = solve_l2r_primal(&pr->X, pr->y, pr->C, loss, p, regularize_bias, eps, w);
	stop_capture();
	return status;
}

static const enum l2r_loss all_losses[] = { L2R_LOSS_LR, L2R_LOSS_L2SVC, L2R_LOSS_L2SVR };

/* ---- known answers ---- */

START_TEST(svc_one_row_by_hand)
{
	/* 0.5 w^2 + (1 - w)^2 is least at w = 2/3 (f = 1/3). */
	double x = 1, y = 1, C = 1;
	struct test_problem pr = problem_from(1, 1, &x, &y, &C);
	double w = 0;
	start_capture();
	int status = solve_l2r_primal(&pr.X, pr.y, pr.C, L2R_LOSS_L2SVC, 0, 1, 1e-10, &w);
	stop_capture();
	ck_assert_int_eq(status, SOLVER_OK);
	ck_assert_double_eq_tol(w, 2.0 / 3, 1e-12);
	/* f(0) = 1, |g(0)| = 2; one exact Newton step reaches f = 1/3. */
	ck_assert_str_eq(strtok(captured, "\n"), "init f 1.000e+00 |g| 2.000e+00");
	const char *iter1 = strtok(NULL, "\n");
	ck_assert_ptr_nonnull(iter1);
	ck_assert(strncmp(iter1, "iter  1 f 3.333e-01 |g| ", 24) == 0);
	ck_assert(strstr(iter1, " CG   2 step_size 1.00e+00 ") != NULL);
	problem_free(&pr);
}
END_TEST

START_TEST(svr_two_rows_by_hand)
{
	/*
	 * p = 0.5, rows (x=1, y=2) and (x=1, y=1.2): at w = 1 the first has
	 * |w - 2| - p = 0.5 and gradient w - 2 (1.5 - w) = 0, the second lies
	 * inside the tube (|1 - 1.2| < 0.5) and adds nothing. So w* = 1.
	 */
	double x[2] = { 1, 1 }, y[2] = { 2, 1.2 }, C[2] = { 1, 1 };
	struct test_problem pr = problem_from(2, 1, x, y, C);
	double w = 0;
	ck_assert_int_eq(solve_quietly(&pr, L2R_LOSS_L2SVR, 0.5, 1, 1e-10, &w), SOLVER_OK);
	ck_assert_double_eq_tol(w, 1, 1e-12);
	problem_free(&pr);
}
END_TEST

START_TEST(lr_one_dimension_matches_bisection)
{
	double x[5] = { 0.5, -1, 2, 0.3, -0.2 }, y[5] = { 1, 1, -1, -1, 1 };
	double C[5] = { 1, 2, 0.5, 1.5, 1 };
	struct test_problem pr = problem_from(5, 1, x, y, C);
	/* f'(w) = w + sum C_i (sigma(y_i x_i w) - 1) y_i x_i is increasing. */
	double lo = -100, hi = 100;
	for (int k = 0; k < 200; k++) {
		double mid = 0.5 * (lo + hi), g;
		dense_gradient(&pr, L2R_LOSS_LR, 0, 1, &mid, &g);
		if (g > 0)
			hi = mid;
		else
			lo = mid;
	}
	/*
	 * f'' >= 1, so |w - w*| <= |f'(w)| <= eps |f'(0)| (= 1.575 eps). Much
	 * below eps = 1e-6, f stops changing in double precision.
	 */
	double w = 0;
	ck_assert_int_eq(solve_quietly(&pr, L2R_LOSS_LR, 0, 1, 1e-6, &w), SOLVER_OK);
	ck_assert_double_eq_tol(w, 0.5 * (lo + hi), 1.6e-6);
	problem_free(&pr);
}
END_TEST

/* ---- optimality on random problems ---- */

START_TEST(gradient_small_at_solution)
{
	enum l2r_loss loss = all_losses[_i];
	struct test_problem pr = problem_random(80, 9, loss == L2R_LOSS_L2SVR, false, 11 + _i);
	double *w = calloc(pr.n, sizeof *w), *g = malloc(pr.n * sizeof *g);
	double *zero = calloc(pr.n, sizeof *zero);
	ck_assert(w && g && zero);
	double eps = 1e-4;
	ck_assert_int_eq(solve_quietly(&pr, loss, 0.1, 1, eps, w), SOLVER_OK);
	dense_gradient(&pr, loss, 0.1, 1, zero, g);
	double g0 = norm(pr.n, g);
	dense_gradient(&pr, loss, 0.1, 1, w, g);
	ck_assert(g0 > 0);
	ck_assert_double_le(norm(pr.n, g), eps * g0);
	free(w);
	free(g);
	free(zero);
	problem_free(&pr);
}
END_TEST

START_TEST(many_rows_use_several_row_parts)
{
	/* Enough rows for more than one row part: the blocked sums must still be right. */
	enum l2r_loss loss = all_losses[_i];
	struct test_problem pr = problem_random(5000, 6, loss == L2R_LOSS_L2SVR, false, 5 + _i);
	struct l2r_objective o;
	ck_assert_int_eq(l2r_objective_init(&o, &pr.X, pr.y, pr.C, loss, 0.1, 1), 0);
	ck_assert_int_gt(o.parts.count, 1);
	l2r_objective_free(&o);

	double *w = calloc(pr.n, sizeof *w), *g = malloc(pr.n * sizeof *g);
	double *zero = calloc(pr.n, sizeof *zero);
	ck_assert(w && g && zero);
	double eps = 1e-5;
	ck_assert_int_eq(solve_quietly(&pr, loss, 0.1, 1, eps, w), SOLVER_OK);
	dense_gradient(&pr, loss, 0.1, 1, zero, g);
	double g0 = norm(pr.n, g);
	dense_gradient(&pr, loss, 0.1, 1, w, g);
	ck_assert_double_le(norm(pr.n, g), eps * g0);
	free(w);
	free(g);
	free(zero);
	problem_free(&pr);
}
END_TEST

/* ---- the objective's pieces against the dense formulas and finite differences ---- */

/*
 * diag(H) is summed with the gradient, in the same pass over the rows,
 * and X v, H v take two rows' dot products side by side: both must give
 * exactly what the separate sums give. With one row group (40 rows) and
 * several (5000 rows: partial vectors for both sums), for each loss.
 */
START_TEST(fused_sums_equal_separate_sums)
{
	enum l2r_loss loss = all_losses[_i % 3];
	int l = _i < 3 ? 40 : 5000;
	struct test_problem pr = problem_random(l, 6, loss == L2R_LOSS_L2SVR, true, 300 + _i);
	struct l2r_objective o;
	ck_assert_int_eq(l2r_objective_init(&o, &pr.X, pr.y, pr.C, loss, 0.1, 1), 0);
	ck_assert_int_eq(o.acc_parts.count > 1, l > 1024);
	ck_assert(o.diag != NULL);
	struct newton_objective f = l2r_objective_newton(&o);

	struct rng r;
	rng_seed(&r, 17 + _i);
	double w[6], g[6], fused[6], separate[6];
	for (int j = 0; j < 6; j++)
		w[j] = 2 * rng_unit(&r) - 1;
	f.value(f.ctx, w);
	f.gradient(f.ctx, w, g);
	ck_assert(o.diag_ready);
	f.hessian_diag(f.ctx, fused);
	o.diag_ready = false;	/* the separate pass over the rows in H */
	f.hessian_diag(f.ctx, separate);
	ck_assert_mem_eq(fused, separate, sizeof fused);
	int in_h = 0;
	for (int i = 0; i < l; i++)
		in_h += o.D[i] != 0;
	ck_assert_int_gt(in_h, 0);

	/* Rows of different lengths (about 30% zeros), in pairs and alone. */
	for (int i = 0; i + 1 < l; i++) {
		double a, b;
		rows_dot_pair(&pr.X, i, i + 1, w, &a, &b);
		double one = rows_dot(&pr.X, i, w), next = rows_dot(&pr.X, i + 1, w);
		ck_assert_mem_eq(&a, &one, sizeof a);
		ck_assert_mem_eq(&b, &next, sizeof b);
	}
	l2r_objective_free(&o);
	problem_free(&pr);
}
END_TEST

START_TEST(objective_matches_dense_and_finite_differences)
{
	enum l2r_loss loss = all_losses[_i % 3];
	int regularize_bias = _i < 3;
	struct test_problem pr = problem_random(40, 7, loss == L2R_LOSS_L2SVR, true, 100 + _i);
	int n = pr.n;
	struct l2r_objective o;
	ck_assert_int_eq(l2r_objective_init(&o, &pr.X, pr.y, pr.C, loss, 0.1, regularize_bias), 0);
	struct newton_objective f = l2r_objective_newton(&o);

	struct rng r;
	rng_seed(&r, 7 + _i);
	double w[7], v[7], g[7], gd[7], Hv[7], diag[7], wp[7], wm[7], gp[7], gm[7], e[7], He[7];
	for (int j = 0; j < n; j++) {
		w[j] = rng_unit(&r) - 0.5;
		v[j] = rng_unit(&r) - 0.5;
	}

	/* value and gradient against the dense formulas */
	double fw = f.value(f.ctx, w);
	ck_assert_double_eq_tol(fw, dense_value(&pr, loss, 0.1, regularize_bias, w), 1e-12 * fabs(fw));
	f.gradient(f.ctx, w, g);
	dense_gradient(&pr, loss, 0.1, regularize_bias, w, gd);
	for (int j = 0; j < n; j++)
		ck_assert_double_eq_tol(g[j], gd[j], 1e-12 * (1 + fabs(gd[j])));

	/* H v and diag(H) at w (computed before moving the current point) */
	f.hessian_times(f.ctx, v, Hv);
	f.hessian_diag(f.ctx, diag);
	for (int j = 0; j < n; j++) {
		for (int k = 0; k < n; k++)
			e[k] = k == j;
		f.hessian_times(f.ctx, e, He);
		ck_assert_double_eq_tol(diag[j], He[j], 1e-12 * (1 + fabs(He[j])));
	}

	/* finite differences: the gradient of f along v, and H v from the gradient */
	double h = 1e-6;
	for (int j = 0; j < n; j++) {
		wp[j] = w[j] + h * v[j];
		wm[j] = w[j] - h * v[j];
	}
	double fp = f.value(f.ctx, wp);
	f.gradient(f.ctx, wp, gp);
	double fm = f.value(f.ctx, wm);
	f.gradient(f.ctx, wm, gm);
	double gv = 0;
	for (int j = 0; j < n; j++)
		gv += g[j] * v[j];
	ck_assert_double_eq_tol((fp - fm) / (2 * h), gv, 1e-6 * (1 + fabs(gv)));
	for (int j = 0; j < n; j++)
		ck_assert_double_eq_tol((gp[j] - gm[j]) / (2 * h), Hv[j], 1e-5 * (1 + fabs(Hv[j])));

	/* the line search's f(w + a s) is f at that point */
	f.value(f.ctx, w);
	f.line_prepare(f.ctx, w, v);
	for (double a = 1; a > 0.1; a *= 0.5) {
		for (int j = 0; j < n; j++)
			wp[j] = w[j] + a * v[j];
		double expect = dense_value(&pr, loss, 0.1, regularize_bias, wp);
		ck_assert_double_eq_tol(f.line_value(f.ctx, a), expect, 1e-12 * fabs(expect));
	}

	l2r_objective_free(&o);
	problem_free(&pr);
}
END_TEST

/* ---- warm start and the stopping rule ---- */

START_TEST(warm_start_at_optimum_stops_at_once)
{
	enum l2r_loss loss = all_losses[_i];
	struct test_problem pr = problem_random(60, 5, loss == L2R_LOSS_L2SVR, false, 21 + _i);
	double *w = calloc(pr.n, sizeof *w);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(solve_quietly(&pr, loss, 0.1, 1, 1e-8, w), SOLVER_OK);

	/*
	 * Restarting at the optimum: |g(w)| is tiny next to |g(0)|, so no
	 * iteration runs. (A rule relative to |g(w_start)| would iterate.)
	 */
	start_capture();
	ck_assert_int_eq(solve_l2r_primal(&pr.X, pr.y, pr.C, loss, 0.1, 1, 1e-3, w), SOLVER_OK);
	stop_capture();
	ck_assert(strncmp(captured, "init f ", 7) == 0);
	ck_assert_ptr_null(strstr(captured, "iter"));
	free(w);
	problem_free(&pr);
}
END_TEST

START_TEST(max_newton_iterations_reported)
{
	struct test_problem pr = problem_random(60, 5, false, false, 3);
	struct l2r_objective o;
	ck_assert_int_eq(l2r_objective_init(&o, &pr.X, pr.y, pr.C, L2R_LOSS_LR, 0, 1), 0);
	struct newton_objective f = l2r_objective_newton(&o);
	struct newton_params par = newton_default_params(1e-12);
	par.max_iter = 1;
	double w[5] = { 0 };
	start_capture();
	ck_assert_int_eq(newton_minimize(&f, &par, w), SOLVER_MAX_ITER);
	stop_capture();
	ck_assert_ptr_nonnull(strstr(captured, "iter  1 f "));
	ck_assert_ptr_null(strstr(captured, "iter  2 f "));
	ck_assert_ptr_nonnull(strstr(captured, "\nWARNING: reaching max number of Newton iterations\n"));
	l2r_objective_free(&o);
	problem_free(&pr);
}
END_TEST

/* ---- regularize_bias 0 ---- */

START_TEST(unregularised_bias_by_hand)
{
	/*
	 * Only a bias feature (value 1), labels +1 +1 -1, L2-loss SVC:
	 * unregularised, 2 (1 - b)^2 + (1 + b)^2 is least at b = 1/3;
	 * regularised, adding 0.5 b^2 moves it to b = 2/7.
	 */
	double x[3] = { 1, 1, 1 }, y[3] = { 1, 1, -1 }, C[3] = { 1, 1, 1 };
	struct test_problem pr = problem_from(3, 1, x, y, C);
	double b = 0;
	ck_assert_int_eq(solve_quietly(&pr, L2R_LOSS_L2SVC, 0, 0, 1e-10, &b), SOLVER_OK);
	ck_assert_double_eq_tol(b, 1.0 / 3, 1e-12);
	b = 0;
	ck_assert_int_eq(solve_quietly(&pr, L2R_LOSS_L2SVC, 0, 1, 1e-10, &b), SOLVER_OK);
	ck_assert_double_eq_tol(b, 2.0 / 7, 1e-12);
	problem_free(&pr);
}
END_TEST

START_TEST(unregularised_bias_optimal)
{
	enum l2r_loss loss = all_losses[_i];
	struct test_problem pr = problem_random(70, 6, loss == L2R_LOSS_L2SVR, true, 31 + _i);
	double *w = calloc(pr.n, sizeof *w), *g = malloc(pr.n * sizeof *g);
	double *zero = calloc(pr.n, sizeof *zero);
	ck_assert(w && g && zero);
	double eps = 1e-6;
	ck_assert_int_eq(solve_quietly(&pr, loss, 0.1, 0, eps, w), SOLVER_OK);
	dense_gradient(&pr, loss, 0.1, 0, zero, g);
	double g0 = norm(pr.n, g);
	dense_gradient(&pr, loss, 0.1, 0, w, g);
	ck_assert_double_le(norm(pr.n, g), eps * g0);
	free(w);
	free(g);
	free(zero);
	problem_free(&pr);
}
END_TEST

/* ---- upstream's progress lines ---- */

/* Copies pr with a last column of 1s, as train -B 1 makes it. */
static struct test_problem problem_with_bias_column(const struct test_problem *pr)
{
	int n = pr->n + 1;
	double *dense = malloc((size_t)pr->l * n * sizeof *dense);
	ck_assert_ptr_nonnull(dense);
	for (int i = 0; i < pr->l; i++) {
		for (int j = 0; j < pr->n; j++)
			dense[(size_t)i * n + j] = pr->dense[(size_t)i * pr->n + j];
		dense[(size_t)i * n + pr->n] = 1;
	}
	struct test_problem b = problem_from(pr->l, n, dense, pr->y, pr->C);
	free(dense);
	return b;
}

struct upstream_run {
	bool regression;
	uint64_t seed;
	enum l2r_loss loss;
	double C, p, eps;	/* eps as given to train -e */
	int regularize_bias;	/* 0: train -B 1 -R */
	const char *trace;
};

/*
 * Traces printed by upstream 2.50 (Python liblinear-official) training on
 * problem_random(300, 12, ..., seed) written out as a LIBSVM file with
 * "%.17g" values, with the options in each comment. Constant C; for -s 0
 * and 2 train scales eps by min(#pos, #neg) / l = 148 / 300 here.
 */
static const struct upstream_run upstream_runs[] = {
	/* -s 0 -c 8 -e 0.0001: long enough to need CG's forcing term */
	{ false, 2024, L2R_LOSS_LR, 8, 0, 0.0001, 1,
	  "init f 1.664e+03 |g| 4.660e+02\n"
	  "iter  1 f 7.919e+02 |g| 1.458e+02 CG   2 step_size 1.00e+00 \n"
	  "iter  2 f 5.154e+02 |g| 5.941e+01 CG   2 step_size 1.00e+00 \n"
	  "iter  3 f 3.842e+02 |g| 2.171e+01 CG   2 step_size 1.00e+00 \n"
	  "iter  4 f 3.450e+02 |g| 5.408e+00 CG   3 step_size 1.00e+00 \n"
	  "iter  5 f 3.413e+02 |g| 7.354e-01 CG   3 step_size 1.00e+00 \n"
	  "iter  6 f 3.412e+02 |g| 2.859e-01 CG   3 step_size 1.00e+00 \n"
	  "iter  7 f 3.412e+02 |g| 4.844e-02 CG   2 step_size 1.00e+00 \n"
	  "iter  8 f 3.412e+02 |g| 8.385e-04 CG   5 step_size 1.00e+00 \n" },
	/* -s 2 */
	{ false, 2024, L2R_LOSS_L2SVC, 1, 0, 0.01, 1,
	  "init f 3.000e+02 |g| 2.330e+02\n"
	  "iter  1 f 1.010e+02 |g| 5.003e+01 CG   2 step_size 1.00e+00 \n"
	  "iter  2 f 6.493e+01 |g| 2.059e+01 CG   2 step_size 1.00e+00 \n"
	  "iter  3 f 5.092e+01 |g| 7.533e+00 CG   3 step_size 1.00e+00 \n"
	  "iter  4 f 4.686e+01 |g| 2.878e+00 CG   3 step_size 1.00e+00 \n"
	  "iter  5 f 4.648e+01 |g| 5.795e-01 CG   4 step_size 1.00e+00 \n" },
	/* -s 0 -B 1 -R -c 4 -e 0.001 */
	{ false, 2024, L2R_LOSS_LR, 4, 0, 0.001, 0,
	  "init f 8.318e+02 |g| 2.331e+02\n"
	  "iter  1 f 3.995e+02 |g| 7.264e+01 CG   2 step_size 1.00e+00 \n"
	  "iter  2 f 2.718e+02 |g| 2.969e+01 CG   2 step_size 1.00e+00 \n"
	  "iter  3 f 2.201e+02 |g| 9.137e+00 CG   3 step_size 1.00e+00 \n"
	  "iter  4 f 2.107e+02 |g| 1.606e+00 CG   3 step_size 1.00e+00 \n"
	  "iter  5 f 2.103e+02 |g| 3.398e-01 CG   3 step_size 1.00e+00 \n"
	  "iter  6 f 2.103e+02 |g| 6.178e-02 CG   2 step_size 1.00e+00 \n" },
	/* -s 11 -c 8 -p 0.05 -e 0.00001 */
	{ true, 2025, L2R_LOSS_L2SVR, 8, 0.05, 0.00001, 1,
	  "init f 4.184e+03 |g| 3.139e+03\n"
	  "iter  1 f 3.220e+01 |g| 9.516e+01 CG   2 step_size 1.00e+00 \n"
	  "iter  2 f 2.685e+01 |g| 1.822e+01 CG   2 step_size 1.00e+00 \n"
	  "iter  3 f 2.665e+01 |g| 6.643e-01 CG   2 step_size 1.00e+00 \n"
	  "iter  4 f 2.665e+01 |g| 2.655e-02 CG   2 step_size 1.00e+00 \n" },
};

START_TEST(trace_matches_upstream)
{
	const struct upstream_run *run = &upstream_runs[_i];
	struct test_problem plain = problem_random(300, 12, run->regression, false, run->seed);
	struct test_problem pr = run->regularize_bias ? plain : problem_with_bias_column(&plain);
	for (int i = 0; i < pr.l; i++)
		pr.C[i] = run->C;
	double eps = run->eps;
	if (!run->regression) {
		int pos = 0;
		for (int i = 0; i < pr.l; i++)
			pos += pr.y[i] > 0;
		int fewer = pos < pr.l - pos ? pos : pr.l - pos;
		ck_assert_int_eq(fewer, 148);
		eps = eps * fewer / pr.l;
	}
	double *w = calloc(pr.n, sizeof *w);
	ck_assert_ptr_nonnull(w);
	start_capture();
	int status = solve_l2r_primal(&pr.X, pr.y, pr.C, run->loss, run->p, run->regularize_bias, eps, w);
	stop_capture();
	ck_assert_int_eq(status, SOLVER_OK);
	ck_assert_str_eq(captured, run->trace);
	free(w);
	if (!run->regularize_bias)
		problem_free(&pr);
	problem_free(&plain);
}
END_TEST

/* ---- Isolation Kernel cell rows ---- */

START_TEST(cell_rows_match_sparse_rows)
{
	/* t = 3 partitionings of psi = 4 cells, value 0.5, bias 1: n = 13. */
	enum { L = 50, T = 3, PSI = 4, N = T * PSI + 1 };
	enum l2r_loss loss = all_losses[_i % 3];
	bool wide_cells = _i >= 3;
	struct rng r;
	rng_seed(&r, 41 + _i);
	uint16_t cells16[L * T];
	uint32_t cells32[L * T];
	double dense[L * N] = { 0 }, y[L], C[L];
	for (int i = 0; i < L; i++) {
		double t = 0;
		for (int k = 0; k < T; k++) {
			int c = (int)rng_below(&r, PSI);
			cells16[i * T + k] = (uint16_t)c;
			cells32[i * T + k] = (uint32_t)c;
			dense[i * N + k * PSI + c] = 0.5;
			t += c - 1.5;
		}
		dense[i * N + N - 1] = 1;
		y[i] = loss == L2R_LOSS_L2SVR ? t : (t + rng_unit(&r) - 0.5 >= 0 ? 1 : -1);
		C[i] = 1;
	}
	struct test_problem pr = problem_from(L, N, dense, y, C);

	struct row_set cells = { 0 };
	cells.kind = ROWS_CELLS;
	cells.l = L;
	cells.n = N;
	cells.t = T;
	cells.psi = PSI;
	cells.cell_value = 0.5;
	cells.cells16 = wide_cells ? NULL : cells16;
	cells.cells32 = wide_cells ? cells32 : NULL;
	cells.bias = 1;

	double w_sparse[N] = { 0 }, w_cells[N] = { 0 };
	ck_assert_int_eq(solve_quietly(&pr, loss, 0.1, 1, 1e-6, w_sparse), SOLVER_OK);
	start_capture();
	ck_assert_int_eq(solve_l2r_primal(&cells, y, C, loss, 0.1, 1, 1e-6, w_cells), SOLVER_OK);
	stop_capture();
	for (int j = 0; j < N; j++)
		ck_assert_double_eq_tol(w_cells[j], w_sparse[j], 1e-10);
	problem_free(&pr);
}
END_TEST

static Suite *newton_suite(void)
{
	Suite *s = suite_create("newton");
	TCase *known = tcase_create("known answers");
	tcase_add_test(known, svc_one_row_by_hand);
	tcase_add_test(known, svr_two_rows_by_hand);
	tcase_add_test(known, lr_one_dimension_matches_bisection);
	tcase_add_test(known, unregularised_bias_by_hand);
	suite_add_tcase(s, known);

	TCase *opt = tcase_create("optimality");
	tcase_add_loop_test(opt, gradient_small_at_solution, 0, 3);
	tcase_add_loop_test(opt, many_rows_use_several_row_parts, 0, 3);
	tcase_add_loop_test(opt, unregularised_bias_optimal, 0, 3);
	tcase_add_loop_test(opt, warm_start_at_optimum_stops_at_once, 0, 3);
	tcase_add_test(opt, max_newton_iterations_reported);
	suite_add_tcase(s, opt);

	TCase *obj = tcase_create("objective");
	tcase_add_loop_test(obj, objective_matches_dense_and_finite_differences, 0, 6);
	tcase_add_loop_test(obj, fused_sums_equal_separate_sums, 0, 6);
	suite_add_tcase(s, obj);

	TCase *trace = tcase_create("upstream traces");
	tcase_add_loop_test(trace, trace_matches_upstream, 0,
		(int)(sizeof upstream_runs / sizeof upstream_runs[0]));
	suite_add_tcase(s, trace);

	TCase *cells = tcase_create("cell rows");
	tcase_add_loop_test(cells, cell_rows_match_sparse_rows, 0, 6);
	suite_add_tcase(s, cells);
	return s;
}

UNIT_MAIN(newton_suite)
