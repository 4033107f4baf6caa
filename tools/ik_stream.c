/* ik_stream.c - train -k in passes over its file (see ik_stream.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "atomic_file.h"
#include "ik_batch.h"
#include "ik_stream.h"
#include "reader.h"

/*
 * Rows read and mapped per batch of the last pass: a pruned aNNE tile
 * (1024 rows, ikmap/anne_prune.c) for each of two threads, and small
 * beside the cells (a batch holds its rows as nodes: 2048 rows of 400
 * nonzeros are 13 MB).
 */
#define STREAM_BATCH_ROWS 2048

struct ik_stream_pass {
	const char *name;		/* the path as given, for messages */
	char *path;			/* what is read: the path, or the scratch file */
	struct atomic_file spool;	/* spool.temp set while a scratch file exists */
	struct lik_map_params kernel;
	struct ikmap_scan *scan;
	int64_t *offset;		/* [l]: where each row's line begins */
	size_t cap;			/* room in offset and s->y */
	int max_index;			/* the largest feature index: the map's d */
	size_t nnz;			/* nonzeros of all rows (the raw parts' room, -a) */
};

/* The scratch file to remove at exit (one per process: train reads one file). */
static struct atomic_file *active_spool;

static void remove_spool(void)
{
	if (active_spool != NULL && active_spool->temp != NULL)
		atomic_file_abort(active_spool);
	active_spool = NULL;
}

static int out_of_memory(void)
{
	fprintf(stderr, "ERROR: out of memory\n");
	return -1;
}

/* Copies the non-seekable input name into a scratch file (ik_stream.h). 0, or -1 after a message. */
static int spool(struct ik_stream_pass *p)
{
	FILE *in = fopen(p->name, "r");
	if (in == NULL) {
		fprintf(stderr, "can't open input file %s\n", p->name);
		return -1;
	}
	const char *dir = getenv("TMPDIR");
	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	static const char base[] = "/liblinear-ik-train";
	size_t len = strlen(dir);
	char *prefix = malloc(len + sizeof base);
	if (prefix == NULL) {
		fclose(in);
		return out_of_memory();
	}
	memcpy(prefix, dir, len);
	memcpy(prefix + len, base, sizeof base);
	static int registered;
	if (!registered && atexit(remove_spool) == 0)
		registered = 1;
	int status = atomic_file_scratch(&p->spool, prefix);
	free(prefix);
	if (status != 0 || !registered) {
		fprintf(stderr, "ERROR: cannot make a scratch file in %s to read %s twice: %s\n", dir,
			p->name, status != 0 ? atomic_file_strerror(errno) : "atexit failed");
		if (status == 0)
			atomic_file_abort(&p->spool);
		fclose(in);
		return -1;
	}
	active_spool = &p->spool;
	static char buffer[1 << 16];
	size_t got;
	int write_error = 0;
	while (!write_error && (got = fread(buffer, 1, sizeof buffer, in)) > 0)
		write_error = fwrite(buffer, 1, got, p->spool.fp) != got;
	int read_error = ferror(in);
	fclose(in);
	/* closed here (and fp cleared) so that the passes read it by name */
	write_error |= fflush(p->spool.fp) != 0;
	write_error |= fclose(p->spool.fp) != 0;
	p->spool.fp = NULL;
	if (read_error || write_error) {
		fprintf(stderr, "ERROR: %s %s: %s\n", read_error ? "error reading" : "cannot spool to",
			read_error ? p->name : p->spool.temp, strerror(errno));
		return -1;
	}
	p->path = strdup(p->spool.temp);
	return p->path != NULL ? 0 : out_of_memory();
}

static struct libsvm_reader *open_input(const struct ik_stream_pass *p)
{
	struct libsvm_reader *r = libsvm_reader_open(p->path);
	if (r == NULL)
		fprintf(stderr, "can't open input file %s\n", p->name);
	return r;
}

