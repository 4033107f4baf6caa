/*
 * ikmap.h - the Isolation Kernel feature map: t random partitionings of
 * the input space, each into at most psi cells; a row becomes the t cells
 * it falls in (Ting, Wells, Washio: "Isolation kernel: the X factor").
 * Two more kernels share the same shape (issue 27; Ping Li, "A comparison
 * study of nonlinear kernels"): the min-max kernel by 0-bit consistent
 * weighted sampling and the acos kernel by sign random projections, each
 * a row's k samples, one cell each (see "Min-max" and "Acos" below).
 *
 * Contract.
 *
 * Input rows are upstream rows of struct feature_node (linear.h): 1-based
 * strictly ascending indices, ended by index -1. Build rows must have
 * indices in 1..d and finite values (checked; an error otherwise). Rows
 * given to ikmap_map may have indices above d; those features are
 * ignored (like upstream predict ignores features it never trained on).
 * A missing feature is 0.
 *
 * Sampling. The caller's seed starts a generator (rng.h) that draws one
 * seed per partitioning, in order; partitioning k then draws its psi rows
 * DISTINCT, uniformly without replacement from the n build rows, in a
 * random order, independently of every other partitioning (a row may
 * serve several partitionings; ikpykit and the authors' R and MATLAB code
 * do the same; the authors' C++ IK-OGD instead avoids reuse across
 * partitionings). The same generator then drives that partitioning's
 * tree. So maps depend only on (rows, d, method, t, psi, seed, scale), never
 * on the thread count. psi > n is an error.
 *
 * aNNE (IKMAP_ANNE). Partitioning k holds psi centres c(k,0..psi-1), the
 * sampled rows in draw order. A row's cell is the index i of its nearest
 * centre by the REFERENCE distance: sum over features j = 1..d, ascending,
 * of (x_j - c_j)^2 in double, where x_j and c_j are the (scaled) values;
 * ties go to the lowest i. Two exact-by-construction paths compute it:
 *  - dense: a float GEMM of a tile of rows against all t*psi centres
 *    (mean-centred), a segmented argmin per partitioning, and a double
 *    recomputation of every partitioning whose best and runner-up are
 *    closer than a rigorous bound on the float error (anne_dense.c);
 *  - sparse: an inverted index over the centres' nonzeros, distances
 *    expanded in double, the same bounded recheck (anne_sparse.c).
 * ikmap_build picks the path from a cost model (anne_path.c); both give
 * identical cells.
 *
 * Devices. ikmap_map_on(..., IKMAP_DEVICE_GPU) maps aNNE rows on a CUDA
 * GPU (anne_device.c, cuda/anne_gpu.h): rows and centres are densified
 * (scaled, centred), rounded to float, scored by a float GEMM on the
 * device, and every cell is certified against the reference distance
 * with a rigorous bound or recomputed on the host in double, so the cells
 * are identical to the CPU paths'. The first GPU call on a map uploads
 * its centres and keeps them with the map (under a lock; GPU calls on one
 * map run one at a time). IKMAP_DEVICE_AUTO uses the GPU when one is
 * usable and the map fits it, else the CPU, silently; IKMAP_DEVICE_GPU
 * fails instead (err says why: no GPU support in this build, no CUDA
 * device, a partitioning too wide for it, a device error).
 * IKMAP_DEVICE_CPU never touches the GPU. iForest, min-max and acos maps
 * always map on the CPU, whatever the device (IKMAP_DEVICE_GPU too).
 *
 * iForest (IKMAP_IFOREST). Partitioning k is a completely random tree on
 * its psi sampled rows, grown until every node holds one row or rows that
 * are all identical: a node splits on an attribute drawn uniformly among
 * those not constant on the node's rows, at a value drawn uniformly in
 * (min, max) of that attribute there; a row goes left when its value is
 * below the split. Leaves are numbered 0, 1, ... from left to right, so
 * duplicates share a leaf and a tree may have fewer than psi leaves
 * (some cells are then never used). A row's cell is the leaf it reaches.
 *
 * Min-max (IKMAP_MINMAX). t = k samples, psi = cells per sample, a
 * power of two 16..65536 (2^b; anything else is an error). Sample j of a
 * row is 0-bit consistent weighted sampling of its positive values, by
 * the sampler of ikmap/cws.h, whose contract rules the sample, its cell
 * (0-bit: from the sampled feature i*, (i* - 1) mod psi in the issue's
 * reference), the reference arithmetic and the generator (keyed by seed,
 * sample and feature); this facade hands it each row's transformed form
 * (below). The share of samples whose full samples agree estimates the
 * min-max kernel sum_j min(x_j, y_j) / sum_j max(x_j, y_j); cells agree
 * at least as often. Values must be non-negative (zeros are
 * absent features): a negative value is an error at build and map time
 * (ikmap_map* return -2, err names the row, counted from 1 within the
 * call, and the feature), unless scale = 2 maps the data into [0, 1].
 *
 * Acos (IKMAP_ACOS). t = k projections, psi = 2 cells (0 is taken for
 * 2; anything else is an error). Projection j's vector g_j has, for
 * feature i, the Gaussian g(j, i) drawn from the counter generator
 * (counter_rng.h) keyed by (seed, sample j, feature i) by Marsaglia's
 * polar method: for attempt a = 0, 1, ..., with key i + a/8 * 2^32 and
 * draws 2(a mod 8) and 2(a mod 8) + 1, u = 2 U0 - 1 and v = 2 U1 - 1
 * (U = crng_unit_open of the draw; both exact), s = u*u + v*v; the first
 * attempt with s < 1 gives g = u * sqrt(-2 det_log(s) / s) (detmath.h;
 * sqrt is IEEE, correctly rounded), every operation an IEEE double one
 * in this order. The cell of projection j is 1 when the REFERENCE dot
 * product is >= 0, else 0: sum, starting at +0, over the row's nonzero
 * (transformed) values x_i with i <= d in ascending i, of x_i * g(j, i),
 * each product and each sum rounded to double (no FMA). The share of
 * projections where two rows agree estimates 1 - angle(x, y)/pi. The map
 * stores (k, seed, d, transform), never the k x d Gaussians: when k * d
 * is at most IKMAP_ACOS_TABLE it derives them as a table after a build
 * or load (an exact copy, double and float), else it recomputes those of
 * each batch of rows' features while mapping. The fast path (a float GEMM of rows against the float table,
 * ikmap/gemm.h) recomputes in the reference arithmetic every dot product
 * whose magnitude is below a rigorous bound on its error (signproj.c), so
 * its cells are the reference's, bit for bit; ikmap_set_path picks it
 * (IKMAP_PATH_DENSE), the reference (_SPARSE) or a choice per block of
 * rows by their density (_AUTO, the default).
 *
 * Min-max and acos rows: features above d are ignored; a value that is
 * not finite (within 1..d) is an error (-2 from ikmap_map*); an empty row
 * takes cell 0 of every min-max sample and cell 1 of every projection (a
 * dot product of 0 is >= 0), so every row has exactly k cells. The
 * mapping threads split the rows; cells never depend on their number.
 * Caps at build and load: k <= 65536, cells <= 65536, d < 2^31 and
 * k * cells <= INT_MAX - 2.
 *
 * Scaling (scale in struct ikmap_params; ikmap_scaled() reports it; issue
 * 28). Every code 0..4 is valid for every method. Statistics run over the
 * n build rows with implicit zeros counted (a feature absent from some row
 * has 0 among its values); a map that stores factors applies them to
 * build rows, mapped rows and aNNE's samples alike (the samples are stored
 * raw), as x -> x * factor_j, or under scale 4 x -> det_log1p(x) *
 * factor_j (transform.h), so a zero stays a zero.
 *  0: none; nothing stored.
 *  1: max-abs: factor_j = 1 / max |x_j| (1 when that max is 0).
 *  2: min-max. aNNE: factor_j = 1 / (max_j - min_j), no shift (a shift
 *     changes no distance, and rows stay sparse). Min-max and acos: with
 *     the shift, below.
 *  3: factor_j = 1 / the standard deviation of x_j (over n, no centring
 *     of the values themselves).
 *  4: log1p, then max-abs: factor_j = 1 / max det_log1p(x_j). Values must
 *     be non-negative (every method; build and map refuse a negative one,
 *     ikmap_map* with -2 and err naming the row and feature).
 * A zero range, deviation or maximum (or one whose reciprocal overflows)
 * gives factor 1. iForest ignores 1-3 (a tree's split choices are
 * invariant to positive per-feature scaling; ikmap_scaled() = 0, the file
 * as without them) and applies only log1p under 4 (no factors: they would
 * change no split either). Min-max needs non-negative transformed values:
 * it refuses negative input under every scale but 2 (1 and 3 keep signs).
 * Min-max and acos under 2: min_j and max_j,
 * stored as min_j (ikmap_scale_shift) and factor_j = 1 / (max_j -
 * min_j) (ikmap_scale_factors; 0 when the range is 0: the feature then
 * maps to 0); a value x of feature j <= d becomes (x - min_j) * factor_j
 * clipped to [0, 1], and the transformed zeros are absent. The shift moves
 * the zeros of a feature with min_j < 0 to a positive value, so such a
 * feature is nonzero in every row: rows with negative minima get denser.
 * A feature absent from a row is transformed too (0 becomes (0 - min_j) *
 * factor_j), so rows are walked over features 1..d where any min_j < 0.
 *
 * Output. ikmap_map writes count*t cells, row-major (row r, partitioning
 * k at r*t + k), as uint16_t when psi <= 65536 and uint32_t otherwise
 * (ikmap_cell_size). They feed rows.h ROWS_CELLS (feature k*psi + cell +
 * 1, value 1/sqrt(t)), for every map type alike. K(x, y) = the fraction
 * of partitionings (samples, projections) where x and y share a cell.
 *
 * Raw features (issue 28, "raw features beside the cells"). A map built
 * with raw_weight w > 0 (finite; NaN, infinities and negatives are refused)
 * gives each row, besides its cells, a raw part: the row's features
 * j = 1..d, each x_j transformed and multiplied by w, zeros (and products
 * that round to 0) left out. The transform is the map's own (aNNE, min-max
 * and acos: transform.h with its factors, the min-max and acos scale 2
 * unshifted, as aNNE's, so rows stay sparse and a shift is the bias's job);
 * iForest's trees take no transform but log1p, so its raw part is
 * divided by each feature's range under scale 2 (factors of its own,
 * ikmap_scaled() then 2) and left as it is under every other scale. The raw
 * part's columns follow the cells (rows.h ROWS_CELLS' raw part):
 * ikmap_columns = t*psi + d, which build and load keep <= INT_MAX - 2
 * (a bias column after them fits an int). The kernel of the whole row
 * becomes K(x, y) + w^2 <x', y'> once the cells carry 1/sqrt(t).
 * With w = 0 nothing changes: no raw part, the same file bytes.
 *
 * Files. ikmap_save writes a versioned little-endian binary file
 * atomically (temporary file + rename, common/atomic_file.h; an existing
 * path that is not a regular file is refused, never replaced); ikmap_load
 * reads only a regular file (never blocking on a FIFO) and verifies it
 * completely, sizes before any allocation (format in ikmap_file.c). Maps
 * that use nothing of issues 27 and 28 (aNNE with scale 0 or 1, iForest
 * with 0-3) are written as version 1, byte for byte as before; min-max,
 * acos and the scales 2-4 of aNNE (4 of iForest), and every map with a raw
 * part, as version 2; both load. ikmap_checksum is the file's 64-bit FNV-1a
 * checksum (hashed on the first call, then kept), so a model file can name the
 * partitioning it was trained on.
 *
 * Errors. Functions that can fail take char err[IKMAP_ERR_SIZE] (or NULL)
 * and write a one-line message there; the library never exits or prints.
 * Min-max and acos build and load check their own caps (see above); a map
 * that stores factors (d or 2 d numbers) is refused above
 * IKMAP_MAX_SCALED_DIM at build.
 * A map is read-only after build/load (ikmap_set_path aside), so several
 * threads may map with it at once. While mapping on the dense path,
 * a pthreads OpenBLAS is set to one thread (restored after): our OpenMP
 * threads each run their own GEMM.
 */
