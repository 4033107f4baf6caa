/*
 * dist_kernel.c - the map of train-mpi -k (see dist_kernel.h).
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist_kernel.h"
#include "ikmap_impl.h"
#include "lik_internal.h"

/* Bytes per broadcast message of the map (MPI counts are ints). */
enum { BCAST_CHUNK = 1 << 30 };

const char *dist_kernel_check(const struct lik_map_params *p)
{
	if (p->scale != 0 && p->scale != 1)
		return "train-mpi -k takes -S 0 or 1 (-S 2, 3 and 4 need statistics of every row"
			" that it does not gather yet)";
	if (p->raw_weight > 0)
		return "train-mpi -k does not take -a yet";
	return NULL;
}

static int compare_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/*
 * The row numbers an aNNE or iForest map of n rows draws, sorted, each
 * once, in *count; the draws of ikmap.c (one generator per partitioning,
 * psi distinct rows each). NULL when out of memory; *count 0 for the
 * kernels that draw no rows, or when psi > n (the build then says why).
 */
static int *drawn_rows(const struct lik_map_params *p, int n, size_t *count)
{
	*count = 0;
	int draws = p->kernel == LIK_KERNEL_ANNE || p->kernel == LIK_KERNEL_IFOREST;
	size_t m = draws && p->psi <= n ? (size_t)p->t * (size_t)p->psi : 0;
	int *rows = malloc((m > 0 ? m : 1) * sizeof *rows);
	if (rows == NULL || m == 0)
		return rows;
	struct rng *g = NULL;
	if (ikmap_partition_rngs(p->seed, p->t, &g) != 0) {
		free(rows);
		return NULL;
	}
	for (int k = 0; k < p->t; k++)
		if (ikmap_sample_distinct(&g[k], n, p->psi, rows + (size_t)k * (size_t)p->psi) != 0) {
			free(g);
			free(rows);
			return NULL;
		}
	free(g);
	qsort(rows, m, sizeof *rows, compare_int);
	size_t kept = 0;
	for (size_t i = 0; i < m; i++)
		if (kept == 0 || rows[kept - 1] != rows[i])
			rows[kept++] = rows[i];
	*count = kept;
	return rows;
}

/* ---- this process's drawn rows, as bytes for rank 0 ---- */

/* Appends len bytes; 0, or -1 when out of memory. */
static int put(unsigned char **buf, size_t *len, size_t *cap, const void *data, size_t size)
{
	if (*len + size > *cap) {
		size_t c = *cap ? *cap : 4096;
		while (c < *len + size)
			c *= 2;
		unsigned char *b = realloc(*buf, c);
		if (b == NULL)
			return -1;
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *len, data, size);
	*len += size;
	return 0;
}

/* Each drawn row held here: its global number (int), node count (int), nodes. */
static int pack_drawn(const struct dist_data *d, const int *drawn, size_t count,
	unsigned char **buf, size_t *len)
{
	size_t cap = 0;
	*buf = NULL;
	*len = 0;
	for (size_t k = 0; k < count; k++) {
		int64_t local = drawn[k] - d->first_row;
		if (local < 0 || local >= d->l)
			continue;
		const struct feature_node *x = d->x[local];
		int nnz = 0;
		while (x[nnz].index != -1)
			nnz++;
		if (put(buf, len, &cap, &drawn[k], sizeof drawn[k]) != 0
				|| put(buf, len, &cap, &nnz, sizeof nnz) != 0
				|| put(buf, len, &cap, x, (size_t)nnz * sizeof *x) != 0)
			return -1;
	}
	return 0;
}

/* ---- the stand-in problem on rank 0 ---- */

struct stand_in {
	struct feature_node **x;
	struct feature_node *nodes;
	struct feature_node empty;	/* the row of every row not drawn */
};

/*
 * x[i]: drawn row i from the gathered bytes, the maxima row at the first
 * row nobody drew (maxima NULL: none), every other row empty.
 */
