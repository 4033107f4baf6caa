/*
 * train.c - model = train(training_label_vector, training_instance_matrix
 * [, 'liblinear_options' [, 'col']]): upstream LIBLINEAR 2.50's mex
 * function, on the kernel's C API, with -k (and -t -g -r -S -d -m).
 *
 * With -O 1 the program's online protocol over the rows in blocks, with -i
 * model_file or an initial model struct argument continued training (the
 * program's -i; README "Online learning"), -P passes for -s 30.
 *
 * Returns the model struct (lik_mex.h), or with -v the cross-validation
 * accuracy (%) or mean squared error, or with -C [best C; best p; score]
 * (and best psi as a fourth element with -k, where the search is the
 * train program's, lik_search, and [result, table] = train(...) also
 * gives its table). Failures raise an error
 * with upstream's message (bad options print the usage first).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "lik_mex.h"
#include "train_usage.h"

static const char usage_text[] =
	"Usage: model = train(training_label_vector, training_instance_matrix, 'liblinear_options', 'col');\n"
	"       model = train(training_label_vector, training_instance_matrix, 'liblinear_options'[, 'col'], initial_model);\n"
	"liblinear_options:\n"
	TRAIN_USAGE_UPSTREAM_OPTIONS
	"LIBLINEAR-IK additions:\n"
	"-s 30 : online gradient descent, hinge loss (IK-OGD with -k), in row order;\n"
	"\t-c is its learning rate eta (default 0.5, the paper's); works with -v; no -C\n"
	"-P passes : passes of -s 30 over the rows, or over each block with -O (default 1)\n"
	"-O 0|1 : the online protocol (implies -s 30): the rows in blocks, each block after\n"
	"\tthe initial one predicted first, then trained on; [model, online] = train(...)\n"
	"\tgives online = [accuracy %; correct; tested; blocks; initial rows]\n"
	"-b rows : rows per block with -O (default 1000)\n"
	"-I rows : rows of the initial block with -O, which alone builds the -k map (default -b)\n"
	"-i model_file : continued training from a saved model (MODEL and MODEL.ik), as a model\n"
	"\tstruct given after the options (or after 'col') is: -s 30 goes on, -s 0, 2, 11\n"
	"\tstart from its weights; the model decides -s, -B and -s 30's eta when not given\n"
	"-k type : map the data by a kernel's feature map before training (default 0)\n"
	"\t 0 or none    -- no map: plain LIBLINEAR\n"
	"\t 1 or anne    -- aNNE: cell of the nearest of psi sampled points\n"
	"\t 2 or iforest -- isolation forest: leaf of a random tree on psi sampled points\n"
	"\t 3 or minmax  -- min-max kernel: T samples of 0-bit consistent weighted sampling\n"
	"\t 4 or acos    -- acos kernel: signs of T random projections\n"
	"-t T : number of partitionings (minmax, acos: samples, at most 65536) with -k (default 100)\n"
	"-g psi : cells per partitioning with -k (default 64 for anne, 32 for iforest, 256 for\n"
	"\tminmax, which takes a power of two from 16 to 65536; not with acos);\n"
	"\twith -C, fixes psi\n"
	"-r seed : random seed of the partitionings with -k (default 1)\n"
	"-S 0|1|2|3|4 : per-feature transform with -k, over the training rows, stored with the\n"
	"\tmap: 0 none; 1 divide by max|x|; 2 min-max (anne: divide by the range; minmax,\n"
	"\tacos: to [0, 1], test values clipped); 3 divide by the standard deviation;\n"
	"\t4 log1p, then as 1 (non-negative data only); iforest ignores 1-3\n"
	"\t(default 1 for anne and iforest, 0 for minmax and acos)\n"
	"-d device : where to map with -k: auto, cpu or gpu (default auto)\n"
	"-m threads : number of threads (default: all cores)\n"
	"-C with -k: searches psi = 4, 8, ..., 4096 (up to the number of rows) and C;\n"
	"\t-k minmax: psi = 16, 64, ..., 4096 (2^b) and C; -k acos: C only\n"
	"The options -t, -g, -r, -S and -d are ignored without -k.\n"
	"col:\n"
	"\tif 'col' is setted, training_instance_matrix is parsed in column format, otherwise is in row format\n";

static int is_regression(int solver_type)
{
	return solver_type == L2R_L2LOSS_SVR || solver_type == L2R_L2LOSS_SVR_DUAL
		|| solver_type == L2R_L1LOSS_SVR_DUAL;
}

/* What one call holds; freed by release() whichever way the call ends. */
struct call {
	struct mex_train_options opt;
	int have_options;
	char *option_text;
	struct mex_rows rows;
	double *target;
	struct lik_model *model;
	struct lik_model *initial;	/* -i's file or the model struct argument */
	double *predicted;	/* -O: one block's predicted labels */
	struct lik_search_table *table;	/* -C -k's */
	struct lik_auto_table *auto_table;	/* -C -k auto's */
	int saved_threads;	/* OpenMP's default before -m changed it; 0: unchanged */
	struct lik_error err;
};

