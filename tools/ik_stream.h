/*
 * ik_stream.h - `train -k` without holding the raw rows (issue 22): the
 * training file is read in passes and only the map and each row's cells
 * stay in memory.
 *
 * Contract. ik_stream_begin (step 1) and ik_stream_finish (steps 2 and 3)
 * read the LIBSVM file path (through the one reader, reader.h) as train -k
 * trains on it; train checks its parameters in between, as it does after
 * reading a whole file:
 *  1. a first pass parses every line (a format error is reported then,
 *     naming its line, as the in-memory reader does) and keeps, per row,
 *     its label and the byte offset of its line, the largest feature
 *     index, and the statistics of -S (ikmap.h "Streaming build"; -S 3
 *     needs two more passes over the file, its statistics being sums
 *     around a mean). A map that refuses negative values (-S 4, -k minmax
 *     but under -S 2) names the first negative's line after that pass, as
 *     train's in-memory check does. No row is kept.
 *  2. the map is built (lik_map_build_scanned: the same checks and
 *     messages as lik_train's build); its drawn rows, which depend only on
 *     the row count and the seed, are read back by seeking to their lines.
 *  3. a last pass maps the rows in batches (ik_batch.h) and keeps only
 *     their cells (and, with -a w, their raw parts, which the model needs).
 * The map, its .ik bytes and the cells are exactly those of the in-memory
 * path (lik_train on rows read whole), so the model is too.
 * A path that is not a regular file (a FIFO, /dev/stdin on a pipe) is
 * first copied into a scratch file PREFIX.XXXXXX, PREFIX being
 * $TMPDIR/liblinear-ik-train (TMPDIR unset or empty: /tmp), mode 0600,
 * removed at exit and on SIGINT, SIGTERM and SIGHUP (atomic_file.h, whose
 * handler train installs first), never on SIGKILL.
 * After ik_stream_begin s->l is the row count. After ik_stream_finish
 * s->X is the ROWS_CELLS view of all rows (bias column when
 * bias >= 0), s->y their labels, s->map the map (one reference) and 0 is
 * returned; on any error a message is on stderr (the line named where
 * the input is at fault), nothing is kept, and -1 is returned.
 */
#ifndef IK_STREAM_H
#define IK_STREAM_H

#include "lik_internal.h"
#include "linear.h"
#include "rows.h"

struct ik_stream_pass;	/* the first pass's records (ik_stream.c) */

struct ik_stream {
	int l;			/* rows */
	struct ik_stream_pass *pass;
	double bias;
	double *y;		/* [l] */
	struct lik_map *map;
	void *cells;		/* l * t cells of ikmap_cell_size bytes */
	struct feature_node **raw;	/* -a: row i's raw part, in raw_nodes; else NULL */
	struct feature_node *raw_nodes;
	struct row_set X;
};

/*
 * advice: the words after "feature j is negative: " when the map refuses
 * negatives (train's own), NULL to use the map's reason.
 */
int ik_stream_begin(const char *path, const struct lik_map_params *kernel, const char *advice,
	struct ik_stream *s);
int ik_stream_finish(struct ik_stream *s, double bias);
void ik_stream_free(struct ik_stream *s);

/*
 * ik_stream_finish's steps one at a time, for train -C -k (ik_search_stream.h),
 * which maps all rows once per psi it confirms: the first pass's records
 * (offsets, the scan, a scratch file) then stay until ik_stream_free.
 *  - ik_stream_scan_rest: the scan's later passes (-S 3), once after
 *    ik_stream_begin. 0, or -1 after a message.
 *  - ik_stream_build: the map of all rows at params (begin's kernel with
 *    another psi), as lik_map_build_ikmap builds it from the rows held.
 *    NULL after a message.
 *  - ik_stream_map: the last pass through map: the cells (and raw parts)
 *    of all rows replace the earlier ones, s->X their view with bias.
 *    0, or -1 after a message (no cells kept). ik_stream_drop_cells
 *    frees them (s->X cleared) while the map is not needed.
 *  - ik_stream_read_rows: rows ids[0..count-1] (ascending) read again as
 *    libsvm_data_read gives them with bias: n the largest index (+ 1 and a
 *    node (n, bias) ending each row when bias >= 0), y their labels. The
 *    caller frees out->x, out->y and *storage (the nodes). 0, or -1 after
 *    a message (nothing kept).
 */
int ik_stream_scan_rest(struct ik_stream *s);
struct ikmap *ik_stream_build(struct ik_stream *s, const struct lik_map_params *params);
int ik_stream_map(struct ik_stream *s, const struct ikmap *map, double bias);
void ik_stream_drop_cells(struct ik_stream *s);
int ik_stream_read_rows(struct ik_stream *s, const int *ids, size_t count, double bias,
	struct problem *out, struct feature_node **storage);

#endif /* IK_STREAM_H */
