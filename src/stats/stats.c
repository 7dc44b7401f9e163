/* Per-column statistics: count, extrema with their first row, integrality
 * and the exact sums, both of the doubles and of the integer view, with
 * merge and finalize (see stats.h). */
#include "stats.h"

#include <math.h>
#include <string.h>

#include "src/stats/lanes.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

void stats_init(col_stats *s)
{
    memset(s, 0, sizeof *s);
    s->min = NAN;
    s->max = NAN;
    s->fmin = NAN;
    s->fmax = NAN;
    s->all_int = 1;
    csum_init(&s->sum);
    csum_init(&s->sumsq);
    csum_init(&s->sumsq_corr);
}

void stats_free(col_stats *s)
{
    csum_free(&s->sum);
    csum_free(&s->sumsq);
    csum_free(&s->sumsq_corr);
}

/* The correction that counts for x (stats_add_values). */
static inline int32_t corr_of(double x, int32_t c)
{
    return c == CORR_NOT_INT || !lanes_int_range(x) ? 0 : c;
}

/* One extremum in both views: the double and its first row; the integer
 * view's correction and first row (its value is the same double). */
typedef struct ext {
    double v;
    uint64_t row;
    int32_t corr;
    uint64_t row_int;
    int off; /* the integer view's row's UTC offset (stats.h) */
} ext;

/* Where one extremum is kept, in a col_stats or a col_part. */
typedef struct ext_slot {
    double *v;
    uint64_t *row;
    int32_t *corr;
    uint64_t *row_int;
    int16_t *off;
} ext_slot;

/* Takes e as the minimum (sign 1) or maximum (sign -1) in d, of count
 * values so far, where it comes first: the lower (higher) double, on a tie
 * the lower row; in the integer view the lower (higher) correction on a
 * tie of doubles, then the lower row. */
static void take_at(uint64_t count, ext_slot d, ext e, int sign)
{
    int first = count == 0 || (sign > 0 ? e.v < *d.v : e.v > *d.v);
    int tie = !first && e.v == *d.v;
    int int_first =
        first || (tie && (sign > 0 ? e.corr < *d.corr : e.corr > *d.corr));
    int int_tie = tie && e.corr == *d.corr;
    if (first || (tie && e.row < *d.row)) {
        *d.v = e.v;
        *d.row = e.row;
    }
    if (int_first || (int_tie && e.row_int < *d.row_int)) {
        *d.corr = e.corr;
        *d.row_int = e.row_int;
        *d.off = (int16_t)e.off;
    }
}

static void take(col_stats *s, ext e, int sign)
{
    ext_slot d = sign > 0 ? (ext_slot){&s->min, &s->min_row, &s->min_corr,
                                       &s->min_row_int, &s->min_off}
                          : (ext_slot){&s->max, &s->max_row, &s->max_corr,
                                       &s->max_row_int, &s->max_off};
    take_at(s->count, d, e, sign);
}

/* The extremum of v[0..n) whose double is v[i] (its first row): in the
 * integer view, the row of the least (sign 1) or greatest (sign -1)
 * correction among the rows holding that double, the first such. */
/* Where value i is: rows[i], or first_row + i without rows. */
typedef struct row_of {
    uint64_t first;
    const uint64_t *rows;
} row_of;

static uint64_t at_row(row_of w, size_t i)
{
    return w.rows ? w.rows[i] : w.first + i;
}

static ext extremum(const double *v, const int32_t *corr, size_t n, size_t i,
                    int sign, row_of w)
{
    ext e = {v[i], at_row(w, i), 0, at_row(w, i), 0};
    if (!corr)
        return e;
    size_t at = i;
    int32_t best = corr_of(v[i], corr[i]);
    for (size_t j = i + 1; j < n; j++) {
        int32_t c = corr_of(v[j], corr[j]);
        if (v[j] == v[i] && (sign > 0 ? c < best : c > best)) {
            best = c;
            at = j;
        }
    }
    e.corr = best;
    e.row_int = at_row(w, at);
    return e;
}

