/*
 * kernel_rows.c - the rows the min-max and acos maps see: the checks of
 * ikmap.h's rules (finite values; non-negative ones for min-max without
 * scale 2 and for every map under scale 4, whose log1p needs them) and
 * each row's transformed form (ikmap_impl.h), shared by signproj.c and
 * minmax.c for sparse and dense input alike; the checks also serve aNNE
 * and iForest maps under scale 4 (ikmap.c).
 *
 * The checks run once, serially, before any thread maps: the first bad
 * value in row-major order is the one reported whatever the thread count,
 * and the mappers then meet valid rows only. Compiled with
 * -ffp-contract=off (Makefile): the scale 2 transform is part of the
 * reference arithmetic, (x - min) * factor rounded twice.
 */
#include <math.h>
#include <stdlib.h>
#include "ikmap_impl.h"

/* The Makefile compiles this file with -ffp-contract=off; builds that compile it themselves
 * (fuzzing, sanitizers) get the same from this pragma under clang (gcc has no such pragma). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static int refuses_negative(const struct ikmap *map)
{
	return ikmap_needs_nonnegative(map->method, map->scaled);
}

static void report_negative(const struct ikmap *map, char *err, size_t row, int j, double v)
{
	ikmap_error(err, "row %zu: feature %d is negative (%g): %s", row, j, v,
		ikmap_nonnegative_reason(map->method, map->scaled));
}

static int check_sparse(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	char *err)
{
	int neg = refuses_negative(map);
	for (size_t r = 0; r < count; r++)
		for (const struct feature_node *f = rows[r]; f->index != -1; f++) {
			if (f->index < 1 || f->index > map->dim)
				continue;	/* ignored, as ikmap.h says */
			if (!isfinite(f->value)) {
				ikmap_error(err, "row %zu: feature %d is not a finite number", r + 1,
					f->index);
				return -2;
			}
			if (neg && f->value < 0) {
				report_negative(map, err, r + 1, f->index, f->value);
				return -2;
			}
		}
	return 0;
}

static int check_dense(const struct ikmap *map, const struct ikmap_dense_in *in, size_t count,
	char *err)
{
	int neg = refuses_negative(map);
	for (size_t r = 0; r < count; r++) {
		const double *x = in->x + r * in->ld;
		for (int j = 1; j <= in->cols; j++) {
			if (!isfinite(x[j - 1])) {
				ikmap_error(err, "row %zu: feature %d is not a finite number", r + 1, j);
				return -2;
			}
			if (neg && j <= map->dim && x[j - 1] < 0) {
				report_negative(map, err, r + 1, j, x[j - 1]);
				return -2;
			}
		}
	}
	return 0;
}

int ikmap_kernel_check(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	char *err)
{
	if (in->rows)
		return check_sparse(map, in->rows, count, err);
	return check_dense(map, in->dense, count, err);
}

size_t ikmap_kernel_row_room(const struct ikmap *map, const struct ikmap_rows_in *in, size_t r)
{
	size_t n = 0;
	if (in->rows) {
		for (const struct feature_node *f = in->rows[r]; f->index != -1; f++)
			n += f->index >= 1 && f->index <= map->dim;
	} else {
		n = (size_t)(in->dense->cols < map->dim ? in->dense->cols : map->dim);
	}
	return n + (size_t)map->nzero;
}

/* The value of feature j as the samplers see it (x finite, checked; >= 0 under scale 4). */
static double transformed(const struct ikmap *map, int j, double x)
{
	return map->scaled == 2 ? ikmap_minmax_scaled(map, j, x) : ikmap_apply(map, j, x);
}

/*
 * Merges the row's features (in ascending order, from next()) with the
 * zero list: where the row has feature j, its value wins (a present 0
 * transforms to the zero list's value anyway); elsewhere the zero list's.
 */
int ikmap_kernel_row(const struct ikmap *map, const struct ikmap_rows_in *in, size_t r,
	int *index, double *value)
{
	int n = 0, z = 0;
	const struct feature_node *f = in->rows ? in->rows[r] : NULL;
	const double *x = in->rows ? NULL : in->dense->x + r * in->dense->ld;
	int last = in->rows ? map->dim : (in->dense->cols < map->dim ? in->dense->cols : map->dim);
	int j = 0;	/* dense: the last column read */
	for (;;) {
		int fj;
		double fx;
		if (f) {
			while (f->index != -1 && (f->index < 1 || f->index > map->dim))
				f++;
			if (f->index == -1)
				break;
			fj = f->index;
			fx = f->value;
			f++;
		} else {
			while (j < last && x[j] == 0)
				j++;
			if (j >= last)
				break;
			fj = j + 1;
			fx = x[j];
			j++;
		}
		for (; z < map->nzero && map->zero_feature[z] < fj; z++) {
			index[n] = map->zero_feature[z];
			value[n++] = map->zero_value[z];
		}
		if (z < map->nzero && map->zero_feature[z] == fj)
			z++;
		double v = transformed(map, fj, fx);
		if (v != 0) {
			index[n] = fj;
			value[n++] = v;
		}
	}
	for (; z < map->nzero; z++) {
		index[n] = map->zero_feature[z];
		value[n++] = map->zero_value[z];
	}
	return n;
}

int ikmap_kernel_prepare_zeros(struct ikmap *map)
{
	free(map->zero_feature);
	free(map->zero_value);
	map->zero_feature = NULL;
	map->zero_value = NULL;
	map->nzero = 0;
	if (map->scaled != 2)
		return 0;
	int n = 0;
	for (int j = 1; j <= map->dim; j++)
		n += ikmap_minmax_scaled(map, j, 0) != 0;
	if (n == 0)
		return 0;
	map->zero_feature = malloc((size_t)n * sizeof(int));
	map->zero_value = malloc((size_t)n * sizeof(double));
	if (!map->zero_feature || !map->zero_value)
		return -1;
	for (int j = 1; j <= map->dim; j++) {
		double v = ikmap_minmax_scaled(map, j, 0);
		if (v != 0) {
			map->zero_feature[map->nzero] = j;
			map->zero_value[map->nzero++] = v;
		}
	}
	return 0;
}
