/*
 * anne_prune.c - the dense aNNE path with exact pruning: most centres are
 * ruled out by a cheap lower bound on their distance before any full
 * distance is computed, and the cells stay exactly those of ikmap.h (the
 * reference distance, ties to the lowest index).
 *
 * Why: the plain dense path (anne_dense.c) spends m (d + 2) multiply-adds
 * per row (m = t psi centres), one float GEMM, which is only 2-4 times
 * cheaper than ikpykit's float64 GEMM. Here a row costs m (p + 3) in a
 * much thinner GEMM (p = PRUNE_DIRS directions) plus about d per centre
 * that survives the bound.
 *
 * The bound. P (p x d, rows nearly orthonormal) spans the top principal
 * directions of the sampled rows; m is the mean of the samples (the dense
 * path's mean). For a row or centre v: y_v = P (v - m) and
 * r_v = sqrt(||v - m||^2 - ||y_v||^2), its distance to that subspace.
 * With z_v = [y_v, r_v] in R^(p+1), for orthonormal P
 *     ||x - c||^2 = ||P(x - c)||^2 + ||(I - P^T P)(x - c)||^2
 *                >= ||y_x - y_c||^2 + (r_x - r_c)^2 = ||z_x - z_c||^2
 * (Pythagoras, then the triangle inequality on the residuals). So one
 * float GEMM of [z_x, 1, ||z_x||^2] against [-2 z_c, ||z_c||^2, 1] (the
 * dense path's layout in p + 1 dimensions) gives a lower bound l_j for
 * every centre at about (p + 3) / (d + 2) of the full GEMM's cost.
 *
 * Rigour (notation of anne_exact.c: u = 2^-24, v = 2^-53, gamma_n).
 * Let K = ||x - m|| + ||c - m|| + 2||m|| (so ||x|| + ||m|| <= K), eta >=
 * ||P P^T - I||_2 (checked <= 2^-30 at build, else no pruning) and
 * g = gamma_{d+p+4}(v). Then, all in double:
 *  - |||P v||^2 - ||Pi v||^2| <= eta ||v||^2 for the exact projector Pi
 *    onto P's row space (P's singular values s have |s^2 - 1| <= eta);
 *  - each computed y component is within 1.01 g K of exact (a sum of at
 *    most d + 1 products, |P_ij| <= 1 + eta), so ||y~ - y|| <= dy K,
 *    dy = 1.01 sqrt(p) g;
 *  - r~^2 before the square root is within (eta + 4 g + 3 dy) K^2 of
 *    ||(I - Pi)(v - m)||^2 (its terms' rounding, the perturbed y and eta),
 *    and |sqrt(a) - sqrt(b)| <= sqrt(|a - b|), so |r~ - r| <= dr K with
 *    dr = sqrt(eta + 4 g + 3 dy) + 2^-52;
 *  - hence ||z~_x - z~_c||^2 <= ||x - c||^2 + M, M = Mrel K^2 with
 *    Mrel = eta + 4 (dy + dr) + 4 (dy^2 + dr^2) + 2 gamma_{d+2}(v) (1 + eta)
 *    (the last term: the reference distance R against the exact ||x - c||^2;
 *    centring x - m in double adds relative v, inside the dr slack), times 2
 *    for the bound's own rounding. For d = 784, p = 64, Mrel ~ 1e-5: the
 *    margin is far below the gaps it must not close.
 *  - the float GEMM of the z~ adds at most E1 = ikmap_float_bound(p + 1)
 *    at the norms of z~_x and the partitioning's largest z~_c.
 * So R_j >= l_j - E1 - M for every centre j.
 *
 * The decision, per row and partitioning k: j* = the lowest l; its full
 * float score s* (the dense path's [x', 1, ||x'||^2] . [-2c', ||c'||^2, 1],
 * error at most E = ikmap_float_bound(d)) gives U = s* + E >= R_j* >= the
 * nearest's R. A centre with l_j > U + E1 + M has R_j > U: neither the
 * nearest nor tied with it, so it is dropped. The survivors are scored in
 * ascending order of l (when at most SORT_MAX), U falling to the lowest
 * score so far plus E, and the first whose l clears the threshold ends
 * the list (it and all after it are dropped by the same argument). The
 * scored ones (j* among them) then follow the dense path's rule:
 * one score within 2E of the lowest decides, several go to the reference
 * distance (ikmap_nearest_exact over those flagged). Rows too large for
 * float, or not finite, take the reference distance throughout.
 *
 * The cost model (anne_path.c) considers pruning when the data are wide
 * enough (PRUNE_MIN_DIM) and the partitionings large enough
 * (PRUNE_MIN_PSI), builds it, maps PROBE_ROWS sampled rows with it
 * (pruning_ratio below) and keeps it only when the estimate beats both
 * plain paths; ikmap_anne_dense_map then hands its rows here. A pruned
 * map holds no dense centre rows at all (neither the plain path's t psi
 * matrix nor one per sample): each mapping thread makes those of a block
 * of partitionings from the stored samples when a tile of rows needs
 * them (begin_block, centre_row), so the map stays the samples plus the
 * thin bound structure. That costs time (on 784-d rows, t = 100, psi =
 * 256, tiles of 1024 rows: 25 rows made per mapped row, the map's CPU
 * time about 1.3 times that with rows held) for memory (65 MB of rows on
 * 60000 such rows). The thin bound GEMM is always the
 * built-in kernel (sgemm.h), the full scores this file's dot products.
 * The cells never depend on P, on the tiling, on the GEMM or on the
 * thread count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gemm.h"
#include "ikmap_impl.h"
#include "sgemm.h"

/*
 * Directions of the bound (a multiple of 8: the double kernels' vectors).
 * 64, not 48: with the vectorised scans the survivors' dot products are
 * the larger cost, and on 784-d MNIST-like rows (10000, t = 100, one
 * thread) 64 directions left 4.4 % of the full scores at psi 64 (48:
 * 5.8 %), map 0.40 -> 0.36 s, build the same; 80 and 96 saved a little
 * more of the map and lost it again in the build.
 */
#define PRUNE_DIRS 64
/* Pruning pays only where the full distance is long and the centres many. */
#define PRUNE_MIN_DIM 128
#define PRUNE_MIN_PSI 32
/* Samples the principal directions are estimated from, and subspace iterations. */
#define PCA_SAMPLES 1024
#define PCA_ITERATIONS 4
/* Samples whose rows are formed together before the transposed write. */
#define PCA_BLOCK 16
/* eta above this: no pruning (never seen; Gram-Schmidt twice gives ~1e-15). */
#define ETA_LIMIT 0x1p-30
/*
 * Rows per tile and lower-bound columns per GEMM (whole partitionings).
 * A tile makes every centre's dense row once (begin_block), t psi rows
 * for its TILE_ROWS rows: 1024 rather than 512 halves that per mapped row
 * (784-d MNIST-like rows, psi 256, one thread: map CPU time 1.67 -> 1.26 x
 * that of rows held per sample; bench/results/issue22-stream.md).
 */
