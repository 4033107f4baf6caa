/*
 * vec.h - dense vector operations for the Newton solvers, with results
 * that do not depend on the number of threads.
 *
 * Contract: vec_dot(n, a, b) cuts [0, n) into a fixed number of
 * contiguous chunks (at most VEC_MAX_CHUNKS, each at least VEC_CHUNK_MIN
 * long; the cut depends on n only), sums each chunk left to right and
 * adds the chunk sums in chunk order. For n <= VEC_CHUNK_MIN that is the
 * plain left-to-right sum. The elementwise operations compute every
 * element the same way whichever thread does it. So every result is
 * bit-identical for any thread count.
 *
 * Threads: a loop runs on OpenMP's threads only when vec_threads_pay(n),
 * i.e. when n is large enough for the work to outweigh starting them;
 * that choice changes the speed, never the result.
 */
#ifndef LIBLINEAR_VEC_H
#define LIBLINEAR_VEC_H

#include <stdbool.h>
#include <stddef.h>

enum {
	VEC_CHUNK_MIN = 4096,
	VEC_MAX_CHUNKS = 64,
	/* Below this length a pass over the vector takes a few microseconds
	 * at most: no better than the cost of waking the other threads. */
	VEC_PARALLEL_MIN = 32768
};

static inline bool vec_threads_pay(size_t n)
{
	return n >= VEC_PARALLEL_MIN;
}

/* a . b, summed as described above. */
double vec_dot(size_t n, const double *a, const double *b);

/* y += alpha x */
void vec_axpy(size_t n, double alpha, const double *x, double *y);

/* Whether every a[j] == 0 (-0 included). */
static inline bool vec_all_zero(size_t n, const double *a)
{
	for (size_t j = 0; j < n; j++)
		if (a[j] != 0)
			return false;
	return true;
}

#endif /* LIBLINEAR_VEC_H */