#ifndef IKMAP_H
#define IKMAP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "linear.h"

#define IKMAP_ERR_SIZE 256

enum ikmap_method { IKMAP_ANNE = 0, IKMAP_IFOREST = 1, IKMAP_MINMAX = 2, IKMAP_ACOS = 3 };

/* Where aNNE rows are mapped (see Devices above). */
enum ikmap_device { IKMAP_DEVICE_CPU = 0, IKMAP_DEVICE_GPU = 1, IKMAP_DEVICE_AUTO = 2 };

/* How aNNE distances are computed; both give the same cells. */
enum ikmap_path { IKMAP_PATH_AUTO = 0, IKMAP_PATH_DENSE = 1, IKMAP_PATH_SPARSE = 2 };

struct ikmap_params {
	enum ikmap_method method;
	int t;			/* partitionings, >= 1; min-max and acos: samples k, 1..65536 */
	int psi;		/* rows sampled per partitioning, 1..n; min-max: cells per
				 * sample, a power of two 16..65536; acos: 2 (or 0) */
	uint64_t seed;
	int scale;		/* 0: none; 1: max-abs; 2: min-max; 3: standard deviation;
				 * 4: log1p then max-abs; any method (see Scaling above) */
	int threads;		/* <= 0: the OpenMP default */
	double raw_weight;	/* w >= 0 of the raw part (see Raw features); 0: none */
};

