/*
 * linear.c - train(): from a problem to a model.
 *
 * Classification: labels are grouped as upstream does ((int) cast, order
 * of first appearance, and {-1,+1} in that order swapped so that +1 is
 * label[0]); the rows are reordered class by class; each label's C is C
 * times its -wi weights. Two classes make one binary problem (label[0]
 * positive, costs weighted C of label[0] / label[1]); any other number
 * trains one-vs-rest problems, class k against the rest with Cp its
 * weighted C and Cn = C (unweighted), stored as column k of w.
 * Regression and one-class train one problem on the rows as given and
 * store nr_class 2 with no labels.
 *
 * Every sub-problem goes through dispatch_solver(), the one place where
 * a solver type meets its solver. Randomised solvers get an rng seeded
 * from RNG_DEFAULT_SEED and the class index, so a model never depends on
 * earlier calls, and each class can be trained independently.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "export.h"
#include "report.h"
#include "linear.h"
#include "linear_rows.h"
#include "dual_cd.h"
#include "model_shape.h"
#include "print.h"
#include "rng.h"
#include "solvers.h"
#include "dual_lr.h"
#include "dual_svr.h"
#include "l1_solvers.h"
#include "mcsvm_cs.h"
#include "oneclass.h"
#include "online.h"

/* Outer-iteration caps, as upstream: dual CD, Crammer-Singer, one-class. */
#define DUAL_MAX_ITER 300
#define MCSVM_CS_MAX_ITER 100000
#define ONECLASS_MAX_ITER 1000

static void report_nomem(void)
{
	report_error("ERROR: out of memory in train\n");
}

/* ---- class grouping ---- */

struct classes {
	int nr_class;
	int *label;	/* label of class k, in order of first appearance */
	int *count;	/* rows in class k */
	int *start;	/* where class k begins in perm */
	int *perm;	/* row indices, class by class, each class in row order */
};

static void free_classes(struct classes *c)
{
	free(c->label);
	free(c->count);
	free(c->start);
	free(c->perm);
	memset(c, 0, sizeof *c);
}

/* Upstream casts labels with (int); a value that cast cannot hold is refused. */
static int class_label_of(double y, int row, int *label)
{
	if (!(y > (double)INT_MIN - 1.0 && y < (double)INT_MAX + 1.0)) {
		report_error("ERROR: label %g of row %d is not a valid class label\n", y, row + 1);
		return -1;
	}
	*label = (int)y;
	return 0;
}

/* Finds or appends label; returns its class index, or -1 when out of memory. */
static int class_index(struct classes *c, int label, int *capacity)
{
	for (int k = 0; k < c->nr_class; k++)
		if (c->label[k] == label)
			return k;
	if (c->nr_class == *capacity) {
		int grown = *capacity * 2;
		int *l2 = realloc(c->label, (size_t)grown * sizeof *l2);
		if (l2 == NULL)
			return -1;
		c->label = l2;
		int *c2 = realloc(c->count, (size_t)grown * sizeof *c2);
		if (c2 == NULL)
			return -1;
		c->count = c2;
		*capacity = grown;
	}
	c->label[c->nr_class] = label;
	c->count[c->nr_class] = 0;
	return c->nr_class++;
}

/* Fills start[] and perm[] from each row's class. */
static int order_by_class(struct classes *c, const int *row_class, int l)
{
	c->start = malloc((size_t)(c->nr_class > 0 ? c->nr_class : 1) * sizeof *c->start);
	c->perm = malloc((size_t)(l > 0 ? l : 1) * sizeof *c->perm);
	if (c->start == NULL || c->perm == NULL)
		return -1;
	int next = 0;
	for (int k = 0; k < c->nr_class; k++) {
		c->start[k] = next;
		next += c->count[k];
	}
	for (int i = 0; i < l; i++)
		c->perm[c->start[row_class[i]]++] = i;
	for (int k = 0; k < c->nr_class; k++)
		c->start[k] -= c->count[k];
	return 0;
}

