/* --distinct, --mode and --top on the device (gpu.h's gpu_value_runs):
 * one column's kept values gathered from every device range as
 * src/stats/qsel_key.h's keys, sorted by LSD radix sort (corrections
 * first, then the keys: both sorts stable, so (value, correction)
 * ascending), cut into runs of equal values where a run's first element
 * differs from its left neighbour, and the runs' k most frequent picked
 * by a second stable radix sort of their counts, descending: runs of
 * equal count keep their ascending order, so ties go to the smaller
 * value, as the host's profile_finalize orders them. */
#include "backend.cuh"

#include "cuda_try.cuh"
#include <cub/cub.cuh>
#include <stdlib.h>
#include <string.h>
#include <thrust/iterator/counting_iterator.h>

#include "src/stats/qsel_key.h"

typedef unsigned long long ull;

struct value_runs {
    ull n; /* runs */
    uint64_t *key;
    int *corr;
    ull *count;
};

namespace
{

constexpr int THREADS = 256;
constexpr unsigned BLOCKS = 2048;

/* NaN (a field that did not enter) sorts after every value's key: the
 * greatest a double has is +inf's. */
constexpr uint64_t NAN_KEY = ~UINT64_C(0);

unsigned blocks_for(size_t n)
{
    size_t b = (n + THREADS - 1) / THREADS;
    return b < 1 ? 1 : b > BLOCKS ? BLOCKS : (unsigned)b;
}

#define GRID(n) blocks_for(n), THREADS, 0, st

/* Column values v[0, n) to keys; -0 as 0 (one value); *any set when a
 * correction is not 0. */
__global__ void gather_kernel(const double *v, const int *c, size_t n,
                              uint64_t *key, int *corr, int *any)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double x = v[i];
        key[i] = x != x ? NAN_KEY : qsel_key(x == 0 ? 0.0 : x);
        if (corr) {
            int r = c ? c[i] : 0;
            corr[i] = r;
            if (r)
                *any = 1;
        }
    }
}

__global__ void head_kernel(const uint64_t *key, const int *corr, size_t n,
                            unsigned char *head)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        head[i] =
            i == 0 || key[i] != key[i - 1] || (corr && corr[i] != corr[i - 1]);
}

__global__ void iota_kernel(ull *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = i;
}

/* Run j starts at start[j]; the last ends at n. */
__global__ void runs_kernel(const uint64_t *key, const int *corr, size_t n,
                            const ull *start, const ull *nruns, value_runs o)
{
    ull m = *nruns;
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < m;
         j += (size_t)gridDim.x * blockDim.x) {
        ull s = start[j], e = j + 1 < m ? start[j + 1] : n;
        o.key[j] = key[s];
        o.corr[j] = corr ? corr[s] : 0;
        o.count[j] = e - s;
    }
}

__global__ void pick_kernel(value_runs o, const ull *idx, size_t n,
                            uint64_t *key, int *corr, ull *count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        ull j = idx[i];
        key[i] = o.key[j];
        corr[i] = o.corr[j];
        count[i] = o.count[j];
    }
}

/* Device memory freed at scope's end (the steps' scratch). */
struct dmem {
    void *p = nullptr;
    ~dmem()
    {
        cudaFree(p);
    }
    cudaError_t take(size_t bytes)
    {
        return cudaMalloc(&p, bytes ? bytes : 1);
    }
    template <class T> T *as() const
    {
        return static_cast<T *>(p);
    }
};

struct range {
    const double *v;
    const int *c;
    size_t n;
};

struct ranges {
    int col;
    range *r;
    size_t nr, cap;
    size_t total;
};

/* Every device range's column col, with its row count (a CSV arena's
 * from the device). */
