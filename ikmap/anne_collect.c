/*
 * anne_collect.c - keeps the rows aNNE sampled, each distinct row once
 * (partitionings may share rows), and points every centre at its copy.
 *
 * The rows are asked of the source a part at a time (COLLECT_CHUNK rows)
 * and appended to the map's arrays, which grow geometrically and are cut
 * to size at the end: the drawn rows are never all held as nodes (16
 * bytes a nonzero, 125 MB for the 20000-odd rows drawn from 60000 784-d
 * images) beside the map's own copy (12 bytes a nonzero).
 */
#include <stdlib.h>
#include <string.h>
#include "ikmap_impl.h"

/* Rows asked of the source at a time. */
#define COLLECT_CHUNK 1024

/* Room for at least need nonzeros in sample_index and sample_value; 0, or -1. */
static int reserve(struct ikmap *map, size_t need, size_t *cap)
{
	if (need <= *cap)
		return 0;
	size_t room = *cap < 4096 ? 4096 : *cap;
	while (room < need)
		room += room / 2;
	int *index = realloc(map->sample_index, room * sizeof(int));
	if (!index)
		return -1;
	map->sample_index = index;
	double *value = realloc(map->sample_value, room * sizeof(double));
	if (!value)
		return -1;
	map->sample_value = value;
	*cap = room;
	return 0;
}

/* Cuts the arrays to nnz (+ 1) entries; a failed cut keeps the larger block. */
static void cut_to_size(struct ikmap *map, size_t nnz)
{
	int *index = realloc(map->sample_index, (nnz + 1) * sizeof(int));
	if (index)
		map->sample_index = index;
	double *value = realloc(map->sample_value, (nnz + 1) * sizeof(double));
	if (value)
		map->sample_value = value;
}

int ikmap_anne_collect(struct ikmap *map, const int *drawn, const int *ids, size_t u,
	ikmap_row_source source, void *context, char *err)
{
	size_t m = (size_t)map->t * (size_t)map->psi;
	size_t chunk = u < COLLECT_CHUNK ? u : COLLECT_CHUNK;
	struct feature_node **rows = malloc((chunk > 0 ? chunk : 1) * sizeof *rows);
	map->centre = malloc(m * sizeof(int));
	map->sample_start = malloc((u + 1) * sizeof(int64_t));
	if (!rows || !map->centre || !map->sample_start) {
		free(rows);
		ikmap_error(err, "out of memory");
		return -1;
	}
	/* drawn holds ranks among ids: sample s is row ids[s] */
	map->nsamples = (int)u;
	memcpy(map->centre, drawn, m * sizeof(int));
	size_t at = 0, cap = 0;
	int status = 0;
	for (size_t first = 0; first < u && !status; first += chunk) {
		size_t count = u - first < chunk ? u - first : chunk;
		if (source(context, ids + first, count, rows, err)) {
			status = -1;
			break;
		}
		for (size_t i = 0; i < count && !status; i++) {
			size_t len = 0;
			while (rows[i][len].index != -1)
				len++;
			if (reserve(map, at + len + 1, &cap)) {
				ikmap_error(err, "out of memory");
				status = -1;
				break;
			}
			map->sample_start[first + i] = (int64_t)at;
			for (size_t e = 0; e < len; e++, at++) {
				map->sample_index[at] = rows[i][e].index;
				map->sample_value[at] = rows[i][e].value;
			}
		}
		/* room for the rest at the rows so far's mean length (+1/8): most builds then
		 * grow once or twice, not in a dozen 1.5x steps that copy and fault again */
		size_t done = first + count;
		if (!status && done < u && done > 0) {
			size_t rest = (size_t)((double)at / (double)done * (double)(u - done) * 1.125) + 1;
			if (reserve(map, at + rest, &cap)) {
				ikmap_error(err, "out of memory");
				status = -1;
			}
		}
	}
	free(rows);
	if (status)
		return -1;
	if (!map->sample_index && reserve(map, 1, &cap)) {	/* no sample at all: room for the end */
		ikmap_error(err, "out of memory");
		return -1;
	}
	map->sample_start[u] = (int64_t)at;
	cut_to_size(map, at);
	return 0;
}
