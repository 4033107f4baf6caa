/*
 * anne_vnni.c - the plain dense aNNE path for psi <= 64 by 8-bit integer
 * products (AVX512-VNNI), with the cells still exactly those of ikmap.h
 * (the reference distance, ties to the lowest index).
 *
 * Contract: ikmap_anne_vnni_map(map, in, count, cells, threads) maps the
 * rows as anne_dense.c's dense_map would, with identical cells, and
 * returns 0, -1 (out of memory) or -2 (a non-finite dense value); or 1
 * without touching anything when it does not apply (psi > 64, d > 8192,
 * a CPU without AVX512-VNNI/BW/VL, a pruned map, or IKMAP_VNNI=0 in the
 * environment), and the caller then takes the float GEMM.
 * ikmap_anne_vnni_takes(map) says whether it would take the map once
 * plain dense (the cost model then builds no pruning structure).
 *
 * Why: at psi 16 the float GEMM of the plain path runs near the CPU's
 * float peak, and pruning does not pay there (bench/results/
 * ik-vs-ikpykit-profile.md). One VPDPBUSD does 64 byte products where one
 * float FMA does 16, and the centres as bytes are a quarter of the
 * floats; a block's scores stay in registers and their argmin is taken
 * there (no score matrix). Centres go in groups of 16, one int32 lane
 * each (up to four groups a partitioning).
 *
 * Rigour (notation of anne_exact.c: u = 2^-24). The dense path's rows
 * x' and centres c' (centred, in float; c' = -dense/2 exactly) give the
 * exact value T_j = ||x'||^2_f + ||c'_j||^2_f - 2 x'.c'_j of the float
 * GEMM's sum, and anne_exact.c's E_f = ikmap_float_bound bounds
 * |T_j - R_j| (R the reference distance): its terms for the entries'
 * and norms' rounding bound T - D, its GEMM term only adds. Here each
 * vector v is quantised as s_v q_v (q_v in [-127, 127], one float scale
 * per row or centre), with residual e_v = v - s_v q_v whose norm is
 * measured in double (any q is rigorous: nothing assumes the rounding).
 * By Cauchy-Schwarz, for centre j,
 *     |x'.c'_j - s_x s_j q_x.q_j| <= ||e_x|| ||c'_j|| + s_x ||q_x|| ||e_j|| = Q_j.
 * q_x.q_j is exact: the kernel sums (q_x + 128) q_j in int32 lanes (at
 * most d 255 127 < 2^31 for d < 65536; this path takes d <= 8192) and
 * 128 sum q_j comes off exactly. The score
 * t_j = fl(||c'_j||^2_f - fl(q_x.q_j) fl(s_x 2 s_j)) (one fused rounding
 * and two products) adds at most 8u((A + B)^2 + Q_j) (A, B the norms of
 * x' and of the largest c'). With E_j = 1.01 2 Q_j (1.01: the double
 * sums of the residual norms and the float norms' rounding) and
 * W = 2 (E_f + 1.01 8u ((A + B)^2 + max Q)),
 *     |t_j + ||x'||^2_f - R_j| <= E_j + W / 2,
 * so the nearest centre j* has t_j* - E_j* <= min_i (t_i + E_i) + W (the
 * argument of anne_exact.c with per-centre bounds), evaluated in the
 * vector with E_j and t + E rounded up and t - E rounded down. When that
 * window holds one centre, it is the cell; else the centres in it get the
 * dense path's full float score (E_f) and its window, and a tie left
 * there goes to the reference distance, as on the dense path.
 *
 * Rows too large for float (or not finite) take the reference distance
 * throughout, as on the dense path. The cells depend neither on the
 * thread count nor on the row blocking.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ikmap_impl.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define VNNI_X86 1
/* Everything here runs only where usable() found all of these. */
#define VNNI_TARGET "avx512f,avx512bw,avx512vl,avx512vnni"
#define UP (_MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)
#define DOWN (_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#include <immintrin.h>
#endif

/* Centres per partitioning this path takes: up to four groups of 16 (one int32 lane each). */
#define VNNI_MAX_PSI 64
/* Rows per block: 12 rows x 2 partitionings = 24 accumulators (of 32 registers). */
#define VNNI_BLOCK 12
/*
 * Blocks per tile: the tile's packed float rows (300 KB at d = 784) stay
 * in L2 while the two partitionings' centres go by, so the full scores
 * of the undecided (whose float centre rows come from L3) reuse those
 * rows across 96 rows instead of 12.
 */
