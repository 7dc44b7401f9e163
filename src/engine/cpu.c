/* The CPU backend: each worker reduces its job's chunks into the job's own
 * state as they are parsed (the values are still in cache); retiring merges
 * job states in input order into the run's; histograms without a fixed
 * range keep the values (src/stats/kept.h) and bin them at the end, once
 * the final min and max set the edges. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "src/engine/backend.h"
#include "src/stats/kept.h"

/* Bytes per job: enough that per-job costs vanish, few enough per thread
 * to keep every core busy and memory low; binary decoding is cheap, so its
 * jobs are larger. Rows per chunk: small enough to stay in cache until
 * reduced. */
#define CPU_BLOCK (1u << 20)
#define CPU_BINARY_BLOCK (4u << 20)
#define CPU_CHUNK_ROWS 8192

typedef struct cpu_part {
    col_stats *st;
    hist *h;    /* --range */
    kept *keep; /* histogram without --range */
} cpu_part;

typedef struct cpu_backend {
    backend base; /* first: the engine sees this */
    backend_params p;
    cpu_part run; /* the merged state */
} cpu_backend;

static void part_clear(const cpu_backend *c, cpu_part *pt)
{
    for (int k = 0; pt->st && k < c->p.ncols; k++)
        stats_init(&pt->st[k]);
    for (int k = 0; pt->h && k < c->p.ncols; k++) {
        memset(pt->h[k].bins, 0, (size_t)pt->h[k].nbins * sizeof(uint64_t));
        pt->h[k].underflow = pt->h[k].overflow = 0;
    }
}

static void part_release(const cpu_backend *c, cpu_part *pt)
{
    for (int k = 0; pt->h && k < c->p.ncols; k++)
        hist_free(&pt->h[k]);
    free(pt->h);
    free(pt->st);
    kept_free(pt->keep);
}

static int part_make(const cpu_backend *c, cpu_part *pt)
{
    const backend_params *p = &c->p;
    size_t n = (size_t)(p->ncols ? p->ncols : 1);
    memset(pt, 0, sizeof *pt);
    pt->st = calloc(n, sizeof *pt->st);
    int ok = pt->st != NULL;
    if (ok && (p->what & STAT_HIST) && p->have_range) {
        pt->h = calloc(n, sizeof *pt->h);
        ok = pt->h != NULL;
        for (int k = 0; ok && k < p->ncols; k++)
            ok = hist_init(&pt->h[k], p->nbins, p->range_lo, p->range_hi) == 0;
    } else if (ok && (p->what & STAT_HIST)) {
        ok = (pt->keep = kept_new(p->ncols)) != NULL;
    }
    part_clear(c, pt);
    return ok ? 0 : -1;
}

static void *cpu_part_new(backend *b)
{
    cpu_backend *c = (cpu_backend *)b;
    cpu_part *pt = malloc(sizeof *pt);
    if (pt && part_make(c, pt)) {
        part_release(c, pt);
        free(pt);
        return NULL;
    }
    return pt;
}

static void cpu_part_reset(backend *b, void *part)
{
    part_clear((cpu_backend *)b, part);
}

static void cpu_part_free(backend *b, void *part)
{
    part_release((cpu_backend *)b, part);
    free(part);
}

/* Values, then the fields that did not enter, of each column. */
static void reduce(const chunk *c, uint64_t first_row, col_stats *s,
                   unsigned what)
{
    for (int k = 0; k < c->ncols; k++) {
        stats_add_values(&s[k], c->col[k], c->has_corr[k] ? c->corr[k] : NULL,
                         c->nrows, first_row, what);
        stats_add_counts(
            &s[k], c->missing[k], c->invalid[k], c->nan[k],
            c->first_invalid[k] ? first_row - 1 + c->first_invalid[k] : 0);
    }
}

static int cpu_chunk_done(backend *b, job *j, const chunk *c, cs_error *e)
{
    cpu_backend *cb = (cpu_backend *)b;
    cpu_part *pt = j->part;
    unsigned what = cb->p.what;
    reduce(c, j->rows + 1, pt->st, what);
    for (int k = 0; (what & STAT_HIST) && k < c->ncols; k++) {
        if (pt->h)
            hist_add_values(&pt->h[k], c->col[k], c->nrows);
        else if (kept_add(pt->keep, k, c->col[k], c->nrows))
            return cs_fail(e, CS_EDATA, "", 0,
                           "out of memory keeping values for --hist "
                           "(give --range LO:HI to bin without them)");
    }
    return CS_OK;
}

