/*
 * lik_internal.h - what the files of the kernel's C API (ik/lik_*.c,
 * liblinear_ik.h) share, and the few hidden functions the programs use
 * beside the public API (they link the static library, which holds them).
 *
 * Contract.
 * A struct lik_map shares one read-only struct ikmap among its copies by
 * a reference count (maps never change once built or loaded, so a copy is
 * a new reference: lik_train_with_map and lik_model_assemble "copy" the
 * caller's map this way and the caller may free its own at once).
 * A struct lik_model owns its upstream model and one reference to a map
 * (NULL: plain).
 *
 * Errors: lik_fail sets a code and a one-line message (printf format; no
 * newline). Messages are the programs' lines without their "ERROR: "
 * prefix; lik_error_print prints one as the programs print it: after
 * "ERROR: ", except "can't ..." (upstream's own wording, which it prints
 * bare). The few other bare lines of upstream's come from load_model, and
 * predict prints them itself (lik_model_load_detailed). Every public entry point
 * starts with lik_begin(err, &capture) and ends with lik_end, which
 * routes liblinear's error lines (report.h) of the calling thread into
 * the capture instead of stderr: lik_fail_captured then uses the
 * captured line, or the caller's words when there is none.
 */
#ifndef LIK_INTERNAL_H
#define LIK_INTERNAL_H

#include <stdatomic.h>
#include <stdio.h>
#include "ik_defaults.h"
#include "ikmap.h"
#include "liblinear_ik.h"
#include "report.h"
#include "rows.h"

/* lik_find_parameters' search over psi (kernel->psi 0): 4, 8, ..., 4096, none above the rows. */
#define LIK_SEARCH_PSI_MIN 4
#define LIK_SEARCH_PSI_MAX 4096
/* -k minmax's grid of 2^b: 16, 64, ..., 4096 (issue 27) */
#define LIK_SEARCH_MINMAX_MIN 16
#define LIK_SEARCH_MINMAX_FACTOR 4
#define LIK_SEARCH_MINMAX_MAX 4096

struct lik_map {
	atomic_int references;
	struct ikmap *map;
};

struct lik_model {
	struct model *linear;
	struct lik_map *map;	/* NULL: a plain model */
};

/* ---- errors (lik_error.c) ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void lik_fail(struct lik_error *err, int code, const char *fmt, ...);
void lik_ok(struct lik_error *err);

/* A captured liblinear line (report.h) for the duration of one API call. */
struct lik_capture {
	struct report_capture report;
	char line[LIK_MESSAGE_SIZE];
};
void lik_capture_begin(struct lik_capture *c);
void lik_capture_end(struct lik_capture *c);
/* lik_fail with the captured line (its "ERROR: " prefix dropped), else with fallback. */
void lik_fail_captured(struct lik_error *err, int code, const struct lik_capture *c,
	const char *fallback);

/* The message of an ikmap err buffer, as a code: out of memory, else code. */
void lik_fail_ikmap(struct lik_error *err, int code, const char *ikmap_err);

/* Prints err's message to stderr as the programs print it (see above). */
void lik_error_print(const struct lik_error *err);

/* ---- maps (lik_map.c) ---- */

/* 1 for the exact-sparse kernels (minmax, acos), whose psi is cells, not sampled rows. */
int lik_kernel_is_exact(int kernel);
/* The cells per partitioning of such parameters: psi, or 2 for acos (whose psi may be 0). */
int lik_map_params_cells(const struct lik_map_params *p);
/*
 * The first negative value of rows[0..n-1] at a feature index <= dim:
 * 1 with *row (0-based) and *feature set, else 0. -k minmax refuses such
 * values unless it min-max scales (scale 2), every kernel under scale 4
 * (ikmap_needs_nonnegative).
 */
int lik_first_negative(struct feature_node *const *rows, size_t n, int dim, size_t *row,
	int *feature);
/*
 * LIK_EDATA naming such a value's row (0-based row: printed 1-based,
 * within the call) and feature, and why (ikmap_nonnegative_reason). -1.
 */
int lik_fail_negative_why(struct lik_error *err, size_t row, int feature, const char *why);
/*
 * Makes room for one more row in a table of *count rows (row_size bytes
 * each) and their nf fold scores, doubling *capacity (16 at first) when
 * full. 0, or -1 (LIK_ENOMEM; the arrays as they were) when out of memory.
 */
