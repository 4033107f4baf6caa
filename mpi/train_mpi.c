/*
 * train_mpi.c - train-mpi: train's Newton solvers (-s 0, 2, 11) with the
 * rows spread over MPI processes:
 *     mpirun -n P train-mpi [options] training_set_file [model_file]
 *
 * Every process runs the same steps on its own rows (dist_data.h) and the
 * same solver with the sums combined in a fixed block order
 * (dist_newton.h), so all hold the same w; rank 0 writes the model, with
 * save_model (atomically: a temporary file renamed into place). Errors:
 * one message, from one process, and exit status 1 on all, no model.
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "c_walk.h"
#include "cli_number.h"
#include "dist_data.h"
#include "dist_kernel.h"
#include "dist_newton.h"
#include "folds.h"
#include "print.h"
#include "ik_model.h"
#include "ik_options.h"
#include "lik_internal.h"
#include "linear.h"
#include "linear_rows.h"
#include "model_shape.h"

/* Rows per block unless -b says otherwise (see the README: memory, balance). */
enum { DEFAULT_BLOCK_ROWS = 8192 };

static const char usage_text[] =
	"Usage: mpirun -n P train-mpi [options] training_set_file [model_file]\n"
	"options:\n"
	"-s type : set type of solver (default 2; only these three are distributed)\n"
	"\t 0 -- L2-regularized logistic regression (primal)\n"
	"\t 2 -- L2-regularized L2-loss support vector classification (primal)\n"
	"\t11 -- L2-regularized L2-loss support vector regression (primal)\n"
	"-c cost : set the parameter C (default 1)\n"
	"-p epsilon : set the epsilon in loss function of SVR (default 0.1)\n"
	"-e epsilon : set tolerance of termination criterion\n"
	"\t-s 0 and 2\n"
	"\t\t|f'(w)|_2 <= eps*min(pos,neg)/l*|f'(w0)|_2,\n"
	"\t\twhere f is the primal function and pos/neg are # of\n"
	"\t\tpositive/negative data (default 0.01)\n"
	"\t-s 11\n"
	"\t\t|f'(w)|_2 <= eps*|f'(w0)|_2 (default 0.0001)\n"
	"-B bias : if bias >= 0, instance x becomes [x; bias]; if < 0, no bias term added (default -1)\n"
	"-R : not regularize the bias; must with -B 1 to have the bias\n"
	"-wi weight: weights adjust the parameter C of different classes\n"
	"-v n: n-fold cross validation mode (train -v's folds, by global row number)\n"
	"-C : find parameters (C for -s 0, 2 and C, p for -s 11), as train -C (not with -k yet)\n"
	"-q : quiet mode (no outputs)\n"
	"-m threads : OpenMP threads per process (default: OpenMP's choice)\n"
	"-r : each process reads its own file training_set_file.RANK (RANK = 0..P-1)\n"
	"     instead of its share of training_set_file\n"
	"-b rows : rows per block, the unit of the fixed summation order (default 8192);\n"
	"     the model is the same for any P and threads at the same -b\n"
	"-k type : map the rows through a kernel first, as train -k: 1|anne, 2|iforest,\n"
	"     3|minmax, 4|acos; writes MODEL and MODEL.ik, the map the same as train's\n"
	"-t T, -g psi, -r seed, -S 0-4, -a w, -d auto|cpu|gpu : the map's options, as train's\n"
	"     (-S 2-4 gather their statistics over every process's rows, in train's order)\n";

struct options {
	struct parameter param;
	double bias;
	int quiet;
	int threads;
	int per_rank;
	int block_rows;
	int nr_fold;		/* -v n; 0: train */
	int find_parameters;	/* -C */
	int C_given, p_given;
	const char *input_file;
	char *model_file;
	struct ik_options ik;
};

static int g_rank;

/* Every process reaches this at the same point; rank 0 speaks for all. */
static void exit_all(int status)
{
	MPI_Finalize();
	exit(status);
}

static void exit_with_help(void)
{
	if (g_rank == 0)
		fputs(usage_text, stdout);
	exit_all(1);
}

static void print_null(const char *s)
{
	(void)s;
}

static double real_value(const char *option, const char *text)
{
	double v;
	if (cli_real_option(option, text, &v) != 0)
		exit_with_help();
	return v;
}

static int int_value(const char *option, const char *text, int min, int max)
{
	int v;
	if (cli_int_option(option, text, min, max, &v) != 0)
		exit_with_help();
	return v;
}

static void add_class_weight(struct parameter *param, const char *option, const char *text)
{
	long long label;
	if (!cli_parse_integer(option + 2, INT_MIN, INT_MAX, &label)) {
		if (g_rank == 0)
			fprintf(stderr, "ERROR: -wi needs an integer class label i right after -w, not \"%s\"\n",
				option);
		exit_with_help();
	}
	double weight = real_value(option, text);
	int n = param->nr_weight + 1;
	int *labels = realloc(param->weight_label, (size_t)n * sizeof *labels);
	double *weights = labels ? realloc(param->weight, (size_t)n * sizeof *weights) : NULL;
	if (labels)
		param->weight_label = labels;
	if (!labels || !weights) {
		fprintf(stderr, "ERROR: out of memory\n");
		exit_all(1);
	}
	param->weight = weights;
	labels[n - 1] = (int)label;
	weights[n - 1] = weight;
	param->nr_weight = n;
}

