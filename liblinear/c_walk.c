/*
 * c_walk.c - the walk over C of train -C (see c_walk.h), with no rows in
 * sight: the callers own the folds, the models and the sums.
 */
#include <math.h>
#include <stddef.h>
#include "c_walk.h"
#include "print.h"

#define UNCHANGED_STEPS_TO_STOP 5

struct c_walk_best c_walk_no_best(bool regression)
{
	return (struct c_walk_best){ NAN, NAN, regression ? INFINITY : -1 };
}

double c_walk_first_C(double C_min, double start_C, double max_C)
{
	double C = start_C > 0 ? start_C : pow(2, floor(log2(C_min)));
	if (!(C > 0))
		C = 1;	/* C_min is 0 or NaN: the data cannot tell where to start */
	return C < max_C ? C : max_C;
}

double c_walk_classification_C_min(bool l2r_lr, double l, double max_sqnorm)
{
	return 1 / ((l2r_lr ? 1 : 2) * l * max_sqnorm);
}

double c_walk_svr_C_min(double loss_at_zero, double max_sqnorm, double sum_abs_y)
{
	return loss_at_zero / (800 * max_sqnorm * sum_abs_y * sum_abs_y);
}

static void report_and_keep_best(const struct c_walk *w, double C, double p, double score,
	struct c_walk_best *best)
{
	if (w->regression) {
		info("log2c=%7.2f\tp=%7.2f\tMean squared error=%g\n", log2(C), p, score);
		if (score < best->score) {
			*best = (struct c_walk_best){ C, p, score };
			if (w->on_best != NULL)
				w->on_best(w->context);
		}
	} else {
		info("log2c=%7.2f\trate=%g\n", log2(C), 100.0 * score);
		if (score > best->score) {
			*best = (struct c_walk_best){ C, -1, score };
			if (w->on_best != NULL)
				w->on_best(w->context);
		}
	}
}

int c_walk_run(const struct c_walk *w, double C, double max_C, double p, struct c_walk_best *best)
{
	w->restart(w->context);
	int unchanged_steps = 0;
	int steps_without_gain = 0;
	double walk_best = NAN;
	bool risen = false;
	while (C <= max_C) {
		double score;
		bool unchanged;
		if (w->evaluate(w->context, C, p, &score, &unchanged) != 0)
			return -1;
		report_and_keep_best(w, C, p, score, best);
		unchanged_steps = unchanged ? unchanged_steps + 1 : 0;
		if (unchanged_steps >= UNCHANGED_STEPS_TO_STOP)
			break;
		/* the early stop of the kernel's search (never upstream's -C): on mapped
		 * rows the weights keep moving, so only the score can tell the walk is past its peak */
		/* at the smallest C every model predicts alike and the score is flat:
		 * steps count only once the score has risen above the walk's first */
		bool gain = isnan(walk_best) || (w->regression ? score < walk_best : score > walk_best);
		if (gain) {
			risen = !isnan(walk_best);
			walk_best = score;
			steps_without_gain = 0;
		} else if (w->patience > 0 && risen && C >= w->patience_from_C
			&& ++steps_without_gain >= w->patience) {
			return 0;
		}
		C *= 2;
	}
	if (C > max_C)
		info("WARNING: maximum C reached.\n");
	return 0;
}

int c_walk_svr(const struct c_walk *w, double max_abs_y, double start_C, double start_p,
	double (*C_min_at)(void *context, double p), struct c_walk_best *best)
{
	double p_step = max_abs_y / 20;
	int i = 19;
	if (start_p > 0)
		while (i > 0 && i * p_step > start_p)
			i--;
	for (; i >= 0; i--) {
		double p = i * p_step;
		double C = c_walk_first_C(C_min_at(w->context, p), start_C, C_WALK_MAX_C_REGRESSION);
		if (c_walk_run(w, C, C_WALK_MAX_C_REGRESSION, p, best) != 0)
			return -1;
	}
	return 0;
}
