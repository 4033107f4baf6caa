/*
 * lik_map.c - maps of the kernel's C API: build, map rows, kernel values,
 * bytes (liblinear_ik.h), over the engine in ikmap/.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "lik_internal.h"

struct lik_map *lik_map_wrap(struct ikmap *map, struct lik_error *err)
{
	struct lik_map *m = malloc(sizeof *m);
	if (m == NULL) {
		ikmap_free(map);
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	atomic_init(&m->references, 1);
	m->map = map;
	return m;
}

struct lik_map *lik_map_share(const struct lik_map *map)
{
	struct lik_map *m = (struct lik_map *)map;	/* only the count changes */
	atomic_fetch_add(&m->references, 1);
	return m;
}

void lik_map_free(struct lik_map **map)
{
	if (map == NULL || *map == NULL)
		return;
	if (atomic_fetch_sub(&(*map)->references, 1) == 1) {
		ikmap_free((*map)->map);
		free(*map);
	}
	*map = NULL;
}

int lik_device_of(int device, enum ikmap_device *out, struct lik_error *err)
{
	switch (device) {
	case LIK_DEVICE_CPU:
		*out = IKMAP_DEVICE_CPU;
		return 0;
	case LIK_DEVICE_GPU:
		*out = IKMAP_DEVICE_GPU;
		return 0;
	case LIK_DEVICE_AUTO:
		*out = IKMAP_DEVICE_AUTO;
		return 0;
	}
	lik_fail(err, LIK_EINVAL, "device %d is not one of cpu (0), gpu (1), auto (2)", device);
	return -1;
}

const char *lik_kernel_name(int kernel)
{
	switch (kernel) {
	case LIK_KERNEL_ANNE:
		return "anne";
	case LIK_KERNEL_IFOREST:
		return "iforest";
	case LIK_KERNEL_MINMAX:
		return "minmax";
	case LIK_KERNEL_ACOS:
		return "acos";
	}
	return NULL;
}

int lik_kernel_is_exact(int kernel)
{
	return kernel == LIK_KERNEL_MINMAX || kernel == LIK_KERNEL_ACOS;
}

/* A power of two in [IK_MIN_PSI_MINMAX, IK_MAX_PSI_MINMAX]: -k minmax's 2^b. */
static int minmax_cells_ok(int psi)
{
	return psi >= IK_MIN_PSI_MINMAX && psi <= IK_MAX_PSI_MINMAX && (psi & (psi - 1)) == 0;
}

int lik_map_params_check(const struct lik_map_params *p, struct lik_error *err)
{
	enum ikmap_device device;
	if (p == NULL) {
		lik_fail(err, LIK_EINVAL, "no map parameters given");
		return -1;
	}
	const char *name = lik_kernel_name(p->kernel);
	if (name == NULL) {
		lik_fail(err, LIK_EINVAL, "kernel %d is not anne (1), iforest (2), minmax (3) or acos (4)",
			p->kernel);
		return -1;
	}
	int exact = lik_kernel_is_exact(p->kernel);
	if (p->t < 1) {
		lik_fail(err, LIK_EINVAL, "t (-t %d) must be at least 1", p->t);
		return -1;
	}
	/* the cap of the .ik files of these types (ikmap.h): a map beyond it could not be saved */
	if (exact && p->t > IK_MAX_SAMPLES) {
		lik_fail(err, LIK_EINVAL, "t (-t %d): -k %s takes at most %d samples", p->t, name,
			IK_MAX_SAMPLES);
		return -1;
	}
	if (p->kernel == LIK_KERNEL_MINMAX && !minmax_cells_ok(p->psi)) {
		lik_fail(err, LIK_EINVAL, "psi (-g %d): -k minmax needs 2^b cells, a power of two"
			" from %d to %d", p->psi, IK_MIN_PSI_MINMAX, IK_MAX_PSI_MINMAX);
		return -1;
	}
	/* acos: 0 stands for its only width, 2 (as ikmap_params takes it) */
	if (p->kernel == LIK_KERNEL_ACOS && p->psi != 0 && p->psi != IK_CELLS_ACOS) {
		lik_fail(err, LIK_EINVAL, "psi (-g %d): -k acos has %d cells per projection,"
			" psi cannot be set", p->psi, IK_CELLS_ACOS);
		return -1;
	}
	if (!exact && p->psi < 1) {
		lik_fail(err, LIK_EINVAL, "psi (-g %d) must be at least 1", p->psi);
		return -1;
	}
	int psi = lik_map_params_cells(p);
	if ((int64_t)p->t * psi > INT_MAX - 2) {
		lik_fail(err, LIK_EINVAL, "t*psi = %d*%d is too large (at most %d features)",
			p->t, psi, INT_MAX - 2);
		return -1;
	}
	/* !(w >= 0) catches NaN */
	if (!(p->raw_weight >= 0) || !isfinite(p->raw_weight)) {
		lik_fail(err, LIK_EINVAL, "the raw features' weight (-a %g) must be a finite number >= 0",
			p->raw_weight);
		return -1;
	}
	/*
	 * The one rule (issue 28, ikmap.h's Scaling): every transform 0..4 for
	 * every kernel. What needs non-negative data (-S 4; -k minmax but under
	 * -S 2) is a property of the rows, checked where they are read.
	 */
	(void)name;
	if (p->scale < 0 || p->scale > 4) {
		lik_fail(err, LIK_EINVAL, "scale (-S %d) must be 0 (none), 1 (max-abs), 2 (min-max),"
			" 3 (standard deviation) or 4 (log1p, then max-abs)", p->scale);
		return -1;
	}
	if (lik_device_of(p->device, &device, err) != 0)
		return -1;
	lik_ok(err);
	return 0;
}

