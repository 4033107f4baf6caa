/*
 * train_online.c - train's online solver runs, online protocol and
 * continued training (train_online.h; README "Online learning").
 *
 * -s 30 without -O or -i reads the whole file as train does (the map, with
 * -k, built from all its rows) and makes -P passes in file order. -O 1
 * reads the stream block by block (never more than a block in memory):
 * the initial block (-I rows, default -b) builds the map and trains the
 * first model; every later block is predicted by the current model first
 * and then trained on. -i starts from a saved model instead of the initial
 * block (the map is the model's, never rebuilt).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_number.h"
#include "ik_batch.h"
#include "ik_model.h"
#include "lik_internal.h"
#include "model_shape.h"
#include "online.h"
#include "reader.h"
#include "train_online.h"

const char online_usage_text[] =
	"Online learning (see README \"Online learning\"):\n"
	"-s 30 : online gradient descent, hinge loss (IK-OGD with -k); one-vs-rest for multi-class;\n"
	"\t-c is its learning rate eta (default 0.5, the paper's; a mistake adds eta*y*phi(x),\n"
	"\tand phi.phi is the kernel in [0,1] as in the paper's OGD: see README)\n"
	"-P passes : passes of -s 30 over the data, or over each block with -O (default 1)\n"
	"-O 0|1 : online protocol (implies -s 30): the stream (a file, or /dev/stdin for a pipe) is read in\n"
	"\tblocks; each block after the initial one is predicted first, then trained on;\n"
	"\tone accuracy line per block on stderr (not with -q), the overall one on stdout\n"
	"-b rows : rows per block with -O (default 1000)\n"
	"-I rows : rows of the initial block with -O, which alone builds the -k map, so\n"
	"\tpsi (-g) must not exceed it (default: -b)\n"
	"-i model_file : continued training: train -i model_file [options] new_data [new_model]\n"
	"\tstarts from the saved model (its map reused): -s 30 goes on, -s 0, 2, 11 start\n"
	"\tfrom its weights; the model decides -s, -k, -B and -s 30's eta (-c) when they\n"
	"\tare not given\n";

void online_cli_default(struct online_cli *o)
{
	memset(o, 0, sizeof *o);
	o->passes = 1;
	o->block = ONLINE_DEFAULT_BLOCK;
}

int online_cli_parse(struct online_cli *o, char letter, const char *value)
{
	switch (letter) {
	case 'P':
		return cli_int_option("-P", value, 1, INT_MAX, &o->passes) == 0 ? 1 : -1;
	case 'O':
		return cli_int_option("-O", value, 0, 1, &o->protocol) == 0 ? 1 : -1;
	case 'b':
		return cli_int_option("-b", value, 1, INT_MAX - 1, &o->block) == 0 ? 1 : -1;
	case 'I':
		return cli_int_option("-I", value, 1, INT_MAX - 1, &o->initial) == 0 ? 1 : -1;
	case 'i':
		if (value[0] == '\0') {
			fprintf(stderr, "ERROR: -i needs a model file name\n");
			return -1;
		}
		o->init_model = value;
		return 1;
	default:
		return 0;
	}
}

int online_cli_wanted(const struct online_cli *o, int solver_type)
{
	return o->protocol || o->init_model != NULL || solver_type == ONLINE_OGD;
}

/* Whether -letter is among the options (each takes one word, as train reads them). */
static int given(const struct online_run *r, char letter)
{
	for (int i = 1; i < r->argc && r->argv[i][0] == '-'; i++) {
		if (r->argv[i][1] == letter)
			return 1;
		if (r->argv[i][1] != 'q' && r->argv[i][1] != 'C' && r->argv[i][1] != 'R')
			i++;
	}
	return 0;
}

/* -d as the C API's device: where a -k model's rows are mapped (the protocol's blocks, -i's file). */
static int map_device(const struct online_run *r)
{
	return r->ik->device == IKMAP_DEVICE_GPU ? LIK_DEVICE_GPU
		: r->ik->device == IKMAP_DEVICE_CPU ? LIK_DEVICE_CPU : LIK_DEVICE_AUTO;
}

