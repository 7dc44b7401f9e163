/* The head of a CSV file: its dialect (delimiter, header or not), field
 * names, and which fields hold numbers, from the first records. */
#include "io/csv/csv_reader.h"

#include <csv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_fields.h"
#include "io/csv/csv_grow.h"
#include "io/num/parse_kind.h"
#include "io/num/parse_number.h"

enum { SAMPLE_RECORDS = 100 };

static size_t bom_len(const char *buf, size_t n)
{
    return n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* The first records of a file, tokenized by libcsv. */
typedef struct sample {
    const num_format *fmt; /* how numbers are written */
    int nfields;           /* fields of the first record */
    int cap;               /* room in first */
    char **first;          /* the first record's fields */
    unsigned *num;         /* per field: numbers (or NaN) in later records */
    unsigned *bad;         /* per field: non-numbers in later records */
    unsigned char *cur;    /* per field of the current record: 1 number, 2 not;
                              counted only once the record is complete */
    int records;           /* complete records seen */
    int field;             /* index of the next field of the current record */
    size_t first_end;      /* offset just after the first record */
    int first_by_fini;     /* the first record ends the input, unterminated */
    int oom;
} sample;

/* A first-row field as a C string: a NUL in it becomes the two bytes \0,
 * so that it never cuts a column's name short ("a\0b" named "a"). */
static char *copy_shown(const char *f, size_t len)
{
    size_t nul = 0;
    for (size_t i = 0; i < len; i++)
        nul += !f[i];
    char *copy = malloc(len + nul + 1), *o = copy;
    for (size_t i = 0; copy && i < len; i++) {
        if (!f[i])
            *o++ = '\\';
        *o++ = f[i] ? f[i] : '0';
    }
    if (copy)
        *o = 0;
    return copy;
}

static void keep_first_field(sample *s, const char *f, size_t len)
{
    if (s->nfields == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        char **grown = realloc(s->first, (size_t)cap * sizeof *grown);
        if (!grown) {
            s->oom = 1;
            return;
        }
        s->first = grown;
        s->cap = cap;
    }
    char *copy = copy_shown(f, len);
    if (!copy) {
        s->oom = 1;
        return;
    }
    s->first[s->nfields++] = copy;
}

/* A field as the samples count it: 1 a number (NaN too), 2 other text, 0
 * missing; padded: NUM_PAD bytes after it may be read. */
static unsigned char field_kind(const void *f, size_t len,
                                const num_format *fmt, int padded)
{
    double v;
    int32_t corr;
    num_kind k = padded ? parse_number_padded(f, len, fmt, &v, &corr)
                        : parse_number_fmt(f, len, fmt, &v, &corr);
    return k == NUM_OK || k == NUM_NAN ? 1 : k == NUM_INVALID ? 2 : 0;
}

static void sample_field(void *f, size_t len, void *data)
{
    sample *s = data;
    int i = s->field++;
    if (s->oom)
        return;
    if (s->records == 0) {
        keep_first_field(s, f, len);
        return;
    }
    if (i >= s->nfields)
        return;
    s->cur[i] = field_kind(f, len, s->fmt, 0);
}

static void sample_record(int ch, void *data)
{
    sample *s = data;
    (void)ch;
    if (s->records++ == 0 && !s->oom) {
        size_t n = s->nfields ? (size_t)s->nfields : 1;
        s->num = calloc(n, sizeof *s->num);
        s->bad = calloc(n, sizeof *s->bad);
        s->cur = calloc(n, 1);
        s->oom = !s->num || !s->bad || !s->cur;
    } else if (!s->oom) {
        for (int i = 0; i < s->nfields; i++) {
            s->num[i] += s->cur[i] == 1;
            s->bad[i] += s->cur[i] == 2;
            s->cur[i] = 0;
        }
    }
    s->field = 0;
}

static size_t piece_len(const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\r' || buf[i] == '\n')
            return i + 1;
    return n;
}

static int ws_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* One line of whitespace text [p, e), split as csv_parse_block splits
 * it, each field to the given (libcsv-style) callback; returns the count. */
static int ws_split_line(const char *p, const char *e,
                         void (*field)(void *, size_t, void *), void *data)
{
    int fields = 0;
    for (;; fields++) {
        while (p < e && ws_blank(*p))
            p++;
        if (p == e)
            return fields;
        const char *fe = p;
        while (fe < e && !ws_blank(*fe))
            fe++;
        int quoted = fe - p >= 2 && *p == '"' && fe[-1] == '"';
        field((void *)(p + quoted), (size_t)(fe - p) - 2 * (size_t)quoted,
              data);
        p = fe;
    }
}

static void ws_sample_line(const char *p, const char *e, sample *s)
{
    if (ws_split_line(p, e, sample_field, s))
        sample_record(0, s);
}

/* The first records of whitespace text, a line each. */
static void ws_sample_run(const char *buf, size_t n, int at_eof, sample *s)
{
    size_t at = 0;
    while (at < n && s->records <= SAMPLE_RECORDS && !s->oom) {
        const char *nl = memchr(buf + at, '\n', n - at);
        if (!nl && !at_eof)
            break; /* a line cut by the head's end */
        const char *le = nl ? nl : buf + n;
        ws_sample_line(buf + at, le, s);
        at = (size_t)(le - buf) + (nl != NULL);
        if (s->records == 1 && !s->first_end)
            s->first_end = at;
    }
}

/* Tokenizes the first records of buf. Input is fed up to each CR or LF,
 * so a record that ends is known to end where the piece does. */
static void sample_run(const char *buf, size_t n, int at_eof,
                       const csv_dialect *d, sample *s)
{
    struct csv_parser p;
    memset(s, 0, sizeof *s);
    s->fmt = d->num;
    if (d->whitespace) {
        ws_sample_run(buf, n, at_eof, s);
        return;
    }
    char delim = d->delim ? d->delim : ',';
    if (csv_init_growing(&p, CSV_APPEND_NULL) != 0) {
        s->oom = 1;
        return;
    }
    csv_set_delim(&p, (unsigned char)delim);
    size_t at = 0;
    while (at < n && s->records <= SAMPLE_RECORDS && !s->oom) {
        size_t len = piece_len(buf + at, n - at);
        if (csv_parse(&p, buf + at, len, sample_field, sample_record, s) != len)
            s->oom = 1;
        at += len;
        if (s->records == 1 && !s->first_end) {
            if (buf[at - 1] == '\r' && at < n && buf[at] == '\n')
                at++;
            s->first_end = at;
        }
    }
    if (at == n && at_eof) {
        csv_fini(&p, sample_field, sample_record, s);
        if (s->records == 1 && !s->first_end) {
            s->first_end = n;
            s->first_by_fini = 1;
        }
    }
    csv_free(&p);
}

static void sample_free(sample *s)
{
    for (int i = 0; i < s->nfields; i++)
        free(s->first[i]);
    free(s->first);
    free(s->num);
    free(s->bad);
    free(s->cur);
    memset(s, 0, sizeof *s);
}

static num_kind kind_of(const sample *s, const char *f)
{
    double v;
    int32_t corr;
    return parse_number_fmt(f, strlen(f), s->fmt, &v, &corr);
}

/* Every non-empty field of the first record is an ISO 8601 date: data,
 * not names (a file of timestamps alone has no numbers to tell by). */
static int first_all_dates(const sample *s)
{
    int dates = 0;
    for (int f = 0; f < s->nfields; f++) {
        int64_t us;
        size_t n = strlen(s->first[f]);
        if (n && parse_kind_date(s->first[f], n, &us) == KIND_DT_NONE)
            return 0;
        dates += n > 0;
    }
    return dates > 0;
}

/* The contract's rule, plus: with no later numbers to compare against (a
 * single record, or text only), a first record of text alone is a header,
 * unless it is dates alone. */
static int looks_like_header(const sample *s)
{
    int later_numeric = 0, numbers = 0, text = 0;
    for (int f = 0; f < s->nfields; f++) {
        num_kind k = kind_of(s, s->first[f]);
        int numeric = s->num[f] > s->bad[f];
        if (k == NUM_INVALID && numeric)
            return 1;
        later_numeric |= numeric;
        numbers += k == NUM_OK || k == NUM_NAN;
        text += k == NUM_INVALID;
    }
    if (s->records > 1 && later_numeric)
        return 0;
    return text > 0 && numbers == 0 && !first_all_dates(s);
}

/* The most frequent candidate; a numbers' separator only when no other
 * candidate occurs (numbers holding it must then be quoted). None: a
 * comma, or a semicolon where the numbers hold commas. */
static char detect_delim(const char *buf, size_t n, const num_format *num)
{
    static const char cand[] = {',', '\t', ';', '|'};
    size_t count[sizeof cand] = {0};
    int inq = 0, started = 0;
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '"') {
            inq = !inq; /* a doubled quote toggles twice */
        } else if (!inq && (c == '\n' || c == '\r')) {
            if (started)
                break;
        } else if (!inq) {
            for (size_t k = 0; k < sizeof cand; k++)
                count[k] += c == cand[k];
        }
        started |= c != ' ' && c != '\n' && c != '\r';
    }
    size_t best = 0;
    for (size_t k = 1; k < sizeof cand; k++)
        if (count[k] > count[best])
            best = k;
    if (num && (cand[best] == num->decimal || cand[best] == num->thousands)) {
        size_t other = best;
        for (size_t k = 0; k < sizeof cand; k++)
            if (k != best && count[k] &&
                (other == best || count[k] > count[other]) &&
                cand[k] != num->decimal && cand[k] != num->thousands)
                other = k;
        best = other;
    }
    if (count[best])
        return cand[best];
    /* one field: any delimiter that splits no number will do */
    int comma_in_numbers =
        num && (num->decimal == ',' || num->thousands == ',');
    return comma_in_numbers ? ';' : ',';
}

