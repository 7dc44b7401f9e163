/* The GPU backend as the engine sees it (backend.h), over gpu/gpu.h: the
 * only file of the engine that knows the GPU. Raw bytes go to the device,
 * which parses them itself; rows the host parsed (after the device hands
 * over, or for a binary stream) pass through the staging ring (stage.h)
 * in job order. The device reduces the values; the fields that did not
 * enter (missing, invalid, NaN) are counted here, on the host. The passes
 * after the input count the values the device kept (gpu_pass) and those
 * of its host store (tally_kept); when it could not keep them all, the
 * inputs come again, parsed and counted on the host (tally.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "src/engine/backend.h"
#include "src/engine/gpu_pack.h"
#include "src/engine/gpu_profile.h"
#include "src/engine/stage.h"

/* Bytes per job the host parses for the device: fewer, larger copies. */
#define GPU_BLOCK (16u << 20)
#define GPU_CSV_BLOCK (8u << 20)
#define GPU_BATCH_ROWS 65536
/* ... and no more values than this in a row batch or a staging slot: fewer
 * rows for a wide table, at least 16. */
#define GPU_BATCH_VALUES ((size_t)1 << 22)

typedef struct gpu_jstate {
    row_batch *pin; /* the staging slot holding the job's rows, or NULL */
    double t_turn;  /* waiting for that slot */
    tally *tally;   /* a pass over the input read again */
    int tally_set;  /* reset for the current pass */
} gpu_jstate;

typedef struct inflight {
    uint64_t seq;
    const row_batch *pin;
} inflight;

typedef struct gpu_engine {
    backend base; /* first: the engine sees this */
    backend_params p;
    gpu_backend *dev;
    row_batch_alloc alloc; /* the device's page-locked memory, timed */
    const row_batch_alloc *dev_alloc;
    stage *stage; /* made at first need: raw input does without */
    size_t stage_rows;
    pthread_mutex_t stage_mu; /* workers make the stage */
    pthread_mutex_t alloc_mu; /* readers and workers page-lock memory */
    inflight fly[STAGE_INFLIGHT + 1];
    int nfly;
    col_stats *counts;  /* fields that did not enter, per column */
    gpu_raw_result raw; /* per column arrays, reused by every input */
    pass_plan *plan;    /* the pass being counted, or NULL */
    double t_open, t_alloc, t_submit, t_wait, t_turn;
    double t_prepared, t_waited; /* the opener's thread; joining it */
    double t_profiles;           /* --distinct, --mode, --top's counting */
} gpu_engine;

/* --- opening ---------------------------------------------------------- */

struct gpu_opener {
    pthread_t thread;
    int joined;
    cs_error e;
    double seconds;
};

int backend_gpu_present(const engine_hooks *hooks)
{
    if (hooks->gpu_presence)
        return hooks->gpu_presence == 2;
    /* The NVIDIA driver's nodes; opening them would start the driver. */
    return gpu_built() && (access("/dev/nvidiactl", F_OK) == 0 ||
                           access("/proc/driver/nvidia/gpus", F_OK) == 0);
}

static void *prepare_main(void *arg)
{
    gpu_opener *o = arg;
    double t0 = account_now();
    gpu_prepare(&o->e);
    o->seconds = account_now() - t0;
    return NULL;
}

int backend_gpu_prepare(gpu_opener **out, cs_error *e)
{
    gpu_opener *o = calloc(1, sizeof *o);
    *out = o;
    if (!o)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (pthread_create(&o->thread, NULL, prepare_main, o) != 0)
        o->joined = 1; /* gpu_open makes the context itself */
    return CS_OK;
}

/* Waits for the opener's thread; returns the seconds waited. */
static double join(gpu_opener *o)
{
    double t0 = account_now();
    if (!o->joined)
        pthread_join(o->thread, NULL);
    o->joined = 1;
    return account_now() - t0;
}

void backend_gpu_opener_free(gpu_opener *o)
{
    if (o)
        join(o);
    free(o);
}

static void *timed_alloc(size_t bytes, void *ctx)
{
    gpu_engine *g = ctx;
    double t0 = account_now();
    void *p = g->dev_alloc->alloc(bytes, g->dev_alloc->ctx);
    double dt = account_now() - t0;
    pthread_mutex_lock(&g->alloc_mu);
    g->t_alloc += dt;
    pthread_mutex_unlock(&g->alloc_mu);
    return p;
}

static void timed_free(void *p, void *ctx)
{
    gpu_engine *g = ctx;
    g->dev_alloc->free(p, g->dev_alloc->ctx);
}

/* --- rows the host parsed ------------------------------------------- */

