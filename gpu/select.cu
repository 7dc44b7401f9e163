/* A pass after the input over the values kept on the device (device_store.cuh):
 * the counts and candidates of the quantile selection (quantile.h, after
 * Alabi et al., "Fast k-selection algorithms for graphics processing
 * units", 2012) and the bins of histograms whose edges are the final min
 * and max: gpu_pass. Keys and bins are qsel_key.h's, the host's formula,
 * so device and host counts of one pass add up.
 *
 * A column whose pass is one range of at most 2^14 bins (pass 1, over
 * [min, max]) counts in 32-bit counters in a block's shared memory (64
 * KiB), each block adding its nonzero counters to the global counts with
 * one atomic each, as the histogram kernel does; later passes, where few
 * values fall in the ranges left, count with global atomics. Each range's
 * least and greatest key of the doubles counted go to the host too
 * (qsel_add_extrema). Values of collect ranges are appended through an
 * atomic counter. */
#include "backend.cuh"

#include <stdlib.h>
#include <string.h>

namespace
{

typedef unsigned long long ull;

constexpr int THREADS = 512;
constexpr unsigned SHARED_BINS = 1u << 14;

struct sel_col {
    ull counts;     /* the column's first count in the pass's counts */
    unsigned first; /* its ranges in the pass's ranges */
    unsigned n;     /* 0: nothing to count */
    int with_r;     /* keys carry the corrections */
    int single;     /* one histogram range of at most SHARED_BINS bins */
};

struct sel_cand {
    double d;
    int r, col;
};

struct sel_args {
    const sel_col *cols; /* [ncols] */
    const qsel_range *ranges;
    ull *counts;
    ull *kmin, *kmax; /* per range of the pass */
    sel_cand *cand;
    ull *ncand; /* found; those past room are not written */
    ull room;
};

template <bool SHARED>
__global__ void __launch_bounds__(THREADS)
    sel_kernel(sel_args a, const double *col, const int *corr, size_t ld,
               size_t n, const ull *dn)
{
    extern __shared__ unsigned s_cnt[];
    __shared__ ull s_min, s_max;
    if (dn)
        n = *dn;
    const int c = blockIdx.y;
    const sel_col sc = a.cols[c];
    if (sc.n == 0 || SHARED != (sc.single != 0))
        return; /* the whole block: the other kernel counts this column */
    const qsel_range *g = a.ranges + sc.first;
    const double *v = col + (size_t)c * ld;
    const int *r = corr ? corr + (size_t)c * ld : nullptr;
    const qsel_range g0 = g[0];
    const int rb = sc.with_r ? QSEL_R_BITS : 0;
    ull lo = ~0ull, hi = 0; /* SHARED: this thread's extrema */
    if (SHARED) {
        for (unsigned i = threadIdx.x; i < g0.nbins; i += THREADS)
            s_cnt[i] = 0;
        if (threadIdx.x == 0) {
            s_min = ~0ull;
            s_max = 0;
        }
        __syncthreads();
    }
    const size_t stride = (size_t)gridDim.x * THREADS;
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += stride) {
        double x = v[i];
        if (x != x)
            continue;
        int ri = r ? r[i] : 0;
        qsel_u128 k = qsel_ckey(x, ri, sc.with_r);
        const ull dk = (ull)(k >> rb);
        if (SHARED) {
            if (k >= g0.lo && k <= g0.hi) {
                atomicAdd(&s_cnt[qsel_bin(&g0, k)], 1u);
                lo = dk < lo ? dk : lo;
                hi = dk > hi ? dk : hi;
            }
            continue;
        }
        long j = qsel_find(g, sc.n, k);
        if (j < 0)
            continue;
        if (g[j].nbins) {
            atomicAdd(a.counts + sc.counts + g[j].first + qsel_bin(&g[j], k),
                      1ull);
            atomicMin(a.kmin + sc.first + j, dk);
            atomicMax(a.kmax + sc.first + j, dk);
        } else {
            ull at = atomicAdd(a.ncand, 1ull);
            if (at < a.room)
                a.cand[at] = sel_cand{x, ri, c};
        }
    }
    if (SHARED) {
        atomicMin(&s_min, lo);
        atomicMax(&s_max, hi);
        __syncthreads();
        for (unsigned i = threadIdx.x; i < g0.nbins; i += THREADS)
            if (s_cnt[i])
                atomicAdd(a.counts + sc.counts + g0.first + i, (ull)s_cnt[i]);
        if (threadIdx.x == 0) {
            atomicMin(a.kmin + sc.first, s_min);
            atomicMax(a.kmax + sc.first, s_max);
        }
    }
}

