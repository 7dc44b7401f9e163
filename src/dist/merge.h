/* --merge: partial states (state.h) read in the order given and merged as
 * if their parts had been one input. */
#ifndef COLSTAT_SRC_DIST_MERGE_H
#define COLSTAT_SRC_DIST_MERGE_H

#include "io/error.h"
#include "src/engine/engine.h"

/* Reads paths[0, n) ("-": standard input) and merges them into *out;
 * *what: the statistics they hold. States of different keys are refused,
 * naming the first that differs. */
int merge_states(const char *const *paths, int n, engine_result *out,
                 unsigned *what, cs_error *e);

#endif
