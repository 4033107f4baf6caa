/* reader.c - LIBSVM-format reader (see reader.h for the rules). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "decimal.h"
#include "reader.h"

struct libsvm_reader {
	FILE *in;
	int owns_stream;		/* close in on libsvm_reader_close */
	char *name;			/* for I/O error messages */
	char *line;			/* getline's buffer */
	size_t line_cap;
	struct feature_node *row;	/* the current row */
	size_t row_cap;
	int64_t line_no;
	int64_t offset;			/* bytes read since the start: where the next line begins */
	int failed;			/* an error happened; it sticks */
	char *error;			/* message of that error, or NULL */
};

/* The largest feature index: the bias index max+1 must still fit an int. */
#define MAX_FEATURE_INDEX (INT_MAX - 1)

static void set_error(struct libsvm_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	r->failed = 1;
	free(r->error);
	r->error = NULL;
	if (len < 0)
		return;
	r->error = malloc((size_t)len + 1);
	if (!r->error)
		return;
	va_start(ap, fmt);
	vsnprintf(r->error, (size_t)len + 1, fmt, ap);
	va_end(ap);
}

static int format_error(struct libsvm_reader *r, const char *reason)
{
	set_error(r, "Wrong input format at line %" PRId64 ": %s", r->line_no, reason);
	return -1;
}

static struct libsvm_reader *reader_new(FILE *in, int owns_stream, const char *name)
{
	struct libsvm_reader *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->name = strdup(name);
	if (!r->name) {
		free(r);
		return NULL;
	}
	r->in = in;
	r->owns_stream = owns_stream;
	return r;
}

struct libsvm_reader *libsvm_reader_open(const char *path)
{
	FILE *in = fopen(path, "r");
	if (!in)
		return NULL;
	struct libsvm_reader *r = reader_new(in, 1, path);
	if (!r) {
		fclose(in);
		errno = ENOMEM;
	}
	return r;
}

struct libsvm_reader *libsvm_reader_from_stream(FILE *stream, const char *name)
{
	return reader_new(stream, 0, name);
}

void libsvm_reader_close(struct libsvm_reader *r)
{
	if (!r)
		return;
	if (r->owns_stream)
		fclose(r->in);
	free(r->name);
	free(r->line);
	free(r->row);
	free(r->error);
	free(r);
}

int64_t libsvm_reader_line(const struct libsvm_reader *r)
{
	return r->line_no;
}

void libsvm_reader_set_lines_before(struct libsvm_reader *r, int64_t lines_before)
{
	r->line_no = lines_before;
}

int64_t libsvm_reader_offset(const struct libsvm_reader *r)
{
	return r->offset;
}

int libsvm_reader_seek(struct libsvm_reader *r, int64_t offset, int64_t line)
{
	if (r->failed)
		return LIBSVM_ERROR;
	if (offset < 0 || line < 1 || fseeko(r->in, (off_t)offset, SEEK_SET) != 0) {
		set_error(r, "error reading %s: cannot go back to line %" PRId64 ": %s", r->name, line,
			offset < 0 || line < 1 ? "no such line" : strerror(errno));
		return LIBSVM_ERROR;
	}
	r->offset = offset;
	r->line_no = line - 1;
	return 0;
}

const char *libsvm_reader_error(const struct libsvm_reader *r)
{
	if (r->error)
		return r->error;
	/* set_error could not allocate its message */
	return r->failed ? "out of memory" : "";
}

/*
 * Grows the row buffer to hold at least need nodes. Returns 0, or -1
 * when out of memory.
 */
