/*
 * anne_dense.c - aNNE cells by float GEMM: a tile of rows
 * [x', 1, ||x'||^2] (x' = scaled x - mean, in float) times the centre
 * matrix [-2 c', ||c'||^2, 1] gives every score
 * s_j = ||x'||^2 - 2 x'.c'_j + ||c'_j||^2 ~ ||x - c_j||^2 at once; a
 * segmented argmin per partitioning follows while the scores are still in
 * cache. anne_exact.c bounds the float error; a partitioning whose best
 * score is not clear of its runners-up by twice that bound is settled
 * with the reference distance, so cells are exact.
 *
 * Float, not double: on the development machine one DGEMM of the same
 * shape takes 1.75 times one SGEMM, while the recheck touches only about
 * 0.1-0.6 % of the partitionings of random data (d = 54..256) and 0.2 %
 * on ijcnn1 and covtype. Binary data (a9a: about half) have true ties,
 * which any exact method has to settle.
 *
 * Tiles: TILE_ROWS rows (fewer when rows are wide: TILE_X_BYTES of packed
 * rows per thread at most) against about TILE_COLS columns (whole
 * partitionings) per GEMM, so the scores (TILE_ROWS x TILE_COLS floats)
 * stay in L2. Each OpenMP thread takes whole row tiles and runs its own
 * single-threaded GEMM, from whichever BLAS the build chose (gemm.h:
 * OpenBLAS, another CBLAS or the built-in kernel). The cells do not
 * depend on that choice: the bound holds for any correct float GEMM and
 * every undecided cell is settled in double, so models and .ik files are
 * byte-identical (tests/blas_identity.sh).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gemm.h"
#include "ikmap_impl.h"

#define TILE_ROWS 256
#define TILE_COLS 512
/* Fewer rows per tile when psi is huge, but never fewer than this. */
#define MIN_TILE_ROWS 16
/* At most this many bytes of packed rows per thread (a tile of 256 rows up to d = 16382). */
#define TILE_X_BYTES ((size_t)16 << 20)
/* Rows with a larger centred norm (or a NaN) skip the float path. */
#define ROW_NORM_LIMIT 0x1p60
/* Independent partial sums when a dense row is packed (ikmap_anne_pack_dense). */
#define PACK_LANES 4

struct tiling {
	int rows;		/* rows per tile */
	int parts;		/* partitionings per GEMM */
};

struct workspace {
	float *x;		/* [rows][dense_ld] */
	float *score;		/* [rows][parts * psi] */
	double *norm;		/* [rows]: centred norm, or -1 for rows mapped exactly */
	unsigned char *flags;	/* [psi] */
	/*
	 * Dense input only: the sparse form of one row (dim + 1 nodes), made
	 * when the exact recheck (anne_exact.c, which reads feature_node rows)
	 * needs it; scratch_row says whose it is (SIZE_MAX: nobody's).
	 * Rechecks are rare, so rebuilding it on a change of row costs little.
	 */
	struct feature_node *scratch;
	size_t scratch_row;
	struct ikmap_recheck rc;	/* the double recheck's candidates */
};


static struct tiling choose_tiling(const struct ikmap *map)
{
	struct tiling tl;
	tl.parts = TILE_COLS / map->psi;
	if (tl.parts < 1)
		tl.parts = 1;
	if (tl.parts > map->t)
		tl.parts = map->t;
	size_t cols = (size_t)tl.parts * (size_t)map->psi;
	size_t rows = (size_t)TILE_ROWS * TILE_COLS / cols;
	tl.rows = rows > TILE_ROWS ? TILE_ROWS : rows < MIN_TILE_ROWS ? MIN_TILE_ROWS : (int)rows;
	/* Wide rows: fewer per tile, so a thread's packed rows stay small (for
	 * d <= 16382 this changes nothing; cells never depend on the tiling). */
	size_t most = TILE_X_BYTES / ((size_t)map->dense_ld * sizeof(float));
	if ((size_t)tl.rows > most)
		tl.rows = most > 0 ? (int)most : 1;
	return tl;
}

/*
 * The scan. Scores approximate squared distances, so they are >= 0 up to
 * rounding, and the bit patterns of non-negative floats order like the
 * floats: an integer minimum vectorises without fast-math. A negative
 * score's pattern is a negative integer, so the minimum found may then be
 * a score above the true minimum (never below: it is one of the scores),
 * which only widens the window; see segment_cell. Independent lanes keep
 * the loops free of long dependency chains.
 */
