/*
 * dist_data.c - reading one process's blocks of a training set (see
 * dist_data.h). Every step that can fail on one process ends in
 * dist_agree(), so that all processes take the same path through the
 * collective calls and stop together.
 */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "dist_data.h"
#include "reader.h"

/* Bytes read at a time while looking for the end of a line. */
enum { SCAN_CHUNK = 65536 };

int dist_rank(MPI_Comm comm)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	return rank;
}

int dist_agree(MPI_Comm comm, int ok, const char *message)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int mine = ok ? size : rank, first = size;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
	if (first == size)
		return 1;
	if (first == rank && message != NULL && message[0] != '\0') {
		fprintf(stderr, "%s\n", message);
		fflush(stderr);
	}
	return 0;
}

char *dist_rank_path(const char *path, int rank)
{
	size_t len = strlen(path) + 16;
	char *p = malloc(len);
	if (p != NULL)
		snprintf(p, len, "%s.%d", path, rank);
	return p;
}

/*
 * The first line start at or after pos (0, or just after a '\n'), or size
 * when there is none. -1 on an I/O error.
 */
static int64_t line_start_from(FILE *f, int64_t pos, int64_t size)
{
	if (pos <= 0)
		return 0;
	if (pos >= size)
		return size;
	/* pos is a line start exactly when the byte before it ends a line */
	if (fseeko(f, (off_t)(pos - 1), SEEK_SET) != 0)
		return -1;
	char buf[SCAN_CHUNK];
	int64_t at = pos - 1;
	for (;;) {
		size_t got = fread(buf, 1, sizeof buf, f);
		if (got == 0)
			return ferror(f) ? -1 : size;
		char *nl = memchr(buf, '\n', got);
		if (nl != NULL)
			return at + (nl - buf) + 1;
		at += (int64_t)got;
	}
}

static void set_message(char *msg, size_t room, const char *path, const char *what)
{
	snprintf(msg, room, "train-mpi: %s: %s", path, what);
}

/* ---- parsing a byte range into rows ---- */

struct row_store {
	double *y;
	size_t *start;		/* row i's first node in nodes */
	struct feature_node *nodes;
	size_t nr_nodes, cap_nodes;
	int l, cap_rows;
	int max_index;
};

static int grow_rows(struct row_store *s)
{
	if (s->l < s->cap_rows)
		return 0;
	if (s->cap_rows > INT_MAX / 2)
		return -1;
	int cap = s->cap_rows ? 2 * s->cap_rows : 1024;
	double *y = realloc(s->y, (size_t)cap * sizeof *y);
	if (y == NULL)
		return -1;
	s->y = y;
	size_t *st = realloc(s->start, (size_t)cap * sizeof *st);
	if (st == NULL)
		return -1;
	s->start = st;
	s->cap_rows = cap;
	return 0;
}

static int grow_nodes(struct row_store *s, size_t need)
{
	if (s->nr_nodes + need <= s->cap_nodes)
		return 0;
	size_t cap = s->cap_nodes ? s->cap_nodes : 4096;
	while (cap < s->nr_nodes + need)
		cap *= 2;
	struct feature_node *n = realloc(s->nodes, cap * sizeof *n);
	if (n == NULL)
		return -1;
	s->nodes = n;
	s->cap_nodes = cap;
	return 0;
}

/*
 * Appends every row of r. Each row gets its features, one spare node for
 * the bias (filled once the global feature count is known) and the
 * terminator. Returns 0, or -1 with the message in msg.
 */
