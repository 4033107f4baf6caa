/*
 * lik_fixtures.h - problems for the tests of the kernel's C API
 * (test_lik_*.c).
 *
 * Contract: problem_make(l, d, bias, seed) owns l rows of d features
 * drawn from the library's seeded rng (ikmap_fixtures.h), labels +1 / -1
 * by the sign of x1 + x2 + 0.1 (so the classes can be learned), and, when
 * bias >= 0, upstream's bias node (index d + 1, value bias) at the end of
 * every row, with n = d + 1 as linear.h wants it. problem_free releases
 * it. default_param(solver) is train's defaults for that solver.
 */
#ifndef TESTS_LIK_FIXTURES_H
#define TESTS_LIK_FIXTURES_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ikmap_fixtures.h"
#include "liblinear_ik.h"

struct test_problem {
	struct problem prob;
	struct data data;
};

static inline struct test_problem problem_make(int l, int d, double bias, uint64_t seed)
{
	struct test_problem p;
	memset(&p, 0, sizeof p);
	/* room for d features, the bias node and the terminator */
	p.data = random_data(l, d + 1, 0.8, -1, 1, seed);
	for (int i = 0; i < l; i++) {	/* drop feature d + 1 drawn above: it is the bias's slot */
		struct feature_node *f = p.data.row[i];
		while (f->index != -1 && f->index <= d)
			f++;
		f->index = -1;
		if (bias >= 0) {
			f[0].index = d + 1;
			f[0].value = bias;
			f[1].index = -1;
		}
	}
	p.prob.l = l;
	p.prob.n = bias >= 0 ? d + 1 : d;
	p.prob.bias = bias;
	p.prob.x = p.data.row;
	p.prob.y = malloc((size_t)l * sizeof *p.prob.y);
	ck_assert_ptr_nonnull(p.prob.y);
	for (int i = 0; i < l; i++) {
		double s = 0;
		for (const struct feature_node *f = p.data.row[i]; f->index != -1; f++)
			if (f->index <= 2)
				s += f->value;
		p.prob.y[i] = s > -0.1 ? 1 : -1;
	}
	return p;
}

static inline void problem_free(struct test_problem *p)
{
	data_free(&p->data);
	free(p->prob.y);
}

static inline struct parameter default_param(int solver)
{
	struct parameter param;
	memset(&param, 0, sizeof param);
	param.solver_type = solver;
	param.C = 1;
	param.p = 0.1;
	param.nu = 0.5;
	param.eps = solver == L2R_LR || solver == L2R_L2LOSS_SVC ? 0.01 : 0.1;
	param.regularize_bias = 1;
	return param;
}

#endif /* TESTS_LIK_FIXTURES_H */
