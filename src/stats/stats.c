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

/* Index of the first v[i] == x (x is in v; -0.0 == +0.0). */
static size_t first_equal(const double *v, double x)
{
    size_t i = 0;
    while (!(v[i] == x))
        i++;
    return i;
}

/* Count, extrema and integrality over v[0..n) in four independent lanes
 * of branch-free selects (NaN compares false, so it is skipped without a
 * test). The row of an extremum is found afterwards by a scan for the
 * first equal value, which is also what makes ties (and -0.0 against
 * +0.0, which compare equal) go to the earliest row. */
typedef struct lanes {
    uint64_t count;
    double min, max;
    int all_int;
} lanes;

static lanes scan(const double *v, size_t n)
{
    double mn[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    double mx[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    uint64_t cnt[4] = {0, 0, 0, 0};
    int ok[4] = {1, 1, 1, 1};
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        for (int k = 0; k < 4; k++) {
            double x = v[i + k];
            int real = x == x;
            cnt[k] += (uint64_t)real;
            mn[k] = x < mn[k] ? x : mn[k];
            mx[k] = x > mx[k] ? x : mx[k];
            ok[k] &= is_int64(x) | (real ^ 1);
        }
    }
    for (; i < n; i++) {
        double x = v[i];
        int real = x == x;
        cnt[0] += (uint64_t)real;
        mn[0] = x < mn[0] ? x : mn[0];
        mx[0] = x > mx[0] ? x : mx[0];
        ok[0] &= is_int64(x) | (real ^ 1);
    }
    lanes r = {cnt[0], mn[0], mx[0], ok[0]};
    for (int k = 1; k < 4; k++) {
        r.count += cnt[k];
        r.min = mn[k] < r.min ? mn[k] : r.min;
        r.max = mx[k] > r.max ? mx[k] : r.max;
        r.all_int &= ok[k];
    }
    return r;
}

/* Strict comparisons against what s already holds keep its (earlier)
 * row on ties. The sums run as a second pass over the same cached
 * values, so each loop stays tight. */
void stats_add_values(col_stats *s, const double *v, size_t n,
                      uint64_t first_row, unsigned what)
{
    lanes r = scan(v, n);
    if (r.count > 0) {
        if (s->count == 0 || r.min < s->min) {
            size_t i = first_equal(v, r.min);
            s->min = v[i];
            s->min_row = first_row + i;
        }
        if (s->count == 0 || r.max > s->max) {
            size_t i = first_equal(v, r.max);
            s->max = v[i];
            s->max_row = first_row + i;
        }
    }
    s->count += r.count;
    s->all_int &= r.all_int;
    if (what & STAT_STD)
        sacc_add_values(&s->sum, &s->sumsq, v, n);
    else if (what & (STAT_SUM | STAT_MEAN))
        sacc_add_values(&s->sum, NULL, v, n);
}

void stats_add_counts(col_stats *s, uint64_t missing, uint64_t invalid,
                      uint64_t nan, uint64_t first_invalid_row)
{
    s->missing += missing;
    s->invalid += invalid;
    s->nan += nan;
    if (!s->first_invalid_row)
        s->first_invalid_row = first_invalid_row;
}

void stats_merge(col_stats *dst, const col_stats *src, uint64_t row_offset)
{
    stats_add_counts(
        dst, src->missing, src->invalid, src->nan,
        src->first_invalid_row ? src->first_invalid_row + row_offset : 0);
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