int lik_table_reserve(void **rows, size_t row_size, double **fold_scores, size_t nf,
	size_t count, size_t *capacity, struct lik_error *err);
/*
 * Why maps of these parameters refuse negative values (ikmap_nonnegative_reason:
 * min-max without scale 2, any kernel under scale 4), or NULL when they take them.
 */
const char *lik_map_params_nonnegative_reason(const struct lik_map_params *params);

/*
 * The psi grid that -C searches for a kernel: first, first*factor, ...,
 * never past last. anne/iforest: 4, 8, ... up to min(rows, grid_max)
 * (psi is sampled rows); minmax: 16, 64, 256, 1024, 4096 (2^b cells, not
 * capped by the rows; grid_max caps it too, but never below 16); acos: 2
 * only (C alone is searched). last < first (IK types only): no psi fits.
 */
struct lik_psi_grid {
	int first, factor, last;
};
struct lik_psi_grid lik_psi_grid_of(int kernel, int rows, int grid_max);

/* ---- -k auto (lik_auto.c), hidden; here for its unit tests ---- */

/*
 * Stage 3's kernel candidates among rows[0..count-1]: of the kernel rows
 * scored on on_rows rows whose score is below the best such row's (plain
 * linear's included) by at most sqrt(se_best^2 + se^2) and 0.5 points,
 * the cheapest by lik_auto_choose's order, then the best-scoring kernel
 * row (screened or not), then the next best scores; at most want (and 8)
 * copies into keep[]; returns how many.
 */
size_t lik_auto_pick_confirmed(const struct lik_auto_row *rows, size_t count, int on_rows,
	size_t want, struct lik_auto_row *keep);

/* ---- the search (lik_search.c), shared with -k auto (lik_auto.c) ---- */

/* Seconds on a monotonic clock: the searches' row times and budgets (one clock for all). */
double lik_seconds_now(void);

/*
 * lik_search; with_plain 0: no plain baseline row (plain and plain_versus
 * name the best). around_C > 0 (classification): where psi is not searched
 * (kernel->psi given, or acos), its one C walk is the short walk about
 * around_C (x4 steps up, then down, while the score improves, then the two
 * x2 neighbours of the best: about six scores), not the rising walk from
 * start_C, which runs on to C = 1024 when the score never rises above its
 * first value (-k auto's confirmations: a9a's minmax t = 1000 on all rows,
 * 408 s). around_C <= 0: lik_search's own walks.
 */
struct lik_search_table *lik_search_run(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double start_C, double start_p,
	const struct lik_search_options *options, int with_plain, double around_C,
	struct lik_error *err);

/* -s 0, 2 or 11 and at least 2 folds, or -1 with upstream's message: what every search takes. */
int lik_check_search_solver(const struct parameter *param, int nr_fold, struct lik_error *err);

/*
 * The kernel's C walks of lik_search (classification), on any CV scorer:
 * at() scores one C (accuracy, a fraction; it prints upstream's log2c
 * line), forget() makes the next score start cold, fold_scores() gives
 * each fold's score at the last C scored. first_C: where upstream's walk
 * starts on these rows (start_C when > 0, as cv_scorer_first_C); norm_unit:
 * the rows' mean squared norm rounded to a power of two (1 for cells
 * alone). train-mpi scores across its processes with the same walks.
 */
struct lik_walk_scorer {
	int (*at)(void *context, double C, double *score);
	void (*forget)(void *context);
	void (*fold_scores)(void *context, double *out);
	void *context;
	double first_C;
	double norm_unit;
};
/*
 * C0 > 0: the short walk about C0 (rival: the best all-row score so far,
 * NaN: none), else the rising walk with the early stop after `patience`
 * steps. The best C and score into *C and *score, each fold's score there
 * into folds[]. 0, or -1 (a score failed).
 */
int lik_kernel_C_walk(const struct lik_walk_scorer *sc, double start_C, int patience, double C0,
	double rival, double *C, double *score, double *folds);
/* From which C the early stop of the kernel's walks counts, on rows of that norm_unit. */
double lik_patience_from_C(double norm_unit);

