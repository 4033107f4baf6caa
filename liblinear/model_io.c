/*
 * model_io.c - save_model and load_model in upstream's text format.
 *
 * Format (upstream 2.50): "solver_type NAME", "nr_class N", "label l1 l2 ..."
 * (classification only), "nr_feature N", "bias %.17g", "rho %.17g"
 * (one-class only), "w", then one line per row of w holding that row's
 * nr_w weights, each printed "%.17g " (trailing space included). Ours
 * only: a model of the online solver (ONLINE_OGD_HINGE, which upstream's
 * load_model refuses by name) also has "eta %.17g" (its param.C, when > 0)
 * after "bias"; read only after that solver_type, unknown text elsewhere
 * as upstream says; a file without it loads with param.C = 0.
 *
 * Both directions run under the C locale of the calling thread only
 * (uselocale), so a caller's locale with a decimal comma neither leaks
 * into the file nor is disturbed. save_model replaces a regular file
 * atomically (common/atomic_file.h): it writes a temporary file beside it
 * (same permissions), syncs it and renames it over the target, so a crash,
 * a full disk or SIGINT/SIGTERM (in the programs) never leaves a
 * half-written model; on failure the temporary file is removed and the old
 * model stays. Devices and FIFOs are written in place, never replaced.
 * load_model accepts the header keywords in any order (nr_class before
 * label), ignores anything after the last weight, and rejects a damaged
 * file with a message on stderr instead of reading out of bounds. Sizes
 * in the header never make it allocate more than the input can fill: in a
 * regular file, n labels or weights must fit in the bytes left (2n - 1 at
 * least) before they are allocated; from a pipe or device the arrays grow
 * with the values actually read.
 */
/* realpath() is an XSI function in glibc's headers. */
#define _XOPEN_SOURCE 700

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "report.h"
#include "atomic_file.h"
#include "export.h"
#include "linear.h"
#include "model_shape.h"
#include "model_stream.h"
#include "online.h"

/* Model-file names of the solver types, indexed by the enum value. */
static const char *const solver_names[] = {
	"L2R_LR", "L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVC", "L2R_L1LOSS_SVC_DUAL",
	"MCSVM_CS", "L1R_L2LOSS_SVC", "L1R_LR", "L2R_LR_DUAL", "", "", "",
	"L2R_L2LOSS_SVR", "L2R_L2LOSS_SVR_DUAL", "L2R_L1LOSS_SVR_DUAL",
	"", "", "", "", "", "", "", "ONECLASS_SVM",
	/* ours (online.h): upstream's load_model refuses the name, as it should */
	"", "", "", "", "", "", "", "", "ONLINE_OGD_HINGE"
};
#define NR_SOLVER_NAMES ((int)(sizeof solver_names / sizeof solver_names[0]))

static const char *solver_name(int solver_type)
{
	if (solver_type < 0 || solver_type >= NR_SOLVER_NAMES || solver_names[solver_type][0] == '\0')
		return NULL;
	return solver_names[solver_type];
}

static int solver_from_name(const char *name)
{
	for (int s = 0; s < NR_SOLVER_NAMES; s++)
		if (solver_names[s][0] != '\0' && strcmp(solver_names[s], name) == 0)
			return s;
	return -1;
}

/* ---- writing ---- */

/* fprintf that remembers any failure, so the caller checks once at the end. */
struct writer {
	FILE *fp;
	int failed;
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(struct writer *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vfprintf(out->fp, fmt, ap) < 0)
		out->failed = 1;
	va_end(ap);
}

/*
 * The weights' text, "%.17g " each, remembered by value: an online model
 * holds few distinct weights (a9a's 102,400 under -k iforest: 90, sums of
 * +-eta/sqrt(t)), and formatting a double exactly is the dear part of
 * writing one. A slot holds the last value that hashed to it and its text,
 * made by the same "%.17g " as always, so the bytes are those of printing
 * every weight; a value never seen costs a hash on top of that.
 */
#define WEIGHT_SLOTS 256
#define WEIGHT_TEXT 40	/* "%.17g " is at most 25 bytes ("-1.2345678901234567e-308 ") */

struct weight_text {
	uint64_t bits;
	int len;		/* 0: empty slot */
	char text[WEIGHT_TEXT];
};

