/*
 * liblinear_ik.h - the Isolation Kernel of LIBLINEAR-IK as a C library
 * (libliblinear-ik.so.1, pkg-config name liblinear-ik): build a map, map
 * rows, train / cross-validate / search psi and C with it, save and load
 * the model pair (MODEL + MODEL.ik), predict on raw rows.
 *
 * Contract.
 *
 * Rows are upstream's (linear.h): struct feature_node arrays with 1-based
 * strictly ascending indices, ended by index -1. A struct problem is
 * upstream's too: when prob->bias >= 0 the last node of every row is the
 * bias node (index prob->n) and prob->n counts it, exactly as upstream's
 * train() takes it; the map never sees that node (the mapped rows get a
 * bias feature of their own after all their columns, as `train -B` gives
 * them: t*psi + 1, or t*psi + d + 1 with the raw features of a map built
 * with raw_weight > 0, which follow the cells at t*psi + j).
 *
 * A map (struct lik_map) is t random partitionings of the input space
 * (aNNE Voronoi cells or iForest trees, the CLI's -k types); a row maps to
 * t cells, cell k in 0..psi-1 of partitioning k, which the solvers see as
 * the features k*psi + cell + 1 of value 1/sqrt(t), so that
 * K(x, y) = (shared cells) / t = x' . y'. The min-max kernel (-k minmax,
 * 0-bit consistent weighted sampling) and the acos kernel (-k acos, sign
 * random projections) have maps of the same shape (ikmap.h): t is their
 * number k of samples and psi their cells per sample (minmax 2^b, acos
 * 2), so everything below serves them alike, with nr_feature = k*cells. Maps depend only on the rows,
 * the parameters and the seed: never on the thread count or the device.
 * A map is read-only once built or loaded: several threads may map with
 * one map at once.
 *
 * A model (struct lik_model) owns an upstream struct model (unchanged,
 * so linear.h's functions accept lik_model_linear()'s pointer) and, for a
 * -k model, its map; a plain model has no map. predict* functions take RAW
 * rows and map them first when the model has a map.
 *
 * Files: lik_model_save writes MODEL (upstream's format, then one trailer
 * line "ik_partitioning <checksum> <name>") and MODEL.ik (the map), each
 * written in full under a temporary name and renamed into place, .ik
 * first; lik_model_load loads a plain model or a pair and refuses a pair
 * whose map is missing, damaged, of another checksum or of another width
 * (lik_map_columns != nr_feature), never falling back to a plain model. These are
 * the files `train -k` writes and `predict` reads.
 *
 * Errors. Every function that can fail takes struct lik_error *err (may
 * be NULL) and reports the failure there: a code (enum lik_status) and a
 * one-line message, and returns NULL, -1 or NaN as stated. The library
 * never exits and never prints except through the print hook
 * (lik_set_print_string_function; training progress, as upstream's
 * train() prints it). Functions that succeed set err->code to LIK_OK.
 *
 * Threads: threads <= 0 means OpenMP's default; lik_set_threads sets that
 * default for training in this library. Results never depend on it.
 *
 * Memory: what a lik_* function returns is freed by the matching
 * lik_*_free, or by lik_free for byte buffers.
 */
#ifndef LIBLINEAR_IK_H
#define LIBLINEAR_IK_H

#include <stddef.h>
#include <stdint.h>
#include "linear.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LIBLINEAR_IK_VERSION 100	/* 1.00; the soname's major is 1 */

enum lik_status {
	LIK_OK = 0,
	LIK_EINVAL = 1,		/* a bad argument or parameter (Python: ValueError) */
	LIK_EDATA = 2,		/* bad rows: non-finite values, bad indices, too few rows */
	LIK_EIO = 3,		/* a file cannot be opened, read or written (OSError) */
	LIK_ENOMEM = 4,		/* out of memory (MemoryError) */
	LIK_EDEVICE = 5,	/* device LIK_DEVICE_GPU asked for and not usable */
	LIK_EMODEL = 6		/* a model or map that is damaged or does not match (ValueError) */
};

#define LIK_MESSAGE_SIZE 512

struct lik_error {
	int code;			/* enum lik_status */
	char message[LIK_MESSAGE_SIZE];	/* one line, no newline; "" when code is LIK_OK */
};

