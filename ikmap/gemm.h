/*
 * gemm.h - the one matrix product the dense aNNE path needs, C = A B^T in
 * float, from whichever BLAS the build chose; the only place that knows
 * which (the Makefile's BLAS=openblas|cblas|builtin compiles gemm.c with
 * IKMAP_BLAS_OPENBLAS, IKMAP_BLAS_CBLAS or neither).
 *
 * Contract.
 *
 * ikmap_gemm_nt(m, n, k, a, lda, b, ldb, c, ldc): sgemm_nt's product and
 * layout (sgemm.h): c[i*ldc + j] = sum_p a[i*lda + p] b[j*ldb + p], every
 * element a float sum of its k products in some order (true of any
 * correct float GEMM, which is all anne_exact.c's bound assumes). Returns
 * 0, or -1 when out of memory (the built-in kernel's packing buffers).
 * Runs on the calling thread between ikmap_gemm_serial_begin() and
 * ikmap_gemm_serial_end(): the caller parallelises across calls.
 *
 * ikmap_gemm_serial_begin() / ikmap_gemm_serial_end(state): make the BLAS
 * keep each call on its calling thread (a pthreads OpenBLAS would start
 * its own threads inside ours) and restore what it did before. A generic
 * CBLAS offers no such switch; the call is then left as that library
 * runs it.
 *
 * ikmap_gemm_nt_threads(..., threads): one whole product on `threads`
 * threads (<= 0: the default), for benchmarks; 0 or -1 as above.
 *
 * ikmap_gemm_name(): what the build uses, e.g. "OpenBLAS (Haswell)",
 * "CBLAS", "built-in SGEMM (avx512)".
 *
 * An OpenBLAS build whose OpenBLAS does not know the CPU (it then runs
 * its "Prescott" SSE3 kernels) calls the built-in kernel instead, when
 * that has AVX2 or AVX-512 here, unless the environment variable
 * IKMAP_SGEMM is "openblas"; the name then says so.
 */
#ifndef IKMAP_GEMM_H
#define IKMAP_GEMM_H

int ikmap_gemm_nt(int m, int n, int k, const float *a, int lda, const float *b, int ldb,
	float *c, int ldc);
int ikmap_gemm_nt_threads(int m, int n, int k, const float *a, int lda, const float *b,
	int ldb, float *c, int ldc, int threads);

struct ikmap_gemm_state {
	int saved_threads;	/* OpenBLAS's thread count to restore, or 0 */
};
struct ikmap_gemm_state ikmap_gemm_serial_begin(void);
void ikmap_gemm_serial_end(struct ikmap_gemm_state state);

const char *ikmap_gemm_name(void);

#endif /* IKMAP_GEMM_H */
