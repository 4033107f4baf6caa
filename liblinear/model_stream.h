/*
 * model_stream.h - save_model's text, written into a stream the caller
 * opened (ik/ik_model.c writes a -k model this way and adds its trailer).
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

#endif /* MODEL_STREAM_H */
