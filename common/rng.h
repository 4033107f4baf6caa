/*
 * rng.h - the seeded pseudo-random numbers of the LIBLINEAR library and of
 * the Isolation Kernel map (ikmap/), shared from common/.
 *
 * Contract: the same seed gives the same sequence on every platform,
 * compiler and thread count (unlike libc rand(), which upstream uses).
 * Solvers that shuffle take a struct rng * and never share one between
 * threads. The generator is splitmix64 (Steele, Lea, Flood 2014).
 */
#ifndef LIBLINEAR_RNG_H
#define LIBLINEAR_RNG_H

#include <stdint.h>

struct rng {
	uint64_t state;
};

/* The seed every training run starts from unless told otherwise. */
#define RNG_DEFAULT_SEED 1

void rng_seed(struct rng *g, uint64_t seed);
uint64_t rng_next(struct rng *g);
/* Uniform integer in [0, bound), bound >= 1, without modulo bias. */
uint64_t rng_below(struct rng *g, uint64_t bound);
/* Uniform double in [0, 1). */
double rng_unit(struct rng *g);
/* Fisher-Yates shuffle of a[0..n-1]. */
void rng_shuffle_int(struct rng *g, int *a, int n);

#endif /* LIBLINEAR_RNG_H */
