/*
 * test_parallel_folds.c - cross-validation and the parameter search give
 * the same results for any number of threads (their folds train in
 * parallel under train -m).
 */
#include <math.h>
#include <omp.h>
#include <string.h>
#include "unit.h"
#include "find_parameters.h"
#include "folds.h"
#include "linear_rows.h"
#include "rng.h"

enum { L = 600, N = 20, NNZ = 6 };

static struct feature_node nodes[L][NNZ + 1];
static struct feature_node *rows[L];
static double labels[L];

/* A noisy three-class problem (two classes when binary) of sparse rows. */
static struct row_set make_rows(bool binary)
{
	struct rng g;
	rng_seed(&g, 11);
	for (int i = 0; i < L; i++) {
		int used = 0;
		double score = 0;
		for (int j = 1; j <= N && used < NNZ; j++) {
			if (rng_unit(&g) < 0.3) {
				double v = 2 * rng_unit(&g) - 1;
				nodes[i][used].index = j;
				nodes[i][used].value = v;
				score += (j % 3 - 1) * v;
				used++;
			}
		}
		nodes[i][used].index = -1;
		rows[i] = nodes[i];
		score += 0.3 * (rng_unit(&g) - 0.5);
		labels[i] = binary ? (score > 0 ? 1 : -1) : (score > 0.2 ? 1 : score < -0.2 ? 2 : 3);
	}
	return rows_sparse(L, N, rows);
}

static struct parameter params(int solver_type)
{
	struct parameter p = {0};
	p.solver_type = solver_type;
	p.C = 1;
	p.eps = solver_type == L2R_LR || solver_type == L2R_L2LOSS_SVC ? 0.01 : 0.1;
	p.p = 0.1;
	p.nu = 0.5;
	p.regularize_bias = 1;
	return p;
}

static void quiet(const char *s)
{
	(void)s;
}

static void cv_targets(const struct row_set *X, const struct parameter *p, int threads, double *target)
{
	omp_set_num_threads(threads);
	ck_assert_int_eq(cross_validation_rows(X, labels, -1, p, 5, target), 0);
}

START_TEST(cross_validation_same_for_any_thread_count)
{
	set_print_string_function(quiet);
	int solvers[] = { L2R_LR, L2R_L2LOSS_SVC_DUAL, L2R_L2LOSS_SVC, MCSVM_CS, L1R_LR };
	struct row_set X = make_rows(false);
	for (size_t s = 0; s < sizeof solvers / sizeof solvers[0]; s++) {
		struct parameter p = params(solvers[s]);
		static double one[L], two[L], three[L];
		cv_targets(&X, &p, 1, one);
		cv_targets(&X, &p, 2, two);
		cv_targets(&X, &p, 3, three);
		ck_assert_mem_eq(one, two, sizeof one);
		ck_assert_mem_eq(one, three, sizeof one);
		int right = 0;
		for (int i = 0; i < L; i++)
			right += one[i] == labels[i];
		ck_assert_int_gt(right, L / 2);	/* the folds really learned something */
	}
}
END_TEST

START_TEST(parameter_search_same_for_any_thread_count)
{
	set_print_string_function(quiet);
	struct row_set X = make_rows(true);
	int solvers[] = { L2R_LR, L2R_L2LOSS_SVC };
	for (size_t s = 0; s < sizeof solvers / sizeof solvers[0]; s++) {
		struct parameter p = params(solvers[s]);
		double best[2][3];
		for (int t = 0; t < 2; t++) {
			omp_set_num_threads(t + 1);
			find_parameters_rows(&X, labels, -1, &p, 5, -1, -1, &best[t][0], &best[t][1], &best[t][2]);
		}
		ck_assert(best[0][0] > 0);
		ck_assert(best[0][2] > 0.5 && best[0][2] <= 1);
		ck_assert_mem_eq(best[0], best[1], sizeof best[0]);
	}
}
END_TEST

