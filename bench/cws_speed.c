/*
 * cws_speed.c - rows per second of the minmax map's sampler (ikmap/cws.h,
 * 0-bit CWS) against the aNNE Isolation Kernel map on the same rows, one
 * thread each (issue 27's speed goal: minmax at k = 100 maps at least as
 * many rows per second as `-k anne` at t = 100, psi = 256).
 *
 * cws_speed K CELLS T PSI REPS NAME=FILE...
 *   FILE: LIBSVM rows, uncompressed (labels ignored); NAME labels its lines.
 * For each file it prints one Markdown table row per measurement:
 *   - cws warm: cws_row_cells over every row, its cache already built
 *     (best of REPS), for each vector kernel this CPU runs;
 *   - cws cold: cws_new plus the first pass, which builds the cache;
 *   - cws batch: cws_rows_cells over all rows at once (best of REPS);
 *   - cws uncached: cws_new_capped(..., 0) (every value computed on the
 *     fly, as for features beyond the cache's cap), on the first 500 rows;
 *   - cws reference: cws_row_cells_reference on the first 500 rows;
 *   - anne: ikmap_build (t = T, psi = PSI, seed 1, max-abs scaling, one
 *     thread; not timed) then ikmap_map of every row on one thread (best
 *     of REPS), on the original rows, the path chosen by its cost model.
 * The minmax sampler reads the rows as `-S 2` leaves them: each feature
 * min-max scaled to [0, 1] over these rows (implicit zeros counted),
 * zeros dropped; the scaling is done once beforehand and not timed.
 * Times are CPU seconds of the process (one thread: steadier than wall
 * time on a loaded machine) and wall seconds beside them.
 * A benchmark aid, not part of the library.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cws.h"
#include "ikmap.h"
#include "libsvm_rows.h"

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "cws_speed: %s\n", what);
	exit(1);
}

static void *checked_malloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	if (!p)
		die("out of memory");
	return p;
}

/* The rows min-max scaled to [0, 1] per feature, zeros dropped, in CSR form. */
struct scaled {
	size_t count;
	size_t *start;		/* row r: index/value[start[r] .. start[r+1]-1] */
	int *index;
	double *value;
};

static void scale_rows(const struct libsvm_rows *d, struct scaled *s)
{
	double *lo = calloc((size_t)d->dim + 1, sizeof *lo);
	double *hi = calloc((size_t)d->dim + 1, sizeof *hi);
	if (!lo || !hi)
		die("out of memory");
	size_t total = 0;
	for (size_t r = 0; r < d->count; r++)
		for (const struct feature_node *p = d->rows[r]; p->index != -1; p++) {
			if (p->value < lo[p->index])
				lo[p->index] = p->value;
			if (p->value > hi[p->index])
				hi[p->index] = p->value;
		}
	for (int i = 1; i <= d->dim; i++)
		total += hi[i] > lo[i];
	/* at most every live feature in every row */
	s->count = d->count;
	s->start = checked_malloc((d->count + 1) * sizeof *s->start);
	s->index = checked_malloc(d->count * total * sizeof *s->index);
	s->value = checked_malloc(d->count * total * sizeof *s->value);
	size_t at = 0;
	for (size_t r = 0; r < d->count; r++) {
		s->start[r] = at;
		const struct feature_node *p = d->rows[r];
		for (int i = 1; i <= d->dim; i++) {
			double v = 0;
			while (p->index != -1 && p->index < i)
				p++;
			if (p->index == i)
				v = p->value;
			if (!(hi[i] > lo[i]))
				continue;
			double x = (v - lo[i]) / (hi[i] - lo[i]);
			if (x > 0) {
				s->index[at] = i;
				s->value[at++] = x;
			}
		}
	}
	s->start[d->count] = at;
	free(lo);
	free(hi);
}

/* CPU and wall seconds of one pass of mapper over rows [0, count). */
enum pass_kind { PASS_FAST, PASS_REFERENCE };

static void map_pass(const struct cws *c, const struct scaled *s, size_t count,
	enum pass_kind kind, uint32_t *out, int k, double *cpu, double *wall)
{
	double c0 = cpu_now(), w0 = wall_now();
	for (size_t r = 0; r < count; r++) {
		const int *ix = s->index + s->start[r];
		const double *v = s->value + s->start[r];
		int nnz = (int)(s->start[r + 1] - s->start[r]);
		if (kind == PASS_FAST)
			cws_row_cells(c, ix, v, nnz, out + r * (size_t)k);
		else
			cws_row_cells_reference(c, ix, v, nnz, out + r * (size_t)k);
	}
	*cpu = cpu_now() - c0;
	*wall = wall_now() - w0;
}

static void line(const char *name, const char *what, size_t rows, double cpu, double wall,
	double anne_rate)
{
	double rate = rows / cpu;
	printf("| %s | %s | %zu | %.4f | %.4f | %.0f |", name, what, rows, cpu, wall, rate);
	if (anne_rate > 0)
		printf(" %.2f |\n", rate / anne_rate);
	else
		printf(" |\n");
}