/* The corrections' part of the sums (rare: only row batches that carry any). */
static int add_corrections(col_stats *s, const double *v, const int32_t *corr,
                           size_t n, unsigned what)
{
    sacc sq;
    int squares = 0;
    sacc_init(&sq);
    for (size_t i = 0; i < n; i++) {
        int32_t c = corr[i];
        if (c == 0 || !lanes_int_range(v[i]))
            continue;
        if (c == CORR_NOT_INT) {
            s->all_int = 0;
            continue;
        }
        s->sum_r += c;
        if (what & STAT_STD) { /* (d + r)^2 = d^2 + (2*d*r + r^2) */
            sacc_add_product(&sq, v[i], 2 * (int64_t)c);
            sacc_add(&sq, (double)c * (double)c);
            squares = 1;
        }
    }
    return squares ? csum_add(&s->sumsq_corr, &sq) : 0;
}

/* Folds finite extremes lo <= hi into fmin, fmax; zeros as +0, so that
 * the result depends on the values only, not on which zero came first. */
static void finite_at(double *fmin, double *fmax, double lo, double hi)
{
    lo += 0.0;
    hi += 0.0;
    if (!(*fmin <= lo))
        *fmin = lo;
    if (!(*fmax >= hi))
        *fmax = hi;
}

static void take_finite(col_stats *s, double lo, double hi)
{
    finite_at(&s->fmin, &s->fmax, lo, hi);
}

/* The finite extremes of v[0..n) where an infinity hides them (rare: a
 * second pass only for such row batches). */
static void finite_pass(col_stats *s, const double *v, size_t n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
    if (lo <= hi)
        take_finite(s, lo, hi);
}

/* An extremum's row is found after the scan by the first value equal to
 * it, which also sends ties (and -0.0 against +0.0, which compare equal)
 * to the earliest row. The sums run as a second pass over the same cached
 * values, so each loop stays tight: into full superaccumulators here,
 * then once into the column's compact sums. */
static int add_values(col_stats *s, const double *v, const int32_t *corr,
                      size_t n, row_of w, unsigned what)
{
    lanes r = lanes_scan(v, n);
    if (r.count > 0) {
        take(s, extremum(v, corr, n, lanes_first_equal(v, n, r.min), 1, w), 1);
        take(s, extremum(v, corr, n, lanes_first_equal(v, n, r.max), -1, w),
             -1);
        if (isfinite(r.min) && isfinite(r.max))
            take_finite(s, r.min, r.max);
        else
            finite_pass(s, v, n);
    }
    s->count += r.count;
    s->all_int &= r.all_int;
    int rc = 0;
    if (r.count > 0 && (what & (STAT_SUM | STAT_MEAN | STAT_STD))) {
        sacc sum, sq;
        sacc_init(&sum);
        if (what & STAT_STD) {
            sacc_init(&sq);
            sacc_add_values(&sum, &sq, v, n);
            rc |= csum_add(&s->sumsq, &sq);
        } else {
            sacc_add_values(&sum, NULL, v, n);
        }
        rc |= csum_add(&s->sum, &sum);
    }
    if (corr)
        rc |= add_corrections(s, v, corr, n, what);
    return rc ? -1 : 0;
}

int stats_add_values(col_stats *s, const double *v, const int32_t *corr,
                     size_t n, uint64_t first_row, unsigned what)
{
    return add_values(s, v, corr, n, (row_of){first_row, NULL}, what);
}

int stats_add_rows(col_stats *s, const double *v, const int32_t *corr,
                   const uint64_t *rows, size_t n, unsigned what)
{
    return add_values(s, v, corr, n, (row_of){0, rows}, what);
}

void stats_add_offsets(col_stats *s, const int16_t *off, size_t n,
                       uint64_t first_row)
{
    if (s->count && s->min_row_int - first_row < n)
        s->min_off = off ? off[s->min_row_int - first_row] : 0;
    if (s->count && s->max_row_int - first_row < n)
        s->max_off = off ? off[s->max_row_int - first_row] : 0;
}

void stats_part_init(col_part *p)
{
    memset(p, 0, sizeof *p);
    p->min = p->max = p->fmin = p->fmax = NAN;
    p->all_int = 1;
}

