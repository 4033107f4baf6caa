/*
 * predict.c - the `predict` command: upstream LIBLINEAR 2.50's CLI.
 *
 * predict [options] test_file model_file output_file, options -b 0/1 and
 * -q, with upstream's output formats and messages. The test file is read
 * one row at a time, so its size does not matter. Differences, all
 * deliberate: the arguments are counted (upstream reads past argv), -b
 * must be a whole integer (tools/cli_number.h; upstream's atoi takes "1x"), an
 * empty test file is an error, input errors say why after upstream's
 * "Wrong input format at line N", and a regular output file is written
 * to a temporary file beside it and renamed into place only when all
 * went well (common/atomic_file.h), so a failed or interrupted run
 * (SIGINT, SIGTERM) leaves no partial output; a device or FIFO is
 * written through, as upstream does, and never replaced.
 *
 * Models are loaded and rows predicted through the kernel's C API
 * (ik/liblinear_ik.h). A model trained with -k names its partitioning
 * file in a trailer line (ik/ik_model.h); lik_model_load loads and
 * verifies that file (any problem is an error: never a silent linear
 * prediction). The test rows are read in batches of IK_BATCH_ROWS
 * (tools/ik_batch.h) and given to lik_predict_rows, which maps a -k model's
 * rows and predicts the mapped rows with the public
 * predict()/predict_probability(), so the arithmetic is exactly upstream's
 * on the rows `ikmap` prints. -m threads and -d device (LIBLINEAR-IK
 * additions) choose where the mapping runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli_number.h"
#include "atomic_file.h"
#include "ik_batch.h"
#include "ik_options.h"
#include "lik_internal.h"
#include "linear.h"
#include "reader.h"

/* upstream README, "`predict' Usage" */
static const char usage_text[] =
	"Usage: predict [options] test_file model_file output_file\n"
	"options:\n"
	"-b probability_estimates: whether to output probability estimates, 0 or 1 (default 0); currently for logistic regression only\n"
	"-q : quiet mode (no outputs)\n"
	"LIBLINEAR-IK additions, for models trained with -k:\n"
	"-m threads : number of threads to map the test rows (default: all cores)\n"
	"-d device : where to map the test rows: auto, cpu or gpu (default auto)\n";

static void exit_with_help(void)
{
	fputs(usage_text, stdout);
	exit(1);
}

struct options {
	int probability;	/* -b */
	int quiet;		/* -q */
	int threads;		/* -m; 0: all cores */
	struct ik_options ik;	/* only -d is used */
	const char *test_file;
	const char *model_file;
	const char *output_file;
};

static void parse_command_line(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof *o);
	ik_options_default(&o->ik);
	int i;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		switch (argv[i][1]) {
		case 'q':
			o->quiet = 1;
			break;
		case 'b':
			if (++i >= argc)
				exit_with_help();
			if (cli_int_option("-b", argv[i], INT_MIN, INT_MAX, &o->probability) != 0)
				exit_with_help();
			break;
		case 'm':
			if (++i >= argc)
				exit_with_help();
			if (cli_thread_count(argv[i], &o->threads) != 0)
				exit_with_help();
			break;
		case 'd':
			if (++i >= argc || ik_options_parse(&o->ik, 'd', argv[i]) != 1)
				exit_with_help();
			break;
		default:
			fprintf(stderr, "unknown option: -%c\n", argv[i][1]);
			exit_with_help();
		}
	}
	if (argc - i < 3)
		exit_with_help();
	o->test_file = argv[i];
	o->model_file = argv[i + 1];
	o->output_file = argv[i + 2];
	if (ik_options_check_device(&o->ik) != 0)
		exit(1);
}

/* Running totals for the summary line(s). */
struct scores {
	int64_t total, correct;
	double error, sump, sumt, sumpp, sumtt, sumpt;
};

static void score(struct scores *s, double predicted, double target)
{
	if (predicted == target)
		s->correct++;
	s->error += (predicted - target) * (predicted - target);
	s->sump += predicted;
	s->sumt += target;
	s->sumpp += predicted * predicted;
	s->sumtt += target * target;
	s->sumpt += predicted * target;
	s->total++;
}

static void print_scores(const struct scores *s, const struct model *m)
{
	double n = (double)s->total;
	if (check_regression_model(m)) {
		double num = n * s->sumpt - s->sump * s->sumt;
		printf("Mean squared error = %g (regression)\n", s->error / n);
		printf("Squared correlation coefficient = %g (regression)\n",
			num * num / ((n * s->sumpp - s->sump * s->sump) * (n * s->sumtt - s->sumt * s->sumt)));
	} else {
		printf("Accuracy = %g%% (%" PRId64 "/%" PRId64 ")\n",
			(double)s->correct / n * 100, s->correct, s->total);
	}
}

/*
 * Fits a plain model's test row to it in place: drops features the model
 * does not know (index > nr_feature) and appends the bias node (the batch
 * leaves room for it, ik_batch.h).
 */
static void fit_row_to_model(struct feature_node *x, const struct model *m)
{
	int nr_feature = get_nr_feature(m);
	size_t k = 0;
	while (x[k].index != -1 && x[k].index <= nr_feature)
		k++;
	if (m->bias >= 0) {
		x[k].index = nr_feature + 1;
		x[k].value = m->bias;
		k++;
	}
	x[k].index = -1;
}

/* Writes the "labels ..." header of -b 1. 0, or -1 when out of memory. */
static int write_labels(FILE *out, const struct model *m)
{
	int nr_class = get_nr_class(m);
	int *labels = malloc((size_t)(nr_class > 0 ? nr_class : 1) * sizeof *labels);
	if (!labels)
		return -1;
	get_labels(m, labels);
	fprintf(out, "labels");
	for (int j = 0; j < nr_class; j++)
		fprintf(out, " %d", labels[j]);
	fprintf(out, "\n");
	free(labels);
	return 0;
}