static void release(struct call *c)
{
	mex_print_end();
	if (c->have_options)
		mex_train_options_free(&c->opt);
	if (c->option_text)
		mxFree(c->option_text);
	mex_rows_free(&c->rows);
	free(c->target);
	lik_model_free(&c->model);
	lik_model_free(&c->initial);
	free(c->predicted);
	lik_search_table_free(&c->table);
	lik_auto_table_free(&c->auto_table);
#ifdef _OPENMP
	/* -m is for this call: the interpreter's later calls get the default back */
	if (c->saved_threads > 0)
		omp_set_num_threads(c->saved_threads);
#endif
}

/* Frees everything, then raises the message (does not return). */
static void fail(struct call *c, const char *id)
{
	struct lik_error err = c->err;
	release(c);
	mex_raise(id, &err);
}

/* The cross-validation result, printed as the train program prints it. */
static double cross_validation_result(const struct problem *prob, int solver_type, const double *target)
{
	int l = prob->l;
	if (is_regression(solver_type)) {
		double total_error = 0, sumv = 0, sumy = 0, sumvv = 0, sumyy = 0, sumvy = 0;
		for (int i = 0; i < l; i++) {
			double y = prob->y[i], v = target[i];
			total_error += (v - y) * (v - y);
			sumv += v;
			sumy += y;
			sumvv += v * v;
			sumyy += y * y;
			sumvy += v * y;
		}
		double num = l * sumvy - sumv * sumy;
		mexPrintf("Cross Validation Mean squared error = %g\n", total_error / l);
		mexPrintf("Cross Validation Squared correlation coefficient = %g\n",
			num * num / ((l * sumvv - sumv * sumv) * (l * sumyy - sumy * sumy)));
		return total_error / l;
	}
	int correct = 0;
	for (int i = 0; i < l; i++)
		if (target[i] == prob->y[i])
			correct++;
	mexPrintf("Cross Validation Accuracy = %g%%\n", 100.0 * correct / l);
	return 100.0 * correct / l;
}

/* One line per psi as lik_search finishes it, as the train program prints it. */
static void print_search_row(const struct lik_search_row *r, void *context)
{
	const int *regression = context;
	if (r->psi == 0)
		return;		/* the plain baseline: printed after the best */
	char line[256];
	lik_search_row_text(r, *regression, line, sizeof line);
	mexPrintf("%s\n", line);
}

/*
 * -C -k: lik_search, the train program's staged search, printed as the
 * program prints it (up to its advice; not its "best model:" line, which
 * names files). Returns [C; p; score; psi]; a second output, when asked
 * for, is the whole table, a row per search row: [psi rows C p score
 * seconds], the plain baseline (psi 0) last.
 */
