/*
 * signproj.c - the acos map: k sign random projections (rules, the
 * Gaussian transform and the reference dot product in ikmap.h).
 *
 * Contract: ikmap_acos_prepare derives the streams and, when t * dim <=
 * IKMAP_ACOS_TABLE, the tables; ikmap_acos_map writes the reference's
 * cells for rows that passed ikmap_kernel_check, by one of two paths:
 *
 * Reference (always possible): per row, t running sums, one per
 * projection, each the reference's sum in its order: for every nonzero
 * x_i of the transformed row, ascending, sum_j += x_i * g(j, i). With the
 * table, g(., i) is one contiguous line of acos_gt, so the t updates are
 * a vector loop; without it the Gaussians of a batch of rows' distinct
 * features are recomputed into a cache first (cached_tile). Either way each
 * lane performs the reference's double operations in its order, and
 * -ffp-contract=off (Makefile) keeps the compiler from fusing them, so
 * the sums are the reference's bit for bit.
 *
 * Fast (the table needed): a tile of rows rounded to float, a float GEMM
 * against acos_gf (ikmap/gemm.h: any float sum of the d products, in any
 * order, FMA or not), giving s_j. The cell is decided from s_j when |s_j|
 * exceeds a bound E_j on |s_j - R_j| (R_j the reference sum): then s_j
 * and R_j have the same sign and R_j is not 0. Otherwise R_j is
 * recomputed (the reference order, over the row's nonzeros).
 *
 * The bound. u = 2^-24, v = 2^-53, gamma_n(w) = n w / (1 - n w) (Higham,
 * ch. 3). Rounding x_i and g_i to float moves each by at most u times
 * itself plus, for x_i below float's normal range (or flushed there by a
 * BLAS running with FTZ/DAZ), 2^-126 (never g_i: |g| > 2^-104, see
 * below); the GEMM then errs by gamma_d(u) times the sum of |products|
 * plus 2^-126 per product and per addition that underflows;
 * the reference by gamma_d(v) times that sum. With sum |x_i g_i| <=
 * ||x|| ||g_j|| (Cauchy-Schwarz) and the lemma (1 + theta_d)(1 + u)^2 =
 * 1 + theta_{d+2}:
 *   |s_j - R_j| <= (gamma_{d+2}(u) + gamma_d(v)) ||x|| ||g_j||
 *                  + 2^-125 d (||g_j|| + 1)                 (tiny terms)
 * The norms come from computed sums of squares (relative error below
 * gamma_{d+2}(v) each, after the square root), so their product is
 * inflated by 1 + 2 gamma_{d+4}(v), and the whole bound by 2^-20 for its
 * own rounding; the tiny term is taken as 2^-120 (d + 1)(||g_j|| + 1).
 * Rows with ||x|| > 2^60 (or a product of norms near float's range) go to
 * the reference: float would overflow. |u| and |v| are odd multiples of
 * 2^-52, so 2^-104 <= s <= 1 - 2^-104 and |g|^2 = u^2 (-2 ln s) / s <=
 * -2 ln s < 145: |g| < 13, and |g| > 2^-104 (u >= 2^-52, -2 ln s / s >
 * 2^-103), so products stay below 2^64 and sums below 2^95 there.
 *
 * Choosing (IKMAP_PATH_AUTO): per tile of rows, the GEMM when the tile's
 * transformed nonzeros are at least 1/32 of its rows x d, else the
 * reference. A float GEMM with FMA does about 16 to 32 times the
 * multiply-adds per second of the double loop (separate multiply and add,
 * 4 lanes with AVX2); on a9a (11% dense, d = 123) the GEMM path was 2.7x
 * faster than the reference. Both give the same cells, so the choice is
 * speed only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "counter_rng.h"
#include "detmath.h"
#include "gemm.h"
#include "ikmap_impl.h"

/* The Makefile compiles this file with -ffp-contract=off; builds that compile it themselves
 * (fuzzing, sanitizers) get the same from this pragma under clang (gcc has no such pragma). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/*
 * Rows per tile: enough that the GEMM's packing of the t x d operand
 * (once per call) is paid over many rows, few enough that a tile's float
 * rows and scores (rows x d and rows x t floats) stay near 4 MiB.
 */
