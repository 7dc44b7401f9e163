/* Heuristics over the first bytes of the data and the sample's kinds of
 * texts (csv_why): they only choose the advice; the verdict (no column,
 * or not this one, holds numbers) is the sample's. */
#include "src/engine/hint.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum { LOOK_BYTES = 1 << 16, LOOK_LINES = 200, SHOWN = 40 };

/* Text has no NUL and few control bytes besides TAB, CR, LF. */
static int looks_binary(const char *s, size_t n)
{
    size_t ctl = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0)
            return 1;
        ctl += c < 0x20 && c != '\t' && c != '\r' && c != '\n';
    }
    return ctl * 20 > n;
}

static size_t digits(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && isdigit((unsigned char)s[k]))
        k++;
    return k;
}

/* 1,234 or 1.234.567,5 or 1 234: groups of three after a separator. */
static int grouped(const char *s, size_t n)
{
    size_t i = (n && (*s == '-' || *s == '+')), d = digits(s + i, n - i);
    int groups = 0;
    if (d < 1 || d > 3)
        return 0;
    i += d;
    while (i + 4 <= n && strchr(",.' ", s[i]) && digits(s + i + 1, 3) == 3 &&
           (i + 4 == n || !isdigit((unsigned char)s[i + 4]))) {
        i += 4;
        groups++;
    }
    if (i < n && (s[i] == '.' || s[i] == ',') && digits(s + i + 1, n - i - 1))
        i += 1 + digits(s + i + 1, n - i - 1);
    return groups > 0 && i == n;
}

/* 12ms, 3.5 kg, 80%: a number followed by letters. */
static int with_unit(const char *s, size_t n)
{
    size_t i = (n && (*s == '-' || *s == '+'));
    size_t d = digits(s + i, n - i);
    if (d == 0)
        return 0;
    i += d;
    if (i < n && s[i] == '.')
        i += 1 + digits(s + i + 1, n - i - 1);
    while (i < n && s[i] == ' ')
        i++;
    size_t u = i;
    while (i < n && (isalpha((unsigned char)s[i]) || s[i] == '%'))
        i++;
    return i > u && i == n;
}

/* The first field of the head that looks like kind (1: grouped digits,
 * 2: a unit), shown in out; 0 when none. */
static int find_field(const input *in, int kind, char *out)
{
    if (!in->head) /* nothing read (a binary file's head, an empty one) */
        return 0;
    const char *s = in->head,
               *end =
                   s + (in->seen_len < LOOK_BYTES ? in->seen_len : LOOK_BYTES);
    char delim = in->dialect.delim ? in->dialect.delim : ',';
    for (int line = 0; s < end && line < LOOK_LINES; line++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        for (const char *f = s; f < le;) {
            int quoted = *f == '"';
            const char *fe = quoted ? memchr(f + 1, '"', (size_t)(le - f - 1))
                                    : memchr(f, delim, (size_t)(le - f));
            const char *b = f + quoted, *e = fe ? fe : le;
            while (b < e && (*b == ' ' || *b == '\t'))
                b++;
            while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
                e--;
            size_t n = (size_t)(e - b);
            if (n && (kind == 1 ? grouped(b, n) : with_unit(b, n))) {
                snprintf(out, SHOWN + 1, "%.*s", (int)n, b);
                return 1;
            }
            if (!fe)
                break;
            f = quoted ? memchr(fe, delim, (size_t)(le - fe)) : fe;
            if (!f)
                break;
            f++;
        }
        s = le + 1;
    }
    return 0;
}

/* The header line too: binary bytes with no LF early on read as a header
 * alone, with no data after it. */
static int input_binary(const input *in, size_t look)
{
    const csv_dialect *d = &in->dialect;
    size_t hn = d->repeat_len < LOOK_BYTES ? d->repeat_len : LOOK_BYTES;
    return (d->repeat && looks_binary(d->repeat, hn)) ||
           looks_binary(in->head, look);
}

void hint_null_option(const char *spelling, char *buf, size_t cap)
{
    int plain = spelling[0] != '\0';
    for (const char *p = spelling; *p; p++)
        plain &= isalnum((unsigned char)*p) || *p == '/' || *p == '.';
    snprintf(buf, cap, plain ? "--null %s" : "--null '%s'", spelling);
}

/* Most of the sample's texts are of one kind: half of them and more. */
static int mostly(unsigned kind, unsigned texts)
{
    return kind && 2 * kind >= texts;
}

