/*
 * lik_mex_print.c - errors, strings and the print hook of the mex
 * functions (see lik_mex.h).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lik_mex.h"

void mex_error_set(struct lik_error *err, int code, const char *format, ...)
{
	if (!err)
		return;
	err->code = code;
	va_list ap;
	va_start(ap, format);
	vsnprintf(err->message, sizeof err->message, format, ap);
	va_end(ap);
}

void mex_raise(const char *id, const struct lik_error *err)
{
	/* the message is data, never a format */
	mexErrMsgIdAndTxt(id, "%s", err && err->message[0] ? err->message : "unknown error");
}

char *mex_string(const mxArray *a)
{
	if (!a || !mxIsChar(a) || mxGetM(a) > 1)
		return NULL;
	return mxArrayToString(a);
}

int mex_is_col(const mxArray *a)
{
	char *s = mex_string(a);
	int yes = s && strcmp(s, "col") == 0;
	if (s)
		mxFree(s);
	return yes;
}

/*
 * Training prints through a hook that the solvers may call from OpenMP
 * worker threads (one call at a time, linear.h says). mexPrintf must run
 * on the interpreter's thread, so other threads' text waits in pending
 * and comes out at the next call on the interpreter's thread or at
 * mex_print_end. A failed allocation drops the text, never the program.
 */
static pthread_t interpreter_thread;
static int print_quiet;
static char *pending;
static size_t pending_len, pending_cap;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

static void flush_pending(void)
{
	pthread_mutex_lock(&pending_lock);
	if (pending_len > 0) {
		mexPrintf("%s", pending);
		pending_len = 0;
		pending[0] = '\0';
	}
	pthread_mutex_unlock(&pending_lock);
}

static void keep_pending(const char *s)
{
	size_t len = strlen(s);
	pthread_mutex_lock(&pending_lock);
	if (pending_len + len + 1 > pending_cap) {
		size_t cap = pending_cap ? pending_cap : 1024;
		while (cap < pending_len + len + 1)
			cap *= 2;
		char *grown = realloc(pending, cap);
		if (!grown) {
			pthread_mutex_unlock(&pending_lock);
			return;
		}
		pending = grown;
		pending_cap = cap;
	}
	memcpy(pending + pending_len, s, len + 1);
	pending_len += len;
	pthread_mutex_unlock(&pending_lock);
}

/*
 * -q silences training's progress, but the train program prints the
 * result line of each psi of -C -k ("psi = ...") even with -q (it is the
 * search's output, not progress), and the kernel's API hands those lines
 * to the same hook: they pass.
 */
static int prints_when_quiet(const char *s)
{
	return strncmp(s, "psi = ", 6) == 0;
}

void mex_print_string(const char *s)
{
	if (print_quiet && !prints_when_quiet(s))
		return;
	if (pthread_equal(pthread_self(), interpreter_thread)) {
		flush_pending();
		mexPrintf("%s", s);
	} else {
		keep_pending(s);
	}
}

static void print_nothing(const char *s)
{
	(void)s;
}

void mex_print_begin(int quiet)
{
	interpreter_thread = pthread_self();
	print_quiet = quiet;
	set_print_string_function(quiet ? print_nothing : mex_print_string);
	lik_set_print_string_function(mex_print_string);
}

void mex_print_end(void)
{
	flush_pending();
	free(pending);
	pending = NULL;
	pending_len = pending_cap = 0;
}
