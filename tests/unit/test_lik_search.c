/*
 * test_lik_search.c - lik_search (liblinear_ik.h), the psi and C search of
 * train -C -k: the same table for any thread count, the stages it promises
 * (psi ranked on the subsample, the best few confirmed on all rows), the
 * early stop of the C walk, and the grid-edge extension with its reasons
 * for stopping.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "lik_fixtures.h"
#include "liblinear_ik.h"

static char printed[1 << 16];
static void collect(const char *s)
{
	size_t used = strlen(printed);
	snprintf(printed + used, sizeof printed - used, "%s", s);
}

static struct lik_map_params kernel_of(int threads)
{
	struct lik_map_params p;
	lik_map_params_default(&p, LIK_KERNEL_ANNE);
	p.t = 20;
	p.psi = 0;	/* searched */
	p.seed = 7;
	p.device = LIK_DEVICE_CPU;
	p.threads = threads;
	return p;
}

/*
 * A 4 x 4 checkerboard on [0, 1)^2 (labels by the parity of the square):
 * a few cells per partitioning cannot draw it, more can, so larger psi
 * wins on the small grids the tests use.
 */
struct board {
	struct problem prob;
	struct feature_node *nodes;
};

static struct board checkerboard(int l)
{
	struct board b;
	b.nodes = malloc((size_t)l * 3 * sizeof *b.nodes);
	b.prob.x = malloc((size_t)l * sizeof *b.prob.x);
	b.prob.y = malloc((size_t)l * sizeof *b.prob.y);
	ck_assert(b.nodes != NULL && b.prob.x != NULL && b.prob.y != NULL);
	uint64_t state = 12345;
	for (int i = 0; i < l; i++) {
		double uv[2];
		for (int j = 0; j < 2; j++) {	/* a small LCG: fixed points, no library rng needed */
			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			uv[j] = (double)(state >> 11) / 9007199254740992.0;
		}
		struct feature_node *f = &b.nodes[(size_t)i * 3];
		f[0] = (struct feature_node){ 1, uv[0] };
		f[1] = (struct feature_node){ 2, uv[1] };
		f[2] = (struct feature_node){ -1, 0 };
		b.prob.x[i] = f;
		b.prob.y[i] = ((int)(uv[0] * 4) + (int)(uv[1] * 4)) % 2 ? 1 : -1;
	}
	b.prob.l = l;
	b.prob.n = 2;
	b.prob.bias = -1;
	return b;
}

static void board_free(struct board *b)
{
	free(b->nodes);
	free(b->prob.x);
	free(b->prob.y);
}

static void assert_same_choices(const struct lik_search_table *a, const struct lik_search_table *b)
{
	ck_assert_uint_eq(a->count, b->count);
	ck_assert_uint_eq(a->best, b->best);
	ck_assert_uint_eq(a->plain, b->plain);
	ck_assert_uint_eq(a->plain_versus, b->plain_versus);
	ck_assert_int_eq(a->kernel_wins, b->kernel_wins);
	ck_assert_int_eq(a->at_edge, b->at_edge);
	for (size_t i = 0; i < a->count; i++) {
		ck_assert_int_eq(a->rows[i].psi, b->rows[i].psi);
		ck_assert_int_eq(a->rows[i].rows, b->rows[i].rows);
		ck_assert(a->rows[i].C == b->rows[i].C);
		ck_assert(a->rows[i].score == b->rows[i].score);
	}
}