static void *gpu_jstate_new(backend *b)
{
    (void)b;
    return calloc(1, sizeof(gpu_jstate));
}

static void gpu_jstate_reset(backend *b, void *state)
{
    (void)b;
    gpu_jstate *pt = state;
    pt->pin = NULL;
    pt->t_turn = 0;
    pt->tally_set = 0;
}

static void gpu_jstate_free(backend *b, void *state)
{
    (void)b;
    tally_free(((gpu_jstate *)state)->tally);
    free(state);
}

/* A pass over the input read again: the host counts the job's rows. */
static int count_batch(gpu_engine *g, gpu_jstate *pt, const row_batch *c,
                       cs_error *e)
{
    if (!pt->tally && !(pt->tally = tally_new(g->p.ncols)))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory counting a pass");
    if (!pt->tally_set && tally_reset(pt->tally, g->plan, e) != CS_OK)
        return e->status;
    pt->tally_set = 1;
    return tally_batch(pt->tally, c, e);
}

static int gpu_batch_done(backend *b, job *j, const row_batch *c, cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    if (g->plan)
        return count_batch(g, j->jstate, c, e);
    return CS_OK; /* kept until job_done stages them */
}

/* The staging ring is page-locked when a job first needs it: after the
 * device parsed a whole file, the host's last look at it (a job with no
 * bytes) must not cost a ring. */
static stage *need_stage(gpu_engine *g, cs_error *e)
{
    pthread_mutex_lock(&g->stage_mu);
    if (!g->stage &&
        stage_open(g->p.ncols, g->stage_rows, &g->alloc, &g->stage, e)) {
        stage_close(g->stage);
        g->stage = NULL;
    }
    stage *s = g->stage;
    pthread_mutex_unlock(&g->stage_mu);
    return s;
}

static int gpu_job_done(backend *b, job *j, cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    gpu_jstate *pt = j->jstate;
    if (g->plan)
        return e->status; /* counted already */
    stage *s = need_stage(g, e);
    if (s)
        pt->pin = stage_take(s, j->seq, j->batches, j->nbatches_used, j->rows,
                             e->status != CS_OK, &pt->t_turn);
    return e->status;
}

/* The oldest submission's copy is done: its slot goes back. */
static int recycle(gpu_engine *g, cs_error *e)
{
    double t0 = account_now();
    int rc = gpu_batch_wait(g->dev, g->fly[0].pin, e);
    g->t_wait += account_now() - t0;
    stage_release(g->stage, g->fly[0].seq);
    memmove(g->fly, g->fly + 1, (size_t)(--g->nfly) * sizeof *g->fly);
    return rc;
}

static void count_fields(gpu_engine *g, const job *j, uint64_t first_row)
{
    for (int k = 0; k < g->p.ncols; k++) {
        uint64_t inv = j->first_invalid[k];
        stats_add_counts(&g->counts[k], 0, 0, 0, inv ? first_row - 1 + inv : 0);
        for (int c = 0; c < j->nbatches_used; c++)
            stats_add_counts(&g->counts[k], j->batches[c].missing[k],
                             j->batches[c].invalid[k], j->batches[c].nan[k], 0);
    }
}

static int submit(gpu_engine *g, const row_batch *c, uint64_t row, cs_error *e)
{
    double t0 = account_now();
    int rc = c->nrows ? gpu_submit(g->dev, c, row, e) : CS_OK;
    g->t_submit += account_now() - t0;
    return rc;
}

/* A job too large for a slot goes from its own row batches, which are reused
 * as soon as it is retired: its copies are waited for here. */
static int submit_unstaged(gpu_engine *g, const job *j, uint64_t row,
                           cs_error *e)
{
    for (int c = 0; c < j->nbatches_used && !e->status; c++) {
        submit(g, &j->batches[c], row, e);
        row += j->batches[c].nrows;
    }
    double t0 = account_now();
    for (int c = 0; c < j->nbatches_used && !e->status; c++)
        gpu_batch_wait(g->dev, &j->batches[c], e);
    g->t_wait += account_now() - t0;
    return e->status;
}

static int gpu_retire(backend *b, job *j, uint64_t first_row, int abandon,
                      cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    gpu_jstate *pt = j->jstate;
    if (g->plan && !abandon)
        return pt->tally_set ? tally_add(pt->tally, e) : CS_OK;
    if (abandon) {
        /* Nothing more goes to the device: free the slots that the jobs
         * still running may wait for. */
        cs_error ignored = {0};
        while (g->nfly)
            recycle(g, &ignored);
        if (pt->pin)
            stage_release(g->stage, j->seq);
        return e->status;
    }
    g->t_turn += pt->t_turn;
    count_fields(g, j, first_row);
    if (!pt->pin)
        return submit_unstaged(g, j, first_row, e);
    if (submit(g, pt->pin, first_row, e) != CS_OK) {
        stage_release(g->stage, j->seq);
        return e->status;
    }
    g->fly[g->nfly++] = (inflight){j->seq, pt->pin};
    while (!e->status && g->nfly > STAGE_INFLIGHT)
        recycle(g, e);
    return e->status;
}

