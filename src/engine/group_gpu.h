/* --group-by's row batches reduced on the device (gpu_group_rows, gpu.h)
 * and merged into a job's direct group table (group_table.h): the same
 * state the host's group_add_column makes, so the same bytes. Where the
 * device cannot hold a batch's groups or a sum needs the host's csum,
 * the batch is reduced on the host instead. */
#ifndef COLSTAT_SRC_ENGINE_GROUP_GPU_H
#define COLSTAT_SRC_ENGINE_GROUP_GPU_H

#include <stdint.h>

#include "io/base/error.h"
#include "io/base/row_batch.h"
#include "src/stats/group_table.h"

/* Where group-by reduces (backend_params.group_device). */
enum {
    GROUP_ON_HOST,
    GROUP_ON_DEVICE,
    GROUP_ON_HOST_STEPS /* the device's steps run on the host (tests) */
};

/* Whether statistics what can be reduced on the device: a direct table's
 * (no values kept, no squares). */
int group_gpu_can(unsigned what);

/* Batch c (rows first_row..., keys in c->keys) into t, which is direct,
 * with where (GROUP_ON_DEVICE or GROUP_ON_HOST_STEPS); ids[i] gets row
 * i's group of t (c->nrows of them). *host is set when the device gave
 * the batch back (the caller reduces it on the host); *ngroups, the
 * batch's groups as the device found them (0 where it did not run).
 * Rows' counts (t->rows) and the fields that did not enter are the
 * caller's. */
int group_gpu_batch(group_table *t, const row_batch *c, uint64_t first_row,
                    int where, uint32_t *ids, int *host, size_t *ngroups,
                    cs_error *e);

#endif
