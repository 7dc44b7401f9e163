/* The keys and the bin formula of the quantile selection (quantile.h),
 * compiled for the host and the device alike, as hist_bin.h is: every
 * backend puts each value in the same bin, so their counts add up.
 *
 * A value is an exact number d + r (qnum). Its key orders values: the
 * 64 bits of d mapped so that unsigned order is numeric order (negative
 * doubles have their bits inverted, positive ones their sign bit set), -inf
 * lowest, +inf highest, -0.0 just below +0.0 (IEEE 754-2008 totalOrder on
 * non-NaN values; the two zeros are equal values, so either order is a
 * sorted order, and keeping them apart keeps the key a bit transform).
 * NaN has no key: it never enters. When the values of a column carry
 * corrections r (with_r), the key is the composite key * 2^12 + r + 1024,
 * 76 bits: (d, r) in lexicographic order, which is the order of d + r
 * because d is d + r rounded to a double and rounding is monotone. */
#ifndef COLSTAT_SRC_STATS_QSEL_KEY_H
#define COLSTAT_SRC_STATS_QSEL_KEY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define QSEL_FN __host__ __device__ static inline
#else
#define QSEL_FN static inline
#endif

__extension__ typedef unsigned __int128 qsel_u128;

/* The exact number d + r. r is 0 for an ordinary double; an integer
 * column's values in (-2^64, 2^64) carry r = v - d with d the double
 * nearest v, so |r| <= QSEL_R_MAX. r == INT32_MIN ("not an exact
 * integer") reads as 0. */
typedef struct qnum {
    double d;
    int32_t r;
} qnum;

#define QSEL_R_MAX 1024
#define QSEL_R_BITS 12 /* r + QSEL_R_MAX fits in 12 bits */

QSEL_FN uint64_t qsel_key(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b >> 63 ? ~b : b | (UINT64_C(1) << 63);
}

/* The double whose key is k. */
QSEL_FN double qsel_key_double(uint64_t k)
{
    uint64_t b = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

QSEL_FN int32_t qsel_r(int32_t r)
{
    return r == INT32_MIN ? 0 : r;
}

/* The key of d + r; r is ignored unless with_r. */
QSEL_FN qsel_u128 qsel_ckey(double d, int32_t r, int with_r)
{
    qsel_u128 k = qsel_key(d);
    if (!with_r)
        return k;
    return k << QSEL_R_BITS | (qsel_u128)(uint32_t)(qsel_r(r) + QSEL_R_MAX);
}

/* One key range of a pass. Histogram ranges (nbins > 0) count each key k
 * in [lo, hi] in bin (k - lo) >> shift of the pass's counts, at index
 * first + bin. Collect ranges (nbins == 0) hand their values over whole:
 * there are exactly count of them. */
typedef struct qsel_range {
    qsel_u128 lo, hi;
    uint64_t count; /* values in [lo, hi], as the previous pass counted */
    uint64_t first; /* first bin in the counts, or first candidate slot */
    uint32_t nbins;
    uint32_t shift;
} qsel_range;

/* Index of the range of g[0..n) (sorted by lo, disjoint) that holds k,
 * or -1 when none does. */
QSEL_FN long qsel_find(const qsel_range *g, size_t n, qsel_u128 k)
{
    if (n == 0 || k < g[0].lo || k > g[n - 1].hi)
        return -1;         /* most keys, after pass 1 */
    size_t lo = 0, hi = n; /* the answer is below hi */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (g[mid].lo <= k)
            lo = mid;
        else
            hi = mid;
    }
    return k <= g[lo].hi ? (long)lo : -1;
}

/* The bin of k in histogram range g (k in [g->lo, g->hi]). */
QSEL_FN uint32_t qsel_bin(const qsel_range *g, qsel_u128 k)
{
    return (uint32_t)((k - g->lo) >> g->shift);
}

#endif
