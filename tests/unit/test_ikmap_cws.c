/*
 * test_ikmap_cws.c - the min-max kernel's sampler, 0-bit CWS (ikmap/cws.h).
 *
 * What is checked, and against what:
 * - The CWS theorem: on pairs of non-negative vectors whose min-max kernel
 *   sum(min)/sum(max) is computed here directly, the share of k = 4000
 *   samples whose full (i*, t*) agree is within 4/sqrt(k) of it (the 0-bit
 *   share, i* alone, is printed beside it; no bound). Identical rows agree
 *   in every sample, rows with disjoint supports in none.
 * - The sampler is the paper's Algorithm 1: an implementation written here
 *   from the paper's formulas in the linear domain (libm log and exp,
 *   a = c / (y e^r)) on the same uniforms picks the same (i*, t*) in all
 *   but near-tied samples (at most 1 in 10^4).
 * - Cells: cell j is (i*_j - 1) mod cells, and agreeing full samples give
 *   agreeing cells.
 * - The fast path (every vector kernel this CPU runs, cached and uncached
 *   features) equals the scalar reference bit for bit on random rows of
 *   extreme values and on rows of the shared sets usps and a9a.
 * - The batch entry point (cws_rows_cells) gives cws_row_cells' cells.
 * - Known answers (a few full samples, a hash of many cells) that every
 *   kernel and compiler must reproduce.
 * - Determinism, seeds, the cache cap (none, partial, default), a claimed
 *   dimension of 2^31 - 2, threads racing to build the cache, the empty
 *   row, and the argument checks.
 */
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counter_rng.h"
#include "cws.h"
#include "dual_fixtures.h"
#include "ikmap.h"
#include "unit.h"

/* A sparse row: nnz ascending indices and positive values. */
struct row {
	int nnz;
	int *index;
	double *value;
};

static void row_alloc(struct row *r, int cap)
{
	r->nnz = 0;
	r->index = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *r->index);
	r->value = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *r->value);
	ck_assert(r->index && r->value);
}

static void row_free(struct row *r)
{
	free(r->index);
	free(r->value);
}

/* A dense vector's nonzeros as a row (features 1..d). */
static void row_from_dense(struct row *r, const double *x, int d)
{
	row_alloc(r, d);
	for (int i = 0; i < d; i++)
		if (x[i] > 0) {
			r->index[r->nnz] = i + 1;
			r->value[r->nnz++] = x[i];
		}
}

static double minmax_kernel(const double *x, const double *y, int d)
{
	double lo = 0, hi = 0;
	for (int i = 0; i < d; i++) {
		lo += x[i] < y[i] ? x[i] : y[i];
		hi += x[i] < y[i] ? y[i] : x[i];
	}
	return hi > 0 ? lo / hi : 1;
}

/* The paper's Algorithm 1 as printed (linear domain, libm), on the contract's uniforms. */
static void paper_icws(uint64_t seed, int j, const struct row *x, int *istar, int64_t *tstar)
{
	uint64_t s = crng_stream(seed, (uint64_t)j);
	double best = INFINITY;
	*istar = 0;
	*tstar = 0;
	for (int p = 0; p < x->nnz; p++) {
		uint64_t f = (uint64_t)x->index[p];
		double u[5];
		for (unsigned d = 0; d < 5; d++)
			u[d] = crng_unit_open(crng_at(s, f, d));
		double r = -log(u[0] * u[1]), c = -log(u[2] * u[3]), beta = u[4];
		double t = floor(log(x->value[p]) / r + beta);
		double y = exp(r * (t - beta));
		double a = c / (y * exp(r));
		if (a < best) {
			best = a;
			*istar = x->index[p];
			*tstar = (int64_t)t;
		}
	}
}

enum pair_kind { PAIR_DENSE, PAIR_SPARSE, PAIR_DOUBLED, PAIR_SAME, PAIR_DISJOINT, PAIR_WIDE,
	PAIR_BINARY, PAIR_KINDS };