int note_range(gpu_backend *g, const double *col, const int *corr, size_t ld,
               size_t n, const unsigned long long *dn, cudaStream_t st,
               void *ctx)
{
    ranges *rs = static_cast<ranges *>(ctx);
    if (dn) {
        ull rows = 0;
        CK(g,
           cudaMemcpyAsync(&rows, dn, sizeof rows, cudaMemcpyDeviceToHost, st));
        CK(g, cudaStreamSynchronize(st));
        n = rows < n ? (size_t)rows : n;
    }
    if (rs->nr == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 16;
        range *r = static_cast<range *>(realloc(rs->r, cap * sizeof *r));
        if (!r)
            return fail_nomem(g);
        rs->r = r;
        rs->cap = cap;
    }
    size_t off = (size_t)rs->col * ld;
    rs->r[rs->nr++] = range{col + off, corr ? corr + off : nullptr, n};
    rs->total += n;
    return 0;
}

struct sorted {
    size_t n;
    dmem key[2], corr[2];
    uint64_t *k; /* the sorted keys: one of key[] */
    int *c;      /* their corrections (NULL: none kept or all 0) */
};

cudaError_t gather(const ranges &rs, bool with_r, sorted &s, int *any,
                   cudaStream_t st)
{
    size_t n1 = s.n ? s.n : 1;
    for (int i = 0; i < 2; i++) {
        TRY(s.key[i].take(n1 * sizeof(uint64_t)));
        if (with_r)
            TRY(s.corr[i].take(n1 * sizeof(int)));
    }
    dmem dany;
    TRY(dany.take(sizeof(int)));
    TRY(cudaMemsetAsync(dany.p, 0, sizeof(int), st));
    size_t at = 0;
    for (size_t i = 0; i < rs.nr; i++) {
        const range &r = rs.r[i];
        if (!r.n)
            continue;
        gather_kernel<<<GRID(r.n)>>>(
            r.v, r.c, r.n, s.key[0].as<uint64_t>() + at,
            with_r ? s.corr[0].as<int>() + at : nullptr, dany.as<int>());
        TRY(cudaGetLastError());
        at += r.n;
    }
    TRY(cudaMemcpyAsync(any, dany.p, sizeof(int), cudaMemcpyDeviceToHost, st));
    return cudaStreamSynchronize(st);
}

/* s.k (and s.c) ascending by (key, correction). */
cudaError_t sort_values(sorted &s, bool with_corr, cudaStream_t st)
{
    cub::DoubleBuffer<uint64_t> k(s.key[0].as<uint64_t>(),
                                  s.key[1].as<uint64_t>());
    cub::DoubleBuffer<int> c(s.corr[0].as<int>(), s.corr[1].as<int>());
    size_t b = 0, b2 = 0;
    dmem tmp;
    if (!with_corr) {
        TRY(cub::DeviceRadixSort::SortKeys(nullptr, b, k, s.n, 0, 64, st));
        TRY(tmp.take(b));
        TRY(cub::DeviceRadixSort::SortKeys(tmp.p, b, k, s.n, 0, 64, st));
        s.k = k.Current();
        s.c = nullptr;
        return cudaSuccess;
    }
    TRY(cub::DeviceRadixSort::SortPairs(nullptr, b, c, k, s.n, 0, 32, st));
    TRY(cub::DeviceRadixSort::SortPairs(nullptr, b2, k, c, s.n, 0, 64, st));
    TRY(tmp.take(b > b2 ? b : b2));
    b = b > b2 ? b : b2;
    TRY(cub::DeviceRadixSort::SortPairs(tmp.p, b, c, k, s.n, 0, 32, st));
    TRY(cub::DeviceRadixSort::SortPairs(tmp.p, b, k, c, s.n, 0, 64, st));
    s.k = k.Current();
    s.c = c.Current();
    return cudaSuccess;
}

