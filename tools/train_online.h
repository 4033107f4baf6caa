/*
 * train_online.h - train's online options (issue 23): the online solver's
 * passes (-P), the online protocol (-O 1 with -b and -I) and continued
 * training (-i model_file), kept out of train.c so that train.c only hands
 * them over.
 *
 * Contract: online_cli_parse() looks at one option letter and its value
 * word, as ik_options_parse() does: 1 when the letter is ours and the value
 * is good, 0 when it is not ours, -1 after printing why the value is bad
 * (the caller prints the usage and exits 1). online_cli_wanted() says
 * whether train must hand the run to online_cli_run(), which does all of
 * it (reading, training, printing, the atomic model files) and returns the
 * exit status: 0, or 1 after one clear message on stderr.
 */
#ifndef TRAIN_ONLINE_H
#define TRAIN_ONLINE_H

#include "ik_options.h"
#include "linear.h"

#define ONLINE_DEFAULT_BLOCK 1000

struct online_cli {
	int passes;		/* -P: passes of -s 30 over the data (over each block with -O) */
	int protocol;		/* -O 1: test-then-train by blocks */
	int block;		/* -b: rows per block (1000) */
	int initial;		/* -I: rows of the initial block (0: -b) */
	const char *init_model;	/* -i: the model to go on from */
};

/* What train read from its command line, for online_cli_run. */
struct online_run {
	struct parameter *param;	/* eps still INFINITY when -e was not given */
	double bias;
	int quiet;
	int threads;
	const struct ik_options *ik;
	int cross_validation, nr_fold;
	int solver_specified, C_specified;
	const char *input_file;		/* "-": standard input (-O only) */
	const char *model_file;
	int argc;
	char **argv;
};

extern const char online_usage_text[];

void online_cli_default(struct online_cli *o);
int online_cli_parse(struct online_cli *o, char letter, const char *value);
int online_cli_wanted(const struct online_cli *o, int solver_type);
int online_cli_run(const struct online_cli *o, const struct online_run *r);

#endif /* TRAIN_ONLINE_H */
