/* --group-by with the device parsing the bytes (gpu.h's raw input with
 * keys): a plain CSV's rows go into groups on the device, which live
 * until the end of the run; the host then merges them into its own
 * table by key, as it merges a job's. Where the device stops (a key too
 * long, more groups than its table, a sum past its exact range, what the
 * raw path stops at), the host parses the rest of that input. */
#ifndef COLSTAT_SRC_ENGINE_GROUP_DEV_H
#define COLSTAT_SRC_ENGINE_GROUP_DEV_H

#include "io/base/error.h"
#include "io/base/row_batch.h"
#include "src/engine/account.h"
#include "src/engine/backend.h"
#include "src/stats/group_table.h"

typedef struct group_dev group_dev;

/* Whether the statistics are those the device's groups make: all but
 * std and histograms (median and quantiles from the values it keeps,
 * sorted there). */
int group_dev_can(unsigned what);

/* Opens the device for p's columns and statistics (group_dev_can). */
int group_dev_open(const backend_params *p, group_dev **out, cs_error *e);

/* Page-locked memory for the bytes it is given. */
const row_batch_alloc *group_dev_alloc(group_dev *d);

/* The backend's `bytes` (backend.h), the rest for the device d. wants:
 * plain CSV, and no datetime with zones among the columns (kinds, NULL:
 * all plain numbers): the offsets of their extremes are the host's. */
int group_dev_wants(int binary, int whitespace, const unsigned char *kinds,
                    int ncols);
size_t group_dev_slot_bytes(group_dev *d);
int group_dev_begin(group_dev *d, const bytes_format *f, uint64_t first_row,
                    uint64_t first_line, cs_error *e);
int group_dev_submit(group_dev *d, const void *bytes, size_t n, cs_error *e);
int group_dev_copied(group_dev *d, const void *bytes, int *stopped,
                     cs_error *e);
int group_dev_wait(group_dev *d, const void *bytes, int *stopped, cs_error *e);
/* The groups count the fields that did not enter; r gets the rest. */
int group_dev_end(group_dev *d, bytes_result *r, char *tail, size_t *tail_len,
                  cs_error *e);

/* After the last input: the device's groups merged into t (its rows
 * numbered as the input's: absolute), with their rows and first rows (t
 * tracks them); where t keeps values (median, quantiles), the groups'
 * values too, each group's sorted by the device. */
int group_dev_merge(group_dev *d, group_table *t, cs_error *e);

/* Whether any input went to the device. */
int group_dev_used(const group_dev *d);

void group_dev_describe(const group_dev *d, account *acc);
void group_dev_close(group_dev *d);

#endif
