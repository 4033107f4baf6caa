/*
 * test_multicore.c - the primal Newton solvers (-s 0, 2, 11) give
 * bit-identical weights for any number of OpenMP threads.
 *
 * The expectation is independent of the solver: one run on one thread is
 * the reference, and every other thread count must reproduce it to the
 * last bit (memcmp). The problems are big enough that the row loops are
 * cut into many parts and run on every thread asked for, and (for the
 * wide problem) that the vector operations of newton.c run threaded too.
 */
#include <math.h>
#include <omp.h>
#include <string.h>
#include "unit.h"
#include "l2r_primal.h"
#include "linear.h"
#include "rng.h"
#include "solvers.h"
#include "vec.h"

/* ---- a random sparse problem in upstream's struct problem ---- */

struct sparse_problem {
	struct problem prob;
	struct feature_node *pool;
};

/*
 * l rows over n features, gaps between a row's features uniform in
 * [1, 2 gap - 1] (so one feature in gap on average), values in [-1, 1); labels +-1 from a noisy linear
 * rule, or the rule's real value for regression. With bias >= 0 every row
 * ends with the bias node (n + 1, bias), as train's -B builds it.
 */
static struct sparse_problem sparse_random(int l, int n, int gap, bool regression,
	double bias, uint64_t seed)
{
	struct rng g;
	rng_seed(&g, seed);
	struct sparse_problem sp;
	sp.prob.l = l;
	sp.prob.n = bias >= 0 ? n + 1 : n;
	sp.prob.bias = bias;
	sp.prob.y = malloc((size_t)l * sizeof *sp.prob.y);
	sp.prob.x = malloc((size_t)l * sizeof *sp.prob.x);
	/* Room for every row's expected nonzeros four times over, plus bias and end. */
	size_t room = (size_t)l * (size_t)(4 * (n / gap) + 2);
	sp.pool = malloc(room * sizeof *sp.pool);
	ck_assert(sp.prob.y && sp.prob.x && sp.pool);
	struct feature_node *f = sp.pool;
	for (int i = 0; i < l; i++) {
		sp.prob.x[i] = f;
		double t = 0;
		for (int j = 1 + (int)rng_below(&g, (uint64_t)gap); j <= n;
			j += 1 + (int)rng_below(&g, 2 * (uint64_t)gap - 1)) {
			ck_assert((size_t)(f - sp.pool) + 3 <= room);
			f->index = j;
			f->value = 2 * rng_unit(&g) - 1;
			t += f->value * (j % 7 - 3) / 3.0;
			f++;
		}
		if (bias >= 0) {
			f->index = n + 1;
			f->value = bias;
			f++;
		}
		f->index = -1;
		f++;
		t += 0.3 * (rng_unit(&g) - 0.5);
		sp.prob.y[i] = regression ? t : (t >= 0 ? 1 : -1);
	}
	return sp;
}

static void sparse_free(struct sparse_problem *sp)
{
	free(sp->prob.y);
	free(sp->prob.x);
	free(sp->pool);
}

static void print_nothing(const char *s)
{
	(void)s;
}

/* train() on the given number of threads; returns the model's w (caller frees). */
static double *weights_on_threads(const struct problem *prob, const struct parameter *param,
	int threads, size_t *count)
{
	omp_set_num_threads(threads);
	ck_assert_int_eq(omp_get_max_threads(), threads);
	struct model *m = train(prob, param);
	ck_assert(m != NULL);
	*count = (size_t)m->nr_feature + (m->bias >= 0 ? 1 : 0);
	double *w = malloc(*count * sizeof *w);
	ck_assert(w != NULL);
	memcpy(w, m->w, *count * sizeof *w);
	free_and_destroy_model(&m);
	return w;
}

static bool any_nonzero(size_t n, const double *w)
{
	for (size_t j = 0; j < n; j++)
		if (w[j] != 0)
			return true;
	return false;
}

/* Trains on 1 thread, then checks 2, 3 and 4 threads against it bit for bit. */
static void check_identical_weights(const struct problem *prob, const struct parameter *param)
{
	size_t count1;
	double *w1 = weights_on_threads(prob, param, 1, &count1);
	ck_assert(any_nonzero(count1, w1));
	for (int threads = 2; threads <= 4; threads++) {
		size_t count;
		double *w = weights_on_threads(prob, param, threads, &count);
		ck_assert_uint_eq(count, count1);
		if (memcmp(w, w1, count * sizeof *w) != 0) {
			size_t j = 0;
			while (w[j] == w1[j] || (isnan(w[j]) && isnan(w1[j])))
				j++;
			ck_abort_msg("%d threads: w[%zu] = %.17g, 1 thread: %.17g",
				threads, j, w[j], w1[j]);
		}
		free(w);
	}
	free(w1);
}