static int stand_in_build(struct stand_in *s, int n, const unsigned char *bytes, size_t len,
	const double *maxima, int dim)
{
	s->empty.index = -1;
	s->empty.value = 0;
	s->x = malloc((size_t)n * sizeof *s->x);
	/* the gathered nodes and their end nodes, then the maxima row: at most len/16 + ... */
	size_t room = len / sizeof(struct feature_node) + len / (2 * sizeof(int)) + (size_t)dim + 2;
	s->nodes = malloc(room * sizeof *s->nodes);
	if (s->x == NULL || s->nodes == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		s->x[i] = &s->empty;
	size_t at = 0, used = 0;
	while (at < len) {
		int row, nnz;
		memcpy(&row, bytes + at, sizeof row);
		memcpy(&nnz, bytes + at + sizeof row, sizeof nnz);
		at += sizeof row + sizeof nnz;
		s->x[row] = s->nodes + used;
		memcpy(s->nodes + used, bytes + at, (size_t)nnz * sizeof *s->nodes);
		at += (size_t)nnz * sizeof *s->nodes;
		used += (size_t)nnz;
		s->nodes[used].index = -1;
		s->nodes[used++].value = 0;
	}
	if (maxima == NULL)
		return 0;
	int free_row = 0;
	while (free_row < n && s->x[free_row] != &s->empty)
		free_row++;
	if (free_row == n)
		return 0;	/* every row is there: their own maxima */
	s->x[free_row] = s->nodes + used;
	for (int j = 1; j <= dim; j++)
		if (maxima[j - 1] > 0) {
			s->nodes[used].index = j;
			s->nodes[used++].value = maxima[j - 1];
		}
	s->nodes[used].index = -1;
	s->nodes[used].value = 0;
	return 0;
}

/* Every feature's max |x| over this process's rows, then over all. NULL when out of memory. */
static double *feature_maxima(MPI_Comm comm, const struct dist_data *d, int *ok)
{
	size_t dim = d->max_index > 0 ? (size_t)d->max_index : 1;
	double *mine = calloc(dim, sizeof *mine), *all = malloc(dim * sizeof *all);
	*ok = mine != NULL && all != NULL;
	if (!dist_agree(comm, *ok, "ERROR: out of memory")) {
		free(mine);
		free(all);
		return NULL;
	}
	for (int i = 0; i < d->l; i++)
		for (const struct feature_node *f = d->x[i]; f->index != -1; f++)
			if (fabs(f->value) > mine[f->index - 1])
				mine[f->index - 1] = fabs(f->value);
	/* a maximum is exact whatever order MPI takes */
	MPI_Allreduce(mine, all, (int)dim, MPI_DOUBLE, MPI_MAX, comm);
	free(mine);
	return all;
}

/* Broadcasts rank 0's map bytes; every process gets the map back, or NULL. */
static struct lik_map *broadcast_map(MPI_Comm comm, const struct lik_map *built, char *msg,
	size_t room)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	unsigned char *bytes = NULL;
	size_t size = 0;
	struct lik_error err;
	int ok = 1;
	if (rank == 0 && lik_map_to_bytes(built, &bytes, &size, &err) != 0) {
		snprintf(msg, room, "ERROR: %s", err.message);
		ok = 0;
	}
	if (!dist_agree(comm, ok, msg))
		return NULL;
	uint64_t size64 = size;
	MPI_Bcast(&size64, 1, MPI_UINT64_T, 0, comm);
	if (rank != 0) {
		bytes = malloc(size64 > 0 ? (size_t)size64 : 1);
		ok = bytes != NULL;
	}
	if (!dist_agree(comm, ok, "ERROR: out of memory")) {
		if (rank == 0)
			lik_free(bytes);
		else
			free(bytes);
		return NULL;
	}
	for (uint64_t at = 0; at < size64; at += BCAST_CHUNK) {
		uint64_t part = size64 - at < BCAST_CHUNK ? size64 - at : BCAST_CHUNK;
		MPI_Bcast(bytes + at, (int)part, MPI_BYTE, 0, comm);
	}
	struct lik_map *map = lik_map_from_bytes(bytes, (size_t)size64, &err);
	if (rank == 0)
		lik_free(bytes);
	else
		free(bytes);
	ok = map != NULL;
	if (!ok)
		snprintf(msg, room, "ERROR: %s", err.message);
	if (!dist_agree(comm, ok, msg)) {
		lik_map_free(&map);
		return NULL;
	}
	return map;
}

