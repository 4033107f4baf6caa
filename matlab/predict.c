/*
 * predict.c - [predicted_label, accuracy, decision_values/prob_estimates] =
 * predict(testing_label_vector, testing_instance_matrix, model
 * [, 'liblinear_options' [, 'col']]): upstream LIBLINEAR 2.50's mex
 * function, on the kernel's C API. A -k model (one with an ik field) maps
 * the raw instances with its partitioning first, exactly as the predict
 * program does; a plain model predicts as upstream's mex function.
 *
 * accuracy = [accuracy (%); mean squared error; squared correlation
 * coefficient]. Options -b 0|1, -q, and for -k models -m threads and
 * -d auto|cpu|gpu. Failures raise an error with upstream's message.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "lik_mex.h"

static const char usage_text[] =
	"Usage: [predicted_label, accuracy, decision_values/prob_estimates] = predict(testing_label_vector, testing_instance_matrix, model, 'liblinear_options','col')\n"
	"liblinear_options:\n"
	"-b probability_estimates: whether to output probability estimates, 0 or 1 (default 0); currently for logistic regression only\n"
	"-q quiet mode (no outputs)\n"
	"LIBLINEAR-IK additions, for models trained with -k:\n"
	"-m threads : number of threads to map the test rows (default: all cores)\n"
	"-d device : where to map the test rows: auto, cpu or gpu (default auto)\n"
	"col: if 'col' is setted testing_instance_matrix is parsed in column format, otherwise is in row format\n"
	"Returns:\n"
	"  predicted_label: prediction output vector.\n"
	"  accuracy: a vector with accuracy, mean squared error, squared correlation coefficient.\n"
	"  prob_estimates: If selected, probability estimate vector.\n";

struct call {
	char *option_text;
	struct lik_model *model;
	struct mex_rows rows;
	double *out;		/* -k: row-major outputs of lik_predict_rows */
	double *buffer;		/* plain: one row's decision values or probabilities */
	struct lik_error err;
};

static void release(struct call *c)
{
	if (c->option_text)
		mxFree(c->option_text);
	lik_model_free(&c->model);
	mex_rows_free(&c->rows);
	free(c->out);
	free(c->buffer);
}

static void fail(struct call *c, const char *id)
{
	struct lik_error err = c->err;
	release(c);
	mex_raise(id, &err);
}

