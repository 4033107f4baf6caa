/*
 * lik_search.c - the affordable psi and C search of `train -C -k`
 * (lik_search in liblinear_ik.h, whose contract says what it does).
 *
 * Why it is shaped so: the exhaustive search (lik_find_parameters) maps
 * all rows at every psi and sweeps C to 1024 at each, because on mapped
 * rows the weights never stop moving and upstream's early stop never
 * fires. Here psi is ranked on a subsample with C walks that stop once
 * the CV score has not improved for a few steps; only the best psi (and a
 * close runner-up) are mapped on all rows, where a short walk about the
 * subsample's best C replaces the walk from C_min. The kernel's walks are
 * scored by the dual solver of the same problem, warm-started from C to C
 * (on letter's mapped rows 20 to 80 times faster than the primal Newton
 * solver at one C). The folds of every walk train in parallel (OpenMP,
 * -m), and mapping runs on all threads; every score is independent of the
 * thread count, so is every choice here.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "find_parameters.h"
#include "lik_internal.h"
#include "print.h"
#include "rng.h"

#define DEFAULT_PATIENCE 3
/* the dual solvers' own default tolerance (upstream's -e for -s 1 and -s 7) */
#define DUAL_SCORING_EPS 0.1
/*
 * Every mapped row has norm 1 (t cells of 1/sqrt(t)), so C has the same
 * scale on any data: below 1/16 the models are heavily regularised, their
 * CV score wanders by a row or two (measured: pendigits psi 512 stopped at
 * C = 2^-12 with 98.4% against 99.4% at C = 32) and each step is cheap.
 */
#define PATIENCE_FROM_C 0.0625
/*
 * Where the kernel's rising walks start (unless -c gives a start): upstream
 * starts at 1 / (2 l max||x||^2), 2^-13 on 4000 norm-1 rows, and its first
 * seven steps cost a third of a walk (letter's subsample, psi 1024: 5.5 of
 * 9 s) for scores far below the peak (86.5% against 89.5%). Two steps below
 * PATIENCE_FROM_C, the walk still sees the score rise before it may stop.
 */
#define KERNEL_FIRST_C 0.015625

/*
 * The two constants above assume rows of squared norm 1. Raw features
 * beside the cells (-a w, issue 28) add w^2 ||x'||^2 to each row's squared
 * norm, and scaling a row by a scales the loss as C a^2 does, so both are
 * divided by the mean squared norm of the rows (bias excluded), rounded
 * to a power of two so that the walks keep upstream's grid of C = 2^k:
 * exactly 1, and nothing computed, without a raw part, so those walks stay
 * as they were.
 */
static double row_norm_unit(const struct row_set *X)
{
	if (X->kind != ROWS_CELLS || X->raw == NULL || X->l <= 0)
		return 1;
	double sum = 0;	/* in row order: the same sum whatever the threads */
	for (int i = 0; i < X->l; i++) {
		double q = (double)X->t * X->cell_value * X->cell_value;
		for (const struct feature_node *f = X->raw[i]; f->index != -1; f++)
			q += f->value * f->value;
		sum += q;
	}
	return exp2(round(log2(sum / X->l)));
}
#define DEFAULT_SUBSAMPLE_ROWS 4000
#define DEFAULT_CONFIRM 2
#define DEFAULT_MAX_PSI 16384
#define DEFAULT_TIME_BUDGET 300.0
/* a doubled psi costs about this much more than the last one (mapping is linear in psi) */
#define NEXT_PSI_COST_FACTOR 2.0
/* the subsample's own seed, apart from the map's use of the same seed */
#define SUBSAMPLE_SEED_SALT 0x5eedc0ffee21ULL

void lik_search_options_default(struct lik_search_options *o)
{
	memset(o, 0, sizeof *o);
	o->patience = DEFAULT_PATIENCE;
	o->subsample_rows = DEFAULT_SUBSAMPLE_ROWS;
	o->confirm = DEFAULT_CONFIRM;
	o->grid_max = LIK_SEARCH_PSI_MAX;
	o->max_psi = DEFAULT_MAX_PSI;
	o->time_budget = DEFAULT_TIME_BUDGET;
	o->dual_scoring = 1;
}

void lik_search_table_free(struct lik_search_table **table)
{
	if (table == NULL || *table == NULL)
		return;
	free((*table)->rows);
	free((*table)->fold_scores);
	lik_map_free(&(*table)->best_map);
	free(*table);
	*table = NULL;
}

/* See lik_internal.h. */
double lik_seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct search_state {
	const struct problem *prob;	/* all rows */
	struct problem sample;		/* stage 1's rows (== *prob when no subsample) */
	int has_sample;
	const struct parameter *param;
	const struct lik_map_params *kernel;
	int nr_fold;
	double start_C, start_p;
	struct lik_search_options opt;
	int regression;
	struct lik_search_table *table;
	size_t capacity;
	int with_plain;		/* 0: no plain baseline row (-k auto scores plain rows once itself) */
	double around_C;	/* > 0: a fixed psi's walk is the short walk about it (lik_search_run) */
	int full_l;		/* rows of the whole problem (prob->l, or the spread rows') */
	const struct lik_spread_rows *spread;	/* NULL, or who walks on all rows (lik_search_spread) */
	double *folds;		/* nr_fold slots: the fold scores of the walk being run */
};

