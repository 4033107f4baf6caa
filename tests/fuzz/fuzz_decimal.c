/*
 * fuzz_decimal.c - libFuzzer target for liblinear/decimal.h's fast paths.
 *
 * Input: the text of one number (at most 64 bytes; longer inputs are cut,
 * and a NUL ends the text early). Aborts when decimal_fast_double takes a
 * text that strtod would not consume whole, flags with errno, or converts to
 * other bits, and when decimal_fast_index takes a text whose strtol value
 * differs. Declining is always allowed: the reader then asks strtod.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "decimal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[65];
	size_t n = size < 64 ? size : 64;
	memcpy(s, data, n);
	s[n] = '\0';
	n = strlen(s);	/* strtod stops at a NUL as well, so compare on the same text */

	double fast = 0;
	if (decimal_fast_double(s, s + n, &fast)) {
		char *stop;
		errno = 0;
		double ref = strtod(s, &stop);
		FUZZ_CHECK(*stop == '\0' && errno == 0);
		uint64_t a, b;
		memcpy(&a, &fast, sizeof a);
		memcpy(&b, &ref, sizeof b);
		FUZZ_CHECK(a == b);
	}
	int index;
	if (decimal_fast_index(s, s + n, &index)) {
		char *stop;
		errno = 0;
		long ref = strtol(s, &stop, 10);
		FUZZ_CHECK(*stop == '\0' && errno == 0 && ref == index);
	}
	return 0;
}