/* The first negative value here, when the map refuses them: one message naming its line. */
static int refuse_negative(MPI_Comm comm, const struct dist_data *d,
	const struct lik_map_params *params, const char *path, bool per_rank)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	enum ikmap_method method = params->kernel == LIK_KERNEL_MINMAX ? IKMAP_MINMAX
		: params->kernel == LIK_KERNEL_IFOREST ? IKMAP_IFOREST
		: params->kernel == LIK_KERNEL_ACOS ? IKMAP_ACOS : IKMAP_ANNE;
	char msg[512] = "";
	int ok = 1;
	size_t row;
	int feature;
	if (ikmap_needs_nonnegative(method, params->scale)
			&& lik_first_negative(d->x, (size_t)d->l, d->max_index, &row, &feature)) {
		char file[32] = "";
		if (per_rank)
			snprintf(file, sizeof file, ".%d", rank);
		snprintf(msg, sizeof msg, "ERROR: %s%s line %" PRId64 ": feature %d is negative: %s",
			path, file, d->first_line + (int64_t)row + 1, feature,
			ikmap_nonnegative_reason(method, params->scale));
		ok = 0;
	}
	return dist_agree(comm, ok, msg) ? 0 : -1;
}

struct lik_map *dist_map_build(MPI_Comm comm, const struct dist_data *d,
	const struct lik_map_params *params, const char *path, bool per_rank)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	char msg[1024] = "";
	if (refuse_negative(comm, d, params, path, per_rank) != 0)
		return NULL;
	if (d->total_rows > INT_MAX) {
		dist_agree(comm, 0, "ERROR: -k maps at most INT_MAX rows");
		return NULL;
	}
	int n = (int)d->total_rows, ok;
	size_t nr_drawn = 0;
	int *drawn = drawn_rows(params, n, &nr_drawn);
	unsigned char *mine = NULL;
	size_t len = 0;
	ok = drawn != NULL && pack_drawn(d, drawn, nr_drawn, &mine, &len) == 0 && len <= INT_MAX;
	free(drawn);
	if (!dist_agree(comm, ok, "ERROR: out of memory (or over 2 GB of drawn rows on one process)")) {
		free(mine);
		return NULL;
	}
	double *maxima = NULL;
	if (params->scale == 1 && (maxima = feature_maxima(comm, d, &ok)) == NULL) {
		free(mine);
		return NULL;
	}

	/* rank 0 gathers the drawn rows, in rank order (any order would do: each names its row) */
	int my_len = (int)len;
	int *lens = rank == 0 ? malloc((size_t)size * sizeof *lens) : NULL;
	int *displs = rank == 0 ? malloc((size_t)size * sizeof *displs) : NULL;
	ok = rank != 0 || (lens != NULL && displs != NULL);
	if (!dist_agree(comm, ok, "ERROR: out of memory"))
		goto fail;
	MPI_Gather(&my_len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
	unsigned char *all = NULL;
	int64_t total = 0;
	if (rank == 0) {
		for (int p = 0; p < size; p++) {
			displs[p] = (int)total;
			total += lens[p];
		}
		all = total <= INT_MAX ? malloc(total > 0 ? (size_t)total : 1) : NULL;
	}
	ok = rank != 0 || all != NULL;
	if (!dist_agree(comm, ok, "ERROR: out of memory (or over 2 GB of drawn rows)")) {
		free(all);
		goto fail;
	}
	MPI_Gatherv(mine, my_len, MPI_BYTE, all, lens, displs, MPI_BYTE, 0, comm);

	struct lik_map *built = NULL;
	ok = 1;
	if (rank == 0) {
		struct stand_in s = { 0 };
		struct lik_error err;
		if (stand_in_build(&s, n, all, (size_t)total, maxima, d->max_index) != 0) {
			snprintf(msg, sizeof msg, "ERROR: out of memory");
			ok = 0;
		} else {
			struct problem prob = { .l = n, .n = d->max_index, .y = NULL, .x = s.x, .bias = -1 };
			built = lik_map_build(&prob, params, &err);
			if (built == NULL) {
				snprintf(msg, sizeof msg, "ERROR: %s", err.message);
				ok = 0;
			}
		}
		free(s.x);
		free(s.nodes);
	}
	free(all);
	struct lik_map *map = NULL;
	if (dist_agree(comm, ok, msg))
		map = broadcast_map(comm, built, msg, sizeof msg);
	lik_map_free(&built);
	free(lens);
	free(displs);
	free(mine);
	free(maxima);
	return map;
fail:
	free(lens);
	free(displs);
	free(mine);
	free(maxima);
	return NULL;
}
