/*
 * row_dups.c - rows that repeat an earlier row exactly (row_dups.h).
 *
 * An open-addressing table of row numbers, keyed by a hash of the row's
 * (index, value bits) pairs; a hit is compared pair by pair, so a hash
 * collision never merges different rows.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "row_dups.h"

static uint64_t value_bits(double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	return bits;
}

/* A 64-bit mix of the row (multiply-xorshift per pair). */
static uint64_t row_hash(const struct feature_node *x)
{
	uint64_t h = 0x9e3779b97f4a7c15u;
	for (; x->index != -1; x++) {
		h ^= (uint64_t)(uint32_t)x->index;
		h *= 0xff51afd7ed558ccdu;
		h ^= value_bits(x->value);
		h *= 0xc4ceb9fe1a85ec53u;
		h ^= h >> 29;
	}
	return h ^ (h >> 32);
}

static int same_row(const struct feature_node *a, const struct feature_node *b)
{
	for (; a->index == b->index; a++, b++) {
		if (a->index == -1)
			return 1;
		if (value_bits(a->value) != value_bits(b->value))
			return 0;
	}
	return 0;
}

size_t ikmap_row_firsts(struct feature_node *const *rows, size_t count, size_t *first)
{
	if (count == 0)
		return 0;
	size_t size = 16;
	while (size < 2 * count)
		size *= 2;
	/* slot: row number + 1, 0 empty */
	size_t *slot = calloc(size, sizeof *slot);
	if (slot == NULL)
		return 0;
	size_t firsts = 0;
	for (size_t i = 0; i < count; i++) {
		size_t at = (size_t)row_hash(rows[i]) & (size - 1);
		first[i] = i;
		for (; slot[at] != 0; at = (at + 1) & (size - 1))
			if (same_row(rows[slot[at] - 1], rows[i])) {
				first[i] = slot[at] - 1;
				break;
			}
		if (first[i] == i) {
			slot[at] = i + 1;
			firsts++;
		}
	}
	free(slot);
	return firsts;
}
