/*
 * ik_model.c - saving and loading a -k model with its partitioning file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ik_model.h"
#include "ik_trailer.h"

/* The first bytes of every partitioning file (see ikmap_file.c, "magic"). */
static const char partitioning_magic[8] = { 'I', 'K', 'M', 'A', 'P', '\r', '\n', 0x1a };

/* A new empty file path.XXXXXX with the mode fopen would give; its name, or NULL. */
static char *create_temp(const char *path)
{
	size_t len = strlen(path);
	char *temp = malloc(len + sizeof ".XXXXXX");
	if (temp == NULL)
		return NULL;
	memcpy(temp, path, len);
	memcpy(temp + len, ".XXXXXX", sizeof ".XXXXXX");
	int fd = mkstemp(temp);
	if (fd < 0) {
		free(temp);
		return NULL;
	}
	mode_t mask = umask(0);
	umask(mask);
	int failed = fchmod(fd, 0666 & ~mask) != 0;
	failed |= close(fd) != 0;
	if (failed) {
		unlink(temp);
		free(temp);
		return NULL;
	}
	return temp;
}

/* Appends the trailer to a complete model file and syncs it. 0 or -1. */
static int append_trailer(const char *path, uint64_t checksum, const char *name)
{
	FILE *fp = fopen(path, "a");
	if (fp == NULL)
		return -1;
	int status = ik_trailer_write(fp, checksum, name);
	if (fflush(fp) != 0 || ferror(fp))
		status = -1;
	if (status == 0 && fsync(fileno(fp)) != 0)
		status = -1;
	if (fclose(fp) != 0)
		status = -1;
	return status;
}

/* The paths of one save; temporary ones are NULL until created. */
struct save_paths {
	char *name;		/* the .ik file's name, as the trailer says it */
	char *ik_path;
	char *ik_temp;
	char *model_temp;
};

static void save_paths_free(struct save_paths *p)
{
	if (p->ik_temp != NULL)
		unlink(p->ik_temp);
	if (p->model_temp != NULL)
		unlink(p->model_temp);
	free(p->name);
	free(p->ik_path);
	free(p->ik_temp);
	free(p->model_temp);
}

/* Writes both files under temporary names. 0, or -1 after a message. */
static int write_temps(struct save_paths *p, const char *model_file, const struct model *m,
	const struct ikmap *map)
{
	char err[IKMAP_ERR_SIZE];
	p->ik_temp = create_temp(p->ik_path);
	if (p->ik_temp == NULL || ikmap_save(map, p->ik_temp, err) != 0) {
		fprintf(stderr, "ERROR: cannot save partitioning file %s: %s\n", p->ik_path,
			p->ik_temp == NULL ? strerror(errno) : err);
		return -1;
	}
	p->model_temp = create_temp(model_file);
	if (p->model_temp == NULL || save_model(p->model_temp, m) != 0
		|| append_trailer(p->model_temp, ikmap_checksum(map), p->name) != 0) {
		fprintf(stderr, "can't save model to file %s\n", model_file);
		return -1;
	}
	return 0;
}

int ik_model_save(const char *model_file, const struct model *m, const struct ikmap *map)
{
	struct save_paths p = {0};
	p.name = ik_trailer_default_name(model_file);
	p.ik_path = p.name != NULL ? ik_trailer_resolve(model_file, p.name) : NULL;
	if (p.ik_path == NULL) {
		fprintf(stderr, "ERROR: out of memory\n");
		save_paths_free(&p);
		return -1;
	}
	if (strpbrk(p.name, "\r\n") != NULL) {
		fprintf(stderr, "ERROR: with -k the model file name cannot contain a line break\n");
		save_paths_free(&p);
		return -1;
	}
	int status = write_temps(&p, model_file, m, map);
	if (status == 0 && rename(p.ik_temp, p.ik_path) != 0) {
		fprintf(stderr, "ERROR: cannot save partitioning file %s: %s\n", p.ik_path, strerror(errno));
		status = -1;
	}
	if (status == 0) {
		free(p.ik_temp);
		p.ik_temp = NULL;	/* renamed: nothing to remove */
		if (rename(p.model_temp, model_file) != 0) {
			fprintf(stderr, "can't save model to file %s\n", model_file);
			status = -1;
		} else {
			free(p.model_temp);
			p.model_temp = NULL;
		}
	}
	save_paths_free(&p);
	return status;
}

/* Loads and checks the partitioning a trailer names; NULL after a message. */
static struct ikmap *load_named_map(const char *model_file, const struct model *m,
	const struct ik_trailer *trailer)
{
	char *path = ik_trailer_resolve(model_file, trailer->name);
	if (path == NULL) {
		fprintf(stderr, "ERROR: out of memory\n");
		return NULL;
	}
	char err[IKMAP_ERR_SIZE];
	struct ikmap *map = ikmap_load(path, err);
	if (map == NULL) {
		fprintf(stderr, "ERROR: model %s needs its partitioning file %s: %s\n",
			model_file, path, err);
	} else if (ikmap_checksum(map) != trailer->checksum) {
		fprintf(stderr, "ERROR: partitioning file %s is not the one model %s was trained with"
			" (checksum %016" PRIx64 ", the model names %016" PRIx64 ")\n",
			path, model_file, ikmap_checksum(map), trailer->checksum);
		ikmap_free(map);
		map = NULL;
	} else if ((int64_t)ikmap_t(map) * ikmap_psi(map) != m->nr_feature) {
		fprintf(stderr, "ERROR: model %s has nr_feature %d but its partitioning file %s"
			" has t*psi = %d*%d\n", model_file, m->nr_feature, path,
			ikmap_t(map), ikmap_psi(map));
		ikmap_free(map);
		map = NULL;
	}
	free(path);
	return map;
}

int ik_model_load_map(const char *model_file, const struct model *m, struct ikmap **map)
{
	*map = NULL;
	struct ik_trailer trailer;
	int found = ik_trailer_read(model_file, &trailer);
	if (found <= 0)
		return found;
	*map = load_named_map(model_file, m, &trailer);
	ik_trailer_free(&trailer);
	return *map != NULL ? 0 : -1;
}

static int is_partitioning_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (fp == NULL)
		return 0;
	char head[sizeof partitioning_magic];
	int yes = fread(head, 1, sizeof head, fp) == sizeof head
		&& memcmp(head, partitioning_magic, sizeof head) == 0;
	fclose(fp);
	return yes;
}

void ik_model_remove_stale(const char *model_file)
{
	char *name = ik_trailer_default_name(model_file);
	char *path = name != NULL ? ik_trailer_resolve(model_file, name) : NULL;
	if (path != NULL && is_partitioning_file(path))
		unlink(path);
	free(name);
	free(path);
}
