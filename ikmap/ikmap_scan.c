/*
 * ikmap_scan.c - the statistics behind a map's per-feature factors (-S 1
 * to 4, and iForest's raw part under -S 2), gathered row by row over one
 * or more passes (struct ikmap_scan, ikmap.h "Streaming build").
 *
 * Why row by row: `train -k` reads its file in passes and never holds all
 * rows, and ikmap_build (all rows in memory) goes through the very same
 * updates, so a map built either way has the same factors, bit for bit.
 * Every sum is per feature in row order, as the whole-array loops this
 * replaced summed them, so the order of the floating-point operations is
 * unchanged. The arrays grow with the largest feature index seen (zeros
 * for features not seen yet, which is what a feature that never occurs
 * contributes), so a caller need not know d before the first pass ends.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ikmap_impl.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

enum scan_kind {
	SCAN_NONE,	/* no factors: scale 0, iForest without a scaled raw part */
	SCAN_MAXABS,	/* scale 1: max |x| over the stored values */
	SCAN_RANGE,	/* min-max and acos under scale 2: min, max and count of stored values */
	SCAN_STATS	/* scales 2 (aNNE; iForest's raw part), 3, 4: over the nonzeros */
};

struct ikmap_scan {
	enum ikmap_method method;
	int scale;		/* the map's scaled code (ikmap_map_scale) */
	enum scan_kind kind;
	int passes;		/* passes over all rows: 0, 1, or 3 for scale 3 */
	int pass;		/* the pass being fed, 0-based */
	int64_t n;		/* the rows of pass 0 */
	int cap;		/* the arrays hold features 0..cap */
	double *a;		/* MAXABS, STATS 3: max |x|; RANGE, STATS 2: max; STATS 4: max log1p */
	double *b;		/* RANGE, STATS 2: min; STATS 3: sum, then mean, of x / max|x| */
	double *c;		/* STATS 3: squared deviations */
	int64_t *count;		/* RANGE: stored values; STATS: nonzeros */
};

int ikmap_map_scale(const struct ikmap_params *p)
{
	/* iForest keeps only log1p (ikmap.h, Scaling): scales 1-3 change none of its splits;
	 * scale 2 stays for its raw part's factors (ikmap.h, Raw features) */
	if (p->method == IKMAP_IFOREST)
		return p->scale == 4 || (p->scale == 2 && p->raw_weight > 0) ? p->scale : 0;
	return p->scale;
}

struct ikmap_scan *ikmap_scan_new(const struct ikmap_params *p)
{
	struct ikmap_scan *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->method = p->method;
	s->scale = ikmap_map_scale(p);
	if (s->method == IKMAP_IFOREST)
		s->kind = s->scale == 2 ? SCAN_STATS : SCAN_NONE;
	else if (ikmap_stores_shift(s->method, s->scale))
		s->kind = SCAN_RANGE;
	else if (s->scale == 1)
		s->kind = SCAN_MAXABS;
	else if (s->scale >= 2)
		s->kind = SCAN_STATS;
	else
		s->kind = SCAN_NONE;
	s->passes = s->kind == SCAN_NONE ? 0 : s->kind == SCAN_STATS && s->scale == 3 ? 3 : 1;
	return s;
}

void ikmap_scan_free(struct ikmap_scan *s)
{
	if (!s)
		return;
	free(s->a);
	free(s->b);
	free(s->c);
	free(s->count);
	free(s);
}

int ikmap_scan_passes(const struct ikmap_scan *s)
{
	return s->passes;
}

int ikmap_scan_stats(const struct ikmap_scan *s)
{
	return s->kind == SCAN_STATS;
}

/* Room for feature j (zeros in the new part). 0, or -1 when out of memory. */
static int reserve(struct ikmap_scan *s, int j)
{
	if (j <= s->cap && s->a)
		return 0;
	int64_t want = (int64_t)s->cap * 2 > j ? (int64_t)s->cap * 2 : (int64_t)j + 64;
	if (want > INT_MAX - 1)
		want = INT_MAX - 1;
	size_t old = s->a ? (size_t)s->cap + 1 : 0, m = (size_t)want + 1;
	double *a = realloc(s->a, m * sizeof *a);
	if (a)
		s->a = a;
	double *b = a ? realloc(s->b, m * sizeof *b) : NULL;
	if (b)
		s->b = b;
	double *c = b ? realloc(s->c, m * sizeof *c) : NULL;
	if (c)
		s->c = c;
	int64_t *count = c ? realloc(s->count, m * sizeof *count) : NULL;
	if (!count)
		return -1;
	s->count = count;
	memset(s->a + old, 0, (m - old) * sizeof *s->a);
	memset(s->b + old, 0, (m - old) * sizeof *s->b);
	memset(s->c + old, 0, (m - old) * sizeof *s->c);
	memset(s->count + old, 0, (m - old) * sizeof *s->count);
	s->cap = (int)want;
	return 0;
}