#define VNNI_BLOCKS 8
#define TILE_ROWS (VNNI_BLOCK * VNNI_BLOCKS)
/* Rows with a larger centred norm (or a NaN) take the reference distance (anne_dense.c's). */
#define ROW_NORM_LIMIT 0x1p60
/* Widest rows and largest byte centre matrix this path takes (usable()). */
#define VNNI_MAX_DIM 8192
#define VNNI_MAX_CENTRE_BYTES ((size_t)64 << 20)
/* Quantised values lie in [-QMAX, QMAX]; a row's bytes are q + 128. */
#define QMAX 127

#ifdef VNNI_X86

/* The smallest float >= v (v finite; an overflow to infinity stays). */
static float float_at_least(double v)
{
	float f = (float)v;
	if ((double)f < v) {
		/* one step up (finite f): the bit pattern moves by one */
		uint32_t b;
		memcpy(&b, &f, sizeof b);
		b = f == 0 ? 1 : f > 0 ? b + 1 : b - 1;
		memcpy(&f, &b, sizeof f);
	}
	return f;
}

/* The centres as bytes, per partitioning: [quad][16 lanes][4 bytes] (64 bytes a quad). */
struct ikmap_vnni {
	int quads;		/* ceil(dim / 4) */
	int groups;		/* per partitioning: ceil(psi / 16); group f = k groups + g */
	int stride;		/* int32 per block row of products: 16 max(2, groups rounded up to even) */
	int8_t *q;		/* [t groups][quads][64], 64-byte aligned */
	int32_t *bias;		/* [t groups][16]: 128 sum q (the rows' +128) */
	float *scale2;		/* [t groups][16]: 2 s_c (0 in unused lanes) */
	float *norm;		/* [t groups][16]: ||c'||^2 as the dense row holds it (+inf unused) */
	float *cnorm;		/* [t groups][16]: ||c'|| rounded up (0 unused) */
	float *cresid;		/* [t groups][16]: ||e_c|| rounded up (0 unused) */
	double resid_max;	/* largest ||e_c|| */
	double norm_max;	/* largest ||c'|| (map->part_maxnorm_centred) */
	struct ikmap_bound float_bound;	/* E_f: anne_exact.c's float bound */
};

/*
 * Quantises n floats to q (in [-QMAX, QMAX]; flip 0x80 gives the bytes
 * q + 128) with scale *s, *qq = sum q^2; returns the residual's norm
 * ||v - s q||, computed in double (each term exact or within 2^-53
 * relative: the 1.01 of E_q covers the sum). Any q is rigorous here (the
 * residual is measured, not assumed), so the rounding mode is free.
 */
__attribute__((target(VNNI_TARGET)))
static double quantise(const float *v, int n, int8_t *q, int flip, float *s, int64_t *qq)
{
	__m512 top = _mm512_setzero_ps();
	for (int i = 0; i < n; i += 16) {
		__mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
		top = _mm512_max_ps(top, _mm512_abs_ps(_mm512_maskz_loadu_ps(m, v + i)));
	}
	float scale = _mm512_reduce_max_ps(top) / QMAX;
	if (!(scale >= 0x1p-100f))	/* zero or tiny: all q 0, the residual is v itself */
		scale = 1;
	__m512 inv = _mm512_set1_ps(1 / scale);
	__m512d sd = _mm512_set1_pd(scale), sq = _mm512_setzero_pd();
	__m512i lo = _mm512_set1_epi32(-QMAX), hi = _mm512_set1_epi32(QMAX), qs = _mm512_setzero_si512();
	__m128i bias = _mm_set1_epi8(flip ? (char)0x80 : 0);
	for (int i = 0; i < n; i += 16) {
		__mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
		__m512 x = _mm512_maskz_loadu_ps(m, v + i);
		__m512i k = _mm512_cvtps_epi32(_mm512_mul_ps(x, inv));
		k = _mm512_min_epi32(_mm512_max_epi32(k, lo), hi);
		qs = _mm512_add_epi32(qs, _mm512_mullo_epi32(k, k));
		__m512 kf = _mm512_cvtepi32_ps(k);	/* exact: |k| <= 127 */
		__m512d e0 = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(x)),
			_mm512_mul_pd(sd, _mm512_cvtps_pd(_mm512_castps512_ps256(kf))));
		__m512d e1 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(
			_mm512_castps_pd(x), 1))), _mm512_mul_pd(sd, _mm512_cvtps_pd(_mm256_castpd_ps(
			_mm512_extractf64x4_pd(_mm512_castps_pd(kf), 1)))));
		sq = _mm512_fmadd_pd(e0, e0, _mm512_fmadd_pd(e1, e1, sq));
		__m128i bytes = _mm_xor_si128(_mm512_cvtepi32_epi8(k), bias);
		_mm_mask_storeu_epi8(q + i, m, bytes);
	}
	*s = scale;
	*qq = _mm512_reduce_add_epi32(qs);
	return sqrt(_mm512_reduce_add_pd(sq));
}

