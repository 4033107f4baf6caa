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
#endif

#if defined(IKMAP_BLAS_OPENBLAS)
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * OpenBLAS runs its Prescott (SSE3) kernels on a CPU it does not know
 * (0.3.21 on this project's development machine, an Intel family 6 model
 * 207 with AVX-512), about 4 times slower there than the built-in
 * kernel's AVX-512 instance (bench/results/blas-fallback.md). Then the
 * built-in kernel runs instead; likewise when the built-in kernel has
 * AVX-512 and OpenBLAS's core has none (OPENBLAS_CORETYPE=Haswell on an
 * AVX-512 machine: 10000 x 1600 x 786 took 0.41 s there against the
 * built-in 0.23-0.27 s; OpenBLAS's own Cooperlake core, 0.16 s, is kept).
 * The environment can force either: IKMAP_SGEMM=openblas
 * (tests/blas_identity.sh compares the two that way) or
 * IKMAP_SGEMM=builtin. Cells never depend on the choice (anne_exact.c's
 * bound holds for both).
 */
static pthread_once_t choice_once = PTHREAD_ONCE_INIT;
static int builtin_instead;

/* OpenBLAS cores with AVX-512 SGEMM kernels (openblas_get_corename's names). */
static int avx512_core(const char *core)
{
	static const char *const names[] = { "SkylakeX", "Cooperlake", "SapphireRapids" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(core, names[i]) == 0)
			return 1;
	return 0;
}

static void choose_kernel(void)
{
	const char *force = getenv("IKMAP_SGEMM");
	const char *core = openblas_get_corename();
	const char *mine = sgemm_kernel_name();
	if (force && strcmp(force, "openblas") == 0)
		builtin_instead = 0;
	else if (force && strcmp(force, "builtin") == 0)
		builtin_instead = 1;
	else
		builtin_instead = core && strcmp(mine, "generic") != 0 && (strcmp(core, "Prescott") == 0
			|| (strcmp(mine, "avx512") == 0 && !avx512_core(core)));
}

static int use_builtin(void)
{
	pthread_once(&choice_once, choose_kernel);
	return builtin_instead;
}
#endif

#if defined(IKMAP_BLAS_OPENBLAS) || defined(IKMAP_BLAS_CBLAS)
int ikmap_gemm_nt(int m, int n, int k, const float *a, int lda, const float *b, int ldb,
	float *c, int ldc)
{
	if (m <= 0 || n <= 0)
		return 0;
#if defined(IKMAP_BLAS_OPENBLAS)
	if (use_builtin())
		return sgemm_nt(m, n, k, a, lda, b, ldb, c, ldc);
#endif
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
	if (use_builtin())
		return sgemm_nt_threads(m, n, k, a, lda, b, ldb, c, ldc, threads);
	int saved = openblas_get_num_threads();
	if (threads > 0)
		openblas_set_num_threads(threads);
	int status = ikmap_gemm_nt(m, n, k, a, lda, b, ldb, c, ldc);
	openblas_set_num_threads(saved);
	return status;
}

const char *ikmap_gemm_name(void)
{
	static _Thread_local char name[96];
	if (use_builtin())
		snprintf(name, sizeof name, "built-in SGEMM (%s; OpenBLAS offers only %s here)",
			sgemm_kernel_name(), openblas_get_corename());
	else
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