#define LANES 16

static float segment_min(const float *s, int n)
{
	int32_t m[LANES];
	for (int l = 0; l < LANES; l++)
		m[l] = INT32_MAX;
	int i = 0;
	for (; i + LANES <= n; i += LANES)
		for (int l = 0; l < LANES; l++) {
			int32_t k;
			memcpy(&k, &s[i + l], sizeof k);
			m[l] = k < m[l] ? k : m[l];
		}
	for (; i < n; i++) {
		int32_t k;
		memcpy(&k, &s[i], sizeof k);
		m[0] = k < m[0] ? k : m[0];
	}
	int32_t r = m[0];
	for (int l = 1; l < LANES; l++)
		r = m[l] < r ? m[l] : r;
	float f;
	memcpy(&f, &r, sizeof f);
	return f;
}

/*
 * How many scores are <= thr; lane[l] counts positions i with i % LANES
 * = l, so when the total is 1 the lane says where to look.
 */
static int count_within(const float *s, int n, float thr, int lane[LANES])
{
	for (int l = 0; l < LANES; l++)
		lane[l] = 0;
	int i = 0;
	for (; i + LANES <= n; i += LANES)
		for (int l = 0; l < LANES; l++)
			lane[l] += s[i + l] <= thr;
	for (; i < n; i++)
		lane[i % LANES] += s[i] <= thr;
	int total = 0;
	for (int l = 0; l < LANES; l++)
		total += lane[l];
	return total;
}

/* The only position whose score is <= thr, given count_within's lanes. */
static int only_within(const float *s, int n, float thr, const int lane[LANES])
{
	int l = 0;
	while (lane[l] == 0)
		l++;
	for (int i = l; i < n; i += LANES)
		if (s[i] <= thr)
			return i;
	return l;
}

/* The smallest float >= v (v finite; an overflow to infinity stays). */
static float float_at_least(double v)
{
	float f = (float)v;
	if ((double)f < v) {
		/* One step up, without a libm call: finite f, so the pattern moves by one. */
		uint32_t b;
		memcpy(&b, &f, sizeof b);
		if (f == 0)
			b = 1;
		else if (f > 0)
			b++;
		else
			b--;
		memcpy(&f, &b, sizeof f);
	}
	return f;
}

/*
 * Cell of x in partitioning k from its psi float scores s, given
 * tol = 2 E (anne_exact.c). The nearest centre scores <= true min + tol
 * <= m + tol for the m found; if that window holds one score, it is the
 * nearest centre. The window edge m + tol is rounded in double without
 * harm: |m| <= (A + B)^2 + E, so that rounding is below 2^-52 (A + B)^2,
 * far inside the bound's 2^-20 margin (E >= 2^-21 (A + B)^2).
 */
/*
 * The window of a partitioning's n scores: sets *thr to its edge
 * (float_at_least(segment_min + tol)) and returns how many scores are
 * within it, with *at the position of one of them (the only one when the
 * count is 1).
 */
typedef int (*window_fn)(const float *, int, double, float *, int *);

