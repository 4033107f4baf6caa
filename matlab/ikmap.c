/*
 * ikmap.c - the Isolation Kernel's map of a -k model, for those who want
 * the features themselves:
 *
 *   Z = ikmap(model, X [, 'col'])     the mapped rows: a sparse
 *       size(X,1) x t*psi matrix with exactly t nonzeros per row, at
 *       k*psi + cell + 1 for partitioning k, each 1/sqrt(t) (what the
 *       solvers of a -k model see; the ikmap program prints the same)
 *   K = ikmap(model, X, Y [, 'col'])  kernel values: K(i,j) = K(x_i, y_j),
 *       the fraction of partitionings where x_i and y_j share a cell
 *
 * model is a -k model struct (train with -k, or loadmodel) or its ik
 * field alone. With 'col' the instances are the columns of X and Y, and
 * Z is t*psi x size(X,2). X and Y are sparse double, as in train.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lik_mex.h"

static const char usage_text[] =
	"Usage: Z = ikmap(model, instance_matrix [, 'col'])\n"
	"       K = ikmap(model, instance_matrix_x, instance_matrix_y [, 'col'])\n"
	"model: a model trained with -k (or its field ik)\n"
	"Z: the mapped instances, sparse, t nonzeros 1/sqrt(t) per instance at k*psi + cell + 1\n"
	"K: the kernel values K(x_i, y_j) in [0, 1]\n";

struct call {
	struct lik_map *map;
	struct mex_rows x, y;
	uint32_t *cells;
	struct lik_error err;
};

static void release(struct call *c)
{
	lik_map_free(&c->map);
	mex_rows_free(&c->x);
	mex_rows_free(&c->y);
	free(c->cells);
}

static void fail(struct call *c, const char *id)
{
	struct lik_error err = c->err;
	release(c);
	mex_raise(id, &err);
}

/* The sparse mapped matrix of c->x's cells. */
static mxArray *mapped_matrix(const struct call *c, int col)
{
	size_t count = c->x.count;
	size_t t = (size_t)lik_map_t(c->map), psi = (size_t)lik_map_psi(c->map);
	size_t width = t * psi;
	double value = lik_map_cell_value(c->map);
	size_t nnz = count * t;
	if (col) {
		/* column r holds rows k*psi + cell, ascending as k ascends */
		mxArray *Z = mxCreateSparse(width, count, nnz ? nnz : 1, mxREAL);
		mwIndex *ir = mxGetIr(Z), *jc = mxGetJc(Z);
		double *pr = mxGetPr(Z);
		for (size_t r = 0; r <= count; r++)
			jc[r] = r * t;
		for (size_t r = 0; r < count; r++)
			for (size_t k = 0; k < t; k++) {
				ir[r * t + k] = k * psi + c->cells[r * t + k];
				pr[r * t + k] = value;
			}
		return Z;
	}
	/* count per column, their starts, then the rows in order (ascending in each column) */
	mxArray *Z = mxCreateSparse(count, width, nnz ? nnz : 1, mxREAL);
	mwIndex *ir = mxGetIr(Z), *jc = mxGetJc(Z);
	double *pr = mxGetPr(Z);
	for (size_t j = 0; j <= width; j++)
		jc[j] = 0;
	for (size_t r = 0; r < count; r++)
		for (size_t k = 0; k < t; k++)
			jc[k * psi + c->cells[r * t + k] + 1]++;
	for (size_t j = 0; j < width; j++)
		jc[j + 1] += jc[j];
	for (size_t r = 0; r < count; r++)
		for (size_t k = 0; k < t; k++) {
			size_t j = k * psi + c->cells[r * t + k];
			ir[jc[j]] = r;
			pr[jc[j]] = value;
			jc[j]++;
		}
	for (size_t j = width; j > 0; j--)
		jc[j] = jc[j - 1];
	jc[0] = 0;
	return Z;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
	struct call c;
	memset(&c, 0, sizeof c);
	int col = nrhs >= 3 && mex_is_col(prhs[nrhs - 1]);
	int args = col ? nrhs - 1 : nrhs;
	if (nlhs > 1 || args < 2 || args > 3) {
		mexPrintf("%s", usage_text);
		mex_error_set(&c.err, LIK_EINVAL, "ikmap: wrong number of arguments (see the usage above)");
		fail(&c, "liblinear:ikmap:usage");
	}
	c.map = mex_map_from_struct(prhs[0], &c.err);
	if (!c.map) {
		struct lik_error e = c.err;
		mex_error_set(&c.err, e.code, "Error: can't read model: %s", e.message);
		fail(&c, "liblinear:ikmap:model");
	}
	for (int a = 1; a < args; a++)
		if (!mxIsDouble(prhs[a]) || !mxIsSparse(prhs[a])) {
			mex_error_set(&c.err, LIK_EINVAL,
				"Instance_matrix must be sparse double; use sparse(instance_matrix) first");
			fail(&c, "liblinear:ikmap:sparse");
		}
	if (mex_rows_from_sparse(prhs[1], col, -1, -1, 0, &c.x, &c.err) != 0)
		fail(&c, "liblinear:ikmap:data");
	if (args == 2) {
		size_t t = (size_t)lik_map_t(c.map);
		size_t nr_cells = c.x.count * t;
		if (c.x.count > SIZE_MAX / sizeof *c.cells / (t ? t : 1)
			|| !(c.cells = malloc((nr_cells > 0 ? nr_cells : 1) * sizeof *c.cells))) {
			mex_error_set(&c.err, LIK_ENOMEM, "out of memory");
			fail(&c, "liblinear:ikmap:memory");
		}
		if (lik_map_rows(c.map, c.x.x, c.x.count, c.cells, LIK_DEVICE_AUTO, 0, &c.err) != 0)
			fail(&c, "liblinear:ikmap:map");
		plhs[0] = mapped_matrix(&c, col);
	} else {
		if (mex_rows_from_sparse(prhs[2], col, -1, -1, 0, &c.y, &c.err) != 0)
			fail(&c, "liblinear:ikmap:data");
		mxArray *K = mxCreateDoubleMatrix(c.x.count, c.y.count, mxREAL);
		/* row-major y-by-x is column-major x-by-y, and K is symmetric */
		if (lik_kernel_matrix(c.map, c.y.x, c.y.count, c.x.x, c.x.count, mxGetPr(K), 0, &c.err) != 0) {
			mxDestroyArray(K);
			fail(&c, "liblinear:ikmap:kernel");
		}
		plhs[0] = K;
	}
	release(&c);
}