START_TEST(same_table_for_any_thread_count)
{
	lik_set_print_string_function(collect);
	struct test_problem p = problem_make(900, 4, -1, 21);
	struct parameter param = default_param(L2R_L2LOSS_SVC);
	struct lik_search_options o;
	lik_search_options_default(&o);
	o.subsample_rows = 300;
	o.grid_max = 64;
	o.time_budget = 0;	/* no extension: the stages alone */
	struct lik_search_table *t[2];
	for (int threads = 1; threads <= 2; threads++) {
		struct lik_map_params k = kernel_of(threads);
		lik_set_threads(threads);
		struct lik_error err;
		t[threads - 1] = lik_search(&p.prob, &param, &k, 5, -1, -1, &o, &err);
		ck_assert_msg(t[threads - 1] != NULL, "%s", err.message);
	}
	lik_set_threads(0);
	assert_same_choices(t[0], t[1]);
	/*
	 * stage 1: psi 4..64 on the 300-row subsample; stage 2: its best on all
	 * 900 rows, and the runner-up too only when within one standard error
	 */
	const struct lik_search_table *a = t[0];
	ck_assert(a->count == 5 + 1 + 1 || a->count == 5 + 2 + 1);
	size_t confirmed = a->count - 5 - 1;
	for (int i = 0, psi = 4; i < 5; i++, psi *= 2) {
		ck_assert_int_eq(a->rows[i].psi, psi);
		ck_assert_int_eq(a->rows[i].rows, 300);
	}
	int top = 0;
	for (int i = 1; i < 5; i++)
		if (a->rows[i].score > a->rows[top].score)
			top = i;
	double margin = sqrt(a->rows[top].score * (1 - a->rows[top].score) / 300);
	int runner = -1;
	for (int i = 0; i < 5; i++)
		if (i != top && (runner < 0 || a->rows[i].score > a->rows[runner].score))
			runner = i;
	int close = a->rows[top].score - a->rows[runner].score <= margin;
	ck_assert_uint_eq(confirmed, close ? 2 : 1);
	/* ascending psi, each on all rows; the subsample's best among them */
	int has_top = 0;
	for (size_t i = 5; i < 5 + confirmed; i++) {
		ck_assert_int_eq(a->rows[i].rows, 900);
		has_top |= a->rows[i].psi == a->rows[top].psi;
		if (i > 5)
			ck_assert_int_lt(a->rows[i - 1].psi, a->rows[i].psi);
		else if (confirmed == 2)
			ck_assert(a->rows[i].psi == a->rows[runner].psi || a->rows[i].psi == a->rows[top].psi);
	}
	ck_assert(has_top);
	/* the best is the better confirmed row; the plain baseline is last */
	ck_assert(a->best >= 5 && a->best < 5 + confirmed);
	for (size_t i = 5; i < 5 + confirmed; i++)
		ck_assert(a->rows[a->best].score >= a->rows[i].score);
	ck_assert_uint_eq(a->plain, a->count - 1);
	ck_assert_int_eq(a->rows[a->plain].psi, 0);
	/* the baseline ran on stage 1's subsample, against stage 1's best row there */
	ck_assert_int_eq(a->rows[a->plain].rows, 300);
	ck_assert_uint_eq(a->plain_versus, (size_t)top);
	ck_assert_int_eq(a->kernel_wins, a->rows[top].score > a->rows[a->plain].score);
	/* the printed text: snprintf's rule (the length it needs; cut short, still terminated) */
	char text[1024], cut[16];
	int need = lik_search_summary_text(a, 0, 1, NULL, 0);
	ck_assert_int_eq(lik_search_summary_text(a, 0, 1, text, sizeof text), need);
	ck_assert_int_eq((int)strlen(text), need);
	ck_assert(strstr(text, "plain linear on the 300-row subsample: ") != NULL);
	ck_assert_int_eq(lik_search_summary_text(a, 0, 1, cut, sizeof cut), need);
	ck_assert(strncmp(cut, text, sizeof cut - 1) == 0 && cut[sizeof cut - 1] == '\0');
	ck_assert_ptr_nonnull(a->best_map);
	ck_assert_int_eq(lik_map_psi(a->best_map), a->rows[a->best].psi);
	lik_search_table_free(&t[0]);
	lik_search_table_free(&t[1]);
	ck_assert_ptr_null(t[0]);
	problem_free(&p);
}
END_TEST

/* Counts the per-C lines ("log2c=") of the verbose walk. */
static int walk_lines(void)
{
	int n = 0;
	for (const char *c = printed; (c = strstr(c, "log2c=")) != NULL; c++)
		n++;
	return n;
}

