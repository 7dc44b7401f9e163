/* --group-by's kept values, group by group (group_values.cuh). */
#include "group_values.cuh"

#include <cub/cub.cuh>
#include <string.h>

#include "cuda_try.cuh"

#include "src/stats/qsel_key.h"

typedef unsigned long long ull;

struct group_order {
    size_t n;
    uint32_t ngroups;
    ull *start; /* [ngroups + 1]: group g's rows at [start[g], start[g+1]) */
    unsigned *perm;   /* [n]: the arena row at each place */
    uint64_t *key[2]; /* [n]: one column's keys, in and sorted */
    int *corr[2];     /* [n]: their corrections */
    void *tmp;        /* the segmented sort's */
    size_t tmp_bytes;
    int sorted;    /* the column key[1] holds, sorted (-1: none) */
    int *any;      /* [1]: a correction not 0 seen */
    uint64_t *pos; /* [npos]: places picked */
    size_t npos;
};

namespace
{

constexpr int THREADS = 256;
constexpr unsigned BLOCKS = 1024;

/* NaN (a field that did not enter) after every value of its group. */
constexpr uint64_t NAN_KEY = ~UINT64_C(0);

__global__ void count_kernel(const unsigned *gid, size_t n, ull *cnt)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&cnt[gid[i]], 1ull);
}

/* A counting sort's scatter: unstable, the sort within groups follows. */
__global__ void place_kernel(const unsigned *gid, size_t n, const ull *start,
                             ull *fill, unsigned *perm)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned g = gid[i];
        perm[start[g] + atomicAdd(&fill[g], 1ull)] = (unsigned)i;
    }
}

__global__ void gather_kernel(const unsigned *perm, size_t n, const double *d,
                              const int *c, uint64_t *key, int *corr)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned row = perm[i];
        double v = d[row];
        key[i] = v != v ? NAN_KEY : qsel_key(v);
        if (corr)
            corr[i] = c[row];
    }
}

__global__ void any_kernel(const int *c, size_t n, int *any)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (c[i]) {
            *any = 1;
            return;
        }
}

__global__ void pick_kernel(const uint64_t *key, const int *corr,
                            const uint64_t *pos, size_t n, uint64_t *out,
                            int *cout)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        out[i] = key[pos[i]];
        cout[i] = corr[pos[i]];
    }
}

/* The sorted keys back to doubles, in place (NAN_KEY's double is a NaN). */
__global__ void unkey_kernel(uint64_t *key, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double v = qsel_key_double(key[i]);
        memcpy(&key[i], &v, sizeof v);
    }
}

unsigned blocks_for(size_t n)
{
    size_t b = (n + THREADS - 1) / THREADS;
    return b < 1 ? 1 : b > BLOCKS ? BLOCKS : (unsigned)b;
}

