/*
 * lik_mex_convert.c - Octave/MATLAB arrays to the kernel's C API and back:
 * sparse instance matrices to rows, label vectors, model structs (see
 * lik_mex.h for the contract).
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lik_mex.h"

/* ---- data ---- */

void mex_rows_free(struct mex_rows *rows)
{
	free(rows->x);
	free(rows->nodes);
	memset(rows, 0, sizeof *rows);
}

int mex_rows_from_sparse(const mxArray *X, int instances_are_columns, int max_feature,
	double bias, int bias_index, struct mex_rows *rows, struct lik_error *err)
{
	memset(rows, 0, sizeof *rows);
	if (!mxIsDouble(X) || !mxIsSparse(X) || mxIsComplex(X)) {
		mex_error_set(err, LIK_EINVAL, "the instance matrix must be a real sparse double matrix");
		return -1;
	}
	size_t m = mxGetM(X), n = mxGetN(X);
	size_t count = instances_are_columns ? n : m;
	size_t width = instances_are_columns ? m : n;
	if (width > (size_t)INT_MAX - 1) {
		mex_error_set(err, LIK_EINVAL, "the instance matrix has %zu features; at most %d are possible",
			width, INT_MAX - 1);
		return -1;
	}
	size_t limit = max_feature >= 0 && (size_t)max_feature < width ? (size_t)max_feature : width;
	const mwIndex *ir = mxGetIr(X);
	const mwIndex *jc = mxGetJc(X);
	const double *value = mxGetPr(X);
	size_t extra = bias >= 0 ? 2 : 1;	/* the bias node, the end marker */

	/* per-instance node counts, then their offsets (upstream transposes X instead) */
	size_t *start = calloc(count + 1, sizeof *start);
	rows->x = malloc((count ? count : 1) * sizeof *rows->x);
	if (!start || !rows->x)
		goto out_of_memory;
	size_t columns = instances_are_columns ? count : width;
	for (size_t j = 0; j < columns; j++)
		for (mwIndex k = jc[j]; k < jc[j + 1]; k++) {
			size_t instance = instances_are_columns ? j : (size_t)ir[k];
			size_t feature = instances_are_columns ? (size_t)ir[k] : j;
			if (feature < limit)
				start[instance]++;
		}
	size_t total = 0;
	for (size_t r = 0; r < count; r++) {
		size_t c = start[r];
		start[r] = total;
		if (c > SIZE_MAX / sizeof(struct feature_node) - total - extra)
			goto out_of_memory;
		total += c + extra;
	}
	if (total > SIZE_MAX / sizeof(struct feature_node))
		goto out_of_memory;
	rows->nodes = malloc((total ? total : 1) * sizeof *rows->nodes);
	if (!rows->nodes)
		goto out_of_memory;
	for (size_t r = 0; r < count; r++)
		rows->x[r] = rows->nodes + start[r];
	/* start[r] now moves along instance r as its nodes are filled, in column order */
	for (size_t j = 0; j < columns; j++)
		for (mwIndex k = jc[j]; k < jc[j + 1]; k++) {
			size_t instance = instances_are_columns ? j : (size_t)ir[k];
			size_t feature = instances_are_columns ? (size_t)ir[k] : j;
			if (feature < limit) {
				struct feature_node *node = rows->nodes + start[instance]++;
				node->index = (int)feature + 1;
				node->value = value[k];
			}
		}
	for (size_t r = 0; r < count; r++) {
		struct feature_node *node = rows->nodes + start[r];
		if (bias >= 0) {
			node->index = bias_index;
			node->value = bias;
			node++;
		}
		node->index = -1;
		node->value = 0;
	}
	free(start);
	rows->count = count;
	rows->nr_column = width;
	return 0;

out_of_memory:
	free(start);
	mex_rows_free(rows);
	mex_error_set(err, LIK_ENOMEM, "out of memory");
	return -1;
}

int mex_check_labels(const mxArray *y, size_t count, int column_vector, struct lik_error *err)
{
	if (!mxIsDouble(y) || mxIsComplex(y)) {
		mex_error_set(err, LIK_EINVAL, "Error: label vector and instance matrix must be double");
		return -1;
	}
	if (mxIsSparse(y)) {
		mex_error_set(err, LIK_EINVAL, "Error: label vector should not be in sparse format");
		return -1;
	}
	if (mxGetM(y) != count) {
		mex_error_set(err, LIK_EINVAL, "Length of label vector does not match # of instances.");
		return -1;
	}
	if (column_vector && mxGetN(y) != 1 && count > 0) {
		mex_error_set(err, LIK_EINVAL, "label (1st argument) should be a vector (# of column is 1).");
		return -1;
	}
	return 0;
}