/* ---- progress lines of parallel folds (issue 18) ---- */

/* What the print hook has received, in order. */
static char printed[1 << 20];
static size_t printed_len;
static int print_calls;

/* Set by the timing test: the targets, fold 0's block, what the first call saw. */
static const double *watched_target;
static const struct folds *watched_folds;
static int fold0_written_at_first_call = -1;

static void collect(const char *s)
{
	size_t n = strlen(s);
	ck_assert_uint_lt(printed_len + n, sizeof printed);
	memcpy(printed + printed_len, s, n + 1);
	printed_len += n;
	if (print_calls++ == 0 && watched_target != NULL) {
		int written = 0;
		for (int j = watched_folds->start[0]; j < watched_folds->start[1]; j++)
			written += !isnan(watched_target[watched_folds->perm[j]]);
		fold0_written_at_first_call = written;
	}
}

static void collect_reset(void)
{
	printed[0] = '\0';
	printed_len = 0;
	print_calls = 0;
}

/*
 * -v with threads prints the same progress text as one thread does (train
 * -m 1), in fold order; before, the parallel folds were muted.
 */
START_TEST(parallel_folds_print_the_sequential_progress_text)
{
	int solvers[] = { L2R_LR, L2R_L2LOSS_SVC_DUAL, L2R_L2LOSS_SVC, MCSVM_CS, L1R_LR, ONECLASS_SVM };
	struct row_set X = make_rows(false);
	static char sequential[sizeof printed];
	for (size_t s = 0; s < sizeof solvers / sizeof solvers[0]; s++) {
		struct parameter p = params(solvers[s]);
		static double target[L];
		set_print_string_function(collect);
		collect_reset();
		cv_targets(&X, &p, 1, target);
		memcpy(sequential, printed, printed_len + 1);
		ck_assert_uint_gt(printed_len, 0);
		for (int threads = 2; threads <= 4; threads++) {
			collect_reset();
			cv_targets(&X, &p, threads, target);
			ck_assert_msg(strcmp(printed, sequential) == 0,
				"solver %d, %d threads: got\n%s\nwant\n%s", solvers[s], threads, printed, sequential);
		}
	}
	set_print_string_function(NULL);
}
END_TEST

/*
 * Timing-independent evidence that fold 0's lines are not held until the
 * end: every fold writes its block's targets only after training, and the
 * print hook's first call must come while fold 0's targets are all still
 * unwritten (NaN), that is while fold 0, and so the whole run, is not done.
 */
START_TEST(first_fold_lines_are_printed_while_it_runs)
{
	enum { FOLDS = 5 };
	struct row_set X = make_rows(true);
	struct parameter p = params(L2R_LR);
	static double target[L];
	struct folds f;
	ck_assert_int_eq(folds_make(L, FOLDS, &f), 0);	/* the folds cross_validation_rows makes */
	watched_target = target;
	watched_folds = &f;
	set_print_string_function(collect);
	collect_reset();
	omp_set_num_threads(2);
	ck_assert_int_eq(cross_validation_rows(&X, labels, -1, &p, FOLDS, target), 0);
	set_print_string_function(NULL);
	watched_target = NULL;
	ck_assert_int_gt(print_calls, 1);
	ck_assert_int_eq(fold0_written_at_first_call, 0);
	for (int i = 0; i < L; i++)
		ck_assert(!isnan(target[i]));	/* and by the end every fold was written */
	ck_assert(strncmp(printed, "init f ", 7) == 0);
	folds_free(&f);
}
END_TEST

static Suite *parallel_folds_suite(void)
{
	Suite *s = suite_create("parallel_folds");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, cross_validation_same_for_any_thread_count);
	tcase_add_test(tc, parameter_search_same_for_any_thread_count);
	tcase_add_test(tc, parallel_folds_print_the_sequential_progress_text);
	tcase_add_test(tc, first_fold_lines_are_printed_while_it_runs);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(parallel_folds_suite)
