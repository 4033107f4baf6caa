/*
 * test_ikmap_anne.c - aNNE cells equal an independent brute-force double
 * reference (ikmap.h's definition), on both paths, on random dense and
 * sparse data and on adversarial near-ties; and do not depend on threads.
 *
 * The reference re-derives everything itself: which rows each
 * partitioning drew (a plain Fisher-Yates on a full array, the documented
 * sampling), the max-abs factors, and the distances over all d features.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "ikmap.h"
#include "ikmap_fixtures.h"
#include "ikmap_impl.h"
#include "rng.h"

/* The rows partitioning k drew, at out[k*psi + i] (ikmap.h's sampling). */
static int *reference_draws(uint64_t seed, int n, int t, int psi)
{
	int *out = malloc((size_t)t * psi * sizeof(int));
	int *a = malloc((size_t)n * sizeof(int));
	ck_assert(out && a);
	struct rng master, g;
	rng_seed(&master, seed);
	for (int k = 0; k < t; k++) {
		rng_seed(&g, rng_next(&master));
		for (int i = 0; i < n; i++)
			a[i] = i;
		for (int i = 0; i < psi; i++) {
			int j = i + (int)rng_below(&g, (uint64_t)(n - i));
			int tmp = a[i];
			a[i] = a[j];
			a[j] = tmp;
			out[k * psi + i] = a[i];
		}
	}
	free(a);
	return out;
}

/* factor[j] = 1 / max |x_j| (1 when never nonzero or when !scale). */
static double *reference_factors(const struct data *x, int scale)
{
	double *f = calloc((size_t)x->d + 1, sizeof(double));
	ck_assert_ptr_nonnull(f);
	for (int i = 0; scale && i < x->n; i++)
		for (const struct feature_node *e = x->row[i]; e->index != -1; e++)
			f[e->index] = fmax(f[e->index], fabs(e->value));
	for (int j = 0; j <= x->d; j++)
		f[j] = f[j] > 0 ? 1 / f[j] : 1;
	return f;
}

/* Scaled dense copy of a row over features 1..d (others ignored). */
static void densify(const struct feature_node *x, int d, const double *factor, double *out)
{
	for (int j = 0; j <= d; j++)
		out[j] = 0;
	for (; x->index != -1; x++)
		if (x->index >= 1 && x->index <= d)
			out[x->index] = x->value * factor[x->index];
}

static int reference_cell(const double *x, const double *centres, int k, int psi, int d)
{
	int best = 0;
	double best_dist = INFINITY;
	for (int i = 0; i < psi; i++) {
		const double *c = centres + ((size_t)k * psi + i) * (d + 1);
		double sum = 0;
		for (int j = 1; j <= d; j++) {
			double diff = x[j] - c[j];
			sum += diff * diff;
		}
		if (sum < best_dist) {
			best = i;
			best_dist = sum;
		}
	}
	return best;
}

static struct ikmap *build(const struct data *train, int t, int psi, int scale, uint64_t seed)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap_params p = { IKMAP_ANNE, t, psi, seed, scale, 0, 0 };
	struct ikmap *map = ikmap_build(train->row, train->n, train->d, &p, err);
	ck_assert_msg(map != NULL, "build failed: %s", err);
	return map;
}

static void *map_rows(struct ikmap *map, const struct data *q, int threads)
{
	char err[IKMAP_ERR_SIZE] = "";
	void *cells = malloc((size_t)q->n * ikmap_t(map) * ikmap_cell_size(map));
	ck_assert_ptr_nonnull(cells);
	ck_assert_msg(ikmap_map(map, q->row, (size_t)q->n, cells, threads, err) == 0, "%s", err);
	return cells;
}

/* Maps query as map stands and compares every cell with the reference. */
static void check_cells(struct ikmap *map, const struct data *train, const struct data *query,
	int scale, int path)
{
	int t = ikmap_t(map), psi = ikmap_psi(map), d = train->d;
	void *cells = map_rows(map, query, 0);
	int *drawn = reference_draws(ikmap_seed(map), train->n, t, psi);
	double *factor = reference_factors(train, scale);
	double *centres = malloc((size_t)t * psi * (d + 1) * sizeof(double));
	double *x = malloc(((size_t)d + 1) * sizeof(double));
	ck_assert(centres && x);
	for (int c = 0; c < t * psi; c++)
		densify(train->row[drawn[c]], d, factor, centres + (size_t)c * (d + 1));
	int wrong = 0;
	for (int r = 0; r < query->n; r++) {
		densify(query->row[r], d, factor, x);
		for (int k = 0; k < t; k++)
			wrong += (int)ikmap_cell_at(map, cells, (size_t)r * t + k)
				!= reference_cell(x, centres, k, psi, d);
	}
	ck_assert_msg(wrong == 0, "%d of %d cells differ from the reference (path %d, 3: pruned)",
		wrong, query->n * t, (int)path);
	free(cells);
	free(drawn);
	free(factor);
	free(centres);
	free(x);
}

/* Maps query on the given path (dense: unpruned) and compares every cell with the reference. */
static void check_exact(struct ikmap *map, const struct data *train, const struct data *query,
	int scale, enum ikmap_path path)
{
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_msg(ikmap_set_path(map, path, err) == 0, "%s", err);
	ck_assert_int_eq(ikmap_anne_set_prune(map, 0, err), 0);
	check_cells(map, train, query, scale, (int)path);
}

