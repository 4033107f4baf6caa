/*
 * rows.h - the row interface: the only way solvers read training rows.
 *
 * Contract: a row_set is a read-only view of l rows with n features
 * (1-based indices 1..n; n includes the bias feature when there is one).
 * Solvers touch rows only through the rows_* functions below, so a new
 * row representation needs a new case here and no solver change.
 *
 * Two representations:
 *  - ROWS_SPARSE: upstream's rows of struct feature_node, each ended by
 *    index -1 (the bias node, if any, is already in the row).
 *  - ROWS_CELLS: Isolation Kernel rows. Row i has exactly t nonzeros, all
 *    equal to cell_value: feature k*psi + cell(i,k) + 1 for k = 0..t-1,
 *    where cell(i,k) is cells16[i*t+k] (psi <= 65536) or cells32[i*t+k].
 *    Optional raw part (issue 28, raw features beside the cells): when
 *    raw is not NULL, row i also has the nonzeros of raw[i] (indices
 *    1..raw_d strictly ascending, ended by index -1), its feature j at
 *    column t*psi + j, after every cell. When raw is NULL raw_d is
 *    ignored and every function below does exactly what it did before
 *    the raw part existed, operation for operation (so results stay
 *    bit-identical for maps without raw features).
 *    Index views (issue 22): when pick is not NULL, row i's cells are
 *    those of stored row pick[i] (rows_subset's view: grouping by class
 *    and cross-validation folds list rows, they never copy cells); the
 *    raw rows are listed per view row as before.
 *    If bias >= 0 the row also has feature t*psi + raw_d + 1 (raw_d counted
 *    only when raw is set) with value bias. The caller keeps that column
 *    within int.
 *
 * The functions are static inline: they sit in every solver's inner loop,
 * and the switch on kind is perfectly predicted.
 */
#ifndef LIBLINEAR_ROWS_H
#define LIBLINEAR_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "linear.h"

enum row_kind { ROWS_SPARSE, ROWS_CELLS };

struct row_set {
	enum row_kind kind;
	int l;				/* number of rows */
	int n;				/* number of features, bias included */

	/* ROWS_SPARSE */
	struct feature_node *const *x;

	/* ROWS_CELLS */
	int t;				/* nonzeros per row before the bias */
	int psi;			/* cells per partitioning */
	double cell_value;		/* the value of every cell feature */
	const uint16_t *cells16;	/* l*t cell numbers, or NULL */
	const uint32_t *cells32;	/* l*t cell numbers, or NULL */
	const int *pick;		/* NULL, or row i's cells are stored row pick[i]'s */
	struct feature_node *const *raw; /* l raw rows after the cells, or NULL */
	int raw_d;			/* raw columns (when raw is set) */
	double bias;			/* < 0: no bias feature */
};

/* A view of upstream-style rows. */
static inline struct row_set rows_sparse(int l, int n, struct feature_node *const *x)
{
	struct row_set r = {0};
	r.kind = ROWS_SPARSE;
	r.l = l;
	r.n = n;
	r.x = x;
	r.bias = -1;
	return r;
}

/* Where row i's cells begin in cells16/cells32: looked up once per row, not per cell. */
static inline size_t rows_cell_base(const struct row_set *r, int i)
{
	size_t row = r->pick != NULL ? (size_t)r->pick[i] : (size_t)i;
	return row * (size_t)r->t;
}

/* Cell k of the row whose cells begin at base (rows_cell_base). */
static inline uint32_t rows_cell_at(const struct row_set *r, size_t base, int k)
{
	size_t at = base + (size_t)k;
	return r->cells16 ? r->cells16[at] : r->cells32[at];
}

static inline uint32_t rows_cell(const struct row_set *r, int i, int k)
{
	return rows_cell_at(r, rows_cell_base(r, i), k);
}

/* Index (0-based) into w of raw feature 1 of a ROWS_CELLS row: right after the cells. */
static inline size_t rows_cell_raw_base(const struct row_set *r)
{
	return (size_t)r->t * (size_t)r->psi;
}

/* Index (0-based) into w of the bias feature of a ROWS_CELLS row. */
static inline size_t rows_cell_bias_slot(const struct row_set *r)
{
	return rows_cell_raw_base(r) + (r->raw ? (size_t)r->raw_d : 0);
}

/* x_i . w, with w indexed from 0 (feature j at w[j-1]). */
static inline double rows_dot(const struct row_set *r, int i, const double *w)
{
	double s = 0;
	if (r->kind == ROWS_SPARSE) {
		for (const struct feature_node *f = r->x[i]; f->index != -1; f++)
			s += w[f->index - 1] * f->value;
		return s;
	}
	size_t base = rows_cell_base(r, i);
	for (int k = 0; k < r->t; k++)
		s += w[(size_t)k * (size_t)r->psi + rows_cell_at(r, base, k)];
	s *= r->cell_value;
	if (r->raw) {
		const double *wr = w + rows_cell_raw_base(r) - 1;
		for (const struct feature_node *f = r->raw[i]; f->index != -1; f++)
			s += wr[f->index] * f->value;
	}
	if (r->bias >= 0)
		s += w[rows_cell_bias_slot(r)] * r->bias;
	return s;
}

