/* The GPU backend behind gpu.h: device buffers, two streams, events, and
 * the hand-back of partial states to the host merge (src/stats/stats.c).
 *
 * Batch i goes to stream i % 2 and to that stream's buffer and state, so
 * the copy of one batch overlaps the kernels of the other and no two
 * launches in flight touch the same state. Statistics that need every
 * value keep them (device_store.cuh) for the passes after gpu_finish
 * (select.cu). */
#include "backend.cuh"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void gpu_open_phase_start(gpu_backend *g)
{
    g->open_t = clock_s();
}

void gpu_open_phase_done(gpu_backend *g, int phase)
{
    double now = clock_s();
    g->open_s[phase] += now - g->open_t;
    g->open_t = now;
}

int failf(gpu_backend *g, const char *fmt, ...)
{
    if (!g->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->err, sizeof g->err, fmt, ap);
        va_end(ap);
        g->failed = true;
    }
    return -1;
}

int fail_nomem(gpu_backend *g)
{
    if (!g->failed)
        g->nomem = true;
    return failf(g, "GPU: out of host memory");
}

int cuda_fail(gpu_backend *g, const char *what, cudaError_t e)
{
    return failf(g, "GPU: %s: %s", what, cudaGetErrorString(e));
}

int report(const gpu_backend *g, int rc, cs_error *e)
{
    if (!rc)
        return CS_OK;
    return cs_fail(e, g->nomem ? CS_ENOMEM : CS_EDATA, "", 0, "%s",
                   g->failed ? g->err : "GPU: unknown error");
}

int add_extra(gpu_backend *g, int col, double v, int32_t corr, uint64_t row)
{
    size_t ncols = (size_t)g->cfg.ncols;
    if (!g->extra) {
        g->extra = static_cast<col_stats *>(calloc(ncols, sizeof *g->extra));
        if (!g->extra)
            return fail_nomem(g);
        for (size_t j = 0; j < ncols; j++)
            stats_init(&g->extra[j]);
    }
    if (stats_add_values(&g->extra[col], &v, &corr, 1, row, g->cfg.what))
        return fail_nomem(g);
    return gpu_store_add_host(g, col, v, corr);
}

namespace
{

void *pinned_alloc(size_t bytes, void *ctx)
{
    (void)ctx;
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: the caller sees NULL */
        return NULL;
    }
    return p;
}

void pinned_free(void *p, void *ctx)
{
    (void)ctx;
    if (p)
        cudaFreeHost(p);
}

/* 64 MB of doubles per column set, less when memory is short; even, so
 * every column of a buffer starts 16-byte aligned. */
size_t pick_rows(int ncols, size_t free_bytes, size_t forced)
{
    size_t per_row = (size_t)ncols * sizeof(double);
    size_t rows = TARGET_BYTES / per_row;
    if (rows > ((size_t)1 << 23))
        rows = (size_t)1 << 23;
    if (rows < MIN_ROWS)
        rows = MIN_ROWS;
    while (rows > MIN_ROWS && 2 * rows * per_row > free_bytes / 4)
        rows /= 2;
    if (forced)
        rows = forced;
    if (rows > DEV_MAX_ROWS_PER_LAUNCH)
        rows = DEV_MAX_ROWS_PER_LAUNCH;
    return rows;
}

int make_slots(gpu_backend *g)
{
    for (int i = 0; i < NSLOTS; i++) {
        cudaEvent_t *e[4] = {&g->slots[i].start, &g->slots[i].copied,
                             &g->slots[i].reduced, &g->slots[i].binned};
        for (int k = 0; k < 4; k++)
            CK(g, cudaEventCreateWithFlags(e[k], cudaEventBlockingSync));
    }
    return 0;
}

} // namespace

/* Host-to-device copy on stream 0, waited for: plain cudaMemcpy runs on
 * the legacy stream, which the non-blocking streams do not wait for. */
int upload(gpu_backend *g, void *dst, const void *src, size_t bytes)
{
    CK(g, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, g->st[0]));
    CK(g, cudaStreamSynchronize(g->st[0]));
    return 0;
}

