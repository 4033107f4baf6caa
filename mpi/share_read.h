/*
 * share_read.h - the part of reading a training set that one process does
 * alone, without MPI: open the file, find its share, parse the share's
 * lines into rows.
 *
 * Contract: share_read() makes no MPI call, so it may run in a thread
 * before MPI_Init (early_read.h) or in the main thread after it
 * (dist_data.c); the two give the same struct share, field by field.
 *  - Shared file (per_rank false): the share of process `rank` of `size`
 *    is the bytes [size*rank/P, size*(rank+1)/P) of the file, both ends
 *    moved forward to line starts (begin, end); `lines` is the number of
 *    lines in it. Its rows are parsed speculatively: which rows a process
 *    keeps depends on every process's line count (dist_data.h's blocks),
 *    known only after MPI_Init. The parse does not know how many lines
 *    come before the share, so a line that fails to parse leaves
 *    parsed false and no rows; dist_data.c then parses the process's own
 *    rows again with their global line numbers, so that an error names
 *    the line in the whole file, as before.
 *  - Per-rank files (per_rank true): the whole file path.RANK is parsed,
 *    and an error is final (its lines are that file's lines).
 * ok is 0 when the file cannot be opened or read (msg says why, naming
 * the file; the message is final). Every row is stored with one spare
 * node before its terminator, for the bias (filled once the global
 * feature count is known).
 */
#ifndef LIBLINEAR_IK_SHARE_READ_H
#define LIBLINEAR_IK_SHARE_READ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "linear.h"

/* Rows as parsed: labels, and each row's nodes (features, bias slot, terminator). */
struct row_store {
	double *y;
	size_t *start;		/* row i's first node in nodes */
	struct feature_node *nodes;
	size_t nr_nodes, cap_nodes;
	int l, cap_rows;
	int max_index;		/* largest feature index of the rows stored */
};

struct share {
	char *path;		/* the file read: the shared file, or path.RANK */
	bool per_rank;
	int rank, size;		/* the process and process count it was read for */
	int ok;			/* 0: msg says why (final) */
	char msg[1024];
	FILE *f;		/* the shared file, open (dist_data.c reads more of it) */
	int64_t file_size, begin, end, lines;	/* shared file: the share's bytes and lines */
	bool parsed;		/* rows holds every line of the share (per-rank: of the file) */
	struct row_store rows;
	double seconds;		/* wall time share_read took */
};

/*
 * Reads the share (see above) into *sh (overwritten). stop, when not
 * NULL, is polled between rows: once it is set, the read gives up
 * (ok 0). Returns sh->ok.
 */
int share_read(struct share *sh, const char *path, bool per_rank, int rank, int size,
	const atomic_int *stop);

/* Whether sh was read (or tried) with these arguments. */
bool share_is_for(const struct share *sh, const char *path, bool per_rank, int rank, int size);

void share_free(struct share *sh);

/*
 * Parses the `rows` lines of f from byte `at` on, numbered from
 * lines_before + 1 in messages, appending them to s. 0, or -1 with the
 * message (naming path and the line) in msg.
 */
int share_parse_lines(FILE *f, int64_t at, int64_t rows, const char *path, int64_t lines_before,
	struct row_store *s, char *msg, size_t room);

/*
 * Line starts in the bytes [begin, end) of f, begin being one. Records
 * the offset of each whose global line number (first + count so far) is
 * a multiple of block_rows when starts is not NULL. The number of line
 * starts, or -1 on an I/O error.
 */
int64_t share_scan_lines(FILE *f, int64_t begin, int64_t end, int64_t first, int block_rows,
	int64_t *starts, int64_t *nr_starts);

void row_store_free(struct row_store *s);

/* The name of per-rank file r of path, "path.r"; NULL when out of memory. */
char *share_rank_path(const char *path, int rank);

#endif /* LIBLINEAR_IK_SHARE_READ_H */