static void kernel_search(struct call *c, const struct problem *prob,
	const struct lik_map_params *kernel, int nlhs, mxArray *plhs[])
{
	int regression = c->opt.param.solver_type == L2R_L2LOSS_SVR;
	struct lik_map_params at = *kernel;
	if (!c->opt.psi_given)
		at.psi = 0;	/* search psi too, as train -C -k without -g */
	struct lik_search_options so;
	lik_search_options_default(&so);
	so.on_row = print_search_row;
	so.context = &regression;
	double start_C = c->opt.C_specified ? c->opt.param.C : -1.0;
	double start_p = c->opt.p_specified ? c->opt.param.p : -1.0;
	c->table = lik_search(prob, &c->opt.param, &at, c->opt.nr_fold, start_C, start_p, &so, &c->err);
	if (c->table == NULL)
		fail(c, "liblinear:train:search");
	mex_print_end();
	const struct lik_search_table *t = c->table;
	const struct lik_search_row *best = &t->rows[t->best];
	/* the Best line, the note, the baseline and the advice: the library's text */
	int need = lik_search_summary_text(t, regression, !c->opt.psi_given, NULL, 0);
	char *summary = mxMalloc((size_t)need + 1);	/* mxMalloc: freed by the interpreter on error */
	lik_search_summary_text(t, regression, !c->opt.psi_given, summary, (size_t)need + 1);
	mexPrintf("%s", summary);
	mxFree(summary);
	plhs[0] = mxCreateDoubleMatrix(4, 1, mxREAL);
	double *out = mxGetPr(plhs[0]);
	out[0] = best->C;
	out[1] = best->p;
	out[2] = best->score;
	out[3] = best->psi;
	if (nlhs > 1) {
		size_t n = t->count;
		plhs[1] = mxCreateDoubleMatrix(n, 6, mxREAL);
		double *m = mxGetPr(plhs[1]);	/* column-major */
		for (size_t i = 0; i < n; i++) {
			const struct lik_search_row *r = &t->rows[i];
			const double row[6] = { r->psi, r->rows, r->C, r->p, r->score, r->seconds };
			for (size_t j = 0; j < 6; j++)
				m[j * n + i] = row[j];
		}
	}
}

static void print_auto_row(const struct lik_auto_row *r, void *context)
{
	(void)context;
	char line[512];
	lik_auto_row_text(r, line, sizeof line);
	mexPrintf("%s\n", line);
}

/*
 * -C -k auto: lik_auto_search, printed as the train program prints it (not
 * its "best model:" line, which names files). Returns [C; p; score; psi]
 * of the choice (p -1); a second output is the table, a row per candidate:
 * [kernel t psi S w C score se rows stage seconds columns ops], kernel 0
 * for plain linear, else -k's number.
 */
static void auto_search(struct call *c, const struct problem *prob, int nlhs, mxArray *plhs[])
{
	struct lik_map_params base = c->opt.kernel;	/* seed, device and threads */
	struct lik_auto_options ao;
	lik_auto_options_default(&ao);
	ao.t = c->opt.t_given ? c->opt.kernel.t : 0;
	ao.psi = c->opt.psi_given ? c->opt.kernel.psi : 0;
	ao.scale = c->opt.scale_given ? c->opt.kernel.scale : -1;
	ao.w = c->opt.raw_given ? c->opt.kernel.raw_weight : -1;	/* -a w fixes every kernel's w */
	ao.on_row = print_auto_row;
	double start_C = c->opt.C_specified ? c->opt.param.C : -1.0;
	c->auto_table = lik_auto_search(prob, &c->opt.param, &base, c->opt.nr_fold, start_C, &ao,
		&c->err);
	if (c->auto_table == NULL)
		fail(c, "liblinear:train:search");
	mex_print_end();
	const struct lik_auto_table *t = c->auto_table;
	int need = lik_auto_summary_text(t, NULL, 0);
	char *summary = mxMalloc((size_t)need + 1);	/* mxMalloc: freed by the interpreter on error */
	lik_auto_summary_text(t, summary, (size_t)need + 1);
	mexPrintf("%s", summary);
	mxFree(summary);
	const struct lik_auto_row *best = &t->rows[t->best];
	plhs[0] = mxCreateDoubleMatrix(4, 1, mxREAL);
	double *out = mxGetPr(plhs[0]);
	out[0] = best->C;
	out[1] = -1;
	out[2] = best->score;
	out[3] = best->psi;
	if (nlhs > 1) {
		size_t n = t->count;
		plhs[1] = mxCreateDoubleMatrix(n, 13, mxREAL);
		double *m = mxGetPr(plhs[1]);	/* column-major */
		for (size_t i = 0; i < n; i++) {
			const struct lik_auto_row *r = &t->rows[i];
			const double row[13] = { r->kernel, r->t, r->psi, r->scale, r->w, r->C, r->score,
				r->se, r->rows, r->stage, r->seconds, r->columns, r->ops };
			for (size_t j = 0; j < 13; j++)
				m[j * n + i] = row[j];
		}
	}
}

