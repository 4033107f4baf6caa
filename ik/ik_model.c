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
#include "atomic_file.h"
#include "ik_model.h"
#include "ik_trailer.h"
#include "lik_internal.h"
#include "model_shape.h"
#include "model_stream.h"

/*
 * dir(MODEL)/basename(MODEL).ik, with *name = basename(MODEL).ik (what
 * the trailer says); NULL (and *name NULL or to be freed) when out of memory.
 */
static char *default_ik_path(const char *model_file, char **name)
{
	*name = ik_trailer_default_name(model_file);
	return *name != NULL ? ik_trailer_resolve(model_file, *name) : NULL;
}

/*
 * Refuses, before anything is written, an output path that is not a
 * regular file or a new name. 0, or -1 after a message.
 */
static int check_output(const char *path, const char *what, struct lik_error *err)
{
	if (atomic_file_check_target(path, 0) == 0)
		return 0;
	lik_fail(err, LIK_EIO, "cannot write %s %s: %s", what, path, atomic_file_strerror(errno));
	return -1;
}

int ik_model_check_outputs(const char *model_file, struct lik_error *err)
{
	char *name;
	char *ik_path = default_ik_path(model_file, &name);
	int status = -1;
	if (ik_path == NULL)
		lik_fail(err, LIK_ENOMEM, "out of memory");
	else if (strpbrk(name, "\r\n") != NULL)
		lik_fail(err, LIK_EINVAL, "with -k the model file name cannot contain a line break");
	else if (check_output(model_file, "model file", err) == 0
		&& check_output(ik_path, "partitioning file", err) == 0)
		status = 0;
	free(name);
	free(ik_path);
	return status;
}

/* Writes both files under temporary names (nothing renamed yet). 0, or -1 after a message. */
static int write_both(struct atomic_file *ik, struct atomic_file *model, const char *ik_path,
	const char *name, const char *model_file, const struct model *m, const struct ikmap *map,
	struct lik_error *err)
{
	char why[IKMAP_ERR_SIZE];
	if (ikmap_write(map, ik->fp, why) != 0) {
		lik_fail(err, LIK_EIO, "cannot save partitioning file %s: %s", ik_path, why);
		return -1;
	}
	if (save_model_stream(model->fp, m) != 0
		|| ik_trailer_write(model->fp, ikmap_checksum(map), name) != 0) {
		lik_fail(err, LIK_EIO, "can't save model to file %s", model_file);
		return -1;
	}
	return 0;
}

/* Commits the .ik, then the model; on failure neither temporary file stays. */
static int commit_both(struct atomic_file *ik, struct atomic_file *model, const char *ik_path,
	const char *model_file, struct lik_error *err)
{
	/* Checked again here so a target that changed kind fails before either rename. */
	if (check_output(model_file, "model file", err) != 0
		|| check_output(ik_path, "partitioning file", err) != 0) {
		atomic_file_abort(ik);
		atomic_file_abort(model);
		return -1;
	}
	if (atomic_file_commit(ik) != 0) {
		lik_fail(err, LIK_EIO, "cannot save partitioning file %s: %s", ik_path,
			atomic_file_strerror(errno));
		atomic_file_abort(model);
		return -1;
	}
	if (atomic_file_commit(model) != 0) {
		lik_fail(err, LIK_EIO, "can't save model to file %s: %s", model_file,
			atomic_file_strerror(errno));
		return -1;
	}
	return 0;
}

int ik_model_save(const char *model_file, const struct model *m, const struct ikmap *map,
	struct lik_error *err)
{
	if (ik_model_check_outputs(model_file, err) != 0)
		return -1;
	char *name;
	char *ik_path = default_ik_path(model_file, &name);
	if (ik_path == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		free(name);
		return -1;
	}
	struct atomic_file ik, model;
	int status = -1;
	if (atomic_file_open(&ik, ik_path, 0) != 0) {
		lik_fail(err, LIK_EIO, "cannot save partitioning file %s: %s", ik_path,
			atomic_file_strerror(errno));
	} else if (atomic_file_open(&model, model_file, 0) != 0) {
		lik_fail(err, LIK_EIO, "can't save model to file %s: %s", model_file,
			atomic_file_strerror(errno));
		atomic_file_abort(&ik);
	} else if (write_both(&ik, &model, ik_path, name, model_file, m, map, err) != 0) {
		atomic_file_abort(&ik);
		atomic_file_abort(&model);
	} else {
		status = commit_both(&ik, &model, ik_path, model_file, err);
	}
	free(name);
	free(ik_path);
	return status;
}

