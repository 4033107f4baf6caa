/*
 * find_parameters.c - warm-started search of C, and of p for -s 11.
 *
 * As upstream (Chu et al., KDD 2015; Hsia and Lin for SVR): C doubles from
 * a small C_min up to max_C (1024; 2^20 for SVR). Each fold's model at C
 * starts from that fold's model at the previous C (init_sol), and a walk
 * stops early once five steps in a row leave every fold model exactly
 * where it started: the Newton solver then met its tolerance without a
 * step, and larger C will not move it either.
 *
 * Where a walk starts: 2^floor(log2 C_min), or start_C when given, never
 * above max_C, with
 *   -s 0:  C_min = 1 / (l max||x_i||^2)
 *   -s 2:  C_min = 1 / (2 l max||x_i||^2)
 *   -s 11: C_min(p) = sum_i max(|y_i| - p, 0)^2 / (800 max||x_i||^2 (sum_i |y_i|)^2)
 * (the SVR rule reproduces upstream's starting points, measured on its
 * output for many data sets and p). For -s 11, p = i * (max|y|/20) for
 * i = 19 down to 0, starting from the largest not above start_p when one
 * is given, each p with a fresh walk. The fold models train silently; one
 * line per C is printed, in upstream's format. The walk itself (which C,
 * when to stop, the best) is c_walk.h's, shared with train-mpi; this file
 * owns the folds and scores them.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "c_walk.h"
#include "export.h"
#include "report.h"
#include "find_parameters.h"
#include "folds.h"
#include "linear_rows.h"
#include "model_shape.h"
#include "print.h"


struct search {
	const struct row_set *X;
	const double *y;
	double bias;
	struct parameter param;	/* the caller's, with C, p and init_sol varied */
	bool regression;
	struct folds folds;
	struct row_set *rows;	/* training rows of each fold */
	double **labels;	/* their labels */
	double **w;		/* each fold's latest weights: its next start point */
	struct dual_warm_start *duals;	/* the SVC dual's: each fold's latest dual points */
	double *target;		/* the CV prediction of each row */
	int patience;		/* > 0: a walk stops after this many C without a better score */
	double patience_from_C;	/* ... counted only from this C on */
	double *best_folds;	/* NULL, or nr_fold slots: each fold's score at the best (C, p) */
	double max_sqnorm;	/* -s 11: max ||x_i||^2 of the rows, for each p's C_min */
};

static void search_free(struct search *s)
{
	for (int k = 0; k < s->folds.nr_fold; k++) {
		if (s->rows != NULL)
			rows_free_subset(&s->rows[k]);
		if (s->labels != NULL)
			free(s->labels[k]);
		if (s->w != NULL)
			free(s->w[k]);
		if (s->duals != NULL)
			dual_warm_start_free(&s->duals[k]);
	}
	free(s->duals);
	free(s->rows);
	free(s->labels);
	free(s->w);
	free(s->target);
	folds_free(&s->folds);
}

static int search_init(struct search *s, const struct row_set *X, const double *y,
	double bias, const struct parameter *param, int nr_fold)
{
	*s = (struct search){ .X = X, .y = y, .bias = bias, .param = *param };
	s->regression = param->solver_type == L2R_L2LOSS_SVR;
	s->param.init_sol = NULL;
	if (folds_make(X->l, nr_fold, &s->folds) != 0)
		return -1;
	size_t nf = (size_t)s->folds.nr_fold;
	s->rows = calloc(nf, sizeof *s->rows);
	s->labels = calloc(nf, sizeof *s->labels);
	s->w = calloc(nf, sizeof *s->w);
	s->duals = calloc(nf, sizeof *s->duals);
	s->target = malloc((size_t)X->l * sizeof *s->target);
	if (s->rows == NULL || s->labels == NULL || s->w == NULL || s->duals == NULL
		|| s->target == NULL) {
		report_error("ERROR: out of memory in parameter search\n");
		goto fail;
	}
	for (int k = 0; k < s->folds.nr_fold; k++)
		if (folds_training_set(&s->folds, k, X, y, &s->rows[k], &s->labels[k]) != 0)
			goto fail;
	return 0;
fail:
	search_free(s);
	return -1;
}

