/*
 * libsvmread.c - [label_vector, instance_matrix] = libsvmread('filename'):
 * reads a LIBSVM-format file into a label column and a sparse double
 * matrix (one row per line), as upstream's libsvmread does: indices
 * ascend within a line, index 0 is allowed (a precomputed kernel; then
 * index i is column i + 1), an empty line or a malformed one is refused
 * with upstream's message and its line number. Every number is read with
 * strtod, so a file that libsvmwrite wrote gives back the same doubles.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lik_mex.h"

/* What one read holds; freed whichever way it ends. */
struct reading {
	char *path;
	FILE *fp;
	char *line;
	size_t line_cap;
	double *label;		/* one per line */
	size_t *line_end;	/* nodes of lines 0..i end at line_end[i] */
	size_t lines, label_cap, end_cap;
	int *index;		/* the nodes, all lines after another */
	double *value;
	size_t nodes, index_cap, value_cap;
	struct lik_error err;
};

static void release(struct reading *r)
{
	if (r->path)
		mxFree(r->path);
	if (r->fp)
		fclose(r->fp);
	free(r->line);
	free(r->label);
	free(r->line_end);
	free(r->index);
	free(r->value);
}

static void fail(struct reading *r, const char *id)
{
	struct lik_error err = r->err;
	release(r);
	mex_raise(id, &err);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 1024;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			return -1;
		n *= 2;
	}
	void *q = realloc(*p, n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

/* A number made of the whole word; underflow to a subnormal or 0 is fine. */
static int whole_double(const char *word, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(word, &end);
	if (end == word || *end != '\0' || (errno == ERANGE && isinf(v)))
		return 0;
	*out = v;
	return 1;
}

static int wrong_format(struct reading *r, size_t line_number)
{
	mex_error_set(&r->err, LIK_EDATA, "Wrong input format at line %zu", line_number);
	return -1;
}

/* Parses one line (its newline removed) into the arrays. 0 or -1. */
static int parse_line(struct reading *r, char *line, size_t line_number, int *max_index,
	int *has_zero)
{
	char *save = NULL;
	char *word = strtok_r(line, " \t\r\v\f\n", &save);
	if (!word) {
		mex_error_set(&r->err, LIK_EDATA, "Empty line at line %zu", line_number);
		return -1;
	}
	if (grow((void **)&r->label, &r->label_cap, r->lines + 1, sizeof *r->label) != 0
		|| grow((void **)&r->line_end, &r->end_cap, r->lines + 1, sizeof *r->line_end) != 0)
		goto out_of_memory;
	double label;
	if (!whole_double(word, &label))
		return wrong_format(r, line_number);
	long previous = -1;
	while ((word = strtok_r(NULL, " \t\r\v\f\n", &save)) != NULL) {
		char *colon = strchr(word, ':');
		if (!colon)
			return wrong_format(r, line_number);
		*colon = '\0';
		char *end;
		errno = 0;
		long index = strtol(word, &end, 10);
		if (end == word || *end != '\0' || errno != 0 || index <= previous || index > INT_MAX - 1)
			return wrong_format(r, line_number);
		double value;
		if (!whole_double(colon + 1, &value))
			return wrong_format(r, line_number);
		if (grow((void **)&r->index, &r->index_cap, r->nodes + 1, sizeof *r->index) != 0
			|| grow((void **)&r->value, &r->value_cap, r->nodes + 1, sizeof *r->value) != 0)
			goto out_of_memory;
		r->index[r->nodes] = (int)index;
		r->value[r->nodes] = value;
		r->nodes++;
		previous = index;
		if (index == 0)
			*has_zero = 1;
		if (index > *max_index)
			*max_index = (int)index;
	}
	r->label[r->lines] = label;
	r->line_end[r->lines] = r->nodes;
	r->lines++;
	return 0;

out_of_memory:
	mex_error_set(&r->err, LIK_ENOMEM, "out of memory");
	return -1;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
	struct reading r;
	memset(&r, 0, sizeof r);
	if (nrhs != 1 || nlhs > 2 || !(r.path = mex_string(prhs[0]))) {
		mexPrintf("Usage: [label_vector, instance_matrix] = libsvmread('filename');\n");
		mex_error_set(&r.err, LIK_EINVAL, "libsvmread: wrong arguments (see the usage above)");
		fail(&r, "libsvmread:usage");
	}
	r.fp = fopen(r.path, "r");
	if (!r.fp) {
		mex_error_set(&r.err, LIK_EIO, "can't open input file %s", r.path);
		fail(&r, "libsvmread:open");
	}
	int max_index = 0, has_zero = 0;
	size_t line_number = 0;
	ssize_t len;
	while ((len = getline(&r.line, &r.line_cap, r.fp)) != -1) {
		line_number++;
		if (parse_line(&r, r.line, line_number, &max_index, &has_zero) != 0)
			fail(&r, "libsvmread:format");
	}
	if (ferror(r.fp)) {
		mex_error_set(&r.err, LIK_EIO, "can't read input file %s", r.path);
		fail(&r, "libsvmread:read");
	}

	/* columns: index - first, where first is 0 when some index is 0 (upstream's shift) */
	int first = has_zero ? 0 : 1;
	size_t columns = r.nodes ? (size_t)max_index - (size_t)first + 1 : 0;
	mxArray *y = mxCreateDoubleMatrix(r.lines, 1, mxREAL);
	if (r.lines)
		memcpy(mxGetPr(y), r.label, r.lines * sizeof(double));
	mxArray *X = mxCreateSparse(r.lines, columns, r.nodes ? r.nodes : 1, mxREAL);
	mwIndex *ir = mxGetIr(X), *jc = mxGetJc(X);
	double *pr = mxGetPr(X);
	/* column counts, their starts, then the nodes line by line (rows ascend in each column) */
	for (size_t j = 0; j <= columns; j++)
		jc[j] = 0;
	for (size_t k = 0; k < r.nodes; k++)
		jc[(size_t)(r.index[k] - first) + 1]++;
	for (size_t j = 0; j < columns; j++)
		jc[j + 1] += jc[j];
	size_t begin = 0;
	for (size_t i = 0; i < r.lines; i++) {
		for (size_t k = begin; k < r.line_end[i]; k++) {
			size_t j = (size_t)(r.index[k] - first);
			/* jc[j] is the next free slot of column j until the shift below */
			ir[jc[j]] = i;
			pr[jc[j]] = r.value[k];
			jc[j]++;
		}
		begin = r.line_end[i];
	}
	for (size_t j = columns; j > 0; j--)
		jc[j] = jc[j - 1];
	jc[0] = 0;
	release(&r);
	plhs[0] = y;
	if (nlhs > 1)
		plhs[1] = X;
	else
		mxDestroyArray(X);
}