struct lik_psi_grid lik_psi_grid_of(int kernel, int rows, int grid_max)
{
	struct lik_psi_grid g;
	if (kernel == LIK_KERNEL_ACOS) {
		g.first = g.last = IK_CELLS_ACOS;
		g.factor = 2;
	} else if (kernel == LIK_KERNEL_MINMAX) {
		g.first = LIK_SEARCH_MINMAX_MIN;
		g.factor = LIK_SEARCH_MINMAX_FACTOR;
		g.last = grid_max < LIK_SEARCH_MINMAX_MAX ? grid_max : LIK_SEARCH_MINMAX_MAX;
		/* a grid_max below 16 still leaves its first 2^b: the search needs one row at least */
		if (g.last < g.first)
			g.last = g.first;
	} else {
		g.first = LIK_SEARCH_PSI_MIN;
		g.factor = 2;
		g.last = rows < grid_max ? rows : grid_max;
	}
	return g;
}

int lik_map_params_cells(const struct lik_map_params *p)
{
	return p->kernel == LIK_KERNEL_ACOS ? IK_CELLS_ACOS : p->psi;
}

/*
 * -k minmax without scale 2, and every kernel under scale 4 (log1p), need
 * non-negative values (ikmap refuses others too, but only the caller knows
 * what a row is called: a line of a file, a row of a matrix). The first negative value among rows[0..n-1]
 * at an index <= dim (the map ignores the others): 0 when there is none,
 * else 1 with *row (0-based) and *feature set.
 */
int lik_first_negative(struct feature_node *const *rows, size_t n, int dim, size_t *row,
	int *feature)
{
	for (size_t i = 0; i < n; i++)
		for (const struct feature_node *f = rows[i]; f->index != -1; f++)
			if (f->index <= dim && f->value < 0) {
				*row = i;
				*feature = f->index;
				return 1;
			}
	return 0;
}

int lik_fail_negative_why(struct lik_error *err, size_t row, int feature, const char *why)
{
	lik_fail(err, LIK_EDATA, "row %zu: feature %d is negative: %s", row + 1, feature, why);
	return -1;
}

/*
 * prob's rows without their bias nodes: prob->x itself when there are
 * none, else copies in one allocation (*nodes, to free with the array).
 */