static int tile_rows(const struct ikmap *map)
{
	if (!map->acos_gf)
		return 256;	/* no float rows or scores: only the rows' own values (and the cache) */
	int64_t wide = map->t > map->dim ? map->t : map->dim;
	int64_t rows = ((int64_t)1 << 20) / wide;
	return rows < 1 ? 1 : rows > 256 ? 256 : (int)rows;
}

double ikmap_acos_gaussian(uint64_t stream, int feature)
{
	for (uint64_t a = 0;; a++) {
		/* 8 attempts per key (16 draws); further keys lie above every feature (< 2^31) */
		uint64_t key = (uint64_t)feature + (a / 8) * ((uint64_t)1 << 32);
		unsigned draw = 2 * (unsigned)(a % 8);
		double u = 2 * crng_unit_open(crng_at(stream, key, draw)) - 1;
		double v = 2 * crng_unit_open(crng_at(stream, key, draw + 1)) - 1;
		double s = u * u + v * v;	/* > 0: u is an odd multiple of 2^-52 */
		if (s < 1)
			return u * sqrt(-2 * det_log(s) / s);
	}
}

int ikmap_acos_prepare(struct ikmap *map, char *err)
{
	int t = map->t, d = map->dim;
	map->acos_stream = malloc((size_t)t * sizeof(uint64_t));
	if (!map->acos_stream) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	for (int j = 0; j < t; j++)
		map->acos_stream[j] = crng_stream(map->seed, (uint64_t)j);
	map->acos_path = IKMAP_PATH_AUTO;
	if ((int64_t)t * d > IKMAP_ACOS_TABLE)
		return 0;	/* no table: the reference recomputes */
	size_t m = (size_t)t * (size_t)d;
	map->acos_gt = malloc(m * sizeof(double));
	map->acos_gf = malloc(m * sizeof(float));
	map->acos_gnorm = malloc((size_t)t * sizeof(double));
	if (!map->acos_gt || !map->acos_gf || !map->acos_gnorm) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	double *gt = map->acos_gt;
	float *gf = map->acos_gf;
	double *gn = map->acos_gnorm;
	const uint64_t *st = map->acos_stream;
	/*
	 * Blocks of 64 projections by 64 features, so the feature-major
	 * writes of acos_gt fill whole cache lines before they leave; each
	 * Gaussian depends on its (j, i) alone, so any thread count and
	 * order give the same tables, and each norm still sums its squares
	 * in ascending i.
	 */
#pragma omp parallel for schedule(dynamic, 1)
	for (int jb = 0; jb < t; jb += 64) {
		int je = t - jb < 64 ? t : jb + 64;
		double sq[64] = { 0 };
		for (int ib = 1; ib <= d; ib += 64) {
			int ie = d - ib < 64 ? d : ib + 63;
			for (int j = jb; j < je; j++)
				for (int i = ib; i <= ie; i++) {
					double g = ikmap_acos_gaussian(st[j], i);
					gt[(size_t)(i - 1) * t + j] = g;
					gf[(size_t)j * d + i - 1] = (float)g;
					sq[j - jb] += g * g;
				}
		}
		for (int j = jb; j < je; j++)
			gn[j] = sqrt(sq[j - jb]);
	}
	return 0;
}