/* Squared distance of a new fold model from its start point (zeros at first). */
static double squared_step(const double *start, const double *w, size_t count)
{
	double d = 0;
	for (size_t i = 0; i < count; i++) {
		double diff = w[i] - (start != NULL ? start[i] : 0);
		d += diff * diff;
	}
	return d;
}

/* Trains fold k at the current C and p from its last model; predicts its block. */
static int train_fold(struct search *s, int k, double *step)
{
	struct parameter param = s->param;	/* folds may run at once: no shared writes */
	/* the dual solvers (the kernel search's scorer) take no start point: each C starts afresh */
	param.init_sol = solver_takes_init_sol(param.solver_type) ? s->w[k] : NULL;
	/* the SVC duals restart from the fold's last dual point (the primal ones: init_sol) */
	struct model *m = train_rows_warm(&s->rows[k], s->labels[k], s->bias, &param, &s->duals[k]);
	if (m == NULL)
		return -1;
	int slots = m->nr_class > 2 ? m->nr_class : 2;
	double *dec = malloc((size_t)slots * sizeof *dec);
	if (dec == NULL) {
		report_error("ERROR: out of memory in parameter search\n");
		free_and_destroy_model(&m);
		return -1;
	}
	for (int j = s->folds.start[k]; j < s->folds.start[k + 1]; j++)
		s->target[s->folds.perm[j]] = predict_values_row(m, s->X, s->folds.perm[j], dec);
	free(dec);
	if (!solver_takes_init_sol(param.solver_type)) {
		/* no start point to keep: nor a step to measure (the walks' stop never looks) */
		*step = INFINITY;
		free_and_destroy_model(&m);
		return 0;
	}
	*step = squared_step(s->w[k], m->w, model_w_size(m) * (size_t)model_nr_w(m));
	free(s->w[k]);
	s->w[k] = m->w;		/* the fold keeps its weights as the next start point */
	m->w = NULL;
	free_and_destroy_model(&m);
	return 0;
}

/* Accuracy (a fraction) or mean squared error of the CV predictions. */
static double cv_score(const struct search *s)
{
	int l = s->X->l;
	double sum = 0;
	for (int i = 0; i < l; i++) {
		if (s->regression) {
			double e = s->target[i] - s->y[i];
			sum += e * e;
		} else {
			sum += s->target[i] == s->y[i];
		}
	}
	return sum / l;
}

/*
 * Each fold's own accuracy (or MSE) of the last evaluation, into
 * out[nr_fold]: the spread of these is what `-k auto` measures a
 * candidate's standard error by (one pooled score hides it).
 */
static void fold_scores(const struct search *s, double *out)
{
	for (int k = 0; k < s->folds.nr_fold; k++) {
		double sum = 0;
		int n = s->folds.start[k + 1] - s->folds.start[k];
		for (int j = s->folds.start[k]; j < s->folds.start[k + 1]; j++) {
			int i = s->folds.perm[j];
			if (s->regression) {
				double e = s->target[i] - s->y[i];
				sum += e * e;
			} else {
				sum += s->target[i] == s->y[i];
			}
		}
		out[k] = n > 0 ? sum / n : NAN;
	}
}

/*
 * CV at (C, p); *unchanged tells whether no fold model moved. The folds
 * are independent, so they train in parallel (OpenMP); each writes only
 * its own weights, steps[k] and its own rows' targets, and the steps are
 * summed in fold order, so the result does not depend on the threads.
 */