static ext_slot part_slot(col_part *p, int sign)
{
    return sign > 0 ? (ext_slot){&p->min, &p->min_row, &p->min_corr,
                                 &p->min_row_int, &p->min_off}
                    : (ext_slot){&p->max, &p->max_row, &p->max_corr,
                                 &p->max_row_int, &p->max_off};
}

void stats_part_add_any(col_part *p, double v, int32_t r, uint64_t row)
{
    ext e = {v, row, corr_of(v, r), row, 0};
    /* most values move no extreme: one test for both */
    if (!(p->count && v > p->min && v < p->max)) {
        take_at(p->count, part_slot(p, 1), e, 1);
        take_at(p->count, part_slot(p, -1), e, -1);
    }
    if (isfinite(v))
        finite_at(&p->fmin, &p->fmax, v, v);
    p->count++;
    int in = lanes_int_range(v);
    p->all_int &= in;
    if (r != 0 && in) {
        if (r == CORR_NOT_INT)
            p->all_int = 0;
        else
            p->sum_r += r;
    }
}

void stats_part_counts(col_part *p, uint64_t missing, uint64_t invalid,
                       uint64_t nan, uint64_t first_invalid_row)
{
    p->missing += missing;
    p->invalid += invalid;
    p->nan += nan;
    if (first_invalid_row &&
        (!p->first_invalid_row || first_invalid_row < p->first_invalid_row))
        p->first_invalid_row = first_invalid_row;
}

void stats_part_merge(col_part *dst, const col_part *src, uint64_t row_offset)
{
    stats_part_counts(
        dst, src->missing, src->invalid, src->nan,
        src->first_invalid_row ? src->first_invalid_row + row_offset : 0);
    if (src->count > 0) {
        ext mn = {src->min, src->min_row + row_offset, src->min_corr,
                  src->min_row_int + row_offset, src->min_off};
        ext mx = {src->max, src->max_row + row_offset, src->max_corr,
                  src->max_row_int + row_offset, src->max_off};
        take_at(dst->count, part_slot(dst, 1), mn, 1);
        take_at(dst->count, part_slot(dst, -1), mx, -1);
    }
    if (src->fmin <= src->fmax)
        finite_at(&dst->fmin, &dst->fmax, src->fmin, src->fmax);
    dst->count += src->count;
    dst->all_int &= src->all_int;
    dst->sum_r += src->sum_r;
}

void stats_merge_part(col_stats *dst, const col_part *src, uint64_t row_offset)
{
    stats_add_counts(
        dst, src->missing, src->invalid, src->nan,
        src->first_invalid_row ? src->first_invalid_row + row_offset : 0);
    if (src->count > 0) {
        ext mn = {src->min, src->min_row + row_offset, src->min_corr,
                  src->min_row_int + row_offset, src->min_off};
        ext mx = {src->max, src->max_row + row_offset, src->max_corr,
                  src->max_row_int + row_offset, src->max_off};
        take(dst, mn, 1);
        take(dst, mx, -1);
    }
    if (src->fmin <= src->fmax)
        take_finite(dst, src->fmin, src->fmax);
    dst->count += src->count;
    dst->all_int &= src->all_int;
    dst->sum_r += src->sum_r;
}

void stats_add_counts(col_stats *s, uint64_t missing, uint64_t invalid,
                      uint64_t nan, uint64_t first_invalid_row)
{
    s->missing += missing;
    s->invalid += invalid;
    s->nan += nan;
    if (first_invalid_row &&
        (!s->first_invalid_row || first_invalid_row < s->first_invalid_row))
        s->first_invalid_row = first_invalid_row;
}

int stats_merge(col_stats *dst, const col_stats *src, uint64_t row_offset)
{
    stats_add_counts(
        dst, src->missing, src->invalid, src->nan,
        src->first_invalid_row ? src->first_invalid_row + row_offset : 0);
    if (src->count > 0) {
        ext mn = {src->min, src->min_row + row_offset, src->min_corr,
                  src->min_row_int + row_offset, src->min_off};
        ext mx = {src->max, src->max_row + row_offset, src->max_corr,
                  src->max_row_int + row_offset, src->max_off};
        take(dst, mn, 1);
        take(dst, mx, -1);
    }
    if (src->fmin <= src->fmax)
        take_finite(dst, src->fmin, src->fmax);
    dst->count += src->count;
    dst->all_int &= src->all_int;
    dst->sum_r += src->sum_r;
    int rc = csum_merge(&dst->sum, &src->sum);
    rc |= csum_merge(&dst->sumsq, &src->sumsq);
    rc |= csum_merge(&dst->sumsq_corr, &src->sumsq_corr);
    return rc ? -1 : 0;
}