static int store_rows(struct libsvm_reader *r, const char *path, int64_t limit,
	struct row_store *s, char *msg, size_t room)
{
	for (int64_t read = 0; limit < 0 || read < limit; read++) {
		double label;
		struct feature_node *x;
		size_t nnz;
		int status = libsvm_reader_next(r, &label, &x, &nnz);
		if (status == LIBSVM_EOF && limit >= 0) {
			set_message(msg, room, path, "the file ended before its counted lines (changed while read?)");
			return -1;
		}
		if (status == LIBSVM_EOF)
			return 0;
		if (status != LIBSVM_ROW) {
			set_message(msg, room, path, libsvm_reader_error(r));
			return -1;
		}
		if (s->l == INT_MAX || grow_rows(s) != 0 || grow_nodes(s, nnz + 2) != 0) {
			set_message(msg, room, path, "out of memory (or more than INT_MAX rows in one process)");
			return -1;
		}
		s->y[s->l] = label;
		s->start[s->l] = s->nr_nodes;
		for (size_t k = 0; k < nnz; k++) {
			if (x[k].index > s->max_index)
				s->max_index = x[k].index;
			s->nodes[s->nr_nodes++] = x[k];
		}
		/* the bias slot and the terminator: both "end of row" until the bias is known */
		s->nodes[s->nr_nodes].index = -1;
		s->nodes[s->nr_nodes++].value = 0;
		s->nodes[s->nr_nodes].index = -1;
		s->nodes[s->nr_nodes++].value = 0;
		s->l++;
	}
	return 0;
}

/*
 * Parses the `rows` lines of f from byte `at` on, which follow
 * lines_before lines of path. The stream is read through the reader's
 * own small buffer: no copy of the share in memory (a fresh buffer the
 * size of the share costs a page fault per 4 KB; bench/results/
 * mpi-scaling.md measures the reading phase before and after).
 */
static int parse_range(FILE *f, int64_t at, int64_t rows, const char *path,
	int64_t lines_before, struct row_store *s, char *msg, size_t room)
{
	if (rows == 0)
		return 0;
	if (fseeko(f, (off_t)at, SEEK_SET) != 0) {
		set_message(msg, room, path, strerror(errno));
		return -1;
	}
	struct libsvm_reader *r = libsvm_reader_from_stream(f, path);
	if (r == NULL) {
		set_message(msg, room, path, "out of memory");
		return -1;
	}
	libsvm_reader_set_lines_before(r, lines_before);
	int rc = store_rows(r, path, rows, s, msg, room);
	libsvm_reader_close(r);
	return rc;
}

/* ---- the shared file ---- */

/*
 * Line starts in the bytes [begin, end) of f, begin being one: begin (when
 * begin < end) and every offset just after a '\n' before end. Records the
 * offset of each whose global line number (first + count so far) is a
 * multiple of block_rows when starts is not NULL. Reads in chunks of
 * SCAN_CHUNK through one buffer. The number of line starts, or -1 on an
 * I/O error.
 */
static int64_t scan_lines(FILE *f, int64_t begin, int64_t end, int64_t first, int block_rows,
	int64_t *starts, int64_t *nr_starts)
{
	char buf[SCAN_CHUNK];
	if (begin < end && fseeko(f, (off_t)begin, SEEK_SET) != 0)
		return -1;
	int64_t count = 0, pos = begin;
	bool line_start = true;
	while (pos < end) {
		size_t want = end - pos < SCAN_CHUNK ? (size_t)(end - pos) : SCAN_CHUNK;
		if (fread(buf, 1, want, f) != want)
			return -1;
		size_t at = 0;
		while (at < want) {
			if (line_start) {
				if (starts != NULL && (first + count) % block_rows == 0)
					starts[(*nr_starts)++] = pos + (int64_t)at;
				count++;
				line_start = false;
			}
			const char *nl = memchr(buf + at, '\n', want - at);
			if (nl == NULL)
				break;
			at = (size_t)(nl - buf) + 1;
			line_start = true;
		}
		pos += (int64_t)want;
	}
	return count;
}

