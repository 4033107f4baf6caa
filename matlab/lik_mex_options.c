/*
 * lik_mex_options.c - the option strings of train and predict (see
 * lik_mex.h): upstream's options with upstream's defaults, plus -k -t -g
 * -r -S -d -m, every value read as strictly as the programs read it (the
 * whole word a number in range) and refused with the programs' message.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lik_mex.h"

/* Words of the option string: split at blanks, as upstream's strtok(" "). */
struct words {
	char *buffer;
	char **word;
	int count;
};

static int split_words(const char *text, struct words *w, struct lik_error *err)
{
	memset(w, 0, sizeof *w);
	if (!text)
		return 0;
	size_t len = strlen(text);
	w->buffer = malloc(len + 1);
	/* at most one word per two characters, plus one */
	w->word = malloc((len / 2 + 2) * sizeof *w->word);
	if (!w->buffer || !w->word) {
		free(w->buffer);
		free(w->word);
		memset(w, 0, sizeof *w);
		mex_error_set(err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	memcpy(w->buffer, text, len + 1);
	char *save = NULL;
	for (char *t = strtok_r(w->buffer, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
		w->word[w->count++] = t;
	return 0;
}

static void free_words(struct words *w)
{
	free(w->buffer);
	free(w->word);
}

/* An optional sign, then decimal digits only. */
static int is_integer_word(const char *s)
{
	if (*s == '+' || *s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int integer_in(const char *s, long long min, long long max, long long *out)
{
	if (!is_integer_word(s))
		return 0;
	errno = 0;
	long long v = strtoll(s, NULL, 10);
	if (errno == ERANGE || v < min || v > max)
		return 0;
	*out = v;
	return 1;
}

static int int_option(const char *option, const char *s, int min, int max, int *out,
	struct lik_error *err)
{
	long long v;
	if (integer_in(s, min, max, &v)) {
		*out = (int)v;
		return 0;
	}
	if (min == INT_MIN && max == INT_MAX)
		mex_error_set(err, LIK_EINVAL,
			"%s needs an integer (decimal digits, optional sign), not \"%s\"", option, s);
	else if (max == INT_MAX)
		mex_error_set(err, LIK_EINVAL, "%s needs an integer >= %d, not \"%s\"", option, min, s);
	else
		mex_error_set(err, LIK_EINVAL, "%s needs an integer from %d to %d, not \"%s\"",
			option, min, max, s);
	return -1;
}

static int real_option(const char *option, const char *s, double *out, struct lik_error *err)
{
	char *end;
	double v = strtod(s, &end);
	/* an underflow to 0 or a subnormal is still the closest finite number */
	if (end == s || *end != '\0' || !isfinite(v)) {
		mex_error_set(err, LIK_EINVAL, "%s needs a finite real number, not \"%s\"", option, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int seed_option(const char *s, uint64_t *out, struct lik_error *err)
{
	if (is_integer_word(s)) {
		if (s[0] == '-') {
			const char *p = s + 1;
			while (*p == '0')
				p++;
			if (*p == '\0') {	/* -0 */
				*out = 0;
				return 0;
			}
		} else {
			errno = 0;
			unsigned long long v = strtoull(s, NULL, 10);
			if (errno != ERANGE) {
				*out = (uint64_t)v;
				return 0;
			}
		}
	}
	mex_error_set(err, LIK_EINVAL,
		"-r needs a seed, a whole number from 0 to 18446744073709551615");
	return -1;
}

static int kernel_option(const char *s, int *kernel_on, int *kernel, struct lik_error *err)
{
	if (strcmp(s, "0") == 0 || strcmp(s, "none") == 0) {
		*kernel_on = 0;
	} else if (strcmp(s, "1") == 0 || strcmp(s, "anne") == 0) {
		*kernel_on = 1;
		*kernel = LIK_KERNEL_ANNE;
	} else if (strcmp(s, "2") == 0 || strcmp(s, "iforest") == 0) {
		*kernel_on = 1;
		*kernel = LIK_KERNEL_IFOREST;
	} else if (strcmp(s, "3") == 0 || strcmp(s, "minmax") == 0) {
		*kernel_on = 1;
		*kernel = LIK_KERNEL_MINMAX;
	} else if (strcmp(s, "4") == 0 || strcmp(s, "acos") == 0) {
		*kernel_on = 1;
		*kernel = LIK_KERNEL_ACOS;
	} else {
		mex_error_set(err, LIK_EINVAL,
			"-k needs 0 (none), 1 (anne), 2 (iforest), 3 (minmax) or 4 (acos)");
		return -1;
	}
	return 0;
}

static int device_option(const char *s, int *device, struct lik_error *err)
{
	if (strcmp(s, "auto") == 0)
		*device = LIK_DEVICE_AUTO;
	else if (strcmp(s, "cpu") == 0)
		*device = LIK_DEVICE_CPU;
	else if (strcmp(s, "gpu") == 0)
		*device = LIK_DEVICE_GPU;
	else {
		mex_error_set(err, LIK_EINVAL, "-d needs auto, cpu or gpu");
		return -1;
	}
	return 0;
}

static int add_class_weight(struct parameter *param, const char *option, const char *value,
	struct lik_error *err)
{
	long long label;
	if (!integer_in(option + 2, INT_MIN, INT_MAX, &label)) {
		mex_error_set(err, LIK_EINVAL,
			"-wi needs an integer class label i right after -w, not \"%s\"", option);
		return -1;
	}
	double weight;
	if (real_option(option, value, &weight, err) != 0)
		return -1;
	int n = param->nr_weight + 1;
	int *labels = realloc(param->weight_label, (size_t)n * sizeof *labels);
	if (labels)
		param->weight_label = labels;
	double *weights = labels ? realloc(param->weight, (size_t)n * sizeof *weights) : NULL;
	if (!labels || !weights) {
		mex_error_set(err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	param->weight = weights;
	labels[n - 1] = (int)label;
	weights[n - 1] = weight;
	param->nr_weight = n;
	return 0;
}

/* Upstream's default tolerance of each solver (its README, -e). */
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

static void train_defaults(struct mex_train_options *o)
{
	memset(o, 0, sizeof *o);
	o->param.solver_type = L2R_L2LOSS_SVC_DUAL;
	o->param.C = 1;
	o->param.p = 0.1;
	o->param.nu = 0.5;
	o->param.eps = INFINITY;	/* until the solver is known */
	o->param.regularize_bias = 1;
	o->bias = -1;
	lik_map_params_default(&o->kernel, LIK_KERNEL_ANNE);
	o->passes = 1;
	o->block = 1000;
}

/* One option with its value word; 0 or -1. */
static int train_option(struct mex_train_options *o, const char *option, const char *value,
	struct lik_error *err)
{
	char letter = option[1];
	const char name[3] = { '-', letter, '\0' };
	switch (letter) {
	case 's':
		o->solver_specified = 1;
		return int_option(name, value, INT_MIN, INT_MAX, &o->param.solver_type, err);
	case 'c':
		o->C_specified = 1;
		return real_option(name, value, &o->param.C, err);
	case 'p':
		o->p_specified = 1;
		return real_option(name, value, &o->param.p, err);
	case 'n':
		return real_option(name, value, &o->param.nu, err);
	case 'e':
		o->eps_given = 1;
		return real_option(name, value, &o->param.eps, err);
	case 'B':
		o->bias_given = 1;
		return real_option(name, value, &o->bias, err);
	case 'P':
		return int_option(name, value, 1, INT_MAX, &o->passes, err);
	case 'O':
		return int_option(name, value, 0, 1, &o->protocol, err);
	case 'b':
		return int_option(name, value, 1, INT_MAX - 1, &o->block, err);
	case 'I':
		return int_option(name, value, 1, INT_MAX - 1, &o->initial, err);
	case 'i':
		free(o->init_model);
		o->init_model = malloc(strlen(value) + 1);
		if (!o->init_model) {
			mex_error_set(err, LIK_ENOMEM, "out of memory");
			return -1;
		}
		strcpy(o->init_model, value);
		return 0;
	case 'w':
		return add_class_weight(&o->param, option, value, err);
	case 'v':
		o->cross_validation = 1;
		if (int_option(name, value, INT_MIN, INT_MAX, &o->nr_fold, err) != 0)
			return -1;
		if (o->nr_fold < 2) {
			mex_error_set(err, LIK_EINVAL, "n-fold cross validation: n must >= 2");
			return -1;
		}
		return 0;
	case 'm':
		if (int_option(name, value, 1, INT_MAX, &o->threads, err) != 0) {
			mex_error_set(err, LIK_EINVAL, "-m needs a number of threads >= 1, not \"%s\"", value);
			return -1;
		}
		return 0;
	case 'k':
		/* -k auto is a search over the map types, not one of them */
		o->auto_kernel = strcmp(value, "auto") == 0;
		if (o->auto_kernel) {
			o->kernel_on = 0;
			return 0;
		}
		return kernel_option(value, &o->kernel_on, &o->kernel.kernel, err);
	case 't':
		o->t_given = 1;
		if (int_option(name, value, 1, INT_MAX, &o->kernel.t, err) != 0) {
			mex_error_set(err, LIK_EINVAL, "-t needs a number of partitionings >= 1");
			return -1;
		}
		return 0;
	case 'g':
		o->psi_given = 1;
		if (int_option(name, value, 1, INT_MAX, &o->kernel.psi, err) != 0) {
			mex_error_set(err, LIK_EINVAL,
				"-g needs a number of cells per partitioning (psi) >= 1");
			return -1;
		}
		return 0;
	case 'r':
		o->seed_given = 1;
		return seed_option(value, &o->kernel.seed, err);
	case 'S':
		o->scale_given = 1;
		if (int_option(name, value, 0, 4, &o->kernel.scale, err) != 0) {
			mex_error_set(err, LIK_EINVAL, "-S needs 0 (none), 1 (divide by max |x|), 2 (min-max),"
				" 3 (divide by the standard deviation) or 4 (log1p, then as 1)");
			return -1;
		}
		return 0;
	case 'a':
		o->raw_given = 1;
		/* !(w >= 0) also refuses a NaN */
		if (real_option(name, value, &o->kernel.raw_weight, err) != 0 || !(o->kernel.raw_weight >= 0)) {
			mex_error_set(err, LIK_EINVAL, "-a needs the raw features' weight w, a finite number"
				" >= 0 (0: off)");
			return -1;
		}
		return 0;
	case 'd':
		return device_option(value, &o->kernel.device, err);
	default:
		mex_error_set(err, LIK_EINVAL, "unknown option: -%c", letter ? letter : ' ');
		return -1;
	}
}

int mex_train_options_parse(const char *text, struct mex_train_options *o, struct lik_error *err)
{
	train_defaults(o);
	struct words w;
	if (split_words(text, &w, err) != 0)
		return -1;
	int status = 0;
	for (int i = 0; i < w.count && status == 0; i++) {
		const char *option = w.word[i];
		if (option[0] != '-' || option[1] == '\0') {
			mex_error_set(err, LIK_EINVAL, "unexpected word \"%s\" in the options", option);
			status = -1;
		} else if (option[1] == 'q' || option[1] == 'C' || option[1] == 'R') {
			/* the options without a value (upstream's mex function lets them end the string) */
			if (option[2] != '\0') {
				mex_error_set(err, LIK_EINVAL, "unknown option: %s", option);
				status = -1;
			} else if (option[1] == 'q') {
				o->quiet = 1;
			} else if (option[1] == 'C') {
				o->find_parameters = 1;
			} else {
				o->param.regularize_bias = 0;
			}
		} else if (option[1] != 'w' && option[2] != '\0') {
			mex_error_set(err, LIK_EINVAL, "unknown option: %s", option);
			status = -1;
		} else if (i + 1 >= w.count) {
			mex_error_set(err, LIK_EINVAL, "option %s needs a value", option);
			status = -1;
		} else {
			status = train_option(o, option, w.word[i + 1], err);
			i++;
		}
	}
	free_words(&w);
	if (status != 0)
		return -1;

	/* psi and scale: -g and -S, else the defaults of the -k type */
	if (o->kernel_on) {
		struct lik_map_params d;
		lik_map_params_default(&d, o->kernel.kernel);
		if (!o->psi_given)
			o->kernel.psi = d.psi;
		if (!o->scale_given)
			o->kernel.scale = d.scale;
	}
	o->kernel.threads = o->threads;
	/* -k auto (kernel_on 0) takes -a: it fixes every kernel candidate's w */
	if (!o->kernel_on && !o->auto_kernel && o->raw_given) {
		mex_error_set(err, LIK_EINVAL, "-a (the raw features' weight) needs -k");
		return -1;
	}
	if (o->kernel_on && o->kernel.kernel == LIK_KERNEL_ACOS && o->psi_given) {
		mex_error_set(err, LIK_EINVAL, "-g cannot be used with -k acos (each projection has 2 cells)");
		return -1;
	}
	if (o->auto_kernel && !o->find_parameters) {
		mex_error_set(err, LIK_EINVAL, "-k auto needs -C: it is a search (train the model it"
			" chooses with the options it reports)");
		return -1;
	}
	/* how -k, -t, -g and -S combine, before any row is converted (the programs' checks) */
	if (o->kernel_on && lik_map_params_check(&o->kernel, err) != 0)
		return -1;
	if (o->find_parameters) {
		if (!o->cross_validation)
			o->nr_fold = 5;
		if (!o->solver_specified) {
			o->note = "Solver not specified. Using -s 2\n";
			o->param.solver_type = L2R_L2LOSS_SVC;
		} else if (o->param.solver_type != L2R_LR && o->param.solver_type != L2R_L2LOSS_SVC
			&& o->param.solver_type != L2R_L2LOSS_SVR) {
			mex_error_set(err, LIK_EINVAL,
				"Warm-start parameter search only available for -s 0, -s 2 and -s 11");
			return -1;
		}
	}
	if (o->param.eps == INFINITY)
		o->param.eps = default_eps(o->param.solver_type);
	/* -O is the online solver's protocol (the program's rules) */
	if (o->protocol) {
		if (o->solver_specified && o->param.solver_type != LIK_SOLVER_OGD) {
			mex_error_set(err, LIK_EINVAL, "-O (the online protocol) needs the online solver -s %d,"
				" not -s %d", LIK_SOLVER_OGD, o->param.solver_type);
			return -1;
		}
		o->param.solver_type = LIK_SOLVER_OGD;
	}
	if ((o->protocol || o->init_model) && (o->cross_validation || o->find_parameters)) {
		mex_error_set(err, LIK_EINVAL, "%s cannot be used with %s", o->cross_validation ? "-v" : "-C",
			o->protocol ? "-O" : "-i");
		return -1;
	}
	/* -c is eta for the online solver, whose default is the paper's 0.5, as train -s 30 has it */
	if (o->param.solver_type == LIK_SOLVER_OGD && !o->C_specified)
		o->param.C = 0.5;
	return 0;
}

void mex_train_options_free(struct mex_train_options *o)
{
	destroy_param(&o->param);
	free(o->init_model);
	o->init_model = NULL;
}

int mex_train_options_resolve(struct mex_train_options *o, const struct lik_model *initial,
	struct lik_error *err)
{
	const struct model *m = lik_model_linear(initial);
	int s = m->param.solver_type;
	if (o->solver_specified && o->param.solver_type != s) {
		mex_error_set(err, LIK_EMODEL, "the initial model was trained by -s %d, not -s %d", s,
			o->param.solver_type);
		return -1;
	}
	if (s != LIK_SOLVER_OGD && s != L2R_LR && s != L2R_L2LOSS_SVC && s != L2R_L2LOSS_SVR) {
		mex_error_set(err, LIK_EINVAL, "a model of -s %d cannot be trained further (only -s 30 goes"
			" on, and -s 0, 2, 11 start from saved weights)", s);
		return -1;
	}
	if (o->protocol && s != LIK_SOLVER_OGD) {
		mex_error_set(err, LIK_EINVAL, "-O goes on only from a -s %d model; this is a -s %d model",
			LIK_SOLVER_OGD, s);
		return -1;
	}
	if (o->bias_given && o->bias != m->bias) {
		mex_error_set(err, LIK_EMODEL, "-B %g does not fit the model's bias %g", o->bias, m->bias);
		return -1;
	}
	/* the map is the model's: reused, never rebuilt, so no kernel option applies */
	if (o->kernel_on || o->auto_kernel || o->t_given || o->psi_given || o->seed_given
		|| o->scale_given || o->raw_given) {
		mex_error_set(err, LIK_EINVAL, "-k, -t, -g, -r, -S and -a cannot be given with an initial"
			" model: its map is reused");
		return -1;
	}
	o->param.solver_type = s;
	o->bias = m->bias;
	if (!o->eps_given)
		o->param.eps = default_eps(s);
	/* -s 30 goes on with the model's eta (0.5 where it has none), as train -i */
	if (s == LIK_SOLVER_OGD && !o->C_specified)
		o->param.C = m->param.C > 0 ? m->param.C : 0.5;
	if (s != LIK_SOLVER_OGD && !o->C_specified)
		o->param.C = 1;
	return 0;
}

int mex_predict_options_parse(const char *text, struct mex_predict_options *o, struct lik_error *err)
{
	memset(o, 0, sizeof *o);
	o->device = LIK_DEVICE_AUTO;
	struct words w;
	if (split_words(text, &w, err) != 0)
		return -1;
	int status = 0;
	for (int i = 0; i < w.count && status == 0; i++) {
		const char *option = w.word[i];
		if (option[0] != '-' || option[1] == '\0') {
			mex_error_set(err, LIK_EINVAL, "unexpected word \"%s\" in the options", option);
			status = -1;
		} else if (option[2] != '\0') {
			mex_error_set(err, LIK_EINVAL, "unknown option: %s", option);
			status = -1;
		} else if (option[1] == 'q') {
			o->quiet = 1;
		} else if (i + 1 >= w.count) {
			mex_error_set(err, LIK_EINVAL, "option %s needs a value", option);
			status = -1;
		} else {
			const char *value = w.word[++i];
			switch (option[1]) {
			case 'b':
				status = int_option("-b", value, INT_MIN, INT_MAX, &o->probability, err);
				break;
			case 'm':
				if (int_option("-m", value, 1, INT_MAX, &o->threads, err) != 0) {
					mex_error_set(err, LIK_EINVAL,
						"-m needs a number of threads >= 1, not \"%s\"", value);
					status = -1;
				}
				break;
			case 'd':
				status = device_option(value, &o->device, err);
				break;
			default:
				mex_error_set(err, LIK_EINVAL, "unknown option: %s", option);
				status = -1;
			}
		}
	}
	free_words(&w);
	return status;
}