START_TEST(the_early_stop_shortens_the_walk)
{
	lik_set_print_string_function(collect);
	struct test_problem p = problem_make(300, 4, -1, 5);
	struct parameter param = default_param(L2R_L2LOSS_SVC);
	struct lik_map_params k = kernel_of(2);
	k.psi = 32;
	struct lik_search_options o;
	lik_search_options_default(&o);
	o.verbose = 1;
	struct lik_error err;
	printed[0] = '\0';
	o.patience = 0;
	struct lik_search_table *full = lik_search(&p.prob, &param, &k, 5, -1, -1, &o, &err);
	ck_assert_ptr_nonnull(full);
	int full_lines = walk_lines();
	printed[0] = '\0';
	o.patience = 2;
	struct lik_search_table *early = lik_search(&p.prob, &param, &k, 5, -1, -1, &o, &err);
	ck_assert_ptr_nonnull(early);
	int early_lines = walk_lines();
	/* both tables: the psi row then the plain baseline (always the full sweep, all rows) */
	ck_assert_uint_eq(full->count, 2);
	ck_assert_uint_eq(early->count, 2);
	ck_assert_int_eq(early->rows[1].rows, 300);
	ck_assert_uint_eq(early->plain_versus, early->best);
	ck_assert_int_eq(early->kernel_wins, early->rows[0].score > early->rows[1].score);
	ck_assert(early->rows[1].C == full->rows[1].C && early->rows[1].score == full->rows[1].score);
	ck_assert_msg(early_lines < full_lines, "early stop: %d C lines, full sweep %d",
		early_lines, full_lines);
	/* the early walk's best is never better than the full sweep's (a prefix of it) */
	ck_assert(early->rows[0].score <= full->rows[0].score);
	/* without verbose, no per-C line at all */
	printed[0] = '\0';
	o.verbose = 0;
	struct lik_search_table *quiet = lik_search(&p.prob, &param, &k, 5, -1, -1, &o, &err);
	ck_assert_ptr_nonnull(quiet);
	ck_assert_int_eq(walk_lines(), 0);
	assert_same_choices(quiet, early);
	lik_search_table_free(&full);
	lik_search_table_free(&early);
	lik_search_table_free(&quiet);
	problem_free(&p);
}
END_TEST

START_TEST(the_grid_is_extended_at_its_edge)
{
	lik_set_print_string_function(collect);
	struct board p = checkerboard(400);
	struct parameter param = default_param(L2R_L2LOSS_SVC);
	struct lik_map_params k = kernel_of(2);
	struct lik_search_options o;
	lik_search_options_default(&o);
	o.grid_max = 8;		/* a tiny grid: its largest psi wins on the checkerboard */
	struct lik_error err;

	/* no time for more: at the edge, and the note says why */
	o.time_budget = 0;
	struct lik_search_table *t = lik_search(&p.prob, &param, &k, 5, -1, -1, &o, &err);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->count, 3);
	ck_assert_int_eq(t->rows[t->best].psi, 8);
	ck_assert_int_eq(t->at_edge, 1);
	ck_assert_msg(strstr(t->note, "psi = 8 is the largest tried: psi = 16 would take about") != NULL
		&& strstr(t->note, "over the time budget of 0 s (-T)") != NULL, "%s", t->note);
	lik_search_table_free(&t);

	/* time enough, a cap of 16: one more psi, then the cap is the reason (if 16 still wins) */
	o.time_budget = 1e6;
	o.max_psi = 16;
	t = lik_search(&p.prob, &param, &k, 5, -1, -1, &o, &err);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->count, 4);
	ck_assert_int_eq(t->rows[2].psi, 16);
	ck_assert_int_eq(t->rows[2].rows, 400);
	if (t->rows[t->best].psi == 16) {
		ck_assert_int_eq(t->at_edge, 1);
		ck_assert_str_eq(t->note, "psi = 16 is the largest tried: the search goes no higher than psi = 16");
	} else {
		ck_assert_int_eq(t->at_edge, 0);
		ck_assert_str_eq(t->note, "");
	}
	lik_search_table_free(&t);

	/* no cap but the rows: it doubles while the largest wins, never past 400 rows */
	o.max_psi = 16384;
	t = lik_search(&p.prob, &param, &k, 5, -1, -1, &o, &err);
	ck_assert_ptr_nonnull(t);
	int largest = 0;
	for (size_t i = 0; i + 1 < t->count; i++) {
		ck_assert_int_le(t->rows[i].psi, 400);
		if (t->rows[i].psi > largest)
			largest = t->rows[i].psi;
	}
	ck_assert_int_ge(largest, 16);
	if (t->at_edge) {
		ck_assert_int_eq(largest, 256);
		ck_assert_str_eq(t->note,
			"psi = 256 is the largest tried: psi = 512 would pass the number of training rows (400)");
	} else {
		ck_assert_int_ne(t->rows[t->best].psi, largest);
	}
	lik_search_table_free(&t);
	board_free(&p);
}
END_TEST

/* Marks where each table row ended in the printed walk lines (verbose). */
static void mark_row(const struct lik_search_row *row, void *context)
{
	(void)context;
	char line[64];
	snprintf(line, sizeof line, "ROW %d %d\n", row->psi, row->rows);
	collect(line);
}

