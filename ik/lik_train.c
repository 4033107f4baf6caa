/*
 * lik_train.c - training, cross-validation and the psi-and-C search of the
 * kernel's C API (liblinear_ik.h), on liblinear's row entry points
 * (linear_rows.h, find_parameters.h) with the mapped rows as ROWS_CELLS.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "find_parameters.h"
#include "lik_internal.h"
#include "linear_rows.h"
#include "online.h"
#include "print.h"
#include "rows.h"

/* A failed liblinear call: its captured line; out of memory when it says so, else code. */
static void fail_from_liblinear(struct lik_error *err, int code, const struct lik_capture *c,
	const char *fallback)
{
	if (strstr(c->line, "out of memory") != NULL || (c->line[0] == '\0' && code == LIK_ENOMEM))
		code = LIK_ENOMEM;
	lik_fail_captured(err, code, c, fallback);
}

/* The checks every training call makes first. 0, or -1 after LIK_EINVAL. */
static int check_problem(const struct problem *prob, const struct parameter *param,
	struct lik_error *err)
{
	if (prob == NULL || param == NULL || (prob->l > 0 && (prob->x == NULL || prob->y == NULL))) {
		lik_fail(err, LIK_EINVAL, "no problem or no parameter given");
		return -1;
	}
	if (prob->l < 1) {
		lik_fail(err, LIK_EDATA, "no training rows");
		return -1;
	}
	const char *why = check_parameter(prob, param);
	if (why != NULL) {
		lik_fail(err, LIK_EINVAL, "%s", why);
		return -1;
	}
	return 0;
}

/*
 * The rows training sees: prob's own (map NULL), or its mapped rows
 * (*cells allocated, to free). 0, or -1 with err set.
 */
static int training_rows(const struct problem *prob, const struct ikmap *map, int device,
	int threads, struct row_set *X, void **cells, struct lik_error *err)
{
	*cells = NULL;
	if (map == NULL) {
		*X = rows_sparse(prob->l, prob->n, prob->x);
		return 0;
	}
	/* the bias nodes (index n) lie above the map's dim, so neither the cells nor the
	 * raw part see them; the row set gives the bias its own column after both */
	*cells = lik_map_row_set(map, prob->x, (size_t)prob->l, prob->bias, device, threads, X, err);
	return *cells != NULL ? 0 : -1;
}

struct lik_model *lik_train_cells(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, struct lik_map *map, struct lik_error *err)
{
	struct lik_capture capture;
	lik_capture_begin(&capture);
	struct model *linear = train_rows(X, y, bias, param);
	lik_capture_end(&capture);
	if (linear == NULL) {
		fail_from_liblinear(err, LIK_EDATA, &capture, "training failed");
		lik_map_free(&map);
		return NULL;
	}
	struct lik_model *model = lik_model_wrap(linear, map, err);
	if (model != NULL)
		lik_ok(err);
	return model;
}

/* Trains on prob through map (NULL: plain); the model takes one reference of shared. */
static struct lik_model *train_through(const struct problem *prob, const struct parameter *param,
	struct lik_map *shared, int device, int threads, struct lik_error *err)
{
	struct row_set X;
	void *cells;
	const struct ikmap *map = shared != NULL ? shared->map : NULL;
	if (training_rows(prob, map, device, threads, &X, &cells, err) != 0) {
		lik_map_free(&shared);
		return NULL;
	}
	struct lik_model *model = lik_train_cells(&X, prob->y, prob->bias, param, shared, err);
	free(cells);
	return model;
}

struct lik_model *lik_train(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, struct lik_error *err)
{
	if (check_problem(prob, param, err) != 0)
		return NULL;
	if (kernel == NULL)
		return train_through(prob, param, NULL, LIK_DEVICE_CPU, 0, err);
	struct ikmap *map = lik_map_build_ikmap(prob, kernel, err);
	if (map == NULL)
		return NULL;
	struct lik_map *shared = lik_map_wrap(map, err);
	if (shared == NULL)
		return NULL;
	return train_through(prob, param, shared, kernel->device, kernel->threads, err);
}

struct lik_model *lik_train_with_map_on(const struct problem *prob, const struct parameter *param,
	const struct lik_map *map, int device, int threads, struct lik_error *err)
{
	if (map == NULL) {
		lik_fail(err, LIK_EINVAL, "no map given");
		return NULL;
	}
	if (check_problem(prob, param, err) != 0)
		return NULL;
	return train_through(prob, param, lik_map_share(map), device, threads, err);
}

struct lik_model *lik_train_with_map(const struct problem *prob, const struct parameter *param,
	const struct lik_map *map, struct lik_error *err)
{
	return lik_train_with_map_on(prob, param, map, LIK_DEVICE_AUTO, 0, err);
}

/* Builds (kernel given) and maps prob's rows: X, and what to free after. 0, or -1. */
int lik_kernel_rows(const struct problem *prob, const struct lik_map_params *kernel,
	struct row_set *X, struct ikmap **map, void **cells, struct lik_error *err)
{
	*map = NULL;
	if (kernel != NULL) {
		*map = lik_map_build_ikmap(prob, kernel, err);
		if (*map == NULL)
			return -1;
	}
	int device = kernel != NULL ? kernel->device : LIK_DEVICE_CPU;
	int threads = kernel != NULL ? kernel->threads : 0;
	if (training_rows(prob, *map, device, threads, X, cells, err) != 0) {
		ikmap_free(*map);
		*map = NULL;
		return -1;
	}
	return 0;
}

/*
 * lik_cross_validation (passes 0: the solver's own cross_validation_rows)
 * and lik_online_cross_validation (passes >= 1 of the online solver): the
 * same checks, the map built once from all rows, the same folds.
 */