static char *default_model_file(const char *input_file)
{
	const char *slash = strrchr(input_file, '/');
	const char *base = slash ? slash + 1 : input_file;
	size_t len = strlen(base);
	char *name = malloc(len + sizeof ".model");
	if (!name) {
		fprintf(stderr, "ERROR: out of memory\n");
		exit_all(1);
	}
	memcpy(name, base, len);
	memcpy(name + len, ".model", sizeof ".model");
	return name;
}

static bool takes_no_argument(char letter)
{
	return letter == 'q' || letter == 'R' || letter == 'F' || letter == 'C';
}

static void parse_command_line(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof *o);
	o->param.solver_type = L2R_L2LOSS_SVC;
	o->param.C = 1;
	o->param.p = 0.1;
	o->param.eps = INFINITY;
	o->param.regularize_bias = 1;
	o->bias = -1;
	o->block_rows = DEFAULT_BLOCK_ROWS;
	ik_options_default(&o->ik);
	int i;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		char letter = argv[i][1];
		if (letter == '\0' || (argv[i][2] != '\0' && letter != 'w'))
			exit_with_help();
		if (takes_no_argument(letter)) {
			if (letter == 'q')
				o->quiet = 1;
			else if (letter == 'R')
				o->param.regularize_bias = 0;
			else if (letter == 'C')
				o->find_parameters = 1;
			else
				o->per_rank = 1;
			continue;
		}
		if (i + 1 >= argc)
			exit_with_help();
		const char *value = argv[++i];
		int ik = ik_options_parse(&o->ik, letter, value);
		if (ik < 0)
			exit_with_help();
		if (ik > 0)
			continue;
		switch (letter) {
		case 's':
			o->param.solver_type = int_value("-s", value, INT_MIN, INT_MAX);
			break;
		case 'c':
			o->param.C = real_value("-c", value);
			o->C_given = 1;
			break;
		case 'p':
			o->param.p = real_value("-p", value);
			o->p_given = 1;
			break;
		case 'e':
			o->param.eps = real_value("-e", value);
			break;
		case 'B':
			o->bias = real_value("-B", value);
			break;
		case 'w':
			add_class_weight(&o->param, argv[i - 1], value);
			break;
		case 'm':
			if (cli_thread_count(value, &o->threads) != 0)
				exit_with_help();
			break;
		case 'b':
			o->block_rows = int_value("-b", value, 1, INT_MAX);
			break;
		case 'v':
			o->nr_fold = int_value("-v", value, INT_MIN, INT_MAX);
			if (o->nr_fold < 2) {
				if (g_rank == 0)
					fprintf(stderr, "n-fold cross validation: n must >= 2\n");
				exit_with_help();
			}
			break;
		default:
			if (g_rank == 0)
				fprintf(stderr, "unknown option: -%c\n", letter);
			exit_with_help();
		}
	}
	if (i >= argc || argc - i > 2)
		exit_with_help();
	int s = o->param.solver_type;
	if (s != L2R_LR && s != L2R_L2LOSS_SVC && s != L2R_L2LOSS_SVR) {
		if (g_rank == 0)
			fprintf(stderr, "ERROR: train-mpi distributes only the Newton solvers -s 0, 2 and 11;"
				" -s %d is not one of them (use train for it)\n", s);
		exit_all(1);
	}
	if (o->find_parameters && o->nr_fold == 0)
		o->nr_fold = 5;	/* train -C's default */
	if (o->find_parameters && o->ik.kernel != IK_KERNEL_NONE) {
		if (g_rank == 0)
			fprintf(stderr, "ERROR: train-mpi does not take -C with -k yet (train -C -k does)\n");
		exit_all(1);
	}
	if (isinf(o->param.eps))
		o->param.eps = s == L2R_L2LOSS_SVR ? 0.0001 : 0.01;
	o->input_file = argv[i];
	o->model_file = i + 1 < argc ? strdup(argv[i + 1]) : default_model_file(argv[i]);
	if (!o->model_file) {
		fprintf(stderr, "ERROR: out of memory\n");
		exit_all(1);
	}
}

/* ---- classes, over all processes ---- */

struct classes {
	int nr_class;
	int *label;		/* order of first appearance in global row order */
	int64_t *count;		/* global rows per class */
	int *row_class;		/* local row -> class */
};

static void classes_free(struct classes *c)
{
	free(c->label);
	free(c->count);
	free(c->row_class);
	memset(c, 0, sizeof *c);
}

/* Where label sits in list[0..n), or -1. */
static int find_label(const int *list, int n, int label)
{
	for (int k = 0; k < n; k++)
		if (list[k] == label)
			return k;
	return -1;
}

/*
 * Labels as train groups them: (int) cast, order of first appearance over
 * the whole file, {-1, +1} swapped so that +1 comes first. Collective.
 */
