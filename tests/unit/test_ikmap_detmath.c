/*
 * test_ikmap_detmath.c - the deterministic log (ikmap/detmath.h) and the
 * counter-based generator (ikmap/counter_rng.h).
 *
 * det_log against libm's log (an independent implementation, itself
 * within 1 ulp on glibc): within the contract's 4 ulp over the whole
 * range, subnormals included, and exact where log is (log 1 = 0, log of a
 * power of two = e * ln 2 to within its ulp); NaN outside the domain.
 * The generator: the bits are a pure function of (seed, sample, feature,
 * draw); units are strictly inside (0, 1); a million draws have mean and
 * variance of a uniform within 5 standard errors; streams of neighbouring
 * samples and features are uncorrelated (sample correlation within 5
 * standard errors of 0).
 */
#include <math.h>
#include <stdint.h>
#include "counter_rng.h"
#include "detmath.h"
#include "unit.h"

static double ulps(double got, double want)
{
	double ulp = nextafter(fabs(want), INFINITY) - fabs(want);
	return fabs(got - want) / ulp;
}

START_TEST(test_log_within_4_ulp)
{
	uint64_t stream = crng_stream(7, 3);
	double worst = 0;
	for (uint64_t i = 0; i < 2000000; i++) {
		uint64_t b = crng_at(stream, i, 0);
		double u = crng_unit_open(b), x;
		switch (i % 4) {
		case 0: x = u; break;
		case 1: x = ldexp(u, (int)(b % 2040) - 1020); break;
		case 2: x = 1 + (u - 0.5) * 1e-3; break;
		default: x = ldexp(u, -1060); break;	/* subnormal */
		}
		double want = log(x);
		ck_assert(want != 0);
		double e = ulps(det_log(x), want);
		if (e > worst)
			worst = e;
	}
	ck_assert_msg(worst <= 4, "det_log off by %g ulp", worst);
}
END_TEST

START_TEST(test_log_exact_points_and_domain)
{
	ck_assert(det_log(1.0) == 0.0);
	for (int e = -1074; e <= 1023; e++) {
		double x = ldexp(1.0, e);
		ck_assert_msg(ulps(det_log(x), log(x)) <= 1, "2^%d", e);
	}
	ck_assert(isnan(det_log(0.0)));
	ck_assert(isnan(det_log(-1.0)));
	ck_assert(isnan(det_log(INFINITY)));
	ck_assert(isnan(det_log(NAN)));
	ck_assert(det_log(1.79769313486231570815e+308) > 709.78);
}
END_TEST

/*
 * det_log1p against libm's log1p (an independent implementation): within
 * the contract's 8 ulp from subnormals to the largest double and on
 * (-1, 0); x itself where 1 + x rounds to 1; zeros kept with their sign.
 */
START_TEST(test_log1p_against_libm)
{
	uint64_t stream = crng_stream(11, 5);
	double worst = 0, worst_x = 0;
	for (uint64_t i = 0; i < 2000000; i++) {
		uint64_t b = crng_at(stream, i, 0);
		double u = crng_unit_open(b), x;
		switch (i % 5) {
		case 0: x = u; break;				/* (0, 1) */
		case 1: x = ldexp(u, (int)(b % 2040) - 1020); break;	/* every scale */
		case 2: x = ldexp(u, -(int)(b % 60)); break;	/* small: 1 + x rounds */
		case 3: x = -u; break;				/* (-1, 0) */
		default: x = (u - 0.5) * 1e-3; break;		/* around 0 */
		}
		double want = log1p(x);
		if (want == 0)
			continue;
		double e = ulps(det_log1p(x), want);
		if (e > worst) {
			worst = e;
			worst_x = x;
		}
	}
	ck_assert_msg(worst <= 8, "det_log1p off by %g ulp at %a", worst, worst_x);
	/* subnormal and tiny inputs: 1 + x rounds to 1, the answer is x itself */
	ck_assert(det_log1p(0x1p-1074) == 0x1p-1074);
	ck_assert(det_log1p(1e-300) == 1e-300);
	ck_assert(det_log1p(-1e-20) == -1e-20);
	/* the largest double: no overflow in the correction */
	double big = det_log1p(1.79769313486231570815e+308);
	ck_assert_msg(ulps(big, log1p(1.79769313486231570815e+308)) <= 8, "%a", big);
	ck_assert(det_log1p(0.0) == 0.0 && !signbit(det_log1p(0.0)));
	ck_assert(det_log1p(-0.0) == 0.0 && signbit(det_log1p(-0.0)));
	ck_assert(ulps(det_log1p(1.0), log(2.0)) <= 8);
	ck_assert(isnan(det_log1p(-1.0)));
	ck_assert(isnan(det_log1p(-2.0)));
	ck_assert(isnan(det_log1p(INFINITY)));
	ck_assert(isnan(det_log1p(NAN)));
}
END_TEST

