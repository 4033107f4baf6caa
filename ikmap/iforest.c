/*
 * iforest.c - completely random isolation trees: growing them on the
 * sampled rows and sending rows down them (rules in ikmap.h).
 *
 * A tree is grown on its psi rows with the features they use renumbered
 * 0..nf-1 ("local" features), so the per-node statistics cost O(nonzeros
 * of the node's rows) even when d is in the millions. Nodes are allocated
 * in pairs (right child = left child + 1) and processed depth first, left
 * subtree first, which numbers the leaves from left to right.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ikmap_impl.h"
#include "row_dups.h"
#include "tasks.h"

/* One tree under construction. */
struct tree {
	int nnodes;
	int *feature;
	int *child;
	double *split;
};

/* The psi rows of one tree in local features, and per-node scratch. */
struct grower {
	int npoints;
	int nf;			/* number of local features */
	int *feature_of;	/* [nf]: the global feature of each local one */
	int64_t *start;		/* [npoints+1] into lid/val */
	int *lid;		/* local feature ids, ascending within a point */
	double *val;
	/* node statistics, indexed by local feature */
	int *count;
	double *lo;
	double *hi;
	int *touched;
	int ntouched;		/* of the last node: their lo and hi wait for reset_ranges */
	int *candidates;
	/* points, reordered so that every node owns a contiguous range */
	int *perm;
	/* depth-first stack of (node, begin, end) */
	int *stack;
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int local_id(const struct grower *g, int feature)
{
	int a = 0, b = g->nf - 1;
	while (a < b) {
		int m = a + (b - a) / 2;
		if (g->feature_of[m] < feature)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

static void grower_free(struct grower *g)
{
	free(g->feature_of);
	free(g->start);
	free(g->lid);
	free(g->val);
	free(g->count);
	free(g->lo);
	free(g->hi);
	free(g->touched);
	free(g->candidates);
	free(g->perm);
	free(g->stack);
}

/* The drawn rows' values as the map sees them (-S 4: log1p; transform.h). */
static int grower_init(struct grower *g, const struct ikmap *map, struct feature_node *const *rows,
	const int *drawn, int psi)
{
	memset(g, 0, sizeof *g);
	g->npoints = psi;
	int64_t nnz = 0;
	int top = 0;		/* the largest feature of the psi rows */
	for (int p = 0; p < psi; p++)
		for (const struct feature_node *f = rows[drawn[p]]; f->index != -1; f++) {
			nnz++;
			top = f->index > top ? f->index : top;
		}
	g->start = malloc(((size_t)psi + 1) * sizeof(int64_t));
	g->lid = malloc(((size_t)nnz + 1) * sizeof(int));
	g->val = malloc(((size_t)nnz + 1) * sizeof(double));
	g->feature_of = malloc(((size_t)nnz + 1) * sizeof(int));
	g->perm = malloc((size_t)psi * sizeof(int));
	g->stack = malloc(3 * (size_t)psi * sizeof(int));
	if (!g->start || !g->lid || !g->val || !g->feature_of || !g->perm || !g->stack)
		return -1;

	/*
	 * Local features: the sorted distinct features of the psi rows. When
	 * the features are few against the nonzeros (a9a: 123 for some 14,000)
	 * a table indexed by the feature marks them and then gives each its
	 * local id, in O(nonzeros + largest feature); otherwise sorting the
	 * nonzeros' features, which costs nothing per feature of d. Both give
	 * the same ids.
	 */
	int *table = NULL;
	if ((int64_t)top <= 16 * nnz + 4096) {
		table = calloc((size_t)top + 1, sizeof(int));
		if (!table)
			return -1;
	}
	int nf = 0;
	if (table) {
		for (int p = 0; p < psi; p++)
			for (const struct feature_node *f = rows[drawn[p]]; f->index != -1; f++)
				table[f->index] = 1;
		for (int j = 1; j <= top; j++)
			if (table[j]) {
				table[j] = nf;
				g->feature_of[nf++] = j;
			}
	} else {
		int64_t at = 0;
		for (int p = 0; p < psi; p++)
			for (const struct feature_node *f = rows[drawn[p]]; f->index != -1; f++)
				g->feature_of[at++] = f->index;
		qsort(g->feature_of, (size_t)nnz, sizeof(int), cmp_int);
		for (int64_t i = 0; i < nnz; i++)
			if (nf == 0 || g->feature_of[nf - 1] != g->feature_of[i])
				g->feature_of[nf++] = g->feature_of[i];
	}
	g->nf = nf;

	int64_t at = 0;
	for (int p = 0; p < psi; p++) {
		g->start[p] = at;
		for (const struct feature_node *f = rows[drawn[p]]; f->index != -1; f++, at++) {
			g->lid[at] = table ? table[f->index] : local_id(g, f->index);
			g->val[at] = ikmap_apply(map, f->index, f->value);
		}
		g->perm[p] = p;
	}
	g->start[psi] = at;
	free(table);

	size_t room = (size_t)nf + 1;
	g->count = calloc(room, sizeof(int));
	g->lo = malloc(room * sizeof(double));
	g->hi = malloc(room * sizeof(double));
	g->touched = malloc(room * sizeof(int));
	g->candidates = malloc(room * sizeof(int));
	if (!g->count || !g->lo || !g->hi || !g->touched || !g->candidates)
		return -1;
	for (size_t c = 0; c < room; c++) {
		g->lo[c] = INFINITY;
		g->hi[c] = -INFINITY;
	}
	return 0;
}

/* Puts the last node's ranges back to +inf and -inf, once its split is drawn. */
static void reset_ranges(struct grower *g)
{
	for (int i = 0; i < g->ntouched; i++) {
		g->lo[g->touched[i]] = INFINITY;
		g->hi[g->touched[i]] = -INFINITY;
	}
	g->ntouched = 0;
}

/* Value of local feature c in point p (0 when absent). */
static double point_value(const struct grower *g, int p, int c)
{
	int64_t a = g->start[p], b = g->start[p + 1];
	while (a < b) {
		int64_t m = a + (b - a) / 2;
		if (g->lid[m] < c)
			a = m + 1;
		else
			b = m;
	}
	return a < g->start[p + 1] && g->lid[a] == c ? g->val[a] : 0;
}

/*
 * Fills g->candidates with the local features that are not constant on
 * points perm[begin..end) and their ranges in lo/hi; returns how many.
 */
static int nonconstant_features(struct grower *g, int begin, int end)
{
	/*
	 * No branch per nonzero (this loop is most of growing a tree): lo and
	 * hi wait at +inf and -inf between nodes, so the first value of a
	 * feature replaces both as the min and max below do, and a feature
	 * joins touched, in the order first met, when its count leaves 0.
	 */
	int ntouched = 0;
	for (int i = begin; i < end; i++) {
		int p = g->perm[i];
		for (int64_t e = g->start[p]; e < g->start[p + 1]; e++) {
			int c = g->lid[e];
			double v = g->val[e];
			g->touched[ntouched] = c;
			ntouched += g->count[c]++ == 0;
			g->lo[c] = v < g->lo[c] ? v : g->lo[c];
			g->hi[c] = v > g->hi[c] ? v : g->hi[c];
		}
	}
	int ncand = 0;
	for (int i = 0; i < ntouched; i++) {
		int c = g->touched[i];
		/* A point without the feature has value 0 there. */
		if (g->count[c] < end - begin) {
			g->lo[c] = g->lo[c] < 0 ? g->lo[c] : 0;
			g->hi[c] = g->hi[c] > 0 ? g->hi[c] : 0;
		}
		if (g->lo[c] < g->hi[c])
			g->candidates[ncand++] = c;
		g->count[c] = 0;
	}
	g->ntouched = ntouched;
	return ncand;
}

/*
 * A split value uniform in (lo, hi): lo + u (hi - lo) rounds into
 * (lo, hi] for almost every u; the rare draw that does not (u = 0, or an
 * overflowing range) is redrawn, and after a few failures hi itself is
 * used, which still separates lo from hi.
 */
static double split_value(struct rng *r, double lo, double hi)
{
	for (int tries = 0; tries < 8; tries++) {
		double v = lo + rng_unit(r) * (hi - lo);
		if (v > lo && v <= hi)
			return v;
	}
	return hi;
}

/* Moves points of perm[begin..end) below v on local feature c first; returns the boundary. */
static int partition(struct grower *g, int begin, int end, int c, double v)
{
	int i = begin, j = end - 1;
	while (i <= j) {
		if (point_value(g, g->perm[i], c) < v) {
			i++;
		} else {
			int tmp = g->perm[i];
			g->perm[i] = g->perm[j];
			g->perm[j] = tmp;
			j--;
		}
	}
	return i;
}

static void grow(struct grower *g, struct rng *r, struct tree *tr)
{
	int top = 0, leaves = 0;
	tr->nnodes = 1;
	g->stack[top++] = 0;
	g->stack[top++] = 0;
	g->stack[top++] = g->npoints;
	while (top > 0) {
		int end = g->stack[--top];
		int begin = g->stack[--top];
		int node = g->stack[--top];
		int ncand = end - begin > 1 ? nonconstant_features(g, begin, end) : 0;
		if (ncand == 0) {
			reset_ranges(g);
			/* One point, or identical points: a leaf. */
			tr->feature[node] = 0;
			tr->child[node] = leaves++;
			tr->split[node] = 0;
			continue;
		}
		int c = g->candidates[rng_below(r, (uint64_t)ncand)];
		double v = split_value(r, g->lo[c], g->hi[c]);
		reset_ranges(g);
		int mid = partition(g, begin, end, c, v);
		int left = tr->nnodes;
		tr->nnodes += 2;
		tr->feature[node] = g->feature_of[c];
		tr->child[node] = left;
		tr->split[node] = v;
		/* Right first, so the left subtree is finished (and numbered) first. */
		g->stack[top++] = left + 1;
		g->stack[top++] = mid;
		g->stack[top++] = end;
		g->stack[top++] = left;
		g->stack[top++] = begin;
		g->stack[top++] = mid;
	}
}

static int grow_tree(const struct ikmap *map, struct feature_node *const *rows, const int *drawn,
	int psi, struct rng *r,
	struct tree *tr)
{
	/* Isolating psi points takes psi - 1 splits: at most 2 psi - 1 nodes. */
	size_t room = 2 * (size_t)psi - 1;
	tr->feature = malloc(room * sizeof(int));
	tr->child = malloc(room * sizeof(int));
	tr->split = malloc(room * sizeof(double));
	struct grower g = { 0 };
	int status = -1;
	if (tr->feature && tr->child && tr->split && !grower_init(&g, map, rows, drawn, psi)) {
		grow(&g, r, tr);
		status = 0;
	}
	grower_free(&g);
	return status;
}

static int concatenate(struct ikmap *map, struct tree *trees)
{
	int64_t total = 0;
	map->tree_start = malloc(((size_t)map->t + 1) * sizeof(int64_t));
	if (!map->tree_start)
		return -1;
	for (int k = 0; k < map->t; k++) {
		map->tree_start[k] = total;
		total += trees[k].nnodes;
	}
	map->tree_start[map->t] = total;
	map->node_feature = malloc((size_t)total * sizeof(int));
	map->node_child = malloc((size_t)total * sizeof(int));
	map->node_split = malloc((size_t)total * sizeof(double));
	if (!map->node_feature || !map->node_child || !map->node_split)
		return -1;
	for (int k = 0; k < map->t; k++) {
		size_t at = (size_t)map->tree_start[k], nn = (size_t)trees[k].nnodes;
		memcpy(map->node_feature + at, trees[k].feature, nn * sizeof(int));
		memcpy(map->node_child + at, trees[k].child, nn * sizeof(int));
		memcpy(map->node_split + at, trees[k].split, nn * sizeof(double));
	}
	return 0;
}

/* ikmap_grow_forest's tasks: tree first + task of a group, grown from its own draws and generator */
struct grow_job {
	const struct ikmap *map;
	struct feature_node *const *rows;	/* by rank */
	const int *drawn;
	struct rng *rngs;
	struct tree *trees;
	int first;
	_Atomic int failed;
};

static void grow_task(void *context, size_t task, int worker)
{
	struct grow_job *job = context;
	const struct ikmap *map = job->map;
	size_t k = (size_t)job->first + task;
	(void)worker;
	if (grow_tree(map, job->rows, job->drawn + k * (size_t)map->psi, map->psi,
			&job->rngs[k], &job->trees[k]) != 0)
		atomic_store(&job->failed, 1);
}

/*
 * Rows a group of trees asks the source for at once (at least one tree
 * per thread): the drawn rows are never all held as nodes (20000-odd
 * rows of 784-d images were 125 MB beside a 0.8 MB forest). Each tree's
 * draws and generator are its own, so the grouping changes no tree.
 */
#define FOREST_GROUP_ROWS 2048

/*
 * The distinct ranks drawn by trees k0..k1-1, ascending, into list
 * (seen[r] == mark: already listed; every rank is below u); returns how
 * many. When they are not few against u, they are read off the marks in
 * rank order, one pass over u ints, where qsort paid a comparison call
 * per step (a 20,000-row set draws some 1,800 distinct ranks per group
 * of two trees: 5% of growing covtype-20k's forest); both give the same
 * list.
 */
static size_t group_ranks(const struct ikmap *map, const int *drawn, int k0, int k1, int *seen,
	int mark, int *list, size_t u)
{
	size_t n = 0;
	for (size_t j = (size_t)k0 * map->psi; j < (size_t)k1 * map->psi; j++)
		if (seen[drawn[j]] != mark) {
			seen[drawn[j]] = mark;
			list[n++] = drawn[j];
		}
	if (u / 32 <= n) {
		size_t at = 0;
		for (size_t r = 0; r < u; r++)
			if (seen[r] == mark)
				list[at++] = (int)r;
	} else {
		qsort(list, n, sizeof *list, cmp_int);
	}
	return n;
}

int ikmap_grow_forest(struct ikmap *map, const int *drawn, const int *ids, size_t u,
	ikmap_row_source source, void *context, struct rng *rngs, int threads, char *err)
{
	int group = FOREST_GROUP_ROWS / map->psi;
	if (group < threads)
		group = threads;
	if (group < 1)
		group = 1;
	if (group > map->t)
		group = map->t;
	size_t most = (size_t)group * (size_t)map->psi;
	struct tree *trees = calloc((size_t)map->t, sizeof *trees);
	struct feature_node **rows = calloc(u > 0 ? u : 1, sizeof *rows);	/* by rank */
	struct feature_node **got = malloc(most * sizeof *got);
	int *seen = calloc(u > 0 ? u : 1, sizeof *seen);
	int *list = malloc(most * sizeof *list), *want = malloc(most * sizeof *want);
	int failed = !trees || !rows || !got || !seen || !list || !want, no_rows = 0;
	for (int k0 = 0; k0 < map->t && !failed; k0 += group) {
		int k1 = map->t - k0 < group ? map->t : k0 + group;
		size_t n = group_ranks(map, drawn, k0, k1, seen, k0 + 1, list, u);
		for (size_t i = 0; i < n; i++)
			want[i] = ids[list[i]];
		if (source(context, want, n, got, err)) {
			no_rows = failed = 1;
			break;
		}
		for (size_t i = 0; i < n; i++)
			rows[list[i]] = got[i];
		struct grow_job job = { map, rows, drawn, rngs, trees, k0, 0 };
		ikmap_run_tasks(threads, (size_t)(k1 - k0), grow_task, &job);
		failed = atomic_load(&job.failed);
	}
	if (!failed)
		failed = concatenate(map, trees);
	for (int k = 0; trees && k < map->t; k++) {
		free(trees[k].feature);
		free(trees[k].child);
		free(trees[k].split);
	}
	free(trees);
	free(rows);
	free(got);
	free(seen);
	free(list);
	free(want);
	if (failed && !no_rows)	/* the source said why itself */
		ikmap_error(err, "out of memory");
	return failed ? -1 : 0;
}

/* A quiet NaN (exponent all ones, top fraction bit set): any low 32 bits keep it a NaN. */
#define LEAF_NAN UINT64_C(0x7ff8000000000000)

int ikmap_forest_prepare(struct ikmap *map, char *err)
{
	int64_t total = map->tree_start[map->t];
	/* Leaves have feature 0, which no key takes: only splits count. */
	if (ikmap_set_keys(map, map->node_feature, total)) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	if (map->keys && map->keys[0] == 0) {
		map->nkeys--;
		memmove(map->keys, map->keys + 1, (size_t)map->nkeys * sizeof(int));
	}
	map->node_slot = malloc(((size_t)total + 1) * sizeof(int));
	if (!map->keys)
		map->feature_slot = malloc(((size_t)map->span + 1) * sizeof(int));
	if (!map->node_slot || (!map->keys && !map->feature_slot)) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	if (map->keys) {
		/* the slot of a split feature is its key */
		map->nslots = map->nkeys;
		for (int64_t i = 0; i < total; i++)
			map->node_slot[i] = map->node_feature[i] == 0 ? -1
				: ikmap_feature_key(map, map->node_feature[i]);
	} else {
		for (int j = 0; j <= map->span; j++)
			map->feature_slot[j] = -1;
		map->nslots = 0;
		for (int64_t i = 0; i < total; i++) {
			int f = map->node_feature[i];
			if (f == 0) {
				map->node_slot[i] = -1;
				continue;
			}
			if (map->feature_slot[f] < 0)
				map->feature_slot[f] = map->nslots++;
			map->node_slot[i] = map->feature_slot[f];
		}
	}
	free(map->flat_node);
	map->flat_node = malloc(((size_t)total + 1) * sizeof *map->flat_node);
	if (!map->flat_node) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	/*
	 * A leaf goes on to itself: it tests the spare slot nslots, which
	 * mapping keeps 0, against a NaN (a comparison with a NaN is false,
	 * so never >=), and its next is its own tree-relative index. So a row
	 * can take steps past its leaf without leaving it, and the traversal
	 * needs no test per step. The NaN's payload is the leaf's number
	 * (leaf_cell): the row's cell is then in the node the traversal has
	 * just loaded, where reading it from node_child missed the caches
	 * (a third of predict's mapping time on a9a at psi 1024).
	 */
	for (int k = 0; k < map->t; k++)
		for (int64_t i = map->tree_start[k]; i < map->tree_start[k + 1]; i++) {
			struct ikmap_flat_node *node = &map->flat_node[i];
			int leaf = map->node_slot[i] < 0;
			node->slot = leaf ? map->nslots : map->node_slot[i];
			node->next = leaf ? (int32_t)(i - map->tree_start[k]) : map->node_child[i];
			if (leaf) {
				uint64_t bits = LEAF_NAN | (uint32_t)map->node_child[i];
				memcpy(&node->split, &bits, sizeof bits);
			} else {
				node->split = map->node_split[i];
			}
		}
	return 0;
}

/* A leaf's number, from the payload of its flat node's NaN split. */
static uint32_t leaf_cell(const struct ikmap_flat_node *node)
{
	uint64_t bits;
	memcpy(&bits, &node->split, sizeof bits);
	return (uint32_t)bits;
}

/* The slot of feature j (any int j), or -1 when no tree splits on it. */
static int split_slot(const struct ikmap *map, int j)
{
	if (map->keys)
		return ikmap_feature_key(map, j);
	return j >= 1 && j <= map->span ? map->feature_slot[j] : -1;
}

/*
 * Rows are sent down the trees a block at a time, tree by tree: one tree
 * (2 psi - 1 flat nodes, 32 KiB at psi 1024) stays in the fastest caches
 * while every row of the block goes down it, where row by row all t trees
 * (3 MiB at t = 100) pass through the caches once per row. The block's
 * rows are held densely on the split slots, BLOCK_VALUES doubles at most
 * (256 KiB, about a core's L2), and between 1 and BLOCK_ROWS rows.
 */
#define BLOCK_VALUES 32768
#define BLOCK_ROWS 256

/* Rows [first, first + n) on the split slots, ld doubles apart; sets or clears (clear != 0). */
static void block_values(const struct ikmap *map, struct feature_node *const *rows, size_t first,
	size_t n, double *value, size_t ld, int clear)
{
	for (size_t r = 0; r < n; r++)
		for (const struct feature_node *f = rows[first + r]; f->index != -1; f++) {
			int slot = split_slot(map, f->index);
			if (slot >= 0)
				value[r * ld + (size_t)slot] = clear ? 0
					: ikmap_apply(map, f->index, f->value);
		}
}

/*
 * Rows down one tree, LANES at a time: a step (load a node, compare,
 * move to a child) waits on the step before it, so one row alone leaves
 * the core idle most of each step; LANES rows side by side keep that
 * many independent steps in flight. Every lane takes STEPS steps with no
 * test (a row at its leaf stays there, see ikmap_forest_prepare), then a
 * lane whose row is at its leaf gives its cell and takes the block's next
 * row. A lane with no row left goes on stepping (the block's first row,
 * down to a leaf where it stays) and gives nothing. Every row still takes
 * its own path to its own leaf: the cells are those of one row at a time.
 */
#define LANES 8
#define STEPS 4

static void tree_leaves(const struct ikmap *map, int k, const double *value, size_t ld, size_t n,
	void *cells, const size_t *pos)
{
	const struct ikmap_flat_node *tree = map->flat_node + map->tree_start[k];
	const int32_t leaf_slot = map->nslots;
	const struct ikmap_flat_node *at[LANES];
	const double *x[LANES];
	size_t row[LANES];
	size_t next = 0;
	int active = 0;
	for (int j = 0; j < LANES; j++) {
		at[j] = tree;
		row[j] = next < n ? next : SIZE_MAX;
		x[j] = value + (next < n ? next : 0) * ld;
		if (next < n) {
			next++;
			active++;
		}
	}
	while (active > 0) {
		for (int s = 0; s < STEPS; s++)
			for (int j = 0; j < LANES; j++) {
				const struct ikmap_flat_node *node = at[j];
				/* right child = left + 1: the comparison is the step */
				at[j] = tree + node->next + (x[j][node->slot] >= node->split);
			}
		for (int j = 0; j < LANES; j++) {
			if (at[j]->slot != leaf_slot || row[j] == SIZE_MAX)
				continue;
			ikmap_put_cell(map, cells, pos[row[j]] * (size_t)map->t + (size_t)k,
				leaf_cell(at[j]));
			if (next < n) {
				at[j] = tree;
				row[j] = next;
				x[j] = value + next++ * ld;
			} else {
				row[j] = SIZE_MAX;
				active--;
			}
		}
	}
}

/*
 * ikmap_forest_map's tasks: block b of rows, in worker's zeroed value
 * buffer; row i of rows gives the cells of row pos[i] of the output.
 */
struct map_job {
	const struct ikmap *map;
	struct feature_node *const *rows;
	const size_t *pos;
	size_t count, block, ld;
	void *cells;
	double **value;		/* [workers]: block * ld doubles each, all zero between tasks */
};

static void map_task(void *context, size_t b, int worker)
{
	const struct map_job *job = context;
	const struct ikmap *map = job->map;
	double *value = job->value[worker];
	size_t first = b * job->block;
	size_t n = job->count - first < job->block ? job->count - first : job->block;
	block_values(map, job->rows, first, n, value, job->ld, 0);
	for (int k = 0; k < map->t; k++)
		tree_leaves(map, k, value, job->ld, n, job->cells, job->pos + first);
	block_values(map, job->rows, first, n, value, job->ld, 1);
}

/* Rows hashed for repeats at a time: bounds the scratch (some 40 bytes a row). */
#define DUP_ROWS 65536

/*
 * rows[0..count) into the job's rows and pos: the first row of each kind
 * only (row_dups.h), its output position in pos; first[] says where each
 * repeat copies from. Without memory for that, every row is its own first.
 */
static size_t distinct_rows(struct feature_node *const *rows, size_t count, size_t *first,
	struct feature_node **kept, size_t *pos)
{
	size_t n = ikmap_row_firsts(rows, count, first);
	for (size_t i = 0, at = 0; i < count; i++) {
		if (n == 0)
			first[i] = i;
		if (first[i] == i) {
			kept[at] = rows[i];
			pos[at++] = i;
		}
	}
	return n == 0 ? count : n;
}

int ikmap_forest_map(const struct ikmap *map, struct feature_node *const *rows, size_t count,
	void *cells, int threads)
{
	size_t ld = (size_t)map->nslots + 1;
	size_t block = BLOCK_VALUES / ld;
	block = block < 1 ? 1 : block > BLOCK_ROWS ? BLOCK_ROWS : block;
	size_t chunk = count < DUP_ROWS ? count : DUP_ROWS;
	int workers = ikmap_task_workers(threads, (chunk + block - 1) / block);
	struct map_job job = { map, NULL, NULL, 0, block, ld, NULL, NULL };
	size_t *first = malloc((chunk > 0 ? chunk : 1) * sizeof *first);
	size_t *pos = malloc((chunk > 0 ? chunk : 1) * sizeof *pos);
	struct feature_node **kept = malloc((chunk > 0 ? chunk : 1) * sizeof *kept);
	job.value = calloc((size_t)workers, sizeof *job.value);
	int failed = !first || !pos || !kept || !job.value;
	for (int w = 0; !failed && w < workers; w++)
		failed = (job.value[w] = calloc(block * ld, sizeof(double))) == NULL;
	size_t row_bytes = (size_t)map->t * ikmap_cell_size(map);
	for (size_t done = 0; !failed && done < count; done += chunk) {
		size_t n = count - done < chunk ? count - done : chunk;
		unsigned char *out = (unsigned char *)cells + done * row_bytes;
		job.rows = kept;
		job.pos = pos;
		job.count = distinct_rows(rows + done, n, first, kept, pos);
		job.cells = out;
		ikmap_run_tasks(workers, (job.count + block - 1) / block, map_task, &job);
		/* a repeat's cells are its first's, mapped above (first[i] < i) */
		for (size_t i = 0; i < n; i++)
			if (first[i] != i)
				memcpy(out + i * row_bytes, out + first[i] * row_bytes, row_bytes);
	}
	for (int w = 0; job.value && w < workers; w++)
		free(job.value[w]);
	free(job.value);
	free(kept);
	free(pos);
	free(first);
	return failed ? -1 : 0;
}