static void put_weight(struct writer *out, struct weight_text *slots, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	/* the high bits of a multiplicative hash choose the slot */
	struct weight_text *slot = &slots[(bits * UINT64_C(0x9E3779B97F4A7C15)) >> 56];
	if (slot->len == 0 || slot->bits != bits) {
		int len = snprintf(slot->text, sizeof slot->text, "%.17g ", v);
		if (len < 0 || len >= (int)sizeof slot->text) {
			slot->len = 0;
			put(out, "%.17g ", v);
			return;
		}
		slot->bits = bits;
		slot->len = len;
	}
	if (fwrite(slot->text, 1, (size_t)slot->len, out->fp) != (size_t)slot->len)
		out->failed = 1;
}

static int write_model(FILE *fp, const struct model *m)
{
	const char *name = solver_name(m->param.solver_type);
	if (name == NULL) {
		report_error("ERROR: cannot save a model of unknown solver type %d\n",
			m->param.solver_type);
		return -1;
	}
	struct writer out = { fp, 0 };
	put(&out, "solver_type %s\n", name);
	put(&out, "nr_class %d\n", m->nr_class);
	if (m->label != NULL) {
		put(&out, "label");
		for (int k = 0; k < m->nr_class; k++)
			put(&out, " %d", m->label[k]);
		put(&out, "\n");
	}
	put(&out, "nr_feature %d\n", m->nr_feature);
	put(&out, "bias %.17g\n", m->bias);
	if (m->param.solver_type == ONECLASS_SVM)
		put(&out, "rho %.17g\n", m->rho);
	if (m->param.solver_type == ONLINE_OGD && m->param.C > 0)
		put(&out, "eta %.17g\n", m->param.C);
	put(&out, "w\n");
	size_t w_size = model_w_size(m);
	size_t nr_w = (size_t)model_nr_w(m);
	struct weight_text slots[WEIGHT_SLOTS] = {0};	/* 14 KiB: no allocation that could fail */
	for (size_t j = 0; j < w_size && !out.failed; j++) {
		for (size_t k = 0; k < nr_w; k++)
			put_weight(&out, slots, m->w[j * nr_w + k]);
		if (putc('\n', fp) == EOF)
			out.failed = 1;
	}
	return out.failed ? -1 : 0;
}

/* Runs write_model under the C locale of this thread only. */
int save_model_stream(FILE *fp, const struct model *model_)
{
	locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (c_locale == (locale_t)0)
		return -1;
	locale_t caller_locale = uselocale(c_locale);
	int status = write_model(fp, model_);
	uselocale(caller_locale);
	freelocale(c_locale);
	return status;
}

/*
 * A regular file (through any symbolic links) or a new name is replaced
 * atomically and keeps its permissions; a device or FIFO is written
 * through, as upstream does (atomic_file.h).
 */
LIBLINEAR_EXPORT int save_model(const char *model_file_name, const struct model *model_)
{
	struct atomic_file out;
	if (atomic_file_open(&out, model_file_name, ATOMIC_FILE_WRITE_THROUGH) != 0)
		return -1;
	if (save_model_stream(out.fp, model_) != 0) {
		atomic_file_abort(&out);
		return -1;
	}
	return atomic_file_commit(&out);
}

/* ---- reading ---- */

enum token_status { TOKEN_OK, TOKEN_EOF, TOKEN_TOO_LONG };

/*
 * Reads the next whitespace-separated token into buf (cap bytes). A token
 * that does not fit is cut at cap-1 characters and reported TOKEN_TOO_LONG;
 * the rest of it stays in the stream.
 */
static enum token_status read_token(FILE *fp, char *buf, size_t cap)
{
	/*
	 * getc_unlocked: read_model holds the stream's lock for the whole
	 * file, so a character costs no lock of its own (the lock per getc was
	 * most of the time to load a model of 100,000 weights).
	 */
	int c;
	do
		c = getc_unlocked(fp);
	while (c != EOF && isspace(c));
	size_t n = 0;
	while (c != EOF && !isspace(c)) {
		if (n + 1 == cap) {
			ungetc(c, fp);
			buf[n] = '\0';
			return TOKEN_TOO_LONG;
		}
		buf[n++] = (char)c;
		c = getc_unlocked(fp);
	}
	buf[n] = '\0';
	return n == 0 ? TOKEN_EOF : TOKEN_OK;
}

