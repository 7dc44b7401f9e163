/* Per-column statistics state: plain data with merge and finalize. Every
 * backend produces it (the GPU copies its partial states back and the same
 * code merges them), which makes results identical across backends,
 * thread counts and row batch sizes. */
#ifndef COLSTAT_SRC_STATS_H
#define COLSTAT_SRC_STATS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "exact.h"

/* What to compute and print. */
enum {
    STAT_COUNT = 1u << 0,
    STAT_SUM = 1u << 1,
    STAT_MEAN = 1u << 2,
    STAT_STD = 1u << 3,
    STAT_MIN = 1u << 4,
    STAT_MAX = 1u << 5,
    STAT_HIST = 1u << 6,
    STAT_MEDIAN = 1u << 7,    /* the 0.5 quantile */
    STAT_QUANTILES = 1u << 8, /* the quantiles of a list (quantile.h) */
    STAT_DISTINCT = 1u << 9,  /* distinct values (profile.h) */
    STAT_MODE = 1u << 10,     /* the most frequent value */
    STAT_TOP = 1u << 11,      /* the K most frequent values */
    STAT_PROFILE = STAT_DISTINCT | STAT_MODE | STAT_TOP,
    STAT_DEFAULT = STAT_COUNT | STAT_SUM | STAT_MEAN | STAT_MIN | STAT_MAX,
    STAT_ALL = STAT_DEFAULT | STAT_STD | STAT_HIST | STAT_MEDIAN,
};

/* What a column holds, as the sampled records show it: numbers, or text
 * (which answers count, missing, length and the profile.h statistics). */
/* What a column's values are: numbers (also with a unit), instants
 * (io/num/parse_kind.h's kinds of the same values), or text. */
typedef enum col_kind {
    COL_NUMBER = 0,
    COL_DATE = 1,
    COL_DATETIME = 2,
    COL_DATETIME_Z = 3,
    COL_TEXT = 4
} col_kind;

/* Whether the statistics need every value once the input ended:
 * quantiles, and histograms whose edges are the final min and max. */
static inline int stats_need_values(unsigned what, int have_range)
{
    return (what & (STAT_MEDIAN | STAT_QUANTILES)) ||
           ((what & STAT_HIST) && !have_range);
}

/* A value is a double d plus an integer correction r (io/base/row_batch.h,
 * after io/num/parse_number.h's parse_number_corr): an integer v with |v| <=
 * 2^64 is d + r exactly, d its nearest double, |r| <= 1024. CORR_NOT_INT marks
 * a value whose d is an integer although the value is no such integer
 * (io/num/parse_number.h defines the same). A column whose every value is such
 * an integer reports the integer view: exact sum, mean and std from exact
 * integer sums, extremes as exact integers with their first row. Any other
 * column reports the doubles. */
#define CORR_NOT_INT INT32_MIN

typedef struct col_stats {
    uint64_t count;                 /* values that entered (not NaN) */
    uint64_t missing, invalid, nan; /* fields that did not */
    uint64_t first_invalid_row;     /* 0 when none or not known (the GPU) */
    double min, max;                /* first row wins ties; -0 == +0 */
    uint64_t min_row, max_row;      /* 0 when count == 0 */
    /* the integer view's extremes: since rounding is monotone they have
       the doubles' min (max), the least (greatest) r among the rows
       holding it, and the first such row */
    int32_t min_corr, max_corr;
    uint64_t min_row_int, max_row_int;
    /* the least and greatest finite values (a zero as +0), NaN while there
       is none: the histogram's edges when min or max is infinite */
    double fmin, fmax;
    int all_int;     /* every value an integer, |v| <= 2^64 */
    int64_t sum_r;   /* sum of the corrections (see stats_add_values) */
    csum sum;        /* of d: with STAT_SUM, STAT_MEAN or STAT_STD */
    csum sumsq;      /* of d*d: with STAT_STD */
    csum sumsq_corr; /* of 2*d*r + r*r: with STAT_STD; sumsq + sumsq_corr is
                        the sum of the integers' squares */
    /* the UTC offsets, in minutes east, that the integer view's extremes'
       rows were written in (a datetime column with zones prints its min
       and max in them); 0 where the rows carried none */
    int16_t min_off, max_off;
} col_stats;

/* Whether a column's corrections can be other than 0: an integer column
 * holding integers past 2^53 (below it every integer is its double), so
 * that its quantiles order its values by them too. */
static inline int stats_needs_corr(const col_stats *s)
{
    return s->all_int && s->count > 0 &&
           (s->max >= 0x1p53 || s->min <= -0x1p53);
}

/* A col_stats is plain data but for its sums, which may hold memory once
 * their digits spread (csum): stats_free releases it. Moving a col_stats
 * (a struct copy, the original dropped) is fine; merging is the way to
 * combine two. */
void stats_init(col_stats *s);
void stats_free(col_stats *s);

/* Adds v[0..n), skipping NaN; v[i] is row first_row + i, corr[i] its
 * correction (corr NULL: all 0; a correction counts only beside an
 * integral double of at most 2^64, CORR_NOT_INT as 0). Rows are those of
 * the numbering s uses (a row batch's own, 1-based, until merged). Returns 0,
 * or -1 when out of memory. */
