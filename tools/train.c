/*
 * train.c - the `train` command: upstream LIBLINEAR 2.50's CLI.
 *
 * Same options, defaults, messages and exit codes as upstream (options
 * before the file names; only the letter after '-' is looked at), plus
 * multi-core LIBLINEAR's "-m threads" and the Isolation Kernel options
 * -k, -t, -g, -r, -S, -d (tools/ik_options.h). Without -k (or with -k 0)
 * train is plain LIBLINEAR and the other Isolation Kernel options are
 * accepted and ignored, as upstream ignores -p for a classifier. Training,
 * -v and -C, with -k or without, go through the kernel's C API
 * (ik/liblinear_ik.h: lik_train, lik_cross_validation, lik_search (-C -k),
 * lik_find_parameters (-C, and -C -k -E 1 the exhaustive search),
 * lik_model_save), which maps the rows with -k and saves the model with its
 * partitioning file; train prints what it reports. Differences, all deliberate:
 * option values are read strictly (tools/cli_number.h: "-c 1x", "-s abc",
 * "-e nan" are errors, not 1, 0 and NaN as upstream's atof/atoi make them),
 * an empty training file is an error instead of a model with nr_class 0,
 * input errors say why after upstream's "Wrong input format at line N",
 * file names have no length limit, and the model is written by
 * save_model, which never leaves a partial file behind.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "cli_number.h"
#include "atomic_file.h"
#include "ik_batch.h"
#include "ik_model.h"
#include "ik_options.h"
#include "ik_search_stream.h"
#include "ik_stream.h"
#include "lik_internal.h"
#include "linear.h"
#include "reader.h"
#include "report.h"
#include "train_online.h"
#include "train_usage.h"

/* upstream README, "`train' Usage" */
static const char usage_text[] =
	"Usage: train [options] training_set_file [model_file]\n"
	"options:\n"
	TRAIN_USAGE_UPSTREAM_OPTIONS;

/* Ours, after upstream's lines; %d are the defaults of ik_options.h. */
static const char ik_usage_format[] =
	"LIBLINEAR-IK additions:\n"
	"-k type : map the data by a kernel's feature map before training (default 0)\n"
	"\t 0 or none    -- no map: plain LIBLINEAR\n"
	"\t 1 or anne    -- aNNE: cell of the nearest of psi sampled points\n"
	"\t 2 or iforest -- isolation forest: leaf of a random tree on psi sampled points\n"
	"\t 3 or minmax  -- min-max kernel: T samples of 0-bit consistent weighted sampling\n"
	"\t 4 or acos    -- acos kernel: signs of T random projections\n"
	"\t auto         -- with -C: searches plain linear and every kernel above, with\n"
	"\t\t\tlarger T and raw-feature weights w (-a 0.3, 1) for the best two,\n"
	"\t\t\tand chooses the cheapest model that scores as well as the\n"
	"\t\t\tbest within the folds' noise (see README)\n"
	"-t T : number of partitionings (minmax, acos: samples, at most 65536) with -k (default %d)\n"
	"-g psi : cells per partitioning with -k (default %d for anne, %d for iforest, %d for\n"
	"\tminmax, which takes a power of two from 16 to 65536; not with acos);\n"
	"\twith -C, fixes psi\n"
	"-r seed : random seed of the partitionings with -k (default %d)\n"
	"-S 0|1|2|3|4 : per-feature transform with -k, over the training rows, stored with the\n"
	"\tmap: 0 none; 1 divide by max|x|; 2 min-max (anne: divide by the range; minmax,\n"
	"\tacos: to [0, 1], test values clipped); 3 divide by the standard deviation;\n"
	"\t4 log1p, then as 1 (non-negative data only); iforest ignores 1-3\n"
	"\t(default %d for anne and iforest, 0 for minmax and acos)\n"
	"-a w : with -k, also give the model each row's raw features, transformed by -S (iforest:\n"
	"\t-S 2 when given, else none), times w, after the cells: the kernel becomes\n"
	"\tK(x, y) + w^2 <x', y'> (default 0: off; -a for \"add\": no LIBLINEAR option uses it)\n"
	"-d device : where to map with -k: auto, cpu or gpu (default auto)\n"
	"-m threads : number of threads (default: all cores)\n"
	"-C with -k: searches psi and C (psi = 4, 8, ..., 4096 on a subsample of rows, the best\n"
	"\tconfirmed on all rows, larger psi while the best is the largest; C scored by -s 1\n"
	"\tfor -s 2 and by -s 7 for -s 0, the same problem; see README); -k minmax searches\n"
	"\tpsi = 16, 64, ..., 4096 (2^b, whatever the rows), -k acos C only:\n"
	"-V 0|1 : with -C -k, also print every C tried (default 0: one line per psi)\n"
	"-W 0|1 : with -C -k, write the best model to model_file at once (default 0)\n"
	"-T seconds : with -C -k, time the grid may be extended past its edge (default 300);\n"
	"\twith -C -k auto, the whole search's budget: no candidate starts after it\n"
	"\t(default: none)\n"
	"-E 0|1 : with -C -k, the exhaustive search instead: all rows at every psi (default 0)\n"
	"The options -t, -g, -r, -S and -d are ignored without -k; -a without -k is an error.\n";