void csv_detect(const char *buf, size_t n, int at_eof, csv_dialect *d)
{
    size_t bom = bom_len(buf, n);
    if (!d->delim && !d->whitespace)
        d->delim = detect_delim(buf + bom, n - bom, d->num);
    if (d->header < 0) {
        sample s;
        sample_run(buf + bom, n - bom, at_eof, d, &s);
        d->header = !s.oom && s.records > 0 && looks_like_header(&s);
        sample_free(&s);
    }
}

static int fill_names(csv_head *h, sample *s, int header)
{
    h->names = calloc((size_t)(s->nfields ? s->nfields : 1), sizeof *h->names);
    h->numeric = calloc((size_t)(s->nfields ? s->nfields : 1), 1);
    if (!h->names || !h->numeric)
        return -1;
    h->nfields = s->nfields;
    for (int f = 0; f < s->nfields; f++) {
        num_kind k = kind_of(s, s->first[f]);
        unsigned num = s->num[f], bad = s->bad[f];
        if (!header) {
            num += k == NUM_OK || k == NUM_NAN;
            bad += k == NUM_INVALID;
        }
        h->numeric[f] = num > bad              ? CSV_NUMBERS
                        : num == 0 && bad == 0 ? CSV_UNSEEN
                                               : CSV_TEXT;
        if (header && s->first[f][0]) {
            h->names[f] = s->first[f];
            s->first[f] = NULL;
        } else {
            char num_name[16];
            snprintf(num_name, sizeof num_name, "%d", f + 1);
            h->names[f] = strdup(num_name);
            if (!h->names[f])
                return -1;
        }
    }
    return 0;
}

