/*
 * test_decimal.c - decimal_fast_double gives strtod's double bit for bit, or declines.
 *
 * The expectation is always glibc's strtod on the same text: when the fast
 * path accepts a string, strtod must consume the whole string, leave errno
 * alone, and give the same 64 bits (so -0.0 and rounding are checked too).
 * The fast path must also decline every string strtod would reject, flag or
 * only partly consume, since the reader relies on strtod for those errors.
 */
#include <errno.h>
#include <fenv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "decimal.h"

/* Deterministic 64-bit generator (xorshift64*), so failures repeat. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t next_u64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1du;
}

static uint64_t bits_of(double d)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	return b;
}

static long accepted_count;

/* Checks one string against strtod; returns whether the fast path took it. */
static int check_one(const char *s)
{
	double fast = 12345.0;
	int took = decimal_fast_double(s, s + strlen(s), &fast);
	char *stop;
	errno = 0;
	double ref = strtod(s, &stop);
	int ref_errno = errno;
	/*
	 * Plain tests with ck_abort_msg on failure: check's ck_assert records every
	 * passing check through a pipe, too slow for millions of strings.
	 */
	if (took) {
		accepted_count++;
		if (*stop != '\0')
			ck_abort_msg("fast path took \"%s\", strtod stops early", s);
		if (ref_errno != 0)
			ck_abort_msg("fast path took \"%s\", strtod sets errno", s);
		if (bits_of(fast) != bits_of(ref))
			ck_abort_msg("\"%s\": fast %a, strtod %a", s, fast, ref);
	} else if (fast != 12345.0) {
		ck_abort_msg("\"%s\": declined but wrote the output", s);
	}
	return took;
}

START_TEST(edge_cases)
{
	static const char *const taken[] = {
		"0", "-0", "+0", "0.0", "-0.0", "00000", "-000.000e5", "0e0", "0e-9999",
		".5", "5.", "-.5", "+5.", "1", "-1", "+1", "0.1", "0.2", "0.3", "1e22",
		"1e-22", "9007199254740992", "9007199254740992e22", "-9007199254740992e-22",
		"4.35", "0.000123", "1E5", "1e+05", "1e-0005",
		"0.0000000000000000000001", "3.14159", "2.5e-3", "0001.2500",
	};
	for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
		ck_assert_msg(check_one(taken[i]), "\"%s\" should take the fast path", taken[i]);
	/* these need strtod: errors, specials, or values outside the exact range */
	static const char *const declined[] = {
		"", "+", "-", ".", "-.", "e5", ".e5", "1e", "1e+", "1e-", "1.2.3", "1..2",
		"inf", "-inf", "INF", "infinity", "nan", "NaN", "-nan", "nan(123)",
		"0x10", "0x1p3", " 1", "1 ", "1\t", "\t1", "1\v", "1x", "++1", "--1", "+-1",
		"1e23", "1e-23", "9007199254740993", "123456789012345678", "12345678901234567890", "1e99999",
		"1e400", "1e-400", "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
		"1,5", "1e5.0", "0.00000000000000000000000000001", "1e+-5", "١",
	};
	for (size_t i = 0; i < sizeof declined / sizeof *declined; i++)
		ck_assert_msg(!check_one(declined[i]), "\"%s\" should go to strtod", declined[i]);
}
END_TEST

/* Random plain decimals of every shape the grammar allows: most are taken. */
START_TEST(random_plain_decimals)
{
	char s[96];
	long taken = 0;
	const long n = 3000000;
	for (long k = 0; k < n; k++) {
		uint64_t r = next_u64();
		size_t len = 0;
		int sign = (int)(r % 3);
		if (sign == 1)
			s[len++] = '-';
		else if (sign == 2)
			s[len++] = '+';
		int int_digits = (int)((r >> 2) % 12);
		int frac_digits = (int)((r >> 6) % 21);
		int has_point = (int)((r >> 11) & 1) || frac_digits > 0;
		int zero_bias = (int)((r >> 12) % 4);	/* 0: runs of leading zeros */
		for (int i = 0; i < int_digits; i++)
			s[len++] = (char)('0' + (zero_bias == 0 && i < 3 ? 0 : next_u64() % 10));
		if (has_point)
			s[len++] = '.';
		for (int i = 0; i < frac_digits; i++)
			s[len++] = (char)('0' + (zero_bias == 1 && i < 6 ? 0 : next_u64() % 10));
		if (int_digits == 0 && frac_digits == 0)
			s[len++] = '7';
		uint64_t e = next_u64();
		if (e % 3 == 0) {
			s[len++] = (e >> 2) & 1 ? 'e' : 'E';
			int es = (int)((e >> 3) % 3);
			if (es == 1)
				s[len++] = '-';
			else if (es == 2)
				s[len++] = '+';
			len += (size_t)snprintf(s + len, sizeof s - len, "%0*d",
				(int)((e >> 5) % 4) + 1, (int)((e >> 8) % 40));
		}
		s[len] = '\0';
		taken += check_one(s);
	}
	/* the point of the fast path: ordinary data goes through it */
	ck_assert_msg(taken > n / 2, "only %ld of %ld took the fast path", taken, n);
}
END_TEST