struct ikmap;

/*
 * Builds a map from rows[0..n-1] of dimension d; NULL on error. A
 * negative value where ikmap_needs_nonnegative (min-max without scale 2,
 * any map under scale 4) is refused, err naming its row and feature. Min-max
 * and acos read the rows only to check them and for the scales' statistics.
 */
struct ikmap *ikmap_build(struct feature_node *const *rows, int n, int d,
	const struct ikmap_params *params, char *err);

/*
 * Streaming build: the same map as ikmap_build, from rows that are never
 * all in memory at once (train -k reads its file in passes).
 *
 * The per-feature factors need statistics over all rows: a scan gathers
 * them. ikmap_scan_passes(s) passes (0, 1, or 3 under scale 3) each feed
 * every row, in the same order every time, through ikmap_scan_rows (any
 * batches), each pass closed by ikmap_scan_end_pass; pass 0 also counts
 * the rows. The rows must be what ikmap_build accepts (indices 1..d
 * ascending, finite values, non-negative where ikmap_needs_nonnegative):
 * the scan does not check them. ikmap_build_scanned then builds the map
 * of those n rows of dimension d: the draws depend on n and the seed
 * alone, and only the drawn rows are read, through source, called with
 * the ascending distinct row numbers ids[0..count-1] (0-based, in the
 * scan's order) to set rows[i] to row ids[i] (valid until the next call):
 * aNNE asks for them in consecutive parts of at most 1024 rows (it keeps
 * its own copy of each), iForest a group of trees' rows at a time (about
 * 2048 draws; a row drawn by several groups is asked for by each); then
 * once more with ids and rows NULL and count 0 when they are no longer
 * needed; it returns 0, or -1 with err set. Min-max and acos
 * draw no rows and never call it. ikmap_build is exactly this over rows
 * in memory, so both give the same map, byte for byte. NULL (or -1) with
 * err set on error; ikmap_scan_new gives NULL only when out of memory.
 */
