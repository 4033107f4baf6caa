/*
 * dist_cv.c - train-mpi's -v and -C (see dist_cv.h): train -v's folds by
 * global row number, each fold's model trained by all processes together
 * with the fold's rows given cost 0, and the scores taken as exact counts
 * or block-order sums; -C's walk is c_walk.h's, as train -C's.
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist_cv.h"
#include "folds.h"
#include "linear_rows.h"
#include "model_shape.h"
#include "print.h"

/*
 * train -v's folds (folds.h: a shuffle of the row numbers 0..L-1 with the
 * default seed, fold k a run of it), over global row numbers: the same
 * folds on every process and for any number of processes. fold[i] for
 * local row i. Needs L ints on every process for the shuffle.
 */
static int *local_folds(const struct dist_data *d, int nr_fold, int *used_folds)
{
	if (d->total_rows > INT_MAX)
		return NULL;
	struct folds f;
	if (folds_make((int)d->total_rows, nr_fold, &f) != 0)
		return NULL;
	int *fold = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *fold);
	if (fold != NULL)
		for (int k = 0; k < f.nr_fold; k++)
			for (int p = f.start[k]; p < f.start[k + 1]; p++) {
				int64_t local = f.perm[p] - d->first_row;
				if (local >= 0 && local < d->l)
					fold[local] = k;
			}
	*used_folds = f.nr_fold;
	folds_free(&f);
	return fold;
}

/*
 * Every fold's model (trained on the other folds, all processes together)
 * predicts this process's rows of the fold; then rank 0 prints train -v's
 * lines. Sums of the regression's measures are taken per block and
 * combined in block order, like the solver's; the accuracy is a count.
 */
int cross_validate(const struct job *j, const struct options *o, const struct classes *c,
	int nr_fold)
{
	const struct dist_data *d = j->d;
	int folds = 0, ok, rc = -1;
	int *fold = local_folds(d, nr_fold, &folds);
	size_t slots = c && c->nr_class > 2 ? (size_t)c->nr_class : 2;
	double *target = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *target);
	double *dec = malloc(slots * sizeof *dec);
	unsigned char *held = malloc((size_t)(d->l > 0 ? d->l : 1));
	size_t counts = c ? (size_t)c->nr_class + 1 : 1;
	int64_t *mine = calloc(counts, sizeof *mine), *all = malloc(counts * sizeof *all);
	ok = fold && target && dec && held && mine && all;
	if (!dist_agree(j->comm, ok, "ERROR: out of memory in cross validation"))
		goto done;
	for (int k = 0; k < folds; k++) {
		memset(mine, 0, counts * sizeof *mine);
		for (int i = 0; i < d->l; i++) {
			held[i] = fold[i] == k;
			if (c && held[i])
				mine[c->row_class[i]]++;
			mine[counts - 1] += held[i];
		}
		MPI_Allreduce(mine, all, (int)counts, MPI_INT64_T, MPI_SUM, j->comm);
		struct model *m = train_distributed(j, o, c, held, all, NULL);
		if (m == NULL)
			goto done;
		for (int i = 0; i < d->l; i++)
			if (held[i])
				target[i] = predict_values_row(m, j->rows->X, i, dec);
		free_and_destroy_model(&m);
	}
	if (c != NULL) {
		int64_t correct = 0, total_correct = 0;
		for (int i = 0; i < d->l; i++)
			correct += target[i] == d->y[i];
		MPI_Allreduce(&correct, &total_correct, 1, MPI_INT64_T, MPI_SUM, j->comm);
		if (dist_rank(j->comm) == 0)
			printf("Cross Validation Accuracy = %g%%\n",
				100.0 * (double)total_correct / (double)d->total_rows);
	} else {
		/* per block: squared error, v, y, v v, y y, v y */
		enum { SUMS = 6 };
		double *part = calloc((size_t)(j->rows->nr_blocks > 0 ? j->rows->nr_blocks : 1) * SUMS,
			sizeof *part);
		if (!dist_agree(j->comm, part != NULL, "ERROR: out of memory in cross validation"))
			goto done;
		for (int b = 0; b < j->rows->nr_blocks; b++) {
			double *s = part + (size_t)b * SUMS;
			for (int i = j->rows->block_begin[b]; i < j->rows->block_begin[b + 1]; i++) {
				double v = target[i], yi = d->y[i];
				s[0] += (v - yi) * (v - yi);
				s[1] += v;
				s[2] += yi;
				s[3] += v * v;
				s[4] += yi * yi;
				s[5] += v * yi;
			}
		}
		double sum[SUMS];
		dist_combine(j->rows, part, SUMS, SUMS, sum);
		free(part);
		double l = (double)d->total_rows;
		double num = l * sum[5] - sum[1] * sum[2];
		if (dist_rank(j->comm) == 0) {
			printf("Cross Validation Mean squared error = %g\n", sum[0] / l);
			printf("Cross Validation Squared correlation coefficient = %g\n",
				num * num / ((l * sum[3] - sum[1] * sum[1]) * (l * sum[4] - sum[2] * sum[2])));
		}
	}
	rc = 0;