/* -k 1|anne, 2|iforest, 3|minmax, 4|acos */
enum lik_kernel { LIK_KERNEL_ANNE = 1, LIK_KERNEL_IFOREST = 2, LIK_KERNEL_MINMAX = 3,
	LIK_KERNEL_ACOS = 4 };
enum lik_device { LIK_DEVICE_CPU = 0, LIK_DEVICE_GPU = 1, LIK_DEVICE_AUTO = 2 };	/* -d */

/*
 * The map's parameters: the CLI's -k -t -g -r -S -d -m. For minmax and
 * acos, t is the number k of samples (1..65536) and psi the cells of
 * each: minmax 2^b, a power of two from 16 to 65536 (not capped by the
 * rows); acos 2 (0 is taken as 2). scale (-S, issue 28; every code for
 * every kernel, stored with the map, applied alike to training and later
 * rows): 0 none; 1 divide by max |x|; 2 min-max (anne: divide by the
 * range; minmax and acos: to [0, 1], later values clipped); 3 divide by
 * the standard deviation; 4 log1p, then as 1. iforest ignores 1-3 (no
 * split changes) and applies 4. Other codes are LIK_EINVAL. A negative
 * value is LIK_EDATA (naming the row within the call and the feature)
 * under scale 4, and for minmax under every scale but 2.
 */
struct lik_map_params {
	int kernel;		/* enum lik_kernel */
	int t;			/* partitionings or samples, >= 1 (-t) */
	int psi;		/* rows sampled per partitioning, 1..rows; minmax/acos: cells (-g) */
	uint64_t seed;		/* -r */
	int scale;		/* 0..4, see above (-S) */
	int device;		/* enum lik_device, where rows are mapped (-d) */
	int threads;		/* -m; <= 0: OpenMP's default */
	double raw_weight;	/* -a w: the raw features beside the cells, times w (0: off;
				 * finite, >= 0; ikmap.h "Raw features"); last, so that
				 * callers that zero the struct first get 0 */
};

/*
 * The CLI's defaults for kernel: t 100, its default psi (anne 64, iforest
 * 32, minmax 256, acos 2), seed 1, scale 1 (anne, iforest) or 0 (minmax,
 * acos), device auto, threads 0.
 */
void lik_map_params_default(struct lik_map_params *p, int kernel);

/*
 * Every check of p that needs no rows (kernel, t, psi, scale, device and
 * how they combine: the LIK_EINVAL that lik_map_build would give before
 * looking at any row), so that a caller can refuse bad options before
 * reading data. 0, or -1 (LIK_EINVAL).
 */
int lik_map_params_check(const struct lik_map_params *p, struct lik_error *err);

int lik_version(void);

/* Training's progress lines go to print_func (NULL: stdout), as linear.h's hook. */
void lik_set_print_string_function(void (*print_func)(const char *));
void lik_set_threads(int threads);

/* ---- maps ---- */
struct lik_map;

/*
 * A map of prob's rows (without their bias nodes). NULL on error (psi >
 * rows is LIK_EINVAL for anne and iforest; for minmax and acos psi is
 * cells and the rows do not cap it; a negative value under minmax without
 * scale 2 is LIK_EDATA, naming the row and the feature).
 */
struct lik_map *lik_map_build(const struct problem *prob, const struct lik_map_params *params,
	struct lik_error *err);

/*
 * Maps rows[0..count-1] (no bias nodes; features above the map's dim are
 * ignored) to count * t cells, row-major: cells[r*t + k] in 0..psi-1.
 * device and threads as in struct lik_map_params. 0, or -1.
 */
int lik_map_rows(const struct lik_map *map, struct feature_node *const *rows, size_t count,
	uint32_t *cells, int device, int threads, struct lik_error *err);

