/*
 * share_read.c - one process's share of a training file, read without MPI
 * (see share_read.h). The file is read through stdio streams and the
 * reader's own small buffer: no copy of the share in memory (a fresh
 * buffer the size of the share costs a page fault per 4 KB;
 * bench/results/mpi-scaling.md measures it).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>
#include "reader.h"
#include "share_read.h"

/* Bytes read at a time while looking for the end of a line. */
enum { SCAN_CHUNK = 65536 };

static void set_message(char *msg, size_t room, const char *path, const char *what)
{
	snprintf(msg, room, "train-mpi: %s: %s", path, what);
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

int64_t share_scan_lines(FILE *f, int64_t begin, int64_t end, int64_t first, int block_rows,
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

/* ---- parsing lines into rows ---- */

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

/* What stops store_rows besides the end of the file. */
struct row_limit {
	int64_t rows;		/* this many rows (< 0: no limit) */
	int64_t bytes;		/* once the reader has consumed this many bytes (< 0: no limit) */
	const atomic_int *stop;	/* set by another thread: give up */
};

/*
 * Appends every row of r up to the limit. Each row gets its features, one
 * spare node for the bias and the terminator. Returns 0, or -1 with the
 * message in msg.
 */
static int store_rows(struct libsvm_reader *r, const char *path, struct row_limit limit,
	struct row_store *s, char *msg, size_t room)
{
	for (int64_t read = 0; limit.rows < 0 || read < limit.rows; read++) {
		if (limit.bytes >= 0 && libsvm_reader_offset(r) >= limit.bytes)
			return 0;
		if (limit.stop != NULL && atomic_load(limit.stop)) {
			set_message(msg, room, path, "reading stopped");
			return -1;
		}
		double label;
		struct feature_node *x;
		size_t nnz;
		int status = libsvm_reader_next(r, &label, &x, &nnz);
		if (status == LIBSVM_EOF && (limit.rows >= 0 || limit.bytes >= 0)) {
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

/* Parses f from byte at on, as limit says; line numbers from lines_before + 1. */
static int parse_from(FILE *f, int64_t at, struct row_limit limit, const char *path,
	int64_t lines_before, struct row_store *s, char *msg, size_t room)
{
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
	int rc = store_rows(r, path, limit, s, msg, room);
	/* a byte limit must end exactly at a line start (the share's end) */
	if (rc == 0 && limit.bytes >= 0 && libsvm_reader_offset(r) != limit.bytes) {
		set_message(msg, room, path, "the share did not end at a line start (changed while read?)");
		rc = -1;
	}
	libsvm_reader_close(r);
	return rc;
}

int share_parse_lines(FILE *f, int64_t at, int64_t rows, const char *path, int64_t lines_before,
	struct row_store *s, char *msg, size_t room)
{
	if (rows == 0)
		return 0;
	struct row_limit limit = { rows, -1, NULL };
	return parse_from(f, at, limit, path, lines_before, s, msg, room);
}

void row_store_free(struct row_store *s)
{
	free(s->y);
	free(s->start);
	free(s->nodes);
	memset(s, 0, sizeof *s);
}

/* ---- the share ---- */

char *share_rank_path(const char *path, int rank)
{
	size_t len = strlen(path) + 16;
	char *p = malloc(len);
	if (p != NULL)
		snprintf(p, len, "%s.%d", path, rank);
	return p;
}

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A shared file: the share's bytes, then its rows (speculatively, see share_read.h). */
static void read_shared(struct share *sh, const atomic_int *stop)
{
	sh->f = fopen(sh->path, "rb");
	if (sh->f == NULL) {
		snprintf(sh->msg, sizeof sh->msg, "can't open input file %s", sh->path);
		return;
	}
	FILE *f = sh->f;
	int64_t size = sh->size, rank = sh->rank;
	if (fseeko(f, 0, SEEK_END) != 0 || (sh->file_size = (int64_t)ftello(f)) < 0) {
		set_message(sh->msg, sizeof sh->msg, sh->path, strerror(errno));
		return;
	}
	int64_t fs = sh->file_size;
	/* fs / size * rank + fs % size * rank / size: no product beyond fs */
	errno = 0;
	sh->begin = line_start_from(f, fs / size * rank + fs % size * rank / size, fs);
	sh->end = line_start_from(f, fs / size * (rank + 1) + fs % size * (rank + 1) / size, fs);
	if (sh->begin < 0 || sh->end < 0) {
		set_message(sh->msg, sizeof sh->msg, sh->path, strerror(errno ? errno : EIO));
		return;
	}
	/* the rows up to the share's end; a line that fails leaves them to dist_data.c */
	char why[1024];
	struct row_limit limit = { -1, sh->end - sh->begin, stop };
	if (sh->begin < sh->end
		&& parse_from(f, sh->begin, limit, sh->path, 0, &sh->rows, why, sizeof why) != 0) {
		row_store_free(&sh->rows);
		if (stop != NULL && atomic_load(stop))
			return;	/* abandoned: nobody reads this share */
		errno = 0;
		sh->lines = share_scan_lines(f, sh->begin, sh->end, 0, 1, NULL, NULL);
		if (sh->lines < 0)
			set_message(sh->msg, sizeof sh->msg, sh->path, strerror(errno ? errno : EIO));
		else
			sh->ok = 1;
		return;
	}
	sh->lines = sh->rows.l;
	sh->parsed = true;
	sh->ok = 1;
}

/* Per-rank files: path.RANK whole; its errors are final. */
static void read_own_file(struct share *sh, const atomic_int *stop)
{
	struct libsvm_reader *r = libsvm_reader_open(sh->path);
	if (r == NULL) {
		snprintf(sh->msg, sizeof sh->msg, "can't open input file %s", sh->path);
		return;
	}
	struct row_limit limit = { -1, -1, stop };
	sh->ok = store_rows(r, sh->path, limit, &sh->rows, sh->msg, sizeof sh->msg) == 0;
	sh->parsed = sh->ok;
	libsvm_reader_close(r);
}

int share_read(struct share *sh, const char *path, bool per_rank, int rank, int size,
	const atomic_int *stop)
{
	double t0 = seconds_now();
	memset(sh, 0, sizeof *sh);
	sh->per_rank = per_rank;
	sh->rank = rank;
	sh->size = size;
	sh->path = per_rank ? share_rank_path(path, rank) : strdup(path);
	if (sh->path == NULL)
		snprintf(sh->msg, sizeof sh->msg, "train-mpi: out of memory");
	else if (per_rank)
		read_own_file(sh, stop);
	else
		read_shared(sh, stop);
	sh->seconds = seconds_now() - t0;
	return sh->ok;
}

bool share_is_for(const struct share *sh, const char *path, bool per_rank, int rank, int size)
{
	if (sh->path == NULL || sh->per_rank != per_rank || sh->rank != rank || sh->size != size)
		return false;
	char *name = per_rank ? share_rank_path(path, rank) : NULL;
	bool same = strcmp(sh->path, per_rank ? (name != NULL ? name : "") : path) == 0;
	free(name);
	return same;
}

void share_free(struct share *sh)
{
	if (sh->f != NULL)
		fclose(sh->f);
	row_store_free(&sh->rows);
	free(sh->path);
	memset(sh, 0, sizeof *sh);
}
