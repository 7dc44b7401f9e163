/* The table for people: one row per input column, the name left-aligned
 * and numbers right-aligned in shortest form, "-" where a value does not
 * exist. The missing, invalid and nan columns appear only when some
 * column has such fields. With STAT_HIST each histogram follows, drawn as
 * bars (see report_bars.c). */
#include <math.h>
#include <string.h>

#include "writers.h"

enum field {
    F_INDEX,
    F_NAME,
    F_COUNT,
    F_SUM,
    F_MEAN,
    F_STD,
    F_MIN,
    F_MIN_ROW,
    F_MAX,
    F_MAX_ROW,
    F_MISSING,
    F_INVALID,
    F_NAN,
    F_NFIELDS
};

static const char *const titles[F_NFIELDS] = {
    "#",       "column", "count",   "sum",     "mean",    "std", "min",
    "min_row", "max",    "max_row", "missing", "invalid", "nan",
};

/* A name of NAME_MAX_CHARS characters of up to 4 bytes fits a cell. */
enum { NAME_MAX_CHARS = 40, CELL = 192 };

/* Characters a terminal shows for UTF-8 text: bytes that start one. */
static int display_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* The name with control bytes shown as '?', cut to NAME_MAX_CHARS. */
static void display_name(char *out, const char *s)
{
    int chars = 0;
    size_t n = 0;
    for (; s && *s && n < CELL - 8; s++) {
        unsigned char c = (unsigned char)*s;
        int starts = (c & 0xC0) != 0x80;
        if (starts && chars == NAME_MAX_CHARS - 1 && display_width(s) > 1) {
            memcpy(out + n, "\u2026", 3); /* ellipsis */
            n += 3;
            break;
        }
        chars += starts;
        out[n++] = c < 0x20 || c == 0x7F ? '?' : (char)c;
    }
    out[n] = '\0';
}

static void u64_cell(char *buf, uint64_t v)
{
    snprintf(buf, CELL, "%llu", (unsigned long long)v);
}

static void num_cell(char *buf, double v, int exists)
{
    if (exists)
        format_double(buf, CELL, v);
    else
        snprintf(buf, CELL, "-");
}

static void cell(char *buf, enum field k, const report_col *c)
{
    const col_summary *s = &c->s;
    int ext = report_has_extrema(s);
    switch (k) {
    case F_INDEX:
        snprintf(buf, CELL, "%d", c->index);
        break;
    case F_NAME:
        display_name(buf, c->name);
        break;
    case F_COUNT:
        u64_cell(buf, s->count);
        break;
    case F_SUM:
        report_sum_text(buf, CELL, s);
        break;
    case F_MEAN:
        num_cell(buf, s->mean, report_has_mean(s));
        break;
    case F_STD:
        num_cell(buf, s->std, report_has_std(s));
        break;
    case F_MIN:
        ext ? report_min_text(buf, CELL, s) : num_cell(buf, 0, 0);
        break;
    case F_MAX:
        ext ? report_max_text(buf, CELL, s) : num_cell(buf, 0, 0);
        break;
    case F_MIN_ROW:
        ext ? u64_cell(buf, s->min_row) : num_cell(buf, 0, 0);
        break;
    case F_MAX_ROW:
        ext ? u64_cell(buf, s->max_row) : num_cell(buf, 0, 0);
        break;
    case F_MISSING:
        u64_cell(buf, s->missing);
        break;
    case F_INVALID:
        u64_cell(buf, s->invalid);
        break;
    default:
        u64_cell(buf, s->nan);
        break;
    }
}

/* Which fields the table has. */
static int choose_fields(enum field *out, unsigned what, const report_col *cols,
                         int ncols)
{
    uint64_t missing = 0, invalid = 0, nan = 0;
    for (int i = 0; i < ncols; i++) {
        missing |= cols[i].s.missing;
        invalid |= cols[i].s.invalid;
        nan |= cols[i].s.nan;
    }
    const struct {
        enum field k;
        int on;
    } all[] = {
        {F_INDEX, 1},
        {F_NAME, 1},
        {F_COUNT, (what & STAT_COUNT) != 0},
        {F_SUM, (what & STAT_SUM) != 0},
        {F_MEAN, (what & STAT_MEAN) != 0},
        {F_STD, (what & STAT_STD) != 0},
        {F_MIN, (what & STAT_MIN) != 0},
        {F_MIN_ROW, (what & STAT_MIN) != 0},
        {F_MAX, (what & STAT_MAX) != 0},
        {F_MAX_ROW, (what & STAT_MAX) != 0},
        {F_MISSING, missing != 0},
        {F_INVALID, invalid != 0},
        {F_NAN, nan != 0},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i].on)
            out[n++] = all[i].k;
    return n;
}

static void pad(FILE *f, int n)
{
    for (; n > 0; n--)
        putc(' ', f);
}

/* One line; c is NULL for the header. */
static void line(FILE *f, const enum field *fields, const int *widths, int nf,
                 const report_col *c)
{
    char buf[CELL];
    for (int j = 0; j < nf; j++) {
        if (c)
            cell(buf, fields[j], c);
        else
            snprintf(buf, CELL, "%s", titles[fields[j]]);
        int gap = widths[j] - display_width(buf);
        if (j)
            fputs("  ", f);
        if (fields[j] == F_NAME) {
            fputs(buf, f);
            if (j + 1 < nf)
                pad(f, gap);
        } else {
            pad(f, gap);
            fputs(buf, f);
        }
    }
    putc('\n', f);
}

void report_table(FILE *f, unsigned what, const report_col *cols, int ncols,
                  int width)
{
    enum field fields[F_NFIELDS];
    int widths[F_NFIELDS];
    char buf[CELL];
    int nf = choose_fields(fields, what, cols, ncols);
    for (int j = 0; j < nf; j++) {
        widths[j] = display_width(titles[fields[j]]);
        for (int i = 0; i < ncols; i++) {
            cell(buf, fields[j], &cols[i]);
            int w = display_width(buf);
            widths[j] = w > widths[j] ? w : widths[j];
        }
    }
    line(f, fields, widths, nf, NULL);
    for (int i = 0; i < ncols; i++)
        line(f, fields, widths, nf, &cols[i]);
    for (int i = 0; i < ncols; i++)
        if (report_has_hist(what, &cols[i]))
            report_bars(f, &cols[i], width);
}
