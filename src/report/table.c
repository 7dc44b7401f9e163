/* The table for people: one row per input column, the name left-aligned
 * and numbers right-aligned, "-" where a value does not exist. When that
 * is wider than the terminal, the wide table is first narrowed (short
 * titles, then fewer digits, as --digits would give, unless --digits was
 * given); only a table still too wide (or one asked for) is one block per
 * column, a "statistic  value" line each. Doubles print with the style's
 * digits. The missing, invalid and nan fields appear only when some
 * column has such fields. Widths are terminal columns (report_text_width). With
 * STAT_HIST each histogram follows, drawn as bars (see bars.c). */
#include <math.h>
#include <stdlib.h>
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
    F_SPAN,
    F_MEDIAN,
    F_MISSING,
    F_INVALID,
    F_NAN,
    F_NFIELDS,
    F_QUANT = F_NFIELDS /* F_QUANT + i: quantile i of the list */
};

static const char *const titles[F_NFIELDS] = {
    "#",   "column",  "count", "sum",    "mean",    "std",     "min", "min_row",
    "max", "max_row", "span",  "median", "missing", "invalid", "nan",
};

/* The titles of a table narrowed to the terminal: a row number reads as
 * the row of the extreme to its left. */
static const char *const short_titles[F_NFIELDS] = {
    "#",   "column", "n",    "sum", "mean", "std",   "min", "row",
    "max", "row",    "span", "med", "miss", "inval", "nan",
};

/* The steps of narrowing, tried in order until the table fits: digits
 * down to %g's default 6, and one blank between fields where two do
 * not fit. Each step formats every cell again. */
static const struct {
    int digits, gap;
} narrowing[] = {{15, 2}, {12, 2}, {10, 2}, {8, 2}, {8, 1}, {7, 1}, {6, 1}};

/* Past this many rows the table is not narrowed: nobody reads it on a
 * screen, and each narrowing step formats every cell again. */
enum { NARROW_MAX_COLS = 4096 };

/* A name is cut to NAME_MAX_COLS terminal columns; a cell holds it in
 * characters of up to 4 bytes. */
enum { NAME_MAX_COLS = 40, CELL = 192 };

static int display_width(const char *s)
{
    return report_text_width(s, strlen(s));
}

/* Bytes of the UTF-8 sequence that starts at s, 1 for a stray byte. */
static size_t char_len(const char *s)
{
    unsigned char c = (unsigned char)*s;
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    for (size_t i = 1; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            return 1;
    return n;
}

/* The name with control bytes shown as '?', cut to NAME_MAX_COLS columns
 * with an ellipsis. */
static void display_name(char *out, const char *s, int utf8)
{
    const char *dots = utf8 ? "\u2026" : "~";
    int total = s ? display_width(s) : 0, cols = 0;
    size_t n = 0;
    for (; s && *s;) {
        size_t len = char_len(s);
        int w = report_text_width(s, len);
        if (total > NAME_MAX_COLS && cols + w > NAME_MAX_COLS - 1) {
            strcpy(out + n, dots);
            return;
        }
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)s[i];
            out[n++] = c < 0x20 || c == 0x7F ? '?' : (char)c;
        }
        cols += w;
        s += len;
    }
    out[n] = '\0';
}

/* v's digits by a loop, not snprintf (a million groups' cells) */
static void u64_cell(char *buf, uint64_t v)
{
    char d[24], *p = d + sizeof d;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    size_t n = (size_t)(d + sizeof d - p);
    memcpy(buf, p, n);
    buf[n] = '\0';
}

static void num_cell(char *buf, double v, int exists, int digits)
{
    if (exists)
        format_double_digits(buf, CELL, v, digits);
    else
        snprintf(buf, CELL, "-");
}

static void quantile_cell(char *buf, const col_summary *s, const qres *q,
                          int digits)
{
    if (!report_quantile_text(buf, CELL, s, q, digits))
        snprintf(buf, CELL, "-");
}

