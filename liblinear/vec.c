/* vec.c - thread-count-independent dense vector operations (see vec.h). */
#include "vec.h"

static size_t chunk_count(size_t n)
{
	size_t count = (n + VEC_CHUNK_MIN - 1) / VEC_CHUNK_MIN;
	if (count > VEC_MAX_CHUNKS)
		count = VEC_MAX_CHUNKS;
	return count < 1 ? 1 : count;
}

static size_t chunk_begin(size_t n, size_t count, size_t k)
{
	/* k * n / count without overflow: n < 2^53 and k <= 64. */
	return k * (n / count) + k * (n % count) / count;
}

double vec_dot(size_t n, const double *a, const double *b)
{
	size_t count = chunk_count(n);
	double chunk_sum[VEC_MAX_CHUNKS];
	#pragma omp parallel for schedule(static) if(vec_threads_pay(n))
	for (size_t k = 0; k < count; k++) {
		size_t end = chunk_begin(n, count, k + 1);
		double s = 0;
		for (size_t j = chunk_begin(n, count, k); j < end; j++)
			s += a[j] * b[j];
		chunk_sum[k] = s;
	}
	double total = 0;
	for (size_t k = 0; k < count; k++)
		total += chunk_sum[k];
	return total;
}

void vec_axpy(size_t n, double alpha, const double *x, double *y)
{
	#pragma omp parallel for schedule(static) if(vec_threads_pay(n))
	for (size_t j = 0; j < n; j++)
		y[j] += alpha * x[j];
}