/* ---- model struct: out ---- */

static const char *const plain_fields[] = {
	"Parameters", "nr_class", "nr_feature", "bias", "Label", "w", "rho"
};
#define NR_PLAIN_FIELDS 7
static const char *const ik_fields[] = {
	"kernel", "t", "psi", "seed", "scale", "checksum", "bytes"
};
#define NR_IK_FIELDS 7

static mxArray *scalar(double v)
{
	return mxCreateDoubleScalar(v);
}

static int nr_w_of(int nr_class, int solver_type)
{
	return nr_class == 2 && solver_type != MCSVM_CS ? 1 : nr_class;
}

/* The ik field of a map, or NULL (err set). */
static mxArray *map_to_struct(const struct lik_map *map, struct lik_error *err)
{
	unsigned char *bytes = NULL;
	size_t size = 0;
	if (lik_map_to_bytes(map, &bytes, &size, err) != 0)
		return NULL;
	mxArray *s = mxCreateStructMatrix(1, 1, NR_IK_FIELDS, (const char **)ik_fields);
	mxSetField(s, 0, "kernel", mxCreateString(lik_kernel_name(lik_map_kernel(map))));
	mxSetField(s, 0, "t", scalar(lik_map_t(map)));
	mxSetField(s, 0, "psi", scalar(lik_map_psi(map)));
	mxArray *seed = mxCreateNumericMatrix(1, 1, mxUINT64_CLASS, mxREAL);
	*(uint64_t *)mxGetData(seed) = lik_map_seed(map);
	mxSetField(s, 0, "seed", seed);
	mxSetField(s, 0, "scale", scalar(lik_map_scaled(map)));
	char checksum[17];
	snprintf(checksum, sizeof checksum, "%016" PRIx64, lik_map_checksum(map));
	mxSetField(s, 0, "checksum", mxCreateString(checksum));
	mxArray *b = mxCreateNumericMatrix(size, 1, mxUINT8_CLASS, mxREAL);
	if (size)
		memcpy(mxGetData(b), bytes, size);
	lik_free(bytes);
	mxSetField(s, 0, "bytes", b);
	return s;
}

mxArray *mex_model_to_struct(const struct lik_model *model, struct lik_error *err)
{
	const struct model *m = lik_model_linear(model);
	const struct lik_map *map = lik_model_map(model);
	mxArray *ik = NULL;
	if (map && !(ik = map_to_struct(map, err)))
		return NULL;
	int nr_fields = map ? NR_PLAIN_FIELDS + 1 : NR_PLAIN_FIELDS;
	const char *names[NR_PLAIN_FIELDS + 1];
	for (int i = 0; i < NR_PLAIN_FIELDS; i++)
		names[i] = plain_fields[i];
	names[NR_PLAIN_FIELDS] = "ik";
	mxArray *s = mxCreateStructMatrix(1, 1, nr_fields, names);

	int nr_w = nr_w_of(m->nr_class, m->param.solver_type);
	size_t w_size = (size_t)m->nr_feature + (m->bias >= 0 ? 1 : 0);
	/* upstream's Parameters holds the solver type; a -s 30 model's adds its eta (its file's eta line) */
	if (m->param.solver_type == LIK_SOLVER_OGD && m->param.C > 0) {
		mxArray *parameters = mxCreateDoubleMatrix(2, 1, mxREAL);
		mxGetPr(parameters)[0] = m->param.solver_type;
		mxGetPr(parameters)[1] = m->param.C;
		mxSetField(s, 0, "Parameters", parameters);
	} else {
		mxSetField(s, 0, "Parameters", scalar(m->param.solver_type));
	}
	mxSetField(s, 0, "nr_class", scalar(m->nr_class));
	mxSetField(s, 0, "nr_feature", scalar(m->nr_feature));
	mxSetField(s, 0, "bias", scalar(m->bias));
	mxArray *label;
	if (m->label) {
		label = mxCreateDoubleMatrix((size_t)m->nr_class, 1, mxREAL);
		double *p = mxGetPr(label);
		for (int k = 0; k < m->nr_class; k++)
			p[k] = m->label[k];
	} else {
		label = mxCreateDoubleMatrix(0, 0, mxREAL);
	}
	mxSetField(s, 0, "Label", label);
	/* liblinear's w is feature-major (w[j*nr_w + k]): column-major nr_w x w_size as it is */
	mxArray *w = mxCreateDoubleMatrix((size_t)nr_w, w_size, mxREAL);
	if (w_size * (size_t)nr_w > 0)
		memcpy(mxGetPr(w), m->w, w_size * (size_t)nr_w * sizeof(double));
	mxSetField(s, 0, "w", w);
	mxSetField(s, 0, "rho", scalar(m->rho));
	if (ik)
		mxSetField(s, 0, "ik", ik);
	return s;
}