/* Upstream's message for a value that is missing or unreadable. */
static void report_short_read(void)
{
	report_error("ERROR: fscanf failed to read the model\n");
}

/* A whole token as a double, the way upstream's fscanf("%lf") takes it: 0, or -1. */
static int parse_double(const char *buf, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (end == buf || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

static int read_double(FILE *fp, double *out)
{
	char buf[128];
	if (read_token(fp, buf, sizeof buf) != TOKEN_OK || parse_double(buf, out) != 0) {
		report_short_read();
		return -1;
	}
	return 0;
}

/*
 * The weights' texts remembered with their values, the reading side of
 * put_weight's slots: an online model holds few distinct weights
 * (covtype-20k's 102,400 under -k iforest: under 200 texts), and strtod
 * of a 17-digit text, past glibc's fast cases, was a quarter of the time
 * predict took to load such a model pair. A slot holds the last text
 * that hashed to it; the same text (as a C string, what strtod reads)
 * gives the same value, so the weights are those of parsing each.
 */
#define PARSED_SLOTS 256

struct parsed_text {
	double value;
	size_t len;		/* 0: empty slot */
	char text[WEIGHT_TEXT];
};

static int read_weight(FILE *fp, struct parsed_text *slots, double *out)
{
	char buf[128];
	if (read_token(fp, buf, sizeof buf) != TOKEN_OK)
		goto fail;
	size_t len = strlen(buf);
	if (len == 0 || len >= WEIGHT_TEXT) {	/* not remembered */
		if (parse_double(buf, out) != 0)
			goto fail;
		return 0;
	}
	uint64_t h = 0;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)buf[i]) * UINT64_C(0x100000001b3);
	struct parsed_text *slot = &slots[(h * UINT64_C(0x9E3779B97F4A7C15)) >> 56];
	if (slot->len == len && memcmp(slot->text, buf, len) == 0) {
		*out = slot->value;
		return 0;
	}
	if (parse_double(buf, out) != 0)
		goto fail;
	slot->value = *out;
	slot->len = len;
	memcpy(slot->text, buf, len);
	return 0;
fail:
	report_short_read();
	return -1;
}

static int read_int(FILE *fp, int *out)
{
	char buf[64];
	if (read_token(fp, buf, sizeof buf) != TOKEN_OK)
		goto fail;
	char *end;
	errno = 0;
	long v = strtol(buf, &end, 10);
	if (end == buf || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX)
		goto fail;
	*out = (int)v;
	return 0;
fail:
	report_short_read();
	return -1;
}

/* Which header keywords have been read. */
struct header_seen {
	int solver_type, nr_class, label, nr_feature, bias, rho, eta;
};

static int mark_seen(int *flag, const char *keyword)
{
	if (*flag) {
		report_error("ERROR: %s given twice in model file\n", keyword);
		return -1;
	}
	*flag = 1;
	return 0;
}

static int read_solver_type(FILE *fp, struct model *m)
{
	char name[81];
	if (read_token(fp, name, sizeof name) == TOKEN_EOF) {
		report_short_read();
		return -1;
	}
	int s = solver_from_name(name);
	if (s < 0) {
		report_error("unknown solver type.\n");
		return -1;
	}
	m->param.solver_type = s;
	return 0;
}

/*
 * What a file can still deliver decides how much may be allocated for the
 * values it claims (a few hundred crafted bytes must not make us allocate
 * gigabytes). n whitespace-separated values need at least 2n - 1 bytes:
 * one character each and a separator between them.
 */
struct room {
	bool known;		/* a regular file: its size is known */
	uint64_t bytes;		/* then: the bytes left after the read position */
	uint64_t values;	/* and the most values those can hold */
};

static struct room room_left(FILE *fp)
{
	struct room r = { false, 0, 0 };
	struct stat st;
	long at = ftell(fp);
	if (at < 0 || fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode))
		return r;
	r.known = true;
	uint64_t size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	uint64_t left = size > (uint64_t)at ? size - (uint64_t)at : 0;
	r.bytes = left;
	r.values = left / 2 + left % 2;	/* (left + 1) / 2 without overflow */
	return r;
}

/*
 * Values are read into an array that grows with what was actually read
 * when the file's size is unknown (a pipe, a device: fopen reads those as
 * upstream does), so memory stays within a small multiple of the input.
 */