static int window_generic(const float *s, int n, double tol, float *thr, int *at)
{
	int lane[LANES];
	*thr = float_at_least((double)segment_min(s, n) + tol);
	int count = count_within(s, n, *thr, lane);
	*at = count == 1 ? only_within(s, n, *thr, lane) : 0;
	return count;
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define DENSE_X86 1
#include <immintrin.h>

/* The lanes of the vector of n values from i on (all 16 when full). */
__attribute__((target("avx512f"))) static inline __mmask16 lanes_from(int i, int n)
{
	return n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
}

/*
 * The same in AVX-512: the minimum over the scores' bit patterns as
 * signed integers (segment_min's order, negative scores included), then
 * one masked compare per 16 scores. On the plain path at psi 16 (784-d,
 * t = 100) the SSE2 scan was over a quarter of the map's time.
 */
__attribute__((target("avx512f"))) static int window_avx512(const float *s, int n, double tol,
	float *thr, int *at)
{
	__m512i top = _mm512_set1_epi32(INT32_MAX), m = top;
	for (int i = 0; i < n; i += 16)
		m = _mm512_min_epi32(m, _mm512_mask_loadu_epi32(top, lanes_from(i, n), s + i));
	int32_t low = _mm512_reduce_min_epi32(m);
	float f;
	memcpy(&f, &low, sizeof f);
	*thr = float_at_least((double)f + tol);
	__m512 edge = _mm512_set1_ps(*thr);
	int count = 0;
	*at = 0;
	for (int i = 0; i < n; i += 16) {
		__mmask16 in = lanes_from(i, n);
		__mmask16 hit = _mm512_mask_cmp_ps_mask(in, _mm512_maskz_loadu_ps(in, s + i), edge,
			_CMP_LE_OQ);
		if (hit) {
			count += __builtin_popcount(hit);
			*at = i + __builtin_ctz(hit);
		}
	}
	return count;
}
#endif

static window_fn pick_window(void)
{
#ifdef DENSE_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && !ikmap_generic_scans)
		return window_avx512;
#endif
	return window_generic;
}

/* Input row `row` as feature_node nodes (a dense row's are made in w->scratch). */
static const struct feature_node *row_nodes(const struct ikmap *map,
	const struct ikmap_rows_in *in, size_t row, struct workspace *w)
{
	return ikmap_rows_in_nodes(in, row, map->dim, w->scratch, &w->scratch_row);
}

/* x: the packed row, a its norm; the float window, then the double recheck, then the reference. */
static int segment_cell(const struct ikmap *map, window_fn window,
	const struct ikmap_rows_in *in, size_t row, int k, const float *s, double tol,
	const float *x, double a, struct workspace *w)
{
	int psi = map->psi, at;
	float thr;
	if (window(s, psi, tol, &thr, &at) == 1)
		return at;
	for (int i = 0; i < psi; i++)
		w->flags[i] = s[i] <= thr;
	int cell = ikmap_recheck_matrix(map, x, a, k,
		map->dense + (size_t)k * (size_t)psi * (size_t)map->dense_ld, &w->rc, w->flags);
	return cell >= 0 ? cell : ikmap_nearest_exact(map, row_nodes(map, in, row, w), k, w->flags);
}

/* See ikmap_impl.h. */
double ikmap_anne_pack_row(const struct ikmap *map, const struct feature_node *f, float *out)
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
	double norm = sqrt(sq);
	return norm < ROW_NORM_LIMIT ? norm : -1;
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define PACK_X86 1
#include <immintrin.h>

/*
 * Columns 1 .. last of a dense row under a factor (scales 0-3 with
 * factors: y = x factor[j], one rounded product, then - mean[j], as
 * ikmap_apply and the scalar loop below), eight at a time in AVX-512:
 * the same floats, zeros as -mean[j] (the sign flipped, not 0 - mean),
 * ||x'||^2 in sixteen partial sums (any order is sound: see the scalar
 * loop) and the non-finite probe as a mask. Why: the scalar loop, four
 * chains of dependent double additions, was a tenth of the 8-bit map's
 * time at psi 16 (784-d; perf, before bench/results/
 * ik-vs-ikpykit-python-quiet5.md).
 * Returns the sum of squares; *bad is set when a value is not finite.
 */
__attribute__((target("avx512f,avx512vl")))
static double pack_dense_avx512(const double *x, const double *factor, const double *mean,
	int last, float *out, int *bad)
{
	const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ULL);
	const __m512d huge = _mm512_set1_pd(0x1.fffffffffffffp1023);
	__m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
	__mmask8 nonfinite = 0;
	for (int i = 0; i < last; i += 16) {
		for (int half = 0; half < 2 && i + 8 * half < last; half++) {
			int at = i + 8 * half, left = last - at;
			__mmask8 m = left >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << left) - 1);
			__m512d xv = _mm512_maskz_loadu_pd(m, x + at);
			__m512d mv = _mm512_maskz_loadu_pd(m, mean + at);
			__m512d v = _mm512_sub_pd(_mm512_mul_pd(xv, _mm512_maskz_loadu_pd(m, factor + at)), mv);
			__m512d absent = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(mv), sign));
			v = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(xv, _mm512_setzero_pd(), _CMP_NEQ_UQ),
				absent, v);
			v = _mm512_maskz_mov_pd(m, v);
			if (half)
				s1 = _mm512_add_pd(s1, _mm512_mul_pd(v, v));
			else
				s0 = _mm512_add_pd(s0, _mm512_mul_pd(v, v));
			nonfinite |= _mm512_mask_cmp_pd_mask(m, _mm512_abs_pd(xv), huge, _CMP_NLE_UQ);
			_mm256_mask_storeu_ps(out + at, m, _mm512_cvtpd_ps(v));
		}
	}
	*bad = nonfinite != 0;
	return _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
}

