/*
 * ikmap_impl.h - what the ikmap sources share: the map's layout and the
 * internal steps of building, preparing and mapping.
 *
 * Contract: a struct ikmap has a STORED part (what the file holds and the
 * checksum covers) and a DERIVED part that ikmap_prepare recomputes from
 * the stored part after a build or a load. Mapping reads both and writes
 * nothing in the map. Internal functions report errors through
 * ikmap_error() into an err buffer of IKMAP_ERR_SIZE bytes (or NULL).
 */
#ifndef IKMAP_IMPL_H
#define IKMAP_IMPL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "ikmap.h"
#include "rng.h"
#include "transform.h"

struct ikmap {
	/* stored: parameters */
	enum ikmap_method method;
	int t;
	int psi;
	int dim;
	uint64_t seed;
	int scaled;		/* the scale code 0..4 (ikmap.h, Scaling); iForest: 0 or 4 */
	double *factor;		/* [dim+1] where ikmap_stores_factors, feature j is multiplied by
				 * factor[j] (after log1p under scale 4); else NULL (factor 1: see
				 * ikmap_factor); min-max and acos scale 2: 1 / range, 0 for none */
	double *shift;		/* min-max and acos scale 2: [dim+1], min_j, subtracted before
				 * the factor; else NULL */
	double raw_weight;	/* w of the raw part (issue 28); 0: none */
	double *raw_factor;	/* iForest with a raw part under scale 2: [dim+1], 1 / range
				 * (its own: the trees take no factors); else NULL */

	/* stored, aNNE: the distinct sampled rows (raw values) and who uses them */
	int nsamples;
	int64_t *sample_start;	/* [nsamples+1] offsets into sample_index/value */
	int *sample_index;	/* 1-based, strictly ascending within a sample */
	double *sample_value;
	int *centre;		/* [t*psi]: sample id of centre i of partitioning k at k*psi+i */

	/* stored, iForest: all trees' nodes, tree k at [tree_start[k], tree_start[k+1]) */
	int64_t *tree_start;	/* [t+1] */
	int *node_feature;	/* 0: leaf; else the split feature 1..dim */
	int *node_child;	/* inner: left child (tree-relative), right is +1; leaf: leaf number */
	double *node_split;	/* inner: go right when value >= split */

	/*
	 * FNV-1a of the stored part as ikmap_save writes it, computed when
	 * first asked for (ikmap_checksum) and kept: hashing is one serial
	 * multiply per byte (about 50 ms for a 40 MB map), which a build that
	 * only maps rows never needs. Atomic: mapping threads may ask at once.
	 */
	_Atomic uint64_t checksum;
	_Atomic int checksum_known;

	/*
	 * derived: the features the stored part uses (aNNE: in a sample;
	 * iForest: in a split), which the per-feature structures (postings,
	 * split slots) are indexed by. span is the largest (0 when none); a
	 * row's features outside them meet no centre and no split. When span
	 * is small or within DIRECT_PER_NONZERO times the stored nonzeros
	 * (ikmap_direct_keys), the structures are indexed by the feature
	 * itself (span + 2 entries at most) and keys is NULL; otherwise by
	 * its position among the nkeys sorted distinct features in keys
	 * (binary search). Either way their size is bounded by what the map
	 * holds, never by the claimed d or by how large an index is. The
	 * scaled factors (d of them, stored in the file) and the dense
	 * path's arrays (d <= 2^20) are the only ones of d entries.
	 */
	int span;
	int *keys;
	int nkeys;