/* Per-thread room: one transformed row, t sums, a tile of float rows and scores. */
struct work {
	int *index;
	double *value;
	size_t room;
	double *sum;		/* [t] */
	float *x;		/* [tile][dim] */
	float *score;		/* [tile][t] */
	size_t *start;		/* [tile + 1]: the tile's rows in index/value */
	double *norm;		/* [tile] */
	float *ea, *eb;		/* [t]: the bound, in float: E_j <= ea[j] ||x|| + eb[j] (see the top) */
	int tile;
	/* no table: a batch's distinct features (sorted) and their Gaussians, key-major */
	int *keys;
	size_t keys_room;
	double *cache;
	size_t cache_room;
};

static void work_free(struct work *w)
{
	free(w->index);
	free(w->value);
	free(w->sum);
	free(w->x);
	free(w->score);
	free(w->start);
	free(w->norm);
	free(w->ea);
	free(w->eb);
	free(w->keys);
	free(w->cache);
}

/*
 * The bound's constants (see the top): E_j = rel * ||x|| * ||g_j|| + tiny
 * * (||g_j|| + 1).
 */
struct bound {
	double rel, tiny;
};

/*
 * The least float >= v (v >= 0, below FLT_MAX). The sign pass tests
 * |s_j| <= fl(fl(ea_j nx) + eb_j) in float, with ea_j >= rel ||g_j|| (1 +
 * 2^-20) and nx >= ||x|| rounded up, and eb_j >= 2 tiny (||g_j|| + 1) >=
 * 2^-119: the two float roundings lose at most a factor (1 - 2^-24)^2 and,
 * should ea_j nx underflow, 2^-149, which the 2^-20 and the doubled tiny
 * term cover, so the float test flags every s_j the double bound would.
 */
static float float_up(double v)
{
	float f = (float)v;
	return (double)f < v ? nextafterf(f, INFINITY) : f;
}

static int work_init(struct work *w, const struct ikmap *map, const struct bound *bd)
{
	memset(w, 0, sizeof *w);
	w->tile = tile_rows(map);
	w->sum = malloc((size_t)map->t * sizeof(double));
	w->start = malloc(((size_t)w->tile + 1) * sizeof(size_t));
	w->norm = malloc((size_t)w->tile * sizeof(double));
	if (map->acos_gf) {
		w->x = malloc((size_t)w->tile * (size_t)map->dim * sizeof(float));
		w->score = malloc((size_t)w->tile * (size_t)map->t * sizeof(float));
		w->ea = malloc((size_t)map->t * sizeof(float));
		w->eb = malloc((size_t)map->t * sizeof(float));
		if (w->ea && w->eb)
			for (int j = 0; j < map->t; j++) {
				w->ea[j] = float_up(bd->rel * map->acos_gnorm[j] * (1 + 0x1p-20));
				w->eb[j] = float_up(2 * bd->tiny * (map->acos_gnorm[j] + 1));
			}
	}
	return w->sum && w->start && w->norm
		&& (!map->acos_gf || (w->x && w->score && w->ea && w->eb)) ? 0 : -1;
}

/* Makes room for need more transformed values after the first used ones. */
static int work_reserve(struct work *w, size_t used, size_t need)
{
	if (w->index && used + need <= w->room)
		return 0;
	size_t room = 2 * (used + need) + 16;	/* never 0: no pointer arithmetic on NULL */
	int *index = realloc(w->index, room * sizeof(int));
	if (!index)
		return -1;
	w->index = index;
	double *value = realloc(w->value, room * sizeof(double));
	if (!value)
		return -1;
	w->value = value;
	w->room = room;
	return 0;
}

/*
 * sum[j] += x g[j] for j < t: each lane one IEEE double product and one
 * sum (never fused: -ffp-contract=off), so the baseline and the AVX2 copy
 * (chosen at run time, as the sign pass below) give the same bits.
 */
#define AXPY_BODY \
	for (int j = 0; j < t; j++) \
		sum[j] += x * g[j];

typedef void (*axpy_fn)(double *restrict sum, double x, const double *restrict g, int t);