static int is_regression(int solver_type)
{
	return solver_type == L2R_L2LOSS_SVR || solver_type == L2R_L1LOSS_SVR_DUAL
		|| solver_type == L2R_L2LOSS_SVR_DUAL;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
	struct call c;
	memset(&c, 0, sizeof c);
	if (nrhs > 5 || nrhs < 3 || nlhs > 3) {
		mexPrintf("%s", usage_text);
		mex_error_set(&c.err, LIK_EINVAL, "predict: wrong number of arguments (see the usage above)");
		fail(&c, "liblinear:predict:usage");
	}
	int col = nrhs == 5 && mex_is_col(prhs[4]);
	if (!mxIsDouble(prhs[0]) || !mxIsDouble(prhs[1])) {
		mex_error_set(&c.err, LIK_EINVAL, "Error: label vector and instance matrix must be double");
		fail(&c, "liblinear:predict:type");
	}
	if (!mxIsStruct(prhs[2])) {
		mex_error_set(&c.err, LIK_EINVAL, "model file should be a struct array");
		fail(&c, "liblinear:predict:model");
	}
	struct mex_predict_options opt;
	if (nrhs >= 4) {
		c.option_text = mex_string(prhs[3]);
		if (!c.option_text) {
			mexPrintf("%s", usage_text);
			mex_error_set(&c.err, LIK_EINVAL, "the options must be a string");
			fail(&c, "liblinear:predict:options");
		}
	}
	if (mex_predict_options_parse(c.option_text, &opt, &c.err) != 0) {
		mexPrintf("%s", usage_text);
		fail(&c, "liblinear:predict:options");
	}
	c.model = mex_model_from_struct(prhs[2], &c.err);
	if (!c.model) {
		struct lik_error e = c.err;
		mex_error_set(&c.err, e.code, "Error: can't read model: %s", e.message);
		fail(&c, "liblinear:predict:model");
	}
	const struct model *linear = lik_model_linear(c.model);
	int kernel = lik_model_map(c.model) != NULL;
	if (opt.probability && !lik_model_is_probability(c.model)) {
		mexPrintf("probability output is only supported for logistic regression\n");
		opt.probability = 0;
	}
	if (!mxIsSparse(prhs[1])) {
		mex_error_set(&c.err, LIK_EINVAL,
			"Testing_instance_matrix must be sparse; use sparse(Testing_instance_matrix) first");
		fail(&c, "liblinear:predict:sparse");
	}
	/*
	 * A plain model: features above nr_feature left out, the bias node
	 * added, as upstream. A -k model: the raw rows (the map ignores what
	 * it was not built on and the cell rows get the bias feature).
	 */
	int nr_feature = linear->nr_feature;
	int status = kernel
		? mex_rows_from_sparse(prhs[1], col, -1, -1, 0, &c.rows, &c.err)
		: mex_rows_from_sparse(prhs[1], col, nr_feature, linear->bias, nr_feature + 1, &c.rows,
			&c.err);
	if (status != 0)
		fail(&c, "liblinear:predict:data");
	if (mex_check_labels(prhs[0], c.rows.count, 1, &c.err) != 0)
		fail(&c, "liblinear:predict:labels");

	size_t count = c.rows.count;
	int nr_class = lik_model_nr_class(c.model);
	int what = opt.probability ? LIK_OUTPUT_PROBABILITY : LIK_OUTPUT_VALUES;
	int nr_out = lik_model_nr_outputs(c.model, what);
	const double *target = mxGetPr(prhs[0]);

	mxArray *label_out = mxCreateDoubleMatrix(count, 1, mxREAL);
	mxArray *values_out = mxCreateDoubleMatrix(count, (size_t)nr_out, mxREAL);
	double *predicted = mxGetPr(label_out);
	double *values = mxGetPr(values_out);
	if (kernel) {
		size_t nr_values = count * (size_t)nr_out;
		c.out = malloc((nr_values > 0 ? nr_values : 1) * sizeof *c.out);
		if (!c.out) {
			mex_error_set(&c.err, LIK_ENOMEM, "out of memory");
			mxDestroyArray(label_out);
			mxDestroyArray(values_out);
			fail(&c, "liblinear:predict:memory");
		}
		if (lik_predict_rows(c.model, c.rows.x, count, what, predicted, c.out, opt.device,
			opt.threads, &c.err) != 0) {
			mxDestroyArray(label_out);
			mxDestroyArray(values_out);
			fail(&c, "liblinear:predict:predict");
		}
		for (size_t i = 0; i < count; i++)
			for (int k = 0; k < nr_out; k++)
				values[i + (size_t)k * count] = c.out[i * (size_t)nr_out + (size_t)k];
	} else {
		/* nr_class comes from the struct: on the heap, never a stack array of that size */
		c.buffer = malloc((size_t)(nr_class > 0 ? nr_class : 1) * sizeof *c.buffer);
		if (!c.buffer) {
			mex_error_set(&c.err, LIK_ENOMEM, "out of memory");
			mxDestroyArray(label_out);
			mxDestroyArray(values_out);
			fail(&c, "liblinear:predict:memory");
		}
		for (size_t i = 0; i < count; i++) {
			predicted[i] = opt.probability
				? predict_probability(linear, c.rows.x[i], c.buffer)
				: predict_values(linear, c.rows.x[i], c.buffer);
			for (int k = 0; k < nr_out; k++)
				values[i + (size_t)k * count] = c.buffer[k];
		}
	}

	/* upstream's sums, in upstream's order */
	int correct = 0, total = 0;
	double error = 0, sump = 0, sumt = 0, sumpp = 0, sumtt = 0, sumpt = 0;
	for (size_t i = 0; i < count; i++) {
		double p = predicted[i], t = target[i];
		if (p == t)
			++correct;
		error += (p - t) * (p - t);
		sump += p;
		sumt += t;
		sumpp += p * p;
		sumtt += t * t;
		sumpt += p * t;
		++total;
	}
	double scc = ((total * sumpt - sump * sumt) * (total * sumpt - sump * sumt))
		/ ((total * sumpp - sump * sump) * (total * sumtt - sumt * sumt));
	if (!opt.quiet) {
		if (is_regression(linear->param.solver_type)) {
			mexPrintf("Mean squared error = %g (regression)\n", error / total);
			mexPrintf("Squared correlation coefficient = %g (regression)\n", scc);
		} else {
			mexPrintf("Accuracy = %g%% (%d/%d)\n", (double)correct / total * 100, correct, total);
		}
	}
	mxArray *accuracy = mxCreateDoubleMatrix(3, 1, mxREAL);
	double *a = mxGetPr(accuracy);
	a[0] = (double)correct / total * 100;
	a[1] = error / total;
	a[2] = scc;

	plhs[0] = label_out;
	if (nlhs > 1)
		plhs[1] = accuracy;
	else
		mxDestroyArray(accuracy);
	if (nlhs > 2)
		plhs[2] = values_out;
	else
		mxDestroyArray(values_out);
	release(&c);
}
