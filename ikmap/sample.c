/*
 * sample.c - per-partitioning generators and sampling without replacement.
 *
 * Each partitioning gets its own generator, seeded by the k-th draw of a
 * master generator started from the caller's seed; partitionings can then
 * be built in any order or thread and still come out the same.
 */
#include <stdlib.h>
#include "ikmap_impl.h"

int ikmap_partition_rngs(uint64_t seed, int t, struct rng **out)
{
	struct rng *g = malloc((size_t)t * sizeof *g);
	if (!g)
		return -1;
	struct rng master;
	rng_seed(&master, seed);
	for (int k = 0; k < t; k++)
		rng_seed(&g[k], rng_next(&master));
	*out = g;
	return 0;
}

/*
 * A partial Fisher-Yates shuffle of the virtual array 0..n-1: only the
 * positions a swap has touched are kept, in a small open-addressing table,
 * so the cost is O(psi) whatever n is.
 */
struct swapped {
	int *pos;		/* -1: empty slot */
	int *val;
	size_t mask;		/* capacity - 1, capacity = 2^bits */
	int bits;
};

static size_t slot_of(const struct swapped *s, int pos)
{
	/* Fibonacci hashing: the top bits of the product mix every bit of pos. */
	size_t h = (size_t)(((uint64_t)(uint32_t)pos * 0x9E3779B97F4A7C15ULL) >> (64 - s->bits));
	while (s->pos[h] != -1 && s->pos[h] != pos)
		h = (h + 1) & s->mask;
	return h;
}

static int value_at(const struct swapped *s, int pos)
{
	size_t h = slot_of(s, pos);
	return s->pos[h] == -1 ? pos : s->val[h];
}

static void set_value(struct swapped *s, int pos, int v)
{
	size_t h = slot_of(s, pos);
	s->pos[h] = pos;
	s->val[h] = v;
}

int ikmap_sample_distinct(struct rng *g, int n, int psi, int *out)
{
	/* At most psi positions are ever stored; keep the table under half full. */
	int bits = 4;
	while (((size_t)1 << bits) < 2 * (size_t)psi + 1)
		bits++;
	size_t cap = (size_t)1 << bits;
	struct swapped s = { malloc(cap * sizeof(int)), malloc(cap * sizeof(int)), cap - 1, bits };
	if (!s.pos || !s.val) {
		free(s.pos);
		free(s.val);
		return -1;
	}
	for (size_t h = 0; h < cap; h++)
		s.pos[h] = -1;
	for (int i = 0; i < psi; i++) {
		int j = i + (int)rng_below(g, (uint64_t)(n - i));
		int vi = value_at(&s, i);
		out[i] = value_at(&s, j);
		/* Position i is never read again, so only j needs the swap. */
		set_value(&s, j, vi);
	}
	free(s.pos);
	free(s.val);
	return 0;
}