/* c->model as a struct (raises on failure). */
static mxArray *model_struct(struct call *c)
{
	mxArray *s = mex_model_to_struct(c->model, &c->err);
	if (!s) {
		struct lik_error e = c->err;
		mex_error_set(&c->err, e.code, "Error: can't convert libsvm model to matrix structure: %s",
			e.message);
		fail(c, "liblinear:train:convert");
	}
	return s;
}

/*
 * With a -k model and a bias: hides (on = 0) or restores (on = 1) the bias
 * node that ends each of rows[0..n) (mex_rows_from_sparse puts it there),
 * since a map takes raw rows while lik_train and lik_train_from take
 * upstream's rows with the node (the program's block_bias, the other way).
 */
static void bias_nodes(struct feature_node **rows, size_t n, int bias_index, int on)
{
	for (size_t i = 0; i < n; i++) {
		struct feature_node *f = rows[i];
		while (f->index != -1 && f->index != bias_index)
			f++;
		f->index = on ? bias_index : -1;
	}
}

/* m trained further on rows [first, first + n) of prob (lik_train_from), replacing *m. 0, or -1. */
static int go_on(struct call *c, const struct problem *prob, size_t first, size_t n, int passes,
	struct lik_model **m)
{
	struct problem part = *prob;
	part.l = (int)n;
	part.y = prob->y + first;
	part.x = prob->x + first;
	struct lik_model *next = lik_train_from(&part, &c->opt.param, *m, passes, c->opt.kernel.device,
		c->opt.threads, &c->err);
	if (!next)
		return -1;
	lik_model_free(m);
	*m = next;
	return 0;
}

/*
 * -O 1: the train program's protocol on the matrix's rows in order. The
 * initial block (-I rows, default -b) builds the -k map and trains the
 * first model without being scored (skipped when an initial model is
 * given); every later block of -b rows is predicted by the current model,
 * then trained on. The same lines as the program (block lines unless -q,
 * then the overall one) and the same model; online = [accuracy %; correct;
 * tested; blocks; initial rows].
 */
