/*
 * lik_auto.c - `train -C -k auto`: a kernel, its t, psi, S and C chosen
 * by staged searches (lik_auto_search in liblinear_ik.h, whose contract
 * says what it does).
 *
 * Why it is shaped so: every kernel's psi/C search is lik_search's, run
 * on one drawn subsample, so the kernels are ranked on the same rows at
 * the cost of one `-C -k` stage 1 each; only the two best of them are
 * tried at larger t (the costly part: mapping and training grow with t),
 * at the psi their own search chose, and on all rows only the subsample's
 * cost-aware choice and its best-scoring kernel are confirmed, each with
 * a bounded C walk. The final choice prefers the cheaper model among those
 * whose score the folds cannot tell apart from the best's, because a
 * model ten times larger that wins by a row is a bad trade for a user.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "find_parameters.h"
#include "lik_internal.h"
#include "print.h"

#define AUTO_FIRST_T 100
#define AUTO_SUBSAMPLE_ROWS 4000
/* stage 3's kernel candidates: the subsample's cost-aware choice and its best score */
#define AUTO_CONFIRM 2
/* options->confirm above this is cut to it */
#define AUTO_CONFIRM_MAX 8
#define AUTO_STAGE_TWO_KERNELS 2
/* the choice's second limit: never more than this below the best score (a fraction) */
#define AUTO_MAX_LOSS 0.005
/* as lik_search: below this C the score is noise, so the patience counts from it */
#define AUTO_PATIENCE_FROM_C 0.0625
#define AUTO_PATIENCE 3
/* an inner search's grid extension never takes longer than this (lik_search's default) */
#define AUTO_EXTENSION_SECONDS 300.0

/*
 * Stage 2's variations of a kernel's stage-1 best, a table so that new
 * transforms and weights join by a line each: t (0: keep), S (-1: keep),
 * w (-1: keep), and which kernel it applies to (0: any). The raw-feature
 * weights 0.3 and 1 are the (dna gained with 0.3, usps with
 * neither); their rows are no longer of norm 1, and lik_search's walks
 * scale their C constants by the rows' mean squared norm for that.
 */
struct variation {
	int kernel, t, scale;
	double w;
	int non_negative_only;	/* -S 4 takes log1p: refused on negative data */
	/*
	 * 1: tried only when the entry before it (for the same kernel) scored
	 * above the stage-1 base by more than the base's standard error. t =
	 * 1000 costs about 3x t = 300 in mapping and training; when tripling t
	 * to 300 gained nothing the folds can tell from noise, the score has
	 * levelled off in t (satimage's anne: 91.25% at t = 100 and 300,
	 * 91.35% at 1000 for 29 of the search's 200 s, load 4.5-7; ijcnn1's
	 * anne: 96.50%, 96.60%, 96.67% on 4000 rows, standard error about 0.3
	 * points, and t = 1000 then cost 99 s on all rows).
	 */
	int after_gain;
};
static const struct variation stage_two[] = {
	{ 0, 300, -1, -1, 0, 0 },
	{ 0, 1000, -1, -1, 0, 1 },
	{ LIK_KERNEL_ANNE, 0, 2, -1, 0, 0 },
	{ LIK_KERNEL_ANNE, 0, 4, -1, 1, 0 },
	{ 0, 0, -1, 0.3, 0, 0 },
	{ 0, 0, -1, 1, 0, 0 },
};

static const int stage_one_kernels[] = { LIK_KERNEL_ANNE, LIK_KERNEL_IFOREST, LIK_KERNEL_MINMAX,
	LIK_KERNEL_ACOS };
#define KERNEL_COUNT (sizeof stage_one_kernels / sizeof stage_one_kernels[0])

void lik_auto_options_default(struct lik_auto_options *o)
{
	memset(o, 0, sizeof *o);
	o->subsample_rows = AUTO_SUBSAMPLE_ROWS;
	o->confirm = AUTO_CONFIRM;
	o->scale = -1;
	o->budget = -1;
	o->w = -1;
}