static int group_classes(int l, const double *y, struct classes *c)
{
	memset(c, 0, sizeof *c);
	int capacity = 16;
	int *row_class = malloc((size_t)(l > 0 ? l : 1) * sizeof *row_class);
	c->label = malloc((size_t)capacity * sizeof *c->label);
	c->count = malloc((size_t)capacity * sizeof *c->count);
	if (row_class == NULL || c->label == NULL || c->count == NULL)
		goto nomem;
	for (int i = 0; i < l; i++) {
		int label;
		if (class_label_of(y[i], i, &label) != 0)
			goto fail;
		int k = class_index(c, label, &capacity);
		if (k < 0)
			goto nomem;
		row_class[i] = k;
		c->count[k]++;
	}
	/* With labels -1 and +1, +1 is the positive class whichever came first. */
	if (c->nr_class == 2 && c->label[0] == -1 && c->label[1] == 1) {
		c->label[0] = 1;
		c->label[1] = -1;
		int n0 = c->count[0];
		c->count[0] = c->count[1];
		c->count[1] = n0;
		for (int i = 0; i < l; i++)
			row_class[i] = 1 - row_class[i];
	}
	if (order_by_class(c, row_class, l) != 0)
		goto nomem;
	free(row_class);
	return 0;
nomem:
	report_nomem();
fail:
	free(row_class);
	free_classes(c);
	return -1;
}

/* C of each class: C times every -wi weight given for its label. */
static double *class_costs(const struct parameter *param, const struct classes *c)
{
	double *cost = malloc((size_t)(c->nr_class > 0 ? c->nr_class : 1) * sizeof *cost);
	if (cost == NULL) {
		report_nomem();
		return NULL;
	}
	for (int k = 0; k < c->nr_class; k++)
		cost[k] = param->C;
	if (param->weight_label == NULL || param->weight == NULL)
		return cost;
	for (int i = 0; i < param->nr_weight; i++) {
		int k = 0;
		while (k < c->nr_class && c->label[k] != param->weight_label[i])
			k++;
		if (k == c->nr_class)
			report_error("WARNING: class label %d specified in weight is not found\n",
				param->weight_label[i]);
		else
			cost[k] *= param->weight[i];
	}
	return cost;
}

/* ---- one sub-problem ---- */

struct training_job {
	const struct row_set *X;
	const double *y;	/* +1/-1; regression: the targets; MCSVM_CS: class index 0..nr_class-1 */
	const struct parameter *param;
	double Cp, Cn;		/* cost of rows with y > 0, and of the others */
	int nr_class;		/* MCSVM_CS only: number of classes */
	const double *class_C;	/* MCSVM_CS only: the cost of each class */
	uint64_t seed;		/* for randomised solvers */
	double *w;		/* the start point on entry, the solution on return;
				   MCSVM_CS: the whole feature-major w_size x nr_class matrix */
	double *rho;		/* ONECLASS_SVM only: where the offset goes */
	double *alpha;		/* the SVC dual's start and final point (train_rows_warm), or NULL */
	bool warm;		/* alpha holds a start point */
};

static int solver_status_ok(int status)
{
	if (status == SOLVER_NOMEM) {
		report_nomem();
		return -1;
	}
	return 0;
}

/*
 * The Newton solver on the job's problem with tolerance eps (already
 * scaled as the solver type wants); rows cost Cp or Cn by their y.
 */
static int run_primal(const struct training_job *job, enum l2r_loss loss, double eps)
{
	int l = job->X->l;
	double *C = malloc((size_t)(l > 0 ? l : 1) * sizeof *C);
	if (C == NULL) {
		report_nomem();
		return -1;
	}
	for (int i = 0; i < l; i++)
		C[i] = loss == L2R_LOSS_L2SVR || job->y[i] > 0 ? job->Cp : job->Cn;
	int status = solve_l2r_primal(job->X, job->y, C, loss, job->param->p,
		job->param->regularize_bias, eps, job->w);
	free(C);
	return solver_status_ok(status);
}

