/* The one formula for the bin a value falls in. CPU and GPU both include
 * it, so both bin every value identically. Bins are equal-width over
 * [lo, hi], the last one closed; when lo == hi every value equal to them
 * lands in bin 0. */
#ifndef COLSTAT_SRC_HIST_BIN_H
#define COLSTAT_SRC_HIST_BIN_H

#ifdef __CUDACC__
#define HIST_FN __host__ __device__ static inline
#else
#define HIST_FN static inline
#endif

/* Precomputed per histogram: halving keeps hi - lo finite for any range. */
typedef struct hist_scale {
    double lo, hi;
    double half_lo; /* lo / 2 */
    double scale;   /* nbins / (hi/2 - lo/2) */
    int nbins;
} hist_scale;

HIST_FN hist_scale hist_scale_make(double lo, double hi, int nbins)
{
    hist_scale s;
    s.lo = lo;
    s.hi = hi;
    s.half_lo = lo * 0.5;
    s.scale = hi > lo ? (double)nbins / (hi * 0.5 - lo * 0.5) : 0.0;
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
    double t = (v * 0.5 - s->half_lo) * s->scale;
    /* t is NaN or infinite when an edge is infinite or the edges are so
     * close that the scale overflows; (int) of those is undefined in C and
     * differs between CPU and GPU, so they are settled here. */
    if (!(t >= 0))
        return 0;
    if (t >= s->nbins)
        return s->nbins - 1;
    return (int)t;
}

#endif
