/*
 * ikmap_bench.c - times aNNE mapping against the GEMM it is built on.
 *
 * usage: ikmap_bench n d [t psi threads density]
 * Makes n random rows of dimension d (each feature present with the given
 * density, default 1; values uniform in [0, 1)), builds an aNNE map from
 * them and maps them all, on the dense path and on the sparse path. For
 * comparison, in the same process and with the same threads:
 *   - one SGEMM and one DGEMM of the same shape (n x d x t*psi), output
 *     preallocated and touched, OpenBLAS using `threads` threads;
 *   - the dense path's own tiled SGEMMs alone (no packing, no argmin).
 * Also times an iForest map of the same rows. Calls OpenBLAS itself
 * (its DGEMM too), so `make ikmap-bench` builds it only when the build
 * uses OpenBLAS (BLAS block of the Makefile). Each time is the best of 5,
 * in seconds of process CPU time (all threads), which a busy shared
 * machine disturbs less than wall time; with one thread it is the wall
 * time of an idle machine. Prints no verdict: the numbers are for reports.
 */
#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ikmap.h"
#include "rng.h"

#define REPEATS 5

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static struct feature_node **random_rows(int n, int d, double density)
{
	struct feature_node **rows = malloc((size_t)n * sizeof *rows);
	struct feature_node *pool = malloc((size_t)n * ((size_t)d + 1) * sizeof *pool);
	if (!rows || !pool) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	struct rng g;
	rng_seed(&g, 1234);
	for (int i = 0; i < n; i++) {
		struct feature_node *f = rows[i] = pool + (size_t)i * ((size_t)d + 1);
		for (int j = 1; j <= d; j++)
			if (density >= 1 || rng_unit(&g) < density) {
				f->index = j;
				f->value = rng_unit(&g);
				f++;
			}
		f->index = -1;
	}
	return rows;
}

static float *random_floats(size_t n)
{
	float *a = malloc(n * sizeof(float));
	if (!a) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	struct rng g;
	rng_seed(&g, 99);
	for (size_t i = 0; i < n; i++)
		a[i] = (float)rng_unit(&g);
	return a;
}

/* Best of REPEATS mapping times of all rows on the map's current path. */
static double time_map(struct ikmap *map, struct feature_node **rows, int n, int threads)
{
	void *cells = malloc((size_t)n * ikmap_t(map) * ikmap_cell_size(map));
	char err[IKMAP_ERR_SIZE];
	double best = 1e30;
	for (int r = 0; r < REPEATS; r++) {
		double t0 = now();
		if (!cells || ikmap_map(map, rows, (size_t)n, cells, threads, err)) {
			fprintf(stderr, "map failed\n");
			exit(1);
		}
		double dt = now() - t0;
		best = dt < best ? dt : best;
	}
	free(cells);
	return best;
}

static double time_sgemm(int n, int d, int m)
{
	float *x = random_floats((size_t)n * d), *c = random_floats((size_t)m * d);
	float *out = random_floats((size_t)n * m);
	double best = 1e30;
	for (int r = 0; r < REPEATS; r++) {
		double t0 = now();
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, m, d, 1.0f, x, d, c, d,
			0.0f, out, m);
		double dt = now() - t0;
		best = dt < best ? dt : best;
	}
	free(x);
	free(c);
	free(out);
	return best;
}

static double time_dgemm(int n, int d, int m)
{
	double *x = malloc((size_t)n * d * sizeof(double)), *c = malloc((size_t)m * d * sizeof(double));
	double *out = malloc((size_t)n * m * sizeof(double));
	if (!x || !c || !out) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < (size_t)n * d; i++)
		x[i] = (double)(i % 7) / 7;
	for (size_t i = 0; i < (size_t)m * d; i++)
		c[i] = (double)(i % 5) / 5;
	memset(out, 0, (size_t)n * m * sizeof(double));
	double best = 1e30;
	for (int r = 0; r < REPEATS; r++) {
		double t0 = now();
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, m, d, 1.0, x, d, c, d,
			0.0, out, m);
		double dt = now() - t0;
		best = dt < best ? dt : best;
	}
	free(x);
	free(c);
	free(out);
	return best;
}