static int gpu_flush(backend *b, cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    while (g->nfly)
        recycle(g, e);
    return e->status;
}

/* --- raw bytes the device parses ------------------------------------ */

/* The device splits CSV only: -W text comes parsed by the host. */
static int gpu_wants(backend *b, int binary, int seekable, int whitespace,
                     const unsigned char *kinds, int ncols)
{
    gpu_engine *g = (gpu_engine *)b;
    (void)kinds;
    (void)ncols;
    return !g->p.hooks->host_parse && !whitespace && !g->plan &&
           (!binary || seekable);
}

static size_t gpu_slot_bytes(backend *b)
{
    return gpu_raw_segment_bytes(((gpu_engine *)b)->dev);
}

static int gpu_bytes_begin(backend *b, const bytes_format *f,
                           uint64_t first_row, uint64_t first_line, cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    gpu_raw_format fmt = gpu_pack_format(f);
    return gpu_raw_begin(g->dev, &fmt, first_row, first_line, e);
}

static int gpu_bytes_submit(backend *b, const void *bytes, size_t n,
                            cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    double t0 = account_now();
    int rc = gpu_raw_submit(g->dev, bytes, n, e);
    g->t_submit += account_now() - t0;
    return rc;
}

static int gpu_bytes_copied(backend *b, const void *bytes, int *stopped,
                            cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    double t0 = account_now();
    int rc = gpu_raw_copied(g->dev, bytes, stopped, e);
    g->t_wait += account_now() - t0;
    return rc;
}

static int gpu_bytes_wait(backend *b, const void *bytes, int *stopped,
                          cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    double t0 = account_now();
    int rc = gpu_raw_wait(g->dev, bytes, stopped, e);
    g->t_wait += account_now() - t0;
    return rc;
}

static int gpu_bytes_end(backend *b, bytes_result *r, char *tail,
                         size_t *tail_len, cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    gpu_raw_result *d = &g->raw;
    size_t n = (size_t)g->p.ncols;
    memset(d->missing, 0, n * sizeof *d->missing);
    memset(d->invalid, 0, n * sizeof *d->invalid);
    memset(d->nan, 0, n * sizeof *d->nan);
    memcpy(d->first_invalid_line, r->first_invalid_line,
           n * sizeof *d->first_invalid_line);
    if (gpu_raw_end(g->dev, d, tail, tail_len, e) != CS_OK)
        return e->status;
    for (size_t k = 0; k < n; k++)
        stats_add_counts(&g->counts[k], d->missing[k], d->invalid[k], d->nan[k],
                         0);
    gpu_pack_result(d, g->p.ncols, r);
    return CS_OK;
}

static const backend_bytes_ops gpu_bytes = {
    gpu_wants,        gpu_slot_bytes, gpu_bytes_begin, gpu_bytes_submit,
    gpu_bytes_copied, gpu_bytes_wait, gpu_bytes_end,
};

/* --- the end -------------------------------------------------------- */

static int gpu_finish_run(backend *b, col_stats *out, hist *h, cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    const backend_params *p = &g->p;
    for (int k = 0; k < p->ncols; k++)
        if (stats_merge(&out[k], &g->counts[k], 0))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    double t0 = account_now();
    int binned = (p->what & STAT_HIST) && p->have_range;
    if (gpu_finish(g->dev, out, binned ? h : NULL, e))
        return e->status;
    account_time(p->acc, ACC_HIST, account_now() - t0);
    return CS_OK;
}

static int gpu_pass_begin(backend *b, pass_plan *p, cs_error *e)
{
    ((gpu_engine *)b)->plan = p;
    (void)e;
    return CS_OK;
}

/* The device's values on the device, the host store's on the host. */
static int gpu_pass_kept(backend *b, int *all, cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    pass_plan *p = g->plan;
    *all = gpu_store_all(g->dev);
    if (!*all)
        return CS_OK;
    gpu_pass_col *cols = calloc((size_t)p->ncols + 1, sizeof *cols);
    if (!cols)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    gpu_pack_pass(p, cols);
    int rc = gpu_pass(g->dev, cols, e);
    free(cols);
    const value_store *host = gpu_host_values(g->dev);
    if (rc == CS_OK && host)
        rc = tally_kept(p, host, g->p.nthreads, e);
    return rc;
}