/* The pass as the device sees it, and where its results come back. */
struct device_pass {
    sel_args a;
    int ncols;
    bool any_shared, any_global;
    sel_col *hcols;
    qsel_range *hranges;
    unsigned nranges;
    ull nbins;
    sel_col *dcols;
    qsel_range *dranges;
};

unsigned blocks(const gpu_backend *g, size_t n, bool shared)
{
    size_t want = (n + (size_t)THREADS * 8 - 1) / ((size_t)THREADS * 8);
    /* shared counters cost a flush per block: fewer, busier blocks */
    size_t cap = (size_t)g->nsm * (shared ? 2 : 4);
    return (unsigned)(want < 1 ? 1 : want < cap ? want : cap);
}

int count_range(gpu_backend *g, const double *col, const int *corr, size_t ld,
                size_t n, const ull *dn, cudaStream_t st, void *ctx)
{
    const device_pass *p = static_cast<const device_pass *>(ctx);
    if (n == 0)
        return 0;
    if (p->any_shared) {
        dim3 grid(blocks(g, n, true), (unsigned)p->ncols);
        sel_kernel<true><<<grid, THREADS, SHARED_BINS * sizeof(unsigned), st>>>(
            p->a, col, corr, ld, n, dn);
        CK(g, cudaGetLastError());
    }
    if (p->any_global) {
        dim3 grid(blocks(g, n, false), (unsigned)p->ncols);
        sel_kernel<false><<<grid, THREADS, 0, st>>>(p->a, col, corr, ld, n, dn);
        CK(g, cudaGetLastError());
    }
    return 0;
}

int bin_range(gpu_backend *g, const double *col, const int *corr, size_t ld,
              size_t n, const ull *dn, cudaStream_t st, void *ctx)
{
    (void)corr, (void)ctx;
    CK(g, hist_launch(col, ld, n, g->cfg.ncols, g->cfg.nbins, g->dscales,
                      g->dbins, g->nsm, st, dn));
    return 0;
}

bool has_hist(const gpu_backend *g, const gpu_pass_col *cols)
{
    for (int j = 0; j < g->cfg.ncols; j++)
        if (cols[j].h)
            return true;
    return false;
}

/* Histograms: the edges up, every kept value binned, the bins back. */
int bin_pass(gpu_backend *g, const gpu_pass_col *cols)
{
    int ncols = g->cfg.ncols, nb2 = g->cfg.nbins + 2;
    size_t nbins = (size_t)ncols * (size_t)nb2;
    hist_scale *sc =
        static_cast<hist_scale *>(malloc((size_t)ncols * sizeof *sc));
    ull *h = static_cast<ull *>(malloc(nbins * sizeof *h));
    int rc = sc && h ? 0 : fail_nomem(g);
    for (int j = 0; !rc && j < ncols; j++)
        sc[j] = cols[j].h ? hist_scale_make(cols[j].h->lo, cols[j].h->hi,
                                            g->cfg.nbins)
                          : hist_scale_make(0.0, 1.0, g->cfg.nbins);
    if (!rc)
        rc = upload(g, g->dscales, sc, (size_t)ncols * sizeof *sc);
    if (!rc && cudaMemsetAsync(g->dbins, 0, nbins * sizeof *h, g->st[0]))
        rc = cuda_fail(g, "cudaMemsetAsync", cudaGetLastError());
    if (!rc)
        rc = gpu_store_visit(g, g->st[0], bin_range, NULL);
    if (!rc)
        rc = download(g, h, g->dbins, nbins * sizeof *h);
    for (int j = 0; !rc && j < ncols; j++) {
        hist *o = cols[j].h;
        const ull *b = h + (size_t)j * nb2;
        if (!o)
            continue;
        o->underflow += b[0];
        for (int k = 0; k < o->nbins; k++)
            o->bins[k] += b[k + 1];
        o->overflow += b[o->nbins + 1];
    }
    free(sc);
    free(h);
    return rc;
}

