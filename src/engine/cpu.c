/* The CPU backend: each worker reduces its job's row batches into the job's own
 * state as they are parsed (the values are still in cache); retiring merges
 * job states in input order into the run's (a job state's distinct
 * values' counts over several of its jobs: counts merge in any order, and
 * flush merges what the states still hold). Statistics that need every
 * value (quantiles, histograms without a fixed range) keep the values
 * (src/stats/value_store.h) within --memory, spilling past it for a stream; the
 * passes after finish count the kept values with threads, or, when they
 * were dropped, the jobs of every input fed again. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "io/base/row_keys.h"
#include "src/engine/backend.h"
#include "src/stats/prof_spill.h"
#include "src/stats/value_store.h"

/* Bytes per job: enough that per-job costs vanish, few enough per thread
 * to keep every core busy and memory low; binary decoding is cheap, so its
 * jobs are larger. Rows per row batch: small enough to stay in cache until
 * reduced. */
#define CPU_BLOCK (1u << 20)
#define CPU_BINARY_BLOCK (4u << 20)
#define CPU_BATCH_ROWS 8192
/* ... but no more than CPU_BATCH_VALUES values a row batch (8192 rows of
 * 100000 columns would take 400 MB a job): wide tables get fewer rows. */
#define CPU_BATCH_VALUES (1u << 20)
#define CPU_BATCH_MIN_ROWS 16
/* A job's state is a col_stats a column: a job reads at least
 * CPU_BYTES_PER_COLUMN bytes a column, so that its state stays within a
 * few times its bytes (100000 columns: 40 MB of state a job). */
#define CPU_BYTES_PER_COLUMN 64
/* A job's distinct values' counts stay in its state over this many of its
 * uses before retiring merges them into the run's: merging every 1 MiB
 * job's table on the main thread bound 16 cores to 0.8 GB/s (16 GB of
 * 54,000 distinct numbers: 16,000 merges of ~25,000 values each), while
 * the workers' tables keep growing in parallel. Only while the tables
 * and the run's take at most half of --memory: past it, every job's is
 * merged at once, as before. */
#define CPU_PROFILE_USES 32

typedef struct cpu_jstate {
    col_stats *st;
    hist *h;           /* --range */
    value_store *keep; /* values needed at the end */
    tally *tally;      /* a pass's counts, made at the first pass */
    int tally_set;     /* reset for the current pass */
    col_prof *prof;    /* with params.kind: per column */
    int uses;          /* jobs whose profiles prof holds, not yet merged */
    size_t prof_bytes; /* their bytes, as retire last saw them */
} cpu_jstate;

typedef struct cpu_backend {
    backend base; /* first: the engine sees this */
    backend_params p;
    int need_values;
    cpu_jstate merged;  /* the merged state; run.keep within --memory */
    atomic_int keeping; /* workers still keep values */
    /* the distinct values: workers count them (until they pass --memory);
       they passed it on the first reading; a pass over one partition of
       them (pparts > 0) is being counted, and passed it too */
    atomic_int counting;
    int prof_over;
    uint32_t ppart, pparts;
    int pass_over;
    profile_fill fill;  /* how the reading filled --memory */
    prof_spill *pspill; /* a stream's values past --memory */
    pass_plan *plan;    /* the pass being counted, or NULL */
    /* every job's state (flush merges the profiles they still hold), and
       the bytes those hold (main thread) */
    cpu_jstate **jst;
    size_t njst, capjst;
    size_t held_bytes;
    uint64_t rows_seen; /* rows retired so far */
} cpu_backend;

static void jstate_clear(const cpu_backend *c, cpu_jstate *pt)
{
    for (int k = 0; pt->st && k < c->p.ncols; k++) {
        stats_free(&pt->st[k]);
        stats_init(&pt->st[k]);
    }
    for (int k = 0; pt->h && k < c->p.ncols; k++) {
        memset(pt->h[k].bins, 0, (size_t)pt->h[k].nbins * sizeof(uint64_t));
        pt->h[k].underflow = pt->h[k].overflow = 0;
    }
    for (int k = 0; pt->prof && !pt->uses && k < c->p.ncols; k++)
        profile_clear(&pt->prof[k]);
    pt->tally_set = 0;
}

