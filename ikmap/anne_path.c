/*
 * anne_path.c - what aNNE derives from its stored samples (scaled values,
 * norms), the structures of the dense and the sparse path, and the cost
 * model that picks between them.
 *
 * Rule: with m = t psi centres, the dense path costs per mapped row about
 * m (d + 2) GEMM multiply-adds plus m scanned scores; the sparse path one
 * scattered multiply-add per posting it touches (P, estimated by the
 * sampled rows themselves: the mean over samples of the summed posting
 * lengths of their features) plus m gathered scores. With the per-item
 * costs below (process CPU time on one core of the development machine,
 * an AMD EPYC with AVX-512, OpenBLAS 0.3.21; from ikmap_bench over
 * d = 54..1000 and densities 0.05..1 at n = 30000, t = 100, psi = 256),
 * dense is chosen when
 *   m (d + 2) NS_PER_GEMM_MULADD + m NS_PER_DENSE_SCORE
 *     < P NS_PER_POSTING + m NS_PER_SPARSE_SCORE,
 * e.g. dense data always, d = 123 at 11 % density (a9a-like) sparse.
 * Dense is possible only for d <= DENSE_MAX_DIM, a centre matrix of at most
 * DENSE_MAX_BYTES and centre norms below 2^59 (float range, anne_exact.c).
 * Where it is, wide maps (ikmap_prune_useful) also weigh the dense path
 * pruned by lower bounds (anne_prune.c): its structure is built and probed
 * on sampled rows, and it is kept when its estimate, a fraction of the
 * plain dense cost, beats both plain paths (choose_pruned); a pruned map
 * builds no t psi centre matrix (ikmap_anne_dense_matrix builds it when
 * the plain dense path is wanted later).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ikmap_impl.h"

#define DENSE_MAX_DIM (1 << 20)
#define DENSE_MAX_BYTES ((size_t)4 << 30)
#define DENSE_MAX_NORM 0x1p59
/* Measured costs in nanoseconds (see above). */
#define NS_PER_GEMM_MULADD 0.0165
#define NS_PER_DENSE_SCORE 0.45
#define NS_PER_POSTING 0.4
#define NS_PER_SPARSE_SCORE 1.4

static double sample_norm(const struct ikmap *map, int s)
{
	return sqrt(map->sample_sqnorm[s]);
}

static int scale_samples(struct ikmap *map)
{
	int u = map->nsamples;
	int64_t nnz = map->sample_start[u];
	if (ikmap_set_keys(map, map->sample_index, nnz))
		return -1;
	/* a scaled copy only where computing a value again is dear (ikmap_impl.h) */
	if (map->scaled == 4 && !map->sample_scaled) {
		double *scaled = malloc(((size_t)nnz + 1) * sizeof(double));
		if (!scaled)
			return -1;
		for (int64_t e = 0; e < nnz; e++)
			scaled[e] = ikmap_apply(map, map->sample_index[e], map->sample_value[e]);
		map->sample_scaled = scaled;
	}
	map->sample_sqnorm = malloc((size_t)u * sizeof(double));
	map->part_maxnorm = malloc((size_t)map->t * sizeof(double));
	if (!map->sample_sqnorm || !map->part_maxnorm)
		return -1;
	for (int s = 0; s < u; s++) {
		double sq = 0;
		for (int64_t e = map->sample_start[s]; e < map->sample_start[s + 1]; e++) {
			double v = ikmap_sample_scaled(map, e);
			sq += v * v;
		}
		map->sample_sqnorm[s] = sq;
	}
	for (int k = 0; k < map->t; k++) {
		double b = 0;
		for (int i = 0; i < map->psi; i++)
			b = fmax(b, sample_norm(map, map->centre[(size_t)k * map->psi + i]));
		map->part_maxnorm[k] = b;
	}
	return 0;
}

static size_t dense_bytes(const struct ikmap *map)
{
	return (size_t)map->t * (size_t)map->psi * ((size_t)map->dim + 2) * sizeof(float);
}

static int dense_possible(const struct ikmap *map)
{
	if (map->dim > DENSE_MAX_DIM || dense_bytes(map) > DENSE_MAX_BYTES)
		return 0;
	for (int k = 0; k < map->t; k++)
		if (!(map->part_maxnorm[k] < DENSE_MAX_NORM))
			return 0;
	return 1;
}

