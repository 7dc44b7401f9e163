/* --merge: partial states (state.h) merged as if their parts had been one
 * input. Each operand holds one state a line, any number of them ("-":
 * standard input). States of --part are merged in their parts' order,
 * whatever the order given; others in the order given. */
#ifndef COLSTAT_SRC_DIST_MERGE_H
#define COLSTAT_SRC_DIST_MERGE_H

#include "io/base/error.h"
#include "src/dist/state.h"
#include "src/engine/engine.h"

/* What the command line asks of the states: statistics and columns among
 * those they hold. */
typedef struct merge_ask {
    unsigned what;       /* STAT_* asked; 0: those the states hold */
    const char *columns; /* -c LIST; NULL: every column of the states */
    int nbins;           /* --bins N; 0: not given */
    int have_range;      /* --range LO:HI */
    double lo, hi;
    size_t top;    /* --top K; 0: not given */
    size_t memory; /* --memory: the values' counts of every state read */
} merge_ask;

/* Reads paths[0, n) and merges their states into *out; *what: the
 * statistics to report; *info: what the merged state says of itself (its
 * key malloc'ed, its parts those it covers), for --emit-state. States of
 * different keys are refused, naming the first that differs (CS_EDATA);
 * so is a state that --emit-state does not write, and parts that are
 * missing, repeated, of different counts, or mixed with states of whole
 * runs. whole: the merge must cover every part (a report), or may cover
 * a run of consecutive parts (a merged state). What the states cannot
 * answer (a statistic they do not hold, other bins or edges, a column
 * they lack) is CS_EUSAGE. The distinct values' counts of all the states
 * are held at once: past ask->memory (profile_budget's), CS_EDATA. */
int merge_states(const char *const *paths, int n, const merge_ask *ask,
                 int whole, engine_result *out, unsigned *what,
                 state_info *info, cs_error *e);

#endif