/* --null only helps where numbers are left once the nulls are gone (or
 * may be past the sample: a stream's head of NA). */
static int says_null(const csv_why *w)
{
    return mostly(w->nulls, w->texts) &&
           (w->numbers || (w->nulls == w->texts && !w->whole));
}

void hint_left_out(const csv_why *w, char *buf, size_t cap)
{
    char opt[64];
    if (says_null(w)) {
        hint_null_option(w->null_text, opt, sizeof opt);
        snprintf(buf, cap, "its fields are mostly '%s': try %s", w->null_text,
                 opt);
    } else if (w->nulls == w->texts && w->whole) {
        snprintf(buf, cap, "no numbers: fields such as '%s'", w->null_text);
    } else if (mostly(w->units, w->texts)) {
        snprintf(buf, cap, "numbers with a unit '%s'", w->unit);
    } else if (mostly(w->grouped, w->texts)) {
        /* the separator, not the example: columns alike share a reason */
        const char *t = w->grouped_text + (w->grouped_text[0] == '-' ||
                                           w->grouped_text[0] == '+');
        snprintf(buf, cap,
                 "numbers with digits grouped by '%c': see --thousands",
                 t[strspn(t, "0123456789")]);
    } else {
        snprintf(buf, cap, "text");
    }
}

void hint_dropped(const col_stats *st, const char *invalid, char *buf,
                  size_t cap)
{
    csv_why w = {0};
    char unit[CSV_WHY_SHOWN + 1] = "";
    size_t n = invalid ? strlen(invalid) : 0;
    if (!st->invalid) {
        snprintf(buf, cap, "empty");
        return;
    }
    /* the first invalid field speaks for the rest, as the sample's
       majority does for a sampled column */
    w.texts = 1;
    w.numbers = st->count > 0;
    switch (invalid ? csv_text_kind(invalid, n, unit, sizeof unit) : -1) {
    case CSV_WHY_NULL: /* --null would leave it empty without numbers */
        if (!st->count) {
            snprintf(buf, cap, "no numbers: fields such as '%s'", invalid);
            return;
        }
        w.nulls = 1;
        snprintf(w.null_text, sizeof w.null_text, "%s", invalid);
        break;
    case CSV_WHY_UNIT:
        w.units = 1;
        snprintf(w.unit, sizeof w.unit, "%s", unit);
        break;
    case CSV_WHY_GROUPED:
        w.grouped = 1;
        snprintf(w.grouped_text, sizeof w.grouped_text, "%s", invalid);
        break;
    }
    hint_left_out(&w, buf, cap);
}

/* The first field whose sample says --null, into *f; the option in
 * shown. */
static int null_field(const input *in, int *f, char *shown)
{
    for (*f = 0; in->why && *f < in->nfields; ++*f)
        if (says_null(&in->why[*f])) {
            hint_null_option(in->why[*f].null_text, shown, SHOWN + 64);
            return 1;
        }
    return 0;
}

void hint_no_numbers(const input *in, char *buf, size_t cap)
{
    char shown[SHOWN + 64];
    int f = 0;
    const char *what = "no column holds numbers";
    size_t look = in->seen_len < LOOK_BYTES ? in->seen_len : LOOK_BYTES;
    if (input_binary(in, look))
        snprintf(buf, cap,
                 "%s: the input looks binary: give its records with -b "
                 "(such as -b f64)",
                 what);
    else if (null_field(in, &f, shown))
        snprintf(buf, cap, "%s: the fields of '%s' are mostly '%s': try %s",
                 what, in->names[f], in->why[f].null_text, shown);
    else if (input_no_rows(in))
        snprintf(buf, cap, "%s: there are no data rows, only the header", what);
    else if (find_field(in, 1, shown))
        snprintf(buf, cap,
                 "%s: fields such as '%s' group their digits (see "
                 "--thousands), or choose columns with -c",
                 what, shown);
    else if (in->nfields == 1 && look && memchr(in->head, ' ', look))
        snprintf(buf, cap,
                 "%s: each line is one field: give the delimiter with -d "
                 "(such as -d ' ')",
                 what);
    else if (find_field(in, 2, shown))
        snprintf(buf, cap,
                 "%s: fields such as '%s' carry units; choose columns with "
                 "-c to count them",
                 what, shown);
    else
        snprintf(buf, cap,
                 "%s: choose columns with -c, the delimiter with -d, or "
                 "binary records with -b",
                 what);
}