/*
 * Dense input: rows of a row-major matrix of doubles, row r's feature j
 * (1-based) at x[r*ld + j - 1], j <= cols, ld >= cols. A zero is an
 * absent feature, so a dense row means exactly its sparse form (its
 * nonzeros, ascending): these give what lik_map_build and lik_map_rows
 * give on that form, bit for bit (the same map bytes and checksum, the
 * same cells), whatever the threads. Non-finite values are refused
 * (LIK_EDATA, naming the first in row-major order), in every column.
 *
 * lik_map_build_dense: a map of the n rows, whose dim is the largest
 * column holding a nonzero (as a sparse problem's n without bias; no
 * nonzero at all is LIK_EDATA, psi > n LIK_EINVAL; n above INT_MAX or a
 * dim above 2^31 - 2 is LIK_EINVAL). NULL on error.
 * lik_map_rows_dense: the cells of count rows, as lik_map_rows (columns
 * above the map's dim are ignored; cols above INT_MAX is LIK_EINVAL);
 * x may be NULL when count is 0. 0, or -1.
 */
struct lik_map *lik_map_build_dense(const double *x, size_t n, size_t cols, size_t ld,
	const struct lik_map_params *params, struct lik_error *err);
int lik_map_rows_dense(const struct lik_map *map, const double *x, size_t count, size_t cols,
	size_t ld, uint32_t *cells, int device, int threads, struct lik_error *err);

void lik_map_free(struct lik_map **map);

int lik_map_kernel(const struct lik_map *map);	/* enum lik_kernel */
/* "anne", "iforest", "minmax", "acos" for enum lik_kernel (the -k names); NULL for anything else. */
const char *lik_kernel_name(int kernel);
int lik_map_t(const struct lik_map *map);
int lik_map_psi(const struct lik_map *map);
int lik_map_dim(const struct lik_map *map);	/* the largest feature index it was built on */
uint64_t lik_map_seed(const struct lik_map *map);
int lik_map_scaled(const struct lik_map *map);
uint64_t lik_map_checksum(const struct lik_map *map);	/* as the trailer line states it */
double lik_map_cell_value(const struct lik_map *map);	/* 1/sqrt(t) */
/* The raw features' weight w (0: none) and a model's columns: t*psi, plus dim when w > 0. */
double lik_map_raw_weight(const struct lik_map *map);
int lik_map_columns(const struct lik_map *map);
/*
 * The raw part's values (ikmap.h "Raw features", w in them) of count rows:
 * for every node of every row with index 1..dim, in order, one value in out
 * (0 where the transformed value times w is 0, or w = 0), so a caller that
 * holds the rows as CSR keeps their indices. out needs that many doubles.
 * 0, or -1 with err set.
 */
int lik_map_raw_values(const struct lik_map *map, struct feature_node *const *rows, size_t count,
	double *out, struct lik_error *err);

/*
 * K(x, y) in [0, 1], or NaN on error. With a raw part (w > 0) the kernel of
 * the rows the model sees: K(x, y) + w^2 <x', y'>, x' the transformed raw
 * features (ikmap.h "Raw features"), as ikmap -K prints it.
 */
double lik_kernel_value(const struct lik_map *map, const struct feature_node *x,
	const struct feature_node *y, struct lik_error *err);
/* out[i*ny + j] = K(x_i, y_j) (row-major nx x ny). 0, or -1. */
int lik_kernel_matrix(const struct lik_map *map, struct feature_node *const *x, size_t nx,
	struct feature_node *const *y, size_t ny, double *out, int threads, struct lik_error *err);

/*
 * The map as the exact bytes of its .ik file, and back (every check that
 * loading a .ik file makes). *bytes is freed with lik_free. 0 / the map,
 * or -1 / NULL.
 */
int lik_map_to_bytes(const struct lik_map *map, unsigned char **bytes, size_t *size,
	struct lik_error *err);
struct lik_map *lik_map_from_bytes(const void *bytes, size_t size, struct lik_error *err);
void lik_free(void *p);

/* ---- models ---- */
struct lik_model;

/*
 * Trains as linear.h's train() does; with kernel != NULL first builds a
 * map of prob's rows with those parameters, maps them and trains on the
 * cells (train -k). lik_train_with_map uses a given map instead (copied).
 * NULL on error (check_parameter's message is LIK_EINVAL).
 */
struct lik_model *lik_train(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, struct lik_error *err);
struct lik_model *lik_train_with_map(const struct problem *prob, const struct parameter *param,
	const struct lik_map *map, struct lik_error *err);

