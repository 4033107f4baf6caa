/*
 * export.h - what liblinear.so.6 exports: exactly upstream LIBLINEAR
 * 2.50's API, the functions of linear.h and liblinear_version.
 *
 * Contract: the library's objects are compiled with -fvisibility=hidden
 * (Makefile), so every other function (solvers, rows, reader, rng, ...)
 * stays inside the library; each definition of a linear.h name is marked
 * LIBLINEAR_EXPORT. linear.h itself carries no visibility mark, so it is
 * unchanged for upstream's users. tests/oracle/test_abi.py checks the
 * exported set against upstream's library.
 */
#ifndef LIBLINEAR_EXPORT_H
#define LIBLINEAR_EXPORT_H

#if defined(__GNUC__)
#define LIBLINEAR_EXPORT __attribute__((visibility("default")))
#else
#define LIBLINEAR_EXPORT
#endif

#endif /* LIBLINEAR_EXPORT_H */
