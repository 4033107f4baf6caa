/*
 * lik_online.c - online learning and continued training in the kernel's C
 * API (liblinear_ik.h, issue 23): lik_online_update (the online solver,
 * -s 30, on a batch of raw rows) and lik_train_from (any training that
 * starts from a saved model: -s 30 goes on, -s 0/2/11 start from its
 * weights through init_sol). The learner itself is liblinear/online.c.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lik_internal.h"
#include "model_shape.h"
#include "online.h"

/* Raw copies of rows: each row without nodes of index >= skip_from (its bias node), plus
 * (bias_index > 0) a bias node (bias_index, bias). One block; free(*nodes) and the array. */
static struct feature_node **copy_rows(struct feature_node *const *rows, size_t count,
	int skip_from, int bias_index, double bias, struct feature_node **nodes)
{
	size_t total = 0;
	for (size_t i = 0; i < count; i++) {
		for (const struct feature_node *f = rows[i]; f->index != -1; f++)
			total++;
		total += 2;
	}
	struct feature_node **out = malloc((count > 0 ? count : 1) * sizeof *out);
	*nodes = malloc((total > 0 ? total : 1) * sizeof **nodes);
	if (out == NULL || *nodes == NULL) {
		free(out);
		free(*nodes);
		*nodes = NULL;
		return NULL;
	}
	struct feature_node *at = *nodes;
	for (size_t i = 0; i < count; i++) {
		out[i] = at;
		for (const struct feature_node *f = rows[i]; f->index != -1; f++)
			if (skip_from <= 0 || f->index < skip_from)
				*at++ = *f;
		if (bias_index > 0) {
			at->index = bias_index;
			at->value = bias;
			at++;
		}
		at->index = -1;
		at->value = 0;
		at++;
	}
	return out;
}

/* The rows' indices must be 1-based and ascending and their values finite: 0, or -1 (LIK_EDATA). */
static int check_rows(struct feature_node *const *rows, const double *y, size_t count, int *max_index,
	struct lik_error *err)
{
	*max_index = 0;
	for (size_t i = 0; i < count; i++) {
		if (rows[i] == NULL || !isfinite(y[i])) {
			lik_fail(err, LIK_EDATA, "row %zu: no row or a label that is not finite", i + 1);
			return -1;
		}
		int last = 0;
		for (const struct feature_node *f = rows[i]; f->index != -1; f++) {
			if (f->index <= last || !isfinite(f->value)) {
				lik_fail(err, LIK_EDATA, "row %zu: indices must be ascending from 1 and values finite",
					i + 1);
				return -1;
			}
			last = f->index;
		}
		if (last > *max_index)
			*max_index = last;
	}
	return 0;
}

