/* print.c - routing of progress messages (see print.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include "linear.h"
#include "print.h"

static void print_to_stdout(const char *s)
{
	fputs(s, stdout);
	fflush(stdout);
}

static void (*print_string)(const char *) = print_to_stdout;
static bool muted;

bool info_mute(bool mute)
{
	bool was = muted;
	muted = mute;
	return was;
}

void set_print_string_function(void (*print_func)(const char *))
{
	print_string = print_func ? print_func : print_to_stdout;
}

void info(const char *fmt, ...)
{
	if (muted)
		return;
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	print_string(buf);
}