static int fail_with(const struct lik_error *err)
{
	lik_error_print(err);
	return 1;
}

static double newton_default_eps(int s)
{
	return s == L2R_L2LOSS_SVR ? 0.0001 : 0.01;
}

/* The kernel options given must be the model's (its map is reused). 0, or 1 after a message. */
static int check_kernel_fits(const struct online_run *r, const struct lik_model *m)
{
	const struct lik_map *map = lik_model_map(m);
	const struct ik_options *ik = r->ik;
	if (given(r, 'k') && (map == NULL) != (ik->kernel == IK_KERNEL_NONE)) {
		fprintf(stderr, "ERROR: -k %s does not fit the model, which %s\n",
			ik->kernel == IK_KERNEL_NONE ? "0" : ik_kernel_name(ik->kernel),
			map == NULL ? "has no kernel map" : "has a kernel map");
		return 1;
	}
	if (map == NULL)
		return 0;
	const char *bad = NULL;
	if (given(r, 'k') && (int)ik->kernel != lik_map_kernel(map))
		bad = "-k";
	else if (given(r, 't') && ik->t != lik_map_t(map))
		bad = "-t";
	else if (given(r, 'g') && ik->psi != lik_map_psi(map))
		bad = "-g";
	else if (given(r, 'r') && ik->seed != lik_map_seed(map))
		bad = "-r";
	else if (given(r, 'S') && ik->kernel != IK_KERNEL_IFOREST && ik->scale != lik_map_scaled(map))
		bad = "-S";
	if (bad != NULL) {
		fprintf(stderr, "ERROR: %s does not fit the model's map (%s, t = %d, psi = %d): "
			"continued training reuses the model's map\n", bad,
			lik_kernel_name(lik_map_kernel(map)), lik_map_t(map),
			lik_map_psi(map));
		return 1;
	}
	return 0;
}

/* Loads -i's model and fixes the parameters it decides. NULL after a message. */
static struct lik_model *load_initial(const struct online_cli *o, const struct online_run *r,
	struct parameter *param, double *bias)
{
	struct lik_error err;
	struct lik_model *m = lik_model_load(o->init_model, &err);
	if (m == NULL) {
		lik_error_print(&err);
		return NULL;
	}
	const struct model *lin = lik_model_linear(m);
	int s = lin->param.solver_type;
	if (r->solver_specified && param->solver_type != s) {
		fprintf(stderr, "ERROR: the model %s was trained by -s %d, not -s %d\n", o->init_model, s,
			param->solver_type);
		goto refuse;
	}
	param->solver_type = s;
	if (s != ONLINE_OGD && !solver_takes_init_sol(s)) {
		fprintf(stderr, "ERROR: -i: a model of -s %d cannot be trained further "
			"(only -s 30 goes on, and -s 0, 2, 11 start from saved weights)\n", s);
		goto refuse;
	}
	if (given(r, 'B') && r->bias != lin->bias) {
		fprintf(stderr, "ERROR: -B %g does not fit the model's bias %g\n", r->bias, lin->bias);
		goto refuse;
	}
	*bias = lin->bias;
	if (check_kernel_fits(r, m) != 0)
		goto refuse;
	/* -s 30 goes on with the model's eta (its file's "eta" line; 0.5 for a file without one) */
	if (s == ONLINE_OGD && !r->C_specified)
		param->C = lin->param.C > 0 ? lin->param.C : ONLINE_DEFAULT_ETA;
	if (!given(r, 'e'))
		param->eps = newton_default_eps(s);
	return m;
refuse:
	lik_model_free(&m);
	return NULL;
}

static struct libsvm_reader *open_input(const char *path)
{
	struct libsvm_reader *rd = strcmp(path, "-") == 0
		? libsvm_reader_from_stream(stdin, "standard input")
		: libsvm_reader_open(path);
	if (rd == NULL)
		fprintf(stderr, "can't open input file %s\n", path);
	return rd;
}

