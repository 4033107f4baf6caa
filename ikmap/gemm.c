/*
 * gemm.c - gemm.h on the BLAS the build chose. The Makefile compiles it
 * with -DIKMAP_BLAS_OPENBLAS (and pkg-config's openblas flags),
 * -DIKMAP_BLAS_CBLAS (pkg-config's cblas flags) or neither (the built-in
 * kernel, sgemm.c), and recompiles it when that choice changes.
 *
 * OpenBLAS is not linked but opened here, with dlopen, the first time a
 * GEMM (or the GEMM's name or thread switch) is asked for: a pthreads
 * OpenBLAS starts its thread pool as the library loads, and the idle
 * threads spin for a while before they sleep. Linked, that CPU time was
 * spent by every run of every program, also by the many that never reach
 * a GEMM (iForest, minmax and acos maps, plain training, predict on those
 * models). The library opened is the one the link would have used: its
 * soname (IKMAP_OPENBLAS_SONAME, read from pkg-config's library file by
 * the Makefile) through the dynamic loader's search, then the same name in
 * pkg-config's libdir (IKMAP_OPENBLAS_LIBDIR). When neither loads, or a
 * symbol is missing, the built-in kernel runs instead (cells never depend
 * on the GEMM, see below) and ikmap_gemm_name() says why.
 */
#include <stdio.h>
#include "gemm.h"
#include "sgemm.h"

#if defined(IKMAP_BLAS_OPENBLAS) || defined(IKMAP_BLAS_CBLAS)
#include <cblas.h>
#endif

#if defined(IKMAP_BLAS_OPENBLAS)
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifndef IKMAP_OPENBLAS_SONAME
#define IKMAP_OPENBLAS_SONAME "libopenblas.so.0"
#endif

/* OpenBLAS's entry points, as its cblas.h and openblas_config.h declare them. */
typedef void sgemm_fn(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint,
	blasint, blasint, float, const float *, blasint, const float *, blasint, float, float *,
	blasint);
typedef char *corename_fn(void);
typedef int get_int_fn(void);
typedef void set_threads_fn(int);

static struct {
	sgemm_fn *sgemm;		/* all five set, or the library is not used */
	corename_fn *corename;
	get_int_fn *get_parallel;
	get_int_fn *get_num_threads;
	set_threads_fn *set_num_threads;
	char why[200];			/* why not, when not */
} ob;