/* Two vectors of dimension d of the given kind. */
static void make_pair(enum pair_kind kind, struct rng *g, double *x, double *y, int d)
{
	for (int i = 0; i < d; i++) {
		double a = rng_unit(g), b = rng_unit(g), keep = rng_unit(g);
		switch (kind) {
		case PAIR_DENSE:	/* correlated, a few zeros on either side */
			x[i] = a < 0.1 ? 0 : a;
			y[i] = b < 0.1 ? 0 : a * (0.5 + b);
			break;
		case PAIR_SPARSE:	/* 3% density each, half of the support shared */
			x[i] = keep < 0.03 ? a + 0.01 : 0;
			y[i] = keep < 0.015 ? a * (0.5 + b) + 0.01 : keep > 0.97 ? b + 0.01 : 0;
			break;
		case PAIR_DOUBLED:	/* y = 2x: MM = 1/2 */
			x[i] = a + 0.001;
			y[i] = 2 * x[i];
			break;
		case PAIR_SAME:
			x[i] = y[i] = keep < 0.5 ? a + 1e-3 : 0;
			break;
		case PAIR_DISJOINT:
			x[i] = i % 2 ? a + 0.01 : 0;
			y[i] = i % 2 ? 0 : b + 0.01;
			break;
		case PAIR_WIDE:		/* values over 16 orders of magnitude */
			x[i] = exp(36 * a - 18);
			y[i] = x[i] * exp(2 * b - 1);
			break;
		default:		/* PAIR_BINARY: sets, MM = Jaccard */
			x[i] = a < 0.3 ? 1 : 0;
			y[i] = (a < 0.2 || b < 0.1) ? 1 : 0;
			break;
		}
	}
}

START_TEST(test_cws_theorem)
{
	const int k = 4000, d = 300, cells = 256;
	const char *names[PAIR_KINDS] = {"dense", "sparse", "doubled", "same", "disjoint", "wide",
		"binary"};
	struct rng g;
	rng_seed(&g, 2027);
	double *x = malloc(d * sizeof *x), *y = malloc(d * sizeof *y);
	uint32_t *cx = malloc(k * sizeof *cx), *cy = malloc(k * sizeof *cy);
	ck_assert(x && y && cx && cy);
	char err[IKMAP_ERR_SIZE];
	struct cws *c = cws_new(11, k, cells, d, err);
	ck_assert_msg(c != NULL, "%s", err);
	for (int kind = 0; kind < PAIR_KINDS; kind++) {
		make_pair((enum pair_kind)kind, &g, x, y, d);
		double mm = minmax_kernel(x, y, d);
		struct row rx, ry;
		row_from_dense(&rx, x, d);
		row_from_dense(&ry, y, d);
		cws_row_cells(c, rx.index, rx.value, rx.nnz, cx);
		cws_row_cells(c, ry.index, ry.value, ry.nnz, cy);
		int full = 0, zero_bit = 0, cell_same = 0;
		for (int j = 0; j < k; j++) {
			int ix, iy;
			int64_t tx, ty;
			cws_full_sample(c, j, rx.index, rx.value, rx.nnz, &ix, &tx);
			cws_full_sample(c, j, ry.index, ry.value, ry.nnz, &iy, &ty);
			ck_assert(ix >= 1 && iy >= 1);
			/* the cell rule, through the fast path */
			ck_assert_uint_eq(cx[j], (uint32_t)(ix - 1) % cells);
			ck_assert_uint_eq(cy[j], (uint32_t)(iy - 1) % cells);
			if (ix == iy && tx == ty) {
				full++;
				ck_assert_uint_eq(cx[j], cy[j]);
			}
			zero_bit += ix == iy;
			cell_same += cx[j] == cy[j];
		}
		double share = (double)full / k;
		printf("cws theorem %-8s MM %.4f  full (i*,t*) share %.4f  0-bit (i*) share %.4f  "
			"cell share %.4f  (bound 4/sqrt(k) = %.4f)\n", names[kind], mm, share,
			(double)zero_bit / k, (double)cell_same / k, 4 / sqrt((double)k));
		ck_assert_msg(fabs(share - mm) <= 4 / sqrt((double)k), "%s: share %g, MM %g",
			names[kind], share, mm);
		if (kind == PAIR_SAME)
			ck_assert_int_eq(full, k);
		if (kind == PAIR_DISJOINT)
			ck_assert_int_eq(zero_bit, 0);
		row_free(&rx);
		row_free(&ry);
	}
	cws_free(c);
	free(x);
	free(y);
	free(cx);
	free(cy);
}
END_TEST