void lik_auto_table_free(struct lik_auto_table **table)
{
	if (table == NULL || *table == NULL)
		return;
	free((*table)->rows);
	free((*table)->fold_scores);
	free(*table);
	*table = NULL;
}

const char *lik_auto_kernel_name(int kernel)
{
	const char *name = lik_kernel_name(kernel);	/* the -k names; the table adds plain linear */
	return name ? name : "linear";
}

/*
 * The choice rule. A tie on every key keeps the earlier row, so the
 * result depends on the table's order only, never on timings.
 */
static int cheaper(const struct lik_auto_row *a, const struct lik_auto_row *b)
{
	if (a->columns != b->columns)
		return a->columns < b->columns;
	if (a->ops != b->ops)
		return a->ops < b->ops;
	if (a->w != b->w)
		return a->w < b->w;
	if (a->scale != b->scale)
		return a->scale < b->scale;
	return a->C < b->C;
}

/*
 * The best-scoring row among those scored on `rows` rows (-1: none) and
 * the floor of the choice's band below it: one standard error of its
 * folds, and never more than AUTO_MAX_LOSS.
 */
static long band_of(const struct lik_auto_row *rows, size_t count, int on_rows, double *floor)
{
	long top = -1;
	for (size_t i = 0; i < count; i++)
		if (rows[i].rows == on_rows && !isnan(rows[i].score)
			&& (top < 0 || rows[i].score > rows[top].score))
			top = (long)i;
	if (top < 0)
		return -1;
	double se = isnan(rows[top].se) ? 0 : rows[top].se;
	double floor_se = rows[top].score - se;
	double floor_loss = rows[top].score - AUTO_MAX_LOSS;
	*floor = floor_se > floor_loss ? floor_se : floor_loss;
	return top;
}

static int in_band(const struct lik_auto_row *r, int on_rows, double floor)
{
	return r->rows == on_rows && !isnan(r->score) && r->score >= floor;
}

long lik_auto_choose(const struct lik_auto_row *rows, size_t count)
{
	if (count == 0)
		return -1;
	/* only rows scored on the most rows compete: scores on a subsample are not comparable */
	int most = 0;
	for (size_t i = 0; i < count; i++)
		if (rows[i].rows > most)
			most = rows[i].rows;
	double floor;
	long chosen = band_of(rows, count, most, &floor);
	if (chosen < 0)
		return -1;
	for (size_t i = 0; i < count; i++)
		if (in_band(&rows[i], most, floor) && cheaper(&rows[i], &rows[chosen]))
			chosen = (long)i;
	return chosen;
}

/* The standard deviation of the fold scores over sqrt(folds made); NaN with fewer than two. */
static double standard_error(const double *folds, int nr_fold)
{
	int n = 0;
	double sum = 0;
	for (int k = 0; k < nr_fold; k++)
		if (!isnan(folds[k])) {
			sum += folds[k];
			n++;
		}
	if (n < 2)
		return NAN;
	double mean = sum / n, ss = 0;
	for (int k = 0; k < nr_fold; k++)
		if (!isnan(folds[k]))
			ss += (folds[k] - mean) * (folds[k] - mean);
	return sqrt(ss / (n - 1)) / sqrt((double)n);
}

struct auto_state {
	const struct problem *prob;
	struct problem sample;
	int has_sample;
	const struct parameter *param;
	struct lik_map_params base;
	int nr_fold;
	double start_C;
	struct lik_auto_options opt;
	int dim;			/* raw features (without the bias node) */
	double mean_nnz;		/* raw nonzeros per row */
	int has_negative;
	double fixed_w;			/* >= 0: every kernel candidate's w (given); -1: searched */
	double started;
	struct lik_auto_table *table;
	size_t capacity;
	size_t skipped_count;
};