static int reserve_row(struct libsvm_reader *r, size_t need)
{
	if (need <= r->row_cap)
		return 0;
	size_t cap = r->row_cap ? r->row_cap : 64;
	while (cap < need) {
		if (cap > SIZE_MAX / 2 / sizeof *r->row)
			return -1;
		cap *= 2;
	}
	struct feature_node *row = realloc(r->row, cap * sizeof *row);
	if (!row)
		return -1;
	r->row = row;
	r->row_cap = cap;
	return 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char *skip_blanks(char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

static char *token_end(char *p, const char *end)
{
	while (p < end && !is_blank(*p))
		p++;
	return p;
}

/* The label is the whole token [p, end) read by strtod. NULL or a reason. */
static const char *parse_label(char *p, char *end, double *label)
{
	/* plain short decimals convert exactly without strtod (decimal.h) */
	if (decimal_fast_double(p, end, label))
		return NULL;
	char *stop;
	*label = strtod(p, &stop);
	if (stop == p || stop != end)
		return "label is not a number";
	if (!isfinite(*label))
		return "value is not finite";
	return NULL;
}

/* The index is [p, colon) read by strtol; prev is the index before it. */
static const char *parse_index(char *p, char *colon, int prev, int *index)
{
	long v;
	int fast;
	if (decimal_fast_index(p, colon, &fast)) {
		/* one to nine plain digits: no strtol needed, the checks below still apply */
		v = fast;
	} else {
		char *stop;
		errno = 0;
		v = strtol(p, &stop, 10);
		if (stop == p || stop != colon)
			return "feature index is not an integer";
		if (errno == ERANGE || v > MAX_FEATURE_INDEX)
			return "feature index out of range";
	}
	if (v < 1)
		return v == 0 ? "feature index 0 (indices start at 1)"
			: "negative feature index (indices start at 1)";
	if (v <= prev)
		return "feature indices must be ascending";
	*index = (int)v;
	return NULL;
}

/* The value is [p, end) read by strtod, maybe followed by whitespace. */
static const char *parse_value(char *p, char *end, double *value)
{
	if (p == end)
		return "value is not a number";
	/* plain short decimals convert exactly and are finite and in range */
	if (decimal_fast_double(p, end, value))
		return NULL;
	char *stop;
	errno = 0;
	*value = strtod(p, &stop);
	/* stop > end: strtod skipped whitespace into the next token */
	if (stop == p || stop > end)
		return "value is not a number";
	for (char *q = stop; q < end; q++)
		if (!isspace((unsigned char)*q))
			return "value is not a number";
	if (!isfinite(*value))
		return "value is not finite";
	if (errno != 0)
		return "value is out of range";
	return NULL;
}

/*
 * Parses the line [s, end) (no line ending; *end == '\0') into r->row.
 * Returns 0, or -1 with the error set.
 */
static int parse_row(struct libsvm_reader *r, char *s, char *end, double *label, size_t *nnz)
{
	char *p = skip_blanks(s, end);
	if (p == end)
		return format_error(r, "empty line");
	char *tok = token_end(p, end);
	const char *reason = parse_label(p, tok, label);
	if (reason)
		return format_error(r, reason);

	size_t n = 0;
	int prev = 0;
	for (p = skip_blanks(tok, end); p < end; p = skip_blanks(tok, end)) {
		tok = token_end(p, end);
		char *colon = memchr(p, ':', (size_t)(tok - p));
		if (!colon) {
			/* Upstream ignores trailing text without ':' (a comment). */
			if (memchr(p, ':', (size_t)(end - p)))
				return format_error(r, "expected index:value");
			break;
		}
		int index;
		double value;
		reason = parse_index(p, colon, prev, &index);
		if (!reason)
			reason = parse_value(colon + 1, tok, &value);
		if (reason)
			return format_error(r, reason);
		/* n features, this one, the terminator and a spare node */
		if (reserve_row(r, n + 3) != 0) {
			set_error(r, "out of memory");
			return -1;
		}
		r->row[n].index = index;
		r->row[n].value = value;
		n++;
		prev = index;
	}
	if (reserve_row(r, n + 2) != 0) {
		set_error(r, "out of memory");
		return -1;
	}
	r->row[n].index = -1;
	r->row[n].value = 0;
	*nnz = n;
	return 0;
}

/*
 * Reads the next line into r->line without its "\n" or "\r\n".
 * Returns LIBSVM_ROW with *len set, LIBSVM_EOF, or LIBSVM_ERROR.
 */
static int read_line(struct libsvm_reader *r, size_t *len)
{
	errno = 0;
	ssize_t n = getline(&r->line, &r->line_cap, r->in);
	if (n < 0) {
		if (ferror(r->in)) {
			set_error(r, "error reading %s: %s", r->name, strerror(errno));
			return LIBSVM_ERROR;
		}
		if (errno == ENOMEM) {
			set_error(r, "out of memory");
			return LIBSVM_ERROR;
		}
		return LIBSVM_EOF;
	}
	r->line_no++;
	r->offset += (int64_t)n;	/* getline counts every byte, the newline and any NUL too */
	size_t m = (size_t)n;
	if (m > 0 && r->line[m - 1] == '\n')
		m--;
	if (m > 0 && r->line[m - 1] == '\r')
		m--;
	r->line[m] = '\0';
	*len = m;
	return LIBSVM_ROW;
}

int libsvm_reader_next(struct libsvm_reader *r, double *label, struct feature_node **x,
	size_t *nnz)
{
	if (r->failed)
		return LIBSVM_ERROR;
	size_t len;
	int status = read_line(r, &len);
	if (status != LIBSVM_ROW)
		return status;
	size_t count;
	if (parse_row(r, r->line, r->line + len, label, &count) != 0)
		return LIBSVM_ERROR;
	*x = r->row;
	if (nnz)
		*nnz = count;
	return LIBSVM_ROW;
}

/* ---- whole-file loader ---- */

/* Growable arrays of the loader; offsets are turned into pointers at the end. */
struct loader {
	double *y;
	size_t *start;		/* row i begins at nodes[start[i]] */
	size_t rows, row_cap;
	struct feature_node *nodes;
	size_t used, node_cap;
};

/* New capacity (x1.5 steps from at least 1024) holding need elements of size elem; 0 if too big. */
static size_t grown_capacity(size_t cap, size_t need, size_t elem)
{
	size_t c = cap ? cap : 1024;
	while (c < need) {
		if (c > SIZE_MAX / elem / 3 * 2)
			return 0;
		c += c / 2;
	}
	return c;
}

/* Room for one more row in y[] and start[]. 0 or -1. */
static int reserve_rows(struct loader *ld)
{
	if (ld->rows < ld->row_cap)
		return 0;
	size_t cap = grown_capacity(ld->row_cap, ld->rows + 1, sizeof *ld->start);
	if (cap == 0)
		return -1;
	double *y = realloc(ld->y, cap * sizeof *y);
	if (!y)
		return -1;
	ld->y = y;
	size_t *start = realloc(ld->start, cap * sizeof *start);
	if (!start)
		return -1;
	ld->start = start;
	ld->row_cap = cap;
	return 0;
}

/* Room for need more nodes. 0 or -1. */
static int reserve_nodes(struct loader *ld, size_t need)
{
	if (need > SIZE_MAX - ld->used)
		return -1;
	if (ld->used + need <= ld->node_cap)
		return 0;
	size_t cap = grown_capacity(ld->node_cap, ld->used + need, sizeof *ld->nodes);
	if (cap == 0)
		return -1;
	struct feature_node *nodes = realloc(ld->nodes, cap * sizeof *nodes);
	if (!nodes)
		return -1;
	ld->nodes = nodes;
	ld->node_cap = cap;
	return 0;
}

/* Appends a row: its nnz features, the bias slot if bias >= 0, the terminator. */
static int loader_add_row(struct loader *ld, double label, const struct feature_node *x,
	size_t nnz, double bias)
{
	if (reserve_rows(ld) != 0 || reserve_nodes(ld, nnz + 2) != 0)
		return -1;
	ld->y[ld->rows] = label;
	ld->start[ld->rows] = ld->used;
	memcpy(ld->nodes + ld->used, x, nnz * sizeof *x);
	ld->used += nnz;
	if (bias >= 0) {
		/* the index is known only at the end (max index + 1) */
		ld->nodes[ld->used].index = 0;
		ld->nodes[ld->used].value = bias;
		ld->used++;
	}
	ld->nodes[ld->used].index = -1;
	ld->nodes[ld->used].value = 0;
	ld->used++;
	ld->rows++;
	return 0;
}

static void loader_free(struct loader *ld)
{
	free(ld->y);
	free(ld->start);
	free(ld->nodes);
}

/* Moves the loader's arrays into d, fixing the bias indices. 0 or -1. */
static int loader_finish(struct loader *ld, int max_index, double bias, struct libsvm_data *d)
{
	size_t l = ld->rows;
	d->max_index = max_index;
	d->prob.l = (int)l;
	d->prob.n = max_index + (bias >= 0 ? 1 : 0);
	d->prob.bias = bias;
	if (l == 0) {
		loader_free(ld);
		return 0;
	}
	/* give back the unused tail of the node block */
	struct feature_node *nodes = realloc(ld->nodes, ld->used * sizeof *nodes);
	if (nodes)
		ld->nodes = nodes;
	struct feature_node **x = malloc(l * sizeof *x);
	if (!x)
		return -1;
	for (size_t i = 0; i < l; i++) {
		x[i] = ld->nodes + ld->start[i];
		size_t next = i + 1 < l ? ld->start[i + 1] : ld->used;
		if (bias >= 0)
			ld->nodes[next - 2].index = max_index + 1;
	}
	free(ld->start);
	d->prob.x = x;
	d->prob.y = ld->y;
	d->nodes = ld->nodes;
	d->nr_nodes = ld->used;
	return 0;
}

struct libsvm_data *libsvm_data_read(struct libsvm_reader *r, double bias)
{
	struct libsvm_data *d = calloc(1, sizeof *d);
	if (!d) {
		set_error(r, "out of memory");
		return NULL;
	}
	struct loader ld = {0};
	int max_index = 0;
	for (;;) {
		double label;
		struct feature_node *x;
		size_t nnz;
		int status = libsvm_reader_next(r, &label, &x, &nnz);
		if (status == LIBSVM_EOF)
			break;
		if (status == LIBSVM_ERROR)
			goto fail;
		if (ld.rows == (size_t)INT_MAX) {
			set_error(r, "too many rows in %s (at most %d)", r->name, INT_MAX);
			goto fail;
		}
		if (loader_add_row(&ld, label, x, nnz, bias) != 0) {
			set_error(r, "out of memory");
			goto fail;
		}
		if (nnz > 0 && x[nnz - 1].index > max_index)
			max_index = x[nnz - 1].index;
	}
	if (loader_finish(&ld, max_index, bias, d) != 0) {
		set_error(r, "out of memory");
		goto fail;
	}
	return d;
fail:
	loader_free(&ld);
	free(d);
	return NULL;
}

void libsvm_data_free(struct libsvm_data *d)
{
	if (!d)
		return;
	free(d->prob.x);
	free(d->prob.y);
	free(d->nodes);
	free(d);
}
