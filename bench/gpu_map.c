/*
 * gpu_map.c - how fast the GPU aNNE mapper maps, next to plain cuBLAS
 * SGEMMs doing the same arithmetic in the same process.
 *
 * Usage: bench/gpu_map [mnist|covtype|epsilon|all [psi]]
 *
 * Shapes (synthetic: features uniform in [0,1), seed 20250101; centres are
 * rows drawn uniformly): mnist-like 70000 x 784, covtype-like 581012 x 54,
 * epsilon-like 500000 x 2000, each at t = 100 and psi = 256 and 4096
 * (or the psi given). Per case:
 *   map       anne_gpu_map() of all rows, host memory to host cells and
 *             flags, after one warm-up call on a prefix;
 *   sgemm     cublasSgemm (default math mode) over the same n x (t psi) x d
 *             product on device-resident rows, in the mapper's tiles (the
 *             whole score matrix would not fit), timed with CUDA events;
 *   pedantic  the same with CUBLAS_COMPUTE_32F_PEDANTIC, as the mapper;
 *   recheck   cells left to the host, and the host time to resolve them.
 * Effective TFLOP/s = 2 n d t psi / seconds; ratio = map / sgemm seconds.
 * Exits 2 with a message when no CUDA device is visible.
 */
#include "anne_bound.h"
#include "anne_gpu.h"
#include "anne_plan.h"
#include "rng.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { T = 100, SEED = 20250101, WARMUP_ROWS = 4096 };
/* The mapper's default: 256 MB of tiles, half per stream. */
static const size_t tile_budget_per_stream = (size_t)128 << 20;

struct shape {
	const char *name;
	int64_t n;
	int d;
};

static const struct shape shapes[] = {
	{"mnist", 70000, 784},
	{"covtype", 581012, 54},
	{"epsilon", 500000, 2000},
};

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *allocate(size_t bytes, const char *what)
{
	void *p = malloc(bytes);
	if (!p) {
		fprintf(stderr, "gpu_map: out of memory for %s (%zu bytes)\n", what, bytes);
		exit(1);
	}
	return p;
}

static void check_cuda(cudaError_t rc, const char *what)
{
	if (rc != cudaSuccess) {
		fprintf(stderr, "gpu_map: %s: %s\n", what, cudaGetErrorString(rc));
		exit(1);
	}
}

static void check_blas(cublasStatus_t rc, const char *what)
{
	if (rc != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "gpu_map: %s: cuBLAS status %d\n", what, (int)rc);
		exit(1);
	}
}

/* Uniform [0,1) features, filled in blocks with their own seeds so the
 * data do not depend on the number of threads. */
static float *make_rows(const struct shape *s)
{
	size_t total = (size_t)s->n * s->d;
	const size_t block = (size_t)1 << 20;
	float *rows = allocate(total * sizeof(float), "rows");
	int64_t blocks = (int64_t)((total + block - 1) / block);
#pragma omp parallel for schedule(static)
	for (int64_t b = 0; b < blocks; b++) {
		struct rng g;
		rng_seed(&g, SEED + 0x9E3779B97F4A7C15ULL * (uint64_t)(b + 1));
		size_t end = (size_t)(b + 1) * block < total ? (size_t)(b + 1) * block : total;
		for (size_t i = (size_t)b * block; i < end; i++)
			rows[i] = (float)rng_unit(&g);
	}
	return rows;
}

static float *sample_centres(const struct shape *s, const float *rows, int psi)
{
	size_t count = (size_t)T * psi;
	float *centres = allocate(count * s->d * sizeof(float), "centres");
	struct rng g;
	rng_seed(&g, SEED + (uint64_t)psi);
	for (size_t j = 0; j < count; j++) {
		uint64_t i = rng_below(&g, (uint64_t)s->n);
		memcpy(centres + j * s->d, rows + i * s->d, (size_t)s->d * sizeof(float));
	}
	return centres;
}

struct map_result {
	double seconds;
	double recheck_fraction;
	double host_recheck_seconds;
};

