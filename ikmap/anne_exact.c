/*
 * anne_exact.c - the reference distance that defines aNNE cells, and the
 * rigorous bounds that let the fast paths trust their own arithmetic.
 *
 * Both fast paths score centre j of a row x as s_j ~ ||c_j||^2 - 2 x.c_j,
 * which is the reference distance R_j minus the same ||x||^2 for every j.
 * If |s_j - (R_j - ||x||^2)| <= E for all j of a partitioning, the true
 * nearest centre has s_j <= min s + 2E, so a partitioning whose window
 * [min s, min s + 2E] holds one centre is decided; otherwise the centres
 * inside the window are recomputed with the reference distance.
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
 * 2^-150 absolute when subnormal); the GEMM sums d + 1 products
 * x'_i (-2 c'_i) and 1 * fl32(||c'||^2). With the GEMM's own gamma_{d+1}(u)
 * this gives |s - (B^2 - 2 x'.c')| <= (2 gamma_{d+1}(u) + 4.1u) AB +
 * (gamma_{d+1}(u) + 1.1u + 2 gamma_{d+3}(v)) B^2 + tiny absolute terms
 * <= 2 gamma_{d+3}(u) (A + B)^2 + 2^-140 (d + 1)(A + B + 1), using
 * AB <= (A + B)^2 / 4 and B^2 <= (A + B)^2.
 *
 * Sparse path (anne_sparse.c), all in double and uncentred: the dot
 * product of at most d + 1 roundings, ||c||^2 of d, one subtraction:
 * |s - (B^2 - 2 x.c)| <= 2 gamma_{d+2}(v) (A + B)^2.
 *
 * A and B come from computed squared norms (relative error <= gamma_{d+4}(v)
 * including the centring), so they are inflated by 1 + 2 gamma_{d+4}(v)
 * before use, and the bound itself by 2^-20 for its own rounding.
 */
#include "ikmap_impl.h"

static double gamma_n(double n, double unit)
{
	return n * unit / (1 - n * unit);
}

static double inflate_norms(int dim, double a, double b)
{
	return (a + b) * (1 + 2 * gamma_n((double)dim + 4, 0x1p-53));
}

double ikmap_float_error_bound(int dim, double a, double b)
{
	double d = dim;
	double s = inflate_norms(dim, a, b);
	double rel = 2 * gamma_n(d + 3, 0x1p-24) + gamma_n(d + 2, 0x1p-53);
	return (rel * s * s + 0x1p-140 * (d + 1) * (s + 1)) * (1 + 0x1p-20);
}

double ikmap_double_error_bound(int dim, double a, double b)
{
	double d = dim;
	double s = inflate_norms(dim, a, b);
	double rel = 3 * gamma_n(d + 2, 0x1p-53);
	return (rel * s * s + 0x1p-1000 * (d + 1) * (s + 1)) * (1 + 0x1p-20);
}

double ikmap_reference_distance(const struct ikmap *map, const struct feature_node *x, int s)
{
	const int *ci = map->sample_index + map->sample_start[s];
	const double *cv = map->sample_scaled + map->sample_start[s];
	int64_t cn = map->sample_start[s + 1] - map->sample_start[s];
	int64_t e = 0;
	double sum = 0;
	/*
	 * Ascending merge of x and c: the sum over all j = 1..d in order,
	 * minus the terms where both are zero, which add exactly +0.
	 */
	for (const struct feature_node *f = x; f->index != -1; f++) {
		int j = f->index;
		if (j < 1 || j > map->dim)
			continue;
		for (; e < cn && ci[e] < j; e++)
			sum += cv[e] * cv[e];
		double diff = f->value * map->factor[j];
		if (e < cn && ci[e] == j)
			diff -= cv[e++];
		sum += diff * diff;
	}
	for (; e < cn; e++)
		sum += cv[e] * cv[e];
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
