/* The driver: open the inputs until one shows its columns, learn the
 * columns, choose and start the backend, feed every input, drain the jobs,
 * finish the statistics, run the passes that need every value (quantiles,
 * histograms without --range; passes.h), and hand back the result; -v's
 * figures last. */
#include "src/engine/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/engine/backend.h"
#include "src/engine/feed.h"
#include "src/engine/passes.h"
#include "src/engine/policy.h"

/* What the first input's head read takes, before a backend chose its
 * block size. */
#define HEAD_BYTES (1u << 20)
#define BINARY_HEAD_BYTES (4u << 20)

struct engine {
    const engine_config *cfg;
    account acc;
    binary_spec spec;
    const binary_spec *bin; /* &spec for binary input, else NULL */
    int nthreads;
    int next; /* the next input to open */
    col_table table;
    int use_gpu;
    gpu_opener *opener; /* opening the GPU while the first input is read */
    backend *be;
    jobs *js;
    feed fd;
    qfrac *q; /* the quantiles of every column: the median first */
    size_t nq;
    int spill;      /* values past --memory go to a file */
    unsigned npass; /* passes run after the input */
    int reread;     /* of those, passes that read the inputs again */
};

typedef struct engine run;

static int threads_wanted(const engine_config *cfg)
{
    if (cfg->threads > 0)
        return cfg->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static const engine_part *part_of(const run *r, int i)
{
    return r->cfg->parts ? &r->cfg->parts[i] : NULL;
}

/* How every input's text is read, on every pass. */
static csv_dialect dialect_of(const engine_config *cfg)
{
    csv_dialect d = {cfg->delim, cfg->header, cfg->whitespace, cfg->num};
    return d;
}

static int open_next(run *r, size_t head_bytes, input **in, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    int i = r->next++;
    return input_open(cfg->files[i], r->bin, dialect_of(cfg), head_bytes,
                      part_of(r, i), &r->acc, in, e);
}

/* Once the columns are known, an input none of which is this process's
 * share is not opened. */
static int skip_next(const run *r)
{
    const engine_part *p = part_of(r, r->next);
    return p && p->lo == p->hi;
}

/* --device auto asks the policy, from the inputs' kinds and sizes. */
static int auto_device(run *r, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    probe_info *in = calloc((size_t)cfg->nfiles, sizeof *in);
    if (!in)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    for (int i = 0; i < cfg->nfiles; i++)
        probe_path(cfg->files[i], &in[i]);
    policy_params p = {r->nthreads, backend_gpu_present(&cfg->hooks),
                       r->bin != NULL, cfg->what, cfg->have_range};
    policy_choice c;
    policy_choose(&p, in, cfg->nfiles, &c);
    free(in);
    account_say(&r->acc, "%s", c.why);
    return c.gpu;
}

/* Decided before the first byte is read, so that the GPU, when it is
 * used, opens on a thread of its own while the first input is read. */
static int choose_device(run *r, cs_error *e)
{
    engine_device d = r->cfg->device;
    r->use_gpu = d == ENGINE_GPU || (d == ENGINE_AUTO && auto_device(r, e));
    if (e->status || !r->use_gpu)
        return e->status;
    return backend_gpu_prepare(&r->opener, e);
}

/* An empty CSV says nothing about the columns, and holds no rows. */
static int input_empty(const input *in)
{
    return !in->spec && in->nfields == 0 && in->head_len == 0 && in->head_eof;
}

/* Opens inputs until one shows its fields; *in is NULL when none does. */
static int open_first(run *r, input **in, cs_error *e)
{
    size_t head = r->bin ? BINARY_HEAD_BYTES : HEAD_BYTES;
    *in = NULL;
    while (r->next < r->cfg->nfiles) {
        if (open_next(r, head, in, e) != CS_OK)
            return e->status;
        if (!input_empty(*in))
            return CS_OK;
        input_release(*in);
        *in = NULL;
    }
    return CS_OK;
}

static int learn_columns(run *r, const input *in, cs_error *e)
{
    if (!in)
        return CS_OK;
    return columns_learn(&r->table, r->cfg->columns, in->names, in->numeric,
                         in->nfields, in->named, in->name, e);
}

size_t engine_default_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return (size_t)1 << 30;
    return (size_t)pages / 4 * (size_t)size;
}

/* Values past --memory spill to a file when some input cannot be read
 * twice (a pipe, a terminal); otherwise the passes read the inputs again,
 * which needs no disk. */
