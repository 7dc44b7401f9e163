/* --group-by's kept values (median, quantiles) handed to the host group
 * by group, each group's ascending, internal to gpu/: the host then
 * takes each group's quantiles from them without sorting (groups.c).
 * The rows of the store's arena are ordered by group once (a counting
 * sort of their groups, raw_group_row_groups), then each column's values
 * are sorted within each group on the device. */
#ifndef COLSTAT_GPU_GROUP_VALUES_CUH
#define COLSTAT_GPU_GROUP_VALUES_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

struct group_order; /* group_values.cu */

/* The n arena rows whose groups (of ngroups) are gid[0, n), ordered by
 * group: made on stream s, which it waits for. 0, or the CUDA error. */
cudaError_t group_order_make(group_order **out, const unsigned *gid, size_t n,
                             uint32_t ngroups, cudaStream_t s);
void group_order_free(group_order *o);

/* Column col of the arena (values d, corrections c or NULL, n rows as
 * the order's) sorted within each group (kept until another column is
 * asked for), into hd and hr (host memory, n each): group after group in
 * the order of their ids, each group's (value, correction) pairs
 * ascending as src/stats/qsel_key.h orders them, then its NaNs (the
 * fields that did not enter). Synchronous on s. */
cudaError_t group_order_column(group_order *o, int col, const double *d,
                               const int *c, double *hd, int32_t *hr,
                               cudaStream_t s);
/* The same, only places pos[0, npos) of that layout into hd and hr. */
cudaError_t group_order_pick(group_order *o, int col, const double *d,
                             const int *c, const uint64_t *pos, size_t npos,
                             double *hd, int32_t *hr, cudaStream_t s);

#endif