START_TEST(test_generator_is_a_function)
{
	uint64_t a = crng_at(crng_stream(42, 9), 123456, 3);
	uint64_t b = crng_at(crng_stream(42, 9), 123456, 3);
	ck_assert(a == b);
	ck_assert(a != crng_at(crng_stream(42, 9), 123456, 2));
	ck_assert(a != crng_at(crng_stream(42, 10), 123456, 3));
	ck_assert(a != crng_at(crng_stream(43, 9), 123456, 3));
	ck_assert(crng_unit_open(0) > 0);
	ck_assert(crng_unit_open(UINT64_MAX) < 1);
}
END_TEST

START_TEST(test_generator_moments_and_independence)
{
	const int n = 1000000;
	double sum = 0, sq = 0, cross_sample = 0, cross_feature = 0, cross_draw = 0;
	for (int i = 0; i < n; i++) {
		int sample = i % 1000, feature = i / 1000 + 1;
		double u = crng_unit_open(crng_at(crng_stream(1, (uint64_t)sample), (uint64_t)feature, 0)) - 0.5;
		double v = crng_unit_open(crng_at(crng_stream(1, (uint64_t)sample + 1), (uint64_t)feature, 0)) - 0.5;
		double w = crng_unit_open(crng_at(crng_stream(1, (uint64_t)sample), (uint64_t)feature + 1, 0)) - 0.5;
		double z = crng_unit_open(crng_at(crng_stream(1, (uint64_t)sample), (uint64_t)feature, 1)) - 0.5;
		sum += u;
		sq += u * u;
		cross_sample += u * v;
		cross_feature += u * w;
		cross_draw += u * z;
	}
	/* U(-1/2, 1/2): mean 0 (sd 1/sqrt(12 n)), E u^2 = 1/12 (sd sqrt(1/180 - 1/144) / sqrt(n)),
	 * E uv = 0 for independent u, v (sd 1/(12 sqrt(n))). */
	double se_mean = 1 / sqrt(12.0 * n), se_sq = sqrt(1 / 80.0 - 1 / 144.0) / sqrt(n);
	double se_cross = 1 / (12 * sqrt(n));
	ck_assert(fabs(sum / n) < 5 * se_mean);
	ck_assert(fabs(sq / n - 1 / 12.0) < 5 * se_sq);
	ck_assert(fabs(cross_sample / n) < 5 * se_cross);
	ck_assert(fabs(cross_feature / n) < 5 * se_cross);
	ck_assert(fabs(cross_draw / n) < 5 * se_cross);
}
END_TEST

static Suite *detmath_suite(void)
{
	Suite *s = suite_create("ikmap_detmath");
	TCase *tc = tcase_create("detmath");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_log_within_4_ulp);
	tcase_add_test(tc, test_log_exact_points_and_domain);
	tcase_add_test(tc, test_log1p_against_libm);
	tcase_add_test(tc, test_generator_is_a_function);
	tcase_add_test(tc, test_generator_moments_and_independence);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(detmath_suite)
