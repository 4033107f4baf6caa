/*
 * lik_predict.c - prediction on raw rows (liblinear_ik.h): a -k model's
 * rows are mapped, written as the cell rows training saw (feature k*psi +
 * cell + 1 of value 1/sqrt(t), then the map's raw part, then the bias
 * feature when the model has one: lik_model_row) and predicted by linear.h's own functions, so the
 * arithmetic is exactly upstream's on those rows; a plain model's rows go
 * to linear.h's functions as they are.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lik_internal.h"
#include "model_shape.h"

/* Rows mapped at once by lik_predict_rows (memory: this many rows' cells). */
#define PREDICT_BATCH_ROWS 4096

int lik_model_nr_outputs(const struct lik_model *model, int what)
{
	if (what == LIK_OUTPUT_VALUES)
		return model_nr_w(model->linear);
	if (what == LIK_OUTPUT_PROBABILITY)
		return get_nr_class(model->linear);
	return 0;
}

/*
 * linear.h's prediction of x (already in the model's feature space). A
 * label alone is predict_values' label with the decision values in
 * scratch (nr_w slots): predict() would allocate them for every row.
 */
static double predict_linear(const struct model *m, const struct feature_node *x, int what,
	double *out, double *scratch)
{
	if (what == LIK_OUTPUT_PROBABILITY)
		return predict_probability(m, x, out);
	if (what == LIK_OUTPUT_VALUES)
		return predict_values(m, x, out);
	return predict_values(m, x, scratch);
}

/* Room for nr_w decision values (at least one), or NULL after LIK_ENOMEM. */
static double *scratch_for(const struct model *m, struct lik_error *err)
{
	int nr_w = model_nr_w(m);
	double *scratch = malloc((size_t)(nr_w > 0 ? nr_w : 1) * sizeof *scratch);
	if (scratch == NULL)
		lik_fail(err, LIK_ENOMEM, "out of memory");
	return scratch;
}

/* The checks of every predict call. 0, or -1 after LIK_EINVAL. */
static int check_call(const struct lik_model *model, int what, const void *out,
	struct lik_error *err)
{
	if (model == NULL) {
		lik_fail(err, LIK_EINVAL, "no model given");
		return -1;
	}
	if (what != LIK_OUTPUT_LABEL && what != LIK_OUTPUT_VALUES && what != LIK_OUTPUT_PROBABILITY) {
		lik_fail(err, LIK_EINVAL, "output %d is not label (0), values (1) or probability (2)", what);
		return -1;
	}
	if (what == LIK_OUTPUT_PROBABILITY && !check_probability_model(model->linear)) {
		lik_fail(err, LIK_EINVAL, "probability output is only supported for logistic regression");
		return -1;
	}
	if (what != LIK_OUTPUT_LABEL && out == NULL) {
		lik_fail(err, LIK_EINVAL, "no output array given");
		return -1;
	}
	return 0;
}

/* Buffers for mapped rows: cells of `rows` rows and one feature row (room nodes). */
struct mapped {
	unsigned char *cells;
	struct feature_node *x;
	size_t row_bytes;
	size_t room;
};

static void mapped_free(struct mapped *b)
{
	free(b->cells);
	free(b->x);
	b->cells = NULL;
	b->x = NULL;
}