/* cross_validation() with an optional kernel (train -k -v): target[prob->l]. 0, or -1. */
int lik_cross_validation(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double *target, struct lik_error *err);

/*
 * find_parameters() with an optional kernel (train -C [-k]). With a kernel
 * whose psi is 0, psi is searched too (the CLI's -C -k without -g) and
 * *best_psi is set; else *best_psi is kernel->psi (0 without a kernel).
 * The psi searched: 4, 8, ..., 4096 up to the rows for anne and iforest;
 * 16, 64, 256, 1024, 4096 (2^b, whatever the rows) for minmax; 2 alone
 * for acos (C only).
 * start_C / start_p < 0: the automatic start, as upstream. Score: CV
 * accuracy in [0, 1], or the CV MSE for -s 11. Progress lines go to the
 * print hook. 0, or -1.
 */
int lik_find_parameters(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double start_C, double start_p,
	int *best_psi, double *best_C, double *best_p, double *best_score, struct lik_error *err);

/*
 * ---- the psi and C search that `train -C -k` runs (issue 21) ----
 *
 * lik_find_parameters above is the exhaustive search (every psi on all
 * rows, upstream's full C sweep at each). lik_search is the affordable one:
 *  1. psi = 4, 8, ... up to min(rows of the stage, options->grid_max) on a subsample of
 *     options->subsample_rows rows (drawn with the kernel's seed; all rows
 *     when there are not more), each with a C walk from C = 1/64 (or
 *     start_C) that stops after options->patience steps without a better
 *     CV score (counted from C = 1/16 on);
 *  2. the best of them again on all rows, and the next best ones (up to
 *     options->confirm in all) only when their subsample accuracy lies
 *     within one standard error of the best's (skipped when stage 1
 *     already had all rows). Each walks C about its subsample's best C:
 *     x4 steps up and down while the score improves, then the two x2
 *     neighbours of the best;
 *  3. while the best psi on all rows is the largest tried there, psi
 *     doubles (never past the rows nor options->max_psi), walking C about
 *     the best C so far, as long as its estimated time fits in
 *     options->time_budget seconds; table->note says why the grid stopped
 *     at its edge, else it is "";
 *  4. the plain rows (no kernel) with upstream's full sweep: exactly what
 *     find_parameters (train -C) gives on them; on stage 1's subsample when
 *     there is one (upstream's sweep of all rows can cost more than the
 *     whole kernel search), compared with stage 1's best row there.
 * With options->dual_scoring (the default) the kernel's walks of -s 2 and
 * -s 0 are scored by their dual solvers (-s 1, warm-started from C to C,
 * and -s 7, at their default tolerance 0.1): the same problem, whose
 * optimum the caller's solver then trains (with -R, or dual_scoring 0,
 * the caller's solver scores the same walks). -s 11 (C and p) keeps its
 * solver and upstream's walks from C_min, with the early stop, in every
 * stage.
 * The kernel walks' two C constants (the rising walk's first C, 1/64, and
 * the C from which the early stop counts, 1/16) assume rows of squared
 * norm 1; with raw features (raw_weight > 0) both are divided by the
 * mapped rows' mean squared norm (bias excluded) rounded to a power of two.
 * For minmax, stages 1 and 2 use its grid of 2^b, 16, 64, 256, 1024,
 * 4096 (never capped by the rows; options->grid_max caps it), and stage 3
 * does not extend it (the note says so when the best is 4096); for acos
 * (2 cells only) psi 0 means its one width: C alone is searched, on all
 * rows. With kernel->psi != 0 only that psi is searched (on all rows). The
 * choice depends only on the rows, the parameters and the seed: never on
 * the threads. Scores as lik_find_parameters (accuracy in [0, 1], MSE for
 * -s 11). The per-C lines go to the print hook only with options->verbose.
 */
struct lik_search_row {
	int psi;		/* 0: the plain baseline (no kernel) */
	int rows;		/* rows it was scored on (fewer in stage 1 with a subsample) */
	double C, p, score;	/* the best C (and p; -1 for classification) and its CV score */
	double seconds;		/* mapping and C walk */
};

