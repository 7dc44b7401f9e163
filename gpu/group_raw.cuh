/* --group-by over raw CSV on the device, internal to gpu/: the groups of
 * every segment the device parses (gpu/csv_kernel.cu) found in one device
 * hash table that lives from the first input to the last, and each
 * column reduced per group into state that lives as long. raw_input.cu
 * launches the steps between a segment's parse and its end; gpu.h's
 * gpu_raw_groups hands the groups to the host. */
#ifndef COLSTAT_GPU_GROUP_RAW_CUH
#define COLSTAT_GPU_GROUP_RAW_CUH

#include <cuda_runtime.h>

#include "gpu.h"
#include "raw.cuh"

struct raw_group; /* group_raw.cu */

/* The groups' table and state for segments of up to ld rows of ncols
 * columns and nkeys key columns; 0, or the CUDA error. */
cudaError_t raw_group_make(raw_group **out, int ncols, int nkeys, size_t ld,
                           size_t maxrec);
void raw_group_free(raw_group *g);

/* Points a's key places (key_at, key_len) at g's. */
void raw_group_bind(raw_group *g, csv_args *a);

/* After the parse, before the segment is judged (end_kernel), on the
 * parse's stream: the rows' keys (csv_args.key_at, key_len) found in the
 * table (raw_group_find), then the columns' values into their groups'
 * state (raw_group_reduce). Between the two the host may wait for the
 * groups found (raw_group_count) and grow the state. */
cudaError_t raw_group_find(raw_group *g, const csv_args *a, cudaStream_t s);
cudaError_t raw_group_reduce(raw_group *g, const csv_args *a, cudaStream_t s);
/* The groups in the table once s is done (waits for it). */
size_t raw_group_count(raw_group *g, cudaStream_t s, cudaError_t *e);

/* After the segment is judged: a segment the device stopped at leaves
 * no group behind. */
cudaError_t raw_group_settle(raw_group *g, const csv_args *a, cudaStream_t s);

/* Room for this many groups in the table and in the state, and key
 * bytes: each grown when short (a new table: the keys hashed into it
 * again); waits for stream s. */
cudaError_t raw_group_grow(raw_group *g, size_t table, size_t state,
                           size_t key_bytes, cudaStream_t s);
/* Groups the table has room for; *state, those the state has; *key_bytes,
 * the keys'. */
size_t raw_group_room(const raw_group *g, size_t *state, size_t *key_bytes);
/* Device bytes a group takes in the table, and in the state. */
size_t raw_group_table_bytes(void);
size_t raw_group_state_bytes(const raw_group *g);

/* With kept values (csv_args.keep: median, quantiles), the reduction
 * also puts each row's values, corrections and group at the end of the
 * store's arena: room for the groups of rows arena rows (grown, the old
 * ones copied; waits for stream s). */
cudaError_t raw_group_keep_room(raw_group *g, size_t rows, cudaStream_t s);
/* The group of each arena row, NULL when none was kept. */
const unsigned *raw_group_row_groups(const raw_group *g);

/* The groups so far, copied to the host (gpu.h's gpu_group_out: pieces
 * are the groups, one each). Synchronous. */
cudaError_t raw_group_take(raw_group *g, cudaStream_t s, gpu_group_out *out,
                           int *nomem);

#endif
