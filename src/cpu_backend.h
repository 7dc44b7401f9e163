/* The CPU backend: reduces one chunk into per-column state. The engine
 * runs it on worker threads, one chunk each, and merges in input order. */
#ifndef COLSTAT_SRC_CPU_BACKEND_H
#define COLSTAT_SRC_CPU_BACKEND_H

#include "../io/chunk.h"
#include "stats.h"

/* s[0..c->ncols) must be stats_init'ed; rows are c's own (1-based). */
void cpu_reduce_chunk(const chunk *c, col_stats *s, unsigned what);

#endif
