/*
 * row_dups.h - which rows of a batch repeat an earlier row exactly.
 *
 * Contract: ikmap_row_firsts(rows, count, first) sets first[i], for every
 * i < count, to the smallest j <= i whose row has the same features with
 * the same values, bit for bit (so first[i] == i: row i is the first of
 * its kind). Rows end at index -1 (linear.h). Returns the number of rows
 * that are the first of their kind, or 0 when out of memory (first is
 * then unset; count 0 also gives 0). Rows equal bit for bit are mapped to
 * equal cells by every map, so a mapper may map the first of each kind
 * once and copy its cells to the rest.
 *
 * Why: data of categorical or binary features repeat rows (a9a: 23% of
 * its training rows, 16% of its test rows); an iForest row costs t walks
 * down a tree (some 3 microseconds at t = 100), hashing it some tens of
 * nanoseconds.
 */
#ifndef IKMAP_ROW_DUPS_H
#define IKMAP_ROW_DUPS_H

#include <stddef.h>
#include "linear.h"

size_t ikmap_row_firsts(struct feature_node *const *rows, size_t count, size_t *first);

#endif