/* -s 0 and -s 2 stop relative to the smaller class: eps * max(min(pos,neg),1)/l. */
static double class_balanced_eps(const struct training_job *job, double eps)
{
	int l = job->X->l, pos = 0;
	for (int i = 0; i < l; i++)
		pos += job->y[i] > 0;
	int smaller = pos < l - pos ? pos : l - pos;
	return eps * (smaller > 1 ? smaller : 1) / l;
}

/*
 * A dual solver stopped at its cap: warn as upstream does and, where
 * upstream switches, finish with primal Newton from the dual's w using
 * the primal tolerance tol (<= 0: no switch, just the advice).
 */
static int after_dual_cap(const struct training_job *job, const char *primal_solver,
	enum l2r_loss loss, double tol)
{
	if (tol <= 0) {
		info("\nWARNING: reaching max number of iterations\n"
			"Using %s may be faster (also see FAQ)\n\n", primal_solver);
		return 0;
	}
	info("\nWARNING: reaching max number of iterations\nSwitching to use %s\n\n",
		primal_solver);
	return run_primal(job, loss, tol);
}

static int run_svc_dual(const struct training_job *job, bool l1_loss, struct rng *rng)
{
	memset(job->w, 0, (size_t)job->X->n * sizeof *job->w);
	int status = job->alpha == NULL
		? solve_l2r_svc_dual(job->X, job->y, job->Cp, job->Cn, l1_loss,
			job->param->eps, DUAL_MAX_ITER, job->param->w_recalc, rng, job->w)
		: job->warm
		? solve_l2r_svc_dual_warm(job->X, job->y, job->Cp, job->Cn, l1_loss,
			job->param->eps, DUAL_MAX_ITER, job->param->w_recalc, rng, job->w, job->alpha)
		: solve_l2r_svc_dual_alpha(job->X, job->y, job->Cp, job->Cn, l1_loss,
			job->param->eps, DUAL_MAX_ITER, job->param->w_recalc, rng, job->w, job->alpha);
	if (status != SOLVER_MAX_ITER)
		return solver_status_ok(status);
	return after_dual_cap(job, "-s 2", L2R_LOSS_L2SVC,
		l1_loss ? 0 : class_balanced_eps(job, 0.1 * job->param->eps));
}

static int run_lr_dual(const struct training_job *job, struct rng *rng)
{
	int status = solve_l2r_lr_dual(job->X, job->y, job->Cp, job->Cn, job->param->eps,
		DUAL_MAX_ITER, rng, job->w);
	if (status != SOLVER_MAX_ITER)
		return solver_status_ok(status);
	return after_dual_cap(job, "-s 0", L2R_LOSS_LR, class_balanced_eps(job, 0.1 * job->param->eps));
}

static int run_svr_dual(const struct training_job *job, bool l1_loss, struct rng *rng)
{
	int status = solve_l2r_svr_dual(job->X, job->y, job->Cp, job->param->p, l1_loss,
		job->param->eps, DUAL_MAX_ITER, rng, job->w);
	if (status != SOLVER_MAX_ITER)
		return solver_status_ok(status);
	/* -s 12's default eps is 0.1 and -s 11's 0.0001: the switch keeps that ratio. */
	return after_dual_cap(job, "-s 11", L2R_LOSS_L2SVR, l1_loss ? 0 : 0.001 * job->param->eps);
}

static int run_l1(const struct training_job *job, bool logistic, struct rng *rng)
{
	double tol = class_balanced_eps(job, job->param->eps);
	int status = logistic
		? solve_l1r_lr(job->X, job->y, job->Cp, job->Cn, tol, job->param->regularize_bias, rng, job->w)
		: solve_l1r_l2_svc(job->X, job->y, job->Cp, job->Cn, tol, job->param->regularize_bias, rng, job->w);
	return solver_status_ok(status == SOLVER_MAX_ITER ? SOLVER_OK : status);
}

