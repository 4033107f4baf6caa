/*
 * gemm.c - gemm.h on the BLAS the build chose. The Makefile compiles it
 * with -DIKMAP_BLAS_OPENBLAS (and pkg-config's openblas flags),
 * -DIKMAP_BLAS_CBLAS (pkg-config's cblas flags) or neither (the built-in
 * kernel, sgemm.c), and recompiles it when that choice changes.
 */
#include <stdio.h>
#include "gemm.h"
#include "sgemm.h"

#if defined(IKMAP_BLAS_OPENBLAS) || defined(IKMAP_BLAS_CBLAS)
#include <cblas.h>

int ikmap_gemm_nt(int m, int n, int k, const float *a, int lda, const float *b, int ldb,
	float *c, int ldc)
{
	if (m <= 0 || n <= 0)
		return 0;
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a, lda, b, ldb,
		0.0f, c, ldc);
	return 0;
}
#endif

#if defined(IKMAP_BLAS_OPENBLAS)

struct ikmap_gemm_state ikmap_gemm_serial_begin(void)
{
	struct ikmap_gemm_state s = {0};
	/* 1: pthreads build (its own threads); 2: OpenMP build (serial inside ours). */
	if (openblas_get_parallel() == 1) {
		s.saved_threads = openblas_get_num_threads();
		openblas_set_num_threads(1);
	}
	return s;
}

void ikmap_gemm_serial_end(struct ikmap_gemm_state s)
{
	if (s.saved_threads > 0)
		openblas_set_num_threads(s.saved_threads);
}

int ikmap_gemm_nt_threads(int m, int n, int k, const float *a, int lda, const float *b,
	int ldb, float *c, int ldc, int threads)
{
	int saved = openblas_get_num_threads();
	if (threads > 0)
		openblas_set_num_threads(threads);
	int status = ikmap_gemm_nt(m, n, k, a, lda, b, ldb, c, ldc);
	openblas_set_num_threads(saved);
	return status;
}

const char *ikmap_gemm_name(void)
{
	static _Thread_local char name[64];
	snprintf(name, sizeof name, "OpenBLAS (%s)", openblas_get_corename());
	return name;
}

#elif defined(IKMAP_BLAS_CBLAS)

struct ikmap_gemm_state ikmap_gemm_serial_begin(void)
{
	return (struct ikmap_gemm_state){0};
}

void ikmap_gemm_serial_end(struct ikmap_gemm_state s)
{
	(void)s;
}

int ikmap_gemm_nt_threads(int m, int n, int k, const float *a, int lda, const float *b,
	int ldb, float *c, int ldc, int threads)
{
	(void)threads;	/* no portable way to set a CBLAS's threads */
	return ikmap_gemm_nt(m, n, k, a, lda, b, ldb, c, ldc);
}

const char *ikmap_gemm_name(void)
{
	return "CBLAS";
}

#else /* the built-in kernel */

int ikmap_gemm_nt(int m, int n, int k, const float *a, int lda, const float *b, int ldb,
	float *c, int ldc)
{
	return sgemm_nt(m, n, k, a, lda, b, ldb, c, ldc);
}

struct ikmap_gemm_state ikmap_gemm_serial_begin(void)
{
	return (struct ikmap_gemm_state){0};
}

void ikmap_gemm_serial_end(struct ikmap_gemm_state s)
{
	(void)s;
}

int ikmap_gemm_nt_threads(int m, int n, int k, const float *a, int lda, const float *b,
	int ldb, float *c, int ldc, int threads)
{
	return sgemm_nt_threads(m, n, k, a, lda, b, ldb, c, ldc, threads);
}

const char *ikmap_gemm_name(void)
{
	static _Thread_local char name[64];
	snprintf(name, sizeof name, "built-in SGEMM (%s)", sgemm_kernel_name());
	return name;
}

#endif