/* Upstream prints the usage to stdout and fails. */
static void exit_with_help(void)
{
	fputs(usage_text, stdout);
	printf(ik_usage_format, IK_DEFAULT_T, IK_DEFAULT_PSI_ANNE, IK_DEFAULT_PSI_IFOREST,
		IK_DEFAULT_PSI_MINMAX, IK_DEFAULT_SEED, IK_DEFAULT_SCALE);
	fputs(online_usage_text, stdout);
	exit(1);
}

static void exit_out_of_memory(void)
{
	fprintf(stderr, "ERROR: out of memory\n");
	exit(1);
}

static void print_null(const char *s)
{
	(void)s;
}

static void print_warning(const char *line)
{
	fprintf(stderr, "%s\n", line);
}

struct options {
	struct parameter param;
	double bias;
	int nr_fold;
	int cross_validation;	/* -v */
	int find_parameters;	/* -C */
	int C_specified;
	int p_specified;
	int solver_specified;
	int quiet;
	int threads;		/* -m; 0: not given */
	int search_verbose;	/* -V 1: the per-C lines of -C -k */
	int search_write;	/* -W 1: -C -k writes the best model */
	double search_budget;	/* -T seconds */
	int search_exhaustive;	/* -E 1: -C -k maps all rows at every psi */
	int auto_kernel;	/* -k auto: -C chooses the kernel too (lik_auto_search) */
	int t_given;		/* -t was on the command line (fixes t under -k auto) */
	int argc;		/* the command line, for the printed train command */
	char **argv;
	struct ik_options ik;	/* -k, -t, -g, -r, -S, -d */
	struct online_cli online;	/* -P, -O, -b, -I, -i (train_online.h) */
	const char *input_file;
	char *model_file;	/* allocated */
};

static void set_defaults(struct options *o)
{
	memset(o, 0, sizeof *o);
	o->param.solver_type = L2R_L2LOSS_SVC_DUAL;
	o->param.C = 1;
	o->param.p = 0.1;
	o->param.nu = 0.5;
	o->param.eps = INFINITY;	/* until the solver is known */
	o->param.regularize_bias = 1;
	o->param.w_recalc = false;
	o->bias = -1;
	o->search_budget = -1;	/* the library's default */
	ik_options_default(&o->ik);
	online_cli_default(&o->online);
}

/* Upstream's default tolerance of each solver (README, -e). */
static double default_eps(int solver_type)
{
	switch (solver_type) {
	case L2R_LR:
	case L2R_L2LOSS_SVC:
	case L1R_L2LOSS_SVC:
	case L1R_LR:
	case ONECLASS_SVM:
		return 0.01;
	case L2R_L2LOSS_SVR:
		return 0.0001;
	default:	/* the dual solvers 1, 3, 4, 7, 12, 13 */
		return 0.1;
	}
}

/*
 * -wi weight: the label is the text right after "-w" (upstream reads it
 * with atoi; here it must be a whole integer, cli_number.h).
 */
static void add_class_weight(struct parameter *param, const char *option, const char *weight_text)
{
	long long label;
	if (!cli_parse_integer(option + 2, INT_MIN, INT_MAX, &label)) {
		fprintf(stderr, "ERROR: -wi needs an integer class label i right after -w, not \"%s\"\n",
			option);
		exit_with_help();
	}
	double weight;
	if (cli_real_option(option, weight_text, &weight) != 0)
		exit_with_help();
	int n = param->nr_weight + 1;
	int *labels = realloc(param->weight_label, (size_t)n * sizeof *labels);
	if (!labels)
		exit_out_of_memory();
	param->weight_label = labels;
	double *weights = realloc(param->weight, (size_t)n * sizeof *weights);
	if (!weights)
		exit_out_of_memory();
	param->weight = weights;
	labels[n - 1] = (int)label;
	weights[n - 1] = weight;
	param->nr_weight = n;
}

/* A real option's value; usage and exit 1 when it is not a finite number. */
static double real_value(char letter, const char *text)
{
	const char option[3] = { '-', letter, '\0' };
	double v;
	if (cli_real_option(option, text, &v) != 0)
		exit_with_help();
	return v;
}

/* An integer option's value (any int); usage and exit 1 when it is not one. */
static int int_value(char letter, const char *text)
{
	const char option[3] = { '-', letter, '\0' };
	int v;
	if (cli_int_option(option, text, INT_MIN, INT_MAX, &v) != 0)
		exit_with_help();
	return v;
}

/* A 0|1 option's value; usage and exit 1 otherwise. */
static int switch_value(char letter, const char *text)
{
	const char option[3] = { '-', letter, '\0' };
	int v;
	if (cli_int_option(option, text, 0, 1, &v) != 0)
		exit_with_help();
	return v;
}

/* basename(input) + ".model", in the current directory, as upstream. */
static char *default_model_file(const char *input_file)
{
	const char *slash = strrchr(input_file, '/');
	const char *base = slash ? slash + 1 : input_file;
	size_t len = strlen(base);
	char *name = malloc(len + sizeof ".model");
	if (!name)
		exit_out_of_memory();
	memcpy(name, base, len);
	memcpy(name + len, ".model", sizeof ".model");
	return name;
}

/* The options without an argument; the others take the next word. */
static int option_takes_no_argument(char letter)
{
	return letter == 'q' || letter == 'C' || letter == 'R';
}

