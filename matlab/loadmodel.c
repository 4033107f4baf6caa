/*
 * loadmodel.c - model = loadmodel('model_file'): reads a model file as
 * the predict program reads it (the kernel's lik_model_load): a plain
 * model, or a -k model and the MODEL.ik its trailer names, with every
 * check predict makes; a missing, damaged or mismatched partitioning is
 * an error, never a plain model. Gives the struct train gives.
 */
#include <string.h>
#include "lik_mex.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
	struct lik_error err;
	char *path = NULL;
	if (nlhs > 1 || nrhs != 1 || !(path = mex_string(prhs[0]))) {
		mexPrintf("Usage: model = loadmodel('model_file');\n");
		mex_error_set(&err, LIK_EINVAL, "loadmodel: wrong arguments (see the usage above)");
		mex_raise("liblinear:loadmodel:usage", &err);
	}
	struct lik_model *model = lik_model_load(path, &err);
	if (!model) {
		struct lik_error why = err;
		mex_error_set(&err, why.code, "can't load model from file %s: %s", path, why.message);
		mxFree(path);
		mex_raise("liblinear:loadmodel:load", &err);
	}
	mxFree(path);
	mxArray *s = mex_model_to_struct(model, &err);
	lik_model_free(&model);
	if (!s)
		mex_raise("liblinear:loadmodel:convert", &err);
	plhs[0] = s;
}