static void run_protocol(struct call *c, const struct problem *prob, const struct lik_map_params *kernel,
	int nlhs, mxArray *plhs[])
{
	size_t l = (size_t)prob->l, at = 0;
	int passes = c->opt.passes;
	struct lik_model *m = c->initial;
	c->initial = NULL;
	if (!m) {
		size_t first = (size_t)(c->opt.initial > 0 ? c->opt.initial : c->opt.block);
		if (first > l)
			first = l;
		if (kernel && (kernel->kernel == LIK_KERNEL_ANNE || kernel->kernel == LIK_KERNEL_IFOREST)
			&& (size_t)kernel->psi > first) {
			mex_error_set(&c->err, LIK_EINVAL, "psi = %d exceeds the %zu rows of the initial block:"
				" with -O the map is built from the initial block only (raise -I or lower -g)",
				kernel->psi, first);
			fail(c, "liblinear:train:protocol");
		}
		struct problem part = *prob;
		part.l = (int)first;
		/* one pass, and then passes - 1 more: passes over the block in order */
		m = lik_train(&part, &c->opt.param, kernel, &c->err);
		c->model = m;
		if (!m || (passes > 1 && go_on(c, prob, 0, first, passes - 1, &c->model) != 0))
			fail(c, "liblinear:train:train");
		m = c->model;
		c->model = NULL;
		at = first;
		if (!c->opt.quiet)
			mexPrintf("initial block: %zu rows trained on%s\n", first,
				kernel ? " (the map built from them)" : "");
	}
	c->model = m;
	size_t initial_rows = at;
	long long tested = 0, correct = 0, blocks = 0;
	c->predicted = malloc((size_t)c->opt.block * sizeof *c->predicted);
	if (!c->predicted) {
		mex_error_set(&c->err, LIK_ENOMEM, "out of memory");
		fail(c, "liblinear:train:memory");
	}
	int hide = lik_model_map(c->model) && prob->bias >= 0;
	while (at < l) {
		size_t n = l - at < (size_t)c->opt.block ? l - at : (size_t)c->opt.block;
		if (hide)
			bias_nodes(prob->x + at, n, prob->n, 0);
		int rc = lik_predict_rows(c->model, prob->x + at, n, LIK_OUTPUT_LABEL, c->predicted, NULL,
			c->opt.kernel.device, c->opt.threads, &c->err);
		if (hide)
			bias_nodes(prob->x + at, n, prob->n, 1);
		if (rc != 0)
			fail(c, "liblinear:train:predict");
		long long right = 0;
		for (size_t i = 0; i < n; i++)
			right += c->predicted[i] == prob->y[at + i];
		tested += (long long)n;
		correct += right;
		blocks++;
		if (!c->opt.quiet)
			mexPrintf("block %lld: %zu rows, accuracy %g%%, online accuracy %g%% (%lld/%lld)\n",
				blocks, n, 100.0 * (double)right / (double)n, 100.0 * (double)correct / (double)tested,
				correct, tested);
		if (go_on(c, prob, at, n, passes, &c->model) != 0)
			fail(c, "liblinear:train:train");
		at += n;
	}
	mex_print_end();
	if (tested > 0)
		mexPrintf("Online accuracy = %g%% (%lld/%lld) over %lld blocks after an initial %zu rows\n",
			100.0 * (double)correct / (double)tested, correct, tested, blocks, initial_rows);
	else
		mexPrintf("Online accuracy = none: no rows after the initial %zu\n", initial_rows);
	if (nlhs > 1) {
		plhs[1] = mxCreateDoubleMatrix(5, 1, mxREAL);
		double *o = mxGetPr(plhs[1]);
		o[0] = tested > 0 ? 100.0 * (double)correct / (double)tested : NAN;
		o[1] = (double)correct;
		o[2] = (double)tested;
		o[3] = (double)blocks;
		o[4] = (double)initial_rows;
	}
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
	struct call c;
	memset(&c, 0, sizeof c);
	if (nlhs > 2 || nrhs < 2 || nrhs > 5) {
		mexPrintf("%s", usage_text);
		mex_error_set(&c.err, LIK_EINVAL, "train: wrong number of arguments (see the usage above)");
		fail(&c, "liblinear:train:usage");
	}
	if (!mxIsDouble(prhs[0]) || !mxIsDouble(prhs[1])) {
		mex_error_set(&c.err, LIK_EINVAL, "Error: label vector and instance matrix must be double");
		fail(&c, "liblinear:train:type");
	}
	if (mxIsSparse(prhs[0])) {
		mex_error_set(&c.err, LIK_EINVAL, "Error: label vector should not be in sparse format");
		fail(&c, "liblinear:train:type");
	}
	/* after the options: 'col' and an initial model struct, in that order, each optional */
	int col = 0;
	const mxArray *initial_struct = NULL;
	for (int i = 3; i < nrhs; i++) {
		if (mxIsStruct(prhs[i]) && !initial_struct && i == nrhs - 1)
			initial_struct = prhs[i];
		else if (i == 3)
			col = mex_is_col(prhs[i]);
		else {
			mexPrintf("%s", usage_text);
			mex_error_set(&c.err, LIK_EINVAL, "train: the fifth argument must be an initial model struct");
			fail(&c, "liblinear:train:usage");
		}
	}
	if (nrhs >= 3) {
		c.option_text = mex_string(prhs[2]);
		if (!c.option_text) {
			mexPrintf("%s", usage_text);
			mex_error_set(&c.err, LIK_EINVAL, "the options must be a string");
			fail(&c, "liblinear:train:options");
		}
	}
	c.have_options = 1;
	if (mex_train_options_parse(c.option_text, &c.opt, &c.err) != 0) {
		mexPrintf("%s", usage_text);
		fail(&c, "liblinear:train:options");
	}
	if (c.opt.init_model && initial_struct) {
		mex_error_set(&c.err, LIK_EINVAL, "train: -i and an initial model struct both given");
		fail(&c, "liblinear:train:usage");
	}
	if (c.opt.init_model && !(c.initial = lik_model_load(c.opt.init_model, &c.err)))
		fail(&c, "liblinear:train:model");
	if (initial_struct && !(c.initial = mex_model_from_struct(initial_struct, &c.err)))
		fail(&c, "liblinear:train:model");
	if (c.initial && mex_train_options_resolve(&c.opt, c.initial, &c.err) != 0)
		fail(&c, "liblinear:train:model");
	if (!mxIsSparse(prhs[1])) {
		mex_error_set(&c.err, LIK_EINVAL,
			"Training_instance_matrix must be sparse; use sparse(Training_instance_matrix) first");
		fail(&c, "liblinear:train:sparse");
	}
	/*
	 * The problem as upstream's train() takes it, bias node included: with
	 * -k the kernel's API leaves that node out of the map and gives the
	 * cell rows a bias feature of their own (liblinear_ik.h).
	 */
	double row_bias = c.opt.bias;
	size_t width = col ? mxGetM(prhs[1]) : mxGetN(prhs[1]);
	if (mex_rows_from_sparse(prhs[1], col, -1, row_bias, (int)width + 1, &c.rows, &c.err) != 0)
		fail(&c, "liblinear:train:data");
	if (mex_check_labels(prhs[0], c.rows.count, 1, &c.err) != 0)
		fail(&c, "liblinear:train:labels");
	if (c.rows.count == 0) {
		mex_error_set(&c.err, LIK_EDATA, "Error: the training instance matrix has no instances");
		fail(&c, "liblinear:train:data");
	}
	if (c.rows.count > INT_MAX) {
		mex_error_set(&c.err, LIK_EINVAL, "at most %d instances can be trained on", INT_MAX);
		fail(&c, "liblinear:train:data");
	}
	struct problem prob;
	prob.l = (int)c.rows.count;
	prob.n = (int)c.rows.nr_column + (row_bias >= 0 ? 1 : 0);
	prob.y = mxGetPr(prhs[0]);
	prob.x = c.rows.x;
	prob.bias = row_bias;

	const char *bad = check_parameter(&prob, &c.opt.param);
	if (bad) {
		mex_error_set(&c.err, LIK_EINVAL, "Error: %s", bad);
		fail(&c, "liblinear:train:parameter");
	}
	if (c.opt.threads > 0) {
#ifdef _OPENMP
		c.saved_threads = omp_get_max_threads();
#endif
		lik_set_threads(c.opt.threads);
	}
	mex_print_begin(c.opt.quiet);
	if (c.opt.note)
		mexPrintf("%s", c.opt.note);
	const struct lik_map_params *kernel = c.opt.kernel_on ? &c.opt.kernel : NULL;
	struct problem *trained = &prob;

	if (nlhs > 1 && !(c.opt.find_parameters && (kernel || c.opt.auto_kernel)) && !c.opt.protocol) {
		mexPrintf("%s", usage_text);
		mex_error_set(&c.err, LIK_EINVAL,
			"train: a second output is only given by -C with -k (the search's table) and by -O");
		fail(&c, "liblinear:train:usage");
	}
	if (c.opt.protocol) {
		run_protocol(&c, trained, kernel, nlhs, plhs);
		plhs[0] = model_struct(&c);
	} else if (c.initial) {
		/* -i: a new model from the initial one (lik_train_from, as the program's -i) */
		c.model = lik_train_from(trained, &c.opt.param, c.initial, c.opt.passes, c.opt.kernel.device,
			c.opt.threads, &c.err);
		if (!c.model)
			fail(&c, "liblinear:train:train");
		plhs[0] = model_struct(&c);
	} else if (c.opt.find_parameters && c.opt.auto_kernel) {
		mexPrintf("Doing parameter search with %d-fold cross validation.\n", c.opt.nr_fold);
		auto_search(&c, trained, nlhs, plhs);
	} else if (c.opt.find_parameters && kernel) {
		mexPrintf("Doing parameter search with %d-fold cross validation.\n", c.opt.nr_fold);
		kernel_search(&c, trained, kernel, nlhs, plhs);
	} else if (c.opt.find_parameters) {
		double start_C = c.opt.C_specified ? c.opt.param.C : -1.0;
		double start_p = c.opt.p_specified ? c.opt.param.p : -1.0;
		int best_psi = 0;
		double best_C, best_p, best_score;
		mexPrintf("Doing parameter search with %d-fold cross validation.\n", c.opt.nr_fold);
		if (lik_find_parameters(trained, &c.opt.param, NULL, c.opt.nr_fold,
			start_C, start_p, &best_psi, &best_C, &best_p, &best_score, &c.err) != 0)
			fail(&c, "liblinear:train:search");
		mex_print_end();
		if (c.opt.param.solver_type == L2R_L2LOSS_SVR)
			mexPrintf("Best C = %g Best p = %g  CV MSE = %g\n", best_C, best_p, best_score);
		else
			mexPrintf("Best C = %g  CV accuracy = %g%%\n", best_C, 100.0 * best_score);
		plhs[0] = mxCreateDoubleMatrix(3, 1, mxREAL);
		double *out = mxGetPr(plhs[0]);
		out[0] = best_C;
		out[1] = best_p;
		out[2] = best_score;
	} else if (c.opt.cross_validation) {
		c.target = malloc((prob.l ? (size_t)prob.l : 1) * sizeof *c.target);
		if (!c.target) {
			mex_error_set(&c.err, LIK_ENOMEM, "out of memory");
			fail(&c, "liblinear:train:memory");
		}
		/* -s 30 -P n: each fold's model learns by n passes, as the train program's -v */
		int status = c.opt.param.solver_type == LIK_SOLVER_OGD && c.opt.passes > 1
			? lik_online_cross_validation(trained, &c.opt.param, kernel, c.opt.passes, c.opt.nr_fold,
				c.target, &c.err)
			: lik_cross_validation(trained, &c.opt.param, kernel, c.opt.nr_fold, c.target, &c.err);
		if (status != 0)
			fail(&c, "liblinear:train:cv");
		mex_print_end();
		plhs[0] = mxCreateDoubleScalar(
			cross_validation_result(&prob, c.opt.param.solver_type, c.target));
	} else {
		c.model = lik_train(trained, &c.opt.param, kernel, &c.err);
		if (!c.model)
			fail(&c, "liblinear:train:train");
		/* -s 30 -P n: passes - 1 more over the rows in order */
		if (c.opt.param.solver_type == LIK_SOLVER_OGD && c.opt.passes > 1
			&& go_on(&c, trained, 0, (size_t)trained->l, c.opt.passes - 1, &c.model) != 0)
			fail(&c, "liblinear:train:train");
		plhs[0] = model_struct(&c);
	}
	release(&c);
}