static void parse_command_line(int argc, char **argv, struct options *o)
{
	set_defaults(o);
	o->argc = argc;
	o->argv = argv;
	int i;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		char letter = argv[i][1];
		/* upstream wants a word after every option, even -q, -C and -R */
		if (i + 1 >= argc)
			exit_with_help();
		if (option_takes_no_argument(letter)) {
			if (letter == 'q')
				o->quiet = 1;
			else if (letter == 'C')
				o->find_parameters = 1;
			else
				o->param.regularize_bias = 0;
			continue;
		}
		const char *value = argv[++i];
		switch (letter) {
		case 's':
			o->param.solver_type = int_value(letter, value);
			o->solver_specified = 1;
			break;
		case 'c':
			o->param.C = real_value(letter, value);
			o->C_specified = 1;
			break;
		case 'p':
			o->param.p = real_value(letter, value);
			o->p_specified = 1;
			break;
		case 'n':
			o->param.nu = real_value(letter, value);
			break;
		case 'e':
			o->param.eps = real_value(letter, value);
			break;
		case 'B':
			o->bias = real_value(letter, value);
			break;
		case 'w':
			add_class_weight(&o->param, argv[i - 1], value);
			break;
		case 'v':
			o->cross_validation = 1;
			o->nr_fold = int_value(letter, value);
			if (o->nr_fold < 2) {
				fprintf(stderr, "n-fold cross validation: n must >= 2\n");
				exit_with_help();
			}
			break;
		case 'm':
			if (cli_thread_count(value, &o->threads) != 0)
				exit_with_help();
			break;
		case 'V':
			o->search_verbose = switch_value(letter, value);
			break;
		case 'W':
			o->search_write = switch_value(letter, value);
			break;
		case 'E':
			o->search_exhaustive = switch_value(letter, value);
			break;
		case 'T':
			o->search_budget = real_value(letter, value);
			if (o->search_budget < 0) {
				fprintf(stderr, "ERROR: -T needs a time in seconds >= 0\n");
				exit_with_help();
			}
			break;
		case 'k':
			/* -k auto is train's alone (a search), not a map type: ik_options never sees it */
			if (strcmp(value, "auto") == 0) {
				o->auto_kernel = 1;
				o->ik.kernel = IK_KERNEL_NONE;
				break;
			}
			o->auto_kernel = 0;
			if (ik_options_parse(&o->ik, letter, value) < 0)
				exit_with_help();
			break;
		default: {
			if (letter == 't')
				o->t_given = 1;
			int ours = online_cli_parse(&o->online, letter, value);
			if (ours == 0)
				ours = ik_options_parse(&o->ik, letter, value);
			if (ours < 0)
				exit_with_help();
			if (ours == 0) {
				fprintf(stderr, "unknown option: -%c\n", letter);
				exit_with_help();
			}
		}
		}
	}
	if (i >= argc)
		exit_with_help();
	o->input_file = argv[i];
	if (i + 1 < argc) {
		o->model_file = strdup(argv[i + 1]);
		if (!o->model_file)
			exit_out_of_memory();
	} else {
		o->model_file = default_model_file(o->input_file);
	}

	if (o->auto_kernel) {
		if (!o->find_parameters) {
			fprintf(stderr, "ERROR: -k auto needs -C: it is a search (train the model it chooses"
				" with the command it prints)\n");
			exit(1);
		}
		if (o->solver_specified && o->param.solver_type != L2R_L2LOSS_SVC
			&& o->param.solver_type != L2R_LR) {
			fprintf(stderr, "ERROR: -k auto searches classifiers with -s 2 (the default) or"
				" -s 0 only, not -s %d\n", o->param.solver_type);
			exit(1);
		}
		if (o->search_exhaustive) {
			fprintf(stderr, "ERROR: -E 1 cannot be used with -k auto\n");
			exit(1);
		}
	}
	if (o->find_parameters) {
		if (!o->cross_validation)
			o->nr_fold = 5;
		if (!o->solver_specified) {
			fprintf(stderr, "Solver not specified. Using -s 2\n");
			o->param.solver_type = L2R_L2LOSS_SVC;
		} else if (o->param.solver_type != L2R_LR && o->param.solver_type != L2R_L2LOSS_SVC
			&& o->param.solver_type != L2R_L2LOSS_SVR) {
			fprintf(stderr, "Warm-start parameter search only available for -s 0, -s 2 and -s 11\n");
			exit_with_help();
		}
	}
	if (o->param.eps == INFINITY)
		o->param.eps = default_eps(o->param.solver_type);
	/* -k auto is no map type (kernel none here), yet its -a fixes every kernel candidate's w */
	struct ik_options checked = o->ik;
	if (o->auto_kernel)
		checked.raw_given = 0;
	if (ik_options_check(&checked) != 0 || ik_options_check_device(&o->ik) != 0)
		exit(1);
}

static int is_regression(int solver_type)
{
	return solver_type == L2R_L2LOSS_SVR || solver_type == L2R_L2LOSS_SVR_DUAL
		|| solver_type == L2R_L1LOSS_SVR_DUAL;
}

/* Prints what the library said, and exits 1. */
static void exit_with_error(const struct lik_error *err)
{
	lik_error_print(err);
	exit(1);
}

