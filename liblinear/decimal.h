/*
 * decimal.h - exact fast conversion of short decimal numbers (Clinger's fast path).
 *
 * The LIBSVM reader spends most of its time in strtod and strtol. Almost every
 * number in a data file is short ("0.25", "-1", "3.1e-2"), and such a number
 * converts exactly with one IEEE operation, so these functions take that case
 * and answer "not mine" for everything else; the caller then uses strtod or
 * strtol as before, so errors and edge cases (inf, nan, hex, whitespace, long
 * digit strings, huge or tiny exponents) keep strtod's exact behaviour.
 */
#ifndef LIBLINEAR_DECIMAL_H
#define LIBLINEAR_DECIMAL_H

/*
 * If the whole text [p, end) is a plain decimal number - an optional '+' or
 * '-', digits with at most one '.', at least one digit, then optionally 'e' or
 * 'E', an optional sign and at least one digit - whose value this function can
 * convert exactly, stores in *out the double strtod would give for it in the
 * current rounding mode (bit for bit, -0.0 included) and returns 1. Otherwise
 * returns 0 and leaves *out alone.
 * Never reads outside [p, end); p <= end.
 */
int decimal_fast_double(const char *p, const char *end, double *out);

/*
 * If [p, end) is one to nine decimal digits and nothing else, stores their
 * value in *out and returns 1; otherwise returns 0 and leaves *out alone.
 * (Nine digits always fit an int; longer or signed text is the caller's.)
 */
int decimal_fast_index(const char *p, const char *end, int *out);

#endif
