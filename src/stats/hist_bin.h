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
 * exact test decides: the sign of nbins * (v - lo) - k * (hi - lo) for the
 * edge k in question, from error-free transformations (Knuth's TwoSum,
 * the product's error by fma) summed as a nonoverlapping expansion
 * (J. R. Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast
 * Robust Geometric Predicates", Discrete Comput. Geom. 18, 1997), on the
 * values scaled by a power of two into [2^-60, 2^961) of the range's
 * magnitude. That scaling is exact unless the range's magnitude exceeds
 * 2^960 and a value or lo lies within 2^-958 of zero: only there can a
 * value land one bin off. Bins are monotone in v.
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
    /* the exact test: values times 2^sh[0] * 2^sh[1] * 2^sh[2] */
    double sh[3];
    double lo_x;       /* lo, so scaled */
    double w_hi, w_lo; /* hi - lo, so scaled, exactly: w_hi + w_lo */
} hist_scale;

/* a + b = *s + *e exactly (Knuth's TwoSum, no overflow). */
HIST_FN void hist_two_sum(double a, double b, double *s, double *e)
{
    double x = a + b, bb = x - a;
    *s = x;
    *e = (a - (x - bb)) + (b - bb);
}

/* x times 2^k, |k| up to 2100, in steps that stay in range. */
HIST_FN double hist_shift(const double sh[3], double x)
{
    return x * sh[0] * sh[1] * sh[2];
}

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
    /* 2^(960 - e) in up to three factors of at most 2^1000 */
    int k = 960 - e;
    for (int i = 0; i < 3; i++) {
        int step = k > 1000 ? 1000 : k < -1000 ? -1000 : k;
        s.sh[i] = ldexp(1.0, step);
        k -= step;
    }
    s.lo_x = finite ? hist_shift(s.sh, lo) : 0.0;
    double hi_x = finite ? hist_shift(s.sh, hi) : 0.0;
    hist_two_sum(hi_x, -s.lo_x, &s.w_hi, &s.w_lo);
    return s;
}

/* x * y = *p + *e exactly (no overflow, no underflow of *e). */
HIST_FN void hist_two_prod(double x, double y, double *p, double *e)
{
    *p = x * y;
    *e = fma(x, y, -*p);
}

/* Whether v lies below edge k (1 <= k < nbins): the sign of
 * nbins * (v - lo) - k * (hi - lo), exactly. Rare: out of line. */
HIST_RARE_FN int hist_below_edge(const hist_scale *s, double v, int k)
{
    double a1, a2, t[8];
    hist_two_sum(hist_shift(s->sh, v), -s->lo_x, &a1, &a2);
    hist_two_prod((double)s->nbins, a1, &t[0], &t[1]);
    hist_two_prod((double)s->nbins, a2, &t[2], &t[3]);
    hist_two_prod(-(double)k, s->w_hi, &t[4], &t[5]);
    hist_two_prod(-(double)k, s->w_lo, &t[6], &t[7]);
    /* Shewchuk's Grow-Expansion: h stays nonoverlapping, ordered by
     * magnitude, so its largest nonzero term carries the sum's sign */
    double h[8];
    int m = 0;
    for (int i = 0; i < 8; i++) {
        double q = t[i];
        for (int j = 0; j < m; j++)
            hist_two_sum(q, h[j], &q, &h[j]);
        h[m++] = q;
    }
    for (int j = m - 1; j >= 0; j--)
        if (h[j] != 0)
            return h[j] < 0;
    return 0;
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
