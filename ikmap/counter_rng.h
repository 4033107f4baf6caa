/*
 * counter_rng.h - random numbers addressed by a key instead of drawn in
 * sequence, for the maps whose randomness is a function of (sample,
 * feature): the min-max kernel's consistent weighted sampling and the
 * acos kernel's Gaussian projections (issue 27).
 *
 * Contract. crng_stream(seed, sample) names one sample's stream;
 * crng_at(stream, feature, draw) is the draw-th 64-bit number of a
 * feature in it (draw < 16). Nothing is stored: the same (seed, sample,
 * feature, draw) gives the same bits on every machine, compiler and
 * thread count, in any order of evaluation, so a map stores its seed, never
 * a table of k x d numbers, and vector code may compute many at once.
 * Every function is a composition of 64-bit xor, shift, add and multiply
 * (modulo 2^64): vectorisable (AVX-512 has a 64-bit multiply) and exact.
 *
 * The mixing function is the splitmix64 finaliser (Steele, Lea and Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014), a
 * bijection of 64-bit words with full avalanche; common/rng.c uses the
 * same generator for sequential draws. A stream is the finaliser of the
 * seed's and the sample's own mix; a number is the finaliser of the
 * stream xored with the mix of its counter (feature * 16 + draw), so two
 * counters of one stream never give the same input to the last mix.
 *
 * crng_unit_open turns 52 high bits into a double in the open interval
 * (0, 1): (m + 1/2) / 2^52 for m in 0 .. 2^52 - 1, exact in IEEE double,
 * never 0 (safe under log) and never 1.
 */
#ifndef IKMAP_COUNTER_RNG_H
#define IKMAP_COUNTER_RNG_H

#include <stdint.h>

#define CRNG_GOLDEN 0x9e3779b97f4a7c15ULL

static inline uint64_t crng_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The stream of sample (0-based) under seed. */
static inline uint64_t crng_stream(uint64_t seed, uint64_t sample)
{
	return crng_mix(crng_mix(seed + CRNG_GOLDEN) + (sample + 1) * CRNG_GOLDEN);
}

/* The draw-th number (0 <= draw < 16) of feature (any 64-bit value) in a stream. */
static inline uint64_t crng_at(uint64_t stream, uint64_t feature, unsigned draw)
{
	return crng_mix(stream ^ crng_mix(feature * 16 + draw + CRNG_GOLDEN));
}

/* A double in (0, 1) from the 52 high bits of x. */
static inline double crng_unit_open(uint64_t x)
{
	return ((double)(x >> 12) + 0.5) * 0x1.0p-52;
}

#endif /* IKMAP_COUNTER_RNG_H */
