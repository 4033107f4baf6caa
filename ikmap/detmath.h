/*
 * detmath.h - a natural logarithm whose every bit is fixed by this file,
 * for maps whose cells must not depend on the C library (issue 27's
 * reference arithmetic: libm's log may differ between systems by an ulp,
 * and a cell decided by that ulp would differ too).
 *
 * Contract. det_log(x) for finite x > 0 (subnormals included) is computed
 * by IEEE-754 double additions, multiplications and one division in the
 * fixed order written in detmath.c, with no contraction into FMA (the
 * Makefile compiles it with -ffp-contract=off), so it gives the same bits
 * on every machine and compiler; it is within 4 ulp of log(x) (3 seen, near 1). A
 * vector version must perform the same operations in the same order (the
 * steps are listed in detmath.c) to give the same bits. det_log(x) for
 * x <= 0, NaN or infinity is NaN: callers check their input first.
 *
 * det_log1p(x) = log(1 + x) for finite x > -1, built on det_log in the
 * same arithmetic (steps in detmath.c), so equally machine-independent;
 * within 8 ulp of log1p(x) (tested against libm), exact for x = +-0 (the
 * sign kept) and equal to x wherever 1 + x rounds to 1, so a zero stays a
 * zero (issue 28's -S 4 keeps sparse rows sparse). NaN for x <= -1, NaN
 * or infinity.
 */
#ifndef IKMAP_DETMATH_H
#define IKMAP_DETMATH_H

double det_log(double x);
double det_log1p(double x);

#endif /* IKMAP_DETMATH_H */