/* The columns' ranges, laid end to end, and where each column's counts
 * start. */
int plan(gpu_backend *g, const gpu_pass_col *cols, device_pass *p)
{
    int ncols = g->cfg.ncols;
    p->ncols = ncols;
    p->hcols = static_cast<sel_col *>(calloc((size_t)ncols, sizeof *p->hcols));
    if (!p->hcols)
        return fail_nomem(g);
    unsigned nr = 0;
    for (int j = 0; j < ncols; j++) {
        size_t n = 0;
        if (cols[j].sel && !qsel_done(cols[j].sel))
            qsel_ranges(cols[j].sel, &n);
        nr += (unsigned)n;
    }
    p->hranges =
        static_cast<qsel_range *>(malloc((nr ? nr : 1) * sizeof *p->hranges));
    if (!p->hranges)
        return fail_nomem(g);
    for (int j = 0; j < ncols; j++) {
        sel_col *c = &p->hcols[j];
        size_t n = 0;
        const qsel *s = cols[j].sel;
        if (!s || qsel_done(s))
            continue;
        const qsel_range *r = qsel_ranges(s, &n);
        memcpy(p->hranges + p->nranges, r, n * sizeof *r);
        c->counts = p->nbins;
        c->first = p->nranges;
        c->n = (unsigned)n;
        c->with_r = qsel_with_r(s);
        c->single = n == 1 && r[0].nbins && r[0].nbins <= SHARED_BINS;
        p->nranges += (unsigned)n;
        p->nbins += qsel_nbins(s);
        p->a.room += cols[j].room;
        p->any_shared = p->any_shared || c->single;
        p->any_global = p->any_global || (n && !c->single);
    }
    return 0;
}

int upload_plan(gpu_backend *g, device_pass *p)
{
    cudaStream_t st = g->st[0];
    CK(g, cudaMalloc((void **)&p->dcols, (size_t)p->ncols * sizeof(sel_col)));
    CK(g, cudaMalloc((void **)&p->dranges,
                     (p->nranges ? p->nranges : 1) * sizeof(qsel_range)));
    CK(g, cudaMalloc((void **)&p->a.counts,
                     (p->nbins ? p->nbins : 1) * sizeof(ull)));
    CK(g, cudaMalloc((void **)&p->a.cand,
                     (p->a.room ? p->a.room : 1) * sizeof(sel_cand)));
    CK(g, cudaMalloc((void **)&p->a.ncand, sizeof(ull)));
    size_t nr = p->nranges ? p->nranges : 1;
    CK(g, cudaMalloc((void **)&p->a.kmin, nr * sizeof(ull)));
    CK(g, cudaMalloc((void **)&p->a.kmax, nr * sizeof(ull)));
    CK(g, cudaMemsetAsync(p->a.kmin, 0xff, nr * sizeof(ull), st));
    CK(g, cudaMemsetAsync(p->a.kmax, 0, nr * sizeof(ull), st));
    CK(g, cudaMemsetAsync(p->a.counts, 0,
                          (p->nbins ? p->nbins : 1) * sizeof(ull), st));
    CK(g, cudaMemsetAsync(p->a.ncand, 0, sizeof(ull), st));
    if (upload(g, p->dcols, p->hcols, (size_t)p->ncols * sizeof(sel_col)) ||
        (p->nranges &&
         upload(g, p->dranges, p->hranges, p->nranges * sizeof(qsel_range))))
        return -1;
    p->a.cols = p->dcols;
    p->a.ranges = p->dranges;
    if (p->any_shared)
        CK(g, cudaFuncSetAttribute(sel_kernel<true>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)(SHARED_BINS * sizeof(unsigned))));
    return 0;
}

