/*
 * test_ikmap_scan_split.c - a scan split over row ranges (ikmap_impl.h
 * ikmap_scan_state and ikmap_scan_order_free, which train-mpi -k uses to
 * spread train -k's scan over processes) ends where one scan over all rows
 * ends: the map built from it is ikmap_build's, byte for byte.
 *
 * The combining is written here again, independently of mpi/dist_kernel.c,
 * from the contract alone: a pass that ikmap_scan_order_free calls order
 * free runs on every part from the same starting state and is combined
 * by the maximum of a and the sums of count and n; any other pass is
 * handed on from part to part in row order, the last part's state then
 * copied to all. Checked for every kernel and every scale that gathers
 * statistics (-S 1 to 4, and iForest's raw part under -S 2), on rows with
 * signed real values, explicit zeros of both signs among them (min-max's
 * and acos's -S 2 keep the first of -0 and +0 they meet), cut into three
 * unequal parts; and that the order-free passes are the ones expected.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ikmap_impl.h"
#include "rng.h"
#include "unit.h"
#include "ikmap_fixtures.h"

enum { PARTS = 3, ROWS = 90, DIM = 9 };

/* Rows 0..ROWS-1 with about half the features stored: real values in [lo, hi), some ±0. */
static struct data mixed_rows(double lo, double hi, uint64_t seed)
{
	struct data x = data_new(ROWS, DIM);
	struct rng g;
	rng_seed(&g, seed);
	for (int i = 0; i < ROWS; i++)
		for (int j = 1; j <= DIM; j++) {
			double u = rng_unit(&g);
			if (u < 0.05)
				set(&x, i, j, -0.0);
			else if (u < 0.1)
				set(&x, i, j, 0.0);
			else if (u < 0.55)
				set(&x, i, j, lo + (hi - lo) * rng_unit(&g));
		}
	return x;
}

static void copy_state(const struct ikmap_scan_state *to, const struct ikmap_scan_state *from)
{
	size_t m = (size_t)from->d + 1;
	ck_assert_int_eq(to->d, from->d);
	*to->n = *from->n;
	memcpy(to->a, from->a, m * sizeof *to->a);
	memcpy(to->b, from->b, m * sizeof *to->b);
	memcpy(to->c, from->c, m * sizeof *to->c);
	memcpy(to->count, from->count, m * sizeof *to->count);
}

static void feed(struct ikmap_scan *s, const struct data *x, int from, int to)
{
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_msg(ikmap_scan_rows(s, x->row + from, (size_t)(to - from), err) == 0, "%s", err);
}

/*
 * Every pass over the parts [cut[k], cut[k+1]), combined as the header
 * says; *order_free_passes gets a bit per order-free pass. Returns part
 * 0's scan (the others freed).
 */
static struct ikmap_scan *split_scan(const struct data *x, const struct ikmap_params *p,
	const int *cut, unsigned *order_free_passes)
{
	struct ikmap_scan *s[PARTS];
	for (int k = 0; k < PARTS; k++)
		ck_assert_ptr_nonnull(s[k] = ikmap_scan_new(p));
	*order_free_passes = 0;
	for (int pass = 0; pass < ikmap_scan_passes(s[0]); pass++) {
		struct ikmap_scan_state st[PARTS];
		char err[IKMAP_ERR_SIZE] = "";
		for (int k = 0; k < PARTS; k++)
			ck_assert_msg(ikmap_scan_state(s[k], x->d, &st[k], err) == 0, "%s", err);
		if (ikmap_scan_order_free(s[0])) {
			*order_free_passes |= 1u << pass;
			for (int k = 0; k < PARTS; k++)
				feed(s[k], x, cut[k], cut[k + 1]);
			for (int k = 1; k < PARTS; k++) {
				for (int j = 0; j <= x->d; j++) {
					st[0].a[j] = st[k].a[j] > st[0].a[j] ? st[k].a[j] : st[0].a[j];
					st[0].count[j] += st[k].count[j];
				}
				*st[0].n += *st[k].n;
			}
			for (int k = 1; k < PARTS; k++)
				copy_state(&st[k], &st[0]);
		} else {
			for (int k = 0; k < PARTS; k++) {
				if (k > 0)
					copy_state(&st[k], &st[k - 1]);
				feed(s[k], x, cut[k], cut[k + 1]);
			}
			for (int k = 0; k + 1 < PARTS; k++)
				copy_state(&st[k], &st[PARTS - 1]);
		}
		for (int k = 0; k < PARTS; k++)
			ikmap_scan_end_pass(s[k]);
	}
	for (int k = 1; k < PARTS; k++)
		ikmap_scan_free(s[k]);
	return s[0];
}

