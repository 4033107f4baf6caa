/*
 * dist_kernel.c - the map of train-mpi -k (see dist_kernel.h).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist_kernel.h"
#include "ikmap_impl.h"
#include "ik_batch.h"
#include "lik_internal.h"

/* Bytes per broadcast message of the map (MPI counts are ints). */
enum { BCAST_CHUNK = 1 << 30 };

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

/* ---- the scan of every row, over the processes ---- */

/* Message tag of the scan's chain (dist_newton's is 24). */
enum { TAG_SCAN = 25 };

/*
 * The state of the scan's current pass, features 0..st->d: n, then a, b, c
 * and count. MPI's default error handler aborts the job on a failed call,
 * so none returns an error code to check here.
 */
static void send_state(const struct ikmap_scan_state *st, int to, MPI_Comm comm)
{
	int m = st->d + 1;
	MPI_Send(st->n, 1, MPI_INT64_T, to, TAG_SCAN, comm);
	MPI_Send(st->a, m, MPI_DOUBLE, to, TAG_SCAN, comm);
	MPI_Send(st->b, m, MPI_DOUBLE, to, TAG_SCAN, comm);
	MPI_Send(st->c, m, MPI_DOUBLE, to, TAG_SCAN, comm);
	MPI_Send(st->count, m, MPI_INT64_T, to, TAG_SCAN, comm);
}

static void recv_state(const struct ikmap_scan_state *st, int from, MPI_Comm comm)
{
	int m = st->d + 1;
	MPI_Recv(st->n, 1, MPI_INT64_T, from, TAG_SCAN, comm, MPI_STATUS_IGNORE);
	MPI_Recv(st->a, m, MPI_DOUBLE, from, TAG_SCAN, comm, MPI_STATUS_IGNORE);
	MPI_Recv(st->b, m, MPI_DOUBLE, from, TAG_SCAN, comm, MPI_STATUS_IGNORE);
	MPI_Recv(st->c, m, MPI_DOUBLE, from, TAG_SCAN, comm, MPI_STATUS_IGNORE);
	MPI_Recv(st->count, m, MPI_INT64_T, from, TAG_SCAN, comm, MPI_STATUS_IGNORE);
}

static void bcast_state(const struct ikmap_scan_state *st, int root, MPI_Comm comm)
{
	int m = st->d + 1;
	MPI_Bcast(st->n, 1, MPI_INT64_T, root, comm);
	MPI_Bcast(st->a, m, MPI_DOUBLE, root, comm);
	MPI_Bcast(st->b, m, MPI_DOUBLE, root, comm);
	MPI_Bcast(st->c, m, MPI_DOUBLE, root, comm);
	MPI_Bcast(st->count, m, MPI_INT64_T, root, comm);
}

/*
 * Every pass of scan (ikmap.h "Streaming build") over the rows of all
 * processes, leaving on every process the scan train -k's single pass over
 * the whole file leaves, bit for bit. A pass that only takes maxima of
 * values >= 0 and counts (-S 1, the first pass of -S 3, -S 4) runs on
 * every process at once and is combined with MPI_MAX and an integer
 * MPI_SUM, exact in any order. Every other pass (the sums of -S 3's
 * mean and deviations, whose rounding depends on the order; the signed
 * minima and maxima of -S 2, where the first of -0 and +0 is kept) is
 * one chain in row order: rank r takes the state rank r-1 left after its
 * rows, feeds its own rows onto it and hands it on, so the operations
 * are the single scan's, in its order (ranks hold their rows in rank
 * order, dist_data.h); the last rank then broadcasts the result. The
 * chain runs one process at a time: a pass costs what train -k's costs.
 * 0 on every process, or -1 on every process after one message.
 */