done:
	free(fold);
	free(target);
	free(dec);
	free(held);
	free(mine);
	free(all);
	return rc;
}

/* ---- -C: the warm-started search of C (and p for -s 11), as train -C ---- */

void cv_search_free(struct cv_search *s)
{
	for (int k = 0; k < s->nr_fold; k++) {
		if (s->held)
			free(s->held[k]);
		if (s->held_count)
			free(s->held_count[k]);
		if (s->w)
			free(s->w[k]);
	}
	free(s->held);
	free(s->held_count);
	free(s->w);
	free(s->fold);
	free(s->target);
	free(s->dec);
}

int cv_search_init(struct cv_search *s, const struct job *j, const struct options *o,
	const struct classes *c)
{
	memset(s, 0, sizeof *s);
	s->j = j;
	s->o = o;
	s->c = c;
	s->param = *j->param;
	s->fold_job = *j;
	s->fold_job.param = &s->param;
	const struct dist_data *d = j->d;
	s->fold = local_folds(d, o->nr_fold, &s->nr_fold);
	size_t nf = s->fold ? (size_t)s->nr_fold : 0, l = (size_t)(d->l > 0 ? d->l : 1);
	size_t counts = c ? (size_t)c->nr_class + 1 : 1;
	s->held = calloc(nf > 0 ? nf : 1, sizeof *s->held);
	s->held_count = calloc(nf > 0 ? nf : 1, sizeof *s->held_count);
	s->w = calloc(nf > 0 ? nf : 1, sizeof *s->w);
	s->target = malloc(l * sizeof *s->target);
	s->dec = malloc((c && c->nr_class > 2 ? (size_t)c->nr_class : 2) * sizeof *s->dec);
	int ok = s->fold && s->held && s->held_count && s->w && s->target && s->dec;
	int64_t *mine = calloc(counts, sizeof *mine);
	ok = ok && mine;
	for (size_t k = 0; ok && k < nf; k++) {
		s->held[k] = malloc(l);
		s->held_count[k] = malloc(counts * sizeof *s->held_count[k]);
		ok = s->held[k] && s->held_count[k];
	}
	if (!dist_agree(j->comm, ok, "ERROR: out of memory in parameter search")) {
		free(mine);
		cv_search_free(s);
		return -1;
	}
	for (size_t k = 0; k < nf; k++) {
		memset(mine, 0, counts * sizeof *mine);
		for (int i = 0; i < d->l; i++) {
			s->held[k][i] = s->fold[i] == (int)k;
			if (c && s->held[k][i])
				mine[c->row_class[i]]++;
			mine[counts - 1] += s->held[k][i];
		}
		MPI_Allreduce(mine, s->held_count[k], (int)counts, MPI_INT64_T, MPI_SUM, j->comm);
	}
	free(mine);
	return 0;
}

/*
 * The block-order total of f(row) over every process's rows: a
 * deterministic double sum (per block in row order, blocks in order).
 */