static void jstate_release(const cpu_backend *c, cpu_jstate *pt)
{
    for (int k = 0; pt->st && k < c->p.ncols; k++)
        stats_free(&pt->st[k]);
    for (int k = 0; pt->h && k < c->p.ncols; k++)
        hist_free(&pt->h[k]);
    for (int k = 0; pt->prof && k < c->p.ncols; k++)
        profile_free(&pt->prof[k]);
    free(pt->prof);
    free(pt->h);
    free(pt->st);
    vstore_free(pt->keep);
    tally_free(pt->tally);
}

/* lim: the run's limits, NULL for a job's store. */
static int jstate_make(const cpu_backend *c, cpu_jstate *pt,
                       const vstore_limits *lim)
{
    const backend_params *p = &c->p;
    size_t n = (size_t)(p->ncols ? p->ncols : 1);
    memset(pt, 0, sizeof *pt);
    pt->st = malloc(n * sizeof *pt->st);
    for (size_t k = 0; pt->st && k < n; k++)
        stats_init(&pt->st[k]);
    int ok = pt->st != NULL;
    if (ok && (p->what & STAT_HIST) && p->have_range) {
        pt->h = calloc(n, sizeof *pt->h);
        ok = pt->h != NULL;
        for (int k = 0; ok && k < p->ncols; k++)
            ok = hist_init(&pt->h[k], p->nbins, p->range_lo, p->range_hi) == 0;
    }
    if (ok && c->need_values)
        ok = (pt->keep = vstore_new(p->ncols, lim)) != NULL;
    if (ok && p->kind) {
        int counting = (p->what & STAT_PROFILE) != 0;
        ok = (pt->prof = calloc(n, sizeof *pt->prof)) != NULL;
        for (int k = 0; ok && k < p->ncols; k++)
            ok = profile_init(&pt->prof[k], counting) == 0;
    }
    jstate_clear(c, pt);
    return ok ? 0 : -1;
}

/* Registers pt among the job states flush visits; -1 out of memory. The
 * main thread makes and frees job states (jobs.c's take_job, which also
 * retires), so the list needs no lock. */
static int register_jstate(cpu_backend *c, cpu_jstate *pt)
{
    if (c->njst == c->capjst) {
        size_t cap = c->capjst ? 2 * c->capjst : 16;
        cpu_jstate **a = realloc(c->jst, cap * sizeof *a);
        if (!a)
            return -1;
        c->jst = a;
        c->capjst = cap;
    }
    c->jst[c->njst++] = pt;
    return 0;
}

static void unregister_jstate(cpu_backend *c, const cpu_jstate *pt)
{
    for (size_t i = 0; i < c->njst; i++)
        if (c->jst[i] == pt) {
            c->jst[i] = c->jst[--c->njst];
            break;
        }
}

static void *cpu_jstate_new(backend *b)
{
    cpu_backend *c = (cpu_backend *)b;
    cpu_jstate *pt = malloc(sizeof *pt);
    if (pt) {
        pt->uses = 0;
        pt->prof_bytes = 0;
    }
    if (pt && (jstate_make(c, pt, NULL) || register_jstate(c, pt))) {
        jstate_release(c, pt);
        free(pt);
        return NULL;
    }
    return pt;
}

static void cpu_jstate_reset(backend *b, void *state)
{
    jstate_clear((cpu_backend *)b, state);
}

static void cpu_jstate_free(backend *b, void *state)
{
    cpu_backend *c = (cpu_backend *)b;
    cpu_jstate *pt = state;
    unregister_jstate(c, pt);
    c->held_bytes -= pt->uses ? pt->prof_bytes : 0;
    jstate_release(c, pt);
    free(state);
}

/* Values, then the fields that did not enter, of each column. */
static int reduce(const row_batch *c, uint64_t first_row, col_stats *s,
                  unsigned what)
{
    int rc = 0;
    for (int k = 0; k < c->ncols; k++) {
        rc |= stats_add_values(&s[k], c->col[k],
                               c->has_corr[k] ? c->corr[k] : NULL, c->nrows,
                               first_row, what);
        stats_add_offsets(&s[k], c->has_off[k] ? c->off[k] : NULL, c->nrows,
                          first_row);
        stats_add_counts(
            &s[k], c->missing[k], c->invalid[k], c->nan[k],
            c->first_invalid[k] ? first_row - 1 + c->first_invalid[k] : 0);
    }
    return rc;
}