static int best_full_row(const struct search_state *s);

static int better(const struct search_state *s, double score, double than)
{
	if (isnan(than))
		return 1;
	return s->regression ? score < than : score > than;
}

int lik_table_reserve(void **rows, size_t row_size, double **fold_scores, size_t nf,
	size_t count, size_t *capacity, struct lik_error *err)
{
	if (count < *capacity)
		return 0;
	size_t grown = *capacity ? 2 * *capacity : 16;
	void *r = realloc(*rows, grown * row_size);
	if (r == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	*rows = r;
	double *f = realloc(*fold_scores, grown * nf * sizeof *f);
	if (f == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	*fold_scores = f;
	*capacity = grown;
	return 0;
}

static int append_row(struct search_state *s, const struct lik_search_row *row,
	struct lik_error *err)
{
	struct lik_search_table *t = s->table;
	size_t nf = (size_t)s->nr_fold;
	void *rows = t->rows;
	int rc = lik_table_reserve(&rows, sizeof *t->rows, &t->fold_scores, nf, t->count,
		&s->capacity, err);
	t->rows = rows;
	if (rc != 0)
		return -1;
	memcpy(&t->fold_scores[t->count * nf], s->folds, nf * sizeof *s->folds);
	t->rows[t->count++] = *row;
	if (s->opt.on_row != NULL)
		s->opt.on_row(row, s->opt.context);
	return 0;
}

/*
 * The solver that scores the kernel's C walks: the dual of the same
 * problem (-s 1 for -s 2, -s 7 for -s 0). Its optimum is the primal's, and
 * on mapped rows (t nonzeros of norm 1 in t * psi columns, n >> rows of a
 * fold) dual coordinate descent reached it 20 to 80 times faster than the
 * primal Newton solver (letter, 4000 rows, psi 1024: 0.5 s against 11 s
 * at C = 8, 41 s at C = 64), with CV scores that differ by a row or two.
 * -1: the caller's own solver (-s 11, whose C and p walks stay upstream's;
 * -R, which the dual solvers refuse; or dual_scoring off).
 */
static int scoring_solver(const struct lik_walk_setup *w)
{
	if (!w->opt->dual_scoring || w->param->regularize_bias == 0)
		return -1;
	switch (w->param->solver_type) {
	case L2R_L2LOSS_SVC:
		return L2R_L2LOSS_SVC_DUAL;
	case L2R_LR:
		return L2R_LR_DUAL;
	default:
		return -1;
	}
}

struct walk_best {
	double C, score;
};

/* One kernel C walk: its scorer and the search's settings it reads. */
struct walk {
	const struct lik_walk_scorer *sc;
	double start_C;
	int patience;
	double *folds;		/* nr_fold slots: the fold scores at the walk's best C */
};

/* Classification scores: an accuracy, higher is better (a NaN never is). */
static int walk_better(double score, double than)
{
	return isnan(than) || score > than;
}

static int score_at(const struct walk *w, double C, struct walk_best *best, double *score)
{
	if (w->sc->at(w->sc->context, C, score) != 0)
		return -1;
	/* strictly better only: on a tie the C scored first stays */
	if (isnan(best->score) || walk_better(*score, best->score)) {
		*best = (struct walk_best){ C, *score };
		w->sc->fold_scores(w->sc->context, w->folds);	/* the best C's spread over the folds */
	}
	return 0;
}

/*
 * Upstream's walk, C doubling up to 1024, but from KERNEL_FIRST_C when
 * upstream's C_min lies below it (start_C, when given, as upstream), with
 * the kernel's early stop: the walk ends once `patience` steps have not
 * beaten its best, counted only after the score rose above its first value
 * and from C = PATIENCE_FROM_C on (as find_parameters_rows_patient).
 */
static int rising_walk(const struct walk *w, struct walk_best *best)
{
	double max_C = cv_scorer_max_C();
	double C = w->sc->first_C;
	double first_C = KERNEL_FIRST_C / w->sc->norm_unit;
	double patience_from = PATIENCE_FROM_C / w->sc->norm_unit;
	if (w->start_C <= 0 && C < first_C)
		C = first_C;
	double first = NAN;
	int without_gain = 0;
	for (; C <= max_C; C *= 2) {
		double before = best->score, score;
		if (score_at(w, C, best, &score) != 0)
			return -1;
		if (isnan(first)) {
			first = score;
			continue;
		}
		int risen = walk_better(best->score, first);
		if (best->score != before || isnan(before))
			without_gain = 0;
		else if (w->patience > 0 && risen && C >= patience_from
			&& ++without_gain >= w->patience)
			return 0;
	}
	info("WARNING: maximum C reached.\n");
	return 0;
}

/*
 * The short walk of the full-row stages, about C0 (the subsample's best C
 * for that psi, or the best row's): coarse steps of x4 up from C0 while
 * the score improves, then down, then the two x2 neighbours of the best,
 * within [the walk's first C, 1024]. The CV score is flat about its peak
 * (the exhaustive tables: neighbours of the best C within 0.1 points), so
 * a coarse bracket and one refinement find it in about six scores where a
 * walk from C_min takes twenty; on letter the best C on all rows lay x512
 * above the subsample's (psi 2048: 1/16 against 32), which the climb follows.
 * The refinement runs only when the coarse best could still win: it is not
 * below `rival` (the best score on all rows so far; NaN: none yet), as
 * the refinement moves a score by a few rows at most (letter, psi 4096:
 * two all-row scores saved, 95.8% against psi 2048's 95.94%).
 * Warm starts help going up (test_dual_cd): the down leg starts cold, and
 * the refinement goes up from the smallest C scored.
 */
static int around_walk(const struct walk *w, double C0, double rival, struct walk_best *best)
{
	double max_C = cv_scorer_max_C(), min_C = w->sc->first_C;
	C0 = C0 > max_C ? max_C : C0 < min_C ? min_C : C0;
	double score;
	if (score_at(w, C0, best, &score) != 0)
		return -1;
	for (int way = 0; way < 2; way++) {
		if (way == 1)
			w->sc->forget(w->sc->context);
		for (double C = way == 0 ? 4 * C0 : C0 / 4; C <= max_C && C >= min_C;
			C = way == 0 ? 4 * C : C / 4) {
			double before = best->score;
			if (score_at(w, C, best, &score) != 0)
				return -1;
			if (best->score == before)
				break;
		}
	}
	if (!isnan(rival) && walk_better(rival, best->score))
		return 0;
	double top = best->C;
	for (int way = 0; way < 2; way++) {
		double C = way == 0 ? top / 2 : 2 * top;
		if (C <= max_C && C >= min_C && score_at(w, C, best, &score) != 0)
			return -1;
	}
	return 0;
}

int lik_kernel_C_walk(const struct lik_walk_scorer *sc, double start_C, int patience, double C0,
	double rival, double *C, double *score, double *folds)
{
	struct walk w = { sc, start_C, patience, folds };
	struct walk_best best = { NAN, NAN };
	int rc = C0 > 0 ? around_walk(&w, C0, rival, &best) : rising_walk(&w, &best);
	*C = best.C;
	*score = best.score;
	return rc;
}

double lik_patience_from_C(double norm_unit)
{
	return PATIENCE_FROM_C / norm_unit;
}

/* lik_walk_scorer over a cv_scorer (this process's rows). */
static int cv_at(void *context, double C, double *score)
{
	return cv_scorer_at(context, C, -1, score);
}

static void cv_forget(void *context)
{
	cv_scorer_forget(context);
}

static void cv_fold_scores(void *context, double *out)
{
	cv_scorer_fold_scores(context, out);
}

/* The C walk of the kernel rows X (classification), by the scoring solver. */
static int kernel_walk(const struct lik_walk_setup *w, const struct row_set *X, const double *y,
	double bias, double C0, double rival, struct lik_search_row *row, double *folds)
{
	struct parameter param = *w->param;
	int st = scoring_solver(w);
	if (st >= 0) {
		param.solver_type = st;
		param.eps = DUAL_SCORING_EPS;
	}
	struct cv_scorer *sc = cv_scorer_new(X, y, bias, &param, w->nr_fold);
	if (sc == NULL)
		return -1;
	struct lik_walk_scorer ws = { cv_at, cv_forget, cv_fold_scores, sc,
		cv_scorer_first_C(sc, w->start_C), row_norm_unit(X) };
	int rc = lik_kernel_C_walk(&ws, w->start_C, w->opt->patience, C0, rival, &row->C,
		&row->score, folds);
	cv_scorer_free(sc);
	if (rc != 0)
		return -1;
	row->p = -1;
	return 0;
}

int lik_search_walk_rows(const struct lik_walk_setup *w, const struct row_set *X, const double *y,
	double bias, int psi, double C0, double rival, struct lik_search_row *row, double *folds,
	struct lik_error *err)
{
	*row = (struct lik_search_row){ psi, X->l, NAN, NAN, NAN, 0 };
	for (int k = 0; k < w->nr_fold; k++)
		folds[k] = NAN;	/* folds that a tiny set cannot make stay NaN */
	struct lik_capture capture;
	lik_capture_begin(&capture);
	bool was_muted = info_mute(!w->opt->verbose);
	if (psi > 0 && w->param->solver_type != L2R_L2LOSS_SVR) {
		if (kernel_walk(w, X, y, bias, C0, rival, row, folds) != 0)
			row->score = NAN;
	} else {
		/* the plain baseline is upstream's own sweep: what train -C prints as best */
		find_parameters_rows_folds(X, y, bias, w->param, w->nr_fold, w->start_C, w->start_p,
			psi > 0 ? w->opt->patience : 0,
			psi > 0 ? lik_patience_from_C(row_norm_unit(X)) : PATIENCE_FROM_C,
			&row->C, &row->p, &row->score, folds);
	}
	info_mute(was_muted);
	lik_capture_end(&capture);
	if (isnan(row->score)) {
		lik_fail_captured(err, LIK_ENOMEM, &capture, "out of memory in parameter search");
		return -1;
	}
	return 0;
}

/*
 * One C walk on prob's rows mapped at psi (0: plain rows, upstream's full
 * sweep). C0 > 0: the short walk about C0, else the rising walk (-s 11:
 * always its C and p walks). kept: the map is handed back (else freed).
 * 0, or -1.
 */
static int walk_at(struct search_state *s, const struct problem *prob, int psi, double C0,
	struct lik_search_row *row, struct ikmap **kept, struct lik_error *err)
{
	double started = lik_seconds_now();
	struct lik_map_params at;
	const struct lik_map_params *kernel = NULL;
	if (psi > 0) {
		at = *s->kernel;
		at.psi = psi;
		kernel = &at;
	}
	struct row_set X;
	struct ikmap *map;
	void *cells;
	if (lik_kernel_rows(prob, kernel, &X, &map, &cells, err) != 0)
		return -1;
	/* the rival of a walk on all rows: the best all-row score so far */
	int b = prob == s->prob ? best_full_row(s) : -1;
	double rival = b >= 0 ? s->table->rows[b].score : NAN;
	struct lik_walk_setup w = { s->param, s->nr_fold, s->start_C, s->start_p, &s->opt };
	int rc = lik_search_walk_rows(&w, &X, prob->y, prob->bias, psi, C0, rival, row, s->folds,
		err);
	free(cells);
	if (rc != 0) {
		ikmap_free(map);
		return -1;
	}
	if (kept != NULL)
		*kept = map;
	else
		ikmap_free(map);
	row->seconds = lik_seconds_now() - started;
	return 0;
}

int lik_draw_ids(int l, int want, uint64_t seed, int *ids, struct lik_error *err)
{
	int *order = malloc((size_t)l * sizeof *order);
	char *chosen = calloc((size_t)l, 1);
	if (order == NULL || chosen == NULL) {
		free(order);
		free(chosen);
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	for (int i = 0; i < l; i++)
		order[i] = i;
	struct rng g;
	rng_seed(&g, seed ^ SUBSAMPLE_SEED_SALT);
	rng_shuffle_int(&g, order, l);
	for (int i = 0; i < want; i++)
		chosen[order[i]] = 1;
	int k = 0;
	for (int i = 0; i < l; i++)
		if (chosen[i])
			ids[k++] = i;
	free(order);
	free(chosen);
	return 0;
}

/*
 * `want` of prob's rows drawn by seed (salted apart from the map's use of
 * it), kept in file order, into *out (x and y allocated; the caller frees
 * them when *drawn); all rows (*out = *prob, *drawn = 0) when want <= 0 or
 * there are not more. Shared by stage 1 here and by -k auto's stages.
 */
int lik_draw_rows(const struct problem *prob, int want, uint64_t seed, struct problem *out,
	int *drawn, struct lik_error *err)
{
	*out = *prob;
	*drawn = 0;
	if (want <= 0 || want >= prob->l)
		return 0;
	int *ids = malloc((size_t)want * sizeof *ids);
	out->x = malloc((size_t)want * sizeof *out->x);
	out->y = malloc((size_t)want * sizeof *out->y);
	if (ids == NULL || out->x == NULL || out->y == NULL
		|| lik_draw_ids(prob->l, want, seed, ids, err) != 0) {
		free(ids);
		free(out->x);
		free(out->y);
		*out = *prob;
		lik_fail(err, LIK_ENOMEM, "out of memory");	/* lik_draw_ids' only failure too */
		return -1;
	}
	for (int k = 0; k < want; k++) {
		out->x[k] = prob->x[ids[k]];
		out->y[k] = prob->y[ids[k]];
	}
	out->l = want;
	*drawn = 1;
	free(ids);
	return 0;
}

/* Stage 1's rows: s->opt.subsample_rows of prob's, drawn by the seed, kept in file order. */
static int draw_sample(struct search_state *s, struct lik_error *err)
{
	return lik_draw_rows(s->prob, s->opt.subsample_rows, s->kernel->seed, &s->sample,
		&s->has_sample, err);
}

static void free_sample(struct search_state *s)
{
	if (s->has_sample && s->spread == NULL) {	/* a spread search's sample is its caller's */
		free(s->sample.x);
		free(s->sample.y);
	}
	s->has_sample = 0;
}

/* The best kernel row scored on `rows` rows (ties: the smaller psi, the earlier); -1: none. */
static int best_row_on(const struct search_state *s, int rows)
{
	int best = -1;
	const struct lik_search_table *t = s->table;
	for (size_t i = 0; i < t->count; i++) {
		const struct lik_search_row *r = &t->rows[i];
		if (r->psi == 0 || r->rows != rows)
			continue;
		if (best < 0 || better(s, r->score, t->rows[best].score)
			|| (r->score == t->rows[best].score && r->psi < t->rows[best].psi))
			best = (int)i;
	}
	return best;
}

/* The index of the best full-row kernel row so far. */
static int best_full_row(const struct search_state *s)
{
	return best_row_on(s, s->full_l);
}

/* Was psi already scored on all rows? */
static int tried_on_all_rows(const struct search_state *s, int psi)
{
	for (size_t i = 0; i < s->table->count; i++)
		if (s->table->rows[i].psi == psi && s->table->rows[i].rows == s->full_l)
			return 1;
	return 0;
}

/* A walk on all rows by the caller of lik_search_spread: psi 0 is the plain baseline. */
static int spread_walk(struct search_state *s, int psi, double C0, struct lik_search_row *row,
	struct lik_map **map, struct lik_error *err)
{
	int b = best_full_row(s);
	double rival = b >= 0 && !s->regression ? s->table->rows[b].score : NAN;
	*row = (struct lik_search_row){ psi, s->full_l, NAN, NAN, NAN, 0 };
	for (int k = 0; k < s->nr_fold; k++)
		s->folds[k] = NAN;
	*map = NULL;
	/* the walk times itself: stage 3's budget must see the same seconds on every process */
	return s->spread->walk(s->spread->context, psi, s->regression ? -1 : C0, rival, row, s->folds,
		map, err);
}

/*
 * A full-row walk at psi (C0 > 0: the short walk about C0); its map
 * replaces the table's best map when it wins.
 */
static int full_walk(struct search_state *s, int psi, double C0, struct lik_error *err)
{
	struct lik_search_row row;
	struct lik_map *map = NULL;
	if (s->spread != NULL) {
		if (spread_walk(s, psi, C0, &row, &map, err) != 0)
			return -1;
	} else {
		struct ikmap *raw = NULL;
		if (walk_at(s, s->prob, psi, C0, &row, &raw, err) != 0)
			return -1;
		map = lik_map_wrap(raw, err);	/* frees raw on failure */
		if (map == NULL)
			return -1;
	}
	int rc = append_row(s, &row, err);
	if (rc == 0 && best_full_row(s) == (int)s->table->count - 1) {
		lik_map_free(&s->table->best_map);
		s->table->best_map = map;
		map = NULL;
	}
	lik_map_free(&map);
	return rc;
}

/*
 * Stage 1 on the sample; the psi it tried into psis[]. The grid is the
 * kernel's (lik_psi_grid_of): IK psi up to the sample's rows, minmax's
 * 2^b in 16, 64, ..., 4096 whatever the rows.
 */
static int stage_one(struct search_state *s, int *psis, int *count, struct lik_error *err)
{
	int grid_max = s->opt.grid_max >= LIK_SEARCH_PSI_MIN ? s->opt.grid_max : LIK_SEARCH_PSI_MAX;
	struct lik_psi_grid g = lik_psi_grid_of(s->kernel->kernel, s->sample.l, grid_max);
	*count = 0;
	for (int psi = g.first; psi <= g.last; psi *= g.factor) {
		if (s->has_sample) {
			struct lik_search_row row;
			if (walk_at(s, &s->sample, psi, -1, &row, NULL, err) != 0
				|| append_row(s, &row, err) != 0)
				return -1;
		} else if (full_walk(s, psi, -1, err) != 0) {
			return -1;
		}
		psis[(*count)++] = psi;
		if (psi > g.last / g.factor)
			break;	/* psi *= factor would pass last (and could overflow) */
	}
	return 0;
}

/*
 * The psi of stage 1 (rows 0..count-1 of the table) to confirm on all
 * rows, best first, with the C each walk starts about. For classification
 * a runner-up is confirmed only when its subsample score lies within one
 * standard error of the best's (sqrt(a (1 - a) / n) for an accuracy a on
 * n rows): a clear winner is confirmed alone, a close call by both (on
 * letter the subsample ranks psi 1024 over 2048 by 0.35 points, all rows
 * rank 2048 first). Regression confirms options->confirm of them.
 */
static int pick_confirmed(const struct search_state *s, int count, int *chosen, double *C0)
{
	int picked = 0;
	char *used = calloc((size_t)count, 1);
	if (used == NULL)
		return -1;
	int want = s->opt.confirm > 0 ? s->opt.confirm : 1;
	const struct lik_search_row *top = NULL;
	while (picked < want && picked < count) {
		int best = -1;
		for (int i = 0; i < count; i++) {
			if (used[i])
				continue;
			const struct lik_search_row *r = &s->table->rows[i];
			if (best < 0 || better(s, r->score, s->table->rows[best].score))
				best = i;	/* strict: ties keep the smaller psi */
		}
		const struct lik_search_row *r = &s->table->rows[best];
		if (top == NULL) {
			top = r;
		} else if (!s->regression) {
			double a = top->score;
			double margin = sqrt(a * (1 - a) / top->rows);
			if (top->score - r->score > margin)
				break;
		}
		used[best] = 1;
		C0[picked] = r->C;
		chosen[picked++] = r->psi;
	}
	free(used);
	return picked;
}

/* Stage 3: doubles psi while the best is at the edge and the time allows. */
static int extend_edge(struct search_state *s, struct lik_error *err)
{
	struct lik_search_table *t = s->table;
	int limit = s->full_l < s->opt.max_psi ? s->full_l : s->opt.max_psi;
	double spent = 0;
	for (;;) {
		int b = best_full_row(s);
		int largest = 0;
		for (size_t i = 0; i < t->count; i++)
			if (t->rows[i].psi > largest && t->rows[i].rows == s->full_l)
				largest = t->rows[i].psi;
		t->at_edge = t->rows[b].psi == largest;
		if (!t->at_edge)
			return 0;
		/* minmax's grid is fixed (issue 27): 2^b past 4096 is not searched */
		if (s->kernel->kernel == LIK_KERNEL_MINMAX) {
			snprintf(t->note, sizeof t->note, "psi = %d is the largest of -k minmax's grid"
				" (16, 64, ..., %d); try a larger -g yourself", largest, LIK_SEARCH_MINMAX_MAX);
			return 0;
		}
		if (largest > limit / 2) {	/* 2 * largest would pass the limit */
			if (s->full_l <= s->opt.max_psi)
				snprintf(t->note, sizeof t->note, "psi = %d is the largest tried: psi = %d "
					"would pass the number of training rows (%d)", largest, 2 * largest,
					s->full_l);
			else
				snprintf(t->note, sizeof t->note, "psi = %d is the largest tried: the "
					"search goes no higher than psi = %d", largest, s->opt.max_psi);
			return 0;
		}
		int next = largest * 2;
		double last_seconds = 0;
		for (size_t i = 0; i < t->count; i++)
			if (t->rows[i].psi == largest && t->rows[i].rows == s->full_l)
				last_seconds = t->rows[i].seconds;
		double estimate = NEXT_PSI_COST_FACTOR * last_seconds;
		if (spent + estimate > s->opt.time_budget) {
			snprintf(t->note, sizeof t->note,
				"psi = %d is the largest tried: psi = %d would take about %.0f s more, "
				"over the time budget of %.0f s (-T)", largest, next, estimate,
				s->opt.time_budget);
			return 0;
		}
		double started = lik_seconds_now();
		/* about the best C so far: the next psi's best C lies near it */
		if (full_walk(s, next, s->regression ? -1 : t->rows[b].C, err) != 0)
			return -1;
		/* a spread search's processes agree on its walks' seconds (lik_spread_rows) */
		spent += s->spread != NULL ? t->rows[t->count - 1].seconds : lik_seconds_now() - started;
	}
}

int lik_check_search_solver(const struct parameter *param, int nr_fold, struct lik_error *err)
{
	int st = param->solver_type;
	if (st != L2R_LR && st != L2R_L2LOSS_SVC && st != L2R_L2LOSS_SVR) {
		lik_fail(err, LIK_EINVAL, "Warm-start parameter search only available for -s 0, -s 2 and -s 11");
		return -1;
	}
	if (nr_fold < 2) {
		lik_fail(err, LIK_EINVAL, "n-fold cross validation: n must >= 2");
		return -1;
	}
	return 0;
}

/* The settings of a search, whatever its rows: solver, folds and the map's parameters. */
static int check_search_settings(const struct parameter *param, const struct lik_map_params *kernel,
	int nr_fold, struct lik_error *err)
{
	if (lik_check_search_solver(param, nr_fold, err) != 0)
		return -1;
	/* psi 0 asks for the search: check the other parameters at the grid's first psi */
	struct lik_map_params probe = *kernel;
	if (probe.psi == 0)
		probe.psi = lik_psi_grid_of(kernel->kernel, INT_MAX, LIK_SEARCH_PSI_MAX).first;
	return lik_map_params_check(&probe, err);
}

/* A searched psi of a sampling kernel needs rows to sample. */
static int check_search_rows(const struct lik_map_params *kernel, int l, struct lik_error *err)
{
	if (kernel->psi == 0 && !lik_kernel_is_exact(kernel->kernel) && l < LIK_SEARCH_PSI_MIN) {
		lik_fail(err, LIK_EINVAL, "-C with -k needs at least %d training rows (psi starts at %d)",
			LIK_SEARCH_PSI_MIN, LIK_SEARCH_PSI_MIN);
		return -1;
	}
	return 0;
}

static int check_search_args(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, struct lik_error *err)
{
	if (prob == NULL || param == NULL || kernel == NULL
		|| (prob->l > 0 && (prob->x == NULL || prob->y == NULL))) {
		lik_fail(err, LIK_EINVAL, "no problem, parameter or kernel given");
		return -1;
	}
	if (prob->l < 1) {
		lik_fail(err, LIK_EDATA, "no training rows");
		return -1;
	}
	const char *why = check_parameter(prob, param);
	if (why != NULL) {
		lik_fail(err, LIK_EINVAL, "%s", why);
		return -1;
	}
	if (check_search_settings(param, kernel, nr_fold, err) != 0)
		return -1;
	/* on all rows first: stage 1's subsample would name a row by its place in the subsample */
	size_t row;
	int feature;
	const char *refusal = lik_map_params_nonnegative_reason(kernel);
	if (refusal && lik_first_negative(prob->x, (size_t)prob->l, prob->bias >= 0 ? prob->n - 1 : prob->n,
			&row, &feature))
		return lik_fail_negative_why(err, row, feature, refusal);
	return check_search_rows(kernel, prob->l, err);
}

static int run_stages(struct search_state *s, struct lik_error *err)
{
	/* a given psi (or acos's one width) has one walk: about around_C when the caller gives it */
	double C0 = s->around_C > 0 && !s->regression ? s->around_C : -1;
	if (s->kernel->psi != 0)
		return full_walk(s, s->kernel->psi, C0, err);
	/* acos has one width (2 cells): C alone is searched, on all rows */
	if (s->kernel->kernel == LIK_KERNEL_ACOS)
		return full_walk(s, IK_CELLS_ACOS, C0, err);
	if (s->spread != NULL) {
		/* the caller drew stage 1's rows (or there are not more than subsample_rows) */
		s->has_sample = s->spread->sample != NULL;
		s->sample = s->has_sample ? *s->spread->sample : (struct problem){ .l = s->full_l };
	} else if (draw_sample(s, err) != 0) {
		return -1;
	}
	int psis[32];
	int count;
	if (stage_one(s, psis, &count, err) != 0)
		return -1;
	if (s->has_sample) {
		int chosen[32];
		double C0[32];
		int picked = pick_confirmed(s, count, chosen, C0);
		if (picked < 0) {
			lik_fail(err, LIK_ENOMEM, "out of memory");
			return -1;
		}
		/* ascending psi: the cheaper map first */
		for (int i = 0; i < picked; i++)
			for (int j = i + 1; j < picked; j++)
				if (chosen[j] < chosen[i]) {
					int tmp = chosen[i];
					chosen[i] = chosen[j];
					chosen[j] = tmp;
					double c = C0[i];
					C0[i] = C0[j];
					C0[j] = c;
				}
		for (int i = 0; i < picked; i++)
			if (!tried_on_all_rows(s, chosen[i])
				&& full_walk(s, chosen[i], s->regression ? -1 : C0[i], err) != 0)
				return -1;
	}
	return extend_edge(s, err);
}

struct lik_search_table *lik_search(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double start_C, double start_p,
	const struct lik_search_options *options, struct lik_error *err)
{
	return lik_search_run(prob, param, kernel, nr_fold, start_C, start_p, options, 1, -1, err);
}

/* The stages, the plain baseline and the choice, for lik_search_run and lik_search_spread. */
static struct lik_search_table *search_table(struct search_state *s,
	const struct lik_search_options *options, struct lik_error *err)
{
	if (options != NULL)
		s->opt = *options;
	else
		lik_search_options_default(&s->opt);
	s->regression = s->param->solver_type == L2R_L2LOSS_SVR;
	s->table = calloc(1, sizeof *s->table);
	s->folds = malloc((size_t)s->nr_fold * sizeof *s->folds);
	if (s->table == NULL || s->folds == NULL) {
		free(s->table);
		free(s->folds);
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	s->table->nr_fold = s->nr_fold;
	int rc = run_stages(s, err);
	/*
	 * The plain baseline on the rows stage 1 ranked psi on: upstream's full
	 * sweep on all rows of a large set can cost more than the whole kernel
	 * search (60000 x 784 images, 10 classes: about 1300 of 1550 s), and on
	 * the same rows as stage 1 it is compared like with like.
	 */
	struct lik_search_row plain = { 0, 0, NAN, NAN, NAN, 0 };
	if (rc == 0 && s->with_plain) {
		if (s->has_sample || s->spread == NULL) {
			rc = walk_at(s, s->has_sample ? &s->sample : s->prob, 0, -1, &plain, NULL, err);
		} else {
			struct lik_map *none = NULL;
			rc = spread_walk(s, 0, -1, &plain, &none, err);
			lik_map_free(&none);
		}
	}
	if (rc == 0 && s->with_plain)
		rc = append_row(s, &plain, err);
	free_sample(s);
	free(s->folds);
	if (rc != 0) {
		lik_search_table_free(&s->table);
		return NULL;
	}
	struct lik_search_table *t = s->table;
	t->best = (size_t)best_full_row(s);
	if (!s->with_plain) {
		/* no baseline row: plain and plain_versus name the best, and nothing is compared */
		t->plain = t->plain_versus = t->best;
		t->kernel_wins = 1;
		lik_ok(err);
		return t;
	}
	t->plain = t->count - 1;
	int versus = plain.rows == s->full_l ? -1 : best_row_on(s, plain.rows);
	t->plain_versus = versus >= 0 ? (size_t)versus : t->best;
	/* strictly better: a tie does not justify the kernel's cost */
	t->kernel_wins = better(s, t->rows[t->plain_versus].score, plain.score);
	lik_ok(err);
	return t;
}

struct lik_search_table *lik_search_run(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double start_C, double start_p,
	const struct lik_search_options *options, int with_plain, double around_C,
	struct lik_error *err)
{
	if (check_search_args(prob, param, kernel, nr_fold, err) != 0)
		return NULL;
	struct search_state s = { .prob = prob, .param = param, .kernel = kernel,
		.nr_fold = nr_fold, .start_C = start_C, .start_p = start_p, .with_plain = with_plain,
		.around_C = around_C, .full_l = prob->l };
	return search_table(&s, options, err);
}

struct lik_search_table *lik_search_spread(const struct lik_spread_rows *rows,
	const struct parameter *param, const struct lik_map_params *kernel, int nr_fold,
	double start_C, double start_p, const struct lik_search_options *options,
	struct lik_error *err)
{
	if (check_search_settings(param, kernel, nr_fold, err) != 0
		|| check_search_rows(kernel, rows->l, err) != 0)
		return NULL;
	struct search_state s = { .param = param, .kernel = kernel, .nr_fold = nr_fold,
		.start_C = start_C, .start_p = start_p, .with_plain = 1, .around_C = -1,
		.full_l = rows->l, .spread = rows };
	return search_table(&s, options, err);
}

int lik_search_row_text(const struct lik_search_row *r, int regression, char *text, size_t size)
{
	if (regression)
		return snprintf(text, size, "psi = %d  Best C = %g Best p = %g  CV MSE = %g  (%d rows, %.1f s)",
			r->psi, r->C, r->p, r->score, r->rows, r->seconds);
	return snprintf(text, size, "psi = %d  Best C = %g  CV accuracy = %g%%  (%d rows, %.1f s)",
		r->psi, r->C, 100.0 * r->score, r->rows, r->seconds);
}

void lik_append_text(char **text, size_t *size, int *need, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	int n = vsnprintf(*text, *size, format, ap);
	va_end(ap);
	if (n < 0)
		return;
	*need += n;
	size_t used = (size_t)n < *size ? (size_t)n : (*size > 0 ? *size - 1 : 0);
	*text += used;
	*size -= used;
}

int lik_search_summary_text(const struct lik_search_table *t, int regression, int psi_searched,
	char *text, size_t size)
{
	int need = 0;
	if (size > 0)
		text[0] = '\0';
	const struct lik_search_row *best = &t->rows[t->best];
	const struct lik_search_row *plain = &t->rows[t->plain];
	const struct lik_search_row *versus = &t->rows[t->plain_versus];
	if (regression)
		lik_append_text(&text, &size, &need, "Best psi = %d  Best C = %g Best p = %g  CV MSE = %g\n",
			best->psi, best->C, best->p, best->score);
	else
		lik_append_text(&text, &size, &need, "Best psi = %d  Best C = %g  CV accuracy = %g%%\n",
			best->psi, best->C, 100.0 * best->score);
	if (t->at_edge && psi_searched)
		lik_append_text(&text, &size, &need, "note: %s\n",
			t->note[0] ? t->note : "the best psi is the largest tried");
	/* the baseline ran on stage 1's subsample when it has fewer rows than the best row */
	int on_subsample = plain->rows != best->rows;
	char where[64] = "";
	if (on_subsample)
		snprintf(where, sizeof where, " on the %d-row subsample", plain->rows);
	if (regression)
		lik_append_text(&text, &size, &need, "plain linear%s: best C = %g, best p = %g, CV MSE = %g",
			where, plain->C, plain->p, plain->score);
	else
		lik_append_text(&text, &size, &need, "plain linear%s: best C = %g, CV accuracy = %g%%",
			where, plain->C, 100.0 * plain->score);
	if (on_subsample && regression)
		lik_append_text(&text, &size, &need, " (psi = %d there: %g)", versus->psi, versus->score);
	else if (on_subsample)
		lik_append_text(&text, &size, &need, " (psi = %d there: %g%%)", versus->psi,
			100.0 * versus->score);
	lik_append_text(&text, &size, &need, "\n");
	if (!t->kernel_wins)
		lik_append_text(&text, &size, &need,
			"the kernel does not beat plain linear training on this data: train without -k\n");
	return need;
}
