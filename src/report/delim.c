/* TSV and CSV: a header row, then one row per column. Fields, in this
 * order, those of statistics not asked for left out:
 *   column index count sum mean std min min_row max max_row median
 *   q0.9 (one per --quantiles element) missing invalid nan hist_lo
 *   hist_hi hist_underflow hist_overflow hist_bins
 * (the quantiles' headings come from the first column: none when no
 * column is there)
 * A value that does not exist (mean of no values...) is an empty field;
 * non-finite values are inf, -inf, nan. hist_bins holds the bin counts
 * joined by spaces. CSV quotes a name holding a comma, quote or line
 * break (RFC 4180); TSV, which cannot quote, writes tab, newline,
 * carriage return and backslash in a name as \t \n \r \\. Lines end in
 * LF. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "writers.h"

typedef struct row {
    FILE *f;
    char sep;
    int nfields;
    int digits;
    /* after the fields above, when a column is text or profiled: type,
       length_min, length_max (text), distinct, mode, mode_count, top1,
       top1_count... topK, topK_count */
    int typed, lengths;
    size_t ntop;
} row;

static void sep(row *r)
{
    if (r->nfields++)
        putc(r->sep, r->f);
}

static void text(row *r, const char *s)
{
    sep(r);
    fputs(s, r->f);
}

static void number(row *r, double v, int exists)
{
    sep(r);
    if (exists) {
        char buf[32];
        format_double_digits(buf, sizeof buf, v, r->digits);
        fputs(buf, r->f);
    }
}

/* v's digits by a loop, not printf (which parses its format again for
 * every field of a million groups' lines) */
static void put_u64(FILE *f, uint64_t v)
{
    char buf[24], *p = buf + sizeof buf;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    fwrite(p, 1, (size_t)(buf + sizeof buf - p), f);
}

static void u64(row *r, uint64_t v)
{
    sep(r);
    put_u64(r->f, v);
}

static void tsv_name(FILE *f, const char *s)
{
    for (; *s; s++) {
        const char *esc = *s == '\t'   ? "\\t"
                          : *s == '\n' ? "\\n"
                          : *s == '\r' ? "\\r"
                          : *s == '\\' ? "\\\\"
                                       : NULL;
        if (esc)
            fputs(esc, f);
        else
            putc(*s, f);
    }
}

static void csv_name(FILE *f, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, f);
        return;
    }
    putc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            putc('"', f);
        putc(*s, f);
    }
    putc('"', f);
}

static void name(row *r, const char *s)
{
    sep(r);
    if (r->sep == '\t')
        tsv_name(r->f, s ? s : "");
    else
        csv_name(r->f, s ? s : "");
}

static void profile_headings(row *r, unsigned what);

static void quantile_headings(row *r, unsigned what, const report_col *c)
{
    if (what & STAT_MEDIAN)
        text(r, "median");
    for (size_t i = 0; c && (what & STAT_QUANTILES) && i < c->nquant; i++) {
        char name[QLIST_TEXT_MAX + 2];
        report_quantile_name(name, sizeof name, c, i);
        text(r, name);
    }
}

