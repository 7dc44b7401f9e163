/* The staging ring: a few page-locked row batches that rows the host parsed
 * pass through on their way to the device. Page-locking costs about as
 * much as copying (measured: ~0.4 s for the ~370 MB a row batch per job
 * needed), so the pinned memory is a fixed ring of STAGE_SLOTS row batches,
 * not one per job.
 *
 * Job k (by sequence number) may fill slot k % STAGE_SLOTS only after job
 * k - STAGE_SLOTS has released it (its copy to the device is done). Slots
 * go in job order, so a job only ever waits for an older one; the main
 * thread releases slots in order as it retires jobs, keeping at most
 * STAGE_INFLIGHT copies unreleased, so the wait always ends. */
#ifndef COLSTAT_SRC_ENGINE_STAGE_H
#define COLSTAT_SRC_ENGINE_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"
#include "io/base/row_batch.h"

#define STAGE_SLOTS 8
#define STAGE_INFLIGHT 2 /* < STAGE_SLOTS - 1 */

typedef struct stage stage;

int stage_open(int ncols, size_t rows, const row_batch_alloc *a, stage **out,
               cs_error *e);

/* Worker: waits for job seq's turn and copies its rows (the first n row batches
 * of batches, rows in all) into the slot, which it returns. A job that failed
 * or has more rows than a slot holds passes its turn at once and gets
 * NULL. *waited: seconds spent waiting for the turn. */
row_batch *stage_take(stage *s, uint64_t seq, const row_batch *batches, int n,
                      uint64_t rows, int failed, double *waited);

/* Main thread: job seq's slot may be filled again. */
void stage_release(stage *s, uint64_t seq);

void stage_close(stage *s);

#endif