#define GROWTH_START 4096

/* Makes room for element `have` of an array heading for `want` elements. */
static int grow_for(void **array, uint64_t *capacity, uint64_t have, uint64_t want, size_t size)
{
	if (have < *capacity)
		return 0;
	uint64_t next = *capacity < GROWTH_START / 2 ? GROWTH_START : *capacity * 2;
	if (next > want)
		next = want;
	void *grown = realloc(*array, (size_t)next * size);
	if (grown == NULL) {
		report_error("ERROR: out of memory reading the model\n");
		return -1;
	}
	*array = grown;
	*capacity = next;
	return 0;
}

/*
 * Before `count` values of `size` bytes are allocated: refuses (-1 after a
 * message) a count the rest of a regular file cannot hold or that does not
 * fit in memory's address range; otherwise 0 with *first, the capacity to
 * allocate now (all of count for a regular file, a start for a stream).
 */
static int plan_values(FILE *fp, uint64_t count, size_t size, const char *what,
	const struct model *m, uint64_t *first)
{
	if (count > SIZE_MAX / size) {
		report_error("ERROR: model too large (nr_feature %d, nr_class %d)\n",
			m->nr_feature, m->nr_class);
		return -1;
	}
	struct room r = room_left(fp);
	if (r.known && count > r.values) {
		report_error("ERROR: model file too short: its header claims %" PRIu64 " %s, "
			"but the %" PRIu64 " bytes left can hold at most %" PRIu64 "\n",
			count, what, r.bytes, r.values);
		return -1;
	}
	*first = r.known || count < GROWTH_START ? count : GROWTH_START;
	return 0;
}

static int read_labels(FILE *fp, struct model *m, const struct header_seen *seen)
{
	if (!seen->nr_class) {
		report_error("ERROR: label before nr_class in model file\n");
		return -1;
	}
	uint64_t count = (uint64_t)m->nr_class, capacity;
	if (plan_values(fp, count, sizeof *m->label, "labels", m, &capacity) != 0)
		return -1;
	m->label = malloc(capacity > 0 ? (size_t)capacity * sizeof *m->label : sizeof *m->label);
	if (m->label == NULL) {
		report_error("ERROR: out of memory reading the model\n");
		return -1;
	}
	for (uint64_t k = 0; k < count; k++) {
		void *labels = m->label;
		if (grow_for(&labels, &capacity, k, count, sizeof *m->label) != 0)
			return -1;
		m->label = labels;
		if (read_int(fp, &m->label[k]) != 0)
			return -1;
	}
	return 0;
}

static int read_nonnegative(FILE *fp, int *out, const char *keyword)
{
	if (read_int(fp, out) != 0)
		return -1;
	if (*out < 0) {
		report_error("ERROR: negative %s in model file\n", keyword);
		return -1;
	}
	return 0;
}

/* An online model's eta: a positive finite number. */
static int read_eta(FILE *fp, double *eta)
{
	if (read_double(fp, eta) != 0)
		return -1;
	if (!(*eta > 0) || !isfinite(*eta)) {
		report_error("ERROR: eta must be a positive finite number in model file\n");
		return -1;
	}
	return 0;
}

/* Reads keywords up to "w". Returns 0, or -1 after a message. */
static int read_header(FILE *fp, struct model *m, struct header_seen *seen)
{
	char key[81];
	for (;;) {
		enum token_status t = read_token(fp, key, sizeof key);
		if (t == TOKEN_EOF) {
			report_short_read();
			return -1;
		}
		int rc;
		if (t == TOKEN_OK && strcmp(key, "w") == 0)
			return 0;
		if (t == TOKEN_OK && strcmp(key, "solver_type") == 0)
			rc = mark_seen(&seen->solver_type, key) || read_solver_type(fp, m);
		else if (t == TOKEN_OK && strcmp(key, "nr_class") == 0)
			rc = mark_seen(&seen->nr_class, key) || read_nonnegative(fp, &m->nr_class, key);
		else if (t == TOKEN_OK && strcmp(key, "label") == 0)
			rc = mark_seen(&seen->label, key) || read_labels(fp, m, seen);
		else if (t == TOKEN_OK && strcmp(key, "nr_feature") == 0)
			rc = mark_seen(&seen->nr_feature, key) || read_nonnegative(fp, &m->nr_feature, key);
		else if (t == TOKEN_OK && strcmp(key, "bias") == 0)
			rc = mark_seen(&seen->bias, key) || read_double(fp, &m->bias);
		else if (t == TOKEN_OK && strcmp(key, "rho") == 0)
			rc = mark_seen(&seen->rho, key) || read_double(fp, &m->rho);
		else if (t == TOKEN_OK && strcmp(key, "eta") == 0 && seen->solver_type
			&& m->param.solver_type == ONLINE_OGD)
			rc = mark_seen(&seen->eta, key) || read_eta(fp, &m->param.C);
		else {
			report_error("unknown text in model file: [%s]\n", key);
			return -1;
		}
		if (rc != 0)
			return -1;
	}
}