/*
 * *di = x_i . w and *dj = x_j . w, each the very sum rows_dot gives (the
 * same additions in the same order, bit for bit), taken side by side.
 * Why: one dot product is a chain of dependent additions, so it runs at
 * the adder's latency, not its throughput; two independent chains
 * interleaved keep it busy. The Newton solvers' X v, X s and H v spend
 * most of their time here (w8a -s 0: about 30% of train()).
 */
static inline void rows_dot_pair(const struct row_set *r, int i, int j, const double *w,
	double *di, double *dj)
{
	if (r->kind != ROWS_SPARSE || r->raw) {
		*di = rows_dot(r, i, w);
		*dj = rows_dot(r, j, w);
		return;
	}
	const struct feature_node *a = r->x[i], *b = r->x[j];
	double s = 0, t = 0;
	while (a->index != -1 && b->index != -1) {
		s += w[a->index - 1] * a->value;
		t += w[b->index - 1] * b->value;
		a++;
		b++;
	}
	for (; a->index != -1; a++)
		s += w[a->index - 1] * a->value;
	for (; b->index != -1; b++)
		t += w[b->index - 1] * b->value;
	*di = s;
	*dj = t;
}

/* w += a * x_i */
static inline void rows_axpy(const struct row_set *r, int i, double a, double *w)
{
	if (r->kind == ROWS_SPARSE) {
		for (const struct feature_node *f = r->x[i]; f->index != -1; f++)
			w[f->index - 1] += a * f->value;
		return;
	}
	double av = a * r->cell_value;
	size_t base = rows_cell_base(r, i);
	for (int k = 0; k < r->t; k++)
		w[(size_t)k * (size_t)r->psi + rows_cell_at(r, base, k)] += av;
	if (r->raw) {
		double *wr = w + rows_cell_raw_base(r) - 1;
		for (const struct feature_node *f = r->raw[i]; f->index != -1; f++)
			wr[f->index] += a * f->value;
	}
	if (r->bias >= 0)
		w[rows_cell_bias_slot(r)] += a * r->bias;
}

/* w_j += a * x_ij^2 for every nonzero x_ij (the diagonal of X^T D X). */
static inline void rows_axpy_squared(const struct row_set *r, int i, double a, double *w)
{
	if (r->kind == ROWS_SPARSE) {
		for (const struct feature_node *f = r->x[i]; f->index != -1; f++)
			w[f->index - 1] += a * f->value * f->value;
		return;
	}
	double av2 = a * r->cell_value * r->cell_value;
	size_t base = rows_cell_base(r, i);
	for (int k = 0; k < r->t; k++)
		w[(size_t)k * (size_t)r->psi + rows_cell_at(r, base, k)] += av2;
	if (r->raw) {
		double *wr = w + rows_cell_raw_base(r) - 1;
		for (const struct feature_node *f = r->raw[i]; f->index != -1; f++)
			wr[f->index] += a * f->value * f->value;
	}
	if (r->bias >= 0)
		w[rows_cell_bias_slot(r)] += a * r->bias * r->bias;
}

/*
 * w += a * x_i and m_j += b * x_ij^2 for every nonzero x_ij: rows_axpy
 * and rows_axpy_squared in one pass over the row, each element computed
 * as they compute it (bit for bit).
 */
static inline void rows_axpy_and_squared(const struct row_set *r, int i, double a, double *w,
	double b, double *m)
{
	if (r->kind != ROWS_SPARSE) {
		rows_axpy(r, i, a, w);
		rows_axpy_squared(r, i, b, m);
		return;
	}
	for (const struct feature_node *f = r->x[i]; f->index != -1; f++) {
		w[f->index - 1] += a * f->value;
		m[f->index - 1] += b * f->value * f->value;
	}
}

/* ||x_i||^2 */
static inline double rows_sqnorm(const struct row_set *r, int i)
{
	if (r->kind == ROWS_SPARSE) {
		double s = 0;
		for (const struct feature_node *f = r->x[i]; f->index != -1; f++)
			s += f->value * f->value;
		return s;
	}
	double s = (double)r->t * r->cell_value * r->cell_value;
	if (r->raw)
		for (const struct feature_node *f = r->raw[i]; f->index != -1; f++)
			s += f->value * f->value;
	if (r->bias >= 0)
		s += r->bias * r->bias;
	return s;
}

/*
 * Decision values of a feature-major weight matrix (w[(j-1)*nr_w + k] is
 * feature j's weight for column k): dec[k] = x_i . w_k, k = 0..nr_w-1.
 * Features with index > max_feature are ignored (predict's rule).
 */