static int must_spill(const engine_config *cfg)
{
    for (int i = 0; i < cfg->nfiles && !cfg->hooks.spill; i++) {
        probe_info in;
        probe_path(cfg->files[i], &in);
        if (in.kind == PROBE_STREAM)
            return 1;
    }
    return cfg->hooks.spill;
}

/* The quantiles every column selects: the median first, then the list. */
static int quantile_list(run *r, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    size_t n = (cfg->what & STAT_QUANTILES) ? cfg->nquantiles : 0;
    int median = (cfg->what & STAT_MEDIAN) != 0;
    r->nq = n + (size_t)median;
    if (!r->nq)
        return CS_OK;
    r->q = malloc(r->nq * sizeof *r->q);
    if (!r->q)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    if (median)
        r->q[0] = (qfrac){5, 1};
    if (n)
        memcpy(r->q + median, cfg->quantiles, n * sizeof *r->q);
    return CS_OK;
}

/* The GPU when chosen and it opens (else -v says why); a table without
 * columns needs no device. */
static int start_backend(run *r, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    backend_params p = {r->table.ncols,
                        cfg->what,
                        cfg->nbins,
                        cfg->have_range,
                        cfg->range_lo,
                        cfg->range_hi,
                        r->bin,
                        r->nthreads,
                        cfg->memory_set ? cfg->memory : engine_default_memory(),
                        r->spill = must_spill(cfg),
                        cfg->tmpdir,
                        &cfg->hooks,
                        &r->acc};
    if (r->use_gpu && r->table.ncols > 0) {
        cs_error why = {0};
        if (backend_gpu_open(&p, r->opener, &r->be, &why) == CS_OK)
            return CS_OK;
        if (cfg->device == ENGINE_GPU)
            return cs_fail(e, CS_EDATA, "", 0, "--device gpu: %s", why.msg);
        account_say(&r->acc, "GPU not used: %s", why.msg);
    }
    return backend_cpu_open(&p, &r->be, e);
}

static int start_jobs(run *r, cs_error *e)
{
    jobs_params p = {r->be,  r->nthreads,    r->table.ncols,
                     r->bin, r->cfg->strict, &r->acc};
    if (jobs_start(&p, &r->js, e) != CS_OK)
        return e->status;
    feed_init(&r->fd, r->js, r->be, &r->acc, r->nthreads, r->table.ncols,
              r->cfg->strict);
    return CS_OK;
}

/* Feeds in, then each later input, one at a time. */
static int feed_all(run *r, input *in, cs_error *e)
{
    int rc = CS_OK;
    while (in && rc == CS_OK) {
        if (!input_empty(in) && !in->none &&
            input_map(in, &r->table, e) == CS_OK)
            feed_input(&r->fd, in, e);
        input_release(in);
        in = NULL;
        rc = e->status;
        while (rc == CS_OK && r->next < r->cfg->nfiles && skip_next(r))
            r->next++;
        if (rc == CS_OK && r->next < r->cfg->nfiles)
            rc = open_next(r, r->be->block_bytes, &in, e);
    }
    return rc;
}

/* Every input once more, for a pass: the backend counts what the jobs
 * parse. The column table is the first reading's. */
static int refeed(run *r, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    for (int i = 0; i < cfg->nfiles && e->status == CS_OK; i++) {
        input *in = NULL;
        if (input_open(cfg->files[i], r->bin, dialect_of(cfg),
                       r->be->block_bytes, part_of(r, i), &r->acc, &in,
                       e) != CS_OK)
            break;
        if (!input_empty(in) && !in->none &&
            input_map(in, &r->table, e) == CS_OK)
            feed_input(&r->fd, in, e);
        input_release(in);
    }
    return jobs_drain(r->js, e);
}

/* One pass: counted over the values the backend kept, else over the
 * inputs read again. */
static int one_pass(run *r, passes *ps, cs_error *e)
{
    const backend_ops *ops = r->be->ops;
    pass_plan *plan = passes_plan(ps);
    int all = 0;
    if (!plan)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory for the quantiles");
    if (ops->pass_begin(r->be, plan, e) != CS_OK ||
        ops->pass_kept(r->be, &all, e) != CS_OK)
        return e->status;
    if (!all && refeed(r, e) != CS_OK)
        return e->status;
    r->reread += !all;
    if (ops->pass_end(r->be, e) != CS_OK)
        return e->status;
    return passes_narrow(ps, e);
}

