/*
 * max_min.h - the larger and the smaller of two doubles, as inline
 * comparisons, for the solvers' inner loops.
 *
 * Why: libm's fmax and fmin are calls (their NaN rules keep GCC from
 * inlining them), and the dual coordinate solvers make several per step:
 * with them gone (and a division less per shuffle step) -s 1 took 13 %
 * less time (bench/results/issue3-solvers-dual.md).
 *
 * Contract: max2(a, b) is a when a > b, else b; min2(a, b) is a when
 * a < b, else b. For numbers that are not NaN these are fmax and fmin
 * (up to the sign of a zero result when a and b are zeros of opposite
 * signs). A NaN a gives b, as fmax and fmin give their number argument;
 * callers keep b a number.
 */
#ifndef LIBLINEAR_MAX_MIN_H
#define LIBLINEAR_MAX_MIN_H

static inline double max2(double a, double b)
{
	return a > b ? a : b;
}

static inline double min2(double a, double b)
{
	return a < b ? a : b;
}

#endif