/* The counts and candidates back, each to its column. */
int take_results(gpu_backend *g, const gpu_pass_col *cols, device_pass *p)
{
    ull found = 0;
    if (download(g, &found, p->a.ncand, sizeof found))
        return -1;
    if (found > p->a.room)
        return failf(g,
                     "GPU: internal: %llu candidates where %llu were "
                     "counted",
                     found, p->a.room);
    size_t nr = p->nranges ? p->nranges : 1;
    ull *counts = static_cast<ull *>(malloc((p->nbins ? p->nbins : 1) * 8));
    ull *ext = static_cast<ull *>(malloc(2 * nr * sizeof(ull)));
    sel_cand *cand =
        static_cast<sel_cand *>(malloc((found ? found : 1) * sizeof(sel_cand)));
    int rc = counts && ext && cand ? 0 : fail_nomem(g);
    if (!rc && p->nbins)
        rc = download(g, counts, p->a.counts, p->nbins * sizeof *counts);
    if (!rc)
        rc = download(g, ext, p->a.kmin, nr * sizeof *ext);
    if (!rc)
        rc = download(g, ext + nr, p->a.kmax, nr * sizeof *ext);
    if (!rc && found)
        rc = download(g, cand, p->a.cand, found * sizeof *cand);
    for (int j = 0; !rc && j < p->ncols; j++) {
        const sel_col *c = &p->hcols[j];
        for (size_t i = 0; c->n && i < qsel_nbins(cols[j].sel); i++)
            cols[j].counts[i] += counts[c->counts + i];
        for (unsigned i = 0; i < c->n; i++) {
            ull lo = ext[c->first + i], hi = ext[nr + c->first + i];
            cols[j].kmin[i] = lo < cols[j].kmin[i] ? lo : cols[j].kmin[i];
            cols[j].kmax[i] = hi > cols[j].kmax[i] ? hi : cols[j].kmax[i];
        }
    }
    for (ull i = 0; !rc && i < found; i++) {
        const gpu_pass_col *pc = &cols[cand[i].col];
        if (*pc->ncand < pc->room)
            pc->cand[*pc->ncand] = qnum{cand[i].d, cand[i].r};
        ++*pc->ncand;
    }
    free(counts);
    free(ext);
    free(cand);
    return rc;
}

void release(device_pass *p)
{
    cudaFree(p->dcols);
    cudaFree(p->dranges);
    cudaFree(p->a.counts);
    cudaFree(p->a.cand);
    cudaFree(p->a.ncand);
    cudaFree(p->a.kmin);
    cudaFree(p->a.kmax);
    free(p->hcols);
    free(p->hranges);
}

int select_pass(gpu_backend *g, const gpu_pass_col *cols)
{
    device_pass p;
    memset(&p, 0, sizeof p);
    int rc = plan(g, cols, &p);
    if (!rc && (p.any_shared || p.any_global)) {
        rc = upload_plan(g, &p);
        if (!rc)
            rc = gpu_store_visit(g, g->st[0], count_range, &p);
        if (!rc)
            rc = take_results(g, cols, &p);
    }
    release(&p);
    return rc;
}

} // namespace

extern "C" int gpu_pass(gpu_backend *g, const gpu_pass_col *cols, cs_error *e)
{
    if (g->failed)
        return report(g, -1, e);
    int rc = has_hist(g, cols) && g->dbins ? bin_pass(g, cols) : 0;
    if (!rc)
        rc = select_pass(g, cols);
    return report(g, rc, e);
}