/* Device-to-host copy after all work queued on stream 0. */
int download(gpu_backend *g, void *dst, const void *src, size_t bytes)
{
    CK(g, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, g->st[0]));
    CK(g, cudaStreamSynchronize(g->st[0]));
    return 0;
}

namespace
{

int upload_empty_states(gpu_backend *g)
{
    int ncols = g->cfg.ncols;
    dev_col *h = static_cast<dev_col *>(malloc((size_t)ncols * sizeof *h));
    if (!h)
        return fail_nomem(g);
    for (int j = 0; j < ncols; j++)
        dev_col_empty(&h[j]);
    int rc = 0;
    for (int s = 0; s < 2 && !rc; s++)
        rc = upload(g, g->dstate[s], h, (size_t)ncols * sizeof *h);
    free(h);
    return rc;
}

int upload_scales(gpu_backend *g, const double *lo, const double *hi)
{
    int ncols = g->cfg.ncols;
    hist_scale *h =
        static_cast<hist_scale *>(malloc((size_t)ncols * sizeof *h));
    if (!h)
        return fail_nomem(g);
    for (int j = 0; j < ncols; j++)
        h[j] = hist_scale_make(lo[j], hi[j], g->cfg.nbins);
    int rc = upload(g, g->dscales, h, (size_t)ncols * sizeof *h);
    free(h);
    return rc;
}

int alloc_hist(gpu_backend *g)
{
    size_t ncols = (size_t)g->cfg.ncols;
    g->nb2 = g->cfg.nbins + 2;
    size_t bytes = ncols * (size_t)g->nb2 * sizeof(unsigned long long);
    CK(g, cudaMalloc((void **)&g->dbins, bytes));
    CK(g, cudaMemsetAsync(g->dbins, 0, bytes, g->st[0]));
    CK(g, cudaStreamSynchronize(g->st[0]));
    CK(g, cudaMalloc((void **)&g->dscales, ncols * sizeof(hist_scale)));
    if (!g->cfg.have_range)
        return 0;
    double *lo = static_cast<double *>(malloc(2 * ncols * sizeof(double)));
    if (!lo)
        return fail_nomem(g);
    for (size_t j = 0; j < ncols; j++) {
        lo[j] = g->cfg.lo;
        lo[ncols + j] = g->cfg.hi;
    }
    int rc = upload_scales(g, lo, lo + ncols);
    free(lo);
    return rc;
}

int setup(gpu_backend *g)
{
    int count = 0;
    gpu_open_phase_start(g); /* the driver starts here */
    double t0 = g->open_t;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
        return failf(g, "%s%s", NO_GPU, cudaGetErrorString(e));
    if (count < 1)
        return failf(g, "%sno CUDA device", NO_GPU);
    e = cudaSetDevice(0);
    if (e == cudaSuccess)
        e = cudaFree(0); /* creates the context */
    gpu_open_phase_done(g, GPU_OPEN_CONTEXT);
    g->context_s = g->open_t - t0;
    if (e != cudaSuccess)
        return failf(g, "%s%s", NO_GPU, cudaGetErrorString(e));
    /* One attribute, not cudaGetDeviceProperties, which reads them all
     * (slow); the device's name is read only when -v asks for it. */
    CK(g, cudaDeviceGetAttribute(&g->nsm, cudaDevAttrMultiProcessorCount, 0));
    size_t free_b = 0, total_b = 0;
    CK(g, cudaMemGetInfo(&free_b, &total_b));
    gpu_open_phase_done(g, GPU_OPEN_QUERY);
    int ncols = g->cfg.ncols;
    g->rows = pick_rows(ncols, free_b, g->cfg.batch_rows);
    g->ld = (g->rows + 1) & ~(size_t)1;
    size_t buf = (size_t)ncols * g->ld * sizeof(double);
    if (4 * buf > free_b)
        return failf(g, "GPU: too little free device memory (%zu MiB)",
                     free_b >> 20);
    g->maxblocks = reduce_grid(g->nsm, g->rows);
    for (int s = 0; s < 2; s++) {
        CK(g, cudaStreamCreateWithFlags(&g->st[s], cudaStreamNonBlocking));
        CK(g, cudaMalloc((void **)&g->dbuf[s], buf));
        CK(g, cudaMalloc((void **)&g->dcorr[s],
                         (size_t)ncols * g->ld * sizeof(int)));
        CK(g,
           cudaMalloc((void **)&g->dcorr_on[s], (size_t)ncols * sizeof(int)));
        CK(g, cudaMemsetAsync(g->dcorr_on[s], 0, (size_t)ncols * sizeof(int),
                              g->st[s]));
        CK(g,
           cudaMalloc((void **)&g->dstate[s], (size_t)ncols * sizeof(dev_col)));
        CK(g,
           cudaMalloc((void **)&g->dpart[s],
                      (size_t)ncols * (size_t)g->maxblocks * sizeof(dev_ext)));
        CK(g, cudaMalloc((void **)&g->dipart[s],
                         (size_t)ncols * DEV_CORR_BLOCKS * sizeof(dev_iext)));
    }
    g->hcorr_on = static_cast<int *>(calloc((size_t)ncols, sizeof(int)));
    if (!g->hcorr_on)
        return fail_nomem(g);
    if (upload_empty_states(g))
        return -1;
    if ((g->cfg.what & STAT_HIST) && alloc_hist(g))
        return -1;
    gpu_open_phase_done(g, GPU_OPEN_BUFFERS);
    if (make_slots(g))
        return -1;
    gpu_open_phase_done(g, GPU_OPEN_EVENTS);
    /* Processes sharing the device each take their share of it: the
     * first to open would otherwise take what the others need for their
     * buffers (seen: two ranks on one H100, the second parsing on the
     * host, 7.9 s against 1.4 s for one rank). */
    size_t mine =
        g->cfg.sharers > 1 ? total_b / (size_t)g->cfg.sharers : total_b;
    size_t room = free_b < mine ? free_b : mine;
    size_t taken = 2 * buf + RESERVE_BYTES + total_b / 16;
    g->store.budget = room > taken ? room - taken : 0;
    /* A GPU is shared: values kept to the end take at most half of what
     * was free at opening, and at most --memory; the store grows as the
     * values come (gpu/device_store.cuh), so this is a ceiling, not a grab. */
    if (g->store.budget > room / 2)
        g->store.budget = room / 2;
    /* --distinct, --mode, --top sort one column's values at a time, with
     * about 53 bytes a value of scratch (value_runs.cu): the values kept
     * (12 bytes each) leave it room */
    if ((g->cfg.what & STAT_PROFILE) && g->store.budget > room / 6)
        g->store.budget = room / 6;
    if (g->cfg.memory && g->store.budget > g->cfg.memory)
        g->store.budget = g->cfg.memory;
    if (g->cfg.keep_set)
        g->store.budget = g->cfg.keep_bytes;
    g->mem_total = total_b;
    g->kept_room = g->store.budget;
    if (gpu_store_open(g))
        return -1;
    /* a first launch proves the kernels load on this device */
    reduce_args a = {.col = g->dbuf[0],
                     .ld = g->ld,
                     .n = 0,
                     .first_row = 1,
                     .sums = 1,
                     .squares = 1,
                     .state = g->dstate[0],
                     .part = g->dpart[0],
                     .nblocks = 1,
                     .dyn = NULL,
                     .corr = g->dcorr[0],
                     .corr_ld = g->ld,
                     .corr_on = g->dcorr_on[0],
                     .ipart = g->dipart[0],
                     .terms = g->cfg.terms};
    CK(g, reduce_launch(&a, ncols, g->st[0]));
    CK(g, cudaStreamSynchronize(g->st[0]));
    gpu_open_phase_done(g, GPU_OPEN_LAUNCH);
    return 0;
}

} // namespace