/* The input changed between two passes: its rows are no longer the ones counted. */
static int changed(const struct ik_stream_pass *p, int64_t line)
{
	fprintf(stderr, "ERROR: %s changed while train read it (line %" PRId64 " is not what the"
		" first pass read)\n", p->name, line);
	return -1;
}

/* Room for row number l in offset and y. 0, or -1 after a message. */
static int reserve_row(struct ik_stream *s, struct ik_stream_pass *p, size_t l)
{
	if (l < p->cap)
		return 0;
	size_t cap = p->cap < 1024 ? 1024 : p->cap + p->cap / 2;
	int64_t *offset = realloc(p->offset, cap * sizeof *offset);
	if (offset == NULL)
		return out_of_memory();
	p->offset = offset;
	double *y = realloc(s->y, cap * sizeof *y);
	if (y == NULL)
		return out_of_memory();
	s->y = y;
	p->cap = cap;
	return 0;
}

int ik_stream_begin(const char *path, const struct lik_map_params *kernel, const char *advice,
	struct ik_stream *s)
{
	memset(s, 0, sizeof *s);
	struct ik_stream_pass *p = calloc(1, sizeof *p);
	if (p == NULL)
		return out_of_memory();
	s->pass = p;
	p->spool.slot = -1;
	p->name = path;
	p->kernel = *kernel;
	struct stat st;
	int status = 0;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		status = spool(p);	/* a pipe can be read once only */
	else if ((p->path = strdup(path)) == NULL)
		status = out_of_memory();
	struct lik_error err;
	if (status == 0 && (p->scan = lik_map_scan_new(kernel, &err)) == NULL)
		status = out_of_memory();
	struct libsvm_reader *r = status == 0 ? open_input(p) : NULL;
	if (r == NULL) {
		ik_stream_free(s);
		return -1;
	}
	const char *refuses = lik_map_params_nonnegative_reason(kernel);
	int64_t negative_line = 0;	/* the first negative's line (as train's in-memory check: any feature) */
	struct feature_node negative[2] = { { 0, 0 }, { -1, 0 } };
	size_t l = 0;
	char why[IKMAP_ERR_SIZE];
	for (;;) {
		int64_t at = libsvm_reader_offset(r);
		double label;
		struct feature_node *x;
		size_t nnz;
		status = libsvm_reader_next(r, &label, &x, &nnz);
		if (status != LIBSVM_ROW)
			break;
		if (l == (size_t)INT_MAX) {
			fprintf(stderr, "too many rows in %s (at most %d)\n", path, INT_MAX);
			status = LIBSVM_EOF;
			l++;	/* an error below */
			break;
		}
		if (reserve_row(s, p, l) != 0) {
			status = LIBSVM_EOF;
			l = (size_t)INT_MAX + 1;
			break;
		}
		p->offset[l] = at;
		s->y[l] = label;
		if (nnz > 0 && x[nnz - 1].index > p->max_index)
			p->max_index = x[nnz - 1].index;
		p->nnz += nnz;
		size_t row;
		int feature;
		if (refuses != NULL && negative_line == 0 && lik_first_negative(&x, 1, INT_MAX, &row,
				&feature)) {
			negative_line = (int64_t)l + 1;
			for (const struct feature_node *f = x; f->index != -1; f++)
				if (f->index == feature)
					negative[0] = *f;
		}
		if (ikmap_scan_rows(p->scan, &x, 1, why) != 0) {
			fprintf(stderr, "ERROR: %s\n", why);
			status = LIBSVM_EOF;
			l = (size_t)INT_MAX + 1;
			break;
		}
		l++;
	}
	if (status == LIBSVM_ERROR)
		fprintf(stderr, "%s\n", libsvm_reader_error(r));
	libsvm_reader_close(r);
	if (status == LIBSVM_ERROR || l > (size_t)INT_MAX) {
		ik_stream_free(s);
		return -1;
	}
	if (l == 0) {
		fprintf(stderr, "ERROR: no data in training file %s\n", path);
		ik_stream_free(s);
		return -1;
	}
	const struct feature_node *negative_row = negative;
	if (negative_line > 0) {
		ik_refuse_negative((struct feature_node *const *)&negative_row, 1, INT_MAX, path,
			negative_line, advice != NULL ? advice : refuses);
		ik_stream_free(s);
		return -1;
	}
	ikmap_scan_end_pass(p->scan);
	/* the labels stay to the end: no room to spare (the offsets go after the build) */
	double *y = realloc(s->y, l * sizeof *y);
	if (y != NULL)
		s->y = y;
	s->l = (int)l;
	return 0;
}