static void centres_free(struct ikmap_vnni *c)
{
	free(c->q);
	free(c->bias);
	free(c->scale2);
	free(c->norm);
	free(c->cnorm);
	free(c->cresid);
}

/* 0, or -1 when out of memory. */
static int centres_make(const struct ikmap *map, struct ikmap_vnni *c, int threads)
{
	int t = map->t, psi = map->psi, dim = map->dim, ld = map->dense_ld;
	c->quads = (dim + 3) / 4;
	c->groups = (psi + 15) / 16;
	c->stride = 16 * (c->groups < 2 ? 2 : (c->groups + 1) / 2 * 2);
	int tg = t * c->groups;
	size_t qbytes = (size_t)tg * (size_t)c->quads * 64;
	c->q = aligned_alloc(64, qbytes);
	c->bias = malloc((size_t)tg * 16 * sizeof *c->bias);
	c->scale2 = malloc((size_t)tg * 16 * sizeof *c->scale2);
	c->norm = malloc((size_t)tg * 16 * sizeof *c->norm);
	c->cnorm = malloc((size_t)tg * 16 * sizeof *c->cnorm);
	c->cresid = malloc((size_t)tg * 16 * sizeof *c->cresid);
	int failed = !c->q || !c->bias || !c->scale2 || !c->norm || !c->cnorm || !c->cresid;
	if (failed) {
		centres_free(c);
		return -1;
	}
	memset(c->q, 0, qbytes);
	double resid_max = 0;
#pragma omp parallel num_threads(threads) reduction(|:failed) reduction(max:resid_max)
	{
		float *v = malloc((size_t)dim * sizeof *v);
		int8_t *q = malloc((size_t)dim);
		failed = !v || !q;
#pragma omp for schedule(static)
		for (int f = 0; f < tg; f++) {
			if (!v || !q)
				continue;
			int8_t *block = c->q + (size_t)f * c->quads * 64;
			int k = f / c->groups, first = f % c->groups * 16;
			double resid = 0;
			for (int l = 0; l < 16; l++) {
				size_t at = (size_t)f * 16 + (size_t)l;
				if (first + l >= psi) {
					c->bias[at] = 0;
					c->scale2[at] = 0;
					c->norm[at] = INFINITY;
					c->cnorm[at] = 0;
					c->cresid[at] = 0;
					continue;
				}
				const float *row = map->dense + ((size_t)k * psi + (size_t)(first + l)) * ld;
				for (int i = 0; i < dim; i++)
					v[i] = row[i] * -0.5f;	/* exact: the row holds -2 c' */
				float s;
				int64_t qq;
				double e = quantise(v, dim, q, 0, &s, &qq);
				resid = e > resid ? e : resid;
				double vv = 0;
				for (int i = 0; i < dim; i++)
					vv += (double)v[i] * v[i];
				c->cnorm[at] = float_at_least(sqrt(vv));
				c->cresid[at] = float_at_least(e);
				int32_t sum = 0;
				for (int i = 0; i < dim; i++) {
					block[(size_t)(i / 4) * 64 + (size_t)l * 4 + (size_t)(i % 4)] = q[i];
					sum += q[i];
				}
				c->bias[at] = 128 * sum;
				c->scale2[at] = 2 * s;
				c->norm[at] = row[dim];
			}
			resid_max = resid > resid_max ? resid : resid_max;
		}
		free(v);
		free(q);
	}
	if (failed) {
		centres_free(c);
		return -1;
	}
	c->resid_max = resid_max;
	c->norm_max = 0;
	for (int k = 0; k < t; k++)
		c->norm_max = map->part_maxnorm_centred[k] > c->norm_max ? map->part_maxnorm_centred[k]
			: c->norm_max;
	c->float_bound = ikmap_float_bound(dim);
	return 0;
}

