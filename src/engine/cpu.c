/* The CPU backend: each worker reduces its job's chunks into the job's own
 * state as they are parsed (the values are still in cache); retiring merges
 * job states in input order into the run's. Statistics that need every
 * value (quantiles, histograms without a fixed range) keep the values
 * (src/stats/kept.h) within --memory, spilling past it for a stream; the
 * passes after finish count the kept values with threads, or, when they
 * were dropped, the jobs of every input fed again. */
#include <stdatomic.h>
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
    hist *h;       /* --range */
    kept *keep;    /* values needed at the end */
    tally *tally;  /* a pass's counts, made at the first pass */
    int tally_set; /* reset for the current pass */
} cpu_part;

typedef struct cpu_backend {
    backend base; /* first: the engine sees this */
    backend_params p;
    int need_values;
    cpu_part run;       /* the merged state; run.keep within --memory */
    atomic_int keeping; /* workers still keep values */
    pass_plan *plan;    /* the pass being counted, or NULL */
} cpu_backend;

static void part_clear(const cpu_backend *c, cpu_part *pt)
{
    for (int k = 0; pt->st && k < c->p.ncols; k++)
        stats_init(&pt->st[k]);
    for (int k = 0; pt->h && k < c->p.ncols; k++) {
        memset(pt->h[k].bins, 0, (size_t)pt->h[k].nbins * sizeof(uint64_t));
        pt->h[k].underflow = pt->h[k].overflow = 0;
    }
    pt->tally_set = 0;
}

static void part_release(const cpu_backend *c, cpu_part *pt)
{
    for (int k = 0; pt->h && k < c->p.ncols; k++)
        hist_free(&pt->h[k]);
    free(pt->h);
    free(pt->st);
    kept_free(pt->keep);
    tally_free(pt->tally);
}

/* lim: the run's limits, NULL for a job's store. */
static int part_make(const cpu_backend *c, cpu_part *pt, const kept_limits *lim)
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
    }
    if (ok && c->need_values)
        ok = (pt->keep = kept_new(p->ncols, lim)) != NULL;
    part_clear(c, pt);
    return ok ? 0 : -1;
}

static void *cpu_part_new(backend *b)
{
    cpu_backend *c = (cpu_backend *)b;
    cpu_part *pt = malloc(sizeof *pt);
    if (pt && part_make(c, pt, NULL)) {
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

/* A pass over the input read again: the job counts into its tally. */
static int count_chunk(cpu_backend *cb, cpu_part *pt, const chunk *c,
                       cs_error *e)
{
    if (!pt->tally && !(pt->tally = tally_new(cb->p.ncols)))
        return cs_fail(e, CS_EDATA, "", 0, "out of memory counting a pass");
    if (!pt->tally_set && tally_reset(pt->tally, cb->plan, e) != CS_OK)
        return e->status;
    pt->tally_set = 1;
    return tally_chunk(pt->tally, c, e);
}

static int keep_chunk(cpu_part *pt, const chunk *c, cs_error *e)
{
    for (int k = 0; k < c->ncols; k++)
        if (kept_add(pt->keep, k, c->col[k], c->has_corr[k] ? c->corr[k] : NULL,
                     c->nrows, e) != CS_OK)
            return e->status;
    return CS_OK;
}

static int cpu_chunk_done(backend *b, job *j, const chunk *c, cs_error *e)
{
    cpu_backend *cb = (cpu_backend *)b;
    cpu_part *pt = j->part;
    if (cb->plan)
        return count_chunk(cb, pt, c, e);
    reduce(c, j->rows + 1, pt->st, cb->p.what);
    for (int k = 0; pt->h && k < c->ncols; k++)
        hist_add_values(&pt->h[k], c->col[k], c->nrows);
    if (pt->keep && atomic_load_explicit(&cb->keeping, memory_order_relaxed))
        return keep_chunk(pt, c, e);
    return CS_OK;
}

static int cpu_retire(backend *b, job *j, uint64_t first_row, int abandon,
                      cs_error *e)
{
    cpu_backend *cb = (cpu_backend *)b;
    cpu_part *pt = j->part;
    if (abandon)
        return e->status;
    if (cb->plan)
        return pt->tally_set ? tally_add(pt->tally, e) : CS_OK;
    for (int k = 0; k < cb->p.ncols; k++) {
        stats_merge(&cb->run.st[k], &pt->st[k], first_row - 1);
        if (pt->h)
            hist_merge(&cb->run.h[k], &pt->h[k]);
    }
    if (!pt->keep || kept_move(cb->run.keep, pt->keep, e) != CS_OK)
        return e->status;
    if (kept_dropped(cb->run.keep)) /* past --memory: the passes re-read */
        atomic_store(&cb->keeping, 0);
    return CS_OK;
}

static int cpu_finish(backend *b, col_stats *out, hist *h, cs_error *e)
{
    cpu_backend *c = (cpu_backend *)b;
    const backend_params *p = &c->p;
    (void)e;
    for (int k = 0; k < p->ncols; k++)
        stats_merge(&out[k], &c->run.st[k], 0);
    if (!(p->what & STAT_HIST) || !p->have_range)
        return CS_OK;
    for (int k = 0; k < p->ncols; k++) {
        h[k] = c->run.h[k]; /* moved: the caller frees it */
        c->run.h[k].bins = NULL;
    }
    return CS_OK;
}

static int cpu_pass_begin(backend *b, pass_plan *p, cs_error *e)
{
    ((cpu_backend *)b)->plan = p;
    (void)e;
    return CS_OK;
}

static int cpu_pass_kept(backend *b, int *all, cs_error *e)
{
    cpu_backend *c = (cpu_backend *)b;
    *all = c->run.keep && !kept_dropped(c->run.keep);
    if (!*all)
        return CS_OK;
    return tally_kept(c->plan, c->run.keep, c->p.nthreads, e);
}

static int cpu_pass_end(backend *b, cs_error *e)
{
    ((cpu_backend *)b)->plan = NULL;
    return e->status;
}

static void cpu_describe(backend *b, account *acc)
{
    cpu_backend *c = (cpu_backend *)b;
    account_say(acc, "reduce  %8.3f s  thread time", acc->t[ACC_REDUCE]);
    const kept *k = c->run.keep;
    if (!k)
        return;
    if (kept_dropped(k))
        account_say(acc,
                    "kept    none: the values passed --memory (%.1f MB); "
                    "the passes read the input again",
                    (double)c->p.memory / 1e6);
    else
        account_say(acc,
                    "kept    %llu values: %.1f MB in memory, %.1f MB in a "
                    "temporary file",
                    (unsigned long long)kept_values(k),
                    (double)kept_memory(k) / 1e6,
                    (double)kept_spilled(k) / 1e6);
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
    .pass_begin = cpu_pass_begin,
    .pass_kept = cpu_pass_kept,
    .pass_end = cpu_pass_end,
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
    c->need_values = stats_need_values(p->what, p->have_range);
    atomic_init(&c->keeping, 1);
    c->base = (backend){
        &cpu_ops,       NULL, "cpu", p->spec ? CPU_BINARY_BLOCK : CPU_BLOCK,
        CPU_CHUNK_ROWS, 0,    NULL};
    kept_limits lim = {p->memory, p->spill, p->tmpdir};
    if (part_make(c, &c->run, &lim)) {
        cpu_close(&c->base);
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    }
    *out = &c->base;
    return CS_OK;
}