static int read_shared(MPI_Comm comm, const char *path, struct dist_data *d,
	struct row_store *s, char *msg, size_t room)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int ok = 1;
	int64_t file_size = 0, begin = 0, end = 0, mine = 0;
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		snprintf(msg, room, "can't open input file %s", path);
		ok = 0;
	} else if (fseeko(f, 0, SEEK_END) != 0 || (file_size = (int64_t)ftello(f)) < 0) {
		set_message(msg, room, path, strerror(errno));
		ok = 0;
	} else {
		/* size * rank fits: file sizes are far below 2^63 / P */
		begin = line_start_from(f, file_size / size * rank + file_size % size * rank / size, file_size);
		end = line_start_from(f, file_size / size * (rank + 1)
			+ file_size % size * (rank + 1) / size, file_size);
		errno = 0;
		if (begin < 0 || end < 0 || (mine = scan_lines(f, begin, end, 0, 1, NULL, NULL)) < 0) {
			set_message(msg, room, path, strerror(errno ? errno : EIO));
			ok = 0;
		}
	}
	if (!dist_agree(comm, ok, msg))
		goto fail;

	/* lines before this share: an exact integer prefix sum */
	int64_t before = 0, total = 0;
	MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm);
	if (rank == 0)
		before = 0;	/* MPI_Exscan leaves rank 0's result undefined */
	MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, comm);
	int64_t max_blocks = (total + d->block_rows - 1) / d->block_rows;
	if (max_blocks > INT_MAX / 2) {
		snprintf(msg, room, "train-mpi: %s: too many blocks; use a larger -b", path);
		dist_agree(comm, 0, rank == 0 ? msg : NULL);
		goto fail;
	}

	/* where each block starts, in file order (a second pass over the share, from the page cache) */
	int64_t my_blocks = mine / d->block_rows + 2, nr_mine = 0;
	int64_t *starts = malloc((size_t)my_blocks * sizeof *starts);
	int64_t *all_starts = malloc((size_t)(max_blocks + 1) * sizeof *all_starts);
	int *counts = malloc((size_t)size * sizeof *counts);
	int *displs = malloc((size_t)size * sizeof *displs);
	ok = starts && all_starts && counts && displs;
	if (!dist_agree(comm, ok, "train-mpi: out of memory"))
		goto fail_starts;
	errno = 0;
	ok = scan_lines(f, begin, end, before, d->block_rows, starts, &nr_mine) >= 0;
	if (!ok)
		set_message(msg, room, path, strerror(errno ? errno : EIO));
	if (!dist_agree(comm, ok, msg))
		goto fail_starts;
	int nr_mine_int = (int)nr_mine;
	MPI_Allgather(&nr_mine_int, 1, MPI_INT, counts, 1, MPI_INT, comm);
	int nb = 0;
	for (int p = 0; p < size; p++) {
		displs[p] = nb;
		nb += counts[p];
	}
	MPI_Allgatherv(starts, nr_mine_int, MPI_INT64_T, all_starts, counts, displs, MPI_INT64_T, comm);
	all_starts[nb] = file_size;

	/* block b goes to rank b * P / nb: as even as whole blocks allow */
	for (int p = 0; p <= size; p++)
		d->first_block_of_rank[p] = (int)((int64_t)nb * p / size);
	d->total_blocks = nb;
	d->total_rows = total;
	int b0 = d->first_block_of_rank[rank], b1 = d->first_block_of_rank[rank + 1];
	d->first_block = b0;
	d->nr_blocks = b1 - b0;
	d->first_line = (int64_t)b0 * d->block_rows;
	d->first_row = d->first_line;	/* every line is a row */
	int64_t last_row = (int64_t)b1 * d->block_rows < total ? (int64_t)b1 * d->block_rows : total;
	ok = b1 <= b0 || parse_range(f, all_starts[b0], last_row - d->first_row, path, d->first_line,
		s, msg, room) == 0;
	free(starts);
	free(all_starts);
	free(counts);
	free(displs);
	fclose(f);
	return dist_agree(comm, ok, msg) ? 0 : -1;
fail_starts:
	free(starts);
	free(all_starts);
	free(counts);
	free(displs);
fail:
	if (f != NULL)
		fclose(f);
	return -1;
}

/* ---- one file per rank ---- */

