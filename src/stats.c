/* Per-column statistics: count, extrema with their first row, integrality
 * and the exact sums, with merge and finalize (see stats.h). */
#include "stats.h"

#include <math.h>
#include <string.h>

void stats_init(col_stats *s)
{
    memset(s, 0, sizeof *s);
    s->min = NAN;
    s->max = NAN;
    s->all_int = 1;
    sacc_init(&s->sum);
    sacc_init(&s->sumsq);
}

/* v is an integer of magnitude below 2^63. Below 2^52, adding and
 * subtracting 2^52 rounds |v| to an integer; above it every double is one.
 * Written without branches so the hot loop stays branch-light. */
static inline int is_int64(double v)
{
    double a = fabs(v);
    return (a < 0x1p63) & ((a >= 0x1p52) | ((a + 0x1p52) - 0x1p52 == a));
}

/* The first non-NaN value seeds min and max, so the loop below needs no
 * "is this the first" test; returns the index after it. */
static size_t seed_extrema(col_stats *s, const double *v, size_t n,
                           uint64_t first_row)
{
    if (s->count > 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!isnan(v[i])) {
            s->min = s->max = v[i];
            s->min_row = s->max_row = first_row + i;
            return i;
        }
    }
    return n;
}

/* Strict comparisons keep the earlier row on ties; -0.0 and +0.0 compare
 * equal, so whichever came first is reported. sums and squares are
 * compile-time constants at each call site, so each variant is a loop
 * without per-value tests of what. */
static inline void add_loop(col_stats *s, const double *v, size_t from,
                            size_t n, uint64_t first_row, int sums, int squares)
{
    uint64_t count = 0;
    int all_int = s->all_int;
    double mn = s->min, mx = s->max;
    for (size_t i = from; i < n; i++) {
        double x = v[i];
        if (isnan(x))
            continue;
        count++;
        if (x < mn) {
            mn = x;
            s->min_row = first_row + i;
        }
        if (x > mx) {
            mx = x;
            s->max_row = first_row + i;
        }
        all_int &= is_int64(x);
        if (sums)
            sacc_add(&s->sum, x);
        if (squares)
            sacc_add_square(&s->sumsq, x);
    }
    s->min = mn;
    s->max = mx;
    s->all_int = all_int;
    s->count += count;
}

void stats_add_values(col_stats *s, const double *v, size_t n,
                      uint64_t first_row, unsigned what)
{
    size_t from = seed_extrema(s, v, n, first_row);
    if (what & STAT_STD)
        add_loop(s, v, from, n, first_row, 1, 1);
    else if (what & (STAT_SUM | STAT_MEAN))
        add_loop(s, v, from, n, first_row, 1, 0);
    else
        add_loop(s, v, from, n, first_row, 0, 0);
}

void stats_merge(col_stats *dst, const col_stats *src, uint64_t row_offset)
{
    dst->missing += src->missing;
    dst->invalid += src->invalid;
    dst->nan += src->nan;
    if (!dst->first_invalid_row && src->first_invalid_row)
        dst->first_invalid_row = src->first_invalid_row + row_offset;
    if (src->count > 0) {
        if (dst->count == 0 || src->min < dst->min) {
            dst->min = src->min;
            dst->min_row = src->min_row + row_offset;
        }
        if (dst->count == 0 || src->max > dst->max) {
            dst->max = src->max;
            dst->max_row = src->max_row + row_offset;
        }
    }
    dst->count += src->count;
    dst->all_int &= src->all_int;
    sacc_merge(&dst->sum, &src->sum);
    sacc_merge(&dst->sumsq, &src->sumsq);
}

void stats_finalize(const col_stats *s, col_summary *out)
{
    memset(out, 0, sizeof *out);
    out->count = s->count;
    out->missing = s->missing;
    out->invalid = s->invalid;
    out->nan = s->nan;
    out->first_invalid_row = s->first_invalid_row;
    out->sum = sacc_value(&s->sum);
    out->mean = s->count ? sacc_mean(&s->sum, s->count) : NAN;
    out->std = sacc_std(&s->sum, &s->sumsq, s->count);
    out->min = s->count ? s->min : NAN;
    out->max = s->count ? s->max : NAN;
    out->min_row = s->count ? s->min_row : 0;
    out->max_row = s->count ? s->max_row : 0;
    out->sum_is_int =
        s->all_int && s->count > 0 &&
        sacc_integer_string(&s->sum, out->sum_int, sizeof out->sum_int);
}