/* One stored value x of feature j in the current pass (STATS sees nonzeros only). */
static void scan_value(struct ikmap_scan *s, int j, double x)
{
	switch (s->kind) {
	case SCAN_MAXABS: {
		/* a plain comparison, not fmax (a libm call per value): rows are finite */
		double v = fabs(x);
		if (v > s->a[j])
			s->a[j] = v;
		break;
	}
	case SCAN_RANGE:
		if (s->count[j]++ == 0) {
			s->b[j] = x;
			s->a[j] = x;
		} else {
			s->b[j] = x < s->b[j] ? x : s->b[j];
			s->a[j] = x > s->a[j] ? x : s->a[j];
		}
		break;
	case SCAN_STATS:
		if (s->pass == 1) {
			s->b[j] += x / s->a[j];
		} else if (s->pass == 2) {
			double e = x / s->a[j] - s->b[j];
			s->c[j] += e * e;
		} else {
			if (s->scale == 2) {
				if (s->count[j] == 0 || x > s->a[j])
					s->a[j] = x;
				if (s->count[j] == 0 || x < s->b[j])
					s->b[j] = x;
			} else if (s->scale == 3) {
				double v = fabs(x);
				s->a[j] = v > s->a[j] ? v : s->a[j];
			} else {
				double v = det_log1p(x);
				s->a[j] = v > s->a[j] ? v : s->a[j];
			}
			s->count[j]++;
		}
		break;
	case SCAN_NONE:
		break;
	}
}

int ikmap_scan_rows(struct ikmap_scan *s, struct feature_node *const *rows, size_t count,
	char *err)
{
	if (s->kind == SCAN_NONE)
		return 0;
	for (size_t i = 0; i < count; i++) {
		for (const struct feature_node *f = rows[i]; f->index != -1; f++) {
			/* STATS reads the nonzeros only (an explicit zero counts as an implicit one);
			 * MAXABS and RANGE read every stored value, as they always did */
			if (s->kind == SCAN_STATS && f->value == 0)
				continue;
			/* a map that stores factors refuses such a width (ikmap_build_scanned
			 * says so): no need to make room for it first */
			if (f->index > IKMAP_MAX_SCALED_DIM)
				continue;
			if (f->index < 1 || reserve(s, f->index)) {
				ikmap_error(err, f->index < 1 ? "feature index %d is not positive"
					: "out of memory", f->index);
				return -1;
			}
			scan_value(s, f->index, f->value);
		}
		if (s->pass == 0)
			s->n++;
	}
	return 0;
}

int ikmap_scan_state(struct ikmap_scan *s, int d, struct ikmap_scan_state *out, char *err)
{
	if (d > IKMAP_MAX_SCALED_DIM)
		d = IKMAP_MAX_SCALED_DIM;
	if (d < 0)
		d = 0;
	if (reserve(s, d)) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	out->n = &s->n;
	out->d = d;
	out->a = s->a;
	out->b = s->b;
	out->c = s->c;
	out->count = s->count;
	return 0;
}

int ikmap_scan_order_free(const struct ikmap_scan *s)
{
	/* max |x| (scales 1 and 3's first pass) and max log1p(x) of x > 0 (scale 4): all >= +0,
	 * so no -0 to tell apart; scale 2's signed min and max, and every sum, are not */
	return s->pass == 0 && (s->kind == SCAN_MAXABS
		|| (s->kind == SCAN_STATS && (s->scale == 3 || s->scale == 4)));
}

int ikmap_scan_dense(struct ikmap_scan *s, const struct ikmap_dense_in *in, size_t n, int d,
	char *err)
{
	if (s->kind == SCAN_NONE)
		return 0;
	if (d > 0 && reserve(s, d)) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const double *row = in->x + i * in->ld;
		for (int j = 1; j <= d; j++) {
			double v = row[j - 1];
			/* the nonzeros, as a sparse row holds them (RANGE keeps dense_range's own pass) */
			if (v != 0)
				scan_value(s, j, v);
		}
		if (s->pass == 0)
			s->n++;
	}
	return 0;
}

