/*
 * test_rows.c - the two row representations agree: a ROWS_CELLS row set
 * gives the same products as the feature_node rows it stands for.
 */
#include <math.h>
#include "unit.h"
#include "rows.h"

enum { L = 5, T = 3, PSI = 4, N = T * PSI + 1 };

static const uint16_t cells[L * T] = {
	0, 1, 2,
	3, 3, 3,
	1, 0, 1,
	2, 2, 0,
	0, 0, 0,
};

/* The same rows written out as feature_node rows, with a bias of 0.5. */
static struct feature_node nodes[L][T + 2];
static struct feature_node *xs[L];

static void build_sparse(double value, double bias)
{
	for (int i = 0; i < L; i++) {
		for (int k = 0; k < T; k++) {
			nodes[i][k].index = k * PSI + cells[i * T + k] + 1;
			nodes[i][k].value = value;
		}
		nodes[i][T].index = N;
		nodes[i][T].value = bias;
		nodes[i][T + 1].index = -1;
		xs[i] = nodes[i];
	}
}

static struct row_set cell_rows(double bias)
{
	struct row_set r = {0};
	r.kind = ROWS_CELLS;
	r.l = L;
	r.n = N;
	r.t = T;
	r.psi = PSI;
	r.cell_value = 1 / sqrt(T);
	r.cells16 = cells;
	r.bias = bias;
	return r;
}

START_TEST(dot_axpy_norm_agree)
{
	build_sparse(1 / sqrt(T), 0.5);
	struct row_set s = rows_sparse(L, N, xs), c = cell_rows(0.5);
	double w[N];
	for (int j = 0; j < N; j++)
		w[j] = 0.25 * j - 1;
	for (int i = 0; i < L; i++) {
		ck_assert_double_eq_tol(rows_dot(&s, i, w), rows_dot(&c, i, w), 1e-12);
		ck_assert_double_eq_tol(rows_sqnorm(&s, i), rows_sqnorm(&c, i), 1e-12);
		ck_assert_double_eq_tol(rows_sqnorm(&c, i), 1.25, 1e-12);
		ck_assert_int_eq(rows_nnz(&s, i), rows_nnz(&c, i));
	}
	double ws[N] = {0}, wc[N] = {0};
	for (int i = 0; i < L; i++) {
		rows_axpy(&s, i, 0.5 + i, ws);
		rows_axpy(&c, i, 0.5 + i, wc);
	}
	for (int j = 0; j < N; j++)
		ck_assert_double_eq_tol(ws[j], wc[j], 1e-12);
}
END_TEST

START_TEST(hand_computed_dot)
{
	struct row_set c = cell_rows(-1);
	double w[N] = {0};
	/* row 1 has cells 3, 3, 3: features 4, 8, 12 */
	w[3] = 1;
	w[7] = 2;
	w[11] = 3;
	ck_assert_double_eq_tol(rows_dot(&c, 1, w), 6 / sqrt(T), 1e-12);
	ck_assert_double_eq_tol(rows_dot(&c, 0, w), 0, 1e-12);
}
END_TEST

START_TEST(decision_agrees_and_respects_max_feature)
{
	build_sparse(1 / sqrt(T), 2.0);
	struct row_set s = rows_sparse(L, N, xs), c = cell_rows(2.0);
	enum { NR_W = 3 };
	double w[N * NR_W];
	for (int j = 0; j < N * NR_W; j++)
		w[j] = sin(j + 1.0);
	for (int i = 0; i < L; i++) {
		double ds[NR_W], dc[NR_W], dn[NR_W];
		rows_decision(&s, i, w, NR_W, N, ds);
		rows_decision(&c, i, w, NR_W, N, dc);
		for (int k = 0; k < NR_W; k++) {
			double direct = 0;
			for (const struct feature_node *f = xs[i]; f->index != -1; f++)
				direct += w[(f->index - 1) * NR_W + k] * f->value;
			ck_assert_double_eq_tol(ds[k], direct, 1e-12);
			ck_assert_double_eq_tol(dc[k], direct, 1e-12);
		}
		/* Without the bias feature in range, both drop it. */
		rows_decision(&s, i, w, NR_W, N - 1, ds);
		rows_decision(&c, i, w, NR_W, N - 1, dn);
		for (int k = 0; k < NR_W; k++)
			ck_assert_double_eq_tol(ds[k], dn[k], 1e-12);
	}
}
END_TEST

START_TEST(copy_row_lists_ascending_features)
{
	struct row_set c = cell_rows(0.5);
	int idx[T + 1];
	double val[T + 1];
	rows_copy_row(&c, 3, idx, val);
	int expect[T + 1] = {3, 7, 9, N};
	for (int k = 0; k <= T; k++)
		ck_assert_int_eq(idx[k], expect[k]);
	ck_assert_double_eq_tol(val[0], 1 / sqrt(T), 1e-15);
	ck_assert_double_eq_tol(val[T], 0.5, 1e-15);
}
END_TEST

START_TEST(subset_selects_rows_in_order)
{
	build_sparse(1 / sqrt(T), 0.5);
	struct row_set s = rows_sparse(L, N, xs), c = cell_rows(0.5);
	int pick[3] = {4, 1, 1};
	struct row_set ss, cs;
	ck_assert_int_eq(rows_subset(&s, pick, 3, &ss), 0);
	ck_assert_int_eq(rows_subset(&c, pick, 3, &cs), 0);
	ck_assert_int_eq(ss.l, 3);
	ck_assert_int_eq(cs.l, 3);
	double w[N];
	for (int j = 0; j < N; j++)
		w[j] = j * j;
	for (int i = 0; i < 3; i++) {
		ck_assert_double_eq_tol(rows_dot(&ss, i, w), rows_dot(&s, pick[i], w), 1e-12);
		ck_assert_double_eq_tol(rows_dot(&cs, i, w), rows_dot(&c, pick[i], w), 1e-12);
	}
	rows_free_subset(&ss);
	rows_free_subset(&cs);
	ck_assert_ptr_null(ss.x);
	ck_assert_ptr_null(cs.cells16);
}
END_TEST

static Suite *rows_suite(void)
{
	Suite *s = suite_create("rows");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, dot_axpy_norm_agree);
	tcase_add_test(tc, hand_computed_dot);
	tcase_add_test(tc, decision_agrees_and_respects_max_feature);
	tcase_add_test(tc, copy_row_lists_ascending_features);
	tcase_add_test(tc, subset_selects_rows_in_order);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(rows_suite)
