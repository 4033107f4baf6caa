/*
 * report.c - error lines to stderr, or into the calling thread's capture.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "report.h"

static _Thread_local struct report_capture *current;
/* How many captures are open in all threads (see report.h: others' lines are dropped). */
static atomic_int open_captures;
static void (*warning_function)(const char *line);

void report_capture_begin(struct report_capture *c, char *buf, size_t size)
{
	c->buf = buf;
	c->size = size;
	c->errors = 0;
	c->outer = current;
	buf[0] = '\0';
	current = c;
	atomic_fetch_add(&open_captures, 1);
}

void report_capture_end(struct report_capture *c)
{
	current = c->outer;
	atomic_fetch_sub(&open_captures, 1);
}

void report_set_warning_function(void (*warn)(const char *line))
{
	warning_function = warn;
}

void report_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct report_capture *c = current;
	if (c == NULL) {
		if (atomic_load(&open_captures) == 0)
			vfprintf(stderr, fmt, ap);
		va_end(ap);
		return;
	}
	char line[512];
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	line[strcspn(line, "\n")] = '\0';
	if (strncmp(line, "WARNING", 7) == 0) {
		if (warning_function != NULL)
			warning_function(line);
		return;
	}
	if (c->errors++ == 0)
		snprintf(c->buf, c->size, "%s", line);
}
