#include "report.h"

#include "writers.h"

int report_has_mean(const col_summary *s)
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

void report_sum_text(char *buf, size_t len, const col_summary *s)
{
    if (s->is_int)
        snprintf(buf, len, "%s", s->sum_int);
    else
        format_double(buf, len, s->sum);
}

void report_min_text(char *buf, size_t len, const col_summary *s)
{
    if (s->is_int)
        snprintf(buf, len, "%s", s->min_int);
    else
        format_double(buf, len, s->min);
}

void report_max_text(char *buf, size_t len, const col_summary *s)
{
    if (s->is_int)
        snprintf(buf, len, "%s", s->max_int);
    else
        format_double(buf, len, s->max);
}

int report_has_hist(unsigned what, const report_col *c)
{
    return (what & STAT_HIST) && c->h && c->h->bins;
}

int report_write(FILE *f, out_format fmt, unsigned what, uint64_t rows,
                 const report_col *cols, int ncols, int width)
{
    switch (fmt) {
    case FMT_JSON:
        report_json(f, what, rows, cols, ncols);
        break;
    case FMT_TSV:
        report_delim(f, '\t', what, cols, ncols);
        break;
    case FMT_CSV:
        report_delim(f, ',', what, cols, ncols);
        break;
    default:
        report_table(f, what, cols, ncols, width > 0 ? width : 80);
        break;
    }
    /* Writers do not check each fprintf: the stream's error flag is
     * sticky, so one check after the flush sees any failure. */
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}
