/*
 * anne_plan.h - how the GPU mapper cuts a mapping into tiles.
 *
 * Contract: anne_plan_tiles() picks the rows per batch and the
 * partitionings per GEMM chunk so that one score tile (rows x parts*psi
 * floats) and one batch of input rows (rows x d floats) each fit in
 * budget bytes. It keeps all t partitionings in one chunk whenever that
 * still leaves at least ANNE_PLAN_MIN_ROWS rows per batch (one wide GEMM
 * per batch); otherwise it keeps ANNE_PLAN_MIN_ROWS rows and splits the
 * partitionings, so every GEMM stays tall enough to run efficiently.
 * Returns 0, or -1 when not even one row of one partitioning fits.
 */
#ifndef ANNE_PLAN_H
#define ANNE_PLAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ANNE_PLAN_MIN_ROWS 1024
#define ANNE_PLAN_MAX_ROWS 16384

struct anne_plan {
	int rows;  /* rows per batch */
	int parts; /* partitionings per GEMM chunk, 1..t */
};

int anne_plan_tiles(int t, int psi, int d, size_t budget, struct anne_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* ANNE_PLAN_H */