/* -k and its options as the library's map parameters (NULL without -k). */
static struct lik_map_params *kernel_params(const struct options *o, struct lik_map_params *kernel)
{
	if (o->ik.kernel == IK_KERNEL_NONE)
		return NULL;
	*kernel = ik_options_kernel(&o->ik, o->threads);
	return kernel;
}

/* The result lines of -v, as upstream prints them, from the labels y and the predictions. */
static void print_cross_validation(int l, const double *y, const double *target, int solver_type)
{
	if (is_regression(solver_type)) {
		double total_error = 0, sumv = 0, sumy = 0, sumvv = 0, sumyy = 0, sumvy = 0;
		for (int i = 0; i < l; i++) {
			double yi = y[i], v = target[i];
			total_error += (v - yi) * (v - yi);
			sumv += v;
			sumy += yi;
			sumvv += v * v;
			sumyy += yi * yi;
			sumvy += v * yi;
		}
		double num = l * sumvy - sumv * sumy;
		printf("Cross Validation Mean squared error = %g\n", total_error / l);
		printf("Cross Validation Squared correlation coefficient = %g\n",
			num * num / ((l * sumvv - sumv * sumv) * (l * sumyy - sumy * sumy)));
	} else {
		int total_correct = 0;
		for (int i = 0; i < l; i++)
			if (target[i] == y[i])
				total_correct++;
		printf("Cross Validation Accuracy = %g%%\n", 100.0 * total_correct / l);
	}
}

static void run_cross_validation(const struct problem *prob, const struct lik_map_params *kernel,
	const struct options *o)
{
	double *target = malloc((size_t)prob->l * sizeof *target);
	if (!target)
		exit_out_of_memory();
	struct lik_error err;
	if (lik_cross_validation(prob, &o->param, kernel, o->nr_fold, target, &err) != 0)
		exit_with_error(&err);
	print_cross_validation(prob->l, prob->y, target, o->param.solver_type);
	free(target);
}

static double search_start_C(const struct options *o)
{
	return o->C_specified ? o->param.C : -1.0;
}

static double search_start_p(const struct options *o)
{
	return o->p_specified ? o->param.p : -1.0;
}

struct search_result {
	int psi;
	double C, p, score;
};

/* One result line of -C: prefix "" (at one psi with -k), "Best " (-k's best) or NULL (no -k). */
static void print_search_result(const char *prefix, const struct search_result *r, int regression)
{
	if (prefix == NULL && regression)
		printf("Best C = %g Best p = %g  CV MSE = %g\n", r->C, r->p, r->score);
	else if (prefix == NULL)
		printf("Best C = %g  CV accuracy = %g%%\n", r->C, 100.0 * r->score);
	else if (regression)
		printf("%spsi = %d  Best C = %g Best p = %g  CV MSE = %g\n",
			prefix, r->psi, r->C, r->p, r->score);
	else
		printf("%spsi = %d  Best C = %g  CV accuracy = %g%%\n",
			prefix, r->psi, r->C, 100.0 * r->score);
}

/* lik_find_parameters at kernel's psi (or without a kernel); exits 1 on error. */
static struct search_result search_at(const struct problem *prob,
	const struct lik_map_params *kernel, const struct options *o)
{
	struct search_result r;
	struct lik_error err;
	if (lik_find_parameters(prob, &o->param, kernel, o->nr_fold, search_start_C(o),
		search_start_p(o), &r.psi, &r.C, &r.p, &r.score, &err) != 0)
		exit_with_error(&err);
	return r;
}

/* search_at on stream's file read in passes (ik_search_stream.h); exits 1 on error. */
static struct search_result search_streamed_at(struct ik_stream *stream,
	const struct lik_map_params *kernel, const struct options *o)
{
	struct search_result r = { kernel->psi, NAN, NAN, NAN };
	if (ik_search_stream_at(stream, &o->param, kernel, o->nr_fold, search_start_C(o),
			search_start_p(o), o->bias, &r.C, &r.p, &r.score) != 0)
		exit(1);	/* it said why */
	return r;
}

/*
 * -C -k -E 1: the exhaustive search (as before issue 21). Without -g, over psi = 4, 8, ...,
 * 4096 too (not above the number of rows), one line per psi and the best
 * at the end, on stdout as train prints its results (-q keeps them).
 * On prob's rows, or (prob NULL) on stream's file read in passes.
 */
static void run_exhaustive_search(const struct problem *prob, struct ik_stream *stream,
	const struct lik_map_params *kernel, const struct options *o)
{
	int regression = o->param.solver_type == L2R_L2LOSS_SVR;
	/* the kernel's grid (IK psi capped by the rows, minmax's 2^b, acos's 2) */
	struct lik_psi_grid g = lik_psi_grid_of(kernel->kernel, prob != NULL ? prob->l : stream->l,
		LIK_SEARCH_PSI_MAX);
	int first = g.first;
	int last = g.last;
	if (o->ik.psi_given) {
		first = last = o->ik.psi;	/* -g fixes psi: search C only */
	} else if (first > last) {
		fprintf(stderr, "ERROR: -C with -k needs at least %d training rows (psi starts at %d)\n",
			first, first);
		exit(1);
	}
	struct lik_map_params at = *kernel;
	struct search_result best = { 0, NAN, NAN, NAN };
	for (int psi = first; psi <= last; psi *= g.factor) {
		at.psi = psi;
		struct search_result r = prob != NULL ? search_at(prob, &at, o)
			: search_streamed_at(stream, &at, o);
		print_search_result("", &r, regression);
		if (best.psi == 0 || (regression ? r.score < best.score : r.score > best.score))
			best = r;
		if (psi > last / g.factor)
			break;	/* psi *= factor would pass last (and could overflow) */
	}
	print_search_result("Best ", &best, regression);
}

