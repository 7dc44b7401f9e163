/* Counting a share of a pass (tally.h). Counters are 32-bit (a job's
 * share needs no more, and half the memory is half the zeroing); a tally
 * remembers the first bins it touched, so that after the first pass, when
 * few values fall in the ranges left, adding and clearing it costs what
 * it counted and not its size. */
#include "src/engine/tally.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Bins remembered; past it, adding is dense. A layout of no more bins
 * than this remembers none: adding them all costs no more than walking
 * the list, and a table of 100000 columns (whose selections collect
 * their few values at once: one bin each) then takes no 4 KiB list a
 * column in every tally (1.97 GB for the median of 10 rows, before). */
#define HIT_CAP 1024

typedef struct tcol {
    uint32_t *counts;
    size_t cap;            /* counters allocated */
    uint64_t nhit;         /* values counted since the last add */
    int dense;             /* counted without remembering the bins */
    uint32_t *hit;         /* the bins of the first hit_cap of them */
    uint64_t hit_cap;      /* HIT_CAP, or 0: none remembered */
    uint64_t *kmin, *kmax; /* per range: the doubles' keys' extrema */
    size_t nranges, ranges_cap;
    qnum *cand; /* candidates found */
    size_t ncand, cand_cap;
    hist h; /* bins NULL without a histogram this pass */
    int hist_dirty;
} tcol;

struct tally {
    int ncols;
    tcol *col;
    pass_plan *plan;
};

static int out_of_memory(cs_error *e)
{
    return cs_fail(e, CS_ENOMEM, "", 0, "out of memory counting a pass");
}

tally *tally_new(int ncols)
{
    tally *t = calloc(1, sizeof *t);
    if (t)
        t->col = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof *t->col);
    if (!t || !t->col) {
        free(t);
        return NULL;
    }
    t->ncols = ncols;
    return t;
}

void tally_free(tally *t)
{
    if (!t)
        return;
    for (int k = 0; k < t->ncols; k++) {
        free(t->col[k].counts);
        free(t->col[k].kmin);
        free(t->col[k].kmax);
        free(t->col[k].hit);
        free(t->col[k].cand);
        hist_free(&t->col[k].h);
    }
    free(t->col);
    free(t);
}

/* Zero counters for nbins; a tally is zero after each add, so only a
 * larger layout or an abandoned share needs clearing. */
static int size_counts(tcol *c, size_t nbins)
{
    if (nbins > c->cap) {
        free(c->counts);
        c->counts = calloc(nbins, sizeof *c->counts);
        c->cap = c->counts ? nbins : 0;
        if (!c->counts)
            return -1;
    } else if (c->nhit) {
        memset(c->counts, 0, c->cap * sizeof *c->counts);
    }
    if (nbins > HIT_CAP && !c->hit &&
        !(c->hit = malloc(HIT_CAP * sizeof *c->hit)))
        return -1;
    c->hit_cap = nbins > HIT_CAP ? HIT_CAP : 0;
    c->nhit = 0;
    c->dense = 0;
    c->ncand = 0;
    return 0;
}

/* The extrema of each range, empty. */
static int size_ranges(tcol *c, const qsel *s)
{
    size_t n;
    qsel_ranges(s, &n);
    if (n > c->ranges_cap) {
        free(c->kmin);
        free(c->kmax);
        c->kmin = malloc(n * sizeof *c->kmin);
        c->kmax = malloc(n * sizeof *c->kmax);
        c->ranges_cap = c->kmin && c->kmax ? n : 0;
        if (!c->ranges_cap)
            return -1;
    }
    for (size_t j = 0; j < n; j++) {
        c->kmin[j] = UINT64_MAX;
        c->kmax[j] = 0;
    }
    c->nranges = n;
    return 0;
}

static int size_hist(tcol *c, const hist *h)
{
    if (!h) {
        hist_free(&c->h);
        return 0;
    }
    if (c->h.bins && c->h.nbins == h->nbins) {
        if (c->hist_dirty)
            memset(c->h.bins, 0, (size_t)h->nbins * sizeof *c->h.bins);
        c->h.lo = h->lo;
        c->h.hi = h->hi;
        c->h.underflow = c->h.overflow = 0;
    } else {
        hist_free(&c->h);
        if (hist_init(&c->h, h->nbins, h->lo, h->hi))
            return -1;
    }
    c->hist_dirty = 0;
    return 0;
}

int tally_reset(tally *t, const pass_plan *p, cs_error *e)
{
    t->plan = (pass_plan *)p;
    for (int k = 0; k < t->ncols && k < p->ncols; k++) {
        const pass_col *pc = &p->col[k];
        tcol *c = &t->col[k];
        if (pc->sel &&
            (size_counts(c, qsel_nbins(pc->sel)) || size_ranges(c, pc->sel)))
            return out_of_memory(e);
        if (size_hist(c, pc->h))
            return out_of_memory(e);
    }
    return CS_OK;
}

static inline void hit(tcol *c, uint32_t i)
{
    c->counts[i]++;
    if (c->nhit < c->hit_cap)
        c->hit[c->nhit] = i;
    c->nhit++;
}

