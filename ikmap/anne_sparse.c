/*
 * anne_sparse.c - aNNE cells for sparse, high-dimensional rows: an
 * inverted index (feature -> the samples using it, with their scaled
 * values) lets a row touch only the postings of its own nonzeros while it
 * accumulates x.c for every distinct sample in double. Scores
 * ||c||^2 - 2 x.c then go through the same bounded window test as the
 * dense path (anne_exact.c), with the much smaller double error bound.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ikmap_impl.h"

/* Larger norms could overflow the scores; such rows use the reference. */
#define NORM_LIMIT 0x1p500
#define LANES 16

struct workspace {
	double *dot;		/* [nsamples]: x.c of every sample, zero between rows */
	double *score;		/* [psi] */
	unsigned char *flags;	/* [psi] */
};

/* Adds x.c into w->dot for every sample; returns ||x|| and the postings touched. */
static double accumulate(const struct ikmap *map, const struct feature_node *x, double *dot,
	int64_t *touched)
{
	double sq = 0;
	*touched = 0;
	for (const struct feature_node *f = x; f->index != -1; f++) {
		int j = f->index;
		if (j < 1 || j > map->dim)
			continue;
		double v = ikmap_apply(map, j, f->value);
		sq += v * v;
		int key = ikmap_feature_key(map, j);
		if (key < 0)
			continue;	/* in no sample: no postings (its v^2 counts all the same) */
		int64_t begin = map->post_start[key], end = map->post_start[key + 1];
		for (int64_t p = begin; p < end; p++)
			dot[map->post_sample[p]] += v * map->post_value[p];
		*touched += end - begin;
	}
	return sqrt(sq);
}

static void clear(const struct ikmap *map, const struct feature_node *x, double *dot,
	int64_t touched)
{
	if (touched >= map->nsamples) {
		memset(dot, 0, (size_t)map->nsamples * sizeof(double));
		return;
	}
	for (const struct feature_node *f = x; f->index != -1; f++) {
		int key = ikmap_feature_key(map, f->index);
		if (key >= 0)
			for (int64_t p = map->post_start[key]; p < map->post_start[key + 1]; p++)
				dot[map->post_sample[p]] = 0;
	}
}

/* Scores of partitioning k into w->score; returns the smallest. */
static double gather_scores(const struct ikmap *map, int k, struct workspace *w)
{
	const int *centre = map->centre + (size_t)k * (size_t)map->psi;
	int psi = map->psi;
	for (int i = 0; i < psi; i++)
		w->score[i] = map->sample_sqnorm[centre[i]] - 2 * w->dot[centre[i]];
	/* Independent lanes, and a ternary, as fmin() is a libm call. */
	double m[LANES];
	for (int l = 0; l < LANES; l++)
		m[l] = INFINITY;
	int i = 0;
	for (; i + LANES <= psi; i += LANES)
		for (int l = 0; l < LANES; l++)
			m[l] = w->score[i + l] < m[l] ? w->score[i + l] : m[l];
	for (; i < psi; i++)
		m[0] = w->score[i] < m[0] ? w->score[i] : m[0];
	double best = m[0];
	for (int l = 1; l < LANES; l++)
		best = m[l] < best ? m[l] : best;
	return best;
}

/* As in anne_dense.c: the count of scores <= thr, per lane i % LANES. */
static int count_within(const double *s, int n, double thr, int lane[LANES])
{
	for (int l = 0; l < LANES; l++)
		lane[l] = 0;
	int i = 0;
	for (; i + LANES <= n; i += LANES)
		for (int l = 0; l < LANES; l++)
			lane[l] += s[i + l] <= thr;
	for (; i < n; i++)
		lane[i % LANES] += s[i] <= thr;
	int total = 0;
	for (int l = 0; l < LANES; l++)
		total += lane[l];
	return total;
}

static int only_within(const double *s, int n, double thr, const int lane[LANES])
{
	int l = 0;
	while (lane[l] == 0)
		l++;
	for (int i = l; i < n; i += LANES)
		if (s[i] <= thr)
			return i;
	return l;
}

static int segment_cell(const struct ikmap *map, const struct feature_node *x, int k,
	double norm, const struct ikmap_bound *bound, struct workspace *w)
{
	double b = map->part_maxnorm[k];
	if (!(norm < NORM_LIMIT && b < NORM_LIMIT))
		return ikmap_nearest_exact(map, x, k, NULL);
	double best = gather_scores(map, k, w);
	double tol = 2 * ikmap_bound_at(bound, norm, b);
	double thr = nextafter(best + tol, INFINITY);
	int psi = map->psi, lane[LANES];
	if (count_within(w->score, psi, thr, lane) == 1)
		return only_within(w->score, psi, thr, lane);
	for (int i = 0; i < psi; i++)
		w->flags[i] = w->score[i] <= thr;
	return ikmap_nearest_exact(map, x, k, w->flags);
}

int ikmap_anne_sparse_map(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads)
{
	struct ikmap_bound bound = ikmap_double_bound(map->dim);
	int failed = 0;
#pragma omp parallel num_threads(threads) reduction(|:failed)
	{
		struct workspace w;
		w.dot = calloc((size_t)map->nsamples, sizeof(double));
		w.score = malloc((size_t)map->psi * sizeof(double));
		w.flags = malloc((size_t)map->psi);
		failed = !w.dot || !w.score || !w.flags;
#pragma omp for schedule(dynamic, 64)
		for (size_t i = 0; i < count; i++) {
			if (failed)
				continue;
			int64_t touched;
			double norm = accumulate(map, rows[i], w.dot, &touched);
			for (int k = 0; k < map->t; k++)
				ikmap_put_cell(map, cells, i * (size_t)map->t + (size_t)k,
					(uint32_t)segment_cell(map, rows[i], k, norm, &bound, &w));
			clear(map, rows[i], w.dot, touched);
		}
		free(w.dot);
		free(w.score);
		free(w.flags);
	}
	return failed ? -1 : 0;
}
