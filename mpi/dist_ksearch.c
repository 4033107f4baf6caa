/*
 * dist_ksearch.c - train-mpi -C -k (see dist_ksearch.h): the subsample
 * gathered, the search's walks on all rows done across the processes.
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist_cv.h"
#include "dist_kernel.h"
#include "dist_ksearch.h"
#include "lik_internal.h"
#include "print.h"

struct ksearch {
	const struct job *j;		/* the rows as read: no bias node (the map drops it) */
	const struct options *o;
	const struct classes *c;
	const struct lik_map_params *kernel;
	const struct lik_search_options *so;
	double start_C, start_p;
	int reported;			/* a failure here already printed its message */
};

/* The stage-1 rows of train -C -k: lik_draw_rows' draw of global row numbers, gathered here. */
static int gather_sample(const struct ksearch *k, int want, struct problem *sample,
	struct feature_node **storage)
{
	const struct dist_data *d = k->j->d;
	int L = (int)d->total_rows;
	/* lik_draw_rows keeps x and y of the rows it draws: y = the row number tells which */
	struct problem index = { .l = L };
	index.x = calloc((size_t)L, sizeof *index.x);
	index.y = malloc((size_t)L * sizeof *index.y);
	struct problem drawn = { 0 };
	int is_drawn = 0, ok = index.x != NULL && index.y != NULL;
	for (int i = 0; ok && i < L; i++)
		index.y[i] = i;
	struct lik_error err;
	ok = ok && lik_draw_rows(&index, want, k->kernel->seed, &drawn, &is_drawn, &err) == 0
		&& is_drawn;
	int *ids = ok ? malloc((size_t)drawn.l * sizeof *ids) : NULL;
	for (int i = 0; ids != NULL && i < drawn.l; i++)
		ids[i] = (int)drawn.y[i];
	free(index.x);
	free(index.y);
	if (is_drawn) {
		free(drawn.x);
		free(drawn.y);
	}
	if (!dist_agree(k->j->comm, ids != NULL, "ERROR: out of memory in parameter search")) {
		free(ids);
		return -1;
	}
	int rc = dist_gather_rows(k->j->comm, d, ids, (size_t)want, k->o->bias, sample, storage);
	free(ids);
	return rc;
}

/* lik_walk_scorer over dist_cv's folds: one C scored by all processes. */
static int scorer_at(void *context, double C, double *score)
{
	struct cv_search *s = context;
	bool unchanged;
	if (cv_search_score(s, C, s->j->param->p, score, &unchanged) != 0)
		return -1;
	info("log2c=%7.2f\trate=%g\n", log2(C), 100.0 * *score);
	return 0;
}

static void scorer_forget(void *context)
{
	cv_search_restart(context);
}

static void scorer_fold_scores(void *context, double *out)
{
	cv_search_fold_scores(context, out);
}

/*
 * The mean squared norm of the mapped rows (cells and -a's raw part, the
 * bias out) rounded to a power of two, as lik_search's walks scale C by:
 * 1 for cells alone. The sum is taken per block and combined in block
 * order, so it is the same for any number of processes.
 */
static double norm_unit(const struct job *j)
{
	const struct row_set *X = j->rows->X;
	if (X->kind != ROWS_CELLS || X->raw == NULL)
		return 1;
	const struct dist_rows *rows = j->rows;
	double *part = calloc((size_t)(rows->nr_blocks > 0 ? rows->nr_blocks : 1), sizeof *part);
	if (!dist_agree(j->comm, part != NULL, "ERROR: out of memory in parameter search"))
		return NAN;
	for (int b = 0; b < rows->nr_blocks; b++)
		for (int i = rows->block_begin[b]; i < rows->block_begin[b + 1]; i++) {
			double q = (double)X->t * X->cell_value * X->cell_value;
			for (const struct feature_node *f = X->raw[i]; f->index != -1; f++)
				q += f->value * f->value;
			part[b] += q;
		}
	double sum = 0;
	dist_combine(rows, part, 1, 1, &sum);
	free(part);
	return exp2(round(log2(sum / (double)j->d->total_rows)));
}