struct ikmap_scan;
typedef int (*ikmap_row_source)(void *context, const int *ids, size_t count,
	struct feature_node **rows, char *err);
struct ikmap_scan *ikmap_scan_new(const struct ikmap_params *params);
int ikmap_scan_passes(const struct ikmap_scan *s);
int ikmap_scan_rows(struct ikmap_scan *s, struct feature_node *const *rows, size_t count,
	char *err);
void ikmap_scan_end_pass(struct ikmap_scan *s);
void ikmap_scan_free(struct ikmap_scan *s);
struct ikmap *ikmap_build_scanned(const struct ikmap_scan *scan, int n, int d,
	const struct ikmap_params *params, ikmap_row_source source, void *context, char *err);

/*
 * Maps rows[0..count-1] to cells (count * t elements of ikmap_cell_size
 * bytes). threads <= 0: the OpenMP default. Returns 0, -1 when out of
 * memory (err says so), or -2 when a value (of a feature <= d) is not
 * finite (min-max and acos maps, and any map under scale 4) or negative
 * where ikmap_needs_nonnegative (err names the first one, its row counted
 * from 1; no cell is written then).
 */
int ikmap_map(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads, char *err);

/*
 * ikmap_map on a device (ikmap_map is IKMAP_DEVICE_CPU). Returns 0, or -1
 * with err set: out of memory, or under IKMAP_DEVICE_GPU no usable GPU
 * (aNNE; the other types map on the CPU), or -2 as ikmap_map.
 */
int ikmap_map_on(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads, enum ikmap_device device, char *err);