int main(int argc, char **argv)
{
	if (argc < 7)
		die("usage: cws_speed K CELLS T PSI REPS NAME=FILE...");
	int k = atoi(argv[1]), cells = atoi(argv[2]), t = atoi(argv[3]), psi = atoi(argv[4]);
	int reps = atoi(argv[5]);
	if (reps < 1)
		die("REPS must be >= 1");
	char err[IKMAP_ERR_SIZE];
	printf("| data | mapper | rows | CPU s | wall s | rows/s (CPU) | vs anne |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (int a = 6; a < argc; a++) {
		char *eq = strchr(argv[a], '=');
		if (!eq)
			die("each data argument is NAME=FILE");
		*eq = 0;
		const char *name = argv[a], *path = eq + 1;
		struct libsvm_rows d;
		libsvm_rows_read(path, &d);
		struct scaled s;
		scale_rows(&d, &s);

		/* anne first: its rate is the yardstick of the lines below */
		struct ikmap_params params = {.method = IKMAP_ANNE, .t = t, .psi = psi, .seed = 1,
			.scale = 1, .threads = 1};
		struct ikmap *map = ikmap_build(d.rows, (int)d.count, d.dim, &params, err);
		if (!map)
			die(err);
		void *cells_anne = checked_malloc(d.count * (size_t)t * ikmap_cell_size(map));
		double anne_cpu = 1e300, anne_wall = 1e300;
		for (int r = 0; r < reps; r++) {
			double c0 = cpu_now(), w0 = wall_now();
			if (ikmap_map(map, d.rows, d.count, cells_anne, 1, err) != 0)
				die(err);
			double cc = cpu_now() - c0, ww = wall_now() - w0;
			if (cc < anne_cpu) {
				anne_cpu = cc;
				anne_wall = ww;
			}
		}
		char what[128];
		snprintf(what, sizeof what, "anne t=%d psi=%d (%s path)", t, psi,
			ikmap_path(map) == IKMAP_PATH_DENSE ? "dense" : "sparse");
		line(name, what, d.count, anne_cpu, anne_wall, 0);
		double anne_rate = d.count / anne_cpu;
		free(cells_anne);
		ikmap_free(map);

		uint32_t *out = checked_malloc(d.count * (size_t)k * sizeof *out);
		uint32_t *check = checked_malloc(d.count * (size_t)k * sizeof *check);
		double cpu, wall;
		double c0 = cpu_now(), w0 = wall_now();
		struct cws *c = cws_new(1, k, cells, d.dim, err);
		if (!c)
			die(err);
		map_pass(c, &s, s.count, PASS_FAST, out, k, &cpu, &wall);
		snprintf(what, sizeof what, "cws k=%d cells=%d cold (cws_new + first pass, %s)", k,
			cells, cws_kernel_name());
		line(name, what, d.count, cpu_now() - c0, wall_now() - w0, anne_rate);

		static const char *kernels[] = {"avx512", "avx2", "generic"};
		for (int q = 0; q < 3; q++) {
			if (cws_use_kernel(kernels[q]) != 0)
				continue;
			double best_cpu = 1e300, best_wall = 1e300;
			for (int r = 0; r < reps; r++) {
				map_pass(c, &s, s.count, PASS_FAST, check, k, &cpu, &wall);
				if (cpu < best_cpu) {
					best_cpu = cpu;
					best_wall = wall;
				}
				if (memcmp(out, check, d.count * (size_t)k * sizeof *out) != 0)
					die("kernels disagree");
			}
			snprintf(what, sizeof what, "cws k=%d cells=%d warm, %s", k, cells, kernels[q]);
			line(name, what, d.count, best_cpu, best_wall, anne_rate);
		}
		cws_use_kernel(NULL);

		double best_cpu = 1e300, best_wall = 1e300;
		for (int r = 0; r < reps; r++) {
			double c1 = cpu_now(), w1 = wall_now();
			if (cws_rows_cells(c, s.count, s.start, s.index, s.value, check) != 0)
				die("out of memory in cws_rows_cells");
			double cc = cpu_now() - c1, ww = wall_now() - w1;
			if (cc < best_cpu) {
				best_cpu = cc;
				best_wall = ww;
			}
			if (memcmp(out, check, d.count * (size_t)k * sizeof *out) != 0)
				die("the batch disagrees");
		}
		snprintf(what, sizeof what, "cws k=%d cells=%d warm, batch (cws_rows_cells), %s", k,
			cells, cws_kernel_name());
		line(name, what, d.count, best_cpu, best_wall, anne_rate);

		size_t few = s.count < 500 ? s.count : 500;
		map_pass(c, &s, few, PASS_REFERENCE, check, k, &cpu, &wall);
		if (memcmp(out, check, few * (size_t)k * sizeof *out) != 0)
			die("the reference disagrees");
		snprintf(what, sizeof what, "cws k=%d reference (scalar, from scratch)", k);
		line(name, what, few, cpu, wall, anne_rate);
		cws_free(c);

		c = cws_new_capped(1, k, cells, d.dim, 0, err);
		if (!c)
			die(err);
		map_pass(c, &s, few, PASS_FAST, check, k, &cpu, &wall);
		if (memcmp(out, check, few * (size_t)k * sizeof *out) != 0)
			die("the uncached path disagrees");
		snprintf(what, sizeof what, "cws k=%d uncached (values on the fly)", k);
		line(name, what, few, cpu, wall, anne_rate);
		cws_free(c);

		size_t nnz = s.start[s.count];
		fprintf(stderr, "%s: %zu rows, dim %d, %.1f nonzeros a row after scaling\n", name,
			d.count, d.dim, (double)nnz / d.count);
		free(out);
		free(check);
		free(s.start);
		free(s.index);
		free(s.value);
		libsvm_rows_free(&d);
	}
	return 0;
}
