/* Partial states: what a run over part of the input knows, exact and
 * mergeable, for --emit-state and --merge (and the ranks of --mpi). A
 * state is the engine's result before it is finalized: rows, and per
 * column its name, index, statistics state and fixed-edge histogram.
 *
 * The encoding is little-endian whatever the machine: a magic, a version,
 * the key (the options that shape a state: two states merge only when
 * their keys are equal), the payload's length, the payload, and a CRC-32
 * of all that precedes it, so a cut or damaged file is refused, never
 * merged. */
#ifndef COLSTAT_SRC_DIST_STATE_H
#define COLSTAT_SRC_DIST_STATE_H

#include <stddef.h>
#include <stdio.h>

#include "io/error.h"
#include "src/engine/engine.h"

#define STATE_VERSION 1

/* The key of a run: the options that shape its state, as text. A state of
 * one key must not meet one of another. Returns a malloc'ed string, or
 * NULL when out of memory. */
char *state_key(const engine_config *cfg);

/* What a state says of itself. */
typedef struct state_info {
    char *key;     /* state_key's text */
    unsigned what; /* the STAT_* bits it holds */
} state_info;

/* Writes r to f. */
int state_write(FILE *f, const state_info *info, const engine_result *r,
                cs_error *e);

/* Reads the state in f (named name in messages) into *info (its key
 * malloc'ed) and r. CS_EDATA for a file that is not a state, of another
 * version, cut short or corrupt. */
int state_read(FILE *f, const char *name, state_info *info, engine_result *r,
               cs_error *e);

/* dst += src, src's rows after dst's, exactly as one run over both. The
 * columns must be the same (name, index, statistics, histogram edges). */
int state_merge(engine_result *dst, const engine_result *src, cs_error *e);

#endif