static int mapped_init(struct mapped *b, const struct ikmap *map, size_t rows, struct lik_error *err)
{
	b->row_bytes = (size_t)ikmap_t(map) * ikmap_cell_size(map);
	b->cells = malloc((rows > 0 ? rows : 1) * b->row_bytes);
	b->room = (size_t)ikmap_t(map) + 2;	/* grown by cell_row for a raw part */
	b->x = malloc(b->room * sizeof *b->x);
	if (b->cells == NULL || b->x == NULL) {
		mapped_free(b);	/* leaves both NULL: freeing again is harmless */
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	return 0;
}

/* Row x (its cells at cells) as the feature row the model saw, into b->x: 0, or -1 (ENOMEM). */
static int cell_row(struct mapped *b, const struct ikmap *map, const void *cells,
	const struct feature_node *x, double bias, struct lik_error *err)
{
	size_t need = lik_model_row_room(map, x);
	if (need > b->room) {
		struct feature_node *grown = realloc(b->x, need * sizeof *grown);
		if (grown == NULL) {
			lik_fail(err, LIK_ENOMEM, "out of memory");
			return -1;
		}
		b->x = grown;
		b->room = need;
	}
	lik_model_row(map, cells, x, bias, b->x);
	return 0;
}


static double predict_one(const struct lik_model *model, const struct feature_node *x, int what,
	double *out, struct lik_error *err)
{
	if (check_call(model, what, out, err) != 0)
		return NAN;
	if (x == NULL) {
		lik_fail(err, LIK_EINVAL, "no row given");
		return NAN;
	}
	double *scratch = scratch_for(model->linear, err);
	if (scratch == NULL)
		return NAN;
	double label = NAN;
	if (model->map == NULL) {
		label = predict_linear(model->linear, x, what, out, scratch);
		lik_ok(err);
		free(scratch);
		return label;
	}
	const struct ikmap *map = model->map->map;
	struct mapped b;
	if (mapped_init(&b, map, 1, err) != 0) {
		free(scratch);
		return NAN;
	}
	struct feature_node *const rows[1] = { (struct feature_node *)x };
	if (lik_map_native(map, rows, 1, b.cells, LIK_DEVICE_CPU, 1, err) == 0
			&& cell_row(&b, map, b.cells, x, model->linear->bias, err) == 0) {
		label = predict_linear(model->linear, b.x, what, out, scratch);
		lik_ok(err);
	}
	mapped_free(&b);
	free(scratch);
	return label;
}

double lik_predict(const struct lik_model *model, const struct feature_node *x, struct lik_error *err)
{
	return predict_one(model, x, LIK_OUTPUT_LABEL, NULL, err);
}

double lik_predict_values(const struct lik_model *model, const struct feature_node *x,
	double *dec_values, struct lik_error *err)
{
	return predict_one(model, x, LIK_OUTPUT_VALUES, dec_values, err);
}

double lik_predict_probability(const struct lik_model *model, const struct feature_node *x,
	double *prob_estimates, struct lik_error *err)
{
	return predict_one(model, x, LIK_OUTPUT_PROBABILITY, prob_estimates, err);
}

int lik_predict_rows(const struct lik_model *model, struct feature_node *const *rows, size_t count,
	int what, double *labels, double *out, int device, int threads, struct lik_error *err)
{
	if (check_call(model, what, out, err) != 0)
		return -1;
	if (count > 0 && (rows == NULL || labels == NULL)) {
		lik_fail(err, LIK_EINVAL, "no rows or labels given");
		return -1;
	}
	size_t width = (size_t)lik_model_nr_outputs(model, what);
	const struct model *linear = model->linear;
	double *scratch = scratch_for(linear, err);
	if (scratch == NULL)
		return -1;
	if (model->map == NULL) {
		for (size_t i = 0; i < count; i++)
			labels[i] = predict_linear(linear, rows[i], what, out ? out + i * width : NULL,
				scratch);
		free(scratch);
		lik_ok(err);
		return 0;
	}
	const struct ikmap *map = model->map->map;
	size_t batch = count < PREDICT_BATCH_ROWS ? count : PREDICT_BATCH_ROWS;
	struct mapped b;
	int status = mapped_init(&b, map, batch, err);
	for (size_t first = 0; status == 0 && first < count; first += batch) {
		size_t n = count - first < batch ? count - first : batch;
		status = lik_map_native(map, rows + first, n, b.cells, device, threads, err);
		for (size_t i = 0; status == 0 && i < n; i++) {
			size_t row = first + i;
			status = cell_row(&b, map, b.cells + i * b.row_bytes, rows[row], linear->bias,
				err);
			if (status != 0)
				break;
			labels[row] = predict_linear(linear, b.x, what, out ? out + row * width : NULL,
				scratch);
		}
	}
	mapped_free(&b);
	free(scratch);
	if (status == 0)
		lik_ok(err);
	return status;
}
