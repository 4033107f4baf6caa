/*
 * ik_batch.h - LIBSVM rows streamed through a map in batches.
 *
 * Contract: a batch holds at most `capacity` rows read from a
 * libsvm_reader (labels and features copied out of the reader), and the
 * cells ikmap_map gives them. Memory is bounded by the batch, not the
 * file: predict and the ikmap tool read, map and write one batch at a
 * time, and mapping a batch uses all the map's threads at once.
 * ik_cell_row() writes one row's cells as the feature_node row that a
 * model trained with -k sees, so predict and `ikmap` (map mode) show the
 * same numbers: feature k*psi + cell + 1 with value 1/sqrt(t) for
 * k = 0..t-1, ascending, then the map's raw part of the row (feature
 * t*psi + j, issue 28), then the bias feature when bias >= 0
 * (lik_model_row, ik/lik_internal.h).
 * Without a map (map NULL to init and next) a batch only reads: predict
 * hands its raw rows to lik_predict_rows (liblinear_ik.h), which maps
 * them itself. Each row kept has one spare node after its terminator, so
 * a bias node can be appended in place.
 */
#ifndef IK_BATCH_H
#define IK_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include "ikmap.h"
#include "linear.h"
#include "reader.h"

/*
 * Rows per batch of predict and the ikmap tool: a pruned aNNE tile (1024
 * rows, ikmap/anne_prune.c) for each thread of a small machine; a batch
 * holds its rows as nodes (2048 rows of 400 nonzeros are 13 MB; 4096
 * were 26 MB beside a 100 MB map, issue 22).
 */
#define IK_BATCH_ROWS 2048

struct ik_batch {
	size_t capacity;		/* rows per batch */
	size_t count;			/* rows in the batch now */
	double *labels;			/* [capacity] */
	struct feature_node **rows;	/* [capacity], into nodes */
	size_t *row_start;		/* [capacity] offsets into nodes */
	struct feature_node *nodes;
	size_t nodes_used, nodes_cap;
	unsigned char *cells;		/* count * t cells of ikmap_cell_size bytes; NULL without a map */
	size_t cell_bytes;		/* ikmap_cell_size(map) * t: one row's cells */
	/*
	 * Rows read by the earlier batches: row i of this one is the input's
	 * line rows_before + i + 1 (every line is a row; the reader refuses
	 * blank ones), for messages about bad values.
	 */
	int64_t rows_before;
	const char *name;		/* the input's name in such messages (NULL: none); the caller sets it */
};

/* 0, or -1 when out of memory (message on stderr). map may be NULL: rows only. */
int ik_batch_init(struct ik_batch *b, size_t capacity, const struct ikmap *map);
void ik_batch_free(struct ik_batch *b);

/*
 * Reads up to capacity rows (fewer only at the end of the input) and maps
 * them on device (ikmap_map_on; map NULL: not mapped). Returns the number
 * of rows (0: no more input), or -1 after a message on stderr (the
 * reader's error, or out of memory).
 */
long ik_batch_next(struct ik_batch *b, struct libsvm_reader *r, const struct ikmap *map, int threads,
	enum ikmap_device device);

/*
 * -k minmax without min-max scaling takes non-negative values only: the
 * first negative value of rows[0..n-1] at a feature <= dim prints
 * "ERROR: <path> line <N>: feature <j> is negative: <advice>" (row i is
 * line first_line + i; path may be NULL) and gives -1; else 0.
 * ik_batch_next makes this check itself for such a map before mapping.
 */
int ik_refuse_negative(struct feature_node *const *rows, size_t n, int dim, const char *path,
	int64_t first_line, const char *advice);

/*
 * Whether a map refuses negative values (ikmap_needs_nonnegative's rule:
 * -S 4 for every kernel, -k minmax under every -S but 2): minmax is
 * nonzero for a -k minmax map. ik_log1p_advice is the advice under -S 4
 * (from_model: said of a trained model's map), NULL for any other scale,
 * where a minmax caller keeps its own words.
 */
int ik_needs_nonnegative(int minmax, int scale);
const char *ik_log1p_advice(int scale, int from_model);
/* train -k's advice after "feature j is negative: " (-S 4's, else -k minmax's); train-mpi's too. */
const char *ik_train_negative_advice(int scale);

/* Row i's cells (as ikmap_map wrote them). */
const void *ik_batch_cells(const struct ik_batch *b, size_t i);

/* The value of every cell feature: 1/sqrt(t), so that K(x, y) = x . y. */
double ik_cell_value(const struct ikmap *map);

/*
 * Writes row x (its cells at cells) as the model's feature row: t cell nodes,
 * the raw part, a bias node when bias >= 0, a terminator; out needs
 * lik_model_row_room(map, x) nodes.
 */
void ik_cell_row(const struct ikmap *map, const void *cells, const struct feature_node *x,
	double bias, struct feature_node *out);

#endif /* IK_BATCH_H */