static int candidate(tcol *c, double d, int32_t r, cs_error *e)
{
    if (c->ncand == c->cand_cap) {
        size_t cap = c->cand_cap ? 2 * c->cand_cap : 16;
        qnum *p = realloc(c->cand, cap * sizeof *p);
        if (!p)
            return out_of_memory(e);
        c->cand = p;
        c->cand_cap = cap;
    }
    c->cand[c->ncand++] = (qnum){d, r};
    return CS_OK;
}

/* The double's key of composite key k (qsel_key.h). */
static inline uint64_t double_key(qsel_u128 k, int with_r)
{
    return (uint64_t)(with_r ? k >> QSEL_R_BITS : k);
}

static inline void extremum(tcol *c, size_t j, uint64_t dk)
{
    c->kmin[j] = dk < c->kmin[j] ? dk : c->kmin[j];
    c->kmax[j] = dk > c->kmax[j] ? dk : c->kmax[j];
}

/* Pass 1 (one range over [min, max]): every key in it is counted. */
static void count_single(tcol *c, const qsel_range *g, int with_r,
                         const double *d, const int32_t *r, size_t n)
{
    uint32_t *cnt = c->counts + g->first;
    uint64_t counted = 0, lo = c->kmin[0], hi = c->kmax[0];
    for (size_t i = 0; i < n; i++) {
        if (d[i] != d[i])
            continue;
        qsel_u128 k = qsel_ckey(d[i], r ? r[i] : 0, with_r);
        if (k >= g->lo && k <= g->hi) {
            uint64_t dk = double_key(k, with_r);
            cnt[qsel_bin(g, k)]++;
            counted++;
            lo = dk < lo ? dk : lo;
            hi = dk > hi ? dk : hi;
        }
    }
    c->kmin[0] = lo;
    c->kmax[0] = hi;
    c->nhit += counted;
    c->dense = 1; /* too many to remember */
}

static int count(tcol *c, const qsel *s, const double *d, const int32_t *r,
                 size_t n, cs_error *e)
{
    size_t ng;
    const qsel_range *g = qsel_ranges(s, &ng);
    int with_r = qsel_with_r(s);
    if (ng == 1 && g[0].nbins) {
        count_single(c, g, with_r, d, r, n);
        return CS_OK;
    }
    for (size_t i = 0; i < n; i++) {
        if (d[i] != d[i])
            continue;
        int32_t ri = r ? r[i] : 0;
        qsel_u128 k = qsel_ckey(d[i], ri, with_r);
        long j = qsel_find(g, ng, k);
        if (j < 0)
            continue;
        if (g[j].nbins) {
            hit(c, (uint32_t)(g[j].first + qsel_bin(&g[j], k)));
            extremum(c, (size_t)j, double_key(k, with_r));
        } else if (candidate(c, d[i], ri, e) != CS_OK)
            return e->status;
    }
    return CS_OK;
}

int tally_values(tally *t, int col, const double *d, const int32_t *r, size_t n,
                 cs_error *e)
{
    const pass_col *pc = &t->plan->col[col];
    tcol *c = &t->col[col];
    if (pc->h) {
        hist_add_values(&c->h, d, n);
        c->hist_dirty = 1;
    }
    if (!pc->sel || qsel_done(pc->sel))
        return CS_OK;
    return count(c, pc->sel, d, r, n, e);
}

uint64_t tally_room(const tally *t, int col)
{
    uint64_t used = t->col[col].nhit; /* bounds every counter */
    return used < UINT32_MAX ? UINT32_MAX - used : 0;
}

int tally_batch(tally *t, const row_batch *c, cs_error *e)
{
    for (int k = 0; k < c->ncols; k++)
        if (tally_values(t, k, c->col[k], c->has_corr[k] ? c->corr[k] : NULL,
                         c->nrows, e) != CS_OK)
            return e->status;
    return CS_OK;
}

/* Counters into the sums, and to zero again. */
static void add_counts(tcol *c, uint64_t *sum, size_t nbins)
{
    if (!c->dense && c->nhit <= c->hit_cap) {
        for (uint64_t i = 0; i < c->nhit; i++) {
            uint32_t b = c->hit[i];
            sum[b] += c->counts[b];
            c->counts[b] = 0;
        }
    } else {
        for (size_t b = 0; b < nbins; b++)
            sum[b] += c->counts[b];
        memset(c->counts, 0, nbins * sizeof *c->counts);
    }
    c->nhit = 0;
    c->dense = 0;
}

static void add_candidates(tcol *c, pass_col *pc)
{
    for (size_t i = 0; i < c->ncand; i++, pc->ncand++)
        if (pc->ncand < pc->room)
            pc->cand[pc->ncand] = c->cand[i];
    c->ncand = 0;
}