/* Whether this CPU runs pack_dense_avx512 (asked once; a data race on the cache is benign). */
static int pack_avx512_usable(void)
{
	static int known = -1;
	if (known < 0) {
		__builtin_cpu_init();
		known = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
	}
	return known;
}
#endif

/* See ikmap_impl.h (the pruned path, anne_prune.c, packs its dense rows here too). */
double ikmap_anne_pack_dense(const struct ikmap *map, const double *x, int cols, float *out,
	int *bad, double *sq_out)
{
	const double *mean = map->mean;
	int dim = map->dim, last = cols < dim ? cols : dim;
	/*
	 * PACK_LANES independent partial sums of ||x' - mean||^2 and of the
	 * NaN probe: one chain of dependent additions cost about a third of
	 * the plain map's time outside its GEMM at psi 16 (784-d). The order
	 * of the sum does not matter to the cells: anne_exact.c's bounds
	 * hold for a squared norm summed in any order.
	 */
	double sqs[PACK_LANES] = {0}, probes[PACK_LANES] = {0};
	int j = 1;
#ifdef PACK_X86
	if (map->factor && map->scaled != 4 && pack_avx512_usable()) {
		int row_bad;
		sqs[0] = pack_dense_avx512(x, map->factor + 1, mean + 1, last, out, &row_bad);
		probes[0] = row_bad ? NAN : 0;
		j = last + 1;
	}
#endif
	for (; j + PACK_LANES - 1 <= last; j += PACK_LANES)
		for (int l = 0; l < PACK_LANES; l++) {
			double xv = x[j + l - 1];
			/* a zero is an absent feature: -mean, as the sparse form gives */
			double v = xv != 0 ? ikmap_apply(map, j + l, xv) - mean[j + l] : -mean[j + l];
			sqs[l] += v * v;
			out[j + l - 1] = (float)v;
			probes[l] += xv * 0.0;	/* NaN once any value is infinite or NaN */
		}
	for (; j <= last; j++) {
		double xv = x[j - 1];
		double v = xv != 0 ? ikmap_apply(map, j, xv) - mean[j] : -mean[j];
		sqs[0] += v * v;
		out[j - 1] = (float)v;
		probes[0] += xv * 0.0;
	}
	for (j = last + 1; j <= dim; j++) {
		double v = -mean[j];
		sqs[0] += v * v;
		out[j - 1] = (float)v;
	}
	for (j = last; j < cols; j++)
		probes[0] += x[j] * 0.0;
	double sq = 0, probe = 0;
	for (int l = 0; l < PACK_LANES; l++) {
		sq += sqs[l];
		probe += probes[l];
	}
	*bad = probe != 0;	/* NaN compares unequal to 0 */
	out[dim] = 1;
	out[dim + 1] = (float)sq;
	if (sq_out)
		*sq_out = sq;
	double norm = sqrt(sq);
	return norm < ROW_NORM_LIMIT ? norm : -1;
}