static int scan_everywhere(MPI_Comm comm, const struct dist_data *d, struct ikmap_scan *scan)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	char why[IKMAP_ERR_SIZE] = "", msg[IKMAP_ERR_SIZE + 16] = "";
	for (int pass = 0; pass < ikmap_scan_passes(scan); pass++) {
		struct ikmap_scan_state st;
		/* room for every feature first, so that no process's arrays move or differ in size */
		int ok = ikmap_scan_state(scan, d->max_index, &st, why) == 0;
		if (!ok)
			snprintf(msg, sizeof msg, "ERROR: %s", why);
		if (!dist_agree(comm, ok, msg))
			return -1;
		if (ikmap_scan_order_free(scan)) {
			ok = ikmap_scan_rows(scan, d->x, (size_t)d->l, why) == 0;
			if (!ok)
				snprintf(msg, sizeof msg, "ERROR: %s", why);
			if (!dist_agree(comm, ok, msg))
				return -1;
			MPI_Allreduce(MPI_IN_PLACE, st.a, st.d + 1, MPI_DOUBLE, MPI_MAX, comm);
			MPI_Allreduce(MPI_IN_PLACE, st.count, st.d + 1, MPI_INT64_T, MPI_SUM, comm);
			MPI_Allreduce(MPI_IN_PLACE, st.n, 1, MPI_INT64_T, MPI_SUM, comm);
		} else {
			if (rank > 0)
				recv_state(&st, rank - 1, comm);
			ok = ikmap_scan_rows(scan, d->x, (size_t)d->l, why) == 0;
			if (!ok)
				snprintf(msg, sizeof msg, "ERROR: %s", why);
			/* handed on even after a failure, so that no process waits for ever */
			if (rank + 1 < size)
				send_state(&st, rank + 1, comm);
			if (!dist_agree(comm, ok, msg))
				return -1;
			bcast_state(&st, size - 1, comm);
		}
		ikmap_scan_end_pass(scan);
	}
	return 0;
}

/* ---- the drawn rows on rank 0, as the build asks for them ---- */

struct drawn_source {
	size_t count;
	int *id;			/* ascending global row numbers */
	struct feature_node **row;	/* row[k]: the row of id[k] */
	struct feature_node *nodes;	/* their storage */
};

/* Unpacks the gathered bytes (rank order: ascending rows). 0, or -1 when out of memory. */
static int source_build(struct drawn_source *s, const unsigned char *bytes, size_t len)
{
	size_t rows = 0, nodes = 0, at = 0;
	while (at < len) {	/* count first: one exact block of each */
		int nnz;
		memcpy(&nnz, bytes + at + sizeof(int), sizeof nnz);
		at += 2 * sizeof(int) + (size_t)nnz * sizeof(struct feature_node);
		rows++;
		nodes += (size_t)nnz + 1;
	}
	s->count = rows;
	s->id = malloc((rows > 0 ? rows : 1) * sizeof *s->id);
	s->row = malloc((rows > 0 ? rows : 1) * sizeof *s->row);
	s->nodes = malloc((nodes > 0 ? nodes : 1) * sizeof *s->nodes);
	if (s->id == NULL || s->row == NULL || s->nodes == NULL)
		return -1;
	size_t used = 0;
	at = 0;
	for (size_t k = 0; k < rows; k++) {
		int nnz;
		memcpy(&s->id[k], bytes + at, sizeof s->id[k]);
		memcpy(&nnz, bytes + at + sizeof(int), sizeof nnz);
		at += 2 * sizeof(int);
		s->row[k] = s->nodes + used;
		memcpy(s->nodes + used, bytes + at, (size_t)nnz * sizeof *s->nodes);
		at += (size_t)nnz * sizeof *s->nodes;
		used += (size_t)nnz;
		s->nodes[used].index = -1;
		s->nodes[used++].value = 0;
	}
	return 0;
}

static void source_free(struct drawn_source *s)
{
	free(s->id);
	free(s->row);
	free(s->nodes);
}

/* ikmap_row_source over the gathered rows: every id asked for was drawn, so it is there. */
static int source_rows(void *context, const int *ids, size_t count, struct feature_node **rows,
	char *err)
{
	const struct drawn_source *s = context;
	if (rows == NULL)
		return 0;
	for (size_t i = 0; i < count; i++) {
		const int *hit = bsearch(&ids[i], s->id, s->count, sizeof *s->id, compare_int);
		if (hit == NULL) {
			/* only if the draws here and in ikmap.c ever disagree */
			snprintf(err, IKMAP_ERR_SIZE, "train-mpi: row %d was drawn but not gathered",
				ids[i] + 1);
			return -1;
		}
		rows[i] = s->row[hit - s->id];
	}
	return 0;
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

int dist_refuse_negative(MPI_Comm comm, const struct dist_data *d,
	const struct lik_map_params *params, const char *path, bool per_rank)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	char msg[512] = "";
	int ok = 1;
	size_t row;
	int feature;
	if (lik_map_params_nonnegative_reason(params) != NULL
			&& lik_first_negative(d->x, (size_t)d->l, d->max_index, &row, &feature)) {
		char file[32] = "";
		if (per_rank)
			snprintf(file, sizeof file, ".%d", rank);
		snprintf(msg, sizeof msg, "ERROR: %s%s line %" PRId64 ": feature %d is negative: %s",
			path, file, d->first_line + (int64_t)row + 1, feature,
			ik_train_negative_advice(params->scale));
		ok = 0;
	}
	/* train -k's words (ik_batch.h); the lowest rank with one prints: the first in the file */
	return dist_agree(comm, ok, msg) ? 0 : -1;
}

