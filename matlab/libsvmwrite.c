/*
 * libsvmwrite.c - libsvmwrite('filename', label_vector, instance_matrix):
 * writes a label vector and a sparse double matrix (one instance per row)
 * in LIBSVM format, as upstream's libsvmwrite does, except that every
 * number is written with the fewest digits (15, 16 or 17) that strtod
 * reads back as the same double, so libsvmread gives back exactly what
 * was written (upstream's %g keeps 6 digits). The file is written under a
 * temporary name and renamed into place (common/atomic_file.h): a failure
 * leaves no half-written file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "atomic_file.h"
#include "lik_mex.h"

/* v in the shortest of %.15g, %.16g, %.17g that reads back as v. */
static void exact_text(double v, char *text, size_t size)
{
	for (int digits = 15; digits < 17; digits++) {
		snprintf(text, size, "%.*g", digits, v);
		if (strtod(text, NULL) == v)
			return;
	}
	snprintf(text, size, "%.17g", v);
}

struct call {
	char *path;
	struct mex_rows rows;
	struct atomic_file file;
	int open;
	struct lik_error err;
};

static void release(struct call *c)
{
	if (c->open)
		atomic_file_abort(&c->file);
	if (c->path)
		mxFree(c->path);
	mex_rows_free(&c->rows);
}

static void fail(struct call *c, const char *id)
{
	struct lik_error err = c->err;
	release(c);
	mex_raise(id, &err);
}

static int write_rows(FILE *fp, const double *label, const struct mex_rows *rows)
{
	char text[32];
	for (size_t i = 0; i < rows->count; i++) {
		exact_text(label[i], text, sizeof text);
		if (fputs(text, fp) == EOF)
			return -1;
		for (const struct feature_node *x = rows->x[i]; x->index != -1; x++) {
			exact_text(x->value, text, sizeof text);
			if (fprintf(fp, " %d:%s", x->index, text) < 0)
				return -1;
		}
		if (fputc('\n', fp) == EOF)
			return -1;
	}
	return 0;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
	(void)plhs;
	struct call c;
	memset(&c, 0, sizeof c);
	if (nlhs > 0 || nrhs != 3 || !(c.path = mex_string(prhs[0]))) {
		mexPrintf("Usage: libsvmwrite('filename', label_vector, instance_matrix);\n");
		mex_error_set(&c.err, LIK_EINVAL, "libsvmwrite: wrong arguments (see the usage above)");
		fail(&c, "libsvmwrite:usage");
	}
	if (!mxIsDouble(prhs[1]) || !mxIsDouble(prhs[2])) {
		mex_error_set(&c.err, LIK_EINVAL, "Error: label vector and instance matrix must be double");
		fail(&c, "libsvmwrite:type");
	}
	if (!mxIsSparse(prhs[2])) {
		mex_error_set(&c.err, LIK_EINVAL, "Instance_matrix must be sparse");
		fail(&c, "libsvmwrite:sparse");
	}
	if (mex_rows_from_sparse(prhs[2], 0, -1, -1, 0, &c.rows, &c.err) != 0)
		fail(&c, "libsvmwrite:data");
	if (mex_check_labels(prhs[1], c.rows.count, 0, &c.err) != 0)
		fail(&c, "libsvmwrite:labels");
	/* a device or FIFO is written through, as upstream's fopen(.., "w") would */
	if (atomic_file_open(&c.file, c.path, ATOMIC_FILE_WRITE_THROUGH) != 0) {
		mex_error_set(&c.err, LIK_EIO, "can't open output file %s: %s", c.path,
			atomic_file_strerror(errno));
		fail(&c, "libsvmwrite:open");
	}
	c.open = 1;
	if (write_rows(c.file.fp, mxGetPr(prhs[1]), &c.rows) != 0) {
		mex_error_set(&c.err, LIK_EIO, "can't write output file %s: %s", c.path, strerror(errno));
		fail(&c, "libsvmwrite:write");
	}
	c.open = 0;
	if (atomic_file_commit(&c.file) != 0) {
		mex_error_set(&c.err, LIK_EIO, "can't write output file %s: %s", c.path,
			atomic_file_strerror(errno));
		fail(&c, "libsvmwrite:write");
	}
	release(&c);
}
