/*
 * ik_batch.c - reading, holding and mapping one batch of rows.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ik_batch.h"
#include "lik_internal.h"

static int out_of_memory(void)
{
	fprintf(stderr, "ERROR: out of memory\n");
	return -1;
}

int ik_batch_init(struct ik_batch *b, size_t capacity, const struct ikmap *map)
{
	memset(b, 0, sizeof *b);
	b->capacity = capacity;
	b->cell_bytes = map != NULL ? ikmap_cell_size(map) * (size_t)ikmap_t(map) : 0;
	b->labels = malloc(capacity * sizeof *b->labels);
	b->rows = malloc(capacity * sizeof *b->rows);
	b->row_start = malloc(capacity * sizeof *b->row_start);
	b->cells = map != NULL ? malloc(capacity * b->cell_bytes) : NULL;
	if (b->labels == NULL || b->rows == NULL || b->row_start == NULL
		|| (map != NULL && b->cells == NULL)) {
		ik_batch_free(b);
		return out_of_memory();
	}
	return 0;
}

void ik_batch_free(struct ik_batch *b)
{
	free(b->labels);
	free(b->rows);
	free(b->row_start);
	free(b->nodes);
	free(b->cells);
	memset(b, 0, sizeof *b);
}

/* Copies a row (nnz features and the terminator) to the end of nodes, and leaves one node spare. */
static int keep_row(struct ik_batch *b, const struct feature_node *x, size_t nnz)
{
	size_t need = b->nodes_used + nnz + 2;
	if (need > b->nodes_cap) {
		size_t cap = b->nodes_cap ? b->nodes_cap : 1024;
		while (cap < need)
			cap *= 2;
		struct feature_node *nodes = realloc(b->nodes, cap * sizeof *nodes);
		if (nodes == NULL)
			return -1;
		b->nodes = nodes;
		b->nodes_cap = cap;
	}
	b->row_start[b->count] = b->nodes_used;
	memcpy(b->nodes + b->nodes_used, x, (nnz + 1) * sizeof *x);
	b->nodes_used = need;
	return 0;
}

long ik_batch_next(struct ik_batch *b, struct libsvm_reader *r, const struct ikmap *map, int threads,
	enum ikmap_device device)
{
	b->rows_before += b->count;
	b->count = 0;
	b->nodes_used = 0;
	int status = LIBSVM_ROW;
	while (b->count < b->capacity) {
		double label;
		struct feature_node *x;
		size_t nnz;
		status = libsvm_reader_next(r, &label, &x, &nnz);
		if (status != LIBSVM_ROW)
			break;
		if (keep_row(b, x, nnz) != 0)
			return out_of_memory();
		b->labels[b->count++] = label;
	}
	if (status == LIBSVM_ERROR) {
		fprintf(stderr, "%s\n", libsvm_reader_error(r));
		return -1;
	}
	/* nodes may have moved while growing: point the rows now */
	for (size_t i = 0; i < b->count; i++)
		b->rows[i] = b->nodes + b->row_start[i];
	if (map != NULL && ik_needs_nonnegative(ikmap_method(map) == IKMAP_MINMAX, ikmap_scaled(map))
		&& ik_refuse_negative(b->rows, b->count, ikmap_dim(map), b->name,
			b->rows_before + 1, ik_log1p_advice(ikmap_scaled(map), 0) != NULL
			? ik_log1p_advice(ikmap_scaled(map), 0)
			: "the -k minmax map takes non-negative values only (build it with"
			" -S 2 to min-max scale them)") != 0)
		return -1;
	char err[IKMAP_ERR_SIZE];
	if (map != NULL && b->count > 0 && ikmap_map_on(map, b->rows, b->count, b->cells, threads, device, err) != 0) {
		fprintf(stderr, "ERROR: %s\n", err);
		return -1;
	}
	return (long)b->count;
}

int ik_refuse_negative(struct feature_node *const *rows, size_t n, int dim, const char *path,
	int64_t first_line, const char *advice)
{
	size_t row;
	int feature;
	if (!lik_first_negative(rows, n, dim, &row, &feature))
		return 0;
	fprintf(stderr, "ERROR: %s%sline %" PRId64 ": feature %d is negative: %s\n",
		path != NULL ? path : "", path != NULL ? " " : "", first_line + (int64_t)row, feature,
		advice);
	return -1;
}

const char *ik_train_negative_advice(int scale)
{
	const char *advice = ik_log1p_advice(scale, 0);
	return advice != NULL ? advice
		: "-k minmax needs non-negative values (-S 2 min-max scales them to [0, 1])";
}

const void *ik_batch_cells(const struct ik_batch *b, size_t i)
{
	return b->cells + i * b->cell_bytes;
}

double ik_cell_value(const struct ikmap *map)
{
	return 1 / sqrt((double)ikmap_t(map));
}

void ik_cell_row(const struct ikmap *map, const void *cells, const struct feature_node *x,
	double bias, struct feature_node *out)
{
	lik_model_row(map, cells, x, bias, out);
}

int ik_needs_nonnegative(int minmax, int scale)
{
	return ikmap_needs_nonnegative(minmax ? IKMAP_MINMAX : IKMAP_ANNE, scale);
}

const char *ik_log1p_advice(int scale, int from_model)
{
	if (scale != 4)
		return NULL;
	return from_model ? "the model's map was built with -S 4 (log1p), which takes non-negative"
		" values only" : "-S 4 (log1p) needs non-negative values";
}
