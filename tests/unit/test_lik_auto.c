/*
 * test_lik_auto.c - lik_auto_choose, the choice rule of `train -C -k
 * auto` (liblinear_ik.h), on hand-made tables whose answers are worked
 * out by hand below; the fold scores behind the standard errors of a real
 * search and the text lines; lik_auto_search's refusals.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "lik_fixtures.h"
#include "liblinear_ik.h"
#include "lik_internal.h"

static struct lik_auto_row row(int kernel, int t, int psi, double score, double se, double columns,
	double ops, int rows)
{
	return (struct lik_auto_row){ .kernel = kernel, .t = t, .psi = psi, .scale = 0, .w = 0,
		.C = 1, .score = score, .se = se, .rows = rows, .stage = 1, .columns = columns,
		.ops = ops };
}

START_TEST(the_cheapest_within_one_standard_error_and_half_a_point)
{
	struct lik_auto_row r[4];
	/* best 0.900 (se 0.010): its band is [0.890, 0.900], the 0.5-point limit [0.895, ...] */
	r[0] = row(LIK_KERNEL_IFOREST, 1000, 64, 0.900, 0.010, 64000, 6000, 500);
	r[1] = row(LIK_KERNEL_IFOREST, 100, 64, 0.896, 0.012, 6400, 600, 500);	/* in both */
	r[2] = row(LIK_KERNEL_LINEAR, 0, 0, 0.893, 0.010, 20, 0, 500);	/* in the band, past 0.5 */
	r[3] = row(LIK_KERNEL_ACOS, 100, 2, 0.899, 0.010, 200, 2000, 400);	/* fewer rows */
	ck_assert_int_eq(lik_auto_choose(r, 4), 1);
	/* a wide band: linear's 0.893 is within 0.5 points of 0.897 and one se (0.005) of it */
	r[0].score = 0.897;
	r[0].se = 0.005;
	ck_assert_int_eq(lik_auto_choose(r, 4), 2);
	/* a narrow band (se 0.0005): only the best itself qualifies */
	r[0].score = 0.900;
	r[0].se = 0.0005;
	ck_assert_int_eq(lik_auto_choose(r, 4), 0);
}
END_TEST

START_TEST(ties_fall_to_ops_then_w_then_s_then_C_then_order)
{
	struct lik_auto_row r[3];
	r[0] = row(LIK_KERNEL_ANNE, 100, 16, 0.80, 0.02, 1600, 160000, 100);
	r[1] = row(LIK_KERNEL_IFOREST, 100, 16, 0.80, 0.02, 1600, 400, 100);	/* fewer ops */
	r[2] = row(LIK_KERNEL_MINMAX, 100, 16, 0.80, 0.02, 1600, 400, 100);
	ck_assert_int_eq(lik_auto_choose(r, 3), 1);	/* ops, then the earlier row */
	r[2].scale = -1;	/* lower S wins when all before it ties */
	ck_assert_int_eq(lik_auto_choose(r, 3), 2);
	r[2].scale = 0;
	r[1].w = 0.3;	/* smaller w comes before S */
	ck_assert_int_eq(lik_auto_choose(r, 3), 2);
	r[1].w = 0;
	r[2].C = 0.5;	/* smaller C last */
	ck_assert_int_eq(lik_auto_choose(r, 3), 2);
	/* NaN scores never compete; an empty table gives -1 */
	r[0].score = NAN;
	r[1].score = NAN;
	ck_assert_int_eq(lik_auto_choose(r, 3), 2);
	ck_assert_int_eq(lik_auto_choose(r, 0), -1);
}
END_TEST