#define TILE_ROWS 1024
#define TILE_COLS 512
/* Rows with a larger centred norm (or a NaN) take the reference distance. */
#define ROW_NORM_LIMIT 0x1p60
/* The cost model's probe and weights (pruning_ratio). */
#define PROBE_ROWS 64
#define SCAN_COST 27.0
#define DOT_COST 10.0
/* Bounds tested per block before any survivor is gathered. */
#define GATHER_BLOCK 32
/* Survivors are scored in order of their bounds when there are at most this many. */
#define SORT_MAX 64
/* Tiles of at least this many rows make all their centres' rows at once (begin_block). */
#define EAGER_ROWS 64
/* Survivors whose rows are fetched ahead of their dot products (prefetch_row). */
#define PREFETCH_ROWS 8

struct ikmap_prune {
	int p;			/* PRUNE_DIRS */
	int ld;			/* p + 3: [z, 1, ||z||^2] / [-2 z, ||z||^2, 1] */
	double *pt;		/* [(dim + 1) * p]: pt[j p + i] = P(i, j), feature j = 1..dim */
	double *pm;		/* [p]: P m */
	double mean_norm;	/* ||m|| */
	float *centre;		/* [t psi][ld] */
	/*
	 * The dense path's row of a sample (ikmap_anne_dense_row, from the
	 * map's empty row, the sample's nonzeros and its centred_sq) is made
	 * when a mapping thread needs it, not held in the map (these rows
	 * were 65 MB beside the 94 MB of samples on 784-d data).
	 */
	double *part_maxz;	/* [t]: largest ||z_c|| of each partitioning */
	struct ikmap_bound low;	/* float GEMM bound in p + 1 dimensions */
	double margin_rel;	/* Mrel */
};

/* ---- small vector kernels, chosen at run time like sgemm.c's ---- */

typedef float (*dot_fn)(const float *, const float *, int);

#define DOT_BODY(VEC, VW)                                                        \
	{                                                                        \
		VEC acc0 = {0}, acc1 = {0}, acc2 = {0}, acc3 = {0};              \
		int i = 0;                                                       \
		for (; i + 4 * (VW) <= n; i += 4 * (VW)) {                       \
			VEC a0, b0, a1, b1, a2, b2, a3, b3;                      \
			memcpy(&a0, a + i, sizeof a0);                           \
			memcpy(&b0, b + i, sizeof b0);                           \
			memcpy(&a1, a + i + (VW), sizeof a1);                    \
			memcpy(&b1, b + i + (VW), sizeof b1);                    \
			memcpy(&a2, a + i + 2 * (VW), sizeof a2);                \
			memcpy(&b2, b + i + 2 * (VW), sizeof b2);                \
			memcpy(&a3, a + i + 3 * (VW), sizeof a3);                \
			memcpy(&b3, b + i + 3 * (VW), sizeof b3);                \
			acc0 += a0 * b0;                                         \
			acc1 += a1 * b1;                                         \
			acc2 += a2 * b2;                                         \
			acc3 += a3 * b3;                                         \
		}                                                                \
		for (; i + (VW) <= n; i += (VW)) {                               \
			VEC a0, b0;                                              \
			memcpy(&a0, a + i, sizeof a0);                           \
			memcpy(&b0, b + i, sizeof b0);                           \
			acc0 += a0 * b0;                                         \
		}                                                                \
		acc0 += acc1;                                                    \
		acc2 += acc3;                                                    \
		acc0 += acc2;                                                    \
		float s = 0;                                                     \
		for (int l = 0; l < (VW); l++)                                   \
			s += acc0[l];                                            \
		for (; i < n; i++)                                               \
			s += a[i] * b[i];                                        \
		return s;                                                        \
	}

typedef float vf4 __attribute__((vector_size(16)));
static float dot_generic(const float *a, const float *b, int n)
DOT_BODY(vf4, 4)

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define PRUNE_X86 1
typedef float vf8 __attribute__((vector_size(32)));
typedef float vf16 __attribute__((vector_size(64)));
__attribute__((target("avx2,fma"))) static float dot_avx2(const float *a, const float *b, int n)
DOT_BODY(vf8, 8)
__attribute__((target("avx512f"))) static float dot_avx512(const float *a, const float *b, int n)
DOT_BODY(vf16, 16)
#endif

/*
 * y[0..p) += v * col[0..p) for each (feature, value) of a sparse row: the
 * projection, vectorised across the p directions (p % 8 == 0).
 */
typedef double vd2 __attribute__((vector_size(16)));
#define ACC_BODY(VEC, VW)                                                        \
	{                                                                        \
		VEC acc[PRUNE_DIRS / (VW)];                                      \
		for (int q = 0; q < PRUNE_DIRS / (VW); q++)                      \
			acc[q] = (VEC){0};                                       \
		for (int e = 0; e < nnz; e++) {                                  \
			const double *col = pt + (size_t)feature[e] * PRUNE_DIRS; \
			double v = value[e];                                     \
			for (int q = 0; q < PRUNE_DIRS / (VW); q++) {            \
				VEC c;                                           \
				memcpy(&c, col + q * (VW), sizeof c);            \
				acc[q] += v * c;                                 \
			}                                                        \
		}                                                                \
		memcpy(y, acc, sizeof acc);                                      \
	}

typedef void (*project_fn)(const double *, const int *, const double *, int, double *);

static void project_generic(const double *pt, const int *feature, const double *value, int nnz,
	double *y)
ACC_BODY(vd2, 2)

#ifdef PRUNE_X86
typedef double vd8 __attribute__((vector_size(64)));
__attribute__((target("avx512f"))) static void project_avx512(const double *pt,
	const int *feature, const double *value, int nnz, double *y)
ACC_BODY(vd8, 8)
#endif

/*
 * The scans of a partitioning's psi lower bounds, which with the dot
 * products are most of the pruned map's time (psi 64 on 784-d data: the
 * lowest bound and the survivors' gather took 27 % of it in the
 * baseline's SSE2 code, as much as a third of the dot products).
 *
 * first_min: the index of the first of the n scores equal to their
 * minimum (no NaN: finite rows).
 */
typedef int (*first_min_fn)(const float *, int);

static int first_min_generic(const float *s, int n)
{
	enum { LANES = 16 };
	float m[LANES];
	int i = 0;
	for (int l = 0; l < LANES; l++)
		m[l] = INFINITY;
	for (; i + LANES <= n; i += LANES)
		for (int l = 0; l < LANES; l++)
			m[l] = s[i + l] < m[l] ? s[i + l] : m[l];
	float best = INFINITY;
	for (int l = 0; l < LANES; l++)
		best = m[l] < best ? m[l] : best;
	for (; i < n; i++)
		best = s[i] < best ? s[i] : best;
	/* the block holding it by a vectorised test, then the position inside */
	for (int i0 = 0; i0 < n; i0 += LANES) {
		int end = n - i0 < LANES ? n : i0 + LANES, any = 0;
		for (i = i0; i < end; i++)
			any |= s[i] <= best;
		if (!any)
			continue;
		for (i = i0; i < end; i++)
			if (s[i] <= best)
				return i;
	}
	return 0;
}