struct workspace {
	float *x;		/* [TILE_ROWS][dense_ld]: the dense path's packed rows */
	double *norm;		/* [TILE_ROWS]: ||x'||, or -1 for rows mapped exactly */
	uint8_t *xq;		/* [TILE_ROWS][quads * 4]: q_x + 128, 64-byte aligned */
	float *scale;		/* [TILE_ROWS]: s_x */
	float *window;		/* [TILE_ROWS]: 2 (E_f + the rounding part of E_q), rounded up */
	float *ex2;		/* [TILE_ROWS]: 2.02 ||e_x||, rounded up */
	float *qx2;		/* [TILE_ROWS]: 2.02 s_x ||q_x||, rounded up */
	double *float_window;	/* [TILE_ROWS]: 2 E_f, the full float scores' */
	int32_t *acc;		/* [VNNI_BLOCK][stride], 64-byte aligned */
	unsigned char *flags;	/* [psi] */
	struct feature_node *scratch;	/* dense input: a row's sparse form (rechecks) */
	size_t scratch_row;
	struct ikmap_recheck rc;	/* the double recheck's candidates */
};

static void workspace_free(struct workspace *w)
{
	free(w->x);
	free(w->norm);
	free(w->xq);
	free(w->scale);
	free(w->window);
	free(w->ex2);
	free(w->qx2);
	free(w->float_window);
	free(w->acc);
	free(w->flags);
	free(w->scratch);
	ikmap_recheck_free(&w->rc);
}

static int workspace_init(struct workspace *w, const struct ikmap *map, int quads, int stride,
	int dense)
{
	memset(w, 0, sizeof *w);
	w->x = malloc((size_t)TILE_ROWS * (size_t)map->dense_ld * sizeof(float));
	w->norm = malloc(TILE_ROWS * sizeof(double));
	size_t xq_bytes = ((size_t)TILE_ROWS * (size_t)quads * 4 + 63) / 64 * 64;
	w->xq = aligned_alloc(64, xq_bytes);
	w->scale = malloc(TILE_ROWS * sizeof(float));
	w->window = malloc(TILE_ROWS * sizeof(float));
	w->ex2 = malloc(TILE_ROWS * sizeof(float));
	w->qx2 = malloc(TILE_ROWS * sizeof(float));
	w->float_window = malloc(TILE_ROWS * sizeof(double));
	w->acc = aligned_alloc(64, (size_t)VNNI_BLOCK * (size_t)stride * sizeof(int32_t));
	w->flags = malloc((size_t)map->psi);
	w->scratch = dense ? malloc(((size_t)map->dim + 1) * sizeof *w->scratch) : NULL;
	w->scratch_row = SIZE_MAX;
	int rc_failed = ikmap_recheck_init(&w->rc, map->psi);
	return !rc_failed && w->x && w->norm && w->xq && w->scale && w->window && w->float_window && w->ex2 && w->qx2 && w->acc
		&& w->flags && (!dense || w->scratch) ? 0 : -1;
}

/*
 * The integer products of VNNI_BLOCK rows (xq, bytes q + 128, as int32
 * quads) with two groups of 16 centres (c0, c1): acc[r out_stride + 16 g + lane] =
 * sum (q_x + 128) q_c over the quads. Register-blocked: 24 accumulators,
 * the two centre vectors loaded once per quad, each row's quad broadcast.
 */
