/*
 * train_usage.h - the option lines of upstream LIBLINEAR 2.50's train usage
 * text, from "-s type" to "-q", shared by the programs that print them.
 *
 * Contract: TRAIN_USAGE_UPSTREAM_OPTIONS is a string literal, byte for byte
 * the lines that upstream's `train` and its MATLAB `train` print between
 * their first lines (which differ) and the end; each program adds its own
 * first lines and, after this, its own LIBLINEAR-IK additions. Scripts
 * and tests compare these lines with upstream's, so change nothing here
 * unless upstream's text changes.
 */
#ifndef TRAIN_USAGE_H
#define TRAIN_USAGE_H

#define TRAIN_USAGE_UPSTREAM_OPTIONS \
	"-s type : set type of solver (default 1)\n" \
	"  for multi-class classification\n" \
	"\t 0 -- L2-regularized logistic regression (primal)\n" \
	"\t 1 -- L2-regularized L2-loss support vector classification (dual)\n" \
	"\t 2 -- L2-regularized L2-loss support vector classification (primal)\n" \
	"\t 3 -- L2-regularized L1-loss support vector classification (dual)\n" \
	"\t 4 -- support vector classification by Crammer and Singer\n" \
	"\t 5 -- L1-regularized L2-loss support vector classification\n" \
	"\t 6 -- L1-regularized logistic regression\n" \
	"\t 7 -- L2-regularized logistic regression (dual)\n" \
	"  for regression\n" \
	"\t11 -- L2-regularized L2-loss support vector regression (primal)\n" \
	"\t12 -- L2-regularized L2-loss support vector regression (dual)\n" \
	"\t13 -- L2-regularized L1-loss support vector regression (dual)\n" \
	"  for outlier detection\n" \
	"\t21 -- one-class support vector machine (dual)\n" \
	"-c cost : set the parameter C (default 1)\n" \
	"-p epsilon : set the epsilon in loss function of SVR (default 0.1)\n" \
	"-n nu : set the parameter nu of one-class SVM (default 0.5)\n" \
	"-e epsilon : set tolerance of termination criterion\n" \
	"\t-s 0 and 2\n" \
	"\t\t|f'(w)|_2 <= eps*min(pos,neg)/l*|f'(w0)|_2,\n" \
	"\t\twhere f is the primal function and pos/neg are # of\n" \
	"\t\tpositive/negative data (default 0.01)\n" \
	"\t-s 11\n" \
	"\t\t|f'(w)|_2 <= eps*|f'(w0)|_2 (default 0.0001)\n" \
	"\t-s 1, 3, 4, 7, and 21\n" \
	"\t\tDual maximal violation <= eps; similar to libsvm (default 0.1 except 0.01 for -s 21)\n" \
	"\t-s 5 and 6\n" \
	"\t\t|f'(w)|_1 <= eps*min(pos,neg)/l*|f'(w0)|_1,\n" \
	"\t\twhere f is the primal function (default 0.01)\n" \
	"\t-s 12 and 13\n" \
	"\t\t|f'(alpha)|_1 <= eps |f'(alpha0)|,\n" \
	"\t\twhere f is the dual function (default 0.1)\n" \
	"-B bias : if bias >= 0, instance x becomes [x; bias]; if < 0, no bias term added (default -1)\n" \
	"-R : not regularize the bias; must with -B 1 to have the bias; DON'T use this unless you know what it is\n" \
	"\t(for -s 0, 2, 5, 6, 11)\n" \
	"-wi weight: weights adjust the parameter C of different classes (see README for details)\n" \
	"-v n: n-fold cross validation mode\n" \
	"-C : find parameters (C for -s 0, 2 and C, p for -s 11)\n" \
	"-q : quiet mode (no outputs)\n"

#endif
