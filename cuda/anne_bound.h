/*
 * anne_bound.h - when a float nearest-centre decision is provably exact.
 *
 * Contract. The GPU mapper scores centre j of a partitioning for row x as
 *     e_j = fl(q_j - 2 * s_j),   s_j = x.c_j from an FP32 GEMM (any
 *     summation order, FMA or not, flush-to-zero allowed),
 *     q_j = ||c_j||^2 computed in double and rounded to float.
 * ||x||^2 is left out: it is the same for every centre, so the argmin of e
 * is the argmin of ||x - c_j||^2. Rounding error analysis (Higham, Accuracy
 * and Stability of Numerical Algorithms, ch. 3: |fl(x.c) - x.c| <=
 * gamma_d |x|.|c|, gamma_k = k u / (1 - k u), u = 2^-24) gives
 *     |e_j - (||c_j||^2 - 2 x.c_j)| <= gamma_{d+2} (||c_j||^2 + 2 ||x|| ||c_j||)
 *                                     + (4d + 4) 2^-126
 * (d products and sums, one rounding of q_j, one of the subtraction; the
 * last term covers results flushed to zero). anne_error_bound() evaluates
 * an upper bound of the right-hand side in float: it uses 2 (d+2) u in
 * place of gamma_{d+2} and (4d + 8) 2^-126 as the absolute term, margins
 * that absorb the rounding of its own ingredients (row norm, centre-norm
 * maxima, four float operations, underflow) for every d <= ANNE_MAX_DIM,
 * and the per-partitioning maxima of ||c_j||^2 and ||c_j|| in place of the
 * centre's own.
 *
 * The scan keeps, per (row, partitioning), the smallest score, its index
 * (lowest index among equal scores) and the second smallest score over the
 * other centres. If second - best > 2 * bound, no other centre can be as
 * close in exact arithmetic, so the index is the exact argmin.
 *
 * Otherwise the device refines: every minimiser lies among the candidates
 * j with score_j - best <= 2 * bound, and their distances sum (x_i - c_i)^2
 * in double (any order) carry a relative error below gamma_{d+2} in
 * double's unit 2^-53. If the two smallest, D1 < D2, satisfy
 * D2 - D1 > 2 (d+2) 2^-53 (D1 + D2), the smallest is the exact argmin.
 * If no step of any candidate's distance rounded (checked with error-free
 * transformations; typical of binary and integer features), the distances
 * are exact and the lowest index among the smallest is the exact argmin,
 * ties included. What is still undecided (ties or gaps at the level of
 * double rounding among inexact distances, any NaN or infinity) is
 * flagged for recheck, and anne_resolve_rechecks() recomputes it on the
 * host in double.
 *
 * The static inline functions below are compiled both into the CUDA
 * kernel and into the host tests, so the tests exercise the very decisions
 * the device makes.
 */
#ifndef ANNE_BOUND_H
#define ANNE_BOUND_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define ANNE_HOST_DEVICE __host__ __device__
#else
#define ANNE_HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Largest dimension for which the factor-2 margin in the bound is proven. */
#define ANNE_MAX_DIM (1 << 20)

/* Running state of one (row, partitioning) scan. */
struct anne_best2 {
	float best;     /* smallest score seen */
	float second;   /* smallest score among the other centres */
	uint32_t index; /* centre index of best, lowest among equal scores */
	int nonfinite;  /* a score was NaN or infinite: the decision is void */
};

ANNE_HOST_DEVICE static inline void anne_best2_init(struct anne_best2 *s)
{
	s->best = INFINITY;
	s->second = INFINITY;
	s->index = 0;
	s->nonfinite = 0;
}

/* Scores must arrive in increasing index order within one state. */
ANNE_HOST_DEVICE static inline void anne_best2_add(struct anne_best2 *s, float score, uint32_t index)
{
	if (!isfinite(score)) {
		s->nonfinite = 1;
		return;
	}
	if (score < s->best) {
		s->second = s->best;
		s->best = score;
		s->index = index;
	} else if (score < s->second) {
		s->second = score;
	}
}

/* Combines two states over disjoint index sets, in either order. */
ANNE_HOST_DEVICE static inline struct anne_best2 anne_best2_merge(struct anne_best2 a, struct anne_best2 b)
{
	struct anne_best2 out;
	int b_wins = b.best < a.best || (b.best == a.best && b.index < a.index);
	struct anne_best2 win = b_wins ? b : a;
	struct anne_best2 lose = b_wins ? a : b;
	out.best = win.best;
	out.index = win.index;
	out.second = lose.best < win.second ? lose.best : win.second;
	out.nonfinite = a.nonfinite | b.nonfinite;
	return out;
}

/* The score of a centre: ||c||^2 - 2 x.c with one rounding (the product
 * by 2 is exact), the same on the device, in its refinement and on the host. */
ANNE_HOST_DEVICE static inline float anne_score(float centre_sq, float dot)
{
	return fmaf(-2.0f, dot, centre_sq);
}

/* An upper bound of ||x|| from the float sum of squares of its d entries
 * (the added term covers squares and partial sums flushed to zero). */
ANNE_HOST_DEVICE static inline float anne_row_norm_upper(float sum_of_squares, int d)
{
	return sqrtf(sum_of_squares + (float)(d + 1) * 0x1p-125f);
}