/*
 * gather: writes the positions i != skip of the n bounds with
 * low[i] <= thr to out, ascending, and returns how many. out has room
 * for n + GATHER_SLACK entries: the kernels may write past the last
 * survivor (branchless or whole-vector stores).
 */
#define GATHER_SLACK 16
typedef int (*gather_fn)(const float *, int, float, int, int *);

static int gather_generic(const float *low, int n, float thr, int skip, int *out)
{
	int c = 0;
	for (int i0 = 0; i0 < n; i0 += GATHER_BLOCK) {
		int end = n - i0 < GATHER_BLOCK ? n : i0 + GATHER_BLOCK;
		/* a vectorised test first: most blocks hold no survivor */
		int any = 0;
		for (int i = i0; i < end; i++)
			any |= low[i] <= thr;
		if (!any)
			continue;
		for (int i = i0; i < end; i++) {
			out[c] = i;
			c += (low[i] <= thr) & (i != skip);
		}
	}
	return c;
}

#ifdef PRUNE_X86
#include <immintrin.h>

/* The lanes of the last, partial vector of n values from i on (all 16 when full). */
__attribute__((target("avx512f"))) static inline __mmask16 lanes_from(int i, int n)
{
	return n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
}

__attribute__((target("avx512f"))) static int first_min_avx512(const float *s, int n)
{
	__m512 inf = _mm512_set1_ps(INFINITY), m = inf;
	for (int i = 0; i < n; i += 16)
		m = _mm512_min_ps(m, _mm512_mask_loadu_ps(inf, lanes_from(i, n), s + i));
	__m512 best = _mm512_set1_ps(_mm512_reduce_min_ps(m));
	for (int i = 0; i < n; i += 16) {
		__mmask16 in = lanes_from(i, n);
		__mmask16 hit = _mm512_mask_cmp_ps_mask(in, _mm512_maskz_loadu_ps(in, s + i), best,
			_CMP_LE_OQ);
		if (hit)
			return i + __builtin_ctz(hit);
	}
	return 0;
}

/* Compression in registers, then a whole-vector store (GATHER_SLACK): the
 * compress-to-memory form is microcoded and slow on some AMD cores. */
__attribute__((target("avx512f"))) static int gather_avx512(const float *low, int n, float thr,
	int skip, int *out)
{
	__m512 t = _mm512_set1_ps(thr);
	__m512i at = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	__m512i step = _mm512_set1_epi32(16);
	int c = 0;
	for (int i = 0; i < n; i += 16, at = _mm512_add_epi32(at, step)) {
		__mmask16 in = lanes_from(i, n);
		__mmask16 k = _mm512_mask_cmp_ps_mask(in, _mm512_maskz_loadu_ps(in, low + i), t,
			_CMP_LE_OQ);
		if (skip >= i && skip - i < 16)
			k &= (__mmask16)~(1u << (skip - i));
		if (!k)
			continue;
		_mm512_storeu_si512((void *)(out + c), _mm512_maskz_compress_epi32(k, at));
		c += __builtin_popcount(k);
	}
	return c;
}
#endif

/* What every mapping call uses: the kernels for this CPU and the full-distance bound. */
struct kernels {
	dot_fn dot;
	project_fn project;
	first_min_fn first_min;
	gather_fn gather;
	struct ikmap_bound full;	/* ikmap_float_bound(dim) */
};

static struct kernels pick_kernels(int dim)
{
	struct kernels k = { dot_generic, project_generic, first_min_generic, gather_generic,
		ikmap_float_bound(dim) };
#ifdef PRUNE_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		k.dot = dot_avx2;
	if (__builtin_cpu_supports("avx512f")) {
		k.dot = dot_avx512;
		k.project = project_avx512;
		if (!ikmap_generic_scans) {
			k.first_min = first_min_avx512;
			k.gather = gather_avx512;
		}
	}
#endif
	return k;
}

/* ---- the principal directions ---- */

static double gamma_n(double n, double unit)
{
	return n * unit / (1 - n * unit);
}

/* Deterministic start vectors: splitmix64 mapped to [-1, 1). */
static double start_value(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	z ^= z >> 31;
	return (double)(z >> 11) * 0x1p-52 - 1;
}