/* Appends text to a growing command line, quoted for a POSIX shell when it needs it. */
static void append_word(char **line, size_t *len, const char *word)
{
	int plain = word[0] != '\0';
	for (const char *c = word; *c; c++)
		if (!(isalnum((unsigned char)*c) || strchr("-_./=+,:@%", *c)))
			plain = 0;
	size_t need = *len + 4 * strlen(word) + 4;
	char *grown = realloc(*line, need);
	if (!grown)
		exit_out_of_memory();
	*line = grown;
	char *out = *line + *len;
	if (*len > 0)
		*out++ = ' ';
	if (plain) {
		out += sprintf(out, "%s", word);
	} else {
		*out++ = '\'';
		for (const char *c = word; *c; c++) {
			if (*c == '\'') {
				memcpy(out, "'\\''", 4);
				out += 4;
			} else {
				*out++ = *c;
			}
		}
		*out++ = '\'';
		*out = '\0';
	}
	*len = (size_t)(out - *line);
}

/*
 * Starts a printed train command: "train", -s when -C chose the solver, then
 * the options given on the command line except -C and those whose letters
 * are in dropped (the search's, which the command sets again).
 */
static void append_given_options(const struct options *o, const char *dropped, char **line,
	size_t *len)
{
	char number[64];
	append_word(line, len, "train");
	if (!o->solver_specified) {
		append_word(line, len, "-s");
		snprintf(number, sizeof number, "%d", o->param.solver_type);
		append_word(line, len, number);
	}
	for (int i = 1; i < o->argc && o->argv[i][0] == '-'; i++) {
		char letter = o->argv[i][1];
		if (option_takes_no_argument(letter)) {
			if (letter != 'C')
				append_word(line, len, o->argv[i]);
			continue;
		}
		if (!strchr(dropped, letter)) {
			append_word(line, len, o->argv[i]);
			append_word(line, len, o->argv[i + 1]);
		}
		i++;
	}
}

/*
 * The train command that trains the best model: the command line given,
 * without the search's options (-C -v -c -p -g -V -W -T -E), with -s when
 * -C chose it, then -g psi -c C (-p p) and the file names. Allocated.
 */
static char *best_train_command(const struct options *o, int psi, double C, double p)
{
	char *line = NULL;
	size_t len = 0;
	char number[64];
	append_given_options(o, "cpgvVWTE", &line, &len);
	/* acos has one width and refuses -g */
	if (o->ik.kernel != IK_KERNEL_ACOS) {
		append_word(&line, &len, "-g");
		snprintf(number, sizeof number, "%d", psi);
		append_word(&line, &len, number);
	}
	append_word(&line, &len, "-c");
	snprintf(number, sizeof number, "%.17g", C);
	append_word(&line, &len, number);
	if (o->param.solver_type == L2R_L2LOSS_SVR) {
		append_word(&line, &len, "-p");
		snprintf(number, sizeof number, "%.17g", p);
		append_word(&line, &len, number);
	}
	append_word(&line, &len, o->input_file);
	append_word(&line, &len, o->model_file);
	return line;
}

struct progress {
	int on_terminal;	/* stderr is a terminal: a progress line there */
	int regression;
	int rows_done;
	double seconds_done;
	double last_seconds;
	int psi_left;		/* stage-one psi values still to do (estimate) */
};

/* One line per psi as it is done; on a terminal, a progress line on stderr under it. */
static void print_search_row(const struct lik_search_row *r, void *context)
{
	struct progress *g = context;
	if (r->psi == 0)
		return;		/* the plain baseline: printed at the end */
	char line[256];
	lik_search_row_text(r, g->regression, line, sizeof line);
	printf("%s\n", line);
	fflush(stdout);
	g->rows_done++;
	g->seconds_done += r->seconds;
	g->last_seconds = r->seconds;
	if (g->psi_left > 0)
		g->psi_left--;
	if (g->on_terminal) {
		/* the next psi costs about twice the last: a rough estimate, said as one */
		double left = 0, next = r->seconds;
		for (int k = 0; k < g->psi_left; k++) {
			next *= 2;
			left += next;
		}
		fprintf(stderr, "\r[-C -k] %d psi done in %.0f s; about %.0f s left in this stage   ",
			g->rows_done, g->seconds_done, left);
		if (g->psi_left == 0)
			fputc('\n', stderr);
		fflush(stderr);
	}
}

/*
 * -C -k: lik_search, its table as one line per psi, the best, the baseline,
 * the command. On prob's rows, or (prob NULL) on stream's file read in
 * passes (ik_search_stream.h): the same lines and model either way.
 */
