/*
 * detmath.c - det_log (contract in detmath.h).
 *
 * The steps, each one IEEE double operation in this order:
 *  1. x = 2^e * m with m in [1, 2) from the bit pattern (a subnormal x is
 *     first multiplied by 2^54, exact, and e lowered by 54); when
 *     m > sqrt(2) (the double nearest it, compared exactly) m is halved
 *     and e raised, so m is in [sqrt(2)/2, sqrt(2)]. All exact.
 *  2. f = m - 1 (exact: Sterbenz), s = f / (2 + f) (2 + f exact: f is a
 *     multiple of 2^-53 below 1/2 in magnitude), z = s * s.
 *  3. log(m) = 2 atanh(s) = s * (2 + z * (2/3 + z * (2/5 + ... +
 *     z * 2/25))): |s| <= 0.1716, so z <= 0.02944 and the first term
 *     left out, 2 s z^13 / 27, is below 2^-66 |log m|; Horner from the
 *     innermost coefficient outwards.
 *  4. log(x) = e * LN2_HI + (e * LN2_LO + log(m)): LN2_HI has 32 trailing
 *     zero bits, so e * LN2_HI is exact for |e| < 2^11.
 * The coefficients 2/(2k+1) are written as their nearest doubles.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "detmath.h"

/* ln 2 split as hi + lo: hi = 0x3fe62e42fee00000, lo = 0x3dea39ef35793c76. */
static const double LN2_HI = 6.93147180369123816490e-01;
static const double LN2_LO = 1.90821492927058770002e-10;
/* The double nearest sqrt(2), 0x3ff6a09e667f3bcd. */
static const double SQRT2 = 1.41421356237309514547e+00;

/* 2 / (2k + 1), k = 1 .. 12 (k = 0 is the leading 2). */
static const double COEF[12] = {
	2.0 / 3.0, 2.0 / 5.0, 2.0 / 7.0, 2.0 / 9.0, 2.0 / 11.0, 2.0 / 13.0,
	2.0 / 15.0, 2.0 / 17.0, 2.0 / 19.0, 2.0 / 21.0, 2.0 / 23.0, 2.0 / 25.0,
};

double det_log(double x)
{
	if (!(x > 0) || x > 1.79769313486231570815e+308)
		return NAN;
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	int e = 0;
	if ((bits >> 52) == 0) {	/* subnormal */
		x *= 0x1.0p54;
		memcpy(&bits, &x, sizeof bits);
		e = -54;
	}
	e += (int)(bits >> 52) - 1023;
	bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
	double m;
	memcpy(&m, &bits, sizeof m);
	if (m > SQRT2) {
		m *= 0.5;
		e += 1;
	}
	double f = m - 1.0;
	double s = f / (2.0 + f);
	double z = s * s;
	double p = COEF[11];
	for (int k = 10; k >= 0; k--)
		p = COEF[k] + z * p;
	double logm = s * (2.0 + z * p);
	double de = (double)e;
	return de * LN2_HI + (de * LN2_LO + logm);
}

/*
 * det_log1p: u = 1 + x rounded; where u is 1, x is below half an ulp of 1
 * and log(1 + x) = x - x^2/2 + ... rounds to x. Otherwise log(u) is the
 * exact logarithm of a nearby point, and the slope x / (u - 1) corrects
 * for the rounding of 1 + x (Goldberg's classic identity: the ratio
 * log(u) / (u - 1) varies slowly, so evaluating it at u instead of 1 + x
 * costs a few ulp only). The division is done first so that log(u) * x
 * cannot overflow for x near the largest double (x / (u - 1) is about 1).
 */
double det_log1p(double x)
{
	if (!(x > -1.0) || x > 1.79769313486231570815e+308)
		return NAN;
	double u = 1.0 + x;
	if (u == 1.0)
		return x;
	return det_log(u) * (x / (u - 1.0));
}