/* A double dot product with independent partial sums (any order is fine here). */
static double dot_double(const double *a, const double *b, int n)
{
	double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
	int i = 0;
	for (; i + 8 <= n; i += 8)
		for (int l = 0; l < 8; l++)
			s[l] += a[i + l] * b[i + l];
	for (; i < n; i++)
		s[0] += a[i] * b[i];
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/*
 * Orthonormalises the p rows of q (each of length d) in place: modified
 * Gram-Schmidt, `passes` times (one pass leaves errors growing with the
 * condition number; a second brings them to rounding level, which the
 * final directions need; the iterations in between do with one). A row that vanishes
 * is replaced by a fresh start vector and orthonormalised again.
 */
static void orthonormalise(double *q, int p, int d, int passes, uint64_t *state)
{
	for (int pass = 0; pass < passes; pass++)
		for (int i = 0; i < p; i++) {
			double *qi = q + (size_t)i * d;
			for (int tries = 0; tries < 4; tries++) {
				for (int j = 0; j < i; j++) {
					const double *qj = q + (size_t)j * d;
					double dot = dot_double(qi, qj, d);
					for (int e = 0; e < d; e++)
						qi[e] -= dot * qj[e];
				}
				double norm = 0;
				for (int e = 0; e < d; e++)
					norm += qi[e] * qi[e];
				norm = sqrt(norm);
				if (norm > 1e-8) {
					for (int e = 0; e < d; e++)
						qi[e] /= norm;
					break;
				}
				for (int e = 0; e < d; e++)
					qi[e] = start_value(state);
			}
		}
}

/*
 * eta >= ||P P^T - I||_2: the Frobenius norm of the computed difference
 * plus its rounding (gamma_d bounds a dot product's error in any order of
 * summation, so dot_double's partial sums are covered). P P^T is
 * symmetric: each pair i < j is computed once and counted twice (exact).
 */
static double orthonormality_gap(const double *q, int p, int d)
{
	double sum = 0;
	for (int i = 0; i < p; i++)
		for (int j = i; j < p; j++) {
			double off = dot_double(q + (size_t)i * d, q + (size_t)j * d, d) - (i == j);
			sum += (i == j ? 1 : 2) * off * off;
		}
	double eta = sqrt(sum);
	return (eta + p * gamma_n(d, 0x1p-53) * (1 + eta)) * (1 + 0x1p-20);
}

/*
 * Top-p principal directions of (a spread subset of) the centred samples
 * by subspace iteration on their covariance, whose products run in the
 * float GEMM; only orthonormality matters for exactness, so float is
 * plenty. Writes q (p x dim, orthonormal rows); 0, or -1 when out of memory.
 */
static int principal_directions(const struct ikmap *map, int p, double *q)
{
	int d = map->dim;
	int s = map->nsamples < PCA_SAMPLES ? map->nsamples : PCA_SAMPLES;
	float *xt = calloc((size_t)d * (size_t)s, sizeof(float));	/* [d][s] */
	float *cov = malloc((size_t)d * (size_t)d * sizeof(float));
	float *qf = malloc((size_t)p * (size_t)d * sizeof(float));
	float *yt = malloc((size_t)p * (size_t)d * sizeof(float));
	/* PCA_BLOCK samples' rows at a time, then written to xt a cache line
	 * per feature: one sample at a time wrote xt with a stride of s
	 * floats, a cache and TLB miss per value */
	float *blk = malloc((size_t)PCA_BLOCK * (size_t)d * sizeof(float));
	int status = -1;
	if (!xt || !cov || !qf || !yt || !blk)
		goto done;
	for (int c0 = 0; c0 < s; c0 += PCA_BLOCK) {
		int nb = s - c0 < PCA_BLOCK ? s - c0 : PCA_BLOCK;
		for (int b = 0; b < nb; b++) {
			int sample = (int)((int64_t)(c0 + b) * map->nsamples / s);
			int64_t e = map->sample_start[sample], end = map->sample_start[sample + 1];
			for (int j = 1; j <= d; j++) {
				double v = -map->mean[j];
				if (e < end && map->sample_index[e] == j)
					v += ikmap_sample_scaled(map, e++);
				blk[(size_t)b * d + (size_t)(j - 1)] = (float)v;
			}
		}
		for (int j = 0; j < d; j++)
			for (int b = 0; b < nb; b++)
				xt[(size_t)j * s + (size_t)(c0 + b)] = blk[(size_t)b * d + (size_t)j];
	}
	/* cov[a][b] = sum_c xt[a][c] xt[b][c] */
	if (sgemm_nt_threads(d, d, s, xt, s, xt, s, cov, d, 0))
		goto done;
	uint64_t state = 0x1234567u;
	for (size_t e = 0; e < (size_t)p * d; e++)
		q[e] = start_value(&state);
	orthonormalise(q, p, d, 1, &state);
	for (int it = 0; it < PCA_ITERATIONS; it++) {
		for (size_t e = 0; e < (size_t)p * d; e++)
			qf[e] = (float)q[e];
		/* yt[i][a] = sum_b qf[i][b] cov[a][b] = (cov q^T)[a][i]: cov is symmetric */
		if (sgemm_nt(p, d, d, qf, d, cov, d, yt, d))
			goto done;
		for (size_t e = 0; e < (size_t)p * d; e++)
			q[e] = yt[e];
		orthonormalise(q, p, d, it + 1 < PCA_ITERATIONS ? 1 : 2, &state);
	}
	status = 0;
done:
	free(xt);
	free(cov);
	free(qf);
	free(yt);
	free(blk);
	return status;
}

/* ---- per row or centre: z = [P(v - m), r] ---- */

/*
 * z of a row with centred squared norm sq (as the dense path computes it)
 * and scaled nonzeros value[0..nnz) at features feature[0..nnz) (1..dim,
 * ascending): writes [z, 1, ||z||^2] in float at out; returns ||z|| (double).
 */
static double row_z(const struct ikmap_prune *pr, const struct kernels *kn, double sq,
	const int *feature, const double *value, int nnz, float *out)
{
	double y[PRUNE_DIRS];
	kn->project(pr->pt, feature, value, nnz, y);
	double yy = 0;
	for (int i = 0; i < pr->p; i++) {
		y[i] -= pr->pm[i];
		yy += y[i] * y[i];
	}
	double r = sqrt(fmax(0, sq - yy));
	double zz = yy + r * r;
	for (int i = 0; i < pr->p; i++)
		out[i] = (float)y[i];
	out[pr->p] = (float)r;
	out[pr->p + 1] = 1;
	out[pr->p + 2] = (float)zz;
	return sqrt(zz);
}

void ikmap_prune_free(struct ikmap_prune *pr)
{
	if (!pr)
		return;
	free(pr->pt);
	free(pr->pm);
	free(pr->centre);
	free(pr->part_maxz);
	free(pr);
}

/* The margin's relative size Mrel (see the top of this file). */
static double margin_rel(int dim, int p, double eta)
{
	double g = gamma_n((double)dim + p + 4, 0x1p-53);
	double dy = 1.01 * sqrt((double)p) * g;
	double dr = sqrt(eta + 4 * g + 3 * dy) + 0x1p-52;
	double m = eta + 4 * (dy + dr) + 4 * (dy * dy + dr * dr)
		+ 2 * gamma_n((double)dim + 2, 0x1p-53) * (1 + eta);
	return 2 * m * (1 + 0x1p-20);
}

static struct ikmap_prune *build(const struct ikmap *map)
{
	int p = PRUNE_DIRS, d = map->dim;
	struct ikmap_prune *pr = calloc(1, sizeof *pr);
	double *q = malloc((size_t)p * (size_t)d * sizeof(double));
	size_t m = (size_t)map->t * (size_t)map->psi;
	int *feature = malloc(((size_t)d + 1) * sizeof(int));
	double *value = malloc(((size_t)d + 1) * sizeof(double));
	float *zs = NULL;
	if (!pr || !q || !feature || !value)
		goto fail;
	pr->p = p;
	pr->ld = p + 3;
	pr->pt = calloc(((size_t)d + 1) * (size_t)p, sizeof(double));
	pr->pm = calloc((size_t)p, sizeof(double));
	pr->centre = malloc(m * (size_t)pr->ld * sizeof(float));
	pr->part_maxz = calloc((size_t)map->t, sizeof(double));
	zs = malloc((size_t)map->nsamples * (size_t)pr->ld * sizeof(float));
	if (!pr->pt || !pr->pm || !pr->centre || !pr->part_maxz || !zs)
		goto fail;
	if (principal_directions(map, p, q))
		goto fail;
	double eta = orthonormality_gap(q, p, d);
	if (!(eta <= ETA_LIMIT)) {
		free(q);
		free(feature);
		free(value);
		free(zs);
		ikmap_prune_free(pr);
		return NULL;
	}
	for (int i = 0; i < p; i++)
		for (int j = 1; j <= d; j++)
			pr->pt[(size_t)j * p + i] = q[(size_t)i * d + (j - 1)];
	double mm = 0;
	for (int j = 1; j <= d; j++) {
		mm += map->mean[j] * map->mean[j];
		for (int i = 0; i < p; i++)
			pr->pm[i] += pr->pt[(size_t)j * p + i] * map->mean[j];
	}
	pr->mean_norm = sqrt(mm);
	pr->low = ikmap_float_bound(p + 1);
	pr->margin_rel = margin_rel(d, p, eta);
	struct kernels kn = pick_kernels(d);
	/* z of every distinct sample (its centred norm as the dense path computes it) */
	double *znorm = malloc((size_t)map->nsamples * sizeof(double));
	if (!znorm)
		goto fail;
	int failed = 0;
#pragma omp parallel num_threads(ikmap_threads(0)) reduction(|:failed)
	{
		int *feat = malloc(((size_t)d + 1) * sizeof(int));
		double *val = malloc(((size_t)d + 1) * sizeof(double));
		failed = !feat || !val;
#pragma omp for schedule(static)
		for (int s = 0; s < map->nsamples; s++) {
			if (failed)
				continue;
			int nnz = 0;
			for (int64_t e = map->sample_start[s]; e < map->sample_start[s + 1]; e++) {
				feat[nnz] = map->sample_index[e];
				val[nnz++] = ikmap_sample_scaled(map, e);
			}
			double sq = map->centred_sq[s];	/* ||c - m||^2 as the dense rows hold it */
			double y[PRUNE_DIRS];
			kn.project(pr->pt, feat, val, nnz, y);
			double yy = 0;
			for (int i = 0; i < p; i++) {
				y[i] -= pr->pm[i];
				yy += y[i] * y[i];
			}
			double r = sqrt(fmax(0, sq - yy));
			double zz = yy + r * r;
			float *out = zs + (size_t)s * pr->ld;
			for (int i = 0; i < p; i++)
				out[i] = -2 * (float)y[i];
			out[p] = -2 * (float)r;
			out[p + 1] = (float)zz;
			out[p + 2] = 1;
			znorm[s] = sqrt(zz);
		}
		free(feat);
		free(val);
	}
	if (failed) {
		free(znorm);
		goto fail;
	}
	for (int k = 0; k < map->t; k++)
		for (int i = 0; i < map->psi; i++) {
			size_t j = (size_t)k * map->psi + (size_t)i;
			int s = map->centre[j];
			memcpy(pr->centre + j * pr->ld, zs + (size_t)s * pr->ld, pr->ld * sizeof(float));
			pr->part_maxz[k] = fmax(pr->part_maxz[k], znorm[s]);
		}
	free(znorm);
	free(zs);
	free(q);
	free(feature);
	free(value);
	return pr;
fail:
	free(zs);
	free(q);
	free(feature);
	free(value);
	ikmap_prune_free(pr);
	return (struct ikmap_prune *)-1;
}

int ikmap_prune_useful(const struct ikmap *map)
{
	/* where the 8-bit path (anne_vnni.c) maps the plain dense path, it is cheaper */
	return map->dim >= PRUNE_MIN_DIM && map->psi >= PRUNE_MIN_PSI && !ikmap_anne_vnni_takes(map);
}

static double pruning_ratio(const struct ikmap *map);

int ikmap_anne_set_prune(struct ikmap *map, int on, char *err)
{
	if (on == IKMAP_PRUNE_AUTO && !ikmap_prune_useful(map))
		on = IKMAP_PRUNE_OFF;
	if (on == IKMAP_PRUNE_OFF || map->path != IKMAP_PATH_DENSE) {
		ikmap_prune_free(map->prune);
		map->prune = NULL;
		/* the plain dense path needs the centre matrix a pruned map went without */
		if (map->path == IKMAP_PATH_DENSE && ikmap_anne_dense_matrix(map)) {
			ikmap_error(err, "out of memory");
			return -1;
		}
		return 0;
	}
	/* p directions need more than p dimensions (the cost model asks for many more) */
	if (map->prune || map->dim <= PRUNE_DIRS)
		return 0;
	struct ikmap_prune *pr = build(map);
	if (pr == (struct ikmap_prune *)-1) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	map->prune = pr;	/* NULL when the directions were not orthonormal enough */
	if (pr && on == IKMAP_PRUNE_AUTO) {
		double ratio;
		if (ikmap_anne_prune_probe(map, &ratio, err))
			return -1;
		if (!(ratio < 1)) {
			ikmap_prune_free(map->prune);
			map->prune = NULL;
		}
	}
	return 0;
}

int ikmap_anne_prune_probe(struct ikmap *map, double *ratio, char *err)
{
	*ratio = INFINITY;
	if (ikmap_anne_set_prune(map, IKMAP_PRUNE_ON, err))
		return -1;
	if (!map->prune)
		return 0;
	double r = pruning_ratio(map);
	if (r < 0) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	*ratio = r;
	return 0;
}

int ikmap_anne_pruned(const struct ikmap *map)
{
	return map->prune != NULL;
}

/* ---- mapping ---- */


struct workspace {
	/* dense input only: row scratch_row's sparse form, for the exact recheck */
	struct feature_node *scratch;
	size_t scratch_row;
	float *x;		/* [TILE_ROWS][dense_ld]: the dense path's packed rows */
	float *z;		/* [TILE_ROWS][ld] */
	float *low;		/* [TILE_ROWS][cols] lower-bound scores */
	double *norm;		/* [TILE_ROWS]: ||x - m||, or -1 for rows mapped exactly */
	double *znorm;		/* [TILE_ROWS] */
	int *feature;		/* [dim + 1] */
	double *value;		/* [dim + 1] */
	int *cand;		/* [psi + 1]: see workspace_init */
	float *score;		/* [psi] */
	/*
	 * The dense rows of the current block of partitionings' centres
	 * ([cols][dense_ld], column (k - k0) psi + i), each made on first use
	 * in the block: stamp[col] == block says it is there. A block is
	 * reused by every row of a tile, so each row is made at most once per
	 * tile and block (about t psi / TILE_ROWS rows per mapped row).
	 */
	float *block;
	unsigned *stamp;	/* [cols] */
	/*
	 * Or, when the call holds them (held_rows), every sample's row at
	 * held[s dense_ld], made once for the whole call: block and stamp are
	 * then unused.
	 */
	const float *held;
	struct ikmap_recheck rc;	/* the double recheck's candidates */
	unsigned block_id;	/* never 0 once a block began: 0 marks no row */
	int k0;			/* the block's first partitioning */
	unsigned char *flags;	/* [psi] */
	/* counters for measurements (ikmap_prune_stats) */
	uint64_t pairs, full_scores, exact;
};

/*
 * Asks for a centre's dense row (ld floats) to be brought into cache
 * before its dot product runs. Why: the rows of all t psi centres do not
 * fit in L2, so each full score began with cache misses that the dot
 * product's few dozen loads could not hide; fetching the next one while
 * the current one is scored overlaps them. A hint only: it changes no
 * value.
 */
static void prefetch_row(const float *row, int ld)
{
#if defined(__GNUC__)
	for (int i = 0; i < ld; i += 16)	/* one 64-byte line per 16 floats */
		__builtin_prefetch(row + i, 0, 3);
#else
	(void)row;
	(void)ld;
#endif
}

/* The smallest float >= v (v finite; an overflow to infinity stays). */
static float float_at_least(double v)
{
	float f = (float)v;
	if ((double)f < v)
		f = nextafterf(f, INFINITY);
	return f;
}

/* Writes [x - m, 1, ||x - m||^2] in float; returns ||x - m|| (double) or -1; *sq_out = ||x - m||^2. */
static double pack_row(const struct ikmap *map, const struct feature_node *f, float *out,
	double *sq_out)
{
	const double *mean = map->mean;
	double sq = 0;
	for (int j = 1; j <= map->dim; j++) {
		while (f->index != -1 && f->index < j)
			f++;
		double v = -mean[j];
		if (f->index == j)
			v = ikmap_apply(map, j, f->value) - mean[j];
		sq += v * v;
		out[j - 1] = (float)v;
	}
	out[map->dim] = 1;
	out[map->dim + 1] = (float)sq;
	*sq_out = sq;
	double norm = sqrt(sq);
	return norm < ROW_NORM_LIMIT ? norm : -1;
}

/* Input row `row` as feature_node nodes (a dense row's are made in w->scratch). */
static const struct feature_node *row_nodes(const struct ikmap *map,
	const struct ikmap_rows_in *in, size_t row, struct workspace *w)
{
	return ikmap_rows_in_nodes(in, row, map->dim, w->scratch, &w->scratch_row);
}

/* Asks for sample s's stored nonzeros to be brought into cache (a hint only). */
static void prefetch_sample(const struct ikmap *map, int s)
{
#if defined(__GNUC__)
	for (int64_t e = map->sample_start[s]; e < map->sample_start[s + 1]; e += 16)
		__builtin_prefetch(map->sample_index + e, 0, 3);
	for (int64_t e = map->sample_start[s]; e < map->sample_start[s + 1]; e += 8)
		__builtin_prefetch(map->sample_value + e, 0, 3);
#else
	(void)map;
	(void)s;
#endif
}

/* The dense row of centre i of partitioning k (in the current block), made when missing. */
static const float *centre_row(const struct ikmap *map, struct workspace *w, int k, int i)
{
	if (w->held)
		return w->held + (size_t)map->centre[(size_t)k * map->psi + (size_t)i]
			* (size_t)map->dense_ld;
	size_t col = (size_t)(k - w->k0) * (size_t)map->psi + (size_t)i;
	float *row = w->block + col * (size_t)map->dense_ld;
	if (w->stamp[col] != w->block_id) {
		ikmap_anne_dense_row(map, map->centre[(size_t)k * map->psi + (size_t)i], row);
		w->stamp[col] = w->block_id;
	}
	return row;
}

/*
 * Starts a block of partitionings k0..k0+parts-1: every row of the last
 * one is stale. A tile of many rows will need nearly every centre's row
 * (each row scores a few per partitioning), so they are all made at once,
 * the next sample fetched while one is written (the samples' first
 * cache misses were most of the making); a few rows make theirs on use.
 */
static void begin_block(const struct ikmap *map, struct workspace *w, int k0, int parts,
	int nrows, int cols)
{
	w->k0 = k0;
	if (w->held)
		return;
	if (++w->block_id == 0) {	/* wrapped: no stamp may match by accident */
		memset(w->stamp, 0, (size_t)cols * sizeof *w->stamp);
		w->block_id = 1;
	}
	if (nrows < EAGER_ROWS)
		return;
	const int *sample = map->centre + (size_t)k0 * map->psi;
	int n = parts * map->psi;
	if (n > 1)
		prefetch_sample(map, sample[1]);
	for (int c = 0; c < n; c++) {
		if (c + 2 < n)
			prefetch_sample(map, sample[c + 2]);
		ikmap_anne_dense_row(map, sample[c], w->block + (size_t)c * map->dense_ld);
		w->stamp[c] = w->block_id;
	}
}

/*
 * The cell of row r (packed in w) in partitioning k, from its lower bounds
 * low[0..psi) and best, the first of their lowest (kn->first_min).
 */
static int prune_cell(const struct ikmap *map, const struct ikmap_prune *pr,
	const struct kernels *kn, const struct ikmap_rows_in *in, size_t row, int k,
	const float *low, int best, const float *xrow, double a, double az, struct workspace *w)
{
	int psi = map->psi, ld = map->dense_ld;
	double b = map->part_maxnorm_centred[k];
	double e = ikmap_bound_at(&kn->full, a, b);
	double e1 = ikmap_bound_at(&pr->low, az, pr->part_maxz[k]);
	double big_k = kn->full.grow * (a + b + 2 * pr->mean_norm);
	double margin = pr->margin_rel * big_k * big_k;

	/*
	 * U starts at the score of the centre with the lowest bound; the
	 * survivors are then scored in ascending order of their bounds, U
	 * falling to the best score so far, until the next bound clears U
	 * (it and all after it are dropped: R_i >= l_i - E1 - M > U).
	 */
	double slack = e + e1 + margin;
	float u = kn->dot(xrow, centre_row(map, w, k, best), ld);
	float thr = float_at_least((double)u + slack);
	w->cand[0] = best;
	w->score[0] = u;
	int n = 1 + kn->gather(low, psi, thr, best, w->cand + 1);
	w->pairs += (uint64_t)psi;
	if (n > 1 && n <= SORT_MAX) {
		/* insertion sort of the survivors by bound (few of them) */
		for (int c = 2; c < n; c++) {
			int i = w->cand[c], at = c;
			for (; at > 1 && low[w->cand[at - 1]] > low[i]; at--)
				w->cand[at] = w->cand[at - 1];
			w->cand[at] = i;
		}
	}
	for (int c = 1; c < n; c++) {
		int i = w->cand[c];
		if (n <= SORT_MAX && low[i] > thr) {
			n = c;	/* sorted: the rest clear U too */
			break;
		}
		float s = kn->dot(xrow, centre_row(map, w, k, i), ld);
		w->score[c] = s;
		if (s < u) {
			u = s;
			thr = float_at_least((double)u + slack);
		}
	}
	w->full_scores += (uint64_t)n;
	if (n == 1)
		return best;	/* every other centre is farther than best */
	float m = u;
	float win = float_at_least((double)m + 2 * e);
	int within = 0, only = best;
	for (int c = 0; c < n; c++)
		if (w->score[c] <= win) {
			within++;
			only = w->cand[c];
		}
	if (within == 1)
		return only;
	/* Near ties (or true ties): the double recheck, then the reference distance. */
	memset(w->flags, 0, (size_t)psi);
	int m2 = 0;
	for (int c = 0; c < n; c++) {
		w->flags[w->cand[c]] = w->score[c] <= win;
		if (w->flags[w->cand[c]]) {
			w->rc.cand[m2] = w->cand[c];
			w->rc.rows[m2++] = centre_row(map, w, k, w->cand[c]);
		}
	}
	int cell = ikmap_recheck_double(map, xrow, a, k, m2, &w->rc, w->flags);
	if (cell >= 0)
		return cell;
	w->exact++;
	return ikmap_nearest_exact(map, row_nodes(map, in, row, w), k, w->flags);
}

/*
 * The scaled nonzeros of input row `row` (features 1..dim, ascending), as
 * row_z wants them: those of the row's sparse form, whichever the input.
 */
static int row_nonzeros(const struct ikmap *map, const struct ikmap_rows_in *in, size_t row,
	int *feature, double *value)
{
	int nnz = 0, dim = map->dim;
	if (in->rows) {
		for (const struct feature_node *f = in->rows[row]; f->index != -1; f++) {
			if (f->index < 1 || f->index > dim)
				continue;
			feature[nnz] = f->index;
			value[nnz++] = ikmap_apply(map, f->index, f->value);
		}
		return nnz;
	}
	const double *x = in->dense->x + row * in->dense->ld;
	int last = in->dense->cols < dim ? in->dense->cols : dim;
	for (int j = 1; j <= last; j++)
		if (x[j - 1] != 0) {
			feature[nnz] = j;
			value[nnz++] = ikmap_apply(map, j, x[j - 1]);
		}
	return nnz;
}

/* 0, -1 when out of memory, or -2 when a dense row holds a non-finite value. */
static int map_tile(const struct ikmap *map, const struct kernels *kn,
	const struct ikmap_rows_in *in, size_t first, int nrows, void *cells, int parts_per,
	struct workspace *w)
{
	const struct ikmap_prune *pr = map->prune;
	int ld = map->dense_ld, zl = pr->ld, psi = map->psi, t = map->t;
	int bad = 0;
	for (int r = 0; r < nrows; r++) {
		double sq;
		size_t row = first + (size_t)r;
		if (in->rows) {
			w->norm[r] = pack_row(map, in->rows[row], w->x + (size_t)r * ld, &sq);
		} else {
			int row_bad;
			w->norm[r] = ikmap_anne_pack_dense(map, in->dense->x + row * in->dense->ld,
				in->dense->cols, w->x + (size_t)r * ld, &row_bad, &sq);
			bad |= row_bad;
		}
		int nnz = w->norm[r] < 0 ? 0 : row_nonzeros(map, in, row, w->feature, w->value);
		w->znorm[r] = w->norm[r] < 0 ? 0 : row_z(pr, kn, sq, w->feature, w->value, nnz,
			w->z + (size_t)r * zl);
		if (!(w->znorm[r] < ROW_NORM_LIMIT))
			w->norm[r] = -1;
		if (w->norm[r] < 0)	/* a harmless row for the GEMM; its cells come below */
			memset(w->z + (size_t)r * zl, 0, (size_t)zl * sizeof(float));
	}
	if (bad)
		return -2;
	for (int k0 = 0; k0 < t; k0 += parts_per) {
		int parts = t - k0 < parts_per ? t - k0 : parts_per;
		int cols = parts * psi;
		if (sgemm_nt(nrows, cols, zl, w->z, zl, pr->centre + (size_t)k0 * psi * zl, zl,
				w->low, cols) != 0)
			return -1;
		begin_block(map, w, k0, parts, nrows, parts_per * psi);
		/*
		 * Row-major: the row stays in L1 while the block's centres come
		 * from L2 or L3. Each partitioning's lowest bound is found one
		 * step ahead and its centre's row, when made, fetched early (prefetch_row).
		 */
		int next = -1, next_best = 0;
		for (int r = 0; r < nrows; r++)
			for (int p = 0; p < parts; p++) {
				if (w->norm[r] < 0)
					continue;
				size_t row = first + (size_t)r;
				const float *low = w->low + (size_t)r * cols + (size_t)p * psi;
				int best = next == r * parts + p ? next_best : kn->first_min(low, psi);
				/* the next partitioning of this row, or of the next mapped row */
				int nr = p + 1 < parts ? r : r + 1, np = p + 1 < parts ? p + 1 : 0;
				while (nr < nrows && w->norm[nr] < 0)
					nr++;
				if (nr < nrows) {
					next = nr * parts + np;
					next_best = kn->first_min(w->low + (size_t)nr * cols
						+ (size_t)np * psi, psi);
					size_t col = (size_t)np * psi + (size_t)next_best;
					if (w->held)
						prefetch_row(centre_row(map, w, k0 + np, next_best), ld);
					else if (w->stamp[col] == w->block_id)
						prefetch_row(w->block + col * ld, ld);
				}
				int cell = prune_cell(map, pr, kn, in, row, k0 + p, low, best,
					w->x + (size_t)r * ld, w->norm[r], w->znorm[r], w);
				ikmap_put_cell(map, cells, row * t + (size_t)(k0 + p), (uint32_t)cell);
			}
	}
	for (int r = 0; r < nrows; r++) {
		if (w->norm[r] >= 0)
			continue;
		size_t row = first + (size_t)r;
		for (int k = 0; k < t; k++)
			ikmap_put_cell(map, cells, row * t + (size_t)k,
				(uint32_t)ikmap_nearest_exact(map, row_nodes(map, in, row, w), k, NULL));
	}
	return 0;
}

/*
 * Every sample's dense row for one call, or NULL. Why: a tile makes its
 * block's rows again for every block (t psi / TILE_ROWS rows per mapped
 * row, about a fifth of the map's time on 784-d rows at psi 256; bench/
 * results/ik-vs-ikpykit-python-speed19.md), where nsamples rows made once
 * would do. They are held only when there are no more samples than rows
 * to map: then they take no more memory than those rows' own packed form
 * (count rows of dense_ld floats, which the caller's input is at least
 * as large as), so a call may hold them whatever the map; train's and
 * predict's batches of a few thousand rows against tens of thousands of
 * samples (issue 22's memory goal) still make them per block. The rows
 * are dense_row's, so nothing else changes. NULL also when out of memory:
 * the tiles then make their rows as before.
 */
static float *held_rows(const struct ikmap *map, size_t count, int threads)
{
	if ((size_t)map->nsamples > count || count < TILE_ROWS)
		return NULL;
	size_t ld = (size_t)map->dense_ld;
	float *held = malloc((size_t)map->nsamples * ld * sizeof *held);
	if (!held)
		return NULL;
#pragma omp parallel for num_threads(threads) schedule(static)
	for (int s = 0; s < map->nsamples; s++)
		ikmap_anne_dense_row(map, s, held + (size_t)s * ld);
	return held;
}

/* cols: lower bounds per tile row; blocks: 0 when the call holds every row (held_rows). */
static int workspace_init(struct workspace *w, const struct ikmap *map, int cols, int blocks,
	int dense)
{
	memset(w, 0, sizeof *w);
	w->scratch = dense ? malloc(((size_t)map->dim + 1) * sizeof *w->scratch) : NULL;
	w->scratch_row = SIZE_MAX;
	w->x = malloc((size_t)TILE_ROWS * (size_t)map->dense_ld * sizeof(float));
	w->z = malloc((size_t)TILE_ROWS * (size_t)map->prune->ld * sizeof(float));
	w->low = malloc((size_t)TILE_ROWS * (size_t)cols * sizeof(float));
	w->norm = malloc(TILE_ROWS * sizeof(double));
	w->znorm = malloc(TILE_ROWS * sizeof(double));
	w->feature = malloc(((size_t)map->dim + 1) * sizeof(int));
	w->value = malloc(((size_t)map->dim + 1) * sizeof(double));
	/* best, then the gather's psi entries and its slack (gather_fn): the
	 * branchless or whole-vector writes go past the last survivor (ASan
	 * found one at cand[psi] when every centre survived) */
	w->cand = malloc(((size_t)map->psi + 1 + GATHER_SLACK) * sizeof(int));
	w->score = malloc((size_t)map->psi * sizeof(float));
	w->flags = malloc((size_t)map->psi);
	if (blocks) {
		w->block = malloc((size_t)cols * (size_t)map->dense_ld * sizeof(float));
		w->stamp = calloc((size_t)cols, sizeof *w->stamp);
	}
	int rc_failed = ikmap_recheck_init(&w->rc, map->psi);
	return !rc_failed && w->x && w->z && w->low && w->norm && w->znorm && w->feature && w->value && w->cand
		&& w->score && w->flags && (!blocks || (w->block && w->stamp))
		&& (!dense || w->scratch) ? 0 : -1;
}

static void workspace_free(struct workspace *w)
{
	free(w->scratch);
	free(w->x);
	free(w->z);
	free(w->low);
	free(w->norm);
	free(w->znorm);
	free(w->feature);
	free(w->value);
	free(w->cand);
	free(w->score);
	free(w->flags);
	free(w->block);
	free(w->stamp);
	ikmap_recheck_free(&w->rc);
}

/* Totals of the last pruned mapping (for measurements; not thread-safe across maps). */
static uint64_t last_pairs, last_full, last_exact;
static int last_held;

int ikmap_prune_held_last(void)
{
	return last_held;
}

void ikmap_prune_stats(uint64_t *pairs, uint64_t *full_scores, uint64_t *exact)
{
	*pairs = last_pairs;
	*full_scores = last_full;
	*exact = last_exact;
}

/*
 * The pruned mapping; counts[3] += pairs, full scores, exact rechecks.
 * 0, -1 (out of memory) or -2 (a non-finite dense value).
 */
static int prune_map_counted(const struct ikmap *map, const struct ikmap_rows_in *in,
	size_t count, void *cells, int threads, uint64_t counts[3])
{
	int parts_per = TILE_COLS / map->psi;
	if (parts_per < 1)
		parts_per = 1;
	if (parts_per > map->t)
		parts_per = map->t;
	int cols = parts_per * map->psi;
	size_t ntiles = (count + TILE_ROWS - 1) / TILE_ROWS;
	struct kernels kn = pick_kernels(map->dim);
	float *held = held_rows(map, count, threads);
	last_held = held != NULL;
	struct ikmap_gemm_state blas = ikmap_gemm_serial_begin();
	int failed = 0;
	uint64_t pairs = 0, full = 0, exact = 0;
#pragma omp parallel num_threads(threads) reduction(|:failed) reduction(+:pairs, full, exact)
	{
		struct workspace w;
		failed = workspace_init(&w, map, cols, held == NULL, in->rows == NULL) ? 1 : 0;
		w.held = held;
#pragma omp for schedule(dynamic, 1)
		for (size_t tile = 0; tile < ntiles; tile++) {
			if (failed)
				continue;
			size_t first = tile * TILE_ROWS;
			int nrows = count - first < TILE_ROWS ? (int)(count - first) : TILE_ROWS;
			int status = map_tile(map, &kn, in, first, nrows, cells, parts_per, &w);
			if (status)
				failed |= status == -2 ? 2 : 1;
		}
		pairs += w.pairs;
		full += w.full_scores;
		exact += w.exact;
		workspace_free(&w);
	}
	ikmap_gemm_serial_end(blas);
	free(held);
	counts[0] += pairs;
	counts[1] += full;
	counts[2] += exact;
	/* bit 1: out of memory somewhere, which wins over a bad value */
	return failed & 1 ? -1 : failed ? -2 : 0;
}

static int prune_map_input(const struct ikmap *map, const struct ikmap_rows_in *in,
	size_t count, void *cells, int threads)
{
	uint64_t counts[3] = {0, 0, 0};
	int status = prune_map_counted(map, in, count, cells, threads, counts);
	last_pairs = counts[0];
	last_full = counts[1];
	last_exact = counts[2];
	return status;
}

int ikmap_anne_prune_map(const struct ikmap *map, struct feature_node *const *rows,
	size_t count, void *cells, int threads)
{
	struct ikmap_rows_in in = { rows, NULL };
	return prune_map_input(map, &in, count, cells, threads);
}

int ikmap_anne_prune_map_matrix(const struct ikmap *map, const struct ikmap_dense_in *x,
	size_t count, void *cells, int threads)
{
	struct ikmap_rows_in in = { NULL, x };
	return prune_map_input(map, &in, count, cells, threads);
}

/*
 * The cost model's second half (anne_path.c chose the dense path): map up
 * to PROBE_ROWS of the sampled rows with pruning and count the share f of
 * centres whose full score was needed. Per row and centre, in GEMM
 * multiply-adds: plain d + 2 + SCAN; pruned p + 3 + 2 SCAN + DOT f (d + 2),
 * SCAN being a scanned score (NS_PER_DENSE_SCORE / NS_PER_GEMM_MULADD of
 * anne_path.c, 27) and DOT a multiply-add of a lone dot product against a
 * GEMM's (about 10 on the development machine: the centres come from
 * cache or memory one at a time). Probing with sampled rows flatters
 * pruning a little (a row is its own centre in psi/n of the
 * partitionings); the cells never depend on the choice.
 * Returns pruned / plain, or -1 when out of memory.
 */
static double pruning_ratio(const struct ikmap *map)
{
	int probes = map->nsamples < PROBE_ROWS ? map->nsamples : PROBE_ROWS;
	struct feature_node **rows = malloc((size_t)probes * sizeof *rows);
	void *cells = malloc((size_t)probes * (size_t)map->t * ikmap_cell_size(map));
	int64_t nodes = 0;
	for (int r = 0; r < probes; r++) {
		int s = (int)((int64_t)r * map->nsamples / probes);
		nodes += map->sample_start[s + 1] - map->sample_start[s] + 1;
	}
	struct feature_node *pool = malloc((size_t)nodes * sizeof *pool);
	double status = -1;
	if (rows && cells && pool) {
		struct feature_node *at = pool;
		for (int r = 0; r < probes; r++) {
			int s = (int)((int64_t)r * map->nsamples / probes);
			rows[r] = at;
			for (int64_t e = map->sample_start[s]; e < map->sample_start[s + 1]; e++, at++) {
				at->index = map->sample_index[e];
				at->value = map->sample_value[e];
			}
			(at++)->index = -1;
		}
		uint64_t counts[3] = {0, 0, 0};
		struct ikmap_rows_in in = { rows, NULL };
		if (prune_map_counted(map, &in, (size_t)probes, cells, ikmap_threads(0), counts) == 0) {
			double f = counts[0] ? (double)counts[1] / (double)counts[0] : 1;
			double d2 = (double)map->dim + 2;
			double plain = d2 + SCAN_COST;
			double pruned = PRUNE_DIRS + 3 + 2 * SCAN_COST + DOT_COST * f * d2;
			status = pruned / plain;
		}
	}
	free(rows);
	free(cells);
	free(pool);
	return status;
}
