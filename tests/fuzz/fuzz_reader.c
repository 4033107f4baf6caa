/*
 * fuzz_reader.c - libFuzzer target for the LIBSVM data reader
 * (liblinear/reader.h).
 *
 * Input: the bytes of a data file, read twice through fmemopen: once row
 * by row (libsvm_reader_next), once whole (libsvm_data_read, with a bias
 * so the bias node is exercised). Besides crashes and sanitizer reports
 * it aborts when reader.h's contract breaks: a row's indices must be
 * 1..INT_MAX-1, strictly ascending, ended by -1 after nnz nodes, labels
 * and values finite; an error must say "Wrong input format at line N"
 * with N the reader's line; both passes must agree on the rows.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "fuzz_common.h"
#include "reader.h"

#define BIAS 1.0

/* Checks one row as reader.h promises it. */
static void check_row(double label, const struct feature_node *x, size_t nnz)
{
	FUZZ_CHECK(isfinite(label));
	int prev = 0;
	for (size_t k = 0; k < nnz; k++) {
		FUZZ_CHECK(x[k].index > prev && x[k].index <= INT_MAX - 1);
		FUZZ_CHECK(isfinite(x[k].value));
		prev = x[k].index;
	}
	FUZZ_CHECK(x[nnz].index == -1);
}

/* The error text names the reader's line, after upstream's words. */
static void check_error(const struct libsvm_reader *r)
{
	char expected[64];
	snprintf(expected, sizeof expected, "Wrong input format at line %lld",
		(long long)libsvm_reader_line(r));
	const char *msg = libsvm_reader_error(r);
	FUZZ_CHECK(strncmp(msg, expected, strlen(expected)) == 0);
	/* the rest of the line number must not continue the digits */
	char after = msg[strlen(expected)];
	FUZZ_CHECK(after < '0' || after > '9');
}

/* What the row-by-row pass saw, to compare with the whole-file pass. */
struct summary {
	int64_t rows;
	size_t nodes;		/* features, terminators excluded */
	int max_index;
	double label_sum, value_sum;
	int failed;
};

static struct summary stream_pass(const uint8_t *data, size_t size)
{
	struct summary s = {0};
	FILE *in = fmemopen((void *)data, size, "r");
	if (in == NULL)
		fuzz_give_up("fmemopen");
	struct libsvm_reader *r = libsvm_reader_from_stream(in, "fuzz input");
	if (r == NULL)
		fuzz_give_up("libsvm_reader_from_stream");
	double label;
	struct feature_node *x;
	size_t nnz;
	int status;
	while ((status = libsvm_reader_next(r, &label, &x, &nnz)) == LIBSVM_ROW) {
		check_row(label, x, nnz);
		FUZZ_CHECK(libsvm_reader_line(r) == s.rows + 1);
		s.rows++;
		s.nodes += nnz;
		if (nnz > 0 && x[nnz - 1].index > s.max_index)
			s.max_index = x[nnz - 1].index;
		s.label_sum += label;
		for (size_t k = 0; k < nnz; k++)
			s.value_sum += x[k].value;
		/* reader.h: room for a bias node after the terminator */
		x[nnz].index = INT_MAX;
		x[nnz].value = BIAS;
		x[nnz + 1].index = -1;
	}
	if (status == LIBSVM_ERROR) {
		check_error(r);
		s.failed = 1;
		/* after an error, every further call is an error */
		FUZZ_CHECK(libsvm_reader_next(r, &label, &x, &nnz) == LIBSVM_ERROR);
	}
	libsvm_reader_close(r);
	fclose(in);
	return s;
}

static void whole_pass(const uint8_t *data, size_t size, const struct summary *s)
{
	FILE *in = fmemopen((void *)data, size, "r");
	if (in == NULL)
		fuzz_give_up("fmemopen");
	struct libsvm_reader *r = libsvm_reader_from_stream(in, "fuzz input");
	if (r == NULL)
		fuzz_give_up("libsvm_reader_from_stream");
	struct libsvm_data *d = libsvm_data_read(r, BIAS);
	FUZZ_CHECK((d == NULL) == (s->failed != 0));
	if (d != NULL) {
		FUZZ_CHECK(d->prob.l == s->rows);
		FUZZ_CHECK(d->max_index == s->max_index);
		/* each row: its features, the bias node, the terminator */
		FUZZ_CHECK(d->nr_nodes == s->nodes + 2 * (size_t)s->rows);
		FUZZ_CHECK(d->prob.bias == BIAS);
		if (s->rows > 0)
			FUZZ_CHECK(d->prob.n == s->max_index + 1);
		double label_sum = 0, value_sum = 0;
		for (int i = 0; i < d->prob.l; i++) {
			label_sum += d->prob.y[i];
			const struct feature_node *x = d->prob.x[i];
			size_t k = 0;
			for (; x[k].index != -1 && x[k].index != d->prob.n; k++)
				value_sum += x[k].value;
			FUZZ_CHECK(x[k].index == d->prob.n && x[k].value == BIAS && x[k + 1].index == -1);
		}
		/* same rows in the same order: the sums agree bit for bit */
		FUZZ_CHECK(memcmp(&label_sum, &s->label_sum, sizeof label_sum) == 0);
		FUZZ_CHECK(memcmp(&value_sum, &s->value_sum, sizeof value_sum) == 0);
	} else {
		check_error(r);
	}
	libsvm_data_free(d);
	libsvm_reader_close(r);
	fclose(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* fmemopen refuses a size of 0 before glibc 2.22; an empty file is
	   covered by the unit tests */
	if (size == 0)
		return 0;
	struct summary s = stream_pass(data, size);
	whole_pass(data, size, &s);
	return 0;
}