static struct libsvm_data *read_all(const char *path, double bias)
{
	struct libsvm_reader *rd = open_input(path);
	if (rd == NULL)
		return NULL;
	struct libsvm_data *d = libsvm_data_read(rd, bias);
	if (d == NULL)
		fprintf(stderr, "%s\n", libsvm_reader_error(rd));
	libsvm_reader_close(rd);
	if (d != NULL && d->prob.l == 0) {
		fprintf(stderr, "ERROR: no data in training file %s\n", path);
		libsvm_data_free(d);
		return NULL;
	}
	return d;
}

static int check_outputs(const char *model_file, int kernel)
{
	struct lik_error err;
	if (kernel && ik_model_check_outputs(model_file, &err) != 0)
		return fail_with(&err);
	return 0;
}

/* -s 30 on a whole file: -v n, or a model of -P passes (the map from all rows with -k). */
static int run_whole(const struct online_cli *o, const struct online_run *r, struct parameter *param)
{
	int kernel = r->ik->kernel != IK_KERNEL_NONE;
	if (!r->cross_validation && check_outputs(r->model_file, kernel) != 0)
		return 1;
	struct libsvm_data *d = read_all(r->input_file, kernel ? -1 : r->bias);
	if (d == NULL)
		return 1;
	struct problem prob = d->prob;
	prob.bias = r->bias;
	if (kernel)
		prob.n = d->max_index + (r->bias >= 0 ? 1 : 0);
	int status = 1;
	const char *why = check_parameter(&prob, param);
	if (why != NULL) {
		fprintf(stderr, "ERROR: %s\n", why);
		goto done;
	}
	/* as train: row i of the file is line i + 1, refused before any work */
	if (kernel && ik_needs_nonnegative(r->ik->kernel == IK_KERNEL_MINMAX, ik_options_scale(r->ik))
		&& ik_refuse_negative(prob.x, (size_t)prob.l, INT_MAX, r->input_file, 1,
			ik_log1p_advice(ik_options_scale(r->ik), 0) != NULL
			? ik_log1p_advice(ik_options_scale(r->ik), 0) : "-k minmax"
			" needs non-negative values (-S 2 min-max scales them to [0, 1])") != 0)
		goto done;
	struct lik_map_params kp;
	if (kernel)
		kp = ik_options_kernel(r->ik, r->threads);
	struct row_set X;
	struct ikmap *map = NULL;
	void *cells = NULL;
	struct lik_error err;
	if (lik_kernel_rows(&prob, kernel ? &kp : NULL, &X, &map, &cells, &err) != 0) {
		lik_error_print(&err);
		goto done;
	}
	if (r->cross_validation) {
		double *target = malloc((size_t)prob.l * sizeof *target);
		if (target == NULL || online_cross_validation_rows(&X, prob.y, prob.bias, param, o->passes,
			r->nr_fold, target) != 0) {
			fprintf(stderr, "ERROR: out of memory in cross validation\n");
		} else {
			int correct = 0;
			for (int i = 0; i < prob.l; i++)
				correct += target[i] == prob.y[i];
			printf("Cross Validation Accuracy = %g%%\n", 100.0 * correct / prob.l);
			status = 0;
		}
		free(target);
		free(cells);
		ikmap_free(map);
		goto done;
	}
	struct model *linear = online_train_rows(&X, prob.y, prob.bias, param, o->passes);
	free(cells);
	if (linear == NULL) {
		ikmap_free(map);
		goto done;
	}
	struct lik_map *shared = NULL;
	if (map != NULL && (shared = lik_map_wrap(map, &err)) == NULL) {
		free_and_destroy_model(&linear);
		lik_error_print(&err);
		goto done;
	}
	struct lik_model *m = lik_model_wrap(linear, shared, &err);
	if (m == NULL || lik_model_save(r->model_file, m, &err) != 0)
		lik_error_print(&err);
	else
		status = 0;
	lik_model_free(&m);
done:
	libsvm_data_free(d);
	return status;
}

/* -i without -O: lik_train_from on the whole new file. */
/*
 * A -k minmax map without -S 2, and every map under -S 4 (log1p), take
 * non-negative values only: the first
 * negative one among rows[0..n-1] (at a feature <= dim) is an error naming
 * the input's line (row i is line rows_before + i + 1) and feature. The
 * library would refuse it too, but only knows its row within one call.
 * 0, or -1 after the message.
 */