static int gpu_pass_end(backend *b, cs_error *e)
{
    ((gpu_engine *)b)->plan = NULL;
    return e->status;
}

static int gpu_profiles(backend *b, const col_stats *st, size_t k,
                        col_prof *out, int *over, cs_error *e)
{
    gpu_engine *g = (gpu_engine *)b;
    double t0 = account_now();
    *over = 0;
    int rc = gpu_profiles_make(g->dev, g->p.ncols, st, k, out, e);
    g->t_profiles = account_now() - t0;
    return rc;
}

static void gpu_describe(backend *b, account *acc)
{
    gpu_engine *g = (gpu_engine *)b;
    gpu_times t;
    gpu_get_times(g->dev, &t);
    if (g->t_prepared > 0)
        account_say(acc,
                    "gpu     %s (the CUDA context made on a thread in %.3f "
                    "s, waited for %.3f s; opened in %.3f s more)",
                    t.device, g->t_prepared, g->t_waited, g->t_open);
    else
        account_say(acc,
                    "gpu     %s (opened in %.3f s, %.3f s of it creating the "
                    "CUDA context)",
                    t.device, g->t_open, t.context_s);
    account_say(acc,
                "gpu     opening: context %.3f s, query %.3f s, buffers %.3f "
                "s, events %.3f s, first launch %.3f s; raw input's buffers "
                "%.3f s",
                t.open_s[GPU_OPEN_CONTEXT], t.open_s[GPU_OPEN_QUERY],
                t.open_s[GPU_OPEN_BUFFERS], t.open_s[GPU_OPEN_EVENTS],
                t.open_s[GPU_OPEN_LAUNCH], t.open_s[GPU_OPEN_RAW]);
    account_say(acc, "h2d     %8.3f s  %8.1f MB/s  (%.1f MB)", t.h2d_s,
                t.h2d_s > 0 ? (double)t.h2d_bytes / 1e6 / t.h2d_s : 0.0,
                (double)t.h2d_bytes / 1e6);
    account_say(acc, "kernels %8.3f s  (histogram %.3f s)", t.kernel_s,
                t.hist_s);
    double stream = acc->t[ACC_STREAM];
    if (stream > 0)
        account_say(acc,
                    "stream  %8.3f s  %8.1f MB/s  raw input on the device, "
                    "wall (read, copy, kernels)",
                    stream, (double)acc->stream_bytes / 1e6 / stream);
    account_say(acc, "submit  %8.3f s  main thread (waiting %.3f s)",
                g->t_submit, g->t_wait);
    account_say(acc,
                "staging %8.3f s  workers waiting for their slot (copying "
                "rows into it: %.3f s)",
                g->t_turn, acc->t[ACC_HANDOFF] - g->t_turn);
    account_say(acc, "pinned  %8.3f s  page-locking the host buffers",
                g->t_alloc);
    if (g->p.what & STAT_PROFILE)
        account_say(acc,
                    "distinct %7.3f s  values sorted and counted on the "
                    "device (--distinct, --mode, --top)",
                    g->t_profiles);
    if (!stats_need_values(g->p.what, g->p.have_range) &&
        !(g->p.what & STAT_PROFILE))
        return;
    account_say(acc,
                "kept    took %.1f MB of the device for %.1f MB of values "
                "(room: %.1f MB, %s its free memory and --memory at most; "
                "of its %.1f MB)",
                (double)t.kept_device / 1e6, (double)t.kept_values / 1e6,
                (double)t.kept_room / 1e6,
                (g->p.what & STAT_PROFILE) ? "a sixth of" : "half",
                (double)t.device_memory / 1e6);
    if (t.kept_dropped)
        account_say(acc, "kept    none: the values passed the GPU's memory "
                         "and --memory; the passes read the input again");
    else
        account_say(acc,
                    "kept    %.1f MB on the device, %.1f MB in host memory, "
                    "%.1f MB in a temporary file",
                    (double)t.kept_values / 1e6, (double)t.kept_host / 1e6,
                    (double)t.kept_file / 1e6);
}

static void gpu_close_run(backend *b)
{
    gpu_engine *g = (gpu_engine *)b;
    stage_close(g->stage);
    pthread_mutex_destroy(&g->stage_mu);
    pthread_mutex_destroy(&g->alloc_mu);
    gpu_close(g->dev);
    for (int k = 0; g->counts && k < g->p.ncols; k++)
        stats_free(&g->counts[k]);
    free(g->counts);
    free(g->raw.missing);
    free(g->raw.invalid);
    free(g->raw.nan);
    free(g->raw.first_invalid_line);
    free(g->raw.first_invalid_text);
    free(g->raw.first_invalid_len);
    free(g);
}