/* The runs of s into *out (device memory it allocates), NaN's left out. */
cudaError_t cut_runs(const sorted &s, value_runs *out, cudaStream_t st)
{
    size_t n = s.n, n1 = n ? n : 1;
    dmem head, start, nsel, tmp;
    TRY(head.take(n1));
    TRY(start.take(n1 * sizeof(ull)));
    TRY(nsel.take(sizeof(ull)));
    TRY(cudaMemsetAsync(nsel.p, 0, sizeof(ull), st));
    ull m = 0;
    if (n) {
        head_kernel<<<GRID(n)>>>(s.k, s.c, n, head.as<unsigned char>());
        TRY(cudaGetLastError());
        thrust::counting_iterator<ull> idx(0);
        size_t b = 0;
        TRY(cub::DeviceSelect::Flagged(
            nullptr, b, idx, head.as<unsigned char>(), start.as<ull>(),
            nsel.as<ull>(), (int64_t)n, st));
        TRY(tmp.take(b));
        TRY(cub::DeviceSelect::Flagged(tmp.p, b, idx, head.as<unsigned char>(),
                                       start.as<ull>(), nsel.as<ull>(),
                                       (int64_t)n, st));
        TRY(cudaMemcpyAsync(&m, nsel.p, sizeof m, cudaMemcpyDeviceToHost, st));
        TRY(cudaStreamSynchronize(st));
    }
    size_t m1 = m ? (size_t)m : 1;
    TRY(cudaMalloc((void **)&out->key, m1 * sizeof(uint64_t)));
    TRY(cudaMalloc((void **)&out->corr, m1 * sizeof(int)));
    TRY(cudaMalloc((void **)&out->count, m1 * sizeof(ull)));
    if (m) {
        runs_kernel<<<GRID(m)>>>(s.k, s.c, n, start.as<ull>(), nsel.as<ull>(),
                                 *out);
        TRY(cudaGetLastError());
        uint64_t last = 0;
        TRY(cudaMemcpyAsync(&last, out->key + m - 1, sizeof last,
                            cudaMemcpyDeviceToHost, st));
        TRY(cudaStreamSynchronize(st));
        m -= last == NAN_KEY;
    }
    out->n = m;
    return cudaSuccess;
}

void free_runs(value_runs *r)
{
    if (!r)
        return;
    cudaFree(r->key);
    cudaFree(r->corr);
    cudaFree(r->count);
    free(r);
}

