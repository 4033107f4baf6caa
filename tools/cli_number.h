/*
 * cli_number.h - the numbers of command-line options, read strictly; one
 * parser for train, predict and ikmap.
 *
 * Upstream reads option values with atoi/atof, which take "1x" as 1,
 * "abc" as 0 and "nan" or "inf" as themselves. Here:
 *
 * - an integer option is an optional sign and decimal digits, nothing
 *   else (no spaces, no "1.0", no "1e3", no "0x10"), and its value must
 *   lie in the range the caller gives;
 * - a real option must be read whole by strtod (so "1e-3", ".5", "+2",
 *   "0x1p-3" are numbers; an empty word or "1x" is not) and be finite
 *   ("nan", "inf" and "1e999", which overflows to inf, are refused).
 *
 * Contract: cli_parse_integer / cli_parse_real only parse: they return
 * true and set *out, or return false and leave *out alone. cli_int_option,
 * cli_real_option and cli_thread_count parse one option's value and on a
 * bad one print "ERROR: <option> needs ..., not \"<text>\"" (for -m, the
 * programs' long-standing "ERROR: -m needs a number of threads >= 1") to
 * stderr and return -1; 0 on success. The callers then print their usage
 * and exit 1, as they do for every bad option.
 */
#ifndef CLI_NUMBER_H
#define CLI_NUMBER_H

#include <stdbool.h>
#include <stdint.h>

bool cli_parse_integer(const char *text, long long min, long long max, long long *out);
bool cli_parse_unsigned64(const char *text, uint64_t *out);
bool cli_parse_real(const char *text, double *out);

/* option: how the message names it, e.g. "-s". */
int cli_int_option(const char *option, const char *text, int min, int max, int *out);
int cli_real_option(const char *option, const char *text, double *out);

/* -m threads: an integer >= 1 (train, predict and ikmap). */
int cli_thread_count(const char *text, int *out);

#endif /* CLI_NUMBER_H */
