/*
 * anne_device.c - aNNE cells on a CUDA GPU (cuda/anne_gpu.h), exactly the
 * cells of the CPU paths.
 *
 * A map's GPU context is made on first use and kept with the map: the
 * centres, scaled and centred on the mean of the distinct samples (as the
 * dense CPU path does, so float norms stay small), are rounded to float
 * and uploaded once. Each batch of rows is densified the same way,
 * mapped by anne_gpu_map_gaps(), and every (row, partitioning) is then
 * certified against the REFERENCE distance of ikmap.h with the bound of
 * ikmap_gpu_bound() (anne_exact.c): the GPU's cell is kept when its score
 * gap exceeds twice the bound, otherwise the host recomputes the cell
 * with ikmap_nearest_exact(). The GPU's own recheck flags are not enough:
 * they certify the nearest centre of the float-rounded data, which may
 * differ from the reference's on near ties.
 *
 * Floats below FLT_MIN are flushed to 0 before upload, so that neither
 * the GEMM nor the bound meets subnormal inputs.
 *
 * One context serves one host thread at a time (anne_gpu.h): mapping on
 * the GPU holds the map's lock. A context that failed (no memory on the
 * device, cuBLAS missing, a centre norm too large for float) is not tried
 * again; ikmap_map_on() then falls back to the CPU under
 * IKMAP_DEVICE_AUTO and reports the reason under IKMAP_DEVICE_GPU.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "anne_gpu.h"
#include "anne_bound.h"
#include "ikmap_impl.h"

/* Centre matrices above this stay on the CPU (auto) or are refused (gpu). */
#define GPU_MAX_CENTRE_BYTES ((size_t)4 << 30)
/* Densified rows handed to the GPU per call. */
#define GPU_BATCH_BYTES ((size_t)256 << 20)
/* Centred centre norms from here on would overflow float squares. */
#define GPU_MAX_NORM 0x1p59

enum gpu_state { GPU_UNTRIED, GPU_READY, GPU_FAILED };

struct ikmap_gpu {
	pthread_mutex_t lock;
	enum gpu_state state;
	struct anne_gpu *context;
	double *mean;		/* [dim+1] */
	double *part_norm;	/* [t]: largest ||c - mean|| of each partitioning */
	char why[IKMAP_ERR_SIZE];	/* why the state is GPU_FAILED */
};

static pthread_once_t devices_once = PTHREAD_ONCE_INIT;
static int devices_found;

static void count_devices(void)
{
	devices_found = anne_gpu_device_count();
}

int ikmap_gpu_devices(char *err)
{
	if (!anne_gpu_supported()) {
		ikmap_error(err, "this build has no GPU support");
		return 0;
	}
	pthread_once(&devices_once, count_devices);
	if (devices_found < 1)
		ikmap_error(err, "no CUDA device found");
	return devices_found;
}

struct ikmap_gpu *ikmap_gpu_new(void)
{
	struct ikmap_gpu *g = calloc(1, sizeof *g);
	if (g && pthread_mutex_init(&g->lock, NULL) != 0) {
		free(g);
		return NULL;
	}
	return g;
}