START_TEST(test_cws_is_the_papers_algorithm)
{
	const int k = 200, rows = 100, d = 120;
	const uint64_t seed = 5;
	struct rng g;
	rng_seed(&g, 77);
	struct cws *c = cws_new(seed, k, 16, d, NULL);
	ck_assert(c != NULL);
	double *x = malloc(d * sizeof *x);
	ck_assert(x != NULL);
	long disagree = 0, total = 0;
	for (int n = 0; n < rows; n++) {
		for (int i = 0; i < d; i++)
			x[i] = rng_unit(&g) < 0.4 ? exp(10 * rng_unit(&g) - 5) : 0;
		struct row r;
		row_from_dense(&r, x, d);
		for (int j = 0; j < k; j++) {
			int i1, i2;
			int64_t t1, t2;
			cws_full_sample(c, j, r.index, r.value, r.nnz, &i1, &t1);
			paper_icws(seed, j, &r, &i2, &t2);
			disagree += i1 != i2 || t1 != t2;
			total++;
		}
		row_free(&r);
	}
	printf("cws against the paper's linear-domain ICWS (libm): %ld of %ld samples differ\n",
		disagree, total);
	ck_assert_msg(disagree * 10000 <= total, "%ld of %ld samples differ", disagree, total);
	free(x);
	cws_free(c);
}
END_TEST

/* Kernels this CPU runs, generic first. */
static int usable_kernels(const char **names)
{
	static const char *all[] = {"generic", "avx2", "avx512"};
	int n = 0;
	for (int i = 0; i < 3; i++)
		if (cws_use_kernel(all[i]) == 0)
			names[n++] = all[i];
	cws_use_kernel(NULL);
	return n;
}

/*
 * Every usable kernel's cells equal the reference's for this row, and so
 * do its i* and the bits of its smallest A (so that an arithmetic slip too
 * small to move an argmin, e.g. an FMA, is caught too).
 */
static void check_row(const struct cws *c, int k, const struct row *r, uint32_t *want,
	uint32_t *got)
{
	const char *names[3];
	int n = usable_kernels(names);
	int *iwant = malloc((size_t)k * sizeof *iwant), *igot = malloc((size_t)k * sizeof *igot);
	double *awant = malloc((size_t)k * sizeof *awant), *agot = malloc((size_t)k * sizeof *agot);
	ck_assert(iwant && igot && awant && agot);
	cws_row_cells_reference(c, r->index, r->value, r->nnz, want);
	cws_row_detail(c, 1, r->index, r->value, r->nnz, iwant, awant);
	for (int q = 0; q < n; q++) {
		ck_assert_int_eq(cws_use_kernel(names[q]), 0);
		memset(got, 0xff, (size_t)k * sizeof *got);
		cws_row_cells(c, r->index, r->value, r->nnz, got);
		for (int j = 0; j < k; j++)
			ck_assert_msg(got[j] == want[j], "kernel %s sample %d: %u, reference %u",
				names[q], j, got[j], want[j]);
		memset(agot, 0, (size_t)k * sizeof *agot);
		cws_row_detail(c, 0, r->index, r->value, r->nnz, igot, agot);
		for (int j = 0; j < k; j++) {
			ck_assert_int_eq(igot[j], iwant[j]);
			ck_assert_msg(memcmp(&agot[j], &awant[j], sizeof agot[j]) == 0,
				"kernel %s sample %d: A %a, reference %a", names[q], j, agot[j], awant[j]);
		}
	}
	cws_use_kernel(NULL);
	free(iwant);
	free(igot);
	free(awant);
	free(agot);
}