static int append_row(struct auto_state *s, const struct lik_auto_row *row, const double *folds,
	struct lik_error *err)
{
	struct lik_auto_table *t = s->table;
	size_t nf = (size_t)s->nr_fold;
	void *rows = t->rows;
	int rc = lik_table_reserve(&rows, sizeof *t->rows, &t->fold_scores, nf, t->count,
		&s->capacity, err);
	t->rows = rows;
	if (rc != 0)
		return -1;
	memcpy(&t->fold_scores[t->count * nf], folds, nf * sizeof *folds);
	t->rows[t->count] = *row;
	t->rows[t->count].se = standard_error(folds, s->nr_fold);
	if (s->opt.on_row != NULL)
		s->opt.on_row(&t->rows[t->count], s->opt.context);
	t->count++;
	return 0;
}

/* The fixed costs of the contract: model columns and map operations per row. */
static void set_costs(const struct auto_state *s, struct lik_auto_row *r)
{
	double t = r->t, psi = r->psi;
	int depth = 0;
	while ((1 << depth) < r->psi && depth < 30)
		depth++;	/* ceil(log2 psi): an iForest path's length at most */
	switch (r->kernel) {
	case LIK_KERNEL_ANNE:
		r->columns = t * psi;
		r->ops = t * psi * s->mean_nnz;
		break;
	case LIK_KERNEL_IFOREST:
		r->columns = t * psi;
		r->ops = t * depth;
		break;
	case LIK_KERNEL_MINMAX:
		r->columns = t * psi;
		r->ops = t * s->mean_nnz;
		break;
	case LIK_KERNEL_ACOS:
		r->columns = 2 * t;
		r->ops = t * s->mean_nnz;
		break;
	default:
		r->columns = s->dim;
		r->ops = 0;
		break;
	}
	if (r->w > 0 && r->kernel != LIK_KERNEL_LINEAR)
		r->columns += s->dim;
}

static int over_budget(const struct auto_state *s)
{
	return s->opt.budget >= 0 && lik_seconds_now() - s->started >= s->opt.budget;
}