void ikmap_gpu_free(struct ikmap_gpu *g)
{
	if (!g)
		return;
	anne_gpu_free(g->context);
	free(g->mean);
	free(g->part_norm);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

int ikmap_gpu_fits(const struct ikmap *map, char *err)
{
	if (map->method != IKMAP_ANNE) {
		ikmap_error(err, "iForest maps on the CPU");
		return 0;
	}
	size_t bytes = (size_t)map->t * (size_t)map->psi * (size_t)map->dim * sizeof(float);
	if (map->dim > ANNE_MAX_DIM || bytes > GPU_MAX_CENTRE_BYTES) {
		ikmap_error(err, "the partitioning is too wide for the GPU (%d features; the GPU takes"
			" at most %d features and t*psi*features <= %zu floats)",
			map->dim, ANNE_MAX_DIM, GPU_MAX_CENTRE_BYTES / sizeof(float));
		return 0;
	}
	return 1;
}

/* The nearest float, or 0 where that is subnormal (see the top). */
static float flushed_float(double v)
{
	float f = (float)v;
	return fabsf(f) < FLT_MIN ? 0.0f : f;
}

/* The mean of the distinct scaled samples (the dense CPU path's too). */
static void sample_mean(const struct ikmap *map, double *mean)
{
	for (int j = 0; j <= map->dim; j++)
		mean[j] = 0;
	int64_t nnz = map->sample_start[map->nsamples];
	for (int64_t e = 0; e < nnz; e++)
		mean[map->sample_index[e]] += ikmap_sample_scaled(map, e);
	for (int j = 1; j <= map->dim; j++)
		mean[j] /= map->nsamples;
}

/* Writes float(c - mean) of sample s (dim values); returns ||c - mean|| in double. */
static double centred_sample(const struct ikmap *map, const double *mean, int s, float *out)
{
	int64_t e = map->sample_start[s], end = map->sample_start[s + 1];
	double sq = 0;
	for (int j = 1; j <= map->dim; j++) {
		double c = -mean[j];
		if (e < end && map->sample_index[e] == j)
			c = ikmap_sample_scaled(map, e++) - mean[j];
		sq += c * c;
		out[j - 1] = flushed_float(c);
	}
	return sqrt(sq);
}

/* Writes float(x * factor - mean) of a row (dim values); returns its norm in double. */
static double centred_row(const struct ikmap *map, const double *mean, const struct feature_node *x,
	float *out)
{
	double sq = 0;
	int next = 1;
	for (const struct feature_node *f = x; f->index != -1; f++) {
		int j = f->index;
		if (j < 1 || j > map->dim)
			continue;
		for (; next < j; next++) {
			sq += mean[next] * mean[next];
			out[next - 1] = flushed_float(-mean[next]);
		}
		double v = ikmap_apply(map, j, f->value) - mean[j];
		sq += v * v;
		out[j - 1] = flushed_float(v);
		next = j + 1;
	}
	for (; next <= map->dim; next++) {
		sq += mean[next] * mean[next];
		out[next - 1] = flushed_float(-mean[next]);
	}
	return sqrt(sq);
}

/* Makes the context: mean, centred float centres, their norms, upload. */
static int create_context(const struct ikmap *map, struct ikmap_gpu *g)
{
	size_t m = (size_t)map->t * (size_t)map->psi;
	float *centres = malloc(m * (size_t)map->dim * sizeof(float));
	g->mean = malloc(((size_t)map->dim + 1) * sizeof(double));
	g->part_norm = calloc((size_t)map->t, sizeof(double));
	if (!centres || !g->mean || !g->part_norm) {
		free(centres);
		ikmap_error(g->why, "out of memory");
		return -1;
	}
	sample_mean(map, g->mean);
	int too_large = 0;
	for (int k = 0; k < map->t; k++) {
		for (int i = 0; i < map->psi; i++) {
			size_t j = (size_t)k * map->psi + (size_t)i;
			double b = centred_sample(map, g->mean, map->centre[j],
				centres + j * (size_t)map->dim);
			g->part_norm[k] = fmax(g->part_norm[k], b);
		}
		too_large |= !(g->part_norm[k] < GPU_MAX_NORM);
	}
	if (too_large) {
		free(centres);
		ikmap_error(g->why, "centre values too large for float arithmetic on the GPU");
		return -1;
	}
	char why[IKMAP_ERR_SIZE];
	g->context = anne_gpu_create(centres, map->t, map->psi, map->dim, why, sizeof why);
	free(centres);
	if (!g->context) {
		ikmap_error(g->why, "%s", why);
		return -1;
	}
	return 0;
}

/* One batch's buffers: densified rows, their norms and the GPU's answers. */
struct gpu_batch {
	size_t rows;
	float *x;		/* [rows][dim] */
	double *norm;		/* [rows] */
	uint32_t *cell;		/* [rows][t] */
	uint8_t *recheck;	/* [rows][t] */
	float *gap;		/* [rows][t] */
};

static void free_batch(struct gpu_batch *b)
{
	free(b->x);
	free(b->norm);
	free(b->cell);
	free(b->recheck);
	free(b->gap);
}

static int alloc_batch(const struct ikmap *map, size_t count, struct gpu_batch *b)
{
	size_t per_row = (size_t)map->dim * sizeof(float);
	size_t rows = GPU_BATCH_BYTES / per_row;
	b->rows = rows < 1 ? 1 : rows > count ? count : rows;
	size_t cells = b->rows * (size_t)map->t;
	b->x = malloc(b->rows * per_row);
	b->norm = malloc(b->rows * sizeof(double));
	b->cell = malloc(cells * sizeof(uint32_t));
	b->recheck = malloc(cells);
	b->gap = malloc(cells * sizeof(float));
	if (!b->x || !b->norm || !b->cell || !b->recheck || !b->gap) {
		free_batch(b);
		return -1;
	}
	return 0;
}

/*
 * Keeps each GPU cell its gap certifies (see the top) and recomputes the
 * others with the reference distance. NaN gaps or norms never certify.
 */
static void certify(const struct ikmap *map, const struct ikmap_gpu *g, struct feature_node *const *rows,
	size_t n, const struct gpu_batch *b, void *cells, size_t first, int threads)
{
	struct ikmap_bound e = ikmap_gpu_bound(map->dim);
	int t = map->t;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < t; k++) {
			size_t at = i * (size_t)t + (size_t)k;
			double bound = ikmap_bound_at(&e, b->norm[i], g->part_norm[k]);
			uint32_t cell = b->cell[at];
			if (!((double)b->gap[at] > 2 * bound))
				cell = (uint32_t)ikmap_nearest_exact(map, rows[i], k, NULL);
			ikmap_put_cell(map, cells, (first + i) * (size_t)t + (size_t)k, cell);
		}
}