START_TEST(test_fast_equals_reference_random)
{
	static const int ks[] = {1, 7, 8, 9, 100, 256, 257, 600};
	static const int cells[] = {16, 256, 65536};
	/* cache caps: none, 5 features at k = 600 (the rest on the fly), the default */
	static const size_t caps[] = {0, 5 * 4 * 600 * sizeof(double), CWS_TABLE_BYTES};
	struct rng g;
	rng_seed(&g, 4242);
	const int d = 1500;
	uint32_t *want = malloc(600 * sizeof *want), *got = malloc(600 * sizeof *got);
	ck_assert(want && got);
	struct row r;
	row_alloc(&r, d);
	const char *names[3];
	printf("cws kernels usable here:");
	for (int q = 0, n = usable_kernels(names); q < n; q++)
		printf(" %s", names[q]);
	printf(" (default %s)\n", cws_kernel_name());
	for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++)
		for (size_t b = 0; b < sizeof caps / sizeof caps[0]; b++) {
			int k = ks[a];
			struct cws *c = cws_new_capped(a * 31 + b, k, cells[(a + b) % 3], d, caps[b], NULL);
			ck_assert(c != NULL);
			for (int n = 0; n < 12; n++) {
				/* density from one feature to a third of them */
				double density = n == 0 ? 0.0 : exp(-6 * rng_unit(&g));
				r.nnz = 0;
				for (int i = 1; i <= d; i++) {
					if (!(rng_unit(&g) < density) && !(n == 0 && i == 17))
						continue;
					double u = rng_unit(&g);
					double v;
					switch (n % 4) {
					case 0: v = u + 0.5; break;
					case 1: v = ldexp(u + 0.5, (int)rng_below(&g, 2000) - 1000); break;
					case 2: v = ldexp(u + 0.5, -1060); break;	/* subnormal */
					default: v = 1; break;	/* binary */
					}
					r.index[r.nnz] = i;
					r.value[r.nnz++] = v;
				}
				check_row(c, k, &r, want, got);
			}
			cws_free(c);
		}
	row_free(&r);
	free(want);
	free(got);
}
END_TEST

/*
 * Rows of a shared set as the minmax map will see them after -S 2: each
 * feature min-max scaled to [0, 1] over the rows (implicit zeros
 * counted), zeros dropped. Every step-th row is kept.
 */
static int shared_rows(const char *name, int step, struct row **out, int *dim)
{
	struct fixture f;
	fixture_read_shared(&f, name);
	int d = f.n;
	double *lo = calloc((size_t)d + 1, sizeof *lo), *hi = calloc((size_t)d + 1, sizeof *hi);
	ck_assert(lo && hi);
	for (int n = 0; n < f.l; n++)
		for (const struct feature_node *p = f.x[n]; p->index != -1; p++) {
			if (p->value < lo[p->index])
				lo[p->index] = p->value;
			if (p->value > hi[p->index])
				hi[p->index] = p->value;
		}
	int count = (f.l + step - 1) / step;
	struct row *rows = malloc((size_t)count * sizeof *rows);
	ck_assert(rows != NULL);
	for (int n = 0, m = 0; n < f.l; n += step, m++) {
		row_alloc(&rows[m], d);
		const struct feature_node *p = f.x[n];
		/* walk features 1..d, so implicit zeros are scaled too */
		for (int i = 1; i <= d; i++) {
			double v = 0;
			if (p->index == i)
				v = (p++)->value;
			if (hi[i] <= lo[i])
				continue;
			double s = (v - lo[i]) / (hi[i] - lo[i]);
			if (s > 0) {
				rows[m].index[rows[m].nnz] = i;
				rows[m].value[rows[m].nnz++] = s;
			}
		}
	}
	free(lo);
	free(hi);
	fixture_free(&f);
	*out = rows;
	*dim = d;
	return count;
}

static void check_shared(const char *name, int step)
{
	struct row *rows;
	int d;
	int count = shared_rows(name, step, &rows, &d);
	const int k = 100;
	struct cws *c = cws_new(1, k, 256, d, NULL);
	ck_assert(c != NULL);
	uint32_t want[100], got[100];
	long nnz = 0;
	for (int n = 0; n < count; n++) {
		check_row(c, k, &rows[n], want, got);
		nnz += rows[n].nnz;
		row_free(&rows[n]);
	}
	printf("cws fast == reference on %s: %d rows (1 in %d), %.1f nonzeros a row, k = %d\n",
		name, count, step, (double)nnz / count, k);
	ck_assert_int_gt(count, 500);
	free(rows);
	cws_free(c);
}

START_TEST(test_fast_equals_reference_usps)
{
	check_shared("usps/usps.train.xz", 3);
}
END_TEST

START_TEST(test_fast_equals_reference_a9a)
{
	check_shared("a9a/a9a.train.xz", 5);
}
END_TEST

/*
 * Known answers, recorded from this build (gcc 12, x86-64) and reproduced
 * by a clang build and by every kernel: the contract promises the same
 * samples on every machine and compiler, so another build giving other
 * values has broken the reference arithmetic (an FMA, x87 doubles, a
 * different log) or the generator.
 */
