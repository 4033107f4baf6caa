/*
 * cws.c - 0-bit consistent weighted sampling (contract and the reference
 * arithmetic in cws.h).
 *
 * The cost of ICWS is in its three logs per (sample, feature); two of
 * them (r and ln c) and the rest of the row-independent terms (q = 1/r,
 * beta, K) depend only on (seed, sample, feature), so they are computed
 * once into a cache and the row's own log, det_log(x_i), once per
 * (row, feature). What is left per (row, feature, sample) is
 *     t = floor(L * q + beta); A = K - r * t; keep A if A < best
 * five IEEE operations and a compare, done over 8 samples at once.
 *
 * Cache layout. Feature i's values are 4 * kpad doubles (kpad = k
 * rounded up to 8) in groups of 8 samples: group g holds q[8], beta[8],
 * r[8], K[8] of samples 8g .. 8g+7, so one group is 4 consecutive cache
 * lines and one vector load per value. The padding samples beyond k have
 * q = beta = r = 0 and K = +inf: their A is +inf, never below the
 * initial +inf, and they are never written out. Blocks of CWS_CHUNK
 * features are allocated and filled on first use and published by
 * compare-and-swap (see cws.h); readers load the pointer with acquire
 * order, so they see a block's values filled.
 *
 * A row is mapped in blocks of CWS_BLOCK samples, so the running minima
 * (best) and argmins (arg) live on the stack whatever k is; arg holds the
 * feature number as a double (exact: below 2^31), so the vector kernels
 * update it with the same mask as best. Runs of up to CWS_RUN cached
 * features go to the kernel in one call, which holds a group's minima in
 * registers over the run. Features are visited in the row's (ascending)
 * order, within and across runs and the uncached features between them,
 * and a value replaces the minimum only when strictly smaller, which is
 * the reference's tie rule (lowest i).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counter_rng.h"
#include "cws.h"
#include "detmath.h"
#include "ikmap.h"

/* The reference is defined in IEEE double; excess precision would change its bits. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD > 0
#error "cws.c needs FLT_EVAL_METHOD 0 (SSE2 doubles, not x87): the reference arithmetic is IEEE double"
#endif

#define CWS_LANES 8		/* samples per group in the cache */
#define CWS_GROUP (4 * CWS_LANES)	/* doubles per group: q, beta, r, K */
#define CWS_CHUNK 16		/* features per lazily built cache block */
#define CWS_BLOCK 256		/* samples per pass over a row (multiple of CWS_LANES) */
/* samples per pass over all rows in cws_rows_cells: 4 KiB of cache a feature */
#define CWS_BATCH_BLOCK 128
/*
 * Cached features per kernel call: the kernel keeps a group's minima in
 * registers across the run's features (in the row's order), instead of
 * loading and storing them once per feature.
 */
#define CWS_RUN 16

struct cws {
	uint64_t seed;
	int k, cells, dim;
	int kpad;		/* k rounded up to CWS_LANES */
	size_t feature_doubles;	/* 4 * kpad: one feature's cache */
	int tabled;		/* features 1..tabled may be cached */
	int chunks;		/* cache blocks: ceil(tabled / CWS_CHUNK) */
	_Atomic(double *) *chunk;	/* block b: features b*CWS_CHUNK+1 .. (NULL until built) */
	uint64_t *stream;	/* crng_stream(seed, j), j < k */
};

static void set_err(char *err, const char *msg)
{
	if (err)
		snprintf(err, IKMAP_ERR_SIZE, "%s", msg);
}

/* The row-independent values of (sample stream, feature i), in the order of cws.h. */
static void draw_values(uint64_t stream, int i, double *q, double *beta, double *r, double *K)
{
	uint64_t f = (uint64_t)i;
	double u0 = crng_unit_open(crng_at(stream, f, 0));
	double u1 = crng_unit_open(crng_at(stream, f, 1));
	double u2 = crng_unit_open(crng_at(stream, f, 2));
	double u3 = crng_unit_open(crng_at(stream, f, 3));
	double b = crng_unit_open(crng_at(stream, f, 4));
	double rr = -det_log(u0 * u1);
	double c = -det_log(u2 * u3);
	*q = 1.0 / rr;
	*beta = b;
	*r = rr;
	*K = det_log(c) - rr * (1.0 - b);
}

