/* Binary records on the device: fixed-width little-endian fields into
 * column values, with the same conversions as io/binary_reader.c
 * (integers round to the nearest double; a float NaN counts as nan). */
#include "raw.cuh"

#include <math.h>

extern "C" {
#include "io/binary_reader.h"
}

namespace
{

constexpr int THREADS = 256;

/* n little-endian bytes at p, any alignment. */
__device__ __forceinline__ ull load_le(const unsigned char *p, int n,
                                       bool aligned)
{
    if (aligned) {
        switch (n) {
        case 8:
            return *reinterpret_cast<const ull *>(p);
        case 4:
            return *reinterpret_cast<const unsigned *>(p);
        case 2:
            return *reinterpret_cast<const unsigned short *>(p);
        default:
            return *p;
        }
    }
    ull v = 0;
    for (int i = 0; i < n; i++)
        v |= (ull)p[i] << (8 * i);
    return v;
}

__device__ __forceinline__ int width(int type)
{
    switch (type) {
    case BT_I8:
    case BT_U8:
        return 1;
    case BT_I16:
    case BT_U16:
        return 2;
    case BT_I32:
    case BT_U32:
    case BT_F32:
        return 4;
    default:
        return 8;
    }
}

__device__ __forceinline__ double convert(int type, ull v)
{
    switch (type) {
    case BT_I8:
        return (double)(signed char)v;
    case BT_U8:
        return (double)(unsigned char)v;
    case BT_I16:
        return (double)(short)v;
    case BT_U16:
        return (double)(unsigned short)v;
    case BT_I32:
        return (double)(int)v;
    case BT_U32:
        return (double)(unsigned)v;
    case BT_I64:
        return (double)(long long)v;
    case BT_U64:
        return (double)v;
    case BT_F32:
        return (double)__uint_as_float((unsigned)v);
    default:
        return __longlong_as_double((long long)v);
    }
}

/* Column blockIdx.y, rows spread over the grid. */
__global__ void __launch_bounds__(THREADS) bin_kernel(bin_args a)
{
    __shared__ unsigned s_nan;
    if (threadIdx.x == 0)
        s_nan = 0;
    __syncthreads();
    const int c = blockIdx.y, type = a.type[c], w = width(type);
    const unsigned off = a.offset[c];
    const bool aligned = off % w == 0 && a.record_size % w == 0;
    double *dst = a.col + (size_t)c * a.ld;
    unsigned nan = 0;
    for (size_t r = (size_t)blockIdx.x * THREADS + threadIdx.x; r < a.nrec;
         r += (size_t)gridDim.x * THREADS) {
        double v =
            convert(type, load_le(a.buf + r * a.record_size + off, w, aligned));
        dst[r] = v;
        nan += v != v;
    }
    if (nan)
        atomicAdd(&s_nan, nan);
    __syncthreads();
    if (threadIdx.x == 0 && s_nan)
        atomicAdd(&a.cnt[c * CNT_N + CNT_NAN], (ull)s_nan);
}

} // namespace

cudaError_t bin_chunk_launch(const bin_args *a, cudaStream_t s)
{
    if (a->nrec == 0 || a->ncols == 0)
        return cudaSuccess;
    size_t want = (a->nrec + THREADS * 8 - 1) / (THREADS * 8);
    dim3 grid((unsigned)(want < 4096 ? want : 4096), (unsigned)a->ncols);
    bin_kernel<<<grid, THREADS, 0, s>>>(*a);
    return cudaGetLastError();
}