void harvest(gpu_backend *g, slot *sl)
{
    float ms;
    if (!sl->busy)
        return;
    sl->busy = false;
    sl->c = NULL;
    if (cudaEventSynchronize(sl->binned) != cudaSuccess) {
        cuda_fail(g, "cudaEventSynchronize", cudaGetLastError());
        return;
    }
    if (cudaEventElapsedTime(&ms, sl->start, sl->copied) == cudaSuccess)
        g->h2d_ms += ms;
    if (cudaEventElapsedTime(&ms, sl->copied, sl->reduced) == cudaSuccess)
        g->kernel_ms += ms;
    if (cudaEventElapsedTime(&ms, sl->reduced, sl->binned) == cudaSuccess)
        g->hist_ms += ms;
}

slot *take_slot(gpu_backend *g)
{
    slot *sl = &g->slots[g->next_slot];
    g->next_slot = (g->next_slot + 1) % NSLOTS;
    harvest(g, sl);
    sl->busy = true;
    return sl;
}

namespace
{

/* The corrections of the piece's columns that carry any, and the flags
 * saying which: *any when there is one. */
int copy_corr(gpu_backend *g, const row_batch *c, size_t off, size_t n, int s,
              bool *any)
{
    cudaStream_t st = g->st[s];
    *any = false;
    for (int j = 0; j < g->cfg.ncols; j++) {
        g->hcorr_on[j] = c->has_corr[j] != 0;
        *any = *any || g->hcorr_on[j];
    }
    if (!*any)
        return 0;
    /* pageable sources: the copies take them before returning */
    for (int j = 0; j < g->cfg.ncols; j++)
        if (g->hcorr_on[j])
            CK(g, cudaMemcpyAsync(g->dcorr[s] + (size_t)j * g->ld,
                                  c->corr[j] + off, n * sizeof(int),
                                  cudaMemcpyHostToDevice, st));
    CK(g, cudaMemcpyAsync(g->dcorr_on[s], g->hcorr_on,
                          (size_t)g->cfg.ncols * sizeof(int),
                          cudaMemcpyHostToDevice, st));
    return 0;
}

/* The piece's corrections into its kept twin: a column without any
 * keeps zeros. */
int keep_corr(gpu_backend *g, const row_batch *c, size_t off, size_t n,
              const store_piece *keep, cudaStream_t st)
{
    for (int j = 0; keep && keep->c && j < g->cfg.ncols; j++) {
        int *dst = keep->c + (size_t)j * keep->ld;
        if (c->has_corr[j])
            CK(g, cudaMemcpyAsync(dst, c->corr[j] + off, n * sizeof(int),
                                  cudaMemcpyHostToDevice, st));
        else
            CK(g, cudaMemsetAsync(dst, 0, n * sizeof(int), st));
    }
    return 0;
}

/* Rows past the device's budget go to the host store, from the batch. */
int keep_on_host(gpu_backend *g, const row_batch *c, size_t off, size_t n)
{
    for (int j = 0; j < g->cfg.ncols && gpu_store_on(g); j++)
        if (gpu_store_host_rows(g, j, c->col[j] + off,
                                c->has_corr[j] ? c->corr[j] + off : NULL, n))
            return -1;
    return 0;
}

int submit_piece(gpu_backend *g, const row_batch *c, size_t off, size_t n,
                 unsigned long long first_row, int s, bool last)
{
    cudaStream_t st = g->st[s];
    int ncols = g->cfg.ncols;
    double *dst;
    store_piece *keep;
    bool host;
    if (gpu_store_piece(g, n, st, g->dbuf[s], &dst, &keep, &host))
        return -1;
    if (host && keep_on_host(g, c, off, n))
        return -1;
    size_t ld = keep ? keep->ld : g->ld;
    slot *sl = take_slot(g);
    if (g->failed)
        return -1;
    CK(g, cudaEventRecord(sl->start, st));
    for (int j = 0; j < ncols; j++)
        CK(g, cudaMemcpyAsync(dst + (size_t)j * ld, c->col[j] + off,
                              n * sizeof(double), cudaMemcpyHostToDevice, st));
    if (keep_corr(g, c, off, n, keep, st))
        return -1;
    bool corr;
    if (copy_corr(g, c, off, n, s, &corr))
        return -1;
    CK(g, cudaEventRecord(sl->copied, st));
    g->h2d_bytes += (uint64_t)n * (uint64_t)ncols * sizeof(double);
    unsigned what = g->cfg.what;
    reduce_args a = {.col = dst,
                     .ld = ld,
                     .n = n,
                     .first_row = first_row,
                     .sums = (what & (STAT_SUM | STAT_MEAN | STAT_STD)) != 0,
                     .squares = (what & STAT_STD) != 0,
                     .state = g->dstate[s],
                     .part = g->dpart[s],
                     .nblocks = reduce_grid(g->nsm, n),
                     .dyn = NULL,
                     .corr = corr ? g->dcorr[s] : NULL,
                     .corr_ld = g->ld,
                     .corr_on = g->dcorr_on[s],
                     .ipart = g->dipart[s],
                     .terms = g->cfg.terms};
    CK(g, reduce_launch(&a, ncols, st));
    CK(g, cudaEventRecord(sl->reduced, st));
    if ((what & STAT_HIST) && g->cfg.have_range)
        CK(g, hist_launch(dst, ld, n, ncols, g->cfg.nbins, g->dscales, g->dbins,
                          g->nsm, st));
    CK(g, cudaEventRecord(sl->binned, st));
    sl->c = last ? c : NULL;
    return 0;
}

/* The device's digits of one sum, and its infinities, into a compact
 * sum. Returns 0, or -1 when out of host memory. */
int to_csum(csum *dst, const long long *d, unsigned long long pos_inf,
            unsigned long long neg_inf)
{
    sacc s;
    sacc_init(&s);
    for (int i = 0; i < SACC_DIGITS; i++)
        s.d[i] = d[i]; /* each within (-2^33, 2^33) */
    s.pending = 1;
    sacc_normalize(&s);
    s.pos_inf = pos_inf;
    s.neg_inf = neg_inf;
    return csum_add(dst, &s);
}

/* One stream's state as col_stats (stats_init'ed here). Returns 0, or -1
 * when out of host memory. */
int dev_to_stats(const dev_col *a, col_stats *o)
{
    stats_init(o);
    o->count = a->count;
    o->all_int = a->all_int;
    if (o->count) {
        o->min = a->min;
        o->max = a->max;
        o->min_row = a->min_row;
        o->max_row = a->max_row;
        o->min_corr = a->min_corr;
        o->max_corr = a->max_corr;
        o->min_row_int = a->min_row_int;
        o->max_row_int = a->max_row_int;
    }
    if (a->fmin <= a->fmax) { /* zeros as +0, as stats.c keeps them */
        o->fmin = a->fmin + 0.0;
        o->fmax = a->fmax + 0.0;
    }
    o->sum_r = a->sum_r;
    int rc = to_csum(&o->sum, a->sum, a->pos_inf, a->neg_inf);
    rc |= to_csum(&o->sumsq, a->sumsq, a->sq_inf, 0);
    rc |= to_csum(&o->sumsq_corr, a->sumsq_corr, 0, 0);
    return rc;
}

/* The two streams' states merged: their rows interleave, and stats_merge
 * breaks ties by the lower row wherever it came from. Returns 0, or -1
 * when out of host memory (o is stats_init'ed either way). */
int to_stats(const dev_col *a, const dev_col *b, col_stats *o)
{
    col_stats other;
    int rc = dev_to_stats(a, o);
    rc |= dev_to_stats(b, &other);
    rc |= stats_merge(o, &other, 0);
    stats_free(&other);
    return rc;
}

/* A --range histogram, binned as the values came. */
int fetch_hists(gpu_backend *g, hist *hists)
{
    int ncols = g->cfg.ncols, nbins = g->cfg.nbins;
    size_t per = (size_t)g->nb2;
    unsigned long long *h = static_cast<unsigned long long *>(
        malloc((size_t)ncols * per * sizeof *h));
    if (!h)
        return fail_nomem(g);
    if (download(g, h, g->dbins, (size_t)ncols * per * sizeof *h)) {
        free(h);
        return -1;
    }
    int rc = 0;
    for (int j = 0; j < ncols; j++) {
        if (hist_init(&hists[j], nbins, g->cfg.lo, g->cfg.hi)) {
            rc = fail_nomem(g);
            hists[j].bins = NULL;
            continue;
        }
        const unsigned long long *b = h + (size_t)j * per;
        hists[j].underflow = b[0];
        for (int k = 0; k < nbins; k++)
            hists[j].bins[k] = b[k + 1];
        hists[j].overflow = b[nbins + 1];
        const double *v; /* the hard numbers, which only the host rounds */
        size_t n;
        gpu_store_host(g, j, &v, &n);
        hist_add_values(&hists[j], v, n);
    }
    free(h);
    return rc;
}

int finish(gpu_backend *g, col_stats *out, hist *hists)
{
    int ncols = g->cfg.ncols;
    CK(g, cudaStreamSynchronize(g->st[0]));
    CK(g, cudaStreamSynchronize(g->st[1]));
    size_t bytes = (size_t)ncols * sizeof(dev_col);
    dev_col *h = static_cast<dev_col *>(malloc(2 * bytes));
    col_stats *cs =
        static_cast<col_stats *>(malloc((size_t)ncols * sizeof *cs));
    int rc = 0;
    if (!h || !cs)
        rc = fail_nomem(g);
    for (int s = 0; s < 2 && !rc; s++)
        rc = download(g, h + (size_t)s * ncols, g->dstate[s], bytes);
    int made = 0;
    for (int j = 0; j < ncols && !rc; j++, made++) {
        if (to_stats(&h[j], &h[ncols + j], &cs[j]) ||
            (g->extra && /* ties to the lower row, whichever side */
             stats_merge(&cs[j], &g->extra[j], 0)))
            rc = fail_nomem(g);
    }
    if (!rc && (g->cfg.what & STAT_HIST) && g->cfg.have_range && hists)
        rc = fetch_hists(g, hists);
    for (int j = 0; !rc && j < ncols; j++)
        if (stats_merge(&out[j], &cs[j], 0))
            rc = fail_nomem(g);
    for (int j = 0; j < made; j++)
        stats_free(&cs[j]);
    free(h);
    free(cs);
    return rc;
}

void release(gpu_backend *g)
{
    for (int s = 0; s < 2; s++)
        if (g->st[s])
            cudaStreamSynchronize(g->st[s]);
    raw_release(g);
    gpu_value_runs_release(g);
    gpu_store_release(g);
    free(g->hcorr_on);
    for (int s = 0; s < 2; s++) {
        cudaFree(g->dbuf[s]);
        cudaFree(g->dcorr[s]);
        cudaFree(g->dcorr_on[s]);
        cudaFree(g->dstate[s]);
        cudaFree(g->dpart[s]);
        cudaFree(g->dipart[s]);
        if (g->st[s])
            cudaStreamDestroy(g->st[s]);
    }
    cudaFree(g->dbins);
    cudaFree(g->dscales);
    for (int j = 0; g->extra && j < g->cfg.ncols; j++)
        stats_free(&g->extra[j]);
    free(g->extra);
    for (int i = 0; i < NSLOTS; i++) {
        cudaEvent_t e[4] = {g->slots[i].start, g->slots[i].copied,
                            g->slots[i].reduced, g->slots[i].binned};
        for (int k = 0; k < 4; k++)
            if (e[k])
                cudaEventDestroy(e[k]);
    }
    (void)cudaGetLastError();
}

} // namespace