/* The log2c lines printed between the end of row `index` - 1 and row `index`. */
static int lines_of_row(int index)
{
	const char *c = printed;
	for (int i = 0; i < index; i++) {
		c = strstr(c, "ROW ");
		ck_assert_ptr_nonnull(c);
		c++;
	}
	const char *end = strstr(c, "ROW ");
	ck_assert_ptr_nonnull(end);
	int n = 0;
	for (const char *p = c; (p = strstr(p, "log2c=")) != NULL && p < end; p++)
		n++;
	return n;
}

/*
 * The walks on all rows are short ones about the subsample's best C (a
 * few scores, not upstream's twenty from C_min), the rising walks start
 * at C = 1/64, and the dual solver's scores (the default) choose as the
 * primal solver's do on this data, for any thread count.
 */
START_TEST(dual_scoring_and_short_confirm_walks)
{
	lik_set_print_string_function(collect);
	struct board b = checkerboard(1200);
	struct parameter param = default_param(L2R_L2LOSS_SVC);
	struct lik_search_options o;
	lik_search_options_default(&o);
	ck_assert_int_eq(o.dual_scoring, 1);
	o.subsample_rows = 400;
	o.grid_max = 64;
	o.time_budget = 0;
	o.verbose = 1;
	o.on_row = mark_row;
	struct lik_search_table *t[3];
	for (int run = 0; run < 3; run++) {
		int threads = run == 1 ? 2 : 1;
		struct lik_map_params k = kernel_of(threads);
		lik_set_threads(threads);
		o.dual_scoring = run < 2;
		printed[0] = '\0';
		struct lik_error err;
		t[run] = lik_search(&b.prob, &param, &k, 5, -1, -1, &o, &err);
		ck_assert_msg(t[run] != NULL, "%s", err.message);
		if (run == 0) {
			/* stage 1 starts at log2c = -6 */
			ck_assert_msg(strncmp(printed, "log2c=  -6.00", 13) == 0, "%.40s", printed);
			/* each confirm walk: C0 and one coarse step each way at least (and two neighbours) */
			for (size_t i = 5; i < t[run]->count - 1; i++) {
				int n = lines_of_row((int)i);
				ck_assert_msg(n >= 3 && n <= 12, "row %zu: %d C values", i, n);
			}
		}
	}
	lik_set_threads(0);
	assert_same_choices(t[0], t[1]);
	/* the primal's choice: the same stages; its best within a point of the dual's */
	ck_assert_uint_eq(t[2]->count, t[0]->count);
	ck_assert_int_eq(t[2]->rows[t[2]->best].psi, t[0]->rows[t[0]->best].psi);
	ck_assert(fabs(t[2]->rows[t[2]->best].score - t[0]->rows[t[0]->best].score) <= 0.01);
	for (int run = 0; run < 3; run++)
		lik_search_table_free(&t[run]);
	board_free(&b);
}
END_TEST

START_TEST(bad_arguments_are_refused)
{
	struct test_problem p = problem_make(30, 3, -1, 2);
	struct parameter param = default_param(L2R_L2LOSS_SVC_DUAL);
	struct lik_map_params k = kernel_of(1);
	struct lik_error err;
	ck_assert_ptr_null(lik_search(&p.prob, &param, &k, 5, -1, -1, NULL, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	param.solver_type = L2R_L2LOSS_SVC;
	ck_assert_ptr_null(lik_search(&p.prob, &param, &k, 1, -1, -1, NULL, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	ck_assert_ptr_null(lik_search(&p.prob, &param, NULL, 5, -1, -1, NULL, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	struct problem three = p.prob;
	three.l = 3;
	ck_assert_ptr_null(lik_search(&three, &param, &k, 2, -1, -1, NULL, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	lik_search_table_free(NULL);
	problem_free(&p);
}
END_TEST

static Suite *lik_search_suite(void)
{
	Suite *s = suite_create("lik_search");
	TCase *tc = tcase_create("search");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, same_table_for_any_thread_count);
	tcase_add_test(tc, the_early_stop_shortens_the_walk);
	tcase_add_test(tc, the_grid_is_extended_at_its_edge);
	tcase_add_test(tc, dual_scoring_and_short_confirm_walks);
	tcase_add_test(tc, bad_arguments_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(lik_search_suite)