cudaError_t order_rows(group_order *o, const unsigned *gid, cudaStream_t s)
{
    size_t ng = (size_t)o->ngroups + 1, scan_bytes = 0;
    ull *cnt = nullptr;
    void *scan = nullptr;
    cudaError_t e = cudaMalloc((void **)&cnt, ng * sizeof(ull));
    if (e == cudaSuccess)
        e = cudaMemsetAsync(cnt, 0, ng * sizeof(ull), s);
    if (e == cudaSuccess && o->n) {
        count_kernel<<<blocks_for(o->n), THREADS, 0, s>>>(gid, o->n, cnt);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cnt, o->start,
                                          (int)ng, s);
    if (e == cudaSuccess)
        e = cudaMalloc(&scan, scan_bytes ? scan_bytes : 1);
    if (e == cudaSuccess)
        e = cub::DeviceScan::ExclusiveSum(scan, scan_bytes, cnt, o->start,
                                          (int)ng, s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(cnt, 0, ng * sizeof(ull), s);
    if (e == cudaSuccess && o->n) {
        place_kernel<<<blocks_for(o->n), THREADS, 0, s>>>(gid, o->n, o->start,
                                                          cnt, o->perm);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    cudaFree(cnt);
    cudaFree(scan);
    return e;
}

/* The segmented sort's scratch, for pairs and for keys alone. */
cudaError_t sort_room(group_order *o, cudaStream_t s)
{
    size_t b = 0, k = 0;
    TRY(cub::DeviceSegmentedSort::SortPairs(
        nullptr, b, o->key[0], o->key[1], o->corr[0], o->corr[1], (int64_t)o->n,
        (int64_t)o->ngroups, o->start, o->start + 1, s));
    TRY(cub::DeviceSegmentedSort::SortKeys(nullptr, k, o->key[0], o->key[1],
                                           (int64_t)o->n, (int64_t)o->ngroups,
                                           o->start, o->start + 1, s));
    b = b > k ? b : k;
    size_t r = 0, v = 0;
    TRY(cub::DeviceSegmentedSort::StableSortPairs(
        nullptr, r, o->corr[0], o->corr[1], o->key[0], o->key[1], (int64_t)o->n,
        (int64_t)o->ngroups, o->start, o->start + 1, s));
    TRY(cub::DeviceSegmentedSort::StableSortPairs(
        nullptr, v, o->key[1], o->key[0], o->corr[1], o->corr[0], (int64_t)o->n,
        (int64_t)o->ngroups, o->start, o->start + 1, s));
    b = b > r ? b : r;
    b = b > v ? b : v;
    o->tmp_bytes = b;
    return cudaMalloc(&o->tmp, b ? b : 1);
}

} // namespace

cudaError_t group_order_make(group_order **out, const unsigned *gid, size_t n,
                             uint32_t ngroups, cudaStream_t s)
{
    group_order *o = static_cast<group_order *>(calloc(1, sizeof *o));
    *out = o;
    if (!o)
        return cudaErrorMemoryAllocation;
    o->n = n;
    o->ngroups = ngroups;
    size_t n1 = n ? n : 1;
    TRY(cudaMalloc((void **)&o->start, ((size_t)ngroups + 1) * sizeof(ull)));
    TRY(cudaMalloc((void **)&o->perm, n1 * sizeof(unsigned)));
    for (int i = 0; i < 2; i++) {
        TRY(cudaMalloc((void **)&o->key[i], n1 * sizeof(uint64_t)));
        TRY(cudaMalloc((void **)&o->corr[i], n1 * sizeof(int)));
    }
    o->sorted = -1;
    TRY(cudaMalloc((void **)&o->any, sizeof(int)));
    TRY(order_rows(o, gid, s));
    return sort_room(o, s);
}

void group_order_free(group_order *o)
{
    if (!o)
        return;
    void *p[] = {o->start,   o->perm, o->key[0], o->key[1], o->corr[0],
                 o->corr[1], o->tmp,  o->any,    o->pos};
    for (void *q : p)
        cudaFree(q);
    free(o);
}

namespace
{

/* Whether column c's corrections hold one not 0 (then ties of a double
 * are ordered by them too). */
cudaError_t any_corr(const group_order *o, const int *c, int *any,
                     cudaStream_t s)
{
    *any = 0;
    if (!c)
        return cudaSuccess;
    TRY(cudaMemsetAsync(o->any, 0, sizeof(int), s));
    any_kernel<<<blocks_for(o->n), THREADS, 0, s>>>(c, o->n, o->any);
    TRY(cudaGetLastError());
    TRY(cudaMemcpyAsync(any, o->any, sizeof(int), cudaMemcpyDeviceToHost, s));
    return cudaStreamSynchronize(s);
}

/* key[1] and corr[1]: each group's (value, correction) ascending. With
 * corrections, two stable sorts (by correction, then by value: least
 * significant first); else the values alone and corrections 0. */
cudaError_t sort_column(group_order *o, const double *d, const int *c,
                        cudaStream_t s)
{
    size_t n = o->n, b = o->tmp_bytes;
    int64_t ng = (int64_t)o->ngroups, ni = (int64_t)n;
    int any;
    TRY(any_corr(o, c, &any, s));
    gather_kernel<<<blocks_for(n), THREADS, 0, s>>>(o->perm, n, d, c, o->key[0],
                                                    any ? o->corr[0] : nullptr);
    TRY(cudaGetLastError());
    if (!any) {
        TRY(cub::DeviceSegmentedSort::SortKeys(o->tmp, b, o->key[0], o->key[1],
                                               ni, ng, o->start, o->start + 1,
                                               s));
        TRY(cudaMemsetAsync(o->corr[1], 0, n * sizeof(int), s));
    } else {
        TRY(cub::DeviceSegmentedSort::StableSortPairs(
            o->tmp, b, o->corr[0], o->corr[1], o->key[0], o->key[1], ni, ng,
            o->start, o->start + 1, s));
        TRY(cub::DeviceSegmentedSort::StableSortPairs(
            o->tmp, b, o->key[1], o->key[0], o->corr[1], o->corr[0], ni, ng,
            o->start, o->start + 1, s));
        TRY(cudaMemcpyAsync(o->key[1], o->key[0], n * sizeof(uint64_t),
                            cudaMemcpyDeviceToDevice, s));
        TRY(cudaMemcpyAsync(o->corr[1], o->corr[0], n * sizeof(int),
                            cudaMemcpyDeviceToDevice, s));
    }
    unkey_kernel<<<blocks_for(n), THREADS, 0, s>>>(o->key[1], n);
    return cudaGetLastError();
}

cudaError_t sorted_column(group_order *o, int col, const double *d,
                          const int *c, cudaStream_t s)
{
    if (o->sorted == col)
        return cudaSuccess;
    o->sorted = -1;
    TRY(sort_column(o, d, c, s));
    o->sorted = col;
    return cudaSuccess;
}

} // namespace

cudaError_t group_order_column(group_order *o, int col, const double *d,
                               const int *c, double *hd, int32_t *hr,
                               cudaStream_t s)
{
    size_t n = o->n;
    if (!n)
        return cudaSuccess;
    TRY(sorted_column(o, col, d, c, s));
    TRY(cudaMemcpyAsync(hd, o->key[1], n * sizeof(double),
                        cudaMemcpyDeviceToHost, s));
    TRY(cudaMemcpyAsync(hr, o->corr[1], n * sizeof(int32_t),
                        cudaMemcpyDeviceToHost, s));
    return cudaStreamSynchronize(s);
}

cudaError_t group_order_pick(group_order *o, int col, const double *d,
                             const int *c, const uint64_t *pos, size_t npos,
                             double *hd, int32_t *hr, cudaStream_t s)
{
    if (!npos)
        return cudaSuccess;
    TRY(sorted_column(o, col, d, c, s));
    if (npos > o->npos) {
        cudaFree(o->pos);
        o->pos = nullptr;
        o->npos = 0;
        TRY(cudaMalloc((void **)&o->pos,
                       npos * (2 * sizeof(uint64_t) + sizeof(int))));
        o->npos = npos;
    }
    uint64_t *out = o->pos + npos;
    int *cout = reinterpret_cast<int *>(out + npos);
    TRY(cudaMemcpyAsync(o->pos, pos, npos * sizeof(uint64_t),
                        cudaMemcpyHostToDevice, s));
    pick_kernel<<<blocks_for(npos), THREADS, 0, s>>>(o->key[1], o->corr[1],
                                                     o->pos, npos, out, cout);
    TRY(cudaGetLastError());
    TRY(cudaMemcpyAsync(hd, out, npos * sizeof(double), cudaMemcpyDeviceToHost,
                        s));
    TRY(cudaMemcpyAsync(hr, cout, npos * sizeof(int32_t),
                        cudaMemcpyDeviceToHost, s));
    return cudaStreamSynchronize(s);
}