static int rows_in_memory(void *context, const int *ids, size_t count,
	struct feature_node **rows, char *err)
{
	struct feature_node *const *all = context;
	(void)err;
	for (size_t i = 0; rows != NULL && i < count; i++)
		rows[i] = all[ids[i]];
	return 0;
}

/* The map's file bytes (caller frees). */
static unsigned char *bytes_of(const struct ikmap *map, size_t *n)
{
	char err[IKMAP_ERR_SIZE] = "";
	unsigned char *b = NULL;
	ck_assert_msg(ikmap_to_memory(map, &b, n, err) == 0, "%s", err);
	return b;
}

/* The split scan's map against ikmap_build's; the order-free passes against expected. */
static void same_map(const struct data *x, struct ikmap_params p, unsigned expected_free)
{
	static const int cuts[2][PARTS + 1] = { { 0, 17, 61, ROWS }, { 0, 1, ROWS - 1, ROWS } };
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *whole = ikmap_build(x->row, x->n, x->d, &p, err);
	ck_assert_msg(whole != NULL, "%s", err);
	size_t n0;
	unsigned char *b0 = bytes_of(whole, &n0);
	for (int c = 0; c < 2; c++) {
		unsigned free_passes;
		struct ikmap_scan *scan = split_scan(x, &p, cuts[c], &free_passes);
		ck_assert_msg(free_passes == expected_free, "%s -S %d: order-free passes %#x, not %#x",
			ikmap_method_name(p.method), p.scale, free_passes, expected_free);
		struct ikmap *split = ikmap_build_scanned(scan, x->n, x->d, &p, rows_in_memory,
			(void *)x->row, err);
		ck_assert_msg(split != NULL, "%s", err);
		size_t n;
		unsigned char *b = bytes_of(split, &n);
		ck_assert_msg(n == n0 && memcmp(b, b0, n) == 0, "%s -S %d -a %g, cut %d: another map",
			ikmap_method_name(p.method), p.scale, p.raw_weight, c);
		free(b);
		ikmap_free(split);
		ikmap_scan_free(scan);
	}
	free(b0);
	ikmap_free(whole);
}

static struct ikmap_params params(enum ikmap_method m, int scale, double raw_weight)
{
	int psi = m == IKMAP_MINMAX ? 32 : m == IKMAP_ACOS ? 2 : 8;
	struct ikmap_params p = { m, 10, psi, 7, scale, 1, raw_weight };
	return p;
}

START_TEST(split_scans_give_the_whole_scans_map)
{
	struct data signed_rows = mixed_rows(-4, 6, 11);
	struct data nonneg_rows = mixed_rows(0, 9, 12);
	/*
	 * -S 1: one order-free pass (max |x|); -S 3: max |x| order free, then the two sums
	 * chained; -S 2 (signed extremes, min-max's and acos's over stored zeros too):
	 * chained; -S 4: max log1p, order free. iForest scans only for -S 2's raw part.
	 */
	for (int m = 0; m < 4; m++) {
		enum ikmap_method method = (enum ikmap_method)m;
		/* min-max refuses negatives but under -S 2 */
		const struct data *x = method == IKMAP_MINMAX ? &nonneg_rows : &signed_rows;
		if (method != IKMAP_IFOREST) {
			same_map(x, params(method, 1, 0), 0x1);
			same_map(x, params(method, 3, 0.5), 0x1);
		}
		same_map(&signed_rows, params(method, 2, method == IKMAP_IFOREST ? 0.5 : 0), 0x0);
		same_map(&nonneg_rows, params(method, 4, 0.25), method == IKMAP_IFOREST ? 0x0 : 0x1);
	}
	data_free(&signed_rows);
	data_free(&nonneg_rows);
}
END_TEST

