/* The driver: set up the backend once the columns are known, feed every
 * input, retire the jobs in order, finish the histograms, and write the
 * report whole, only when every input was read. */
#include "engine.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "io/source.h"
#include "src/report/report.h"

/* Block sizes: large enough that per-job costs vanish, small enough that
 * a few per thread keep every core busy and memory low. */
#define CPU_BLOCK (1u << 20)
#define BIN_BLOCK (4u << 20)
#define GPU_BLOCK (16u << 20)
#define GPU_CSV_BLOCK (8u << 20)

double engine_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int open_gpu(engine *g)
{
    const options *o = g->o;
#ifdef COLSTAT_HAVE_GPU
    if (o->device == DEV_CPU || g->ncols == 0)
        return CS_OK;
    gpu_config cfg = {g->ncols,      g->what,     o->nbins,
                      o->have_range, o->range_lo, o->range_hi};
    cs_error why = {0};
    double t0 = engine_now();
    int rc = gpu_open(&cfg, &g->gpu, &why);
    g->t_open = engine_now() - t0;
    if (rc == 0) {
        g->alloc = gpu_chunk_alloc(g->gpu);
        g->block_bytes = g->binary ? GPU_BLOCK : GPU_CSV_BLOCK;
        /* Rows a block may hold: a job adds a chunk when it needs one, so
         * this only has to fit typical records. */
        size_t per_row = g->binary ? g->spec.record_size : 16;
        g->stage_rows = g->block_bytes / per_row + 1;
        if (g->stage_rows > gpu_chunk_rows(g->gpu))
            g->stage_rows = gpu_chunk_rows(g->gpu);
        return CS_OK;
    }
    if (o->device == DEV_GPU)
        return cs_fail(g->e, CS_EDATA, "", 0, "--device gpu: %s", why.msg);
    if (o->verbose)
        fprintf(g->err_out, "colstat: GPU not used: %s\n", why.msg);
    return CS_OK;
#else
    if (o->device == DEV_GPU)
        return cs_fail(g->e, CS_EDATA, "", 0,
                       "--device gpu: this colstat was built without CUDA");
    return CS_OK;
#endif
}

static int alloc_results(engine *g)
{
    size_t n = (size_t)(g->ncols ? g->ncols : 1);
    g->st = calloc(n, sizeof *g->st);
    g->inv_line = calloc(n, sizeof *g->inv_line);
    g->inv_file = calloc(n, sizeof *g->inv_file);
    g->kept = calloc(n, sizeof *g->kept);
    g->nkept = calloc(n, sizeof *g->nkept);
    g->kept_cap = calloc(n, sizeof *g->kept_cap);
    g->h = calloc(n, sizeof *g->h);
    if (!g->st || !g->inv_line || !g->inv_file || !g->kept || !g->nkept ||
        !g->kept_cap || !g->h)
        return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    for (int k = 0; k < g->ncols; k++) {
        stats_init(&g->st[k]);
        /* The GPU bins by itself; the CPU bins kept values at the end. */
        if ((g->what & STAT_HIST) && g->o->have_range && !g->gpu &&
            hist_init(&g->h[k], g->o->nbins, g->o->range_lo, g->o->range_hi))
            return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    }
    return CS_OK;
}

int engine_start(engine *g)
{
    int rc = open_gpu(g);
    if (rc == CS_OK)
        rc = alloc_results(g);
    if (rc != CS_OK)
        return rc;
    /* Enough jobs to keep every worker busy and the GPU fed; GPU jobs are
     * larger (fewer, bigger transfers), so fewer of them wait. */
    g->max_jobs = 2 * g->nthreads + 2;
    g->ring_cap = g->max_jobs;
    g->ring = calloc((size_t)g->ring_cap, sizeof *g->ring);
    g->q = g->ring ? workq_start(g->nthreads) : NULL;
    if (!g->q)
        return cs_fail(g->e, CS_EDATA, "", 0, "cannot start worker threads");
    return CS_OK;
}

/* Binning kept values once min and max are final: threads take columns'
 * arrays in turn, each into its own histograms, merged afterwards. */
typedef struct binner {
    engine *g;
    hist *h; /* ncols, this thread's */
    int id, n;
} binner;

static void *bin_thread(void *arg)
{
    binner *b = arg;
    engine *g = b->g;
    size_t turn = 0;
    for (int k = 0; k < g->ncols; k++)
        for (size_t a = 0; a < g->nkept[k]; a++, turn++)
            if (turn % (size_t)b->n == (size_t)b->id)
                hist_add_values(&b->h[k], g->kept[k][a].v, g->kept[k][a].n);
    return NULL;
}