int stats_add_values(col_stats *s, const double *v, const int32_t *corr,
                     size_t n, uint64_t first_row, unsigned what);

/* After stats_add_values of rows [first_row, first_row + n): off[i] is
 * row first_row + i's UTC offset (NULL: all 0), taken for an extreme whose
 * row is among them. */
void stats_add_offsets(col_stats *s, const int16_t *off, size_t n,
                       uint64_t first_row);

/* stats_add_values for values whose rows are rows[0..n), ascending but
 * not consecutive (a group's rows, --group-by). */
int stats_add_rows(col_stats *s, const double *v, const int32_t *corr,
                   const uint64_t *rows, size_t n, unsigned what);

/* A column's state without its sums (--group-by's groups, group_table.h:
 * thousands of groups per job stay small, and one value at a time costs
 * no sum's setup): what col_stats holds but sum, sumsq and sumsq_corr,
 * the same meaning. */
typedef struct col_part {
    /* what most values touch first, in one cache line */
    uint64_t count;
    double fmin, fmax, min, max;
    int32_t all_int;
    int32_t min_corr, max_corr;
    int16_t min_off, max_off; /* as col_stats' (in what was padding) */
    uint64_t min_row, max_row, min_row_int, max_row_int;
    int64_t sum_r;
    uint64_t missing, invalid, nan, first_invalid_row;
} col_part;

void stats_part_init(col_part *p);
void stats_part_add_any(col_part *p, double v, int32_t r, uint64_t row);

/* After stats_part_add of row `row`, written at UTC offset off (not 0):
 * the offset of an extreme that row now holds. */
static inline void stats_part_offset(col_part *p, uint64_t row, int off)
{
    if (p->min_row_int == row)
        p->min_off = (int16_t)off;
    if (p->max_row_int == row)
        p->max_off = (int16_t)off;
}

/* One value v (not NaN) of row `row`, correction r (as stats_add_rows'),
 * after every row before it. Inline, the common case: a value strictly
 * between the finite extremes moves none of them. */
static inline void stats_part_add(col_part *p, double v, int32_t r,
                                  uint64_t row)
{
    if (v > p->fmin && v < p->fmax && r == 0) {
        p->count++;
        if (p->all_int) { /* an integer of magnitude at most 2^64 */
            double a = fabs(v);
            p->all_int =
                a <= 0x1p64 && (a >= 0x1p52 || (a + 0x1p52) - 0x1p52 == a);
        }
        return;
    }
    stats_part_add_any(p, v, r, row);
}
void stats_part_counts(col_part *p, uint64_t missing, uint64_t invalid,
                       uint64_t nan, uint64_t first_invalid_row);
/* dst += src, src's rows shifted by row_offset (as stats_merge). */
void stats_part_merge(col_part *dst, const col_part *src, uint64_t row_offset);
void stats_merge_part(col_stats *dst, const col_part *src, uint64_t row_offset);

/* Fields that did not enter: missing, invalid, NaN, and the row of the
 * first invalid one (0: none), numbered as s numbers its rows. The one
 * place these counters are summed. */
void stats_add_counts(col_stats *s, uint64_t missing, uint64_t invalid,
                      uint64_t nan, uint64_t first_invalid_row);

/* dst += src, where src's row r is row r + row_offset in dst. Ties go to
 * the lower row, wherever it came from. Returns 0, or -1 when out of
 * memory. */
int stats_merge(col_stats *dst, const col_stats *src, uint64_t row_offset);

/* What the report prints. NaN where undefined (mean of nothing, std of
 * fewer than two values, min/max of nothing). */
typedef struct col_summary {
    uint64_t count, missing, invalid, nan;
    uint64_t first_invalid_row;
    double sum, mean, std, min, max;
    uint64_t min_row, max_row;
    int is_int;       /* an integer column (count > 0): the texts below hold
                         the exact sum, min and max */
    char sum_int[48]; /* exact decimal integers */
    char min_int[24], max_int[24];
    int16_t min_off, max_off; /* the exact extremes' UTC offsets (col_stats) */
    /* what the values are (the report's business, set after
       stats_finalize): numbers, or instants in microseconds since 1970
       UTC, of a date column or a datetime column (printed in UTC with 'Z':
       COL_DATETIME_Z); io/num/parse_kind.h's KIND_* of the same values */
    unsigned char type;
} col_summary;

void stats_finalize(const col_stats *s, col_summary *out);

/* d + r as decimal digits into buf (at least 48 bytes); d integral,
 * |d| <= 2^64 (an integer column's values). */
void stats_int_text(char *buf, double d, int32_t r);

/* The default edges of a column's histogram: its min and max, or where
 * one is infinite its finite counterpart (infinities then count as
 * underflow and overflow); NaN when the column has no finite value. */
void stats_hist_edges(const col_stats *s, double *lo, double *hi);

/* Histogram: nbins equal-width bins over [lo, hi] (see hist_bin.h). */
typedef struct hist {
    int nbins;
    double lo, hi;
    uint64_t underflow, overflow;
    uint64_t *bins;
} hist;

int hist_init(hist *h, int nbins, double lo, double hi);  /* -1: no memory */
void hist_add_values(hist *h, const double *v, size_t n); /* skips NaN */
void hist_merge(hist *dst, const hist *src);              /* same edges */
void hist_free(hist *h);

#endif