/*
 * Dense input: a row-major matrix of doubles, row r's feature j (1-based)
 * at x[r * ld + j - 1], a zero being an absent feature. Such a row means
 * exactly its sparse form (its nonzeros in ascending order), and these
 * functions give exactly what the sparse ones give on that form: the same
 * map (file bytes, checksum) and the same cells.
 *
 * ikmap_dense_width: the largest column holding a nonzero (or NaN) in
 * rows 0..n-1 of cols columns, 0 for none, -1 above IKMAP_MAX_DIM: the d
 * a sparse reader finds. ikmap_build_dense builds on columns 1..d of n
 * rows (the caller's columns above d must be zero; ld >= d), refusing
 * non-finite values as ikmap_build does. ikmap_map_dense_on maps count
 * rows of cols columns (ld >= cols; columns above the map's dim are
 * ignored) as ikmap_map_on; it returns 0, -1 (out of memory, or the
 * GPU as ikmap_map_on) or -2 when a value, in any column, is not finite,
 * or a map that refuses negatives (ikmap_needs_nonnegative) meets one in
 * columns 1..d (err names the first one; row-major order).
 * ikmap_build_dense refuses such a negative value too.
 */
int ikmap_dense_width(const double *x, size_t n, size_t cols, size_t ld);
struct ikmap *ikmap_build_dense(const double *x, int n, int d, size_t ld,
	const struct ikmap_params *params, char *err);
int ikmap_map_dense_on(const struct ikmap *map, const double *x, size_t count, int cols,
	size_t ld, void *cells, int threads, enum ikmap_device device, char *err);

/*
 * The number of CUDA devices ikmap_map_on can use; 0 with err (may be
 * NULL) set to "this build has no GPU support" or "no CUDA device found".
 */
int ikmap_gpu_devices(char *err);

/* 2 (uint16_t cells) when psi <= 65536, else 4 (uint32_t). */
size_t ikmap_cell_size(const struct ikmap *map);

/* Cell k of a row whose t cells start at cells (as ikmap_map wrote them). */
uint32_t ikmap_cell_at(const struct ikmap *map, const void *cells, size_t k);

/* K(x, y) in [0, 1]; -1 when out of memory or a row is refused (see ikmap_map). */
double ikmap_kernel(const struct ikmap *map, const struct feature_node *x,
	const struct feature_node *y);

/* K from two rows' already computed cells. */
double ikmap_kernel_cells(const struct ikmap *map, const void *cells_x, const void *cells_y);

/*
 * The largest dimension d a map may have (build and load): the largest
 * feature index the data reader accepts, 2^31 - 2. Memory does not grow
 * with d: an unscaled map keeps no per-feature array of d entries, and
 * what a map derives per feature (postings, iForest's split slots) is
 * sized by the largest feature index its samples or splits use, which a
 * file's length bounds; a row's features above that index meet no centre
 * and no split. So a crafted file of a few hundred bytes claiming a huge d
 * allocates no more than its contents call for. Only the dense aNNE path
 * (chosen for d <= 2^20 only) and the GPU (d <= 2^20) work on all d.
 */
#define IKMAP_MAX_DIM (INT_MAX - 1)
/*
 * A map that stores factors (every scaled map but iForest's) keeps d
 * factors (8 bytes each; 2 d for min-max and acos under scale 2) in its
 * file and memory, so ikmap_build refuses one wider than 2^25 - 2 = 33554430 (256
 * MiB of factors; kdd2010's 29.9M features fit): map wider data unscaled.
 * Loading needs no such cap, the factors being counted in the file's size.
 */
#define IKMAP_MAX_SCALED_DIM ((1 << 25) - 2)
/*
 * The largest k * d for which an acos map derives its Gaussians as tables
 * (12 bytes per entry: 48 MiB here), built after a build or a load; wider
 * maps recompute them while mapping (the reference path only). A file's claimed
 * k and d thus never cost more than this.
 */
#define IKMAP_ACOS_TABLE (1 << 22)

/*
 * ikmap_save writes the file atomically (common/atomic_file.h): an
 * existing path that is not a regular file is refused, never replaced.
 * ikmap_write writes the same bytes into an open stream (the caller
 * makes it atomic). ikmap_load reads only a regular file and verifies it
 * completely. All return 0 / the map, or -1 / NULL with err set.
 */
