/*
 * online.h - online gradient descent with the hinge loss (solver -s 30),
 * the learner of Ting, Wells and Washio's IK-OGD (DMKD 2021, Algorithm 2).
 *
 * Contract. The learner works on a struct model in place, so the same
 * model can be trained, saved, loaded and trained further (train -i, the
 * online protocol of train -O, lik_online_update):
 *  - weights start at zero; each row, in the order given, is scored
 *    f_k = w_k . x for every column k of w, and every column with
 *    y_k f_k < 1 (y_k = +1 for the column's own class, else -1) gets
 *    w_k += a * y_k * x;
 *  - a is eta (param->C, the -c of train) times the -wi weight of the
 *    row's class as upstream weights C (binary: each class its own weight;
 *    one-vs-rest: the weight of class k on the rows of k, 1 on the rest).
 *    The same a for raw rows and Isolation Kernel cells: our cell value
 *    1/sqrt(t) makes phi(x).phi(y) the kernel K in [0, 1], the kernel the
 *    paper's OGD code evaluates, so f = eta * sum of y_i K(x_i, x) over the
 *    rows with a loss, exactly the paper's f: its Algorithm 2 adds eta*y to
 *    each of the t cells of a binary map, and that map's dot product
 *    divided by t is K; our w is the paper's divided by sqrt(t). eta = 0.5,
 *    the paper's, gives its a9a accuracy (README "Online learning");
 *  - labels are kept as upstream's train() keeps them: the order of first
 *    appearance, and with the two labels -1 and +1, +1 is label[0]; one
 *    column (label[0] against label[1]) while there are at most two
 *    classes, one per class (one-vs-rest) from three on. A label first
 *    seen later joins with zero weights: the step from two classes to
 *    three gives the new columns (w, -w, 0), which is exactly what
 *    one-vs-rest would hold, since the second class's column of a
 *    two-class one-vs-rest learner is always the negated first.
 * Nothing is random and nothing is threaded: the result depends only on
 * the rows, their order and the parameters.
 *
 * The model's param.C is the eta it was last trained with (online_learn
 * sets it), and its file keeps it on a header line "eta <%.17g>" after
 * "bias" (model_io.c; only -s 30 models, which upstream refuses anyway),
 * so continued training (-i) goes on with it unless given another; a file
 * written before that line existed loads with param.C = 0: eta unknown.
 * Passes and -wi weights are not kept: they belong to each run.
 */
#ifndef LIBLINEAR_ONLINE_H
#define LIBLINEAR_ONLINE_H

#include "linear.h"
#include "rows.h"

/* The solver_type of the online learner; outside upstream's enum (linear.h is an ABI). */
#define ONLINE_OGD 30
/* The paper's learning rate (Section 7: eta = 0.5 for every OGD learner). */
#define ONLINE_DEFAULT_ETA 0.5

/*
 * An empty model (nr_class 0, all weights zero) of nr_feature features
 * (plus the bias weight when bias >= 0) with param's solver_type and C
 * (its weight arrays are not kept). NULL when out of memory.
 */
struct model *online_model_new(int nr_feature, double bias, const struct parameter *param);

/* More features (zero weights; the bias weight stays the last row). 0, or -1: out of memory. */
int online_grow_features(struct model *m, int nr_feature);

/*
 * One or more passes over X's rows in order (labels y) on m, whose
 * nr_feature must cover X's features (X->n counts a bias feature when m
 * has one: sparse rows then carry the bias node, as train() takes them).
 * param gives eta (C) and the -wi weights. *mistakes (may be NULL) gets
 * the number of rows whose predicted label was wrong before their update,
 * in the last pass. 0, or -1 after a message through report_error (out of
 * memory, a label that is not an int).
 */
int online_learn(struct model *m, const struct parameter *param, const struct row_set *X,
	const double *y, int passes, long long *mistakes);

/* A new model trained from zero by passes over X (train_rows for -s 30). NULL after a message. */
struct model *online_train_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int passes);

/* cross_validation_rows for -s 30 with passes (the folds of folds.h). 0, or -1. */
int online_cross_validation_rows(const struct row_set *X, const double *y, double bias,
	const struct parameter *param, int passes, int nr_fold, double *target);

#endif /* LIBLINEAR_ONLINE_H */