/* Number of sampled rows with each feature, at count[key]; key_at[e]: key of nonzero e. */
static int64_t *feature_counts(const struct ikmap *map, int *key_at)
{
	int64_t *count = calloc(ikmap_key_count(map) + 1, sizeof(int64_t));
	if (!count)
		return NULL;
	int64_t nnz = map->sample_start[map->nsamples];
	for (int64_t e = 0; e < nnz; e++)
		count[key_at[e] = ikmap_feature_key(map, map->sample_index[e])]++;
	return count;
}

/* The key of every stored nonzero (sample_index's feature keys). */
static int *nonzero_keys(const struct ikmap *map)
{
	return malloc(((size_t)map->sample_start[map->nsamples] + 1) * sizeof(int));
}

/* The cheaper path and both estimates (ns per row; dense: plain, infinite when impossible). */
static int choose_path(const struct ikmap *map, enum ikmap_path *path, double *dense_ns,
	double *sparse_ns)
{
	*path = IKMAP_PATH_SPARSE;
	*dense_ns = INFINITY;
	*sparse_ns = 0;
	if (!dense_possible(map))
		return 0;
	int *key_at = nonzero_keys(map);
	int64_t *count = key_at ? feature_counts(map, key_at) : NULL;
	if (!count) {
		free(key_at);
		return -1;
	}
	double postings = 0;
	int64_t nnz = map->sample_start[map->nsamples];
	for (int64_t e = 0; e < nnz; e++)
		postings += (double)count[key_at[e]];
	postings /= map->nsamples;
	free(count);
	free(key_at);
	double m = (double)map->t * map->psi;
	double dense = m * ((double)map->dim + 2) * NS_PER_GEMM_MULADD + m * NS_PER_DENSE_SCORE;
	double sparse = postings * NS_PER_POSTING + m * NS_PER_SPARSE_SCORE;
	if (dense < sparse)
		*path = IKMAP_PATH_DENSE;
	*dense_ns = dense;
	*sparse_ns = sparse;
	return 0;
}

static void drop_postings(struct ikmap *map)
{
	free(map->post_start);
	free(map->post_sample);
	free(map->post_value);
	map->post_start = NULL;
	map->post_sample = NULL;
	map->post_value = NULL;
}

static int build_postings(struct ikmap *map)
{
	int *key_at = nonzero_keys(map);
	int64_t *count = key_at ? feature_counts(map, key_at) : NULL;
	size_t keys = ikmap_key_count(map);
	int64_t nnz = map->sample_start[map->nsamples];
	map->post_start = malloc((keys + 1) * sizeof(int64_t));
	map->post_sample = malloc(((size_t)nnz + 1) * sizeof(int));
	map->post_value = malloc(((size_t)nnz + 1) * sizeof(double));
	if (!count || !map->post_start || !map->post_sample || !map->post_value) {
		free(count);
		free(key_at);
		drop_postings(map);
		return -1;
	}
	int64_t at = 0;
	for (size_t k = 0; k <= keys; k++) {
		map->post_start[k] = at;
		at += k < keys ? count[k] : 0;
		count[k] = map->post_start[k];	/* now the next free slot of key k */
	}
	for (int s = 0; s < map->nsamples; s++)
		for (int64_t e = map->sample_start[s]; e < map->sample_start[s + 1]; e++) {
			int64_t p = count[key_at[e]]++;
			map->post_sample[p] = s;
			map->post_value[p] = ikmap_sample_scaled(map, e);
		}
	free(count);
	free(key_at);
	return 0;
}

/* The mean of the distinct scaled samples: centring keeps float norms small. */
static int centre_mean(struct ikmap *map)
{
	map->mean = calloc((size_t)map->dim + 1, sizeof(double));
	if (!map->mean)
		return -1;
	int64_t nnz = map->sample_start[map->nsamples];
	for (int64_t e = 0; e < nnz; e++)
		map->mean[map->sample_index[e]] += ikmap_sample_scaled(map, e);
	for (int j = 1; j <= map->dim; j++)
		map->mean[j] /= map->nsamples;
	return 0;
}