static int map_batches(const struct ikmap *map, struct ikmap_gpu *g, struct feature_node *const *rows,
	size_t count, void *cells, int threads, char *err)
{
	struct gpu_batch b;
	if (alloc_batch(map, count, &b)) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	int status = 0;
	for (size_t first = 0; first < count && !status; first += b.rows) {
		size_t n = count - first < b.rows ? count - first : b.rows;
#pragma omp parallel for num_threads(threads) schedule(static)
		for (size_t i = 0; i < n; i++)
			b.norm[i] = centred_row(map, g->mean, rows[first + i], b.x + i * (size_t)map->dim);
		char why[IKMAP_ERR_SIZE];
		if (anne_gpu_map_gaps(g->context, b.x, (int64_t)n, b.cell, b.recheck, b.gap, why, sizeof why)) {
			ikmap_error(err, "%s", why);
			status = -1;
		} else {
			certify(map, g, rows + first, n, &b, cells, first, threads);
		}
	}
	free_batch(&b);
	return status;
}

int ikmap_anne_gpu_map(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads, char *err)
{
	struct ikmap_gpu *g = map->gpu;
	pthread_mutex_lock(&g->lock);
	if (g->state == GPU_UNTRIED)
		g->state = create_context(map, g) ? GPU_FAILED : GPU_READY;
	int status = -1;
	if (g->state == GPU_FAILED) {
		ikmap_error(err, "%s", g->why);
	} else if (map_batches(map, g, rows, count, cells, threads, g->why)) {
		/* After a failed map only anne_gpu_free() is valid. */
		anne_gpu_free(g->context);
		g->context = NULL;
		g->state = GPU_FAILED;
		ikmap_error(err, "%s", g->why);
	} else {
		status = 0;
	}
	pthread_mutex_unlock(&g->lock);
	return status;
}