struct lik_search_options {
	int patience;		/* C steps without a better score before a walk stops (3; 0: never) */
	int subsample_rows;	/* stage 1's rows (4000) */
	int confirm;		/* at most this many psi confirmed on all rows (2) */
	int grid_max;		/* stages 1 and 2 never past it (4096) */
	int max_psi;		/* stage 3 never past it (16384) */
	double time_budget;	/* seconds stage 3 may be estimated to take (300) */
	int verbose;		/* 1: the per-C lines to the print hook */
	/* called with each row as soon as it is done (NULL: none) */
	void (*on_row)(const struct lik_search_row *row, void *context);
	void *context;
	/* 1 (default): the kernel's C walks of -s 2 and -s 0 are scored by their dual
	 * solvers (-s 1, -s 7: the same problem, much faster on mapped rows); 0: by param's */
	int dual_scoring;
};

struct lik_search_table {
	size_t count;
	struct lik_search_row *rows;	/* in the order they ran; the plain baseline last */
	size_t best;			/* the chosen row (scored on all rows) */
	size_t plain;			/* the plain baseline's row */
	int at_edge;			/* 1: the best psi is the largest tried on all rows */
	char note[LIK_MESSAGE_SIZE];	/* why the grid was not extended further, or "" */
	struct lik_map *best_map;	/* the map of the best row (owned by the table) */
	/* the kernel row scored on the plain baseline's rows: best, or with a subsample the
	 * best row of stage 1 (the baseline ran on the same subsample) */
	size_t plain_versus;
	int kernel_wins;		/* 1: rows[plain_versus] scores strictly better than the baseline */
	/* added for -k auto (issue 28), after the fields above so their offsets stay: */
	int nr_fold;			/* the folds asked for */
	/* count x nr_fold, row-major: each row's score on each fold at its best C
	 * (NaN for a fold that too few rows could not make) */
	double *fold_scores;
};

void lik_search_options_default(struct lik_search_options *options);

/* NULL on error; options NULL: the defaults. Freed by lik_search_table_free. */
struct lik_search_table *lik_search(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double start_C, double start_p,
	const struct lik_search_options *options, struct lik_error *err);

void lik_search_table_free(struct lik_search_table **table);

/*
 * The text `train -C -k` prints for a search, so every layer prints the
 * same: lik_search_row_text is one psi row's line ("psi = P  Best C = ...
 * (R rows, S s)", no newline); lik_search_summary_text is the lines after
 * the psi lines, each ending in a newline: the Best line, the grid-edge
 * note (when psi was searched and the best is at the edge), the plain
 * baseline's line (naming the subsample and stage 1's best there when it
 * ran on one) and the advice when the kernel does not win. regression: the
 * search was of -s 11 (C, p and MSE). Both write at most size bytes,
 * NUL-terminated, and return the length the whole text needs (snprintf's
 * rule; text may be NULL when size is 0).
 */
int lik_search_row_text(const struct lik_search_row *row, int regression, char *text, size_t size);
int lik_search_summary_text(const struct lik_search_table *table, int regression, int psi_searched,
	char *text, size_t size);

