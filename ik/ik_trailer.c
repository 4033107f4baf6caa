/*
 * ik_trailer.c - writing, parsing and finding the model trailer, and the
 * names it uses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "ik_trailer.h"

#define CHECKSUM_DIGITS 16
#define TAIL_CHUNK 4096

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
 * Finds where the last line of fp starts and ends (end excludes a final
 * "\n"), reading backwards in chunks, so a large model costs one seek.
 * 0, or -1 on a read error.
 */
static int find_last_line(FILE *fp, off_t *start, off_t *end)
{
	if (fseeko(fp, 0, SEEK_END) != 0)
		return -1;
	off_t size = ftello(fp);
	if (size < 0)
		return -1;
	*end = size;
	*start = 0;
	char chunk[TAIL_CHUNK];
	off_t pos = size;
	int skip_final_newline = 1;
	while (pos > 0) {
		size_t n = pos < TAIL_CHUNK ? (size_t)pos : TAIL_CHUNK;
		pos -= (off_t)n;
		if (fseeko(fp, pos, SEEK_SET) != 0 || fread(chunk, 1, n, fp) != n)
			return -1;
		for (size_t i = n; i-- > 0;) {
			if (chunk[i] != '\n')
				continue;
			if (skip_final_newline && pos + (off_t)i == size - 1) {
				*end = size - 1;
				continue;
			}
			*start = pos + (off_t)i + 1;
			return 0;
		}
		skip_final_newline = 0;
	}
	return 0;
}

static int read_range(FILE *fp, off_t start, off_t end, char **text)
{
	size_t len = (size_t)(end - start);
	char *buf = malloc(len + 1);
	if (buf == NULL)
		return -1;
	if (fseeko(fp, start, SEEK_SET) != 0 || fread(buf, 1, len, fp) != len) {
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/*
 * The last line of fp when it starts with the key, else *line = NULL. Only
 * the first bytes of another last line are read, however long it is.
 * 0, or -1 on a read error or when out of memory.
 */
static int read_trailer_line(FILE *fp, char **line, size_t *len)
{
	const size_t key_len = sizeof IK_TRAILER_KEY - 1;
	off_t start, end;
	char *head;
	*line = NULL;
	if (find_last_line(fp, &start, &end) != 0)
		return -1;
	if (end - start < (off_t)key_len)
		return 0;
	if (read_range(fp, start, start + (off_t)key_len, &head) != 0)
		return -1;
	int is_trailer = memcmp(head, IK_TRAILER_KEY, key_len) == 0;
	free(head);
	if (!is_trailer)
		return 0;
	*len = (size_t)(end - start);
	return read_range(fp, start, end, line);
}

int ik_trailer_read(const char *model_file, struct ik_trailer *out)
{
	FILE *fp = fopen(model_file, "rb");
	if (fp == NULL) {
		fprintf(stderr, "ERROR: cannot read model file %s: %s\n", model_file, strerror(errno));
		return -1;
	}
	char *line;
	size_t len;
	int rc = read_trailer_line(fp, &line, &len);
	fclose(fp);
	if (rc != 0) {
		fprintf(stderr, "ERROR: cannot read model file %s\n", model_file);
		return -1;
	}
	if (line == NULL)
		return 0;
	rc = ik_trailer_parse(line, len, out);
	free(line);
	if (rc == -2)
		fprintf(stderr, "ERROR: out of memory\n");
	else if (rc != 0)
		fprintf(stderr, "ERROR: model file %s: malformed " IK_TRAILER_KEY " line\n", model_file);
	return rc == 0 ? 1 : -1;
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