static int run_mcsvm_cs(const struct training_job *job, struct rng *rng)
{
	int l = job->X->l;
	int *class_of_row = malloc((size_t)(l > 0 ? l : 1) * sizeof *class_of_row);
	if (class_of_row == NULL) {
		report_nomem();
		return -1;
	}
	for (int i = 0; i < l; i++)
		class_of_row[i] = (int)job->y[i];
	int status = solve_mcsvm_cs(job->X, class_of_row, job->nr_class, job->class_C,
		job->param->eps, MCSVM_CS_MAX_ITER, rng, job->w);
	free(class_of_row);
	return solver_status_ok(status == SOLVER_MAX_ITER ? SOLVER_OK : status);
}

static int run_oneclass(const struct training_job *job, struct rng *rng)
{
	int status = solve_oneclass_svm(job->X, job->param->nu, job->param->eps,
		ONECLASS_MAX_ITER, rng, job->w, job->rho);
	return solver_status_ok(status == SOLVER_MAX_ITER ? SOLVER_OK : status);
}

/* Trains one sub-problem; 0, or -1 after a message on stderr. */
static int dispatch_solver(const struct training_job *job)
{
	if (job->X->l == 0)
		return 0;	/* nothing to fit: w stays at its start point */
	int s = job->param->solver_type;
	struct rng rng;
	rng_seed(&rng, job->seed);
	switch (s) {
	case L2R_LR:
		return run_primal(job, L2R_LOSS_LR, class_balanced_eps(job, job->param->eps));
	case L2R_L2LOSS_SVC:
		return run_primal(job, L2R_LOSS_L2SVC, class_balanced_eps(job, job->param->eps));
	case L2R_L2LOSS_SVR:
		return run_primal(job, L2R_LOSS_L2SVR, job->param->eps);
	case L2R_L2LOSS_SVC_DUAL:
		return run_svc_dual(job, false, &rng);
	case L2R_L1LOSS_SVC_DUAL:
		return run_svc_dual(job, true, &rng);
	case L2R_LR_DUAL:
		return run_lr_dual(job, &rng);
	case L2R_L2LOSS_SVR_DUAL:
		return run_svr_dual(job, false, &rng);
	case L2R_L1LOSS_SVR_DUAL:
		return run_svr_dual(job, true, &rng);
	case L1R_L2LOSS_SVC:
		return run_l1(job, false, &rng);
	case L1R_LR:
		return run_l1(job, true, &rng);
	case MCSVM_CS:
		return run_mcsvm_cs(job, &rng);
	case ONECLASS_SVM:
		return run_oneclass(job, &rng);
	default:
		report_error("ERROR: unknown solver type %d\n", s);
		return -1;
	}
}

/* ---- whole models ---- */

/* Column k of a feature-major init_sol (nr_w columns) into w, or zeros. */
static void start_point(const struct parameter *param, int k, int nr_w, size_t w_size, double *w)
{
	bool given = param->init_sol != NULL && solver_takes_init_sol(param->solver_type);
	for (size_t j = 0; j < w_size; j++)
		w[j] = given ? param->init_sol[j * (size_t)nr_w + (size_t)k] : 0;
}

/* Allocates a zeroed model->w of w_size * nr_w (at least one slot). */
static int alloc_weights(struct model *m)
{
	size_t count = model_w_size(m) * (size_t)model_nr_w(m);
	m->w = calloc(count > 0 ? count : 1, sizeof *m->w);
	if (m->w == NULL) {
		report_nomem();
		return -1;
	}
	return 0;
}

/* Regression and one-class: one problem on the rows as given. */
static int train_single(const struct row_set *X, const double *y,
	const struct parameter *param, struct model *m)
{
	m->nr_class = 2;
	m->label = NULL;
	if (alloc_weights(m) != 0)
		return -1;
	start_point(param, 0, 1, model_w_size(m), m->w);
	struct training_job job = { .X = X, .y = y, .param = param, .Cp = param->C,
		.Cn = param->C, .seed = RNG_DEFAULT_SEED, .w = m->w, .rho = &m->rho };
	return dispatch_solver(&job);
}

