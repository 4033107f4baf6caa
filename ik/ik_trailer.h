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
 * line of the file; a model without one is a plain linear model.
 */
#ifndef IK_TRAILER_H
#define IK_TRAILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
 * Looks at the last line of model_file. 1: a trailer (out filled);
 * 0: none, a plain model; -1: the file cannot be read or its last line
 * starts with the key but is malformed (message on stderr).
 */
int ik_trailer_read(const char *model_file, struct ik_trailer *out);

void ik_trailer_free(struct ik_trailer *t);

/* basename(model_file) + ".ik": the name train -k gives the partitioning file. NULL if out of memory. */
char *ik_trailer_default_name(const char *model_file);

/* The path of the file a trailer names: name joined to model_file's directory. NULL if out of memory. */
char *ik_trailer_resolve(const char *model_file, const char *name);

#endif /* IK_TRAILER_H */
