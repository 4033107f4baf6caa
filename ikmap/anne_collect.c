/*
 * anne_collect.c - keeps the rows aNNE sampled, each distinct row once
 * (partitionings may share rows), and points every centre at its copy.
 */
#include <stdlib.h>
#include <string.h>
#include "ikmap_impl.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int position(const int *sorted, int n, int v)
{
	int a = 0, b = n - 1;
	while (a < b) {
		int m = a + (b - a) / 2;
		if (sorted[m] < v)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

static int copy_rows(struct ikmap *map, struct feature_node *const *rows, const int *ids)
{
	int u = map->nsamples;
	int64_t nnz = 0;
	for (int s = 0; s < u; s++)
		for (const struct feature_node *f = rows[ids[s]]; f->index != -1; f++)
			nnz++;
	map->sample_start = malloc(((size_t)u + 1) * sizeof(int64_t));
	map->sample_index = malloc(((size_t)nnz + 1) * sizeof(int));
	map->sample_value = malloc(((size_t)nnz + 1) * sizeof(double));
	if (!map->sample_start || !map->sample_index || !map->sample_value)
		return -1;
	int64_t at = 0;
	for (int s = 0; s < u; s++) {
		map->sample_start[s] = at;
		for (const struct feature_node *f = rows[ids[s]]; f->index != -1; f++, at++) {
			map->sample_index[at] = f->index;
			map->sample_value[at] = f->value;
		}
	}
	map->sample_start[u] = at;
	return 0;
}

int ikmap_anne_collect(struct ikmap *map, struct feature_node *const *rows, const int *drawn,
	char *err)
{
	size_t m = (size_t)map->t * (size_t)map->psi;
	int *ids = malloc(m * sizeof(int));
	map->centre = malloc(m * sizeof(int));
	if (!ids || !map->centre) {
		free(ids);
		ikmap_error(err, "out of memory");
		return -1;
	}
	memcpy(ids, drawn, m * sizeof(int));
	qsort(ids, m, sizeof(int), cmp_int);
	int u = 0;
	for (size_t j = 0; j < m; j++)
		if (u == 0 || ids[u - 1] != ids[j])
			ids[u++] = ids[j];
	map->nsamples = u;
	for (size_t j = 0; j < m; j++)
		map->centre[j] = position(ids, u, drawn[j]);
	int status = copy_rows(map, rows, ids);
	free(ids);
	if (status)
		ikmap_error(err, "out of memory");
	return status;
}