/* Error bound of every score of one row in one partitioning: beta and tau
 * from anne_gemm_beta/anne_gemm_tau, qmax and cmax the partitioning's
 * largest ||c||^2 and ||c|| (rounded up), row_norm from anne_row_norm_upper. */
ANNE_HOST_DEVICE static inline float anne_error_bound(float beta, float tau, float qmax, float cmax, float row_norm)
{
	return beta * (qmax + 2.0f * row_norm * cmax) + tau;
}

/* 1 when the float decision cannot be trusted and the host must recheck. */
ANNE_HOST_DEVICE static inline int anne_best2_needs_recheck(const struct anne_best2 *s, float bound)
{
	return s->nonfinite || !(s->second - s->best > 2.0f * bound);
}

/* Is centre j, with float score `score`, possibly the exact argmin? */
ANNE_HOST_DEVICE static inline int anne_is_candidate(float score, float best, float bound)
{
	return score - best <= 2.0f * bound;
}

/* The rounding error of s = fl(a + b): a + b - s exactly (Knuth's TwoSum). */
ANNE_HOST_DEVICE static inline double anne_two_sum_error(double a, double b, double s)
{
	double b_part = s - a;
	double a_part = s - b_part;
	return (a - a_part) + (b - b_part);
}

/* sum (x_i - c_i)^2 in double, the refinement's distance; *exact is 1 when
 * no subtraction, square or addition rounded, i.e. the result is exact. */
ANNE_HOST_DEVICE static inline double anne_sq_distance_double(const float *x, const float *c, int d, int *exact)
{
	double sum = 0;
	int rounded = 0;
	for (int i = 0; i < d; i++) {
		double a = (double)x[i], minus_b = -(double)c[i];
		double diff = a + minus_b;
		double square = diff * diff;
		double next = sum + square;
		rounded |= anne_two_sum_error(a, minus_b, diff) != 0;
		rounded |= fma(diff, diff, -square) != 0;
		rounded |= anne_two_sum_error(sum, square, next) != 0;
		sum = next;
	}
	*exact = !rounded;
	return sum;
}

/* The refinement's running state: two smallest double distances. */
struct anne_best2d {
	double best;
	double second;
	uint32_t index;
	int inexact; /* some candidate's distance was rounded */
};

ANNE_HOST_DEVICE static inline void anne_best2d_init(struct anne_best2d *s)
{
	s->best = INFINITY;
	s->second = INFINITY;
	s->index = 0;
	s->inexact = 0;
}

/* Distances must arrive in increasing index order within one state. */
ANNE_HOST_DEVICE static inline void anne_best2d_add(struct anne_best2d *s, double dist, int exact, uint32_t index)
{
	s->inexact |= !exact;
	if (dist < s->best) {
		s->second = s->best;
		s->best = dist;
		s->index = index;
	} else if (dist < s->second) {
		s->second = dist;
	}
}

ANNE_HOST_DEVICE static inline struct anne_best2d anne_best2d_merge(struct anne_best2d a, struct anne_best2d b)
{
	struct anne_best2d out;
	int b_wins = b.best < a.best || (b.best == a.best && b.index < a.index);
	struct anne_best2d win = b_wins ? b : a;
	struct anne_best2d lose = b_wins ? a : b;
	out.best = win.best;
	out.index = win.index;
	out.second = lose.best < win.second ? lose.best : win.second;
	out.inexact = a.inexact | b.inexact;
	return out;
}

/* 1 when the double distances prove best's index is the exact argmin:
 * all exact, or the two smallest apart beyond double rounding. */
ANNE_HOST_DEVICE static inline int anne_best2d_resolved(const struct anne_best2d *s, int d)
{
	double margin = 2.0 * (d + 2) * 0x1p-53;
	if (!(s->best < INFINITY))
		return 0;
	if (!s->inexact)
		return 1;
	return s->second == INFINITY || s->second - s->best > margin * (s->second + s->best);
}

/* 2 (d+2) 2^-24, exact in float for d <= ANNE_MAX_DIM. */
float anne_gemm_beta(int d);
/* (4d + 8) 2^-126: absolute error of results flushed to zero. */
float anne_gemm_tau(int d);
/* ||c||^2 summed in double, rounded to nearest float (what the GPU uses). */
float anne_centre_sq_norm(const float *c, int d);
/* Per partitioning k: qmax[k] >= max ||c||^2, cmax[k] >= max ||c|| over its
 * psi centres (rows k*psi..k*psi+psi-1 of centres), both rounded up. */
void anne_partition_norm_maxima(const float *centres, int t, int psi, int d, float *qmax, float *cmax);

/* Index (0..psi-1) of the centre nearest to row by sum (x_i - c_i)^2 in
 * double, lowest index on ties; centres points at the partitioning's first
 * centre. NaN distances never win. */
uint32_t anne_exact_cell(const float *row, const float *centres, int psi, int d);

/* Recomputes in double every cell whose recheck flag is set; rows is
 * count x d, centres (t*psi) x d, cells and recheck count x t. Returns the
 * number of cells recomputed. */
int64_t anne_resolve_rechecks(const float *rows, int64_t count, const float *centres, int t, int psi, int d,
			      uint32_t *cells, const uint8_t *recheck);

#ifdef __cplusplus
}
#endif

#endif /* ANNE_BOUND_H */