/* The row's part for a value of log L: t = floor(L q + beta), returns A = K - r t. */
static inline double row_value(double L, double q, double beta, double r, double K, double *t)
{
	*t = floor(L * q + beta);
	return K - r * *t;
}

struct cws *cws_new_capped(uint64_t seed, int k, int cells, int dim, size_t table_bytes,
	char *err)
{
	if (k < 1 || k > CWS_MAX_K) {
		set_err(err, "minmax: the number of samples k must be 1..65536");
		return NULL;
	}
	if (cells < CWS_MIN_CELLS || cells > CWS_MAX_CELLS || (cells & (cells - 1)) != 0) {
		set_err(err, "minmax: cells (2^b) must be a power of two from 16 to 65536");
		return NULL;
	}
	if (dim < 1 || dim > INT_MAX - 1) {
		set_err(err, "minmax: the dimension must be 1..INT_MAX-1");
		return NULL;
	}
	struct cws *c = calloc(1, sizeof *c);
	if (!c) {
		set_err(err, "minmax: out of memory");
		return NULL;
	}
	c->seed = seed;
	c->k = k;
	c->cells = cells;
	c->dim = dim;
	c->kpad = (k + CWS_LANES - 1) / CWS_LANES * CWS_LANES;
	c->feature_doubles = 4 * (size_t)c->kpad;
	size_t per_feature = c->feature_doubles * sizeof(double);
	size_t fit = table_bytes / per_feature;
	c->tabled = fit < (size_t)dim ? (int)fit : dim;
	/* (not tabled + CWS_CHUNK - 1, which overflows when a huge cap lets tabled reach INT_MAX - 1) */
	c->chunks = c->tabled / CWS_CHUNK + (c->tabled % CWS_CHUNK != 0);
	c->stream = malloc((size_t)k * sizeof *c->stream);
	/* The pointer array is bounded by the cap: 8 bytes per 16 features of at least 256 bytes. */
	c->chunk = c->chunks ? calloc((size_t)c->chunks, sizeof *c->chunk) : NULL;
	if (!c->stream || (c->chunks && !c->chunk)) {
		cws_free(c);
		set_err(err, "minmax: out of memory");
		return NULL;
	}
	for (int b = 0; b < c->chunks; b++)
		atomic_init(&c->chunk[b], NULL);
	for (int j = 0; j < k; j++)
		c->stream[j] = crng_stream(seed, (uint64_t)j);
	return c;
}

struct cws *cws_new(uint64_t seed, int k, int cells, int dim, char *err)
{
	return cws_new_capped(seed, k, cells, dim, CWS_TABLE_BYTES, err);
}

void cws_free(struct cws *c)
{
	if (!c)
		return;
	for (int b = 0; b < c->chunks && c->chunk; b++)
		free(atomic_load_explicit(&c->chunk[b], memory_order_relaxed));
	free(c->chunk);
	free(c->stream);
	free(c);
}

/* Fills feature i's cache (4 * kpad doubles at t) in the group layout. */
static void fill_feature(const struct cws *c, int i, double *t)
{
	for (int j = 0; j < c->kpad; j++) {
		double *g = t + (size_t)(j / CWS_LANES) * CWS_GROUP + j % CWS_LANES;
		if (j < c->k) {
			draw_values(c->stream[j], i, &g[0], &g[CWS_LANES], &g[2 * CWS_LANES],
				&g[3 * CWS_LANES]);
		} else {
			g[0] = g[CWS_LANES] = g[2 * CWS_LANES] = 0;
			g[3 * CWS_LANES] = INFINITY;
		}
	}
}

/* Feature i's cache, built on first use; NULL when i is not cacheable or memory ran out. */
static const double *feature_cache(const struct cws *c, int i)
{
	if (i < 1 || i > c->tabled)	/* (i < 1 breaks the caller's contract; kept safe anyway) */
		return NULL;
	int b = (i - 1) / CWS_CHUNK;
	double *block = atomic_load_explicit(&c->chunk[b], memory_order_acquire);
	if (!block) {
		int first = b * CWS_CHUNK + 1;
		int n = c->tabled - first + 1 < CWS_CHUNK ? c->tabled - first + 1 : CWS_CHUNK;
		double *mine = malloc((size_t)n * c->feature_doubles * sizeof *mine);
		if (!mine)
			return NULL;	/* on the fly instead: same values */
		for (int f = 0; f < n; f++)
			fill_feature(c, first + f, mine + (size_t)f * c->feature_doubles);
		double *expected = NULL;
		if (atomic_compare_exchange_strong_explicit(&c->chunk[b], &expected, mine,
				memory_order_acq_rel, memory_order_acquire)) {
			block = mine;
		} else {
			free(mine);	/* another thread published the same values first */
			block = expected;
		}
	}
	return block + (size_t)((i - 1) % CWS_CHUNK) * c->feature_doubles;
}