static int group_classes(MPI_Comm comm, const struct dist_data *d, const struct options *o,
	struct classes *c)
{
	int size;
	MPI_Comm_size(comm, &size);
	memset(c, 0, sizeof *c);
	char msg[512] = "";
	int ok = 1, nr_local = 0;
	int *local = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *local);
	int *counts = malloc((size_t)size * sizeof *counts);
	int *displs = malloc((size_t)size * sizeof *displs);
	c->row_class = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *c->row_class);
	if (!local || !counts || !displs || !c->row_class) {
		snprintf(msg, sizeof msg, "ERROR: out of memory");
		ok = 0;
	}
	for (int i = 0; ok && i < d->l; i++) {
		double y = d->y[i];
		if (!(y > (double)INT_MIN - 1.0 && y < (double)INT_MAX + 1.0)) {
			char file[64] = "";
			if (o->per_rank)
				snprintf(file, sizeof file, ".%d", g_rank);
			snprintf(msg, sizeof msg, "train-mpi: %s%s: label %g at line %lld is not a valid class label",
				o->input_file, file, y, (long long)(d->first_line + i + 1));
			ok = 0;
			break;
		}
		if (find_label(local, nr_local, (int)y) < 0)
			local[nr_local++] = (int)y;
	}
	if (!dist_agree(comm, ok, msg))
		goto fail;
	MPI_Allgather(&nr_local, 1, MPI_INT, counts, 1, MPI_INT, comm);
	int64_t all = 0;
	for (int p = 0; p < size; p++) {
		displs[p] = (int)all;
		all += counts[p];
	}
	int *gathered = all <= INT_MAX ? malloc((size_t)(all > 0 ? all : 1) * sizeof *gathered) : NULL;
	c->label = malloc((size_t)(all > 0 ? all : 1) * sizeof *c->label);
	if (!dist_agree(comm, gathered && c->label, "ERROR: out of memory")) {
		free(gathered);
		goto fail;
	}
	MPI_Allgatherv(local, nr_local, MPI_INT, gathered, counts, displs, MPI_INT, comm);
	for (int64_t k = 0; k < all; k++)
		if (find_label(c->label, c->nr_class, gathered[k]) < 0)
			c->label[c->nr_class++] = gathered[k];
	free(gathered);
	if (c->nr_class == 2 && c->label[0] == -1 && c->label[1] == 1) {
		c->label[0] = 1;
		c->label[1] = -1;
	}
	int64_t *local_count = calloc((size_t)c->nr_class, sizeof *local_count);
	c->count = malloc((size_t)c->nr_class * sizeof *c->count);
	if (!dist_agree(comm, local_count && c->count, "ERROR: out of memory")) {
		free(local_count);
		goto fail;
	}
	for (int i = 0; i < d->l; i++) {
		c->row_class[i] = find_label(c->label, c->nr_class, (int)d->y[i]);
		local_count[c->row_class[i]]++;
	}
	/* integer sums: exact in any order */
	MPI_Allreduce(local_count, c->count, c->nr_class, MPI_INT64_T, MPI_SUM, comm);
	free(local_count);
	free(local);
	free(counts);
	free(displs);
	return 0;
fail:
	free(local);
	free(counts);
	free(displs);
	classes_free(c);
	return -1;
}

/* ---- training ---- */

struct job {
	MPI_Comm comm;
	const struct dist_data *d;
	const struct dist_rows *rows;
	const struct parameter *param;
};

/* The stopping tolerance of -s 0 and 2: relative to the smaller side, as train's. */
static double balanced_eps(double eps, int64_t pos, int64_t total)
{
	int64_t smaller = pos < total - pos ? pos : total - pos;
	return eps * (double)(smaller > 1 ? smaller : 1) / (double)total;
}

/* One problem: y[] +1/-1 (or targets) and C[] per local row; w in, solution out. */
static int solve(const struct job *j, const double *y, const double *C, double eps, double *w)
{
	int s = j->param->solver_type;
	enum l2r_loss loss = s == L2R_LR ? L2R_LOSS_LR : s == L2R_L2LOSS_SVC ? L2R_LOSS_L2SVC
		: L2R_LOSS_L2SVR;
	int status = dist_solve_l2r_primal(j->rows, y, C, loss, j->param->p,
		j->param->regularize_bias, eps, w);
	if (status == SOLVER_NOMEM) {
		if (g_rank == 0)
			fprintf(stderr, "ERROR: out of memory in train\n");
		return -1;
	}
	return 0;
}

/* C of each class: C times every -wi weight for its label (train's rule and warning). */
static double class_cost(const struct parameter *param, int label)
{
	double cost = param->C;
	for (int i = 0; i < param->nr_weight; i++)
		if (param->weight_label[i] == label)
			cost *= param->weight[i];
	return cost;
}

/*
 * One model on every process alike. c: the classes (NULL for -s 11).
 * held_out (NULL: none): local rows left out (cross-validation), given
 * cost 0, which takes them out of every sum exactly (their loss, gradient
 * and Hessian terms are zeros the solver skips); counts of the training
 * rows come with held_count (per class, then the total; NULL: none).
 * init (NULL: zeros): the start point, a feature-major w of this model's
 * shape (-C starts each fold at its model of the previous C).
 */