static struct map_result time_map(const struct shape *s, const float *rows, const float *centres, int psi)
{
	struct map_result out;
	char err[300];
	size_t cells_n = (size_t)s->n * T;
	uint32_t *cells = allocate(cells_n * sizeof(uint32_t), "cells");
	uint8_t *recheck = allocate(cells_n, "recheck flags");
	struct anne_gpu *g = anne_gpu_create(centres, T, psi, s->d, err, sizeof err);
	if (!g) {
		fprintf(stderr, "gpu_map: %s\n", err);
		exit(1);
	}
	int64_t warm = s->n < WARMUP_ROWS ? s->n : WARMUP_ROWS;
	if (anne_gpu_map(g, rows, warm, cells, recheck, err, sizeof err)) {
		fprintf(stderr, "gpu_map: %s\n", err);
		exit(1);
	}
	double start = now_seconds();
	if (anne_gpu_map(g, rows, s->n, cells, recheck, err, sizeof err)) {
		fprintf(stderr, "gpu_map: %s\n", err);
		exit(1);
	}
	out.seconds = now_seconds() - start;
	anne_gpu_free(g);

	size_t flagged = 0;
	for (size_t i = 0; i < cells_n; i++)
		flagged += recheck[i];
	out.recheck_fraction = (double)flagged / (double)cells_n;
	start = now_seconds();
	anne_resolve_rechecks(rows, s->n, centres, T, psi, s->d, cells, recheck);
	out.host_recheck_seconds = now_seconds() - start;
	free(cells);
	free(recheck);
	return out;
}

/* The mapper's GEMMs alone: every batch of rows against every chunk of
 * centres, into one reused tile. */
static double time_gemms(cublasHandle_t h, const struct shape *s, const float *dev_rows, const float *dev_centres,
			 float *dev_tile, const struct anne_plan *plan, int psi, int pedantic)
{
	const float one = 1.0f, zero = 0.0f;
	cudaEvent_t begin, end;
	check_cuda(cudaEventCreate(&begin), "cudaEventCreate");
	check_cuda(cudaEventCreate(&end), "cudaEventCreate");
	for (int pass = 0; pass < 2; pass++) { /* pass 0 warms up on one tile */
		check_cuda(cudaEventRecord(begin, 0), "cudaEventRecord");
		for (int64_t first = 0; first < s->n; first += plan->rows) {
			int rows = s->n - first < plan->rows ? (int)(s->n - first) : plan->rows;
			for (int k0 = 0; k0 < T; k0 += plan->parts) {
				int parts = T - k0 < plan->parts ? T - k0 : plan->parts;
				int width = parts * psi;
				const float *chunk = dev_centres + (size_t)k0 * psi * s->d;
				const float *batch = dev_rows + (size_t)first * s->d;
				if (pedantic)
					check_blas(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, width, rows, s->d, &one, chunk,
								CUDA_R_32F, s->d, batch, CUDA_R_32F, s->d, &zero, dev_tile,
								CUDA_R_32F, width, CUBLAS_COMPUTE_32F_PEDANTIC,
								CUBLAS_GEMM_DEFAULT),
						   "cublasGemmEx");
				else
					check_blas(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, width, rows, s->d, &one, chunk,
							       s->d, batch, s->d, &zero, dev_tile, width),
						   "cublasSgemm");
				if (pass == 0)
					break;
			}
			if (pass == 0)
				break;
		}
		check_cuda(cudaEventRecord(end, 0), "cudaEventRecord");
		check_cuda(cudaEventSynchronize(end), "cudaEventSynchronize");
	}
	float ms;
	check_cuda(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
	cudaEventDestroy(begin);
	cudaEventDestroy(end);
	return 1e-3 * ms;
}

struct gemm_result {
	double plain_seconds;
	double pedantic_seconds;
};