/* See ikmap_impl.h: the empty row, then the sample's nonzeros and squared norm. */
double ikmap_anne_dense_row(const struct ikmap *map, int s, float *row)
{
	int dim = map->dim;
	int64_t start = map->sample_start[s], n = map->sample_start[s + 1] - start;
	const int *idx = map->sample_index + start;
	const double *mean = map->mean, *f = map->factor;
	memcpy(row, map->empty_row, ((size_t)dim + 2) * sizeof(float));
	/* ikmap_sample_scaled's values, the case chosen once (a scaled copy, factors, none) */
	if (map->sample_scaled || !f) {
		const double *v = (map->sample_scaled ? map->sample_scaled : map->sample_value) + start;
		for (int64_t e = 0; e < n; e++)
			row[idx[e] - 1] = -2 * (float)(v[e] - mean[idx[e]]);
	} else {
		const double *v = map->sample_value + start;
		for (int64_t e = 0; e < n; e++) {
			int j = idx[e];
			row[j - 1] = -2 * (float)(v[e] * f[j] - mean[j]);
		}
	}
	row[dim] = (float)map->centred_sq[s];
	return sqrt(map->centred_sq[s]);
}

static void drop_dense(struct ikmap *map)
{
	free(map->mean);
	free(map->dense);
	free(map->part_maxnorm_centred);
	free(map->centred_sq);
	free(map->empty_row);
	map->mean = NULL;
	map->dense = NULL;
	map->part_maxnorm_centred = NULL;
	map->centred_sq = NULL;
	map->empty_row = NULL;
}

/* ||c - mean||^2 of sample s (c: dim + 1 doubles of scratch). */
static double centred_sq(const struct ikmap *map, int s, double *c)
{
	const double *mean = map->mean;
	int dim = map->dim;
	/*
	 * The centred row written out (every -mean, then the nonzeros over
	 * them), then its squares in SQ_LANES partial sums, each lane in
	 * order: a merge of the nonzeros into one chain of additions branched
	 * on every feature and was the build's largest serial part at psi 16
	 * on 784 features. A sum of squares in any fixed order has the
	 * relative error bound anne_exact.c assumes of these norms.
	 */
	for (int j = 1; j <= dim; j++)
		c[j] = -mean[j];
	for (int64_t e = map->sample_start[s]; e < map->sample_start[s + 1]; e++)
		c[map->sample_index[e]] = ikmap_sample_scaled(map, e) - mean[map->sample_index[e]];
	enum { SQ_LANES = 8 };
	double lane[SQ_LANES] = {0};
	int j = 1;
	for (; j + SQ_LANES - 1 <= dim; j += SQ_LANES)
		for (int l = 0; l < SQ_LANES; l++)
			lane[l] += c[j + l] * c[j + l];
	for (; j <= dim; j++)
		lane[0] += c[j] * c[j];
	double sq = 0;
	for (int l = 0; l < SQ_LANES; l++)
		sq += lane[l];
	return sq;
}

/*
 * What both dense variants need: the mean, dense_ld and each
 * partitioning's largest centred norm (the pruned path, anne_prune.c,
 * makes the rows it needs per block of partitionings and needs no centre matrix).
 */
/*
 * Values touched below which the build's loops stay on the calling
 * thread: threads cost more than they save there, and a process that
 * forks after a small build keeps GNU OpenMP's thread pool unstarted
 * (a child's parallel region can hang on a pool inherited from fork).
 */
#define PARALLEL_WORK (1 << 22)