static int hist_edges_init(engine *g, hist *h)
{
    for (int k = 0; k < g->ncols; k++) {
        const col_stats *s = &g->st[k];
        /* No values: no edges (NaN, printed as null), as on the GPU. */
        double lo = s->count ? s->min : NAN, hi = s->count ? s->max : NAN;
        if (hist_init(&h[k], g->o->nbins, lo, hi))
            return -1;
    }
    return 0;
}

static int bin_kept(engine *g)
{
    double t0 = engine_now();
    int n = g->nthreads;
    binner *b = calloc((size_t)n, sizeof *b);
    pthread_t *t = calloc((size_t)n, sizeof *t);
    int rc = (b && t && hist_edges_init(g, g->h) == 0) ? CS_OK : CS_EDATA;
    int started = 0;
    for (int i = 0; rc == CS_OK && i < n; i++) {
        b[i] = (binner){g, calloc((size_t)g->ncols + 1, sizeof(hist)), i, n};
        if (!b[i].h || hist_edges_init(g, b[i].h) ||
            pthread_create(&t[i], NULL, bin_thread, &b[i]))
            rc = CS_EDATA;
        else
            started++;
    }
    for (int i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        for (int k = 0; k < g->ncols; k++)
            hist_merge(&g->h[k], &b[i].h[k]);
    }
    for (int i = 0; b && i < n; i++) {
        for (int k = 0; b[i].h && k < g->ncols; k++)
            hist_free(&b[i].h[k]);
        free(b[i].h);
    }
    free(b);
    free(t);
    g->t_hist += engine_now() - t0;
    if (rc != CS_OK)
        return cs_fail(g->e, CS_EDATA, "", 0, "out of memory for --hist");
    return CS_OK;
}

static int finish(engine *g)
{
#ifdef COLSTAT_HAVE_GPU
    if (g->gpu) {
        double t0 = engine_now();
        if (gpu_finish(g->gpu, g->st, g->h, g->e))
            return g->e->status;
        g->t_hist += engine_now() - t0;
        return CS_OK;
    }
#endif
    if ((g->what & STAT_HIST) && !g->o->have_range)
        return bin_kept(g);
    return CS_OK;
}

