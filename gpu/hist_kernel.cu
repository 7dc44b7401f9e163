/* Histograms: the bin of each value is hist_bin.h's (the CPU's formula).
 * Counters are privatised per block in shared memory (several copies per
 * block when the bins are few, so warps hitting one bin spread their
 * atomics), then each block adds its non-zero counters to the global bins
 * with one atomic each: the shared-memory histogram of N. Podlozhnyuk,
 * "Histogram calculation in CUDA" (NVIDIA, 2007), with the per-block
 * atomics of later GPUs. Bins too many for shared memory use global
 * atomics directly. Counter slot 0 is underflow, slot nbins + 1 overflow. */
#include "kernels.cuh"

namespace
{

typedef unsigned long long ull;

constexpr int THREADS = 512;
constexpr int MAX_COPIES = 8;
constexpr size_t DEFAULT_SMEM = 48 * 1024;

__device__ __forceinline__ unsigned slot(const hist_scale &sc, double x)
{
    int b = hist_bin(&sc, x);
    return (unsigned)(b + 1);
}

template <bool SHARED>
__device__ __forceinline__ void count(unsigned *sh, ull *g,
                                      const hist_scale &sc, double x)
{
    if (x != x)
        return;
    unsigned s = slot(sc, x);
    if (SHARED)
        atomicAdd(sh + s, 1u);
    else
        atomicAdd(g + s, 1ull);
}

template <bool SHARED>
__global__ void __launch_bounds__(THREADS)
    hist_kernel(const double *col, size_t ld, size_t n, int nbins,
                const hist_scale *scales, ull *bins, int copies, const ull *dn)
{
    if (dn)
        n = *dn;
    extern __shared__ unsigned s_h[];
    const int c = blockIdx.y;
    const hist_scale sc = scales[c];
    const int nb2 = nbins + 2;
    ull *g = bins + (size_t)c * nb2;
    unsigned *mine = s_h;
    if (SHARED) {
        for (int i = threadIdx.x; i < copies * nb2; i += THREADS)
            s_h[i] = 0;
        __syncthreads();
        mine = s_h + ((threadIdx.x >> 5) % copies) * nb2;
    }
    const double *v = col + (size_t)c * ld;
    const double2 *v2 = reinterpret_cast<const double2 *>(v);
    const size_t npair = n / 2;
    const size_t stride = (size_t)gridDim.x * THREADS;
    const size_t gid = (size_t)blockIdx.x * THREADS + threadIdx.x;
    size_t p = gid;
    for (; p + 3 * stride < npair; p += 4 * stride) {
        double2 x[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            x[u] = __ldcs(v2 + p + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            count<SHARED>(mine, g, sc, x[u].x);
            count<SHARED>(mine, g, sc, x[u].y);
        }
    }
    for (; p < npair; p += stride) {
        double2 x = __ldcs(v2 + p);
        count<SHARED>(mine, g, sc, x.x);
        count<SHARED>(mine, g, sc, x.y);
    }
    if ((n & 1) && gid == 0)
        count<SHARED>(mine, g, sc, v[n - 1]);
    if (SHARED) {
        __syncthreads();
        for (int i = threadIdx.x; i < nb2; i += THREADS) {
            unsigned sum = 0;
            for (int k = 0; k < copies; k++)
                sum += s_h[k * nb2 + i];
            if (sum)
                atomicAdd(g + i, (ull)sum);
        }
    }
}

/* Largest dynamic shared memory a block may ask for (opt-in limit). */
size_t smem_limit()
{
    static size_t limit;
    if (!limit) {
        int dev = 0, v = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                   dev) != cudaSuccess ||
            v < (int)DEFAULT_SMEM)
            v = (int)DEFAULT_SMEM;
        limit = (size_t)v;
    }
    return limit;
}

} // namespace

cudaError_t hist_launch(const double *col, size_t ld, size_t n, int ncols,
                        int nbins, const hist_scale *d_scales,
                        unsigned long long *bins, int nsm, cudaStream_t s,
                        const unsigned long long *d_n)
{
    if (n == 0 || ncols == 0)
        return cudaSuccess;
    size_t per = (size_t)(nbins + 2) * sizeof(unsigned);
    size_t per_block = (size_t)THREADS * 8;
    size_t want = (n + per_block - 1) / per_block;
    size_t cap = (size_t)nsm * (2048 / THREADS);
    dim3 grid((unsigned)(want < cap ? want : cap), (unsigned)ncols);
    if (per <= smem_limit()) {
        int copies = (int)(DEFAULT_SMEM / per);
        copies = copies > MAX_COPIES ? MAX_COPIES : copies < 1 ? 1 : copies;
        size_t bytes = per * (size_t)copies;
        if (bytes > DEFAULT_SMEM) {
            cudaError_t err = cudaFuncSetAttribute(
                hist_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                (int)bytes);
            if (err != cudaSuccess)
                return err;
        }
        hist_kernel<true><<<grid, THREADS, bytes, s>>>(
            col, ld, n, nbins, d_scales, bins, copies, d_n);
    } else {
        hist_kernel<false><<<grid, THREADS, 0, s>>>(col, ld, n, nbins, d_scales,
                                                    bins, 1, d_n);
    }
    return cudaGetLastError();
}
