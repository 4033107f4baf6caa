/*
 * lib_train.c - trains with the train() of a LIBLINEAR shared library
 * chosen at run time (upstream 2.50's, or ours), so that a separate
 * process measures one library's peak memory on a LIBSVM file.
 *
 * lib_train LIBRARY.so FILE SOLVER C
 * Reads FILE (bench/libsvm_rows.c), trains once with -s SOLVER -c C and
 * the solver's default eps, no bias, and prints "train_s=..." (the
 * train() call alone). The same struct layouts serve both libraries:
 * linear.h is upstream's ABI. A benchmark aid, not part of the library.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "libsvm_rows.h"

typedef struct model *(*train_fn)(const struct problem *, const struct parameter *);
typedef void (*free_model_fn)(struct model **);
typedef void (*print_fn)(void (*)(const char *));

static void quiet(const char *s)
{
	(void)s;
}

static void *symbol(void *lib, const char *name)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "lib_train: %s\n", dlerror());
		exit(1);
	}
	return p;
}

/* The -e default of upstream's train for the solvers benchmarked here. */
static double default_eps(int solver)
{
	return solver == L2R_LR || solver == L2R_L2LOSS_SVC ? 0.01 : 0.1;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: lib_train LIBRARY.so FILE SOLVER C\n");
		return 1;
	}
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "lib_train: %s\n", dlerror());
		return 1;
	}
	train_fn train = (train_fn)symbol(lib, "train");
	free_model_fn free_model = (free_model_fn)symbol(lib, "free_and_destroy_model");
	((print_fn)symbol(lib, "set_print_string_function"))(quiet);

	struct libsvm_rows d;
	libsvm_rows_read(argv[2], &d);
	struct problem prob = { .l = (int)d.count, .n = d.dim, .y = d.labels, .x = d.rows, .bias = -1 };
	struct parameter param = { .solver_type = atoi(argv[3]), .C = atof(argv[4]) };
	param.eps = default_eps(param.solver_type);
	param.regularize_bias = 1;

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct model *m = train(&prob, &param);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!m) {
		fprintf(stderr, "lib_train: train failed\n");
		return 1;
	}
	printf("train_s=%.6f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
	free_model(&m);
	libsvm_rows_free(&d);
	dlclose(lib);
	return 0;
}
