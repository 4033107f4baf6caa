/*
 * print.h - progress messages of the library.
 *
 * Contract: info() formats like printf and hands the text to the function
 * set by set_print_string_function (stdout when none is set, nothing
 * after set_print_string_function of a no-op, as train -q does).
 * Like upstream, the print function is process-global, not thread-safe.
 * info_mute(true) silences info() until info_mute(false), whatever print
 * function is set; it returns the previous state so callers can nest.
 */
#ifndef LIBLINEAR_PRINT_H
#define LIBLINEAR_PRINT_H

#include <stdbool.h>

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void info(const char *fmt, ...);

bool info_mute(bool mute);

#endif /* LIBLINEAR_PRINT_H */
