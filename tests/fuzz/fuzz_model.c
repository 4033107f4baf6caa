/*
 * fuzz_model.c - libFuzzer target for load_model (liblinear/linear.h).
 *
 * Input: the bytes of a model file. load_model takes a path, so the input
 * is written to a file in a private scratch directory (fuzz_common.h).
 * A model that loads is then used as predict uses it: the queries
 * (get_nr_class, get_labels, get_decfun_*), predict_values, predict and,
 * for logistic regression, predict_probability on a few fixed rows with
 * the bias node appended as predict.c appends it. Finally it is saved
 * and loaded again, and must come back the same (the format round-trips
 * every double through %.17g). Invariants checked: a classification
 * prediction is one of the model's labels (0 for a model of no class), a
 * one-class prediction is +1 or -1, probabilities are in [0, 1].
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "linear.h"
#include "model_shape.h"

/* Equal, or both NaN (a NaN weight is written "nan" or "-nan"). */
static int same_double(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static void check_same_model(const struct model *a, const struct model *b)
{
	FUZZ_CHECK(a->param.solver_type == b->param.solver_type);
	FUZZ_CHECK(a->nr_class == b->nr_class && a->nr_feature == b->nr_feature);
	FUZZ_CHECK(same_double(a->bias, b->bias));
	if (a->param.solver_type == ONECLASS_SVM)
		FUZZ_CHECK(same_double(a->rho, b->rho));
	FUZZ_CHECK((a->label == NULL) == (b->label == NULL));
	if (a->label != NULL)
		FUZZ_CHECK(memcmp(a->label, b->label, (size_t)a->nr_class * sizeof *a->label) == 0);
	size_t count = model_w_size(a) * (size_t)model_nr_w(a);
	for (size_t i = 0; i < count; i++)
		FUZZ_CHECK(same_double(a->w[i], b->w[i]));
}

/* A few rows: empty, small indices, the last feature, beyond the model. */
static void predict_rows(const struct model *m)
{
	int nr_feature = get_nr_feature(m);
	int nr_class = get_nr_class(m);
	size_t slots = nr_class > 0 ? (size_t)nr_class : 1;
	double *values = calloc(slots, sizeof *values);
	double *prob = calloc(slots, sizeof *prob);
	int *labels = calloc(slots, sizeof *labels);
	if (values == NULL || prob == NULL || labels == NULL)
		fuzz_give_up("calloc");
	get_labels(m, labels);
	/* linear.h: rho only for one-class models, the bias for the others */
	if (check_oneclass_model(m))
		(void)get_decfun_rho(m);
	else
		for (int k = 0; k < nr_class && k < 4; k++)
			(void)get_decfun_bias(m, k);
	for (int j = 1; j <= nr_feature && j <= 4; j++)
		(void)get_decfun_coef(m, j, 0);

	int wide = nr_feature < INT_MAX - 2 ? nr_feature + 2 : INT_MAX - 1;
	const struct feature_node rows[4][5] = {
		{ { -1, 0 } },
		{ { 1, 0.5 }, { 2, -1.25 }, { 3, 3 }, { -1, 0 } },
		{ { 1, 1e6 }, { nr_feature > 1 ? nr_feature : 2, -2 }, { -1, 0 } },
		{ { 2, 1 }, { wide, 7 }, { -1, 0 } },
	};
	for (int r = 0; r < 4; r++) {
		/* as predict.c: drop features beyond the model, append the bias node */
		struct feature_node x[6];
		int n = 0;
		for (int k = 0; rows[r][k].index != -1; k++)
			if (rows[r][k].index <= nr_feature)
				x[n++] = rows[r][k];
		if (m->bias >= 0 && nr_feature < INT_MAX - 1)
			x[n++] = (struct feature_node){ nr_feature + 1, m->bias };
		x[n].index = -1;

		double y = predict_values(m, x, values);
		FUZZ_CHECK(same_double(y, predict(m, x)));
		if (check_oneclass_model(m))
			FUZZ_CHECK(y == 1 || y == -1);
		else if (!check_regression_model(m))
			FUZZ_CHECK(fuzz_is_label(m, y));
		if (check_probability_model(m)) {
			y = predict_probability(m, x, prob);
			FUZZ_CHECK(fuzz_is_label(m, y));
			for (int k = 0; k < nr_class; k++)
				FUZZ_CHECK(isnan(prob[k]) || (prob[k] >= 0 && prob[k] <= 1));
		}
	}
	free(values);
	free(prob);
	free(labels);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char model_path[512], copy_path[512];
	fuzz_path(model_path, sizeof model_path, "model");
	fuzz_path(copy_path, sizeof copy_path, "copy");
	fuzz_write_file(model_path, data, size);
	struct model *m = load_model(model_path);
	unlink(model_path);
	if (m == NULL)
		return 0;
	predict_rows(m);
	FUZZ_CHECK(save_model(copy_path, m) == 0);
	struct model *again = load_model(copy_path);
	unlink(copy_path);
	FUZZ_CHECK(again != NULL);
	check_same_model(m, again);
	free_and_destroy_model(&again);
	free_and_destroy_model(&m);
	return 0;
}
