/* libsvm_rows.c - see libsvm_rows.h. Two passes: count, then parse. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libsvm_rows.h"

static void die(const char *path, const char *what)
{
	fprintf(stderr, "%s: %s\n", path, what);
	exit(1);
}

static void *checked_malloc(const char *path, size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	if (!p)
		die(path, "out of memory");
	return p;
}

void libsvm_rows_read(const char *path, struct libsvm_rows *d)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die(path, strerror(errno));
	size_t lines = 0, pairs = 0;
	int c;
	while ((c = fgetc(f)) != EOF) {
		if (c == ':')
			pairs++;
		else if (c == '\n')
			lines++;
	}
	rewind(f);
	d->rows = checked_malloc(path, lines * sizeof *d->rows);
	d->labels = checked_malloc(path, lines * sizeof *d->labels);
	d->nodes = checked_malloc(path, (pairs + lines) * sizeof *d->nodes);
	d->dim = 0;
	d->count = 0;
	char *line = NULL;
	size_t cap = 0, next = 0;
	while (d->count < lines && getline(&line, &cap, f) != -1) {
		char *p = line, *end;
		double label = strtod(p, &end);
		if (end == p)
			continue;
		p = end;
		d->labels[d->count] = label;
		d->rows[d->count++] = &d->nodes[next];
		for (;;) {
			long index = strtol(p, &end, 10);
			if (end == p || *end != ':')
				break;
			d->nodes[next].index = (int)index;
			d->nodes[next].value = strtod(end + 1, &p);
			next++;
			if (index > d->dim)
				d->dim = (int)index;
		}
		d->nodes[next++].index = -1;
	}
	if (ferror(f))
		die(path, "read error");
	free(line);
	fclose(f);
}

void libsvm_rows_free(struct libsvm_rows *d)
{
	free(d->rows);
	free(d->nodes);
	free(d->labels);
}