static const backend_ops gpu_ops = {
    .jstate_new = gpu_jstate_new,
    .jstate_reset = gpu_jstate_reset,
    .jstate_free = gpu_jstate_free,
    .batch_done = gpu_batch_done,
    .job_done = gpu_job_done,
    .retire = gpu_retire,
    .flush = gpu_flush,
    .finish = gpu_finish_run,
    .pass_begin = gpu_pass_begin,
    .pass_kept = gpu_pass_kept,
    .pass_end = gpu_pass_end,
    .profiles = gpu_profiles,
    .describe = gpu_describe,
    .close = gpu_close_run,
};

static int make_counts(gpu_engine *g, cs_error *e)
{
    size_t n = (size_t)(g->p.ncols ? g->p.ncols : 1);
    g->counts = calloc(n, sizeof *g->counts);
    g->raw.missing = calloc(n, sizeof(uint64_t));
    g->raw.invalid = calloc(n, sizeof(uint64_t));
    g->raw.nan = calloc(n, sizeof(uint64_t));
    g->raw.first_invalid_line = calloc(n, sizeof(uint64_t));
    g->raw.first_invalid_text = calloc(n, GPU_FIELD_BYTES);
    g->raw.first_invalid_len = calloc(n, sizeof(unsigned));
    if (!g->counts || !g->raw.missing || !g->raw.invalid || !g->raw.nan ||
        !g->raw.first_invalid_line || !g->raw.first_invalid_text ||
        !g->raw.first_invalid_len)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (size_t k = 0; k < n; k++)
        stats_init(&g->counts[k]);
    return CS_OK;
}

static int open_device(gpu_engine *g, gpu_opener *opener, cs_error *e)
{
    if (opener) {
        g->t_waited = join(opener);
        g->t_prepared = opener->seconds;
        if (opener->e.status)
            return cs_fail(e, opener->e.status, "", 0, "%s", opener->e.msg);
    }
    const backend_params *p = &g->p;
    const engine_hooks *h = p->hooks;
    gpu_config cfg = {.ncols = p->ncols,
                      .what = p->what,
                      .nbins = p->nbins,
                      .have_range = p->have_range,
                      .lo = p->range_lo,
                      .hi = p->range_hi,
                      .batch_rows = h->gpu_batch_rows,
                      .raw_bytes = h->gpu_raw_bytes,
                      .keep_set = h->gpu_keep_set,
                      .keep_bytes = h->gpu_keep_bytes,
                      .terms = h->gpu_terms,
                      .memory = p->memory,
                      .spill = p->spill,
                      .tmpdir = p->tmpdir,
                      .sharers = p->gpu_sharers};
    double t0 = account_now();
    int rc = gpu_open(&cfg, &g->dev, e);
    g->t_open = account_now() - t0;
    return rc;
}

int backend_gpu_open(const backend_params *p, gpu_opener *opener, backend **out,
                     cs_error *e)
{
    *out = NULL;
    gpu_engine *g = calloc(1, sizeof *g);
    if (!g)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    g->p = *p;
    pthread_mutex_init(&g->stage_mu, NULL);
    pthread_mutex_init(&g->alloc_mu, NULL);
    if (make_counts(g, e) || open_device(g, opener, e)) {
        gpu_close_run(&g->base);
        return e->status;
    }
    g->dev_alloc = gpu_row_batch_alloc(g->dev);
    g->alloc = (row_batch_alloc){timed_alloc, timed_free, g};
    size_t block = p->spec ? GPU_BLOCK : GPU_CSV_BLOCK;
    /* Rows a staging slot holds: a job adds a row batch when it needs one, so
     * this only has to fit typical records. */
    size_t per_row = p->spec ? p->spec->record_size : 16;
    size_t wide = GPU_BATCH_VALUES / (size_t)(p->ncols ? p->ncols : 1);
    wide = wide < 16 ? 16 : wide;
    g->stage_rows = block / per_row + 1;
    if (g->stage_rows > gpu_batch_rows(g->dev))
        g->stage_rows = gpu_batch_rows(g->dev);
    if (g->stage_rows > wide)
        g->stage_rows = wide;
    g->base = (backend){&gpu_ops,
                        &gpu_bytes,
                        "gpu",
                        block,
                        wide < GPU_BATCH_ROWS ? wide : GPU_BATCH_ROWS,
                        1,
                        &g->alloc,
                        0};
    *out = &g->base;
    return CS_OK;
}
