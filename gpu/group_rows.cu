/* gpu_group_rows (gpu.h): rows' keys into a device hash table
 * (src/stats/group_core.h, the host's steps compiled for the device), the
 * rows sorted by group id (CUB's radix sort, stable: each group's rows in
 * order), then one thread per chunk of sorted rows and column reduces
 * the runs of one group it holds. A group wholly inside a chunk is
 * reduced by one thread into the group's own state; the first and the
 * last run of a chunk, whose group goes on past it, into the chunk's two
 * edge pieces, which the host merges: no merge on the device, and the
 * pieces are as exact as the host's. */
#include "gpu.h"

#include <cub/cub.cuh>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/stats/group_core.h"

namespace
{

constexpr const char NO_GPU[] = "no usable GPU: ";
constexpr int THREADS = 256;
constexpr size_t CHUNK = 1024; /* sorted rows per reducing thread */

/* Freed on every way out of gpu_group_rows. */
struct dev_mem {
    void *p = nullptr;
    dev_mem() = default;
    dev_mem(const dev_mem &) = delete;
    dev_mem &operator=(const dev_mem &) = delete;
    ~dev_mem()
    {
        if (p)
            cudaFree(p);
    }
};

int fail(cs_error *err, const char *what, cudaError_t e)
{
    return cs_fail(err, CS_EDATA, "", 0, "GPU: %s: %s", what,
                   cudaGetErrorString(e));
}

#define CK(call)                                                               \
    do {                                                                       \
        cudaError_t ck_ = (call);                                              \
        if (ck_ != cudaSuccess)                                                \
            return fail(err, #call, ck_);                                      \
    } while (0)

/* Set when the device had no memory for a buffer: the caller's groups
 * then go to the host, as when the table is full. */
thread_local bool no_room;

int dev_alloc(dev_mem &m, size_t bytes, cs_error *err)
{
    cudaError_t e = cudaMalloc(&m.p, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation) {
        no_room = true;
        m.p = nullptr;
        (void)cudaGetLastError(); /* not sticky: clear it */
    }
    CK(e);
    return 0;
}

int upload(dev_mem &m, const void *src, size_t bytes, cs_error *err)
{
    if (dev_alloc(m, bytes, err))
        return CS_EDATA;
    if (bytes)
        CK(cudaMemcpy(m.p, src, bytes, cudaMemcpyHostToDevice));
    return 0;
}

unsigned blocks_for(size_t n)
{
    size_t b = (n + THREADS - 1) / THREADS;
    return b ? (unsigned)(b < 65535 ? b : 65535) : 1;
}

__global__ void find_kernel(gc_table t, const char *keys, const size_t *off,
                            const uint32_t *len, size_t n, uint64_t first_row,
                            uint32_t *ids, uint32_t *idx)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const char *k = keys + off[i];
        uint32_t id = 0;
        if (gc_find(&t, k, len[i], gc_hash(k, len[i]), first_row + i, &id) ==
            GC_FULL)
            id = 0; /* the run goes to the host: any id will do */
        ids[i] = id;
        idx[i] = (uint32_t)i;
    }
}

__global__ void init_kernel(col_part *part, group_sum *sum, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        gc_part_init(&part[i]);
        gc_sum_init(&sum[i]);
    }
}

struct reduce_args {
    const uint32_t *ids; /* sorted */
    const uint32_t *idx; /* the rows, in that order */
    size_t n, nchunks;
    int ncols;
    const double *const *col;
    const int32_t *const *corr;
    uint64_t first_row;
    col_part *part; /* [(ngroups + 2 * nchunks) * ncols] */
    group_sum *sum;
    uint32_t *edge_group; /* [2 * nchunks] */
    uint32_t ngroups;
    uint32_t *inexact;
};

/* Sorted rows [a, b) of one group into piece `at`. */
__device__ void reduce_run(const reduce_args &r, size_t a, size_t b, int k,
                           size_t at)
{
    col_part *p = &r.part[at * (size_t)r.ncols + (size_t)k];
    group_sum *s = &r.sum[at * (size_t)r.ncols + (size_t)k];
    const double *v = r.col[k];
    const int32_t *c = r.corr[k];
    for (size_t i = a; i < b; i++) {
        uint32_t row = r.idx[i];
        double x = v[row];
        if (x != x)
            continue;
        gc_part_add(p, x, c ? c[row] : 0, r.first_row + row);
        if (gc_sum_add(s, x))
            gc_store32(r.inexact, 1);
    }
}

