/* decimal.c - Clinger's fast path for plain decimals (see decimal.h). */
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include "decimal.h"

/*
 * The fast path is exact only when each double operation rounds once to double
 * precision; with extended evaluation (x87, FLT_EVAL_METHOD != 0) it would round
 * twice, so there every number goes to strtod.
 */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define FAST_PATH_EXACT 1
#else
#define FAST_PATH_EXACT 0
#endif

/* 10^0 .. 10^22: every one of them is a double exactly (5^22 < 2^53). */
static const double exact_pow10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* The largest integer up to which every integer is a double exactly. */
#define EXACT_INT_LIMIT ((uint64_t)1 << 53)

/* At most this many significant digits are gathered: 19 always fit uint64_t. */
#define MAX_DIGITS 19

/* Exponents beyond this are far outside the fast path; it keeps the sum small. */
#define MAX_EXP_DIGITS 4

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Gathers the digits at p into *mant (leading zeros skipped, *digits counting
 * the significant ones) and adds how many digits it read to *count. Returns
 * where the digits end, or NULL when there are more than MAX_DIGITS.
 */
static const char *take_digits(const char *p, const char *end, uint64_t *mant, int *digits,
	int *count)
{
	const char *start = p;
	while (p < end && is_digit(*p)) {
		if (*mant != 0 || *p != '0') {
			if (++*digits > MAX_DIGITS)
				return NULL;
			*mant = *mant * 10 + (uint64_t)(*p - '0');
		}
		p++;
	}
	*count += (int)(p - start);
	return p;
}

int decimal_fast_double(const char *p, const char *end, double *out)
{
	if (!FAST_PATH_EXACT)
		return 0;
	int negative = 0;
	if (p < end && (*p == '+' || *p == '-')) {
		negative = *p == '-';
		p++;
	}
	uint64_t mant = 0;
	int digits = 0;		/* significant digits in mant (leading zeros not counted) */
	int seen = 0;		/* all digits read, zeros included */
	int scale = 0;		/* power of ten of mant's last digit */
	p = take_digits(p, end, &mant, &digits, &seen);
	if (!p)
		return 0;
	if (p < end && *p == '.') {
		int fraction = 0;
		p = take_digits(p + 1, end, &mant, &digits, &fraction);
		if (!p)
			return 0;
		/* every fraction digit, zero or not, moves the point */
		scale = -fraction;
		seen += fraction;
	}
	if (!seen)
		return 0;	/* "", "+", ".", "-.": strtod's business (an error) */
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		int exp_negative = 0;
		if (p < end && (*p == '+' || *p == '-')) {
			exp_negative = *p == '-';
			p++;
		}
		if (p == end)
			return 0;	/* "1e", "1e+": strtod stops before the 'e' */
		int exp = 0, exp_digits = 0;
		while (p < end && is_digit(*p)) {
			/* leading zeros of the exponent do not count toward its size */
			if (exp != 0 || *p != '0') {
				if (++exp_digits > MAX_EXP_DIGITS)
					return 0;
				exp = exp * 10 + (*p - '0');
			}
			p++;
		}
		scale += exp_negative ? -exp : exp;
	}
	if (p != end)
		return 0;	/* anything else in the token: not a plain decimal */
	if (mant == 0) {
		/* zero with any exponent is zero, keeping its sign as strtod does */
		*out = negative ? -0.0 : 0.0;
		return 1;
	}
	if (mant > EXACT_INT_LIMIT || scale > 22 || scale < -22)
		return 0;
	/*
	 * Both operands are exact, so the one rounding is the correct rounding.
	 * The sign goes on before it, so that a directed rounding mode rounds the
	 * signed value, as strtod does.
	 */
	double v = negative ? -(double)mant : (double)mant;
	*out = scale >= 0 ? v * exact_pow10[scale] : v / exact_pow10[-scale];
	return 1;
}

int decimal_fast_index(const char *p, const char *end, int *out)
{
	if (p == end || end - p > 9)
		return 0;
	int v = 0;
	for (; p < end; p++) {
		if (!is_digit(*p))
			return 0;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return 1;
}