/* The library's device of -d. */
static int device_of(const struct options *o)
{
	return ik_options_kernel(&o->ik, o->threads).device;
}

/*
 * Predicts every row of r into out, IK_BATCH_ROWS rows at a time (memory
 * is bounded by a batch): lik_predict_rows maps a -k model's raw rows
 * and predicts the cell rows with linear.h's predict / predict_probability,
 * a plain model's rows fitted to it. Returns 0, or -1 after a message.
 */
static int predict_stream(struct libsvm_reader *r, FILE *out, const struct lik_model *model,
	const struct options *o, struct scores *s)
{
	const struct model *m = lik_model_linear(model);
	int what = o->probability ? LIK_OUTPUT_PROBABILITY : LIK_OUTPUT_LABEL;
	size_t width = (size_t)lik_model_nr_outputs(model, what);
	struct ik_batch batch;
	if (ik_batch_init(&batch, IK_BATCH_ROWS, NULL) != 0)
		return -1;
	double *labels = malloc(IK_BATCH_ROWS * sizeof *labels);
	double *values = malloc(IK_BATCH_ROWS * (width > 0 ? width : 1) * sizeof *values);
	int status = 0;
	if (!labels || !values || (o->probability && write_labels(out, m) != 0)) {
		fprintf(stderr, "ERROR: out of memory\n");
		status = -1;
	}
	long count = 0;
	const struct lik_map *map = lik_model_map(model);
	/* a -k minmax map without min-max scaling (issue 27), and any map under -S 4 (issue 28),
	 * takes no negative value */
	int refuse_negative = map != NULL
		&& ik_needs_nonnegative(lik_map_kernel(map) == LIK_KERNEL_MINMAX, lik_map_scaled(map));
	const char *log1p_advice = map != NULL ? ik_log1p_advice(lik_map_scaled(map), 1) : NULL;
	batch.name = o->test_file;
	while (status == 0 && (count = ik_batch_next(&batch, r, NULL, 0, IKMAP_DEVICE_CPU)) > 0) {
		size_t n = (size_t)count;
		/* the batch reads only (the library maps): the line-numbered check is made here */
		if (refuse_negative && ik_refuse_negative(batch.rows, n, lik_map_dim(map), o->test_file,
			batch.rows_before + 1, log1p_advice != NULL ? log1p_advice
			: "the model's -k minmax map takes non-negative values only"
			" (train with -S 2 to min-max scale them)") != 0) {
			status = -1;
			break;
		}
		if (lik_model_map(model) == NULL)
			for (size_t i = 0; i < n; i++)
				fit_row_to_model(batch.rows[i], m);
		struct lik_error err;
		if (lik_predict_rows(model, batch.rows, n, what, labels, width > 0 ? values : NULL,
			device_of(o), o->threads, &err) != 0) {
			lik_error_print(&err);
			status = -1;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			if (o->probability) {
				fprintf(out, "%g", labels[i]);
				for (size_t j = 0; j < width; j++)
					fprintf(out, " %g", values[i * width + j]);
				fprintf(out, "\n");
			} else {
				fprintf(out, "%.17g\n", labels[i]);
			}
			score(s, labels[i], batch.labels[i]);
		}
	}
	if (count < 0)
		status = -1;	/* ik_batch_next said why */
	free(labels);
	free(values);
	ik_batch_free(&batch);
	if (status == 0 && s->total == 0) {
		fprintf(stderr, "ERROR: no data in test file %s\n", o->test_file);
		return -1;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct options o;
	parse_command_line(argc, argv, &o);
	atomic_file_install_signal_cleanup();

	/* the same order of checks as upstream: input, output, model */
	struct libsvm_reader *r = libsvm_reader_open(o.test_file);
	if (!r) {
		fprintf(stderr, "can't open input file %s\n", o.test_file);
		return 1;
	}
	/* every early return below frees what it holds, so that a run of the
	   sanitized build (make sanitize-check) ends without a leak report */
	struct atomic_file out;
	if (atomic_file_open(&out, o.output_file, ATOMIC_FILE_WRITE_THROUGH) != 0) {
		fprintf(stderr, "can't open output file %s\n", o.output_file);
		libsvm_reader_close(r);
		return 1;
	}
	char model_line[LIK_MESSAGE_SIZE];
	struct lik_error err;
	struct lik_model *model = lik_model_load_detailed(o.model_file, model_line, &err);
	if (!model) {
		if (model_line[0] != '\0')	/* load_model's own line, then upstream's */
			fprintf(stderr, "%s\ncan't open model file %s\n", model_line, o.model_file);
		else
			lik_error_print(&err);	/* can't open it, or why the pair is refused */
		atomic_file_abort(&out);
		libsvm_reader_close(r);
		return 1;
	}
	const struct model *m = lik_model_linear(model);
	if (o.probability && !lik_model_is_probability(model)) {
		fprintf(stderr, "probability output is only supported for logistic regression\n");
		atomic_file_abort(&out);
		libsvm_reader_close(r);
		lik_model_free(&model);
		return 1;
	}

	struct scores s = {0};
	int failed = predict_stream(r, out.fp, model, &o, &s);
	libsvm_reader_close(r);
	if (failed) {
		atomic_file_abort(&out);
		lik_model_free(&model);
		return 1;
	}
	if (atomic_file_commit(&out) != 0) {
		fprintf(stderr, "can't write output file %s: %s\n", o.output_file,
			atomic_file_strerror(errno));
		lik_model_free(&model);
		return 1;
	}
	if (!o.quiet)
		print_scores(&s, m);
	lik_model_free(&model);
	return 0;
}
