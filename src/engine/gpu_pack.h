/* What the engine hands the device and takes back, in gpu/gpu.h's
 * types: a pass's plan (passes.h) as gpu_pass_col, for the GPU adapter
 * (gpu.c) and the GPU's unit test alike, so that the test runs the passes
 * as the engine does; and the end of a raw input as the feed takes it,
 * for both backends that parse on the device (gpu.c, group_dev.c). */
#ifndef COLSTAT_SRC_ENGINE_GPU_PACK_H
#define COLSTAT_SRC_ENGINE_GPU_PACK_H

#include "gpu/gpu.h"
#include "src/engine/backend.h"
#include "src/engine/passes.h"

/* cols[k] for each column k of p (room for p->ncols), pointing into p. */
void gpu_pack_pass(pass_plan *p, gpu_pass_col *cols);

/* An input's format (backend.h) as gpu_raw_begin takes it: its numbers'
 * format copied into it. */
gpu_raw_format gpu_pack_format(const bytes_format *f);

/* d (after gpu_raw_end, its first_invalid_line set from r's before it)
 * into r: rows, lines, bytes, the stop and the repeated headers, and each
 * of the ncols columns' first invalid line with, where r had none, the
 * field shown as the host shows its own. */
void gpu_pack_result(const gpu_raw_result *d, int ncols, bytes_result *r);

#endif