static struct model *train_distributed(const struct job *j, const struct options *o,
	const struct classes *c, const unsigned char *held_out, const int64_t *held_count,
	const double *init)
{
	const struct dist_data *d = j->d;
	const struct parameter *param = j->param;
	struct model *m = calloc(1, sizeof *m);
	double *y = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *y);
	double *C = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *C);
	double *wk = NULL;
	if (!dist_agree(j->comm, m && y && C, "ERROR: out of memory"))
		goto fail;
	m->param = *param;
	m->param.weight_label = NULL;	/* the model does not own the options' arrays */
	m->param.weight = NULL;
	m->param.nr_weight = 0;
	m->bias = o->bias;
	m->nr_feature = j->rows->X->n - (o->bias >= 0 ? 1 : 0);
	if (c == NULL) {
		m->nr_class = 2;
		size_t w_size = model_w_size(m);
		m->w = calloc(w_size > 0 ? w_size : 1, sizeof *m->w);
		if (!dist_agree(j->comm, m->w != NULL, "ERROR: out of memory"))
			goto fail;
		if (init != NULL)
			memcpy(m->w, init, w_size * sizeof *m->w);
		for (int i = 0; i < d->l; i++) {
			y[i] = d->y[i];
			C[i] = held_out && held_out[i] ? 0 : param->C;
		}
		if (solve(j, y, C, param->eps, m->w) != 0)
			goto fail;
		goto done;
	}
	m->nr_class = c->nr_class;
	m->label = malloc((size_t)c->nr_class * sizeof *m->label);
	size_t w_size = model_w_size(m);
	int nr_w = model_nr_w(m);
	m->w = calloc(w_size * (size_t)nr_w > 0 ? w_size * (size_t)nr_w : 1, sizeof *m->w);
	wk = malloc((w_size > 0 ? w_size : 1) * sizeof *wk);
	if (!dist_agree(j->comm, m->label && m->w && wk, "ERROR: out of memory"))
		goto fail;
	memcpy(m->label, c->label, (size_t)c->nr_class * sizeof *m->label);
	int problems = c->nr_class == 2 ? 1 : c->nr_class;
	int64_t total = d->total_rows - (held_count ? held_count[c->nr_class] : 0);
	for (int k = 0; k < problems; k++) {
		/* two classes: label[0] against label[1]; more: class k against the rest (Cn = C) */
		double Cp = class_cost(param, c->label[k]);
		double Cn = c->nr_class == 2 ? class_cost(param, c->label[1]) : param->C;
		for (int i = 0; i < d->l; i++) {
			y[i] = c->row_class[i] == k ? +1 : -1;
			C[i] = held_out && held_out[i] ? 0 : y[i] > 0 ? Cp : Cn;
		}
		for (size_t f = 0; f < w_size; f++)
			wk[f] = init != NULL ? init[f * (size_t)nr_w + (size_t)k] : 0;
		int64_t pos = c->count[k] - (held_count ? held_count[k] : 0);
		if (solve(j, y, C, balanced_eps(param->eps, pos, total), wk) != 0)
			goto fail;
		for (size_t f = 0; f < w_size; f++)
			m->w[f * (size_t)nr_w + (size_t)k] = wk[f];
	}
done:
	free(wk);
	free(y);
	free(C);
	return m;
fail:
	free(wk);
	free(y);
	free(C);
	if (m)
		free_and_destroy_model(&m);
	return NULL;
}

/* The classes of -s 0 and 2 (and train's warning for a -wi label that is not there). */
static int classes_of(const struct job *j, const struct options *o, struct classes *c)
{
	memset(c, 0, sizeof *c);
	if (j->param->solver_type == L2R_L2LOSS_SVR)
		return 0;
	if (group_classes(j->comm, j->d, o, c) != 0)
		return -1;
	for (int i = 0; g_rank == 0 && i < j->param->nr_weight; i++)
		if (find_label(c->label, c->nr_class, j->param->weight_label[i]) < 0)
			fprintf(stderr, "WARNING: class label %d specified in weight is not found\n",
				j->param->weight_label[i]);
	return 0;
}

/* ---- -v: cross-validation ---- */

/*
 * train -v's folds (folds.h: a shuffle of the row numbers 0..L-1 with the
 * default seed, fold k a run of it), over global row numbers: the same
 * folds on every process and for any number of processes. fold[i] for
 * local row i. Needs L ints on every process for the shuffle.
 */
static int *local_folds(const struct dist_data *d, int nr_fold, int *used_folds)
{
	if (d->total_rows > INT_MAX)
		return NULL;
	struct folds f;
	if (folds_make((int)d->total_rows, nr_fold, &f) != 0)
		return NULL;
	int *fold = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *fold);
	if (fold != NULL)
		for (int k = 0; k < f.nr_fold; k++)
			for (int p = f.start[k]; p < f.start[k + 1]; p++) {
				int64_t local = f.perm[p] - d->first_row;
				if (local >= 0 && local < d->l)
					fold[local] = k;
			}
	*used_folds = f.nr_fold;
	folds_free(&f);
	return fold;
}

/*
 * Every fold's model (trained on the other folds, all processes together)
 * predicts this process's rows of the fold; then rank 0 prints train -v's
 * lines. Sums of the regression's measures are taken per block and
 * combined in block order, like the solver's; the accuracy is a count.
 */
