/*
 * lik_model.c - models of the kernel's C API (liblinear_ik.h): the handle,
 * its accessors, the pair on disk (ik_model.h) and as bytes.
 *
 * The bytes of a model (lik_model_to_bytes), all numbers little-endian:
 *   "LIKPAIR" and a NUL (8 bytes), u32 format version (1), u32 1 when a
 *   map follows (else 0), u64 the map's checksum (0 without a map),
 *   u64 length and the model's text (exactly what save_model writes),
 *   u64 length and the map's bytes (exactly its .ik file; length 0
 *   without a map).
 * Reading checks the lengths against the size before anything else, then
 * the model text as load_model does (nothing but white space may follow
 * its weights), the map as ikmap_load does (its own checksum), the
 * checksum the header names and t*psi = nr_feature.
 */
#include <stdlib.h>
#include <string.h>
#include "ik_model.h"
#include "lik_internal.h"
#include "model_shape.h"
#include "model_stream.h"

static const unsigned char bytes_magic[8] = { 'L', 'I', 'K', 'P', 'A', 'I', 'R', 0 };
#define BYTES_VERSION 1
#define BYTES_HEADER (8 + 4 + 4 + 8)

struct lik_model *lik_model_wrap(struct model *linear, struct lik_map *map, struct lik_error *err)
{
	struct lik_model *model = malloc(sizeof *model);
	if (model == NULL) {
		free_and_destroy_model(&linear);
		lik_map_free(&map);
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	/*
	 * train() leaves the caller's weight arrays in param (upstream does);
	 * the model does not own them and never needs them, so it forgets
	 * them, as a loaded model has none.
	 */
	linear->param.nr_weight = 0;
	linear->param.weight_label = NULL;
	linear->param.weight = NULL;
	linear->param.init_sol = NULL;
	model->linear = linear;
	model->map = map;
	return model;
}

void lik_model_free(struct lik_model **model)
{
	if (model == NULL || *model == NULL)
		return;
	free_and_destroy_model(&(*model)->linear);
	lik_map_free(&(*model)->map);
	free(*model);
	*model = NULL;
}

/* A copy of linear's model with its own w and label. NULL when out of memory. */
static struct model *copy_linear(const struct model *linear)
{
	struct model *copy = calloc(1, sizeof *copy);
	if (copy == NULL)
		return NULL;
	*copy = *linear;
	copy->w = NULL;
	copy->label = NULL;
	size_t weights = model_w_size(linear) * (size_t)model_nr_w(linear);
	copy->w = malloc((weights > 0 ? weights : 1) * sizeof *copy->w);
	if (copy->w == NULL) {
		free(copy);
		return NULL;
	}
	memcpy(copy->w, linear->w, weights * sizeof *copy->w);
	if (linear->label != NULL && linear->nr_class > 0) {
		copy->label = malloc((size_t)linear->nr_class * sizeof *copy->label);
		if (copy->label == NULL) {
			free_and_destroy_model(&copy);
			return NULL;
		}
		memcpy(copy->label, linear->label, (size_t)linear->nr_class * sizeof *copy->label);
	}
	return copy;
}

struct lik_model *lik_model_assemble(const struct model *linear, const struct lik_map *map,
	struct lik_error *err)
{
	if (linear == NULL || linear->w == NULL || linear->nr_class < 1 || linear->nr_feature < 0) {
		lik_fail(err, LIK_EINVAL, "no model given (or one without weights)");
		return NULL;
	}
	if (map != NULL && lik_map_columns(map) != linear->nr_feature) {
		/* the raw columns named only where there are some: the message stays as before */
		if (lik_map_raw_weight(map) > 0)
			lik_fail(err, LIK_EMODEL, "the model has nr_feature %d but the map has"
				" t*psi + d = %d*%d + %d columns", linear->nr_feature, lik_map_t(map),
				lik_map_psi(map), lik_map_dim(map));
		else
			lik_fail(err, LIK_EMODEL, "the model has nr_feature %d but the map has t*psi = %d*%d",
				linear->nr_feature, lik_map_t(map), lik_map_psi(map));
		return NULL;
	}
	struct model *copy = copy_linear(linear);
	if (copy == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	struct lik_model *model = lik_model_wrap(copy, map != NULL ? lik_map_share(map) : NULL, err);
	if (model != NULL)
		lik_ok(err);
	return model;
}

const struct model *lik_model_linear(const struct lik_model *model)
{
	return model->linear;
}

const struct lik_map *lik_model_map(const struct lik_model *model)
{
	return model->map;
}

int lik_model_nr_class(const struct lik_model *model)
{
	return get_nr_class(model->linear);
}

int lik_model_nr_feature(const struct lik_model *model)
{
	return get_nr_feature(model->linear);
}

void lik_model_labels(const struct lik_model *model, int *labels)
{
	get_labels(model->linear, labels);
}

int lik_model_is_probability(const struct lik_model *model)
{
	return check_probability_model(model->linear);
}

int lik_model_is_regression(const struct lik_model *model)
{
	return check_regression_model(model->linear);
}

int lik_model_is_oneclass(const struct lik_model *model)
{
	return check_oneclass_model(model->linear);
}

int lik_model_save(const char *model_file, const struct lik_model *model, struct lik_error *err)
{
	if (model_file == NULL || model == NULL) {
		lik_fail(err, LIK_EINVAL, "no model or file name given");
		return -1;
	}
	struct lik_capture capture;
	lik_capture_begin(&capture);
	int status;
	if (model->map != NULL) {
		status = ik_model_save(model_file, model->linear, model->map->map, err);
	} else {
		status = save_model(model_file, model->linear);
		if (status != 0)
			lik_fail(err, LIK_EIO, "can't save model to file %s", model_file);
		else
			ik_model_remove_stale(model_file);
	}
	lik_capture_end(&capture);
	if (status == 0)
		lik_ok(err);
	return status;
}

struct lik_model *lik_model_load_detailed(const char *model_file, char *model_line,
	struct lik_error *err)
{
	if (model_line != NULL)
		model_line[0] = '\0';
	if (model_file == NULL) {
		lik_fail(err, LIK_EINVAL, "no file name given");
		return NULL;
	}
	struct lik_capture capture;
	lik_capture_begin(&capture);
	struct model *linear = load_model(model_file);
	lik_capture_end(&capture);
	if (linear == NULL) {
		/* load_model says nothing when the file cannot be opened */
		if (capture.line[0] == '\0') {
			lik_fail(err, LIK_EIO, "can't open model file %s", model_file);
			return NULL;
		}
		if (model_line != NULL)
			snprintf(model_line, LIK_MESSAGE_SIZE, "%s", capture.line);
		lik_fail_captured(err, strstr(capture.line, "out of memory") != NULL ? LIK_ENOMEM
			: LIK_EMODEL, &capture, "");
		return NULL;
	}
	struct ikmap *map;
	if (ik_model_load_map(model_file, linear, &map, err) != 0) {
		free_and_destroy_model(&linear);
		return NULL;
	}
	struct lik_map *shared = NULL;
	if (map != NULL && (shared = lik_map_wrap(map, err)) == NULL) {
		free_and_destroy_model(&linear);
		return NULL;
	}
	struct lik_model *model = lik_model_wrap(linear, shared, err);
	if (model != NULL)
		lik_ok(err);
	return model;
}

struct lik_model *lik_model_load(const char *model_file, struct lik_error *err)
{
	return lik_model_load_detailed(model_file, NULL, err);
}

/* ---- bytes ---- */

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* save_model's text of linear, allocated. 0, or -1 with err set. */
static int model_text(const struct model *linear, char **text, size_t *size, struct lik_error *err)
{
	*text = NULL;
	*size = 0;
	FILE *fp = open_memstream(text, size);
	if (fp == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	struct lik_capture capture;
	lik_capture_begin(&capture);
	int failed = save_model_stream(fp, linear) != 0;
	lik_capture_end(&capture);
	failed = fclose(fp) != 0 || failed;
	if (failed) {
		lik_fail_captured(err, LIK_ENOMEM, &capture, "out of memory");
		free(*text);
		*text = NULL;
		return -1;
	}
	return 0;
}

int lik_model_to_bytes(const struct lik_model *model, unsigned char **bytes, size_t *size,
	struct lik_error *err)
{
	if (model == NULL || bytes == NULL || size == NULL) {
		lik_fail(err, LIK_EINVAL, "no model or output given");
		return -1;
	}
	char *text;
	size_t text_size;
	if (model_text(model->linear, &text, &text_size, err) != 0)
		return -1;
	unsigned char *map_bytes = NULL;
	size_t map_size = 0;
	if (model->map != NULL && lik_map_to_bytes(model->map, &map_bytes, &map_size, err) != 0) {
		free(text);
		return -1;
	}
	size_t total = BYTES_HEADER + 8 + text_size + 8 + map_size;
	unsigned char *out = malloc(total);
	if (out == NULL) {
		free(text);
		free(map_bytes);
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return -1;
	}
	unsigned char *at = out;
	memcpy(at, bytes_magic, sizeof bytes_magic);
	put_u32(at + 8, BYTES_VERSION);
	put_u32(at + 12, model->map != NULL);
	put_u64(at + 16, model->map != NULL ? lik_map_checksum(model->map) : 0);
	at += BYTES_HEADER;
	put_u64(at, text_size);
	memcpy(at + 8, text, text_size);
	at += 8 + text_size;
	put_u64(at, map_size);
	if (map_size > 0)
		memcpy(at + 8, map_bytes, map_size);
	free(text);
	free(map_bytes);
	*bytes = out;
	*size = total;
	lik_ok(err);
	return 0;
}

/* The model of text[0..size-1], which must end after its weights. NULL with err set. */
static struct model *model_of_text(const unsigned char *text, size_t size, struct lik_error *err)
{
	FILE *fp = fmemopen((void *)text, size, "r");
	if (fp == NULL) {
		lik_fail(err, LIK_ENOMEM, "out of memory");
		return NULL;
	}
	struct lik_capture capture;
	lik_capture_begin(&capture);
	struct model *linear = load_model_stream(fp);
	lik_capture_end(&capture);
	int c = ' ';
	if (linear != NULL)
		while ((c = getc(fp)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
			;
	fclose(fp);
	if (linear == NULL) {
		const char *why = capture.line[0] != '\0' ? capture.line : "the model cannot be read";
		if (strncmp(why, "ERROR: ", 7) == 0)
			why += 7;
		lik_fail(err, strstr(why, "out of memory") != NULL ? LIK_ENOMEM : LIK_EMODEL,
			"model bytes: %s", why);
		return NULL;
	}
	if (c != EOF) {
		free_and_destroy_model(&linear);
		lik_fail(err, LIK_EMODEL, "model bytes: text after the model's weights");
		return NULL;
	}
	return linear;
}

struct lik_model *lik_model_from_bytes(const void *bytes, size_t size, struct lik_error *err)
{
	const unsigned char *b = bytes;
	if (b == NULL || size < BYTES_HEADER + 16 || memcmp(b, bytes_magic, sizeof bytes_magic) != 0) {
		lik_fail(err, LIK_EMODEL, "model bytes: not a LIBLINEAR-IK model (too short or no LIKPAIR header)");
		return NULL;
	}
	uint32_t version = get_u32(b + 8), has_map = get_u32(b + 12);
	uint64_t checksum = get_u64(b + 16);
	if (version != BYTES_VERSION || has_map > 1) {
		lik_fail(err, LIK_EMODEL, "model bytes: unsupported format version %u", version);
		return NULL;
	}
	uint64_t rest = size - BYTES_HEADER;
	uint64_t text_size = get_u64(b + BYTES_HEADER);
	if (text_size < 1 || text_size > rest - 16) {
		lik_fail(err, LIK_EMODEL, "model bytes: wrong length (truncated or damaged)");
		return NULL;
	}
	const unsigned char *text = b + BYTES_HEADER + 8;
	uint64_t map_size = get_u64(text + text_size);
	if (map_size != rest - 16 - text_size || (map_size > 0) != (has_map == 1)) {
		lik_fail(err, LIK_EMODEL, "model bytes: wrong length (truncated or damaged)");
		return NULL;
	}
	struct model *linear = model_of_text(text, (size_t)text_size, err);
	if (linear == NULL)
		return NULL;
	struct lik_map *map = NULL;
	if (has_map) {
		map = lik_map_from_bytes(text + text_size + 8, (size_t)map_size, err);
		const char *why = NULL;
		if (map != NULL && lik_map_checksum(map) != checksum)
			why = "model bytes: the map is not the one the model was trained with (checksum)";
		else if (map != NULL && lik_map_columns(map) != linear->nr_feature)
			why = "model bytes: the model's nr_feature is not the map's columns";
		if (why != NULL) {
			lik_map_free(&map);
			lik_fail(err, LIK_EMODEL, "%s", why);
		}
		if (map == NULL) {
			free_and_destroy_model(&linear);
			return NULL;
		}
	}
	struct lik_model *model = lik_model_wrap(linear, map, err);
	if (model != NULL)
		lik_ok(err);
	return model;
}