/* ---- model struct: in ---- */

/* A field's array, or NULL (err says which is missing). */
static const mxArray *field(const mxArray *s, const char *prefix, const char *name,
	struct lik_error *err)
{
	const mxArray *f = mxGetField(s, 0, name);
	if (!f)
		mex_error_set(err, LIK_EMODEL, "%s%s is missing", prefix, name);
	return f;
}

/* A real numeric (or logical) scalar field, as a double. */
static int scalar_field(const mxArray *s, const char *prefix, const char *name, double *out,
	struct lik_error *err)
{
	const mxArray *f = field(s, prefix, name, err);
	if (!f)
		return -1;
	if (!(mxIsNumeric(f) || mxIsLogical(f)) || mxIsComplex(f) || mxIsSparse(f)
		|| mxGetNumberOfElements(f) != 1) {
		mex_error_set(err, LIK_EMODEL, "%s%s must be a real number", prefix, name);
		return -1;
	}
	*out = mxGetScalar(f);
	return 0;
}

/* A scalar field that must hold an integer in [min, max]. */
static int integer_field(const mxArray *s, const char *prefix, const char *name, double min,
	double max, int *out, struct lik_error *err)
{
	double v;
	if (scalar_field(s, prefix, name, &v, err) != 0)
		return -1;
	if (!(v >= min && v <= max) || v != floor(v)) {
		mex_error_set(err, LIK_EMODEL, "%s%s must be an integer from %.0f to %.0f, not %g",
			prefix, name, min, max, v);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/*
 * model.Parameters: the solver type, and for -s 30 optionally its eta as a
 * second element (positive, finite; C stays 0 without it: eta unknown).
 */
static int parameters_field(const mxArray *s, int *solver_type, double *eta, struct lik_error *err)
{
	const mxArray *f = field(s, "model.", "Parameters", err);
	if (!f)
		return -1;
	size_t n = mxGetNumberOfElements(f);
	if (!(mxIsNumeric(f) || mxIsLogical(f)) || mxIsComplex(f) || mxIsSparse(f) || n < 1 || n > 2
		|| (n == 2 && !mxIsDouble(f))) {
		mex_error_set(err, LIK_EMODEL, "model.Parameters must be the solver type (and for -s 30 its eta)");
		return -1;
	}
	double v = n == 1 ? mxGetScalar(f) : mxGetPr(f)[0];
	if (!(v >= -1e9 && v <= 1e9) || v != floor(v)) {
		mex_error_set(err, LIK_EMODEL, "model.Parameters must be an integer from -1000000000 to"
			" 1000000000, not %g", v);
		return -1;
	}
	*solver_type = (int)v;
	if (n == 2) {
		double e = mxGetPr(f)[1];
		if (*solver_type != LIK_SOLVER_OGD || !(e > 0) || !isfinite(e)) {
			mex_error_set(err, LIK_EMODEL, "model.Parameters(2) is the eta of a -s 30 model:"
				" a positive finite number");
			return -1;
		}
		*eta = e;
	}
	return 0;
}

static int known_solver(int s)
{
	switch (s) {
	case L2R_LR: case L2R_L2LOSS_SVC_DUAL: case L2R_L2LOSS_SVC: case L2R_L1LOSS_SVC_DUAL:
	case MCSVM_CS: case L1R_L2LOSS_SVC: case L1R_LR: case L2R_LR_DUAL:
	case L2R_L2LOSS_SVR: case L2R_L2LOSS_SVR_DUAL: case L2R_L1LOSS_SVR_DUAL: case ONECLASS_SVM:
	case LIK_SOLVER_OGD:	/* ours: the online solver's model (weights as any classifier's) */
		return 1;
	default:
		return 0;
	}
}

static int is_regression_solver(int s)
{
	return s == L2R_L2LOSS_SVR || s == L2R_L2LOSS_SVR_DUAL || s == L2R_L1LOSS_SVR_DUAL;
}

/* The seed field: a uint64 scalar (as written), or a double holding a whole number. */
static int seed_field(const mxArray *s, uint64_t *out, struct lik_error *err)
{
	const mxArray *f = field(s, "model.ik.", "seed", err);
	if (!f)
		return -1;
	if (mxGetNumberOfElements(f) == 1 && !mxIsComplex(f) && !mxIsSparse(f)) {
		if (mxGetClassID(f) == mxUINT64_CLASS) {
			*out = *(const uint64_t *)mxGetData(f);
			return 0;
		}
		if (mxIsDouble(f)) {
			double v = mxGetScalar(f);
			if (v >= 0 && v < 18446744073709551616.0 && v == floor(v)) {
				*out = (uint64_t)v;
				return 0;
			}
		}
	}
	mex_error_set(err, LIK_EMODEL, "model.ik.seed must be a uint64 scalar");
	return -1;
}

/* A char field's text equals expected. */
static int text_field_is(const mxArray *s, const char *name, const char *expected, int *equal,
	struct lik_error *err)
{
	const mxArray *f = field(s, "model.ik.", name, err);
	if (!f)
		return -1;
	char *text = mex_string(f);
	if (!text) {
		mex_error_set(err, LIK_EMODEL, "model.ik.%s must be a string", name);
		return -1;
	}
	*equal = strcmp(text, expected) == 0;
	mxFree(text);
	return 0;
}

static int mismatch(const char *name, struct lik_error *err)
{
	mex_error_set(err, LIK_EMODEL,
		"model.ik.%s does not match the partitioning in model.ik.bytes (a damaged -k model)", name);
	return -1;
}

/* Every descriptive field of ik against the map its bytes give. */
static int check_ik_fields(const mxArray *ik, const struct lik_map *map, struct lik_error *err)
{
	int equal;
	if (text_field_is(ik, "kernel", lik_kernel_name(lik_map_kernel(map)), &equal, err) != 0)
		return -1;
	if (!equal)
		return mismatch("kernel", err);
	double v;
	if (scalar_field(ik, "model.ik.", "t", &v, err) != 0)
		return -1;
	if (v != lik_map_t(map))
		return mismatch("t", err);
	if (scalar_field(ik, "model.ik.", "psi", &v, err) != 0)
		return -1;
	if (v != lik_map_psi(map))
		return mismatch("psi", err);
	uint64_t seed;
	if (seed_field(ik, &seed, err) != 0)
		return -1;
	if (seed != lik_map_seed(map))
		return mismatch("seed", err);
	if (scalar_field(ik, "model.ik.", "scale", &v, err) != 0)
		return -1;
	if (v != lik_map_scaled(map))
		return mismatch("scale", err);
	char checksum[17];
	snprintf(checksum, sizeof checksum, "%016" PRIx64, lik_map_checksum(map));
	if (text_field_is(ik, "checksum", checksum, &equal, err) != 0)
		return -1;
	if (!equal)
		return mismatch("checksum", err);
	return 0;
}

struct lik_map *mex_map_from_struct(const mxArray *s, struct lik_error *err)
{
	if (!mxIsStruct(s) || mxGetNumberOfElements(s) != 1) {
		mex_error_set(err, LIK_EINVAL, "the model must be a 1x1 struct");
		return NULL;
	}
	/* a model struct (it has weights) carries the partitioning in ik; else s is that field */
	const mxArray *ik = s;
	if (mxGetField(s, 0, "w")) {
		ik = mxGetField(s, 0, "ik");
		if (!ik) {
			mex_error_set(err, LIK_EMODEL,
				"the model has no ik field: it is not a -k model (train it with -k)");
			return NULL;
		}
	}
	if (!mxIsStruct(ik) || mxGetNumberOfElements(ik) != 1) {
		mex_error_set(err, LIK_EMODEL, "model.ik must be a 1x1 struct (the partitioning of a -k model)");
		return NULL;
	}
	const mxArray *bytes = field(ik, "model.ik.", "bytes", err);
	if (!bytes)
		return NULL;
	if (mxGetClassID(bytes) != mxUINT8_CLASS || mxIsComplex(bytes)) {
		mex_error_set(err, LIK_EMODEL, "model.ik.bytes must be a uint8 vector");
		return NULL;
	}
	struct lik_error why;
	struct lik_map *map = lik_map_from_bytes(mxGetData(bytes), mxGetNumberOfElements(bytes), &why);
	if (!map) {
		mex_error_set(err, why.code == LIK_ENOMEM ? LIK_ENOMEM : LIK_EMODEL,
			"model.ik.bytes is not a valid partitioning (a damaged -k model): %s", why.message);
		return NULL;
	}
	if (check_ik_fields(ik, map, err) != 0) {
		lik_map_free(&map);
		return NULL;
	}
	return map;
}

struct lik_model *mex_model_from_struct(const mxArray *s, struct lik_error *err)
{
	if (!mxIsStruct(s) || mxGetNumberOfElements(s) != 1) {
		mex_error_set(err, LIK_EINVAL, "model file should be a struct array");
		return NULL;
	}
	struct model m;
	memset(&m, 0, sizeof m);
	const char *p = "model.";
	double bias;
	if (parameters_field(s, &m.param.solver_type, &m.param.C, err) != 0)
		return NULL;
	if (!known_solver(m.param.solver_type)) {
		mex_error_set(err, LIK_EMODEL, "model.Parameters: unknown solver type %d",
			m.param.solver_type);
		return NULL;
	}
	if (integer_field(s, p, "nr_class", 1, INT_MAX, &m.nr_class, err) != 0
		|| integer_field(s, p, "nr_feature", 0, INT_MAX - 1, &m.nr_feature, err) != 0
		|| scalar_field(s, p, "bias", &bias, err) != 0)
		return NULL;
	if (isnan(bias)) {
		mex_error_set(err, LIK_EMODEL, "model.bias must be a number");
		return NULL;
	}
	m.bias = bias;
	/* rho came with 2.44's one-class SVM; a struct from before has none */
	if (mxGetField(s, 0, "rho") && scalar_field(s, p, "rho", &m.rho, err) != 0)
		return NULL;

	int nr_w = nr_w_of(m.nr_class, m.param.solver_type);
	size_t w_size = (size_t)m.nr_feature + (m.bias >= 0 ? 1 : 0);
	const mxArray *w = field(s, p, "w", err);
	if (!w)
		return NULL;
	if (!mxIsDouble(w) || mxIsComplex(w) || mxIsSparse(w) || mxGetM(w) != (size_t)nr_w
		|| mxGetNumberOfElements(w) != (size_t)nr_w * w_size) {
		mex_error_set(err, LIK_EMODEL,
			"model.w must be a full real %d x %zu double matrix (nr_w x (nr_feature + bias)), not %zu x %zu",
			nr_w, w_size, (size_t)mxGetM(w), (size_t)mxGetN(w));
		return NULL;
	}
	m.w = mxGetPr(w);

	const mxArray *label = field(s, p, "Label", err);
	if (!label)
		return NULL;
	int needs_labels = !is_regression_solver(m.param.solver_type)
		&& m.param.solver_type != ONECLASS_SVM;
	int *labels = NULL;
	if (!mxIsEmpty(label)) {
		if (!(mxIsNumeric(label)) || mxIsComplex(label) || mxIsSparse(label)
			|| mxGetNumberOfElements(label) != (size_t)m.nr_class) {
			mex_error_set(err, LIK_EMODEL, "model.Label must hold nr_class (%d) labels",
				m.nr_class);
			return NULL;
		}
		labels = malloc((size_t)m.nr_class * sizeof *labels);
		if (!labels) {
			mex_error_set(err, LIK_ENOMEM, "out of memory");
			return NULL;
		}
		for (int k = 0; k < m.nr_class; k++) {
			double v = mxIsDouble(label) ? mxGetPr(label)[k] : 0;
			if (!mxIsDouble(label) || !(v >= INT_MIN && v <= INT_MAX) || v != floor(v)) {
				free(labels);
				mex_error_set(err, LIK_EMODEL, "model.Label must hold integer labels (double)");
				return NULL;
			}
			labels[k] = (int)v;
		}
	} else if (needs_labels) {
		mex_error_set(err, LIK_EMODEL, "model.Label is empty: a classification model needs its labels");
		return NULL;
	}
	m.label = labels;

	struct lik_map *map = NULL;
	const mxArray *ik = mxGetField(s, 0, "ik");
	if (ik) {
		/* a struct that says it is a -k model is one, or nothing: never a plain model */
		if (mxIsEmpty(ik)) {
			free(labels);
			mex_error_set(err, LIK_EMODEL, "model.ik is empty: a -k model needs its partitioning");
			return NULL;
		}
		map = mex_map_from_struct(ik, err);
		if (!map) {
			free(labels);
			return NULL;
		}
	}
	struct lik_model *model = lik_model_assemble(&m, map, err);
	lik_map_free(&map);
	free(labels);
	return model;
}
