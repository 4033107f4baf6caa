/*
 * reader.h - the one reader of LIBSVM-format data ("label idx:val ...").
 *
 * Contract: train, predict and the other tools read data only through
 * this reader, so they all accept and reject exactly the same lines,
 * with the same messages. The rules are upstream LIBLINEAR 2.50's:
 *  - A line is "<label> <index>:<value> ...", tokens split on space and
 *    tab. A line may end in "\n", "\r\n" or (the last one) nothing.
 *  - The label must be a whole number for strtod ("+1", "1e0", "2.5").
 *  - Indices are base-10 integers (strtol), 1 <= index <= INT_MAX-1
 *    (so that the bias index max+1 still fits an int), strictly
 *    ascending within the line.
 *  - A value is a number for strtod followed by nothing but whitespace;
 *    strtod must not report a range error.
 *  - Trailing text without any ':' (e.g. "# comment") is ignored; a
 *    token without ':' that is followed by an index:value is an error.
 *  - A line with only a label is a row with no features; an empty or
 *    blank line is an error, also at the end of the file.
 *  - Unlike upstream, nan and inf labels or values are rejected, and so
 *    are indices that do not fit an int, and a token ":v" (empty index).
 * Every format error reads "Wrong input format at line N: <reason>"
 * (N counts lines from 1): scripts that look for upstream's
 * "Wrong input format at line N" still find it.
 *
 * Memory: the streaming reader keeps one line and one row, so it needs
 * memory for the longest line only, whatever the file size; lines have
 * no length limit. Counts are 64-bit.
 */
#ifndef LIBLINEAR_READER_H
#define LIBLINEAR_READER_H

#include <stdint.h>
#include <stdio.h>
#include "linear.h"

struct libsvm_reader;

enum libsvm_status {
	LIBSVM_ROW = 1,		/* a row was read */
	LIBSVM_EOF = 0,		/* no more rows */
	LIBSVM_ERROR = -1	/* format, I/O or memory error; see libsvm_reader_error */
};

/*
 * Opens path for reading. NULL if it cannot be opened (errno tells why)
 * or out of memory.
 */
struct libsvm_reader *libsvm_reader_open(const char *path);

/*
 * Reads from an already open stream (e.g. stdin); name is used in I/O
 * error messages. The stream is not closed by libsvm_reader_close.
 * NULL when out of memory.
 */
struct libsvm_reader *libsvm_reader_from_stream(FILE *stream, const char *name);

/*
 * Reads the next row. On LIBSVM_ROW, *label is its label and *x its
 * features, ascending, ended by a node of index -1; *nnz (if nnz is not
 * NULL) is the number of features. *x stays valid until the next call
 * or libsvm_reader_close; the caller may change it, and there is room
 * for one more node after the terminator, so a caller can append a bias
 * node in place (x[nnz] = bias node, x[nnz+1].index = -1).
 * After LIBSVM_ERROR every further call returns LIBSVM_ERROR.
 */
int libsvm_reader_next(struct libsvm_reader *r, double *label, struct feature_node **x,
	size_t *nnz);

/* Number of the line last read (1-based); 0 before the first. */
int64_t libsvm_reader_line(const struct libsvm_reader *r);

/*
 * Before the first read: the stream starts after lines_before lines of a
 * larger file (train-mpi reads one share of a shared file), so line
 * numbers, in errors too, count from lines_before + 1.
 */
void libsvm_reader_set_lines_before(struct libsvm_reader *r, int64_t lines_before);

/*
 * Where the next line begins: the bytes read since the reader started
 * (for libsvm_reader_open, the line's offset in the file).
 */
int64_t libsvm_reader_offset(const struct libsvm_reader *r);

/*
 * Goes to a line libsvm_reader_offset gave (a seekable file read by
 * libsvm_reader_open): the next row read is the one starting at byte
 * offset, numbered line in messages. 0, or LIBSVM_ERROR with the message
 * set (the stream cannot seek); the error sticks, as any other.
 */
int libsvm_reader_seek(struct libsvm_reader *r, int64_t offset, int64_t line);

/* Text of the last error, without a newline; "" if none. */
const char *libsvm_reader_error(const struct libsvm_reader *r);

/* Closes the file if the reader opened it, and frees the reader. NULL is fine. */
void libsvm_reader_close(struct libsvm_reader *r);

/*
 * A whole data set read into memory, as upstream's train builds it.
 * Row i is prob.x[i]: its features, then (only when prob.bias >= 0) the
 * bias node (prob.n, prob.bias), then the terminator of index -1.
 * prob.n is the largest index in the file, plus one with a bias.
 * An empty file gives prob.l == 0 and prob.x, prob.y NULL.
 */
struct libsvm_data {
	struct problem prob;
	struct feature_node *nodes;	/* every row's nodes, one block */
	size_t nr_nodes;		/* nodes in use, terminators and bias included */
	int max_index;			/* largest feature index seen; 0 if none */
};

/*
 * Reads every remaining row of r in one pass (so a pipe works too).
 * bias < 0: no bias node. Returns NULL on error (more than INT_MAX rows
 * included), with the message in libsvm_reader_error(r).
 */
struct libsvm_data *libsvm_data_read(struct libsvm_reader *r, double bias);

/* Frees everything; NULL is fine. */
void libsvm_data_free(struct libsvm_data *d);

#endif /* LIBLINEAR_READER_H */