static int dense_basics(struct ikmap *map)
{
	if (map->mean)
		return 0;
	map->dense_ld = map->dim + 2;
	map->part_maxnorm_centred = calloc((size_t)map->t, sizeof(double));
	map->centred_sq = malloc((size_t)map->nsamples * sizeof(double));
	map->empty_row = malloc(((size_t)map->dim + 2) * sizeof(float));
	if (!map->part_maxnorm_centred || !map->centred_sq || !map->empty_row || centre_mean(map)) {
		drop_dense(map);
		return -1;
	}
	for (int j = 1; j <= map->dim; j++)
		map->empty_row[j - 1] = -2 * (float)-map->mean[j];
	map->empty_row[map->dim] = 0;
	map->empty_row[map->dim + 1] = 1;
	/*
	 * One sample per iteration, each summed in its own order: any thread
	 * count gives these norms. Small maps stay serial (PARALLEL_WORK).
	 */
	int many = (double)map->nsamples * map->dim >= PARALLEL_WORK;
	int failed = 0;
#pragma omp parallel num_threads(ikmap_threads(0)) if(many) reduction(|:failed)
	{
		double *c = malloc(((size_t)map->dim + 1) * sizeof *c);
		failed = !c;
#pragma omp for schedule(static)
		for (int s = 0; s < map->nsamples; s++)
			if (c)
				map->centred_sq[s] = centred_sq(map, s, c);
		free(c);
	}
	if (failed) {
		drop_dense(map);
		return -1;
	}
	for (int k = 0; k < map->t; k++)
		for (int i = 0; i < map->psi; i++)
			map->part_maxnorm_centred[k] = fmax(map->part_maxnorm_centred[k],
				sqrt(map->centred_sq[map->centre[(size_t)k * map->psi + (size_t)i]]));
	return 0;
}

int ikmap_anne_dense_matrix(struct ikmap *map)
{
	if (dense_basics(map))
		return -1;
	if (map->dense)
		return 0;
	map->dense = malloc(dense_bytes(map));
	if (!map->dense)
		return -1;
	long rows = (long)map->t * map->psi;
	/* rows written apart: the matrix is the same on any thread count */
	int many = (double)rows * map->dim >= PARALLEL_WORK;
#pragma omp parallel for num_threads(ikmap_threads(0)) schedule(static) if(many)
	for (long j = 0; j < rows; j++)
		ikmap_anne_dense_row(map, map->centre[j], map->dense + (size_t)j * (size_t)map->dense_ld);
	return 0;
}

static int build_dense(struct ikmap *map)
{
	return ikmap_anne_dense_matrix(map);
}

/*
 * The dense path pruned (anne_prune.c) when wide data make it worth a
 * probe and the probe's estimate beats both plain paths: 1 (chosen, the
 * map is ready), 0 (not chosen, no pruning kept) or -1 (err set).
 */
static int choose_pruned(struct ikmap *map, double dense_ns, double sparse_ns, char *err)
{
	if (!dense_possible(map) || !ikmap_prune_useful(map))
		return 0;
	if (dense_basics(map)) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	enum ikmap_path was = map->path;
	map->path = IKMAP_PATH_DENSE;
	double ratio;
	if (ikmap_anne_prune_probe(map, &ratio, err))
		return -1;
	if (map->prune && ratio < 1 && dense_ns * ratio < sparse_ns)
		return 1;
	map->path = was;
	return ikmap_anne_set_prune(map, IKMAP_PRUNE_OFF, err);
}

int ikmap_anne_use_path(struct ikmap *map, enum ikmap_path path, char *err)
{
	if (path == IKMAP_PATH_AUTO) {
		double dense_ns, sparse_ns;
		if (choose_path(map, &path, &dense_ns, &sparse_ns)) {
			ikmap_error(err, "out of memory");
			return -1;
		}
		int pruned = choose_pruned(map, dense_ns, sparse_ns, err);
		if (pruned)
			return pruned < 0 ? -1 : 0;
	}
	if (path == IKMAP_PATH_DENSE && !dense_possible(map)) {
		ikmap_error(err, "the dense aNNE path needs d <= %d, t*psi*(d+2) floats <= %zu bytes"
			" and centre norms below 2^59", DENSE_MAX_DIM, DENSE_MAX_BYTES);
		return -1;
	}
	int failed = 0;
	if (path == IKMAP_PATH_DENSE && !map->dense && !map->prune)
		failed = build_dense(map);
	else if (path == IKMAP_PATH_SPARSE && !map->post_start)
		failed = build_postings(map);
	if (failed) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	map->path = path;
	if (path == IKMAP_PATH_DENSE && ikmap_prune_useful(map))
		return ikmap_anne_set_prune(map, IKMAP_PRUNE_AUTO, err);
	return 0;
}

int ikmap_anne_prepare(struct ikmap *map, char *err)
{
	if (scale_samples(map)) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	return ikmap_anne_use_path(map, IKMAP_PATH_AUTO, err);
}
