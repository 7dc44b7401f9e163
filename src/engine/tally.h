/* A pass after the input ended (src/engine/passes.h drives them): the
 * quantile selection's counts and candidates (src/stats/quantile.h), and
 * histograms whose edges are known only then. The plan says, per column,
 * what this pass counts and where the sums go; a share of the values (a
 * job, a thread, a device) counts into a tally and adds it to the plan.
 * The sums are plain counts: any split of the values, in any order, adds
 * up to the same plan. */
#ifndef COLSTAT_SRC_ENGINE_TALLY_H
#define COLSTAT_SRC_ENGINE_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"
#include "io/base/row_batch.h"
#include "src/stats/quantile.h"
#include "src/stats/stats.h"
#include "src/stats/value_store.h"

typedef struct pass_col {
    const qsel *sel;  /* NULL: nothing to count in this column */
    uint64_t *counts; /* qsel_nbins(sel) sums */
    uint64_t *kmin;   /* per range: the least and greatest qsel_key of */
    uint64_t *kmax;   /*   the doubles counted there (qsel_add_extrema) */
    qnum *cand;       /* room for `room` candidates */
    size_t room;
    uint64_t ncand; /* found; past room only when the input changed */
    hist *h;        /* NULL, or the histogram (edges set) bins add to */
} pass_col;

typedef struct pass_plan {
    int ncols;
    pass_col *col;
} pass_plan;

typedef struct tally tally;

tally *tally_new(int ncols); /* NULL: out of memory */
void tally_free(tally *t);

/* Counts for plan p from now on (p outlives the counting); the tally is
 * zero after this. */
int tally_reset(tally *t, const pass_plan *p, cs_error *e);

/* Values of column col (corrections r, NULL: 0); NaN skipped. At most
 * tally_room(t, col) of them between two tally_add. */
int tally_values(tally *t, int col, const double *d, const int32_t *r, size_t n,
                 cs_error *e);
uint64_t tally_room(const tally *t, int col);

/* Every column of a parsed row batch. */
int tally_batch(tally *t, const row_batch *c, cs_error *e);

/* t's findings into its plan; t is zero after. Not thread-safe: one
 * caller at a time for a plan. */
int tally_add(tally *t, cs_error *e);

/* Every value of k counted into p by up to nthreads threads. */
int tally_kept(const pass_plan *p, const value_store *k, int nthreads,
               cs_error *e);

#endif
