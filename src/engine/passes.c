/* The passes after the input ended (passes.h): one selection per column,
 * bounded by the column's final count, min and max, so that pass 1 spans
 * only [min, max]; the plan's sums are allocated here, per pass. */
#include "src/engine/passes.h"

#include <stdlib.h>
#include <string.h>

struct passes {
    int ncols;
    size_t nq;
    qsel **sel; /* per column; NULL without quantiles */
    pass_plan plan;
    hist *h; /* binned by the first pass, then NULL */
    unsigned run;
    int planned;
};

static int out_of_memory(cs_error *e)
{
    return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the quantiles");
}

static int new_selection(passes *ps, int k, const col_stats *s,
                         const passes_params *p, cs_error *e)
{
    qsel_config cfg = {stats_needs_corr(s), p->bits, 0, p->max_candidates};
    const qfrac *q = p->q;
    ps->sel[k] = qsel_new(q, ps->nq, &cfg);
    if (!ps->sel[k])
        return out_of_memory(e);
    qnum lo = {s->min, cfg.with_r ? s->min_corr : 0};
    qnum hi = {s->max, cfg.with_r ? s->max_corr : 0};
    return qsel_bound(ps->sel[k], s->count, lo, hi, e);
}

int passes_new(const passes_params *p, passes **out, cs_error *e)
{
    passes *ps = calloc(1, sizeof *ps);
    *out = ps;
    if (!ps)
        return out_of_memory(e);
    size_t n = (size_t)(p->ncols > 0 ? p->ncols : 1);
    ps->ncols = p->ncols;
    ps->nq = p->nq;
    ps->h = p->h;
    ps->sel = calloc(n, sizeof *ps->sel);
    ps->plan.col = calloc(n, sizeof *ps->plan.col);
    ps->plan.ncols = p->ncols;
    if (!ps->sel || !ps->plan.col)
        return out_of_memory(e);
    for (int k = 0; p->nq && k < p->ncols; k++)
        if (new_selection(ps, k, &p->st[k], p, e) != CS_OK)
            return e->status;
    return CS_OK;
}

static void free_sums(passes *ps)
{
    for (int k = 0; k < ps->ncols; k++) {
        free(ps->plan.col[k].counts);
        free(ps->plan.col[k].kmin);
        free(ps->plan.col[k].kmax);
        free(ps->plan.col[k].cand);
        memset(&ps->plan.col[k], 0, sizeof ps->plan.col[k]);
    }
}

void passes_free(passes *ps)
{
    if (!ps)
        return;
    if (ps->plan.col)
        free_sums(ps);
    for (int k = 0; ps->sel && k < ps->ncols; k++)
        qsel_free(ps->sel[k]);
    free(ps->sel);
    free(ps->plan.col);
    free(ps);
}

static int selecting(const passes *ps, int k)
{
    return ps->sel && ps->sel[k] && !qsel_done(ps->sel[k]);
}

int passes_done(const passes *ps)
{
    if (ps->h)
        return 0;
    for (int k = 0; k < ps->ncols; k++)
        if (selecting(ps, k))
            return 0;
    return 1;
}

unsigned passes_run(const passes *ps)
{
    return ps->run;
}

/* Zeroed sums for the pass each column's selection planned. */
static int plan_column(passes *ps, int k)
{
    pass_col *pc = &ps->plan.col[k];
    pc->h = ps->h ? &ps->h[k] : NULL;
    if (!selecting(ps, k))
        return 0;
    const qsel *s = ps->sel[k];
    size_t nbins = qsel_nbins(s), ncand = (size_t)qsel_ncandidates(s), nr;
    qsel_ranges(s, &nr);
    pc->sel = s;
    pc->counts = calloc(nbins ? nbins : 1, sizeof *pc->counts);
    pc->kmin = malloc((nr ? nr : 1) * sizeof *pc->kmin);
    pc->kmax = calloc(nr ? nr : 1, sizeof *pc->kmax);
    pc->cand = malloc((ncand ? ncand : 1) * sizeof *pc->cand);
    pc->room = ncand;
    if (!pc->counts || !pc->kmin || !pc->kmax || !pc->cand)
        return -1;
    for (size_t j = 0; j < nr; j++)
        pc->kmin[j] = UINT64_MAX;
    return 0;
}

pass_plan *passes_plan(passes *ps)
{
    if (!ps->planned) {
        free_sums(ps);
        for (int k = 0; k < ps->ncols; k++)
            if (plan_column(ps, k))
                return NULL;
        ps->planned = 1;
    }
    return &ps->plan;
}

static int narrow_column(passes *ps, int k, cs_error *e)
{
    pass_col *pc = &ps->plan.col[k];
    qsel *s = ps->sel[k];
    if (!pc->sel)
        return CS_OK;
    qsel_add_counts(s, pc->counts);
    qsel_add_extrema(s, pc->kmin, pc->kmax);
    if (pc->ncand > pc->room)
        return qsel_changed(e);
    if (qsel_add_candidates(s, pc->cand, (size_t)pc->ncand, e) != CS_OK)
        return e->status;
    return qsel_narrow(s, e);
}

int passes_narrow(passes *ps, cs_error *e)
{
    if (!ps->planned && !passes_plan(ps))
        return out_of_memory(e);
    for (int k = 0; k < ps->ncols; k++)
        if (narrow_column(ps, k, e) != CS_OK)
            return e->status;
    ps->h = NULL;
    ps->planned = 0;
    ps->run++;
    return CS_OK;
}

int passes_result(const passes *ps, int col, size_t i, qres *out)
{
    if (!ps->sel || !ps->sel[col])
        return -1;
    return qsel_result(ps->sel[col], i, out);
}

size_t passes_peak_bytes(const passes *ps)
{
    size_t b = 0;
    for (int k = 0; ps->sel && k < ps->ncols; k++)
        b += ps->sel[k] ? qsel_peak_bytes(ps->sel[k]) : 0;
    return b;
}