/* Runs' (key, correction, count) at device places to host doubles. */
cudaError_t to_host(const uint64_t *key, const int *corr, const ull *count,
                    size_t n, double *d, int32_t *r, uint64_t *cnt,
                    cudaStream_t st)
{
    if (!n)
        return cudaSuccess;
    uint64_t *hk = static_cast<uint64_t *>(malloc(n * sizeof *hk));
    if (!hk)
        return cudaErrorMemoryAllocation;
    cudaError_t e =
        cudaMemcpyAsync(hk, key, n * sizeof *hk, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(r, corr, n * sizeof *r, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(cnt, count, n * sizeof *cnt, cudaMemcpyDeviceToHost,
                            st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st);
    for (size_t i = 0; e == cudaSuccess && i < n; i++)
        d[i] = qsel_key_double(hk[i]);
    free(hk);
    return e;
}

int collect(gpu_backend *g, int col, ranges &rs)
{
    rs.col = col;
    return gpu_store_visit(g, g->st[0], note_range, &rs);
}

cudaError_t make_runs(const ranges &rs, bool with_r, value_runs *out,
                      cudaStream_t st)
{
    sorted s;
    s.n = rs.total;
    int any = 0;
    TRY(gather(rs, with_r, s, &any, st));
    TRY(sort_values(s, with_r && any, st));
    if (!(with_r && any))
        s.c = nullptr;
    return cut_runs(s, out, st);
}

} // namespace

extern "C" {

void gpu_value_runs_release(gpu_backend *g)
{
    free_runs(g->runs);
    g->runs = NULL;
}

int gpu_value_runs(gpu_backend *g, int col, int with_r, uint64_t *nruns,
                   cs_error *e)
{
    *nruns = 0;
    if (g->failed)
        return report(g, -1, e);
    gpu_value_runs_release(g);
    if (col < 0 || col >= g->cfg.ncols || !(g->cfg.what & STAT_PROFILE))
        return report(
            g, failf(g, "GPU: internal: no values kept for column %d", col), e);
    ranges rs;
    memset(&rs, 0, sizeof rs);
    int rc = collect(g, col, rs);
    value_runs *o = static_cast<value_runs *>(calloc(1, sizeof *o));
    if (!rc && !o)
        rc = fail_nomem(g);
    if (!rc) {
        cudaError_t ce = make_runs(rs, with_r != 0, o, g->st[0]);
        if (ce != cudaSuccess)
            rc = cuda_fail(g, "sorting a column's values (--distinct)", ce);
    }
    free(rs.r);
    if (rc) {
        free_runs(o);
        return report(g, rc, e);
    }
    g->runs = o;
    *nruns = o->n;
    return CS_OK;
}

int gpu_value_runs_top(gpu_backend *g, size_t k, double *d, int32_t *r,
                       uint64_t *count, size_t *n, cs_error *e)
{
    *n = 0;
    value_runs *o = g->runs;
    if (g->failed || !o)
        return report(g, g->failed ? -1 : failf(g, "GPU: internal: no runs"),
                      e);
    size_t m = (size_t)o->n, want = k < m ? k : m;
    if (!want)
        return CS_OK;
    cudaStream_t st = g->st[0];
    dmem cnt[2], idx[2], tmp, pk, pc, pn;
    size_t b = 0;
    cudaError_t ce = cudaSuccess;
#define STEP(call)                                                             \
    if (ce == cudaSuccess)                                                     \
    ce = (call)
    for (int i = 0; i < 2; i++) {
        STEP(cnt[i].take(m * sizeof(ull)));
        STEP(idx[i].take(m * sizeof(ull)));
    }
    STEP(cudaMemcpyAsync(cnt[0].p, o->count, m * sizeof(ull),
                         cudaMemcpyDeviceToDevice, st));
    if (ce == cudaSuccess) {
        iota_kernel<<<GRID(m)>>>(idx[0].as<ull>(), m);
        ce = cudaGetLastError();
    }
    cub::DoubleBuffer<ull> ck(cnt[0].as<ull>(), cnt[1].as<ull>());
    cub::DoubleBuffer<ull> ik(idx[0].as<ull>(), idx[1].as<ull>());
    STEP(cub::DeviceRadixSort::SortPairsDescending(nullptr, b, ck, ik, m, 0, 64,
                                                   st));
    STEP(tmp.take(b));
    STEP(cub::DeviceRadixSort::SortPairsDescending(tmp.p, b, ck, ik, m, 0, 64,
                                                   st));
    STEP(pk.take(want * sizeof(uint64_t)));
    STEP(pc.take(want * sizeof(int)));
    STEP(pn.take(want * sizeof(ull)));
    if (ce == cudaSuccess) {
        pick_kernel<<<GRID(want)>>>(*o, ik.Current(), want, pk.as<uint64_t>(),
                                    pc.as<int>(), pn.as<ull>());
        ce = cudaGetLastError();
    }
    STEP(to_host(pk.as<uint64_t>(), pc.as<int>(), pn.as<ull>(), want, d, r,
                 count, st));
#undef STEP
    if (ce != cudaSuccess)
        return report(g, cuda_fail(g, "the most frequent values (--top)", ce),
                      e);
    *n = want;
    return CS_OK;
}

int gpu_value_runs_get(gpu_backend *g, uint64_t from, size_t n, double *d,
                       int32_t *r, uint64_t *count, cs_error *e)
{
    value_runs *o = g->runs;
    if (g->failed || !o || from > o->n || n > o->n - from)
        return report(g, g->failed ? -1 : failf(g, "GPU: internal: no runs"),
                      e);
    cudaError_t ce = to_host(o->key + from, o->corr + from, o->count + from, n,
                             d, r, count, g->st[0]);
    if (ce != cudaSuccess)
        return report(g, cuda_fail(g, "copying a column's values", ce), e);
    return CS_OK;
}

} /* extern "C" */