/* The dense path's GEMMs alone: 256-row tiles against 512-column blocks, K = d + 2. */
static double time_tiled_sgemm(int n, int d, int m, int threads)
{
	int k = d + 2, rows = 256, cols = 512;
	float *x = random_floats((size_t)n * k), *c = random_floats((size_t)m * k);
	int blas_threads = openblas_get_num_threads();
	openblas_set_num_threads(1);
	double best = 1e30;
	for (int r = 0; r < REPEATS; r++) {
		double t0 = now();
#pragma omp parallel num_threads(threads)
		{
			float *out = random_floats((size_t)rows * cols);
#pragma omp for schedule(dynamic, 1)
			for (int r0 = 0; r0 < n; r0 += rows) {
				int nr = n - r0 < rows ? n - r0 : rows;
				for (int c0 = 0; c0 < m; c0 += cols) {
					int nc = m - c0 < cols ? m - c0 : cols;
					cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nr, nc, k,
						1.0f, x + (size_t)r0 * k, k, c + (size_t)c0 * k, k,
						0.0f, out, nc);
				}
			}
			free(out);
		}
		double dt = now() - t0;
		best = dt < best ? dt : best;
	}
	openblas_set_num_threads(blas_threads);
	free(x);
	free(c);
	return best;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s n d [t psi threads density]\n", argv[0]);
		return 1;
	}
	int n = atoi(argv[1]), d = atoi(argv[2]);
	int t = argc > 3 ? atoi(argv[3]) : 100, psi = argc > 4 ? atoi(argv[4]) : 256;
	int threads = argc > 5 ? atoi(argv[5]) : omp_get_max_threads();
	double density = argc > 6 ? atof(argv[6]) : 1.0;
	int m = t * psi;
	struct feature_node **rows = random_rows(n, d, density);
	char err[IKMAP_ERR_SIZE];
	struct ikmap_params p = { IKMAP_ANNE, t, psi, 1, 1, threads };
	double t0 = now();
	struct ikmap *map = ikmap_build(rows, n, d, &p, err);
	if (!map) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	double build = now() - t0;
	enum ikmap_path chosen = ikmap_path(map);
	openblas_set_num_threads(threads);
	printf("n=%d d=%d t=%d psi=%d threads=%d density=%.3g (gemm flops %.3g)\n",
		n, d, t, psi, threads, density, 2.0 * n * d * m);
	printf("anne build                 %8.3f s  (auto path: %s)\n", build,
		chosen == IKMAP_PATH_DENSE ? "dense" : "sparse");
	double dense = -1, sparse;
	if (!ikmap_set_path(map, IKMAP_PATH_DENSE, err)) {
		dense = time_map(map, rows, n, threads);
		printf("anne map, dense path       %8.3f s\n", dense);
	}
	if (ikmap_set_path(map, IKMAP_PATH_SPARSE, err)) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	sparse = time_map(map, rows, n, threads);
	printf("anne map, sparse path      %8.3f s\n", sparse);
	ikmap_free(map);
	if (density >= 1) {
		double tiled = time_tiled_sgemm(n, d, m, threads);
		double sgemm = time_sgemm(n, d, m);
		double dgemm = time_dgemm(n, d, m);
		printf("tiled SGEMMs alone (K=d+2) %8.3f s\n", tiled);
		printf("one SGEMM n x d x t*psi    %8.3f s\n", sgemm);
		printf("one DGEMM n x d x t*psi    %8.3f s\n", dgemm);
		if (dense > 0)
			printf("dense map / one SGEMM = %.2f, / tiled SGEMMs = %.2f\n",
				dense / sgemm, dense / tiled);
	}
	p.method = IKMAP_IFOREST;
	t0 = now();
	map = ikmap_build(rows, n, d, &p, err);
	if (!map) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	printf("iforest build              %8.3f s\n", now() - t0);
	printf("iforest map                %8.3f s\n", time_map(map, rows, n, threads));
	ikmap_free(map);
	free(rows[0]);
	free(rows);
	return 0;
}
