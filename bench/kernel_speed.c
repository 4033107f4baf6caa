/*
 * kernel_speed.c - rows per second of the acos map (issue 27) on one
 * thread, beside the same-shape float GEMM it is measured against (its
 * goal: within 1.2x) and beside aNNE and iForest maps of the same rows.
 *
 * Usage: bench/kernel_speed FILE [K...]   (FILE: LIBSVM text; K default 500 2000)
 * Prints one line per measurement: what, rows, seconds, rows per second,
 * and for acos its time over the SGEMM's (rows x d against k x d).
 * Benchmark aid: timings are the best of three runs (wall clock).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gemm.h"
#include "ikmap.h"
#include "libsvm_rows.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double time_map(const struct ikmap *map, struct libsvm_rows *x, void *cells)
{
	double best = 1e30;
	for (int rep = 0; rep < 3; rep++) {
		char err[IKMAP_ERR_SIZE];
		double t0 = now();
		if (ikmap_map(map, x->rows, x->count, cells, 1, err)) {
			fprintf(stderr, "map: %s\n", err);
			exit(1);
		}
		double t = now() - t0;
		best = t < best ? t : best;
	}
	return best;
}

/* The SGEMM of the acos fast path's shape, on the rows' own values. */
static double time_sgemm(struct libsvm_rows *x, int k)
{
	size_t n = x->count, d = (size_t)x->dim;
	float *a = calloc(n * d, sizeof(float)), *b = malloc((size_t)k * d * sizeof(float));
	float *c = malloc(n * (size_t)k * sizeof(float));
	if (!a || !b || !c) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (size_t r = 0; r < n; r++)
		for (const struct feature_node *f = x->rows[r]; f->index != -1; f++)
			a[r * d + (size_t)f->index - 1] = (float)f->value;
	for (size_t i = 0; i < (size_t)k * d; i++)
		b[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1;
	double best = 1e30;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now();
		if (ikmap_gemm_nt_threads((int)n, k, (int)d, a, (int)d, b, (int)d, c, k, 1)) {
			fprintf(stderr, "gemm: out of memory\n");
			exit(1);
		}
		double t = now() - t0;
		best = t < best ? t : best;
	}
	free(a);
	free(b);
	free(c);
	return best;
}

static struct ikmap *make(struct libsvm_rows *x, enum ikmap_method m, int t, int psi)
{
	struct ikmap_params p = { m, t, psi, 1, 0, 1 };
	char err[IKMAP_ERR_SIZE];
	struct ikmap *map = ikmap_build(x->rows, (int)x->count, x->dim, &p, err);
	if (!map) {
		fprintf(stderr, "build: %s\n", err);
		exit(1);
	}
	return map;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [K...]\n", argv[0]);
		return 1;
	}
	struct libsvm_rows x;
	libsvm_rows_read(argv[1], &x);
	int ks[8] = { 500, 2000 }, nk = 2;
	if (argc > 2) {
		nk = argc - 2 > 8 ? 8 : argc - 2;
		for (int i = 0; i < nk; i++)
			ks[i] = atoi(argv[i + 2]);
	}
	printf("%s: %zu rows, d = %d, GEMM: %s\n", argv[1], x.count, x.dim, ikmap_gemm_name());
	void *cells = NULL;
	for (int i = 0; i < nk; i++) {
		int k = ks[i];
		free(cells);
		cells = malloc(x.count * (size_t)k * sizeof(uint16_t));
		if (!cells)
			return 1;
		double g = time_sgemm(&x, k);
		printf("sgemm      k=%-5d %8.3f s %10.0f rows/s\n", k, g, x.count / g);
		struct ikmap *map = make(&x, IKMAP_ACOS, k, 2);
		const char *names[3] = { "auto", "float", "reference" };
		enum ikmap_path paths[3] = { IKMAP_PATH_AUTO, IKMAP_PATH_DENSE, IKMAP_PATH_SPARSE };
		for (int p = 0; p < 3; p++) {
			char err[IKMAP_ERR_SIZE];
			if (ikmap_set_path(map, paths[p], err))
				continue;
			double s = time_map(map, &x, cells);
			printf("acos %-9s k=%-5d %8.3f s %10.0f rows/s  %.2fx sgemm\n", names[p], k, s,
				x.count / s, s / g);
		}
		ikmap_free(map);
	}
	free(cells);
	cells = malloc(x.count * 100 * sizeof(uint16_t));
	if (!cells)
		return 1;
	struct ikmap *anne = make(&x, IKMAP_ANNE, 100, 256);
	double s = time_map(anne, &x, cells);
	printf("anne       t=100 psi=256 %8.3f s %10.0f rows/s\n", s, x.count / s);
	ikmap_free(anne);
	struct ikmap *forest = make(&x, IKMAP_IFOREST, 100, 256);
	s = time_map(forest, &x, cells);
	printf("iforest    t=100 psi=256 %8.3f s %10.0f rows/s\n", s, x.count / s);
	ikmap_free(forest);
	free(cells);
	libsvm_rows_free(&x);
	return 0;
}
