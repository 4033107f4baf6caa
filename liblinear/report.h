/*
 * report.h - where the library's error and warning lines go.
 *
 * Contract: every error or warning line of the library (the solvers,
 * load_model, cross-validation, the parameter search) goes through
 * report_error, never straight to stderr. By default the line goes to
 * stderr, as upstream prints it. A caller that must not print (the
 * Isolation Kernel's C API, ik/liblinear_ik.h) captures the lines of the
 * calling thread into a buffer with report_capture_begin ... _end: the
 * first error line is kept there (later ones are dropped), without its
 * trailing newline; lines starting with "WARNING" are handed to the
 * warning function (report_set_warning_function; none set: dropped),
 * so a warning never becomes the call's error. While any thread
 * captures, lines from threads that do not (the OpenMP workers of
 * cross-validation, which fail only when out of memory) are dropped: the
 * capturing call fails and says why in its own words.
 */
#ifndef LIBLINEAR_REPORT_H
#define LIBLINEAR_REPORT_H

#include <stddef.h>

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void report_error(const char *fmt, ...);

struct report_capture {
	char *buf;		/* the first error line, "" when none */
	size_t size;
	int errors;		/* error lines seen */
	struct report_capture *outer;	/* the capture this one interrupts, if any */
};

/* Captures this thread's lines into buf (size >= 1) until report_capture_end(c). */
void report_capture_begin(struct report_capture *c, char *buf, size_t size);
void report_capture_end(struct report_capture *c);

/* Where captured warning lines go (one line, no newline); NULL: dropped. */
void report_set_warning_function(void (*warn)(const char *line));

#endif /* LIBLINEAR_REPORT_H */