/* d + r as a decimal integer; d integral, |d| <= 2^64. */
static void int_text(char *buf, double d, int32_t r)
{
    i128 v = (i128)d + r;
    u128 u = v < 0 ? -(u128)v : (u128)v;
    char rev[48];
    int k = 0;
    for (; u > UINT64_MAX; u /= 10) /* past 2^64: rare */
        rev[k++] = (char)('0' + (int)(u % 10));
    /* the rest in 64 bits: a 128-bit division is a call per digit */
    uint64_t w = (uint64_t)u;
    do {
        rev[k++] = (char)('0' + (int)(w % 10));
        w /= 10;
    } while (w);
    if (v < 0)
        *buf++ = '-';
    while (k)
        *buf++ = rev[--k];
    *buf = '\0';
}

void stats_int_text(char *buf, double d, int32_t r)
{
    int_text(buf, d, r);
}

static int no_squares(const col_stats *s)
{
    const csum *q = &s->sumsq;
    return !q->all && q->lo < 0 && !q->pos_inf && !q->neg_inf;
}

/* An integer column: the exact sums are the doubles' plus the
 * corrections'. */
static void finalize_int(const col_stats *s, col_summary *out)
{
    out->min_row = s->min_row_int;
    out->max_row = s->max_row_int;
    out->min_off = s->min_off;
    out->max_off = s->max_off;
    int_text(out->min_int, s->min, s->min_corr);
    int_text(out->max_int, s->max, s->max_corr);
    /* the common case, no corrections and no squares, from the compact
       sum alone (csum_value: the same values) */
    if (s->sum_r == 0 && no_squares(s)) {
        out->sum = csum_value(&s->sum);
        out->mean = csum_mean(&s->sum, s->count);
        out->is_int =
            csum_integer_string(&s->sum, out->sum_int, sizeof out->sum_int);
        out->std = NAN;
        if (out->sum != 0)
            return;
    }
    sacc sum, sq, corr;
    csum_get(&s->sum, &sum);
    csum_get(&s->sumsq, &sq);
    csum_get(&s->sumsq_corr, &corr);
    sacc_add_product(&sum, 1.0, s->sum_r);
    sacc_merge(&sq, &corr);
    out->sum = sacc_value(&sum);
    out->mean = sacc_mean(&sum, s->count);
    out->std =
        no_squares(s) && out->sum != 0 ? NAN : sacc_std(&sum, &sq, s->count);
    out->is_int = sacc_integer_string(&sum, out->sum_int, sizeof out->sum_int);
}

void stats_finalize(const col_stats *s, col_summary *out)
{
    memset(out, 0, sizeof *out);
    out->count = s->count;
    out->missing = s->missing;
    out->invalid = s->invalid;
    out->nan = s->nan;
    out->first_invalid_row = s->first_invalid_row;
    out->min = s->count ? s->min : NAN;
    out->max = s->count ? s->max : NAN;
    if (s->all_int && s->count > 0) {
        finalize_int(s, out);
        return;
    }
    out->sum = csum_value(&s->sum);
    out->mean = s->count ? csum_mean(&s->sum, s->count) : NAN;
    /* no squares of values that are not all zero: std was not asked for */
    out->std = NAN;
    if (!no_squares(s) || out->sum == 0) {
        sacc sum, sq;
        csum_get(&s->sum, &sum);
        csum_get(&s->sumsq, &sq);
        out->std = sacc_std(&sum, &sq, s->count);
    }
    out->min_row = s->count ? s->min_row : 0;
    out->max_row = s->count ? s->max_row : 0;
}

void stats_hist_edges(const col_stats *s, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (s->count == 0 || !(s->fmin <= s->fmax))
        return;
    *lo = isfinite(s->min) ? s->min : s->fmin;
    *hi = isfinite(s->max) ? s->max : s->fmax;
}