/* One-vs-rest problem k, or the single binary problem when k is 0 of 2. */
static int train_class(const struct row_set *grouped, const struct classes *c,
	const struct parameter *param, int k, double Cp, double Cn, double *w, double *y,
	struct dual_warm_start *ws)
{
	int l = grouped->l;
	for (int i = 0; i < l; i++)
		y[i] = -1;
	for (int i = c->start[k]; i < c->start[k] + c->count[k]; i++)
		y[i] = +1;
	struct training_job job = { .X = grouped, .y = y, .param = param, .Cp = Cp, .Cn = Cn,
		.seed = RNG_DEFAULT_SEED + (uint64_t)k, .w = w };
	if (ws != NULL && ws->alpha != NULL) {
		job.alpha = ws->alpha + (size_t)k * (size_t)l;
		job.warm = ws->ready;
	}
	return dispatch_solver(&job);
}

static int train_binary_or_ovr(const struct row_set *grouped, const struct classes *c,
	const struct parameter *param, const double *cost, struct model *m,
	struct dual_warm_start *ws)
{
	size_t w_size = model_w_size(m);
	int nr_w = model_nr_w(m);
	int l = grouped->l;
	double *y = malloc((size_t)(l > 0 ? l : 1) * sizeof *y);
	double *wk = malloc((w_size > 0 ? w_size : 1) * sizeof *wk);
	int rc = -1;
	if (y == NULL || wk == NULL) {
		report_nomem();
		goto done;
	}
	if (c->nr_class == 2) {
		start_point(param, 0, 1, w_size, m->w);
		rc = train_class(grouped, c, param, 0, cost[0], cost[1], m->w, y, ws);
		goto done;
	}
	for (int k = 0; k < c->nr_class; k++) {
		start_point(param, k, nr_w, w_size, wk);
		if (train_class(grouped, c, param, k, cost[k], param->C, wk, y, ws) != 0)
			goto done;
		for (size_t j = 0; j < w_size; j++)
			m->w[j * (size_t)nr_w + (size_t)k] = wk[j];
	}
	rc = 0;
done:
	free(y);
	free(wk);
	return rc;
}

/* Crammer-Singer: one problem over all classes, y the class index of each row. */
static int train_all_classes(const struct row_set *grouped, const struct classes *c,
	const struct parameter *param, const double *cost, struct model *m)
{
	double *y = malloc((size_t)(grouped->l > 0 ? grouped->l : 1) * sizeof *y);
	if (y == NULL) {
		report_nomem();
		return -1;
	}
	for (int k = 0; k < c->nr_class; k++)
		for (int i = c->start[k]; i < c->start[k] + c->count[k]; i++)
			y[i] = k;
	struct training_job job = { .X = grouped, .y = y, .param = param, .Cp = param->C,
		.Cn = param->C, .nr_class = c->nr_class, .class_C = cost,
		.seed = RNG_DEFAULT_SEED, .w = m->w };
	int rc = dispatch_solver(&job);
	free(y);
	return rc;
}

static bool is_identity(const int *perm, int l)
{
	for (int i = 0; i < l; i++)
		if (perm[i] != i)
			return false;
	return true;
}

/*
 * ws (or NULL): the SVC duals' points, one block of X->l per binary
 * problem, kept from one call to the next on the same rows and labels
 * (the classes, hence the grouped order of the rows, are the same).
 */
static int prepare_warm(struct dual_warm_start *ws, const struct row_set *X,
	const struct classes *c, const struct parameter *param)
{
	int st = param->solver_type;
	size_t problems = c->nr_class == 2 ? 1 : (size_t)c->nr_class;
	size_t size = problems * (size_t)(X->l > 0 ? X->l : 1);
	/* the L1 loss's box moves with C: a warm start cost it twice the passes (test_dual_cd) */
	if (st != L2R_L2LOSS_SVC_DUAL)
		return 0;	/* no dual point to keep: a cold start, as train_rows */
	if (ws->alpha != NULL && ws->size == size)
		return 0;
	free(ws->alpha);
	ws->ready = false;
	ws->size = 0;
	ws->alpha = malloc(size * sizeof *ws->alpha);
	if (ws->alpha == NULL) {
		report_nomem();
		return -1;
	}
	ws->size = size;
	return 0;
}

