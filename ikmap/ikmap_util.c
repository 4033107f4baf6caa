/*
 * ikmap_util.c - the helpers every ikmap source uses: error messages, the
 * thread count and the feature keys (ikmap_impl.h). It sits below all the
 * others and calls none of them, so the method files (anne_*.c, iforest.c,
 * sample.c) take nothing from the facade (ikmap.c, ikmap_file.c) and the
 * facade calls down into them, never the other way.
 */
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ikmap_impl.h"

void ikmap_error(char *err, const char *fmt, ...)
{
	if (!err)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, IKMAP_ERR_SIZE, fmt, ap);
	va_end(ap);
}

int ikmap_threads(int requested)
{
	return requested > 0 ? requested : omp_get_max_threads();
}

int ikmap_generic_scans;

/*
 * Feature keys are the features themselves while span + 1 entries cost
 * little: up to 2^22 (32 MiB of eight-byte entries) or DIRECT_PER_NONZERO
 * entries per stored nonzero, which covers every real data set's map of
 * moderate width at the old cost (one load per lookup). Beyond, a sorted
 * list of the distinct features, found by binary search.
 */
#define DIRECT_MAX_SPAN (1 << 22)
#define DIRECT_PER_NONZERO 8

static int cmp_feature(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int ikmap_set_keys(struct ikmap *map, const int *index, int64_t count)
{
	free(map->keys);
	map->keys = NULL;
	map->nkeys = 0;
	map->span = 0;
	for (int64_t e = 0; e < count; e++)
		if (index[e] > map->span)
			map->span = index[e];
	if (map->span <= DIRECT_MAX_SPAN || map->span / DIRECT_PER_NONZERO <= count)
		return 0;
	map->keys = malloc((size_t)count * sizeof(int));
	if (!map->keys)
		return -1;
	memcpy(map->keys, index, (size_t)count * sizeof(int));
	qsort(map->keys, (size_t)count, sizeof(int), cmp_feature);
	int n = 0;
	for (int64_t e = 0; e < count; e++)
		if (n == 0 || map->keys[n - 1] != map->keys[e])
			map->keys[n++] = map->keys[e];
	map->nkeys = n;
	return 0;
}
