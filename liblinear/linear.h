#include <stdbool.h>
/*
 * linear.h - public C API of LIBLINEAR-IK.
 *
 * Contract: source- and binary-compatible with upstream LIBLINEAR 2.50.
 * The structs below have upstream's fields in upstream's order, the enum
 * has upstream's values, and every function has upstream's signature and
 * meaning, so that programs (and upstream's Python ctypes module) written
 * against upstream build and run unchanged against liblinear.so.6.
 * Do not add, remove or reorder anything here: it is an ABI.
 */
#ifndef LIBLINEAR_LINEAR_H
#define LIBLINEAR_LINEAR_H

#define LIBLINEAR_VERSION 250

#ifdef __cplusplus
extern "C" {
#endif

extern int liblinear_version;

/* One nonzero of a row; a row ends with a node whose index is -1. */
struct feature_node
{
	int index;	/* 1-based feature index */
	double value;
};

struct problem
{
	int l, n;	/* rows; features, including the bias feature if bias >= 0 */
	double *y;
	struct feature_node **x;
	double bias;	/* < 0 if no bias term */
};

enum { L2R_LR, L2R_L2LOSS_SVC_DUAL, L2R_L2LOSS_SVC, L2R_L1LOSS_SVC_DUAL, MCSVM_CS,
	L1R_L2LOSS_SVC, L1R_LR, L2R_LR_DUAL, L2R_L2LOSS_SVR = 11, L2R_L2LOSS_SVR_DUAL,
	L2R_L1LOSS_SVR_DUAL, ONECLASS_SVM = 21 }; /* solver_type */

struct parameter
{
	int solver_type;

	/* these are for training only */
	double eps;		/* stopping tolerance */
	double C;
	int nr_weight;
	int *weight_label;
	double *weight;
	double p;		/* epsilon of the SVR loss */
	double nu;		/* one-class SVM */
	double *init_sol;	/* warm start, -s 0, 2, 11 only */
	int regularize_bias;
	bool w_recalc;		/* recompute w from alpha after -s 1, 3 */
};

struct model
{
	struct parameter param;
	int nr_class;		/* number of classes; 2 for regression and one-class */
	int nr_feature;		/* excluding the bias feature */
	double *w;		/* feature-major: w[j*nr_w + k] */
	int *label;		/* label of each class; NULL for regression, one-class */
	double bias;
	double rho;		/* one-class SVM only */
};

struct model *train(const struct problem *prob, const struct parameter *param);
void cross_validation(const struct problem *prob, const struct parameter *param, int nr_fold, double *target);
void find_parameters(const struct problem *prob, const struct parameter *param, int nr_fold,
	double start_C, double start_p, double *best_C, double *best_p, double *best_score);

double predict_values(const struct model *model_, const struct feature_node *x, double *dec_values);
double predict(const struct model *model_, const struct feature_node *x);
double predict_probability(const struct model *model_, const struct feature_node *x, double *prob_estimates);

int save_model(const char *model_file_name, const struct model *model_);
struct model *load_model(const char *model_file_name);

int get_nr_feature(const struct model *model_);
int get_nr_class(const struct model *model_);
void get_labels(const struct model *model_, int *label);
double get_decfun_coef(const struct model *model_, int feat_idx, int label_idx);
double get_decfun_bias(const struct model *model_, int label_idx);
double get_decfun_rho(const struct model *model_);

void free_model_content(struct model *model_ptr);
void free_and_destroy_model(struct model **model_ptr_ptr);
void destroy_param(struct parameter *param);

const char *check_parameter(const struct problem *prob, const struct parameter *param);
int check_probability_model(const struct model *model);
int check_regression_model(const struct model *model);
int check_oneclass_model(const struct model *model);
void set_print_string_function(void (*print_func)(const char *));

#ifdef __cplusplus
}
#endif

#endif /* LIBLINEAR_LINEAR_H */