int tally_add(tally *t, cs_error *e)
{
    (void)e;
    pass_plan *p = t->plan;
    for (int k = 0; p && k < t->ncols && k < p->ncols; k++) {
        pass_col *pc = &p->col[k];
        tcol *c = &t->col[k];
        if (pc->sel)
            add_counts(c, pc->counts, qsel_nbins(pc->sel));
        for (size_t j = 0; pc->sel && j < c->nranges; j++) {
            pc->kmin[j] = c->kmin[j] < pc->kmin[j] ? c->kmin[j] : pc->kmin[j];
            pc->kmax[j] = c->kmax[j] > pc->kmax[j] ? c->kmax[j] : pc->kmax[j];
            c->kmin[j] = UINT64_MAX;
            c->kmax[j] = 0;
        }
        add_candidates(c, pc);
        if (pc->h && c->hist_dirty) {
            hist_merge(pc->h, &c->h);
            memset(c->h.bins, 0, (size_t)c->h.nbins * sizeof *c->h.bins);
            c->h.underflow = c->h.overflow = 0;
            c->hist_dirty = 0;
        }
    }
    return CS_OK;
}

/* ---- every kept value, by threads ---------------------------------
 * The blocks, column by column, are cut into one run per thread: a
 * thread meets few columns, and adds its tally under the lock when it
 * leaves one or its counters could overflow. */

typedef struct kept_work {
    pass_plan *plan;
    const value_store *k;
    size_t *first; /* per column: its first item */
    size_t nitems;
    int nthreads;
    pthread_mutex_t mu;
    cs_error err;
} kept_work;

typedef struct kept_thread {
    kept_work *w;
    int id;
} kept_thread;

static int flush(kept_work *w, tally *t, cs_error *e)
{
    pthread_mutex_lock(&w->mu);
    int rc = tally_add(t, e);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

static int count_item(kept_work *w, tally *t, vstore_buf *buf, int col,
                      size_t i, cs_error *e)
{
    const double *d;
    const int32_t *r;
    size_t n;
    if (vstore_read(w->k, col, i, buf, &d, &r, &n, e) != CS_OK)
        return e->status;
    if (n > tally_room(t, col) && flush(w, t, e) != CS_OK)
        return e->status;
    return tally_values(t, col, d, r, n, e);
}

static void *kept_main(void *arg)
{
    kept_thread *kt = arg;
    kept_work *w = kt->w;
    cs_error e = {0};
    vstore_buf buf = {0};
    tally *t = tally_new(w->plan->ncols);
    size_t from = w->nitems * (size_t)kt->id / (size_t)w->nthreads;
    size_t to = w->nitems * (size_t)(kt->id + 1) / (size_t)w->nthreads;
    int col = 0;
    if (!t)
        out_of_memory(&e);
    else
        tally_reset(t, w->plan, &e);
    for (size_t it = from; it < to && !e.status; it++) {
        while (it >= w->first[col + 1])
            col++;
        count_item(w, t, &buf, col, it - w->first[col], &e);
    }
    if (t && !e.status)
        flush(w, t, &e);
    pthread_mutex_lock(&w->mu);
    if (e.status && !w->err.status)
        w->err = e;
    pthread_mutex_unlock(&w->mu);
    tally_free(t);
    vstore_buf_free(&buf);
    return NULL;
}

static int run_threads(kept_work *w, cs_error *e)
{
    kept_thread *kt = calloc((size_t)w->nthreads, sizeof *kt);
    pthread_t *th = calloc((size_t)w->nthreads, sizeof *th);
    int started = 0;
    for (int i = 0; kt && th && i < w->nthreads; i++) {
        kt[i] = (kept_thread){w, i};
        if (pthread_create(&th[i], NULL, kept_main, &kt[i]) != 0)
            break;
        started++;
    }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (started < w->nthreads && !w->err.status)
        cs_fail(&w->err, CS_ENOMEM, "", 0,
                "out of memory (or at the process limit) starting the "
                "threads of a pass");
    free(kt);
    free(th);
    if (w->err.status)
        return cs_fail(e, w->err.status, w->err.file, w->err.line, "%s",
                       w->err.msg);
    return CS_OK;
}

int tally_kept(const pass_plan *p, const value_store *k, int nthreads,
               cs_error *e)
{
    kept_work w = {0};
    w.plan = (pass_plan *)p;
    w.k = k;
    w.first = calloc((size_t)p->ncols + 1, sizeof *w.first);
    if (!w.first)
        return out_of_memory(e);
    for (int c = 0; c < p->ncols; c++) {
        int used = p->col[c].h || (p->col[c].sel && !qsel_done(p->col[c].sel));
        w.first[c + 1] = w.first[c] + (used ? vstore_nblocks(k, c) : 0);
    }
    w.nitems = w.first[p->ncols];
    w.nthreads = nthreads < 1 ? 1 : nthreads;
    if ((size_t)w.nthreads > w.nitems)
        w.nthreads = w.nitems ? (int)w.nitems : 1;
    pthread_mutex_init(&w.mu, NULL);
    int rc = w.nitems ? run_threads(&w, e) : CS_OK;
    pthread_mutex_destroy(&w.mu);
    free(w.first);
    return rc;
}
