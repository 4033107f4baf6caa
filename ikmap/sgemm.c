/*
 * sgemm.c - the built-in GEMM (contract in sgemm.h): a blocked, packed
 * kernel written with the compiler's vector extensions, instantiated
 * from sgemm_kernel.h once per vector unit and picked at run time.
 *
 * Why several instances: the programs are built for the compiler's
 * baseline (on x86-64, SSE2: 4 floats, no FMA), while the CPUs they run
 * on mostly have AVX2 + FMA (8 floats) or AVX-512 (16 floats), which
 * OpenBLAS uses through its own run-time dispatch. So on x86-64 the AVX2
 * and AVX-512 instances are compiled with target attributes (no
 * intrinsics: the same vector-extension source) and chosen by
 * __builtin_cpu_supports; elsewhere only the generic instance exists.
 * The Makefile compiles this file with -ffp-contract=fast so that
 * acc += a * b becomes an FMA where the target has one (gcc's ISO C mode
 * would otherwise keep the multiply and the add apart); the bound in
 * sgemm.h covers fused and unfused alike.
 *
 * Micro-tiles (MR x NR, accumulators + B vectors + one broadcast within
 * the register file): generic 6 x 8 (12 + 2 + 1 of 16 xmm), AVX2 6 x 16
 * (12 + 2 + 1 of 16 ymm), AVX-512 12 x 32 (24 + 2 + 1 of 32 zmm).
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "sgemm.h"

/* Complete unrolling of the micro-kernel's fixed-size loops. */
#if defined(__clang__)
#define SGEMM_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define SGEMM_UNROLL _Pragma("GCC unroll 16")
#else
#define SGEMM_UNROLL
#endif

/* Depth of a packed slice and columns of a packed B block (both kernels). */
#define SGEMM_KC 256
#define SGEMM_NC 1024

#define SGEMM_NAME(x) generic_##x
#define SGEMM_TARGET
#define SGEMM_VW 4
#define SGEMM_MR 6
#define SGEMM_NV 2
#include "sgemm_kernel.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define SGEMM_X86_KERNELS 1

#define SGEMM_NAME(x) avx2_##x
#define SGEMM_TARGET __attribute__((target("avx2,fma")))
#define SGEMM_VW 8
#define SGEMM_MR 6
#define SGEMM_NV 2
#include "sgemm_kernel.h"

#define SGEMM_NAME(x) avx512_##x
#define SGEMM_TARGET __attribute__((target("avx512f")))
#define SGEMM_VW 16
#define SGEMM_MR 12
#define SGEMM_NV 2
#include "sgemm_kernel.h"
#endif

typedef int (*gemm_fn)(int, int, int, const float *, int, const float *, int, float *, int);

struct kernel {
	gemm_fn gemm;
	const char *name;
};

static const struct kernel generic_kernel = {generic_gemm, "generic"};
#ifdef SGEMM_X86_KERNELS
static const struct kernel avx2_kernel = {avx2_gemm, "avx2+fma"};
static const struct kernel avx512_kernel = {avx512_gemm, "avx512"};
#endif

/* Set by sgemm_use_kernel (tests, benchmarks); NULL: the widest the CPU runs. */
static const struct kernel *forced_kernel;

/* The widest kernel this CPU (and its operating system) can run. */
static const struct kernel *widest_kernel(void)
{
#ifdef SGEMM_X86_KERNELS
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return &avx512_kernel;
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return &avx2_kernel;
#endif
	return &generic_kernel;
}

static const struct kernel *pick_kernel(void)
{
	return forced_kernel ? forced_kernel : widest_kernel();
}

int sgemm_use_kernel(const char *name)
{
	if (!name) {
		forced_kernel = NULL;
		return 0;
	}
	const struct kernel *k = NULL;
	if (strcmp(name, generic_kernel.name) == 0)
		k = &generic_kernel;
#ifdef SGEMM_X86_KERNELS
	__builtin_cpu_init();
	if (strcmp(name, avx2_kernel.name) == 0 && __builtin_cpu_supports("avx2")
		&& __builtin_cpu_supports("fma"))
		k = &avx2_kernel;
	if (strcmp(name, avx512_kernel.name) == 0 && __builtin_cpu_supports("avx512f"))
		k = &avx512_kernel;
#endif
	if (!k)
		return -1;
	forced_kernel = k;
	return 0;
}

const char *sgemm_kernel_name(void)
{
	return pick_kernel()->name;
}

int sgemm_nt(int m, int n, int k, const float *a, int lda, const float *b, int ldb,
	float *c, int ldc)
{
	if (m <= 0 || n <= 0)
		return 0;
	if (k <= 0) {
		for (int i = 0; i < m; i++)
			memset(c + (size_t)i * ldc, 0, (size_t)n * sizeof(float));
		return 0;
	}
	return pick_kernel()->gemm(m, n, k, a, lda, b, ldb, c, ldc);
}

/* Rows per parallel block: a whole packed A block of every kernel. */
#define ROWS_PER_BLOCK 264

int sgemm_nt_threads(int m, int n, int k, const float *a, int lda, const float *b, int ldb,
	float *c, int ldc, int threads)
{
	if (m <= 0)
		return 0;
	int blocks = (m + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
	if (threads <= 0)
		threads = omp_get_max_threads();
	int failed = 0;
	/*
	 * Each block packs B again: n x k copies against ROWS_PER_BLOCK
	 * n k multiply-adds, well under 1 %, for blocks that never share data.
	 */
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(|:failed)
	for (int blk = 0; blk < blocks; blk++) {
		int first = blk * ROWS_PER_BLOCK;
		int rows = m - first < ROWS_PER_BLOCK ? m - first : ROWS_PER_BLOCK;
		failed |= sgemm_nt(rows, n, k, a + (size_t)first * lda, lda, b, ldb,
			c + (size_t)first * ldc, ldc) != 0;
	}
	return failed ? -1 : 0;
}