static int read_per_rank(MPI_Comm comm, const char *path, struct dist_data *d,
	struct row_store *s, char *msg, size_t room)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	char *mine = dist_rank_path(path, rank);
	int ok = 0;
	if (mine == NULL) {
		snprintf(msg, room, "train-mpi: out of memory");
	} else {
		struct libsvm_reader *r = libsvm_reader_open(mine);
		if (r == NULL)
			snprintf(msg, room, "can't open input file %s", mine);
		else
			ok = store_rows(r, mine, -1, s, msg, room) == 0;
		libsvm_reader_close(r);
	}
	free(mine);
	if (!dist_agree(comm, ok, msg))
		return -1;
	int64_t rows = s->l;
	MPI_Allreduce(&rows, &d->total_rows, 1, MPI_INT64_T, MPI_SUM, comm);
	/* rows of the files of lower ranks: an exact integer prefix sum */
	MPI_Exscan(&rows, &d->first_row, 1, MPI_INT64_T, MPI_SUM, comm);
	if (rank == 0)
		d->first_row = 0;
	int nb = (int)((rows + d->block_rows - 1) / d->block_rows);
	int *counts = malloc((size_t)size * sizeof *counts);
	if (!dist_agree(comm, counts != NULL, "train-mpi: out of memory")) {
		free(counts);
		return -1;
	}
	MPI_Allgather(&nb, 1, MPI_INT, counts, 1, MPI_INT, comm);
	int64_t at = 0;
	for (int p = 0; p < size; p++) {
		d->first_block_of_rank[p] = (int)at;
		at += counts[p];
	}
	free(counts);
	if (at > INT_MAX / 2) {
		dist_agree(comm, 0, rank == 0 ? "train-mpi: too many blocks; use a larger -b" : NULL);
		return -1;
	}
	d->first_block_of_rank[size] = (int)at;
	d->total_blocks = at;
	d->first_block = d->first_block_of_rank[rank];
	d->nr_blocks = nb;
	d->first_line = 0;	/* per-rank files: lines of FILE.rank */
	return 0;
}

int dist_data_read(MPI_Comm comm, const char *path, bool per_rank, int block_rows, double bias,
	struct dist_data *d)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	memset(d, 0, sizeof *d);
	d->block_rows = block_rows;
	d->bias = bias;
	d->first_block_of_rank = malloc((size_t)(size + 1) * sizeof *d->first_block_of_rank);
	if (!dist_agree(comm, d->first_block_of_rank != NULL, "train-mpi: out of memory"))
		return -1;
	struct row_store s = { 0 };
	char msg[1024] = "";
	int rc = per_rank ? read_per_rank(comm, path, d, &s, msg, sizeof msg)
		: read_shared(comm, path, d, &s, msg, sizeof msg);
	if (rc != 0)
		goto fail;
	if (d->total_rows == 0) {
		snprintf(msg, sizeof msg, "ERROR: no data in training file %s%s", path,
			per_rank ? ".RANK" : "");
		dist_agree(comm, 0, rank == 0 ? msg : NULL);
		goto fail;
	}
	MPI_Allreduce(&s.max_index, &d->max_index, 1, MPI_INT, MPI_MAX, comm);
	d->n = d->max_index + (bias >= 0 ? 1 : 0);
	d->l = s.l;
	d->y = s.y;
	d->nodes = s.nodes;
	d->x = malloc((size_t)(s.l > 0 ? s.l : 1) * sizeof *d->x);
	if (!dist_agree(comm, d->x != NULL, "train-mpi: out of memory")) {
		free(s.start);
		dist_data_free(d);
		return -1;
	}
	for (int i = 0; i < s.l; i++) {
		d->x[i] = s.nodes + s.start[i];
		if (bias >= 0) {
			/* the spare node sits right before the row's terminator */
			size_t end = (i + 1 < s.l ? s.start[i + 1] : s.nr_nodes) - 2;
			s.nodes[end].index = d->n;
			s.nodes[end].value = bias;
		}
	}
	free(s.start);
	return 0;
fail:
	free(s.y);
	free(s.start);
	free(s.nodes);
	free(d->first_block_of_rank);
	memset(d, 0, sizeof *d);
	return -1;
}

void dist_data_free(struct dist_data *d)
{
	free(d->y);
	free(d->x);
	free(d->nodes);
	free(d->first_block_of_rank);
	memset(d, 0, sizeof *d);
}

int dist_block_begin(const struct dist_data *d, int k)
{
	int64_t at = (int64_t)k * d->block_rows;
	return at < d->l ? (int)at : d->l;
}
