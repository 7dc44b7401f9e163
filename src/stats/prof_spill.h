/* The distinct values' counts of a stream past --memory, in a temporary
 * file: records of (column, value bytes, count) appended as they come,
 * read back whole for each partition's count (profile.h). The file is
 * unlinked at once. */
#ifndef COLSTAT_SRC_STATS_PROF_SPILL_H
#define COLSTAT_SRC_STATS_PROF_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"
#include "vcount.h"

typedef struct prof_spill prof_spill;

/* tmpdir NULL or "": /tmp. CS_EDATA when the file cannot be made. */
int prof_spill_open(prof_spill **out, const char *tmpdir, cs_error *e);
void prof_spill_close(prof_spill *s); /* NULL does nothing */

/* Every entry of t, as column col's. CS_EDATA when writing fails. */
int prof_spill_put(prof_spill *s, int col, const vcount *t, cs_error *e);

/* Each record in order to fn; stops at the first nonzero fn returns
 * (returned, as CS_OK). CS_EDATA when reading fails, CS_ENOMEM. */
typedef int (*prof_spill_fn)(void *ctx, int col, const char *key, size_t len,
                             uint64_t count);
int prof_spill_scan(prof_spill *s, prof_spill_fn fn, void *ctx, int *stopped,
                    cs_error *e);

#endif
