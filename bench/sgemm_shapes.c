/*
 * sgemm_shapes.c - the built-in SGEMM (ikmap/sgemm.c) against the build's
 * BLAS (ikmap/gemm.h; OpenBLAS in a default build) on the products the
 * dense aNNE map runs: one tile of 256 rows x 512 centre columns x (d + 2)
 * for d = 16, 54, 128, 256, 784 (covtype-, usps-, MNIST-like widths), on
 * the calling thread only, as anne_dense.c calls it.
 *
 * usage: sgemm_shapes [REPS [KERNEL]]   (REPS default 200; KERNEL: a
 * built-in kernel to force, e.g. avx2+fma, as sgemm_use_kernel takes)
 * Prints one line per d: d=.. k=.. builtin_us=.. blas_us=.. ratio=..
 * blas=NAME kernel=NAME, each time the best of REPS calls (microseconds,
 * wall clock), ratio = builtin / blas. In a BLAS=builtin build both
 * columns time the same kernel. A benchmark aid (bench/blas_fallback.py
 * drives it), not part of the library; no verdict, no assertion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gemm.h"
#include "sgemm.h"

#define TILE_ROWS 256
#define TILE_COLS 512

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *filled(size_t n, unsigned seed)
{
	float *v = malloc(n * sizeof *v);
	if (!v) {
		fprintf(stderr, "sgemm_shapes: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (float)((i * 2654435761u + seed) % 2001) / 1000.0f - 1.0f;
	return v;
}

typedef int (*gemm_fn)(int, int, int, const float *, int, const float *, int, float *, int);

static double best_us(gemm_fn gemm, int k, const float *a, const float *b, float *c, int reps)
{
	double best = 1e300;
	for (int r = 0; r < reps; r++) {
		double t0 = now();
		if (gemm(TILE_ROWS, TILE_COLS, k, a, k, b, k, c, TILE_COLS) != 0) {
			fprintf(stderr, "sgemm_shapes: out of memory in the SGEMM\n");
			exit(1);
		}
		double s = now() - t0;
		if (s < best)
			best = s;
	}
	return best * 1e6;
}

static void print_name(const char *key, const char *name)
{
	printf(" %s=", key);
	for (; *name; name++)
		putchar(*name == ' ' ? '_' : *name);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 200;
	if (reps < 1) {
		fprintf(stderr, "usage: sgemm_shapes [REPS [KERNEL]]\n");
		return 1;
	}
	if (argc > 2 && sgemm_use_kernel(argv[2]) != 0) {
		fprintf(stderr, "sgemm_shapes: this CPU cannot run the %s kernel\n", argv[2]);
		return 1;
	}
	static const int dims[] = {16, 54, 128, 256, 784};
	struct ikmap_gemm_state state = ikmap_gemm_serial_begin();
	for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
		int k = dims[i] + 2;
		float *a = filled((size_t)TILE_ROWS * k, 1), *b = filled((size_t)TILE_COLS * k, 2);
		float *c = filled((size_t)TILE_ROWS * TILE_COLS, 3);
		/* Alternate the two, so that a change in the machine's load hits both. */
		double builtin = 1e300, blas = 1e300;
		for (int round = 0; round < 4; round++) {
			double t = best_us(sgemm_nt, k, a, b, c, (reps + 3) / 4);
			builtin = t < builtin ? t : builtin;
			t = best_us(ikmap_gemm_nt, k, a, b, c, (reps + 3) / 4);
			blas = t < blas ? t : blas;
		}
		printf("d=%d k=%d builtin_us=%.1f blas_us=%.1f ratio=%.3f", dims[i], k, builtin, blas,
			builtin / blas);
		print_name("blas", ikmap_gemm_name());
		print_name("kernel", sgemm_kernel_name());
		printf("\n");
		free(a);
		free(b);
		free(c);
	}
	ikmap_gemm_serial_end(state);
	return 0;
}
