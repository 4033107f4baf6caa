/*
 * savemodel.c - savemodel(model, 'model_file'): writes a model struct as
 * the train program writes it: MODEL (upstream's format), and for a -k
 * model MODEL.ik beside it plus MODEL's trailer line, each file written
 * in full under a temporary name and renamed into place (the kernel's
 * lik_model_save). predict (the program) reads the pair.
 */
#include <string.h>
#include "lik_mex.h"

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
	(void)plhs;
	struct lik_error err;
	char *path = NULL;
	if (nlhs > 0 || nrhs != 2 || !(path = mex_string(prhs[1]))) {
		mexPrintf("Usage: savemodel(model, 'model_file');\n");
		mex_error_set(&err, LIK_EINVAL, "savemodel: wrong arguments (see the usage above)");
		mex_raise("liblinear:savemodel:usage", &err);
	}
	struct lik_model *model = mex_model_from_struct(prhs[0], &err);
	if (!model) {
		struct lik_error why = err;
		mxFree(path);
		mex_error_set(&err, why.code, "Error: can't read model: %s", why.message);
		mex_raise("liblinear:savemodel:model", &err);
	}
	int status = lik_model_save(path, model, &err);
	lik_model_free(&model);
	if (status != 0) {
		struct lik_error why = err;
		/* the library's message may already say so (a file it cannot create) */
		if (strncmp(why.message, "can't save model", 16) == 0)
			mex_error_set(&err, why.code, "%s", why.message);
		else
			mex_error_set(&err, why.code, "can't save model to file %s: %s", path, why.message);
		mxFree(path);
		mex_raise("liblinear:savemodel:save", &err);
	}
	mxFree(path);
}