static void axpy_generic(double *restrict sum, double x, const double *restrict g, int t)
{
	AXPY_BODY
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KERNELS_X86 1
__attribute__((target("avx2"))) static void axpy_avx2(double *restrict sum, double x,
	const double *restrict g, int t)
{
	AXPY_BODY
}
#endif

/* The reference sums of one transformed row (n values) into sum[0..t-1]. */
static void reference_sums(const struct ikmap *map, const int *index, const double *value, int n,
	double *sum, axpy_fn axpy)
{
	int t = map->t;
	for (int j = 0; j < t; j++)
		sum[j] = 0;
	for (int e = 0; e < n; e++) {
		double x = value[e];
		if (map->acos_gt) {
			axpy(sum, x, map->acos_gt + (size_t)(index[e] - 1) * t, t);
		} else {
			for (int j = 0; j < t; j++)
				sum[j] += x * ikmap_acos_gaussian(map->acos_stream[j], index[e]);
		}
	}
}

/* The reference sum of projection j alone (the table exists). */
static double reference_one(const struct ikmap *map, const int *index, const double *value, int n,
	int j)
{
	double sum = 0;
	for (int e = 0; e < n; e++)
		sum += value[e] * map->acos_gt[(size_t)(index[e] - 1) * map->t + j];
	return sum;
}

static void put_cells(const struct ikmap *map, void *cells, size_t row, const double *sum)
{
	size_t at = row * (size_t)map->t;
	for (int j = 0; j < map->t; j++)
		ikmap_put_cell(map, cells, at + (size_t)j, sum[j] >= 0);
}


static double gamma_n(double n, double unit)
{
	return n * unit / (1 - n * unit);
}

static struct bound make_bound(int dim)
{
	double d = dim;
	struct bound b;
	b.rel = (gamma_n(d + 2, 0x1p-24) + gamma_n(d, 0x1p-53)) * (1 + 2 * gamma_n(d + 4, 0x1p-53))
		* (1 + 0x1p-20);
	b.tiny = 0x1p-120 * (d + 1) * (1 + 0x1p-20);
	return b;
}

/* The largest row norm the float path takes (products and sums stay far from FLT_MAX). */
#define FAST_MAX_NORM 0x1p60

/*
 * The sign pass of one row's t scores: out[j] = s_j >= 0, and whether any
 * |s_j| is within the float bound (ea_j nx + eb_j) of 0. Written once and
 * compiled twice, for the baseline and (chosen at run time) for AVX2:
 * IEEE float operations give the same bits at any vector width, and
 * -ffp-contract=off keeps the AVX2 copy from fusing the bound's
 * multiply-add, so both copies flag the same scores.
 */
#define SIGN_PASS_BODY \
	for (int j = 0; j < t; j++) \
		out[j] = s[j] >= 0; \
	int unsure = 0; \
	for (int j = 0; j < t; j++) \
		unsure |= fabsf(s[j]) <= ea[j] * nx + eb[j]; \
	return unsure;

typedef int (*sign_pass_fn)(const float *restrict s, const float *restrict ea,
	const float *restrict eb, float nx, uint16_t *restrict out, int t);

static int sign_pass_generic(const float *restrict s, const float *restrict ea,
	const float *restrict eb, float nx, uint16_t *restrict out, int t)
{
	SIGN_PASS_BODY
}

#ifdef KERNELS_X86
__attribute__((target("avx2"))) static int sign_pass_avx2(const float *restrict s,
	const float *restrict ea, const float *restrict eb, float nx, uint16_t *restrict out, int t)
{
	SIGN_PASS_BODY
}
#endif

/* The vector kernels of this CPU (the generic ones for tests: ikmap_generic_scans). */
struct kernels {
	sign_pass_fn sign_pass;
	axpy_fn axpy;
};

static struct kernels pick_kernels(void)
{
	struct kernels k = { sign_pass_generic, axpy_generic };
#ifdef KERNELS_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && !ikmap_generic_scans) {
		k.sign_pass = sign_pass_avx2;
		k.axpy = axpy_avx2;
	}
#endif
	return k;
}