/* cws_rows_cells over a batch equals cws_row_cells row by row: several sample blocks, empty rows, uncached features. */
START_TEST(test_batch_equals_rows)
{
	static const int ks[] = {5, 128, 600};
	static const size_t caps[] = {0, 7 * 4 * 600 * sizeof(double), CWS_TABLE_BYTES};
	const int d = 700, rows = 60;
	struct rng g;
	rng_seed(&g, 515);
	size_t *start = malloc((rows + 1) * sizeof *start);
	int *index = malloc((size_t)rows * d * sizeof *index);
	double *value = malloc((size_t)rows * d * sizeof *value);
	uint32_t *batch = malloc((size_t)rows * 600 * sizeof *batch);
	uint32_t *single = malloc(600 * sizeof *single);
	ck_assert(start && index && value && batch && single);
	size_t at = 0;
	for (int r = 0; r < rows; r++) {
		start[r] = at;
		double density = r % 10 == 3 ? 0 : exp(-5 * rng_unit(&g));	/* some empty rows */
		for (int i = 1; i <= d; i++)
			if (rng_unit(&g) < density) {
				index[at] = i;
				value[at++] = ldexp(rng_unit(&g) + 0.5, (int)rng_below(&g, 40) - 20);
			}
	}
	start[rows] = at;
	const char *names[3];
	int nk = usable_kernels(names);
	for (int q = 0; q < nk; q++) {
		ck_assert_int_eq(cws_use_kernel(names[q]), 0);
		for (int a = 0; a < 3; a++) {
			int k = ks[a];
			struct cws *c = cws_new_capped(99, k, 32, d, caps[a], NULL);
			ck_assert(c != NULL);
			memset(batch, 0xff, (size_t)rows * k * sizeof *batch);
			/* rows 10.. of the pool: start[] need not begin at 0 */
			ck_assert_int_eq(cws_rows_cells(c, rows - 10, start + 10, index, value,
				batch), 0);
			for (int r = 10; r < rows; r++) {
				cws_row_cells(c, index + start[r], value + start[r],
					(int)(start[r + 1] - start[r]), single);
				ck_assert_mem_eq(batch + (size_t)(r - 10) * k, single, k * sizeof *single);
			}
			ck_assert_int_eq(cws_rows_cells(c, 0, start, index, value, batch), 0);
			cws_free(c);
		}
	}
	cws_use_kernel(NULL);
	free(start);
	free(index);
	free(value);
	free(batch);
	free(single);
}
END_TEST

START_TEST(test_known_answers)
{
	static const int want_i[8] = {5, 4097, 5, 4097, 17, 4097, 17, 5};
	static const int64_t want_t[8] = {0, 0, 0, 1, 2, 1, 1, 0};
	int index[] = {1, 5, 17, 100, 4097};
	double value[] = {0.25, 1.0, 3.5, 1e-3, 2.0};
	struct cws *c = cws_new(2027, 300, 4096, 5000, NULL);
	ck_assert(c != NULL);
	for (int j = 0; j < 8; j++) {
		int i;
		int64_t t;
		cws_full_sample(c, j, index, value, 5, &i, &t);
		ck_assert_int_eq(i, want_i[j]);
		ck_assert(t == want_t[j]);
	}
	/* FNV-1a over the cells of 50 rows of up to 64 features, every kernel */
	const char *names[3];
	int n = usable_kernels(names);
	uint32_t out[300];
	int ix[64];
	double v[64];
	for (int q = 0; q < n; q++) {
		ck_assert_int_eq(cws_use_kernel(names[q]), 0);
		uint64_t h = 0xcbf29ce484222325ULL;
		for (int r = 0; r < 50; r++) {
			int m = 0;
			for (int i = 1 + r % 7; i <= 5000 && m < 64; i += 1 + (i * 7 + r) % 97) {
				ix[m] = i;
				v[m++] = (double)((i * 31 + r) % 1000 + 1) / 256.0;
			}
			cws_row_cells(c, ix, v, m, out);
			for (int j = 0; j < 300; j++)
				for (int b = 0; b < 4; b++) {
					h ^= (out[j] >> (8 * b)) & 0xff;
					h *= 0x100000001b3ULL;
				}
		}
		ck_assert_msg(h == 0x93fb7ac90983a43fULL, "kernel %s: hash %016llx", names[q],
			(unsigned long long)h);
	}
	cws_use_kernel(NULL);
	cws_free(c);
}
END_TEST

