/*
 * cws.h - the min-max kernel's sampler: 0-bit consistent weighted
 * sampling (issue 27), the numerical core under `-k minmax`.
 *
 * Contract.
 *
 * What it computes. The min-max kernel of non-negative vectors is
 * MM(x, y) = sum_i min(x_i, y_i) / sum_i max(x_i, y_i). Consistent
 * weighted sampling draws, per sample j, a pair (i*, t*) from a row such
 * that two rows give the same pair with probability exactly MM(x, y) (in
 * exact arithmetic, with ideal uniforms) (Ioffe, "Improved consistent sampling, weighted minhash and L1
 * sketching", ICDM 2010: ICWS; Appendix A of Li, "A comparison study of
 * nonlinear kernels", whose pseudo-code this follows). "0-bit" CWS keeps
 * i* only: i* alone collides a little more often than the pair, an
 * approximation the paper finds as good in practice, and it makes every
 * sample one of `cells` columns, the shape of an Isolation Kernel
 * partitioning (a row becomes k nonzeros). Sample j's cell is
 * (i* - 1) mod cells: cells is a power of two, so these are the low b
 * bits of the 0-based feature number, as the paper keeps "the lowest b
 * bits of i*"; distinct features sharing a cell is the price of a
 * bounded width.
 *
 * The reference arithmetic (every fast path reproduces it bit for bit).
 * IEEE-754 double, each operation rounded to nearest, in exactly this
 * order, no contraction into FMA (the Makefile compiles cws.c with
 * -ffp-contract=off), log = det_log (detmath.h). For sample j (0-based)
 * and feature i (1-based, as in the row):
 *   s    = crng_stream(seed, j)
 *   u_d  = crng_unit_open(crng_at(s, i, d)), d = 0 .. 4 (counter_rng.h)
 *   r    = -det_log(u_0 * u_1)            r ~ Gamma(2, 1)
 *   c    = -det_log(u_2 * u_3)            c ~ Gamma(2, 1)
 *   beta = u_4                            beta ~ Uniform(0, 1)
 *   q    = 1.0 / r
 *   K    = det_log(c) - r * (1.0 - beta)
 * and for a row's value x_i > 0:
 *   L    = det_log(x_i)
 *   t_i  = floor(L * q + beta)
 *   A_i  = K - r * t_i
 * i* = the feature of the smallest A_i over the row's nonzero features,
 * ties to the lowest i; t* = t_{i*}. This is ICWS in the log domain: in
 * exact arithmetic t_i = floor(log(x_i)/r + beta), y_i = exp(r (t_i -
 * beta)) and A_i = ln c - r (t_i - beta + 1) = ln(c / (y_i e^r)) = ln a_i,
 * a strictly increasing function of the paper's a_i, so the argmin is
 * the paper's. Precomputing q = 1/r turns a division per (row, feature,
 * sample) into a multiplication, and K folds the row-independent terms.
 * The products u_0 u_1, u_2 u_3 lie in [2^-106, 1 - 2^-52], so r, c > 0,
 * q is finite, |L q| < 2^62 and t* fits int64_t. (On x87 builds, whose
 * doubles carry excess precision, cws.c refuses to compile.)
 *
 * Functions.
 *
 * cws_new(seed, k, cells, dim, err): k samples (1..65536), cells a power
 * of two in 16..65536, rows of features 1..dim (1..INT_MAX-1). NULL with
 * a one-line message in err (IKMAP_ERR_SIZE bytes, or NULL) on a bad
 * argument or when memory runs out. A struct cws is read-only to its
 * users after cws_new: any number of threads may map rows with one at
 * once. It stores the seed and k streams, never k x d numbers: the
 * per-(sample, feature) values q, beta, r, K above depend on neither the
 * row nor the other features, so they are cached, built lazily in blocks
 * of 16 features on a row's first use of one, for features 1..F only:
 * F is the largest count with F x kpad x 32 bytes <= CWS_TABLE_BYTES
 * (256 MiB; kpad = k rounded up to 8), so the cache holds at most
 * min(dim, features seen rounded up to their blocks, F) features, plus a
 * pointer per block (8 bytes per 16 features of F). The cache is the
 * only state that changes after cws_new; it is published
 * with C11 atomics (a block is built whole, then its pointer is set by
 * compare-and-swap; a thread that loses the race frees its copy), so a
 * map claiming d = 2^31 - 2 costs nothing until rows use its features.
 * Features above F, and any block whose allocation fails, are computed
 * on the fly by the same operations (slower, same bits).
 * cws_new_capped(..., table_bytes, err): the same with another cap on the
 * cache (0: no cache at all; tests, benchmarks, memory-tight callers).
 * cws_free(c): frees c and its cache; NULL is allowed.
 *
 * cws_row_cells(c, index, value, nnz, out): the k cells of one row,
 * out[j] in 0 .. cells-1. The row is nnz (index, value) pairs with
 * indices strictly ascending in 1..dim and values finite and > 0 (the
 * caller drops zeros and features above dim and refuses negative or
 * non-finite values; this function does not check). nnz == 0, the empty
 * row, gives cell 0 in every sample. Uses the widest vector kernel the
 * CPU runs (AVX-512, AVX2, or generic C), chosen at run time.
 * cws_rows_cells(c, count, start, index, value, out): count rows at once,
 * row r being the pairs index/value[start[r] .. start[r+1] - 1] (each as
 * for cws_row_cells; start has count + 1 entries), its k cells at
 * out[r * k ..]. The same cells as cws_row_cells row by row; faster when
 * the cache outgrows the CPU's caches (large k x d), because it runs a
 * block of 128 samples over every row before the next block, so each
 * part of the cache is read from memory once a call, not once a row.
 * Returns 0, or -1 when its scratch (8 bytes a nonzero) cannot be
 * allocated (out is then unspecified).
 * cws_row_cells_reference: the same cells through the formulas above
 * computed from scratch per (sample, feature), no cache and no vectors:
 * the definition the fast path is tested against.
 * cws_full_sample(c, j, row..., istar, tstar): sample j's full ICWS pair
 * (i*, t*) for 0 <= j < k, by the reference arithmetic; the empty row
 * (or j out of range) gives i* = 0, t* = 0.
 *
 * cws_row_detail(c, reference, row..., istar, amin): for tests, each
 * sample's i* and smallest A (k entries each) from the fast path, or
 * from the reference when reference != 0; the empty row gives i* = 0,
 * A = +inf. Comparing A's bits checks the fast path's arithmetic itself,
 * not only the argmins it decides.
 *
 * cws_kernel_name(): the kernel cws_row_cells runs now: "avx512", "avx2"
 * or "generic". cws_use_kernel(name): for tests and benchmarks, makes
 * later calls run the named kernel (NULL: back to the widest); -1,
 * changing nothing, when the name is unknown or the CPU cannot run it.
 * Not to be called while another thread maps rows.
 */