/* A 4 x 4 checkerboard on [0, 1)^2: labels by the square's parity (as test_lik_search). */
static void checkerboard(int l, struct problem *prob, struct feature_node **nodes)
{
	*nodes = malloc((size_t)l * 3 * sizeof **nodes);
	prob->x = malloc((size_t)l * sizeof *prob->x);
	prob->y = malloc((size_t)l * sizeof *prob->y);
	ck_assert(*nodes != NULL && prob->x != NULL && prob->y != NULL);
	uint64_t state = 99;
	for (int i = 0; i < l; i++) {
		double uv[2];
		for (int j = 0; j < 2; j++) {
			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			uv[j] = (double)(state >> 11) / 9007199254740992.0;
		}
		struct feature_node *f = &(*nodes)[(size_t)i * 3];
		f[0] = (struct feature_node){ 1, uv[0] + 0.01 };
		f[1] = (struct feature_node){ 2, uv[1] + 0.01 };
		f[2] = (struct feature_node){ -1, 0 };
		prob->x[i] = f;
		prob->y[i] = ((int)(4 * uv[0]) + (int)(4 * uv[1])) % 2 ? 1 : -1;
	}
	prob->l = l;
	prob->n = 2;
	prob->bias = -1;
}

/* What every search below starts from: a checkerboard of l rows, train's -s 2, anne's defaults. */
struct setup {
	struct problem prob;
	struct feature_node *nodes;
	struct parameter param;
	struct lik_map_params base;
	struct lik_auto_options o;
};

static void setup_make(struct setup *u, int l)
{
	checkerboard(l, &u->prob, &u->nodes);
	u->param = (struct parameter){ .solver_type = L2R_L2LOSS_SVC, .C = 1, .eps = 0.01, .p = 0.1,
		.nu = 0.5, .regularize_bias = 1 };
	lik_map_params_default(&u->base, LIK_KERNEL_ANNE);
	u->base.device = LIK_DEVICE_CPU;
	lik_auto_options_default(&u->o);
}

static void setup_free(struct setup *u)
{
	free(u->nodes);
	free(u->prob.x);
	free(u->prob.y);
}