	/* derived, aNNE */
	/*
	 * The samples' scaled values, a copy held only under scale 4, whose
	 * log1p is too dear to repeat while mapping; NULL under 0-3, where a
	 * scaled value is one multiplication away (ikmap_sample_scaled), so
	 * the map is not held twice (issue 22: 63 MB of a 94 MB map).
	 */
	double *sample_scaled;
	double *sample_sqnorm;	/* ||scaled sample||^2 */
	double *part_maxnorm;	/* [t]: largest centre norm of each partitioning */
	enum ikmap_path path;	/* DENSE or SPARSE */
	/* dense path: centres minus mean, row j = [-2 (c_j - mean), ||c_j - mean||^2, 1] in float
	 * (dense is NULL while the pruned variant, which makes rows per block, is in use) */
	double *mean;		/* [dim+1] */
	float *dense;		/* [t*psi][dense_ld] */
	int dense_ld;		/* dim + 2 */
	double *part_maxnorm_centred;	/* [t]: largest ||c - mean|| per partitioning */
	/*
	 * Both dense variants: each sample's ||c - mean||^2 (summed over
	 * j = 1..dim in order) and the dense row of a sample with no
	 * nonzeros ([-2 (0 - mean), 0, 1]); a sample's row is that row with
	 * its nonzeros and its squared norm written in (ikmap_anne_dense_row),
	 * so no row needs a pass over all d features.
	 */
	double *centred_sq;	/* [nsamples] */
	float *empty_row;	/* [dense_ld] */
	/* sparse path: feature j's postings at [post_start[j], post_start[j+1]) */
	int64_t *post_start;	/* [key count + 1] by feature key (ikmap_feature_key) */
	int *post_sample;
	double *post_value;	/* scaled */

	/* dense path, pruned (anne_prune.c): lower bounds that rule most centres out; NULL: none */
	struct ikmap_prune *prune;

	/*
	 * The 8-bit path's centres (anne_vnni.c), quantised from the centre
	 * matrix when a mapping first needs them and kept for the map's life
	 * (they depend on nothing else, so later mappings, e.g. train's and
	 * predict's batches, quantise nothing); NULL until then. Atomic: set
	 * once by compare-and-swap, mapping threads may race to make them.
	 * Never saved.
	 */
	_Atomic(struct ikmap_vnni *) vnni;

	/* the GPU context, made on first use (anne_device.c); never NULL */
	struct ikmap_gpu *gpu;

	/*
	 * derived, scale 2: the features whose absent value 0 transforms to
	 * a nonzero (min_j < 0 and factor_j > 0), ascending, and that value;
	 * a transformed row holds them where the row itself has no value.
	 */
	int nzero;
	int *zero_feature;
	double *zero_value;

	/*
	 * derived, acos (signproj.c): the Gaussians g(j, i) when t * dim <=
	 * IKMAP_ACOS_TABLE, else NULL (recomputed per row): acos_gt[(i-1)*t + j]
	 * in double (feature-major: a row's nonzero adds x_i g(., i) to all t
	 * sums at once), acos_gf[j*dim + i-1] rounded to float (the GEMM's
	 * operand) and acos_gnorm[j] = ||g_j|| as computed; acos_stream[j] =
	 * crng_stream(seed, j) always.
	 */
	double *acos_gt;
	float *acos_gf;
	double *acos_gnorm;
	uint64_t *acos_stream;
	enum ikmap_path acos_path;	/* AUTO, DENSE (float GEMM) or SPARSE (reference) */

	/* derived, min-max: the sampler (ikmap/cws.h), NULL until prepared */
	struct cws *cws;

	/* derived, iForest: split features renumbered 0..nslots-1 */
	int nslots;
	int *feature_slot;	/* direct keys: [span+1], slot of feature j or -1 when no tree
				 * splits on it; NULL when keys (the slot is the key) */
	int *node_slot;		/* slot of node_feature (inner nodes) */
	/*
	 * All trees' nodes again in one array of 16-byte entries (tree k at
	 * tree_start[k]), so a step down a tree reads one cache line instead
	 * of one in each of four arrays: slot -1 marks a leaf, whose next is
	 * its leaf number; an inner node's next is its left child.
	 */
	struct ikmap_flat_node {
		int32_t slot;
		int32_t next;
		double split;
	} *flat_node;
};

/*
 * Who calls whom (no circle): the facade, ikmap.c (build, map, kernel,
 * accessors) and ikmap_file.c (save, load), calls ikmap_state.c and the
 * method files (sample.c, iforest.c, anne_*.c); ikmap_state.c calls the
 * method files; every file may call ikmap_util.c, which calls none.
 */

