/*
 * anne_exact.c - the reference distance that defines aNNE cells, and the
 * rigorous bounds that let the fast paths trust their own arithmetic.
 *
 * Both fast paths give centre j of a row x a score s_j that is its
 * reference distance R_j plus a constant shared by all j (0 on the dense
 * path, -||x||^2 on the sparse one) plus an error. If that error is at
 * most E for all j of a partitioning, the true nearest centre has
 * s_j <= min s + 2E, so a partitioning whose window [min s, min s + 2E]
 * holds one centre is decided; otherwise the centres inside the window
 * are recomputed with the reference distance.
 *
 * Notation: u = 2^-24 (float unit roundoff), v = 2^-53 (double),
 * gamma_n(w) = n w / (1 - n w) bounds the relative error of n chained
 * roundings (Higham, Accuracy and Stability of Numerical Algorithms,
 * ch. 3), whatever the summation order, FMA or not. A and B are norms of
 * the row and the centre in the computation's coordinates.
 *
 * Reference: R = fl(sum fl(fl(x_i - c_i)^2)), so |R - D| <= gamma_{d+2}(v) D
 * with D = ||x - c||^2 <= (A + B)^2 in any coordinates that differ from
 * the originals by a common shift (D does not move).
 *
 * Dense path (anne_dense.c): x' = x - mean and c' = c - mean in double,
 * rounded to float (relative error <= u + v + uv each, plus at most
 * 2^-150 absolute when subnormal); the GEMM sums d + 2 terms: the
 * products x'_i (-2 c'_i), 1 * fl32(||c'||^2) and fl32(||x'||^2) * 1, an
 * approximation of D itself. "The GEMM" is whichever the build uses
 * (ikmap/gemm.h): OpenBLAS, another CBLAS or the built-in sgemm.c, whose
 * contract (sgemm.h) is what this needs of any of them: each score is a
 * float sum of exactly its d + 2 products, in any order (sgemm.c blocks
 * k by 256 and adds the blocks' running sums: an order, no extra term;
 * its zero padding is in rows and columns only, never along k), each
 * product rounded once or fused. With the GEMM's own gamma_{d+2}(u):
 * |s - D| <= 1.01 gamma_{d+2}(u) (A + B)^2 + 4.01u AB + 1.01u (A^2 + B^2)
 * + tiny absolute terms <= 2 gamma_{d+3}(u) (A + B)^2
 * + 2^-140 (d + 1)(A + B + 1), using AB <= (A + B)^2 / 4.
 *
 * Sparse path (anne_sparse.c), all in double and uncentred: the dot
 * product of at most d + 1 roundings, ||c||^2 of d, one subtraction:
 * |s - (B^2 - 2 x.c)| <= 2 gamma_{d+2}(v) (A + B)^2.
 *
 * GPU path (anne_device.c): x' = x - mean and c' = c - mean in double,
 * rounded to float and flushed to 0 below 2^-126, so each entry is off
 * by at most (u + v + uv)|entry| + 2^-126; the device's score is
 * e = fl(fl32(||c'||^2) - 2 fl(x'.c')) with
 * |e - (||c'||^2 - 2 x'.c')| <= gamma_{d+2}(u)(B'^2 + 2A'B') + (4d+4) 2^-126
 * (cuda/anne_bound.h), and the shared constant is -||x'||^2. Moving the
 * entries changes D = ||x - c||^2 by at most 2 (A + B) delta + delta^2,
 * delta = (u + v + uv)(A + B) + 2 sqrt(d) 2^-126, and A' + B' <=
 * (1 + u + v + uv)(A + B) + 2 sqrt(d) 2^-126. With the reference's own
 * gamma_{d+2}(v) D the relative part is below
 * gamma_{d+2}(u) + 2.3u + gamma_{d+2}(v) <= 2 gamma_{d+3}(u) + gamma_{d+2}(v)
 * and the rest below 2^-123 (d + 1)(A + B + 1); 2^-120 leaves room.
 *
 * Double recheck of the dense paths (ikmap_recheck_double): the float
 * entries x~ = fl32(fl64(x - m)) and c~ (the centre row / -2, exact) are
 * each within alpha |entry| + 2^-150 of x - m and c - m, alpha = u + v +
 * uv, so | ||x~ - c~|| - ||x - c|| | <= delta = alpha (A + B) +
 * 2 sqrt(d) 2^-150 and |D~ - D| <= 2 (A + B) delta + delta^2 for D~ =
 * ||x~ - c~||^2. Summed in double from those exact doubles (a rounded
 * difference and square per term, d nonnegative terms) the score is
 * within gamma_{d+2}(v) D~ of D~; with the reference's gamma_{d+2}(v) D,
 * |score - R| <= (2 alpha + alpha^2 + 2.01 gamma_{d+2}(v)) (A + B)^2
 * + 2^-140 (d + 1)(A + B + 1): the GEMM's gamma_{d+3}(u) is gone, so
 * the window is some 780 times narrower than the float one at d = 784.
 *
 * A and B come from computed squared norms (relative error <= gamma_{d+4}(v)
 * including the centring), so they are inflated by 1 + 2 gamma_{d+4}(v)
 * before use, and the bound itself by 2^-20 for its own rounding.
 */
#include <math.h>
#include <stdlib.h>
#include "ikmap_impl.h"

static double gamma_n(double n, double unit)
{
	return n * unit / (1 - n * unit);
}

/* Norms come from computed squares; the margin covers the bound's own rounding. */
static struct ikmap_bound make_bound(int dim, double rel, double abs)
{
	struct ikmap_bound e;
	e.grow = 1 + 2 * gamma_n((double)dim + 4, 0x1p-53);
	e.rel = rel * (1 + 0x1p-20);
	e.abs = abs * (1 + 0x1p-20);
	return e;
}