static int term_width(FILE *out)
{
    const char *env = getenv("COLUMNS");
    if (env && atoi(env) > 0)
        return atoi(env);
    struct winsize ws;
    if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

/* The report is built in memory and written with one call, so a reader
 * never sees half of it followed by an error. */
static int write_report(engine *g, FILE *out)
{
    report_col *cols = calloc((size_t)g->ncols + 1, sizeof *cols);
    char *text = NULL;
    size_t size = 0;
    FILE *m = cols ? open_memstream(&text, &size) : NULL;
    if (!m) {
        free(cols);
        return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    }
    for (int k = 0; k < g->ncols; k++) {
        cols[k].name = g->names[k];
        cols[k].index = g->fields[k] + 1;
        stats_finalize(&g->st[k], &cols[k].s);
        cols[k].h = (g->what & STAT_HIST) ? &g->h[k] : NULL;
    }
    int bad = report_write(m, g->o->format, g->what, g->rows, cols, g->ncols,
                           term_width(out));
    bad |= fclose(m);
    free(cols);
    int rc = CS_OK;
    if (bad)
        rc = cs_fail(g->e, CS_EDATA, "", 0, "out of memory for the report");
    else if ((fwrite(text, 1, size, out) != size || fflush(out)) &&
             errno != EPIPE)
        rc = cs_fail(g->e, CS_EDATA, "", 0, "write error: %s", strerror(errno));
    free(text);
    return rc;
}

static void warn_invalid(engine *g)
{
    for (int k = 0; k < g->ncols; k++) {
        const col_stats *s = &g->st[k];
        if (!s->invalid || !g->inv_file[k])
            continue;
        fprintf(g->err_out,
                "colstat: %s:%llu: warning: column '%s': %llu field%s not a "
                "number (counted as invalid; the first is here)\n",
                g->inv_file[k], (unsigned long long)g->inv_line[k], g->names[k],
                (unsigned long long)s->invalid,
                s->invalid == 1 ? " is" : "s are");
    }
}

static void report_times(engine *g)
{
    double total = engine_now() - g->t_start, mb = (double)g->bytes_in / 1e6;
    FILE *f = g->err_out;
    fprintf(f,
            "colstat: backend %s, %d worker thread%s, %d column%s, %llu rows\n",
            g->gpu ? "gpu" : "cpu", g->nthreads, g->nthreads == 1 ? "" : "s",
            g->ncols, g->ncols == 1 ? "" : "s", (unsigned long long)g->rows);
    fprintf(f,
            "colstat: read    %8.3f s  %8.1f MB/s  (%.1f MB; summed over "
            "readers)\n",
            g->t_read, g->t_read > 0 ? mb / g->t_read : 0.0, mb);
    fprintf(f, "colstat: parse   %8.3f s  thread time\n", g->t_parse);
    if (!g->gpu)
        fprintf(f, "colstat: reduce  %8.3f s  thread time\n", g->t_reduce);
#ifdef COLSTAT_HAVE_GPU
    if (g->gpu) {
        gpu_times t;
        gpu_get_times(g->gpu, &t);
        fprintf(f,
                "colstat: gpu     %s (opened in %.3f s, %.3f s of it creating "
                "the CUDA context)\n",
                t.device, g->t_open, t.context_s);
        fprintf(f, "colstat: h2d     %8.3f s  %8.1f MB/s  (%.1f MB)\n", t.h2d_s,
                t.h2d_s > 0 ? (double)t.h2d_bytes / 1e6 / t.h2d_s : 0.0,
                (double)t.h2d_bytes / 1e6);
        fprintf(f, "colstat: kernels %8.3f s  (histogram %.3f s)\n", t.kernel_s,
                t.hist_s);
        if (g->t_stream > 0)
            fprintf(f,
                    "colstat: stream  %8.3f s  %8.1f MB/s  raw input on the "
                    "device, wall (read, copy, kernels)\n",
                    g->t_stream, (double)g->stream_bytes / 1e6 / g->t_stream);
        fprintf(f, "colstat: submit  %8.3f s  main thread (waiting %.3f s)\n",
                g->t_submit, g->t_wait);
        fprintf(f, "colstat: staging %8.3f s  workers waiting for their slot\n",
                g->t_turn);
        fprintf(f, "colstat: pinned  %8.3f s  page-locking the host buffers\n",
                g->t_alloc);
    }
#endif
    if (g->what & STAT_HIST)
        fprintf(f, "colstat: hist    %8.3f s\n", g->t_hist);
    fprintf(f, "colstat: retire  %8.3f s  main thread waiting for workers\n",
            g->t_retire);
    fprintf(f, "colstat: total   %8.3f s  %8.1f MB/s\n", total,
            total > 0 ? mb / total : 0.0);
}

static void engine_free(engine *g, input_file *files, int nfiles)
{
    workq_stop(g->q);
    engine_free_jobs(g);
    stage_free(g);
    raw_free(g);
#ifdef COLSTAT_HAVE_GPU
    if (g->gpu)
        gpu_close(g->gpu);
#endif
    for (int k = 0; k < g->ncols; k++) {
        for (size_t a = 0; g->kept && a < g->nkept[k]; a++)
            free(g->kept[k][a].v);
        if (g->kept)
            free(g->kept[k]);
        if (g->h)
            hist_free(&g->h[k]);
        if (g->names)
            free(g->names[k]);
    }
    free(g->kept);
    free(g->nkept);
    free(g->kept_cap);
    free(g->h);
    free(g->names);
    free(g->fields);
    free(g->st);
    free(g->inv_line);
    free(g->inv_file);
    free(g->ring);
    free(g->carry);
    for (int i = 0; i < nfiles; i++) {
        if (files[i].src)
            source_close(files[i].src);
        free(files[i].name);
        free(files[i].map);
    }
    free(files);
}

static int threads_wanted(const options *o)
{
    if (o->threads > 0)
        return o->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int engine_run(const options *o, FILE *out, FILE *err, cs_error *e)
{
    engine g;
    memset(&g, 0, sizeof g);
    g.o = o;
    g.e = e;
    g.err_out = err;
    g.what = o->what;
    g.t_start = engine_now();
    g.nthreads = threads_wanted(o);
    g.block_bytes = CPU_BLOCK;
    g.progress = o->progress < 0 ? isatty(fileno(err)) : o->progress;
    g.binary = o->binary != NULL;
    if (g.binary && binary_spec_parse(o->binary, &g.spec, e) != CS_OK)
        return e->status;
    if (g.binary)
        g.block_bytes = BIN_BLOCK; /* decoding is cheap: bigger blocks */
    input_file *files = calloc((size_t)o->nfiles, sizeof *files);
    int rc = files ? CS_OK : cs_fail(e, CS_EDATA, "", 0, "out of memory");
    int first = 1;
    for (int i = 0; rc == CS_OK && i < o->nfiles; i++)
        rc = feed_input(&g, &files[i], o->files[i], &first);
    int drained = engine_drain(&g);
    if (rc == CS_OK)
        rc = drained;
    if (g.progress && g.last_progress > 0)
        fputs("\r\033[K", err);
    if (rc == CS_OK)
        rc = finish(&g);
    if (rc == CS_OK)
        rc = write_report(&g, out);
    if (rc == CS_OK)
        warn_invalid(&g);
    if (rc == CS_OK && o->verbose)
        report_times(&g);
    engine_free(&g, files, files ? o->nfiles : 0);
    return rc;
}
