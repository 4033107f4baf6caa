/*
 * read_time.c - times the LIBSVM reader alone: libsvm_data_read on one file.
 *
 * Usage: bench/read_time FILE [REPEATS]   (default 5)
 *
 * Reads FILE REPEATS times with bias -1 (as `train` without -B) and prints
 * one line: the median wall seconds of a read, the rows and the nonzeros, so
 * bench/reading.py can put our reading beside upstream's whole `train` run.
 * The file is read once before timing so every timed read finds it in the
 * page cache, as a repeated `train` run does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "reader.h"

static double now(void)
{
	struct timespec t;
	if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) {
		perror("clock_gettime");
		exit(1);
	}
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Reads path once; returns the seconds taken, with rows and nonzeros of the data. */
static double read_once(const char *path, int *rows, size_t *nodes)
{
	double start = now();
	struct libsvm_reader *r = libsvm_reader_open(path);
	if (!r) {
		perror(path);
		exit(1);
	}
	struct libsvm_data *d = libsvm_data_read(r, -1);
	if (!d) {
		fprintf(stderr, "%s\n", libsvm_reader_error(r));
		exit(1);
	}
	libsvm_reader_close(r);
	double took = now() - start;
	*rows = d->prob.l;
	*nodes = d->nr_nodes - (size_t)d->prob.l;	/* less one terminator a row */
	libsvm_data_free(d);
	return took;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s FILE [REPEATS]\n", argv[0]);
		return 2;
	}
	int repeats = argc == 3 ? atoi(argv[2]) : 5;
	if (repeats < 1 || repeats > 1000) {
		fprintf(stderr, "REPEATS must be 1 to 1000\n");
		return 2;
	}
	double *t = malloc((size_t)repeats * sizeof *t);
	if (!t) {
		perror("malloc");
		return 1;
	}
	int rows;
	size_t nnz;
	read_once(argv[1], &rows, &nnz);	/* warms the page cache */
	for (int i = 0; i < repeats; i++)
		t[i] = read_once(argv[1], &rows, &nnz);
	qsort(t, (size_t)repeats, sizeof *t, by_value);
	printf("%.6f %d %zu\n", t[repeats / 2], rows, nnz);
	free(t);
	return 0;
}