static void check_both_paths(const struct data *train, const struct data *query, int t, int psi,
	int scale)
{
	struct ikmap *map = build(train, t, psi, scale, 11);
	check_exact(map, train, query, scale, IKMAP_PATH_DENSE);
	check_exact(map, train, query, scale, IKMAP_PATH_SPARSE);
	ikmap_free(map);
}

START_TEST(dense_random_data)
{
	struct data train = random_data(300, 20, 1.0, -1, 3, 1);
	struct data query = random_data(200, 20, 1.0, -1, 3, 2);
	check_both_paths(&train, &train, 20, 32, 0);
	check_both_paths(&train, &query, 20, 32, 1);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(sparse_random_data)
{
	/* Query rows also use features beyond d, which must be ignored. */
	struct data train = random_data(400, 500, 0.02, 0, 5, 3);
	struct data query = random_data(150, 520, 0.02, 0, 5, 4);
	check_both_paths(&train, &query, 10, 16, 1);
	check_both_paths(&train, &query, 10, 16, 0);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(duplicated_centres)
{
	/* 12 distinct rows repeated: partitionings hold many identical centres. */
	struct data base = random_data(12, 6, 1.0, -2, 2, 5);
	struct data train = data_new(240, 6);
	for (int i = 0; i < train.n; i++)
		for (const struct feature_node *f = base.row[i % 12]; f->index != -1; f++)
			set(&train, i, f->index, f->value);
	struct data query = random_data(100, 6, 1.0, -2, 2, 6);
	check_both_paths(&train, &query, 15, 64, 0);
	check_both_paths(&train, &train, 15, 64, 1);
	data_free(&base);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(equidistant_points)
{
	/*
	 * Small integer coordinates and half-integer midpoints: every distance
	 * is exact in double, so a midpoint ties exactly between its two ends
	 * (and often more centres); only the lowest index may win.
	 */
	struct rng g;
	rng_seed(&g, 7);
	int d = 5;
	struct data train = data_new(120, d), query = data_new(300, d);
	for (int i = 0; i < train.n; i++)
		for (int j = 1; j <= d; j++)
			set(&train, i, j, (double)((int)rng_below(&g, 9) - 4));
	for (int r = 0; r < query.n; r++) {
		int a = (int)rng_below(&g, (uint64_t)train.n), b = (int)rng_below(&g, (uint64_t)train.n);
		for (int j = 1; j <= d; j++)
			set(&query, r, j, (train.row[a][j - 1].value + train.row[b][j - 1].value) / 2);
	}
	check_both_paths(&train, &query, 20, 48, 0);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(large_norms_small_distances)
{
	/* Two far clusters (norm ~1e4) of tiny spread (1e-3), unscaled. */
	struct rng g;
	rng_seed(&g, 8);
	int d = 8;
	struct data train = data_new(200, d), query = data_new(120, d);
	struct data *sets[2] = { &train, &query };
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < sets[s]->n; i++) {
			double centre = i % 2 ? 1e4 : -1e4;
			for (int j = 1; j <= d; j++)
				set(sets[s], i, j, centre + 1e-3 * rng_unit(&g));
		}
	check_both_paths(&train, &query, 10, 32, 0);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(tiny_values)
{
	/* Squares underflow float (and products the float range): the absolute error term. */
	struct data train = random_data(150, 10, 1.0, -1e-25, 1e-25, 9);
	struct data query = random_data(80, 10, 1.0, -1e-25, 1e-25, 10);
	check_both_paths(&train, &query, 10, 32, 0);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(huge_values_use_the_sparse_path)
{
	/* Norms beyond float range: no dense path, and the sparse one stays exact. */
	struct data train = random_data(100, 5, 1.0, -1e30, 1e30, 15);
	struct data query = random_data(50, 5, 1.0, -1e30, 1e30, 16);
	struct ikmap *map = build(&train, 8, 16, 0, 11);
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_int_eq(ikmap_path(map), IKMAP_PATH_SPARSE);
	ck_assert_int_ne(ikmap_set_path(map, IKMAP_PATH_DENSE, err), 0);
	ck_assert_ptr_nonnull(strstr(err, "dense"));
	check_exact(map, &train, &query, 0, IKMAP_PATH_SPARSE);
	ikmap_free(map);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(non_finite_rows_still_get_cells)
{
	/* A NaN or infinite value makes every distance NaN or inf: cells stay in range. */
	struct data train = random_data(100, 4, 1.0, -1, 1, 17);
	struct data query = random_data(2, 4, 1.0, -1, 1, 18);
	query.row[0][1].value = NAN;
	query.row[1][2].value = INFINITY;
	for (int path = IKMAP_PATH_DENSE; path <= IKMAP_PATH_SPARSE; path++) {
		struct ikmap *map = build(&train, 6, 16, 1, 11);
		char err[IKMAP_ERR_SIZE];
		ck_assert_int_eq(ikmap_set_path(map, (enum ikmap_path)path, err), 0);
		void *cells = map_rows(map, &query, 1);
		for (int k = 0; k < 2 * 6; k++)
			ck_assert_uint_lt(ikmap_cell_at(map, cells, (size_t)k), 16);
		free(cells);
		ikmap_free(map);
	}
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(wide_cells)
{
	/* psi > 65536: cells are uint32_t. */
	struct data train = random_data(70000, 2, 1.0, 0, 1, 12);
	struct data query = random_data(40, 2, 1.0, 0, 1, 13);
	struct ikmap *map = build(&train, 1, 66000, 1, 11);
	ck_assert_uint_eq(ikmap_cell_size(map), 4);
	check_exact(map, &train, &query, 1, IKMAP_PATH_DENSE);
	check_exact(map, &train, &query, 1, IKMAP_PATH_SPARSE);
	ikmap_free(map);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(thread_count_does_not_matter)
{
	struct data train = random_data(500, 30, 0.5, -1, 1, 14);
	for (int path = IKMAP_PATH_DENSE; path <= IKMAP_PATH_SPARSE; path++) {
		struct ikmap *one = build(&train, 12, 40, 1, 99);
		char err[IKMAP_ERR_SIZE];
		ck_assert_int_eq(ikmap_set_path(one, (enum ikmap_path)path, err), 0);
		void *ref = map_rows(one, &train, 1);
		size_t bytes = (size_t)train.n * 12 * ikmap_cell_size(one);
		for (int threads = 2; threads <= 4; threads *= 2) {
			struct ikmap_params p = { IKMAP_ANNE, 12, 40, 99, 1, threads, 0 };
			struct ikmap *other = ikmap_build(train.row, train.n, train.d, &p, err);
			ck_assert_ptr_nonnull(other);
			ck_assert_uint_eq(ikmap_checksum(other), ikmap_checksum(one));
			ck_assert_int_eq(ikmap_set_path(other, (enum ikmap_path)path, err), 0);
			void *cells = map_rows(other, &train, threads);
			ck_assert_int_eq(memcmp(cells, ref, bytes), 0);
			free(cells);
			ikmap_free(other);
		}
		free(ref);
		ikmap_free(one);
	}
	data_free(&train);
}
END_TEST

/*
 * The pruned dense path (anne_prune.c): every cell equals the reference.
 * Returns the fraction of (row, centre) pairs whose full score was
 * computed, so a test can tell that pruning really ran.
 */
static double check_pruned(struct ikmap *map, const struct data *train, const struct data *query,
	int scale)
{
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_msg(ikmap_set_path(map, IKMAP_PATH_DENSE, err) == 0, "%s", err);
	ck_assert_msg(ikmap_anne_set_prune(map, 1, err) == 0, "%s", err);
	ck_assert_msg(ikmap_anne_pruned(map), "pruning did not build");
	check_cells(map, train, query, scale, 3);
	uint64_t pairs, full, exact;
	ikmap_prune_stats(&pairs, &full, &exact);
	ck_assert_uint_gt(pairs, 0);
	return (double)full / (double)pairs;
}

/* n rows around `protos` random prototypes in [0, 1]^d, spread sd `noise`, ~half zeros. */
static struct data prototype_data(int n, int d, int protos, double noise, uint64_t seed)
{
	struct rng g;
	rng_seed(&g, seed);
	double *proto = malloc((size_t)protos * d * sizeof(double));
	ck_assert_ptr_nonnull(proto);
	for (int i = 0; i < protos * d; i++)
		proto[i] = rng_unit(&g) < 0.5 ? 0 : rng_unit(&g);
	struct data x = data_new(n, d);
	for (int i = 0; i < n; i++) {
		const double *p = proto + (size_t)rng_below(&g, (uint64_t)protos) * d;
		for (int j = 1; j <= d; j++)
			if (p[j - 1] > 0)
				set(&x, i, j, p[j - 1] + noise * (rng_unit(&g) - 0.5));
	}
	free(proto);
	return x;
}

START_TEST(pruned_random_data)
{
	struct data train = random_data(400, 100, 1.0, -1, 3, 21);
	struct data query = random_data(200, 100, 1.0, -1, 3, 22);
	struct ikmap *map = build(&train, 10, 32, 0, 11);
	check_pruned(map, &train, &query, 0);
	check_pruned(map, &train, &train, 0);
	ikmap_free(map);
	map = build(&train, 10, 64, 1, 12);
	check_pruned(map, &train, &query, 1);
	ikmap_free(map);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(pruned_structured_data)
{
	/* Low intrinsic dimension: the bound must rule most centres out, exactly. */
	struct data train = prototype_data(800, 196, 12, 0.05, 23);
	struct data query = prototype_data(300, 196, 12, 0.05, 24);
	struct ikmap *map = build(&train, 10, 64, 1, 13);
	double computed = check_pruned(map, &train, &query, 1);
	ck_assert_msg(computed < 0.25, "%.3f of the full scores computed: pruning ineffective", computed);
	check_pruned(map, &train, &train, 1);
	ikmap_free(map);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(pruned_ties)
{
	/*
	 * Binary rows from few patterns: many identical centres and rows at
	 * exactly equal distances; and integer points with their midpoints,
	 * which tie exactly between two (or more) centres. Lowest index wins.
	 */
	struct data base = random_data(10, 80, 0.3, 1, 1, 25);
	struct data train = data_new(300, 80);
	for (int i = 0; i < train.n; i++)
		for (const struct feature_node *f = base.row[i % 10]; f->index != -1; f++)
			set(&train, i, f->index, f->value);
	struct data query = random_data(100, 80, 0.3, 1, 1, 26);
	struct ikmap *map = build(&train, 12, 64, 0, 14);
	check_pruned(map, &train, &query, 0);
	check_pruned(map, &train, &train, 0);
	ikmap_free(map);

	struct rng g;
	rng_seed(&g, 27);
	int d = 70;
	struct data ints = data_new(150, d), mids = data_new(300, d);
	for (int i = 0; i < ints.n; i++)
		for (int j = 1; j <= d; j++)
			set(&ints, i, j, (double)((int)rng_below(&g, 9) - 4));
	for (int r = 0; r < mids.n; r++) {
		int a = (int)rng_below(&g, (uint64_t)ints.n), b = (int)rng_below(&g, (uint64_t)ints.n);
		for (int j = 1; j <= d; j++)
			set(&mids, r, j, (ints.row[a][j - 1].value + ints.row[b][j - 1].value) / 2);
	}
	map = build(&ints, 20, 48, 0, 15);
	check_pruned(map, &ints, &mids, 0);
	ikmap_free(map);

	/*
	 * The same in 6 of 80 dimensions: the principal directions then hold
	 * the data, the lower bounds equal the distances up to rounding, and
	 * only the bound's error terms keep tied centres from being dropped.
	 */
	struct data low = data_new(150, 80), lowmids = data_new(300, 80);
	for (int i = 0; i < low.n; i++)
		for (int j = 1; j <= 6; j++)
			set(&low, i, j, (double)((int)rng_below(&g, 5) - 2));
	for (int r = 0; r < lowmids.n; r++) {
		int a = (int)rng_below(&g, (uint64_t)low.n), b = (int)rng_below(&g, (uint64_t)low.n);
		for (int j = 1; j <= 6; j++)
			set(&lowmids, r, j, (low.row[a][j - 1].value + low.row[b][j - 1].value) / 2);
	}
	map = build(&low, 20, 48, 0, 15);
	check_pruned(map, &low, &lowmids, 0);
	ikmap_free(map);
	data_free(&low);
	data_free(&lowmids);
	data_free(&base);
	data_free(&train);
	data_free(&query);
	data_free(&ints);
	data_free(&mids);
}
END_TEST

START_TEST(pruned_near_ties)
{
	/*
	 * Rows a hair off the midpoint of two centres (relative 1e-9 .. 1e-5
	 * of their distance): far inside the float error, so only the
	 * double recheck can tell; large norms (1e4) with a tiny spread
	 * (1e-3) on top, unscaled, stress the margin's (A + B)^2 terms.
	 */
	struct rng g;
	rng_seed(&g, 28);
	int d = 90;
	struct data train = data_new(200, d), query = data_new(400, d);
	for (int i = 0; i < train.n; i++) {
		double centre = i % 2 ? 1e4 : -1e4;
		for (int j = 1; j <= d; j++)
			set(&train, i, j, centre + 1e-3 * rng_unit(&g));
	}
	for (int r = 0; r < query.n; r++) {
		int a = (int)rng_below(&g, (uint64_t)train.n), b = (int)rng_below(&g, (uint64_t)train.n);
		double off = pow(10, -9 + 4 * rng_unit(&g)) * (rng_unit(&g) < 0.5 ? -1 : 1);
		for (int j = 1; j <= d; j++) {
			double va = train.row[a][j - 1].value, vb = train.row[b][j - 1].value;
			set(&query, r, j, (va + vb) / 2 + off * (va - vb));
		}
	}
	struct ikmap *map = build(&train, 16, 64, 0, 16);
	check_pruned(map, &train, &query, 0);
	ikmap_free(map);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(pruned_odd_rows)
{
	/* Sparse queries with features beyond d (ignored), and non-finite rows. */
	struct data train = random_data(300, 150, 0.2, 0, 5, 29);
	struct data query = random_data(120, 170, 0.2, 0, 5, 30);
	struct ikmap *map = build(&train, 8, 32, 1, 17);
	check_pruned(map, &train, &query, 1);
	query.row[0][0].value = NAN;
	query.row[1][1].value = INFINITY;
	query.row[2][0].value = 1e200;
	void *cells = map_rows(map, &query, 2);
	for (size_t k = 0; k < 3 * 8; k++)
		ck_assert_uint_lt(ikmap_cell_at(map, cells, k), 32);
	free(cells);
	ikmap_free(map);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(pruned_thread_count_does_not_matter)
{
	struct data train = prototype_data(600, 128, 8, 0.2, 31);
	struct ikmap *map = build(&train, 12, 40, 1, 18);
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_int_eq(ikmap_set_path(map, IKMAP_PATH_DENSE, err), 0);
	ck_assert_int_eq(ikmap_anne_set_prune(map, 1, err), 0);
	ck_assert(ikmap_anne_pruned(map));
	void *one = map_rows(map, &train, 1);
	size_t bytes = (size_t)train.n * 12 * ikmap_cell_size(map);
	for (int threads = 2; threads <= 4; threads *= 2) {
		void *cells = map_rows(map, &train, threads);
		ck_assert_int_eq(memcmp(cells, one, bytes), 0);
		free(cells);
	}
	free(one);
	ikmap_free(map);
	data_free(&train);
}
END_TEST

/*
 * The scans' AVX-512 kernels (anne_dense.c's window, anne_prune.c's
 * lowest bound and gather; where the CPU has AVX-512) give the generic
 * kernels' cells, which equal the reference, on the plain and the pruned
 * dense path, psi a multiple of 16 and not (the kernels' partial
 * vectors), with ties.
 */
/* Ties: 240 binary rows (90 features) repeating 8 random patterns. */
static struct data tie_rows(uint64_t seed)
{
	struct data base = random_data(8, 90, 0.3, 1, 1, seed);
	struct data ties = data_new(240, 90);
	for (int i = 0; i < ties.n; i++)
		for (const struct feature_node *f = base.row[i % 8]; f->index != -1; f++)
			set(&ties, i, f->index, f->value);
	data_free(&base);
	return ties;
}

static void *cells_with_scans(struct ikmap *map, const struct data *q, int generic)
{
	ikmap_generic_scans = generic;
	void *cells = map_rows(map, q, 2);
	ikmap_generic_scans = 0;
	return cells;
}

static void check_scans(struct ikmap *map, const struct data *train, const struct data *query,
	int scale, int prune)
{
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_msg(ikmap_set_path(map, IKMAP_PATH_DENSE, err) == 0, "%s", err);
	ck_assert_msg(ikmap_anne_set_prune(map, prune, err) == 0, "%s", err);
	ck_assert_int_eq(ikmap_anne_pruned(map), prune);
	size_t bytes = (size_t)query->n * ikmap_t(map) * ikmap_cell_size(map);
	void *fast = cells_with_scans(map, query, 0), *generic = cells_with_scans(map, query, 1);
	ck_assert_msg(memcmp(fast, generic, bytes) == 0, "the scan kernels disagree (psi %d, %s)",
		ikmap_psi(map), prune ? "pruned" : "plain");
	ikmap_generic_scans = 1;
	check_cells(map, train, query, scale, prune ? 3 : (int)IKMAP_PATH_DENSE);
	ikmap_generic_scans = 0;
	free(fast);
	free(generic);
}

START_TEST(scan_kernels_do_not_matter)
{
	struct data train = prototype_data(700, 150, 10, 0.1, 41);
	struct data query = prototype_data(250, 150, 10, 0.1, 42);
	int psis[] = { 16, 37, 64, 100 };
	for (int i = 0; i < 4; i++) {
		struct ikmap *map = build(&train, 9, psis[i], 1, 19 + (uint64_t)i);
		check_scans(map, &train, &query, 1, 0);
		check_scans(map, &train, &query, 1, 1);
		ikmap_free(map);
	}
	data_free(&train);
	data_free(&query);
	struct data ties = tie_rows(43);
	struct ikmap *map = build(&ties, 7, 45, 0, 23);
	check_scans(map, &ties, &ties, 0, 0);
	check_scans(map, &ties, &ties, 0, 1);
	ikmap_free(map);
	data_free(&ties);
}
END_TEST

/*
 * The 8-bit path for psi <= 64 (anne_vnni.c, where the CPU has
 * AVX512-VNNI) gives the float path's cells (IKMAP_VNNI=0), which equal
 * the reference, from sparse and dense rows, on clustered wide data,
 * binary rows with true ties, two far clusters of tiny spread (where the
 * 8-bit products decide almost nothing) and psi that do not fill a vector.
 */
static void *cells_vnni(struct ikmap *map, const struct data *q, int on, int dense)
{
	char err[IKMAP_ERR_SIZE] = "";
	if (!on)
		ck_assert_int_eq(setenv("IKMAP_VNNI", "0", 1), 0);
	void *cells = malloc((size_t)q->n * ikmap_t(map) * ikmap_cell_size(map));
	ck_assert_ptr_nonnull(cells);
	if (dense) {
		int d = q->d;
		double *x = calloc((size_t)q->n * d, sizeof(double));
		ck_assert_ptr_nonnull(x);
		for (int r = 0; r < q->n; r++)
			for (const struct feature_node *f = q->row[r]; f->index != -1; f++)
				x[(size_t)r * d + f->index - 1] = f->value;
		ck_assert_msg(ikmap_map_dense_on(map, x, (size_t)q->n, d, (size_t)d, cells, 2,
			IKMAP_DEVICE_CPU, err) == 0, "%s", err);
		free(x);
	} else {
		ck_assert_msg(ikmap_map(map, q->row, (size_t)q->n, cells, 2, err) == 0, "%s", err);
	}
	unsetenv("IKMAP_VNNI");
	return cells;
}

static void check_vnni(const struct data *train, const struct data *query, int t, int psi,
	int scale)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = build(train, t, psi, scale, 29);
	ck_assert_msg(ikmap_set_path(map, IKMAP_PATH_DENSE, err) == 0, "%s", err);
	ck_assert_int_eq(ikmap_anne_set_prune(map, 0, err), 0);
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl")
			&& __builtin_cpu_supports("avx512bw"))
		ck_assert_msg(ikmap_anne_vnni_ready(map), "the 8-bit path was not taken (psi %d)", psi);
#endif
	size_t bytes = (size_t)query->n * ikmap_t(map) * ikmap_cell_size(map);
	for (int dense = 0; dense < 2; dense++) {
		void *on = cells_vnni(map, query, 1, dense), *off = cells_vnni(map, query, 0, dense);
		ck_assert_msg(memcmp(on, off, bytes) == 0,
			"8-bit and float cells differ (psi %d, %s rows)", psi, dense ? "dense" : "sparse");
		free(on);
		free(off);
	}
	check_cells(map, train, query, scale, (int)IKMAP_PATH_DENSE);
	ikmap_free(map);
}

START_TEST(vnni_products_do_not_matter)
{
	struct data train = prototype_data(600, 150, 10, 0.1, 51);
	struct data query = prototype_data(250, 150, 10, 0.1, 52);
	int psis[] = { 1, 2, 5, 16, 17, 32, 45, 64 };
	for (int i = 0; i < 8; i++)
		check_vnni(&train, &query, 11, psis[i], 1);
	check_vnni(&train, &query, 4, 13, 0);
	data_free(&train);
	data_free(&query);
	struct data ties = tie_rows(53);
	check_vnni(&ties, &ties, 9, 16, 0);
	check_vnni(&ties, &ties, 9, 40, 0);
	data_free(&ties);
	/* far clusters, tiny spread: nearly every partitioning left to the float scores */
	struct rng g;
	rng_seed(&g, 54);
	struct data far = data_new(200, 12);
	for (int i = 0; i < far.n; i++)
		for (int j = 1; j <= 12; j++)
			set(&far, i, j, (i % 2 ? 1e4 : -1e4) + 1e-3 * rng_unit(&g));
	check_vnni(&far, &far, 10, 16, 0);
	data_free(&far);
}
END_TEST

/*
 * A dense row packs to the very floats of its sparse form (zeros and -0
 * absent, so -mean), whichever loop packs it (the AVX-512 one for scales
 * with factors, the scalar one for scale 4 and for no factors), its norm
 * agrees up to the order of its sum, and a non-finite value anywhere in
 * the row, also past dim, is reported: at every width around the vector
 * steps of 8 and 16, with fewer and more columns than dim.
 */
START_TEST(dense_rows_pack_as_their_sparse_form)
{
	struct rng g;
	rng_seed(&g, 71);
	int dims[] = { 1, 7, 8, 9, 15, 16, 17, 31, 33, 784 };
	for (int di = 0; di < 10; di++) {
		int d = dims[di];
		int widths[] = { d, d > 3 ? d - 3 : d, d + 5 };
		double *mean = malloc(((size_t)d + 1) * sizeof *mean);
		double *factor = malloc(((size_t)d + 1) * sizeof *factor);
		float *a = malloc(((size_t)d + 2) * sizeof *a), *b = malloc(((size_t)d + 2) * sizeof *b);
		double *x = malloc(((size_t)d + 5) * sizeof *x);
		struct feature_node *nodes = malloc(((size_t)d + 1) * sizeof *nodes);
		ck_assert(mean && factor && a && b && x && nodes);
		for (int j = 0; j <= d; j++) {
			mean[j] = rng_unit(&g) - 0.3;
			factor[j] = 0.25 + 2 * rng_unit(&g);
		}
		mean[1] = 0;	/* -mean is -0 there: the sign must follow the sparse form */
		for (int form = 0; form < 3; form++) {
			struct ikmap map;
			memset(&map, 0, sizeof map);
			map.dim = d;
			map.mean = mean;
			map.factor = form == 2 ? NULL : factor;	/* form 2: scale 0 */
			map.scaled = form == 1 ? 4 : form == 2 ? 0 : 1;
			for (int wi = 0; wi < 3; wi++) {
				int cols = widths[wi];
				for (int trial = 0; trial < 20; trial++) {
					int nz = 0;
					for (int j = 0; j < cols; j++) {
						double u = rng_unit(&g);
						x[j] = u < 0.4 ? 0 : u < 0.45 ? -0.0 : 3 * rng_unit(&g);
						if (j < d && x[j] != 0)
							nodes[nz++] = (struct feature_node){ j + 1, x[j] };
					}
					nodes[nz].index = -1;
					int bad = -1;
					double sq;
					double na = ikmap_anne_pack_dense(&map, x, cols, a, &bad, &sq);
					double nb = ikmap_anne_pack_row(&map, nodes, b);
					ck_assert_int_eq(bad, 0);
					ck_assert_msg(memcmp(a, b, (size_t)d * sizeof *a) == 0,
						"d %d cols %d form %d: packed floats differ", d, cols, form);
					ck_assert(a[d] == 1 && b[d] == 1);
					ck_assert_msg(fabs(na - nb) <= 1e-12 * (nb + 1) && fabs(sq - na * na) <= 1e-9 * (sq + 1),
						"d %d: norms %.17g %.17g", d, na, nb);
				}
				/* one bad value at each position of the row */
				for (int p = 0; p < cols; p++) {
					for (int j = 0; j < cols; j++)
						x[j] = j == p ? (p % 2 ? NAN : -INFINITY) : 0.5;
					int bad = 0;
					ikmap_anne_pack_dense(&map, x, cols, a, &bad, NULL);
					ck_assert_msg(bad == 1, "d %d cols %d: a bad value at %d not seen", d, cols, p);
				}
			}
		}
		free(mean);
		free(factor);
		free(a);
		free(b);
		free(x);
		free(nodes);
	}
}
END_TEST

/*
 * The double recheck (anne_exact.c, ikmap_recheck_double): its score of
 * float entries is within the stated bound of the reference distance, and
 * the bound is not loose where rounding is worst. Rows and centres of
 * opposite signs (|x - c| = |x| + |c|, so the entries' rounding errors
 * add up to nearly 2 u (A + B)^2) and random mantissas: the largest error
 * seen must stay below the bound but above a third of it, so a bound
 * three times too small would fail here.
 */
START_TEST(recheck_bound_holds_and_is_tight)
{
	struct rng g;
	rng_seed(&g, 61);
	int dims[] = { 1, 2, 3, 8, 50 };
	double worst = 0;
	for (int di = 0; di < 5; di++) {
		int d = dims[di];
		struct ikmap map;
		memset(&map, 0, sizeof map);
		double maxnorm;
		map.dim = d;
		map.psi = 1;
		map.dense_ld = d + 2;
		map.part_maxnorm_centred = &maxnorm;
		float *x = malloc((size_t)d * sizeof *x), *row = malloc(((size_t)d + 2) * sizeof *row);
		double *xd = malloc((size_t)d * sizeof *xd), *cd = malloc((size_t)d * sizeof *cd);
		struct ikmap_recheck rc;
		ck_assert(x && row && xd && cd && ikmap_recheck_init(&rc, 1) == 0);
		for (int trial = 0; trial < 20000; trial++) {
			double scale = ldexp(1, (int)rng_below(&g, 40) - 20);
			double xx = 0, cc = 0, ref = 0;
			for (int i = 0; i < d; i++) {
				/* the centred values (mean 0): row positive, centre negative */
				xd[i] = scale * (0.5 + 0.5 * rng_unit(&g));
				cd[i] = -scale * (0.5 + 0.5 * rng_unit(&g));
				x[i] = (float)xd[i];
				row[i] = -2 * (float)cd[i];
				xx += xd[i] * xd[i];
				cc += cd[i] * cd[i];
				double diff = xd[i] - cd[i];
				ref += diff * diff;
			}
			maxnorm = sqrt(cc);
			unsigned char flag = 1;
			rc.cand[0] = 0;
			rc.rows[0] = row;
			ck_assert_int_eq(ikmap_recheck_double(&map, x, sqrt(xx), 0, 1, &rc, &flag), 0);
			struct ikmap_bound e = ikmap_recheck_bound(d);
			double bound = ikmap_bound_at(&e, sqrt(xx), maxnorm);
			double err = fabs(rc.dist[0] - ref);
			ck_assert_msg(err <= bound, "d %d: error %g above the bound %g", d, err, bound);
			worst = fmax(worst, err / bound);
		}
		ikmap_recheck_free(&rc);
		free(x);
		free(row);
		free(xd);
		free(cd);
	}
	ck_assert_msg(worst > 1.0 / 3, "largest error only %.3f of the bound", worst);
}
END_TEST

/*
 * A call mapping at least as many rows as the map has samples (and a
 * tile's worth) holds every sample's dense row for the call (anne_prune.c,
 * held_rows) instead of making a block's rows per tile: the cells still
 * equal the reference, and the same rows mapped in small calls (rows
 * made per block) give the same cells.
 */
START_TEST(pruned_held_rows)
{
	struct data train = prototype_data(500, 160, 12, 0.05, 62);
	struct data query = prototype_data(2100, 160, 12, 0.05, 63);
	struct ikmap *map = build(&train, 8, 48, 1, 64);
	check_pruned(map, &train, &query, 1);
	ck_assert_msg(ikmap_prune_held_last(), "the 2100-row call did not hold the rows");
	void *whole = map_rows(map, &query, 2);
	size_t bytes = ikmap_cell_size(map) * (size_t)ikmap_t(map);
	unsigned char *parts = malloc((size_t)query.n * bytes);
	ck_assert_ptr_nonnull(parts);
	char err[IKMAP_ERR_SIZE] = "";
	for (int first = 0; first < query.n; first += 300) {
		int n = query.n - first < 300 ? query.n - first : 300;
		ck_assert_msg(ikmap_map(map, query.row + first, (size_t)n, parts + (size_t)first * bytes,
			2, err) == 0, "%s", err);
		ck_assert_msg(!ikmap_prune_held_last(), "a 300-row call held the rows");
	}
	ck_assert(memcmp(whole, parts, (size_t)query.n * bytes) == 0);
	free(whole);
	free(parts);
	ikmap_free(map);
	data_free(&train);
	data_free(&query);
}
END_TEST

/*
 * The 8-bit path quantises the centres once per map (anne_vnni.c keeps
 * them in map->vnni): two threads that map through one fresh map at
 * once (racing to make them), and later calls reusing them, all give the
 * cells of a map that makes them for one call only, which equal the
 * reference.
 */
START_TEST(vnni_centres_made_once)
{
	int vnni = 0;	/* without the 8-bit path nothing may be kept, and the cells are the same */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
	__builtin_cpu_init();
	vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl")
		&& __builtin_cpu_supports("avx512bw");
#endif
	struct data train = prototype_data(500, 150, 10, 0.1, 55);
	struct data query = prototype_data(300, 150, 10, 0.1, 56);
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = build(&train, 9, 40, 1, 57);
	ck_assert_msg(ikmap_set_path(map, IKMAP_PATH_DENSE, err) == 0, "%s", err);
	ck_assert_int_eq(ikmap_anne_set_prune(map, 0, err), 0);
	ck_assert_int_eq(ikmap_anne_vnni_ready(map), vnni);
	ck_assert_ptr_null(atomic_load(&map->vnni));
	size_t bytes = (size_t)query.n * ikmap_t(map) * ikmap_cell_size(map);
	unsigned char *twice[2];
	int status[2];
#pragma omp parallel for num_threads(2)
	for (int i = 0; i < 2; i++) {
		twice[i] = malloc(bytes);
		status[i] = twice[i] ? ikmap_map(map, query.row, (size_t)query.n, twice[i], 1, NULL) : -1;
	}
	ck_assert(status[0] == 0 && status[1] == 0);
	struct ikmap_vnni *kept = atomic_load(&map->vnni);
	ck_assert(vnni ? kept != NULL : kept == NULL);
	ck_assert(memcmp(twice[0], twice[1], bytes) == 0);
	/* again, in three calls: the same kept centres, the same cells */
	unsigned char *again = malloc(bytes);
	ck_assert_ptr_nonnull(again);
	size_t row_bytes = bytes / (size_t)query.n;
	for (int first = 0; first < query.n; first += 100)
		ck_assert_int_eq(ikmap_map(map, query.row + first, 100, again + (size_t)first * row_bytes,
			2, err), 0);
	ck_assert_ptr_eq(atomic_load(&map->vnni), kept);
	ck_assert(memcmp(twice[0], again, bytes) == 0);
	check_cells(map, &train, &query, 1, (int)IKMAP_PATH_DENSE);
	free(twice[0]);
	free(twice[1]);
	free(again);
	ikmap_free(map);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(pruning_chosen_for_wide_data_only)
{
	/*
	 * The cost model: pruned on wide clustered data (most centres ruled
	 * out), never on narrow data, and not on wide uniform noise in many
	 * dimensions, where the bounds rule out too few.
	 */
	struct data wide = prototype_data(1000, 400, 20, 0.02, 32);
	struct data narrow = random_data(300, 20, 1.0, 0, 1, 33);
	struct data noise = random_data(1000, 400, 1.0, 0, 1, 34);
	struct ikmap *map = build(&wide, 20, 128, 1, 19);
	ck_assert_int_eq(ikmap_path(map), IKMAP_PATH_DENSE);
	ck_assert(ikmap_anne_pruned(map));
	ikmap_free(map);
	map = build(&narrow, 4, 64, 1, 19);
	ck_assert(!ikmap_anne_pruned(map));
	ikmap_free(map);
	map = build(&noise, 20, 128, 1, 19);
	ck_assert(!ikmap_anne_pruned(map));
	ikmap_free(map);
	data_free(&wide);
	data_free(&narrow);
	data_free(&noise);
}
END_TEST

static Suite *ikmap_anne_suite(void)
{
	Suite *s = suite_create("ikmap_anne");
	TCase *tc = tcase_create("exact");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, dense_random_data);
	tcase_add_test(tc, sparse_random_data);
	tcase_add_test(tc, duplicated_centres);
	tcase_add_test(tc, equidistant_points);
	tcase_add_test(tc, large_norms_small_distances);
	tcase_add_test(tc, tiny_values);
	tcase_add_test(tc, huge_values_use_the_sparse_path);
	tcase_add_test(tc, non_finite_rows_still_get_cells);
	tcase_add_test(tc, wide_cells);
	tcase_add_test(tc, thread_count_does_not_matter);
	suite_add_tcase(s, tc);
	TCase *pruned = tcase_create("pruned");
	tcase_set_timeout(pruned, 120);
	tcase_add_test(pruned, pruned_random_data);
	tcase_add_test(pruned, pruned_structured_data);
	tcase_add_test(pruned, pruned_ties);
	tcase_add_test(pruned, pruned_near_ties);
	tcase_add_test(pruned, pruned_odd_rows);
	tcase_add_test(pruned, pruned_thread_count_does_not_matter);
	tcase_add_test(pruned, scan_kernels_do_not_matter);
	tcase_add_test(pruned, vnni_products_do_not_matter);
	tcase_add_test(pruned, pruning_chosen_for_wide_data_only);
	tcase_add_test(pruned, dense_rows_pack_as_their_sparse_form);
	tcase_add_test(pruned, recheck_bound_holds_and_is_tight);
	tcase_add_test(pruned, pruned_held_rows);
	tcase_add_test(pruned, vnni_centres_made_once);
	suite_add_tcase(s, pruned);
	return s;
}

UNIT_MAIN(ikmap_anne_suite)
