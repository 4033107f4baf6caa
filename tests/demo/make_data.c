/*
 * make_data.c - the demo's own 2-D datasets, in LIBSVM format.
 *
 * Contract: `make_data DIR` writes DIR/NAME.train and DIR/NAME.test for
 * NAME = checkerboard, density and blobs, and exits 0 (1 on any I/O
 * error, with a message on stderr). The output is the same on every
 * machine: a fixed seed, our own generator (splitmix64) and values
 * printed with 6 decimals.
 *   blobs:   two Gaussian clouds, one per class; a line separates them
 *            almost perfectly.
 *   density: class +1 is a small dense cloud inside class -1, which is
 *            spread thinly over the whole unit square. No line separates
 *            them; this is the case the Isolation Kernel is meant for.
 *   checkerboard: points uniform in the unit square, labelled by the
 *            colour of the 4x4 checkerboard square they fall in. Every
 *            line leaves about half of each class on each side.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TRAIN_PER_CLASS 500
#define TEST_PER_CLASS 500

struct gen {
	uint64_t state;
};

/* splitmix64 (Steele, Lea, Flood 2014). */
static uint64_t next_u64(struct gen *g)
{
	uint64_t z = (g->state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1) from the top 53 bits. */
static double uniform(struct gen *g)
{
	return (double)(next_u64(g) >> 11) * 0x1.0p-53;
}

/* Standard normal by Box-Muller; 1 - u keeps the logarithm finite. */
static double normal(struct gen *g)
{
	const double two_pi = 6.283185307179586;
	double u = 1.0 - uniform(g), v = uniform(g);
	return sqrt(-2.0 * log(u)) * cos(two_pi * v);
}

struct point {
	double x, y;
};

typedef struct point (*sampler)(struct gen *g, int label);

#define SQUARES 4

/* Rejection sampling: uniform points until one falls on a square of the label's colour. */
static struct point checkerboard(struct gen *g, int label)
{
	for (;;) {
		struct point p = { uniform(g), uniform(g) };
		int colour = ((int)(SQUARES * p.x) + (int)(SQUARES * p.y)) % 2;
		if ((colour == 0) == (label > 0))
			return p;
	}
}

static struct point blobs(struct gen *g, int label)
{
	double cx = label > 0 ? 0.35 : 0.65, cy = label > 0 ? 0.6 : 0.4;
	return (struct point){ cx + 0.1 * normal(g), cy + 0.1 * normal(g) };
}

static struct point density(struct gen *g, int label)
{
	if (label > 0)
		return (struct point){ 0.3 + 0.04 * normal(g), 0.3 + 0.04 * normal(g) };
	return (struct point){ uniform(g), uniform(g) };
}

/* Writes n points per class, the classes interleaved. Returns 0 or -1. */
static int write_set(const char *dir, const char *name, sampler draw, struct gen *g, int n)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
		fprintf(stderr, "make_data: path too long: %s/%s\n", dir, name);
		return -1;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	for (int i = 0; i < 2 * n; i++) {
		int label = i % 2 == 0 ? 1 : -1;
		struct point p = draw(g, label);
		fprintf(f, "%+d 1:%.6f 2:%.6f\n", label, p.x, p.y);
	}
	int failed = ferror(f);
	if (fclose(f) != 0 || failed) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make_data DIR\n");
		return 1;
	}
	struct gen g = { 20250101 };
	if (write_set(argv[1], "blobs.train", blobs, &g, TRAIN_PER_CLASS) != 0
		|| write_set(argv[1], "blobs.test", blobs, &g, TEST_PER_CLASS) != 0
		|| write_set(argv[1], "density.train", density, &g, TRAIN_PER_CLASS) != 0
		|| write_set(argv[1], "density.test", density, &g, TEST_PER_CLASS) != 0
		|| write_set(argv[1], "checkerboard.train", checkerboard, &g, TRAIN_PER_CLASS) != 0
		|| write_set(argv[1], "checkerboard.test", checkerboard, &g, TEST_PER_CLASS) != 0)
		return 1;
	return 0;
}