static int cross_validate(const struct job *j, const struct options *o, const struct classes *c,
	int nr_fold)
{
	const struct dist_data *d = j->d;
	int folds = 0, ok, rc = -1;
	int *fold = local_folds(d, nr_fold, &folds);
	size_t slots = c && c->nr_class > 2 ? (size_t)c->nr_class : 2;
	double *target = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *target);
	double *dec = malloc(slots * sizeof *dec);
	unsigned char *held = malloc((size_t)(d->l > 0 ? d->l : 1));
	size_t counts = c ? (size_t)c->nr_class + 1 : 1;
	int64_t *mine = calloc(counts, sizeof *mine), *all = malloc(counts * sizeof *all);
	ok = fold && target && dec && held && mine && all;
	if (!dist_agree(j->comm, ok, "ERROR: out of memory in cross validation"))
		goto done;
	for (int k = 0; k < folds; k++) {
		memset(mine, 0, counts * sizeof *mine);
		for (int i = 0; i < d->l; i++) {
			held[i] = fold[i] == k;
			if (c && held[i])
				mine[c->row_class[i]]++;
			mine[counts - 1] += held[i];
		}
		MPI_Allreduce(mine, all, (int)counts, MPI_INT64_T, MPI_SUM, j->comm);
		struct model *m = train_distributed(j, o, c, held, all, NULL);
		if (m == NULL)
			goto done;
		for (int i = 0; i < d->l; i++)
			if (held[i])
				target[i] = predict_values_row(m, j->rows->X, i, dec);
		free_and_destroy_model(&m);
	}
	if (c != NULL) {
		int64_t correct = 0, total_correct = 0;
		for (int i = 0; i < d->l; i++)
			correct += target[i] == d->y[i];
		MPI_Allreduce(&correct, &total_correct, 1, MPI_INT64_T, MPI_SUM, j->comm);
		if (g_rank == 0)
			printf("Cross Validation Accuracy = %g%%\n",
				100.0 * (double)total_correct / (double)d->total_rows);
	} else {
		/* per block: squared error, v, y, v v, y y, v y */
		enum { SUMS = 6 };
		double *part = calloc((size_t)(j->rows->nr_blocks > 0 ? j->rows->nr_blocks : 1) * SUMS,
			sizeof *part);
		if (!dist_agree(j->comm, part != NULL, "ERROR: out of memory in cross validation"))
			goto done;
		for (int b = 0; b < j->rows->nr_blocks; b++) {
			double *s = part + (size_t)b * SUMS;
			for (int i = j->rows->block_begin[b]; i < j->rows->block_begin[b + 1]; i++) {
				double v = target[i], yi = d->y[i];
				s[0] += (v - yi) * (v - yi);
				s[1] += v;
				s[2] += yi;
				s[3] += v * v;
				s[4] += yi * yi;
				s[5] += v * yi;
			}
		}
		double sum[SUMS];
		dist_combine(j->rows, part, SUMS, SUMS, sum);
		free(part);
		double l = (double)d->total_rows;
		double num = l * sum[5] - sum[1] * sum[2];
		if (g_rank == 0) {
			printf("Cross Validation Mean squared error = %g\n", sum[0] / l);
			printf("Cross Validation Squared correlation coefficient = %g\n",
				num * num / ((l * sum[3] - sum[1] * sum[1]) * (l * sum[4] - sum[2] * sum[2])));
		}
	}
	rc = 0;
done:
	free(fold);
	free(target);
	free(dec);
	free(held);
	free(mine);
	free(all);
	return rc;
}

/* ---- -C: the warm-started search of C (and p for -s 11), as train -C ---- */

struct search {
	const struct job *j;
	const struct options *o;
	const struct classes *c;
	struct parameter param;		/* the options', with C and p varied */
	struct job fold_job;		/* j with param */
	int nr_fold;
	int *fold;			/* local row -> fold */
	unsigned char **held;		/* per fold: local rows left out */
	int64_t **held_count;		/* per fold: left-out rows per class, then all */
	double **w;			/* per fold: its last model's w (NULL: zeros) */
	double *target;
	double *dec;
	double max_sqnorm;		/* -s 11: max ||x_i||^2 over all rows, for each p's C_min */
	double sum_abs_y;		/* -s 11: sum |y_i| over all rows */
};

static void search_free(struct search *s)
{
	for (int k = 0; k < s->nr_fold; k++) {
		if (s->held)
			free(s->held[k]);
		if (s->held_count)
			free(s->held_count[k]);
		if (s->w)
			free(s->w[k]);
	}
	free(s->held);
	free(s->held_count);
	free(s->w);
	free(s->fold);
	free(s->target);
	free(s->dec);
}

static int search_init(struct search *s, const struct job *j, const struct options *o,
	const struct classes *c)
{
	memset(s, 0, sizeof *s);
	s->j = j;
	s->o = o;
	s->c = c;
	s->param = *j->param;
	s->fold_job = *j;
	s->fold_job.param = &s->param;
	const struct dist_data *d = j->d;
	s->fold = local_folds(d, o->nr_fold, &s->nr_fold);
	size_t nf = s->fold ? (size_t)s->nr_fold : 0, l = (size_t)(d->l > 0 ? d->l : 1);
	size_t counts = c ? (size_t)c->nr_class + 1 : 1;
	s->held = calloc(nf > 0 ? nf : 1, sizeof *s->held);
	s->held_count = calloc(nf > 0 ? nf : 1, sizeof *s->held_count);
	s->w = calloc(nf > 0 ? nf : 1, sizeof *s->w);
	s->target = malloc(l * sizeof *s->target);
	s->dec = malloc((c && c->nr_class > 2 ? (size_t)c->nr_class : 2) * sizeof *s->dec);
	int ok = s->fold && s->held && s->held_count && s->w && s->target && s->dec;
	int64_t *mine = calloc(counts, sizeof *mine);
	ok = ok && mine;
	for (size_t k = 0; ok && k < nf; k++) {
		s->held[k] = malloc(l);
		s->held_count[k] = malloc(counts * sizeof *s->held_count[k]);
		ok = s->held[k] && s->held_count[k];
	}
	if (!dist_agree(j->comm, ok, "ERROR: out of memory in parameter search")) {
		free(mine);
		search_free(s);
		return -1;
	}
	for (size_t k = 0; k < nf; k++) {
		memset(mine, 0, counts * sizeof *mine);
		for (int i = 0; i < d->l; i++) {
			s->held[k][i] = s->fold[i] == (int)k;
			if (c && s->held[k][i])
				mine[c->row_class[i]]++;
			mine[counts - 1] += s->held[k][i];
		}
		MPI_Allreduce(mine, s->held_count[k], (int)counts, MPI_INT64_T, MPI_SUM, j->comm);
	}
	free(mine);
	return 0;
}