/* Rank 0: the map from the finished scan and the gathered drawn rows. NULL with msg set. */
static struct lik_map *build_on_rank_0(const struct ikmap_scan *scan, int n, int dim,
	const struct lik_map_params *params, const unsigned char *bytes, size_t len, char *msg,
	size_t room)
{
	struct drawn_source src = { 0 };
	struct lik_error err;
	struct lik_map *map = NULL;
	if (source_build(&src, bytes, len) != 0) {
		snprintf(msg, room, "ERROR: out of memory");
	} else {
		/* train -k's own build from its scan (tools/ik_stream.c build_map) */
		struct ikmap *built = lik_map_build_scanned(scan, n, dim, params, source_rows, &src,
			&err);
		if (built != NULL)
			map = lik_map_wrap(built, &err);
		if (map == NULL)
			snprintf(msg, room, "ERROR: %s", err.message);
	}
	source_free(&src);
	return map;
}

struct lik_map *dist_map_build(MPI_Comm comm, const struct dist_data *d,
	const struct lik_map_params *params, const char *path, bool per_rank)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	char msg[1024] = "";
	if (dist_refuse_negative(comm, d, params, path, per_rank) != 0)
		return NULL;
	if (d->total_rows > INT_MAX) {
		dist_agree(comm, 0, "ERROR: -k maps at most INT_MAX rows");
		return NULL;
	}
	int n = (int)d->total_rows, ok;
	struct lik_error err;
	struct ikmap_scan *scan = lik_map_scan_new(params, &err);
	if (!dist_agree(comm, scan != NULL, "ERROR: out of memory"))
		return NULL;
	if (scan_everywhere(comm, d, scan) != 0) {
		ikmap_scan_free(scan);
		return NULL;
	}
	size_t nr_drawn = 0;
	int *drawn = drawn_rows(params, n, &nr_drawn);
	unsigned char *mine = NULL;
	size_t len = 0;
	ok = drawn != NULL && pack_drawn(d, drawn, nr_drawn, &mine, &len) == 0 && len <= INT_MAX;
	free(drawn);
	if (!dist_agree(comm, ok, "ERROR: out of memory (or over 2 GB of drawn rows on one process)")) {
		free(mine);
		ikmap_scan_free(scan);
		return NULL;
	}

	/* rank 0 gathers the drawn rows, in rank order: ascending row numbers */
	int my_len = (int)len;
	int *lens = rank == 0 ? malloc((size_t)size * sizeof *lens) : NULL;
	int *displs = rank == 0 ? malloc((size_t)size * sizeof *displs) : NULL;
	unsigned char *all = NULL;
	struct lik_map *built = NULL, *map = NULL;
	ok = rank != 0 || (lens != NULL && displs != NULL);
	if (!dist_agree(comm, ok, "ERROR: out of memory"))
		goto done;
	MPI_Gather(&my_len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
	int64_t total = 0;
	if (rank == 0) {
		for (int p = 0; p < size; p++) {
			displs[p] = (int)total;
			total += lens[p];
		}
		all = total <= INT_MAX ? malloc(total > 0 ? (size_t)total : 1) : NULL;
	}
	ok = rank != 0 || all != NULL;
	if (!dist_agree(comm, ok, "ERROR: out of memory (or over 2 GB of drawn rows)"))
		goto done;
	MPI_Gatherv(mine, my_len, MPI_BYTE, all, lens, displs, MPI_BYTE, 0, comm);
	if (rank == 0)
		built = build_on_rank_0(scan, n, d->max_index, params, all, (size_t)total, msg,
			sizeof msg);
	if (dist_agree(comm, rank != 0 || built != NULL, msg))
		map = broadcast_map(comm, built, msg, sizeof msg);
done:
	lik_map_free(&built);
	free(all);
	free(lens);
	free(displs);
	free(mine);
	ikmap_scan_free(scan);
	return map;
}