extern "C" {

int gpu_built(void)
{
    return 1;
}

int gpu_prepare(cs_error *e)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count < 1)
        err = cudaErrorNoDevice;
    if (err == cudaSuccess)
        err = cudaSetDevice(0);
    if (err == cudaSuccess)
        err = cudaFree(0); /* creates the context */
    if (err != cudaSuccess)
        return cs_fail(e, CS_EDATA, "", 0, "%s%s", NO_GPU,
                       cudaGetErrorString(err));
    return CS_OK;
}

int gpu_open(const gpu_config *cfg, gpu_backend **out, cs_error *e)
{
    *out = NULL;
    gpu_backend *g = static_cast<gpu_backend *>(calloc(1, sizeof *g));
    if (!g)
        return cs_fail(e, CS_ENOMEM, "", 0, "GPU: out of host memory");
    g->cfg = *cfg;
    g->alloc = row_batch_alloc{pinned_alloc, pinned_free, g};
    int rc = 0;
    if (cfg->ncols < 1 || cfg->ncols > 65535)
        rc = failf(g, "GPU: unsupported column count %d", cfg->ncols);
    else if ((cfg->what & STAT_HIST) &&
             (cfg->nbins < 1 || cfg->nbins > (1 << 28)))
        rc = failf(g, "GPU: unsupported bin count %d", cfg->nbins);
    else
        rc = setup(g);
    if (rc) {
        report(g, rc, e);
        release(g);
        free(g);
        return CS_EDATA;
    }
    *out = g;
    return 0;
}