static int train_classes(const struct row_set *X, const double *y,
	const struct parameter *param, struct model *m, struct dual_warm_start *ws)
{
	struct classes c;
	if (group_classes(X->l, y, &c) != 0)
		return -1;
	double *cost = class_costs(param, &c);
	struct row_set grouped = *X;
	bool own_grouped = false;
	int rc = -1;
	if (cost == NULL)
		goto done;
	m->nr_class = c.nr_class;
	m->label = c.label;	/* the model takes the label array over */
	c.label = NULL;
	if (alloc_weights(m) != 0)
		goto done;
	if (!is_identity(c.perm, X->l)) {
		if (rows_subset(X, c.perm, X->l, &grouped) != 0) {
			report_nomem();
			goto done;
		}
		own_grouped = true;
	}
	if (param->solver_type == MCSVM_CS) {
		rc = train_all_classes(&grouped, &c, param, cost, m);
	} else {
		if (ws != NULL && prepare_warm(ws, X, &c, param) != 0)
			goto done;
		rc = train_binary_or_ovr(&grouped, &c, param, cost, m,
			ws != NULL && ws->alpha != NULL ? ws : NULL);
		if (rc == 0 && ws != NULL && ws->alpha != NULL)
			ws->ready = true;
	}
done:
	if (own_grouped)
		rows_free_subset(&grouped);
	free(cost);
	free_classes(&c);
	return rc;
}

/*
 * Upstream's solvers index w by feature; a wrong index would write out of
 * bounds. A pass over every nonzero before each training, so it is kept
 * cheap: one unsigned compare per index (index - 1 wraps below 0 to a
 * huge value), folded into a flag without a branch; a row that fails is
 * walked again to name the first bad index.
 */
static int check_feature_indices(const struct row_set *X)
{
	if (X->kind != ROWS_SPARSE)
		return 0;
	unsigned n = X->n > 0 ? (unsigned)X->n : 0;
	for (int i = 0; i < X->l; i++) {
		bool bad = false;
		for (const struct feature_node *f = X->x[i]; f->index != -1; f++)
			bad |= (unsigned)f->index - 1u >= n;
		if (!bad)
			continue;
		for (const struct feature_node *f = X->x[i]; f->index != -1; f++)
			if (f->index < 1 || f->index > X->n) {
				report_error("ERROR: feature index %d of row %d is outside 1..%d\n",
					f->index, i + 1, X->n);
				return -1;
			}
	}
	return 0;
}

static struct model *train_rows_from(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, struct dual_warm_start *ws)
{
	if (check_feature_indices(X) != 0)
		return NULL;
	/* the online learner keeps the rows' order: no regrouping by class (online.h) */
	if (param->solver_type == ONLINE_OGD)
		return online_train_rows(X, y, bias, param, 1);
	struct model *m = calloc(1, sizeof *m);
	if (m == NULL) {
		report_nomem();
		return NULL;
	}
	m->param = *param;
	m->bias = bias;
	m->nr_feature = bias >= 0 ? X->n - 1 : X->n;
	int s = param->solver_type;
	int rc = solver_is_regression(s) || s == ONECLASS_SVM
		? train_single(X, y, param, m)
		: train_classes(X, y, param, m, ws);
	if (rc != 0)
		free_and_destroy_model(&m);
	return m;
}

struct model *train_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param)
{
	return train_rows_from(X, y, bias, param, NULL);
}

struct model *train_rows_warm(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, struct dual_warm_start *ws)
{
	return train_rows_from(X, y, bias, param, ws);
}

void dual_warm_start_free(struct dual_warm_start *ws)
{
	free(ws->alpha);
	*ws = (struct dual_warm_start){ NULL, 0, false };
}

LIBLINEAR_EXPORT struct model *train(const struct problem *prob, const struct parameter *param)
{
	struct row_set X = rows_sparse(prob->l, prob->n, prob->x);
	return train_rows(&X, prob->y, prob->bias, param);
}