/*
 * ---- `train -C -k auto` (issue 28): a kernel chosen among all the build has ----
 *
 * A candidate is (kernel, t, psi, S, w, C). lik_auto_search scores them in
 * stages, each with lik_search's psi and C search, on options->subsample_rows
 * rows drawn by base->seed (all rows when there are not more):
 *  1. plain linear (upstream's C sweep), then anne, iforest, minmax (with
 *     S = 2 when a value is negative) and acos at t = 100 and w = 0 (or
 *     the given w), each with its own psi/C search;
 *     minmax's grid of 2^b stops at the first 2^b >= d (larger ones give
 *     the same map);
 *  2. the best two kernels of stage 1 at their best psi with each entry of
 *     a fixed variation list: t = 300, t = 1000 (only when t = 300 scored
 *     above the stage-1 row by more than that row's standard error), and
 *     for anne S = 2 and S = 4 (4 only on non-negative data), then the
 *     raw-feature weights w = 0.3 and w = 1 at the stage-1 t and S (their
 *     C walks start where lik_search's do: its C constants are scaled by
 *     the mapped rows' mean squared norm, 1 without raw features);
 *  3. with a subsample, plain linear again on all rows (C walked up from
 *     a quarter of its subsample's best) and at most options->confirm
 *     kernel candidates (default 2, at most 8): the cheapest kernel row
 *     within the subsample's band of the choice rule below (plain linear's
 *     score counts for the band), then the best-scoring kernel row, then
 *     the next cheapest of the band; each by the short C walk about its
 *     subsample's best C (lik_search's confirmation walk).
 * A candidate whose parameters lik_map_params_check refuses is skipped
 * (so S values this build lacks drop out). options->t, psi and scale
 * (>= 0, > 0, >= 0) fix their part of every candidate, and so does
 * options->w >= 0 (or, when options->w < 0, base->raw_weight > 0) for
 * every kernel candidate's w (no w is searched then). param's solver
 * must be -s 2 or -s 0 (LIK_EINVAL otherwise).
 * The choice (lik_auto_choose) is among the rows scored on the most rows:
 * of those whose CV score is within one standard error (the best's fold
 * scores' standard deviation / sqrt(folds)) of the best and at most 0.005
 * below it, the smallest model (columns), then the cheaper map per row
 * (ops), then smaller w, lower S, smaller C, then the earlier row.
 * Columns: t*psi (anne, iforest, minmax), 2t (acos), d (plain linear;
 * plus d when w > 0). Ops per row, fixed counts: anne t*psi*nnz (a
 * distance to each centre), iforest t*ceil(log2 psi) (a path per tree),
 * minmax and acos t*nnz (a hash or a product term per sample and
 * nonzero), plain linear 0; nnz is the mean nonzeros per row.
 * options->budget >= 0: no candidate starts once that many seconds have
 * passed (stage 1's plain row always runs, so there is a valid best);
 * table->stopped is 1 and table->skipped names what was skipped. The
 * choice depends only on the rows, the options and the seed, never on
 * the threads (a budget-stopped search excepted).
 */
#define LIK_KERNEL_LINEAR 0	/* a lik_auto_row of plain rows, no map */

struct lik_auto_row {
	int kernel;		/* enum lik_kernel, or LIK_KERNEL_LINEAR */
	int t, psi, scale;	/* -t, -g, -S (0 for plain linear) */
	double w;		/* the raw features' weight (-a; 0: none) */
	double C, score;	/* the best C and its CV accuracy (a fraction) */
	double se;		/* standard error of score over the folds */
	int rows;		/* rows it was scored on */
	int stage;		/* 1, 2 or 3 */
	double seconds;
	double columns;		/* the model's columns per class */
	double ops;		/* map operations per row (fixed counts above) */
};

struct lik_auto_options {
	double budget;		/* seconds; < 0: none (the default, -1) */
	int subsample_rows;	/* stages 1 and 2 (4000) */
	int confirm;		/* at most this many kernel candidates confirmed on all rows (2) */
	int t;			/* 0: searched; else every candidate's t */
	int psi;		/* 0: searched; else every IK/minmax candidate's psi */
	int scale;		/* -1: each kernel's own; else every candidate's -S */
	int verbose;		/* 1: the per-C lines to the print hook */
	void (*on_row)(const struct lik_auto_row *row, void *context);
	void *context;
	/* added after the raw features (issue 28), after the fields above: */
	double w;		/* < 0: searched (the default, -1); else every kernel candidate's w */
};

struct lik_auto_table {
	size_t count;
	struct lik_auto_row *rows;	/* in the order they ran */
	int nr_fold;
	double *fold_scores;		/* count x nr_fold, row-major (NaN: fold not made) */
	size_t best;			/* the chosen row */
	size_t plain;			/* plain linear scored on the best's rows (or stage 1's) */
	int kernel_wins;		/* 1: a kernel row scores strictly above rows[plain] there */
	int stopped;			/* 1: the budget stopped the search */
	char skipped[LIK_MESSAGE_SIZE];	/* what the budget skipped, or "" */
};

void lik_auto_options_default(struct lik_auto_options *options);

/* base: seed, device, threads and a given w (raw_weight > 0; its kernel, t, psi, scale are
 * ignored). NULL on error. */