#ifndef IKMAP_CWS_H
#define IKMAP_CWS_H

#include <stddef.h>
#include <stdint.h>

#define CWS_MAX_K 65536
#define CWS_MIN_CELLS 16
#define CWS_MAX_CELLS 65536
/* The default cap on the per-(sample, feature) cache. */
#define CWS_TABLE_BYTES ((size_t)256 << 20)

struct cws;

struct cws *cws_new(uint64_t seed, int k, int cells, int dim, char *err);
struct cws *cws_new_capped(uint64_t seed, int k, int cells, int dim, size_t table_bytes,
	char *err);
void cws_free(struct cws *c);

void cws_row_cells(const struct cws *c, const int *index, const double *value, int nnz,
	uint32_t *out);
int cws_rows_cells(const struct cws *c, size_t count, const size_t *start, const int *index,
	const double *value, uint32_t *out);
void cws_row_cells_reference(const struct cws *c, const int *index, const double *value,
	int nnz, uint32_t *out);
void cws_full_sample(const struct cws *c, int j, const int *index, const double *value,
	int nnz, int *istar, int64_t *tstar);
void cws_row_detail(const struct cws *c, int reference, const int *index, const double *value,
	int nnz, int *istar, double *amin);

const char *cws_kernel_name(void);
int cws_use_kernel(const char *name);

#endif /* IKMAP_CWS_H */
