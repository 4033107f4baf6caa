/*
 * transform.h - the value of one feature as a map sees it under the
 * transforms -S 1, 2 (aNNE's form), 3 and 4 (issue 28): one inline
 * helper that every path (aNNE's dense, sparse, pruned, exact and GPU
 * packing, iForest's growing and mapping, the min-max and acos rows) calls,
 * so that training and prediction, and every path, transform alike.
 *
 * Contract. ikmap_transform_value(scale, factor, j, x), for a finite x
 * (and x >= 0 under scale 4: callers refuse negatives first):
 *   scale 4: y = det_log1p(x) (detmath.h: the same bits on every machine),
 *            else y = x;
 *   then y * factor[j] when factor is not NULL, else y.
 * One multiplication, so nothing can be contracted into an FMA; 0 maps to
 * 0 (det_log1p(0) = 0), so sparse rows stay sparse. The min-max and acos
 * maps' shifted scale 2 is not this helper's: see ikmap_minmax_scaled.
 */
#ifndef IKMAP_TRANSFORM_H
#define IKMAP_TRANSFORM_H

#include "detmath.h"

static inline double ikmap_transform_value(int scale, const double *factor, int j, double x)
{
	double y = scale == 4 ? det_log1p(x) : x;
	return factor ? y * factor[j] : y;
}

#endif /* IKMAP_TRANSFORM_H */
