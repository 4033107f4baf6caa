/*
 * lik_mex.h - what the mex functions of matlab/ share: Octave/MATLAB data
 * to the kernel's C API (ik/liblinear_ik.h) and back, option strings,
 * printing and errors.
 *
 * Contract.
 *
 * Data. X is a sparse double matrix whose rows are the instances (or its
 * columns, with 'col'), as upstream's mex functions take it. Row j of X
 * becomes one struct feature_node row, index = column + 1, in ascending
 * order, stored values kept as they are (an explicitly stored zero too, as
 * upstream). mex_rows_from_sparse copies X exactly once (16 bytes per
 * stored value plus two nodes per row) and never asks the interpreter to
 * transpose it (upstream duplicates and transposes X first: two more
 * copies).
 *
 * Models. A model struct has upstream 2.50's seven fields in upstream's
 * order (Parameters, nr_class, nr_feature, bias, Label, w, rho); a -k
 * model has one more, last: ik, a struct (kernel, t, psi, seed, scale,
 * checksum, bytes) whose bytes are the exact bytes of the model's .ik
 * file. mex_model_from_struct reads fields by name, checks every size and
 * type, and for a struct with an ik field rebuilds the map from the bytes
 * (every check of a .ik file), refuses it when a descriptive field
 * disagrees with the bytes or when t*psi is not nr_feature: such a struct
 * is never used as a plain linear model.
 *
 * Errors. Helpers that can fail fill a struct lik_error and return -1 or
 * NULL; the mex function frees what it holds and then raises the message
 * as an Octave/MATLAB error (mex_raise), so a failure never crashes the
 * interpreter and never returns a half-made result.
 *
 * Printing. mex_print_begin routes the libraries' print hooks to
 * mexPrintf (or nowhere, quiet); lines printed from worker threads are
 * kept and printed by mex_print_end on the interpreter's thread (the
 * interpreter is not thread-safe).
 */
#ifndef LIK_MEX_H
#define LIK_MEX_H

#include <stddef.h>
#include "mex.h"
#include "linear.h"
#include "liblinear_ik.h"

/* ---- errors and strings (lik_mex_print.c) ---- */

void mex_error_set(struct lik_error *err, int code, const char *format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Raises err's message as an error with this identifier; does not return. */
void mex_raise(const char *id, const struct lik_error *err);

/* A char row vector as a C string (mxFree it), or NULL when a is not one. */
char *mex_string(const mxArray *a);

/* Whether argument a is the string 'col'. */
int mex_is_col(const mxArray *a);

/* ---- printing (lik_mex_print.c) ---- */

void mex_print_begin(int quiet);
void mex_print_end(void);
/* The print hook itself (linear.h's and the kernel's). */
void mex_print_string(const char *s);

/* ---- data (lik_mex_convert.c) ---- */

struct mex_rows {
	struct feature_node **x;	/* count pointers into nodes */
	struct feature_node *nodes;
	size_t count;			/* instances */
	size_t nr_column;		/* features of X: size(X, 2), or size(X, 1) with 'col' */
};

/*
 * The rows of sparse double X. Features above max_feature are left out
 * (max_feature < 0: none is); bias >= 0 ends every row with the node
 * (bias_index, bias). 0, or -1 (X not sparse double real, too wide, out
 * of memory).
 */
int mex_rows_from_sparse(const mxArray *X, int instances_are_columns, int max_feature,
	double bias, int bias_index, struct mex_rows *rows, struct lik_error *err);
void mex_rows_free(struct mex_rows *rows);

/* y: a full real double vector with count rows; column_vector: it must have one column. */
int mex_check_labels(const mxArray *y, size_t count, int column_vector, struct lik_error *err);

/* ---- models (lik_mex_convert.c) ---- */

mxArray *mex_model_to_struct(const struct lik_model *model, struct lik_error *err);
struct lik_model *mex_model_from_struct(const mxArray *s, struct lik_error *err);
/* The map of a -k model struct or of its ik field alone (lik_map_free it). */
struct lik_map *mex_map_from_struct(const mxArray *s, struct lik_error *err);

/* ---- options (lik_mex_options.c) ---- */

struct mex_train_options {
	struct parameter param;
	double bias;
	int nr_fold;
	int cross_validation;	/* -v */
	int find_parameters;	/* -C */
	int C_specified, p_specified, solver_specified;
	int quiet;		/* -q */
	int threads;		/* -m; 0: not given */
	int kernel_on;		/* -k anne|iforest|minmax|acos */
	int auto_kernel;	/* -k auto: -C chooses the kernel too (lik_auto_search); kernel_on 0 */
	int t_given;		/* -t (fixes every candidate's t under -k auto) */
	int psi_given;		/* -g */
	int scale_given;	/* -S; else the -k type's default (1 anne/iforest, 0 minmax/acos) */
	int raw_given;		/* -a w (kernel.raw_weight): the raw features beside the cells */
	struct lik_map_params kernel;	/* -k -t -g -r -S -d */
	const char *note;	/* a line to print before training ("Solver not specified...") or NULL */
	/* the programs' online options (README "Online learning") */
	int passes;		/* -P: passes of -s 30 (default 1) */
	int protocol;		/* -O 1: the test-then-train protocol over the rows, in blocks */
	int block;		/* -b: rows per block with -O (default 1000) */
	int initial;		/* -I: rows of the initial block with -O (0: -b) */
	char *init_model;	/* -i model_file: continued training from that file (malloc'd), or NULL */
	int eps_given, bias_given, seed_given;	/* -e, -B, -r (-i checks them against the model) */
};

/* Parses a train option string (NULL: none). 0, or -1 (err says why; the caller prints the usage). */
int mex_train_options_parse(const char *text, struct mex_train_options *o, struct lik_error *err);
void mex_train_options_free(struct mex_train_options *o);
/*
 * With an initial model (-i, or a model struct argument): the model decides
 * -s, -B and -s 30's eta (its file's or struct's, else 0.5) where they are
 * not given; refuses a given -s or -B that differs, kernel options (its map
 * is reused), a solver that cannot go on, -O from a model other than -s 30.
 * 0, or -1 with err set.
 */
int mex_train_options_resolve(struct mex_train_options *o, const struct lik_model *initial,
	struct lik_error *err);

struct mex_predict_options {
	int probability;	/* -b */
	int quiet;		/* -q */
	int threads;		/* -m; 0: not given */
	int device;		/* -d, enum lik_device */
};

int mex_predict_options_parse(const char *text, struct mex_predict_options *o, struct lik_error *err);

#endif /* LIK_MEX_H */