static void run_kernel_search(const struct problem *prob, struct ik_stream *stream,
	const struct lik_map_params *kernel, const struct options *o)
{
	int regression = o->param.solver_type == L2R_L2LOSS_SVR;
	struct lik_map_params at = *kernel;
	at.psi = o->ik.psi_given ? o->ik.psi : 0;
	struct lik_search_options so;
	lik_search_options_default(&so);
	so.verbose = o->search_verbose;
	if (o->search_budget >= 0)
		so.time_budget = o->search_budget;
	struct progress g = { isatty(fileno(stderr)), regression, 0, 0, 0, 0 };
	int l = prob != NULL ? prob->l : stream->l;
	int stage_rows = l < so.subsample_rows ? l : so.subsample_rows;
	struct lik_psi_grid grid = lik_psi_grid_of(kernel->kernel, stage_rows, so.grid_max);
	for (long long psi = grid.first; psi <= grid.last; psi *= grid.factor)
		g.psi_left++;
	so.on_row = print_search_row;
	so.context = &g;
	struct lik_error err;
	struct lik_search_table *t;
	if (prob == NULL) {
		t = ik_search_stream(stream, &o->param, &at, o->nr_fold, search_start_C(o),
			search_start_p(o), &so, o->bias);
		if (t == NULL)
			exit(1);	/* ik_search_stream said why */
	} else if ((t = lik_search(prob, &o->param, &at, o->nr_fold, search_start_C(o),
			search_start_p(o), &so, &err)) == NULL) {
		exit_with_error(&err);
	}
	const struct lik_search_row *best = &t->rows[t->best];
	/* the Best line, the note, the baseline and the advice: the library's text */
	int need = lik_search_summary_text(t, regression, !o->ik.psi_given, NULL, 0);
	char *summary = malloc((size_t)need + 1);
	if (summary == NULL) {
		fprintf(stderr, "ERROR: out of memory\n");
		exit(1);
	}
	lik_search_summary_text(t, regression, !o->ik.psi_given, summary, (size_t)need + 1);
	fputs(summary, stdout);
	free(summary);
	char *command = best_train_command(o, best->psi, best->C, best->p);
	printf("best model: %s\n", command);
	free(command);
	if (o->search_write) {
		struct parameter param = o->param;
		param.C = best->C;
		if (regression)
			param.p = best->p;
		/* the search's own map of all rows at the best psi: no second build */
		struct lik_model *m;
		if (prob == NULL) {
			if ((m = ik_search_stream_train(stream, &param, t->best_map, o->bias)) == NULL)
				exit(1);	/* it said why */
		} else if ((m = lik_train_with_map(prob, &param, t->best_map, &err)) == NULL) {
			exit_with_error(&err);
		}
		if (lik_model_save(o->model_file, m, &err) != 0)
			exit_with_error(&err);
		lik_model_free(&m);
		printf("written: %s\n", o->model_file);
	}
	lik_search_table_free(&t);
}

/*
 * w as the shortest text that reads back as the same double (0.3, not
 * 0.29999999999999999), so that the printed command reproduces the model.
 */
static void weight_text(double w, char *text, size_t size)
{
	for (int digits = 6; digits <= 17; digits++) {
		snprintf(text, size, "%.*g", digits, w);
		if (strtod(text, NULL) == w)
			return;
	}
}

/*
 * The train command of -k auto's choice: the command line given without
 * the search's options (-C -v -c -g -V -W -T -E) and without -k, -t, -S
 * and -a, which the choice sets again (-S only when not the kernel's
 * default, -a only when w > 0: plain linear refuses -a), with -s when -C
 * chose it. Allocated.
 */
static char *auto_train_command(const struct options *o, const struct lik_auto_row *best)
{
	char *line = NULL;
	size_t len = 0;
	char number[64];
	append_given_options(o, "cpgvVWTEktSa", &line, &len);
	if (best->kernel != LIK_KERNEL_LINEAR) {
		append_word(&line, &len, "-k");
		append_word(&line, &len, lik_auto_kernel_name(best->kernel));
		append_word(&line, &len, "-t");
		snprintf(number, sizeof number, "%d", best->t);
		append_word(&line, &len, number);
		if (best->kernel != LIK_KERNEL_ACOS) {	/* acos has one width and refuses -g */
			append_word(&line, &len, "-g");
			snprintf(number, sizeof number, "%d", best->psi);
			append_word(&line, &len, number);
		}
		struct lik_map_params d;
		lik_map_params_default(&d, best->kernel);
		if (best->scale != d.scale) {
			append_word(&line, &len, "-S");
			snprintf(number, sizeof number, "%d", best->scale);
			append_word(&line, &len, number);
		}
		if (best->w > 0) {
			append_word(&line, &len, "-a");
			weight_text(best->w, number, sizeof number);
			append_word(&line, &len, number);
		}
	}
	append_word(&line, &len, "-c");
	snprintf(number, sizeof number, "%.17g", best->C);
	append_word(&line, &len, number);
	append_word(&line, &len, o->input_file);
	append_word(&line, &len, o->model_file);
	return line;
}

static void print_auto_row(const struct lik_auto_row *r, void *context)
{
	(void)context;
	char line[512];
	lik_auto_row_text(r, line, sizeof line);
	printf("%s\n", line);
	fflush(stdout);
}

