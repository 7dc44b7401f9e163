/* --merge: partial states (state.h) read in the order given and merged as
 * if their parts had been one input. */
#ifndef COLSTAT_SRC_DIST_MERGE_H
#define COLSTAT_SRC_DIST_MERGE_H

#include "io/base/error.h"
#include "src/engine/engine.h"

/* What the command line asks of the states: statistics and columns among
 * those they hold. */
typedef struct merge_ask {
    unsigned what;       /* STAT_* asked; 0: those the states hold */
    const char *columns; /* -c LIST; NULL: every column of the states */
    int nbins;           /* --bins N; 0: not given */
    int have_range;      /* --range LO:HI */
    double lo, hi;
} merge_ask;

/* Reads paths[0, n) ("-": standard input) and merges them into *out;
 * *what: the statistics to report. States of different keys are refused,
 * naming the first that differs (CS_EDATA); so is a state that
 * --emit-state does not write. What the states cannot answer (a statistic
 * they do not hold, other bins or edges, a column they lack) is
 * CS_EUSAGE. */
int merge_states(const char *const *paths, int n, const merge_ask *ask,
                 engine_result *out, unsigned *what, cs_error *e);

#endif
