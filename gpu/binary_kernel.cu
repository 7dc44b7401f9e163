/* Binary records on the device: fixed-width little-endian fields into
 * column values, with the same conversions as io/binary/binary_reader.c
 * (integers round to the nearest double, i64 and u64 with the exact
 * correction beside it; a float NaN counts as nan). */
#include "raw.cuh"

#include <math.h>

extern "C" {
#include "io/binary/binary_reader.h"
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

/* v - d for an i64 or u64 v and its double d, in wrapping unsigned
 * arithmetic (d may be 2^63 or 2^64, which no integer type holds). */
__device__ __forceinline__ int wide_corr(int type, ull v, double d)
{
    ull back;
    if (type == BT_I64)
        back = d >= 0x1p63 ? 1ull << 63 : (ull)(long long)d;
    else
        back = d >= 0x1p64 ? 0 : (ull)d;
    return (int)(long long)(v - back);
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
    int *corr = a.corr + (size_t)c * a.corr_ld;
    const bool wide = type == BT_I64 || type == BT_U64;
    unsigned nan = 0;
    bool any = false;
    for (size_t r = (size_t)blockIdx.x * THREADS + threadIdx.x; r < a.nrec;
         r += (size_t)gridDim.x * THREADS) {
        ull bits = load_le(a.buf + r * a.record_size + off, w, aligned);
        double v = convert(type, bits);
        dst[r] = v;
        nan += v != v;
        int k = wide ? wide_corr(type, bits, v) : 0;
        if (k) { /* the buffer is zero elsewhere */
            corr[r] = k;
            any = true;
        }
    }
    if (any)
        a.corr_on[c] = 1;
    if (nan)
        atomicAdd(&s_nan, nan);
    __syncthreads();
    if (threadIdx.x == 0 && s_nan)
        atomicAdd(&a.cnt[c * CNT_N + CNT_NAN], (ull)s_nan);
}

} // namespace

cudaError_t bin_segment_launch(const bin_args *a, cudaStream_t s)
{
    if (a->nrec == 0 || a->ncols == 0)
        return cudaSuccess;
    size_t want = (a->nrec + THREADS * 8 - 1) / (THREADS * 8);
    dim3 grid((unsigned)(want < 4096 ? want : 4096), (unsigned)a->ncols);
    bin_kernel<<<grid, THREADS, 0, s>>>(*a);
    return cudaGetLastError();
}
