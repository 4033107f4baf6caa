/*
 * online.c - online gradient descent, hinge loss (-s 30); see online.h.
 *
 * The learner keeps upstream's model layout (feature-major w, one column
 * per class from three classes on), so predict, save_model and the
 * Isolation Kernel's pair files need nothing new; only the way the
 * columns are trained differs: row by row, in the order given, instead of
 * a batch solver on rows regrouped by class.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "folds.h"
#include "linear_rows.h"
#include "model_shape.h"
#include "online.h"
#include "report.h"

static void report_nomem(void)
{
	report_error("ERROR: out of memory in online training\n");
}

struct model *online_model_new(int nr_feature, double bias, const struct parameter *param)
{
	struct model *m = calloc(1, sizeof *m);
	if (m == NULL) {
		report_nomem();
		return NULL;
	}
	m->param = *param;
	m->param.nr_weight = 0;
	m->param.weight_label = NULL;
	m->param.weight = NULL;
	m->param.init_sol = NULL;
	m->nr_feature = nr_feature;
	m->bias = bias;
	m->nr_class = 0;
	/* one column even before the first label: nr_class 1 and 2 use exactly one */
	size_t w_size = model_w_size(m);
	m->w = calloc(w_size > 0 ? w_size : 1, sizeof *m->w);
	if (m->w == NULL) {
		report_nomem();
		free(m);
		return NULL;
	}
	return m;
}

/* Columns of w in use; one before the first label, where model_nr_w says 0. */
static size_t columns(const struct model *m)
{
	int nr_w = model_nr_w(m);
	return nr_w > 0 ? (size_t)nr_w : 1;
}

int online_grow_features(struct model *m, int nr_feature)
{
	if (nr_feature <= m->nr_feature)
		return 0;
	size_t nr_w = columns(m);
	size_t old_rows = model_w_size(m);
	size_t new_rows = (size_t)nr_feature + (m->bias >= 0 ? 1 : 0);
	double *w = calloc(new_rows * nr_w, sizeof *w);
	if (w == NULL) {
		report_nomem();
		return -1;
	}
	/* the features keep their rows; the bias weight moves to the new last row */
	size_t features = (size_t)m->nr_feature;
	memcpy(w, m->w, features * nr_w * sizeof *w);
	if (m->bias >= 0)
		memcpy(w + (new_rows - 1) * nr_w, m->w + (old_rows - 1) * nr_w, nr_w * sizeof *w);
	free(m->w);
	m->w = w;
	m->nr_feature = nr_feature;
	return 0;
}

/*
 * Adds label as class nr_class and reshapes w (online.h): 1 -> 2 classes
 * keeps the one column (negated when {-1,+1} swap to put +1 first),
 * 2 -> 3 makes (w, -w, 0), k -> k+1 appends a zero column. 0, or -1.
 */
static int add_label(struct model *m, int label)
{
	int *labels = realloc(m->label, (size_t)(m->nr_class + 1) * sizeof *labels);
	if (labels == NULL) {
		report_nomem();
		return -1;
	}
	m->label = labels;
	size_t w_size = model_w_size(m);
	int old = m->nr_class;
	if (old >= 2) {
		size_t old_w = columns(m), new_w = (size_t)old + 1;
		double *w = calloc(w_size * new_w, sizeof *w);
		if (w == NULL) {
			report_nomem();
			return -1;
		}
		for (size_t j = 0; j < w_size; j++) {
			if (old_w == 1) {
				w[j * new_w] = m->w[j];
				w[j * new_w + 1] = 0.0 - m->w[j];
			} else {
				memcpy(w + j * new_w, m->w + j * old_w, old_w * sizeof *w);
			}
		}
		free(m->w);
		m->w = w;
	}
	labels[old] = label;
	m->nr_class = old + 1;
	if (m->nr_class == 2 && labels[0] == -1 && labels[1] == 1) {
		/* upstream's rule: +1 is the positive class whichever came first */
		labels[0] = 1;
		labels[1] = -1;
		for (size_t j = 0; j < w_size; j++)
			m->w[j] = 0.0 - m->w[j];	/* never -0: a file must not depend on when a label came */
	}
	return 0;
}

/* The class index of row i's label, added when new. 0, or -1 after a message. */
static int class_of_row(struct model *m, double y, long long row, int *k)
{
	if (!(y > (double)INT_MIN - 1.0 && y < (double)INT_MAX + 1.0)) {
		report_error("ERROR: label %g of row %lld is not a valid class label\n", y, row + 1);
		return -1;
	}
	int label = (int)y;
	for (int c = 0; c < m->nr_class; c++)
		if (m->label[c] == label) {
			*k = c;
			return 0;
		}
	if (add_label(m, label) != 0)
		return -1;
	/* the {-1,+1} swap may have moved the new label to class 0 */
	for (int c = 0; c < m->nr_class; c++)
		if (m->label[c] == label)
			*k = c;
	return 0;
}

/* C's factor for label: the product of its -wi weights, as upstream's class costs. */
static double label_weight(const struct parameter *param, int label)
{
	double f = 1;
	if (param->weight_label == NULL || param->weight == NULL)
		return f;
	for (int i = 0; i < param->nr_weight; i++)
		if (param->weight_label[i] == label)
			f *= param->weight[i];
	return f;
}