/* Plain rows with the bias node the map-bound rows lack (the baseline's rows, as train's). */
static int plain_rows(const struct ksearch *k, struct row_set *X, struct feature_node ***x,
	struct feature_node **nodes)
{
	const struct dist_data *d = k->j->d;
	double bias = k->o->bias;
	size_t count = 0;
	for (int i = 0; i < d->l; i++)
		for (const struct feature_node *f = d->x[i]; f->index != -1; f++)
			count++;
	*x = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof **x);
	*nodes = malloc((count + 2 * (size_t)d->l + 1) * sizeof **nodes);
	if (!dist_agree(k->j->comm, *x != NULL && *nodes != NULL, "ERROR: out of memory in parameter search"))
		return -1;
	int n = d->max_index + (bias >= 0 ? 1 : 0);
	size_t at = 0;
	for (int i = 0; i < d->l; i++) {
		(*x)[i] = *nodes + at;
		for (const struct feature_node *f = d->x[i]; f->index != -1; f++)
			(*nodes)[at++] = *f;
		if (bias >= 0)
			(*nodes)[at++] = (struct feature_node){ n, bias };
		(*nodes)[at++] = (struct feature_node){ -1, 0 };
	}
	*X = rows_sparse(d->l, n, *x);
	return 0;
}

/* The rows of one all-row walk: mapped at psi (its map into *map), or plain (psi 0). */
static int walk_rows(struct ksearch *k, int psi, struct row_set *X, void **cells,
	struct feature_node ***x, struct feature_node **nodes, struct lik_map **map)
{
	const struct options *o = k->o;
	if (psi == 0)
		return plain_rows(k, X, x, nodes);
	struct lik_map_params at = *k->kernel;
	at.psi = psi;
	*map = dist_map_build(k->j->comm, k->j->d, &at, o->input_file, o->per_rank);
	if (*map == NULL)
		return -1;
	struct lik_error err;
	*cells = lik_map_row_set((*map)->map, k->j->d->x, (size_t)k->j->d->l, o->bias, at.device,
		at.threads, X, &err);
	char msg[600] = "";
	if (*cells == NULL)
		snprintf(msg, sizeof msg, "ERROR: %s", err.message);
	return dist_agree(k->j->comm, *cells != NULL, msg) ? 0 : -1;
}

/* lik_spread_rows' walk: one walk on all rows, every process together. */
static int walk_all_rows(void *context, int psi, double C0, double rival,
	struct lik_search_row *row, double *folds, struct lik_map **map, struct lik_error *err)
{
	struct ksearch *k = context;
	double started = MPI_Wtime();
	struct row_set X;
	void *cells = NULL;
	struct feature_node **x = NULL, *nodes = NULL;
	int rc = walk_rows(k, psi, &X, &cells, &x, &nodes, map);
	struct dist_rows rows = *k->j->rows;
	rows.X = &X;
	struct job jj = *k->j;
	jj.rows = &rows;
	struct cv_search s;
	bool searching = false;
	if (rc == 0) {
		rc = cv_search_init(&s, &jj, k->o, k->c);
		searching = rc == 0;
	}
	double unit = rc == 0 && psi > 0 ? norm_unit(&jj) : 1;
	rc = rc == 0 && isnan(unit) ? -1 : rc;
	bool was_muted = info_mute(!k->so->verbose);
	if (rc == 0 && psi > 0 && k->c != NULL) {
		double C_min = c_walk_classification_C_min(k->j->param->solver_type == L2R_LR,
			(double)k->j->d->total_rows, cv_max_row_sqnorm(&jj));
		struct lik_walk_scorer ws = { scorer_at, scorer_forget, scorer_fold_scores, &s,
			c_walk_first_C(C_min, k->start_C, C_WALK_MAX_C_CLASSIFICATION), unit };
		rc = lik_kernel_C_walk(&ws, k->start_C, k->so->patience, C0, rival, &row->C,
			&row->score, folds);
		row->p = -1;
	} else if (rc == 0) {
		/* plain rows: upstream's sweep; -s 11 on mapped rows: with the kernel's early stop */
		struct c_walk_best best;
		rc = cv_search_walk(&s, psi > 0 ? k->so->patience : 0,
			psi > 0 ? lik_patience_from_C(unit) : 0, k->start_C, k->start_p, &best, folds);
		row->C = best.C;
		row->p = best.p;
		row->score = best.score;
	}
	info_mute(was_muted);
	if (searching)
		cv_search_free(&s);
	free(cells);
	free(x);
	free(nodes);
	if (rc != 0) {
		lik_map_free(map);
		k->reported = 1;
		lik_fail(err, LIK_EDATA, "train-mpi: the search stopped");
		return -1;
	}
	/* rank 0's time for everyone: the search's time budget decides alike everywhere */
	row->seconds = MPI_Wtime() - started;
	MPI_Bcast(&row->seconds, 1, MPI_DOUBLE, 0, k->j->comm);
	return 0;
}