/* Numbers printed the way data files are written (%g, %.17g, %.6f ...). */
START_TEST(printed_doubles)
{
	static const char *const formats[] = { "%g", "%.4g", "%.10g", "%.15g", "%.17g",
		"%.6f", "%.3e", "%.16e", "%f" };
	char s[512];
	for (long k = 0; k < 2000000; k++) {
		uint64_t r = next_u64();
		double d;
		switch (r % 4) {
		case 0:	/* any finite double, subnormals and huge ones included */
			do {
				uint64_t b = next_u64();
				memcpy(&d, &b, sizeof d);
			} while (d != d || d - d != 0);
			break;
		case 1:	/* values like scaled features in [-1, 1] */
			d = (double)(int64_t)(next_u64() >> 11) / 9007199254740992.0 * 2 - 1;
			break;
		case 2:	/* small integers and labels */
			d = (double)((int64_t)(next_u64() % 2001) - 1000);
			break;
		default:	/* magnitudes around the fast path's limits */
			d = (double)(next_u64() >> 10) * (r & 16 ? 1e-20 : 1e5);
			break;
		}
		snprintf(s, sizeof s, formats[(r >> 3) % (sizeof formats / sizeof *formats)], d);
		check_one(s);
	}
}
END_TEST

/* Random bytes from the number alphabet: the fast path must never take a non-number. */
START_TEST(random_junk)
{
	static const char alphabet[] = "0123456789+-.eE xinfaINFA\t";
	char s[16];
	for (long k = 0; k < 2000000; k++) {
		uint64_t r = next_u64();
		size_t len = (size_t)(r % 9);
		for (size_t i = 0; i < len; i++)
			s[i] = alphabet[next_u64() % (sizeof alphabet - 1)];
		s[len] = '\0';
		check_one(s);
	}
	ck_assert(accepted_count > 0);
}
END_TEST

/*
 * Under each directed rounding mode too (glibc's strtod honours the mode):
 * the sign is part of the one rounded operation, so -0.1 rounds toward +inf
 * to the same double strtod gives.
 */
START_TEST(rounding_modes)
{
	static const int modes[] = { FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO, FE_TONEAREST };
	char s[64];
	for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
		ck_assert_int_eq(fesetround(modes[m]), 0);
		check_one("-0.1");
		check_one("0.1");
		check_one("-1e-22");
		for (long k = 0; k < 200000; k++) {
			uint64_t r = next_u64();
			snprintf(s, sizeof s, "%s%llu.%06llue%s%d", r & 1 ? "-" : "",
				(unsigned long long)((r >> 1) % 100000), (unsigned long long)((r >> 20) % 1000000),
				r & (1u << 30) ? "-" : "", (int)((r >> 40) % 17));
			check_one(s);
		}
	}
	ck_assert_int_eq(fesetround(FE_TONEAREST), 0);
}
END_TEST

/* Never reads past end: the text after end differs from what strtod would see. */
START_TEST(stops_at_end)
{
	const char *s = "12.5e3";
	double v = 0;
	ck_assert(decimal_fast_double(s, s + 4, &v));
	ck_assert(v == 12.5);
	ck_assert(!decimal_fast_double(s, s + 5, &v));	/* "12.5e" */
	ck_assert(decimal_fast_double(s, s + 1, &v) && v == 1.0);
	ck_assert(!decimal_fast_double(s, s, &v));
}
END_TEST

START_TEST(fast_index)
{
	int v = -1;
	const char *one = "1";
	ck_assert(decimal_fast_index(one, one + 1, &v) && v == 1);
	const char *big = "999999999";
	ck_assert(decimal_fast_index(big, big + 9, &v) && v == 999999999);
	const char *zeros = "000000007";
	ck_assert(decimal_fast_index(zeros, zeros + 9, &v) && v == 7);
	const char *zero = "0";
	ck_assert(decimal_fast_index(zero, zero + 1, &v) && v == 0);	/* the caller rejects 0 */
	v = -1;
	static const char *const declined[] = { "", "1234567890", "+1", "-1", " 1", "1 ",
		"1a", "0x1", "2147483648" };
	for (size_t i = 0; i < sizeof declined / sizeof *declined; i++) {
		const char *t = declined[i];
		ck_assert_msg(!decimal_fast_index(t, t + strlen(t), &v), "\"%s\"", t);
		ck_assert(v == -1);
	}
	/* every taken index equals strtol's value */
	char s[16];
	for (long k = 0; k < 1000000; k++) {
		uint64_t r = next_u64();
		int len = (int)(r % 10) + 1;
		for (int i = 0; i < len; i++)
			s[i] = (char)('0' + next_u64() % 10);
		s[len] = '\0';
		int took = decimal_fast_index(s, s + len, &v);
		if (took != (len <= 9))
			ck_abort_msg("\"%s\": took %d", s, took);
		if (took && v != (int)strtol(s, NULL, 10))
			ck_abort_msg("\"%s\": %d", s, v);
	}
}
END_TEST

static Suite *decimal_suite(void)
{
	Suite *s = suite_create("decimal");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, edge_cases);
	tcase_add_test(tc, random_plain_decimals);
	tcase_add_test(tc, printed_doubles);
	tcase_add_test(tc, random_junk);
	tcase_add_test(tc, rounding_modes);
	tcase_add_test(tc, stops_at_end);
	tcase_add_test(tc, fast_index);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(decimal_suite)