static struct parameter primal_parameter(int solver_type, double C, int regularize_bias)
{
	struct parameter p;
	memset(&p, 0, sizeof p);
	p.solver_type = solver_type;
	p.eps = solver_type == L2R_L2LOSS_SVR ? 0.0001 : 0.01;
	p.C = C;
	p.p = 0.1;
	p.regularize_bias = regularize_bias;
	return p;
}

/*
 * How the objective of the problem is set up on the given threads (to see
 * how its sums are split). o keeps pointers to rows and C: the C it gets
 * lives until the next call.
 */
static void objective_on_threads(const struct problem *prob, int threads, struct l2r_objective *o)
{
	static double *C;
	free(C);
	C = malloc((size_t)prob->l * sizeof *C);
	ck_assert(C != NULL);
	for (int i = 0; i < prob->l; i++)
		C[i] = 1;
	static struct row_set X;
	X = rows_sparse(prob->l, prob->n, prob->x);
	omp_set_num_threads(threads);
	ck_assert_int_eq(l2r_objective_init(o, &X, prob->y, C, L2R_LOSS_LR, 0.1, 1), 0);
}

/* The three primal solvers, each without a bias and with -B 1 -R. */
static const int tall_solvers[] = { L2R_LR, L2R_L2LOSS_SVC, L2R_L2LOSS_SVR };

START_TEST(tall_problem_same_weights_on_any_thread_count)
{
	int solver = tall_solvers[_i % 3];
	bool bias_unregularised = _i >= 3;
	set_print_string_function(print_nothing);
	struct sparse_problem sp = sparse_random(13000, 300, 25, solver == L2R_L2LOSS_SVR,
		bias_unregularised ? 1 : -1, 100 + (uint64_t)_i);

	/* The rows really are cut into many parts, and 4 threads get to work on them. */
	struct l2r_objective o;
	objective_on_threads(&sp.prob, 4, &o);
	ck_assert_int_ge(o.parts.count, 8);
	ck_assert_int_eq(o.threads, 4);
	ck_assert(!o.by_columns);
	l2r_objective_free(&o);

	struct parameter param = primal_parameter(solver, 1, bias_unregularised ? 0 : 1);
	check_identical_weights(&sp.prob, &param);
	sparse_free(&sp);
	set_print_string_function(NULL);
}
END_TEST

START_TEST(wide_problem_same_weights_on_any_thread_count)
{
	/* n >= VEC_PARALLEL_MIN: newton.c's vector loops run threaded as well. */
	int solver = tall_solvers[_i];
	set_print_string_function(print_nothing);
	struct sparse_problem sp = sparse_random(3072, 40000, 800, solver == L2R_L2LOSS_SVR,
		-1, 200 + (uint64_t)_i);
	ck_assert(vec_threads_pay((size_t)sp.prob.n));

	/*
	 * Too wide for partial sums per row part: X^T products are summed by
	 * columns, row after row on one thread, through a column copy on more.
	 */
	for (int threads = 1; threads <= 2; threads++) {
		struct l2r_objective o;
		objective_on_threads(&sp.prob, threads, &o);
		ck_assert(o.by_columns);
		ck_assert_int_eq(o.threads, threads);
		ck_assert(threads == 1 ? o.columns.start == NULL : o.columns.start != NULL);
		l2r_objective_free(&o);
	}
	struct parameter param = primal_parameter(solver, 0.1, 1);
	check_identical_weights(&sp.prob, &param);
	sparse_free(&sp);
	set_print_string_function(NULL);
}
END_TEST

/*
 * Isolation Kernel rows (ROWS_CELLS): t cells per row out of psi each, and
 * a bias feature. psi 64 keeps the problem narrow (sums by row parts),
 * psi 4096 makes it wide (sums by columns).
 */
static const int cell_psi[] = { 64, 4096 };

