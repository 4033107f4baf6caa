/*
 * libsvm_rows.h - a small LIBSVM file reader for the benchmark programs.
 *
 * Contract: libsvm_rows_read() reads "label index:value ..." lines into
 * upstream rows of struct feature_node (each ended by index -1), all in
 * one node array, and the labels; dim is the largest index. It exits
 * with a message on an unreadable file or when memory runs out; lines
 * without a label are skipped. Benchmark aid only: no validation beyond
 * what the benchmarks need.
 */
#ifndef BENCH_LIBSVM_ROWS_H
#define BENCH_LIBSVM_ROWS_H

#include <stddef.h>
#include "linear.h"

struct libsvm_rows {
	struct feature_node **rows;
	struct feature_node *nodes;
	double *labels;
	size_t count;
	int dim;
};

void libsvm_rows_read(const char *path, struct libsvm_rows *d);
void libsvm_rows_free(struct libsvm_rows *d);

#endif /* BENCH_LIBSVM_ROWS_H */