int lik_online_update(struct lik_model *model, struct feature_node *const *rows, const double *y,
	size_t count, const struct parameter *param, int passes, int device, int threads,
	struct lik_error *err)
{
	if (model == NULL || param == NULL || (count > 0 && (rows == NULL || y == NULL))) {
		lik_fail(err, LIK_EINVAL, "no model, parameter, rows or labels given");
		return -1;
	}
	struct model *m = model->linear;
	if (param->solver_type != ONLINE_OGD || m->param.solver_type != ONLINE_OGD) {
		lik_fail(err, LIK_EINVAL, "the online update needs -s %d (ONLINE_OGD_HINGE) in both the parameter and the model",
			ONLINE_OGD);
		return -1;
	}
	if (!(param->C > 0) || !isfinite(param->C) || passes < 1) {
		lik_fail(err, LIK_EINVAL, "the online update needs eta (C) > 0 and passes >= 1");
		return -1;
	}
	if (count > (size_t)INT_MAX - 1) {
		lik_fail(err, LIK_EINVAL, "more than %d rows in one update", INT_MAX - 1);
		return -1;
	}
	/* a bad device is refused even where this call maps nothing (a plain model, no rows), so a
	 * caller's mistake shows on its first call and not only once a -k model meets rows */
	enum ikmap_device on;
	if (lik_device_of(device, &on, err) != 0)
		return -1;
	int max_index;
	if (check_rows(rows, y, count, &max_index, err) != 0)
		return -1;
	if (count == 0) {
		lik_ok(err);
		return 0;
	}
	struct row_set X;
	void *cells = NULL;
	struct feature_node **copies = NULL, *nodes = NULL;
	struct lik_capture capture;
	lik_capture_begin(&capture);
	int rc = -1;
	if (model->map != NULL) {
		/* the cells and the map's raw part, as training saw them */
		cells = lik_map_row_set(model->map->map, rows, count, m->bias, device, threads, &X, err);
		if (cells == NULL)
			goto done;
	} else {
		/* a stream brings new features: they join with zero weights */
		if (max_index >= INT_MAX - 1 || online_grow_features(m, max_index) != 0) {
			lik_fail_captured(err, LIK_ENOMEM, &capture, "out of memory");
			goto done;
		}
		int bias_index = m->bias >= 0 ? m->nr_feature + 1 : 0;
		copies = copy_rows(rows, count, 0, bias_index, m->bias, &nodes);
		if (copies == NULL) {
			lik_fail(err, LIK_ENOMEM, "out of memory");
			goto done;
		}
		X = rows_sparse((int)count, (int)model_w_size(m), copies);
	}
	if (online_learn(m, param, &X, y, passes, NULL) != 0) {
		lik_fail_captured(err, LIK_EDATA, &capture, "online update failed");
		goto done;
	}
	rc = 0;
	lik_ok(err);
done:
	lik_capture_end(&capture);
	free(cells);
	free(copies);
	free(nodes);
	return rc;
}

/*
 * init_sol for a Newton solver from the saved weights: the columns in the
 * order train() will give the labels of y (first appearance, +1 before -1),
 * which must be the model's labels. NULL with err set.
 */