/* The scan's passes after the first (-S 3): every row again, in order. 0, or -1 after a message. */
static int scan_again(struct ik_stream *s)
{
	struct ik_stream_pass *p = s->pass;
	char why[IKMAP_ERR_SIZE];
	for (int pass = 1; pass < ikmap_scan_passes(p->scan); pass++) {
		struct libsvm_reader *r = open_input(p);
		if (r == NULL)
			return -1;
		int64_t rows = 0;
		double label;
		struct feature_node *x;
		int status;
		while ((status = libsvm_reader_next(r, &label, &x, NULL)) == LIBSVM_ROW
			&& rows < s->l && label == s->y[rows]) {
			if (ikmap_scan_rows(p->scan, &x, 1, why) != 0) {
				libsvm_reader_close(r);
				fprintf(stderr, "ERROR: %s\n", why);
				return -1;
			}
			rows++;
		}
		if (status == LIBSVM_ERROR)
			fprintf(stderr, "%s\n", libsvm_reader_error(r));
		libsvm_reader_close(r);
		if (status == LIBSVM_ERROR)
			return -1;
		if (status == LIBSVM_ROW || rows != s->l)
			return changed(p, rows + 1);
		ikmap_scan_end_pass(p->scan);
	}
	return 0;
}

/* The drawn rows, read back by seeking to their lines (ikmap_row_source). */
struct fetch {
	const struct ik_stream_pass *p;
	const double *y;
	struct libsvm_reader *r;
	struct feature_node *nodes;	/* the rows handed out, one block */
};

/* Row id (0-based) read again: 0 with *x and *nnz set, or -1 with why set. */
static int read_row(struct fetch *f, int id, struct feature_node **x, size_t *nnz, char *why)
{
	double label;
	int status = libsvm_reader_seek(f->r, f->p->offset[id], (int64_t)id + 1);
	if (status == 0)
		status = libsvm_reader_next(f->r, &label, x, nnz);
	if (status == LIBSVM_ROW && label == f->y[id])
		return 0;
	if (status == LIBSVM_ERROR)
		snprintf(why, IKMAP_ERR_SIZE, "%s", libsvm_reader_error(f->r));
	else
		snprintf(why, IKMAP_ERR_SIZE, "%s changed while train read it (line %d is not what"
			" the first pass read)", f->p->name, id + 1);
	return -1;
}

/*
 * Rows ids[0..count-1] read again into one block f->nodes (freed first),
 * rows[i] pointing into it; bias_index > 0: each row ends with the node
 * (bias_index, bias) before its terminator. 0, or -1 with why set.
 */
static int copy_rows(struct fetch *f, const int *ids, size_t count, struct feature_node **rows,
	int bias_index, double bias, char *why)
{
	free(f->nodes);
	f->nodes = NULL;
	/* read twice, to count and then to copy: one exact block, never grown (its peak counts) */
	size_t extra = bias_index > 0 ? 2 : 1, total = 0, nnz;
	struct feature_node *x;
	for (size_t i = 0; i < count; i++) {
		if (read_row(f, ids[i], &x, &nnz, why) != 0)
			return -1;
		total += nnz + extra;
	}
	f->nodes = malloc((total > 0 ? total : 1) * sizeof *f->nodes);
	if (f->nodes == NULL) {
		snprintf(why, IKMAP_ERR_SIZE, "out of memory");
		return -1;
	}
	size_t at = 0;
	for (size_t i = 0; i < count; i++) {
		if (read_row(f, ids[i], &x, &nnz, why) != 0)
			return -1;
		if (at + nnz + extra > total) {
			snprintf(why, IKMAP_ERR_SIZE, "%s changed while train read it (line %d is not"
				" what the first pass read)", f->p->name, ids[i] + 1);
			return -1;
		}
		rows[i] = f->nodes + at;
		memcpy(f->nodes + at, x, nnz * sizeof *x);
		at += nnz;
		if (bias_index > 0)
			f->nodes[at++] = (struct feature_node){ bias_index, bias };
		f->nodes[at++] = (struct feature_node){ -1, 0 };
	}
	return 0;
}

