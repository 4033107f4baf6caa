/*
 * test_ik_cli_number.c - the shared parser of option values (cli_number.h):
 * integers are an optional sign and decimal digits in range, reals are
 * read whole by strtod and finite; a refused word leaves *out alone.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include "unit.h"
#include "cli_number.h"

START_TEST(integers_are_sign_and_digits_in_range)
{
	const struct { const char *text; long long value; } good[] = {
		{ "0", 0 }, { "7", 7 }, { "+7", 7 }, { "-7", -7 }, { "007", 7 }, { "-0", 0 },
		{ "2147483647", INT_MAX }, { "-2147483648", INT_MIN },
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		long long v = 99;
		ck_assert_msg(cli_parse_integer(good[i].text, INT_MIN, INT_MAX, &v), "%s", good[i].text);
		ck_assert_int_eq(v, good[i].value);
	}
	const char *bad[] = { "", "+", "-", "abc", "1x", "x1", "1.0", "1.5", "1e3", "0x10", " 1",
		"1 ", "--1", "+-1", "nan", "inf", "2147483648", "-2147483649",
		"99999999999999999999999" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		long long v = 99;
		ck_assert_msg(!cli_parse_integer(bad[i], INT_MIN, INT_MAX, &v), "%s", bad[i]);
		ck_assert_int_eq(v, 99);
	}
	long long v = 99;
	ck_assert(!cli_parse_integer("0", 1, 5, &v));
	ck_assert(!cli_parse_integer("6", 1, 5, &v));
	ck_assert(cli_parse_integer("5", 1, 5, &v) && v == 5);
}
END_TEST

START_TEST(seeds_are_any_unsigned_64_bit_integer)
{
	uint64_t v = 99;
	ck_assert(cli_parse_unsigned64("18446744073709551615", &v) && v == UINT64_MAX);
	ck_assert(cli_parse_unsigned64("+5", &v) && v == 5);
	ck_assert(cli_parse_unsigned64("-000", &v) && v == 0);
	v = 99;
	const char *bad[] = { "", "-1", "-5", "18446744073709551616", "1x", " 1", "1.0", "+" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(!cli_parse_unsigned64(bad[i], &v), "%s", bad[i]);
		ck_assert_int_eq(v, 99);
	}
}
END_TEST

START_TEST(reals_are_whole_strtod_words_and_finite)
{
	const struct { const char *text; double value; } good[] = {
		{ "1", 1 }, { "1e-3", 1e-3 }, { ".5", 0.5 }, { "+2", 2 }, { "-2.25", -2.25 },
		{ "0x1p-3", 0.125 }, { "5E-1", 0.5 }, { "1e308", 1e308 }, { "0", 0 },
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		double v = 99;
		ck_assert_msg(cli_parse_real(good[i].text, &v), "%s", good[i].text);
		ck_assert_double_eq(v, good[i].value);
	}
	const char *bad[] = { "", "1x", "abc", "nan", "-nan", "NAN(1)", "inf", "-inf", "infinity",
		"1e999", "-1e999", "1,5", "1 ", "0x", "1e", "--1", "+" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		double v = 99;
		ck_assert_msg(!cli_parse_real(bad[i], &v), "%s", bad[i]);
		ck_assert_double_eq(v, 99);
	}
}
END_TEST

START_TEST(option_helpers_say_which_option_and_value)
{
	int n = 5;
	double x = 5;
	ck_assert_int_eq(cli_int_option("-s", "+3", INT_MIN, INT_MAX, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(cli_real_option("-c", ".5", &x), 0);
	ck_assert_double_eq(x, 0.5);
	ck_assert_int_eq(cli_thread_count("2", &n), 0);
	ck_assert_int_eq(n, 2);
	/* the messages go to stderr; the calls must fail and leave the values */
	ck_assert_int_eq(cli_int_option("-s", "abc", INT_MIN, INT_MAX, &n), -1);
	ck_assert_int_eq(cli_int_option("-g", "0", 1, INT_MAX, &n), -1);
	ck_assert_int_eq(cli_int_option("-S", "2", 0, 1, &n), -1);
	ck_assert_int_eq(cli_real_option("-c", "nan", &x), -1);
	ck_assert_int_eq(cli_thread_count("0", &n), -1);
	ck_assert_int_eq(n, 2);
	ck_assert_double_eq(x, 0.5);
}
END_TEST

static Suite *cli_number_suite(void)
{
	Suite *s = suite_create("cli_number");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, integers_are_sign_and_digits_in_range);
	tcase_add_test(tc, seeds_are_any_unsigned_64_bit_integer);
	tcase_add_test(tc, reals_are_whole_strtod_words_and_finite);
	tcase_add_test(tc, option_helpers_say_which_option_and_value);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(cli_number_suite)
