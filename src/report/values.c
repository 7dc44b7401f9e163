/* The value rules every writer shares: which summary values exist, and
 * the sum, extrema and quantiles as text. */
#include <math.h>
#include <stdio.h>

#include "src/report/writers.h"

int report_has_mean(const col_summary *s)
{
    return s->count > 0;
}

/* The sum of no values is undefined, as their mean is: a column whose
 * every field is missing or invalid shows no sum rather than 0. */
int report_has_sum(const col_summary *s)
{
    return s->count > 0;
}

int report_has_std(const col_summary *s)
{
    return s->count > 1;
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
    if (s->is_int)
        snprintf(buf, len, "%s", s->min_int);
    else
        format_double_digits(buf, len, s->min, digits);
}

void report_max_text(char *buf, size_t len, const col_summary *s, int digits)
{
    if (s->is_int)
        snprintf(buf, len, "%s", s->max_int);
    else
        format_double_digits(buf, len, s->max, digits);
}

int report_has_hist(unsigned what, const report_col *c)
{
    return (what & STAT_HIST) && c->h && c->h->bins;
}

int report_quantile_text(char *buf, size_t len, const col_summary *s,
                         const qres *q, int digits)
{
    if (!q || !q->has_value || isnan(q->value))
        return 0;
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