int gpu_store_all(const gpu_backend *g)
{
    return gpu_store_on(g);
}

const value_store *gpu_host_values(const gpu_backend *g)
{
    return gpu_store_on(g) ? g->store.host : NULL;
}

const row_batch_alloc *gpu_row_batch_alloc(gpu_backend *g)
{
    return &g->alloc;
}

size_t gpu_batch_rows(const gpu_backend *g)
{
    return g->rows;
}

int gpu_submit(gpu_backend *g, const row_batch *c, uint64_t first_row,
               cs_error *e)
{
    if (g->failed)
        return report(g, -1, e);
    if (c->ncols != g->cfg.ncols)
        return report(g,
                      failf(g, "GPU: batch has %d columns, expected %d",
                            c->ncols, g->cfg.ncols),
                      e);
    int s = (int)(g->nbatches++ & 1);
    size_t off = 0;
    int rc = 0;
    do { /* a batch larger than the buffers goes in pieces */
        size_t k = c->nrows - off < g->rows ? c->nrows - off : g->rows;
        rc =
            submit_piece(g, c, off, k, first_row + off, s, off + k == c->nrows);
        off += k;
    } while (!rc && off < c->nrows);
    return report(g, rc, e);
}

int gpu_batch_wait(gpu_backend *g, const row_batch *c, cs_error *err)
{
    if (g->failed)
        return report(g, -1, err);
    for (int i = 0; i < NSLOTS; i++) {
        slot *sl = &g->slots[i];
        if (sl->busy && sl->c == c) {
            cudaError_t e = cudaEventSynchronize(sl->copied);
            sl->c = NULL;
            if (e != cudaSuccess)
                return report(g, cuda_fail(g, "cudaEventSynchronize", e), err);
        }
    }
    return 0;
}

