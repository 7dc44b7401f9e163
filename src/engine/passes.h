/* The passes after the input ended: the exact quantiles of every column
 * (src/stats/quantile.h), and the histograms whose edges are the final
 * min and max when their values were not binned as they came. A pass is
 * planned here (what each column counts, tally.h), counted by the backend
 * over the values it kept or over the input read again, and its sums
 * narrow each column's selection. Counting, adding the sums of other
 * counters (other processes) and narrowing are separate steps. */
#ifndef COLSTAT_SRC_ENGINE_PASSES_H
#define COLSTAT_SRC_ENGINE_PASSES_H

#include <stddef.h>

#include "io/base/error.h"
#include "src/engine/tally.h"
#include "src/stats/quantile.h"
#include "src/stats/stats.h"

typedef struct passes passes;

typedef struct passes_params {
    int ncols;
    const col_stats *st; /* per column, final: n, min and max bound pass 1 */
    const qfrac *q;      /* the quantiles of every column (nq 0: none) */
    size_t nq;
    hist *h; /* per column, edges set, bins the first pass adds to; NULL */
    size_t max_candidates; /* values collected at once (0: quantile.h's) */
    int bits;              /* bins per range: 2^bits (0: quantile.h's) */
} passes_params;

int passes_new(const passes_params *p, passes **out, cs_error *e);
void passes_free(passes *ps);

int passes_done(const passes *ps);
unsigned passes_run(const passes *ps); /* passes narrowed so far */

/* The plan of the next pass, its sums zero; valid until passes_narrow. */
pass_plan *passes_plan(passes *ps);

/* The plan's sums into the selections; plans the next pass. CS_EDATA when
 * the sums do not add up (the input changed between passes). */
int passes_narrow(passes *ps, cs_error *e);

/* Quantile i (passes_params.q's order) of column col, once done. */
int passes_result(const passes *ps, int col, size_t i, qres *out);

/* Bytes the selections' largest pass took, all columns. */
size_t passes_peak_bytes(const passes *ps);

#endif
