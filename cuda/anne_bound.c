/* anne_bound.c - host-side constants of the recheck bound and the double
 * recomputation of flagged cells (see anne_bound.h). */
#include "anne_bound.h"

#include <math.h>

float anne_gemm_beta(int d)
{
	return (float)(2.0 * (d + 2) * 0x1p-24);
}

float anne_gemm_tau(int d)
{
	return (float)((4.0 * d + 8.0) * 0x1p-126);
}

static double sq_norm_double(const float *c, int d)
{
	double sum = 0;
	for (int i = 0; i < d; i++)
		sum += (double)c[i] * c[i];
	return sum;
}

float anne_centre_sq_norm(const float *c, int d)
{
	return (float)sq_norm_double(c, d);
}

/* The smallest float >= v (v >= 0). */
static float float_at_least(double v)
{
	float f = (float)v;
	if ((double)f < v)
		f = nextafterf(f, INFINITY);
	return f;
}

void anne_partition_norm_maxima(const float *centres, int t, int psi, int d, float *qmax, float *cmax)
{
	/* The double sums carry a relative error below (d+1) 2^-53; inflate
	 * by more than that (and by one more ulp for the square root) so the
	 * results stay upper bounds of the exact maxima. */
	double inflate = 1.0 + (d + 2) * 0x1p-52;
	for (int k = 0; k < t; k++) {
		double largest = 0;
		for (int j = 0; j < psi; j++) {
			double q = sq_norm_double(centres + ((size_t)k * psi + j) * d, d);
			if (!isnan(largest) && !(q <= largest)) /* NaN sticks */
				largest = q;
		}
		double q_up = largest * inflate;
		qmax[k] = float_at_least(q_up);
		cmax[k] = float_at_least(sqrt(q_up) * (1.0 + 0x1p-52));
	}
}

uint32_t anne_exact_cell(const float *row, const float *centres, int psi, int d)
{
	uint32_t best_index = 0;
	double best = INFINITY;
	for (int j = 0; j < psi; j++) {
		const float *c = centres + (size_t)j * d;
		double dist = 0;
		for (int i = 0; i < d; i++) {
			double diff = (double)row[i] - c[i];
			dist += diff * diff;
		}
		if (dist < best) {
			best = dist;
			best_index = (uint32_t)j;
		}
	}
	return best_index;
}

int64_t anne_resolve_rechecks(const float *rows, int64_t count, const float *centres, int t, int psi, int d,
			      uint32_t *cells, const uint8_t *recheck)
{
	int64_t recomputed = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : recomputed)
	for (int64_t i = 0; i < count; i++) {
		for (int k = 0; k < t; k++) {
			size_t at = (size_t)i * t + k;
			if (!recheck[at])
				continue;
			cells[at] = anne_exact_cell(rows + (size_t)i * d, centres + (size_t)k * psi * d, psi, d);
			recomputed++;
		}
	}
	return recomputed;
}
