/* The engine drives the data path: inputs -> readers -> chunks -> backend
 * -> merged statistics -> report. */
#ifndef COLSTAT_SRC_ENGINE_H
#define COLSTAT_SRC_ENGINE_H

#include <stdio.h>

#include "io/error.h"
#include "src/options.h"

/* Reads every input of o and writes the report to out, whole, only when
 * all input was read. Returns CS_OK, or the status of e. Warnings (invalid
 * fields counted, backend fallback with -v) go to err. */
int engine_run(const options *o, FILE *out, FILE *err, cs_error *e);

#endif
