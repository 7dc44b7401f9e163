/* The value rules every writer shares: which summary values exist, and
 * the sum, extrema and quantiles as text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/report/writers.h"

/* Instants have no sum, mean or std: their keys are left out of a date
 * column's entry (report_what), their cells empty. */
int report_dated(const col_summary *s)
{
    return s->type != COL_NUMBER;
}

unsigned report_what(unsigned what, const col_summary *s)
{
    return report_dated(s)
               ? what & ~(unsigned)(STAT_SUM | STAT_MEAN | STAT_STD | STAT_HIST)
               : what;
}

int report_has_mean(const col_summary *s)
{
    return s->count > 0 && !report_dated(s);
}

/* The sum of no values is undefined, as their mean is: a column whose
 * every field is missing or invalid shows no sum rather than 0. */
int report_has_sum(const col_summary *s)
{
    return s->count > 0 && !report_dated(s);
}

int report_has_std(const col_summary *s)
{
    return s->count > 1 && !report_dated(s);
}

/* An exact integer's digits (an instant of a date column) as ISO 8601. */
static void instant(char *buf, size_t len, const col_summary *s,
                    const char *digits)
{
    report_instant_text(buf, len, strtoll(digits, NULL, 10),
                        s->type == COL_DATE, s->type == COL_DATETIME_Z);
}

/* An extreme's instant: in a datetime column with zones, at the offset
 * its row was written in. */
static void extreme(char *buf, size_t len, const col_summary *s,
                    const char *digits, int off)
{
    if (s->type == COL_DATETIME_Z)
        report_instant_at(buf, len, strtoll(digits, NULL, 10), off);
    else
        instant(buf, len, s, digits);
}

int report_span(const col_summary *s, char *text, size_t tlen, char *secs,
                size_t slen)
{
    if (!report_dated(s) || !report_has_extrema(s) || !s->is_int)
        return 0;
    int64_t us = strtoll(s->max_int, NULL, 10) - strtoll(s->min_int, NULL, 10);
    report_span_text(text, tlen, us, s->type == COL_DATE);
    report_span_seconds(secs, slen, us);
    return 1;
}

int report_has_extrema(const col_summary *s)
{
    return s->count > 0;
}

void report_sum_text(char *buf, size_t len, const col_summary *s, int digits)
{
    if (s->is_int)
        snprintf(buf, len, "%s", s->sum_int);
    else
        format_double_digits(buf, len, s->sum, digits);
}

void report_min_text(char *buf, size_t len, const col_summary *s, int digits)
{
    if (s->is_int && report_dated(s))
        extreme(buf, len, s, s->min_int, s->min_off);
    else if (s->is_int)
        snprintf(buf, len, "%s", s->min_int);
    else
        format_double_digits(buf, len, s->min, digits);
}

void report_max_text(char *buf, size_t len, const col_summary *s, int digits)
{
    if (s->is_int && report_dated(s))
        extreme(buf, len, s, s->max_int, s->max_off);
    else if (s->is_int)
        snprintf(buf, len, "%s", s->max_int);
    else
        format_double_digits(buf, len, s->max, digits);
}

int report_has_hist(unsigned what, const report_col *c)
{
    return (report_what(what, &c->s) & STAT_HIST) && c->h && c->h->bins;
}

int report_quantile_text(char *buf, size_t len, const col_summary *s,
                         const qres *q, int digits)
{
    if (!q || !q->has_value || isnan(q->value))
        return 0;
    if (report_dated(s)) { /* an instant between two: the nearest us */
        char d[48];
        if (!(q->has_near && qvalue_int_text(q->near, d, sizeof d)))
            snprintf(d, sizeof d, "%lld", (long long)llround(q->value));
        instant(buf, len, s, d);
        return 3;
    }
    if (s->is_int && q->is_int && qvalue_int_text(q->exact, buf, len))
        return 1;
    format_double_digits(buf, len, q->value, digits);
    return isfinite(q->value) ? 1 : 2;
}

void report_quantile_name(char *buf, size_t len, const report_col *c, size_t i)
{
    char q[QLIST_TEXT_MAX];
    qlist_text(c->qf[i], q, sizeof q);
    snprintf(buf, len, "q%s", q);
}