static int evaluate(struct search *s, double C, double p, double *score, bool *unchanged)
{
	s->param.C = C;
	s->param.p = p;
	int nr_fold = s->folds.nr_fold;
	double *steps = calloc((size_t)nr_fold, sizeof *steps);
	if (steps == NULL) {
		report_error("ERROR: out of memory in parameter search\n");
		return -1;
	}
	bool was_muted = info_mute(true);
	int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(|:failed)
	for (int k = 0; k < nr_fold; k++)
		failed |= train_fold(s, k, &steps[k]) != 0;
	info_mute(was_muted);
	double step = 0;
	for (int k = 0; k < nr_fold; k++)
		step += steps[k];
	free(steps);
	*score = cv_score(s);
	*unchanged = sqrt(step) <= 1e-15;
	return failed ? -1 : 0;
}

static double max_row_sqnorm(const struct row_set *X)
{
	double m = 0;
	for (int i = 0; i < X->l; i++) {
		double q = rows_sqnorm(X, i);
		if (q > m)
			m = q;
	}
	return m;
}

/* The walk's view of a search (c_walk.h): one CV score per (C, p). */
static int walk_evaluate(void *context, double C, double p, double *score, bool *unchanged)
{
	return evaluate(context, C, p, score, unchanged);
}

/* Each walk's folds start from zeros. */
static void walk_restart(void *context)
{
	struct search *s = context;
	for (int k = 0; k < s->folds.nr_fold; k++) {
		free(s->w[k]);
		s->w[k] = NULL;
	}
}

/* The best (C, p) so far: keep each fold's own score at it, when asked. */
static void walk_on_best(void *context)
{
	struct search *s = context;
	if (s->best_folds != NULL)
		fold_scores(s, s->best_folds);
}

static struct c_walk walk_of(struct search *s)
{
	return (struct c_walk){ .regression = s->regression, .patience = s->patience,
		.patience_from_C = s->patience_from_C, .evaluate = walk_evaluate,
		.restart = walk_restart, .on_best = walk_on_best, .context = s };
}

static int search_C(struct search *s, double start_C, struct c_walk_best *best)
{
	double C_min = c_walk_classification_C_min(s->param.solver_type == L2R_LR, s->X->l,
		max_row_sqnorm(s->X));
	struct c_walk w = walk_of(s);
	return c_walk_run(&w, c_walk_first_C(C_min, start_C, C_WALK_MAX_C_CLASSIFICATION),
		C_WALK_MAX_C_CLASSIFICATION, s->param.p, best);
}

/* -s 11's C_min at p on these rows (c_walk_svr asks it once per p). */
static double svr_C_min(void *context, double p)
{
	const struct search *s = context;
	double loss_at_zero = 0, sum_abs_y = 0;
	for (int i = 0; i < s->X->l; i++) {
		double a = fabs(s->y[i]);
		double e = a > p ? a - p : 0;
		loss_at_zero += e * e;
		sum_abs_y += a;
	}
	return c_walk_svr_C_min(loss_at_zero, s->max_sqnorm, sum_abs_y);
}

static int search_C_and_p(struct search *s, double start_C, double start_p,
	struct c_walk_best *best)
{
	double max_abs_y = 0;
	for (int i = 0; i < s->X->l; i++)
		if (fabs(s->y[i]) > max_abs_y)
			max_abs_y = fabs(s->y[i]);
	s->max_sqnorm = max_row_sqnorm(s->X);
	struct c_walk w = walk_of(s);
	return c_walk_svr(&w, max_abs_y, start_C, start_p, svr_C_min, best);
}

void find_parameters_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double start_C, double start_p,
	double *best_C, double *best_p, double *best_score)
{
	find_parameters_rows_patient(X, y, bias, param, nr_fold, start_C, start_p, 0, 0,
		best_C, best_p, best_score);
}

void find_parameters_rows_patient(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double start_C, double start_p, int patience,
	double patience_from_C, double *best_C, double *best_p, double *best_score)
{
	find_parameters_rows_folds(X, y, bias, param, nr_fold, start_C, start_p, patience,
		patience_from_C, best_C, best_p, best_score, NULL);
}