/* ikmap_util.c */
/* Formats a message into err (when not NULL). */
void ikmap_error(char *err, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* OpenMP thread count for a caller's request (<= 0: default). */
int ikmap_threads(int requested);

/*
 * For tests: nonzero makes the mapping scans (anne_dense.c's window,
 * anne_prune.c's lowest bound and gather, signproj.c's sign pass) use
 * their generic kernels even where the CPU has AVX-512 (AVX2 for the sign
 * pass), so both can be compared on one machine. Not
 * thread-safe with mapping; cells never depend on it.
 */
extern int ikmap_generic_scans;

/* ikmap_state.c (and ikmap_free, ikmap.h) */
/* An empty map with every pointer NULL; NULL when out of memory. */
struct ikmap *ikmap_alloc(void);

/* Computes the derived part (and the aNNE path by the cost model). */
int ikmap_prepare(struct ikmap *map, char *err);

/*
 * Whether a map of this method and scale code stores d factors (ikmap.h,
 * Scaling): every scaled aNNE, min-max and acos map; never iForest, whose
 * splits no positive per-feature factor changes (its scale 4 is log1p only).
 */
static inline int ikmap_stores_factors(enum ikmap_method method, int scale)
{
	return scale != 0 && method != IKMAP_IFOREST;
}

/* Whether it also stores d minima: the shifted scale 2 of min-max and acos. */
static inline int ikmap_stores_shift(enum ikmap_method method, int scale)
{
	return scale == 2 && (method == IKMAP_MINMAX || method == IKMAP_ACOS);
}

/*
 * Feature j's value x as aNNE and iForest (and min-max and acos but under
 * the shifted scale 2) see it: transform.h's rule with this map's factors.
 */
static inline double ikmap_apply(const struct ikmap *map, int j, double x)
{
	return ikmap_transform_value(map->scaled, map->factor, j, x);
}

/*
 * Stored nonzero e's scaled value (ikmap_apply of its raw value): the
 * held copy under scale 4, else computed, the same bits either way.
 */
static inline double ikmap_sample_scaled(const struct ikmap *map, int64_t e)
{
	if (map->sample_scaled)
		return map->sample_scaled[e];
	return ikmap_apply(map, map->sample_index[e], map->sample_value[e]);
}

/*
 * ikmap_util.c: feature keys (see span above). ikmap_set_keys sets span, keys and nkeys
 * from count feature indices (each >= 1) at index; 0, or -1 when out of
 * memory. ikmap_feature_key is j's key: j itself (direct) or its position
 * in keys, -1 when the stored part does not use j. ikmap_key_count is the
 * number of keys a structure indexed by them needs.
 */
int ikmap_set_keys(struct ikmap *map, const int *index, int64_t count);

static inline int ikmap_feature_key(const struct ikmap *map, int j)
{
	if (j < 1 || j > map->span)
		return -1;
	if (!map->keys)
		return j;
	int a = 0, b = map->nkeys - 1;
	while (a < b) {
		int m = a + (b - a) / 2;
		if (map->keys[m] < j)
			a = m + 1;
		else
			b = m;
	}
	return map->keys[a] == j ? a : -1;
}

static inline size_t ikmap_key_count(const struct ikmap *map)
{
	return map->keys ? (size_t)map->nkeys : (size_t)map->span + 1;
}

/* Stores cell v of element at (uint16_t or uint32_t by psi). */
static inline void ikmap_put_cell(const struct ikmap *map, void *cells, size_t at, uint32_t v)
{
	if (map->psi <= 65536)
		((uint16_t *)cells)[at] = (uint16_t)v;
	else
		((uint32_t *)cells)[at] = v;
}

/* sample.c */
/* Partitioning k's generator, seeded from the caller's seed (see ikmap.h). */
int ikmap_partition_rngs(uint64_t seed, int t, struct rng **out);
/* psi distinct values of 0..n-1 in random order; 0, or -1 when out of memory. */
int ikmap_sample_distinct(struct rng *g, int n, int psi, int *out);

/* iforest.c */
/*
 * The trees: ids[0..u-1] the distinct drawn rows (ascending), drawn[j]
 * the rank among them of tree j / psi's draw j % psi; the rows are read
 * through source a group of trees at a time (ikmap.h, Streaming build).
 * 0, or -1 with err set.
 */
int ikmap_grow_forest(struct ikmap *map, const int *drawn, const int *ids, size_t u,
	ikmap_row_source source, void *context, struct rng *rngs, int threads, char *err);
int ikmap_forest_prepare(struct ikmap *map, char *err);
int ikmap_forest_map(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads);

/* anne_collect.c */
/*
 * The samples: ids[0..u-1] the distinct drawn rows (ascending), drawn[j]
 * (j < t psi) the rank among them of centre j's row; the rows are read
 * through source a part at a time (ikmap.h, Streaming build). 0, or -1
 * with err set.
 */
int ikmap_anne_collect(struct ikmap *map, const int *drawn, const int *ids, size_t u,
	ikmap_row_source source, void *context, char *err);

/* anne_path.c */
int ikmap_anne_prepare(struct ikmap *map, char *err);
/*
 * The plain dense path's centre matrix (map->dense, with the mean and
 * norms it needs), built when missing; 0, or -1 when out of memory. A
 * pruned map has none until its pruning is dropped (anne_prune.c).
 */
int ikmap_anne_dense_matrix(struct ikmap *map);
/*
 * Writes [-2 (c - mean), ||c - mean||^2, 1] of sample s in float; returns
 * ||c - mean||. Needs the dense basics (mean, centred_sq, empty_row),
 * which the dense path, pruned or not, always has.
 */
double ikmap_anne_dense_row(const struct ikmap *map, int s, float *row);
int ikmap_anne_use_path(struct ikmap *map, enum ikmap_path path, char *err);

/* anne_exact.c */
/* The reference distance from row x to sample s (see ikmap.h). */
double ikmap_reference_distance(const struct ikmap *map, const struct feature_node *x, int s);
/*
 * The nearest of the centres of partitioning k whose flag is set (all when
 * flags is NULL) by the reference distance, lowest index on ties.
 */
int ikmap_nearest_exact(const struct ikmap *map, const struct feature_node *x, int k,
	const unsigned char *flags);
/*
 * A bound E(a, b) on |score - (reference distance + a constant shared by
 * the partitioning's centres)| for a row of norm a against centres of
 * norm <= b (as computed): float GEMM of centred values (dense path) or
 * double expansion (sparse path). It includes a relative margin of 2^-20.
 */
struct ikmap_bound {
	double grow;		/* inflates a + b */
	double rel;		/* times (a + b)^2 */
	double abs;		/* times (a + b + 1) */
};

struct ikmap_bound ikmap_float_bound(int dim);
/* The double recheck's (anne_exact.c): float entries of centred values, summed in double. */
struct ikmap_bound ikmap_recheck_bound(int dim);
struct ikmap_bound ikmap_double_bound(int dim);
/* The GPU's float scores (cuda/anne_bound.h) of float-rounded, centred data. */
struct ikmap_bound ikmap_gpu_bound(int dim);

/*
 * The dense paths' step between their float window and the reference
 * distance (anne_exact.c). rc holds the candidates: n centre indices
 * cand[] of partitioning k (every one whose flag is set) and their dense
 * rows rows[c] (-2 (c - m) in float). They are scored in double from the
 * float entries, x the packed row (x - m in float), a the norm the float
 * bound took (||x - m||). Clears the flag of each candidate the double
 * window rules out (it can be neither the nearest nor tied with it);
 * returns the cell when one is left, else -1 (the flags then say which
 * go to ikmap_nearest_exact). ikmap_recheck_matrix does the same for the
 * flagged centres of partitioning k's rows at centres (dense_ld apart).
 */
struct ikmap_recheck {
	int *cand;		/* [psi] */
	const float **rows;	/* [psi] */
	double *dist;		/* [psi] */
};
int ikmap_recheck_init(struct ikmap_recheck *rc, int psi);
void ikmap_recheck_free(struct ikmap_recheck *rc);
int ikmap_recheck_double(const struct ikmap *map, const float *x, double a, int k, int n,
	struct ikmap_recheck *rc, unsigned char *flags);
int ikmap_recheck_matrix(const struct ikmap *map, const float *x, double a, int k,
	const float *centres, struct ikmap_recheck *rc, unsigned char *flags);

static inline double ikmap_bound_at(const struct ikmap_bound *e, double a, double b)
{
	double s = e->grow * (a + b);
	return e->rel * s * s + e->abs * (s + 1);
}

/*
 * Dense input (ikmap_build_dense, ikmap_map_dense_on): row r's value of
 * feature j (1 <= j <= cols) is x[r * ld + j - 1]; a zero is an absent
 * feature, so a row means exactly its sparse form (its nonzeros, ascending).
 */
struct ikmap_dense_in {
	const double *x;
	size_t ld;		/* >= cols */
	int cols;
};

/*
 * Row r's sparse form, features 1..min(cols, upto), into out (upto + 1
 * nodes at most, ended by index -1). Features above upto are left out,
 * as the map ignores them.
 */
static inline void ikmap_dense_row_nodes(const struct ikmap_dense_in *in, size_t r, int upto,
	struct feature_node *out)
{
	const double *x = in->x + r * in->ld;
	int last = in->cols < upto ? in->cols : upto;
	for (int j = 1; j <= last; j++)
		if (x[j - 1] != 0) {
			out->index = j;
			out->value = x[j - 1];
			out++;
		}
	out->index = -1;
	out->value = 0;
}

/* anne_dense.c, anne_sparse.c */
int ikmap_anne_dense_map(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads);
int ikmap_anne_sparse_map(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads);
/*
 * The dense path reading dense rows directly (pruned or not, as the map
 * stands): the cells of their sparse forms. 0, -1 when out of memory, or
 * -2 when a value (any column, also above dim) is not finite.
 */
int ikmap_anne_dense_map_matrix(const struct ikmap *map, const struct ikmap_dense_in *x,
	size_t count, void *cells, int threads);
/*
 * One dense row x (cols values) packed as the dense path's
 * [x' - mean, 1, ||x' - mean||^2] in float (dim + 2 values at out), each
 * value by the sparse form's expression (a zero is an absent feature), so
 * the floats are those of the row's sparse form. *bad: any value of the
 * row (also above dim) is not finite. Returns ||x' - mean|| in double, or
 * -1 when it is too large for the float path; *sq_out (when not NULL)
 * gets the double ||x' - mean||^2.
 */
double ikmap_anne_pack_dense(const struct ikmap *map, const double *x, int cols, float *out,
	int *bad, double *sq_out);
/* The same for a sparse row f (no check of its values): returns ||x' - mean|| or -1. */
double ikmap_anne_pack_row(const struct ikmap *map, const struct feature_node *f, float *out);

/*
 * anne_vnni.c: the plain dense path for psi <= 64 by 8-bit products
 * (AVX512-VNNI), cells identical to dense_map's. 0, -1 (out of memory),
 * -2 (a non-finite dense value), or 1 when it does not apply (psi, CPU,
 * a pruned map, IKMAP_VNNI=0): the caller maps the rows itself.
 */
struct ikmap_rows_in;
int ikmap_anne_vnni_map(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	void *cells, int threads);
/*
 * 1 when the 8-bit path would take this map once it is plain dense (psi,
 * d, CPU, IKMAP_VNNI): the cost model then builds no pruning structure
 * (anne_prune.c's ikmap_prune_useful), as the 8-bit products beat it.
 */
int ikmap_anne_vnni_takes(const struct ikmap *map);
/* 1 when ikmap_anne_vnni_map would take this map's rows now (for tests). */
int ikmap_anne_vnni_ready(const struct ikmap *map);
/* Frees the quantised centres (NULL: nothing). */
void ikmap_anne_vnni_free(struct ikmap_vnni *v);

/* anne_prune.c (the dense path hands its rows there when map->prune is set) */
/* 1 when the cost model wants pruning on this dense map (wide data, many centres). */
int ikmap_prune_useful(const struct ikmap *map);
/*
 * IKMAP_PRUNE_ON: builds the pruning structure of a dense-path map (it may
 * stay NULL when the directions come out unusable or d <= p); _OFF: drops
 * it; _AUTO: builds it when the cost model (ikmap_prune_useful, then a
 * probe of sampled rows) says it pays. 0, or -1 when out of memory. _ON
 * and _OFF are for tests and measurements; not thread-safe with mapping.
 */
enum { IKMAP_PRUNE_OFF = 0, IKMAP_PRUNE_ON = 1, IKMAP_PRUNE_AUTO = 2 };
int ikmap_anne_set_prune(struct ikmap *map, int on, char *err);
int ikmap_anne_pruned(const struct ikmap *map);
/*
 * Builds the pruning structure (as IKMAP_PRUNE_ON) and sets *ratio to the
 * cost model's estimate of pruned / plain dense mapping time (infinity when
 * no structure could be built). 0, or -1 when out of memory.
 */
int ikmap_anne_prune_probe(struct ikmap *map, double *ratio, char *err);
void ikmap_prune_free(struct ikmap_prune *pr);
int ikmap_anne_prune_map(const struct ikmap *map, struct feature_node *const *rows,
	size_t count, void *cells, int threads);
/* The same for dense rows (ikmap_anne_dense_map_matrix's contract: 0, -1 or -2). */
int ikmap_anne_prune_map_matrix(const struct ikmap *map, const struct ikmap_dense_in *x,
	size_t count, void *cells, int threads);
/* Lower bounds formed, full float scores computed and exact rechecks in the last pruned mapping. */
void ikmap_prune_stats(uint64_t *pairs, uint64_t *full_scores, uint64_t *exact);
/* 1 when the last pruned mapping held every sample's dense row for the call (for tests). */
int ikmap_prune_held_last(void);

/* anne_device.c */
/* An untried GPU context; NULL when out of memory. */
struct ikmap_gpu *ikmap_gpu_new(void);
void ikmap_gpu_free(struct ikmap_gpu *g);
/* 1 when an aNNE map is narrow enough for the GPU; else 0 with err set. */
int ikmap_gpu_fits(const struct ikmap *map, char *err);
/* Cells on the GPU, identical to the CPU's; 0, or -1 with err set. */
int ikmap_anne_gpu_map(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads, char *err);

/*
 * Min-max and acos rows (kernel_rows.c): either sparse rows or a dense
 * matrix. A row's TRANSFORMED form is its values of features 1..dim (scale
 * 2: shifted, scaled, clipped, absent features included where their 0
 * transforms to a nonzero) without zeros, ascending: what the samplers and
 * projections see.
 */
struct ikmap_rows_in {
	struct feature_node *const *rows;	/* sparse rows, or NULL */
	const struct ikmap_dense_in *dense;	/* used when rows is NULL */
};

/*
 * Row `row` of in as feature_node nodes: a sparse row itself, or a dense
 * row's sparse form made in scratch (dim + 1 nodes) unless *scratch_row
 * says it is there already (the aNNE dense paths' exact rechecks, rare
 * enough that remaking it on a change of row costs little).
 */
static inline const struct feature_node *ikmap_rows_in_nodes(const struct ikmap_rows_in *in,
	size_t row, int dim, struct feature_node *scratch, size_t *scratch_row)
{
	if (in->rows)
		return in->rows[row];
	if (*scratch_row != row) {
		ikmap_dense_row_nodes(in->dense, row, dim, scratch);
		*scratch_row = row;
	}
	return scratch;
}

/*
 * Checks count rows for the kernels' rules (ikmap.h): a non-finite value
 * (sparse: features 1..dim; dense: any column) or, min-max without scale
 * 2, a negative one (features 1..dim). 0, or -2 with err naming the first
 * (row-major order, rows counted from 1).
 */
int ikmap_kernel_check(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	char *err);
/* An upper bound on the length of row r's transformed form. */
size_t ikmap_kernel_row_room(const struct ikmap *map, const struct ikmap_rows_in *in, size_t r);
/* Row r's transformed form into index/value (room entries); returns its length. */
int ikmap_kernel_row(const struct ikmap *map, const struct ikmap_rows_in *in, size_t r,
	int *index, double *value);
/* Scale 2's value of feature j for x: (x - min_j) * factor_j clipped to [0, 1]. */
static inline double ikmap_minmax_scaled(const struct ikmap *map, int j, double x)
{
	if (map->factor[j] == 0)
		return 0;	/* a zero range; also keeps inf * 0 out */
	double v = (x - map->shift[j]) * map->factor[j];
	return v > 1 ? 1 : v > 0 ? v : 0;
}
/* Scale 2's derived zero list (nzero, zero_feature, zero_value); 0, or -1 when out of memory. */
int ikmap_kernel_prepare_zeros(struct ikmap *map);

/* signproj.c: acos */
/* g(j, i) for the stream of projection j (crng_stream(seed, j)) and feature i (ikmap.h). */
double ikmap_acos_gaussian(uint64_t stream, int feature);
/* The tables and streams; 0, or -1 with err set. */
int ikmap_acos_prepare(struct ikmap *map, char *err);
/* Cells of rows that passed ikmap_kernel_check; 0, or -1 when out of memory. */
int ikmap_acos_map(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	void *cells, int threads);

/* minmax.c: the facade over ikmap/cws.h */
int ikmap_minmax_prepare(struct ikmap *map, char *err);
void ikmap_minmax_free(struct ikmap *map);
int ikmap_minmax_map(const struct ikmap *map, const struct ikmap_rows_in *in, size_t count,
	void *cells, int threads);

/* ikmap_file.c */
/* The checksum of the stored part (no allocation: it is hashed as it is serialised). */
uint64_t ikmap_stored_checksum(const struct ikmap *map);
/*
 * ikmap.c: the checksum cache of ikmap_checksum. ikmap_known_checksum
 * gives 1 and the cached value, or 0 when none is cached yet;
 * ikmap_keep_checksum caches sum, which must be ikmap_stored_checksum's
 * (the file writer hashes the same bytes, so a save fills the cache and a
 * save after ikmap_checksum does not hash again).
 */
int ikmap_known_checksum(const struct ikmap *map, uint64_t *sum);
void ikmap_keep_checksum(const struct ikmap *map, uint64_t sum);

/* ikmap_scan.c (ikmap.h "Streaming build") */
/* The scale code a map of these parameters stores (iForest keeps only log1p, and 2 for a raw part). */
int ikmap_map_scale(const struct ikmap_params *p);
/* Whether the scan gathers scales 2-4's statistics (the dense build makes the others itself). */
int ikmap_scan_stats(const struct ikmap_scan *s);
/* Feeds n dense rows of columns 1..d (their nonzeros) to the current pass. 0, or -1. */
int ikmap_scan_dense(struct ikmap_scan *s, const struct ikmap_dense_in *in, size_t n, int d,
	char *err);
/*
 * Sets map's factors (and shift) from a finished scan, for map->dim
 * features: raw 0 the factors the map applies (before partitioning), raw
 * 1 iForest's raw-part factors (after its trees); the other call does
 * nothing. 0, or -1 with err set.
 */
int ikmap_scan_factors(const struct ikmap_scan *s, struct ikmap *map, int raw, char *err);
/*
 * A scan spread over processes (train-mpi -k, mpi/dist_kernel.c). The state
 * of the current pass, features 0..d, as the scan's own arrays: *n the rows
 * counted (pass 0), a, b, c and count the per-feature statistics (d + 1
 * entries each; what they hold depends on the scale). A process may copy
 * them out and in between its ikmap_scan_rows calls: handing the state on
 * from the process with rows 0..k-1 to the one with the rows after them,
 * which feeds its rows onto it, takes exactly the single scan's operations
 * in the single scan's order. ikmap_scan_state makes room for features
 * 0..d first (d above IKMAP_MAX_SCALED_DIM: that many, the scan ignores the
 * rest); 0, or -1 when out of memory (err set). ikmap_scan_order_free: 1
 * when the current pass only takes maxima of values >= 0 (a, from 0) and
 * counts (count, *n), which any order combines exactly (max and integer
 * sum); 0 when the order matters (sums, and minima and maxima of signed
 * values where the first of -0 and +0 wins).
 */
struct ikmap_scan_state {
	int64_t *n;
	int d;
	double *a, *b, *c;
	int64_t *count;
};
int ikmap_scan_state(struct ikmap_scan *s, int d, struct ikmap_scan_state *out, char *err);
int ikmap_scan_order_free(const struct ikmap_scan *s);
/* Min-max and acos scale 2's factor and shift of feature j from its min and max. */
void ikmap_set_range(double *factor, double *shift, int j, double lo, double hi);

#endif /* IKMAP_IMPL_H */