START_TEST(test_determinism_seeds_and_caps)
{
	const int k = 300, d = 500;
	struct rng g;
	rng_seed(&g, 9);
	struct row r;
	row_alloc(&r, d);
	for (int i = 1; i <= d; i++)
		if (rng_unit(&g) < 0.3) {
			r.index[r.nnz] = i;
			r.value[r.nnz++] = rng_unit(&g) + 0.01;
		}
	uint32_t a[300], b[300];
	struct cws *c1 = cws_new(123, k, 64, d, NULL), *c2 = cws_new(123, k, 64, d, NULL);
	struct cws *other = cws_new(124, k, 64, d, NULL);
	struct cws *none = cws_new_capped(123, k, 64, d, 0, NULL);
	struct cws *part = cws_new_capped(123, k, 64, d, 40 * 4 * 304 * sizeof(double), NULL);
	/* the same features in a map claiming 2^31 - 2 dimensions */
	struct cws *wide = cws_new(123, k, 64, INT_MAX - 1, NULL);
	ck_assert(c1 && c2 && other && none && part && wide);
	cws_row_cells(c1, r.index, r.value, r.nnz, a);
	cws_row_cells(c2, r.index, r.value, r.nnz, b);
	ck_assert_mem_eq(a, b, sizeof a);
	/* mapping again (now from the cache the first call built) */
	cws_row_cells(c1, r.index, r.value, r.nnz, b);
	ck_assert_mem_eq(a, b, sizeof a);
	struct cws *same_bits[] = {none, part, wide};
	for (int q = 0; q < 3; q++) {
		memset(b, 0xff, sizeof b);
		cws_row_cells(same_bits[q], r.index, r.value, r.nnz, b);
		ck_assert_mem_eq(a, b, sizeof a);
	}
	/* another seed: independent cells, equal by chance in about 1/64 of the samples */
	cws_row_cells(other, r.index, r.value, r.nnz, b);
	int equal = 0;
	for (int j = 0; j < k; j++)
		equal += a[j] == b[j];
	ck_assert_msg(equal < k / 8, "%d of %d cells equal under another seed", equal, k);
	cws_free(c1);
	cws_free(c2);
	cws_free(other);
	cws_free(none);
	cws_free(part);
	cws_free(wide);
	row_free(&r);
}
END_TEST

START_TEST(test_features_beyond_the_cache)
{
	/* k = 100: the default cap caches features 1..80659; these lie far above it */
	const int k = 100, dim = INT_MAX - 1;
	struct cws *c = cws_new(77, k, 1024, dim, NULL);
	ck_assert(c != NULL);
	int index[] = {3, 80000, 90000, 1000000, INT_MAX - 3, INT_MAX - 1};
	double value[] = {0.5, 2.0, 0.25, 3.0, 1.5, 0.75};
	struct row r = {6, index, value};
	uint32_t want[100], got[100];
	check_row(c, k, &r, want, got);
	/* the top feature alone lands in cell (2^31 - 3) mod 1024 = 1021 */
	cws_row_cells(c, index + 5, value + 5, 1, got);
	for (int j = 0; j < k; j++)
		ck_assert_uint_eq(got[j], 1021);
	cws_free(c);
}
END_TEST

START_TEST(test_threads_share_one_map)
{
	const int k = 130, d = 800, rows = 400;
	struct rng g;
	rng_seed(&g, 31);
	struct row *r = malloc(rows * sizeof *r);
	uint32_t *serial = malloc((size_t)rows * k * sizeof *serial);
	uint32_t *par = malloc((size_t)rows * k * sizeof *par);
	ck_assert(r && serial && par);
	for (int n = 0; n < rows; n++) {
		row_alloc(&r[n], d);
		for (int i = 1; i <= d; i++)
			if (rng_unit(&g) < 0.1) {
				r[n].index[r[n].nnz] = i;
				r[n].value[r[n].nnz++] = rng_unit(&g) + 0.001;
			}
	}
	struct cws *c1 = cws_new(8, k, 128, d, NULL), *c2 = cws_new(8, k, 128, d, NULL);
	ck_assert(c1 && c2);
	for (int n = 0; n < rows; n++)
		cws_row_cells(c1, r[n].index, r[n].value, r[n].nnz, serial + (size_t)n * k);
	/* c2's cache is empty: 4 threads race to build its blocks */
#pragma omp parallel for num_threads(4) schedule(dynamic, 1)
	for (int n = 0; n < rows; n++)
		cws_row_cells(c2, r[n].index, r[n].value, r[n].nnz, par + (size_t)n * k);
	ck_assert_mem_eq(serial, par, (size_t)rows * k * sizeof *serial);
	for (int n = 0; n < rows; n++)
		row_free(&r[n]);
	free(r);
	free(serial);
	free(par);
	cws_free(c1);
	cws_free(c2);
}
END_TEST