static int refuse_negative(const struct online_run *r, const struct lik_map *map,
	struct feature_node *const *rows, size_t n, int64_t rows_before)
{
	int dim = INT_MAX, scale;
	if (map != NULL) {
		scale = lik_map_scaled(map);
		if (!ik_needs_nonnegative(lik_map_kernel(map) == LIK_KERNEL_MINMAX, scale))
			return 0;
		dim = lik_map_dim(map);
	} else {
		/* no map yet: the one -k and -S will build */
		scale = ik_options_scale(r->ik);
		if (r->ik->kernel == IK_KERNEL_NONE
			|| !ik_needs_nonnegative(r->ik->kernel == IK_KERNEL_MINMAX, scale))
			return 0;
	}
	const char *advice = ik_log1p_advice(scale, map != NULL);
	return ik_refuse_negative(rows, n, dim, r->input_file, rows_before + 1, advice != NULL
		? advice : "-k minmax needs non-negative values (-S 2 min-max scales them to [0, 1])");
}

static int run_continued(const struct online_cli *o, const struct online_run *r, struct parameter *param)
{
	if (r->cross_validation) {
		fprintf(stderr, "ERROR: -v cannot be used with -i (cross validation starts from zero)\n");
		return 1;
	}
	double bias = r->bias;
	struct lik_model *initial = load_initial(o, r, param, &bias);
	if (initial == NULL)
		return 1;
	int status = 1;
	struct libsvm_data *d = NULL;
	if (check_outputs(r->model_file, lik_model_map(initial) != NULL) != 0)
		goto done;
	d = read_all(r->input_file, bias);
	if (d == NULL)
		goto done;
	struct problem prob = d->prob;
	struct lik_error err;
	if (lik_model_map(initial) != NULL
		&& refuse_negative(r, lik_model_map(initial), prob.x, (size_t)prob.l, 0) != 0)
		goto done;
	struct lik_model *m = lik_train_from(&prob, param, initial, o->passes, map_device(r),
		r->threads, &err);
	if (m == NULL || lik_model_save(r->model_file, m, &err) != 0)
		lik_error_print(&err);
	else
		status = 0;
	lik_model_free(&m);
done:
	libsvm_data_free(d);
	lik_model_free(&initial);
	return status;
}

/* ---- the online protocol ---- */

/* Up to `rows` rows of the stream, each with room for a bias node. */
struct block {
	int l, cap;
	double *y;
	size_t *start;			/* where row i's nodes begin */
	struct feature_node *nodes;
	size_t used, room;
	struct feature_node **x;	/* set by block_rows after reading */
	int max_index;
};

static void block_free(struct block *b)
{
	free(b->y);
	free(b->start);
	free(b->nodes);
	free(b->x);
	memset(b, 0, sizeof *b);
}

/* Reads up to rows rows. 1: some read; 0: the stream is done; -1 after a message. */
static int block_read(struct block *b, struct libsvm_reader *rd, int rows)
{
	b->l = 0;
	b->used = 0;
	b->max_index = 0;
	while (b->l < rows) {
		double label;
		struct feature_node *x;
		size_t nnz;
		int got = libsvm_reader_next(rd, &label, &x, &nnz);
		if (got == LIBSVM_ERROR) {
			fprintf(stderr, "%s\n", libsvm_reader_error(rd));
			return -1;
		}
		if (got == LIBSVM_EOF)
			break;
		if (b->l == b->cap) {
			int cap = b->cap > 0 ? 2 * b->cap : 256;
			double *y = realloc(b->y, (size_t)cap * sizeof *y);
			if (y != NULL)
				b->y = y;
			size_t *start = realloc(b->start, (size_t)cap * sizeof *start);
			if (start != NULL)
				b->start = start;
			if (y == NULL || start == NULL)
				goto nomem;
			b->cap = cap;
		}
		size_t need = b->used + nnz + 2;	/* the features, a bias node, the terminator */
		if (need > b->room) {
			size_t room = b->room > 0 ? b->room : 4096;
			while (room < need)
				room *= 2;
			struct feature_node *nodes = realloc(b->nodes, room * sizeof *nodes);
			if (nodes == NULL)
				goto nomem;
			b->nodes = nodes;
			b->room = room;
		}
		b->y[b->l] = label;
		b->start[b->l] = b->used;
		memcpy(b->nodes + b->used, x, (nnz + 1) * sizeof *x);
		if (nnz > 0 && x[nnz - 1].index > b->max_index)
			b->max_index = x[nnz - 1].index;
		b->used = need;
		b->l++;
	}
	if (b->l == 0)
		return 0;
	free(b->x);
	b->x = malloc((size_t)b->l * sizeof *b->x);
	if (b->x == NULL)
		goto nomem;
	for (int i = 0; i < b->l; i++)
		b->x[i] = b->nodes + b->start[i];
	return 1;
nomem:
	fprintf(stderr, "ERROR: out of memory reading a block\n");
	return -1;
}