/* A pass over the input read again: the job counts into its tally. */
static int count_batch(cpu_backend *cb, cpu_jstate *pt, const row_batch *c,
                       cs_error *e)
{
    if (!pt->tally && !(pt->tally = tally_new(cb->p.ncols)))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory counting a pass");
    if (!pt->tally_set && tally_reset(pt->tally, cb->plan, e) != CS_OK)
        return e->status;
    pt->tally_set = 1;
    return tally_batch(pt->tally, c, e);
}

static int keep_batch(cpu_jstate *pt, const row_batch *c, cs_error *e)
{
    for (int k = 0; k < c->ncols; k++)
        if (vstore_add(pt->keep, k, c->col[k],
                       c->has_corr[k] ? c->corr[k] : NULL, c->nrows,
                       e) != CS_OK)
            return e->status;
    return CS_OK;
}

/* A text column's fields, from the row batch's keys. */
static int profile_texts(col_prof *p, const row_keys *keys, int i, size_t n)
{
    for (size_t r = 0; r < n; r++) {
        size_t at = r * (size_t)keys->nkeys + (size_t)i;
        uint32_t len = keys->len[at];
        const char *s = len == KEY_MISSING ? NULL : keys->text + keys->off[at];
        if (profile_add_text(p, s, len == KEY_MISSING ? 0 : len))
            return -1;
    }
    return 0;
}

static int profile_batch(const cpu_backend *cb, cpu_jstate *pt,
                         const row_batch *c, cs_error *e)
{
    const backend_params *p = &cb->p;
    if (p->nkeys && (!c->keys || c->keys->failed))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for text fields");
    int counting = atomic_load_explicit(&((cpu_backend *)cb)->counting,
                                        memory_order_relaxed);
    for (int k = 0; k < c->ncols; k++) {
        col_prof *q = &pt->prof[k];
        vcount *vals = q->vals;
        if (!counting) /* past --memory: the passes count them */
            q->vals = NULL;
        profile_partition(q, cb->ppart, cb->pparts);
        int rc = p->kind[k] == COL_TEXT
                     ? profile_texts(q, c->keys, p->text_key[k], c->nrows)
                     : profile_add_numbers(q, c->col[k],
                                           c->has_corr[k] ? c->corr[k] : NULL,
                                           c->nrows);
        q->vals = vals;
        if (rc)
            return cs_fail(e, CS_ENOMEM, "", 0,
                           "out of memory counting distinct values");
    }
    return CS_OK;
}

static int cpu_batch_done(backend *b, job *j, const row_batch *c, cs_error *e)
{
    cpu_backend *cb = (cpu_backend *)b;
    cpu_jstate *pt = j->jstate;
    if (cb->plan)
        return count_batch(cb, pt, c, e);
    if (cb->pparts)
        return profile_batch(cb, pt, c, e);
    if (reduce(c, j->rows + 1, pt->st, cb->p.what))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int k = 0; pt->h && k < c->ncols; k++)
        hist_add_values(&pt->h[k], c->col[k], c->nrows);
    if (pt->prof && profile_batch(cb, pt, c, e) != CS_OK)
        return e->status;
    if (pt->keep && atomic_load_explicit(&cb->keeping, memory_order_relaxed))
        return keep_batch(pt, c, e);
    return CS_OK;
}

