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
 */
#ifndef IKMAP_DETMATH_H
#define IKMAP_DETMATH_H

double det_log(double x);

#endif /* IKMAP_DETMATH_H */
