/*
 * model_shape.h - the shape of a model's weight matrix, and what each
 * solver type is.
 *
 * Contract: a model's w is feature-major, w[j*nr_w + k], with w_size rows
 * (nr_feature, plus one for the bias feature when bias >= 0) and nr_w
 * columns (1 for a two-class model other than MCSVM_CS, and for regression
 * and one-class models, which have nr_class 2; nr_class otherwise).
 * save_model, load_model, predict and train all agree through these.
 * The solver_* predicates classify solver types the way upstream does.
 */
#ifndef LIBLINEAR_MODEL_SHAPE_H
#define LIBLINEAR_MODEL_SHAPE_H

#include <stddef.h>
#include "linear.h"

static inline int model_nr_w(const struct model *m)
{
	if (m->nr_class == 2 && m->param.solver_type != MCSVM_CS)
		return 1;
	return m->nr_class;
}

/* Rows of w; size_t because nr_feature + 1 can exceed INT_MAX. */
static inline size_t model_w_size(const struct model *m)
{
	return (size_t)m->nr_feature + (m->bias >= 0 ? 1 : 0);
}

static inline int solver_is_regression(int solver_type)
{
	return solver_type == L2R_L2LOSS_SVR || solver_type == L2R_L2LOSS_SVR_DUAL
		|| solver_type == L2R_L1LOSS_SVR_DUAL;
}

static inline int solver_is_probabilistic(int solver_type)
{
	return solver_type == L2R_LR || solver_type == L1R_LR || solver_type == L2R_LR_DUAL;
}

/* The Newton solvers, the only ones that start from a given w (init_sol). */
static inline int solver_takes_init_sol(int solver_type)
{
	return solver_type == L2R_LR || solver_type == L2R_L2LOSS_SVC
		|| solver_type == L2R_L2LOSS_SVR;
}

#endif /* LIBLINEAR_MODEL_SHAPE_H */