/* The merged values freed and begun anew, empty. */
static int drop_values(cpu_backend *cb, cs_error *e)
{
    for (int k = 0; k < cb->p.ncols; k++) {
        col_prof *q = &cb->merged.prof[k];
        int had = q->vals != NULL || (cb->p.what & STAT_PROFILE);
        vcount_free(q->vals);
        q->vals = NULL;
        if (had && !(q->vals = vcount_new()))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    return CS_OK;
}

/* The distinct values' room: --memory, with profile_budget's floor. */
static size_t prof_budget(const cpu_backend *cb)
{
    return profile_budget(cb->p.memory, cb->p.ncols);
}

/* Past --memory on a stream (it cannot be read again): the merged values
 * and every job's from now on go to a temporary file, which the passes
 * over partitions read instead of the input. */
static int spill_values(cpu_backend *cb, cs_error *e)
{
    if (!cb->pspill && prof_spill_open(&cb->pspill, cb->p.tmpdir, e) != CS_OK)
        return e->status;
    for (int k = 0; k < cb->p.ncols; k++)
        if (cb->merged.prof[k].vals &&
            prof_spill_put(cb->pspill, k, cb->merged.prof[k].vals, e) != CS_OK)
            return e->status;
    cb->prof_over = 1;
    return drop_values(cb, e);
}

/* The run's distinct values count against --memory. Past it they are
 * counted again by partitions, a pass over the input each (the engine's
 * profile passes); a stream, which cannot be read again, is an error
 * (never an approximation). rows_after: the rows read once pt is in;
 * where the values passed half of --memory and all of it sizes the
 * partitions (engine.c). */
static int merge_profiles(cpu_backend *cb, cpu_jstate *pt, uint64_t rows_after,
                          cs_error *e)
{
    size_t bytes = cb->held_bytes; /* the job states' not yet merged */
    int values = !cb->prof_over || cb->pparts;
    for (int k = 0; k < cb->p.ncols; k++) {
        col_prof *q = &cb->merged.prof[k];
        int rc = cb->pparts ? profile_merge_values(q, &pt->prof[k]) : 0;
        if (!cb->pparts) {
            vcount *vals = pt->prof[k].vals;
            if (!values)
                pt->prof[k].vals = NULL;
            rc = profile_merge(q, &pt->prof[k]);
            pt->prof[k].vals = vals;
            if (!rc && !values && cb->pspill && vals &&
                prof_spill_put(cb->pspill, k, vals, e) != CS_OK)
                return e->status;
        }
        if (rc)
            return cs_fail(e, CS_ENOMEM, "", 0,
                           "out of memory counting distinct values");
        bytes += profile_bytes(q);
    }
    profile_fill *f = &cb->fill;
    if (!f->half_rows && bytes > prof_budget(cb) / 2)
        f->half_rows = rows_after;
    if (bytes <= prof_budget(cb) || !values)
        return CS_OK;
    if (!f->over_rows)
        *f = (profile_fill){f->half_rows, rows_after, bytes, prof_budget(cb)};
    if (cb->p.spill && !cb->pparts) /* a stream: its values to a file */
        return spill_values(cb, e);
    atomic_store(&cb->counting, 0);
    if (cb->pparts)
        cb->pass_over = 1;
    else
        cb->prof_over = 1;
    return drop_values(cb, e);
}

/* Whether a job's profiles may stay in its state: the run counts on, and
 * they and the run's take at most half of --memory. */
static int can_hold(cpu_backend *cb)
{
    size_t bytes = cb->held_bytes;
    for (int k = 0; k < cb->p.ncols; k++)
        bytes += profile_bytes(&cb->merged.prof[k]);
    return !cb->prof_over && !cb->pparts && atomic_load(&cb->counting) &&
           bytes <= prof_budget(cb) / 2;
}

/* The profiles pt holds merged into the run's. */
static int merge_held(cpu_backend *cb, cpu_jstate *pt, uint64_t rows_after,
                      cs_error *e)
{
    cb->held_bytes -= pt->uses ? pt->prof_bytes : 0;
    pt->prof_bytes = 0;
    pt->uses = 0;
    return merge_profiles(cb, pt, rows_after, e);
}

/* A retired job's profiles: merged, or held in its state for its next
 * uses (CPU_PROFILE_USES). */
static int retire_profiles(cpu_backend *cb, cpu_jstate *pt, uint64_t rows_after,
                           cs_error *e)
{
    size_t bytes = 0;
    for (int k = 0; k < cb->p.ncols; k++)
        bytes += profile_bytes(&pt->prof[k]);
    cb->rows_seen = rows_after;
    cb->held_bytes -= pt->uses ? pt->prof_bytes : 0;
    cb->held_bytes += bytes;
    pt->prof_bytes = bytes;
    if (++pt->uses < CPU_PROFILE_USES && can_hold(cb))
        return CS_OK;
    return merge_held(cb, pt, rows_after, e);
}

/* Every job's held profiles merged: the input is read (or a pass of it). */
static int cpu_flush(backend *b, cs_error *e)
{
    cpu_backend *cb = (cpu_backend *)b;
    for (size_t i = 0; !e->status && i < cb->njst; i++)
        if (cb->jst[i]->uses)
            merge_held(cb, cb->jst[i], cb->rows_seen, e);
    return e->status;
}

static int cpu_retire(backend *b, job *j, uint64_t first_row, int abandon,
                      cs_error *e)
{
    cpu_backend *cb = (cpu_backend *)b;
    cpu_jstate *pt = j->jstate;
    if (abandon)
        return e->status;
    if (cb->plan)
        return pt->tally_set ? tally_add(pt->tally, e) : CS_OK;
    if (cb->pparts)
        return merge_profiles(cb, pt, first_row - 1 + j->rows, e);
    for (int k = 0; k < cb->p.ncols; k++) {
        if (stats_merge(&cb->merged.st[k], &pt->st[k], first_row - 1))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        if (pt->h)
            hist_merge(&cb->merged.h[k], &pt->h[k]);
    }
    if (pt->prof &&
        retire_profiles(cb, pt, first_row - 1 + j->rows, e) != CS_OK)
        return e->status;
    if (!pt->keep || vstore_move(cb->merged.keep, pt->keep, e) != CS_OK)
        return e->status;
    if (vstore_dropped(cb->merged.keep)) /* past --memory: the passes re-read */
        atomic_store(&cb->keeping, 0);
    return CS_OK;
}

static int cpu_finish(backend *b, col_stats *out, hist *h, cs_error *e)
{
    cpu_backend *c = (cpu_backend *)b;
    const backend_params *p = &c->p;
    (void)e;
    for (int k = 0; k < p->ncols; k++) { /* moved: out[k] is empty */
        stats_free(&out[k]);
        out[k] = c->merged.st[k];
        stats_init(&c->merged.st[k]);
    }
    if (!(p->what & STAT_HIST) || !p->have_range)
        return CS_OK;
    for (int k = 0; k < p->ncols; k++) {
        h[k] = c->merged.h[k]; /* moved: the caller frees it */
        c->merged.h[k].bins = NULL;
    }
    return CS_OK;
}

/* The merged profiles moved out; nothing made here. */
static int cpu_profiles(backend *b, const col_stats *st, size_t k,
                        col_prof *out, int *over, cs_error *e)
{
    (void)st;
    (void)k;
    (void)e;
    cpu_backend *c = (cpu_backend *)b;
    for (int j = 0; c->merged.prof && j < c->p.ncols; j++) {
        out[j] = c->merged.prof[j]; /* moved */
        c->merged.prof[j].vals = NULL;
    }
    *over = c->prof_over;
    return CS_OK;
}

int backend_cpu_profile_pass(backend *b, uint32_t part, uint32_t nparts,
                             cs_error *e)
{
    cpu_backend *c = (cpu_backend *)b;
    c->ppart = part;
    c->pparts = nparts;
    c->pass_over = 0;
    memset(&c->fill, 0, sizeof c->fill);
    atomic_store(&c->counting, 1);
    return nparts ? drop_values(c, e) : CS_OK;
}

int backend_cpu_profiles_spilled(backend *b)
{
    return ((cpu_backend *)b)->pspill != NULL;
}

typedef struct spill_count {
    cpu_backend *c;
    size_t bytes; /* the merged values' */
} spill_count;

static int count_spilled(void *ctx, int col, const char *key, size_t len,
                         uint64_t count)
{
    spill_count *sc = ctx;
    cpu_backend *c = sc->c;
    if (col < 0 || col >= c->p.ncols || !c->p.kind)
        return -1;
    col_prof *q = &c->merged.prof[col];
    size_t had = profile_bytes(q);
    if (profile_add_counted(q, key, len, count, c->p.kind[col] == COL_TEXT))
        return -1;
    sc->bytes += profile_bytes(q) - had;
    if (sc->bytes > prof_budget(c))
        c->pass_over = 1;
    return c->pass_over;
}

int backend_cpu_profile_spill_pass(backend *b, uint32_t part, uint32_t nparts,
                                   cs_error *e)
{
    cpu_backend *c = (cpu_backend *)b;
    if (backend_cpu_profile_pass(b, part, nparts, e) != CS_OK)
        return e->status;
    spill_count sc = {c, 0};
    for (int k = 0; k < c->p.ncols; k++) {
        profile_partition(&c->merged.prof[k], part, nparts);
        sc.bytes += profile_bytes(&c->merged.prof[k]);
    }
    int stopped;
    if (prof_spill_scan(c->pspill, count_spilled, &sc, &stopped, e) != CS_OK)
        return e->status;
    if (stopped && !c->pass_over)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    return CS_OK;
}

int backend_cpu_profile_pass_end(backend *b, col_prof **merged)
{
    cpu_backend *c = (cpu_backend *)b;
    *merged = c->merged.prof;
    return c->pass_over;
}

profile_fill backend_cpu_profiles_filled(backend *b)
{
    return ((cpu_backend *)b)->fill;
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
    *all = c->merged.keep && !vstore_dropped(c->merged.keep);
    if (!*all)
        return CS_OK;
    return tally_kept(c->plan, c->merged.keep, c->p.nthreads, e);
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
    const value_store *k = c->merged.keep;
    if (!k)
        return;
    if (vstore_dropped(k))
        account_say(acc,
                    "kept    none: the values passed --memory (%.1f MB); "
                    "the passes read the input again",
                    (double)c->p.memory / 1e6);
    else
        account_say(acc,
                    "kept    %llu values: %.1f MB in memory, %.1f MB in a "
                    "temporary file",
                    (unsigned long long)vstore_values(k),
                    (double)vstore_memory(k) / 1e6,
                    (double)vstore_spilled(k) / 1e6);
}

static void cpu_close(backend *b)
{
    cpu_backend *c = (cpu_backend *)b;
    prof_spill_close(c->pspill);
    jstate_release(c, &c->merged);
    free(c->jst);
    free(c);
}

static const backend_ops cpu_ops = {
    .jstate_new = cpu_jstate_new,
    .jstate_reset = cpu_jstate_reset,
    .jstate_free = cpu_jstate_free,
    .batch_done = cpu_batch_done,
    .retire = cpu_retire,
    .flush = cpu_flush,
    .finish = cpu_finish,
    .pass_begin = cpu_pass_begin,
    .pass_kept = cpu_pass_kept,
    .pass_end = cpu_pass_end,
    .profiles = cpu_profiles,
    .describe = cpu_describe,
    .close = cpu_close,
};

int backend_cpu_open(const backend_params *p, backend **out, cs_error *e)
{
    *out = NULL;
    cpu_backend *c = calloc(1, sizeof *c);
    if (!c)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    c->p = *p;
    c->need_values = stats_need_values(p->what, p->have_range);
    atomic_init(&c->keeping, 1);
    atomic_init(&c->counting, 1);
    size_t rows = CPU_BATCH_VALUES / (size_t)(p->ncols ? p->ncols : 1);
    rows = rows > CPU_BATCH_ROWS       ? CPU_BATCH_ROWS
           : rows < CPU_BATCH_MIN_ROWS ? CPU_BATCH_MIN_ROWS
                                       : rows;
    size_t block = p->spec ? CPU_BINARY_BLOCK : CPU_BLOCK;
    if (block < (size_t)p->ncols * CPU_BYTES_PER_COLUMN)
        block = (size_t)p->ncols * CPU_BYTES_PER_COLUMN;
    c->base =
        (backend){&cpu_ops, NULL, "cpu", block,
                  rows,     0,    NULL,  (size_t)p->ncols * sizeof(col_stats)};
    vstore_limits lim = {p->memory, p->spill, p->tmpdir};
    if (jstate_make(c, &c->merged, &lim)) {
        cpu_close(&c->base);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    *out = &c->base;
    return CS_OK;
}
