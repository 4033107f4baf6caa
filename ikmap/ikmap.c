/*
 * ikmap.c - building a map (checks, scaling, sampling), mapping rows,
 * the kernel and accessors. The partitioning-specific work lives in
 * iforest.c and anne_*.c; allocating, preparing and freeing a map in
 * ikmap_state.c; the helpers all of them share in ikmap_util.c.
 */
#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ikmap_impl.h"
#include "tasks.h"

/* The factors of scales 2-4 are computed here and stored: the Makefile compiles this file with
 * -ffp-contract=off, and clang builds that compile it themselves get the same from this pragma. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

const char *ikmap_method_name(enum ikmap_method method)
{
	switch (method) {
	case IKMAP_ANNE:
		return "anne";
	case IKMAP_IFOREST:
		return "iforest";
	case IKMAP_MINMAX:
		return "minmax";
	case IKMAP_ACOS:
		return "acos";
	}
	return NULL;
}

/* Min-max and acos: k samples of a few cells each, no rows drawn (ikmap.h). */
static int is_kernel(enum ikmap_method method)
{
	return method == IKMAP_MINMAX || method == IKMAP_ACOS;
}

/* The caps of min-max and acos maps (ikmap.h), shared by build and load. */
#define KERNEL_MAX_K 65536
#define KERNEL_MAX_CELLS 65536

/* min-max and acos parameters: 0, or -1 with err set */
static int check_kernel_params(const struct ikmap_params *p, char *err)
{
	const char *name = ikmap_method_name(p->method);
	if (p->t < 1 || p->t > KERNEL_MAX_K) {
		ikmap_error(err, "-k %s: k (%d) must be in 1..%d", name, p->t, KERNEL_MAX_K);
		return -1;
	}
	if (p->method == IKMAP_MINMAX) {
		int pow2 = p->psi >= 16 && p->psi <= KERNEL_MAX_CELLS && (p->psi & (p->psi - 1)) == 0;
		if (!pow2) {
			ikmap_error(err, "-k minmax: cells per sample (%d) must be a power of two"
				" from 16 to %d", p->psi, KERNEL_MAX_CELLS);
			return -1;
		}
	} else if (p->psi != 0 && p->psi != 2) {
		ikmap_error(err, "-k acos: a projection has 2 cells (psi %d given)", p->psi);
		return -1;
	}
	return 0;
}

int ikmap_needs_nonnegative(enum ikmap_method method, int scale)
{
	return scale == 4 || (method == IKMAP_MINMAX && scale != 2);
}

const char *ikmap_nonnegative_reason(enum ikmap_method method, int scale)
{
	if (scale == 4)
		return "-S 4 (log1p) needs non-negative data";
	(void)method;
	return "-k minmax needs non-negative data (or -S 2)";
}

static int check_params(int n, int d, const struct ikmap_params *p, char *err)
{
	if (!p || !ikmap_method_name(p->method)) {
		ikmap_error(err, "unknown partitioning method");
		return -1;
	}
	if (is_kernel(p->method) && check_kernel_params(p, err))
		return -1;
	if (p->scale < 0 || p->scale > 4) {
		ikmap_error(err, "-k %s: scale %d is not available (0: none, 1: max-abs, 2: min-max,"
			" 3: standard deviation, 4: log1p then max-abs)",
			ikmap_method_name(p->method), p->scale);
		return -1;
	}
	if (!is_kernel(p->method) && (p->t < 1 || p->psi < 1)) {
		ikmap_error(err, "t (%d) and psi (%d) must be at least 1", p->t, p->psi);
		return -1;
	}
	if (n < 1 || d < 1) {
		ikmap_error(err, "no training rows or no features (n = %d, d = %d)", n, d);
		return -1;
	}
	if (d > IKMAP_MAX_DIM) {
		ikmap_error(err, "%d features: a map can have at most %d", d, IKMAP_MAX_DIM);
		return -1;
	}
	if (ikmap_stores_factors(p->method, p->scale) && d > IKMAP_MAX_SCALED_DIM) {
		ikmap_error(err, "%d features: a scaled map stores a factor per feature and can have"
			" at most %d; map wider data unscaled", d, IKMAP_MAX_SCALED_DIM);
		return -1;
	}
	if (!is_kernel(p->method) && p->psi > n) {
		ikmap_error(err, "psi (%d) exceeds the number of training rows (%d)", p->psi, n);
		return -1;
	}
	/* Cell features k*psi + cell + 1 (and a bias after them) must fit an int. */
	int64_t cells = (int64_t)p->t * (p->method == IKMAP_ACOS ? 2 : p->psi);
	if (cells > INT_MAX - 2) {
		ikmap_error(err, "t * psi (%d * %d) is too large", p->t, p->psi);
		return -1;
	}
	/* !(w >= 0) catches NaN too */
	if (!(p->raw_weight >= 0) || !isfinite(p->raw_weight)) {
		ikmap_error(err, "the raw features' weight must be a finite number >= 0 (got %g)",
			p->raw_weight);
		return -1;
	}
	/* and the raw columns after the cells too (the sum in 64 bits: each part fits an int) */
	if (p->raw_weight > 0 && cells + (int64_t)d > INT_MAX - 2) {
		ikmap_error(err, "t * psi + d (%lld + %d) columns with the raw features: too many",
			(long long)cells, d);
		return -1;
	}
	if (p->raw_weight > 0 && p->method == IKMAP_IFOREST && p->scale == 2
			&& d > IKMAP_MAX_SCALED_DIM) {
		ikmap_error(err, "%d features: iForest's scaled raw features store a factor per"
			" feature and can have at most %d", d, IKMAP_MAX_SCALED_DIM);
		return -1;
	}
	return 0;
}

