/*
 * time_primal.c - times train() for the primal Newton solvers (-s 0, 2,
 * 11) on one LIBSVM file with 1 and with T threads, and checks that both
 * give bit-identical weights.
 *
 * Usage: bench/time_primal FILE [pairs [T [any]]]   (defaults: 7 pairs, T = 2)
 *
 * A pair is one timing on 1 thread and one on T threads, in alternating
 * order; each timing repeats train() until it spans MIN_TIMING_S (reading
 * the file is not timed). On a shared machine other processes distort
 * threaded timings badly (OpenMP threads spin at barriers while a sibling
 * waits for a core), so a pair counts only if no other process used more
 * than OTHERS_MAX of a CPU meanwhile (Linux /proc/stat minus this
 * process's own CPU time); others are run again, up to MAX_ATTEMPTS
 * pairs in all. Before each pair it waits (sleeping, up to QUIET_WAIT_S)
 * for a moment when the machine is idle. With "any", every pair counts
 * and nothing waits: timings as the load of the moment makes them. Prints, per solver, the medians over the clean pairs of
 * the time per train() on 1 and on T threads, the speedup (ratio of the
 * medians), whether the weights agree, and clean/attempted pairs.
 */
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "linear.h"
#include "reader.h"

static const double MIN_TIMING_S = 0.25;
static const double OTHERS_MAX = 0.03;
static const int MAX_ATTEMPTS = 200;
static const double QUIET_WAIT_S = 900;

static void print_nothing(const char *s)
{
	(void)s;
}