void find_parameters_rows_folds(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double start_C, double start_p, int patience,
	double patience_from_C, double *best_C, double *best_p, double *best_score,
	double *best_folds)
{
	*best_C = *best_p = *best_score = NAN;
	int st = param->solver_type;
	if (st != L2R_LR && st != L2R_L2LOSS_SVC && st != L2R_L2LOSS_SVR) {
		report_error("Warm-start parameter search only available for -s 0, -s 2 and -s 11\n");
		return;
	}
	if (X->l == 0) {
		report_error("ERROR: parameter search needs at least one row\n");
		return;
	}
	struct search s;
	if (search_init(&s, X, y, bias, param, nr_fold) != 0)
		return;
	s.patience = patience > 0 ? patience : 0;
	s.patience_from_C = patience_from_C;
	s.best_folds = best_folds;
	struct c_walk_best best = c_walk_no_best(s.regression);
	int rc = s.regression ? search_C_and_p(&s, start_C, start_p, &best)
		: search_C(&s, start_C, &best);
	search_free(&s);
	if (rc != 0)
		return;
	*best_C = best.C;
	*best_p = best.p;
	*best_score = best.score;
}

/*
 * The scorer: the same folds and fold training as the walks above, one C
 * at a time, so a caller can choose its own C values (lik_search's short
 * walks). Primal solvers still start from each fold's last model.
 */
struct cv_scorer {
	struct search s;
};

struct cv_scorer *cv_scorer_new(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold)
{
	struct cv_scorer *c = malloc(sizeof *c);
	if (c == NULL) {
		report_error("ERROR: out of memory in parameter search\n");
		return NULL;
	}
	if (search_init(&c->s, X, y, bias, param, nr_fold) != 0) {
		free(c);
		return NULL;
	}
	return c;
}

int cv_scorer_at(struct cv_scorer *c, double C, double p, double *score)
{
	bool unchanged;
	if (evaluate(&c->s, C, p, score, &unchanged) != 0)
		return -1;
	if (c->s.regression)
		info("log2c=%7.2f\tp=%7.2f\tMean squared error=%g\n", log2(C), p, *score);
	else
		info("log2c=%7.2f\trate=%g\n", log2(C), 100.0 * *score);
	return 0;
}

double cv_scorer_first_C(const struct cv_scorer *c, double start_C)
{
	int st = c->s.param.solver_type;	/* the dual of a loss starts where its primal does */
	double C_min = c_walk_classification_C_min(st == L2R_LR || st == L2R_LR_DUAL, c->s.X->l,
		max_row_sqnorm(c->s.X));
	return c_walk_first_C(C_min, start_C, C_WALK_MAX_C_CLASSIFICATION);
}

void cv_scorer_forget(struct cv_scorer *c)
{
	for (int k = 0; k < c->s.folds.nr_fold; k++) {
		c->s.duals[k].ready = false;
		free(c->s.w[k]);
		c->s.w[k] = NULL;
	}
}

int cv_scorer_fold_scores(const struct cv_scorer *c, double *out)
{
	fold_scores(&c->s, out);
	return c->s.folds.nr_fold;
}

int cv_scorer_nr_fold(const struct cv_scorer *c)
{
	return c->s.folds.nr_fold;
}

double cv_scorer_max_C(void)
{
	return C_WALK_MAX_C_CLASSIFICATION;
}

void cv_scorer_free(struct cv_scorer *c)
{
	if (c == NULL)
		return;
	search_free(&c->s);
	free(c);
}

LIBLINEAR_EXPORT void find_parameters(const struct problem *prob, const struct parameter *param, int nr_fold,
	double start_C, double start_p, double *best_C, double *best_p, double *best_score)
{
	struct row_set X = rows_sparse(prob->l, prob->n, prob->x);
	find_parameters_rows(&X, prob->y, prob->bias, param, nr_fold, start_C, start_p,
		best_C, best_p, best_score);
}