static void header(row *r, unsigned what, const report_col *first,
                   const char *const *keys, int nkeys)
{
    for (int i = 0; i < nkeys; i++)
        name(r, keys[i]);
    static const struct {
        unsigned bit; /* 0: always present */
        const char *name;
    } fields[] = {
        {0, "column"},
        {0, "index"},
        {STAT_COUNT, "count"},
        {STAT_SUM, "sum"},
        {STAT_MEAN, "mean"},
        {STAT_STD, "std"},
        {STAT_MIN, "min"},
        {STAT_MIN, "min_row"},
        {STAT_MAX, "max"},
        {STAT_MAX, "max_row"},
        {~0u, NULL}, /* the quantiles */
        {0, "missing"},
        {0, "invalid"},
        {0, "nan"},
        {STAT_HIST, "hist_lo"},
        {STAT_HIST, "hist_hi"},
        {STAT_HIST, "hist_underflow"},
        {STAT_HIST, "hist_overflow"},
        {STAT_HIST, "hist_bins"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (!fields[i].name)
            quantile_headings(r, what, first);
        else if (!fields[i].bit || (what & fields[i].bit))
            text(r, fields[i].name);
    profile_headings(r, what);
    putc('\n', r->f);
}

static void extremum(row *r, const col_summary *s, int is_max)
{
    int exists = report_has_extrema(s);
    sep(r);
    if (exists) {
        char buf[48];
        if (is_max)
            report_max_text(buf, sizeof buf, s, r->digits);
        else
            report_min_text(buf, sizeof buf, s, r->digits);
        fputs(buf, r->f);
    }
    sep(r);
    if (exists)
        put_u64(r->f, is_max ? s->max_row : s->min_row);
}

static void quantile_field(row *r, const col_summary *s, const qres *q)
{
    char buf[64];
    sep(r);
    if (report_quantile_text(buf, sizeof buf, s, q, r->digits))
        fputs(buf, r->f);
}

static void hist_fields(row *r, const hist *h)
{
    if (!h) {
        for (int i = 0; i < 5; i++)
            text(r, "");
        return;
    }
    number(r, h->lo, !isnan(h->lo));
    number(r, h->hi, !isnan(h->hi));
    u64(r, h->underflow);
    u64(r, h->overflow);
    sep(r);
    for (int i = 0; i < h->nbins; i++) {
        if (i)
            putc(' ', r->f);
        put_u64(r->f, h->bins[i]);
    }
}

static void value_field(row *r, const report_col *c, const prof_value *v)
{
    char buf[64];
    if (report_prof_value_text(buf, sizeof buf, c, v, r->digits)) {
        text(r, buf);
        return;
    }
    char *t = malloc(v->len + 1);
    if (t) { /* a NUL cuts it, as a name's */
        memcpy(t, v->text, v->len);
        t[v->len] = 0;
    }
    name(r, t ? t : "");
    free(t);
}

static void profile_fields(row *r, unsigned what, const report_col *c)
{
    const prof_summary *p = c->prof;
    int is_text = c->kind == COL_TEXT && p;
    int counted = report_has_profile(what, c);
    if (r->typed)
        text(r, report_type_name(c));
    if (r->lengths && is_text && p->count) {
        u64(r, p->len_min);
        u64(r, p->len_max);
    } else if (r->lengths) {
        text(r, "");
        text(r, "");
    }
    if (what & STAT_DISTINCT) {
        if (counted)
            u64(r, p->distinct);
        else
            text(r, "");
    }
    size_t most = what & STAT_MODE ? 1 : 0;
    for (size_t i = 0; i < (what & STAT_TOP ? r->ntop : 0) + most; i++) {
        size_t k = i < most ? 0 : i - most;
        if (counted && k < p->ntop) {
            value_field(r, c, &p->top[k]);
            u64(r, p->top[k].count);
        } else {
            text(r, "");
            text(r, "");
        }
    }
}

/* The profile fields' headings (row's typed, lengths, ntop). */
static void profile_headings(row *r, unsigned what)
{
    if (r->typed)
        text(r, "type");
    if (r->lengths) {
        text(r, "length_min");
        text(r, "length_max");
    }
    if (what & STAT_DISTINCT)
        text(r, "distinct");
    if (what & STAT_MODE) {
        text(r, "mode");
        text(r, "mode_count");
    }
    for (size_t i = 0; (what & STAT_TOP) && i < r->ntop; i++) {
        char h[48];
        snprintf(h, sizeof h, "top%zu", i + 1);
        text(r, h);
        snprintf(h, sizeof h, "top%zu_count", i + 1);
        text(r, h);
    }
}

static void column(row *r, unsigned what, const report_col *c)
{
    const col_summary *s = &c->s;
    name(r, c->name);
    sep(r);
    if (c->index >= 0)
        put_u64(r->f, (uint64_t)c->index);
    else
        fprintf(r->f, "%d", c->index);
    if (what & STAT_COUNT)
        u64(r, c->kind == COL_TEXT && c->prof ? c->prof->count : s->count);
    if (what & STAT_SUM) {
        char buf[64] = "";
        if (report_has_sum(s))
            report_sum_text(buf, sizeof buf, s, r->digits);
        text(r, buf);
    }
    if (what & STAT_MEAN)
        number(r, s->mean, report_has_mean(s));
    if (what & STAT_STD)
        number(r, s->std, report_has_std(s));
    if (what & STAT_MIN)
        extremum(r, s, 0);
    if (what & STAT_MAX)
        extremum(r, s, 1);
    if (what & STAT_MEDIAN)
        quantile_field(r, s, c->median);
    for (size_t i = 0; (what & STAT_QUANTILES) && i < c->nquant; i++)
        quantile_field(r, s, &c->quant[i]);
    u64(r, s->missing);
    u64(r, s->invalid);
    u64(r, s->nan);
    if (what & STAT_HIST)
        hist_fields(r, report_has_hist(what, c) ? c->h : NULL);
    profile_fields(r, what, c);
    putc('\n', r->f);
}

void report_delim(FILE *f, char sep_char, unsigned what, const report_col *cols,
                  int ncols, int digits)
{
    row r = {f, sep_char, 0, digits, (what & STAT_PROFILE) != 0, 0, 0};
    for (int i = 0; i < ncols; i++) {
        if (cols[i].kind == COL_TEXT) {
            r.typed = 1;
            r.lengths = (what & (STAT_MIN | STAT_MAX)) != 0;
        }
        if (cols[i].prof && cols[i].prof->ntop > r.ntop)
            r.ntop = cols[i].prof->ntop;
    }
    header(&r, what, ncols ? &cols[0] : NULL, NULL, 0);
    for (int i = 0; i < ncols; i++) {
        r.nfields = 0;
        column(&r, what, &cols[i]);
    }
}

/* A key field: its bytes (a NUL cuts it, as a name's), empty when
 * missing. */
static void key_field(row *r, const char *s, size_t n)
{
    char *t = malloc(n + 1);
    if (!t) {
        sep(r);
        return;
    }
    if (n)
        memcpy(t, s, n);
    t[n] = 0;
    name(r, s ? t : "");
    free(t);
}

/* The line writer of gs's groups, typed from group g's columns (every
 * group has the same columns, of the same kinds). */
static row group_row(FILE *f, char sep_char, unsigned what,
                     const report_groups *gs, const report_group *g, int ncols,
                     const report_style *st)
{
    row r = {f, sep_char, 0, st->digits, (what & STAT_PROFILE) != 0,
             0, gs->top};
    for (int i = 0; g && i < ncols; i++)
        if (g->cols[i].kind == COL_TEXT) {
            r.typed = 1;
            r.lengths = (what & (STAT_MIN | STAT_MAX)) != 0;
        }
    return r;
}

int report_delim_groups_head(FILE *f, char sep_char, unsigned what,
                             const char *const *key_names, int nkeys,
                             const report_groups *gs, int ncols,
                             const report_style *st)
{
    report_group g;
    if (gs->n && gs->get(gs->ctx, 0, &g))
        return -1;
    row r = group_row(f, sep_char, what, gs, gs->n ? &g : NULL, ncols, st);
    header(&r, what, gs->n && ncols ? &g.cols[0] : NULL, key_names, nkeys);
    return 0;
}

int report_delim_groups_range(FILE *f, char sep_char, unsigned what, int nkeys,
                              const report_groups *gs, size_t first,
                              size_t last, int ncols, const report_style *st)
{
    report_group g;
    row r = {0};
    for (size_t i = first; i < last; i++) {
        if (gs->get(gs->ctx, i, &g))
            return -1;
        if (i == first)
            r = group_row(f, sep_char, what, gs, &g, ncols, st);
        for (int k = 0; k < ncols; k++) {
            r.nfields = 0;
            for (int j = 0; j < nkeys; j++)
                key_field(&r, g.key[j], g.key_len[j]);
            column(&r, what, &g.cols[k]);
        }
    }
    return 0;
}