int ikmap_save(const struct ikmap *map, const char *path, char *err);
int ikmap_write(const struct ikmap *map, FILE *fp, char *err);
struct ikmap *ikmap_load(const char *path, char *err);
/*
 * The exact bytes ikmap_write writes, in an allocated buffer (*bytes,
 * freed with free; *size bytes), and ikmap_load of such bytes held in
 * memory (every check it makes; name stands for the path in messages).
 * 0 / the map, or -1 / NULL with err set.
 */
int ikmap_to_memory(const struct ikmap *map, unsigned char **bytes, size_t *size, char *err);
struct ikmap *ikmap_from_memory(const void *bytes, size_t size, const char *name, char *err);
/*
 * t and psi (min-max and acos: k and cells) from the header of the
 * partitioning file at path, version 1 or 2, reading only its first bytes
 * (magic and version checked, nothing else): 0, or -1 with err set (not a
 * regular file, not a partitioning file).
 */
int ikmap_peek(const char *path, int *t, int *psi, char *err);
/* Likewise the model columns of such a file: t * psi, plus d when its raw part flag is set. */
int ikmap_peek_columns(const char *path, int64_t *columns, char *err);
void ikmap_free(struct ikmap *map);

int ikmap_t(const struct ikmap *map);
int ikmap_psi(const struct ikmap *map);
int ikmap_dim(const struct ikmap *map);
enum ikmap_method ikmap_method(const struct ikmap *map);
uint64_t ikmap_seed(const struct ikmap *map);
/* The scale code 0..4 (see Scaling; iForest: 0 or 4, or 2 with a raw part). */
int ikmap_scaled(const struct ikmap *map);
/*
 * 1 when maps of this method and scale code refuse negative values:
 * scale 4 (log1p) on every method, min-max without scale 2. The reason,
 * for messages: a static string, "-S 4 (log1p) needs non-negative data"
 * or "-k minmax needs non-negative data (or -S 2)".
 */
int ikmap_needs_nonnegative(enum ikmap_method method, int scale);
const char *ikmap_nonnegative_reason(enum ikmap_method method, int scale);
/*
 * Scale factors of features 1..d at [1..d] (see Scaling), or NULL when the
 * map stores none (unscaled, and iForest always).
 */
const double *ikmap_scale_factors(const struct ikmap *map);
/* Min-max and acos scale 2's minima min_j of features 1..d at [1..d]; NULL otherwise. */
const double *ikmap_scale_shift(const struct ikmap *map);
uint64_t ikmap_checksum(const struct ikmap *map);
/* The raw part's weight w (0: none), its columns (d when w > 0, else 0), and
 * all columns: t*psi + ikmap_raw_columns (at most INT_MAX - 2). */
double ikmap_raw_weight(const struct ikmap *map);
int ikmap_raw_columns(const struct ikmap *map);
int ikmap_columns(const struct ikmap *map);
/*
 * Row x's raw part (see Raw features) written to out, indices 1..d
 * ascending (x's features above d are ignored), ended by index -1; out needs
 * room for x's nonzeros within 1..d plus one. Returns the number of
 * nonzeros written (0 when w = 0). x must be a row ikmap_map accepted (its
 * values checked: finite, and non-negative where the map needs it).
 */
size_t ikmap_raw_row(const struct ikmap *map, const struct feature_node *x,
	struct feature_node *out);

/* "anne", "iforest", "minmax" or "acos"; NULL for anything else. */
const char *ikmap_method_name(enum ikmap_method method);

/*
 * The aNNE path in use (IKMAP_PATH_DENSE or _SPARSE; _SPARSE for iForest
 * and min-max). Acos: what ikmap_set_path set (_AUTO by default: chosen
 * per block of rows); _SPARSE when the map has no table (k * d above
 * IKMAP_ACOS_TABLE), which the fast path needs.
 */
enum ikmap_path ikmap_path(const struct ikmap *map);
/*
 * Forces an aNNE or acos path (IKMAP_PATH_AUTO: the cost model's choice),
 * for tests and measurements. Not thread-safe with ikmap_map on the same map.
 * Returns 0, or -1 when the path is impossible (dense: input too wide or
 * values too large for float; acos without a table; iForest and min-max
 * have no dense path) or memory ran out.
 */
int ikmap_set_path(struct ikmap *map, enum ikmap_path path, char *err);

#endif /* IKMAP_H */
