/* --group-by's answer: the groups of the run's table put in order, each
 * with its quantiles and histograms computed from its kept values, as
 * the passes compute them for a whole column. */
#ifndef COLSTAT_SRC_ENGINE_GROUPS_H
#define COLSTAT_SRC_ENGINE_GROUPS_H

#include "src/engine/engine.h"

typedef struct groups_params {
    int nkeys;
    char *const *names; /* the key columns' names (copied) */
    const num_format *num;
    unsigned what;
    const qfrac *q; /* nq quantiles: the median first */
    size_t nq;
    int nbins, have_range;
    double range_lo, range_hi;
    int threads; /* for the groups' quantiles and histograms (0: one) */
} groups_params;

/* Moves t (emptied) into a new *out. Returns CS_OK or CS_EDATA. */
int groups_make(const groups_params *p, group_table *t, engine_groups **out,
                cs_error *e);
void groups_free(engine_groups *g); /* NULL does nothing */

#endif