/* 0, -1 when the GEMM ran out of memory, or -2 when a dense row holds a non-finite value. */
static int map_tile(const struct ikmap *map, window_fn window,
	const struct ikmap_rows_in *in, size_t first, int nrows, void *cells, const struct tiling *tl,
	struct workspace *w)
{
	struct ikmap_bound bound = ikmap_float_bound(map->dim);
	int ld = map->dense_ld, psi = map->psi, t = map->t;
	int bad = 0;
	for (int r = 0; r < nrows; r++) {
		float *out = w->x + (size_t)r * ld;
		if (in->rows) {
			w->norm[r] = ikmap_anne_pack_row(map, in->rows[first + r], out);
		} else {
			const struct ikmap_dense_in *d = in->dense;
			int row_bad;
			w->norm[r] = ikmap_anne_pack_dense(map, d->x + (first + (size_t)r) * d->ld,
				d->cols, out, &row_bad, NULL);
			bad |= row_bad;
		}
	}
	if (bad)
		return -2;
	for (int k0 = 0; k0 < t; k0 += tl->parts) {
		int parts = t - k0 < tl->parts ? t - k0 : tl->parts;
		int cols = parts * psi;
		if (ikmap_gemm_nt(nrows, cols, ld, w->x, ld, map->dense + (size_t)k0 * psi * ld, ld,
				w->score, cols) != 0)
			return -1;
		for (int r = 0; r < nrows; r++) {
			if (w->norm[r] < 0)
				continue;
			size_t row = first + (size_t)r;
			for (int p = 0; p < parts; p++) {
				const float *s = w->score + (size_t)r * cols + (size_t)p * psi;
				double tol = 2 * ikmap_bound_at(&bound, w->norm[r],
					map->part_maxnorm_centred[k0 + p]);
				int cell = segment_cell(map, window, in, row, k0 + p, s, tol,
					w->x + (size_t)r * ld, w->norm[r], w);
				ikmap_put_cell(map, cells, row * t + (size_t)(k0 + p), (uint32_t)cell);
			}
		}
	}
	/* Non-finite or huge rows: the reference distance throughout. */
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

static int workspace_init(struct workspace *w, const struct ikmap *map, const struct tiling *tl,
	int dense)
{
	w->x = malloc((size_t)tl->rows * (size_t)map->dense_ld * sizeof(float));
	w->score = malloc((size_t)tl->rows * (size_t)tl->parts * (size_t)map->psi * sizeof(float));
	w->norm = malloc((size_t)tl->rows * sizeof(double));
	w->flags = malloc((size_t)map->psi);
	w->scratch = dense ? malloc(((size_t)map->dim + 1) * sizeof *w->scratch) : NULL;
	w->scratch_row = SIZE_MAX;
	int rc_failed = ikmap_recheck_init(&w->rc, map->psi);
	return w->x && w->score && w->norm && w->flags && (!dense || w->scratch) && !rc_failed
		? 0 : -1;
}

static void workspace_free(struct workspace *w)
{
	free(w->x);
	free(w->score);
	free(w->norm);
	free(w->flags);
	free(w->scratch);
	ikmap_recheck_free(&w->rc);
}

/* 0, -1 (out of memory) or -2 (a non-finite dense value). */
static int dense_map(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	void *cells, int threads)
{
	struct tiling tl = choose_tiling(map);
	size_t ntiles = (count + (size_t)tl.rows - 1) / (size_t)tl.rows;
	window_fn window = pick_window();
	struct ikmap_gemm_state blas = ikmap_gemm_serial_begin();
	int failed = 0;
#pragma omp parallel num_threads(threads) reduction(|:failed)
	{
		struct workspace w;
		failed = workspace_init(&w, map, &tl, in->rows == NULL) ? 1 : 0;
#pragma omp for schedule(dynamic, 1)
		for (size_t tile = 0; tile < ntiles; tile++) {
			if (failed)
				continue;
			size_t first = tile * (size_t)tl.rows;
			int nrows = count - first < (size_t)tl.rows ? (int)(count - first) : tl.rows;
			int status = map_tile(map, window, in, first, nrows, cells, &tl, &w);
			if (status)
				failed = status == -2 ? 2 : 1;
		}
		workspace_free(&w);
	}
	ikmap_gemm_serial_end(blas);
	/* bit 1: out of memory somewhere, which wins over a bad value */
	return failed & 1 ? -1 : failed ? -2 : 0;
}

int ikmap_anne_dense_map(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads)
{
	if (map->prune)
		return ikmap_anne_prune_map(map, rows, count, cells, threads);
	struct ikmap_rows_in in = { rows, NULL };
	int status = ikmap_anne_vnni_map(map, &in, count, cells, threads);
	return status != 1 ? status : dense_map(map, &in, count, cells, threads);
}

int ikmap_anne_dense_map_matrix(const struct ikmap *map, const struct ikmap_dense_in *x,
	size_t count, void *cells, int threads)
{
	if (map->prune)
		return ikmap_anne_prune_map_matrix(map, x, count, cells, threads);
	struct ikmap_rows_in in = { NULL, x };
	int status = ikmap_anne_vnni_map(map, &in, count, cells, threads);
	return status != 1 ? status : dense_map(map, &in, count, cells, threads);
}
