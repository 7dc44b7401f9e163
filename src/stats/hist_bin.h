/* The one formula for the bin a value falls in. CPU and GPU both include
 * it, so both bin every value identically. Bins are equal-width over
 * [lo, hi], the last one closed; when lo == hi every value equal to them
 * lands in bin 0.
 *
 * The bin is floor((v*p - lo*p) * scale) with p a power of two chosen so
 * that max(|lo|, |hi|) * p lies near 2^1021: hi*p - lo*p cannot overflow,
 * nbins / (hi*p - lo*p) cannot overflow even for a subnormal range, and
 * v*p is exact for any v in a range of normal numbers. The result is the
 * exact bin floor((v - lo) * nbins / (hi - lo)) except for values within
 * 2^-50 * (hi - lo) of an inner edge (the subtraction, the
 * scale and the product round), which may land one bin over; bins stay
 * monotone in v. It is exact when lo >= 0 is a multiple of a power of
 * two s and hi = lo + nbins * s. Infinite lo or hi put every value in
 * range in bin 0 (v == hi in the last). */
#ifndef COLSTAT_SRC_HIST_BIN_H
#define COLSTAT_SRC_HIST_BIN_H

#include <math.h>

#ifdef __CUDACC__
#define HIST_FN __host__ __device__ static inline
#else
#define HIST_FN static inline
#endif

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
    s.lo_pre = lo * s.pre;
    s.scale = hi > lo && finite ? (double)nbins / (hi * s.pre - s.lo_pre) : 0.0;
    s.nbins = nbins;
    return s;
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
    return t < s->nbins ? (int)t : s->nbins - 1;
}

#endif