/* Histograms without --range: edges from the final finite min and max
 * (infinities count as underflow and overflow), none (NaN, printed as
 * null) for a column without finite values. */
static int hist_edges(run *r, engine_result *out, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    for (int k = 0; k < out->ncols; k++) {
        double lo, hi;
        stats_hist_edges(&out->cols[k].st, &lo, &hi);
        if (hist_init(&out->cols[k].h, cfg->nbins, lo, hi))
            return cs_fail(e, CS_EDATA, "", 0, "out of memory for --hist");
    }
    return CS_OK;
}

static int take_results(run *r, passes *ps, engine_result *out, cs_error *e)
{
    out->nq = r->nq;
    for (int k = 0; r->nq && k < out->ncols; k++) {
        qres *q = calloc(r->nq, sizeof *q);
        out->cols[k].q = q;
        if (!q)
            return cs_fail(e, CS_EDATA, "", 0, "out of memory");
        for (size_t i = 0; i < r->nq; i++)
            passes_result(ps, k, i, &q[i]);
    }
    return CS_OK;
}

/* The passes after the input: quantiles and histograms whose edges are
 * the final min and max. */
static int select_values(run *r, engine_result *out, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    int bins = (cfg->what & STAT_HIST) && !cfg->have_range;
    if (!r->nq && !bins)
        return CS_OK;
    if (bins && hist_edges(r, out, e) != CS_OK)
        return e->status;
    int n = out->ncols;
    col_stats *st = calloc((size_t)(n ? n : 1), sizeof *st);
    hist *h = calloc((size_t)(n ? n : 1), sizeof *h);
    passes *ps = NULL;
    int rc = st && h ? CS_OK : cs_fail(e, CS_EDATA, "", 0, "out of memory");
    for (int k = 0; rc == CS_OK && k < n; k++) {
        st[k] = out->cols[k].st;
        h[k] = out->cols[k].h; /* shares the bins: the passes add to them */
    }
    passes_params pp = {n, st, r->q, r->nq, bins ? h : NULL, 0};
    double t0 = account_now();
    if (rc == CS_OK)
        rc = passes_new(&pp, &ps, e);
    while (rc == CS_OK && !passes_done(ps))
        rc = one_pass(r, ps, e);
    for (int k = 0; rc == CS_OK && k < n; k++) { /* under- and overflow */
        out->cols[k].h.underflow = h[k].underflow;
        out->cols[k].h.overflow = h[k].overflow;
    }
    account_time(&r->acc, ACC_PASSES, account_now() - t0);
    r->npass = ps ? passes_run(ps) : 0;
    if (rc == CS_OK)
        rc = take_results(r, ps, out, e);
    passes_free(ps);
    free(st);
    free(h);
    return rc;
}

static int finish(run *r, engine_result *out, cs_error *e)
{
    int n = r->table.ncols;
    out->cols = calloc((size_t)(n ? n : 1), sizeof *out->cols);
    if (!out->cols)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    out->ncols = n;
    out->rows = jobs_rows(r->js);
    col_stats *st = calloc((size_t)(n ? n : 1), sizeof *st);
    hist *h = calloc((size_t)(n ? n : 1), sizeof *h);
    int rc = st && h ? CS_OK : cs_fail(e, CS_EDATA, "", 0, "out of memory");
    for (int k = 0; k < n; k++)
        stats_init(&st[k]);
    if (rc == CS_OK)
        rc = r->be->ops->finish(r->be, st, h, e);
    for (int k = 0; k < n; k++) {
        engine_column *c = &out->cols[k];
        c->name = strdup(r->table.names[k]);
        c->index = r->table.fields[k] + 1;
        c->st = st[k];
        c->h = h[k];
        if (!c->name && rc == CS_OK)
            rc = cs_fail(e, CS_EDATA, "", 0, "out of memory");
    }
    free(st);
    free(h);
    return rc;
}

/* Where each column's first invalid field is, into the result. */
static int note_invalid(run *r, engine_result *res, cs_error *e)
{
    for (int k = 0; k < res->ncols; k++) {
        uint64_t line;
        const char *file = jobs_first_invalid(r->js, k, &line);
        if (!res->cols[k].st.invalid || !file)
            continue;
        res->cols[k].invalid_line = line;
        if (!(res->cols[k].invalid_file = strdup(file)))
            return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    }
    return CS_OK;
}