static int cross_validate(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, int passes, double *target,
	struct lik_error *err)
{
	if (check_problem(prob, param, err) != 0)
		return -1;
	if (nr_fold < 2) {
		lik_fail(err, LIK_EINVAL, "n-fold cross validation: n must >= 2");
		return -1;
	}
	if (target == NULL) {
		lik_fail(err, LIK_EINVAL, "no target array given");
		return -1;
	}
	struct row_set X;
	struct ikmap *map;
	void *cells;
	if (lik_kernel_rows(prob, kernel, &X, &map, &cells, err) != 0)
		return -1;
	int status;
	if (passes == 0) {
		status = lik_cross_validation_cells(&X, prob->y, prob->bias, param, nr_fold, target, err);
	} else {
		struct lik_capture capture;
		lik_capture_begin(&capture);
		status = online_cross_validation_rows(&X, prob->y, prob->bias, param, passes, nr_fold, target);
		lik_capture_end(&capture);
		if (status != 0)
			fail_from_liblinear(err, LIK_ENOMEM, &capture, "out of memory in cross validation");
		else
			lik_ok(err);
	}
	free(cells);
	ikmap_free(map);
	return status != 0 ? -1 : 0;
}

int lik_cross_validation(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double *target, struct lik_error *err)
{
	return cross_validate(prob, param, kernel, nr_fold, 0, target, err);
}

int lik_online_cross_validation(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int passes, int nr_fold, double *target,
	struct lik_error *err)
{
	if (param != NULL && param->solver_type != ONLINE_OGD) {
		lik_fail(err, LIK_EINVAL, "cross validation with passes needs -s %d (ONLINE_OGD_HINGE)", ONLINE_OGD);
		return -1;
	}
	if (passes < 1) {
		lik_fail(err, LIK_EINVAL, "passes must be >= 1");
		return -1;
	}
	return cross_validate(prob, param, kernel, nr_fold, passes, target, err);
}

int lik_cross_validation_cells(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int nr_fold, double *target, struct lik_error *err)
{
	struct lik_capture capture;
	lik_capture_begin(&capture);
	int status = cross_validation_rows(X, y, bias, param, nr_fold, target);
	lik_capture_end(&capture);
	if (status != 0) {
		fail_from_liblinear(err, LIK_ENOMEM, &capture, "out of memory in cross validation");
		return -1;
	}
	lik_ok(err);
	return 0;
}

struct search_result {
	int psi;
	double C, p, score;
};

/* find_parameters_rows at one psi (kernel NULL: the plain rows). 0, or -1 with err set. */
static int search_at(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double start_C, double start_p,
	struct search_result *r, struct lik_error *err)
{
	struct row_set X;
	struct ikmap *map;
	void *cells;
	if (lik_kernel_rows(prob, kernel, &X, &map, &cells, err) != 0)
		return -1;
	struct lik_capture capture;
	lik_capture_begin(&capture);
	find_parameters_rows(&X, prob->y, prob->bias, param, nr_fold, start_C, start_p,
		&r->C, &r->p, &r->score);
	lik_capture_end(&capture);
	free(cells);
	ikmap_free(map);
	if (isnan(r->score)) {	/* NaN: the search failed and said why */
		fail_from_liblinear(err, LIK_ENOMEM, &capture, "out of memory in parameter search");
		return -1;
	}
	return 0;
}

static int better(const struct search_result *r, const struct search_result *best, int regression)
{
	return best->psi == 0 || (regression ? r->score < best->score : r->score > best->score);
}

int lik_find_parameters(const struct problem *prob, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double start_C, double start_p,
	int *best_psi, double *best_C, double *best_p, double *best_score, struct lik_error *err)
{
	if (check_problem(prob, param, err) != 0 || lik_check_search_solver(param, nr_fold, err) != 0)
		return -1;
	if (best_psi == NULL || best_C == NULL || best_p == NULL || best_score == NULL) {
		lik_fail(err, LIK_EINVAL, "no place for the results given");
		return -1;
	}
	int regression = param->solver_type == L2R_L2LOSS_SVR;
	struct search_result best = { 0, NAN, NAN, NAN };
	if (kernel == NULL || kernel->psi != 0) {
		best.psi = kernel != NULL ? kernel->psi : 0;
		if (search_at(prob, param, kernel, nr_fold, start_C, start_p, &best, err) != 0)
			return -1;
	} else {
		/* the kernel's grid: IK psi capped by the rows, minmax's 2^b, acos's 2 (lik_internal.h) */
		struct lik_psi_grid g = lik_psi_grid_of(kernel->kernel, prob->l, LIK_SEARCH_PSI_MAX);
		int last = g.last;
		if (last < g.first) {
			lik_fail(err, LIK_EINVAL, "-C with -k needs at least %d training rows (psi starts at %d)",
				g.first, g.first);
			return -1;
		}
		struct lik_map_params at = *kernel;
		for (int psi = g.first; psi <= last; psi *= g.factor) {
			struct search_result r = { psi, NAN, NAN, NAN };
			at.psi = psi;
			if (search_at(prob, param, &at, nr_fold, start_C, start_p, &r, err) != 0)
				return -1;
			if (regression)
				info("psi = %d  Best C = %g Best p = %g  CV MSE = %g\n", r.psi, r.C, r.p, r.score);
			else
				info("psi = %d  Best C = %g  CV accuracy = %g%%\n", r.psi, r.C, 100.0 * r.score);
			if (better(&r, &best, regression))
				best = r;
			if (psi > last / g.factor)
				break;	/* psi *= factor would pass last (and could overflow) */
		}
	}
	*best_psi = best.psi;
	*best_C = best.C;
	*best_p = best.p;
	*best_score = best.score;
	lik_ok(err);
	return 0;
}