__attribute__((target(VNNI_TARGET)))
static void block_products(const uint8_t *xq, int quads, const int8_t *c0, const int8_t *c1,
	int32_t *acc, int out_stride)
{
	/* named accumulators: GCC spilt an array of them to the stack */
#define ACC_DECL(r) __m512i a##r##0 = _mm512_setzero_si512(), a##r##1 = _mm512_setzero_si512()
	ACC_DECL(0); ACC_DECL(1); ACC_DECL(2); ACC_DECL(3); ACC_DECL(4); ACC_DECL(5);
	ACC_DECL(6); ACC_DECL(7); ACC_DECL(8); ACC_DECL(9); ACC_DECL(10); ACC_DECL(11);
	size_t stride = (size_t)quads * 4;
	for (int q = 0; q < quads; q++) {
		__m512i b0 = _mm512_load_si512((const void *)(c0 + (size_t)q * 64));
		__m512i b1 = _mm512_load_si512((const void *)(c1 + (size_t)q * 64));
		const uint8_t *x = xq + (size_t)q * 4;
#define ACC_STEP(r)                                                              \
		do {                                                             \
			int32_t four;	/* row r's 4 bytes of this quad */       \
			memcpy(&four, x + (size_t)(r) * stride, sizeof four);    \
			__m512i a = _mm512_set1_epi32(four);                     \
			a##r##0 = _mm512_dpbusd_epi32(a##r##0, a, b0);           \
			a##r##1 = _mm512_dpbusd_epi32(a##r##1, a, b1);           \
		} while (0)
		ACC_STEP(0); ACC_STEP(1); ACC_STEP(2); ACC_STEP(3); ACC_STEP(4); ACC_STEP(5);
		ACC_STEP(6); ACC_STEP(7); ACC_STEP(8); ACC_STEP(9); ACC_STEP(10); ACC_STEP(11);
#undef ACC_STEP
	}
#define ACC_STORE(r)                                                             \
	do {                                                                     \
		_mm512_store_si512((void *)(acc + (r) * out_stride), a##r##0);   \
		_mm512_store_si512((void *)(acc + (r) * out_stride + 16), a##r##1); \
	} while (0)
	ACC_STORE(0); ACC_STORE(1); ACC_STORE(2); ACC_STORE(3); ACC_STORE(4); ACC_STORE(5);
	ACC_STORE(6); ACC_STORE(7); ACC_STORE(8); ACC_STORE(9); ACC_STORE(10); ACC_STORE(11);
#undef ACC_STORE
#undef ACC_DECL
}

/*
 * Float dot products of x with two rows b0, b1 (n values each), each in
 * some order (all the float bound needs): x is loaded once for both and
 * four independent sums hide the FMA latency, which bounded a lone dot.
 */
__attribute__((target(VNNI_TARGET)))
static void dot_pair(const float *x, const float *b0, const float *b1, int n, float *out0,
	float *out1)
{
	__m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
	__m512 t0 = _mm512_setzero_ps(), t1 = _mm512_setzero_ps();
	int i = 0;
	for (; i + 32 <= n; i += 32) {
		__m512 x0 = _mm512_loadu_ps(x + i), x1 = _mm512_loadu_ps(x + i + 16);
		s0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(b0 + i), s0);
		t0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(b1 + i), t0);
		s1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(b0 + i + 16), s1);
		t1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(b1 + i + 16), t1);
	}
	for (; i < n; i += 16) {
		__mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
		__m512 x0 = _mm512_maskz_loadu_ps(m, x + i);
		s0 = _mm512_fmadd_ps(x0, _mm512_maskz_loadu_ps(m, b0 + i), s0);
		t0 = _mm512_fmadd_ps(x0, _mm512_maskz_loadu_ps(m, b1 + i), t0);
	}
	*out0 = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
	*out1 = _mm512_reduce_add_ps(_mm512_add_ps(t0, t1));
}

/*
 * Several centres in the integer scores' window (hit): the dense path's
 * full float scores of those, its window, and the reference distance for
 * a tie left there. Out of line: about a quarter of the partitionings.
 */
__attribute__((target(VNNI_TARGET), noinline))
static int undecided(const struct ikmap *map, const struct ikmap_rows_in *in, size_t row, int k,
	uint64_t hit, int r, struct workspace *w)
{
	int psi = map->psi, ld = map->dense_ld;
	const float *xrow = w->x + (size_t)r * ld;
	const float *centre = map->dense + (size_t)k * psi * ld;
	float score[VNNI_MAX_PSI], best = INFINITY;
	/* the candidates two at a time (an odd last one with itself) */
	for (uint64_t left = hit; left; ) {
		int j0 = __builtin_ctzll(left);
		left &= left - 1;
		int j1 = left ? __builtin_ctzll(left) : j0;
		left &= left - 1;
		dot_pair(xrow, centre + (size_t)j0 * ld, centre + (size_t)j1 * ld, ld, &score[j0],
			&score[j1]);
		best = score[j0] < best ? score[j0] : best;
		best = score[j1] < best ? score[j1] : best;
	}
	float win = float_at_least((double)best + w->float_window[r]);
	/* the candidates left in the float window, as a mask (only they were scored) */
	uint64_t left = 0;
	for (uint64_t h = hit; h; h &= h - 1) {
		int j = __builtin_ctzll(h);
		left |= (uint64_t)(score[j] <= win) << j;
	}
	if (left && (left & (left - 1)) == 0)	/* one: best is always within */
		return __builtin_ctzll(left);
	left = left ? left : hit;	/* (never empty: best is within; all, were it) */
	for (int j = 0; j < psi; j++)
		w->flags[j] = left >> j & 1;
	int cell = ikmap_recheck_matrix(map, xrow, w->norm[r], k, centre, &w->rc, w->flags);
	if (cell >= 0)
		return cell;
	return ikmap_nearest_exact(map,
		ikmap_rows_in_nodes(in, row, map->dim, w->scratch, &w->scratch_row), k, w->flags);
}

