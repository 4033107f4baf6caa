/*
 * cli_number.c - strict reading of option values (see cli_number.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli_number.h"

/* An optional sign, then one or more decimal digits, then the end. */
static bool is_signed_digits(const char *text)
{
	const char *p = text;
	if (*p == '+' || *p == '-')
		p++;
	if (*p == '\0')
		return false;
	for (; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

bool cli_parse_integer(const char *text, long long min, long long max, long long *out)
{
	if (!is_signed_digits(text))
		return false;
	errno = 0;
	long long v = strtoll(text, NULL, 10);
	if (errno == ERANGE || v < min || v > max)
		return false;
	*out = v;
	return true;
}

_Static_assert(ULLONG_MAX == UINT64_MAX, "strtoull reads exactly the 64-bit range");

bool cli_parse_unsigned64(const char *text, uint64_t *out)
{
	if (!is_signed_digits(text))
		return false;
	if (text[0] == '-') {
		/* strtoull would wrap "-1" around to the largest value; only -0 is in range */
		for (const char *p = text + 1; *p != '\0'; p++)
			if (*p != '0')
				return false;
		*out = 0;
		return true;
	}
	errno = 0;
	unsigned long long v = strtoull(text, NULL, 10);
	if (errno == ERANGE)
		return false;
	*out = (uint64_t)v;
	return true;
}

bool cli_parse_real(const char *text, double *out)
{
	char *end;
	double v = strtod(text, &end);
	/* ERANGE alone is no reason to refuse: an underflow to 0 or a
	 * subnormal is still the finite number closest to what was written */
	if (end == text || *end != '\0' || !isfinite(v))
		return false;
	*out = v;
	return true;
}

int cli_int_option(const char *option, const char *text, int min, int max, int *out)
{
	long long v;
	if (cli_parse_integer(text, min, max, &v)) {
		*out = (int)v;
		return 0;
	}
	if (min == INT_MIN && max == INT_MAX)
		fprintf(stderr, "ERROR: %s needs an integer (decimal digits, optional sign), not \"%s\"\n",
			option, text);
	else if (max == INT_MAX)
		fprintf(stderr, "ERROR: %s needs an integer >= %d, not \"%s\"\n", option, min, text);
	else
		fprintf(stderr, "ERROR: %s needs an integer from %d to %d, not \"%s\"\n",
			option, min, max, text);
	return -1;
}

int cli_real_option(const char *option, const char *text, double *out)
{
	if (cli_parse_real(text, out))
		return 0;
	fprintf(stderr, "ERROR: %s needs a finite real number, not \"%s\"\n", option, text);
	return -1;
}

int cli_thread_count(const char *text, int *out)
{
	long long v;
	if (cli_parse_integer(text, 1, INT_MAX, &v)) {
		*out = (int)v;
		return 0;
	}
	fprintf(stderr, "ERROR: -m needs a number of threads >= 1, not \"%s\"\n", text);
	return -1;
}
