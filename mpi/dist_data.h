/*
 * dist_data.h - one process's share of a training set, read under MPI.
 *
 * Contract: dist_data_read() is collective over comm (every process calls
 * it with the same arguments). It returns 0 on every process, or -1 on
 * every process after exactly one process (the lowest rank that failed,
 * which holds the error with the smallest global line) printed one
 * message to stderr naming the file and the line.
 *
 * Decomposition. Rows are cut into blocks of block_rows rows by their
 * global row number (row g is in block g / block_rows); each process owns
 * whole, contiguous blocks, and ranks own blocks in rank order, so
 * "block order" and "rank order, then local order" agree. With a shared
 * file the blocks do not depend on the number of processes, and block b
 * goes to rank b * P / nr_blocks_total: the sums taken block by block
 * (dist_newton.h) are then the same whatever P is.
 *  - Shared file (per_rank false): each process parses the bytes
 *    [size*r/P, size*(r+1)/P) moved to line starts (share_read.h); the
 *    line counts give every block's first line, and each process keeps
 *    the parsed rows of its blocks and parses the rest of its blocks
 *    (near the ends of its share) from the file. Line numbers in errors
 *    are global (lines of the whole file).
 *  - Per-rank files (per_rank true): process r reads FILE.r whole; its
 *    rows are cut into blocks locally (a block never spans two files),
 *    and line numbers are those of FILE.r. The model then depends on how
 *    the rows were split into files, as it must.
 * Every line is a row (the reader refuses blank lines), as in train.
 *
 * Rows are upstream's feature_node rows; with bias >= 0 each row ends with
 * the bias node (n, bias), n = the largest index over all processes + 1.
 * Sizes: local rows fit an int (checked), global counts are 64-bit.
 */
#ifndef LIBLINEAR_IK_DIST_DATA_H
#define LIBLINEAR_IK_DIST_DATA_H

#include <stdbool.h>
#include <stdint.h>
#include <mpi.h>
#include "linear.h"
#include "share_read.h"

struct dist_data {
	int l;				/* rows held here */
	double *y;			/* their labels or targets */
	struct feature_node **x;	/* their rows, each ended by index -1 */
	struct feature_node *nodes;	/* storage of the rows (of those after nodes_front's) */
	struct feature_node *nodes_front;	/* storage of the first rows, or NULL */
	int64_t first_line;		/* lines of the file(s) before row 0 here (for messages) */
	int64_t first_row;		/* global number of row 0 here (rows in rank order) */
	int64_t total_rows;		/* rows over all processes */
	int max_index;			/* largest feature index over all processes */
	int n;				/* features, bias included */
	double bias;

	int block_rows;			/* rows per block (the last one may hold fewer) */
	int nr_blocks;			/* blocks held here */
	int64_t first_block;		/* global number of this process's first block */
	int64_t total_blocks;		/* blocks over all processes */
	int *first_block_of_rank;	/* rank r's first global block, r = 0..P (P+1 entries;
					   block counts are checked to fit an int) */
};

/*
 * early: this process's share as read before MPI_Init (early_read.h), or
 * NULL; it is used when it was read for these arguments, this rank and
 * this process count, and freed in any case.
 */
int dist_data_read(MPI_Comm comm, const char *path, bool per_rank, int block_rows, double bias,
	struct share *early, struct dist_data *d);

void dist_data_free(struct dist_data *d);

/* Local row i's first row in block k (k = 0..nr_blocks; k = nr_blocks gives l). */
int dist_block_begin(const struct dist_data *d, int k);

/* This process's rank in comm. */
int dist_rank(MPI_Comm comm);

/*
 * Collective: ok is this process's verdict. Returns 1 on every process
 * when all are ok; otherwise the lowest failing rank prints message
 * (when not NULL) to stderr and every process gets 0.
 */
int dist_agree(MPI_Comm comm, int ok, const char *message);

#endif /* LIBLINEAR_IK_DIST_DATA_H */