/* One line per psi as train -C -k prints it (rank 0; the baseline comes with the summary). */
static void print_row(const struct lik_search_row *r, void *context)
{
	const struct ksearch *k = context;
	if (r->psi == 0 || dist_rank(k->j->comm) != 0)
		return;
	char line[256];
	lik_search_row_text(r, k->c == NULL, line, sizeof line);
	printf("%s\n", line);
	fflush(stdout);
}

int ksearch_run(const struct job *j, const struct options *o, const struct classes *c,
	const struct lik_map_params *kernel, int want_map, int *best_psi, double *best_C,
	double *best_p, struct lik_map **best_map)
{
	int rank = dist_rank(j->comm);
	/* on all rows first, as train -C -k: stage 1's maps would name a row of the subsample */
	if (dist_refuse_negative(j->comm, j->d, kernel, o->input_file, o->per_rank) != 0)
		return -1;
	if (rank == 0)
		printf("Doing parameter search with %d-fold cross validation.\n", o->nr_fold);
	struct lik_search_options so;
	lik_search_options_default(&so);
	so.verbose = o->search_verbose;
	if (o->search_budget >= 0)
		so.time_budget = o->search_budget;
	struct lik_map_params at = *kernel;
	at.psi = o->ik.psi_given ? o->ik.psi : 0;
	struct ksearch k = { j, o, c, &at, &so, o->C_given ? o->param.C : -1,
		o->p_given ? o->param.p : -1, 0 };
	so.on_row = print_row;
	so.context = &k;
	struct problem sample = { 0 };
	struct feature_node *storage = NULL;
	int subsample = at.psi == 0 && at.kernel != LIK_KERNEL_ACOS
		&& j->d->total_rows > so.subsample_rows;
	if (subsample && gather_sample(&k, so.subsample_rows, &sample, &storage) != 0)
		return -1;
	struct lik_spread_rows spread = { (int)j->d->total_rows, subsample ? &sample : NULL,
		walk_all_rows, &k };
	struct lik_error err;
	struct lik_search_table *t = lik_search_spread(&spread, j->param, &at, o->nr_fold, k.start_C,
		k.start_p, &so, &err);
	free(sample.x);
	free(sample.y);
	free(storage);
	/* the same verdict everywhere: a failed walk failed on every process (it agreed) */
	if (t == NULL) {
		if (!k.reported && rank == 0)
			lik_error_print(&err);
		return -1;
	}
	int regression = c == NULL;
	const struct lik_search_row *best = &t->rows[t->best];
	int need = lik_search_summary_text(t, regression, !o->ik.psi_given, NULL, 0);
	char *summary = malloc((size_t)need + 1);
	int ok = dist_agree(j->comm, summary != NULL, "ERROR: out of memory");
	if (ok) {
		lik_search_summary_text(t, regression, !o->ik.psi_given, summary, (size_t)need + 1);
		if (rank == 0) {
			fputs(summary, stdout);
			printf("best model: train-mpi without -C, with -g %d -c %.17g", best->psi, best->C);
			if (regression)
				printf(" -p %.17g", best->p);
			printf("\n");
		}
	}
	free(summary);
	*best_psi = best->psi;
	*best_C = best->C;
	*best_p = best->p;
	*best_map = want_map ? lik_map_share(t->best_map) : NULL;
	lik_search_table_free(&t);
	return ok ? 0 : -1;
}

