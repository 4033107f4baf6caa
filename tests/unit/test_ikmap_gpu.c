/*
 * test_ikmap_gpu.c - ikmap_map_on: GPU cells are identical to the CPU
 * paths' (which test_ikmap_anne.c checks against a brute-force reference),
 * on random dense and sparse data and on data made to break float
 * arithmetic: exact ties, duplicated centres, near ties below float
 * resolution, large norms with small distances, values whose squares
 * underflow float.
 *
 * Always (no device needed): -d auto gives the CPU's cells, iForest
 * ignores the device, and without a usable GPU IKMAP_DEVICE_GPU fails with
 * the reason. The device tests run only where a CUDA device is visible;
 * elsewhere the program prints a SKIPPED line (they are not counted).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"
#include "ikmap.h"
#include "ikmap_fixtures.h"
#include "rng.h"

static struct ikmap *build(const struct data *train, enum ikmap_method method, int t, int psi,
	int scale)
{
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap_params p = { method, t, psi, 11, scale, 0, 0 };
	struct ikmap *map = ikmap_build(train->row, train->n, train->d, &p, err);
	ck_assert_msg(map != NULL, "build failed: %s", err);
	return map;
}

static void *map_on(const struct ikmap *map, const struct data *q, enum ikmap_device device)
{
	char err[IKMAP_ERR_SIZE] = "";
	void *cells = malloc((size_t)q->n * ikmap_t(map) * ikmap_cell_size(map));
	ck_assert_ptr_nonnull(cells);
	ck_assert_msg(ikmap_map_on(map, q->row, (size_t)q->n, cells, 0, device, err) == 0, "%s", err);
	return cells;
}

/* Cells of query on device equal those of the CPU's dense and sparse paths. */
static void check_same_as_cpu(struct ikmap *map, const struct data *query, enum ikmap_device device)
{
	char err[IKMAP_ERR_SIZE] = "";
	size_t bytes = (size_t)query->n * ikmap_t(map) * ikmap_cell_size(map);
	void *on_device = map_on(map, query, device);
	enum ikmap_path paths[2] = { IKMAP_PATH_DENSE, IKMAP_PATH_SPARSE };
	for (int p = 0; p < (ikmap_method(map) == IKMAP_ANNE ? 2 : 1); p++) {
		if (ikmap_method(map) == IKMAP_ANNE)
			ck_assert_msg(ikmap_set_path(map, paths[p], err) == 0, "%s", err);
		void *on_cpu = map_on(map, query, IKMAP_DEVICE_CPU);
		size_t differ = 0;
		for (size_t i = 0; i < (size_t)query->n * ikmap_t(map); i++)
			differ += ikmap_cell_at(map, on_device, i) != ikmap_cell_at(map, on_cpu, i);
		ck_assert_msg(differ == 0 && memcmp(on_device, on_cpu, bytes) == 0,
			"%zu of %zu cells differ from the CPU path %d", differ,
			(size_t)query->n * ikmap_t(map), (int)paths[p]);
		free(on_cpu);
	}
	free(on_device);
}

static void check_gpu(const struct data *train, const struct data *query, int t, int psi, int scale)
{
	struct ikmap *map = build(train, IKMAP_ANNE, t, psi, scale);
	check_same_as_cpu(map, query, IKMAP_DEVICE_GPU);
	/* again: the second call reuses the map's GPU context */
	check_same_as_cpu(map, train, IKMAP_DEVICE_GPU);
	ikmap_free(map);
}

/* ---- always ------------------------------------------------------------ */

