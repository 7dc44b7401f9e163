/* The JSON document of doc/CONTRACT.md. JSON has no infinities or NaN, so
 * those print as the strings "inf", "-inf", "nan"; values that do not
 * exist (mean of no values, std of fewer than two, min/max of none) print
 * as null. Integers are exact digits, or with --json-bigint=string,
 * beyond +-2^53, strings of them. */
#include <math.h>
#include <string.h>

#include "src/stats/utf8.h"
#include "tbuf.h"
#include "writers.h"

/* A JSON string (RFC 8259, section 7); bytes that are not UTF-8 become
 * U+FFFD so the document stays valid. */
static void json_string(tbuf *b, const char *str)
{
    if (!str)
        tbuf_puts(b, "null");
    else
        report_json_text(b, str, strlen(str));
}

/* Printable ASCII but '"' and '\\': as it is. */
static int plain(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

void report_json_text(tbuf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    tbuf_putc(b, '"');
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t run = 0;
        while (i + run < n && plain(s[i + run]))
            run++;
        if (run) { /* a run of plain bytes in one write */
            tbuf_put(b, str + i, run);
            i += run;
            continue;
        }
        if (c == '"' || c == '\\') {
            tbuf_putc(b, '\\');
            tbuf_putc(b, (char)c);
        } else if (c == '\n') {
            tbuf_puts(b, "\\n");
        } else if (c == '\t') {
            tbuf_puts(b, "\\t");
        } else if (c == '\r') {
            tbuf_puts(b, "\\r");
        } else if (c < 0x20) {
            tbuf_printf(b, "\\u%04x", c);
        } else if (c >= 0x80) {
            size_t len = utf8_seq(s + i, n - i);
            if (len) {
                tbuf_put(b, str + i, len);
                i += len;
                continue;
            }
            tbuf_puts(b, "\\ufffd");
        } else {
            tbuf_putc(b, c);
        }
        i++;
    }
    tbuf_putc(b, '"');
}

/* text, in quotes when quote: fputs, not a printf that parses a format
 * for every value of a million groups' columns */
static void json_quoted(tbuf *b, const char *text, int quote)
{
    if (quote)
        tbuf_putc(b, '"');
    tbuf_puts(b, text);
    if (quote)
        tbuf_putc(b, '"');
}

static void json_number(tbuf *b, double v, int exists, int digits)
{
    char buf[32];
    if (!exists) {
        tbuf_puts(b, "null");
        return;
    }
    format_double_digits(buf, sizeof buf, v, digits);
    json_quoted(b, buf, !isfinite(v));
}

/* Whether text is an integer (digits, a leading '-') past +-2^53, where
 * a reader that keeps numbers as doubles loses its last digits. */
static int beyond_2_53(const char *text)
{
    static const char limit[] = "9007199254740992";
    const char *d = text + (text[0] == '-');
    size_t n = strspn(d, "0123456789");
    if (n == 0 || d[n])
        return 0;
    while (n > 1 && d[0] == '0')
        d++, n--;
    return n > sizeof limit - 1 ||
           (n == sizeof limit - 1 && strcmp(d, limit) > 0);
}

/* A number's text: a JSON number, or with bigint_string an integer past
 * +-2^53 as a string of its digits. */
static void json_digits(tbuf *b, const char *text, int bigint_string)
{
    json_quoted(b, text, bigint_string && beyond_2_53(text));
}