/* With a plain model's bias: the bias node (index nr_feature + 1) after row i's features, or off. */
static void block_bias(struct block *b, const struct model *m, int on)
{
	for (int i = 0; i < b->l; i++) {
		/* each row's terminator is two nodes before the next row (block_read's room) */
		size_t end = (i + 1 < b->l ? b->start[i + 1] : b->used) - 2;
		struct feature_node *f = b->nodes + end;
		if (on) {
			f[0].index = m->nr_feature + 1;
			f[0].value = m->bias;
			f[1].index = -1;
		} else {
			f[0].index = -1;
		}
	}
}

/* The first model: the map of the initial block (with -k) and an empty -s 30 model. */
static struct lik_model *first_model(const struct online_run *r, const struct parameter *param,
	struct block *b)
{
	struct lik_error err;
	struct lik_map *map = NULL;
	int nr_feature = 0;
	if (r->ik->kernel != IK_KERNEL_NONE) {
		struct lik_map_params kp = ik_options_kernel(r->ik, r->threads);
		/* IK maps sample psi rows of the block; minmax and acos cells are not rows */
		if (!lik_kernel_is_exact(kp.kernel) && kp.psi > b->l) {
			fprintf(stderr, "ERROR: psi = %d exceeds the %d rows of the initial block: with -O the map is "
				"built from the initial block only (raise -I or lower -g)\n", kp.psi, b->l);
			return NULL;
		}
		struct problem p = { b->l, b->max_index, b->y, b->x, -1 };
		map = lik_map_build(&p, &kp, &err);
		if (map == NULL) {
			lik_error_print(&err);
			return NULL;
		}
		nr_feature = lik_map_columns(map);	/* the cells, and the raw part with -a */
	}
	struct model *linear = online_model_new(nr_feature, r->bias, param);
	if (linear == NULL) {
		lik_map_free(&map);
		return NULL;
	}
	struct lik_model *m = lik_model_wrap(linear, map, &err);
	if (m == NULL)
		lik_error_print(&err);
	return m;
}