/* Grid: x over chunks, y over columns. */
__global__ void reduce_kernel(reduce_args r)
{
    int k = (int)blockIdx.y;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t ch = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         ch < r.nchunks; ch += stride) {
        size_t lo = ch * CHUNK, hi = lo + CHUNK < r.n ? lo + CHUNK : r.n;
        for (size_t a = lo; a < hi;) {
            uint32_t g = r.ids[a];
            size_t b = a + 1;
            while (b < hi && r.ids[b] == g)
                b++;
            int open_lo = a == lo && a > 0 && r.ids[a - 1] == g;
            int open_hi = b == hi && b < r.n && r.ids[b] == g;
            size_t at = g;
            if (open_lo || open_hi) { /* the group goes on past the chunk */
                int slot = a == lo ? 0 : 1;
                at = r.ngroups + 2 * ch + (size_t)slot;
                if (k == 0)
                    r.edge_group[2 * ch + (size_t)slot] = g;
            }
            reduce_run(r, a, b, k, at);
            a = b;
        }
    }
}

/* Host copies of the table's groups. */
int take_groups(const gc_table &t, uint32_t ngroups, uint64_t used,
                gpu_group_out *out, cs_error *err)
{
    size_t g = ngroups ? ngroups : 1;
    out->arena = (char *)malloc(used ? used : 1);
    out->key_off = (uint64_t *)malloc(g * sizeof *out->key_off);
    out->first_row = (uint64_t *)malloc(g * sizeof *out->first_row);
    out->key_len = (uint32_t *)malloc(g * sizeof *out->key_len);
    if (!out->arena || !out->key_off || !out->first_row || !out->key_len)
        return cs_fail(err, CS_ENOMEM, "", 0, "out of memory");
    CK(cudaMemcpy(out->arena, t.arena, used, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(out->key_off, t.key_off, ngroups * sizeof *out->key_off,
                  cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(out->first_row, t.first_row, ngroups * sizeof *out->first_row,
                  cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(out->key_len, t.key_len, ngroups * sizeof *out->key_len,
                  cudaMemcpyDeviceToHost));
    out->ngroups = ngroups;
    return 0;
}

int probe(cs_error *err)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count < 1)
        e = cudaErrorNoDevice;
    if (e == cudaSuccess)
        e = cudaFree(0); /* creates the context */
    if (e != cudaSuccess)
        return cs_fail(err, CS_EDATA, "", 0, "%s%s", NO_GPU,
                       cudaGetErrorString(e));
    return 0;
}

/* The device's buffers of one call. */
struct bufs {
    dev_mem keys, off, len, slot, key_off, key_len, first_row, arena, counts;
    dev_mem ids, idx, ids_sorted, idx_sorted, sort_tmp;
    dev_mem part, sum, edge, cols, corrs;
    dev_mem col[64], corr[64];
};

/* The table: keys in, ids out; 0, or CS_* with err filled. */
int find_groups(const gpu_group_in *in, bufs &b, gc_table &t, cs_error *err)
{
    uint32_t slots = 2;
    while (slots < 2 * (uint64_t)in->max_groups && slots < (1u << 31))
        slots *= 2;
    if (upload(b.keys, in->keys, in->keys_len, err) ||
        upload(b.off, in->key_off, in->n * sizeof *in->key_off, err) ||
        upload(b.len, in->key_len, in->n * sizeof *in->key_len, err) ||
        dev_alloc(b.slot, slots * sizeof(uint32_t), err) ||
        dev_alloc(b.key_off, in->max_groups * sizeof(uint64_t), err) ||
        dev_alloc(b.key_len, in->max_groups * sizeof(uint32_t), err) ||
        dev_alloc(b.first_row, in->max_groups * sizeof(uint64_t), err) ||
        dev_alloc(b.arena, in->arena_bytes, err) ||
        dev_alloc(b.counts, 4 * sizeof(uint64_t), err) ||
        dev_alloc(b.ids, in->n * sizeof(uint32_t), err) ||
        dev_alloc(b.idx, in->n * sizeof(uint32_t), err))
        return CS_EDATA;
    CK(cudaMemset(b.slot.p, 0, slots * sizeof(uint32_t)));
    CK(cudaMemset(b.counts.p, 0, 4 * sizeof(uint64_t)));
    uint64_t *counts = (uint64_t *)b.counts.p;
    t.slot = (uint32_t *)b.slot.p;
    t.mask = slots - 1;
    t.max_groups = in->max_groups;
    t.ngroups = (uint32_t *)&counts[0];
    t.key_off = (uint64_t *)b.key_off.p;
    t.key_len = (uint32_t *)b.key_len.p;
    t.first_row = (uint64_t *)b.first_row.p;
    t.arena = (char *)b.arena.p;
    t.arena_room = in->arena_bytes;
    t.arena_used = &counts[1];
    t.full = (uint32_t *)&counts[2];
    find_kernel<<<blocks_for(in->n), THREADS>>>(
        t, (const char *)b.keys.p, (const size_t *)b.off.p,
        (const uint32_t *)b.len.p, in->n, in->first_row, (uint32_t *)b.ids.p,
        (uint32_t *)b.idx.p);
    CK(cudaGetLastError());
    return 0;
}

/* Rows sorted by group, stable. */
int sort_rows(const gpu_group_in *in, bufs &b, uint32_t ngroups, cs_error *err)
{
    int bits = 1;
    while (bits < 32 && ((uint64_t)1 << bits) < ngroups)
        bits++;
    size_t tmp = 0;
    CK(cub::DeviceRadixSort::SortPairs(
        nullptr, tmp, (const uint32_t *)nullptr, (uint32_t *)nullptr,
        (const uint32_t *)nullptr, (uint32_t *)nullptr, in->n, 0, bits));
    if (dev_alloc(b.sort_tmp, tmp, err) ||
        dev_alloc(b.ids_sorted, in->n * sizeof(uint32_t), err) ||
        dev_alloc(b.idx_sorted, in->n * sizeof(uint32_t), err))
        return CS_EDATA;
    CK(cub::DeviceRadixSort::SortPairs(
        b.sort_tmp.p, tmp, (const uint32_t *)b.ids.p,
        (uint32_t *)b.ids_sorted.p, (const uint32_t *)b.idx.p,
        (uint32_t *)b.idx_sorted.p, in->n, 0, bits));
    return 0;
}

/* The columns and their corrections on the device, and their pointers. */
int upload_columns(const gpu_group_in *in, bufs &b, cs_error *err)
{
    const double *cols[64];
    const int32_t *corrs[64];
    for (int k = 0; k < in->ncols; k++) {
        if (upload(b.col[k], in->col[k], in->n * sizeof(double), err))
            return CS_EDATA;
        corrs[k] = nullptr;
        if (in->corr && in->corr[k] &&
            upload(b.corr[k], in->corr[k], in->n * sizeof(int32_t), err))
            return CS_EDATA;
        cols[k] = (const double *)b.col[k].p;
        if (in->corr && in->corr[k])
            corrs[k] = (const int32_t *)b.corr[k].p;
    }
    if (upload(b.cols, cols, (size_t)in->ncols * sizeof *cols, err) ||
        upload(b.corrs, corrs, (size_t)in->ncols * sizeof *corrs, err))
        return CS_EDATA;
    return 0;
}

int reduce_groups(const gpu_group_in *in, bufs &b, uint32_t ngroups,
                  gpu_group_out *out, cs_error *err)
{
    size_t nchunks = (in->n + CHUNK - 1) / CHUNK;
    size_t npieces = ngroups + 2 * nchunks, cells = npieces * (size_t)in->ncols;
    if (upload_columns(in, b, err) ||
        dev_alloc(b.part, cells * sizeof(col_part), err) ||
        dev_alloc(b.sum, cells * sizeof(group_sum), err) ||
        dev_alloc(b.edge, 2 * nchunks * sizeof(uint32_t), err))
        return CS_EDATA;
    CK(cudaMemset(b.edge.p, 0xff, 2 * nchunks * sizeof(uint32_t)));
    init_kernel<<<blocks_for(cells), THREADS>>>((col_part *)b.part.p,
                                                (group_sum *)b.sum.p, cells);
    CK(cudaGetLastError());
    uint64_t *counts = (uint64_t *)b.counts.p;
    reduce_args r = {(const uint32_t *)b.ids_sorted.p,
                     (const uint32_t *)b.idx_sorted.p,
                     in->n,
                     nchunks,
                     in->ncols,
                     (const double *const *)b.cols.p,
                     (const int32_t *const *)b.corrs.p,
                     in->first_row,
                     (col_part *)b.part.p,
                     (group_sum *)b.sum.p,
                     (uint32_t *)b.edge.p,
                     ngroups,
                     (uint32_t *)&counts[3]};
    dim3 grid(blocks_for(nchunks), (unsigned)in->ncols);
    reduce_kernel<<<grid, THREADS>>>(r);
    CK(cudaGetLastError());
    out->npieces = npieces;
    out->piece_group = (uint32_t *)malloc(npieces * sizeof(uint32_t));
    out->part = (col_part *)malloc(cells * sizeof(col_part));
    out->sum = (group_sum *)malloc(cells * sizeof(group_sum));
    if (!out->piece_group || !out->part || !out->sum)
        return cs_fail(err, CS_ENOMEM, "", 0, "out of memory");
    for (uint32_t g = 0; g < ngroups; g++)
        out->piece_group[g] = g;
    CK(cudaMemcpy(out->piece_group + ngroups, b.edge.p,
                  2 * nchunks * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(out->part, b.part.p, cells * sizeof(col_part),
                  cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(out->sum, b.sum.p, cells * sizeof(group_sum),
                  cudaMemcpyDeviceToHost));
    uint64_t inexact = 0;
    CK(cudaMemcpy(&inexact, &counts[3], sizeof inexact,
                  cudaMemcpyDeviceToHost));
    out->inexact = inexact != 0;
    return 0;
}

int group_on_device(const gpu_group_in *in, gpu_group_out *out, cs_error *err)
{
    bufs b;
    gc_table t;
    if (find_groups(in, b, t, err))
        return err->status;
    uint64_t counts[3];
    CK(cudaMemcpy(counts, b.counts.p, sizeof counts, cudaMemcpyDeviceToHost));
    if (counts[2]) {
        out->full = 1;
        return 0;
    }
    uint32_t ngroups = (uint32_t)counts[0];
    out->row_group = (uint32_t *)malloc(in->n * sizeof(uint32_t));
    if (!out->row_group)
        return cs_fail(err, CS_ENOMEM, "", 0, "out of memory");
    CK(cudaMemcpy(out->row_group, b.ids.p, in->n * sizeof(uint32_t),
                  cudaMemcpyDeviceToHost));
    if (take_groups(t, ngroups, counts[1], out, err) ||
        sort_rows(in, b, ngroups, err) ||
        reduce_groups(in, b, ngroups, out, err))
        return err->status;
    return 0;
}

} // namespace

extern "C" void gpu_group_out_free(gpu_group_out *out)
{
    free(out->arena);
    free(out->key_off);
    free(out->first_row);
    free(out->key_len);
    free(out->row_group);
    free(out->rows);
    free(out->piece_group);
    free(out->part);
    free(out->sum);
    memset(out, 0, sizeof *out);
}

extern "C" int gpu_group_rows(const gpu_group_in *in, gpu_group_out *out,
                              cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (in->ncols < 1 || in->ncols > 64 || in->n > UINT32_MAX ||
        in->max_groups == 0)
        return cs_fail(err, CS_EUSAGE, "", 0,
                       "gpu_group_rows: 1 to 64 columns, fewer than 2^32 "
                       "rows, one group or more");
    if (probe(err) || in->n == 0)
        return err->status;
    no_room = false;
    int rc = group_on_device(in, out, err);
    if (rc != 0)
        gpu_group_out_free(out);
    if (rc != 0 && no_room) { /* the host takes these rows */
        memset(err, 0, sizeof *err);
        out->full = 1;
        return 0;
    }
    return rc;
}