/* Appends "; " and a skipped candidate's words to table->skipped (cut at its size). */
static void note_skipped(struct auto_state *s, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
static void note_skipped(struct auto_state *s, const char *format, ...)
{
	struct lik_auto_table *t = s->table;
	t->stopped = 1;
	size_t used = strlen(t->skipped);
	if (used + 1 >= sizeof t->skipped)
		return;
	if (used > 0)
		used += (size_t)snprintf(t->skipped + used, sizeof t->skipped - used, "; ");
	if (used + 1 >= sizeof t->skipped)
		return;
	va_list ap;
	va_start(ap, format);
	vsnprintf(t->skipped + used, sizeof t->skipped - used, format, ap);
	va_end(ap);
	s->skipped_count++;
}

/* Plain linear on prob: upstream's sweep (patience 0) or, from C0 > 0, the patient walk. */
static int plain_row(struct auto_state *s, const struct problem *prob, int stage, double C0,
	struct lik_error *err)
{
	double started = lik_seconds_now();
	struct row_set X;
	struct ikmap *map;
	void *cells;
	if (lik_kernel_rows(prob, NULL, &X, &map, &cells, err) != 0)
		return -1;
	double *folds = malloc((size_t)s->nr_fold * sizeof *folds);
	if (folds == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	for (int k = 0; k < s->nr_fold; k++)
		folds[k] = NAN;
	struct lik_auto_row r = { .kernel = LIK_KERNEL_LINEAR, .rows = prob->l, .stage = stage };
	double p;
	bool was_muted = info_mute(!s->opt.verbose);
	find_parameters_rows_folds(&X, prob->y, prob->bias, s->param, s->nr_fold,
		C0 > 0 ? C0 : s->start_C, -1, C0 > 0 ? AUTO_PATIENCE : 0, AUTO_PATIENCE_FROM_C,
		&r.C, &p, &r.score, folds);
	info_mute(was_muted);
	if (isnan(r.score)) {
		free(folds);
		lik_fail(err, LIK_ENOMEM, "out of memory in parameter search");
		return -1;
	}
	set_costs(s, &r);
	r.seconds = lik_seconds_now() - started;
	int rc = append_row(s, &r, folds, err);
	free(folds);
	return rc;
}

/* 1: the library refuses the candidate's options (or minmax's data): it is skipped, not run. */
static int refused(const struct auto_state *s, const struct problem *prob, int kernel, int t,
	int psi, int scale, double w)
{
	struct lik_map_params k = s->base;
	k.kernel = kernel;
	k.t = t;
	k.raw_weight = w;
	k.psi = psi != 0 ? psi : lik_psi_grid_of(kernel, INT_MAX, LIK_SEARCH_PSI_MAX).first;
	k.scale = scale;
	struct lik_error why;
	if (lik_map_params_check(&k, &why) != 0)
		return 1;
	if (kernel == LIK_KERNEL_MINMAX && scale != 2 && s->has_negative)
		return 1;	/* minmax takes non-negative rows only without -S 2 */
	return kernel != LIK_KERNEL_ACOS && kernel != LIK_KERNEL_MINMAX && psi > prob->l;
}

/*
 * One kernel candidate on prob: lik_search with psi 0 (searched) or the
 * given psi, C walked up from C0 (> 0) or lik_search's own start, or with
 * around_C > 0 (a given psi) the short walk about around_C instead. A
 * candidate the library refuses (its parameters) is skipped: *ran 0.
 */
static int kernel_row(struct auto_state *s, const struct problem *prob, int stage, int kernel,
	int t, int psi, int scale, double w, double C0, double around_C, int *ran,
	struct lik_error *err)
{
	*ran = 0;
	struct lik_map_params k = s->base;
	k.kernel = kernel;
	k.t = t;
	k.psi = psi;
	k.scale = scale;
	k.raw_weight = w;
	if (refused(s, prob, kernel, t, psi, scale, w))
		return 0;
	struct lik_search_options so;
	lik_search_options_default(&so);
	so.subsample_rows = 0;	/* the rows given are the stage's rows */
	so.verbose = s->opt.verbose;
	so.time_budget = AUTO_EXTENSION_SECONDS;
	/*
	 * minmax's cell is (i* - 1) mod 2^b for the chosen feature i* <= d: once
	 * 2^b >= d every feature has a cell of its own, so larger 2^b give the
	 * same map (the same scores, more columns). Its grid (16, 64, ...) stops
	 * at the first 2^b >= d (satimage, d = 36: 64 and above scored alike,
	 * 88.65%, and 2^b = 1024 and 4096 took 26 of its 47 s).
	 */
	if (kernel == LIK_KERNEL_MINMAX && psi == 0) {
		int g = LIK_SEARCH_MINMAX_MIN;
		while (g < s->dim && g < LIK_SEARCH_MINMAX_MAX)
			g *= LIK_SEARCH_MINMAX_FACTOR;
		so.grid_max = g;
	}
	if (s->opt.budget >= 0) {
		double left = s->opt.budget - (lik_seconds_now() - s->started);
		so.time_budget = left < so.time_budget ? (left > 0 ? left : 0) : so.time_budget;
	}
	double started = lik_seconds_now();
	struct lik_search_table *st = lik_search_run(prob, s->param, &k, s->nr_fold,
		C0 > 0 ? C0 : s->start_C, -1, &so, 0, around_C, err);
	if (st == NULL)
		return -1;
	const struct lik_search_row *b = &st->rows[st->best];
	struct lik_auto_row r = { .kernel = kernel, .t = t, .psi = b->psi, .scale = scale, .w = w,
		.C = b->C, .score = b->score, .rows = b->rows, .stage = stage };
	set_costs(s, &r);
	r.seconds = lik_seconds_now() - started;
	int rc = append_row(s, &r, &st->fold_scores[st->best * (size_t)st->nr_fold], err);
	lik_search_table_free(&st);
	*ran = rc == 0;
	return rc;
}

/* Each kernel's own -S: the user's, else its default (minmax: 2 on negative data). */
static int scale_of(const struct auto_state *s, int kernel)
{
	if (s->opt.scale >= 0)
		return s->opt.scale;
	struct lik_map_params d;
	lik_map_params_default(&d, kernel);
	if (kernel == LIK_KERNEL_MINMAX && s->has_negative)
		return 2;
	return d.scale;
}

/* Indices of the table's rows from `from` on, best score first (ties: earlier first). */
static void rank_rows(const struct lik_auto_table *t, size_t from, size_t *order, size_t *n,
	int kernels_only)
{
	*n = 0;
	for (size_t i = from; i < t->count; i++)
		if (!kernels_only || t->rows[i].kernel != LIK_KERNEL_LINEAR)
			order[(*n)++] = i;
	for (size_t i = 1; i < *n; i++) {	/* insertion sort: stable, so ties keep their order */
		size_t v = order[i], j = i;
		while (j > 0 && t->rows[order[j - 1]].score < t->rows[v].score) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = v;
	}
}

/*
 * Stage 3's screen: 1 when the subsample cannot tell row r from its best
 * row `top` (plain linear's included): r scores below it by no more than
 * the standard error of the difference of the two scores,
 * sqrt(se_top^2 + se_r^2), and by at most AUTO_MAX_LOSS. Wider than the
 * choice's band (the best's standard error alone) on purpose: the band
 * decides among scores on all rows; the screen only decides which
 * candidates get such scores, and a subsample of 4000 rows ranks kernels
 * that learn at different rates by a noisy margin. ijcnn1: iForest t =
 * 100, psi = 512 scored 96.30% (se 0.31) against aNNE's best 96.65%
 * (se 0.17) on the subsample, outside aNNE's band (96.48%), and on all
 * 39992 rows 98.42% against aNNE's 98.41%, as good, with a map of 900
 * operations a row against 614400.
 * The two scores share their folds, and the paired difference's spread
 * would be smaller (0.23 there, which leaves iForest out), but the
 * fold-to-fold spread says nothing of how the ranking moves from 4000
 * rows to all of them, which is what the screen guards against; the
 * unpaired form is the wider, cheap to state, and the 0.5-point cap
 * bounds what it can add.
 */
static int in_screen(const struct lik_auto_row *r, const struct lik_auto_row *top, int on_rows)
{
	if (r->rows != on_rows || isnan(r->score))
		return 0;
	double a = isnan(top->se) ? 0 : top->se, b = isnan(r->se) ? 0 : r->se;
	double allowed = sqrt(a * a + b * b);
	return r->score >= top->score - (allowed < AUTO_MAX_LOSS ? allowed : AUTO_MAX_LOSS);
}

/*
 * Stage 3's kernel candidates, at most `want`, into keep[] (returns how
 * many): of the kernel rows scored on the subsample (on_rows rows) that
 * pass the screen (in_screen), first the cheapest by the choice rule's
 * order (cheaper), then the best-scoring kernel row, then the next best
 * scores that pass. The cheapest that passes is the one the choice on all
 * rows may take; the best score is what it must be compared with there.
 * A kernel row that fails the screen lost to another candidate by more
 * than the folds' noise already; confirming it on all rows is the costly
 * part of the search (letter: aNNE t = 1000, psi = 1024, 277 of 541 s,
 * not chosen), so it is not. The best-scoring kernel always goes, so that
 * a kernel whose gain needs more rows than the subsample's can still
 * show it.
 */
size_t lik_auto_pick_confirmed(const struct lik_auto_row *rows, size_t count, int on_rows,
	size_t want, struct lik_auto_row *keep)
{
	double floor;
	long best = want == 0 ? -1 : band_of(rows, count, on_rows, &floor);
	if (best < 0)
		return 0;
	long top = -1;
	for (size_t i = 0; i < count; i++) {
		const struct lik_auto_row *r = &rows[i];
		if (r->kernel != LIK_KERNEL_LINEAR && r->rows == on_rows && !isnan(r->score)
			&& (top < 0 || r->score > rows[top].score))
			top = (long)i;
	}
	if (top < 0)
		return 0;
	size_t m = 0;
	long taken[AUTO_CONFIRM_MAX];
	if (want > AUTO_CONFIRM_MAX)
		want = AUTO_CONFIRM_MAX;
	while (m < want) {
		long next = -1;
		for (size_t i = 0; i < count; i++) {
			const struct lik_auto_row *r = &rows[i];
			int used = 0;
			for (size_t j = 0; j < m; j++)
				used |= taken[j] == (long)i;
			int screened = r->kernel != LIK_KERNEL_LINEAR && in_screen(r, &rows[best], on_rows);
			/* the best-scoring kernel may go unscreened (plain linear leads), never first */
			if (used || !(screened || (m > 0 && (long)i == top)))
				continue;
			/* the first place: the cheapest; the others: the best score (ties: the earlier) */
			if (next < 0 || (m == 0 ? cheaper(r, &rows[next]) : r->score > rows[next].score))
				next = (long)i;
		}
		if (next < 0 && m == 0)
			next = top;	/* none passes the screen: the best-scoring kernel still goes */
		if (next < 0)
			break;
		taken[m] = next;
		keep[m++] = rows[next];
	}
	return m;
}

static int run_stages(struct auto_state *s, struct lik_error *err)
{
	struct lik_auto_table *t = s->table;
	int first_t = s->opt.t > 0 ? s->opt.t : AUTO_FIRST_T;
	double first_w = s->fixed_w >= 0 ? s->fixed_w : 0;
	/* stage 1: plain linear always runs (the valid best when the budget stops all else) */
	if (plain_row(s, &s->sample, 1, -1, err) != 0)
		return -1;
	for (size_t i = 0; i < KERNEL_COUNT; i++) {
		int kernel = stage_one_kernels[i];
		int psi = kernel == LIK_KERNEL_ACOS ? 0 : s->opt.psi;
		if (over_budget(s)) {
			if (!refused(s, &s->sample, kernel, first_t, psi, scale_of(s, kernel), first_w))
				note_skipped(s, "stage 1 %s", lik_auto_kernel_name(kernel));
			continue;
		}
		int ran;
		if (kernel_row(s, &s->sample, 1, kernel, first_t, psi, scale_of(s, kernel), first_w, -1,
			-1, &ran, err) != 0)
			return -1;
	}
	/* stage 2: the best two kernels of stage 1 with each variation */
	size_t *order = malloc((t->count + 1) * sizeof *order);
	if (order == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	size_t n;
	rank_rows(t, 0, order, &n, 1);
	size_t two = n < AUTO_STAGE_TWO_KERNELS ? n : AUTO_STAGE_TWO_KERNELS;
	struct lik_auto_row base[AUTO_STAGE_TWO_KERNELS];
	for (size_t i = 0; i < two; i++)
		base[i] = t->rows[order[i]];
	for (size_t i = 0; i < two; i++) {
		const struct lik_auto_row *b = &base[i];
		int gained = 0;	/* the last entry run for this kernel scored above the base */
		for (size_t v = 0; v < sizeof stage_two / sizeof stage_two[0]; v++) {
			const struct variation *x = &stage_two[v];
			if (x->kernel != 0 && x->kernel != b->kernel)
				continue;
			if (x->after_gain && !gained)
				continue;
			gained = 0;
			int vt = x->t > 0 ? x->t : b->t;
			int vs = x->scale >= 0 ? x->scale : b->scale;
			double vw = x->w >= 0 ? x->w : b->w;
			/* what the user fixed is not varied: such an entry repeats the base */
			if ((s->opt.t > 0 && vt != b->t) || (s->opt.scale >= 0 && vs != b->scale)
				|| (s->fixed_w >= 0 && vw != b->w))
				continue;
			if (vt == b->t && vs == b->scale && vw == b->w)
				continue;
			if (x->non_negative_only && s->has_negative)
				continue;
			int ran;
			int psi = b->kernel == LIK_KERNEL_ACOS ? 0 : b->psi;
			if (over_budget(s)) {
				if (!refused(s, &s->sample, b->kernel, vt, psi, vs, vw))
					note_skipped(s, "stage 2 %s t = %d S = %d w = %g",
						lik_auto_kernel_name(b->kernel), vt, vs, vw);
				continue;
			}
			/*
			 * C walked up from a quarter of the base's best: the peak moves
			 * little with t or S. A new w changes the rows' norms, so its
			 * walk starts where lik_search's own does, scaled to them.
			 */
			double from = vw == b->w ? b->C / 4 : -1;
			if (kernel_row(s, &s->sample, 2, b->kernel, vt, psi, vs, vw, from, -1, &ran,
				err) != 0) {
				free(order);
				return -1;
			}
			/* a gain the base's folds cannot tell from noise does not pay a larger t */
			gained = ran && t->rows[t->count - 1].score > b->score + (isnan(b->se) ? 0 : b->se);
		}
	}
	/* stage 3: plain linear and the kernel candidates lik_auto_pick_confirmed keeps, on all rows */
	free(order);
	order = NULL;
	if (s->has_sample) {
		size_t want = (size_t)(s->opt.confirm > 0 ? s->opt.confirm : 1);
		struct lik_auto_row *keep = malloc((want + 1) * sizeof *keep);
		if (keep == NULL) {
			lik_fail(err, LIK_ENOMEM, "out of memory");
			return -1;
		}
		size_t m = lik_auto_pick_confirmed(t->rows, t->count, s->sample.l, want, keep);
		double plain_C = t->rows[0].C;
		if (over_budget(s))
			note_skipped(s, "stage 3 plain linear on all rows");
		else if (plain_row(s, s->prob, 3, plain_C / 4, err) != 0) {
			free(keep);
			return -1;
		}
		for (size_t i = 0; i < m; i++) {
			const struct lik_auto_row *c = &keep[i];
			if (over_budget(s)) {
				note_skipped(s, "stage 3 %s t = %d psi = %d on all rows",
					lik_auto_kernel_name(c->kernel), c->t, c->psi);
				continue;
			}
			int ran;
			int psi = c->kernel == LIK_KERNEL_ACOS ? 0 : c->psi;
			/* the short walk about the subsample's best C: a bounded number of all-row scores */
			if (kernel_row(s, s->prob, 3, c->kernel, c->t, psi, c->scale, c->w, -1, c->C,
				&ran, err) != 0) {
				free(keep);
				return -1;
			}
		}
		free(keep);
	}
	return 0;
}

struct lik_auto_table *lik_auto_search(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *base, int nr_fold, double start_C,
	const struct lik_auto_options *options, struct lik_error *err)
{
	if (prob == NULL || param == NULL || base == NULL
		|| (prob->l > 0 && (prob->x == NULL || prob->y == NULL))) {
		lik_fail(err, LIK_EINVAL, "no problem, parameter or map parameters given");
		return NULL;
	}
	if (param->solver_type != L2R_L2LOSS_SVC && param->solver_type != L2R_LR) {
		lik_fail(err, LIK_EINVAL, "-k auto searches classifiers with -s 2 (the default) or -s 0 only");
		return NULL;
	}
	if (prob->l < LIK_SEARCH_PSI_MIN) {
		lik_fail(err, LIK_EDATA, "-k auto needs at least %d training rows", LIK_SEARCH_PSI_MIN);
		return NULL;
	}
	if (nr_fold < 2) {
		lik_fail(err, LIK_EINVAL, "n-fold cross validation: n must >= 2");
		return NULL;
	}
	/* a given weight fixes every kernel candidate's (options->w, else base's when above 0) */
	double fixed_w = options != NULL && options->w >= 0 ? options->w
		: base->raw_weight > 0 ? base->raw_weight : -1;
	if (!(fixed_w == -1 || (fixed_w >= 0 && isfinite(fixed_w)))) {
		lik_fail(err, LIK_EINVAL, "-a needs the raw features' weight w, a finite number >= 0");
		return NULL;
	}
	const char *why = check_parameter(prob, param);
	if (why != NULL) {
		lik_fail(err, LIK_EINVAL, "%s", why);
		return NULL;
	}
	struct auto_state s = { .prob = prob, .param = param, .base = *base, .nr_fold = nr_fold,
		.start_C = start_C, .fixed_w = fixed_w };
	if (options != NULL)
		s.opt = *options;
	else
		lik_auto_options_default(&s.opt);
	s.started = lik_seconds_now();
	s.dim = prob->bias >= 0 ? prob->n - 1 : prob->n;
	size_t nnz = 0;
	for (int i = 0; i < prob->l; i++)
		for (const struct feature_node *f = prob->x[i]; f->index != -1; f++)
			nnz += f->index <= s.dim;
	s.mean_nnz = (double)nnz / prob->l;
	size_t row;
	int feature;
	s.has_negative = lik_first_negative(prob->x, (size_t)prob->l, s.dim, &row, &feature);
	s.table = calloc(1, sizeof *s.table);
	if (s.table == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	s.table->nr_fold = nr_fold;
	if (lik_draw_rows(prob, s.opt.subsample_rows, base->seed, &s.sample, &s.has_sample, err) != 0) {
		lik_auto_table_free(&s.table);
		return NULL;
	}
	int rc = run_stages(&s, err);
	if (s.has_sample) {
		free(s.sample.x);
		free(s.sample.y);
	}
	if (rc != 0) {
		lik_auto_table_free(&s.table);
		return NULL;
	}
	struct lik_auto_table *t = s.table;
	t->best = (size_t)lik_auto_choose(t->rows, t->count);
	/* the plain row on the best's rows (stage 3's or stage 1's) */
	t->plain = 0;
	for (size_t i = 0; i < t->count; i++)
		if (t->rows[i].kernel == LIK_KERNEL_LINEAR && t->rows[i].rows == t->rows[t->best].rows)
			t->plain = i;
	t->kernel_wins = 0;
	for (size_t i = 0; i < t->count; i++)
		if (t->rows[i].kernel != LIK_KERNEL_LINEAR && t->rows[i].rows == t->rows[t->plain].rows
			&& t->rows[i].score > t->rows[t->plain].score)
			t->kernel_wins = 1;
	lik_ok(err);
	return t;
}

static void fields_text(const struct lik_auto_row *r, char **text, size_t *size, int *need)
{
	lik_append_text(text, size, need, "kernel = %s  t = %d  psi = %d  S = %d  w = %g  C = %g  "
		"CV accuracy = %.2f%%", lik_auto_kernel_name(r->kernel), r->t, r->psi, r->scale, r->w,
		r->C, 100.0 * r->score);
}

int lik_auto_row_text(const struct lik_auto_row *r, char *text, size_t size)
{
	int need = 0;
	if (size > 0)
		text[0] = '\0';
	fields_text(r, &text, &size, &need);
	lik_append_text(&text, &size, &need, "  (%d rows, %.1f s)", r->rows, r->seconds);
	return need;
}

int lik_auto_summary_text(const struct lik_auto_table *t, char *text, size_t size)
{
	int need = 0;
	if (size > 0)
		text[0] = '\0';
	const struct lik_auto_row *best = &t->rows[t->best];
	const struct lik_auto_row *plain = &t->rows[t->plain];
	lik_append_text(&text, &size, &need, "Best ");
	fields_text(best, &text, &size, &need);
	lik_append_text(&text, &size, &need, "  (%d rows, %.0f columns)\n", best->rows, best->columns);
	lik_append_text(&text, &size, &need, "plain linear: best C = %g, CV accuracy = %.2f%% (%d rows)\n",
		plain->C, 100.0 * plain->score, plain->rows);
	/* advice only where a kernel was scored on the same rows as plain linear */
	int kernels_there = 0;
	for (size_t i = 0; i < t->count; i++)
		kernels_there |= t->rows[i].kernel != LIK_KERNEL_LINEAR && t->rows[i].rows == plain->rows;
	if (best->kernel == LIK_KERNEL_LINEAR && kernels_there)
		lik_append_text(&text, &size, &need, t->kernel_wins
			? "no kernel beats plain linear training by more than the folds' noise on this "
			"data: train without -k\n"
			: "the kernels do not beat plain linear training on this data: train without -k\n");
	if (t->stopped)
		lik_append_text(&text, &size, &need, "note: the time budget stopped the search; skipped: %s\n",
			t->skipped);
	return need;
}