void engine_warn_invalid(const engine_result *res, const engine_sink *sink)
{
    for (int k = 0; k < res->ncols; k++) {
        const engine_column *c = &res->cols[k];
        unsigned long long n = c->st.invalid;
        if (!n || !c->invalid_file)
            continue;
        char text[1024];
        snprintf(text, sizeof text,
                 "warning: column '%s': %llu field%s not a number "
                 "(counted as invalid; the first is here)",
                 c->name, n, n == 1 ? " is" : "s are");
        sink->say(sink->ctx, ENGINE_WARNING, c->invalid_file, c->invalid_line,
                  text);
    }
}

static void report_times(run *r, uint64_t rows)
{
    account *a = &r->acc;
    double total = account_now() - a->t_start, mb = (double)a->bytes_in / 1e6;
    account_say(a, "backend %s, %d worker thread%s, %d column%s, %llu rows",
                r->be->name, r->nthreads, r->nthreads == 1 ? "" : "s",
                r->table.ncols, r->table.ncols == 1 ? "" : "s",
                (unsigned long long)rows);
    account_say(a,
                "read    %8.3f s  %8.1f MB/s  (%.1f MB; summed over "
                "readers)",
                a->t[ACC_READ], a->t[ACC_READ] > 0 ? mb / a->t[ACC_READ] : 0.0,
                mb);
    account_say(a, "parse   %8.3f s  thread time", a->t[ACC_PARSE]);
    r->be->ops->describe(r->be, a);
    if (r->cfg->what & STAT_HIST)
        account_say(a, "hist    %8.3f s", a->t[ACC_HIST]);
    if (r->npass)
        account_say(a,
                    "passes  %8.3f s  %u after the input (%d reading it "
                    "again)",
                    a->t[ACC_PASSES], r->npass, r->reread);
    account_say(a, "retire  %8.3f s  main thread waiting for workers",
                a->t[ACC_RETIRE]);
    account_say(a, "total   %8.3f s  %8.1f MB/s", total,
                total > 0 ? mb / total : 0.0);
}

void engine_close(engine *r)
{
    if (!r)
        return;
    jobs_stop(r->js);
    if (r->js)
        feed_free(&r->fd);
    if (r->be)
        r->be->ops->close(r->be);
    backend_gpu_opener_free(r->opener);
    columns_free(&r->table);
    free(r->q);
    free(r);
}

int engine_run(const engine_config *cfg, const engine_sink *sink,
               engine **handle, engine_result *out, cs_error *e)
{
    memset(out, 0, sizeof *out);
    run *r = calloc(1, sizeof *r);
    *handle = r;
    if (!r)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    r->cfg = cfg;
    account_init(&r->acc, sink, cfg->verbose, cfg->progress);
    r->nthreads = threads_wanted(cfg);
    if (cfg->binary && binary_spec_parse(cfg->binary, &r->spec, e) != CS_OK)
        return e->status;
    r->bin = cfg->binary ? &r->spec : NULL;
    input *in = NULL;
    int rc = quantile_list(r, e);
    if (rc == CS_OK)
        rc = choose_device(r, e);
    if (rc == CS_OK)
        rc = open_first(r, &in, e);
    if (rc == CS_OK)
        rc = learn_columns(r, in, e);
    if (rc == CS_OK)
        rc = start_backend(r, e);
    if (rc == CS_OK)
        rc = start_jobs(r, e);
    if (rc == CS_OK)
        rc = feed_all(r, in, e);
    else
        input_release(in);
    if (r->js)
        rc = jobs_drain(r->js, e);
    account_progress_end(&r->acc);
    if (rc == CS_OK)
        rc = finish(r, out, e);
    if (rc == CS_OK)
        rc = select_values(r, out, e);
    account_progress_end(&r->acc); /* passes that read the input again */
    if (rc == CS_OK)
        rc = note_invalid(r, out, e);
    if (rc == CS_OK && !cfg->invalid_to_result)
        engine_warn_invalid(out, sink);
    if (rc == CS_OK)
        report_times(r, out->rows);
    if (rc != CS_OK)
        engine_result_free(out);
    return rc;
}

void engine_result_free(engine_result *res)
{
    for (int k = 0; res->cols && k < res->ncols; k++) {
        free(res->cols[k].name);
        free(res->cols[k].invalid_file);
        hist_free(&res->cols[k].h);
        free(res->cols[k].q);
    }
    free(res->cols);
    memset(res, 0, sizeof *res);
}