/*
 * Without a table, rows that share features would recompute the same
 * Gaussians: a batch of rows instead computes those of its distinct
 * features once, at most CACHE_ENTRIES numbers (16 MiB per thread), and
 * each row then takes them in its own ascending order, the reference's
 * sums bit for bit (the cache holds the very numbers recomputing gives).
 */
#define CACHE_ENTRIES ((size_t)1 << 21)

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int grow(void **p, size_t *room, size_t need, size_t size)
{
	if (*p && need <= *room)
		return 0;
	void *q = realloc(*p, (need + 16) * size);
	if (!q)
		return -1;
	*p = q;
	*room = need + 16;
	return 0;
}

/* The position of feature f among the n sorted keys (it is there). */
static size_t key_of(const int *keys, size_t n, int f)
{
	size_t a = 0, b = n - 1;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (keys[m] < f)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* The tile's cells on a map without a table; 0, or -1 when out of memory. */
static int cached_tile(const struct ikmap *map, size_t first, int nrows, void *cells,
	const struct kernels *kern, struct work *w)
{
	size_t t = (size_t)map->t;
	const size_t *start = w->start;
	for (int r = 0; r < nrows;) {
		int q = r + 1;	/* the batch: rows r..q-1, their nonzeros times t within the cache */
		while (q < nrows && (start[q + 1] - start[r]) * t <= CACHE_ENTRIES)
			q++;
		size_t nnz = start[q] - start[r];
		if (nnz * t > CACHE_ENTRIES) {	/* one long row alone: recomputed as it goes */
			reference_sums(map, w->index + start[r], w->value + start[r], (int)nnz, w->sum,
				kern->axpy);
			put_cells(map, cells, first + (size_t)r, w->sum);
			r = q;
			continue;
		}
		if (grow((void **)&w->keys, &w->keys_room, nnz, sizeof(int)))
			return -1;
		memcpy(w->keys, w->index + start[r], nnz * sizeof(int));
		qsort(w->keys, nnz, sizeof(int), cmp_int);
		size_t nk = 0;
		for (size_t e = 0; e < nnz; e++)
			if (nk == 0 || w->keys[nk - 1] != w->keys[e])
				w->keys[nk++] = w->keys[e];
		if (grow((void **)&w->cache, &w->cache_room, nk * t, sizeof(double)))
			return -1;
		for (size_t k = 0; k < nk; k++)
			for (size_t j = 0; j < t; j++)
				w->cache[k * t + j] = ikmap_acos_gaussian(map->acos_stream[j], w->keys[k]);
		for (int i = r; i < q; i++) {
			for (size_t j = 0; j < t; j++)
				w->sum[j] = 0;
			for (size_t e = start[i]; e < start[i + 1]; e++)
				kern->axpy(w->sum, w->value[e],
					w->cache + key_of(w->keys, nk, w->index[e]) * t, (int)t);
			put_cells(map, cells, first + (size_t)i, w->sum);
		}
		r = q;
	}
	return 0;
}

/*
 * Rows first..first+nrows-1: transformed, then each by the reference or
 * the tile together by the GEMM. 0, or -1 when out of memory.
 */
static int map_tile(const struct ikmap *map, const struct ikmap_rows_in *in, size_t first,
	int nrows, void *cells, const struct kernels *kern, struct work *w)
{
	int t = map->t, d = map->dim;
	size_t used = 0;
	for (int r = 0; r < nrows; r++) {
		if (work_reserve(w, used, ikmap_kernel_row_room(map, in, first + (size_t)r)))
			return -1;
		w->start[r] = used;
		used += (size_t)ikmap_kernel_row(map, in, first + (size_t)r, w->index + used,
			w->value + used);
	}
	w->start[nrows] = used;
	int gemm = 0;
	if (map->acos_gf && map->acos_path == IKMAP_PATH_DENSE)
		gemm = 1;
	else if (map->acos_gf && map->acos_path == IKMAP_PATH_AUTO)
		gemm = used * 32 >= (size_t)nrows * (size_t)d;
	if (!gemm && !map->acos_gt)
		return cached_tile(map, first, nrows, cells, kern, w);
	if (!gemm) {
		for (int r = 0; r < nrows; r++) {
			reference_sums(map, w->index + w->start[r], w->value + w->start[r],
				(int)(w->start[r + 1] - w->start[r]), w->sum, kern->axpy);
			put_cells(map, cells, first + (size_t)r, w->sum);
		}
		return 0;
	}
	memset(w->x, 0, (size_t)nrows * (size_t)d * sizeof(float));
	for (int r = 0; r < nrows; r++) {
		float *xr = w->x + (size_t)r * d;
		double sq = 0;
		for (size_t e = w->start[r]; e < w->start[r + 1]; e++)
			sq += w->value[e] * w->value[e];
		w->norm[r] = sqrt(sq);
		/* a row beyond float's comfort stays 0 here (no out-of-range conversion) and
		 * goes to the reference below */
		if (w->norm[r] <= FAST_MAX_NORM)
			for (size_t e = w->start[r]; e < w->start[r + 1]; e++)
				xr[w->index[e] - 1] = (float)w->value[e];
	}
	if (ikmap_gemm_nt(nrows, t, d, w->x, d, map->acos_gf, d, w->score, t))
		return -1;
	for (int r = 0; r < nrows; r++) {
		const int *index = w->index + w->start[r];
		const double *value = w->value + w->start[r];
		int n = (int)(w->start[r + 1] - w->start[r]);
		size_t at = (first + (size_t)r) * (size_t)t;
		if (!(w->norm[r] <= FAST_MAX_NORM)) {
			reference_sums(map, index, value, n, w->sum, kern->axpy);
			put_cells(map, cells, first + (size_t)r, w->sum);
			continue;
		}
		const float *restrict s = w->score + (size_t)r * t;
		const float *restrict ea = w->ea, *restrict eb = w->eb;
		float nx = float_up(w->norm[r]);
		/*
		 * Two passes: every cell from the sign of s_j with the flag of
		 * any s_j near 0 (sign_pass, vector code), then, only when one
		 * was flagged, those s_j by the reference (the same float test
		 * finds them). Acos cells are uint16_t (psi = 2).
		 */
		uint16_t *restrict out = (uint16_t *)cells + at;
		if (kern->sign_pass(s, ea, eb, nx, out, t))
			for (int j = 0; j < t; j++)
				if (fabsf(s[j]) <= ea[j] * nx + eb[j])
					out[j] = reference_one(map, index, value, n, j) >= 0;
	}
	return 0;
}

int ikmap_acos_map(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	void *cells, int threads)
{
	size_t tile = (size_t)tile_rows(map);
	size_t ntiles = (count + tile - 1) / tile;
	struct bound bd = make_bound(map->dim);
	struct kernels kern = pick_kernels();
	struct ikmap_gemm_state blas = ikmap_gemm_serial_begin();
	int failed = 0;
#pragma omp parallel num_threads(threads) reduction(|:failed)
	{
		struct work w;
		failed = work_init(&w, map, &bd) ? 1 : 0;
#pragma omp for schedule(dynamic, 1)
		for (size_t i = 0; i < ntiles; i++) {
			if (failed)
				continue;
			size_t first = i * tile;
			int nrows = count - first < tile ? (int)(count - first) : (int)tile;
			if (map_tile(map, in, first, nrows, cells, &kern, &w))
				failed = 1;
		}
		work_free(&w);
	}
	ikmap_gemm_serial_end(blas);
	return failed ? -1 : 0;
}
