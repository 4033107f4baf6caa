/*
 * lik_error.c - errors, the capture of liblinear's lines, and the
 * library-wide settings of the kernel's C API (liblinear_ik.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "ik_defaults.h"
#include "lik_internal.h"

void lik_fail(struct lik_error *err, int code, const char *fmt, ...)
{
	if (err == NULL)
		return;
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	err->message[strcspn(err->message, "\r\n")] = '\0';	/* one line */
}

void lik_ok(struct lik_error *err)
{
	if (err == NULL)
		return;
	err->code = LIK_OK;
	err->message[0] = '\0';
}

void lik_capture_begin(struct lik_capture *c)
{
	report_capture_begin(&c->report, c->line, sizeof c->line);
}

void lik_capture_end(struct lik_capture *c)
{
	report_capture_end(&c->report);
}

static const char *without_error_prefix(const char *line)
{
	static const char prefix[] = "ERROR: ";
	return strncmp(line, prefix, sizeof prefix - 1) == 0 ? line + sizeof prefix - 1 : line;
}

void lik_fail_captured(struct lik_error *err, int code, const struct lik_capture *c,
	const char *fallback)
{
	if (c->line[0] != '\0')
		lik_fail(err, code, "%s", without_error_prefix(c->line));
	else
		lik_fail(err, code, "%s", fallback);
}

void lik_fail_ikmap(struct lik_error *err, int code, const char *ikmap_err)
{
	if (strcmp(ikmap_err, "out of memory") == 0)
		code = LIK_ENOMEM;
	lik_fail(err, code, "%s", ikmap_err);
}

void lik_error_print(const struct lik_error *err)
{
	if (strncmp(err->message, "can't ", 6) == 0)
		fprintf(stderr, "%s\n", err->message);
	else
		fprintf(stderr, "ERROR: %s\n", err->message);
}

int lik_version(void)
{
	return LIBLINEAR_IK_VERSION;
}

void lik_free(void *p)
{
	free(p);
}

void lik_set_print_string_function(void (*print_func)(const char *))
{
	set_print_string_function(print_func);
}

void lik_set_threads(int threads)
{
#ifdef _OPENMP
	if (threads > 0)
		omp_set_num_threads(threads);
#else
	(void)threads;
#endif
}

void lik_map_params_default(struct lik_map_params *p, int kernel)
{
	memset(p, 0, sizeof *p);
	p->kernel = kernel;
	p->t = IK_DEFAULT_T;
	switch (kernel) {
	case LIK_KERNEL_IFOREST:
		p->psi = IK_DEFAULT_PSI_IFOREST;
		break;
	case LIK_KERNEL_MINMAX:
		p->psi = IK_DEFAULT_PSI_MINMAX;
		break;
	case LIK_KERNEL_ACOS:
		p->psi = IK_CELLS_ACOS;
		break;
	default:
		p->psi = IK_DEFAULT_PSI_ANNE;
	}
	p->seed = IK_DEFAULT_SEED;
	/* the exact kernels read their input once unless asked to scale (issue 27) */
	p->scale = lik_kernel_is_exact(kernel) ? IK_DEFAULT_SCALE_EXACT : IK_DEFAULT_SCALE;
	p->device = LIK_DEVICE_AUTO;
	p->threads = 0;
}