static double sum_over_rows(const struct job *j, double (*f)(const struct cv_search *, int, double),
	const struct cv_search *s, double arg)
{
	const struct dist_rows *rows = j->rows;
	double *part = malloc((size_t)(rows->nr_blocks > 0 ? rows->nr_blocks : 1) * sizeof *part);
	if (!dist_agree(j->comm, part != NULL, "ERROR: out of memory in parameter search"))
		return NAN;
	for (int b = 0; b < rows->nr_blocks; b++) {
		double sum = 0;
		for (int i = rows->block_begin[b]; i < rows->block_begin[b + 1]; i++)
			sum += f(s, i, arg);
		part[b] = sum;
	}
	double total = 0;
	dist_combine(rows, part, 1, 1, &total);
	free(part);
	return total;
}

static double squared_error(const struct cv_search *s, int i, double unused)
{
	(void)unused;
	double e = s->target[i] - s->j->d->y[i];
	return e * e;
}

/* CV at (C, p): the score (accuracy as a fraction, or MSE); *unchanged: no fold model moved. */
int cv_search_score(struct cv_search *s, double C, double p, double *score, bool *unchanged)
{
	s->param.C = C;
	s->param.p = p;
	const struct dist_data *d = s->j->d;
	bool was_muted = info_mute(true);	/* fold models train silently, as train -C's */
	double step = 0;
	int rc = 0;
	for (int k = 0; k < s->nr_fold; k++) {
		struct model *m = train_distributed(&s->fold_job, s->o, s->c, s->held[k],
			s->held_count[k], s->w[k]);
		if (m == NULL) {
			rc = -1;
			break;
		}
		for (int i = 0; i < d->l; i++)
			if (s->held[k][i])
				s->target[i] = predict_values_row(m, s->j->rows->X, i, s->dec);
		/* w is the same on every process: so is this sum, taken in fold order */
		size_t size = model_w_size(m) * (size_t)model_nr_w(m);
		double fold_step = 0;
		for (size_t f = 0; f < size; f++) {
			double diff = m->w[f] - (s->w[k] != NULL ? s->w[k][f] : 0);
			fold_step += diff * diff;
		}
		step += fold_step;
		free(s->w[k]);
		s->w[k] = m->w;		/* the fold's next start point */
		m->w = NULL;
		free_and_destroy_model(&m);
	}
	info_mute(was_muted);
	if (rc != 0)
		return -1;
	if (s->c != NULL) {
		int64_t correct = 0, all = 0;
		for (int i = 0; i < d->l; i++)
			correct += s->target[i] == d->y[i];
		MPI_Allreduce(&correct, &all, 1, MPI_INT64_T, MPI_SUM, s->j->comm);
		*score = (double)all / (double)d->total_rows;
	} else {
		double sum = sum_over_rows(s->j, squared_error, s, 0);
		if (isnan(sum))
			return -1;
		*score = sum / (double)d->total_rows;
	}
	*unchanged = sqrt(step) <= 1e-15;
	return 0;
}

static double fold_squared_error(const struct cv_search *s, int i, double fold)
{
	return s->fold[i] == (int)fold ? squared_error(s, i, 0) : 0;
}

void cv_search_fold_scores(struct cv_search *s, double *out)
{
	const struct dist_data *d = s->j->d;
	for (int k = 0; k < s->nr_fold; k++) {
		/* the fold's rows over all processes: its held_count total */
		int64_t n = s->held_count[k][s->c != NULL ? s->c->nr_class : 0];
		if (s->c != NULL) {
			int64_t correct = 0, all = 0;
			for (int i = 0; i < d->l; i++)
				correct += s->fold[i] == k && s->target[i] == d->y[i];
			MPI_Allreduce(&correct, &all, 1, MPI_INT64_T, MPI_SUM, s->j->comm);
			out[k] = n > 0 ? (double)all / (double)n : NAN;
		} else {
			double sum = sum_over_rows(s->j, fold_squared_error, s, k);
			out[k] = n > 0 ? sum / (double)n : NAN;
		}
	}
}

/* The walk's view of the search (c_walk.h): one distributed CV score per (C, p). */
static int walk_evaluate(void *context, double C, double p, double *score, bool *unchanged)
{
	return cv_search_score(context, C, p, score, unchanged);
}

