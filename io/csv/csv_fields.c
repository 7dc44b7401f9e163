/* csv_parse's callbacks from the index where it reads the lines
 * (csv_fields.h). The index takes a batch that starts between records and
 * ends with an LF, only where its quote parity reads it as the grammar
 * does; there a field is what libcsv gives: an unquoted one without the
 * blanks around it, a quoted one between its quotes with each doubled
 * quote halved, and a line of blanks no record. */
#include "io/csv/csv_fields.h"

#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_grammar.h"
#include "io/csv/csv_grow.h"

#define BATCH ((size_t)1 << 16)

int csv_fields_init(csv_fields *s, unsigned char delim, csv_field_fn field,
                    csv_record_fn record, void *data)
{
    memset(s, 0, sizeof *s);
    s->delim = delim;
    s->field = field;
    s->record = record;
    s->data = data;
    s->text = malloc(BATCH);
    if (!s->text || csv_simd_init(&s->ix, BATCH) != 0) {
        free(s->text);
        csv_simd_free(&s->ix);
        return -1;
    }
    if (csv_init_growing(&s->p, CSV_APPEND_NULL) != 0) {
        free(s->text);
        csv_simd_free(&s->ix);
        return -1;
    }
    csv_set_delim(&s->p, delim);
    return 0;
}

void csv_fields_free(csv_fields *s)
{
    csv_free(&s->p);
    csv_simd_free(&s->ix);
    free(s->text);
}

void csv_fields_fini(csv_fields *s)
{
    csv_fini(&s->p, s->field, s->record, s->data);
}

static int blank(unsigned char c, unsigned char delim)
{
    return csv_g_class(c, delim, 1) == CSV_G_BLANK;
}

/* One field [a, e) of an indexed batch, as libcsv gives it. */
static void put_field(csv_fields *s, const char *a, const char *e)
{
    if (s->ix.quoted && *a == CSV_G_QUOTE) {
        a++;
        e--; /* the index put the closing quote last */
        if (s->ix.doubled && memchr(a, CSV_G_QUOTE, (size_t)(e - a))) {
            size_t o = 0;
            for (const char *c = a; c < e; c++) {
                s->text[o++] = *c;
                c += *c == CSV_G_QUOTE;
            }
            s->field(s->text, o, s->data);
            return;
        }
    } else {
        while (a < e && blank((unsigned char)*a, s->delim))
            a++;
        while (e > a && blank((unsigned char)e[-1], s->delim))
            e--;
    }
    s->field((void *)(uintptr_t)a, (size_t)(e - a), s->data);
}

/* Whether [a, e) holds blanks only. */
static int blank_line(const char *a, const char *e, unsigned char delim)
{
    for (; a < e; a++)
        if (!blank((unsigned char)*a, delim))
            return 0;
    return 1;
}

/* The records of the batch b[0, n) the index read: each field up to its
 * end (a delimiter, or the record's CR or LF); a line of blanks alone is
 * no record. */
static void put_records(csv_fields *s, const char *b, size_t n)
{
    const uint32_t *end = s->ix.end, *stop = end + s->ix.n;
    size_t at = 0;
    int first = 1;
    while (end < stop && at < n) {
        size_t e = *end++;
        int last = (unsigned char)b[e] != s->delim;
        if (!(last && first && blank_line(b + at, b + e, s->delim))) {
            put_field(s, b + at, b + e);
            if (last)
                s->record((unsigned char)b[e], s->data);
        }
        first = last;
        e += last && b[e] == CSV_G_CR; /* the LF of its CRLF */
        at = e + 1;
    }
}

static int feed_libcsv(csv_fields *s, const char *buf, size_t n)
{
    return csv_parse(&s->p, buf, n, s->field, s->record, s->data) == n ? 0 : -1;
}

int csv_fields_feed(csv_fields *s, const char *buf, size_t n)
{
    size_t at = 0;
    while (at < n) {
        size_t w = n - at < BATCH ? n - at : BATCH;
        const char *nl = memrchr(buf + at, CSV_G_LF, w);
        size_t len = nl ? (size_t)(nl - buf) + 1 - at : n - at;
        if (nl && s->p.pstate == 0 &&
            csv_simd_scan(&s->ix, buf + at, len, s->delim)) {
            put_records(s, buf + at, len);
        } else {
            if (s->p.pstate != 0) { /* up to the line's end: then retry */
                const char *lf = memchr(buf + at, CSV_G_LF, n - at);
                len = lf ? (size_t)(lf - buf) + 1 - at : n - at;
            }
            if (feed_libcsv(s, buf + at, len) != 0)
                return -1;
        }
        at += len;
    }
    return 0;
}