static int head_from_sample(const char *buf, size_t n, int at_eof,
                            const csv_dialect *d, size_t bom, const char *file,
                            sample *s, csv_head *h, cs_error *e)
{
    int header = d->header;
    if (s->oom)
        return cs_fail(e, CS_ENOMEM, file, 0, "out of memory");
    if (s->records == 0 && !at_eof)
        return cs_fail(e, CS_EDATA, file, 1,
                       "the first record does not end within %zu bytes", n);
    if (s->first_by_fini) {
        csv_cutter c;
        csv_cutter_init(&c, d, 1);
        if (csv_cut(&c, buf + bom, n - bom, 1, file, e) == (size_t)-1)
            return CS_EDATA;
    }
    if (s->records > 0 && fill_names(h, s, header) != 0)
        return cs_fail(e, CS_ENOMEM, file, 0, "out of memory");
    h->skip_bytes = bom + (header ? s->first_end : 0);
    for (size_t i = bom; i < h->skip_bytes; i++)
        h->skip_lines += buf[i] == '\n';
    return CS_OK;
}

int csv_read_head(const char *buf, size_t n, int at_eof, const csv_dialect *d,
                  const char *file, csv_head *h, cs_error *e)
{
    memset(h, 0, sizeof *h);
    csv_dialect dd = *d;
    if ((!dd.delim && !dd.whitespace) || dd.header < 0)
        csv_detect(buf, n, at_eof, &dd);
    size_t bom = bom_len(buf, n);
    sample s;
    sample_run(buf + bom, n - bom, at_eof, &dd, &s);
    int rc = head_from_sample(buf, n, at_eof, &dd, bom, file, &s, h, e);
    sample_free(&s);
    if (rc != CS_OK)
        csv_head_free(h);
    return rc;
}

