/*
 * model_stream.h - save_model's text, written into a stream the caller
 * opened (ik/ik_model.c writes a -k model this way and adds its trailer),
 * and load_model's reading of one.
 *
 * Contract: writes exactly what save_model would put in the file, under
 * the C locale of the calling thread only. 0, or -1 (write error, or an
 * unknown solver type, said on stderr). The caller flushes and closes.
 */
#ifndef MODEL_STREAM_H
#define MODEL_STREAM_H

#include <stdio.h>
#include "linear.h"

int save_model_stream(FILE *fp, const struct model *model_);

/*
 * load_model's reading of an open stream (ik/lik_model.c reads a model
 * held in memory this way): the model, or NULL after a line through
 * report_error (report.h). The caller closes the stream.
 */
struct model *load_model_stream(FILE *fp);

#endif /* MODEL_STREAM_H */