static struct gemm_result time_plain_sgemm(const struct shape *s, const float *rows, const float *centres, int psi)
{
	struct gemm_result out;
	struct anne_plan plan;
	if (anne_plan_tiles(T, psi, s->d, tile_budget_per_stream, &plan)) {
		fprintf(stderr, "gpu_map: no tile plan for psi=%d d=%d\n", psi, s->d);
		exit(1);
	}
	size_t row_bytes = (size_t)s->n * s->d * sizeof(float);
	size_t centre_bytes = (size_t)T * psi * s->d * sizeof(float);
	size_t tile_bytes = (size_t)plan.rows * plan.parts * psi * sizeof(float);
	float *dev_rows, *dev_centres, *dev_tile;
	check_cuda(cudaMalloc((void **)&dev_rows, row_bytes), "cudaMalloc rows");
	check_cuda(cudaMalloc((void **)&dev_centres, centre_bytes), "cudaMalloc centres");
	check_cuda(cudaMalloc((void **)&dev_tile, tile_bytes), "cudaMalloc tile");
	check_cuda(cudaMemcpy(dev_rows, rows, row_bytes, cudaMemcpyHostToDevice), "upload rows");
	check_cuda(cudaMemcpy(dev_centres, centres, centre_bytes, cudaMemcpyHostToDevice), "upload centres");
	cublasHandle_t h;
	check_blas(cublasCreate(&h), "cublasCreate");
	out.plain_seconds = time_gemms(h, s, dev_rows, dev_centres, dev_tile, &plan, psi, 0);
	out.pedantic_seconds = time_gemms(h, s, dev_rows, dev_centres, dev_tile, &plan, psi, 1);
	cublasDestroy(h);
	cudaFree(dev_rows);
	cudaFree(dev_centres);
	cudaFree(dev_tile);
	return out;
}

static void run_case(const struct shape *s, const float *rows, int psi)
{
	float *centres = sample_centres(s, rows, psi);
	struct map_result map = time_map(s, rows, centres, psi);
	struct gemm_result gemm = time_plain_sgemm(s, rows, centres, psi);
	double flops = 2.0 * (double)s->n * s->d * T * psi;
	printf("%-8s %7lld %5d %4d %5d | %8.3f %6.1f | %8.3f %6.1f | %8.3f %6.1f | %6.2f | %8.5f%% %8.3f\n", s->name,
	       (long long)s->n, s->d, T, psi, map.seconds, flops / map.seconds * 1e-12, gemm.plain_seconds,
	       flops / gemm.plain_seconds * 1e-12, gemm.pedantic_seconds, flops / gemm.pedantic_seconds * 1e-12,
	       map.seconds / gemm.plain_seconds, 100.0 * map.recheck_fraction, map.host_recheck_seconds);
	fflush(stdout);
	free(centres);
}

static void print_device(void)
{
	struct cudaDeviceProp p;
	int driver = 0, runtime = 0;
	check_cuda(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
	cudaDriverGetVersion(&driver);
	cudaRuntimeGetVersion(&runtime);
	printf("device 0: %s, %d SMs, %.1f GiB, compute %d.%d, driver %d, runtime %d\n", p.name, p.multiProcessorCount,
	       (double)p.totalGlobalMem / (1 << 30), p.major, p.minor, driver, runtime);
	printf("%-8s %7s %5s %4s %5s | %8s %6s | %8s %6s | %8s %6s | %6s | %9s %8s\n", "shape", "n", "d", "t", "psi",
	       "map_s", "TF/s", "sgemm_s", "TF/s", "pedant_s", "TF/s", "ratio", "recheck", "host_s");
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : "all";
	int psi_only = argc > 2 ? atoi(argv[2]) : 0;
	const int psis[] = {256, 4096};
	int matched = 0;

	if (anne_gpu_device_count() < 1) {
		fprintf(stderr, "gpu_map: no CUDA device visible; run this on a GPU machine "
				"(see bench/results/README-gpu.md)\n");
		return 2;
	}
	print_device();
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		const struct shape *s = &shapes[i];
		if (strcmp(only, "all") != 0 && strcmp(only, s->name) != 0)
			continue;
		matched = 1;
		float *rows = make_rows(s);
		for (size_t k = 0; k < sizeof psis / sizeof psis[0]; k++)
			if (!psi_only || psi_only == psis[k])
				run_case(s, rows, psis[k]);
		if (psi_only && psi_only != psis[0] && psi_only != psis[1])
			run_case(s, rows, psi_only);
		free(rows);
	}
	if (!matched) {
		fprintf(stderr, "usage: gpu_map [mnist|covtype|epsilon|all [psi]]\n");
		return 1;
	}
	return 0;
}