void csv_head_free(csv_head *h)
{
    for (int f = 0; h->names && f < h->nfields; f++)
        free(h->names[f]);
    free(h->names);
    free(h->numeric);
    memset(h, 0, sizeof *h);
}

/* Records of a stretch of a file, counted per field (csv_sample). */
typedef struct stretch {
    int nfields, field, exact, max;
    int records;
    unsigned *num, *bad;
    unsigned char *cur;    /* per field of the current record: 1, 2 or 0, */
    const num_format *fmt; /* 2 + CSV_WHY_* with why; the run's number */
    csv_why *why;          /* format (NULL: C locale); NULL: not asked */
    uintptr_t lo, hi;      /* the sample's bytes: a field inside, NUM_PAD before
                              hi, is read padded */
} stretch;

/* The example of a kind is its first text, whatever record it is in. */
static void keep_example(char *to, const char *f, size_t len)
{
    if (!to[0])
        snprintf(to, CSV_WHY_SHOWN + 1, "%.*s", (int)len, f);
}

/* Text (2) as why's kinds: 2 + CSV_WHY_*. */
static unsigned char text_kind(csv_why *why, const char *f, size_t len)
{
    char unit[CSV_WHY_SHOWN + 1];
    int k = csv_text_kind(f, len, unit, sizeof unit);
    if (k == CSV_WHY_NULL)
        keep_example(why->null_text, f, len);
    else if (k == CSV_WHY_UNIT)
        keep_example(why->unit, unit, strlen(unit));
    else if (k == CSV_WHY_GROUPED)
        keep_example(why->grouped_text, f, len);
    return (unsigned char)(2 + k);
}

/* Dates and numbers with a unit (io/num/parse_kind.h), as kinds past
 * why's: TYPED + KIND_DT_* for a date, TYPED_UNIT + u for unit u; 0 for
 * neither. */
enum { TYPED = 6, TYPED_UNIT = 10 };
static unsigned char typed_kind(const char *f, size_t len,
                                const num_format *fmt)
{
    int64_t us;
    int dt = parse_kind_date(f, len, &us);
    if (dt != KIND_DT_NONE)
        return (unsigned char)(TYPED + dt);
    int u = parse_kind_unit(f, len, fmt);
    return u >= 0 ? (unsigned char)(TYPED_UNIT + u) : 0;
}

static void stretch_field(void *f, size_t len, void *data)
{
    stretch *w = data;
    int i = w->field++;
    if (!w->num || i >= w->nfields)
        return;
    uintptr_t at = (uintptr_t)f;
    w->cur[i] =
        field_kind(f, len, w->fmt, at >= w->lo && at + len + NUM_PAD <= w->hi);
    if (w->cur[i] == 2 && w->why) {
        w->cur[i] = text_kind(&w->why[i], f, len);
        unsigned char t = typed_kind(f, len, w->fmt);
        w->cur[i] = t ? t : w->cur[i];
    }
}

