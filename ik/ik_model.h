/*
 * ik_model.h - a -k model on disk: the model file with its trailer
 * (ik_trailer.h) plus the partitioning file it names.
 *
 * Contract.
 * Saving writes the partitioning as dir(MODEL)/basename(MODEL).ik and the
 * model with a trailer naming it. Both paths must be regular files or new
 * names (through symbolic links: the file a link names is replaced);
 * anything else (a directory, device, FIFO, socket) is refused before
 * anything is written, and ik_model_check_outputs lets train check that
 * before it reads any data. Each file is first written in full under a
 * temporary name beside its target (common/atomic_file.h: synced, removed
 * on SIGINT/SIGTERM in the programs), then the .ik is renamed into place,
 * then the model. On any failure the temporary files are removed and -1 is
 * returned with err set (liblinear_ik.h; never printed here): no model is
 * left at MODEL unless one was there before. (A crash between the two renames leaves the new .ik
 * beside the old model; loading then refuses the pair by its checksum
 * instead of predicting with the wrong partitioning.)
 *
 * Loading the partitioning of a model checks everything that can be
 * checked: the trailer is well formed (ik_trailer.h: a cut-short trailer is
 * refused), the file it names is a regular file (a FIFO or device is
 * refused at once, never waited on) and loads (which verifies the file's
 * own checksum), its checksum equals the trailer's, and t*psi equals the
 * model's nr_feature. A model without a trailer whose
 * dir(MODEL)/basename(MODEL).ik is a partitioning file with t*psi =
 * nr_feature is refused too (its trailer was lost). Any failure is an
 * error, never a fall-back to plain linear prediction. Codes: LIK_EIO for
 * a file that cannot be opened, read or written; LIK_EMODEL for one that
 * is damaged or does not match; LIK_EINVAL, LIK_ENOMEM.
 */
#ifndef IK_MODEL_H
#define IK_MODEL_H

#include "ikmap.h"
#include "liblinear_ik.h"
#include "linear.h"

/* 0, or -1 with err set. */
int ik_model_check_outputs(const char *model_file, struct lik_error *err);

/* 0, or -1 with err set. */
int ik_model_save(const char *model_file, const struct model *m, const struct ikmap *map,
	struct lik_error *err);

/*
 * The partitioning of the model m loaded from model_file: *map is the
 * verified map, or NULL when the model file has no trailer (a plain
 * model). 0, or -1 with err set.
 */
int ik_model_load_map(const char *model_file, const struct model *m, struct ikmap **map,
	struct lik_error *err);

/*
 * After a plain model was saved to model_file: removes
 * dir(MODEL)/basename(MODEL).ik when it is a partitioning file, the
 * leftover of an earlier -k model of that name. Anything else there is
 * left alone; failures are ignored (the new model is already in place).
 */
void ik_model_remove_stale(const char *model_file);

#endif /* IK_MODEL_H */
