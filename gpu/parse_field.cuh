/* parse_number on the device, internal to gpu/: the same core as the host
 * (io/num/number_core.h), compiled as device functions, so a field's kind and
 * value are the host's bit for bit. Only the strtod fallback stays on the
 * host; the fields that need it come back as DEV_NUM_HARD. */
#ifndef COLSTAT_GPU_PARSE_FIELD_CUH
#define COLSTAT_GPU_PARSE_FIELD_CUH

#include <cuda_runtime.h>

/* the C headers carry no extern "C" of their own */
extern "C" {
#include "io/num/parse_number.h"
}

/* Global memory read through the read-only cache: neighbouring threads
 * parse unrelated fields, so their table indices diverge, which constant
 * memory would serialize. */
#define NUM_FN static __device__ __forceinline__
#define NUM_RARE_FN static __device__ __noinline__
#define NUM_TABLE static __device__ const
#define NUM_LOAD(p) __ldg(p)
#include "io/num/number_core.h"

/* Only the host's strtod fallback can round this field. */
#define DEV_NUM_HARD NUM_HARD

static_assert(NUM_OK == 0 && NUM_MISSING == 1 && NUM_INVALID == 2 &&
                  NUM_NAN == 3 && DEV_NUM_HARD == 4,
              "gpu.h promises these codes");

/* [s, e) need not be aligned or NUL-terminated; no byte outside it is read.
 * Returns NUM_OK (*out set, *corr the integer correction of
 * parse_number_fmt, 0 unless NUM_OK), NUM_MISSING, NUM_INVALID, NUM_NAN or
 * DEV_NUM_HARD, exactly as parse_number_fmt would with format f (device
 * memory), short of its fallback. */
static __device__ __forceinline__ int
dev_parse_number_corr(const char *s, const char *e, const num_format *f,
                      double *out, int *corr)
{
    num_decimal d;
    int k = num_parse_core(s, e, f, out, &d);
    *corr = k == NUM_OK ? num_int_corr(&d, *out) : 0;
    return k;
}

/* num_short8 over field [s, e) of a buffer with 16 readable bytes past
 * every field (the CSV segments' padding): two aligned loads, where the
 * core reads a byte at a time; then num_short8_exp (exp: the format
 * allows it). False: the core must read it. */
static __device__ __forceinline__ bool
dev_short8(const char *s, const char *e, char point, bool exp, double *out)
{
    unsigned n = (unsigned)(e - s);
    const unsigned long long *w =
        reinterpret_cast<const unsigned long long *>((size_t)s & ~(size_t)7);
    unsigned long long lo = w[0], hi = w[1];
    unsigned off = (unsigned)((size_t)s & 7);
    bool neg = n && (char)(lo >> (8 * off)) == '-';
    unsigned at = off + neg; /* 0 to 8 */
    unsigned long long v = at == 0   ? lo
                           : at >= 8 ? hi
                                     : lo >> (8 * at) | hi << (64 - 8 * at);
    if (n - neg - 1 < 8)
        return num_short8(v, n - neg, neg, point, out);
    return exp && n - neg - 3 < 11 &&
           num_short8_exp(v, s + neg, e, neg, point, out);
}

/* The column kinds' parsing (io/num/kind_core.h, the host's text) over
 * the device's numbers. */
#define KIND_FN static __device__ __forceinline__
#define KIND_PARSE_NUMBER dev_parse_number_corr
#include "io/num/kind_core.h"

/* A field of a column of kind k (io/num/parse_kind.h), as parse_kind_fmt
 * would read it, short of the host's fallback (DEV_NUM_HARD, as above).
 * Out of line: the kernels' plain-number path keeps its registers. */
static __device__ __noinline__ int dev_parse_kind(const char *s, const char *e,
                                                  const num_format *f,
                                                  unsigned k, double *out,
                                                  int *corr)
{
    return kind_parse_field(s, e, f, k, out, corr);
}

#endif