void ikmap_scan_end_pass(struct ikmap_scan *s)
{
	if (s->kind == SCAN_STATS && s->scale == 3 && s->pass == 1 && s->a)
		for (int k = 1; k <= s->cap; k++)
			s->b[k] /= s->n;	/* the mean of the divided values, zeros counted */
	s->pass++;
}

/* 1 / v, or 1 when v is 0 or so small that its reciprocal overflows (no finite factor). */
static double reciprocal_or_one(double v)
{
	double r = v > 0 ? 1 / v : 0;
	return r > 0 && isfinite(r) ? r : 1;
}

/* Feature k's statistic, 0 for a feature never seen (the arrays' zeros). */
static double at(const double *v, const struct ikmap_scan *s, int k)
{
	return v && k <= s->cap ? v[k] : 0;
}

static int64_t count_at(const struct ikmap_scan *s, int k)
{
	return s->count && k <= s->cap ? s->count[k] : 0;
}

/*
 * Scale 2 of min-max and acos from min_j and max_j (a zero range: factor
 * 0, the feature maps to 0). A range that overflows (values near
 * +-DBL_MAX) is halved first, so the factor stays finite.
 */
void ikmap_set_range(double *factor, double *shift, int j, double lo, double hi)
{
	shift[j] = lo;
	double range = hi - lo;
	if (!(range > 0))
		factor[j] = 0;
	else if (isfinite(range))
		factor[j] = 1 / range;
	else
		factor[j] = 0.5 / (0.5 * hi - 0.5 * lo);
}

/*
 * The factors of STATS: scale 2 (aNNE, iForest's raw part) 1 / range, no
 * shift (a shift changes no distance, and rows stay sparse); scale 3
 * 1 / standard deviation, no centring, computed on values divided by the
 * feature's max |x| so that no square overflows, with the n - c implicit
 * zeros' term added last; scale 4 1 / max log1p(x). A zero statistic
 * gives factor 1 (ikmap.h, Scaling).
 */
static void stats_factors(const struct ikmap_scan *s, int d, double *f)
{
	int64_t n = s->n;
	for (int k = 1; k <= d; k++) {
		double a = at(s->a, s, k), b = at(s->b, s, k);
		if (s->scale == 2) {
			double hi = a, lo = b;
			if (count_at(s, k) < n) {	/* an implicit zero */
				hi = hi > 0 ? hi : 0;
				lo = lo < 0 ? lo : 0;
			}
			double range = hi - lo;
			f[k] = isfinite(range) ? reciprocal_or_one(range)
				: 0.5 / (0.5 * hi - 0.5 * lo);	/* a range past the largest double */
		} else if (s->scale == 3) {
			double e = b * b;
			double var = (at(s->c, s, k) + e * (double)(n - count_at(s, k))) / (double)n;
			f[k] = a > 0 ? reciprocal_or_one(a * sqrt(var)) : 1;
		} else {
			f[k] = reciprocal_or_one(a);
		}
	}
	f[0] = 1;
}

int ikmap_scan_factors(const struct ikmap_scan *s, struct ikmap *map, int raw, char *err)
{
	int iforest_raw = s->method == IKMAP_IFOREST && s->kind == SCAN_STATS;
	if (s->kind == SCAN_NONE || raw != iforest_raw)
		return 0;
	int d = map->dim;
	double *f = calloc((size_t)d + 1, sizeof *f);
	double *shift = s->kind == SCAN_RANGE ? calloc((size_t)d + 1, sizeof *shift) : NULL;
	if (!f || (s->kind == SCAN_RANGE && !shift)) {
		free(f);
		free(shift);
		ikmap_error(err, "out of memory");
		return -1;
	}
	if (s->kind == SCAN_MAXABS) {
		for (int j = 0; j <= d; j++) {
			double a = at(s->a, s, j);
			f[j] = a > 0 ? 1 / a : 1;
		}
	} else if (s->kind == SCAN_RANGE) {
		for (int j = 1; j <= d; j++) {
			double lo = at(s->b, s, j), hi = at(s->a, s, j);
			if (count_at(s, j) < s->n) {	/* an implicit zero (none stored: only zeros) */
				lo = lo < 0 ? lo : 0;
				hi = hi > 0 ? hi : 0;
			}
			ikmap_set_range(f, shift, j, lo, hi);
		}
	} else {
		stats_factors(s, d, f);
	}
	if (iforest_raw) {
		map->raw_factor = f;
	} else {
		map->factor = f;
		map->shift = shift;
	}
	return 0;
}
