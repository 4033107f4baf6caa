/*
 * ik_trailer.h - the line that ties a model file to its partitioning file.
 *
 * Contract. A model trained with -k is an ordinary upstream model file
 * (nr_feature = t*psi; load_model, ours and upstream's, stops reading
 * after the last weight) followed by exactly one more line, the trailer:
 *
 *   ik_partitioning <checksum> <name>
 *
 * <checksum> is the partitioning's ikmap_checksum as 16 lowercase hex
 * digits (upper case is read too); <name> is the partitioning file's
 * name, everything after the second space up to the end of the line,
 * relative to the directory of the model file (a name starting with '/'
 * is absolute). A name cannot hold '\n' or '\r'. The trailer is the last
 * line of the file.
 *
 * What follows the weights decides (ik_trailer_read):
 *  - white space only (spaces, tabs, CR, LF): a plain linear model;
 *  - a first non-blank line whose first word is a nonempty prefix of
 *    ik_partitioning ("i", "ik_part", ...), or that starts with
 *    ik_partitioning: it must be one complete, well-formed trailer,
 *    followed by white space only; else the model is refused (a -k model
 *    cut short is never predicted as a plain one);
 *  - any other text: ignored, as upstream's load_model ignores it (a
 *    plain model that upstream loads, we load).
 */
#ifndef IK_TRAILER_H
#define IK_TRAILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "liblinear_ik.h"

#define IK_TRAILER_KEY "ik_partitioning"

struct ik_trailer {
	uint64_t checksum;
	char *name;		/* allocated */
};

/* Appends the trailer line to fp. 0, or -1 (errno EINVAL for a bad name). */
int ik_trailer_write(FILE *fp, uint64_t checksum, const char *name);

/*
 * Parses one line of len bytes (without its "\n"; one trailing '\r' is
 * dropped). 0 with out filled, -1 when it is not a well-formed trailer,
 * -2 when out of memory.
 */
int ik_trailer_parse(const char *line, size_t len, struct ik_trailer *out);

/*
 * Reads what follows the nr_weights weights of model_file (a model
 * load_model accepted, whose w has nr_weights entries) by the rule above.
 * 1: a trailer (out filled); 0: none, a plain model; -1: the file is not
 * a regular file or cannot be read (err: LIK_EIO), or holds a cut-short or
 * malformed trailer (LIK_EMODEL; out->name NULL). Never prints.
 */
int ik_trailer_read(const char *model_file, uint64_t nr_weights, struct ik_trailer *out,
	struct lik_error *err);

void ik_trailer_free(struct ik_trailer *t);

/* basename(model_file) + ".ik": the name train -k gives the partitioning file. NULL if out of memory. */
char *ik_trailer_default_name(const char *model_file);

/* The path of the file a trailer names: name joined to model_file's directory. NULL if out of memory. */
char *ik_trailer_resolve(const char *model_file, const char *name);

#endif /* IK_TRAILER_H */