/* -C -k auto: lik_auto_search, one line per candidate, the summary, the command (-W: the model). */
static void run_auto_search(const struct problem *prob, const struct options *o)
{
	struct lik_map_params base = ik_options_kernel(&o->ik, o->threads);
	struct lik_auto_options ao;
	lik_auto_options_default(&ao);
	ao.verbose = o->search_verbose;
	ao.budget = o->search_budget;	/* -1 when -T is not given: no budget */
	ao.t = o->t_given ? o->ik.t : 0;
	ao.psi = o->ik.psi_given ? o->ik.psi : 0;
	ao.scale = o->ik.scale_given ? o->ik.scale : -1;
	ao.w = o->ik.raw_given ? o->ik.raw_weight : -1;	/* -a w fixes every kernel's w */
	ao.on_row = print_auto_row;
	struct lik_error err;
	struct lik_auto_table *t = lik_auto_search(prob, &o->param, &base, o->nr_fold,
		search_start_C(o), &ao, &err);
	if (t == NULL)
		exit_with_error(&err);
	int need = lik_auto_summary_text(t, NULL, 0);
	char *summary = malloc((size_t)need + 1);
	if (summary == NULL)
		exit_out_of_memory();
	lik_auto_summary_text(t, summary, (size_t)need + 1);
	fputs(summary, stdout);
	free(summary);
	const struct lik_auto_row *best = &t->rows[t->best];
	char *command = auto_train_command(o, best);
	printf("best model: %s\n", command);
	free(command);
	if (o->search_write) {
		/* trained afresh on all rows, exactly as the printed command trains it */
		struct parameter param = o->param;
		param.C = best->C;
		struct lik_map_params k = base;
		k.kernel = best->kernel;
		k.t = best->t;
		k.psi = best->psi;
		k.scale = best->scale;
		k.raw_weight = best->w;
		struct lik_model *m = lik_train(prob, &param,
			best->kernel == LIK_KERNEL_LINEAR ? NULL : &k, &err);
		if (!m || lik_model_save(o->model_file, m, &err) != 0)
			exit_with_error(&err);
		lik_model_free(&m);
		printf("written: %s\n", o->model_file);
	}
	lik_auto_table_free(&t);
}

/* -C: upstream's search without -k; with -k, lik_search (or -E 1: the exhaustive one). */
static void run_find_parameters(const struct problem *prob, const struct lik_map_params *kernel,
	const struct options *o)
{
	int regression = o->param.solver_type == L2R_L2LOSS_SVR;
	printf("Doing parameter search with %d-fold cross validation.\n", o->nr_fold);
	if (o->auto_kernel) {
		run_auto_search(prob, o);
	} else if (kernel == NULL) {
		struct search_result r = search_at(prob, NULL, o);
		print_search_result(NULL, &r, regression);
	} else if (o->search_exhaustive) {
		run_exhaustive_search(prob, NULL, kernel, o);
	} else {
		run_kernel_search(prob, NULL, kernel, o);
	}
}

/*
 * Trains, cross-validates or searches through the library (liblinear_ik.h).
 * With -k the rows were read without bias nodes: the map never sees one,
 * and lik_train gives the cell rows their own bias feature t*psi + 1.
 */
static void run(const struct libsvm_data *data, const struct options *o)
{
	struct problem prob = data->prob;
	struct lik_map_params kernel_storage;
	const struct lik_map_params *kernel = kernel_params(o, &kernel_storage);
	if (kernel != NULL) {
		prob.bias = o->bias;
		prob.n = data->max_index + (o->bias >= 0 ? 1 : 0);
	}
	if (o->find_parameters) {
		run_find_parameters(&prob, kernel, o);
	} else if (o->cross_validation) {
		run_cross_validation(&prob, kernel, o);
	} else {
		struct lik_error err;
		struct lik_model *m = lik_train(&prob, &o->param, kernel, &err);
		if (!m || lik_model_save(o->model_file, m, &err) != 0)
			exit_with_error(&err);
		lik_model_free(&m);
	}
}

/*
 * train -C -k without the raw rows held: the default search with psi
 * searched (not with -g or acos, whose plain baseline runs on all rows),
 * and -E 1 (no baseline); not -k auto.
 */
static int search_streams(const struct options *o)
{
	if (!o->find_parameters || o->ik.kernel == IK_KERNEL_NONE || o->auto_kernel)
		return 0;
	return o->search_exhaustive || (!o->ik.psi_given && o->ik.kernel != IK_KERNEL_ACOS);
}

/*
 * train -k and train -k -v: the file read in passes, never whole (ik_stream.h):
 * the map and the rows' cells are all that stay in memory. The messages
 * and their order are the in-memory path's: the file's, then the
 * parameters', then the map's.
 * train -C -k too where search_streams says so (ik_search_stream.h).
 */