static void *open_openblas(void)
{
	void *lib = dlopen(IKMAP_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
#ifdef IKMAP_OPENBLAS_LIBDIR
	if (!lib)
		lib = dlopen(IKMAP_OPENBLAS_LIBDIR "/" IKMAP_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
#endif
	return lib;
}

/* dlsym's address, or NULL with the first missing name in ob.why. */
static void *symbol(void *lib, const char *name)
{
	void *p = dlsym(lib, name);
	if (!p && !ob.why[0])	/* the first one missing */
		snprintf(ob.why, sizeof ob.why, "%s lacks %s", IKMAP_OPENBLAS_SONAME, name);
	return p;
}

static void load_openblas(void)
{
	/* The pointer types above are the header's (unevaluated: no reference to link). */
	_Static_assert(_Generic(&cblas_sgemm, sgemm_fn *: 1, default: 0), "cblas_sgemm");
	_Static_assert(_Generic(&openblas_get_corename, corename_fn *: 1, default: 0), "corename");
	_Static_assert(_Generic(&openblas_get_parallel, get_int_fn *: 1, default: 0), "parallel");
	_Static_assert(_Generic(&openblas_get_num_threads, get_int_fn *: 1, default: 0), "threads");
	_Static_assert(_Generic(&openblas_set_num_threads, set_threads_fn *: 1, default: 0), "set");
	void *lib = open_openblas();
	if (!lib) {
		const char *e = dlerror();
		snprintf(ob.why, sizeof ob.why, "cannot load %s: %s", IKMAP_OPENBLAS_SONAME,
			e ? e : "unknown error");
		return;
	}
	/* POSIX makes dlsym's void * convertible to a function pointer. */
	sgemm_fn *sgemm = (sgemm_fn *)symbol(lib, "cblas_sgemm");
	corename_fn *corename = (corename_fn *)symbol(lib, "openblas_get_corename");
	get_int_fn *get_parallel = (get_int_fn *)symbol(lib, "openblas_get_parallel");
	get_int_fn *get_threads = (get_int_fn *)symbol(lib, "openblas_get_num_threads");
	set_threads_fn *set_threads = (set_threads_fn *)symbol(lib, "openblas_set_num_threads");
	if (!sgemm || !corename || !get_parallel || !get_threads || !set_threads)
		return;	/* stays loaded (harmless) but unused; ob.why says which */
	ob.sgemm = sgemm;
	ob.corename = corename;
	ob.get_parallel = get_parallel;
	ob.get_num_threads = get_threads;
	ob.set_num_threads = set_threads;
}

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
 * IKMAP_SGEMM=builtin, which does not even load OpenBLAS. Cells never
 * depend on the choice (anne_exact.c's bound holds for both).
 */
static pthread_once_t choice_once = PTHREAD_ONCE_INIT;
static int builtin_instead;
static int forced_builtin;

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
	if (force && strcmp(force, "builtin") == 0) {
		builtin_instead = forced_builtin = 1;
		return;
	}
	load_openblas();
	if (!ob.sgemm) {
		builtin_instead = 1;
		return;
	}
	const char *core = ob.corename();
	const char *mine = sgemm_kernel_name();
	if (force && strcmp(force, "openblas") == 0)
		builtin_instead = 0;
	else
		builtin_instead = core && strcmp(mine, "generic") != 0 && (strcmp(core, "Prescott") == 0
			|| (strcmp(mine, "avx512") == 0 && !avx512_core(core)));
}

/* Loads OpenBLAS on the first call from any thread; then whether it is bypassed. */
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
	ob.sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a, lda, b, ldb,
		0.0f, c, ldc);
#else
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a, lda, b, ldb,
		0.0f, c, ldc);
#endif
	return 0;
}
#endif

#if defined(IKMAP_BLAS_OPENBLAS)

struct ikmap_gemm_state ikmap_gemm_serial_begin(void)
{
	struct ikmap_gemm_state s = {0};
	if (use_builtin())
		return s;	/* OpenBLAS not called (maybe not even loaded) */
	/* 1: pthreads build (its own threads); 2: OpenMP build (serial inside ours). */
	if (ob.get_parallel() == 1) {
		s.saved_threads = ob.get_num_threads();
		ob.set_num_threads(1);
	}
	return s;
}

void ikmap_gemm_serial_end(struct ikmap_gemm_state s)
{
	if (s.saved_threads > 0)
		ob.set_num_threads(s.saved_threads);
}

int ikmap_gemm_nt_threads(int m, int n, int k, const float *a, int lda, const float *b,
	int ldb, float *c, int ldc, int threads)
{
	if (use_builtin())
		return sgemm_nt_threads(m, n, k, a, lda, b, ldb, c, ldc, threads);
	int saved = ob.get_num_threads();
	if (threads > 0)
		ob.set_num_threads(threads);
	int status = ikmap_gemm_nt(m, n, k, a, lda, b, ldb, c, ldc);
	ob.set_num_threads(saved);
	return status;
}

const char *ikmap_gemm_name(void)
{
	static _Thread_local char name[320];
	if (!use_builtin())
		snprintf(name, sizeof name, "OpenBLAS (%s)", ob.corename());
	else if (forced_builtin)
		snprintf(name, sizeof name, "built-in SGEMM (%s; IKMAP_SGEMM=builtin)",
			sgemm_kernel_name());
	else if (!ob.sgemm)
		snprintf(name, sizeof name, "built-in SGEMM (%s; %s)", sgemm_kernel_name(), ob.why);
	else
		snprintf(name, sizeof name, "built-in SGEMM (%s; OpenBLAS offers only %s here)",
			sgemm_kernel_name(), ob.corename());
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
