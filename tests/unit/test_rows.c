/*
 * test_rows.c - the two row representations agree: a ROWS_CELLS row set
 * gives the same products as the feature_node rows it stands for, with
 * and without a raw part after the cells.
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

/*
 * The raw part (issue 28): the same cells plus raw features, written out
 * by hand as the feature_node rows they stand for (cells, then raw
 * feature j at column T*PSI + j, then the bias at column T*PSI + RAW_D + 1).
 */
enum { RAW_D = 3, NR = T * PSI + RAW_D + 1 };

static struct feature_node raw_nodes[L][RAW_D + 1];
static struct feature_node *raws[L];
static struct feature_node wide_nodes[L][T + RAW_D + 2];
static struct feature_node *wides[L];

/* Row i has raw features j where (i + j) % 3 != 0, value 0.5 * i - j: row 0's raw part
 * is {1, 2}, row 2's {2, 3}; some rows thus miss features, and values vary in sign. */
static void build_raw(double bias)
{
	for (int i = 0; i < L; i++) {
		int r = 0, c = 0;
		for (int k = 0; k < T; k++, c++)
			wide_nodes[i][c] = (struct feature_node){k * PSI + cells[i * T + k] + 1, 1 / sqrt(T)};
		for (int j = 1; j <= RAW_D; j++) {
			if ((i + j) % 3 == 0)
				continue;
			raw_nodes[i][r++] = (struct feature_node){j, 0.5 * i - j};
			wide_nodes[i][c++] = (struct feature_node){T * PSI + j, 0.5 * i - j};
		}
		raw_nodes[i][r].index = -1;
		if (bias >= 0)
			wide_nodes[i][c++] = (struct feature_node){NR, bias};
		wide_nodes[i][c].index = -1;
		raws[i] = raw_nodes[i];
		wides[i] = wide_nodes[i];
	}
}

static struct row_set raw_cell_rows(double bias)
{
	struct row_set r = cell_rows(bias);
	r.n = bias >= 0 ? NR : NR - 1;
	r.raw = raws;
	r.raw_d = RAW_D;
	return r;
}

START_TEST(raw_part_agrees_with_written_out_rows)
{
	for (int with_bias = 0; with_bias <= 1; with_bias++) {
		double bias = with_bias ? 0.75 : -1;
		build_raw(bias);
		struct row_set s = rows_sparse(L, NR, wides), c = raw_cell_rows(bias);
		double w[NR];
		for (int j = 0; j < NR; j++)
			w[j] = 0.3 * j - 2;
		for (int i = 0; i < L; i++) {
			ck_assert_double_eq_tol(rows_dot(&s, i, w), rows_dot(&c, i, w), 1e-12);
			ck_assert_double_eq_tol(rows_sqnorm(&s, i), rows_sqnorm(&c, i), 1e-12);
			ck_assert_int_eq(rows_nnz(&s, i), rows_nnz(&c, i));
			int is[T + RAW_D + 1], ic[T + RAW_D + 1];
			double vs[T + RAW_D + 1], vc[T + RAW_D + 1];
			rows_copy_row(&s, i, is, vs);
			rows_copy_row(&c, i, ic, vc);
			struct feature_node room[T + RAW_D + 2];
			const struct feature_node *f = rows_node_row(&c, i, room);
			for (int k = 0; k < rows_nnz(&s, i); k++) {
				ck_assert_int_eq(is[k], ic[k]);
				ck_assert(vs[k] == vc[k]);
				ck_assert_int_eq(f[k].index, is[k]);
				ck_assert(f[k].value == vs[k]);
			}
			ck_assert_int_eq(f[rows_nnz(&s, i)].index, -1);
		}
		ck_assert_int_eq(rows_max_nnz(&c), rows_max_nnz(&s));
		ck_assert_int_eq(rows_max_nnz(&c), T + 2 + with_bias);
		double ws[NR] = {0}, wc[NR] = {0}, qs[NR] = {0}, qc[NR] = {0};
		for (int i = 0; i < L; i++) {
			rows_axpy(&s, i, 0.5 + i, ws);
			rows_axpy(&c, i, 0.5 + i, wc);
			rows_axpy_squared(&s, i, 1.5 - i, qs);
			rows_axpy_squared(&c, i, 1.5 - i, qc);
		}
		for (int j = 0; j < NR; j++) {
			ck_assert_double_eq_tol(ws[j], wc[j], 1e-12);
			ck_assert_double_eq_tol(qs[j], qc[j], 1e-12);
		}
	}
}
END_TEST

/* Row 4 (cells 0, 0, 0; raw {1: 1, 3: -1}; bias 0.75) by hand, and the bias slot after the raw part. */
START_TEST(raw_part_hand_computed)
{
	build_raw(0.75);
	struct row_set c = raw_cell_rows(0.75);
	ck_assert_uint_eq(rows_cell_raw_base(&c), T * PSI);
	ck_assert_uint_eq(rows_cell_bias_slot(&c), T * PSI + RAW_D);
	double w[NR] = {0};
	w[T * PSI + 0] = 10;	/* raw feature 1 */
	w[T * PSI + 1] = 100;	/* raw feature 2: absent from row 4 */
	w[T * PSI + 2] = 1000;	/* raw feature 3 */
	w[NR - 1] = 2;		/* the bias */
	w[0] = 3;		/* cell 0 of partitioning 0 */
	double want = 3 / sqrt(T) + 10 * 1.0 + 1000 * -1.0 + 2 * 0.75;
	ck_assert_double_eq_tol(rows_dot(&c, 4, w), want, 1e-12);
	ck_assert_double_eq_tol(rows_sqnorm(&c, 4), 1 + 1 + 1 + 0.5625, 1e-12);
	/* the raw part off again: the bias slot moves back to T*PSI */
	struct row_set plain = cell_rows(0.75);
	ck_assert_uint_eq(rows_cell_bias_slot(&plain), T * PSI);
}
END_TEST

START_TEST(raw_part_decision_and_subset)
{
	build_raw(2.0);
	struct row_set s = rows_sparse(L, NR, wides), c = raw_cell_rows(2.0);
	enum { NR_W = 2 };
	double w[NR * NR_W];
	for (int j = 0; j < NR * NR_W; j++)
		w[j] = cos(j + 0.5);
	/* every feature, then raw feature 3 and the bias cut off, then only the cells */
	int max_features[3] = {NR, NR - 2, T * PSI};
	for (int m = 0; m < 3; m++)
		for (int i = 0; i < L; i++) {
			double ds[NR_W], dc[NR_W];
			rows_decision(&s, i, w, NR_W, max_features[m], ds);
			rows_decision(&c, i, w, NR_W, max_features[m], dc);
			for (int k = 0; k < NR_W; k++)
				ck_assert_double_eq_tol(ds[k], dc[k], 1e-12);
		}
	int pick[4] = {2, 0, 4, 2};
	struct row_set cs;
	ck_assert_int_eq(rows_subset(&c, pick, 4, &cs), 0);
	ck_assert_ptr_nonnull(cs.raw);
	double v[NR];
	for (int j = 0; j < NR; j++)
		v[j] = j + 1;
	for (int i = 0; i < 4; i++)
		ck_assert_double_eq_tol(rows_dot(&cs, i, v), rows_dot(&s, pick[i], v), 1e-12);
	rows_free_subset(&cs);
	ck_assert_ptr_null(cs.raw);
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
	tcase_add_test(tc, raw_part_agrees_with_written_out_rows);
	tcase_add_test(tc, raw_part_hand_computed);
	tcase_add_test(tc, raw_part_decision_and_subset);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(rows_suite)