/*
 * The block-order total of f(row) over every process's rows: a
 * deterministic double sum (per block in row order, blocks in order).
 */
static double sum_over_rows(const struct job *j, double (*f)(const struct search *, int, double),
	const struct search *s, double arg)
{
	const struct dist_rows *rows = j->rows;
	double *part = malloc((size_t)(rows->nr_blocks > 0 ? rows->nr_blocks : 1) * sizeof *part);
	if (!dist_agree(j->comm, part != NULL, "ERROR: out of memory in parameter search"))
		return NAN;
	for (int b = 0; b < rows->nr_blocks; b++) {
		double sum = 0;
		for (int i = rows->block_begin[b]; i < rows->block_begin[b + 1]; i++)
			sum += f(s, i, arg);
		part[b] = sum;
	}
	double total = 0;
	dist_combine(rows, part, 1, 1, &total);
	free(part);
	return total;
}

static double squared_error(const struct search *s, int i, double unused)
{
	(void)unused;
	double e = s->target[i] - s->j->d->y[i];
	return e * e;
}

/* CV at (C, p): the score (accuracy as a fraction, or MSE); *unchanged: no fold model moved. */
static int evaluate(struct search *s, double C, double p, double *score, bool *unchanged)
{
	s->param.C = C;
	s->param.p = p;
	const struct dist_data *d = s->j->d;
	bool was_muted = info_mute(true);	/* fold models train silently, as train -C's */
	double step = 0;
	int rc = 0;
	for (int k = 0; k < s->nr_fold; k++) {
		struct model *m = train_distributed(&s->fold_job, s->o, s->c, s->held[k],
			s->held_count[k], s->w[k]);
		if (m == NULL) {
			rc = -1;
			break;
		}
		for (int i = 0; i < d->l; i++)
			if (s->held[k][i])
				s->target[i] = predict_values_row(m, s->j->rows->X, i, s->dec);
		/* w is the same on every process: so is this sum, taken in fold order */
		size_t size = model_w_size(m) * (size_t)model_nr_w(m);
		double fold_step = 0;
		for (size_t f = 0; f < size; f++) {
			double diff = m->w[f] - (s->w[k] != NULL ? s->w[k][f] : 0);
			fold_step += diff * diff;
		}
		step += fold_step;
		free(s->w[k]);
		s->w[k] = m->w;		/* the fold's next start point */
		m->w = NULL;
		free_and_destroy_model(&m);
	}
	info_mute(was_muted);
	if (rc != 0)
		return -1;
	if (s->c != NULL) {
		int64_t correct = 0, all = 0;
		for (int i = 0; i < d->l; i++)
			correct += s->target[i] == d->y[i];
		MPI_Allreduce(&correct, &all, 1, MPI_INT64_T, MPI_SUM, s->j->comm);
		*score = (double)all / (double)d->total_rows;
	} else {
		double sum = sum_over_rows(s->j, squared_error, s, 0);
		if (isnan(sum))
			return -1;
		*score = sum / (double)d->total_rows;
	}
	*unchanged = sqrt(step) <= 1e-15;
	return 0;
}

/* The walk's view of the search (c_walk.h): one distributed CV score per (C, p). */
static int walk_evaluate(void *context, double C, double p, double *score, bool *unchanged)
{
	return evaluate(context, C, p, score, unchanged);
}

/* Each walk's fold models start from zeros. */
static void walk_restart(void *context)
{
	struct search *s = context;
	for (int k = 0; k < s->nr_fold; k++) {
		free(s->w[k]);
		s->w[k] = NULL;
	}
}

/* max ||x_i||^2 over every process's rows: an exact maximum. */
static double max_row_sqnorm(const struct job *j)
{
	double mine = 0, all = 0;
	for (int i = 0; i < j->rows->X->l; i++) {
		double q = rows_sqnorm(j->rows->X, i);
		if (q > mine)
			mine = q;
	}
	MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, j->comm);
	return all;
}

static double loss_at_zero(const struct search *s, int i, double p)
{
	double a = fabs(s->j->d->y[i]), e = a > p ? a - p : 0;
	return e * e;
}

static double abs_y(const struct search *s, int i, double unused)
{
	(void)unused;
	return fabs(s->j->d->y[i]);
}

/* -s 11's C_min at p over every process's rows (block-order sums). */
static double walk_svr_C_min(void *context, double p)
{
	struct search *s = context;
	return c_walk_svr_C_min(sum_over_rows(s->j, loss_at_zero, s, p), s->max_sqnorm,
		s->sum_abs_y);
}