struct lik_auto_table *lik_auto_search(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *base, int nr_fold, double start_C,
	const struct lik_auto_options *options, struct lik_error *err);
void lik_auto_table_free(struct lik_auto_table **table);

/* The choice rule above over rows[0..count-1] (their score, se, columns, ops, w, scale, C,
 * rows); the index, or -1 when count is 0. */
long lik_auto_choose(const struct lik_auto_row *rows, size_t count);

/* "anne", "iforest", "minmax", "acos" or "linear". */
const char *lik_auto_kernel_name(int kernel);

/*
 * The text of -k auto, as lik_search_row_text: one candidate's line
 * ("kernel = K  t = T  psi = P  S = S  w = W  C = C  CV accuracy = A%
 * (R rows, X s)"), and the lines after them (the Best line, plain linear,
 * the advice when plain linear wins, the budget's note, the w note).
 */
int lik_auto_row_text(const struct lik_auto_row *row, char *text, size_t size);
int lik_auto_summary_text(const struct lik_auto_table *table, char *text, size_t size);

/* A model of a copy of linear (all of it) and a copy of map (NULL: plain). NULL on error (a width mismatch is LIK_EMODEL). */
struct lik_model *lik_model_assemble(const struct model *linear, const struct lik_map *map,
	struct lik_error *err);

void lik_model_free(struct lik_model **model);

/* The upstream model it owns (valid while the lik_model lives): linear.h's get_* work on it. */
const struct model *lik_model_linear(const struct lik_model *model);
/* Its map, or NULL for a plain model (owned by the model). */
const struct lik_map *lik_model_map(const struct lik_model *model);

int lik_model_nr_class(const struct lik_model *model);
int lik_model_nr_feature(const struct lik_model *model);	/* lik_map_columns for a -k model */
void lik_model_labels(const struct lik_model *model, int *labels);	/* nr_class of them */
int lik_model_is_probability(const struct lik_model *model);	/* check_probability_model */
int lik_model_is_regression(const struct lik_model *model);
int lik_model_is_oneclass(const struct lik_model *model);

/* The pair MODEL + MODEL.ik (a plain model: MODEL only, a stale MODEL.ik removed). 0, or -1. */
int lik_model_save(const char *model_file, const struct lik_model *model, struct lik_error *err);
/* A plain model or a verified pair. NULL on error (LIK_EIO: cannot read; LIK_EMODEL: damaged or mismatched). */
struct lik_model *lik_model_load(const char *model_file, struct lik_error *err);

/* The pair as one byte buffer (for pickling), and back (every check of lik_model_load). */
int lik_model_to_bytes(const struct lik_model *model, unsigned char **bytes, size_t *size,
	struct lik_error *err);
struct lik_model *lik_model_from_bytes(const void *bytes, size_t size, struct lik_error *err);

/* ---- prediction on raw rows (mapped first for a -k model) ---- */

/* As linear.h's predict, predict_values, predict_probability; NaN on error (out of memory). */
double lik_predict(const struct lik_model *model, const struct feature_node *x, struct lik_error *err);
double lik_predict_values(const struct lik_model *model, const struct feature_node *x,
	double *dec_values, struct lik_error *err);
double lik_predict_probability(const struct lik_model *model, const struct feature_node *x,
	double *prob_estimates, struct lik_error *err);

enum lik_output { LIK_OUTPUT_LABEL = 0, LIK_OUTPUT_VALUES = 1, LIK_OUTPUT_PROBABILITY = 2 };

/* How many numbers per row `what` gives: 0, nr_w (decision values) or nr_class (probabilities). */
int lik_model_nr_outputs(const struct lik_model *model, int what);

/*
 * Predicts rows[0..count-1] at once (mapped in batches on device, with
 * threads, as in struct lik_map_params; the CPU for a plain model):
 * labels[count], and with what != LIK_OUTPUT_LABEL out[count *
 * lik_model_nr_outputs] row-major (out may be NULL for labels only).
 * Identical to calling lik_predict* row by row. 0, or -1 (probability
 * asked of a model without it is LIK_EINVAL).
 */
int lik_predict_rows(const struct lik_model *model, struct feature_node *const *rows, size_t count,
	int what, double *labels, double *out, int device, int threads, struct lik_error *err);