START_TEST(cell_rows_same_weights_on_any_thread_count)
{
	int psi = cell_psi[_i], t = 30, l = _i == 0 ? 13000 : 4096;
	struct rng g;
	rng_seed(&g, 300 + (uint64_t)_i);
	uint16_t *cells = malloc((size_t)l * (size_t)t * sizeof *cells);
	double *y = malloc((size_t)l * sizeof *y), *C = malloc((size_t)l * sizeof *C);
	ck_assert(cells && y && C);
	for (int i = 0; i < l; i++) {
		int vote = 0;
		for (int k = 0; k < t; k++) {
			uint16_t c = (uint16_t)rng_below(&g, (uint64_t)psi);
			cells[(size_t)i * t + k] = c;
			vote += c % 5 - 2;
		}
		y[i] = vote + (int)rng_below(&g, 3) - 1 >= 0 ? 1 : -1;
		C[i] = 1;
	}
	struct row_set X = {0};
	X.kind = ROWS_CELLS;
	X.l = l;
	X.t = t;
	X.psi = psi;
	X.n = t * psi + 1;
	X.cell_value = 1 / sqrt((double)t);
	X.cells16 = cells;
	X.bias = 1;

	omp_set_num_threads(2);
	struct l2r_objective o;
	ck_assert_int_eq(l2r_objective_init(&o, &X, y, C, L2R_LOSS_L2SVC, 0.1, 1), 0);
	ck_assert_int_ge(o.parts.count, 4);
	ck_assert(o.by_columns == (psi == 4096));
	l2r_objective_free(&o);

	set_print_string_function(print_nothing);
	double *w1 = calloc((size_t)X.n, sizeof *w1), *w = malloc((size_t)X.n * sizeof *w);
	ck_assert(w1 && w);
	omp_set_num_threads(1);
	ck_assert_int_eq(solve_l2r_primal(&X, y, C, L2R_LOSS_L2SVC, 0.1, 1, 0.001, w1), SOLVER_OK);
	ck_assert(any_nonzero((size_t)X.n, w1));
	for (int threads = 2; threads <= 4; threads++) {
		omp_set_num_threads(threads);
		memset(w, 0, (size_t)X.n * sizeof *w);
		ck_assert_int_eq(solve_l2r_primal(&X, y, C, L2R_LOSS_L2SVC, 0.1, 1, 0.001, w),
			SOLVER_OK);
		ck_assert_msg(memcmp(w, w1, (size_t)X.n * sizeof *w) == 0, "%d threads differ", threads);
	}
	set_print_string_function(NULL);
	free(w1);
	free(w);
	free(cells);
	free(y);
	free(C);
}
END_TEST

/* ---- vec_dot: the documented fixed split, whatever the thread count ---- */

/* The sum vec.h promises, written out serially. */
static double chunked_sum(size_t n, const double *a, const double *b)
{
	size_t chunks = (n + VEC_CHUNK_MIN - 1) / VEC_CHUNK_MIN;
	if (chunks > VEC_MAX_CHUNKS)
		chunks = VEC_MAX_CHUNKS;
	if (chunks < 1)
		chunks = 1;
	double total = 0;
	for (size_t k = 0; k < chunks; k++) {
		double s = 0;
		for (size_t j = k * n / chunks; j < (k + 1) * n / chunks; j++)
			s += a[j] * b[j];
		total += s;
	}
	return total;
}

static const size_t dot_lengths[] = { 0, 1, 4096, 4097, 100000, 1000003 };

START_TEST(dot_follows_fixed_chunks_on_any_thread_count)
{
	size_t n = dot_lengths[_i];
	struct rng g;
	rng_seed(&g, 7);
	double *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
	ck_assert(a && b);
	for (size_t j = 0; j < n; j++) {
		/* Mixed magnitudes, so that a different order would round differently. */
		a[j] = (2 * rng_unit(&g) - 1) * pow(10, (double)rng_below(&g, 12) - 6);
		b[j] = 2 * rng_unit(&g) - 1;
	}
	double expected = chunked_sum(n, a, b);
	if (n <= VEC_CHUNK_MIN) {
		double plain = 0;
		for (size_t j = 0; j < n; j++)
			plain += a[j] * b[j];
		ck_assert(memcmp(&plain, &expected, sizeof plain) == 0);
	}
	for (int threads = 1; threads <= 4; threads++) {
		omp_set_num_threads(threads);
		double got = vec_dot(n, a, b);
		ck_assert_msg(memcmp(&got, &expected, sizeof got) == 0,
			"n %zu, %d threads: %.17g, expected %.17g", n, threads, got, expected);
	}
	free(a);
	free(b);
}
END_TEST

START_TEST(axpy_on_any_thread_count)
{
	size_t n = 100000;
	double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
	ck_assert(x && y);
	for (int threads = 1; threads <= 3; threads++) {
		omp_set_num_threads(threads);
		for (size_t j = 0; j < n; j++) {
			x[j] = (double)j;
			y[j] = 1;
		}
		vec_axpy(n, 0.5, x, y);
		size_t wrong = 0;
		for (size_t j = 0; j < n; j++)
			wrong += y[j] != 1 + 0.5 * (double)j;
		ck_assert_uint_eq(wrong, 0);
	}
	free(x);
	free(y);
}
END_TEST

static Suite *multicore_suite(void)
{
	Suite *s = suite_create("multicore");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, tall_problem_same_weights_on_any_thread_count, 0, 6);
	tcase_add_loop_test(tc, wide_problem_same_weights_on_any_thread_count, 0, 3);
	tcase_add_loop_test(tc, cell_rows_same_weights_on_any_thread_count, 0, 2);
	tcase_add_loop_test(tc, dot_follows_fixed_chunks_on_any_thread_count, 0,
		(int)(sizeof dot_lengths / sizeof dot_lengths[0]));
	tcase_add_test(tc, axpy_on_any_thread_count);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(multicore_suite)