static int search_C_and_p(struct search *s, const struct c_walk *w, double start_C,
	double start_p, struct c_walk_best *best)
{
	const struct dist_data *d = s->j->d;
	double mine = 0, max_abs_y = 0;
	for (int i = 0; i < d->l; i++)
		if (fabs(d->y[i]) > mine)
			mine = fabs(d->y[i]);
	MPI_Allreduce(&mine, &max_abs_y, 1, MPI_DOUBLE, MPI_MAX, s->j->comm);
	s->max_sqnorm = max_row_sqnorm(s->j);
	s->sum_abs_y = sum_over_rows(s->j, abs_y, s, 0);
	return c_walk_svr(w, max_abs_y, start_C, start_p, walk_svr_C_min, best);
}

static int find_parameters_dist(const struct job *j, const struct options *o,
	const struct classes *c)
{
	if (g_rank == 0)
		printf("Doing parameter search with %d-fold cross validation.\n", o->nr_fold);
	struct search s;
	if (search_init(&s, j, o, c) != 0)
		return -1;
	double start_C = o->C_given ? o->param.C : -1, start_p = o->p_given ? o->param.p : -1;
	struct c_walk_best best = c_walk_no_best(c == NULL);
	struct c_walk w = { .regression = c == NULL, .evaluate = walk_evaluate,
		.restart = walk_restart, .context = &s };
	int rc;
	if (c == NULL) {
		rc = search_C_and_p(&s, &w, start_C, start_p, &best);
	} else {
		double C_min = c_walk_classification_C_min(j->param->solver_type == L2R_LR,
			(double)j->d->total_rows, max_row_sqnorm(j));
		rc = c_walk_run(&w, c_walk_first_C(C_min, start_C, C_WALK_MAX_C_CLASSIFICATION),
			C_WALK_MAX_C_CLASSIFICATION, j->param->p, &best);
	}
	search_free(&s);
	if (rc != 0)
		return -1;
	if (g_rank == 0 && c == NULL)
		printf("Best C = %g Best p = %g  CV MSE = %g\n", best.C, best.p, best.score);
	else if (g_rank == 0)
		printf("Best C = %g  CV accuracy = %g%%\n", best.C, 100.0 * best.score);
	return 0;
}

/*
 * Ranks other than 0 parse the command line with stderr on /dev/null: the
 * parsers print why a value is bad, and one process speaks for all.
 */
static void parse_quietly_unless_rank_0(int argc, char **argv, struct options *o)
{
	int saved = -1;
	if (g_rank != 0) {
		int null = open("/dev/null", O_WRONLY);
		saved = null >= 0 ? dup(2) : -1;
		if (saved >= 0)
			dup2(null, 2);
		if (null >= 0)
			close(null);
	}
	parse_command_line(argc, argv, o);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
}

/* The map's options, checked before any data is read. */
static int kernel_options(MPI_Comm comm, const struct options *o, struct lik_map_params *kernel)
{
	*kernel = ik_options_kernel(&o->ik, o->threads);
	struct lik_error err;
	char msg[600] = "";
	int ok = 1;
	if (lik_map_params_check(kernel, &err) != 0) {
		snprintf(msg, sizeof msg, "ERROR: %s", err.message);
		ok = 0;
	} else if (g_rank == 0 && o->nr_fold == 0 && ik_model_check_outputs(o->model_file, &err) != 0) {
		/* MODEL and MODEL.ik must be files we may replace: refused before any work */
		snprintf(msg, sizeof msg, "ERROR: %s", err.message);
		ok = 0;
	}
	return dist_agree(comm, ok, msg) ? 0 : -1;
}

/* Rank 0 writes the model (with its map: MODEL.ik, then MODEL, each atomically). */
static int save_on_rank_0(const struct model *m, const struct lik_map *map, const char *path)
{
	if (map == NULL) {
		if (save_model(path, m) == 0)
			return 0;
		fprintf(stderr, "can't save model to file %s\n", path);
		return -1;
	}
	struct lik_error err;
	struct lik_model *pair = lik_model_assemble(m, map, &err);
	int rc = pair != NULL ? lik_model_save(path, pair, &err) : -1;
	if (rc != 0)
		lik_error_print(&err);
	lik_model_free(&pair);
	return rc;
}

/*
 * Where a run's wall time goes, for TRAIN_MPI_STATS: the moments main()
 * passed each phase (seconds of CLOCK_MONOTONIC; the same clock on every
 * process of one machine).
 */
enum phase { PHASE_START, PHASE_INIT, PHASE_READ, PHASE_MAP, PHASE_TRAIN, PHASE_END, PHASES };
static double g_phase_at[PHASES];

static void mark_phase(enum phase p)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	g_phase_at[p] = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*
 * TRAIN_MPI_STATS=1 in the environment: rank 0 prints each process's
 * bytes sent in combining sums, the number of sums, and the seconds of
 * each phase (MPI_Init, reading, the map, training, the end) to stderr.
 */
