/*
 * anne_gpu.h - aNNE cells of dense rows on a CUDA GPU.
 *
 * Contract. aNNE has t partitionings of psi centres each; centre j of
 * partitioning k is row k*psi + j of the centre matrix. The cell of a row
 * x in partitioning k is the j in 0..psi-1 minimising ||x - c_{k,j}||^2
 * (Euclidean), the lowest j on ties.
 *
 * anne_gpu_device_count() is the number of usable CUDA devices: 0 when
 * there is no device, no driver, or the build has no GPU support
 * (anne_gpu_none.c). It never fails.
 *
 * anne_gpu_supported() is 1 when the library was built with CUDA, 0 for
 * anne_gpu_none.c (so a caller can tell "no device" from "no support").
 *
 * anne_gpu_create() uploads the centres, row-major (t*psi) x d floats
 * already scaled by the caller, with their squared norms, to device 0 of
 * those visible (CUDA_VISIBLE_DEVICES picks another). It needs t, psi,
 * d >= 1, t*psi <= 2^31-1, d <= ANNE_MAX_DIM. On failure it returns NULL
 * and writes why to err (errlen bytes, may be NULL/0).
 *
 * anne_gpu_map() maps count rows (row-major count x d dense floats) and
 * writes count*t cells, cells[i*t + k] for row i and partitioning k, and
 * count*t recheck flags. The scores are FP32 (cuBLAS pedantic FP32 GEMM,
 * no TF32); where best and second best are closer than the rigorous
 * bound of anne_bound.h the device recomputes the few candidates in
 * double. recheck[i*t + k] is 1 when neither proves that cells[i*t + k]
 * is the exact argmin (exact ties, duplicated centres, gaps at the level
 * of double rounding, NaN or infinity); the caller then recomputes those
 * cells on the host, e.g. with anne_resolve_rechecks(). Where recheck is
 * 0 the cell is the exact argmin. Rows
 * stream through pinned buffers in batches, so count is not limited by
 * GPU memory; the score tiles on the device stay within the tile budget
 * (256 MB unless anne_gpu_set_tile_budget() says otherwise). Returns 0,
 * or -1 with a message in err; after -1 only anne_gpu_free() is valid.
 *
 * anne_gpu_map_gaps() does the same and also writes gap[i*t + k], a lower
 * bound of (second smallest score) - (smallest score) over the psi
 * centres, in the float scores of anne_bound.h (rounded down; +infinity
 * when psi = 1; NaN when a score was not finite). With it a caller whose
 * rows and centres are float roundings of its own data can certify cells
 * against its own distance: when gap exceeds twice its bound on
 * |score + ||x||^2 - its distance|, cells[i*t + k] is its unique nearest
 * centre (a refinement on the device never changes such a cell, as the
 * float decision is then conclusive for the float data too).
 *
 * One struct anne_gpu is used by one host thread at a time.
 * anne_gpu_free(NULL) is a no-op.
 */
#ifndef ANNE_GPU_H
#define ANNE_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct anne_gpu;

int anne_gpu_device_count(void);

int anne_gpu_supported(void);

struct anne_gpu *anne_gpu_create(const float *centres, int t, int psi, int d, char *err, size_t errlen);

int anne_gpu_map(struct anne_gpu *g, const float *rows, int64_t count, uint32_t *cells, uint8_t *recheck,
		 char *err, size_t errlen);

/* Device memory for the score tiles of both streams together, in bytes
 * (at least psi*4*2 and d*4*2, at most 2^31); for tests that need many
 * batches from little data and for benchmarks. Returns 0 or -1. */
int anne_gpu_map_gaps(struct anne_gpu *g, const float *rows, int64_t count, uint32_t *cells, uint8_t *recheck,
		      float *gap, char *err, size_t errlen);

int anne_gpu_set_tile_budget(struct anne_gpu *g, size_t bytes, char *err, size_t errlen);

void anne_gpu_free(struct anne_gpu *g);

#ifdef __cplusplus
}
#endif

#endif /* ANNE_GPU_H */