/* One line of -E's, as train -C -k -E 1 prints it (rank 0). */
static void print_exhaustive_line(int rank, const char *prefix, int psi, const struct c_walk_best *r,
	int regression)
{
	if (rank != 0)
		return;
	if (regression)
		printf("%spsi = %d  Best C = %g Best p = %g  CV MSE = %g\n", prefix, psi, r->C, r->p,
			r->score);
	else
		printf("%spsi = %d  Best C = %g  CV accuracy = %g%%\n", prefix, psi, r->C,
			100.0 * r->score);
	fflush(stdout);
}

/*
 * -C -k -E 1 at one psi: the map built on all rows (as -k builds it), then
 * train -C's walk over C (and p) on the distributed folds, as
 * lik_find_parameters runs find_parameters_rows on the mapped rows.
 */
static int exhaustive_at(struct ksearch *k, int psi, struct c_walk_best *best)
{
	struct row_set X;
	void *cells = NULL;
	struct lik_map *map = NULL;
	int rc = walk_rows(k, psi, &X, &cells, NULL, NULL, &map);
	struct dist_rows rows = *k->j->rows;
	rows.X = &X;
	struct job jj = *k->j;
	jj.rows = &rows;
	struct cv_search s;
	if (rc == 0 && (rc = cv_search_init(&s, &jj, k->o, k->c)) == 0) {
		rc = cv_search_walk(&s, 0, 0, k->start_C, k->start_p, best, NULL);
		cv_search_free(&s);
	}
	free(cells);
	lik_map_free(&map);
	return rc;
}

int ksearch_exhaustive(const struct job *j, const struct options *o, const struct classes *c,
	const struct lik_map_params *kernel)
{
	int rank = dist_rank(j->comm);
	if (dist_refuse_negative(j->comm, j->d, kernel, o->input_file, o->per_rank) != 0)
		return -1;
	int regression = c == NULL;
	int rows = j->d->total_rows < INT_MAX ? (int)j->d->total_rows : INT_MAX;
	/* the kernel's grid (IK psi capped by the rows, minmax's 2^b, acos's 2), as train's */
	struct lik_psi_grid g = lik_psi_grid_of(kernel->kernel, rows, LIK_SEARCH_PSI_MAX);
	int first = g.first, last = g.last;
	if (o->ik.psi_given) {
		first = last = o->ik.psi;	/* -g fixes psi: search C only */
	} else if (first > last) {
		if (rank == 0)
			fprintf(stderr, "ERROR: -C with -k needs at least %d training rows (psi starts at %d)\n",
				first, first);
		return -1;
	}
	if (rank == 0)
		printf("Doing parameter search with %d-fold cross validation.\n", o->nr_fold);
	struct lik_map_params at = *kernel;
	struct ksearch k = { j, o, c, &at, NULL, o->C_given ? o->param.C : -1,
		o->p_given ? o->param.p : -1, 0 };
	int best_psi = 0;
	struct c_walk_best best = { 0 };
	for (int psi = first; psi <= last; psi *= g.factor) {
		at.psi = psi;
		struct c_walk_best r;
		if (exhaustive_at(&k, psi, &r) != 0)
			return -1;
		print_exhaustive_line(rank, "", psi, &r, regression);
		if (best_psi == 0 || (regression ? r.score < best.score : r.score > best.score)) {
			best_psi = psi;
			best = r;
		}
		if (psi > last / g.factor)
			break;	/* psi *= factor would pass last (and could overflow) */
	}
	print_exhaustive_line(rank, "Best ", best_psi, &best, regression);
	return 0;
}
