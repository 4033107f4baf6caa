/*
 * ik_options.c - parsing and checking the shared Isolation Kernel options.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_number.h"
#include "ik_options.h"
#include "lik_internal.h"

void ik_options_default(struct ik_options *o)
{
	o->kernel = IK_KERNEL_NONE;
	o->t = IK_DEFAULT_T;
	o->psi = 0;
	o->psi_given = 0;
	o->seed = IK_DEFAULT_SEED;
	o->scale = IK_DEFAULT_SCALE;
	o->scale_given = 0;
	o->device = IKMAP_DEVICE_AUTO;
	o->raw_weight = 0;
	o->raw_given = 0;
}

int ik_options_psi(const struct ik_options *o)
{
	if (o->psi_given)
		return o->psi;
	switch (o->kernel) {
	case IK_KERNEL_IFOREST:
		return IK_DEFAULT_PSI_IFOREST;
	case IK_KERNEL_MINMAX:
		return IK_DEFAULT_PSI_MINMAX;
	case IK_KERNEL_ACOS:
		return IK_CELLS_ACOS;
	default:
		return IK_DEFAULT_PSI_ANNE;
	}
}

int ik_options_scale(const struct ik_options *o)
{
	if (o->scale_given)
		return o->scale;
	/* minmax and acos read their input once unless -S 2 asks for the transform */
	return o->kernel == IK_KERNEL_MINMAX || o->kernel == IK_KERNEL_ACOS ? IK_DEFAULT_SCALE_EXACT
		: IK_DEFAULT_SCALE;
}

static const char *const kernel_names[][2] = {
	{ "0", "none" }, { "1", "anne" }, { "2", "iforest" }, { "3", "minmax" }, { "4", "acos" }
};
#define KERNEL_COUNT ((int)(sizeof kernel_names / sizeof kernel_names[0]))

const char *ik_kernel_name(enum ik_kernel kernel)
{
	return (int)kernel >= 0 && (int)kernel < KERNEL_COUNT ? kernel_names[kernel][1] : "none";
}

/* -t and -g: an integer >= min (cli_number.h). */
static int parse_int_at_least(const char *text, int min, int *out)
{
	long long v;
	if (!cli_parse_integer(text, min, INT_MAX, &v))
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_kernel(const char *text, enum ik_kernel *out)
{
	for (int k = 0; k < KERNEL_COUNT; k++)
		if (strcmp(text, kernel_names[k][0]) == 0 || strcmp(text, kernel_names[k][1]) == 0) {
			*out = (enum ik_kernel)k;
			return 0;
		}
	return -1;
}

static int parse_device(const char *text, enum ikmap_device *out)
{
	if (strcmp(text, "auto") == 0)
		*out = IKMAP_DEVICE_AUTO;
	else if (strcmp(text, "cpu") == 0)
		*out = IKMAP_DEVICE_CPU;
	else if (strcmp(text, "gpu") == 0)
		*out = IKMAP_DEVICE_GPU;
	else
		return -1;
	return 0;
}

/* Prints the message of a bad value; always -1. */
static int bad_value(const char *message)
{
	fprintf(stderr, "ERROR: %s\n", message);
	return -1;
}

int ik_options_parse(struct ik_options *o, char letter, const char *value)
{
	switch (letter) {
	case 'k':
		if (parse_kernel(value, &o->kernel) != 0)
			return bad_value("-k needs 0 (none), 1 (anne), 2 (iforest), 3 (minmax) or 4 (acos)");
		return 1;
	case 't':
		if (parse_int_at_least(value, 1, &o->t) != 0)
			return bad_value("-t needs a number of partitionings >= 1");
		return 1;
	case 'g':
		if (parse_int_at_least(value, 1, &o->psi) != 0)
			return bad_value("-g needs a number of cells per partitioning (psi) >= 1");
		o->psi_given = 1;
		return 1;
	case 'r':
		if (!cli_parse_unsigned64(value, &o->seed))
			return bad_value("-r needs a seed, a whole number from 0 to 18446744073709551615");
		return 1;
	case 'S': {
		long long scale;
		if (!cli_parse_integer(value, 0, 4, &scale))
			return bad_value("-S needs 0 (none), 1 (divide by max |x|), 2 (min-max), 3 (divide"
				" by the standard deviation) or 4 (log1p, then as 1)");
		o->scale = (int)scale;
		o->scale_given = 1;
		return 1;
	}
	case 'd':
		if (parse_device(value, &o->device) != 0)
			return bad_value("-d needs auto, cpu or gpu");
		return 1;
	case 'a':
		/* !(w >= 0) also catches a NaN, should the number parser ever pass one */
		if (!cli_parse_real(value, &o->raw_weight) || !(o->raw_weight >= 0)
				|| !isfinite(o->raw_weight))
			return bad_value("-a needs the raw features' weight w, a finite number >= 0"
				" (0: off)");
		o->raw_given = 1;
		return 1;
	default:
		return 0;
	}
}

int ik_options_check_device(const struct ik_options *o)
{
	char why[IKMAP_ERR_SIZE];
	if (o->device == IKMAP_DEVICE_GPU && ikmap_gpu_devices(why) == 0) {
		fprintf(stderr, "ERROR: -d gpu: %s\n", why);
		return -1;
	}
	return 0;
}

int ik_options_check(const struct ik_options *o)
{
	if (o->kernel == IK_KERNEL_NONE) {
		/* unlike -t and the others, a weight without a map would silently mean nothing */
		if (o->raw_given) {
			fprintf(stderr, "ERROR: -a (the raw features' weight) needs -k\n");
			return -1;
		}
		return 0;
	}
	/* -g 2 would pass the library's check; the option itself has no meaning for acos */
	if (o->kernel == IK_KERNEL_ACOS && o->psi_given) {
		fprintf(stderr, "ERROR: -g cannot be used with -k acos (each projection has %d cells)\n",
			IK_CELLS_ACOS);
		return -1;
	}
	struct lik_map_params p = ik_options_kernel(o, 0);
	struct lik_error err;
	if (lik_map_params_check(&p, &err) != 0) {
		fprintf(stderr, "ERROR: %s\n", err.message);
		return -1;
	}
	return 0;
}

struct lik_map_params ik_options_kernel(const struct ik_options *o, int threads)
{
	struct lik_map_params p;
	/* ik_kernel's numbers 1..4 are lik_kernel's; -k 0 gets anne's (callers map only with -k) */
	lik_map_params_default(&p, o->kernel == IK_KERNEL_NONE ? LIK_KERNEL_ANNE : (int)o->kernel);
	p.t = o->t;
	p.psi = ik_options_psi(o);
	p.seed = o->seed;
	p.scale = ik_options_scale(o);
	p.device = o->device == IKMAP_DEVICE_GPU ? LIK_DEVICE_GPU
		: o->device == IKMAP_DEVICE_CPU ? LIK_DEVICE_CPU : LIK_DEVICE_AUTO;
	p.threads = threads;
	p.raw_weight = o->raw_weight;
	return p;
}