/*
 * A map file that cannot be opened or read is LIK_EIO; one that is there
 * but damaged, LIK_EMODEL (out of memory, LIK_ENOMEM).
 */
static int map_load_code(const char *path, const char *why)
{
	struct stat st;
	if (strcmp(why, "out of memory") == 0)
		return LIK_ENOMEM;
	return stat(path, &st) != 0 ? LIK_EIO : LIK_EMODEL;
}

/* Loads and checks the partitioning a trailer names; NULL with err set. */
static struct ikmap *load_named_map(const char *model_file, const struct model *m,
	const struct ik_trailer *trailer, struct lik_error *err)
{
	char *path = ik_trailer_resolve(model_file, trailer->name);
	if (path == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	char why[IKMAP_ERR_SIZE];
	struct ikmap *map = ikmap_load(path, why);
	if (map == NULL) {
		lik_fail(err, map_load_code(path, why), "model %s needs its partitioning file %s: %s",
			model_file, path, why);
	} else if (ikmap_checksum(map) != trailer->checksum) {
		lik_fail(err, LIK_EMODEL, "partitioning file %s is not the one model %s was trained with"
			" (checksum %016" PRIx64 ", the model names %016" PRIx64 ")",
			path, model_file, ikmap_checksum(map), trailer->checksum);
		ikmap_free(map);
		map = NULL;
	} else if (ikmap_columns(map) != m->nr_feature) {
		lik_fail(err, LIK_EMODEL, "model %s has nr_feature %d but its partitioning file %s"
			" has t*psi = %d*%d%s columns", model_file, m->nr_feature, path,
			ikmap_t(map), ikmap_psi(map), ikmap_raw_columns(map) > 0 ? " + d" : "");
		ikmap_free(map);
		map = NULL;
	}
	free(path);
	return map;
}

/*
 * A model without a trailer, but with a partitioning file beside it under
 * the name train -k gives it and of t*psi (+ d with a raw part) = nr_feature, is a -k model
 * whose trailer was lost (a file cut short, a careless edit): refused,
 * never predicted as a plain model. 0, or -1 after a message.
 */
static int refuse_lost_trailer(const char *model_file, const struct model *m,
	struct lik_error *err)
{
	char *name;
	char *path = default_ik_path(model_file, &name);
	int status = 0, t, psi;
	int64_t columns;
	if (path == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		status = -1;
	} else if (ikmap_peek(path, &t, &psi, NULL) == 0
			&& ikmap_peek_columns(path, &columns, NULL) == 0 && columns == m->nr_feature) {
		/* columns - t*psi: the raw features' d, 0 without them */
		int64_t raw = columns - (int64_t)t * psi;
		char with_raw[48] = "";
		if (raw > 0)
			snprintf(with_raw, sizeof with_raw, " + d = %" PRId64, raw);
		lik_fail(err, LIK_EMODEL, "model file %s has no " IK_TRAILER_KEY " line (the trailer is"
			" missing: was the file cut short?), but the partitioning file %s beside it"
			" fits it (t*psi = %d*%d%s = nr_feature); refusing to predict with it as a"
			" plain linear model", model_file, path, t, psi, with_raw);
		status = -1;
	}
	free(name);
	free(path);
	return status;
}

int ik_model_load_map(const char *model_file, const struct model *m, struct ikmap **map,
	struct lik_error *err)
{
	*map = NULL;
	struct ik_trailer trailer;
	int found = ik_trailer_read(model_file, (uint64_t)model_w_size(m) * (uint64_t)model_nr_w(m),
		&trailer, err);
	if (found < 0)
		return -1;
	if (found == 0)
		return refuse_lost_trailer(model_file, m, err);
	*map = load_named_map(model_file, m, &trailer, err);
	ik_trailer_free(&trailer);
	return *map != NULL ? 0 : -1;
}

void ik_model_remove_stale(const char *model_file)
{
	char *name;
	char *path = default_ik_path(model_file, &name);
	int t, psi;
	if (path != NULL && ikmap_peek(path, &t, &psi, NULL) == 0)
		unlink(path);
	free(name);
	free(path);
}
