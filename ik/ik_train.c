/*
 * ik_train.c - building, mapping and searching for train -k.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "find_parameters.h"
#include "ik_batch.h"
#include "ik_train.h"

struct ikmap *ik_train_build(const struct libsvm_data *data, const struct ik_options *o,
	int psi, int threads)
{
	const struct problem *prob = &data->prob;
	if (psi > prob->l) {
		fprintf(stderr, "ERROR: psi (-g %d) exceeds the number of training rows (%d)\n",
			psi, prob->l);
		return NULL;
	}
	if (data->max_index < 1) {
		fprintf(stderr, "ERROR: -k needs training rows with at least one feature\n");
		return NULL;
	}
	struct ikmap_params params = ik_options_map_params(o, psi, threads);
	char err[IKMAP_ERR_SIZE];
	struct ikmap *map = ikmap_build(prob->x, prob->l, data->max_index, &params, err);
	if (map == NULL)
		fprintf(stderr, "ERROR: %s\n", err);
	return map;
}

void *ik_train_map(const struct ikmap *map, const struct libsvm_data *data, int threads,
	enum ikmap_device device)
{
	size_t l = (size_t)data->prob.l;
	void *cells = malloc(l * (size_t)ikmap_t(map) * ikmap_cell_size(map));
	char err[IKMAP_ERR_SIZE] = "out of memory";
	if (cells == NULL || ikmap_map_on(map, data->prob.x, l, cells, threads, device, err) != 0) {
		fprintf(stderr, "ERROR: %s\n", err);
		free(cells);
		return NULL;
	}
	return cells;
}

struct row_set ik_train_rows(const struct ikmap *map, int l, const void *cells, double bias)
{
	struct row_set X = {0};
	X.kind = ROWS_CELLS;
	X.l = l;
	X.t = ikmap_t(map);
	X.psi = ikmap_psi(map);
	X.n = X.t * X.psi + (bias >= 0 ? 1 : 0);
	X.cell_value = ik_cell_value(map);
	if (ikmap_cell_size(map) == sizeof(uint16_t))
		X.cells16 = cells;
	else
		X.cells32 = cells;
	X.bias = bias;
	return X;
}

struct search_result {
	int psi;
	double C, p, score;
};

static void print_result(const char *prefix, const struct search_result *r, int regression)
{
	if (regression)
		printf("%spsi = %d  Best C = %g Best p = %g  CV MSE = %g\n",
			prefix, r->psi, r->C, r->p, r->score);
	else
		printf("%spsi = %d  Best C = %g  CV accuracy = %g%%\n",
			prefix, r->psi, r->C, 100.0 * r->score);
}

/* Builds and maps at psi, then searches C (and p). 0, or -1 after a message. */
static int search_at(const struct libsvm_data *data, const struct ik_options *o,
	const struct parameter *param, double bias, int nr_fold, double start_C, double start_p,
	int threads, struct search_result *r)
{
	struct ikmap *map = ik_train_build(data, o, r->psi, threads);
	if (map == NULL)
		return -1;
	void *cells = ik_train_map(map, data, threads, o->device);
	if (cells == NULL) {
		ikmap_free(map);
		return -1;
	}
	struct row_set X = ik_train_rows(map, data->prob.l, cells, bias);
	find_parameters_rows(&X, data->prob.y, bias, param, nr_fold, start_C, start_p,
		&r->C, &r->p, &r->score);
	free(cells);
	ikmap_free(map);
	return isnan(r->score) ? -1 : 0;	/* NaN: the search ran out of memory and said so */
}

int ik_train_search(const struct libsvm_data *data, const struct ik_options *o,
	const struct parameter *param, double bias, int nr_fold, double start_C, double start_p,
	int threads)
{
	int regression = param->solver_type == L2R_L2LOSS_SVR;
	int first = IK_SEARCH_PSI_MIN;
	int last = data->prob.l < IK_SEARCH_PSI_MAX ? data->prob.l : IK_SEARCH_PSI_MAX;
	if (o->psi_given) {
		first = last = o->psi;	/* -g fixes psi: search C only (ik_train_build checks it) */
	} else if (first > last) {
		fprintf(stderr, "ERROR: -C with -k needs at least %d training rows (psi starts at %d)\n",
			first, first);
		return -1;
	}
	struct search_result best = { 0, NAN, NAN, NAN };
	for (int psi = first; psi <= last; psi *= 2) {
		struct search_result r = { psi, NAN, NAN, NAN };
		if (search_at(data, o, param, bias, nr_fold, start_C, start_p, threads, &r) != 0)
			return -1;
		print_result("", &r, regression);
		if (best.psi == 0 || (regression ? r.score < best.score : r.score > best.score))
			best = r;
		if (psi > last / 2)
			break;	/* psi *= 2 would pass last (and could overflow) */
	}
	print_result("Best ", &best, regression);
	return 0;
}
