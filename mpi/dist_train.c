/*
 * dist_train.c - one model trained by all processes together (see
 * dist_train.h): the classes over every process's labels, then one
 * distributed Newton problem per class (dist_newton.h).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist_train.h"
#include "model_shape.h"
#include "solvers.h"

void classes_free(struct classes *c)
{
	free(c->label);
	free(c->count);
	free(c->row_class);
	memset(c, 0, sizeof *c);
}

/* Where label sits in list[0..n), or -1. */
static int find_label(const int *list, int n, int label)
{
	for (int k = 0; k < n; k++)
		if (list[k] == label)
			return k;
	return -1;
}

/*
 * Labels as train groups them: (int) cast, order of first appearance over
 * the whole file, {-1, +1} swapped so that +1 comes first. Collective.
 */
static int group_classes(MPI_Comm comm, const struct dist_data *d, const struct options *o,
	struct classes *c)
{
	int size;
	MPI_Comm_size(comm, &size);
	memset(c, 0, sizeof *c);
	char msg[512] = "";
	int ok = 1, nr_local = 0;
	int *local = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *local);
	int *counts = malloc((size_t)size * sizeof *counts);
	int *displs = malloc((size_t)size * sizeof *displs);
	c->row_class = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *c->row_class);
	if (!local || !counts || !displs || !c->row_class) {
		snprintf(msg, sizeof msg, "ERROR: out of memory");
		ok = 0;
	}
	for (int i = 0; ok && i < d->l; i++) {
		double y = d->y[i];
		if (!(y > (double)INT_MIN - 1.0 && y < (double)INT_MAX + 1.0)) {
			char file[64] = "";
			if (o->per_rank)
				snprintf(file, sizeof file, ".%d", dist_rank(comm));
			snprintf(msg, sizeof msg, "train-mpi: %s%s: label %g at line %lld is not a valid class label",
				o->input_file, file, y, (long long)(d->first_line + i + 1));
			ok = 0;
			break;
		}
		if (find_label(local, nr_local, (int)y) < 0)
			local[nr_local++] = (int)y;
	}
	if (!dist_agree(comm, ok, msg))
		goto fail;
	MPI_Allgather(&nr_local, 1, MPI_INT, counts, 1, MPI_INT, comm);
	int64_t all = 0;
	for (int p = 0; p < size; p++) {
		displs[p] = (int)all;
		all += counts[p];
	}
	int *gathered = all <= INT_MAX ? malloc((size_t)(all > 0 ? all : 1) * sizeof *gathered) : NULL;
	c->label = malloc((size_t)(all > 0 ? all : 1) * sizeof *c->label);
	if (!dist_agree(comm, gathered && c->label, "ERROR: out of memory")) {
		free(gathered);
		goto fail;
	}
	MPI_Allgatherv(local, nr_local, MPI_INT, gathered, counts, displs, MPI_INT, comm);
	for (int64_t k = 0; k < all; k++)
		if (find_label(c->label, c->nr_class, gathered[k]) < 0)
			c->label[c->nr_class++] = gathered[k];
	free(gathered);
	if (c->nr_class == 2 && c->label[0] == -1 && c->label[1] == 1) {
		c->label[0] = 1;
		c->label[1] = -1;
	}
	int64_t *local_count = calloc((size_t)c->nr_class, sizeof *local_count);
	c->count = malloc((size_t)c->nr_class * sizeof *c->count);
	if (!dist_agree(comm, local_count && c->count, "ERROR: out of memory")) {
		free(local_count);
		goto fail;
	}
	for (int i = 0; i < d->l; i++) {
		c->row_class[i] = find_label(c->label, c->nr_class, (int)d->y[i]);
		local_count[c->row_class[i]]++;
	}
	/* integer sums: exact in any order */
	MPI_Allreduce(local_count, c->count, c->nr_class, MPI_INT64_T, MPI_SUM, comm);
	free(local_count);
	free(local);
	free(counts);
	free(displs);
	return 0;
fail:
	free(local);
	free(counts);
	free(displs);
	classes_free(c);
	return -1;
}

/* The stopping tolerance of -s 0 and 2: relative to the smaller side, as train's. */
static double balanced_eps(double eps, int64_t pos, int64_t total)
{
	int64_t smaller = pos < total - pos ? pos : total - pos;
	return eps * (double)(smaller > 1 ? smaller : 1) / (double)total;
}

/* One problem: y[] +1/-1 (or targets) and C[] per local row; w in, solution out. */
static int solve(const struct job *j, const double *y, const double *C, double eps, double *w)
{
	int s = j->param->solver_type;
	enum l2r_loss loss = s == L2R_LR ? L2R_LOSS_LR : s == L2R_L2LOSS_SVC ? L2R_LOSS_L2SVC
		: L2R_LOSS_L2SVR;
	int status = dist_solve_l2r_primal(j->rows, y, C, loss, j->param->p,
		j->param->regularize_bias, eps, w);
	if (status == SOLVER_NOMEM) {
		if (dist_rank(j->comm) == 0)
			fprintf(stderr, "ERROR: out of memory in train\n");
		return -1;
	}
	return 0;
}

