/*
 * ik_mapping.c - times one Isolation Kernel map in one process, and one
 * SGEMM of the same shape from the build's BLAS (ikmap/gemm.h: OpenBLAS,
 * another CBLAS or the built-in kernel) for comparison.
 *
 * ik_mapping FILE METHOD T PSI THREADS PATH REPS [nosgemm]
 *   FILE: LIBSVM rows (labels ignored); METHOD: anne or iforest;
 *   PATH: auto, dense or sparse (aNNE), or plain: the dense path without
 *   its pruning (anne_prune.c), as it was before; REPS: repetitions (best is kept).
 * Prints one line of key=value pairs: rows, dim, build_s (ikmap_build),
 * map_s (ikmap_map of every row, THREADS threads, best of REPS), map_cpu_s
 * (the process's CPU time in it, best of REPS), and on
 * the dense aNNE path sgemm_s: the best of REPS calls of the build's SGEMM on
 * THREADS threads, C[rows x t*psi] = A[rows x dim] B[t*psi x dim]^T (the
 * map's own layout); blas: which SGEMM the build uses (spaces as '_');
 * pruned=0|1, and when 1, full_fraction: the share of (row, centre) pairs
 * whose full distance was computed in the last mapping; vnni=0|1: the
 * rows went by 8-bit products (ikmap/anne_vnni.c).
 * nosgemm: skip the SGEMM timing (no sgemm_s).
 * A benchmark aid (bench/ik_mapping.py drives it), not part of the
 * library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gemm.h"
#include "ikmap.h"
#include "ikmap_impl.h"
#include "libsvm_rows.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process (all threads): steadier than wall time on a loaded machine. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "ik_mapping: %s\n", what);
	exit(1);
}

static void *checked_malloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	if (!p)
		die("out of memory");
	return p;
}

/* Best of reps SGEMM times of the map's shape, on deterministic values. */
static double time_sgemm(size_t rows, int dim, size_t cols, int threads, int reps)
{
	float *a = checked_malloc(rows * dim * sizeof *a);
	float *b = checked_malloc(cols * (size_t)dim * sizeof *b);
	float *c = checked_malloc(rows * cols * sizeof *c);
	for (size_t i = 0; i < rows * dim; i++)
		a[i] = (float)((i * 7919) % 1000) / 1000.0f;
	for (size_t i = 0; i < (size_t)dim * cols; i++)
		b[i] = (float)((i * 104729) % 1000) / 1000.0f;
	double best = 1e300;
	for (int r = 0; r < reps; r++) {
		double t0 = now();
		if (ikmap_gemm_nt_threads((int)rows, (int)cols, dim, a, dim, b, dim, c, (int)cols,
				threads) != 0)
			die("out of memory in the SGEMM");
		double s = now() - t0;
		if (s < best)
			best = s;
	}
	free(a);
	free(b);
	free(c);
	return best;
}

int main(int argc, char **argv)
{
	if (argc != 8 && !(argc == 9 && strcmp(argv[8], "nosgemm") == 0))
		die("usage: ik_mapping FILE anne|iforest T PSI THREADS auto|dense|sparse|plain REPS [nosgemm]");
	struct libsvm_rows d;
	libsvm_rows_read(argv[1], &d);
	struct ikmap_params params = {
		.method = strcmp(argv[2], "iforest") == 0 ? IKMAP_IFOREST : IKMAP_ANNE,
		.t = atoi(argv[3]), .psi = atoi(argv[4]), .seed = 1, .scale = 1,
		.threads = atoi(argv[5]),
	};
	int reps = atoi(argv[7]);
	char err[IKMAP_ERR_SIZE];
	double t0 = now();
	double c0 = cpu_now();
	struct ikmap *map = ikmap_build(d.rows, (int)d.count, d.dim, &params, err);
	double build_s = now() - t0, build_cpu_s = cpu_now() - c0;
	if (!map)
		die(err);
	int plain = strcmp(argv[6], "plain") == 0;
	enum ikmap_path path = strcmp(argv[6], "dense") == 0 || plain ? IKMAP_PATH_DENSE
		: strcmp(argv[6], "sparse") == 0 ? IKMAP_PATH_SPARSE : IKMAP_PATH_AUTO;
	if (params.method == IKMAP_ANNE && ikmap_set_path(map, path, err) != 0)
		die(err);
	if (plain && params.method == IKMAP_ANNE && ikmap_anne_set_prune(map, 0, err) != 0)
		die(err);
	void *cells = checked_malloc(d.count * params.t * ikmap_cell_size(map));
	double map_s = 1e300, map_cpu_s = 1e300;
	for (int r = 0; r < reps; r++) {
		t0 = now();
		double c0 = cpu_now();
		if (ikmap_map(map, d.rows, d.count, cells, params.threads, err) != 0)
			die(err);
		double s = now() - t0, c = cpu_now() - c0;
		if (s < map_s)
			map_s = s;
		if (c < map_cpu_s)
			map_cpu_s = c;
	}
	printf("rows=%zu dim=%d path=%s build_s=%.6f map_s=%.6f map_cpu_s=%.6f", d.count, d.dim,
		ikmap_path(map) == IKMAP_PATH_DENSE ? "dense" : "sparse", build_s, map_s, map_cpu_s);
	if (ikmap_path(map) == IKMAP_PATH_DENSE && argc == 8)
		printf(" sgemm_s=%.6f", time_sgemm(d.count, d.dim, (size_t)params.t * params.psi,
			params.threads, reps));
	printf(" build_cpu_s=%.6f pruned=%d vnni=%d", build_cpu_s,
		params.method == IKMAP_ANNE && ikmap_anne_pruned(map),
		params.method == IKMAP_ANNE && ikmap_path(map) == IKMAP_PATH_DENSE
			&& ikmap_anne_vnni_ready(map));
	if (params.method == IKMAP_ANNE && ikmap_anne_pruned(map)) {
		uint64_t pairs, full, exact;
		ikmap_prune_stats(&pairs, &full, &exact);
		printf(" full_fraction=%.5f", pairs ? (double)full / (double)pairs : 0.0);
	}
	/* The SGEMM's name with '_' for spaces, so that every field stays key=value. */
	printf(" blas=");
	for (const char *ch = ikmap_gemm_name(); *ch; ch++)
		putchar(*ch == ' ' ? '_' : *ch);
	printf("\n");
	free(cells);
	ikmap_free(map);
	libsvm_rows_free(&d);
	return 0;
}