static int check_rows(struct feature_node *const *rows, int n, int d,
	const struct ikmap_params *p, char *err)
{
	int refuse_negative = ikmap_needs_nonnegative(p->method, p->scale);
	for (int i = 0; i < n; i++) {
		int prev = 0;
		for (const struct feature_node *f = rows[i]; f->index != -1; f++) {
			if (f->index < 1 || f->index > d) {
				ikmap_error(err, "row %d: feature index %d is not in 1..%d",
					i + 1, f->index, d);
				return -1;
			}
			if (f->index <= prev) {
				ikmap_error(err, "row %d: feature indices are not ascending", i + 1);
				return -1;
			}
			if (!isfinite(f->value)) {
				ikmap_error(err, "row %d: feature %d is not a finite number",
					i + 1, f->index);
				return -1;
			}
			if (refuse_negative && f->value < 0) {
				ikmap_error(err, "row %d: feature %d is negative (%g): %s", i + 1,
					f->index, f->value, ikmap_nonnegative_reason(p->method, p->scale));
				return -1;
			}
			prev = f->index;
		}
	}
	return 0;
}

/* draw_rows' tasks: partitioning k's psi distinct rows, from its own generator */
struct draw_job {
	int n, psi;
	struct rng *rngs;
	int *drawn;
	_Atomic int failed;
};

static void draw_task(void *context, size_t k, int worker)
{
	struct draw_job *job = context;
	(void)worker;
	if (ikmap_sample_distinct(&job->rngs[k], job->n, job->psi, job->drawn + k * (size_t)job->psi))
		atomic_store(&job->failed, 1);
}

/* Every partitioning's psi distinct row numbers, at drawn[k*psi ..]. */
static int *draw_rows(int n, int t, int psi, struct rng *rngs, int threads, char *err)
{
	int *drawn = malloc((size_t)t * (size_t)psi * sizeof(int));
	if (!drawn) {
		ikmap_error(err, "out of memory");
		return NULL;
	}
	struct draw_job job = { n, psi, rngs, drawn, 0 };
	ikmap_run_tasks(threads, (size_t)t, draw_task, &job);
	if (atomic_load(&job.failed)) {
		free(drawn);
		ikmap_error(err, "out of memory");
		return NULL;
	}
	return drawn;
}

