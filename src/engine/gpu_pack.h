/* A pass's plan (passes.h) as the device takes it (gpu/gpu.h's
 * gpu_pass_col): one function, for the GPU adapter (gpu.c) and the GPU's
 * unit test alike, so that the test runs the passes as the engine does. */
#ifndef COLSTAT_SRC_ENGINE_GPU_PACK_H
#define COLSTAT_SRC_ENGINE_GPU_PACK_H

#include "gpu/gpu.h"
#include "src/engine/passes.h"

/* cols[k] for each column k of p (room for p->ncols), pointing into p. */
void gpu_pack_pass(pass_plan *p, gpu_pass_col *cols);

#endif
