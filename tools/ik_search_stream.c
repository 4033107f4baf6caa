/* ik_search_stream.c - train -C -k over its file in passes (see ik_search_stream.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "find_parameters.h"
#include "ik_search_stream.h"
#include "lik_internal.h"

/* What the walks on all rows share (lik_spread_rows' context). */
struct stream_search {
	struct ik_stream *s;
	const struct lik_map_params *kernel;	/* psi 0: each walk sets its own */
	struct lik_walk_setup setup;
	double bias;
	int reported;		/* a failure already printed its message (ik_stream's) */
};

/* lik_spread_rows' walk: all rows mapped at psi in one more pass, then lik_search's walk on them. */
static int walk_all_rows(void *context, int psi, double C0, double rival,
	struct lik_search_row *row, double *folds, struct lik_map **map, struct lik_error *err)
{
	struct stream_search *k = context;
	double started = lik_seconds_now();
	*map = NULL;
	if (psi <= 0) {
		/* the plain baseline runs on the subsample, which lik_search_spread always has here */
		lik_fail(err, LIK_EINVAL, "the plain baseline on all rows needs them held");
		return -1;
	}
	struct lik_map_params at = *k->kernel;
	at.psi = psi;
	struct ikmap *built = ik_stream_build(k->s, &at);
	if (built == NULL || ik_stream_map(k->s, built, k->bias) != 0) {
		ikmap_free(built);
		k->reported = 1;
		lik_fail(err, LIK_EDATA, "the search stopped");
		return -1;
	}
	int rc = lik_search_walk_rows(&k->setup, &k->s->X, k->s->y, k->bias, psi, C0, rival, row,
		folds, err);
	/* the cells go now: the next walk, the baseline or the model need the room */
	ik_stream_drop_cells(k->s);
	if (rc != 0) {
		ikmap_free(built);
		return -1;
	}
	*map = lik_map_wrap(built, err);	/* frees built on failure */
	if (*map == NULL)
		return -1;
	row->seconds = lik_seconds_now() - started;
	return 0;
}

/* Rows ids[0..count-1] of s read back (count 0 .. l: ids NULL means rows 0..count-1). */
static int read_back(struct ik_stream *s, const int *ids, int count, double bias,
	struct problem *rows, struct feature_node **storage)
{
	int *all = NULL;
	if (ids == NULL) {
		all = malloc((size_t)(count > 0 ? count : 1) * sizeof *all);
		if (all == NULL) {
			fprintf(stderr, "ERROR: out of memory\n");
			return -1;
		}
		for (int i = 0; i < count; i++)
			all[i] = i;
		ids = all;
	}
	int rc = ik_stream_read_rows(s, ids, (size_t)count, bias, rows, storage);
	free(all);
	return rc;
}

struct lik_search_table *ik_search_stream(struct ik_stream *s, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double start_C, double start_p,
	const struct lik_search_options *so, double bias)
{
	struct lik_error err;
	struct problem rows = { 0 };
	struct feature_node *storage = NULL;
	struct lik_search_table *t = NULL;
	int want = so->subsample_rows;
	if (want <= 0 || s->l <= want) {
		/* no subsample: stage 1 and the baseline walk on all rows, which are few */
		if (read_back(s, NULL, s->l, bias, &rows, &storage) != 0)
			return NULL;
		t = lik_search(&rows, param, kernel, nr_fold, start_C, start_p, so, &err);
	} else {
		int *ids = malloc((size_t)want * sizeof *ids);
		if (ids == NULL || lik_draw_ids(s->l, want, kernel->seed, ids, &err) != 0) {
			free(ids);
			fprintf(stderr, "ERROR: out of memory\n");
			return NULL;
		}
		int rc = read_back(s, ids, want, bias, &rows, &storage);
		free(ids);
		if (rc != 0)
			return NULL;
		struct stream_search k = { s, kernel, { param, nr_fold, start_C, start_p, so }, bias,
			0 };
		struct lik_spread_rows spread = { s->l, &rows, walk_all_rows, &k };
		t = lik_search_spread(&spread, param, kernel, nr_fold, start_C, start_p, so, &err);
		if (t == NULL && k.reported)
			err.message[0] = '\0';	/* ik_stream said why */
	}
	free(rows.x);
	free(rows.y);
	free(storage);
	if (t == NULL && err.message[0] != '\0')
		lik_error_print(&err);
	return t;
}

struct lik_model *ik_search_stream_train(struct ik_stream *s, const struct parameter *param,
	const struct lik_map *map, double bias)
{
	if (ik_stream_map(s, map->map, bias) != 0)
		return NULL;
	struct lik_error err;
	struct lik_model *m = lik_train_cells(&s->X, s->y, bias, param, lik_map_share(map), &err);
	ik_stream_drop_cells(s);
	if (m == NULL)
		lik_error_print(&err);
	return m;
}

int ik_search_stream_at(struct ik_stream *s, const struct parameter *param,
	const struct lik_map_params *at, int nr_fold, double start_C, double start_p, double bias,
	double *C, double *p, double *score)
{
	struct ikmap *built = ik_stream_build(s, at);
	if (built == NULL || ik_stream_map(s, built, bias) != 0) {
		ikmap_free(built);
		return -1;
	}
	/* upstream's sweep as lik_find_parameters runs it: its log2c lines printed, its errors caught */
	struct lik_capture capture;
	lik_capture_begin(&capture);
	find_parameters_rows(&s->X, s->y, bias, param, nr_fold, start_C, start_p, C, p, score);
	lik_capture_end(&capture);
	ik_stream_drop_cells(s);
	ikmap_free(built);
	if (isnan(*score)) {	/* NaN: the sweep failed and said why */
		struct lik_error err;
		lik_fail_captured(&err, LIK_ENOMEM, &capture, "out of memory in parameter search");
		lik_error_print(&err);
		return -1;
	}
	return 0;
}