START_TEST(a_search_keeps_fold_scores_and_its_text)
{
	struct setup u;
	setup_make(&u, 200);
	struct problem prob = u.prob;
	struct parameter param = u.param;
	struct lik_map_params base = u.base;
	struct lik_auto_options o = u.o;
	o.t = 20;	/* small: seconds, and every line then has t = 20 */
	struct lik_error err;
	struct lik_auto_table *t = lik_auto_search(&prob, &param, &base, 4, -1, &o, &err);
	ck_assert_msg(t != NULL, "%s", err.message);
	ck_assert_int_eq(t->nr_fold, 4);
	ck_assert_int_eq(t->rows[0].kernel, LIK_KERNEL_LINEAR);
	for (size_t i = 0; i < t->count; i++) {
		const struct lik_auto_row *r = &t->rows[i];
		if (r->kernel != LIK_KERNEL_LINEAR)
			ck_assert_int_eq(r->t, 20);
		/* 200 rows in 4 folds of 50: the mean of the fold accuracies is the pooled score */
		double sum = 0, ss = 0;
		for (int k = 0; k < 4; k++)
			sum += t->fold_scores[i * 4 + k];
		ck_assert_double_eq_tol(sum / 4, r->score, 1e-12);
		for (int k = 0; k < 4; k++)
			ss += pow(t->fold_scores[i * 4 + k] - sum / 4, 2);
		ck_assert_double_eq_tol(sqrt(ss / 3) / 2, r->se, 1e-12);
	}
	ck_assert_int_eq((long)t->best, lik_auto_choose(t->rows, t->count));
	/* a checkerboard: some kernel beats a line */
	ck_assert(t->rows[t->best].kernel != LIK_KERNEL_LINEAR);
	char line[512];
	int n = lik_auto_row_text(&t->rows[1], line, sizeof line);
	ck_assert_int_eq(n, (int)strlen(line));
	ck_assert(strncmp(line, "kernel = anne  t = 20  psi = ", 29) == 0);
	int need = lik_auto_summary_text(t, NULL, 0);
	char *text = malloc((size_t)need + 1);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(lik_auto_summary_text(t, text, (size_t)need + 1), need);
	ck_assert(strncmp(text, "Best kernel = ", 14) == 0);
	free(text);
	lik_auto_table_free(&t);
	ck_assert_ptr_null(t);
	/* refusals: a regression solver, one fold */
	param.solver_type = L2R_L2LOSS_SVR;
	ck_assert_ptr_null(lik_auto_search(&prob, &param, &base, 4, -1, &o, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	param.solver_type = L2R_L2LOSS_SVC;
	ck_assert_ptr_null(lik_auto_search(&prob, &param, &base, 1, -1, &o, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	/* a raw-feature weight given (base's, or options->w, which wins) fixes every kernel's w */
	base.raw_weight = 0.3;
	for (int k = 0; k < 2; k++) {
		o.w = k == 0 ? -1 : 0;
		t = lik_auto_search(&prob, &param, &base, 4, -1, &o, &err);
		ck_assert_msg(t != NULL, "%s", err.message);
		for (size_t i = 0; i < t->count; i++)
			ck_assert_double_eq(t->rows[i].w,
				t->rows[i].kernel == LIK_KERNEL_LINEAR ? 0 : (k == 0 ? 0.3 : 0));
		lik_auto_table_free(&t);
	}
	o.w = INFINITY;
	ck_assert_ptr_null(lik_auto_search(&prob, &param, &base, 4, -1, &o, &err));
	ck_assert_int_eq(err.code, LIK_EINVAL);
	setup_free(&u);
}
END_TEST

/*
 * Stage 3's screen on a hand-made subsample table shaped as ijcnn1's
 * (4000 rows): the best is aNNE with w = 0.3, 0.9665 (se 0.0017), so the
 * choice's band would end at 0.9648, where iForest's 0.9630 (se 0.0031)
 * is out; the difference's standard error, sqrt(0.0017^2 + 0.0031^2) =
 * 0.0035, takes it in, and as cheap as aNNE in columns with fewer map
 * operations it goes first, the best second. A row 0.0040 below with the
 * same se is out; one more than 0.5 points below is out whatever its se.
 */
/* lik_auto_pick_confirmed(r, 7 rows, on 4000 rows, want) keeps exactly kernel[k], w[k], k < count */
static void assert_kept(const struct lik_auto_row *r, size_t want, size_t count, const int *kernel,
	const double *w)
{
	struct lik_auto_row keep[8];
	ck_assert_uint_eq(lik_auto_pick_confirmed(r, 7, 4000, want, keep), count);
	for (size_t k = 0; k < count; k++) {
		ck_assert_int_eq(keep[k].kernel, kernel[k]);
		ck_assert_double_eq(keep[k].w, w[k]);
	}
}

START_TEST(stage_three_screens_by_the_standard_error_of_the_difference)
{
	const int A = LIK_KERNEL_ANNE, F = LIK_KERNEL_IFOREST;
	struct lik_auto_row r[7], keep[8];
	r[0] = row(LIK_KERNEL_LINEAR, 0, 0, 0.9115, 0.0065, 22, 0, 4000);
	r[1] = row(A, 100, 512, 0.9650, 0.0013, 51200, 614400, 4000);
	r[2] = row(F, 100, 512, 0.9630, 0.0031, 51200, 900, 4000);
	r[3] = row(A, 100, 512, 0.9665, 0.0017, 51222, 614400, 4000);
	r[3].w = 0.3;
	r[4] = row(LIK_KERNEL_MINMAX, 100, 16, 0.9625, 0.0031, 1600, 1200, 4000);	/* 0.40 below */
	r[5] = row(LIK_KERNEL_ACOS, 100, 2, 0.9610, 0.0300, 200, 1200, 4000);	/* 0.55 below */
	r[6] = row(LIK_KERNEL_ACOS, 100, 2, 0.9900, 0.0010, 200, 1200, 39992);	/* other rows */
	assert_kept(r, 2, 2, (const int[]){ F, A }, (const double[]){ 0, 0.3 });
	/* a third place goes to the next best score that passes: aNNE w = 0; no fourth */
	assert_kept(r, 3, 3, (const int[]){ F, A, A }, (const double[]){ 0, 0.3, 0 });
	assert_kept(r, 8, 3, (const int[]){ F, A, A }, (const double[]){ 0, 0.3, 0 });
	/* the cheapest also the best: then the next best score (aNNE w = 0.3), not the cheaper w = 0 */
	r[2].score = 0.9670;
	assert_kept(r, 2, 2, (const int[]){ F, A }, (const double[]){ 0, 0.3 });
	r[2].score = 0.9630;
	/* iForest's own se smaller: the difference's se (0.0020) no longer covers 0.35 points */
	r[2].se = 0.0010;
	assert_kept(r, 2, 2, (const int[]){ A, A }, (const double[]){ 0, 0.3 });
	/* plain linear the best: it sets the screen but is never kept; nothing else passes */
	r[0].score = 0.9900;
	r[0].se = 0.0001;
	assert_kept(r, 2, 1, (const int[]){ A }, (const double[]){ 0.3 });
	ck_assert_uint_eq(lik_auto_pick_confirmed(r, 7, 4000, 0, keep), 0);
	ck_assert_uint_eq(lik_auto_pick_confirmed(r, 7, 123, 2, keep), 0);
}
END_TEST

static int same_candidate(const struct lik_auto_row *a, const struct lik_auto_row *b)
{
	return a->kernel == b->kernel && a->t == b->t && a->psi == b->psi && a->scale == b->scale
		&& a->w == b->w;
}

/*
 * A search with a subsample (100 of 400 checkerboard rows): stage 2 tries
 * t = 1000 exactly where t = 300 beat its stage-1 base by more than the
 * base's standard error; stage 3 confirms at most options->confirm kernel
 * candidates: the cheapest kernel row that passes the subsample's screen
 * (at most the standard error of the difference, and at most 0.5 points,
 * below the best subsample score, plain linear's included) and the
 * best-scoring kernel row (when that came first, the next best score that
 * passes), nothing else; the same table on one thread and on two.
 */
START_TEST(stage_two_and_three_take_only_what_beats_the_noise)
{
	struct setup u;
	setup_make(&u, 400);
	ck_assert_int_eq(u.o.confirm, 2);
	u.o.subsample_rows = 100;
	struct lik_error err;
	struct lik_auto_table *t = lik_auto_search(&u.prob, &u.param, &u.base, 5, -1, &u.o, &err);
	ck_assert_msg(t != NULL, "%s", err.message);
	size_t sub_end = 0;	/* rows of stages 1 and 2 come first, on the 100 rows */
	while (sub_end < t->count && t->rows[sub_end].stage < 3) {
		ck_assert_int_eq(t->rows[sub_end].rows, 100);
		sub_end++;
	}
	/* stage 2: t = 1000 of a kernel iff its t = 300 beat the stage-1 row by over its se */
	for (size_t i = 0; i < sub_end; i++) {
		const struct lik_auto_row *b = &t->rows[i];
		if (b->stage != 1 || b->kernel == LIK_KERNEL_LINEAR || b->t != 100)
			continue;
		const struct lik_auto_row *at300 = NULL, *at1000 = NULL;
		for (size_t j = 0; j < sub_end; j++) {
			const struct lik_auto_row *r = &t->rows[j];
			if (r->stage == 2 && r->kernel == b->kernel && r->psi == b->psi
				&& r->scale == b->scale && r->t == 300)
				at300 = r;
			if (r->stage == 2 && r->kernel == b->kernel && r->psi == b->psi
				&& r->scale == b->scale && r->t == 1000)
				at1000 = r;
		}
		if (at300 == NULL) {
			ck_assert_ptr_null(at1000);
			continue;
		}
		double se = isnan(b->se) ? 0 : b->se;
		ck_assert_int_eq(at1000 != NULL, at300->score > b->score + se);
	}
	/* stage 3: plain linear, then the confirmed kernel rows, on all 400 rows */
	ck_assert_uint_gt(t->count, sub_end);
	ck_assert_int_eq(t->rows[sub_end].kernel, LIK_KERNEL_LINEAR);
	size_t confirmed = t->count - sub_end - 1;
	ck_assert_uint_ge(confirmed, 1);
	ck_assert_uint_le(confirmed, 2);
	long top_kernel = -1;
	for (size_t i = 0; i < sub_end; i++)
		if (t->rows[i].kernel != LIK_KERNEL_LINEAR
			&& (top_kernel < 0 || t->rows[i].score > t->rows[top_kernel].score))
			top_kernel = (long)i;
	/*
	 * The cheapest kernel that passes stage 3's screen: below the best
	 * subsample score (plain linear's included) by at most the standard
	 * error of the difference, sqrt(se_best^2 + se^2), and at most 0.5
	 * points. The screened kernel rows are given the best's score and no
	 * se, every other row none, so that lik_auto_choose's band holds
	 * exactly them and its order (columns, ops, w, S, C, earlier) picks.
	 */
	long best = -1;
	for (size_t i = 0; i < sub_end; i++)
		if (best < 0 || t->rows[i].score > t->rows[best].score)
			best = (long)i;
	double se_best = isnan(t->rows[best].se) ? 0 : t->rows[best].se;
	struct lik_auto_row *sub = malloc(sub_end * sizeof *sub);
	ck_assert_ptr_nonnull(sub);
	memcpy(sub, t->rows, sub_end * sizeof *sub);
	int screened = 0;
	for (size_t i = 0; i < sub_end; i++) {
		double se = isnan(sub[i].se) ? 0 : sub[i].se;
		double allowed = fmin(sqrt(se_best * se_best + se * se), 0.005);
		int pass = sub[i].kernel != LIK_KERNEL_LINEAR
			&& sub[i].score >= t->rows[best].score - allowed;
		sub[i].score = pass ? t->rows[best].score : NAN;
		sub[i].se = 0;
		screened += pass;
	}
	long cheapest = screened ? lik_auto_choose(sub, sub_end) : top_kernel;
	/* the second place: the best kernel, or when it came first the next best that passes */
	long second = top_kernel;
	if (cheapest == top_kernel) {
		second = -1;
		for (size_t i = 0; i < sub_end; i++)
			if (!isnan(sub[i].score) && (long)i != cheapest
				&& (second < 0 || t->rows[i].score > t->rows[second].score))
				second = (long)i;
	}
	free(sub);
	long want[2] = { cheapest, second };
	size_t expected = second < 0 ? 1 : 2;
	ck_assert_uint_eq(confirmed, expected);
	for (size_t k = 0; k < expected; k++) {
		const struct lik_auto_row *c = &t->rows[sub_end + 1 + k];
		ck_assert_int_eq(c->stage, 3);
		ck_assert_int_eq(c->rows, 400);
		ck_assert(same_candidate(c, &t->rows[want[k]]));
	}
	ck_assert_int_eq((long)t->best, lik_auto_choose(t->rows, t->count));
	ck_assert_int_eq(t->rows[t->best].rows, 400);
	/* the same table, stage 3 included, on one thread and on two (seconds aside) */
	for (int threads = 1; threads <= 2; threads++) {
		u.base.threads = threads;
		lik_set_threads(threads);
		struct lik_auto_table *again = lik_auto_search(&u.prob, &u.param, &u.base, 5, -1, &u.o,
			&err);
		ck_assert_msg(again != NULL, "%s", err.message);
		ck_assert_uint_eq(again->count, t->count);
		ck_assert_uint_eq(again->best, t->best);
		for (size_t i = 0; i < t->count; i++) {
			ck_assert(same_candidate(&again->rows[i], &t->rows[i]));
			ck_assert_double_eq(again->rows[i].C, t->rows[i].C);
			ck_assert_double_eq(again->rows[i].score, t->rows[i].score);
			ck_assert_int_eq(again->rows[i].rows, t->rows[i].rows);
		}
		lik_auto_table_free(&again);
	}
	lik_set_threads(0);
	lik_auto_table_free(&t);
	setup_free(&u);
}
END_TEST

static Suite *lik_auto_suite(void)
{
	Suite *s = suite_create("lik_auto");
	TCase *tc = tcase_create("auto");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, the_cheapest_within_one_standard_error_and_half_a_point);
	tcase_add_test(tc, ties_fall_to_ops_then_w_then_s_then_C_then_order);
	tcase_add_test(tc, a_search_keeps_fold_scores_and_its_text);
	tcase_add_test(tc, stage_two_and_three_take_only_what_beats_the_noise);
	tcase_add_test(tc, stage_three_screens_by_the_standard_error_of_the_difference);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(lik_auto_suite)
