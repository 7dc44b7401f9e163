/* The CPU backend: reduces one chunk into per-column state. The engine
 * runs it on worker threads, one chunk each, and merges in input order. */
#ifndef COLSTAT_SRC_CPU_BACKEND_H
#define COLSTAT_SRC_CPU_BACKEND_H

#include "io/chunk.h"
#include "src/stats/stats.h"

/* Adds c's rows to s[0..c->ncols), its first row numbered first_row. */
void cpu_reduce_chunk(const chunk *c, uint64_t first_row, col_stats *s,
                      unsigned what);

#endif
