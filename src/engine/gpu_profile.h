/* --distinct, --mode and --top with the GPU backend: each column's
 * profile (src/stats/profile.h) made from the runs of equal values the
 * device sorted out of the values it kept (gpu.h's gpu_value_runs), and
 * from the host store's values, which it did not keep. */
#ifndef COLSTAT_SRC_ENGINE_GPU_PROFILE_H
#define COLSTAT_SRC_ENGINE_GPU_PROFILE_H

#include <stddef.h>

#include "gpu/gpu.h"
#include "src/stats/profile.h"
#include "src/stats/stats.h"

/* After gpu_finish: out[0..ncols) (each the caller's to profile_free)
 * for number and date columns, whose statistics st[0..ncols) say how the
 * report shows their values (an integer column's exact, else one value
 * a double); each holds its distinct count and at least its k most
 * frequent values, with their counts (profile.h's parted form). */
int gpu_profiles_make(gpu_backend *dev, int ncols, const col_stats *st,
                      size_t k, col_prof *out, cs_error *e);

#endif