/*
 * Issue 22: the build asks its row source for the drawn rows a part at a
 * time (aNNE: consecutive ascending parts of at most 1024 rows; iForest:
 * a group of trees' rows, at most max(threads, 2048 / psi) * psi), so they
 * are never all held at once; the map is ikmap_build's all the same.
 */
struct counting_source {
	struct feature_node *const *all;
	size_t calls, most, total;
	int last;		/* the last id asked for (aNNE: they only grow) */
	int ascending;		/* every call's ids ascending, and after the last call's */
};

static int counting_rows(void *context, const int *ids, size_t count,
	struct feature_node **rows, char *err)
{
	struct counting_source *c = context;
	(void)err;
	if (rows == NULL)
		return 0;
	c->calls++;
	c->total += count;
	c->most = count > c->most ? count : c->most;
	for (size_t i = 0; i < count; i++) {
		c->ascending &= ids[i] > c->last;
		c->last = ids[i];
		rows[i] = c->all[ids[i]];
	}
	return 0;
}

static void check_parts(const struct data *x, enum ikmap_method method, int psi, int threads)
{
	struct ikmap_params p = { method, 20, psi, 5, 1, threads, 0 };
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *whole = ikmap_build(x->row, x->n, x->d, &p, err);
	ck_assert_msg(whole != NULL, "%s", err);
	struct ikmap_scan *scan = ikmap_scan_new(&p);
	ck_assert_ptr_nonnull(scan);
	for (int pass = 0; pass < ikmap_scan_passes(scan); pass++) {
		feed(scan, x, 0, x->n);
		ikmap_scan_end_pass(scan);
	}
	struct counting_source c = { x->row, 0, 0, 0, -1, 1 };
	struct ikmap *parts = ikmap_build_scanned(scan, x->n, x->d, &p, counting_rows, &c, err);
	ck_assert_msg(parts != NULL, "%s", err);
	size_t n0, n1;
	unsigned char *b0 = bytes_of(whole, &n0), *b1 = bytes_of(parts, &n1);
	ck_assert_msg(n0 == n1 && memcmp(b0, b1, n0) == 0, "%s psi %d, %d threads: another map",
		ikmap_method_name(method), psi, threads);
	size_t draws = (size_t)p.t * (size_t)psi;
	if (method == IKMAP_ANNE) {
		/* the distinct drawn rows, each once, in ascending parts of at most 1024 */
		ck_assert_msg(c.ascending, "aNNE asked for rows out of order or twice");
		ck_assert_uint_le(c.most, 1024);
		ck_assert_uint_gt(c.total, 1024);	/* so there were several parts */
		ck_assert_uint_ge(c.calls, 2);
	} else {
		size_t group = 2048 / (size_t)psi;
		group = group < (size_t)threads ? (size_t)threads : group;
		ck_assert_uint_le(c.most, group * (size_t)psi);
		ck_assert_uint_le(c.total, draws);
		ck_assert_uint_ge(c.calls, 2);
	}
	free(b0);
	free(b1);
	ikmap_free(whole);
	ikmap_free(parts);
	ikmap_scan_free(scan);
}

START_TEST(drawn_rows_are_read_in_parts)
{
	/* 20 x 128 = 2560 draws from 3000 rows: about 1700 distinct, more than one part */
	struct data x = random_data(3000, DIM, 0.6, -2, 3, 21);
	check_parts(&x, IKMAP_ANNE, 128, 1);
	check_parts(&x, IKMAP_IFOREST, 128, 1);
	check_parts(&x, IKMAP_IFOREST, 128, 2);
	check_parts(&x, IKMAP_IFOREST, 512, 8);
	data_free(&x);
}
END_TEST

static Suite *scan_split_suite(void)
{
	Suite *s = suite_create("ikmap_scan_split");
	TCase *tc = tcase_create("scan_split");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, split_scans_give_the_whole_scans_map);
	tcase_add_test(tc, drawn_rows_are_read_in_parts);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(scan_split_suite)