/*
 * The cell of block row r (products at acc, the partitioning's groups
 * 16 apart) in partitioning k: per group the scores t_j and bounds E_j in
 * vectors, the lowest t_j + E_j, the window (top of this file) and, when
 * it holds one centre, the cell.
 */
__attribute__((target(VNNI_TARGET), always_inline))
static inline uint64_t partition_hits(const struct ikmap_vnni *c, int k, const int32_t *acc, int r,
	const struct workspace *w)
{
	__m512 lo[VNNI_MAX_PSI / 16], top = _mm512_set1_ps(INFINITY);
	__m512 sx = _mm512_set1_ps(w->scale[r]), ex2 = _mm512_set1_ps(w->ex2[r]);
	__m512 qx2 = _mm512_set1_ps(w->qx2[r]);
	for (int g = 0; g < c->groups; g++) {
		size_t at = ((size_t)k * c->groups + (size_t)g) * 16;
		__m512i d = _mm512_sub_epi32(_mm512_load_si512((const void *)(acc + g * 16)),
			_mm512_loadu_si512((const void *)(c->bias + at)));
		__m512 s = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(d),
			_mm512_mul_ps(sx, _mm512_loadu_ps(c->scale2 + at)), _mm512_loadu_ps(c->norm + at));
		/*
		 * E_j rounded up, s + E_j up and s - E_j down: the window keeps
		 * every j whose exact s_j - E_j is at most the exact
		 * min (s_i + E_i) + window.
		 */
		__m512 e = _mm512_fmadd_round_ps(ex2, _mm512_loadu_ps(c->cnorm + at),
			_mm512_mul_round_ps(qx2, _mm512_loadu_ps(c->cresid + at), UP), UP);
		top = _mm512_min_ps(top, _mm512_add_round_ps(s, e, UP));
		lo[g] = _mm512_sub_round_ps(s, e, DOWN);
	}
	/*
	 * min + window rounded up, in float (both terms are already at least
	 * their exact values): a conversion to double and back here cost
	 * about as much as the rest of this function.
	 */
	__m128 thr = _mm_add_round_ss(_mm_set_ss(_mm512_reduce_min_ps(top)), _mm_set_ss(w->window[r]), UP);
	__m512 edge = _mm512_broadcastss_ps(thr);
	uint64_t hit = 0;
	for (int g = 0; g < c->groups; g++)
		hit |= (uint64_t)_mm512_cmp_ps_mask(lo[g], edge, _CMP_LE_OQ) << (16 * g);
	return hit;
}

/*
 * Asks for the float rows of an undecided partitioning's candidates
 * (hit) to be brought into cache (a hint only). Why: the t psi rows do
 * not fit in L2, and undecided()'s dot products began with those misses;
 * tile_cells finds a block's hits first and fetches these while it
 * decides the other rows.
 */
static void prefetch_candidates(const struct ikmap *map, int k, uint64_t hit)
{
#if defined(__GNUC__)
	size_t ld = (size_t)map->dense_ld;
	const float *centre = map->dense + (size_t)k * (size_t)map->psi * ld;
	for (; hit; hit &= hit - 1) {
		const float *row = centre + (size_t)__builtin_ctzll(hit) * ld;
		for (size_t i = 0; i < ld; i += 16)	/* one 64-byte line per 16 floats */
			__builtin_prefetch(row + i, 0, 3);
	}
#else
	(void)map;
	(void)k;
	(void)hit;
#endif
}

/*
 * The cells of a tile's n packed rows (first, ...) in every partitioning.
 * Per block of rows: the integer products two groups at a time (two
 * partitionings when psi <= 16, else the groups of one, an odd last
 * group twice), then each row's cell in each partitioning done.
 */
