/*
 * test_ikmap_sgemm.c - the built-in GEMM (ikmap/sgemm.h) against a double
 * reference, for every kernel this CPU can run (the generic one always).
 *
 * Two kinds of data:
 *  - small integers (|a|, |b| <= 8): every partial sum is an integer below
 *    2^24, so any correct float GEMM is exact and must equal the
 *    reference bit for bit; this catches every indexing or packing error;
 *  - random reals: |c - exact| <= gamma_k(2^-24) sum_p |a_p b_p| (sgemm.h),
 *    checked against the double reference with the reference's own
 *    error (gamma_k(2^-53) of the same sum) added; no other tolerance.
 * Shapes: zero sizes, sizes around the micro-tile widths (4..32), the
 * packed block sizes (KC = 256 deep, MC >= 256 rows, NC = 1024 columns)
 * and the aNNE tile (256 x 512); lda, ldb and ldc padded, and the padding
 * of C checked untouched, A and B unchanged.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "sgemm.h"
#include "unit.h"

static const char *const kernels[] = {"generic", "avx2+fma", "avx512"};
#define NKERNELS (int)(sizeof kernels / sizeof kernels[0])

/* A float whose bit pattern marks C's padding (a NaN: never a product). */
static float sentinel(void)
{
	uint32_t bits = 0x7fc0dead;
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

static uint64_t lcg_state = 12345;

static double next_unit(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg_state >> 11) * 0x1p-53;
}

/* Fills rows x cols of a matrix with leading dimension ld; padding gets a junk value. */
static float *make_matrix(int rows, int cols, int ld, int integers)
{
	size_t size = (size_t)(rows > 0 ? rows : 1) * (size_t)ld;
	float *m = malloc(size * sizeof(float));
	ck_assert_ptr_nonnull(m);
	for (size_t i = 0; i < size; i++)
		m[i] = 1e30f;	/* an unused entry that leaked in would show */
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			m[(size_t)r * ld + c] = integers ? (float)((int)(next_unit() * 17) - 8)
				: (float)(2 * next_unit() - 1) * (float)ldexp(1, (int)(next_unit() * 8) - 4);
	return m;
}

static double gamma_n(double n, double unit)
{
	return n * unit / (1 - n * unit);
}

/* Runs one shape with the current kernel; checks every element and the padding. */
static void check_shape(int m, int n, int k, int pad, int integers)
{
	int lda = k + pad, ldb = k + 2 * pad, ldc = n + 3 * pad;
	if (lda < 1)
		lda = 1;
	if (ldb < 1)
		ldb = 1;
	if (ldc < 1)
		ldc = 1;
	float *a = make_matrix(m, k, lda, integers);
	float *b = make_matrix(n, k, ldb, integers);
	size_t asize = (size_t)(m > 0 ? m : 1) * lda, bsize = (size_t)(n > 0 ? n : 1) * ldb;
	size_t csize = (size_t)(m > 0 ? m : 1) * ldc;
	float *a0 = malloc(asize * sizeof(float)), *b0 = malloc(bsize * sizeof(float));
	float *c = malloc(csize * sizeof(float));
	ck_assert(a0 && b0 && c);
	memcpy(a0, a, asize * sizeof(float));
	memcpy(b0, b, bsize * sizeof(float));
	float mark = sentinel();
	for (size_t i = 0; i < csize; i++)
		c[i] = mark;

	ck_assert_int_eq(sgemm_nt(m, n, k, a, lda, b, ldb, c, ldc), 0);

	ck_assert(memcmp(a, a0, asize * sizeof(float)) == 0);
	ck_assert(memcmp(b, b0, bsize * sizeof(float)) == 0);
	double g = gamma_n(k, 0x1p-24) + gamma_n(k + 1, 0x1p-53);
	long bad = 0;
	for (int i = 0; i < m; i++) {
		for (int j = ldc > n ? n : ldc; j < ldc; j++)
			if (memcmp(&c[(size_t)i * ldc + j], &mark, sizeof mark) != 0)
				bad++;
		for (int j = 0; j < n; j++) {
			double ref = 0, abs_sum = 0;
			for (int p = 0; p < k; p++) {
				double prod = (double)a[(size_t)i * lda + p] * b[(size_t)j * ldb + p];
				ref += prod;
				abs_sum += fabs(prod);
			}
			double got = c[(size_t)i * ldc + j];
			int ok = integers ? got == ref : fabs(got - ref) <= g * abs_sum;
			if (!ok && bad++ < 5)
				fprintf(stderr, "%s m=%d n=%d k=%d pad=%d: c[%d][%d] = %.9g, reference %.17g\n",
					sgemm_kernel_name(), m, n, k, pad, i, j, got, ref);
		}
	}
	ck_assert_msg(bad == 0, "%s: %ld wrong entries (m=%d n=%d k=%d pad=%d)",
		sgemm_kernel_name(), bad, m, n, k, pad);
	free(a);
	free(b);
	free(a0);
	free(b0);
	free(c);
}