/*
 * ---- online learning and continued training (issue 23) ----
 *
 * LIK_SOLVER_OGD (-s 30, model-file name ONLINE_OGD_HINGE, which
 * upstream's load_model refuses) is online gradient descent with the hinge
 * loss, the paper's IK-OGD: weights start at zero; each row in order is
 * scored f = w . phi(x) and, when y f < 1, w += a y phi(x), where a is
 * eta (param->C) times the row's class weight (-wi). phi(x).phi(y) is the
 * kernel K in [0, 1] (cells 1/sqrt(t)), so f = eta * sum y_i K(x_i, x)
 * over the rows with a loss: the paper's f (its Algorithm 2 adds eta*y to
 * each of the t cells of a binary map, whose dot product over t is K),
 * and the paper's eta = 0.5 is eta here too. Multi-class is
 * one-vs-rest as the other solvers. lik_train trains it (one pass) like
 * any solver. A -s 30 model's param.C (lik_model_linear) is the eta it
 * was last trained with, kept in its file ("eta" line; 0 for a file
 * written before: unknown); the calls below take eta from their param
 * only, so a caller that goes on "where the model stopped" passes it
 * (train -i and the Python and MATLAB layers do when -c is not given).
 */
#define LIK_SOLVER_OGD 30

/*
 * Online update: passes (>= 1) over rows[0..count-1] in order, labels
 * y[count], with param's solver_type LIK_SOLVER_OGD, eta (C) and -wi
 * weights, on model, which must be a -s 30 model (trained, loaded or
 * assembled). Rows are RAW (no bias node; the model's bias is added as
 * training adds it) and a -k model maps them with its own map (never
 * rebuilt; raw features above its dim are ignored). A label not in the
 * model joins with zero weights; so does a feature above a plain model's
 * nr_feature. A -k model maps the rows on device with threads, as in
 * struct lik_map_params (the CLI's -d and -m; a plain model ignores both).
 * Deterministic: no randomness, no threads in the update, and the cells
 * never depend on device or threads, so neither changes the model.
 * count 0 changes nothing. 0, or -1 (LIK_EINVAL: not an online model, bad
 * parameters or device; LIK_EDATA: bad rows; LIK_EDEVICE: LIK_DEVICE_GPU
 * not usable; LIK_ENOMEM): on -1 the model may hold part of the update.
 */
int lik_online_update(struct lik_model *model, struct feature_node *const *rows, const double *y,
	size_t count, const struct parameter *param, int passes, int device, int threads,
	struct lik_error *err);

/*
 * Continued training: a new model trained on prob (upstream's rows: bias
 * nodes when prob->bias >= 0, which must be the model's bias) starting
 * from initial, which is not changed. -s 30: a copy of initial updated by
 * passes over the rows (as lik_online_update). -s 0, 2, 11: initial's
 * weights as the starting point (init_sol), the columns matched to the
 * labels; the data must have exactly the model's labels and (plain model)
 * no feature above its nr_feature. A -k model's map is reused, never
 * rebuilt; it maps the rows on device with threads (as
 * lik_online_update). param's solver_type must be the model's. Other
 * solvers: LIK_EINVAL. NULL on error (LIK_EMODEL: the model does not fit
 * the data or parameters).
 */
struct lik_model *lik_train_from(const struct problem *prob, const struct parameter *param,
	const struct lik_model *initial, int passes, int device, int threads, struct lik_error *err);

/*
 * lik_cross_validation for the online solver with passes (train -s 30 -P
 * passes -v n): lik_cross_validation's folds, each fold's model trained
 * from zero by passes passes over the other folds' rows (in the folds'
 * shuffled order, as one pass takes them), then predicting its own fold
 * into target[prob->l]. With a kernel the map is built once from all of
 * prob's rows, as lik_cross_validation builds it. passes 1 gives
 * lik_cross_validation's targets. param's solver_type must be
 * LIK_SOLVER_OGD. 0, or -1 (LIK_EINVAL, LIK_EDATA, LIK_ENOMEM).
 */
int lik_online_cross_validation(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int passes, int nr_fold, double *target,
	struct lik_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LIBLINEAR_IK_H */
