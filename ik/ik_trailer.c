/*
 * ik_trailer.c - writing, parsing and finding the model trailer, and the
 * names it uses.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "ik_trailer.h"
#include "lik_internal.h"
#include "regular_file.h"

#define CHECKSUM_DIGITS 16

static int name_is_writable(const char *name)
{
	return name[0] != '\0' && strpbrk(name, "\r\n") == NULL;
}

int ik_trailer_write(FILE *fp, uint64_t checksum, const char *name)
{
	if (!name_is_writable(name)) {
		errno = EINVAL;
		return -1;
	}
	if (fprintf(fp, IK_TRAILER_KEY " %016" PRIx64 " %s\n", checksum, name) < 0)
		return -1;
	return 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ik_trailer_parse(const char *line, size_t len, struct ik_trailer *out)
{
	const size_t key_len = sizeof IK_TRAILER_KEY - 1;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	/* key, space, 16 digits, space, at least one character of name */
	if (len < key_len + 1 + CHECKSUM_DIGITS + 2)
		return -1;
	if (memcmp(line, IK_TRAILER_KEY, key_len) != 0 || line[key_len] != ' ')
		return -1;
	const char *digits = line + key_len + 1;
	uint64_t checksum = 0;
	for (int i = 0; i < CHECKSUM_DIGITS; i++) {
		int v = hex_value(digits[i]);
		if (v < 0)
			return -1;
		checksum = checksum << 4 | (uint64_t)v;
	}
	if (digits[CHECKSUM_DIGITS] != ' ')
		return -1;
	const char *name = digits + CHECKSUM_DIGITS + 1;
	size_t name_len = len - (size_t)(name - line);
	if (memchr(name, '\0', name_len) != NULL || memchr(name, '\r', name_len) != NULL
		|| memchr(name, '\n', name_len) != NULL)
		return -1;
	char *copy = malloc(name_len + 1);
	if (copy == NULL)
		return -2;
	memcpy(copy, name, name_len);
	copy[name_len] = '\0';
	out->checksum = checksum;
	out->name = copy;
	return 0;
}

/*
 * The scan below reads every character of the model once more after
 * load_model; the FILE is private to ik_trailer_read, so the unlocked
 * getc (POSIX) is safe and makes that pass cost far less than parsing.
 */

/* Skips white space; returns the first other character (consumed), or EOF. */
static int skip_space(FILE *fp)
{
	int c;
	do
		c = getc_unlocked(fp);
	while (c != EOF && isspace(c));
	return c;
}

/*
 * Skips one token whose first character c was already read; when word is
 * not NULL, returns whether the token equals it as a C string, the way
 * load_model compares the keywords it reads (strcmp): a NUL byte ends the
 * comparison, so the token "w\0x" is "w" to both.
 */
static int skip_rest_of_token(FILE *fp, int c, const char *word)
{
	size_t n = 0;
	int same = word != NULL, ended = 0;
	for (; c != EOF && !isspace(c); c = getc_unlocked(fp)) {
		if (!same || ended)
			continue;
		if (c == '\0')
			ended = 1;
		else if (word[n] != '\0' && word[n] == c)
			n++;
		else
			same = 0;
	}
	return same && word[n] == '\0';
}

/*
 * Positions fp just after the last weight: the header's tokens up to "w",
 * then nr_weights tokens (as load_model reads them). 0, or -1 when the
 * file ends first (load_model would have refused it).
 */
static int skip_weights(FILE *fp, uint64_t nr_weights)
{
	for (;;) {
		int c = skip_space(fp);
		if (c == EOF)
			return -1;
		if (skip_rest_of_token(fp, c, "w"))
			break;
	}
	for (uint64_t i = 0; i < nr_weights; i++) {
		int c = skip_space(fp);
		if (c == EOF)
			return -1;
		skip_rest_of_token(fp, c, NULL);
	}
	return 0;
}

/* Whether the line's first word is a nonempty prefix of the key, or it starts with the key. */
static int looks_like_trailer(const char *line, size_t len)
{
	const size_t key_len = sizeof IK_TRAILER_KEY - 1;
	size_t word = 0;
	while (word < len && !isspace((unsigned char)line[word]))
		word++;
	if (word <= key_len)
		return memcmp(line, IK_TRAILER_KEY, word) == 0;
	return memcmp(line, IK_TRAILER_KEY, key_len) == 0;
}