static int compare_doubles(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

static double median(double *v, int count)
{
	qsort(v, (size_t)count, sizeof *v, compare_doubles);
	return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

/* CPU seconds all processes have used since boot; negative if unknown. */
static double machine_busy_seconds(void)
{
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	unsigned long long v[8];
	int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (got != 8)
		return -1;
	unsigned long long busy = 0;
	for (int k = 0; k < 8; k++)
		if (k != 3 && k != 4)	/* all but idle and iowait */
			busy += v[k];
	return (double)busy / (double)sysconf(_SC_CLK_TCK);
}

static double own_cpu_seconds(void)
{
	struct rusage u;
	if (getrusage(RUSAGE_SELF, &u) != 0)
		return 0;
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
		+ 1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/* Sleeps until the CPUs were idle (but for OTHERS_MAX) for half a second, or QUIET_WAIT_S. */
static void wait_for_quiet(void)
{
	struct timespec half = { 0, 500000000 };
	for (double waited = 0; waited < QUIET_WAIT_S; waited += 0.5) {
		double busy0 = machine_busy_seconds();
		nanosleep(&half, NULL);
		double busy = machine_busy_seconds() - busy0;
		if (busy0 < 0 || busy <= OTHERS_MAX * 0.5)
			return;
	}
}

/* One train() on the given threads; returns seconds, keeps the model's w in *w. */
static double timed_train(const struct problem *prob, const struct parameter *param,
	int threads, double **w, size_t *w_len)
{
	omp_set_num_threads(threads);
	double start = omp_get_wtime();
	struct model *m = train(prob, param);
	double seconds = omp_get_wtime() - start;
	if (!m) {
		fprintf(stderr, "train failed\n");
		exit(1);
	}
	*w_len = (size_t)m->nr_feature;
	free(*w);
	*w = malloc(*w_len * sizeof **w);
	if (!*w) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memcpy(*w, m->w, *w_len * sizeof **w);
	free_and_destroy_model(&m);
	return seconds;
}

/* Seconds per train() over `repeats` runs. */
static double timing(const struct problem *prob, const struct parameter *param, int threads,
	int repeats, double **w, size_t *w_len)
{
	double total = 0;
	for (int k = 0; k < repeats; k++)
		total += timed_train(prob, param, threads, w, w_len);
	return total / repeats;
}

static void time_solver(const char *name, const struct problem *prob, int solver_type,
	double eps, int pairs, int threads, bool need_quiet)
{
	struct parameter param = {0};
	param.solver_type = solver_type;
	param.eps = eps;
	param.C = 1;
	param.p = 0.1;
	param.regularize_bias = 1;
	double *w1 = NULL, *wn = NULL;
	size_t n1 = 0, nn = 0;

	/* Warm up, and find how many repeats make a timing long enough. */
	double once = timed_train(prob, &param, 1, &w1, &n1);
	int repeats = once >= MIN_TIMING_S ? 1 : (int)(MIN_TIMING_S / once) + 1;

	double *t1 = malloc((size_t)pairs * sizeof *t1), *tn = malloc((size_t)pairs * sizeof *tn);
	if (!t1 || !tn) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	bool identical = true;
	int clean = 0, attempts = 0;
	while (clean < pairs && attempts < MAX_ATTEMPTS) {
		attempts++;
		if (need_quiet)
			wait_for_quiet();
		double busy0 = machine_busy_seconds(), own0 = own_cpu_seconds();
		double wall0 = omp_get_wtime();
		double a, b;
		if (attempts % 2) {
			a = timing(prob, &param, 1, repeats, &w1, &n1);
			b = timing(prob, &param, threads, repeats, &wn, &nn);
		} else {
			b = timing(prob, &param, threads, repeats, &wn, &nn);
			a = timing(prob, &param, 1, repeats, &w1, &n1);
		}
		double wall = omp_get_wtime() - wall0;
		double others = (machine_busy_seconds() - busy0) - (own_cpu_seconds() - own0);
		identical = identical && n1 == nn && memcmp(w1, wn, n1 * sizeof *w1) == 0;
		if (need_quiet && busy0 >= 0 && others > OTHERS_MAX * wall)
			continue;
		t1[clean] = a;
		tn[clean] = b;
		clean++;
	}
	if (clean == 0) {
		printf("%-10s %3d  no quiet moment in %d attempts\n", name, solver_type, attempts);
	} else {
		double m1 = median(t1, clean), mn = median(tn, clean);
		printf("%-10s %3d %9.4fs %9.4fs %8.2f %-9s %d/%d\n", name, solver_type, m1, mn,
			m1 / mn, identical ? "identical" : "DIFFERENT", clean, attempts);
	}
	fflush(stdout);
	free(t1);
	free(tn);
	free(w1);
	free(wn);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [pairs [threads [any]]]\n", argv[0]);
		return 1;
	}
	int pairs = argc > 2 ? atoi(argv[2]) : 7;
	int threads = argc > 3 ? atoi(argv[3]) : 2;
	bool need_quiet = !(argc > 4 && strcmp(argv[4], "any") == 0);
	if (pairs < 1 || pairs > MAX_ATTEMPTS || threads < 1) {
		fprintf(stderr, "bad pairs or threads\n");
		return 1;
	}
	struct libsvm_reader *r = libsvm_reader_open(argv[1]);
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	struct libsvm_data *d = libsvm_data_read(r, -1);
	if (!d) {
		fprintf(stderr, "%s\n", libsvm_reader_error(r));
		return 1;
	}
	libsvm_reader_close(r);
	set_print_string_function(print_nothing);

	const char *name = strrchr(argv[1], '/');
	name = name ? name + 1 : argv[1];
	printf("%-10s %3s %10s %10s %8s %-9s %s\n", "data", "-s", "1 thread", "threads",
		"speedup", "w", "clean");
	time_solver(name, &d->prob, L2R_LR, 0.01, pairs, threads, need_quiet);
	time_solver(name, &d->prob, L2R_L2LOSS_SVC, 0.01, pairs, threads, need_quiet);
	time_solver(name, &d->prob, L2R_L2LOSS_SVR, 0.0001, pairs, threads, need_quiet);
	libsvm_data_free(d);
	return 0;
}