/*
 * The kernels: for the groups of one feature's cache (t: its first
 * group), update best/arg (8 samples a group) with A = K - r *
 * floor(L * q + beta), replacing only when strictly smaller.
 */
typedef void (*kernel_fn)(const double *const *t, const double *L, const double *fi, int m,
	int groups, double *best, double *arg);

/* Feature by feature (as plain C, the register blocking of the vector kernels gains nothing). */
static void kernel_generic(const double *const *t, const double *L, const double *fi, int m,
	int groups, double *best, double *arg)
{
	for (int f = 0; f < m; f++)
		for (int g = 0; g < groups; g++) {
			const double *q = t[f] + (size_t)g * CWS_GROUP;
			for (int l = 0; l < CWS_LANES; l++) {
				double tt;
				double a = row_value(L[f], q[l], q[CWS_LANES + l], q[2 * CWS_LANES + l],
					q[3 * CWS_LANES + l], &tt);
				if (a < best[g * CWS_LANES + l]) {
					best[g * CWS_LANES + l] = a;
					arg[g * CWS_LANES + l] = fi[f];
				}
			}
		}
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define CWS_X86 1
#include <immintrin.h>

/* Separate multiply and add intrinsics (never an FMA: the file has -ffp-contract=off). */
__attribute__((target("avx2"))) static void kernel_avx2(const double *const *t, const double *L,
	const double *fi, int m, int groups, double *best, double *arg)
{
	for (int g = 0; g < groups; g++)
		for (int h = 0; h < CWS_LANES; h += 4) {
			double *bp = best + g * CWS_LANES + h, *ap = arg + g * CWS_LANES + h;
			__m256d b = _mm256_loadu_pd(bp), w = _mm256_loadu_pd(ap);
			for (int f = 0; f < m; f++) {
				const double *q = t[f] + (size_t)g * CWS_GROUP + h;
				__m256d tt = _mm256_floor_pd(_mm256_add_pd(_mm256_mul_pd(
					_mm256_set1_pd(L[f]), _mm256_loadu_pd(q)),
					_mm256_loadu_pd(q + CWS_LANES)));
				__m256d a = _mm256_sub_pd(_mm256_loadu_pd(q + 3 * CWS_LANES),
					_mm256_mul_pd(_mm256_loadu_pd(q + 2 * CWS_LANES), tt));
				__m256d lt = _mm256_cmp_pd(a, b, _CMP_LT_OQ);
				b = _mm256_blendv_pd(b, a, lt);
				w = _mm256_blendv_pd(w, _mm256_set1_pd(fi[f]), lt);
			}
			_mm256_storeu_pd(bp, b);
			_mm256_storeu_pd(ap, w);
		}
}

__attribute__((target("avx512f"))) static void kernel_avx512(const double *const *t,
	const double *L, const double *fi, int m, int groups, double *best, double *arg)
{
	for (int g = 0; g < groups; g++) {
		double *bp = best + g * CWS_LANES, *ap = arg + g * CWS_LANES;
		__m512d b = _mm512_loadu_pd(bp), w = _mm512_loadu_pd(ap);
		for (int f = 0; f < m; f++) {
			const double *q = t[f] + (size_t)g * CWS_GROUP;
			__m512d tt = _mm512_roundscale_pd(_mm512_add_pd(_mm512_mul_pd(
				_mm512_set1_pd(L[f]), _mm512_loadu_pd(q)), _mm512_loadu_pd(q + CWS_LANES)),
				_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
			__m512d a = _mm512_sub_pd(_mm512_loadu_pd(q + 3 * CWS_LANES),
				_mm512_mul_pd(_mm512_loadu_pd(q + 2 * CWS_LANES), tt));
			__mmask8 lt = _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ);
			b = _mm512_mask_mov_pd(b, lt, a);
			w = _mm512_mask_mov_pd(w, lt, _mm512_set1_pd(fi[f]));
		}
		_mm512_storeu_pd(bp, b);
		_mm512_storeu_pd(ap, w);
	}
}
#endif

struct kernel {
	kernel_fn fn;
	const char *name;
};

static const struct kernel generic_kernel = {kernel_generic, "generic"};
#ifdef CWS_X86
static const struct kernel avx2_kernel = {kernel_avx2, "avx2"};
static const struct kernel avx512_kernel = {kernel_avx512, "avx512"};
#endif

/* Set by cws_use_kernel (tests, benchmarks); NULL: the widest the CPU runs. */
static const struct kernel *forced_kernel;

static const struct kernel *pick_kernel(void)
{
	if (forced_kernel)
		return forced_kernel;
#ifdef CWS_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return &avx512_kernel;
	if (__builtin_cpu_supports("avx2"))
		return &avx2_kernel;
#endif
	return &generic_kernel;
}

const char *cws_kernel_name(void)
{
	return pick_kernel()->name;
}

int cws_use_kernel(const char *name)
{
	if (!name) {
		forced_kernel = NULL;
		return 0;
	}
	const struct kernel *k = NULL;
	if (strcmp(name, generic_kernel.name) == 0)
		k = &generic_kernel;
#ifdef CWS_X86
	__builtin_cpu_init();
	if (strcmp(name, avx2_kernel.name) == 0 && __builtin_cpu_supports("avx2"))
		k = &avx2_kernel;
	if (strcmp(name, avx512_kernel.name) == 0 && __builtin_cpu_supports("avx512f"))
		k = &avx512_kernel;
#endif
	if (!k)
		return -1;
	forced_kernel = k;
	return 0;
}

/*
 * Samples j0 .. j0+nb-1 (nb <= CWS_BLOCK) of one row by the fast path:
 * best/arg of those samples, from index 0. logs: the row's det_log of
 * each value, or NULL to compute them here.
 */
static void row_block(const struct cws *c, kernel_fn kernel, const int *index,
	const double *value, const double *logs, int nnz, int j0, int nb, double *best,
	double *arg)
{
	int groups = (nb + CWS_LANES - 1) / CWS_LANES;
	for (int s = 0; s < groups * CWS_LANES; s++) {
		best[s] = INFINITY;
		arg[s] = 0;
	}
	/* A run of cached features, given to the kernel together (see CWS_RUN). */
	const double *run_t[CWS_RUN];
	double run_L[CWS_RUN], run_i[CWS_RUN];
	int m = 0;
	for (int p = 0; p < nnz; p++) {
		int i = index[p];
		double L = logs ? logs[p] : det_log(value[p]);
		const double *t = feature_cache(c, i);
		if (t) {
			run_t[m] = t + (size_t)(j0 / CWS_LANES) * CWS_GROUP;
			run_L[m] = L;
			run_i[m++] = (double)i;
			if (m == CWS_RUN) {
				kernel(run_t, run_L, run_i, m, groups, best, arg);
				m = 0;
			}
			continue;
		}
		/* Not cached: the run before it first (the order decides ties), then it. */
		if (m) {
			kernel(run_t, run_L, run_i, m, groups, best, arg);
			m = 0;
		}
		for (int s = 0; s < nb; s++) {
			double q, beta, r, K, tt;
			draw_values(c->stream[j0 + s], i, &q, &beta, &r, &K);
			double a = row_value(L, q, beta, r, K, &tt);
			if (a < best[s]) {
				best[s] = a;
				arg[s] = (double)i;
			}
		}
	}
	if (m)
		kernel(run_t, run_L, run_i, m, groups, best, arg);
}

/* Cells j0 .. j0+nb-1 from the argmins (arg is 0 only for the empty row, whose cells are 0). */
static void write_cells(const struct cws *c, const double *arg, int nnz, int nb, uint32_t *out)
{
	uint32_t mask = (uint32_t)c->cells - 1;
	for (int s = 0; s < nb; s++)
		out[s] = nnz > 0 ? ((uint32_t)arg[s] - 1) & mask : 0;
}

/*
 * The fast path: the cells of a row and, where the pointers are not
 * NULL, each sample's i* and smallest A (cws_row_detail).
 */
static void fast_row(const struct cws *c, const int *index, const double *value, int nnz,
	uint32_t *out, int *istar, double *amin)
{
	kernel_fn kernel = pick_kernel()->fn;
	double best[CWS_BLOCK], arg[CWS_BLOCK];
	for (int j0 = 0; j0 < c->k; j0 += CWS_BLOCK) {
		int nb = c->k - j0 < CWS_BLOCK ? c->k - j0 : CWS_BLOCK;
		row_block(c, kernel, index, value, NULL, nnz, j0, nb, best, arg);
		if (out)
			write_cells(c, arg, nnz, nb, out + j0);
		for (int s = 0; s < nb; s++) {
			if (istar)
				istar[j0 + s] = (int)arg[s];
			if (amin)
				amin[j0 + s] = best[s];
		}
	}
}

int cws_rows_cells(const struct cws *c, size_t count, const size_t *start, const int *index,
	const double *value, uint32_t *out)
{
	if (count == 0)
		return 0;
	size_t first = start[0], total = start[count] - first;
	double *logs = malloc((total ? total : 1) * sizeof *logs);
	if (!logs)
		return -1;
	for (size_t p = 0; p < total; p++)
		logs[p] = det_log(value[first + p]);
	kernel_fn kernel = pick_kernel()->fn;
	double best[CWS_BLOCK], arg[CWS_BLOCK];
	/* A block of samples over every row, then the next: each block of the cache stays hot. */
	for (int j0 = 0; j0 < c->k; j0 += CWS_BATCH_BLOCK) {
		int nb = c->k - j0 < CWS_BATCH_BLOCK ? c->k - j0 : CWS_BATCH_BLOCK;
		for (size_t r = 0; r < count; r++) {
			int nnz = (int)(start[r + 1] - start[r]);
			row_block(c, kernel, index + start[r], value + start[r],
				logs + (start[r] - first), nnz, j0, nb, best, arg);
			write_cells(c, arg, nnz, nb, out + r * (size_t)c->k + j0);
		}
	}
	free(logs);
	return 0;
}

void cws_row_cells(const struct cws *c, const int *index, const double *value, int nnz,
	uint32_t *out)
{
	if (nnz <= 0) {
		memset(out, 0, (size_t)c->k * sizeof *out);
		return;
	}
	fast_row(c, index, value, nnz, out, NULL, NULL);
}

/* Sample j by the reference arithmetic of cws.h, from scratch: no cache, no vectors. */
static void reference_sample(const struct cws *c, int j, const int *index, const double *value,
	int nnz, int *istar, int64_t *tstar, double *amin)
{
	*istar = 0;
	*tstar = 0;
	*amin = INFINITY;
	if (j < 0 || j >= c->k)
		return;
	uint64_t s = crng_stream(c->seed, (uint64_t)j);
	double best = INFINITY;
	for (int p = 0; p < nnz; p++) {
		double q, beta, r, K, t;
		draw_values(s, index[p], &q, &beta, &r, &K);
		double a = row_value(det_log(value[p]), q, beta, r, K, &t);
		if (a < best) {
			best = a;
			*istar = index[p];
			*tstar = (int64_t)t;
		}
	}
	*amin = best;
}

void cws_row_cells_reference(const struct cws *c, const int *index, const double *value,
	int nnz, uint32_t *out)
{
	uint32_t mask = (uint32_t)c->cells - 1;
	for (int j = 0; j < c->k; j++) {
		int istar;
		int64_t tstar;
		double amin;
		reference_sample(c, j, index, value, nnz, &istar, &tstar, &amin);
		out[j] = nnz > 0 ? ((uint32_t)istar - 1) & mask : 0;
	}
}

void cws_full_sample(const struct cws *c, int j, const int *index, const double *value,
	int nnz, int *istar, int64_t *tstar)
{
	double amin;
	reference_sample(c, j, index, value, nnz, istar, tstar, &amin);
}

void cws_row_detail(const struct cws *c, int reference, const int *index, const double *value,
	int nnz, int *istar, double *amin)
{
	if (!reference) {
		fast_row(c, index, value, nnz, NULL, istar, amin);
		return;
	}
	for (int j = 0; j < c->k; j++) {
		int64_t tstar;
		reference_sample(c, j, index, value, nnz, &istar[j], &tstar, &amin[j]);
	}
}
