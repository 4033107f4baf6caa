/*
 * fuzz_predict_ik.c - libFuzzer target for predict on a -k pair: a model
 * file with its ik_partitioning trailer, its .ik file and a few data rows,
 * loaded and predicted through the kernel's C API as predict.c does it
 * (lik_model_load, then IK_BATCH_ROWS rows at a time read by ik_batch_next
 * and given to lik_predict_rows: labels, and probabilities for logistic
 * regression). A loaded model also goes to bytes and back
 * (lik_model_to_bytes / lik_model_from_bytes), which must give the same
 * bytes again.
 *
 * Input layout (tests/fuzz/README.md):
 *   MODEL TEXT  "\n==ik==\n"  .IK BYTES  "\n==rows==\n"  DATA ROWS
 * split at the first "\n==ik==\n" and the first "\n==rows==\n" after it;
 * a missing separator leaves the parts after it empty. Before writing the
 * files (scratch/model and scratch/model.ik) the target makes the input
 * reach past the integrity checks, as an attacker could:
 *  - the .ik's last 8 bytes become its right checksum (fuzz_common.h);
 *  - in the model text, the 16 characters after every "ik_partitioning "
 *    become that checksum in lowercase hex (when there are 16 left);
 *  - every '/' in the model text becomes '_', so that the trailer can only
 *    name files inside the scratch directory (model, model.ik or a name
 *    that does not exist) and the run is deterministic.
 * Invariants: a classification prediction is one of the model's labels
 * (0 for a model of no class),
 * a one-class prediction is +1 or -1, probabilities are in [0, 1], the
 * bytes round trip is exact, a loaded -k model has t*psi = nr_feature.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "ik_batch.h"
#include "ik_trailer.h"
#include "liblinear_ik.h"
#include "linear.h"
#include "reader.h"

static const char ik_separator[] = "\n==ik==\n";
static const char rows_separator[] = "\n==rows==\n";

struct part {
	const uint8_t *data;
	size_t size;
};

/* The first occurrence of needle in [data, data + size), or NULL. */
static const uint8_t *find(const uint8_t *data, size_t size, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= size; i++)
		if (memcmp(data + i, needle, n) == 0)
			return data + i;
	return NULL;
}

/* Splits the input into model text, .ik bytes and data rows. */
static void split(const uint8_t *data, size_t size, struct part parts[3])
{
	const uint8_t *end = data + size;
	const uint8_t *sep1 = find(data, size, ik_separator);
	parts[0] = (struct part){ data, sep1 ? (size_t)(sep1 - data) : size };
	parts[1] = parts[2] = (struct part){ end, 0 };
	if (sep1 == NULL)
		return;
	const uint8_t *ik = sep1 + strlen(ik_separator);
	const uint8_t *sep2 = find(ik, (size_t)(end - ik), rows_separator);
	parts[1] = (struct part){ ik, sep2 ? (size_t)(sep2 - ik) : (size_t)(end - ik) };
	if (sep2 != NULL) {
		const uint8_t *rows = sep2 + strlen(rows_separator);
		parts[2] = (struct part){ rows, (size_t)(end - rows) };
	}
}

/* The model text with the trailer's checksum set and no '/'. */
static unsigned char *prepare_model(const struct part *model, uint64_t checksum)
{
	unsigned char *text = fuzz_copy(model->data, model->size);
	size_t key_len = strlen(IK_TRAILER_KEY " ");
	char hex[17];
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)checksum);
	for (size_t i = 0; i + key_len + 16 <= model->size; i++)
		if (memcmp(text + i, IK_TRAILER_KEY " ", key_len) == 0)
			memcpy(text + i + key_len, hex, 16);
	for (size_t i = 0; i < model->size; i++)
		if (text[i] == '/')
			text[i] = '_';
	return text;
}

/*
 * Whether the model's map refuses negative values (an independent statement
 * of ikmap.h's rule): -S 4 takes log1p, and minmax needs non-negative data
 * unless -S 2 shifts it.
 */
static int refuses_negatives(const struct lik_model *model)
{
	const struct lik_map *map = lik_model_map(model);
	int scale = lik_map_scaled(map);
	return scale == 4 || (lik_map_kernel(map) == LIK_KERNEL_MINMAX && scale != 2);
}

/* Whether a row of the batch has a negative value at a feature the map reads. */
static int batch_has_negative(struct feature_node *const *rows, long count, int dim)
{
	for (long i = 0; i < count; i++)
		for (const struct feature_node *f = rows[i]; f->index != -1; f++)
			if (f->index <= dim && f->value < 0)
				return 1;
	return 0;
}

