/*
 * test_ikmap_row_dups.c - ikmap/row_dups.h on rows built by hand, and an
 * iForest map of a batch with repeated rows against the same rows mapped
 * one at a time (the map copies a repeat's cells from its first).
 */
#include <string.h>
#include "unit.h"
#include "ikmap.h"
#include "ikmap_fixtures.h"
#include "row_dups.h"

START_TEST(firsts_by_hand)
{
	struct data x = data_new(8, 3);
	set(&x, 0, 1, 1.0);
	set(&x, 0, 3, 2.0);
	set(&x, 1, 1, 1.0);		/* a prefix of row 0: not the same */
	set(&x, 2, 1, 1.0);
	set(&x, 2, 3, 2.0);		/* row 0 again */
	set(&x, 3, 1, 0.0);
	set(&x, 4, 1, -0.0);		/* equal to 0.0 but not bit for bit: its own kind */
	/* row 5 empty */
	/* row 6 empty: row 5 again */
	set(&x, 7, 1, 1.0);		/* row 1 again */
	size_t first[8];
	ck_assert_uint_eq(ikmap_row_firsts(x.row, 8, first), 5);
	const size_t want[8] = { 0, 1, 0, 3, 4, 5, 5, 1 };
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(first[i], want[i]);
	ck_assert_uint_eq(ikmap_row_firsts(x.row, 0, first), 0);
	data_free(&x);
}
END_TEST

START_TEST(repeats_map_as_their_firsts)
{
	/* 300 distinct rows, then a batch of 900 drawn from them with repeats */
	struct data base = random_data(300, 12, 0.5, -1, 1, 7);
	enum { N = 900 };
	struct feature_node *batch[N];
	struct rng g;
	rng_seed(&g, 11);
	for (int i = 0; i < N; i++)
		batch[i] = base.row[rng_below(&g, 300)];
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap_params p = { IKMAP_IFOREST, 20, 64, 3, 0, 1, 0 };
	struct ikmap *map = ikmap_build(base.row, base.n, base.d, &p, err);
	ck_assert_msg(map != NULL, "%s", err);
	size_t row_bytes = (size_t)ikmap_t(map) * ikmap_cell_size(map);
	unsigned char *all = malloc(N * row_bytes), *one = malloc(row_bytes);
	ck_assert_ptr_nonnull(all);
	ck_assert_ptr_nonnull(one);
	for (int threads = 1; threads <= 2; threads++) {
		memset(all, 0xff, N * row_bytes);
		ck_assert_msg(ikmap_map(map, batch, N, all, threads, err) == 0, "%s", err);
		for (int i = 0; i < N; i++) {
			ck_assert_msg(ikmap_map(map, &batch[i], 1, one, 1, err) == 0, "%s", err);
			ck_assert_msg(memcmp(all + (size_t)i * row_bytes, one, row_bytes) == 0,
				"row %d: cells differ from the row mapped alone (threads %d)", i, threads);
		}
	}
	free(all);
	free(one);
	ikmap_free(map);
	data_free(&base);
}
END_TEST

static Suite *row_dups_suite(void)
{
	Suite *s = suite_create("ikmap_row_dups");
	TCase *c = tcase_create("row_dups");
	tcase_add_test(c, firsts_by_hand);
	tcase_add_test(c, repeats_map_as_their_firsts);
	suite_add_tcase(s, c);
	return s;
}

UNIT_MAIN(row_dups_suite)