/* The header must say everything the rest of the library relies on. */
static int check_header(const struct model *m, const struct header_seen *seen)
{
	const char *missing = !seen->solver_type ? "solver_type"
		: !seen->nr_class ? "nr_class"
		: !seen->nr_feature ? "nr_feature"
		: !seen->bias ? "bias" : NULL;
	if (missing != NULL) {
		report_error("ERROR: no %s in model file\n", missing);
		return -1;
	}
	int s = m->param.solver_type;
	if (s == ONECLASS_SVM && !seen->rho) {
		report_error("ERROR: no rho in model file (a ONECLASS_SVM model needs one)\n");
		return -1;
	}
	if ((solver_is_regression(s) || s == ONECLASS_SVM) && m->nr_class != 2) {
		report_error("ERROR: nr_class must be 2 for a regression or one-class model\n");
		return -1;
	}
	if (!solver_is_regression(s) && s != ONECLASS_SVM && !seen->label) {
		report_error("ERROR: no label in model file\n");
		return -1;
	}
	return 0;
}

static int read_weights(FILE *fp, struct model *m)
{
	uint64_t w_size = model_w_size(m);
	uint64_t nr_w = (uint64_t)model_nr_w(m);
	/* w_size <= 2^31 and nr_w < 2^31, so the product fits in 64 bits. */
	uint64_t count = w_size * nr_w, capacity;
	if (plan_values(fp, count, sizeof(double), "weights", m, &capacity) != 0)
		return -1;
	m->w = malloc(capacity > 0 ? (size_t)capacity * sizeof(double) : sizeof(double));
	if (m->w == NULL) {
		report_error("ERROR: out of memory reading the model\n");
		return -1;
	}
	struct parsed_text *slots = calloc(PARSED_SLOTS, sizeof *slots);
	if (slots == NULL) {
		report_error("ERROR: out of memory reading the model\n");
		return -1;
	}
	int status = 0;
	for (uint64_t i = 0; i < count && status == 0; i++) {
		void *w = m->w;
		status = grow_for(&w, &capacity, i, count, sizeof(double));
		m->w = w;
		if (status == 0)
			status = read_weight(fp, slots, &m->w[i]);
	}
	free(slots);
	return status;
}

static struct model *read_model(FILE *fp)
{
	struct model *m = calloc(1, sizeof *m);
	if (m == NULL) {
		report_error("ERROR: out of memory reading the model\n");
		return NULL;
	}
	struct header_seen seen = {0};
	flockfile(fp);
	int failed = read_header(fp, m, &seen) != 0 || check_header(m, &seen) != 0
		|| read_weights(fp, m) != 0;
	funlockfile(fp);
	if (failed) {
		free_and_destroy_model(&m);
		return NULL;
	}
	return m;
}

/* Runs read_model under the C locale of this thread only. */
struct model *load_model_stream(FILE *fp)
{
	locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (c_locale == (locale_t)0)
		return NULL;
	locale_t caller_locale = uselocale(c_locale);
	struct model *m = read_model(fp);
	uselocale(caller_locale);
	freelocale(c_locale);
	return m;
}

LIBLINEAR_EXPORT struct model *load_model(const char *model_file_name)
{
	FILE *fp = fopen(model_file_name, "r");
	if (fp == NULL)
		return NULL;
	locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (c_locale == (locale_t)0) {
		fclose(fp);
		return NULL;
	}
	locale_t caller_locale = uselocale(c_locale);
	struct model *m = read_model(fp);
	uselocale(caller_locale);
	freelocale(c_locale);
	fclose(fp);
	return m;
}