/* predict.c's predict_stream, with the invariants checked on each row. */
static void predict_rows(const struct lik_model *model, const struct part *rows)
{
	if (rows->size == 0)	/* fmemopen refuses 0 bytes before glibc 2.22 */
		return;
	const struct model *m = lik_model_linear(model);
	FILE *in = fmemopen((void *)rows->data, rows->size, "r");
	if (in == NULL)
		fuzz_give_up("fmemopen");
	struct libsvm_reader *r = libsvm_reader_from_stream(in, "fuzz rows");
	if (r == NULL)
		fuzz_give_up("libsvm_reader_from_stream");
	struct ik_batch batch;
	FUZZ_CHECK(ik_batch_init(&batch, IK_BATCH_ROWS, NULL) == 0);
	size_t slots = m->nr_class > 0 ? (size_t)m->nr_class : 1;
	double *labels = malloc(IK_BATCH_ROWS * sizeof *labels);
	double *prob_labels = malloc(IK_BATCH_ROWS * sizeof *prob_labels);
	double *prob = malloc(IK_BATCH_ROWS * slots * sizeof *prob);
	if (labels == NULL || prob_labels == NULL || prob == NULL)
		fuzz_give_up("malloc");
	long count;
	struct lik_error err;
	while ((count = ik_batch_next(&batch, r, NULL, 1, IKMAP_DEVICE_CPU)) > 0) {
		if (lik_predict_rows(model, batch.rows, (size_t)count, LIK_OUTPUT_LABEL, labels,
			NULL, LIK_DEVICE_CPU, 1, &err) != 0) {
			/* the one refusal a loaded model may make: a negative value its map cannot take */
			FUZZ_CHECK(err.code == LIK_EDATA && refuses_negatives(model)
				&& batch_has_negative(batch.rows, count, lik_map_dim(lik_model_map(model))));
			continue;
		}
		int probability = lik_model_is_probability(model);
		if (probability)
			FUZZ_CHECK(lik_predict_rows(model, batch.rows, (size_t)count, LIK_OUTPUT_PROBABILITY,
				prob_labels, prob, LIK_DEVICE_CPU, 1, &err) == 0);
		for (long i = 0; i < count; i++) {
			double y = labels[i];
			if (check_oneclass_model(m))
				FUZZ_CHECK(y == 1 || y == -1);
			else if (!check_regression_model(m))
				FUZZ_CHECK(fuzz_is_label(m, y));
			if (probability) {
				FUZZ_CHECK(fuzz_is_label(m, prob_labels[i]));
				for (int k = 0; k < m->nr_class; k++) {
					double p = prob[(size_t)i * slots + (size_t)k];
					FUZZ_CHECK(isnan(p) || (p >= 0 && p <= 1));
				}
			}
		}
	}
	free(prob);
	free(prob_labels);
	free(labels);
	ik_batch_free(&batch);
	libsvm_reader_close(r);
	fclose(in);
}

/* to_bytes, from_bytes, to_bytes: the same bytes twice. */
static void bytes_round_trip(const struct lik_model *model)
{
	unsigned char *first, *second;
	size_t n1, n2;
	struct lik_error err;
	if (lik_model_to_bytes(model, &first, &n1, &err) != 0) {
		FUZZ_CHECK(err.code == LIK_ENOMEM);
		return;
	}
	struct lik_model *back = lik_model_from_bytes(first, n1, &err);
	FUZZ_CHECK(back != NULL);
	FUZZ_CHECK(lik_model_to_bytes(back, &second, &n2, &err) == 0);
	FUZZ_CHECK(n1 == n2 && memcmp(first, second, n1) == 0);
	lik_free(first);
	lik_free(second);
	lik_model_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct part parts[3];
	split(data, size, parts);
	char model_path[512], ik_path[512];
	fuzz_path(model_path, sizeof model_path, "model");
	fuzz_path(ik_path, sizeof ik_path, "model.ik");

	unsigned char *ik = fuzz_copy(parts[1].data, parts[1].size);
	uint64_t checksum = fuzz_fix_checksum(ik, parts[1].size);
	fuzz_write_file(ik_path, ik, parts[1].size);
	free(ik);
	unsigned char *text = prepare_model(&parts[0], checksum);
	fuzz_write_file(model_path, text, parts[0].size);
	free(text);

	struct lik_error err;
	struct lik_model *model = lik_model_load(model_path, &err);
	if (model != NULL) {
		const struct lik_map *map = lik_model_map(model);
		/* ik_model.h: a verified map has t*psi = nr_feature */
		if (map != NULL)
			FUZZ_CHECK((int64_t)lik_map_t(map) * lik_map_psi(map) == lik_model_nr_feature(model));
		/* a plain model needs rows fitted to it (predict.c does that); the -k path is the target */
		if (map != NULL)
			predict_rows(model, &parts[2]);
		bytes_round_trip(model);
		lik_model_free(&model);
	} else {
		FUZZ_CHECK(err.code != LIK_OK && err.message[0] != '\0');
	}
	unlink(model_path);
	unlink(ik_path);
	return 0;
}