static void count_why(csv_why *why, unsigned char kind)
{
    why->nulls += kind == 2 + CSV_WHY_NULL;
    why->units += kind == 2 + CSV_WHY_UNIT || kind >= TYPED_UNIT;
    why->grouped += kind == 2 + CSV_WHY_GROUPED;
    why->dates += kind == TYPED + KIND_DT_DATE;
    why->datetimes += kind > TYPED + KIND_DT_DATE && kind < TYPED_UNIT;
    why->zoned += kind == TYPED + KIND_DT_ZONED;
    if (kind >= TYPED_UNIT) {
        why->with_unit++;
        why->unit_set |= UINT32_C(1) << (kind - TYPED_UNIT);
        if (!why->unit_first)
            why->unit_first = (unsigned char)(1 + kind - TYPED_UNIT);
    }
}

static void stretch_record(int ch, void *data)
{
    stretch *w = data;
    (void)ch;
    int take = w->num && (!w->exact || w->field == w->nfields);
    for (int i = 0; w->num && i < w->nfields; i++) {
        w->num[i] += take && w->cur[i] == 1;
        w->bad[i] += take && w->cur[i] >= 2;
        if (take && w->why && w->cur[i] >= 2) /* a number counts none */
            count_why(&w->why[i], w->cur[i]);
        w->cur[i] = 0;
    }
    w->records += take || !w->num;
    w->field = 0;
}

/* Whitespace text, a line at a time, split as csv_parse_block does; a
 * line cut by the stretch's end is left out. */
static void stretch_ws(stretch *w, const csv_dialect *d, const char *buf,
                       size_t n, size_t at, int at_eof)
{
    while (at < n && w->records < w->max) {
        const char *nl = memchr(buf + at, '\n', n - at);
        if (!nl && !at_eof)
            return;
        const char *p = buf + at, *e = nl ? nl : buf + n;
        at = (size_t)(e - buf) + (nl != NULL);
        if (csv_repeat_at(d, p, (size_t)(buf + n - p)))
            continue;
        if (ws_split_line(p, e, stretch_field, w))
            stretch_record(0, w);
        else
            w->field = 0;
    }
}

int csv_sample(const char *buf, size_t n, int at_eof, const csv_dialect *d,
               int from_middle, int max, int nfields, unsigned *num,
               unsigned *bad, csv_why *why)
{
    size_t at = 0;
    if (from_middle) {
        const char *nl = memchr(buf, '\n', n);
        at = nl ? (size_t)(nl - buf) + 1 : n;
    } else {
        at = bom_len(buf, n);
    }
    stretch w = {.nfields = nfields,
                 .exact = from_middle,
                 .max = max,
                 .num = num,
                 .bad = bad,
                 .fmt = d->num,
                 .why = why,
                 .lo = (uintptr_t)(buf + at),
                 .hi = (uintptr_t)(buf + n)};
    if (num && !(w.cur = calloc((size_t)(nfields ? nfields : 1), 1)))
        return -1;
    if (d->whitespace) {
        stretch_ws(&w, d, buf, n, at, at_eof);
        free(w.cur);
        return w.records;
    }
    csv_fields p;
    if (csv_fields_init(&p, (unsigned char)(d->delim ? d->delim : ','),
                        stretch_field, stretch_record, &w) != 0) {
        free(w.cur);
        return -1;
    }
    int rc = 0;
    size_t start = at;
    while (at < n && w.records < max && rc == 0) {
        size_t len = n - at < 65536 ? n - at : 65536;
        if (d->repeat) { /* a line at a time: repeated headers are none */
            const char *nl = memchr(buf + at, '\n', n - at);
            len = nl ? (size_t)(nl - buf) + 1 - at : n - at;
            if (p.p.pstate == 0 && (at == start || buf[at - 1] == '\n') &&
                csv_repeat_at(d, buf + at, n - at)) {
                at += len;
                continue;
            }
        }
        rc = csv_fields_feed(&p, buf + at, len);
        at += len;
    }
    if (rc == 0 && at == n && at_eof && w.records < max)
        csv_fields_fini(&p);
    csv_fields_free(&p);
    free(w.cur);
    return rc ? -1 : w.records;
}
