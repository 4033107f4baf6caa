/*
 * ikmap.c - the Isolation Kernel's map of a -k model, for those who want
 * the features themselves:
 *
 *   Z = ikmap(model, X [, 'col'])     the mapped rows: a sparse
 *       size(X,1) x t*psi matrix with exactly t nonzeros per row, at
 *       k*psi + cell + 1 for partitioning k, each 1/sqrt(t) (what the
 *       solvers of a -k model see; the ikmap program prints the same);
 *       a model trained with -a w has t*psi + d columns: then row r's raw
 *       features, transformed and times w, at t*psi + j (issue 28)
 *   K = ikmap(model, X, Y [, 'col'])  kernel values: K(i,j) = K(x_i, y_j),
 *       the fraction of partitionings where x_i and y_j share a cell,
 *       plus w^2 <x_i', y_j'> with -a w (the inner product of the rows Z)
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
	"Z: the mapped instances, sparse, t nonzeros 1/sqrt(t) per instance at k*psi + cell + 1,\n"
	"   then (a model trained with -a w) w times the transformed features at t*psi + j\n"
	"K: the kernel values K(x_i, y_j) in [0, 1] (plus w^2 <x_i', y_j'> with -a w)\n";

struct call {
	struct lik_map *map;
	struct mex_rows x, y;
	uint32_t *cells;
	double *raw;		/* -a models: the raw value of each node of x within the map's dim */
	size_t *raw_start;	/* row r's raw values from raw_start[r] */
	struct lik_error err;
};

static void release(struct call *c)
{
	lik_map_free(&c->map);
	mex_rows_free(&c->x);
	mex_rows_free(&c->y);
	free(c->cells);
	free(c->raw);
	free(c->raw_start);
}

/* Nodes of x's row r within the map's dim (its raw part's room). */
static size_t raw_room(const struct call *c, size_t r)
{
	int dim = lik_map_dim(c->map);
	size_t n = 0;
	for (const struct feature_node *f = c->x.x[r]; f->index != -1 && f->index <= dim; f++)
		n++;
	return n;
}

/* The raw values of x's rows (lik_map_raw_values). 0, or -1 with c->err set. */
static int raw_values(struct call *c)
{
	size_t count = c->x.count, total = 0;
	c->raw_start = malloc((count + 1) * sizeof *c->raw_start);
	if (c->raw_start == NULL) {
		mex_error_set(&c->err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	for (size_t r = 0; r < count; r++) {
		c->raw_start[r] = total;
		total += raw_room(c, r);
	}
	c->raw_start[count] = total;
	c->raw = malloc((total > 0 ? total : 1) * sizeof *c->raw);
	if (c->raw == NULL) {
		mex_error_set(&c->err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	return lik_map_raw_values(c->map, c->x.x, count, c->raw, &c->err);
}

/* The nonzero raw values of row r: at most raw_room of them. */
static size_t raw_nonzeros(const struct call *c, size_t r)
{
	size_t n = 0;
	for (size_t e = c->raw_start[r]; e < c->raw_start[r + 1]; e++)
		n += c->raw[e] != 0;
	return n;
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
	if (c->raw != NULL) {
		/* the raw part after the cells: written row by row into an instance-per-column matrix
		 * (each column ascending), transposed by MATLAB for the row form */
		for (size_t r = 0; r < count; r++)
			nnz += raw_nonzeros(c, r);
		mxArray *Z = mxCreateSparse((size_t)lik_map_columns(c->map), count, nnz ? nnz : 1, mxREAL);
		mwIndex *ir = mxGetIr(Z), *jc = mxGetJc(Z);
		double *pr = mxGetPr(Z);
		size_t at = 0;
		int dim = lik_map_dim(c->map);
		for (size_t r = 0; r < count; r++) {
			jc[r] = at;
			for (size_t k = 0; k < t; k++, at++) {
				ir[at] = k * psi + c->cells[r * t + k];
				pr[at] = value;
			}
			size_t e = c->raw_start[r];
			for (const struct feature_node *f = c->x.x[r]; f->index != -1 && f->index <= dim; f++, e++)
				if (c->raw[e] != 0) {
					ir[at] = width + (size_t)f->index - 1;
					pr[at++] = c->raw[e];
				}
		}
		jc[count] = at;
		if (col)
			return Z;
		mxArray *T = NULL, *in[1] = { Z };
		if (mexCallMATLAB(1, &T, 1, in, "transpose") != 0)
			return NULL;
		mxDestroyArray(Z);
		return T;
	}
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
		if (lik_map_raw_weight(c.map) > 0 && raw_values(&c) != 0)
			fail(&c, "liblinear:ikmap:map");
		plhs[0] = mapped_matrix(&c, col);
		if (plhs[0] == NULL) {
			mex_error_set(&c.err, LIK_ENOMEM, "out of memory");
			fail(&c, "liblinear:ikmap:memory");
		}
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