struct ikmap_bound ikmap_float_bound(int dim)
{
	double d = dim;
	return make_bound(dim, 2 * gamma_n(d + 3, 0x1p-24) + gamma_n(d + 2, 0x1p-53),
		0x1p-140 * (d + 1));
}

struct ikmap_bound ikmap_double_bound(int dim)
{
	double d = dim;
	return make_bound(dim, 3 * gamma_n(d + 2, 0x1p-53), 0x1p-1000 * (d + 1));
}

struct ikmap_bound ikmap_gpu_bound(int dim)
{
	double d = dim;
	return make_bound(dim, 2 * gamma_n(d + 3, 0x1p-24) + gamma_n(d + 2, 0x1p-53),
		0x1p-120 * (d + 1));
}

struct ikmap_bound ikmap_recheck_bound(int dim)
{
	double d = dim, alpha = 0x1p-24 + 0x1p-53 + 0x1p-77;
	return make_bound(dim, alpha * (2 + alpha) + 2.01 * gamma_n(d + 2, 0x1p-53),
		0x1p-140 * (d + 1));
}

/* sum (x_i - c_i)^2 over i < n in double, c_i = row_i / -2 (exact), in eight running sums. */
static double recheck_distance(const float *x, const float *row, int n)
{
	double part[8] = {0};
	int i = 0;
	for (; i + 8 <= n; i += 8)
		for (int l = 0; l < 8; l++) {
			double diff = (double)x[i + l] + 0.5 * (double)row[i + l];
			part[l] += diff * diff;
		}
	for (; i < n; i++) {
		double diff = (double)x[i] + 0.5 * (double)row[i];
		part[0] += diff * diff;
	}
	double sum = 0;
	for (int l = 0; l < 8; l++)
		sum += part[l];
	return sum;
}

int ikmap_recheck_init(struct ikmap_recheck *rc, int psi)
{
	rc->cand = malloc((size_t)psi * sizeof *rc->cand);
	rc->rows = malloc((size_t)psi * sizeof *rc->rows);
	rc->dist = malloc((size_t)psi * sizeof *rc->dist);
	return rc->cand && rc->rows && rc->dist ? 0 : -1;
}

void ikmap_recheck_free(struct ikmap_recheck *rc)
{
	free(rc->cand);
	free(rc->rows);
	free(rc->dist);
}

int ikmap_recheck_double(const struct ikmap *map, const float *x, double a, int k, int n,
	struct ikmap_recheck *rc, unsigned char *flags)
{
	struct ikmap_bound e = ikmap_recheck_bound(map->dim);
	double lowest = INFINITY;
	for (int c = 0; c < n; c++) {
		rc->dist[c] = recheck_distance(x, rc->rows[c], map->dim);
		lowest = rc->dist[c] < lowest ? rc->dist[c] : lowest;
	}
	/* the edge rounded up: a candidate exactly at it stays */
	double edge = nextafter(lowest + 2 * ikmap_bound_at(&e, a, map->part_maxnorm_centred[k]),
		INFINITY);
	int within = 0, only = -1;
	for (int c = 0; c < n; c++) {
		flags[rc->cand[c]] = rc->dist[c] <= edge;
		if (flags[rc->cand[c]]) {
			within++;
			only = rc->cand[c];
		}
	}
	return within == 1 ? only : -1;
}

int ikmap_recheck_matrix(const struct ikmap *map, const float *x, double a, int k,
	const float *centres, struct ikmap_recheck *rc, unsigned char *flags)
{
	int n = 0;
	for (int i = 0; i < map->psi; i++)
		if (flags[i]) {
			rc->cand[n] = i;
			rc->rows[n++] = centres + (size_t)i * (size_t)map->dense_ld;
		}
	return ikmap_recheck_double(map, x, a, k, n, rc, flags);
}

double ikmap_reference_distance(const struct ikmap *map, const struct feature_node *x, int s)
{
	int64_t e = map->sample_start[s], cn = map->sample_start[s + 1];
	const int *ci = map->sample_index;
	double sum = 0;
	/*
	 * Ascending merge of x and c: the sum over all j = 1..d in order,
	 * minus the terms where both are zero, which add exactly +0.
	 */
	for (const struct feature_node *f = x; f->index != -1; f++) {
		int j = f->index;
		if (j < 1 || j > map->dim)
			continue;
		for (; e < cn && ci[e] < j; e++) {
			double c = ikmap_sample_scaled(map, e);
			sum += c * c;
		}
		double diff = ikmap_apply(map, j, f->value);
		if (e < cn && ci[e] == j)
			diff -= ikmap_sample_scaled(map, e++);
		sum += diff * diff;
	}
	for (; e < cn; e++) {
		double c = ikmap_sample_scaled(map, e);
		sum += c * c;
	}
	return sum;
}

int ikmap_nearest_exact(const struct ikmap *map, const struct feature_node *x, int k,
	const unsigned char *flags)
{
	const int *centre = map->centre + (size_t)k * (size_t)map->psi;
	int best = -1;
	double best_dist = 0;
	for (int i = 0; i < map->psi; i++) {
		if (flags && !flags[i])
			continue;
		double dist = ikmap_reference_distance(map, x, centre[i]);
		/* Strict: ties keep the lower index (and a NaN never wins). */
		if (best < 0 || dist < best_dist) {
			best = i;
			best_dist = dist;
		}
	}
	return best < 0 ? 0 : best;
}
