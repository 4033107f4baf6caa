/*
 * params.c - parameter validation and the release of models and parameters.
 *
 * check_parameter returns upstream's message texts in upstream's order of
 * checks (confirmed against LIBLINEAR 2.50), so the first failing rule is
 * the one reported, exactly as before. One rule is ours, checked last:
 * ONECLASS_SVM needs 0 < nu <= 1 (upstream accepts any nu and its solver
 * then writes out of bounds).
 */
#include <stdlib.h>
#include "export.h"
#include "linear.h"
#include "model_shape.h"
#include "online.h"

LIBLINEAR_EXPORT int liblinear_version = LIBLINEAR_VERSION;

static int solver_is_known(int s)
{
	switch (s) {
	case L2R_LR: case L2R_L2LOSS_SVC_DUAL: case L2R_L2LOSS_SVC:
	case L2R_L1LOSS_SVC_DUAL: case MCSVM_CS: case L1R_L2LOSS_SVC:
	case L1R_LR: case L2R_LR_DUAL: case L2R_L2LOSS_SVR:
	case L2R_L2LOSS_SVR_DUAL: case L2R_L1LOSS_SVR_DUAL: case ONECLASS_SVM:
	case ONLINE_OGD:	/* ours (online.h); eta is C, so "C <= 0" covers it */
		return 1;
	default:
		return 0;
	}
}

/* Primal solvers, the only ones that can leave the bias out of the regulariser. */
static int solver_allows_unregularized_bias(int s)
{
	return s == L2R_LR || s == L2R_L2LOSS_SVC || s == L1R_L2LOSS_SVC
		|| s == L1R_LR || s == L2R_L2LOSS_SVR;
}

LIBLINEAR_EXPORT const char *check_parameter(const struct problem *prob, const struct parameter *param)
{
	int s = param->solver_type;

	/* Written as upstream's comparisons, so NaN passes these as it does there. */
	if (param->eps <= 0)
		return "eps <= 0";
	if (param->C <= 0)
		return "C <= 0";
	if (s == L2R_L2LOSS_SVR && param->p < 0)
		return "p < 0";
	if (s == ONECLASS_SVM && prob->bias >= 0)
		return "prob->bias >=0, but this is ignored in ONECLASS_SVM";
	if (param->regularize_bias == 0) {
		if (prob->bias != 1.0)
			return "To not regularize bias, must specify -B 1 along with -R";
		if (!solver_allows_unregularized_bias(s))
			return "-R option supported only for solver L2R_LR, L2R_L2LOSS_SVC, "
				"L1R_L2LOSS_SVC, L1R_LR, and L2R_L2LOSS_SVR";
	}
	if (!solver_is_known(s))
		return "unknown solver type";
	if (param->init_sol != NULL && !solver_takes_init_sol(s))
		return "Initial-solution specification supported only for solvers "
			"L2R_LR, L2R_L2LOSS_SVC, and L2R_L2LOSS_SVR";
	if (param->w_recalc && s != L2R_L2LOSS_SVC_DUAL && s != L2R_L1LOSS_SVC_DUAL)
		return "Recalculating w in the end is only for dual solvers for "
			"L2-regularized L1/L2-loss SVM";
	/*
	 * Ours, after every upstream rule (so upstream's first message stays
	 * first): upstream 2.50 accepts any nu and then writes out of bounds.
	 * Written so that NaN fails it too.
	 */
	if (s == ONECLASS_SVM && !(param->nu > 0 && param->nu <= 1))
		return "nu <= 0 or nu > 1";
	return NULL;
}

/* The training-only pointers in model->param belong to the caller, as upstream. */
LIBLINEAR_EXPORT void free_model_content(struct model *model_ptr)
{
	if (model_ptr == NULL)
		return;
	free(model_ptr->w);
	model_ptr->w = NULL;
	free(model_ptr->label);
	model_ptr->label = NULL;
}

LIBLINEAR_EXPORT void free_and_destroy_model(struct model **model_ptr_ptr)
{
	if (model_ptr_ptr == NULL || *model_ptr_ptr == NULL)
		return;
	free_model_content(*model_ptr_ptr);
	free(*model_ptr_ptr);
	*model_ptr_ptr = NULL;
}

LIBLINEAR_EXPORT void destroy_param(struct parameter *param)
{
	if (param == NULL)
		return;
	free(param->weight_label);
	param->weight_label = NULL;
	free(param->weight);
	param->weight = NULL;
	free(param->init_sol);
	param->init_sol = NULL;
}
