/*
 * test_cells_raw.c - every solver trains the same model on Isolation Kernel
 * rows with a raw part (rows.h ROWS_CELLS with raw set; issue 28) as on
 * the same rows written out as feature_node rows: cells at k*PSI + cell +
 * 1, raw feature j at T*PSI + j, the bias after them. The written-out rows
 * are built here by hand, independently of rows.h, so a solver that walks
 * rows without the raw part (or misplaces the bias) gives another model.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include "linear.h"
#include "linear_rows.h"
#include "rng.h"
#include "rows.h"
#include "unit.h"

enum { L = 90, T = 4, PSI = 5, RAW_D = 6, K = 3 };
enum { COLUMNS = T * PSI + RAW_D, N = COLUMNS + 1 };

static uint16_t cells[L * T];
static struct feature_node raw_nodes[L][RAW_D + 1];
static struct feature_node *raws[L];
static struct feature_node wide_nodes[L][T + RAW_D + 2];
static struct feature_node *wides[L];
static double y_class[L], y_binary[L], y_real[L];

static void quiet(const char *s)
{
	(void)s;
}

/* Cells lean toward the class; raw feature j is present in about two rows of three. */
static void build(double bias)
{
	struct rng g;
	rng_seed(&g, 28);
	const double value = 1 / sqrt((double)T);
	for (int i = 0; i < L; i++) {
		int label = i % K, c = 0, r = 0;
		y_class[i] = label + 1;
		y_binary[i] = label == 0 ? 1 : -1;
		double real = 0.25 * label;
		for (int k = 0; k < T; k++) {
			uint16_t cell = (uint16_t)(rng_unit(&g) < 0.5 ? (uint64_t)label : rng_below(&g, PSI));
			cells[i * T + k] = cell;
			wide_nodes[i][c++] = (struct feature_node){k * PSI + cell + 1, value};
			real += 0.1 * cell;
		}
		for (int j = 1; j <= RAW_D; j++) {
			if (rng_unit(&g) < 0.35)
				continue;
			double v = 0.3 * (rng_unit(&g) - 0.5) + (j == label + 1 ? 0.4 : 0);
			raw_nodes[i][r++] = (struct feature_node){j, v};
			wide_nodes[i][c++] = (struct feature_node){T * PSI + j, v};
			real += 0.5 * v;
		}
		raw_nodes[i][r].index = -1;
		if (bias >= 0)
			wide_nodes[i][c++] = (struct feature_node){N, bias};
		wide_nodes[i][c].index = -1;
		raws[i] = raw_nodes[i];
		wides[i] = wide_nodes[i];
		y_real[i] = real;
	}
}

static struct row_set cell_view(double bias)
{
	struct row_set r = {0};
	r.kind = ROWS_CELLS;
	r.l = L;
	r.t = T;
	r.psi = PSI;
	r.n = COLUMNS + (bias >= 0 ? 1 : 0);
	r.cell_value = 1 / sqrt((double)T);
	r.cells16 = cells;
	r.raw = raws;
	r.raw_d = RAW_D;
	r.bias = bias;
	return r;
}

static const double *labels_for(int solver)
{
	if (solver == L2R_L2LOSS_SVR || solver == L2R_L2LOSS_SVR_DUAL || solver == L2R_L1LOSS_SVR_DUAL)
		return y_real;
	if (solver == ONECLASS_SVM)
		return y_binary;
	return y_class;
}

static void same_model(int solver, double bias)
{
	build(bias);
	struct row_set wide = rows_sparse(L, bias >= 0 ? N : COLUMNS, wides);
	struct row_set cell = cell_view(bias);
	struct parameter param = {0};
	param.solver_type = solver;
	param.C = 1;
	param.eps = 1e-6;
	param.p = 0.05;
	param.nu = 0.3;
	set_print_string_function(quiet);
	const double *y = labels_for(solver);
	struct model *a = train_rows(&wide, y, bias, &param);
	struct model *b = train_rows(&cell, y, bias, &param);
	set_print_string_function(NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	/* the raw columns count: nr_feature is the cells plus the raw features */
	ck_assert_int_eq(a->nr_feature, COLUMNS);
	ck_assert_int_eq(b->nr_feature, COLUMNS);
	ck_assert_int_eq(a->nr_class, b->nr_class);
	/* one weight column for two classes (but -s 4), regression and one-class */
	int nr_w = a->nr_class == 2 && solver != MCSVM_CS ? 1 : a->nr_class;
	size_t size = (size_t)(bias >= 0 ? N : COLUMNS) * (size_t)nr_w;
	double largest = 0;
	for (size_t j = 0; j < size; j++) {
		ck_assert_msg(fabs(a->w[j] - b->w[j]) <= 1e-6 * (1 + fabs(a->w[j])),
			"-s %d bias %g: w[%zu] %.12g vs %.12g", solver, bias, j, a->w[j], b->w[j]);
		if (j >= (size_t)T * PSI * (size_t)nr_w && j < (size_t)COLUMNS * (size_t)nr_w)
			largest = fmax(largest, fabs(a->w[j]));
	}
	/* the raw part was learned from (the L1 solvers may zero some, not all) */
	ck_assert_msg(largest > 0, "-s %d: every raw weight is 0", solver);
	if (solver == ONECLASS_SVM)
		ck_assert_double_eq_tol(a->rho, b->rho, 1e-6 * (1 + fabs(a->rho)));
	for (int i = 0; i < L; i++) {
		double da[K], db[K];
		ck_assert(predict_values_row(a, &wide, i, da) == predict_values_row(b, &cell, i, db));
	}
	free_and_destroy_model(&a);
	free_and_destroy_model(&b);
}

START_TEST(every_solver_same_model)
{
	static const int solvers[] = {
		L2R_LR, L2R_L2LOSS_SVC_DUAL, L2R_L2LOSS_SVC, L2R_L1LOSS_SVC_DUAL, MCSVM_CS,
		L1R_L2LOSS_SVC, L1R_LR, L2R_LR_DUAL, L2R_L2LOSS_SVR, L2R_L2LOSS_SVR_DUAL,
		L2R_L1LOSS_SVR_DUAL, ONECLASS_SVM,
	};
	for (size_t s = 0; s < sizeof solvers / sizeof solvers[0]; s++) {
		same_model(solvers[s], -1);
		if (solvers[s] != ONECLASS_SVM)	/* -s 21 takes no bias */
			same_model(solvers[s], 1);
	}
}
END_TEST

static Suite *cells_raw_suite(void)
{
	Suite *s = suite_create("cells_raw");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_solver_same_model);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(cells_raw_suite)
