/* test_rng.c - the seeded generator is reproducible and unbiased enough. */
#include "unit.h"
#include "rng.h"

START_TEST(same_seed_same_sequence)
{
	struct rng a, b;
	rng_seed(&a, 42);
	rng_seed(&b, 42);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_eq(rng_next(&a), rng_next(&b));
}
END_TEST

START_TEST(known_first_value)
{
	/* splitmix64 with state 0: first output is published as 0xE220A8397B1DCDAF. */
	struct rng g;
	rng_seed(&g, 0);
	ck_assert_uint_eq(rng_next(&g), 0xE220A8397B1DCDAFULL);
}
END_TEST

START_TEST(below_stays_in_range_and_covers_it)
{
	struct rng g;
	rng_seed(&g, 7);
	int seen[10] = {0};
	for (int i = 0; i < 10000; i++) {
		uint64_t v = rng_below(&g, 10);
		ck_assert_uint_lt(v, 10);
		seen[v]++;
	}
	for (int k = 0; k < 10; k++) {
		ck_assert_int_gt(seen[k], 850);
		ck_assert_int_lt(seen[k], 1150);
	}
}
END_TEST

/*
 * rng_below's documented draw, re-derived here: take rng_next values until
 * one is below UINT64_MAX - UINT64_MAX % bound, return it mod bound. The
 * library skips that division unless a draw could be rejected; the draws
 * (and so every shuffle, sample and model) must be the same, also for
 * bounds near 2^64 where about half the values are rejected.
 */
static uint64_t reference_below(struct rng *g, uint64_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound, v;
	do
		v = rng_next(g);
	while (v >= limit);
	return v % bound;
}

START_TEST(below_draws_as_documented)
{
	uint64_t bounds[] = { 1, 2, 3, 7, 1000, 4001, (uint64_t)1 << 32, ((uint64_t)1 << 63) + 1,
		((uint64_t)1 << 63) + 12345, UINT64_MAX / 3 * 2, UINT64_MAX - 1, UINT64_MAX };
	for (size_t b = 0; b < sizeof bounds / sizeof *bounds; b++) {
		struct rng lib, ref;
		rng_seed(&lib, 99 + b);
		rng_seed(&ref, 99 + b);
		for (int i = 0; i < 20000; i++) {
			uint64_t want = reference_below(&ref, bounds[b]);
			ck_assert_uint_eq(rng_below(&lib, bounds[b]), want);
		}
		/* both consumed the same values, rejections included */
		ck_assert_uint_eq(rng_next(&lib), rng_next(&ref));
	}
}
END_TEST

START_TEST(shuffle_is_a_permutation)
{
	struct rng g;
	rng_seed(&g, 3);
	int a[100], count[100] = {0};
	for (int i = 0; i < 100; i++)
		a[i] = i;
	rng_shuffle_int(&g, a, 100);
	int moved = 0;
	for (int i = 0; i < 100; i++) {
		count[a[i]]++;
		moved += a[i] != i;
	}
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(count[i], 1);
	ck_assert_int_gt(moved, 50);
}
END_TEST

START_TEST(unit_interval)
{
	struct rng g;
	rng_seed(&g, 9);
	double sum = 0;
	for (int i = 0; i < 10000; i++) {
		double u = rng_unit(&g);
		ck_assert(u >= 0 && u < 1);
		sum += u;
	}
	ck_assert(sum / 10000 > 0.48 && sum / 10000 < 0.52);
}
END_TEST

static Suite *rng_suite(void)
{
	Suite *s = suite_create("rng");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, same_seed_same_sequence);
	tcase_add_test(tc, known_first_value);
	tcase_add_test(tc, below_stays_in_range_and_covers_it);
	tcase_add_test(tc, below_draws_as_documented);
	tcase_add_test(tc, shuffle_is_a_permutation);
	tcase_add_test(tc, unit_interval);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(rng_suite)
