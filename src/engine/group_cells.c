#include "src/engine/group_cells.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "src/stats/qmulti.h"

/* Values the device handed over come sorted (group_dev.c): nothing to
 * select. */
static int sorted(const qnum *x, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (qmulti_cmp(&x[i - 1], &x[i]) > 0)
            return 0;
    return 1;
}

/* The places of the order statistics of p's quantiles among n values,
 * ascending and once each, into want (2 nq at most); their count. */
static size_t places(const groups_params *p, size_t n, size_t *want)
{
    size_t nw = 0;
    for (size_t i = 0; i < p->nq; i++) {
        qrank rk = qlist_rank(p->q[i], n);
        want[nw++] = rk.k - 1;
        if (rk.fnum)
            want[nw++] = rk.k;
    }
    for (size_t i = 1; i < nw; i++) /* a few: insertion */
        for (size_t j = i; j > 0 && want[j - 1] > want[j]; j--) {
            size_t t = want[j];
            want[j] = want[j - 1];
            want[j - 1] = t;
        }
    size_t m = 0;
    for (size_t i = 0; i < nw; i++)
        if (!m || want[m - 1] != want[i])
            want[m++] = want[i];
    return m;
}

/* The nq quantiles of one group's column, type 7, exactly: their order
 * statistics selected (qmulti.h), not every value sorted. */
static int quantiles(const groups_params *p, const col_stats *s,
                     const group_vals *v, qres *out)
{
    if (!v->n) {
        for (size_t i = 0; i < p->nq; i++)
            out[i] = (qres){0, 0.0, 0, {0.0, 0}, 0, {0.0, 0}};
        return 0;
    }
    int with_r = stats_needs_corr(s);
    qnum *x = malloc(v->n * sizeof *x);
    size_t *want = malloc(2 * p->nq * sizeof *want);
    if (!x || !want) {
        free(x);
        free(want);
        return -1;
    }
    for (size_t i = 0; i < v->n; i++)
        x[i] = (qnum){v->d[i], with_r ? qsel_r(v->r[i]) : 0};
    if (!sorted(x, v->n))
        qmulti_select(x, v->n, want, places(p, v->n, want));
    for (size_t i = 0; i < p->nq; i++) {
        qrank rk = qlist_rank(p->q[i], v->n);
        qnum a = x[rk.k - 1], b = rk.fnum ? x[rk.k] : a;
        qvalue_interpolate(a, b, rk.fnum, rk.fden, &out[i]);
    }
    free(x);
    free(want);
    return 0;
}

static int histogram(const groups_params *p, const col_stats *s,
                     const group_vals *v, hist *h)
{
    double lo = p->range_lo, hi = p->range_hi;
    if (!p->have_range)
        stats_hist_edges(s, &lo, &hi);
    if (hist_init(h, p->nbins, lo, hi))
        return -1;
    hist_add_values(h, v->d, v->n);
    return 0;
}

/* Groups a thread takes at a time. */
#define CELLS_STEP 16

typedef struct cells_job {
    const groups_params *p;
    engine_groups *gs;
    int made;    /* the quantiles are the device's */
    size_t next; /* the next group not taken */
    int bad;
} cells_job;

static int one_group(cells_job *j, size_t g)
{
    const group_table *t = &j->gs->table;
    const groups_params *p = j->p;
    size_t nc = (size_t)t->ncols;
    for (size_t k = 0; k < nc; k++) {
        size_t at = g * nc + k;
        if (p->nq && !j->made &&
            quantiles(p, &t->st[at], &t->val[at], &j->gs->q[at * p->nq]))
            return -1;
        if ((p->what & STAT_HIST) &&
            histogram(p, &t->st[at], &t->val[at], &j->gs->h[at]))
            return -1;
    }
    return 0;
}

static void *cells_main(void *arg)
{
    cells_job *j = arg;
    size_t n = j->gs->table.n;
    for (;;) {
        size_t g = __atomic_fetch_add(&j->next, CELLS_STEP, __ATOMIC_RELAXED);
        if (g >= n)
            return NULL;
        size_t end = g + CELLS_STEP < n ? g + CELLS_STEP : n;
        for (; g < end; g++)
            if (one_group(j, g))
                __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
    }
}

/* Threads past these values: fewer are done sooner on one. */
#define CELLS_THREADED 65536

#define CELLS_THREADS_MAX 256

int group_cells_make(const groups_params *p, engine_groups *gs)
{
    const group_table *t = &gs->table;
    cells_job j = {p, gs, t->q && t->nq == p->nq, 0, 0};
    if (j.made && p->nq)
        memcpy(gs->q, t->q, t->n * (size_t)t->ncols * p->nq * sizeof *gs->q);
    if (!(p->nq && !j.made) && !(p->what & STAT_HIST))
        return 0;
    int want = t->values >= CELLS_THREADED ? p->threads : 1;
    want = want < CELLS_THREADS_MAX ? want : CELLS_THREADS_MAX;
    pthread_t th[CELLS_THREADS_MAX];
    int started = 0;
    while (started < want - 1 &&
           pthread_create(&th[started], NULL, cells_main, &j) == 0)
        started++;
    cells_main(&j); /* and this thread */
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return j.bad ? -1 : 0;
}
