/*
 * ik_options.h - the Isolation Kernel options that train, predict and the
 * ikmap tool share: -k type, -t T, -g psi, -r seed, -S 0..4, -a w and -d device
 * (-a: the weight of the raw features beside the cells, issue 28; its
 * letter is one that neither upstream's train and predict nor ours took).
 *
 * Contract: ik_options_parse() looks at one option letter and its value
 * word. It returns 1 when the letter is one of ours and the value is good,
 * 0 when the letter is not one of ours (the caller handles it), and -1
 * after printing why the value is bad to stderr (the caller then prints
 * its usage and exits 1, as train does for a bad -v). Values are checked
 * strictly by cli_number.h: the whole word must be a number in range (an
 * optional sign and decimal digits); -k and -d take their words.
 * The defaults are in ik/ik_defaults.h, one #define each, so that the benchmark that
 * measures them changes one line.
 */
#ifndef IK_OPTIONS_H
#define IK_OPTIONS_H

#include <stdint.h>
#include "ik_defaults.h"
#include "ikmap.h"
#include "liblinear_ik.h"

/* The defaults of -t, -g, -r and -S: ik/ik_defaults.h (the library's too). */

/* The -k numbers; 1..4 equal enum lik_kernel's. */
enum ik_kernel { IK_KERNEL_NONE = 0, IK_KERNEL_ANNE = 1, IK_KERNEL_IFOREST = 2, IK_KERNEL_MINMAX = 3,
	IK_KERNEL_ACOS = 4 };

struct ik_options {
	enum ik_kernel kernel;
	int t;
	int psi;		/* -g; 0 until given: use ik_options_psi() */
	int psi_given;		/* -g was on the command line */
	uint64_t seed;
	int scale;		/* -S; until given: use ik_options_scale() */
	int scale_given;	/* -S was on the command line */
	enum ikmap_device device;	/* -d auto|cpu|gpu */
	double raw_weight;	/* -a w (0: off, the default) */
	int raw_given;		/* -a was on the command line */
};

void ik_options_default(struct ik_options *o);

/* -g when given, else the default psi of the -k type (IK_DEFAULT_PSI_*). */
int ik_options_psi(const struct ik_options *o);

/* -S when given, else the default of the -k type (1 for anne and iforest, 0 for minmax, acos). */
int ik_options_scale(const struct ik_options *o);

/* "none", "anne", "iforest", "minmax" or "acos". */
const char *ik_kernel_name(enum ik_kernel kernel);

/* letter: the character after '-'; value: the next word. 1, 0 or -1 as above. */
int ik_options_parse(struct ik_options *o, char letter, const char *value);

/*
 * Checks -d after the command line is read: -d gpu without a usable GPU
 * prints "ERROR: -d gpu: no CUDA device found" (or "... this build has no
 * GPU support") and returns -1; otherwise 0. -d auto falls back to the
 * CPU silently when mapping (ikmap_map_on), -d cpu never asks.
 */
int ik_options_check_device(const struct ik_options *o);

/*
 * Checks how -k, -t, -g and -S combine, once the command line is read
 * (with -k 0 nothing but -a: the others are ignored then): -g with acos, a -g
 * that is not minmax's 2^b, -t above 65536 for minmax and acos, -S 2
 * with anne or iforest, -S 1 with minmax or acos, -a without -k. Prints "ERROR: ..." and
 * returns -1, else 0.
 */
int ik_options_check(const struct ik_options *o);

/* The library's map parameters (liblinear_ik.h) of -k, -t, -g, -r, -S, -d and -m threads. */
struct lik_map_params ik_options_kernel(const struct ik_options *o, int threads);

#endif /* IK_OPTIONS_H */
