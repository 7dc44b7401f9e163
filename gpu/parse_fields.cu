/* gpu_parse_fields (gpu.h): the test hook that runs dev_parse_kind over
 * fields the caller lays out, one thread a field, numbers written as the
 * caller's num_format says. Synchronous and
 * self-contained: its own buffers, the default stream, nothing kept. */
#include "gpu.h"
#include "parse_field.cuh"

#include <stdio.h>

namespace
{

constexpr const char NO_GPU[] = "no usable GPU: ";
constexpr int THREADS = 256;

__global__ void parse_fields_kernel(const char *text, const size_t *off,
                                    const size_t *len, size_t n,
                                    const num_format *fmt, unsigned col_kind,
                                    int *kind, double *val, int *corr)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const char *s = text + off[i];
        double x = 0;
        int r = 0;
        kind[i] = dev_parse_kind(s, s + len[i], fmt, col_kind, &x, &r);
        val[i] = x;
        corr[i] = r;
    }
}

/* Freed on every way out of gpu_parse_fields. */
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

/* Copies bytes to a fresh device buffer (at least one byte, so that an
 * empty input still has an address). */
int upload(dev_mem &m, const void *src, size_t bytes, cs_error *err)
{
    CK(cudaMalloc(&m.p, bytes ? bytes : 1));
    if (bytes)
        CK(cudaMemcpy(m.p, src, bytes, cudaMemcpyHostToDevice));
    return 0;
}

} // namespace

extern "C" int gpu_parse_fields(const char *text, size_t text_len,
                                const size_t *off, const size_t *len, size_t n,
                                const num_format *fmt, int *kind, double *val,
                                int32_t *corr, cs_error *err)
{
    return gpu_parse_kind_fields(text, text_len, off, len, n, fmt, 0, kind, val,
                                 corr, err);
}

extern "C" int gpu_parse_kind_fields(const char *text, size_t text_len,
                                     const size_t *off, const size_t *len,
                                     size_t n, const num_format *fmt,
                                     unsigned col_kind, int *kind, double *val,
                                     int32_t *corr, cs_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (off[i] > text_len || len[i] > text_len - off[i])
            return cs_fail(err, CS_EDATA, "", 0,
                           "gpu_parse_fields: field %zu outside text", i);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count < 1)
        e = cudaErrorNoDevice;
    if (e == cudaSuccess)
        e = cudaFree(0); /* creates the context */
    if (e != cudaSuccess)
        return cs_fail(err, CS_EDATA, "", 0, "%s%s", NO_GPU,
                       cudaGetErrorString(e));
    if (n == 0)
        return 0; /* a probe */

    dev_mem dtext, doff, dlen, dfmt, dkind, dval, dcorr;
    if (upload(dtext, text, text_len, err) ||
        upload(doff, off, n * sizeof *off, err) ||
        upload(dlen, len, n * sizeof *len, err) ||
        upload(dfmt, fmt, sizeof *fmt, err))
        return CS_EDATA;
    CK(cudaMalloc(&dkind.p, n * sizeof *kind));
    CK(cudaMalloc(&dval.p, n * sizeof *val));
    CK(cudaMalloc(&dcorr.p, n * sizeof *corr));
    size_t blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 65536)
        blocks = 65536; /* the kernel strides over the rest */
    parse_fields_kernel<<<(unsigned)blocks, THREADS>>>(
        (const char *)dtext.p, (const size_t *)doff.p, (const size_t *)dlen.p,
        n, (const num_format *)dfmt.p, col_kind, (int *)dkind.p,
        (double *)dval.p, (int *)dcorr.p);
    CK(cudaGetLastError());
    CK(cudaMemcpy(kind, dkind.p, n * sizeof *kind, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(val, dval.p, n * sizeof *val, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(corr, dcorr.p, n * sizeof *corr, cudaMemcpyDeviceToHost));
    return 0;
}
