/*
 * minmax.c - the min-max map's side of the facade: it makes the sampler
 * of ikmap/cws.h (consistent weighted sampling, its own contract) for a
 * map's (seed, k, cells, d) and hands it each row's transformed form
 * (kernel_rows.c), storing the k cells it returns.
 *
 * Contract: ikmap_minmax_prepare creates map->cws (derived: rebuilt after
 * a build or a load, never stored); ikmap_minmax_map writes the cells of
 * rows that passed ikmap_kernel_check, split among threads by rows (the
 * sampler is thread-safe and a row's cells depend on that row alone, so
 * any thread count gives the same cells); ikmap_minmax_free drops the
 * sampler. The transformed form is exactly what cws_row_cells asks for:
 * indices ascending in 1..d, values finite and > 0 (zeros dropped,
 * negatives refused by the check, features above d left out).
 *
 * The sampler lives in ikmap/cws.[ch], written beside this file. A build
 * without ikmap/cws.h compiles this file to stubs that refuse min-max
 * maps with a clear message (ikmap_minmax_prepare fails, so no min-max map
 * is ever built or loaded there).
 */
#include <stdlib.h>
#include "ikmap_impl.h"

#if defined(__has_include)
#if __has_include("cws.h")
#define IKMAP_HAVE_CWS 1
#endif
#endif

#ifdef IKMAP_HAVE_CWS
#include "cws.h"

int ikmap_minmax_prepare(struct ikmap *map, char *err)
{
	char why[IKMAP_ERR_SIZE] = "";
	map->cws = cws_new(map->seed, map->t, map->psi, map->dim, why);
	if (!map->cws) {
		ikmap_error(err, "%s", why[0] ? why : "out of memory");
		return -1;
	}
	return 0;
}

void ikmap_minmax_free(struct ikmap *map)
{
	if (map->cws)
		cws_free(map->cws);
	map->cws = NULL;
}

int ikmap_minmax_map(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	void *cells, int threads)
{
	int failed = 0;
	long long n = (long long)count;
#pragma omp parallel num_threads(threads) reduction(|:failed)
	{
		int *index = NULL;
		double *value = NULL;
		size_t room = 0;
		uint32_t *out = malloc((size_t)map->t * sizeof(uint32_t));
		failed = !out;
#pragma omp for schedule(dynamic, 64)
		for (long long r = 0; r < n; r++) {
			if (failed)
				continue;
			size_t need = ikmap_kernel_row_room(map, in, (size_t)r);
			if (need > room || !index) {
				free(index);
				free(value);
				room = 2 * need + 16;	/* never 0: the arrays always exist */
				index = malloc(room * sizeof(int));
				value = malloc(room * sizeof(double));
				if (!index || !value) {
					failed = 1;
					room = 0;
					continue;
				}
			}
			int nnz = ikmap_kernel_row(map, in, (size_t)r, index, value);
			cws_row_cells(map->cws, index, value, nnz, out);
			size_t at = (size_t)r * (size_t)map->t;
			for (int j = 0; j < map->t; j++)
				ikmap_put_cell(map, cells, at + (size_t)j, out[j]);
		}
		free(index);
		free(value);
		free(out);
	}
	return failed ? -1 : 0;
}

#else /* no ikmap/cws.h in this build */

int ikmap_minmax_prepare(struct ikmap *map, char *err)
{
	(void)map;
	ikmap_error(err, "this build has no min-max sampler (ikmap/cws.c): -k minmax is unavailable");
	return -1;
}

void ikmap_minmax_free(struct ikmap *map)
{
	map->cws = NULL;
}

int ikmap_minmax_map(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	void *cells, int threads)
{
	(void)map;
	(void)in;
	(void)count;
	(void)cells;
	(void)threads;
	return -1;
}

#endif
