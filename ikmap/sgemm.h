/*
 * sgemm.h - the built-in single-precision GEMM of the dense aNNE path:
 * C = A B^T, used when the build found no OpenBLAS or other CBLAS
 * (Makefile, BLAS=builtin), and by the tests and benchmarks in any build.
 *
 * Contract.
 *
 * sgemm_nt(m, n, k, a, lda, b, ldb, c, ldc) sets, for i < m and j < n,
 *     c[i*ldc + j] = sum over p < k of a[i*lda + p] * b[j*ldb + p]
 * (row-major A: m x k, B: n x k, C: m x n; lda, ldb >= k and ldc >= n).
 * Each c element is a float sum of exactly its k products, in some
 * order, each product rounded once or fused into an FMA: no other term
 * (no padding that is not an exact zero product, no second pass) enters
 * it, so the textbook bound |c - exact| <= gamma_k(2^-24) sum_p |a_p b_p|
 * (Higham, ch. 3; any summation order, FMA or not) holds; anne_exact.c
 * relies on this. k = 0 gives zeros; m = 0 or n = 0 does nothing. Only
 * the m x n block of C is written (the ldc padding is left alone); A and
 * B are only read. Results do not depend on the thread count, but may
 * differ in the last bits between CPUs (the kernel is chosen at run time
 * for the CPU's vector unit) and from other BLAS libraries.
 * Returns 0, or -1 when its packing buffers cannot be allocated (C is
 * then unspecified). Single-threaded; any number of threads may call it
 * at once.
 *
 * sgemm_nt_threads(..., threads): the same product, its rows split into
 * blocks spread over `threads` OpenMP threads (<= 0: OpenMP's default);
 * the same bits as sgemm_nt.
 *
 * sgemm_kernel_name(): the kernel this CPU runs: "avx512", "avx2+fma" or
 * "generic" (the compiler's baseline vectors).
 *
 * sgemm_use_kernel(name): for tests and benchmarks, makes later calls run
 * the named kernel (NULL: back to the widest this CPU runs); -1, changing
 * nothing, when the name is unknown or the CPU cannot run it. Not to be
 * called while another thread is inside sgemm_nt.
 */
#ifndef IKMAP_SGEMM_H
#define IKMAP_SGEMM_H

int sgemm_nt(int m, int n, int k, const float *a, int lda, const float *b, int ldb,
	float *c, int ldc);
int sgemm_nt_threads(int m, int n, int k, const float *a, int lda, const float *b, int ldb,
	float *c, int ldc, int threads);
const char *sgemm_kernel_name(void);
int sgemm_use_kernel(const char *name);

#endif /* IKMAP_SGEMM_H */