struct shape {
	int m, n, k;
};

static const struct shape shapes[] = {
	{1, 1, 1}, {1, 1, 7}, {3, 5, 2}, {5, 3, 9}, {6, 8, 4}, {7, 9, 15}, {11, 17, 16},
	{12, 32, 33}, {13, 33, 31}, {25, 47, 18}, {24, 64, 56}, {37, 70, 130},
	{256, 512, 18}, {256, 512, 56}, {257, 100, 258}, {100, 129, 257}, {265, 40, 513},
	{300, 1030, 20}, {19, 1100, 786},
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

/* Every shape, both kinds of data, padded and not, with the kernel named k. */
static int run_kernel(int kernel)
{
	if (sgemm_use_kernel(kernels[kernel]) != 0)
		return 0;
	for (int s = 0; s < NSHAPES; s++)
		for (int integers = 0; integers <= 1; integers++) {
			check_shape(shapes[s].m, shapes[s].n, shapes[s].k, 0, integers);
			check_shape(shapes[s].m, shapes[s].n, shapes[s].k, 3, integers);
		}
	sgemm_use_kernel(NULL);
	return 1;
}

START_TEST(test_every_kernel_within_bound)
{
	int ran = 0;
	for (int k = 0; k < NKERNELS; k++) {
		int did = run_kernel(k);
		printf("sgemm kernel %-8s %s\n", kernels[k], did ? "tested" : "not on this CPU");
		ran += did;
	}
	ck_assert_int_ge(ran, 1);
	/* The generic kernel runs everywhere, so it must have been tested. */
	ck_assert_int_eq(sgemm_use_kernel("generic"), 0);
	sgemm_use_kernel(NULL);
	ck_assert_int_eq(sgemm_use_kernel("no-such-kernel"), -1);
}
END_TEST

START_TEST(test_zero_sizes)
{
	float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[6];
	float mark = sentinel();
	for (int i = 0; i < 6; i++)
		c[i] = mark;
	/* m = 0 or n = 0: nothing written. */
	ck_assert_int_eq(sgemm_nt(0, 2, 2, a, 2, b, 2, c, 3), 0);
	ck_assert_int_eq(sgemm_nt(2, 0, 2, a, 2, b, 2, c, 3), 0);
	for (int i = 0; i < 6; i++)
		ck_assert(memcmp(&c[i], &mark, sizeof mark) == 0);
	/* k = 0: the m x n block is zero, the padding untouched. */
	ck_assert_int_eq(sgemm_nt(2, 2, 0, a, 1, b, 1, c, 3), 0);
	for (int i = 0; i < 2; i++) {
		ck_assert(c[i * 3] == 0 && c[i * 3 + 1] == 0);
		ck_assert(memcmp(&c[i * 3 + 2], &mark, sizeof mark) == 0);
	}
}
END_TEST

/* The threaded product gives the single-threaded bits, for any thread count. */
START_TEST(test_threads_same_bits)
{
	int m = 700, n = 300, k = 90;
	float *a = make_matrix(m, k, k, 0), *b = make_matrix(n, k, k, 0);
	float *c1 = malloc((size_t)m * n * sizeof(float)), *c2 = malloc((size_t)m * n * sizeof(float));
	ck_assert(c1 && c2);
	ck_assert_int_eq(sgemm_nt(m, n, k, a, k, b, k, c1, n), 0);
	for (int threads = 1; threads <= 3; threads++) {
		memset(c2, 0xff, (size_t)m * n * sizeof(float));
		ck_assert_int_eq(sgemm_nt_threads(m, n, k, a, k, b, k, c2, n, threads), 0);
		ck_assert(memcmp(c1, c2, (size_t)m * n * sizeof(float)) == 0);
	}
	free(a);
	free(b);
	free(c1);
	free(c2);
}
END_TEST

static Suite *sgemm_suite(void)
{
	Suite *s = suite_create("ikmap_sgemm");
	TCase *tc = tcase_create("sgemm");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_every_kernel_within_bound);
	tcase_add_test(tc, test_zero_sizes);
	tcase_add_test(tc, test_threads_same_bits);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(sgemm_suite)