START_TEST(auto_gives_the_cpu_cells)
{
	struct data train = random_data(300, 12, 1.0, -1, 3, 1);
	struct data query = random_data(150, 12, 0.5, -1, 3, 2);
	struct ikmap *map = build(&train, IKMAP_ANNE, 20, 32, 1);
	check_same_as_cpu(map, &query, IKMAP_DEVICE_AUTO);
	ikmap_free(map);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(iforest_ignores_the_device)
{
	struct data train = random_data(200, 6, 1.0, 0, 1, 3);
	struct ikmap *map = build(&train, IKMAP_IFOREST, 10, 16, 0);
	check_same_as_cpu(map, &train, IKMAP_DEVICE_GPU);
	ikmap_free(map);
	data_free(&train);
}
END_TEST

START_TEST(gpu_without_device_is_an_error)
{
	char why[IKMAP_ERR_SIZE] = "";
	ck_assert_int_eq(ikmap_gpu_devices(why), 0);
	ck_assert_msg(strcmp(why, "no CUDA device found") == 0
		|| strcmp(why, "this build has no GPU support") == 0, "reason: %s", why);
	struct data train = random_data(50, 4, 1.0, 0, 1, 4);
	struct ikmap *map = build(&train, IKMAP_ANNE, 3, 8, 1);
	char err[IKMAP_ERR_SIZE] = "";
	unsigned char cells[50 * 3 * 2];
	ck_assert_int_eq(ikmap_map_on(map, train.row, 50, cells, 0, IKMAP_DEVICE_GPU, err), -1);
	char expected[2 * IKMAP_ERR_SIZE];
	snprintf(expected, sizeof expected, "cannot map on the GPU: %s", why);
	ck_assert_str_eq(err, expected);
	ikmap_free(map);
	data_free(&train);
}
END_TEST

/* ---- device ------------------------------------------------------------ */

START_TEST(device_random_dense)
{
	struct data train = random_data(400, 30, 1.0, -1, 3, 5);
	struct data query = random_data(300, 30, 1.0, -1, 3, 6);
	check_gpu(&train, &query, 25, 64, 0);
	check_gpu(&train, &query, 25, 64, 1);
	/* issue 28's transforms of signed data: range and standard deviation factors */
	check_gpu(&train, &query, 25, 64, 2);
	check_gpu(&train, &query, 25, 64, 3);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(device_random_sparse)
{
	struct data train = random_data(400, 300, 0.05, 0, 5, 7);
	struct data query = random_data(200, 320, 0.05, 0, 5, 8);	/* features above d are ignored */
	check_gpu(&train, &query, 20, 32, 1);
	check_gpu(&train, &query, 20, 32, 4);	/* log1p on the host, before the floats (issue 28) */
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(device_duplicated_centres)
{
	struct data base = random_data(12, 6, 1.0, -2, 2, 9);
	struct data train = data_new(240, 6);
	for (int i = 0; i < train.n; i++)
		for (const struct feature_node *f = base.row[i % 12]; f->index != -1; f++)
			set(&train, i, f->index, f->value);
	struct data query = random_data(100, 6, 1.0, -2, 2, 10);
	check_gpu(&train, &query, 15, 64, 0);
	check_gpu(&train, &query, 15, 64, 1);
	data_free(&base);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(device_exact_ties)
{
	/* Integer points and half-integer midpoints: exact ties, lowest index wins. */
	struct rng g;
	rng_seed(&g, 11);
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
	check_gpu(&train, &query, 20, 48, 0);
	check_gpu(&train, &query, 20, 48, 1);	/* factors 1/4: still exact in float */
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(device_near_ties_below_float_resolution)
{
	/*
	 * Queries almost midway between two training rows, off by 1e-12
	 * relative: the float-rounded data can order the two centres either
	 * way, only the double reference decides. The factors (1/max) are not
	 * floats, so every scaled value is rounded on the way to the GPU.
	 */
	struct rng g;
	rng_seed(&g, 12);
	int d = 7;
	struct data train = random_data(100, d, 1.0, 0.1, 3.1, 13), query = data_new(400, d);
	for (int r = 0; r < query.n; r++) {
		int a = (int)rng_below(&g, (uint64_t)train.n), b = (int)rng_below(&g, (uint64_t)train.n);
		double nudge = (rng_unit(&g) - 0.5) * 1e-12;
		for (int j = 1; j <= d; j++) {
			double va = train.row[a][j - 1].value, vb = train.row[b][j - 1].value;
			set(&query, r, j, (va + vb) / 2 + nudge * (va - vb));
		}
	}
	check_gpu(&train, &query, 30, 100, 0);
	check_gpu(&train, &query, 30, 100, 1);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(device_large_norms_small_distances)
{
	struct rng g;
	rng_seed(&g, 14);
	int d = 8;
	struct data train = data_new(200, d), query = data_new(120, d);
	struct data *sets[2] = { &train, &query };
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < sets[s]->n; i++) {
			double centre = i % 2 ? 1e4 : -1e4;
			for (int j = 1; j <= d; j++)
				set(sets[s], i, j, centre + 1e-3 * rng_unit(&g));
		}
	check_gpu(&train, &query, 10, 32, 0);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(device_tiny_values)
{
	struct data train = random_data(150, 10, 1.0, -1e-25, 1e-25, 15);
	struct data query = random_data(80, 10, 1.0, -1e-25, 1e-25, 16);
	check_gpu(&train, &query, 10, 32, 0);
	data_free(&train);
	data_free(&query);
}
END_TEST

START_TEST(device_wide_cells)
{
	struct data train = random_data(70000, 2, 1.0, 0, 1, 17);
	struct data query = random_data(40, 2, 1.0, 0, 1, 18);
	check_gpu(&train, &query, 1, 66000, 1);
	data_free(&train);
	data_free(&query);
}
END_TEST

/* Whether a CUDA device is visible, asked in a child process: CUDA must
 * not be initialised in this process before check forks the tests. */
static int device_visible(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 0;
	}
	if (pid == 0)
		_exit(ikmap_gpu_devices(NULL) > 0 ? 0 : 1);
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static Suite *ikmap_gpu_suite(void)
{
	Suite *s = suite_create("ikmap_gpu");
	TCase *host = tcase_create("host");
	tcase_set_timeout(host, 60);
	tcase_add_test(host, auto_gives_the_cpu_cells);
	tcase_add_test(host, iforest_ignores_the_device);
	suite_add_tcase(s, host);
	if (device_visible()) {
		TCase *device = tcase_create("device");
		tcase_set_timeout(device, 300);
		tcase_add_test(device, device_random_dense);
		tcase_add_test(device, device_random_sparse);
		tcase_add_test(device, device_duplicated_centres);
		tcase_add_test(device, device_exact_ties);
		tcase_add_test(device, device_near_ties_below_float_resolution);
		tcase_add_test(device, device_large_norms_small_distances);
		tcase_add_test(device, device_tiny_values);
		tcase_add_test(device, device_wide_cells);
		suite_add_tcase(s, device);
	} else {
		tcase_add_test(host, gpu_without_device_is_an_error);
		printf("SKIPPED: no CUDA device (the 8 ikmap GPU device tests did not run)\n");
	}
	return s;
}

UNIT_MAIN(ikmap_gpu_suite)
