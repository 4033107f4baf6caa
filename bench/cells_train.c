/*
 * cells_train.c - reads a file that `ikmap` mapped (t cells a row) into
 * compact cell rows (rows.h ROWS_CELLS, uint16_t cells) and trains once
 * with our train_rows(), so that a separate process measures the peak
 * memory of training on cells alone (no raw rows, no map), and the time
 * of training on cells (bench/ik_training.py; train_rows is internal to
 * the library, so it links the static liblinear.a: liblinear.so.6 exports
 * only upstream's API).
 *
 * cells_train FILE T PSI SOLVER C
 * Prints "train_s=..." (the train_rows call alone) and "nnz_w=..." (the
 * nonzero weights of the model). Needs psi <= 65536.
 * A benchmark aid, not part of the library.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>
#include "linear_rows.h"

static void die(const char *what)
{
	fprintf(stderr, "cells_train: %s\n", what);
	exit(1);
}

static void *grow(void *p, size_t bytes)
{
	p = realloc(p, bytes);
	if (!p)
		die("out of memory");
	return p;
}

static void quiet(const char *s)
{
	(void)s;
}

static double default_eps(int solver)
{
	return solver == L2R_LR || solver == L2R_L2LOSS_SVC ? 0.01 : 0.1;
}

int main(int argc, char **argv)
{
	if (argc != 6)
		die("usage: cells_train FILE T PSI SOLVER C");
	int t = atoi(argv[2]), psi = atoi(argv[3]);
	if (t < 1 || psi < 1 || psi > 65536)
		die("bad T or PSI");
	FILE *f = fopen(argv[1], "r");
	if (!f)
		die("cannot open FILE");
	size_t cap = 1024, l = 0;
	double *y = grow(NULL, cap * sizeof *y);
	uint16_t *cells = grow(NULL, cap * (size_t)t * sizeof *cells);
	double label;
	while (fscanf(f, "%lf", &label) == 1) {
		if (l == cap) {
			cap *= 2;
			y = grow(y, cap * sizeof *y);
			cells = grow(cells, cap * (size_t)t * sizeof *cells);
		}
		y[l] = label;
		for (int k = 0; k < t; k++) {
			long index;
			double value;
			if (fscanf(f, " %ld:%lf", &index, &value) != 2)
				die("a row without t cells");
			cells[l * t + k] = (uint16_t)(index - 1 - (long)k * psi);
		}
		l++;
	}
	fclose(f);
	struct row_set X = { .kind = ROWS_CELLS, .l = (int)l, .n = t * psi, .t = t, .psi = psi,
		.cell_value = 1.0 / sqrt((double)t), .cells16 = cells, .bias = -1 };
	struct parameter param = { .solver_type = atoi(argv[4]), .C = atof(argv[5]), .regularize_bias = 1 };
	param.eps = default_eps(param.solver_type);
	set_print_string_function(quiet);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct model *m = train_rows(&X, y, -1, &param);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!m)
		die("train_rows failed");
	long nnz_w = 0;
	for (int j = 0; j < m->nr_feature; j++)
		nnz_w += m->w[j] != 0;
	printf("train_s=%.6f\nnnz_w=%ld\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9, nnz_w);
	free_and_destroy_model(&m);
	free(y);
	free(cells);
	return 0;
}