static void run_streamed(const struct options *o)
{
	struct lik_map_params kernel = ik_options_kernel(&o->ik, o->threads);
	struct ik_stream s;
	if (ik_stream_begin(o->input_file, &kernel,
			ik_train_negative_advice(ik_options_scale(&o->ik)), &s) != 0)
		exit(1);
	struct problem checked = { 0 };
	checked.l = s.l;
	checked.bias = o->bias;
	const char *error = check_parameter(&checked, &o->param);
	if (error) {
		fprintf(stderr, "ERROR: %s\n", error);
		exit(1);
	}
	report_set_warning_function(print_warning);	/* the library's warnings, as upstream prints them */
	if (o->find_parameters) {
		if (ik_stream_scan_rest(&s) != 0)
			exit(1);
		printf("Doing parameter search with %d-fold cross validation.\n", o->nr_fold);
		if (o->search_exhaustive)
			run_exhaustive_search(NULL, &s, &kernel, o);
		else
			run_kernel_search(NULL, &s, &kernel, o);
		ik_stream_free(&s);
		return;
	}
	if (ik_stream_finish(&s, o->bias) != 0)
		exit(1);
	struct lik_error err;
	if (o->cross_validation) {
		double *target = malloc((size_t)s.l * sizeof *target);
		if (!target)
			exit_out_of_memory();
		if (lik_cross_validation_cells(&s.X, s.y, o->bias, &o->param, o->nr_fold, target, &err) != 0)
			exit_with_error(&err);
		print_cross_validation(s.l, s.y, target, o->param.solver_type);
		free(target);
	} else {
		struct lik_model *m = lik_train_cells(&s.X, s.y, o->bias, &o->param, lik_map_share(s.map),
			&err);
		if (!m || lik_model_save(o->model_file, m, &err) != 0)
			exit_with_error(&err);
		lik_model_free(&m);
	}
	ik_stream_free(&s);
}

static struct libsvm_data *read_training_file(const char *path, double bias)
{
	struct libsvm_reader *r = libsvm_reader_open(path);
	if (!r) {
		fprintf(stderr, "can't open input file %s\n", path);
		exit(1);
	}
	struct libsvm_data *d = libsvm_data_read(r, bias);
	if (!d) {
		fprintf(stderr, "%s\n", libsvm_reader_error(r));
		exit(1);
	}
	libsvm_reader_close(r);
	if (d->prob.l == 0) {
		fprintf(stderr, "ERROR: no data in training file %s\n", path);
		exit(1);
	}
	return d;
}

/*
 * -k minmax without -S 2, and every -k under -S 4 (log1p), take
 * non-negative values only: the first
 * negative one is an error naming its line (row i is line i + 1: every
 * line of a training file is a row, libsvm_reader refuses blank ones) and
 * feature, before any work, so nothing is written. A bias node read with
 * the rows (index max_index + 1) is never negative (-B < 0 adds none).
 */
static void exit_if_negative(const struct problem *prob, const char *path, int scale)
{
	if (ik_refuse_negative(prob->x, (size_t)prob->l, INT_MAX, path, 1,
			ik_train_negative_advice(scale)) != 0)
		exit(1);
}

int main(int argc, char **argv)
{
	struct options o;
	parse_command_line(argc, argv, &o);
	lik_set_print_string_function(o.quiet ? print_null : NULL);
#ifdef _OPENMP
	if (o.threads > 0)
		omp_set_num_threads(o.threads);
#endif
	if (online_cli_wanted(&o.online, o.param.solver_type)) {
		/* -s 30, -O, -i: train_online.c does the whole run */
		if (o.find_parameters) {
			fprintf(stderr, "ERROR: -C cannot be used with -s 30, -O or -i\n");
			exit(1);
		}
		atomic_file_install_signal_cleanup();
		struct online_run run = { &o.param, o.bias, o.quiet, o.threads, &o.ik, o.cross_validation,
			o.nr_fold, o.solver_specified, o.C_specified, o.input_file, o.model_file, argc, argv };
		int status = online_cli_run(&o.online, &run);
		destroy_param(&o.param);
		free(o.model_file);
		return status;
	}

	/* with -k the map sees the rows without a bias node; the cell rows get their own */
	int kernel = o.ik.kernel != IK_KERNEL_NONE || o.auto_kernel;
	/* -k writes MODEL and MODEL.ik: refuse paths that are not files before any work */
	struct lik_error err;
	int writes_model = o.find_parameters ? o.search_write : !o.cross_validation;
	if (kernel && writes_model && ik_model_check_outputs(o.model_file, &err) != 0) {
		lik_error_print(&err);
		exit(1);
	}
	atomic_file_install_signal_cleanup();	/* no temporary file outlives SIGINT/SIGTERM */
	if (o.ik.kernel != IK_KERNEL_NONE && (!o.find_parameters || search_streams(&o))) {
		/* the other -C -k searches (-g, acos, -k auto) read the rows whole, below */
		run_streamed(&o);
		destroy_param(&o.param);
		free(o.model_file);
		return 0;
	}
	/* lik_search's plain baseline needs the bias nodes (liblinear_ik.h's rows); the map drops them */
	int rows_with_bias = !kernel || (o.find_parameters && !o.search_exhaustive);
	struct libsvm_data *data = read_training_file(o.input_file, rows_with_bias ? o.bias : -1);
	if (kernel && ik_needs_nonnegative(o.ik.kernel == IK_KERNEL_MINMAX, ik_options_scale(&o.ik)))
		exit_if_negative(&data->prob, o.input_file, ik_options_scale(&o.ik));
	struct problem checked = data->prob;
	checked.bias = o.bias;
	const char *error = check_parameter(&checked, &o.param);
	if (error) {
		fprintf(stderr, "ERROR: %s\n", error);
		exit(1);
	}

	report_set_warning_function(print_warning);	/* the library's warnings, as upstream prints them */
	run(data, &o);
	libsvm_data_free(data);

	destroy_param(&o.param);
	free(o.model_file);
	return 0;
}
