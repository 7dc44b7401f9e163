/* The one formula for the bin a value falls in. CPU and GPU both include
 * it, so both bin every value identically. Bins are equal-width over
 * [lo, hi], the last one closed; when lo == hi every value equal to them
 * lands in bin 0.
 *
 * The bin is the exact floor((v - lo) * nbins / (hi - lo)). A fast
 * estimate first: floor((v*p - lo*p) * scale) with p a power of two chosen
 * so that max(|lo|, |hi|) * p lies near 2^1021 (hi*p - lo*p cannot
 * overflow, nbins / (hi*p - lo*p) cannot overflow even for a subnormal
 * range, v*p is exact for any v in a range of normal numbers). Its three
 * roundings move t by less than nbins * 2^-50, so where t lies farther
 * than HIST_NEAR from an integer the estimate is the exact bin. Nearer, an
 * exact test decides: the sign of nbins*v - (nbins - k)*lo - k*hi for the
 * edge k in question, each double an integer times a power of two, summed
 * exactly in a 2176-bit two's complement integer (every finite double
 * times a coefficient below 2^21 fits). Bins are monotone in v.
 *
 * Infinite lo or hi put every value in range in bin 0 (v == hi in the
 * last). NaN edges (a column without finite values) send -inf to
 * underflow and +inf to overflow. */
#ifndef COLSTAT_SRC_HIST_BIN_H
#define COLSTAT_SRC_HIST_BIN_H

#include <math.h>

#ifdef __CUDACC__
#define HIST_FN __host__ __device__ static inline
#define HIST_RARE_FN __host__ __device__ static __noinline__
#elif defined(__GNUC__)
#define HIST_FN static inline
#define HIST_RARE_FN static __attribute__((noinline))
#else
#define HIST_FN static inline
#define HIST_RARE_FN static
#endif

/* t within this of an integer: the exact test decides (nbins <= 2^20
 * bounds the estimate's error by 2^-30). */
#define HIST_NEAR 0x1p-20

/* Precomputed per histogram. */
typedef struct hist_scale {
    double lo, hi;
    double pre;    /* the power of two p */
    double lo_pre; /* lo * p */
    double scale;  /* nbins / (hi*p - lo*p) */
    int nbins;
} hist_scale;

HIST_FN hist_scale hist_scale_make(double lo, double hi, int nbins)
{
    hist_scale s;
    int e = 0;
    double m = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
    int finite = m <= 1.79769313486231570815e+308;
    if (finite && m > 0)
        frexp(m, &e); /* m < 2^e */
    /* 2^(1021 - e), at most 2^1023 (a subnormal range stays in range) */
    s.pre = finite ? ldexp(1.0, 1021 - e < 1023 ? 1021 - e : 1023) : 0.0;
    s.lo = lo;
    s.hi = hi;
    if (lo != lo || hi != hi) { /* v < +inf: underflow; v > -inf: overflow */
        s.lo = INFINITY;
        s.hi = -INFINITY;
    }
    s.lo_pre = lo * s.pre;
    s.scale = hi > lo && finite ? (double)nbins / (hi * s.pre - s.lo_pre) : 0.0;
    s.nbins = nbins;
    return s;
}

/* The exact test's integer: bit i of the sum at bit i + 1074 (the
 * smallest subnormal's), two's complement over HIST_WORDS words. */
#define HIST_WORDS 34

/* acc += c * x (sub: acc -= c * x) exactly; x finite, 0 <= c < 2^21. */
HIST_FN void hist_acc_add(unsigned long long *acc, double x, unsigned c,
                          int sub)
{
    int e;
    double f = frexp(fabs(x), &e); /* |x| = f * 2^e, f in [0.5, 1) */
    if (f == 0 || c == 0)
        return;
    /* |x| = m * 2^(e - 53), m < 2^53; subnormals keep m exact */
    int q = e - 53 + 1074; /* bit of m's lowest bit; >= 0 for any double */
    unsigned long long m = (unsigned long long)ldexp(f, 53);
    if (q < 0) { /* a subnormal: its low bits are zero */
        m >>= -q;
        q = 0;
    }
#ifdef __CUDA_ARCH__
    unsigned long long lo = m * c, hi = __umul64hi(m, c);
#else
    __extension__ unsigned __int128 p = (unsigned __int128)m * c;
    unsigned long long lo = (unsigned long long)p;
    unsigned long long hi = (unsigned long long)(p >> 64);
#endif
    int w = q / 64, sh = q % 64;
    unsigned long long part[3] = {lo << sh,
                                  sh ? (lo >> (64 - sh)) | (hi << sh) : hi,
                                  sh ? hi >> (64 - sh) : 0};
    sub ^= x < 0;
    unsigned long long carry = 0;
    for (int i = w; i < HIST_WORDS; i++) {
        unsigned long long a = i - w < 3 ? part[i - w] : 0;
        if (!sub) {
            unsigned long long t = acc[i] + a;
            unsigned long long c1 = t < a;
            acc[i] = t + carry;
            carry = c1 | (acc[i] < t);
        } else {
            unsigned long long t = acc[i] - a;
            unsigned long long b1 = acc[i] < a;
            acc[i] = t - carry;
            carry = b1 | (t < carry);
        }
        if (i - w >= 2 && !carry)
            break;
    }
}

/* Whether v lies below edge k (1 <= k < nbins): the sign of
 * nbins*v - (nbins - k)*lo - k*hi, exactly. Rare: out of line. */
HIST_RARE_FN int hist_below_edge(const hist_scale *s, double v, int k)
{
    unsigned long long acc[HIST_WORDS];
    for (int i = 0; i < HIST_WORDS; i++)
        acc[i] = 0;
    hist_acc_add(acc, v, (unsigned)s->nbins, 0);
    hist_acc_add(acc, s->lo, (unsigned)(s->nbins - k), 1);
    hist_acc_add(acc, s->hi, (unsigned)k, 1);
    return (int)(acc[HIST_WORDS - 1] >> 63);
}

/* -1: below lo; nbins: above hi; else the bin. v must not be NaN. */
HIST_FN int hist_bin(const hist_scale *s, double v)
{
    if (v < s->lo)
        return -1;
    if (v > s->hi)
        return s->nbins;
    if (v == s->hi)
        return s->hi > s->lo ? s->nbins - 1 : 0;
    double t = (v * s->pre - s->lo_pre) * s->scale;
    if (!(t > 0)) /* also NaN, from an infinite lo */
        return 0;
    int b = t < s->nbins ? (int)t : s->nbins - 1;
    double f = t - b;
    if (f < HIST_NEAR && b > 0 && hist_below_edge(s, v, b))
        return b - 1;
    if (f > 1 - HIST_NEAR && b + 1 < s->nbins && !hist_below_edge(s, v, b + 1))
        return b + 1;
    return b;
}

#endif
