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
 * A model trained with -k names its partitioning file in a trailer line
 * (ik/ik_model.h). predict then loads and verifies that file (any problem
 * is an error: never a silent linear prediction), maps the test rows in
 * batches of IK_BATCH_ROWS (ik/ik_batch.h) and predicts each mapped row
 * with the public predict()/predict_probability(), so the arithmetic is
 * exactly upstream's on the rows `ikmap` prints. -m threads and -d device
 * (LIBLINEAR-IK additions) choose where the mapping runs.
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
#include "ik_model.h"
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
 * Fits a test row to the model in place: drops features the model does
 * not know (index > nr_feature) and appends the bias node. The reader
 * leaves room for that node.
 */
static void fit_row_to_model(struct feature_node *x, size_t nnz, const struct model *m)
{
	int nr_feature = get_nr_feature(m);
	size_t k = 0;
	while (k < nnz && x[k].index <= nr_feature)
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

/* What every row's prediction needs: -b's buffer, the output, the totals. */
struct predictor {
	const struct model *m;
	int probability;
	double *prob;		/* nr_class slots with -b 1 */
	FILE *out;
	struct scores scores;
};

/* Writes the -b 1 header. 0, or -1 after a message. */
static int predictor_start(struct predictor *p, const struct model *m, const struct options *o, FILE *out)
{
	*p = (struct predictor){ .m = m, .probability = o->probability, .out = out };
	if (!o->probability)
		return 0;
	int nr_class = get_nr_class(m);
	p->prob = malloc((size_t)(nr_class > 0 ? nr_class : 1) * sizeof *p->prob);
	if (!p->prob || write_labels(out, m) != 0) {
		fprintf(stderr, "ERROR: out of memory\n");
		return -1;
	}
	return 0;
}

/* Predicts a row already in the model's feature space and writes its line. */
static void predict_row(struct predictor *p, const struct feature_node *x, double target)
{
	double predicted;
	if (p->probability) {
		predicted = predict_probability(p->m, x, p->prob);
		fprintf(p->out, "%g", predicted);
		for (int j = 0; j < get_nr_class(p->m); j++)
			fprintf(p->out, " %g", p->prob[j]);
		fprintf(p->out, "\n");
	} else {
		predicted = predict(p->m, x);
		fprintf(p->out, "%.17g\n", predicted);
	}
	score(&p->scores, predicted, target);
}

/* Plain model: each row as read. 0, or -1 after a message. */
static int predict_linear(struct libsvm_reader *r, struct predictor *p)
{
	double target;
	struct feature_node *x;
	size_t nnz;
	int status;
	while ((status = libsvm_reader_next(r, &target, &x, &nnz)) == LIBSVM_ROW) {
		fit_row_to_model(x, nnz, p->m);
		predict_row(p, x, target);
	}
	if (status == LIBSVM_ERROR) {
		fprintf(stderr, "%s\n", libsvm_reader_error(r));
		return -1;
	}
	return 0;
}

/* -k model: rows mapped a batch at a time. 0, or -1 after a message. */
static int predict_mapped(struct libsvm_reader *r, struct predictor *p, const struct ikmap *map,
	int threads, enum ikmap_device device)
{
	struct ik_batch batch;
	if (ik_batch_init(&batch, IK_BATCH_ROWS, map) != 0)
		return -1;
	struct feature_node *x = malloc(((size_t)ikmap_t(map) + 2) * sizeof *x);
	if (!x) {
		fprintf(stderr, "ERROR: out of memory\n");
		ik_batch_free(&batch);
		return -1;
	}
	long count;
	while ((count = ik_batch_next(&batch, r, map, threads, device)) > 0)
		for (long i = 0; i < count; i++) {
			ik_cell_row(map, ik_batch_cells(&batch, (size_t)i), p->m->bias, x);
			predict_row(p, x, batch.labels[i]);
		}
	free(x);
	ik_batch_free(&batch);
	return count < 0 ? -1 : 0;
}

/*
 * Predicts every row of r into out (through map when it is not NULL).
 * Returns 0, or -1 after a message.
 */
static int predict_rows(struct libsvm_reader *r, FILE *out, const struct model *m,
	const struct ikmap *map, const struct options *o, struct scores *s)
{
	struct predictor p;
	int status = predictor_start(&p, m, o, out);
	if (status == 0)
		status = map ? predict_mapped(r, &p, map, o->threads, o->ik.device) : predict_linear(r, &p);
	free(p.prob);
	*s = p.scores;
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
	struct model *m = load_model(o.model_file);
	if (!m) {
		fprintf(stderr, "can't open model file %s\n", o.model_file);
		atomic_file_abort(&out);
		libsvm_reader_close(r);
		return 1;
	}
	if (o.probability && !check_probability_model(m)) {
		fprintf(stderr, "probability output is only supported for logistic regression\n");
		atomic_file_abort(&out);
		libsvm_reader_close(r);
		free_and_destroy_model(&m);
		return 1;
	}
	struct ikmap *map;
	struct lik_error err;
	if (ik_model_load_map(o.model_file, m, &map, &err) != 0) {
		lik_error_print(&err);
		atomic_file_abort(&out);
		libsvm_reader_close(r);
		free_and_destroy_model(&m);
		return 1;
	}

	struct scores s = {0};
	int failed = predict_rows(r, out.fp, m, map, &o, &s);
	libsvm_reader_close(r);
	ikmap_free(map);
	if (failed) {
		atomic_file_abort(&out);
		free_and_destroy_model(&m);
		return 1;
	}
	if (atomic_file_commit(&out) != 0) {
		fprintf(stderr, "can't write output file %s: %s\n", o.output_file,
			atomic_file_strerror(errno));
		free_and_destroy_model(&m);
		return 1;
	}
	if (!o.quiet)
		print_scores(&s, m);
	free_and_destroy_model(&m);
	return 0;
}