static int run_protocol(const struct online_cli *o, const struct online_run *r, struct parameter *param)
{
	if (r->cross_validation) {
		fprintf(stderr, "ERROR: -v cannot be used with -O (the protocol tests every block itself)\n");
		return 1;
	}
	if (r->solver_specified && param->solver_type != ONLINE_OGD) {
		fprintf(stderr, "ERROR: -O (the online protocol) needs the online solver -s %d, not -s %d\n",
			ONLINE_OGD, param->solver_type);
		return 1;
	}
	param->solver_type = ONLINE_OGD;
	if (!r->C_specified)
		param->C = ONLINE_DEFAULT_ETA;
	struct online_run run = *r;
	struct lik_model *m = NULL;
	if (o->init_model != NULL && (m = load_initial(o, r, param, &run.bias)) == NULL)
		return 1;
	if (param->solver_type != ONLINE_OGD) {
		fprintf(stderr, "ERROR: -O goes on only from a -s %d model; %s is a -s %d model\n", ONLINE_OGD,
			o->init_model, param->solver_type);
		lik_model_free(&m);
		return 1;
	}
	struct problem none = { 0, 0, NULL, NULL, run.bias };
	const char *why = check_parameter(&none, param);
	if (why != NULL) {
		fprintf(stderr, "ERROR: %s\n", why);
		lik_model_free(&m);
		return 1;
	}
	int kernel = m != NULL ? lik_model_map(m) != NULL : r->ik->kernel != IK_KERNEL_NONE;
	if (check_outputs(r->model_file, kernel) != 0) {
		lik_model_free(&m);
		return 1;
	}
	struct libsvm_reader *rd = open_input(r->input_file);
	if (rd == NULL) {
		lik_model_free(&m);
		return 1;
	}
	struct block b = {0};
	double *predicted = NULL;
	int status = 1, got;
	long long tested = 0, correct = 0, blocks = 0, initial_rows = 0;
	struct lik_error err;
	if (m == NULL) {
		int rows = o->initial > 0 ? o->initial : o->block;
		got = block_read(&b, rd, rows);
		if (got <= 0) {
			if (got == 0)
				fprintf(stderr, "ERROR: no data in training file %s\n", r->input_file);
			goto done;
		}
		if (refuse_negative(r, NULL, b.x, (size_t)b.l, 0) != 0
			|| (m = first_model(&run, param, &b)) == NULL)
			goto done;
		if (lik_online_update(m, b.x, b.y, (size_t)b.l, param, o->passes, map_device(r),
			r->threads, &err) != 0) {
			lik_error_print(&err);
			goto done;
		}
		initial_rows = b.l;
		if (!r->quiet)
			fprintf(stderr, "initial block: %d rows trained on%s\n", b.l,
				kernel ? " (the map built from them)" : "");
	}
	while ((got = block_read(&b, rd, o->block)) > 0) {
		double *grown = realloc(predicted, (size_t)b.l * sizeof *grown);
		if (grown == NULL) {
			fprintf(stderr, "ERROR: out of memory\n");
			goto done;
		}
		predicted = grown;
		if (lik_model_map(m) != NULL && refuse_negative(r, lik_model_map(m), b.x, (size_t)b.l,
			initial_rows + tested) != 0)
			goto done;
		const struct model *lin = lik_model_linear(m);
		int plain_bias = lik_model_map(m) == NULL && lin->bias >= 0;
		if (plain_bias)
			block_bias(&b, lin, 1);
		int rc = lik_predict_rows(m, b.x, (size_t)b.l, LIK_OUTPUT_LABEL, predicted, NULL,
			map_device(r), r->threads, &err);
		if (plain_bias)
			block_bias(&b, lin, 0);
		if (rc != 0) {
			lik_error_print(&err);
			goto done;
		}
		long long right = 0;
		for (int i = 0; i < b.l; i++)
			right += predicted[i] == b.y[i];
		tested += b.l;
		correct += right;
		blocks++;
		if (!r->quiet)
			fprintf(stderr, "block %lld: %d rows, accuracy %g%%, online accuracy %g%% (%lld/%lld)\n",
				blocks, b.l, 100.0 * (double)right / b.l, 100.0 * (double)correct / (double)tested,
				correct, tested);
		if (lik_online_update(m, b.x, b.y, (size_t)b.l, param, o->passes, map_device(r),
			r->threads, &err) != 0) {
			lik_error_print(&err);
			goto done;
		}
	}
	if (got < 0)
		goto done;
	if (tested > 0)
		printf("Online accuracy = %g%% (%lld/%lld) over %lld blocks after an initial %lld rows\n",
			100.0 * (double)correct / (double)tested, correct, tested, blocks, initial_rows);
	else
		printf("Online accuracy = none: no rows after the initial %lld\n", initial_rows);
	if (lik_model_save(r->model_file, m, &err) != 0) {
		lik_error_print(&err);
		goto done;
	}
	status = 0;
done:
	libsvm_reader_close(rd);
	block_free(&b);
	free(predicted);
	lik_model_free(&m);
	return status;
}

int online_cli_run(const struct online_cli *o, const struct online_run *r)
{
	struct parameter param = *r->param;
	if (o->protocol)
		return run_protocol(o, r, &param);
	if (o->init_model != NULL)
		return run_continued(o, r, &param);
	if (!r->C_specified)
		param.C = ONLINE_DEFAULT_ETA;
	return run_whole(o, r, &param);
}