/* The longest trailer line read: the key, the checksum and a long path. */
#define TRAILER_LINE_MAX (sizeof IK_TRAILER_KEY + CHECKSUM_DIGITS + 2 + 65536)

/*
 * Reads the rest of the line that starts with c into line (at most
 * TRAILER_LINE_MAX bytes, without its "\n"). Returns its length, or
 * TRAILER_LINE_MAX + 1 when it is longer (the rest stays unread).
 */
static size_t read_line(FILE *fp, int c, char *line)
{
	size_t n = 0;
	for (; c != EOF && c != '\n'; c = getc_unlocked(fp)) {
		if (n == TRAILER_LINE_MAX)
			return TRAILER_LINE_MAX + 1;
		line[n++] = (char)c;
	}
	return n;
}

enum tail { TAIL_PLAIN, TAIL_TRAILER, TAIL_CUT, TAIL_EXTRA, TAIL_NO_MEMORY };

/* Reads what follows the weights (see ik_trailer.h). */
static enum tail read_tail(FILE *fp, struct ik_trailer *out)
{
	int c = skip_space(fp);
	if (c == EOF)
		return TAIL_PLAIN;
	char *line = malloc(TRAILER_LINE_MAX + 1);
	if (line == NULL)
		return TAIL_NO_MEMORY;
	size_t len = read_line(fp, c, line);
	enum tail tail = TAIL_TRAILER;
	if (len <= TRAILER_LINE_MAX && !looks_like_trailer(line, len))
		tail = TAIL_PLAIN;	/* other text after the weights: ignored, as upstream does */
	else if (len > TRAILER_LINE_MAX)
		tail = TAIL_CUT;
	else {
		int rc = ik_trailer_parse(line, len, out);
		tail = rc == -2 ? TAIL_NO_MEMORY : rc != 0 ? TAIL_CUT : TAIL_TRAILER;
	}
	free(line);
	if (tail == TAIL_TRAILER && skip_space(fp) != EOF) {
		ik_trailer_free(out);
		tail = TAIL_EXTRA;
	}
	return tail;
}

int ik_trailer_read(const char *model_file, uint64_t nr_weights, struct ik_trailer *out,
	struct lik_error *err)
{
	out->name = NULL;
	FILE *fp = regular_file_fopen_read(model_file);
	if (fp == NULL) {
		lik_fail(err, LIK_EIO, "cannot read model file %s: %s", model_file,
			errno == EINVAL ? "not a regular file" : strerror(errno));
		return -1;
	}
	enum tail tail = TAIL_PLAIN;
	int failed = skip_weights(fp, nr_weights) != 0;
	if (!failed)
		tail = read_tail(fp, out);
	failed = failed || ferror(fp);
	fclose(fp);
	if (failed) {
		ik_trailer_free(out);
		lik_fail(err, LIK_EMODEL, "cannot read model file %s (cut short?)", model_file);
		return -1;
	}
	switch (tail) {
	case TAIL_PLAIN:
		return 0;
	case TAIL_TRAILER:
		return 1;
	case TAIL_CUT:
		lik_fail(err, LIK_EMODEL, "model file %s: malformed or cut short " IK_TRAILER_KEY
			" line (a -k model needs its whole trailer)", model_file);
		return -1;
	case TAIL_EXTRA:
		lik_fail(err, LIK_EMODEL, "model file %s: text after the " IK_TRAILER_KEY " line",
			model_file);
		return -1;
	case TAIL_NO_MEMORY:
		break;
	}
	lik_fail(err, LIK_ENOMEM, "out of memory");
	return -1;
}

void ik_trailer_free(struct ik_trailer *t)
{
	free(t->name);
	t->name = NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

char *ik_trailer_default_name(const char *model_file)
{
	const char *base = base_name(model_file);
	size_t len = strlen(base);
	char *name = malloc(len + sizeof ".ik");
	if (name == NULL)
		return NULL;
	memcpy(name, base, len);
	memcpy(name + len, ".ik", sizeof ".ik");
	return name;
}

char *ik_trailer_resolve(const char *model_file, const char *name)
{
	size_t dir_len = name[0] == '/' ? 0 : (size_t)(base_name(model_file) - model_file);
	size_t name_len = strlen(name);
	char *path = malloc(dir_len + name_len + 1);
	if (path == NULL)
		return NULL;
	memcpy(path, model_file, dir_len);
	memcpy(path + dir_len, name, name_len + 1);
	return path;
}