__attribute__((target(VNNI_TARGET)))
static void tile_cells(const struct ikmap *map, const struct ikmap_vnni *c,
	const struct ikmap_rows_in *in, size_t first, int n, void *cells, struct workspace *w)
{
	int t = map->t, quads = c->quads, groups = c->groups, stride = c->stride;
	int step = groups == 1 ? 2 : 1;
	size_t cq = (size_t)quads * 64;
	for (int k = 0; k < t; k += step) {
		int parts = k + step <= t ? step : t - k;
		/* the first and one past the last group of this step (flat indices) */
		int f0 = k * groups, f1 = (k + parts) * groups;
		for (int r0 = 0; r0 < n; r0 += VNNI_BLOCK) {
			const uint8_t *xq = w->xq + (size_t)r0 * quads * 4;
			for (int f = f0; f < f1; f += 2) {
				int g1 = f + 1 < f1 ? f + 1 : f;
				block_products(xq, quads, c->q + (size_t)f * cq, c->q + (size_t)g1 * cq,
					w->acc + (f - f0) * 16, stride);
			}
			int r1 = n - r0 < VNNI_BLOCK ? n : r0 + VNNI_BLOCK;
			/*
			 * Every row's window first: the decided get their cell,
			 * the undecided their candidates' rows fetched, and only
			 * then their float scores (undecided), so the fetches of
			 * one overlap the work on the others.
			 */
			uint64_t open[2][VNNI_BLOCK];
			for (int p = 0; p < parts; p++)
				for (int r = r0; r < r1; r++) {
					uint64_t hit = 0;
					if (w->norm[r] >= 0) {
						hit = partition_hits(c, k + p, w->acc + (size_t)(r - r0) * stride
							+ (size_t)p * groups * 16, r, w);
						size_t row = first + (size_t)r;
						if ((hit & (hit - 1)) == 0) {
							ikmap_put_cell(map, cells, row * t + (size_t)(k + p),
								(uint32_t)__builtin_ctzll(hit));
							hit = 0;
						} else {
							prefetch_candidates(map, k + p, hit);
						}
					}
					open[p][r - r0] = hit;
				}
			for (int p = 0; p < parts; p++)
				for (int r = r0; r < r1; r++) {
					if (!open[p][r - r0])
						continue;
					size_t row = first + (size_t)r;
					int cell = undecided(map, in, row, k + p, open[p][r - r0], r, w);
					ikmap_put_cell(map, cells, row * t + (size_t)(k + p), (uint32_t)cell);
				}
		}
	}
}

/* Packs and quantises rows first .. first + n - 1 into w. 0, or -2 for a non-finite value. */
static int pack_block(const struct ikmap *map, const struct ikmap_vnni *c,
	const struct ikmap_rows_in *in, size_t first, int n, struct workspace *w)
{
	const double u = 0x1p-24;
	int quads = c->quads;
	int ld = map->dense_ld, dim = map->dim, bad = 0;
	/* rows past n (the last block): zero products, never read */
	memset(w->xq, 128, (size_t)TILE_ROWS * (size_t)quads * 4);
	for (int r = 0; r < n; r++) {
		float *out = w->x + (size_t)r * ld;
		size_t row = first + (size_t)r;
		if (in->rows) {
			w->norm[r] = ikmap_anne_pack_row(map, in->rows[row], out);
		} else {
			int row_bad;
			w->norm[r] = ikmap_anne_pack_dense(map, in->dense->x + row * in->dense->ld,
				in->dense->cols, out, &row_bad, NULL);
			bad |= row_bad;
		}
		if (w->norm[r] < 0)
			continue;
		int64_t qq;
		double ex = quantise(out, dim, (int8_t *)(w->xq + (size_t)r * quads * 4), 1,
			&w->scale[r], &qq);
		/*
		 * The bounds of the top of this file, split: per centre j,
		 * E_j = 1.01 * 2 Q_j = ex2 ||c'_j|| + qx2 ||e_c,j|| (tile_cells),
		 * and per row, for every partitioning at once, E_f and the
		 * rounding part of E_q at the largest B and ||e_c|| of all
		 * centres (both bounds grow with them).
		 */
		double a = w->norm[r], b = c->norm_max, sq = (double)w->scale[r] * sqrt((double)qq);
		double ef = ikmap_bound_at(&c->float_bound, a, b);
		double q = ex * b * 1.01 + sq * c->resid_max;
		w->window[r] = float_at_least(2 * (ef + 1.01 * 8 * u * ((a + b) * (a + b) + q)));
		w->float_window[r] = 2 * ef;
		w->ex2[r] = float_at_least(2.02 * ex);
		w->qx2[r] = float_at_least(2.02 * sq);
	}
	return bad ? -2 : 0;
}