static double *initial_solution(const struct model *m, const double *y, int l, int w_rows,
	struct lik_error *err)
{
	int nr_w = model_nr_w(m);
	size_t saved_rows = model_w_size(m);
	double *init = calloc((size_t)w_rows * (size_t)nr_w, sizeof *init);
	int *order = malloc((size_t)(m->nr_class > 0 ? m->nr_class : 1) * sizeof *order);
	if (init == NULL || order == NULL) {
		free(init);
		free(order);
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	/* the features keep their rows; the bias weight is the last row of both */
	size_t features = (size_t)m->nr_feature;
	if (solver_is_regression(m->param.solver_type)) {
		for (size_t j = 0; j < features; j++)
			init[j] = m->w[j];
		if (m->bias >= 0)
			init[w_rows - 1] = m->w[saved_rows - 1];
		free(order);
		return init;
	}
	int seen = 0;
	for (int i = 0; i < l; i++) {
		int label = (int)y[i], k = 0;
		while (k < m->nr_class && m->label[k] != label)
			k++;
		if (k == m->nr_class) {
			lik_fail(err, LIK_EMODEL, "label %d of row %d is not one of the model's labels", label, i + 1);
			goto fail;
		}
		int known = 0;
		for (int s = 0; s < seen; s++)
			known |= order[s] == k;
		if (!known)
			order[seen++] = k;
	}
	if (seen != m->nr_class) {
		lik_fail(err, LIK_EMODEL, "the data has %d of the model's %d labels: it needs them all", seen,
			m->nr_class);
		goto fail;
	}
	if (seen == 2 && m->label[order[0]] == -1 && m->label[order[1]] == 1) {
		int first = order[0];
		order[0] = order[1];
		order[1] = first;
	}
	for (size_t j = 0; j < (size_t)w_rows; j++) {
		size_t from = j < features ? j : (m->bias >= 0 && j == (size_t)w_rows - 1 ? saved_rows - 1 : SIZE_MAX);
		if (from == SIZE_MAX)
			continue;
		if (nr_w == 1)	/* one column, label[0] positive: reversed order negates it */
			init[j] = order[0] == 0 ? m->w[from] : -m->w[from];
		else
			for (int k = 0; k < nr_w; k++)
				init[j * (size_t)nr_w + (size_t)k] = m->w[from * (size_t)nr_w + (size_t)order[k]];
	}
	free(order);
	return init;
fail:
	free(init);
	free(order);
	return NULL;
}

struct lik_model *lik_train_from(const struct problem *prob, const struct parameter *param,
	const struct lik_model *initial, int passes, int device, int threads, struct lik_error *err)
{
	if (prob == NULL || param == NULL || initial == NULL || prob->l < 1 || prob->x == NULL
		|| prob->y == NULL) {
		lik_fail(err, LIK_EINVAL, "no problem, parameter or initial model given (or no rows)");
		return NULL;
	}
	const struct model *saved = initial->linear;
	int s = param->solver_type;
	if (s != saved->param.solver_type) {
		lik_fail(err, LIK_EMODEL, "the initial model was trained by -s %d, not -s %d",
			saved->param.solver_type, s);
		return NULL;
	}
	if (s != ONLINE_OGD && !solver_takes_init_sol(s)) {
		lik_fail(err, LIK_EINVAL, "training from a model needs -s 30, 0, 2 or 11 (-s %d cannot start from weights)", s);
		return NULL;
	}
	if ((prob->bias >= 0) != (saved->bias >= 0) || (prob->bias >= 0 && prob->bias != saved->bias)) {
		lik_fail(err, LIK_EMODEL, "the data's bias %g is not the model's %g (-B)", prob->bias, saved->bias);
		return NULL;
	}
	struct parameter checked = *param;
	checked.init_sol = NULL;
	const char *why = check_parameter(prob, &checked);
	if (why != NULL) {
		lik_fail(err, LIK_EINVAL, "%s", why);
		return NULL;
	}
	if (passes < 1) {
		lik_fail(err, LIK_EINVAL, "passes must be >= 1");
		return NULL;
	}
	enum ikmap_device on;	/* refused before any work, whether or not the model maps */
	if (lik_device_of(device, &on, err) != 0)
		return NULL;
	/* the rows without their bias nodes (index prob->n), as the map and the update take them */
	struct feature_node *nodes = NULL;
	struct feature_node **raw = copy_rows(prob->x, (size_t)prob->l, prob->bias >= 0 ? prob->n : 0,
		0, 0, &nodes);
	if (raw == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	struct lik_model *out = NULL;
	int max_index = 0;
	if (check_rows(raw, prob->y, (size_t)prob->l, &max_index, err) != 0)
		goto done;
	if (s == ONLINE_OGD) {
		out = lik_model_assemble(saved, initial->map, err);
		if (out != NULL && lik_online_update(out, raw, prob->y, (size_t)prob->l, param, passes, device, threads,
			err) != 0)
			lik_model_free(&out);
		goto done;
	}
	if (initial->map == NULL && max_index > saved->nr_feature) {
		lik_fail(err, LIK_EMODEL, "the data has feature index %d but the model only %d features",
			max_index, saved->nr_feature);
		goto done;
	}
	int w_rows = saved->nr_feature + (saved->bias >= 0 ? 1 : 0);
	struct parameter start = *param;
	start.init_sol = initial_solution(saved, prob->y, prob->l, w_rows, err);
	if (start.init_sol == NULL)
		goto done;
	if (initial->map != NULL) {
		struct problem p = *prob;
		p.x = raw;
		out = lik_train_with_map_on(&p, &start, initial->map, device, threads, err);
	} else {
		/* the bias node back at the model's index nr_feature + 1 */
		struct feature_node *bias_nodes = NULL;
		struct feature_node **rows = copy_rows(raw, (size_t)prob->l, 0,
			saved->bias >= 0 ? saved->nr_feature + 1 : 0, saved->bias, &bias_nodes);
		if (rows == NULL) {
			lik_fail(err, LIK_ENOMEM, "out of memory");
		} else {
			struct problem p = *prob;
			p.x = rows;
			p.n = w_rows;
			out = lik_train(&p, &start, NULL, err);
		}
		free(rows);
		free(bias_nodes);
	}
	free(start.init_sol);
done:
	free(raw);
	free(nodes);
	return out;
}