/* w_k += a * x_i for column k of a feature-major w of nr_w columns and w_size rows. */
static void add_row(const struct row_set *X, int i, double a, double *w, size_t nr_w, size_t k,
	size_t w_size)
{
	if (X->kind == ROWS_SPARSE) {
		for (const struct feature_node *f = X->x[i]; f->index != -1; f++)
			if (f->index >= 1 && (size_t)f->index <= w_size)
				w[(size_t)(f->index - 1) * nr_w + k] += a * f->value;
		return;
	}
	double av = a * X->cell_value;
	for (int c = 0; c < X->t; c++)
		w[((size_t)c * (size_t)X->psi + rows_cell(X, i, c)) * nr_w + k] += av;
	if (X->raw) {
		size_t base = rows_cell_raw_base(X);
		for (const struct feature_node *f = X->raw[i]; f->index != -1; f++)
			w[(base + (size_t)f->index - 1) * nr_w + k] += a * f->value;
	}
	if (X->bias >= 0)
		w[rows_cell_bias_slot(X) * nr_w + k] += a * X->bias;
}

/* The label the decision values give (decision.c's rule for a classifier). */
static int predicted_class(const struct model *m, const double *dec)
{
	if (m->nr_class == 2)
		return dec[0] > 0 ? 0 : 1;
	int best = 0;
	for (int k = 1; k < (int)columns(m); k++)
		if (dec[k] > dec[best])
			best = k;
	return best;
}

int online_learn(struct model *m, const struct parameter *param, const struct row_set *X,
	const double *y, int passes, long long *mistakes)
{
	double eta = param->C;
	/* no factor for cells: phi.phi is K in [0, 1], as in the paper's OGD (online.h) */
	double *dec = NULL;
	size_t dec_room = 0;
	long long wrong = 0;
	for (int pass = 0; pass < passes; pass++) {
		wrong = 0;
		for (int i = 0; i < X->l; i++) {
			int c = 0;
			if (class_of_row(m, y[i], i, &c) != 0)
				goto fail;
			size_t nr_w = columns(m);
			if (nr_w > dec_room) {
				double *grown = realloc(dec, nr_w * sizeof *grown);
				if (grown == NULL) {
					report_nomem();
					goto fail;
				}
				dec = grown;
				dec_room = nr_w;
			}
			size_t w_size = model_w_size(m);
			int max_feature = w_size > (size_t)INT_MAX ? INT_MAX : (int)w_size;
			rows_decision(X, i, m->w, (int)nr_w, max_feature, dec);
			if (predicted_class(m, dec) != c)
				wrong++;
			double step = eta * label_weight(param, m->label[c]);
			if (nr_w == 1) {
				double yk = c == 0 ? 1.0 : -1.0;
				if (yk * dec[0] < 1)
					add_row(X, i, step * yk, m->w, 1, 0, w_size);
				continue;
			}
			for (size_t k = 0; k < nr_w; k++) {
				double yk = (int)k == c ? 1.0 : -1.0;
				double a = (int)k == c ? step : eta;
				if (yk * dec[k] < 1)
					add_row(X, i, a * yk, m->w, nr_w, k, w_size);
			}
		}
	}
	free(dec);
	if (mistakes != NULL)
		*mistakes = wrong;
	/* the model remembers the eta it was last trained with: its file keeps it for -i */
	m->param.C = eta;
	return 0;
fail:
	free(dec);
	return -1;
}

struct model *online_train_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int passes)
{
	int nr_feature = bias >= 0 ? X->n - 1 : X->n;
	struct model *m = online_model_new(nr_feature, bias, param);
	if (m == NULL)
		return NULL;
	if (online_learn(m, param, X, y, passes, NULL) != 0)
		free_and_destroy_model(&m);
	return m;
}

int online_cross_validation_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int passes, int nr_fold, double *target)
{
	for (int i = 0; i < X->l; i++)
		target[i] = NAN;
	struct folds f;
	if (folds_make(X->l, nr_fold, &f) != 0)
		return -1;
	/* one thread: the folds are cheap next to the map, and the order is fixed */
	int rc = 0;
	for (int k = 0; k < f.nr_fold && rc == 0; k++) {
		struct row_set rows;
		double *labels;
		if (folds_training_set(&f, k, X, y, &rows, &labels) != 0) {
			report_nomem();
			rc = -1;
			break;
		}
		struct model *m = online_train_rows(&rows, labels, bias, param, passes);
		rows_free_subset(&rows);
		free(labels);
		if (m == NULL) {
			rc = -1;
			break;
		}
		size_t slots = columns(m) > 2 ? columns(m) : 2;
		double *dec = malloc(slots * sizeof *dec);
		if (dec == NULL) {
			report_nomem();
			free_and_destroy_model(&m);
			rc = -1;
			break;
		}
		for (int j = f.start[k]; j < f.start[k + 1]; j++)
			target[f.perm[j]] = predict_values_row(m, X, f.perm[j], dec);
		free(dec);
		free_and_destroy_model(&m);
	}
	folds_free(&f);
	return rc;
}