static int cpu_retire(backend *b, job *j, uint64_t first_row, int abandon,
                      cs_error *e)
{
    cpu_backend *cb = (cpu_backend *)b;
    cpu_part *pt = j->part;
    if (abandon)
        return e->status;
    for (int k = 0; k < cb->p.ncols; k++) {
        stats_merge(&cb->run.st[k], &pt->st[k], first_row - 1);
        if (pt->h)
            hist_merge(&cb->run.h[k], &pt->h[k]);
    }
    if (pt->keep && kept_move(cb->run.keep, pt->keep))
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    return CS_OK;
}

/* Binning kept values once min and max are final: threads take the
 * columns' blocks in turn, each into its own histograms, merged after. */
typedef struct binner {
    const cpu_backend *c;
    hist *h; /* ncols, this thread's */
    int id, n;
} binner;

static void *bin_thread(void *arg)
{
    binner *bn = arg;
    const cpu_backend *c = bn->c;
    size_t turn = 0;
    for (int k = 0; k < c->p.ncols; k++) {
        const double *v;
        size_t n;
        for (size_t i = 0; (v = kept_block(c->run.keep, k, i, &n)); i++)
            if (turn++ % (size_t)bn->n == (size_t)bn->id)
                hist_add_values(&bn->h[k], v, n);
    }
    return NULL;
}

/* Edges from each column's final (finite) min and max; none (NaN,
 * printed as null) without finite values, as on the GPU. */
static int edges_init(const cpu_backend *c, const col_stats *st, hist *h)
{
    for (int k = 0; k < c->p.ncols; k++) {
        double lo, hi;
        stats_hist_edges(&st[k], &lo, &hi);
        if (hist_init(&h[k], c->p.nbins, lo, hi))
            return -1;
    }
    return 0;
}

static void binners_free(const cpu_backend *c, binner *bn, int n)
{
    for (int i = 0; bn && i < n; i++) {
        for (int k = 0; bn[i].h && k < c->p.ncols; k++)
            hist_free(&bn[i].h[k]);
        free(bn[i].h);
    }
    free(bn);
}

static int bin_kept(cpu_backend *c, hist *out)
{
    int n = c->p.nthreads;
    binner *bn = calloc((size_t)n, sizeof *bn);
    pthread_t *t = calloc((size_t)n, sizeof *t);
    int ok = bn && t && edges_init(c, c->run.st, out) == 0;
    int started = 0;
    for (int i = 0; ok && i < n; i++) {
        bn[i] = (binner){c, calloc((size_t)c->p.ncols + 1, sizeof(hist)), i, n};
        ok = bn[i].h && edges_init(c, c->run.st, bn[i].h) == 0 &&
             pthread_create(&t[i], NULL, bin_thread, &bn[i]) == 0;
        started += ok;
    }
    for (int i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        for (int k = 0; k < c->p.ncols; k++)
            hist_merge(&out[k], &bn[i].h[k]);
    }
    binners_free(c, bn, n);
    free(t);
    return ok ? 0 : -1;
}

static int cpu_finish(backend *b, col_stats *out, hist *h, cs_error *e)
{
    cpu_backend *c = (cpu_backend *)b;
    const backend_params *p = &c->p;
    for (int k = 0; k < p->ncols; k++)
        stats_merge(&out[k], &c->run.st[k], 0);
    if (!(p->what & STAT_HIST))
        return CS_OK;
    if (p->have_range) {
        for (int k = 0; k < p->ncols; k++) {
            h[k] = c->run.h[k]; /* moved: the caller frees it */
            c->run.h[k].bins = NULL;
        }
        return CS_OK;
    }
    double t0 = account_now();
    int rc = bin_kept(c, h);
    account_time(p->acc, ACC_HIST, account_now() - t0);
    return rc ? cs_fail(e, CS_EDATA, "", 0, "out of memory for --hist") : CS_OK;
}

static void cpu_describe(backend *b, account *acc)
{
    (void)b;
    account_say(acc, "reduce  %8.3f s  thread time", acc->t[ACC_REDUCE]);
}

static void cpu_close(backend *b)
{
    cpu_backend *c = (cpu_backend *)b;
    part_release(c, &c->run);
    free(c);
}

static const backend_ops cpu_ops = {
    .part_new = cpu_part_new,
    .part_reset = cpu_part_reset,
    .part_free = cpu_part_free,
    .chunk_done = cpu_chunk_done,
    .retire = cpu_retire,
    .finish = cpu_finish,
    .describe = cpu_describe,
    .close = cpu_close,
};

int backend_cpu_open(const backend_params *p, backend **out, cs_error *e)
{
    *out = NULL;
    cpu_backend *c = calloc(1, sizeof *c);
    if (!c)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    c->p = *p;
    c->base = (backend){
        &cpu_ops,       NULL, "cpu", p->spec ? CPU_BINARY_BLOCK : CPU_BLOCK,
        CPU_CHUNK_ROWS, 0,    NULL};
    if (part_make(c, &c->run)) {
        cpu_close(&c->base);
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    }
    *out = &c->base;
    return CS_OK;
}