/* ikmap_row_source over the file: the drawn rows as they are, no bias node. */
static int fetch_rows(void *context, const int *ids, size_t count, struct feature_node **rows,
	char *why)
{
	struct fetch *f = context;
	if (rows == NULL) {
		free(f->nodes);
		f->nodes = NULL;
		return 0;
	}
	return copy_rows(f, ids, count, rows, 0, 0, why);
}

struct ikmap *ik_stream_build(struct ik_stream *s, const struct lik_map_params *params)
{
	struct ik_stream_pass *p = s->pass;
	struct fetch f = { p, s->y, NULL, NULL };
	struct lik_error err;
	struct ikmap *map = NULL;
	/* min-max and acos draw no rows; IK maps read theirs through this reader */
	if ((f.r = open_input(p)) == NULL)
		return NULL;
	map = lik_map_build_scanned(p->scan, s->l, p->max_index, params, fetch_rows, &f, &err);
	if (map == NULL)
		lik_error_print(&err);
	libsvm_reader_close(f.r);
	free(f.nodes);
	return map;
}

int ik_stream_read_rows(struct ik_stream *s, const int *ids, size_t count, double bias,
	struct problem *out, struct feature_node **storage)
{
	struct ik_stream_pass *p = s->pass;
	int n = p->max_index + (bias >= 0 ? 1 : 0);
	*out = (struct problem){ .l = (int)count, .n = n, .bias = bias };
	*storage = NULL;
	out->x = malloc((count > 0 ? count : 1) * sizeof *out->x);
	out->y = malloc((count > 0 ? count : 1) * sizeof *out->y);
	struct fetch f = { p, s->y, NULL, NULL };
	int status = out->x != NULL && out->y != NULL ? 0 : out_of_memory();
	if (status == 0 && (f.r = open_input(p)) == NULL)
		status = -1;
	char why[IKMAP_ERR_SIZE];
	/* the bias node as libsvm_data_read adds it: index largest + 1 */
	if (status == 0 && copy_rows(&f, ids, count, out->x, bias >= 0 ? n : 0, bias, why) != 0) {
		fprintf(stderr, "ERROR: %s\n", why);
		status = -1;
	}
	libsvm_reader_close(f.r);
	if (status != 0) {
		free(out->x);
		free(out->y);
		free(f.nodes);
		*out = (struct problem){ 0 };
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		out->y[i] = s->y[ids[i]];
	*storage = f.nodes;
	return 0;
}

/* The cells (and raw parts) of the last ik_stream_map, freed. */
void ik_stream_drop_cells(struct ik_stream *s)
{
	free(s->cells);
	free(s->raw);
	free(s->raw_nodes);
	s->cells = NULL;
	s->raw = NULL;
	s->raw_nodes = NULL;
	memset(&s->X, 0, sizeof s->X);
}

/* The last pass: every row mapped in batches, its cells (and raw part) kept. 0, or -1. */
static int map_rows(struct ik_stream *s, const struct ikmap *map)
{
	struct ik_stream_pass *p = s->pass;
	ik_stream_drop_cells(s);
	size_t l = (size_t)s->l, row_bytes = (size_t)ikmap_t(map) * ikmap_cell_size(map);
	if (row_bytes > 0 && l > SIZE_MAX / row_bytes)
		return out_of_memory();
	s->cells = malloc(l * row_bytes > 0 ? l * row_bytes : 1);
	if (s->cells == NULL)
		return out_of_memory();
	if (ikmap_raw_columns(map) > 0) {
		/* every feature is within 1..d here (d is the largest index), so a row's raw part
		 * has at most its nonzeros and an end node */
		s->raw = malloc(l * sizeof *s->raw);
		s->raw_nodes = malloc((p->nnz + l) * sizeof *s->raw_nodes);
		if (s->raw == NULL || s->raw_nodes == NULL)
			return out_of_memory();
	}
	struct lik_error err;
	enum ikmap_device device;
	if (lik_device_of(p->kernel.device, &device, &err) != 0) {
		lik_error_print(&err);
		return -1;
	}
	struct libsvm_reader *r = open_input(p);
	struct ik_batch b;
	if (r == NULL)
		return -1;
	if (ik_batch_init(&b, STREAM_BATCH_ROWS, map) != 0) {
		libsvm_reader_close(r);
		return -1;
	}
	b.name = p->name;
	size_t done = 0;
	struct feature_node *next = s->raw_nodes;
	long got;
	int status = 0;
	while (status == 0 && (got = ik_batch_next(&b, r, map, p->kernel.threads, device)) > 0) {
		size_t n = (size_t)got;
		for (size_t i = 0; i < n && status == 0; i++)
			if (done + i >= l || b.labels[i] != s->y[done + i])
				status = changed(p, (int64_t)(done + i) + 1);
		if (status != 0)
			break;
		memcpy((unsigned char *)s->cells + done * row_bytes, b.cells, n * row_bytes);
		for (size_t i = 0; s->raw != NULL && i < n; i++) {
			s->raw[done + i] = next;
			next += ikmap_raw_row(map, b.rows[i], next) + 1;
		}
		done += n;
	}
	if (status == 0 && got < 0)
		status = -1;	/* ik_batch_next said why, naming the line */
	else if (status == 0 && done != l)
		status = changed(p, (int64_t)done + 1);
	ik_batch_free(&b);
	libsvm_reader_close(r);
	return status;
}

int ik_stream_scan_rest(struct ik_stream *s)
{
	return scan_again(s);
}

int ik_stream_map(struct ik_stream *s, const struct ikmap *map, double bias)
{
	s->bias = bias;
	if (map_rows(s, map) != 0) {
		ik_stream_drop_cells(s);
		return -1;
	}
	lik_cells_view(map, (size_t)s->l, bias, s->cells, s->raw, &s->X);
	return 0;
}

int ik_stream_finish(struct ik_stream *s, double bias)
{
	if (scan_again(s) != 0) {
		ik_stream_free(s);
		return -1;
	}
	struct ikmap *map = ik_stream_build(s, &s->pass->kernel);
	struct lik_error err;
	if (map == NULL || (s->map = lik_map_wrap(map, &err)) == NULL) {
		if (map != NULL)
			lik_error_print(&err);
		ik_stream_free(s);
		return -1;
	}
	/* the statistics and offsets are spent: only the map, the cells and the labels stay */
	ikmap_scan_free(s->pass->scan);
	s->pass->scan = NULL;
	free(s->pass->offset);
	s->pass->offset = NULL;
	if (ik_stream_map(s, map, bias) != 0) {
		ik_stream_free(s);
		return -1;
	}
	if (s->pass->spool.temp != NULL) {	/* read for the last time: no longer needed */
		atomic_file_abort(&s->pass->spool);
		active_spool = NULL;
	}
	return 0;
}

void ik_stream_free(struct ik_stream *s)
{
	struct ik_stream_pass *p = s->pass;
	if (p != NULL) {
		if (p->spool.temp != NULL) {
			atomic_file_abort(&p->spool);
			active_spool = NULL;
		}
		ikmap_scan_free(p->scan);
		free(p->offset);
		free(p->path);
		free(p);
	}
	free(s->y);
	lik_map_free(&s->map);
	ik_stream_drop_cells(s);
	memset(s, 0, sizeof *s);
}