static void cell(char *buf, int k, const report_col *c, const report_style *st)
{
    const col_summary *s = &c->s;
    int ext = report_has_extrema(s), dg = st->digits;
    if (k >= F_QUANT) {
        quantile_cell(buf, s, &c->quant[k - F_QUANT], dg);
        return;
    }
    switch (k) {
    case F_INDEX:
        snprintf(buf, CELL, "%d", c->index);
        break;
    case F_NAME:
        display_name(buf, c->name, st->utf8);
        if (c->unit) /* beside the name: 'latency (ms)' */
            snprintf(buf + strlen(buf), CELL - strlen(buf), " (%s)", c->unit);
        break;
    case F_COUNT:
        u64_cell(buf,
                 c->kind == COL_TEXT && c->prof ? c->prof->count : s->count);
        break;
    case F_SUM:
        report_has_sum(s) ? report_sum_text(buf, CELL, s, dg)
                          : num_cell(buf, 0, 0, dg);
        break;
    case F_MEAN:
        num_cell(buf, s->mean, report_has_mean(s), dg);
        break;
    case F_STD:
        num_cell(buf, s->std, report_has_std(s), dg);
        break;
    case F_MIN:
        ext ? report_min_text(buf, CELL, s, dg) : num_cell(buf, 0, 0, dg);
        break;
    case F_MAX:
        ext ? report_max_text(buf, CELL, s, dg) : num_cell(buf, 0, 0, dg);
        break;
    case F_MIN_ROW:
        ext ? u64_cell(buf, s->min_row) : num_cell(buf, 0, 0, dg);
        break;
    case F_MAX_ROW:
        ext ? u64_cell(buf, s->max_row) : num_cell(buf, 0, 0, dg);
        break;
    case F_SPAN: {
        char secs[64];
        if (!report_span(s, buf, CELL, secs, sizeof secs))
            num_cell(buf, 0, 0, dg);
        break;
    }
    case F_MEDIAN:
        quantile_cell(buf, s, c->median, dg);
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

static void title(char *buf, int k, const report_col *cols, int narrow)
{
    if (k >= F_QUANT)
        report_quantile_name(buf, CELL, cols, (size_t)(k - F_QUANT));
    else
        snprintf(buf, CELL, "%s", narrow ? short_titles[k] : titles[k]);
}

/* Quantiles of the list in each column (none without a column). */
static size_t nquant(unsigned what, const report_col *cols, int ncols)
{
    return (what & STAT_QUANTILES) && ncols ? cols[0].nquant : 0;
}

/* Which fields the table has: the list's quantiles follow the median. */
static int choose_fields(int *out, unsigned what, const report_col *cols,
                         int ncols)
{
    uint64_t missing = 0, invalid = 0, nan = 0;
    int dated = 0;
    for (int i = 0; i < ncols; i++) {
        dated |= report_dated(&cols[i].s);
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
        {F_SPAN, dated && (what & (STAT_MIN | STAT_MAX))},
        {F_MEDIAN, (what & STAT_MEDIAN) != 0},
        {F_MISSING, missing != 0},
        {F_INVALID, invalid != 0},
        {F_NAN, nan != 0},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (all[i].on)
            out[n++] = all[i].k;
        for (size_t q = 0;
             all[i].k == F_MEDIAN && q < nquant(what, cols, ncols); q++)
            out[n++] = F_QUANT + (int)q;
    }
    return n;
}

static void pad(FILE *f, int n)
{
    for (; n > 0; n--)
        putc(' ', f);
}

/* Every cell's text and width, made once (a table of 100000 columns
 * formatted each number twice, for the widths and for the lines): row 0
 * holds the titles, row i + 1 column i's cells. */
typedef struct cells {
    int nf;
    int gap;    /* blanks between fields */
    char *text; /* the texts end to end, each NUL-terminated */
    size_t *at; /* per cell, where its text starts */
    int *width; /* per cell, in terminal columns */
    size_t used, cap;
} cells;

static void cells_free(cells *t)
{
    free(t->text);
    free(t->at);
    free(t->width);
}

static int cells_add(cells *t, size_t k, const char *s)
{
    size_t n = strlen(s) + 1;
    if (t->used + n > t->cap) {
        size_t cap = t->cap ? t->cap : 1 << 16;
        while (cap < t->used + n)
            cap *= 2;
        char *p = realloc(t->text, cap);
        if (!p)
            return -1;
        t->text = p;
        t->cap = cap;
    }
    memcpy(t->text + t->used, s, n);
    t->at[k] = t->used;
    t->width[k] = display_width(s);
    t->used += n;
    return 0;
}

static int cells_make(cells *t, const int *fields, int nf,
                      const report_col *cols, int ncols, const report_style *st,
                      int narrow)
{
    size_t n = (size_t)nf * ((size_t)ncols + 1);
    char buf[CELL];
    memset(t, 0, sizeof *t);
    t->nf = nf;
    t->gap = 2;
    t->at = malloc((n ? n : 1) * sizeof *t->at);
    t->width = malloc((n ? n : 1) * sizeof *t->width);
    if (!t->at || !t->width)
        return -1;
    for (size_t k = 0; k < n; k++) {
        size_t i = k / (size_t)nf, j = k % (size_t)nf;
        if (i == 0)
            title(buf, fields[j], cols, narrow);
        else
            cell(buf, fields[j], &cols[i - 1], st);
        if (cells_add(t, k, buf))
            return -1;
    }
    return 0;
}

/* Line i of the table (0: the titles). */
static void line(FILE *f, const int *fields, const int *widths, const cells *t,
                 int i)
{
    for (int j = 0; j < t->nf; j++) {
        size_t k = (size_t)i * (size_t)t->nf + (size_t)j;
        const char *buf = t->text + t->at[k];
        int gap = widths[j] - t->width[k];
        if (j)
            pad(f, t->gap);
        if (fields[j] == F_NAME) {
            fputs(buf, f);
            if (j + 1 < t->nf)
                pad(f, gap);
        } else {
            pad(f, gap);
            fputs(buf, f);
        }
    }
    putc('\n', f);
}

/* The wide table's column widths into widths; returns its line width. */
static int wide_width(int *widths, const cells *t, int ncols)
{
    int total = 0;
    for (int j = 0; j < t->nf; j++) {
        widths[j] = 0;
        for (int i = 0; i <= ncols; i++) {
            int w = t->width[(size_t)i * (size_t)t->nf + (size_t)j];
            widths[j] = w > widths[j] ? w : widths[j];
        }
        total += widths[j] + (j ? t->gap : 0);
    }
    return total;
}

/* In a block the index is a statistic like the others: named. */
static void long_title(char *buf, int k, const report_col *cols)
{
    if (k == F_INDEX)
        snprintf(buf, CELL, "index");
    else
        title(buf, k, cols, 0);
}

/* A block per column: the titles left, padded to the longest, then the
 * values; a blank line between blocks. */
static void long_blocks(FILE *f, const int *fields, const report_col *cols,
                        int ncols, const cells *c)
{
    char t[CELL];
    int kw = 0, nf = c->nf;
    for (int j = 0; j < nf; j++) {
        long_title(t, fields[j], cols);
        int w = display_width(t);
        kw = w > kw ? w : kw;
    }
    for (int i = 0; i < ncols; i++) {
        if (i)
            putc('\n', f);
        for (int j = 0; j < nf; j++) {
            size_t k = ((size_t)i + 1) * (size_t)nf + (size_t)j;
            long_title(t, fields[j], cols);
            fputs(t, f);
            pad(f, kw - display_width(t) + 2);
            fprintf(f, "%s\n", c->text + c->at[k]);
        }
    }
}

/* Whether the table is laid out wide, as asked or, for auto, when it is
 * not going to a terminal or fits it. */
static int fits(const report_style *st, int total)
{
    return st->layout == LAYOUT_WIDE ||
           (st->layout == LAYOUT_AUTO && (!st->tty || total <= st->width));
}

/* The cells of the table in c and its widths; *wide: as a wide table.
 * Too wide for the terminal, it is made again narrower, step by step,
 * until it fits; a table that never does is made as it was, for the
 * long layout. */
static int layout(cells *c, int *widths, int *wide, const int *fields, int nf,
                  const report_col *cols, int ncols, const report_style *st)
{
    report_style narrow = *st;
    int steps = sizeof narrowing / sizeof narrowing[0];
    if (cells_make(c, fields, nf, cols, ncols, st, 0))
        return -1;
    *wide = fits(st, wide_width(widths, c, ncols));
    if (*wide || st->layout != LAYOUT_AUTO || st->digits_given ||
        ncols > NARROW_MAX_COLS)
        return 0;
    for (int i = 0; i < steps && !*wide; i++) {
        int d = narrowing[i].digits;
        narrow.digits = d < st->digits ? d : st->digits;
        cells_free(c);
        if (cells_make(c, fields, nf, cols, ncols, &narrow, 1))
            return -1;
        c->gap = narrowing[i].gap;
        *wide = fits(st, wide_width(widths, c, ncols));
    }
    if (*wide)
        return 0;
    cells_free(c);
    return cells_make(c, fields, nf, cols, ncols, st, 0);
}

int report_table(FILE *f, unsigned what, const report_col *cols, int ncols,
                 const report_style *st)
{
    size_t most = F_NFIELDS + nquant(what, cols, ncols);
    int *fields = malloc(most * sizeof *fields);
    int *widths = malloc(most * sizeof *widths);
    if (!fields || !widths) {
        free(fields);
        free(widths);
        return -1;
    }
    int nf = choose_fields(fields, what, cols, ncols), wide = 0;
    cells c;
    if (layout(&c, widths, &wide, fields, nf, cols, ncols, st)) {
        cells_free(&c);
        free(fields);
        free(widths);
        return -1;
    }
    if (wide) {
        for (int i = 0; i <= ncols; i++)
            line(f, fields, widths, &c, i);
    } else {
        long_blocks(f, fields, cols, ncols, &c);
    }
    cells_free(&c);
    free(fields);
    free(widths);
    for (int i = 0; i < ncols; i++)
        if (report_has_hist(what, &cols[i]))
            report_bars(f, &cols[i], st);
    report_profiles_table(f, what, cols, ncols, st);
    return 0;
}