static void json_count(tbuf *b, uint64_t n, int bigint_string)
{
    char buf[24], *p = buf + sizeof buf - 1;
    *p = '\0';
    do {
        *--p = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    json_digits(b, p, bigint_string);
}

/* Keys of one column object, a few to a line as in doc/CONTRACT.md. */
typedef struct json_obj {
    tbuf *b;
    int any;      /* a key was written */
    int new_line; /* the next key starts a line */
    int digits;   /* of doubles; 0: shortest */
    int big;      /* --json-bigint=string */
} json_obj;

static void key(json_obj *o, const char *name)
{
    if (!o->any)
        tbuf_puts(o->b, "      ");
    else
        tbuf_puts(o->b, o->new_line ? ",\n      " : ", ");
    o->any = 1;
    o->new_line = 0;
    json_quoted(o->b, name, 1);
    tbuf_puts(o->b, ": ");
}

static void extremum(json_obj *o, const char *name, const col_summary *s,
                     int is_max)
{
    key(o, name);
    if (!report_has_extrema(s)) {
        tbuf_puts(o->b, "null");
        return;
    }
    char buf[48];
    double v = is_max ? s->max : s->min;
    if (is_max)
        report_max_text(buf, sizeof buf, s, o->digits);
    else
        report_min_text(buf, sizeof buf, s, o->digits);
    /* exact integers are digits; a double may be non-finite; an instant
       is ISO 8601 text */
    tbuf_puts(o->b, "{\"value\": ");
    if (report_dated(s))
        json_string(o->b, buf);
    else if (s->is_int || isfinite(v))
        json_digits(o->b, buf, o->big);
    else
        json_quoted(o->b, buf, 1);
    tbuf_puts(o->b, ", \"row\": ");
    json_count(o->b, is_max ? s->max_row : s->min_row, o->big);
    tbuf_putc(o->b, '}');
}

static void quantile(const json_obj *o, const col_summary *s, const qres *q)
{
    char buf[64];
    int kind = report_quantile_text(buf, sizeof buf, s, q, o->digits);
    if (kind == 0)
        tbuf_puts(o->b, "null");
    else if (kind == 1)
        json_digits(o->b, buf, o->big);
    else if (kind == 3)
        json_string(o->b, buf);
    else
        json_quoted(o->b, buf, 1);
}

/* "median": v, "quantiles": {"0.9": v, ...}: keys are the shortest
 * decimals of the quantiles. */
static void quantiles(json_obj *o, unsigned what, const report_col *c)
{
    if (what & STAT_MEDIAN) {
        key(o, "median");
        quantile(o, &c->s, c->median);
    }
    if (!(what & STAT_QUANTILES))
        return;
    key(o, "quantiles");
    tbuf_putc(o->b, '{');
    for (size_t i = 0; i < c->nquant; i++) {
        char q[QLIST_TEXT_MAX];
        qlist_text(c->qf[i], q, sizeof q);
        tbuf_puts(o->b, i ? ", " : "");
        json_quoted(o->b, q, 1);
        tbuf_puts(o->b, ": ");
        quantile(o, &c->s, &c->quant[i]);
    }
    tbuf_putc(o->b, '}');
}

static void hist_object(json_obj *o, const hist *h)
{
    key(o, "hist");
    tbuf_puts(o->b, "{\"lo\": ");
    json_number(o->b, h->lo, !isnan(h->lo), o->digits);
    tbuf_puts(o->b, ", \"hi\": ");
    json_number(o->b, h->hi, !isnan(h->hi), o->digits);
    tbuf_puts(o->b, ", \"bins\": [");
    for (int i = 0; i < h->nbins; i++) {
        tbuf_puts(o->b, i ? ", " : "");
        json_count(o->b, h->bins[i], o->big);
    }
    tbuf_puts(o->b, "], \"underflow\": ");
    json_count(o->b, h->underflow, o->big);
    tbuf_puts(o->b, ", \"overflow\": ");
    json_count(o->b, h->overflow, o->big);
    tbuf_putc(o->b, '}');
}

static void counts(json_obj *o, unsigned what, const col_summary *s)
{
    if (what & STAT_COUNT) {
        key(o, "count");
        json_count(o->b, s->count, o->big);
    }
    key(o, "missing");
    json_count(o->b, s->missing, o->big);
    key(o, "invalid");
    json_count(o->b, s->invalid, o->big);
    key(o, "nan");
    json_count(o->b, s->nan, o->big);
}

static void moments(json_obj *o, unsigned what, const col_summary *s)
{
    if (what & STAT_SUM) {
        char buf[64];
        report_sum_text(buf, sizeof buf, s, o->digits);
        key(o, "sum");
        /* An exact integer sum is digits; a double may be non-finite. */
        if (!report_has_sum(s))
            tbuf_puts(o->b, "null");
        else if (s->is_int || isfinite(s->sum))
            json_digits(o->b, buf, o->big);
        else
            json_quoted(o->b, buf, 1);
    }
    if (what & STAT_MEAN) {
        key(o, "mean");
        json_number(o->b, s->mean, report_has_mean(s), o->digits);
    }
    if (what & STAT_STD) {
        key(o, "std");
        json_number(o->b, s->std, report_has_std(s), o->digits);
    }
}

static void prof_value_json(json_obj *o, const report_col *c,
                            const prof_value *v)
{
    char buf[64];
    tbuf_puts(o->b, "{\"value\": ");
    int kind = report_prof_value_text(buf, sizeof buf, c, v, o->digits);
    if (kind == 0)
        report_json_text(o->b, v->text, v->len);
    else if (kind == 1)
        json_digits(o->b, buf, o->big);
    else
        json_quoted(o->b, buf, 1);
    tbuf_puts(o->b, ", \"count\": ");
    json_count(o->b, v->count, o->big);
    tbuf_putc(o->b, '}');
}

/* "distinct": N, "mode": {"value": V, "count": N}, "top": [...]. */
static void profile(json_obj *o, unsigned what, const report_col *c)
{
    if (!report_has_profile(what, c))
        return;
    const prof_summary *p = c->prof;
    o->new_line = 1;
    if (what & STAT_DISTINCT) {
        key(o, "distinct");
        json_count(o->b, p->distinct, o->big);
    }
    if (what & STAT_MODE) {
        key(o, "mode");
        if (p->ntop)
            prof_value_json(o, c, &p->top[0]);
        else
            tbuf_puts(o->b, "null");
    }
    if (!(what & STAT_TOP))
        return;
    key(o, "top");
    tbuf_putc(o->b, '[');
    for (size_t i = 0; i < p->ntop; i++) {
        if (i)
            tbuf_puts(o->b, ", ");
        prof_value_json(o, c, &p->top[i]);
    }
    tbuf_putc(o->b, ']');
}

/* A text column: its counts, lengths and profile. */
static void text_column(json_obj *o, unsigned what, const report_col *c)
{
    const prof_summary *p = c->prof;
    if (what & STAT_COUNT) {
        key(o, "count");
        json_count(o->b, p->count, o->big);
    }
    key(o, "missing");
    json_count(o->b, p->missing, o->big);
    if (what & (STAT_MIN | STAT_MAX)) {
        key(o, "length");
        if (p->count)
            tbuf_printf(o->b, "{\"min\": %llu, \"max\": %llu}",
                        (unsigned long long)p->len_min,
                        (unsigned long long)p->len_max);
        else
            tbuf_puts(o->b, "null");
    }
    profile(o, what, c);
    tbuf_puts(o->b, "\n    }");
}

/* "span": {"seconds": exact decimal, "text": "1d 02:03:04.5"}, null
 * without a value. */
static void span(json_obj *o, const col_summary *s)
{
    char text[64], secs[64];
    key(o, "span");
    if (!report_span(s, text, sizeof text, secs, sizeof secs)) {
        tbuf_puts(o->b, "null");
        return;
    }
    tbuf_printf(o->b, "{\"seconds\": %s, \"text\": ", secs);
    json_string(o->b, text);
    tbuf_putc(o->b, '}');
}

/* "type": what the values are; "unit": the unit they were written in. */
static void type(json_obj *o, const report_col *c)
{
    key(o, "type");
    json_string(o->b, report_type_name(c));
    if (c->unit) {
        key(o, "unit");
        json_string(o->b, c->unit);
    }
}

/* An int's digits, without printf's format parsing (once a column). */
static void put_int(tbuf *b, int v)
{
    if (v < 0)
        tbuf_putc(b, '-');
    json_count(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, 0);
}

static void column(tbuf *b, unsigned what, const report_col *c,
                   const report_style *st)
{
    const col_summary *s = &c->s;
    json_obj o = {b, 0, 0, st->digits, st->bigint_string};
    what = report_what(what, s);
    tbuf_puts(b, "    {\n");
    key(&o, "name");
    json_string(b, c->name);
    key(&o, "index");
    put_int(b, c->index);
    type(&o, c);
    o.new_line = 1;
    if (c->kind == COL_TEXT && c->prof) {
        text_column(&o, what, c);
        return;
    }
    counts(&o, what, s);
    o.new_line = 1;
    moments(&o, what, s);
    o.new_line = 1;
    if (what & STAT_MIN)
        extremum(&o, "min", s, 0);
    if (what & STAT_MAX)
        extremum(&o, "max", s, 1);
    if (report_dated(s) && (what & (STAT_MIN | STAT_MAX)))
        span(&o, s);
    o.new_line = 1;
    quantiles(&o, what, c);
    o.new_line = 1;
    if (report_has_hist(what, c))
        hist_object(&o, c->h);
    profile(&o, what, c);
    tbuf_puts(b, "\n    }");
}

void report_json_column(tbuf *b, unsigned what, const report_col *c,
                        const report_style *st)
{
    column(b, what, c, st);
}

void report_json_count(tbuf *b, uint64_t n, int bigint_string)
{
    json_count(b, n, bigint_string);
}

void report_json(tbuf *b, unsigned what, uint64_t rows, const report_col *cols,
                 int ncols, const report_style *st)
{
    /* the schema's version first, so that a consumer can check it
       before reading anything else */
    tbuf_printf(
        b, "{\n  \"schema_version\": %d,\n  \"rows\": ", REPORT_SCHEMA_VERSION);
    json_count(b, rows, st->bigint_string);
    tbuf_puts(b, ",\n  \"columns\": [");
    for (int i = 0; i < ncols; i++) {
        tbuf_puts(b, i ? ",\n" : "\n");
        column(b, what, &cols[i], st);
    }
    tbuf_puts(b, ncols ? "\n  ]\n}\n" : "]\n}\n");
}

int report_json_error(FILE *out, const char *file, unsigned long long line,
                      const char *message, int status)
{
    tbuf t = {0}, *b = &t;
    tbuf_printf(b, "{\"schema_version\": %d, \"error\": {\"file\": ",
                REPORT_SCHEMA_VERSION);
    json_string(b, file && file[0] ? file : NULL);
    tbuf_puts(b, ", \"line\": ");
    if (line)
        tbuf_printf(b, "%llu", line);
    else
        tbuf_puts(b, "null");
    tbuf_puts(b, ", \"message\": ");
    json_string(b, message);
    tbuf_printf(b, ", \"status\": %d}}\n", status);
    int bad = t.bad || fwrite(t.p, 1, t.len, out) != t.len;
    tbuf_free(&t);
    return bad || fflush(out) != 0 || ferror(out) ? -1 : 0;
}