int ikmap_anne_vnni_takes(const struct ikmap *map)
{
	const char *env = getenv("IKMAP_VNNI");
	if (env && strcmp(env, "0") == 0)
		return 0;
	/*
	 * int32 lanes hold d 255 * 127 at most, below 2^31 for d < 65536; and
	 * wide rows stay on the float path, whose tiles shrink with d (here a
	 * tile is TILE_ROWS packed rows, and each centre takes 16 lanes' room).
	 */
	size_t groups = ((size_t)map->psi + 15) / 16;
	if (map->psi > VNNI_MAX_PSI || map->dim > VNNI_MAX_DIM
			|| (size_t)map->t * groups * (size_t)map->dim * 16 > VNNI_MAX_CENTRE_BYTES)
		return 0;
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
		&& __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
}

/* The plain dense path's maps only: a pruned map has no centre matrix. */
static int usable(const struct ikmap *map)
{
	return !map->prune && map->dense && ikmap_anne_vnni_takes(map);
}

int ikmap_anne_vnni_ready(const struct ikmap *map)
{
	return usable(map);
}

void ikmap_anne_vnni_free(struct ikmap_vnni *v)
{
	if (v)
		centres_free(v);
	free(v);
}

/*
 * The map's quantised centres, made on first use (ikmap_impl.h): NULL
 * when out of memory. Threads that race both make them; the first stored
 * wins and the others free theirs (all are the same bytes).
 */
static const struct ikmap_vnni *centres_of(const struct ikmap *map, int threads)
{
	struct ikmap_vnni *c = atomic_load(&map->vnni);
	if (c)
		return c;
	c = malloc(sizeof *c);
	if (!c || centres_make(map, c, threads)) {
		free(c);
		return NULL;
	}
	/* sound through the const pointer: maps come from ikmap_alloc, never const objects */
	struct ikmap *cache = (struct ikmap *)map;
	struct ikmap_vnni *none = NULL;
	if (!atomic_compare_exchange_strong(&cache->vnni, &none, c)) {
		ikmap_anne_vnni_free(c);
		return none;
	}
	return c;
}

int ikmap_anne_vnni_map(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	void *cells, int threads)
{
	if (!usable(map))
		return 1;
	const struct ikmap_vnni *cp = centres_of(map, threads);
	if (!cp)
		return -1;
	const struct ikmap_vnni c = *cp;
	int t = map->t, quads = c.quads;
	size_t ntiles = (count + TILE_ROWS - 1) / TILE_ROWS;
	int failed = 0;
#pragma omp parallel num_threads(threads) reduction(|:failed)
	{
		struct workspace w;
		failed = workspace_init(&w, map, quads, c.stride, in->rows == NULL) ? 1 : 0;
#pragma omp for schedule(dynamic, 1)
		for (size_t tile = 0; tile < ntiles; tile++) {
			if (failed)
				continue;
			size_t first = tile * TILE_ROWS;
			int n = count - first < TILE_ROWS ? (int)(count - first) : TILE_ROWS;
			if (pack_block(map, &c, in, first, n, &w)) {
				failed |= 2;
				continue;
			}
			tile_cells(map, &c, in, first, n, cells, &w);
			/* Non-finite or huge rows: the reference distance throughout. */
			for (int r = 0; r < n; r++) {
				if (w.norm[r] >= 0)
					continue;
				size_t row = first + (size_t)r;
				const struct feature_node *nodes = ikmap_rows_in_nodes(in, row, map->dim,
					w.scratch, &w.scratch_row);
				for (int k = 0; k < t; k++)
					ikmap_put_cell(map, cells, row * t + (size_t)k,
						(uint32_t)ikmap_nearest_exact(map, nodes, k, NULL));
			}
		}
		workspace_free(&w);
	}
	return failed & 1 ? -1 : failed ? -2 : 0;
}

#else

void ikmap_anne_vnni_free(struct ikmap_vnni *v)
{
	(void)v;
}

int ikmap_anne_vnni_takes(const struct ikmap *map)
{
	(void)map;
	return 0;
}

int ikmap_anne_vnni_ready(const struct ikmap *map)
{
	(void)map;
	return 0;
}

int ikmap_anne_vnni_map(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	void *cells, int threads)
{
	(void)map;
	(void)in;
	(void)count;
	(void)cells;
	(void)threads;
	return 1;
}

#endif