START_TEST(test_empty_row)
{
	struct cws *c = cws_new(3, 50, 32, 10, NULL);
	ck_assert(c != NULL);
	uint32_t cells[50];
	memset(cells, 0xff, sizeof cells);
	cws_row_cells(c, NULL, NULL, 0, cells);
	for (int j = 0; j < 50; j++)
		ck_assert_uint_eq(cells[j], 0);
	memset(cells, 0xff, sizeof cells);
	cws_row_cells_reference(c, NULL, NULL, 0, cells);
	for (int j = 0; j < 50; j++)
		ck_assert_uint_eq(cells[j], 0);
	int istar = -1;
	int64_t tstar = -1;
	cws_full_sample(c, 7, NULL, NULL, 0, &istar, &tstar);
	ck_assert_int_eq(istar, 0);
	ck_assert(tstar == 0);
	cws_free(c);
}
END_TEST

START_TEST(test_arguments)
{
	char err[IKMAP_ERR_SIZE];
	static const int bad_cells[] = {0, 8, 15, 17, 100, 255, 65535, 131072, -256};
	for (size_t i = 0; i < sizeof bad_cells / sizeof bad_cells[0]; i++) {
		err[0] = 0;
		ck_assert_ptr_null(cws_new(1, 10, bad_cells[i], 10, err));
		ck_assert_msg(strstr(err, "power of two") != NULL, "cells %d: '%s'", bad_cells[i], err);
	}
	static const int bad_k[] = {0, -1, 65537};
	for (size_t i = 0; i < sizeof bad_k / sizeof bad_k[0]; i++) {
		err[0] = 0;
		ck_assert_ptr_null(cws_new(1, bad_k[i], 256, 10, err));
		ck_assert_msg(strstr(err, "65536") != NULL, "k %d: '%s'", bad_k[i], err);
	}
	ck_assert_ptr_null(cws_new(1, 10, 256, 0, err));
	ck_assert_ptr_null(cws_new(1, 10, 256, INT_MAX, err));
	ck_assert_ptr_null(cws_new(1, 0, 256, 10, NULL));	/* err may be NULL */
	/* the limits themselves are accepted, at no cost proportional to k x d */
	struct cws *c = cws_new(1, 65536, 65536, INT_MAX - 1, err);
	ck_assert_msg(c != NULL, "%s", err);
	int index[] = {1, 65537};
	double value[] = {1.0, 1.0};
	uint32_t *out = malloc(65536 * sizeof *out);
	ck_assert(out != NULL);
	cws_row_cells(c, index, value, 2, out);
	for (int j = 0; j < 65536; j++)
		ck_assert_uint_eq(out[j], 0);	/* features 1 and 65537 share cell 0 */
	free(out);
	cws_free(c);
	c = cws_new(1, 1, 16, 1, err);
	ck_assert_msg(c != NULL, "%s", err);
	cws_free(c);
	ck_assert_int_eq(cws_use_kernel("no such kernel"), -1);
	ck_assert_int_eq(cws_use_kernel("generic"), 0);
	ck_assert_str_eq(cws_kernel_name(), "generic");
	ck_assert_int_eq(cws_use_kernel(NULL), 0);
	cws_free(NULL);
}
END_TEST

static Suite *cws_suite(void)
{
	Suite *s = suite_create("ikmap_cws");
	TCase *tc = tcase_create("cws");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_cws_theorem);
	tcase_add_test(tc, test_cws_is_the_papers_algorithm);
	tcase_add_test(tc, test_fast_equals_reference_random);
	tcase_add_test(tc, test_fast_equals_reference_usps);
	tcase_add_test(tc, test_fast_equals_reference_a9a);
	tcase_add_test(tc, test_batch_equals_rows);
	tcase_add_test(tc, test_known_answers);
	tcase_add_test(tc, test_determinism_seeds_and_caps);
	tcase_add_test(tc, test_features_beyond_the_cache);
	tcase_add_test(tc, test_threads_share_one_map);
	tcase_add_test(tc, test_empty_row);
	tcase_add_test(tc, test_arguments);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(cws_suite)