int gpu_finish(gpu_backend *g, col_stats *out, hist *hists, cs_error *e)
{
    if (g->failed)
        return report(g, -1, e);
    int rc = finish(g, out, hists);
    for (int i = 0; i < NSLOTS && !rc; i++)
        harvest(g, &g->slots[i]);
    if (!rc && g->failed)
        rc = -1;
    return report(g, rc, e);
}

void gpu_get_times(const gpu_backend *g, gpu_times *t)
{
    *t = gpu_times{};
    t->h2d_s = g->h2d_ms / 1e3;
    t->kernel_s = g->kernel_ms / 1e3;
    t->hist_s = g->hist_ms / 1e3;
    t->h2d_bytes = g->h2d_bytes;
    t->context_s = g->context_s;
    memcpy(t->open_s, g->open_s, sizeof t->open_s);
    t->kept_device = g->store.peak;
    t->kept_values = gpu_store_values_bytes(g);
    t->kept_room = g->kept_room;
    t->device_memory = g->mem_total;
    t->kept_host = g->store.host ? vstore_memory(g->store.host) : 0;
    t->kept_file = g->store.host ? vstore_spilled(g->store.host) : 0;
    t->kept_dropped = g->store.dropped;
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        snprintf(t->device, sizeof t->device, "%.127s", prop.name);
}

void gpu_close(gpu_backend *g)
{
    if (!g)
        return;
    release(g);
    free(g);
}

} /* extern "C" */