static inline void rows_decision(const struct row_set *r, int i, const double *w,
	int nr_w, int max_feature, double *dec)
{
	for (int k = 0; k < nr_w; k++)
		dec[k] = 0;
	if (r->kind == ROWS_SPARSE) {
		for (const struct feature_node *f = r->x[i]; f->index != -1; f++) {
			if (f->index > max_feature)
				continue;
			const double *wj = w + (size_t)(f->index - 1) * (size_t)nr_w;
			for (int k = 0; k < nr_w; k++)
				dec[k] += wj[k] * f->value;
		}
		return;
	}
	size_t cells = rows_cell_base(r, i);
	for (int c = 0; c < r->t; c++) {
		size_t j = (size_t)c * (size_t)r->psi + rows_cell_at(r, cells, c);
		const double *wj = w + j * (size_t)nr_w;
		for (int k = 0; k < nr_w; k++)
			dec[k] += wj[k];
	}
	for (int k = 0; k < nr_w; k++)
		dec[k] *= r->cell_value;
	if (r->raw) {
		size_t base = rows_cell_raw_base(r);
		for (const struct feature_node *f = r->raw[i]; f->index != -1; f++) {
			if (base + (size_t)f->index > (size_t)max_feature)
				break;	/* ascending: every later one lies above too */
			const double *wj = w + (base + (size_t)f->index - 1) * (size_t)nr_w;
			for (int k = 0; k < nr_w; k++)
				dec[k] += wj[k] * f->value;
		}
	}
	if (r->bias >= 0 && rows_cell_bias_slot(r) < (size_t)max_feature) {
		const double *wb = w + rows_cell_bias_slot(r) * (size_t)nr_w;
		for (int k = 0; k < nr_w; k++)
			dec[k] += wb[k] * r->bias;
	}
}

/* Number of nonzeros of row i. */
static inline int rows_nnz(const struct row_set *r, int i)
{
	if (r->kind == ROWS_SPARSE) {
		int c = 0;
		for (const struct feature_node *f = r->x[i]; f->index != -1; f++)
			c++;
		return c;
	}
	int c = r->t + (r->bias >= 0 ? 1 : 0);
	if (r->raw)
		for (const struct feature_node *f = r->raw[i]; f->index != -1; f++)
			c++;
	return c;
}

/* The largest rows_nnz over the rows (0 when there are none): room for rows_write_row. */
static inline int rows_max_nnz(const struct row_set *r)
{
	int most = 0;
	for (int i = 0; i < r->l; i++) {
		int c = rows_nnz(r, i);
		if (c > most)
			most = c;
	}
	return most;
}

/*
 * Writes row i's nonzeros, ascending by index, to index[] (1-based) and
 * value[] (each of room rows_nnz(r, i)); for building column views.
 */
static inline void rows_copy_row(const struct row_set *r, int i, int *index, double *value)
{
	int c = 0;
	if (r->kind == ROWS_SPARSE) {
		for (const struct feature_node *f = r->x[i]; f->index != -1; f++, c++) {
			index[c] = f->index;
			value[c] = f->value;
		}
		return;
	}
	size_t cells = rows_cell_base(r, i);
	for (int k = 0; k < r->t; k++, c++) {
		index[c] = (int)((size_t)k * (size_t)r->psi + rows_cell_at(r, cells, k) + 1);
		value[c] = r->cell_value;
	}
	if (r->raw) {
		size_t base = rows_cell_raw_base(r);
		for (const struct feature_node *f = r->raw[i]; f->index != -1; f++, c++) {
			index[c] = (int)(base + (size_t)f->index);
			value[c] = f->value;
		}
	}
	if (r->bias >= 0) {
		index[c] = (int)rows_cell_bias_slot(r) + 1;
		value[c] = r->bias;
	}
}

/*
 * Row i as feature nodes ended by index -1, for solvers that walk rows
 * node by node: a ROWS_SPARSE row where it lies, a ROWS_CELLS row written
 * into room (at least rows_max_nnz(r) + 1 nodes) with rows_copy_row's
 * indices and values.
 */
static inline const struct feature_node *rows_node_row(const struct row_set *r, int i,
	struct feature_node *room)
{
	if (r->kind == ROWS_SPARSE)
		return r->x[i];
	struct feature_node *f = room;
	size_t cells = rows_cell_base(r, i);
	for (int k = 0; k < r->t; k++, f++) {
		f->index = (int)((size_t)k * (size_t)r->psi + rows_cell_at(r, cells, k) + 1);
		f->value = r->cell_value;
	}
	if (r->raw) {
		size_t base = rows_cell_raw_base(r);
		for (const struct feature_node *g = r->raw[i]; g->index != -1; g++, f++) {
			f->index = (int)(base + (size_t)g->index);
			f->value = g->value;
		}
	}
	if (r->bias >= 0) {
		f->index = (int)rows_cell_bias_slot(r) + 1;
		f->value = r->bias;
		f++;
	}
	f->index = -1;
	f->value = 0;
	return room;
}

/*
 * A view of the rows listed in idx[0..count-1] (a subset, in that order).
 * Allocates a list of rows (ROWS_CELLS: a pick of 4 bytes a row, never a
 * copy of the cells); release with rows_free_subset. Returns 0, or -1 when out of
 * memory (then *out is untouched).
 */
int rows_subset(const struct row_set *r, const int *idx, int count, struct row_set *out);
void rows_free_subset(struct row_set *sub);

#endif /* LIBLINEAR_ROWS_H */