static struct feature_node **rows_without_bias(const struct problem *prob,
	struct feature_node **nodes, struct lik_error *err)
{
	*nodes = NULL;
	if (prob->bias < 0)
		return prob->x;
	/* rows that carry no bias node (train -k reads its rows without them) are used as they are */
	size_t total = 0;
	int has_bias_node = 0;
	for (int i = 0; i < prob->l; i++) {
		const struct feature_node *f = prob->x[i];
		while (f->index != -1) {
			has_bias_node |= f->index == prob->n;
			f++;
		}
		total += (size_t)(f - prob->x[i]) + 1;
	}
	if (!has_bias_node)
		return prob->x;
	struct feature_node **rows = malloc((size_t)prob->l * sizeof *rows);
	*nodes = malloc(total * sizeof **nodes);
	if (rows == NULL || *nodes == NULL) {
		free(rows);
		free(*nodes);
		*nodes = NULL;
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	struct feature_node *at = *nodes;
	for (int i = 0; i < prob->l; i++) {
		rows[i] = at;
		for (const struct feature_node *f = prob->x[i]; f->index != -1; f++)
			if (f->index != prob->n)	/* the bias node (linear.h: index n) */
				*at++ = *f;
		at->index = -1;
		at->value = 0;
		at++;
	}
	return rows;
}

/* The map library's parameters for the API's (the sparse and dense builds share them). */
static struct ikmap_params ikmap_params_of(const struct lik_map_params *params)
{
	struct ikmap_params p = {0};
	switch (params->kernel) {
	case LIK_KERNEL_IFOREST:
		p.method = IKMAP_IFOREST;
		break;
	case LIK_KERNEL_MINMAX:
		p.method = IKMAP_MINMAX;
		break;
	case LIK_KERNEL_ACOS:
		p.method = IKMAP_ACOS;
		break;
	default:
		p.method = IKMAP_ANNE;
	}
	p.t = params->t;
	p.psi = lik_map_params_cells(params);
	p.seed = params->seed;
	p.scale = params->scale;
	p.threads = params->threads;
	p.raw_weight = params->raw_weight;
	return p;
}

const char *lik_map_params_nonnegative_reason(const struct lik_map_params *params)
{
	struct ikmap_params p = ikmap_params_of(params);
	return ikmap_needs_nonnegative(p.method, p.scale) ? ikmap_nonnegative_reason(p.method, p.scale)
		: NULL;
}

/*
 * The checks of a build of l rows of dim features that need no row: the
 * parameters, rows at all, psi within the rows (IK maps sample psi rows;
 * minmax and acos cells are not rows, so rows do not cap them), a feature
 * at all. 0, or -1 with err set.
 */
static int check_build(int l, int dim, const struct lik_map_params *params, struct lik_error *err)
{
	if (lik_map_params_check(params, err) != 0)
		return -1;
	if (l < 1) {
		lik_fail(err, LIK_EDATA, "no training rows");
		return -1;
	}
	if (!lik_kernel_is_exact(params->kernel) && params->psi > l) {
		lik_fail(err, LIK_EINVAL, "psi (-g %d) exceeds the number of training rows (%d)",
			params->psi, l);
		return -1;
	}
	if (dim < 1) {
		lik_fail(err, LIK_EDATA, "-k needs training rows with at least one feature");
		return -1;
	}
	return 0;
}

struct ikmap *lik_map_build_ikmap(const struct problem *prob, const struct lik_map_params *params,
	struct lik_error *err)
{
	if (prob == NULL || params == NULL) {
		lik_fail(err, LIK_EINVAL, "no problem or no map parameters given");
		return NULL;
	}
	int dim = prob->bias >= 0 ? prob->n - 1 : prob->n;
	if (check_build(prob->l, dim, params, err) != 0)
		return NULL;
	struct feature_node *nodes;
	struct feature_node **rows = rows_without_bias(prob, &nodes, err);
	if (rows == NULL)
		return NULL;
	struct ikmap_params p = ikmap_params_of(params);
	char why[IKMAP_ERR_SIZE];
	size_t bad_row;
	int bad_feature;
	struct ikmap *map = NULL;
	if (ikmap_needs_nonnegative(p.method, p.scale)
		&& lik_first_negative(rows, (size_t)prob->l, dim, &bad_row, &bad_feature))
		lik_fail_negative_why(err, bad_row, bad_feature,
			ikmap_nonnegative_reason(p.method, p.scale));
	else if ((map = ikmap_build(rows, prob->l, dim, &p, why)) == NULL)
		lik_fail_ikmap(err, LIK_EDATA, why);
	if (rows != prob->x) {
		free(rows);
		free(nodes);
	}
	return map;
}

struct ikmap_scan *lik_map_scan_new(const struct lik_map_params *params, struct lik_error *err)
{
	struct ikmap_params p = ikmap_params_of(params);
	struct ikmap_scan *scan = ikmap_scan_new(&p);
	if (scan == NULL)
		lik_fail(err, LIK_ENOMEM, "out of memory");
	return scan;
}

struct ikmap *lik_map_build_scanned(const struct ikmap_scan *scan, int l, int dim,
	const struct lik_map_params *params, ikmap_row_source source, void *context,
	struct lik_error *err)
{
	if (check_build(l, dim, params, err) != 0)
		return NULL;
	struct ikmap_params p = ikmap_params_of(params);
	char why[IKMAP_ERR_SIZE];
	struct ikmap *map = ikmap_build_scanned(scan, l, dim, &p, source, context, why);
	if (map == NULL)
		lik_fail_ikmap(err, LIK_EDATA, why);
	return map;
}

struct lik_map *lik_map_build(const struct problem *prob, const struct lik_map_params *params,
	struct lik_error *err)
{
	struct ikmap *map = lik_map_build_ikmap(prob, params, err);
	if (map == NULL)
		return NULL;
	struct lik_map *m = lik_map_wrap(map, err);
	if (m != NULL)
		lik_ok(err);
	return m;
}

int lik_map_native(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int device, int threads, struct lik_error *err)
{
	enum ikmap_device on;
	if (lik_device_of(device, &on, err) != 0)
		return -1;
	if (count == 0)
		return 0;
	size_t bad_row;
	int bad_feature;
	if (ikmap_needs_nonnegative(ikmap_method(map), ikmap_scaled(map))
		&& lik_first_negative(rows, count, ikmap_dim(map), &bad_row, &bad_feature))
		return lik_fail_negative_why(err, bad_row, bad_feature,
			ikmap_nonnegative_reason(ikmap_method(map), ikmap_scaled(map)));
	char why[IKMAP_ERR_SIZE];
	int status = ikmap_map_on(map, rows, count, cells, threads, on, why);
	if (status != 0) {
		/* -2: a value the map cannot take (ikmap.h), which is the data's fault */
		lik_fail_ikmap(err, status == -2 ? LIK_EDATA : LIK_EDEVICE, why);
		return -1;
	}
	return 0;
}

size_t lik_model_row_room(const struct ikmap *map, const struct feature_node *x)
{
	size_t n = (size_t)ikmap_t(map) + 2;
	if (ikmap_raw_columns(map) > 0) {
		int dim = ikmap_dim(map);
		for (const struct feature_node *f = x; f->index != -1 && f->index <= dim; f++)
			n++;
	}
	return n;
}

void lik_model_row(const struct ikmap *map, const void *cells, const struct feature_node *x,
	double bias, struct feature_node *out)
{
	int t = ikmap_t(map);
	size_t psi = (size_t)ikmap_psi(map);
	double value = 1 / sqrt((double)t);
	for (int k = 0; k < t; k++) {
		out[k].index = (int)((size_t)k * psi + ikmap_cell_at(map, cells, (size_t)k) + 1);
		out[k].value = value;
	}
	size_t n = (size_t)t;
	if (ikmap_raw_columns(map) > 0) {
		/* raw feature j lands at column t*psi + j (rows.h's raw part) */
		size_t raw = ikmap_raw_row(map, x, out + n);
		for (size_t k = 0; k < raw; k++)
			out[n + k].index += (int)((size_t)t * psi);
		n += raw;
	}
	if (bias >= 0) {
		out[n].index = ikmap_columns(map) + 1;
		out[n].value = bias;
		n++;
	}
	out[n].index = -1;
	out[n].value = 0;
}

/* n rounded up to a multiple of the strictest alignment, or 0 when that overflows. */
static size_t aligned_size(size_t n)
{
	size_t a = _Alignof(max_align_t);
	return n > SIZE_MAX - (a - 1) ? 0 : (n + a - 1) / a * a;
}

void lik_cells_view(const struct ikmap *map, size_t count, double bias, const void *cells,
	struct feature_node *const *raw, struct row_set *X)
{
	size_t t = (size_t)ikmap_t(map);
	memset(X, 0, sizeof *X);
	X->kind = ROWS_CELLS;
	X->l = (int)count;
	X->t = (int)t;
	X->psi = ikmap_psi(map);
	X->n = ikmap_columns(map) + (bias >= 0 ? 1 : 0);
	X->cell_value = 1 / sqrt((double)t);
	if (ikmap_cell_size(map) == sizeof(uint16_t))
		X->cells16 = cells;
	else
		X->cells32 = cells;
	X->bias = bias;
	if (raw != NULL) {
		X->raw = raw;
		X->raw_d = ikmap_raw_columns(map);
	}
}

void *lik_map_row_set(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	double bias, int device, int threads, struct row_set *X, struct lik_error *err)
{
	size_t t = (size_t)ikmap_t(map), width = ikmap_cell_size(map);
	int raw_d = ikmap_raw_columns(map), dim = ikmap_dim(map);
	if (count > (size_t)INT_MAX || (t > 0 && count > SIZE_MAX / t / width)) {
		lik_fail(err, LIK_ENOMEM, "out of memory (%zu rows)", count);
		return NULL;
	}
	/* the raw part's room: each row's features within 1..d, and its end node */
	size_t cell_bytes = count * t * width, nodes = 0, total = cell_bytes;
	size_t at_ptrs = aligned_size(cell_bytes), at_nodes = 0;
	if (raw_d > 0) {
		for (size_t i = 0; i < count; i++) {
			for (const struct feature_node *f = rows[i]; f->index != -1 && f->index <= dim; f++)
				nodes++;
			nodes++;
		}
		size_t ptr_bytes = count * sizeof(struct feature_node *);
		at_nodes = aligned_size(at_ptrs + ptr_bytes);
		if (at_ptrs == 0 || at_nodes == 0 || nodes > (SIZE_MAX - at_nodes) / sizeof(struct feature_node)) {
			lik_fail(err, LIK_ENOMEM, "out of memory (%zu rows)", count);
			return NULL;
		}
		total = at_nodes + nodes * sizeof(struct feature_node);
	}
	unsigned char *block = malloc(total > 0 ? total : 1);
	if (block == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	if (lik_map_native(map, rows, count, block, device, threads, err) != 0) {
		free(block);
		return NULL;
	}
	struct feature_node **raw = NULL;
	if (raw_d > 0) {
		/* rows ikmap_map accepted, so their values are the ones ikmap_raw_row takes */
		raw = (struct feature_node **)(block + at_ptrs);
		struct feature_node *next = (struct feature_node *)(block + at_nodes);
		for (size_t i = 0; i < count; i++) {
			raw[i] = next;
			next += ikmap_raw_row(map, rows[i], next) + 1;
		}
	}
	lik_cells_view(map, count, bias, block, raw, X);
	return block;
}

/*
 * Widens count 16-bit cells, stored at the start of buf, to 32-bit cells
 * filling buf, in place. From the last cell down: cell k's 32 bits land on
 * the bytes of 16-bit cells 2k and 2k + 1, which are >= k and so already
 * read. memcpy, not pointer casts, so the two views never alias.
 */
static void widen_cells_in_place(void *buf, size_t count)
{
	unsigned char *bytes = buf;
	for (size_t k = count; k-- > 0;) {
		uint16_t narrow;
		memcpy(&narrow, bytes + k * sizeof narrow, sizeof narrow);
		uint32_t wide = narrow;
		memcpy(bytes + k * sizeof wide, &wide, sizeof wide);
	}
}

int lik_map_rows(const struct lik_map *map, struct feature_node *const *rows, size_t count,
	uint32_t *cells, int device, int threads, struct lik_error *err)
{
	if (map == NULL || (count > 0 && (rows == NULL || cells == NULL))) {
		lik_fail(err, LIK_EINVAL, "no map, rows or cells given");
		return -1;
	}
	const struct ikmap *im = map->map;
	size_t t = (size_t)ikmap_t(im);
	/*
	 * uint16_t cells (psi <= 65536) are mapped into the first half of the
	 * caller's buffer in one call, then widened: one pass of the mapper
	 * over all rows (its per-call setup, tiles and threads, once), and no
	 * second buffer.
	 */
	if (lik_map_native(im, rows, count, cells, device, threads, err) != 0)
		return -1;
	if (ikmap_cell_size(im) != sizeof(uint32_t))
		widen_cells_in_place(cells, count * t);
	lik_ok(err);
	return 0;
}

struct lik_map *lik_map_build_dense(const double *x, size_t n, size_t cols, size_t ld,
	const struct lik_map_params *params, struct lik_error *err)
{
	if (params == NULL || (n > 0 && x == NULL)) {
		lik_fail(err, LIK_EINVAL, "no rows or no map parameters given");
		return NULL;
	}
	if (lik_map_params_check(params, err) != 0)
		return NULL;
	if (n > INT_MAX) {
		lik_fail(err, LIK_EINVAL, "%zu rows: a map is built on at most %d", n, INT_MAX);
		return NULL;
	}
	if (ld < cols) {
		lik_fail(err, LIK_EINVAL, "leading dimension %zu is below the %zu columns", ld, cols);
		return NULL;
	}
	if (n < 1) {
		lik_fail(err, LIK_EDATA, "no training rows");
		return NULL;
	}
	if (!lik_kernel_is_exact(params->kernel) && params->psi > (int)n) {
		lik_fail(err, LIK_EINVAL, "psi (-g %d) exceeds the number of training rows (%zu)",
			params->psi, n);
		return NULL;
	}
	int dim = ikmap_dense_width(x, n, cols, ld);
	if (dim < 0) {
		lik_fail(err, LIK_EINVAL, "a nonzero in a column above %d: too wide for a map",
			IKMAP_MAX_DIM);
		return NULL;
	}
	if (dim < 1) {
		lik_fail(err, LIK_EDATA, "-k needs training rows with at least one feature");
		return NULL;
	}
	struct ikmap_params p = ikmap_params_of(params);
	if (ikmap_needs_nonnegative(p.method, p.scale))
		for (size_t i = 0; i < n; i++)
			for (int j = 0; j < dim; j++)
				if (x[i * ld + (size_t)j] < 0) {
					lik_fail_negative_why(err, i, j + 1,
						ikmap_nonnegative_reason(p.method, p.scale));
					return NULL;
				}
	char why[IKMAP_ERR_SIZE];
	struct ikmap *map = ikmap_build_dense(x, (int)n, dim, ld, &p, why);
	if (map == NULL) {
		lik_fail_ikmap(err, LIK_EDATA, why);
		return NULL;
	}
	struct lik_map *m = lik_map_wrap(map, err);
	if (m != NULL)
		lik_ok(err);
	return m;
}

int lik_map_rows_dense(const struct lik_map *map, const double *x, size_t count, size_t cols,
	size_t ld, uint32_t *cells, int device, int threads, struct lik_error *err)
{
	if (map == NULL || (count > 0 && (x == NULL || cells == NULL))) {
		lik_fail(err, LIK_EINVAL, "no map, rows or cells given");
		return -1;
	}
	if (cols > INT_MAX || ld < cols) {
		lik_fail(err, LIK_EINVAL, "%zu columns with leading dimension %zu: at most %d columns,"
			" and ld >= columns", cols, ld, INT_MAX);
		return -1;
	}
	enum ikmap_device on;
	if (lik_device_of(device, &on, err) != 0)
		return -1;
	const struct ikmap *im = map->map;
	if (ikmap_needs_nonnegative(ikmap_method(im), ikmap_scaled(im))) {
		size_t dim = (size_t)ikmap_dim(im) < cols ? (size_t)ikmap_dim(im) : cols;
		for (size_t i = 0; i < count; i++)
			for (size_t j = 0; j < dim; j++)
				if (x[i * ld + j] < 0)
					return lik_fail_negative_why(err, i, (int)j + 1,
						ikmap_nonnegative_reason(ikmap_method(im),
							ikmap_scaled(im)));
	}
	char why[IKMAP_ERR_SIZE];
	/* 16-bit cells into the buffer's first half, then widened, as lik_map_rows does */
	int status = ikmap_map_dense_on(im, x, count, (int)cols, ld, cells, threads, on, why);
	if (status != 0) {
		lik_fail_ikmap(err, status == -2 ? LIK_EDATA : LIK_EDEVICE, why);
		return -1;
	}
	if (ikmap_cell_size(im) != sizeof(uint32_t))
		widen_cells_in_place(cells, count * (size_t)ikmap_t(im));
	lik_ok(err);
	return 0;
}

int lik_map_kernel(const struct lik_map *map)
{
	switch (ikmap_method(map->map)) {
	case IKMAP_IFOREST:
		return LIK_KERNEL_IFOREST;
	case IKMAP_MINMAX:
		return LIK_KERNEL_MINMAX;
	case IKMAP_ACOS:
		return LIK_KERNEL_ACOS;
	default:
		return LIK_KERNEL_ANNE;
	}
}

int lik_map_t(const struct lik_map *map)
{
	return ikmap_t(map->map);
}

int lik_map_psi(const struct lik_map *map)
{
	return ikmap_psi(map->map);
}

int lik_map_dim(const struct lik_map *map)
{
	return ikmap_dim(map->map);
}

uint64_t lik_map_seed(const struct lik_map *map)
{
	return ikmap_seed(map->map);
}

int lik_map_scaled(const struct lik_map *map)
{
	return ikmap_scaled(map->map);
}

uint64_t lik_map_checksum(const struct lik_map *map)
{
	return ikmap_checksum(map->map);
}

double lik_map_raw_weight(const struct lik_map *map)
{
	return ikmap_raw_weight(map->map);
}

int lik_map_columns(const struct lik_map *map)
{
	return ikmap_columns(map->map);
}

int lik_map_raw_values(const struct lik_map *map, struct feature_node *const *rows, size_t count,
	double *out, struct lik_error *err)
{
	if (map == NULL || (count > 0 && (rows == NULL || out == NULL))) {
		lik_fail(err, LIK_EINVAL, "no map, rows or output given");
		return -1;
	}
	const struct ikmap *im = map->map;
	int dim = ikmap_dim(im);
	struct feature_node one[2];
	for (size_t i = 0; i < count; i++)
		for (const struct feature_node *f = rows[i]; f->index != -1 && f->index <= dim; f++) {
			/* node by node, so that a dropped zero still has its slot */
			const struct feature_node x[2] = { *f, { -1, 0 } };
			*out++ = ikmap_raw_row(im, x, one) == 1 ? one[0].value : 0;
		}
	lik_ok(err);
	return 0;
}

double lik_map_cell_value(const struct lik_map *map)
{
	return 1 / sqrt((double)ikmap_t(map->map));
}

/*
 * The raw parts of count rows (ikmap_raw_row), one block: row i's at
 * (*starts)[i]; w already in them. NULL (err set) when out of memory.
 */
static struct feature_node *raw_parts(const struct ikmap *map, struct feature_node *const *rows,
	size_t count, size_t **starts, struct lik_error *err)
{
	size_t total = 0;
	int dim = ikmap_dim(map);
	for (size_t i = 0; i < count; i++) {
		for (const struct feature_node *f = rows[i]; f->index != -1 && f->index <= dim; f++)
			total++;
		total++;
	}
	struct feature_node *nodes = malloc((total > 0 ? total : 1) * sizeof *nodes);
	*starts = malloc((count > 0 ? count : 1) * sizeof **starts);
	if (nodes == NULL || *starts == NULL) {
		free(nodes);
		free(*starts);
		*starts = NULL;
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	size_t at = 0;
	for (size_t i = 0; i < count; i++) {
		(*starts)[i] = at;
		at += ikmap_raw_row(map, rows[i], nodes + at) + 1;
	}
	return nodes;
}

/* <a, b> of two rows of ascending indices. */
static double sparse_dot(const struct feature_node *a, const struct feature_node *b)
{
	double s = 0;
	while (a->index != -1 && b->index != -1) {
		if (a->index == b->index)
			s += (a++)->value * (b++)->value;
		else if (a->index < b->index)
			a++;
		else
			b++;
	}
	return s;
}

double lik_kernel_value(const struct lik_map *map, const struct feature_node *x,
	const struct feature_node *y, struct lik_error *err)
{
	if (map == NULL || x == NULL || y == NULL) {
		lik_fail(err, LIK_EINVAL, "no map or row given");
		return NAN;
	}
	double k = ikmap_kernel(map->map, x, y);
	if (k < 0) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NAN;
	}
	if (ikmap_raw_columns(map->map) > 0) {
		struct feature_node *const rows[2] = { (struct feature_node *)x, (struct feature_node *)y };
		size_t *starts;
		struct feature_node *raw = raw_parts(map->map, rows, 2, &starts, err);
		if (raw == NULL)
			return NAN;
		k += sparse_dot(raw + starts[0], raw + starts[1]);
		free(raw);
		free(starts);
	}
	lik_ok(err);
	return k;
}

int lik_kernel_matrix(const struct lik_map *map, struct feature_node *const *x, size_t nx,
	struct feature_node *const *y, size_t ny, double *out, int threads, struct lik_error *err)
{
	if (map == NULL || (nx > 0 && x == NULL) || (ny > 0 && y == NULL)
		|| (nx > 0 && ny > 0 && out == NULL)) {
		lik_fail(err, LIK_EINVAL, "no map, rows or output given");
		return -1;
	}
	const struct ikmap *im = map->map;
	size_t row_bytes = (size_t)ikmap_t(im) * ikmap_cell_size(im);
	unsigned char *cx = malloc(nx * row_bytes + 1);
	unsigned char *cy = malloc(ny * row_bytes + 1);
	/* with a raw part, every row's (w in it): the matrix adds their inner products */
	int has_raw = ikmap_raw_columns(im) > 0;
	struct feature_node *rx = NULL, *ry = NULL;
	size_t *sx = NULL, *sy = NULL;
	int status = -1;
	if (cx == NULL || cy == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
	} else if (has_raw && ((rx = raw_parts(im, x, nx, &sx, err)) == NULL
			|| (ry = raw_parts(im, y, ny, &sy, err)) == NULL)) {
		/* err set */
	} else if (lik_map_native(im, x, nx, cx, LIK_DEVICE_CPU, threads, err) == 0
		&& lik_map_native(im, y, ny, cy, LIK_DEVICE_CPU, threads, err) == 0) {
		long long rows = (long long)nx;
#ifdef _OPENMP
		int team = threads > 0 ? threads : omp_get_max_threads();
#endif
#pragma omp parallel for schedule(static) num_threads(team)
		for (long long i = 0; i < rows; i++)
			for (size_t j = 0; j < ny; j++)
				out[(size_t)i * ny + j] = ikmap_kernel_cells(im, cx + (size_t)i * row_bytes,
					cy + j * row_bytes)
					+ (has_raw ? sparse_dot(rx + sx[i], ry + sy[j]) : 0);
		status = 0;
		lik_ok(err);
	}
	free(rx);
	free(ry);
	free(sx);
	free(sy);
	free(cx);
	free(cy);
	return status;
}

int lik_map_to_bytes(const struct lik_map *map, unsigned char **bytes, size_t *size,
	struct lik_error *err)
{
	if (map == NULL || bytes == NULL || size == NULL) {
		lik_fail(err, LIK_EINVAL, "no map or output given");
		return -1;
	}
	char why[IKMAP_ERR_SIZE];
	if (ikmap_to_memory(map->map, bytes, size, why) != 0) {
		lik_fail_ikmap(err, LIK_ENOMEM, why);
		return -1;
	}
	lik_ok(err);
	return 0;
}

struct lik_map *lik_map_from_bytes(const void *bytes, size_t size, struct lik_error *err)
{
	if (bytes == NULL && size > 0) {
		lik_fail(err, LIK_EINVAL, "no bytes given");
		return NULL;
	}
	char why[IKMAP_ERR_SIZE];
	struct ikmap *map = ikmap_from_memory(bytes != NULL ? bytes : "", size, "map bytes", why);
	if (map == NULL) {
		lik_fail_ikmap(err, LIK_EMODEL, why);
		return NULL;
	}
	struct lik_map *m = lik_map_wrap(map, err);
	if (m != NULL)
		lik_ok(err);
	return m;
}
