/*
 * fuzz_predict_ik.c - libFuzzer target for predict on a -k pair: a model
 * file with its ik_partitioning trailer, its .ik file and a few data rows,
 * loaded through ik/ik_model.h (load_model, then ik_model_load_map) and
 * predicted as predict.c does it (ik_batch_next maps IK_BATCH_ROWS rows at
 * a time, ik_cell_row builds each mapped row, then predict() and, for
 * logistic regression, predict_probability()).
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
 * a one-class prediction is +1 or -1, probabilities are in [0, 1].
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "ik_batch.h"
#include "ik_model.h"
#include "ik_trailer.h"
#include "ikmap.h"
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

/* predict.c's predict_mapped, with the invariants checked on each row. */
static void predict_mapped(const struct model *m, const struct ikmap *map, const struct part *rows)
{
	if (rows->size == 0)	/* fmemopen refuses 0 bytes before glibc 2.22 */
		return;
	FILE *in = fmemopen((void *)rows->data, rows->size, "r");
	if (in == NULL)
		fuzz_give_up("fmemopen");
	struct libsvm_reader *r = libsvm_reader_from_stream(in, "fuzz rows");
	if (r == NULL)
		fuzz_give_up("libsvm_reader_from_stream");
	struct ik_batch batch;
	FUZZ_CHECK(ik_batch_init(&batch, IK_BATCH_ROWS, map) == 0);
	struct feature_node *x = malloc(((size_t)ikmap_t(map) + 2) * sizeof *x);
	size_t slots = m->nr_class > 0 ? (size_t)m->nr_class : 1;
	double *prob = malloc(slots * sizeof *prob);
	if (x == NULL || prob == NULL)
		fuzz_give_up("malloc");
	long count;
	while ((count = ik_batch_next(&batch, r, map, 1, IKMAP_DEVICE_CPU)) > 0) {
		for (long i = 0; i < count; i++) {
			ik_cell_row(map, ik_batch_cells(&batch, (size_t)i), m->bias, x);
			double y = predict(m, x);
			if (check_oneclass_model(m))
				FUZZ_CHECK(y == 1 || y == -1);
			else if (!check_regression_model(m))
				FUZZ_CHECK(fuzz_is_label(m, y));
			if (check_probability_model(m)) {
				FUZZ_CHECK(fuzz_is_label(m, predict_probability(m, x, prob)));
				for (int k = 0; k < m->nr_class; k++)
					FUZZ_CHECK(isnan(prob[k]) || (prob[k] >= 0 && prob[k] <= 1));
			}
		}
	}
	free(prob);
	free(x);
	ik_batch_free(&batch);
	libsvm_reader_close(r);
	fclose(in);
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

	struct model *m = load_model(model_path);
	struct ikmap *map = NULL;
	if (m != NULL && ik_model_load_map(model_path, m, &map, NULL) == 0 && map != NULL) {
		/* ik_model.h: a verified map has t*psi = nr_feature */
		FUZZ_CHECK((int64_t)ikmap_t(map) * ikmap_psi(map) == m->nr_feature);
		predict_mapped(m, map, &parts[2]);
	}
	ikmap_free(map);
	if (m != NULL)
		free_and_destroy_model(&m);
	unlink(model_path);
	unlink(ik_path);
	return 0;
}