/*
 * lik_search on rows this process does not hold whole (train-mpi -C -k):
 * the same stages, choices and table, but every walk on all rows is the
 * caller's walk(): at psi (0: upstream's plain sweep on all rows, its C
 * and p into row), C0 (> 0: the short walk about C0, else the rising
 * walk; -1 for regression, whose walks are find_parameters_rows_patient's)
 * and rival (as lik_kernel_C_walk's), it fills row->C, p, score and
 * seconds and folds[nr_fold], and for psi > 0 hands back the map of all
 * rows (*map, owned by the table after). The seconds decide stage 3's
 * time budget: the caller gives the same on every process of its own. Stage 1 runs here on `sample`: the rows that
 * lik_draw_rows draws by kernel->seed from all l rows, in file order;
 * NULL when l <= options->subsample_rows (no subsample: stage 1 walks on
 * all rows too). Row checks (negative values) are the caller's.
 */
struct lik_spread_rows {
	int l;
	const struct problem *sample;
	int (*walk)(void *context, int psi, double C0, double rival, struct lik_search_row *row,
		double *folds, struct lik_map **map, struct lik_error *err);
	void *context;
};
struct lik_search_table *lik_search_spread(const struct lik_spread_rows *rows,
	const struct parameter *param, const struct lik_map_params *kernel, int nr_fold,
	double start_C, double start_p, const struct lik_search_options *options,
	struct lik_error *err);

/*
 * Appends format's text to *text while room is left (advancing *text,
 * shrinking *size, always NUL-terminated when *size > 0); *need counts the
 * whole length, so the caller learns the size it needs (snprintf's rule).
 * The lines of lik_search_summary_text and lik_auto_*_text.
 */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void lik_append_text(char **text, size_t *size, int *need, const char *format, ...);

/* `want` rows of prob drawn by seed in file order (lik_search.c says how). 0, or -1. */
int lik_draw_rows(const struct problem *prob, int want, uint64_t seed, struct problem *out,
	int *drawn, struct lik_error *err);
/*
 * The row numbers (0-based, ascending) that lik_draw_rows draws from l
 * rows when want < l, into ids[want]: for callers that do not hold the
 * rows (train -C -k reads them from its file). 0, or -1 (LIK_ENOMEM).
 */
int lik_draw_ids(int l, int want, uint64_t seed, int *ids, struct lik_error *err);

/*
 * One walk of lik_search on rows already mapped (or plain, psi 0), for a
 * caller of lik_search_spread that maps all rows itself (train -C -k reads
 * them from its file in passes): X the rows, y their labels, bias the
 * problem's; psi, C0 and rival as lik_spread_rows' walk takes them. It
 * fills row (psi, X->l rows, C, p, score; seconds 0: the caller times the
 * walk with its mapping) and folds[nr_fold], exactly as lik_search's own
 * walk on the same rows. 0, or -1 with err set.
 */
struct lik_walk_setup {
	const struct parameter *param;
	int nr_fold;
	double start_C, start_p;
	const struct lik_search_options *opt;
};
int lik_search_walk_rows(const struct lik_walk_setup *w, const struct row_set *X, const double *y,
	double bias, int psi, double C0, double rival, struct lik_search_row *row, double *folds,
	struct lik_error *err);

/* A new lik_map holding map (taken over); NULL (map freed) when out of memory. */
struct lik_map *lik_map_wrap(struct ikmap *map, struct lik_error *err);
/* One more reference to map (a "copy"). */
struct lik_map *lik_map_share(const struct lik_map *map);

/*
 * Maps rows with the map's native cell width (ikmap_cell_size): cells
 * must hold count * t of them. 0, or -1 (LIK_EDEVICE, LIK_ENOMEM).
 */
int lik_map_native(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int device, int threads, struct lik_error *err);

/*
 * Maps count rows (count <= INT_MAX) into the solvers' form: *X becomes their
 * rows.h ROWS_CELLS view (cell value 1/sqrt(t), the map's raw part when it
 * has one, a bias column after all ikmap_columns when bias >= 0). Returns
 * one allocated block (the cells, then the raw rows' pointers and nodes)
 * that X points into, for the caller to free; NULL with err set.
 */