static int cmp_row_number(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/*
 * The distinct row numbers of drawn[0..m) into ids, ascending, and every
 * draw replaced by its rank among them; returns how many are distinct.
 * When the n rows are not many more than the draws (train -k on a file:
 * n up to some 32 times t * psi), a table of n marks does it in O(n + m);
 * sorting the draws and a binary search per draw (O(m log m), some 8% of
 * train -s 30 -k iforest on a9a) is left for n much larger than m, and
 * for a table that cannot be allocated. Both give the same ids and ranks.
 */
static size_t rank_draws(int *drawn, size_t m, int n, int *ids)
{
	size_t u = 0;
	int *rank = (size_t)n <= 32 * m + 65536 ? calloc((size_t)n, sizeof *rank) : NULL;
	if (rank) {
		for (size_t j = 0; j < m; j++)
			rank[drawn[j]] = 1;
		for (int r = 0; r < n; r++)
			if (rank[r]) {
				rank[r] = (int)u;
				ids[u++] = r;
			}
		for (size_t j = 0; j < m; j++)
			drawn[j] = rank[drawn[j]];
		free(rank);
		return u;
	}
	memcpy(ids, drawn, m * sizeof *ids);
	qsort(ids, m, sizeof *ids, cmp_row_number);
	for (size_t j = 0; j < m; j++)
		if (u == 0 || ids[u - 1] != ids[j])
			ids[u++] = ids[j];
	for (size_t j = 0; j < m; j++)
		drawn[j] = (int)((int *)bsearch(&drawn[j], ids, u, sizeof *ids,
			cmp_row_number) - ids);
	return u;
}

/*
 * The partitionings of a map whose parameters and factors are set: the
 * draws, then aNNE's centres or iForest's trees from the drawn rows, then
 * the derived part. The draws depend on n alone, and only drawn rows are
 * read: source gives them, in ascending row order, and the draws are
 * renumbered to their ranks among them (a renumbering that keeps order:
 * aNNE's sorted samples and iForest's trees come out the same), so rows in
 * memory, dense rows made sparse and rows read back from a file all give
 * the same map, byte for byte. The drawn rows are released before the
 * derived part is made, so they never coexist with it. 0, or -1.
 */
static int partition(struct ikmap *map, int n, ikmap_row_source source, void *context,
	int threads, char *err)
{
	struct rng *rngs = NULL;
	int *drawn = NULL, *ids = NULL;
	size_t m = (size_t)map->t * (size_t)map->psi, u = 0;
	int status = 0;
	if (ikmap_partition_rngs(map->seed, map->t, &rngs)) {
		ikmap_error(err, "out of memory");
		status = -1;
	}
	if (!status && !(drawn = draw_rows(n, map->t, map->psi, rngs, threads, err)))
		status = -1;
	if (!status && !(ids = malloc(m * sizeof *ids))) {
		ikmap_error(err, "out of memory");
		status = -1;
	}
	if (!status)
		u = rank_draws(drawn, m, n, ids);
	if (!status) {
		/* both ask for the drawn rows a part at a time (anne_collect.c, iforest.c) */
		if (map->method == IKMAP_ANNE)
			status = ikmap_anne_collect(map, drawn, ids, u, source, context, err);
		else
			status = ikmap_grow_forest(map, drawn, ids, u, source, context, rngs, threads,
				err);
		source(context, NULL, 0, NULL, err);	/* the drawn rows are no longer needed */
	}
	if (!status)
		status = ikmap_prepare(map, err);
	free(ids);
	free(rngs);
	free(drawn);
	return status;
}

/* A map with the parameters set and nothing built; NULL when out of memory. */
static struct ikmap *new_map(int d, const struct ikmap_params *params, char *err)
{
	struct ikmap *map = ikmap_alloc();
	if (!map) {
		ikmap_error(err, "out of memory");
		return NULL;
	}
	map->method = params->method;
	map->t = params->t;
	map->psi = params->method == IKMAP_ACOS ? 2 : params->psi;
	map->dim = d;
	map->seed = params->seed;
	map->scaled = ikmap_map_scale(params);
	map->raw_weight = params->raw_weight;
	return map;
}

struct ikmap *ikmap_build_scanned(const struct ikmap_scan *scan, int n, int d,
	const struct ikmap_params *params, ikmap_row_source source, void *context, char *err)
{
	if (check_params(n, d, params, err))
		return NULL;
	struct ikmap *map = new_map(d, params, err);
	if (!map)
		return NULL;
	int threads = ikmap_threads(params->threads);
	/* iForest's raw factors come after its trees: a tree applies map->factor, NULL then */
	if (ikmap_scan_factors(scan, map, 0, err) || (is_kernel(map->method) ? ikmap_prepare(map, err)
			: partition(map, n, source, context, threads, err))
			|| ikmap_scan_factors(scan, map, 1, err)) {
		ikmap_free(map);
		return NULL;
	}
	return map;
}

/* The rows of ikmap_build: already in memory, nothing to release. */
static int rows_in_memory(void *context, const int *ids, size_t count,
	struct feature_node **rows, char *err)
{
	struct feature_node *const *all = context;
	(void)err;
	for (size_t i = 0; i < count; i++)
		rows[i] = all[ids[i]];
	return 0;
}

/* All passes of scan over rows[0..n-1]. 0, or -1 with err set. */
static int scan_all(struct ikmap_scan *scan, struct feature_node *const *rows, int n, char *err)
{
	for (int pass = 0; pass < ikmap_scan_passes(scan); pass++) {
		if (ikmap_scan_rows(scan, rows, (size_t)n, err))
			return -1;
		ikmap_scan_end_pass(scan);
	}
	return 0;
}

struct ikmap *ikmap_build(struct feature_node *const *rows, int n, int d,
	const struct ikmap_params *params, char *err)
{
	if (check_params(n, d, params, err) || check_rows(rows, n, d, params, err))
		return NULL;
	struct ikmap_scan *scan = ikmap_scan_new(params);
	if (!scan) {
		ikmap_error(err, "out of memory");
		return NULL;
	}
	struct ikmap *map = NULL;
	if (!scan_all(scan, rows, n, err))
		map = ikmap_build_scanned(scan, n, d, params, rows_in_memory, (void *)rows, err);
	ikmap_scan_free(scan);
	return map;
}

int ikmap_dense_width(const double *x, size_t n, size_t cols, size_t ld)
{
	size_t width = 0;
	for (size_t r = 0; r < n; r++) {
		const double *row = x + r * ld;
		/* from the right: most rows end the scan at once */
		size_t j = cols;
		while (j > width && row[j - 1] == 0)	/* NaN != 0: it counts */
			j--;
		if (j > width)
			width = j;
	}
	return width > (size_t)IKMAP_MAX_DIM ? -1 : (int)width;
}

/*
 * check_rows and scale 2 of dense rows in one pass: zeros are values like
 * any other here, so min and max run over every column 1..d directly.
 */
static int dense_range(struct ikmap *map, const struct ikmap_dense_in *in, int n, char *err)
{
	int d = map->dim;
	map->factor = calloc((size_t)d + 1, sizeof(double));
	map->shift = calloc((size_t)d + 1, sizeof(double));
	double *hi = calloc((size_t)d + 1, sizeof(double));
	if (!map->factor || !map->shift || !hi) {
		free(hi);
		ikmap_error(err, "out of memory");
		return -1;
	}
	double *lo = map->shift;
	for (int i = 0; i < n; i++) {
		const double *x = in->x + (size_t)i * in->ld;
		for (int j = 1; j <= d; j++) {
			double v = x[j - 1];
			if (!isfinite(v)) {
				ikmap_error(err, "row %d: feature %d is not a finite number", i + 1, j);
				free(hi);
				return -1;
			}
			if (i == 0) {
				lo[j] = v;
				hi[j] = v;
			} else {
				lo[j] = v < lo[j] ? v : lo[j];
				hi[j] = v > hi[j] ? v : hi[j];
			}
		}
	}
	for (int j = 1; j <= d; j++)
		ikmap_set_range(map->factor, map->shift, j, lo[j], hi[j]);
	free(hi);
	return 0;
}

/*
 * check_rows and the factors of scale 1 (and of min-max and acos under
 * scale 2) of dense rows in one pass: the first non-finite value in
 * row-major order is the one reported, as check_rows reports the first of
 * the sparse form. The statistics of scales 2-4 are the scan's
 * (ikmap_scan_dense, after this).
 */
static int dense_factors(struct ikmap *map, const struct ikmap_dense_in *in, int n, int threads,
	char *err)
{
	int d = map->dim;
	if (ikmap_stores_shift(map->method, map->scaled))
		return dense_range(map, in, n, err);
	int refuse_negative = ikmap_needs_nonnegative(map->method, map->scaled);
	if (map->scaled == 1) {
		map->factor = calloc((size_t)d + 1, sizeof(double));
		if (!map->factor) {
			ikmap_error(err, "out of memory");
			return -1;
		}
	}
	double *f = map->factor;
	/*
	 * The rows on `threads` threads first (one pass over n d values was a
	 * tenth of a 784-d build): each thread's column maxima, merged (a
	 * maximum is the same in any order), and whether any value is bad.
	 * Only then, and only for bad input, the serial loop below, which
	 * names the first bad value in row-major order.
	 */
	int bad = 0;
	int many = (double)n * d >= (1 << 22);	/* as anne_path.c's PARALLEL_WORK */
#pragma omp parallel num_threads(threads) reduction(|:bad) if(many)
	{
		double *top = f ? calloc((size_t)d + 1, sizeof(double)) : NULL;
		bad = f && !top ? 2 : 0;
#pragma omp for schedule(static)
		for (int i = 0; i < n; i++) {
			if (bad)
				continue;
			const double *x = in->x + (size_t)i * in->ld;
			/*
			 * Not finite: !(|x| <= DBL_MAX), or-ed (vectorised), where
			 * a chain of dependent probe additions took a third of this pass.
			 */
			int row_bad = 0;
			if (top)
				for (int j = 1; j <= d; j++) {
					double a = fabs(x[j - 1]);
					top[j] = a > top[j] ? a : top[j];
					row_bad |= !(a <= DBL_MAX);
				}
			else
				for (int j = 1; j <= d; j++)
					row_bad |= !(fabs(x[j - 1]) <= DBL_MAX);
			if (refuse_negative)
				for (int j = 1; j <= d; j++)
					row_bad |= x[j - 1] < 0;
			bad |= row_bad;
		}
		if (top && !bad) {
#pragma omp critical(ikmap_dense_factors)
			for (int j = 1; j <= d; j++)
				f[j] = top[j] > f[j] ? top[j] : f[j];
		}
		free(top);
	}
	if (bad & 2) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	for (int i = 0; bad && i < n; i++) {
		const double *x = in->x + (size_t)i * in->ld;
		double probe = 0;	/* NaN once a value is infinite or NaN */
		for (int j = 1; j <= d; j++)
			probe += x[j - 1] * 0.0;
		if (probe != 0) {
			for (int j = 1; j <= d; j++)
				if (!isfinite(x[j - 1])) {
					ikmap_error(err, "row %d: feature %d is not a finite number",
						i + 1, j);
					return -1;
				}
		}
		if (refuse_negative)
			for (int j = 1; j <= d; j++)
				if (x[j - 1] < 0) {
					ikmap_error(err, "row %d: feature %d is negative (%g): %s", i + 1, j,
						x[j - 1], ikmap_nonnegative_reason(map->method, map->scaled));
					return -1;
				}
	}
	if (f)
		for (int j = 0; j <= d; j++)
			f[j] = f[j] > 0 ? 1 / f[j] : 1;
	return 0;
}

/*
 * ikmap_build_dense's drawn rows: made sparse (the nodes their sparse
 * form holds), on threads threads (1 where dense_factors stayed serial,
 * so a small build still starts no thread pool).
 */
struct dense_source {
	const struct ikmap_dense_in *in;
	int d;
	int threads;
	/* both kept from call to call and grown only: a fresh block per call of the
	 * collect's chunks costs its page faults again */
	struct feature_node *nodes;
	size_t *start;		/* [count + 1]: each row's first node */
	size_t nodes_cap, start_cap;
};

static int dense_rows(void *context, const int *ids, size_t count, struct feature_node **rows,
	char *err)
{
	struct dense_source *ds = context;
	if (rows == NULL) {	/* release */
		free(ds->nodes);
		free(ds->start);
		ds->nodes = NULL;
		ds->start = NULL;
		ds->nodes_cap = ds->start_cap = 0;
		return 0;
	}
	if (count + 1 > ds->start_cap) {
		free(ds->start);
		ds->start_cap = 0;
		ds->start = malloc((count + 1) * sizeof *ds->start);
		if (!ds->start) {
			ikmap_error(err, "out of memory");
			return -1;
		}
		ds->start_cap = count + 1;
	}
	/* each drawn row's nonzeros and its end node, counted exactly (rows apart: any threads) */
	long long n = (long long)count;
#pragma omp parallel for num_threads(ds->threads) schedule(static) if(ds->threads > 1)
	for (long long i = 0; i < n; i++) {
		const double *x = ds->in->x + (size_t)ids[i] * ds->in->ld;
		size_t nz = 1;
		for (int j = 0; j < ds->d; j++)
			nz += x[j] != 0;
		ds->start[i + 1] = nz;
	}
	ds->start[0] = 0;
	for (size_t i = 0; i < count; i++)
		ds->start[i + 1] += ds->start[i];
	if (ds->start[count] > ds->nodes_cap) {
		free(ds->nodes);
		ds->nodes_cap = 0;
		ds->nodes = malloc(ds->start[count] * sizeof *ds->nodes);
		if (!ds->nodes) {
			ikmap_error(err, "out of memory");
			return -1;
		}
		ds->nodes_cap = ds->start[count];
	}
#pragma omp parallel for num_threads(ds->threads) schedule(static) if(ds->threads > 1)
	for (long long i = 0; i < n; i++) {
		rows[i] = ds->nodes + ds->start[i];
		ikmap_dense_row_nodes(ds->in, (size_t)ids[i], ds->d, rows[i]);
	}
	return 0;
}

struct ikmap *ikmap_build_dense(const double *x, int n, int d, size_t ld,
	const struct ikmap_params *params, char *err)
{
	if (check_params(n, d, params, err))
		return NULL;
	if (!x || ld < (size_t)d) {
		ikmap_error(err, "no rows, or a leading dimension below the width %d", d);
		return NULL;
	}
	struct ikmap *map = new_map(d, params, err);
	struct ikmap_scan *scan = map ? ikmap_scan_new(params) : NULL;
	if (!scan) {
		ikmap_free(map);
		ikmap_error(err, "out of memory");
		return NULL;
	}
	struct ikmap_dense_in in = { x, ld, d };
	int threads = ikmap_threads(params->threads);
	/* threads where dense_factors uses them (its `many`) */
	struct dense_source ds = { &in, d, (double)n * d >= (1 << 22) ? threads : 1, NULL, NULL, 0, 0 };
	/* dense_factors checks the values and makes scale 1's and the shifted range's factors;
	 * the scan, scales 2-4's over the nonzeros, as the sparse form gives them */
	int status = dense_factors(map, &in, n, threads, err);
	for (int pass = 0; !status && ikmap_scan_stats(scan) && pass < ikmap_scan_passes(scan); pass++) {
		status = ikmap_scan_dense(scan, &in, (size_t)n, d, err);
		ikmap_scan_end_pass(scan);
	}
	if (!status && ikmap_scan_stats(scan))
		status = ikmap_scan_factors(scan, map, 0, err);
	if (!status)
		status = is_kernel(map->method) ? ikmap_prepare(map, err)
			: partition(map, n, dense_rows, &ds, threads, err);
	if (!status)
		status = ikmap_scan_factors(scan, map, 1, err);
	free(ds.nodes);
	free(ds.start);
	ikmap_scan_free(scan);
	if (status) {
		ikmap_free(map);
		return NULL;
	}
	return map;
}

/*
 * 1: map on the GPU; 0: on the CPU; -1: IKMAP_DEVICE_GPU cannot be had
 * (err says why). iForest always goes to the CPU.
 */
static int use_gpu(const struct ikmap *map, enum ikmap_device device, char *err)
{
	if (device == IKMAP_DEVICE_CPU || map->method != IKMAP_ANNE)
		return 0;
	char why[IKMAP_ERR_SIZE];
	if (ikmap_gpu_devices(why) > 0 && ikmap_gpu_fits(map, why))
		return 1;
	if (device == IKMAP_DEVICE_AUTO)
		return 0;
	ikmap_error(err, "cannot map on the GPU: %s", why);
	return -1;
}

/*
 * aNNE and iForest under scale 4: log1p needs non-negative values, so the
 * rows are checked first as min-max rows are (kernel_rows.c: serially, the
 * first bad value named). 0, or -2 with err set.
 */
static int check_log1p_rows(const struct ikmap *map, const struct ikmap_rows_in *in,
	size_t count, char *err)
{
	if (map->scaled != 4 || is_kernel(map->method))
		return 0;
	return ikmap_kernel_check(map, in, count, err);
}

int ikmap_map_on(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads, enum ikmap_device device, char *err)
{
	struct ikmap_rows_in checked = { rows, NULL };
	int bad = check_log1p_rows(map, &checked, count, err);
	if (bad)
		return bad;
	int gpu = use_gpu(map, device, err);
	if (gpu < 0)
		return -1;
	threads = ikmap_threads(threads);
	if (gpu) {
		char why[IKMAP_ERR_SIZE];
		if (!ikmap_anne_gpu_map(map, rows, count, cells, threads, why))
			return 0;
		if (device == IKMAP_DEVICE_GPU) {
			ikmap_error(err, "cannot map on the GPU: %s", why);
			return -1;
		}
		/* auto: the CPU maps what the GPU could not */
	}
	return ikmap_map(map, rows, count, cells, threads, err);
}

/*
 * Dense rows through the sparse mappers (iForest, the sparse and pruned
 * aNNE paths, the GPU): converted a block at a time, so the sparse copy
 * stays small (about 2^22 values' worth of rows per block). 0, -1 (out of
 * memory or device), -2 (a non-finite value).
 */
static int map_dense_by_blocks(const struct ikmap *map, const struct ikmap_dense_in *in,
	size_t count, void *cells, int threads, enum ikmap_device device, char *err)
{
	size_t per = ((size_t)1 << 22) / ((size_t)in->cols + 1);
	if (per < 256)
		per = 256;	/* enough rows per call for every thread */
	if (per > count)
		per = count;
	int upto = map->dim;
	size_t *start = malloc((per + 1) * sizeof *start);
	struct feature_node **rows = malloc(per * sizeof *rows);
	struct feature_node *nodes = NULL;
	size_t room = 0;
	int status = 0;
	if (!start || !rows) {
		ikmap_error(err, "out of memory");
		status = -1;
	}
	for (size_t first = 0; !status && first < count; first += per) {
		size_t n = count - first < per ? count - first : per;
		long long nn = (long long)n;
		int bad = 0;
		/* nonzeros per row (up to dim) and a finiteness check of every value */
#pragma omp parallel for num_threads(threads) schedule(static) reduction(|:bad)
		for (long long r = 0; r < nn; r++) {
			const double *x = in->x + (first + (size_t)r) * in->ld;
			int last = in->cols < upto ? in->cols : upto;
			size_t nz = 0;
			double probe = 0;
			for (int j = 0; j < in->cols; j++) {
				nz += j < last && x[j] != 0;
				probe += x[j] * 0.0;
			}
			bad |= probe != 0;
			start[r + 1] = nz + 1;
		}
		if (bad) {
			status = -2;
			break;
		}
		start[0] = 0;
		for (size_t r = 0; r < n; r++)
			start[r + 1] += start[r];
		if (start[n] > room) {
			free(nodes);
			room = start[n];
			nodes = malloc(room * sizeof *nodes);
			if (!nodes) {
				ikmap_error(err, "out of memory");
				status = -1;
				break;
			}
		}
#pragma omp parallel for num_threads(threads) schedule(static)
		for (long long r = 0; r < nn; r++) {
			rows[r] = nodes + start[r];
			ikmap_dense_row_nodes(in, first + (size_t)r, upto, rows[r]);
		}
		unsigned char *out = (unsigned char *)cells + first * (size_t)map->t * ikmap_cell_size(map);
		if (ikmap_map_on(map, rows, n, out, threads, device, err))
			status = -1;
	}
	free(start);
	free(rows);
	free(nodes);
	return status;
}

/*
 * Min-max and acos rows, sparse or dense: checked first (serially, so the
 * first bad value is the one named whatever the threads), then mapped.
 * 0, -1 (out of memory) or -2 (a refused value).
 */
static int map_kernel(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	void *cells, int threads, char *err)
{
	int status = ikmap_kernel_check(map, in, count, err);
	if (status)
		return status;
	if (map->method == IKMAP_MINMAX)
		status = ikmap_minmax_map(map, in, count, cells, threads);
	else
		status = ikmap_acos_map(map, in, count, cells, threads);
	if (status)
		ikmap_error(err, "out of memory");
	return status;
}

/* The first non-finite value of the rows, as err's message (row-major order). */
static void report_non_finite(const struct ikmap_dense_in *in, size_t count, char *err)
{
	for (size_t r = 0; r < count; r++)
		for (int j = 0; j < in->cols; j++)
			if (!isfinite(in->x[r * in->ld + (size_t)j])) {
				ikmap_error(err, "row %zu: feature %d is not a finite number", r + 1, j + 1);
				return;
			}
	ikmap_error(err, "a value is not a finite number");
}

int ikmap_map_dense_on(const struct ikmap *map, const double *x, size_t count, int cols,
	size_t ld, void *cells, int threads, enum ikmap_device device, char *err)
{
	if (count == 0)
		return 0;
	int gpu = use_gpu(map, device, err);
	if (gpu < 0)
		return -1;
	threads = ikmap_threads(threads);
	struct ikmap_dense_in in = { x, ld, cols };
	struct ikmap_rows_in checked = { NULL, &in };
	int bad = check_log1p_rows(map, &checked, count, err);
	if (bad)
		return bad;
	if (is_kernel(map->method)) {
		struct ikmap_rows_in kin = { NULL, &in };
		return map_kernel(map, &kin, count, cells, threads, err);
	}
	int status;
	if (!gpu && map->method == IKMAP_ANNE && map->path == IKMAP_PATH_DENSE) {
		/* the dense path, pruned or not, packs these rows itself: no sparse copy at all */
		status = ikmap_anne_dense_map_matrix(map, &in, count, cells, threads);
		if (status == -1)
			ikmap_error(err, "out of memory");
	} else {
		status = map_dense_by_blocks(map, &in, count, cells, threads, device, err);
	}
	if (status == -2)
		report_non_finite(&in, count, err);
	return status;
}

int ikmap_map(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads, char *err)
{
	int status;
	threads = ikmap_threads(threads);
	if (is_kernel(map->method)) {
		struct ikmap_rows_in in = { rows, NULL };
		return map_kernel(map, &in, count, cells, threads, err);
	}
	struct ikmap_rows_in checked = { rows, NULL };
	if ((status = check_log1p_rows(map, &checked, count, err)) != 0)
		return status;
	if (map->method == IKMAP_IFOREST)
		status = ikmap_forest_map(map, rows, count, cells, threads);
	else if (map->path == IKMAP_PATH_DENSE)
		status = ikmap_anne_dense_map(map, rows, count, cells, threads);
	else
		status = ikmap_anne_sparse_map(map, rows, count, cells, threads);
	if (status)
		ikmap_error(err, "out of memory");
	return status;
}

size_t ikmap_cell_size(const struct ikmap *map)
{
	return map->psi <= 65536 ? sizeof(uint16_t) : sizeof(uint32_t);
}

uint32_t ikmap_cell_at(const struct ikmap *map, const void *cells, size_t k)
{
	if (map->psi <= 65536)
		return ((const uint16_t *)cells)[k];
	return ((const uint32_t *)cells)[k];
}

double ikmap_kernel_cells(const struct ikmap *map, const void *cells_x, const void *cells_y)
{
	int same = 0;
	for (int k = 0; k < map->t; k++)
		same += ikmap_cell_at(map, cells_x, (size_t)k) == ikmap_cell_at(map, cells_y, (size_t)k);
	return (double)same / map->t;
}

double ikmap_kernel(const struct ikmap *map, const struct feature_node *x,
	const struct feature_node *y)
{
	size_t bytes = ikmap_cell_size(map) * (size_t)map->t;
	unsigned char *cells = malloc(2 * bytes);
	if (!cells)
		return -1;
	/* ikmap_map takes a row array; these rows are only read. */
	struct feature_node *pair[2] = { (struct feature_node *)x, (struct feature_node *)y };
	double k = -1;
	if (!ikmap_map(map, pair, 2, cells, 1, NULL))
		k = ikmap_kernel_cells(map, cells, cells + bytes);
	free(cells);
	return k;
}

int ikmap_set_path(struct ikmap *map, enum ikmap_path path, char *err)
{
	if (map->method == IKMAP_ACOS) {
		if (path == IKMAP_PATH_DENSE && !map->acos_gf) {
			ikmap_error(err, "this acos map is too wide for its float path (k * d above %d)",
				IKMAP_ACOS_TABLE);
			return -1;
		}
		if (path != IKMAP_PATH_AUTO && path != IKMAP_PATH_DENSE && path != IKMAP_PATH_SPARSE) {
			ikmap_error(err, "unknown path");
			return -1;
		}
		map->acos_path = path;
		return 0;
	}
	if (map->method != IKMAP_ANNE) {
		if (path == IKMAP_PATH_DENSE) {
			ikmap_error(err, "%s maps have no dense path",
				map->method == IKMAP_IFOREST ? "iForest" : "min-max");
			return -1;
		}
		return 0;
	}
	return ikmap_anne_use_path(map, path, err);
}

int ikmap_t(const struct ikmap *map) { return map->t; }
int ikmap_psi(const struct ikmap *map) { return map->psi; }
int ikmap_dim(const struct ikmap *map) { return map->dim; }
enum ikmap_method ikmap_method(const struct ikmap *map) { return map->method; }
uint64_t ikmap_seed(const struct ikmap *map) { return map->seed; }
int ikmap_scaled(const struct ikmap *map) { return map->scaled; }
double ikmap_raw_weight(const struct ikmap *map) { return map->raw_weight; }
int ikmap_raw_columns(const struct ikmap *map) { return map->raw_weight > 0 ? map->dim : 0; }

int ikmap_columns(const struct ikmap *map)
{
	/* build and load keep this sum <= INT_MAX - 2 */
	return (int)((int64_t)map->t * map->psi + ikmap_raw_columns(map));
}

size_t ikmap_raw_row(const struct ikmap *map, const struct feature_node *x,
	struct feature_node *out)
{
	size_t c = 0;
	if (map->raw_weight > 0) {
		/* iForest: its own factors under scale 2, else the values as they are */
		int iforest = map->method == IKMAP_IFOREST;
		for (const struct feature_node *f = x; f->index != -1 && f->index <= map->dim; f++) {
			double v = iforest ? (map->raw_factor ? f->value * map->raw_factor[f->index]
						: f->value)
				: ikmap_apply(map, f->index, f->value);
			v *= map->raw_weight;
			if (v != 0)
				out[c++] = (struct feature_node){ f->index, v };
		}
	}
	out[c].index = -1;
	out[c].value = 0;
	return c;
}

int ikmap_known_checksum(const struct ikmap *map, uint64_t *sum)
{
	if (!atomic_load_explicit(&map->checksum_known, memory_order_acquire))
		return 0;
	*sum = atomic_load_explicit(&map->checksum, memory_order_relaxed);
	return 1;
}

void ikmap_keep_checksum(const struct ikmap *map, uint64_t sum)
{
	/*
	 * Writing through the const pointer is sound: every map comes from
	 * ikmap_alloc (never a const object) and only these two atomic fields
	 * change. Threads that race here store the same value.
	 */
	struct ikmap *cache = (struct ikmap *)map;
	atomic_store_explicit(&cache->checksum, sum, memory_order_relaxed);
	atomic_store_explicit(&cache->checksum_known, 1, memory_order_release);
}

uint64_t ikmap_checksum(const struct ikmap *map)
{
	uint64_t sum;
	if (ikmap_known_checksum(map, &sum))
		return sum;
	/* first request: hash now and keep it */
	sum = ikmap_stored_checksum(map);
	ikmap_keep_checksum(map, sum);
	return sum;
}

enum ikmap_path ikmap_path(const struct ikmap *map)
{
	if (map->method == IKMAP_ACOS)
		return map->acos_gf ? map->acos_path : IKMAP_PATH_SPARSE;
	return map->path;
}

const double *ikmap_scale_factors(const struct ikmap *map)
{
	return map->scaled ? map->factor : NULL;
}

const double *ikmap_scale_shift(const struct ikmap *map)
{
	return map->scaled == 2 ? map->shift : NULL;
}
