/*
 * decision.c - what a trained model says about a row, and what it holds.
 *
 * The decision values of a row are x.w_k for each column k of w; features
 * past the model's w (index > nr_feature, or > nr_feature + 1 with a bias)
 * are ignored, as upstream's predict_values does. Classification picks a
 * label from them, regression returns the value, one-class returns +1/-1
 * after subtracting rho. Probabilities (logistic models only) follow
 * upstream: a sigmoid for two classes, and for more classes the
 * one-vs-rest sigmoids normalised to sum to one (not a softmax).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "export.h"
#include "report.h"
#include "linear.h"
#include "linear_rows.h"
#include "model_shape.h"

static double label_from_decisions(const struct model *m, double *dec)
{
	int s = m->param.solver_type;
	if (m->nr_class == 2) {
		if (solver_is_regression(s))
			return dec[0];
		if (s == ONECLASS_SVM) {
			dec[0] -= m->rho;
			return dec[0] > 0 ? 1 : -1;
		}
		return dec[0] > 0 ? m->label[0] : m->label[1];
	}
	if (m->nr_class <= 0)
		return 0;	/* a model trained on no data has no label to give */
	int nr_w = model_nr_w(m);
	int best = 0;
	for (int k = 1; k < nr_w; k++)
		if (dec[k] > dec[best])
			best = k;
	return m->label[best];
}

double predict_values_row(const struct model *m, const struct row_set *X, int i, double *dec_values)
{
	size_t w_size = model_w_size(m);
	int max_feature = w_size > (size_t)INT_MAX ? INT_MAX : (int)w_size;
	rows_decision(X, i, m->w, model_nr_w(m), max_feature, dec_values);
	return label_from_decisions(m, dec_values);
}

LIBLINEAR_EXPORT double predict_values(const struct model *model_, const struct feature_node *x, double *dec_values)
{
	/* A one-row view of x; rows are read-only through the row interface. */
	struct feature_node *row[1] = { (struct feature_node *)x };
	struct row_set one = rows_sparse(1, model_->nr_feature, row);
	return predict_values_row(model_, &one, 0, dec_values);
}

LIBLINEAR_EXPORT double predict(const struct model *model_, const struct feature_node *x)
{
	/* Two slots cover nr_w == 1; larger models need nr_class slots. */
	int nr_w = model_nr_w(model_);
	double two[2];
	if (nr_w <= 2)
		return predict_values(model_, x, two);
	double *dec = malloc((size_t)nr_w * sizeof *dec);
	if (dec == NULL) {
		report_error("ERROR: out of memory in predict\n");
		return NAN;
	}
	double label = predict_values(model_, x, dec);
	free(dec);
	return label;
}

LIBLINEAR_EXPORT double predict_probability(const struct model *model_, const struct feature_node *x, double *prob_estimates)
{
	if (!check_probability_model(model_))
		return 0;
	int nr_class = model_->nr_class;
	int nr_w = model_nr_w(model_);
	double label = predict_values(model_, x, prob_estimates);
	for (int k = 0; k < nr_w; k++)
		prob_estimates[k] = 1 / (1 + exp(-prob_estimates[k]));
	if (nr_class == 2) {
		prob_estimates[1] = 1 - prob_estimates[0];
		return label;
	}
	double sum = 0;
	for (int k = 0; k < nr_class; k++)
		sum += prob_estimates[k];
	for (int k = 0; k < nr_class; k++)
		prob_estimates[k] /= sum;
	return label;
}

LIBLINEAR_EXPORT int get_nr_feature(const struct model *model_)
{
	return model_->nr_feature;
}

LIBLINEAR_EXPORT int get_nr_class(const struct model *model_)
{
	return model_->nr_class;
}

LIBLINEAR_EXPORT void get_labels(const struct model *model_, int *label)
{
	if (model_->label == NULL)
		return;
	for (int k = 0; k < model_->nr_class; k++)
		label[k] = model_->label[k];
}

/*
 * w's entry for row j (0-based) and class label_idx. A two-class model with
 * one column answers label_idx 1 with -w (the second class's view);
 * regression and one-class models ignore label_idx. Out of range gives 0.
 */
static double weight_of(const struct model *m, size_t j, int label_idx)
{
	int s = m->param.solver_type;
	int nr_w = model_nr_w(m);
	if (solver_is_regression(s) || s == ONECLASS_SVM)
		return m->w[j];
	if (label_idx < 0 || label_idx >= m->nr_class)
		return 0;
	if (nr_w == 1)
		return label_idx == 0 ? m->w[j] : -m->w[j];
	return m->w[j * (size_t)nr_w + (size_t)label_idx];
}

LIBLINEAR_EXPORT double get_decfun_coef(const struct model *model_, int feat_idx, int label_idx)
{
	if (feat_idx < 1 || feat_idx > model_->nr_feature)
		return 0;
	return weight_of(model_, (size_t)feat_idx - 1, label_idx);
}

LIBLINEAR_EXPORT double get_decfun_bias(const struct model *model_, int label_idx)
{
	if (model_->param.solver_type == ONECLASS_SVM) {
		report_error("ERROR: get_decfun_bias can not be called for a one-class SVM model\n");
		return 0;
	}
	if (model_->bias <= 0)
		return 0;
	return model_->bias * weight_of(model_, (size_t)model_->nr_feature, label_idx);
}

LIBLINEAR_EXPORT double get_decfun_rho(const struct model *model_)
{
	if (model_->param.solver_type != ONECLASS_SVM) {
		report_error("ERROR: get_decfun_rho can be called only for a one-class SVM model\n");
		return 0;
	}
	return model_->rho;
}

LIBLINEAR_EXPORT int check_probability_model(const struct model *model)
{
	return solver_is_probabilistic(model->param.solver_type);
}

LIBLINEAR_EXPORT int check_regression_model(const struct model *model)
{
	return solver_is_regression(model->param.solver_type);
}

LIBLINEAR_EXPORT int check_oneclass_model(const struct model *model)
{
	return model->param.solver_type == ONECLASS_SVM;
}