/* Each walk's fold models start from zeros. */
void cv_search_restart(struct cv_search *s)
{
	for (int k = 0; k < s->nr_fold; k++) {
		free(s->w[k]);
		s->w[k] = NULL;
	}
}

/* max ||x_i||^2 over every process's rows: an exact maximum. */
double cv_max_row_sqnorm(const struct job *j)
{
	double mine = 0, all = 0;
	for (int i = 0; i < j->rows->X->l; i++) {
		double q = rows_sqnorm(j->rows->X, i);
		if (q > mine)
			mine = q;
	}
	MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, j->comm);
	return all;
}

static double loss_at_zero(const struct cv_search *s, int i, double p)
{
	double a = fabs(s->j->d->y[i]), e = a > p ? a - p : 0;
	return e * e;
}

static double abs_y(const struct cv_search *s, int i, double unused)
{
	(void)unused;
	return fabs(s->j->d->y[i]);
}

/* -s 11's C_min at p over every process's rows (block-order sums). */
static double walk_svr_C_min(void *context, double p)
{
	struct cv_search *s = context;
	return c_walk_svr_C_min(sum_over_rows(s->j, loss_at_zero, s, p), s->max_sqnorm,
		s->sum_abs_y);
}

static int search_C_and_p(struct cv_search *s, const struct c_walk *w, double start_C,
	double start_p, struct c_walk_best *best)
{
	const struct dist_data *d = s->j->d;
	double mine = 0, max_abs_y = 0;
	for (int i = 0; i < d->l; i++)
		if (fabs(d->y[i]) > mine)
			mine = fabs(d->y[i]);
	MPI_Allreduce(&mine, &max_abs_y, 1, MPI_DOUBLE, MPI_MAX, s->j->comm);
	s->max_sqnorm = cv_max_row_sqnorm(s->j);
	s->sum_abs_y = sum_over_rows(s->j, abs_y, s, 0);
	return c_walk_svr(w, max_abs_y, start_C, start_p, walk_svr_C_min, best);
}

static void walk_restart(void *context)
{
	cv_search_restart(context);
}

static void walk_on_best(void *context)
{
	struct cv_search *s = context;
	if (s->best_folds != NULL)
		cv_search_fold_scores(s, s->best_folds);
}

int cv_search_walk(struct cv_search *s, int patience, double patience_from_C, double start_C,
	double start_p, struct c_walk_best *best, double *best_folds)
{
	const struct job *j = s->j;
	*best = c_walk_no_best(s->c == NULL);
	s->best_folds = best_folds;
	struct c_walk w = { .regression = s->c == NULL, .patience = patience,
		.patience_from_C = patience_from_C, .evaluate = walk_evaluate,
		.restart = walk_restart, .on_best = walk_on_best, .context = s };
	if (s->c == NULL)
		return search_C_and_p(s, &w, start_C, start_p, best);
	double C_min = c_walk_classification_C_min(j->param->solver_type == L2R_LR,
		(double)j->d->total_rows, cv_max_row_sqnorm(j));
	return c_walk_run(&w, c_walk_first_C(C_min, start_C, C_WALK_MAX_C_CLASSIFICATION),
		C_WALK_MAX_C_CLASSIFICATION, j->param->p, best);
}

int find_parameters_dist(const struct job *j, const struct options *o,
	const struct classes *c)
{
	int rank = dist_rank(j->comm);
	if (rank == 0)
		printf("Doing parameter search with %d-fold cross validation.\n", o->nr_fold);
	struct cv_search s;
	if (cv_search_init(&s, j, o, c) != 0)
		return -1;
	struct c_walk_best best;
	int rc = cv_search_walk(&s, 0, 0, o->C_given ? o->param.C : -1, o->p_given ? o->param.p : -1,
		&best, NULL);
	cv_search_free(&s);
	if (rc != 0)
		return -1;
	if (rank == 0 && c == NULL)
		printf("Best C = %g Best p = %g  CV MSE = %g\n", best.C, best.p, best.score);
	else if (rank == 0)
		printf("Best C = %g  CV accuracy = %g%%\n", best.C, 100.0 * best.score);
	return 0;
}