/* ---- rows wanted everywhere (-C -k's subsample) ---- */

/* The labels of this process's rows among ids (ascending), in that order. */
static double *labels_held(const struct dist_data *d, const int *ids, size_t count, int *held)
{
	double *y = malloc((count > 0 ? count : 1) * sizeof *y);
	*held = 0;
	for (size_t k = 0; y != NULL && k < count; k++) {
		int64_t local = ids[k] - d->first_row;
		if (local >= 0 && local < d->l)
			y[(*held)++] = d->y[local];
	}
	return y;
}

/* Allgatherv of this process's mine[0..len) of type t: every process gets all, in rank order. */
static void *gather_everywhere(MPI_Comm comm, const void *mine, int len, MPI_Datatype t,
	size_t elem, int *total)
{
	int size;
	MPI_Comm_size(comm, &size);
	int *lens = malloc((size_t)size * sizeof *lens);
	int *displs = malloc((size_t)size * sizeof *displs);
	void *all = NULL;
	*total = 0;
	int ok = lens != NULL && displs != NULL;
	if (dist_agree(comm, ok, "ERROR: out of memory")) {
		MPI_Allgather(&len, 1, MPI_INT, lens, 1, MPI_INT, comm);
		int64_t sum = 0;
		for (int p = 0; p < size; p++) {
			displs[p] = (int)sum;
			sum += lens[p];
		}
		all = sum <= INT_MAX ? malloc((size_t)(sum > 0 ? sum : 1) * elem) : NULL;
		if (dist_agree(comm, all != NULL, "ERROR: out of memory (or over 2 GB of gathered rows)")) {
			MPI_Allgatherv(mine, len, t, all, lens, displs, t, comm);
			*total = (int)sum;
		} else {
			free(all);
			all = NULL;
		}
	}
	free(lens);
	free(displs);
	return all;
}

int dist_gather_rows(MPI_Comm comm, const struct dist_data *d, const int *ids, size_t count,
	double bias, struct problem *out, struct feature_node **storage)
{
	memset(out, 0, sizeof *out);
	*storage = NULL;
	unsigned char *mine = NULL;
	size_t len = 0;
	int held = 0;
	double *my_y = labels_held(d, ids, count, &held);
	int ok = my_y != NULL && pack_drawn(d, ids, count, &mine, &len) == 0 && len <= INT_MAX;
	if (!dist_agree(comm, ok, "ERROR: out of memory (or over 2 GB of rows on one process)")) {
		free(my_y);
		free(mine);
		return -1;
	}
	int nr_bytes = 0, nr_y = 0;
	unsigned char *bytes = gather_everywhere(comm, mine, (int)len, MPI_BYTE, 1, &nr_bytes);
	double *y = bytes != NULL ? gather_everywhere(comm, my_y, held, MPI_DOUBLE, sizeof *y, &nr_y)
		: NULL;
	free(mine);
	free(my_y);
	if (y == NULL) {
		free(bytes);
		return -1;
	}
	struct drawn_source src = { 0 };
	ok = source_build(&src, bytes, (size_t)nr_bytes) == 0 && src.count == (size_t)nr_y;
	free(bytes);
	size_t nodes = 0;
	for (size_t k = 0; ok && k < src.count; k++)
		for (const struct feature_node *f = src.row[k]; f->index != -1; f++)
			nodes++;
	struct feature_node *store = ok ? malloc((nodes + 2 * src.count + 1) * sizeof *store) : NULL;
	struct feature_node **x = ok ? malloc((src.count > 0 ? src.count : 1) * sizeof *x) : NULL;
	if (!dist_agree(comm, store != NULL && x != NULL, "ERROR: out of memory")) {
		free(store);
		free(x);
		free(y);
		source_free(&src);
		return -1;
	}
	int n = d->max_index + (bias >= 0 ? 1 : 0);
	size_t at = 0;
	for (size_t k = 0; k < src.count; k++) {
		x[k] = store + at;
		for (const struct feature_node *f = src.row[k]; f->index != -1; f++)
			store[at++] = *f;
		if (bias >= 0)
			store[at++] = (struct feature_node){ n, bias };
		store[at++] = (struct feature_node){ -1, 0 };
	}
	source_free(&src);
	*out = (struct problem){ .l = (int)count, .n = n, .y = y, .x = x, .bias = bias };
	*storage = store;
	return 0;
}
