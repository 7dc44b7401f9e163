/* --part K/N: one process's share of the inputs, record-aligned, the share
 * rank K-1 of --mpi's N ranks reads (split.h), found by one process alone:
 * it summarises the quote state of every range before its share's end,
 * which the ranks of --mpi exchange instead. N processes given K = 1..N,
 * on any machines that see the files, read every record once; their
 * states (--emit-state) say K/N, and --merge puts them back in order. */
#ifndef COLSTAT_SRC_DIST_PART_H
#define COLSTAT_SRC_DIST_PART_H

#include "io/base/error.h"
#include "src/engine/engine.h"

/* Part k (1-based) of n of cfg's inputs into *parts (malloc'ed,
 * [cfg->nfiles]); the ranges before it are summarised by nthreads
 * threads. CS_EUSAGE for an input that cannot be shared (standard
 * input), CS_EDATA for one that cannot be read. */
int dist_part_plan(const engine_config *cfg, int k, int n, int nthreads,
                   engine_part **parts, cs_error *e);

#endif