void *lik_map_row_set(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	double bias, int device, int threads, struct row_set *X, struct lik_error *err);

/*
 * The ROWS_CELLS view of count rows' cells (ikmap_cell_size each, t per
 * row) and, when the map has a raw part, their raw rows (ikmap_raw_row's,
 * raw[count]; NULL without one); a bias column when bias >= 0. X points
 * into cells and raw, which the caller keeps.
 */
void lik_cells_view(const struct ikmap *map, size_t count, double bias, const void *cells,
	struct feature_node *const *raw, struct row_set *X);

/*
 * One mapped row as the feature row a -k model sees: feature k*psi + cell
 * + 1 of value 1/sqrt(t) for k = 0..t-1, then the raw part (ikmap_raw_row
 * of the row x itself, feature j at t*psi + j), then the bias feature
 * ikmap_columns + 1 when bias >= 0; ended by index -1. lik_model_row_room
 * is the nodes out needs for x (t + 2, plus x's features within 1..d when
 * the map has a raw part). The one writer of that layout, so that
 * prediction, the ikmap tool and training's rows (rows.h) agree.
 */
size_t lik_model_row_room(const struct ikmap *map, const struct feature_node *x);
void lik_model_row(const struct ikmap *map, const void *cells, const struct feature_node *x,
	double bias, struct feature_node *out);

/* Builds a map of prob's rows without their bias nodes (psi from params). */
struct ikmap *lik_map_build_ikmap(const struct problem *prob, const struct lik_map_params *params,
	struct lik_error *err);

/*
 * The streaming build (ikmap.h "Streaming build", train -k): a scan for
 * params' factors (NULL after LIK_ENOMEM), and the map of l rows of dim
 * features from a finished scan and the drawn rows' source, with every
 * check and message of lik_map_build_ikmap but the rows' own (the caller
 * reads and checks them). NULL with err set.
 */
struct ikmap_scan *lik_map_scan_new(const struct lik_map_params *params, struct lik_error *err);
struct ikmap *lik_map_build_scanned(const struct ikmap_scan *scan, int l, int dim,
	const struct lik_map_params *params, ikmap_row_source source, void *context,
	struct lik_error *err);

/* The engine's device, or -1 after LIK_EINVAL. */
int lik_device_of(int device, enum ikmap_device *out, struct lik_error *err);

/* ---- training (lik_train.c) ---- */

/*
 * The rows training sees: prob's own (kernel NULL: *map NULL, *cells NULL)
 * or a new map of them (kernel's parameters) and their cells, both to free
 * (ikmap_free, free). 0, or -1 with err set.
 */
int lik_kernel_rows(const struct problem *prob, const struct lik_map_params *kernel,
	struct row_set *X, struct ikmap **map, void **cells, struct lik_error *err);

/*
 * Training and cross-validation on rows already mapped (train -k's
 * streamed cells): X the rows (rows.h; ROWS_CELLS of map's cells), y
 * their labels, bias the problem's (linear_rows.h). lik_train_cells takes one reference of map for the
 * model (given back on failure too). NULL / -1 with err set.
 */
struct lik_model *lik_train_cells(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, struct lik_map *map, struct lik_error *err);
int lik_cross_validation_cells(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double *target, struct lik_error *err);

/* lik_train_with_map, mapping prob's rows on device with threads (lik_train_from's -d and -m). */
struct lik_model *lik_train_with_map_on(const struct problem *prob, const struct parameter *param,
	const struct lik_map *map, int device, int threads, struct lik_error *err);

/* ---- models (lik_model.c) ---- */

/*
 * lik_model_load; when it failed in load_model itself (the model's text),
 * model_line (LIK_MESSAGE_SIZE bytes, or NULL) gets the line load_model
 * gave exactly as upstream prints it (with or without its "ERROR: "),
 * else "". predict prints that line and then upstream's "can't open model
 * file" instead of err's message.
 */
struct lik_model *lik_model_load_detailed(const char *model_file, char *model_line,
	struct lik_error *err);

/* Takes over linear and one reference of map (may be NULL). NULL when out of memory (both freed). */
struct lik_model *lik_model_wrap(struct model *linear, struct lik_map *map, struct lik_error *err);

#endif /* LIK_INTERNAL_H */