/* C of each class: C times every -wi weight for its label (train's rule and warning). */
static double class_cost(const struct parameter *param, int label)
{
	double cost = param->C;
	for (int i = 0; i < param->nr_weight; i++)
		if (param->weight_label[i] == label)
			cost *= param->weight[i];
	return cost;
}

/*
 * One model on every process alike. c: the classes (NULL for -s 11).
 * held_out (NULL: none): local rows left out (cross-validation), given
 * cost 0, which takes them out of every sum exactly (their loss, gradient
 * and Hessian terms are zeros the solver skips); counts of the training
 * rows come with held_count (per class, then the total; NULL: none).
 * init (NULL: zeros): the start point, a feature-major w of this model's
 * shape (-C starts each fold at its model of the previous C).
 */
struct model *train_distributed(const struct job *j, const struct options *o,
	const struct classes *c, const unsigned char *held_out, const int64_t *held_count,
	const double *init)
{
	const struct dist_data *d = j->d;
	const struct parameter *param = j->param;
	struct model *m = calloc(1, sizeof *m);
	double *y = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *y);
	double *C = malloc((size_t)(d->l > 0 ? d->l : 1) * sizeof *C);
	double *wk = NULL;
	if (!dist_agree(j->comm, m && y && C, "ERROR: out of memory"))
		goto fail;
	m->param = *param;
	m->param.weight_label = NULL;	/* the model does not own the options' arrays */
	m->param.weight = NULL;
	m->param.nr_weight = 0;
	m->bias = o->bias;
	m->nr_feature = j->rows->X->n - (o->bias >= 0 ? 1 : 0);
	if (c == NULL) {
		m->nr_class = 2;
		size_t w_size = model_w_size(m);
		m->w = calloc(w_size > 0 ? w_size : 1, sizeof *m->w);
		if (!dist_agree(j->comm, m->w != NULL, "ERROR: out of memory"))
			goto fail;
		if (init != NULL)
			memcpy(m->w, init, w_size * sizeof *m->w);
		for (int i = 0; i < d->l; i++) {
			y[i] = d->y[i];
			C[i] = held_out && held_out[i] ? 0 : param->C;
		}
		if (solve(j, y, C, param->eps, m->w) != 0)
			goto fail;
		goto done;
	}
	m->nr_class = c->nr_class;
	m->label = malloc((size_t)c->nr_class * sizeof *m->label);
	size_t w_size = model_w_size(m);
	int nr_w = model_nr_w(m);
	m->w = calloc(w_size * (size_t)nr_w > 0 ? w_size * (size_t)nr_w : 1, sizeof *m->w);
	wk = malloc((w_size > 0 ? w_size : 1) * sizeof *wk);
	if (!dist_agree(j->comm, m->label && m->w && wk, "ERROR: out of memory"))
		goto fail;
	memcpy(m->label, c->label, (size_t)c->nr_class * sizeof *m->label);
	int problems = c->nr_class == 2 ? 1 : c->nr_class;
	int64_t total = d->total_rows - (held_count ? held_count[c->nr_class] : 0);
	for (int k = 0; k < problems; k++) {
		/* two classes: label[0] against label[1]; more: class k against the rest (Cn = C) */
		double Cp = class_cost(param, c->label[k]);
		double Cn = c->nr_class == 2 ? class_cost(param, c->label[1]) : param->C;
		for (int i = 0; i < d->l; i++) {
			y[i] = c->row_class[i] == k ? +1 : -1;
			C[i] = held_out && held_out[i] ? 0 : y[i] > 0 ? Cp : Cn;
		}
		for (size_t f = 0; f < w_size; f++)
			wk[f] = init != NULL ? init[f * (size_t)nr_w + (size_t)k] : 0;
		int64_t pos = c->count[k] - (held_count ? held_count[k] : 0);
		if (solve(j, y, C, balanced_eps(param->eps, pos, total), wk) != 0)
			goto fail;
		for (size_t f = 0; f < w_size; f++)
			m->w[f * (size_t)nr_w + (size_t)k] = wk[f];
	}
done:
	free(wk);
	free(y);
	free(C);
	return m;
fail:
	free(wk);
	free(y);
	free(C);
	if (m)
		free_and_destroy_model(&m);
	return NULL;
}

/* The classes of -s 0 and 2 (and train's warning for a -wi label that is not there). */
int classes_of(const struct job *j, const struct options *o, struct classes *c)
{
	memset(c, 0, sizeof *c);
	if (j->param->solver_type == L2R_L2LOSS_SVR)
		return 0;
	if (group_classes(j->comm, j->d, o, c) != 0)
		return -1;
	for (int i = 0; dist_rank(j->comm) == 0 && i < j->param->nr_weight; i++)
		if (find_label(c->label, c->nr_class, j->param->weight_label[i]) < 0)
			fprintf(stderr, "WARNING: class label %d specified in weight is not found\n",
				j->param->weight_label[i]);
	return 0;
}