static void print_stats_if_asked(MPI_Comm comm)
{
	const char *ask = getenv("TRAIN_MPI_STATS");
	if (ask == NULL || strcmp(ask, "1") != 0)
		return;
	int size;
	MPI_Comm_size(comm, &size);
	mark_phase(PHASE_END);
	long long mine[2] = { dist_bytes_sent(), dist_sums_taken() };
	double took[PHASES - 1];
	for (int p = 0; p + 1 < PHASES; p++)
		took[p] = g_phase_at[p + 1] - g_phase_at[p];
	long long *all = g_rank == 0 ? malloc((size_t)size * sizeof mine) : NULL;
	double *times = g_rank == 0 ? malloc((size_t)size * sizeof took) : NULL;
	int ok = g_rank != 0 || (all != NULL && times != NULL);
	if (!dist_agree(comm, ok, "train-mpi: out of memory for TRAIN_MPI_STATS")) {
		free(all);
		free(times);
		return;
	}
	MPI_Gather(mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, 0, comm);
	MPI_Gather(took, PHASES - 1, MPI_DOUBLE, times, PHASES - 1, MPI_DOUBLE, 0, comm);
	for (int r = 0; g_rank == 0 && r < size; r++) {
		const double *t = times + (size_t)r * (PHASES - 1);
		fprintf(stderr, "train-mpi: rank %d sent %lld bytes in %lld sums\n", r, all[2 * r],
			all[2 * r + 1]);
		fprintf(stderr, "train-mpi: rank %d seconds: MPI_Init %.3f, reading %.3f, map %.3f,"
			" training %.3f, saving %.3f\n", r, t[0], t[1], t[2], t[3], t[4]);
	}
	free(all);
	free(times);
}

int main(int argc, char **argv)
{
	mark_phase(PHASE_START);
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, "train-mpi: MPI_Init failed\n");
		return 1;
	}
	MPI_Comm comm = MPI_COMM_WORLD;
	MPI_Comm_rank(comm, &g_rank);
	mark_phase(PHASE_INIT);
	struct options o;
	parse_quietly_unless_rank_0(argc, argv, &o);
	if (o.quiet || g_rank != 0) {
		set_print_string_function(print_null);
		lik_set_print_string_function(print_null);
	}
#ifdef _OPENMP
	if (o.threads > 0)
		omp_set_num_threads(o.threads);
#endif
	int kernel = o.ik.kernel != IK_KERNEL_NONE;
	struct lik_map_params kernel_params;
	if (kernel && kernel_options(comm, &o, &kernel_params) != 0)
		exit_all(1);
	/* the map reads rows without the bias node; the mapped rows get their own */
	struct dist_data d;
	if (dist_data_read(comm, o.input_file, o.per_rank, o.block_rows, kernel ? -1 : o.bias, &d) != 0)
		exit_all(1);
	mark_phase(PHASE_READ);
	struct problem checked = { .l = (int)(d.total_rows < INT_MAX ? d.total_rows : INT_MAX),
		.n = d.n + (kernel && o.bias >= 0 ? 1 : 0), .bias = o.bias };
	const char *error = check_parameter(&checked, &o.param);
	if (error) {
		if (g_rank == 0)
			fprintf(stderr, "ERROR: %s\n", error);
		exit_all(1);
	}
	int *block_begin = malloc((size_t)(d.nr_blocks + 1) * sizeof *block_begin);
	if (!dist_agree(comm, block_begin != NULL, "ERROR: out of memory"))
		exit_all(1);
	for (int k = 0; k <= d.nr_blocks; k++)
		block_begin[k] = dist_block_begin(&d, k);
	struct row_set X = rows_sparse(d.l, d.n, d.x);
	struct lik_map *map = NULL;
	void *cells = NULL;
	if (kernel) {
		map = dist_map_build(comm, &d, &kernel_params, o.input_file, o.per_rank);
		if (map == NULL)
			exit_all(1);
		/* each process maps its own rows, on its threads (and GPU, -d) */
		struct lik_error err;
		cells = lik_map_row_set(map->map, d.x, (size_t)d.l, o.bias, kernel_params.device,
			kernel_params.threads, &X, &err);
		char msg[600] = "";
		if (cells == NULL)
			snprintf(msg, sizeof msg, "ERROR: %s", err.message);
		if (!dist_agree(comm, cells != NULL, msg))
			exit_all(1);
	}
	mark_phase(PHASE_MAP);
	struct dist_rows rows = { comm, &X, d.nr_blocks, block_begin, d.first_block_of_rank };
	struct job j = { comm, &d, &rows, &o.param };
	struct classes c;
	if (classes_of(&j, &o, &c) != 0)
		exit_all(1);
	const struct classes *classes = o.param.solver_type == L2R_L2LOSS_SVR ? NULL : &c;
	struct model *m = NULL;
	int ok;
	if (o.find_parameters) {
		ok = find_parameters_dist(&j, &o, classes) == 0;
	} else if (o.nr_fold > 0) {
		ok = cross_validate(&j, &o, classes, o.nr_fold) == 0;
	} else {
		m = train_distributed(&j, &o, classes, NULL, NULL, NULL);
		ok = m != NULL;
		mark_phase(PHASE_TRAIN);
		if (ok && g_rank == 0 && save_on_rank_0(m, map, o.model_file) != 0)
			ok = 0;
	}
	classes_free(&c);
	print_stats_if_asked(comm);
	/* every process exits with rank 0's verdict on the model file */
	MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
	if (m)
		free_and_destroy_model(&m);
	free(cells);
	lik_map_free(&map);
	free(block_begin);
	dist_data_free(&d);
	destroy_param(&o.param);
	free(o.model_file);
	MPI_Finalize();
	return ok ? 0 : 1;
}
