/* rng.c - splitmix64 and the helpers built on it (see rng.h). */
#include "rng.h"

void rng_seed(struct rng *g, uint64_t seed)
{
	g->state = seed;
}

uint64_t rng_next(struct rng *g)
{
	uint64_t z = (g->state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

uint64_t rng_below(struct rng *g, uint64_t bound)
{
	/*
	 * Reject the top partial block so every residue is equally likely:
	 * v >= limit = UINT64_MAX - UINT64_MAX % bound. Since UINT64_MAX % bound
	 * < bound, only v > UINT64_MAX - bound can be rejected, so the limit
	 * (a second 64-bit division, as costly as the rest of a shuffle step)
	 * is computed only then: the same values, the same draws.
	 */
	uint64_t v;
	for (;;) {
		v = rng_next(g);
		if (v <= UINT64_MAX - bound || v < UINT64_MAX - UINT64_MAX % bound)
			break;
	}
	return v % bound;
}

double rng_unit(struct rng *g)
{
	return (double)(rng_next(g) >> 11) * (1.0 / 9007199254740992.0);
}

void rng_shuffle_int(struct rng *g, int *a, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)rng_below(g, (uint64_t)i + 1);
		int tmp = a[i];
		a[i] = a[j];
		a[j] = tmp;
	}
}
