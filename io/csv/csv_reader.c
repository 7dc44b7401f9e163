/* Parsing a record-aligned CSV block into a row batch: the vectorised
 * index (csv_simd.h) where it reads a batch as the grammar does, libcsv
 * where it does not.
 *
 * The block goes in batches of whole lines shorter than the room left in
 * the row batch (a batch of w bytes ends at most w records, so it cannot
 * overfill it). A batch the index takes is read record by record from its
 * field ends, every line known. Otherwise it is fed to libcsv; near the end
 * of the row batch one line at a time, then up to each CR or LF, so that
 * at most one record ends per call and parsing stops exactly when the row
 * batch is full. Inside a batch fed to libcsv the current line is unknown;
 * the rare message that needs it finds it by parsing the block again line
 * by line. */
#include "io/csv/csv_reader.h"

#include <csv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/base/row_keys.h"
#include "io/csv/csv_grammar.h"
#include "io/csv/csv_grow.h"
#include "io/csv/csv_simd.h"
#include "io/num/number_lanes.h"
#include "io/num/number_short.h"
#include "io/num/parse_kind.h"
#include "io/num/parse_number.h"

/* Rare paths stay out of the per-field callback's frame. */
#if defined(__GNUC__)
#define COLD __attribute__((noinline, cold))
#else
#define COLD
#endif

typedef struct block {
    const csv_dialect *d;
    char delim;
    const num_format *num;
    const unsigned char *kinds; /* the dialect's */
    row_batch *out;
    double **col; /* out->col */
    const int *map;
    int nmap;
    int nscan;      /* fields read: those mapped, and the keys */
    row_keys *keys; /* out->keys */
    int field;      /* index of the next field of the current record */
    size_t row;     /* row being filled */
    uint64_t line;  /* physical line being fed, 0 inside a batch */
    const csv_strict *strict;
    const char *file;
    cs_error *e;
    int failed;
    size_t row0;    /* row of the block's first record */
    size_t err_row; /* with line 0: where the strict error was found */
    int err_field;
    int err_pending; /* e->line still to be found */
    csv_spot *spots; /* as a cursor (csv_locate): what to find, */
    int nspots, next;
    uint64_t rec_line; /* where the record being fed starts */
    csv_simd_index ix; /* a batch's field ends (csv_simd_scan), */
    char *text;        /* and room for a quoted field's halved quotes */
    const char *end;   /* the block's: NUM_PAD bytes before it, a field
                          may be parsed padded (parse_number_padded) */
    char point;        /* the format's, where num_short8 may read it */
    int lanes;         /* num_short4 may read short columns (AVX2), */
    int exp_lanes;     /* and num_exp4 wide ones */
    /* per field of map: its column c as c << 1, plus 1 where num_short8
       may read it (the format's, not a kind's); -1: not read */
    int *code;
} block;

#define BATCH ((size_t)1 << 16)
#define COLUMN_TILE ((size_t)64) /* records a column pass reads at once */

/* block's code for map's fields (NULL without memory). */
static int *field_codes(const csv_dialect *d, const int *map, int nmap,
                        int short8)
{
    int *code = malloc((size_t)(nmap ? nmap : 1) * sizeof *code);
    for (int f = 0; code && f < nmap; f++)
        code[f] = map[f] < 0 ? -1
                             : map[f] << 1 |
                                   (short8 && !(d->kinds && d->kinds[map[f]]));
    return code;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static uint64_t newlines(const char *s, size_t n)
{
    /* memchr skips the bytes between newlines many at a time. */
    uint64_t k = 0;
    const char *e = s + n;
    for (const char *p = memchr(s, '\n', n); p;
         p = memchr(p + 1, '\n', (size_t)(e - p - 1)))
        k++;
    return k;
}

/* A NUL shows as the two bytes \0: copied raw, it would end the text
 * there ('3\0' shown as '3'). */
static size_t show_width(char c)
{
    return c ? 1 : 2;
}

void csv_show_field(const char *s, size_t len, char *dst, size_t cap)
{
    while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    size_t most = cap > 44 ? 40 : cap > 4 ? cap - 4 : 0, k = 0, w = 0;
    while (k < len && w + show_width(s[k]) <= most)
        w += show_width(s[k++]);
    if (k < len)
        while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
            k--;
    size_t o = 0;
    for (size_t i = 0; i < k; i++) {
        if (!s[i])
            dst[o++] = '\\';
        dst[o++] = s[i] ? s[i] : '0';
    }
    snprintf(dst + o, cap - o, "%s", k < len ? "..." : "");
}

static COLD void strict_fail(block *b, int c, int f, const char *s, size_t len)
{
    char shown[CSV_SHOWN];
    csv_show_field(s, len, shown, sizeof shown);
    if (!b->line && !b->failed) {
        b->err_pending = b->e->status == CS_OK;
        b->err_row = b->row;
        b->err_field = f;
    }
    b->failed = 1;
    /* The field ends on the line being fed; it began as many lines earlier
     * as it holds LFs. */
    unsigned k = b->kinds ? b->kinds[c] : KIND_NUMBER;
    cs_fail(b->e, CS_EDATA, b->file, b->line ? b->line - newlines(s, len) : 0,
            "column %s: '%s' is not %s%s", b->strict->labels[c], shown,
            k >= KIND_UNIT     ? "a number in "
            : k == KIND_DATE   ? "an ISO 8601 date"
            : k != KIND_NUMBER ? "an ISO 8601 date or datetime"
                               : "a number",
            kind_unit_name(k));
}

static COLD void count_bad(block *b, int c, int f, num_kind k, const char *s,
                           size_t len)
{
    row_batch *o = b->out;
    if (b->keys)
        row_keys_bad(b->keys, b->row, c, (int)k);
    if (k == NUM_MISSING) {
        o->missing[c]++;
    } else if (k == NUM_NAN) {
        o->nan[c]++;
    } else {
        o->invalid[c]++;
        if (!o->first_invalid[c])
            o->first_invalid[c] = b->row + 1;
        if (b->strict && c < b->strict->ncols &&
            !(b->strict->exempt && b->strict->exempt[c]))
            strict_fail(b, c, f, s, len);
    }
}

/* A nonzero correction (rare: kept out of the callback's frame). The
 * first of a column zeroes its corrections up to the row batch's capacity, so
 * that the rows without one need no write. */
static COLD void put_corr(block *b, int c, int32_t r)
{
    row_batch *o = b->out;
    if (!o->has_corr[c])
        row_batch_corr_start(o, c, o->cap);
    o->corr[c][b->row] = r;
}

/* A field of a column of a kind (parse_kind.h); a datetime of a column
 * with zones keeps the offset it was written in, for its extremes. */
static num_kind kind_field(block *b, int c, const char *s, size_t len,
                           double *v, int32_t *r)
{
    num_kind k = parse_kind_fmt(s, len, b->num, b->kinds[c], v, r);
    if (k != NUM_OK || b->kinds[c] != KIND_DATETIME_Z)
        return k;
    int off = parse_kind_offset(s, len);
    row_batch *o = b->out;
    if (off && !o->has_off[c])
        row_batch_off_start(o, c, o->cap);
    if (o->has_off[c])
        o->off[c][b->row] = (int16_t)off;
    return k;
}

/* A key field: its text, or missing when empty or a null spelling. */
static void key_field(block *b, int f, const char *s, size_t len)
{
    double v;
    int32_t r;
    /* blanks around a field are gone (libcsv, fast_field; -W has none):
       only an empty field or a null spelling is missing */
    int missing =
        len == 0 || (b->num && b->num->nnull &&
                     parse_number_fmt(s, len, b->num, &v, &r) == NUM_MISSING);
    row_keys_put(b->keys, b->row, b->keys->kmap[f], missing ? NULL : s, len);
}

static int is_key(const block *b, int f)
{
    return b->keys && f < b->keys->nkmap && b->keys->kmap[f] >= 0;
}

/* Whether field f is read: a column's, or a key. */
static int wanted(const block *b, int f)
{
    return (f < b->nmap && b->map[f] >= 0) || is_key(b, f);
}

/* Field f, column c's: its value, or NaN and a count of why not;
 * padded: NUM_PAD bytes after the text may be read; wide: the column's
 * fields are mostly past the short way (parse_number_padded_wide). */
static inline void number_field(block *b, int f, int c, const char *s,
                                size_t len, int padded, int wide)
{
    double v;
    int32_t r;
    num_kind k = b->kinds && b->kinds[c] ? kind_field(b, c, s, len, &v, &r)
                 : !padded ? parse_number_fmt(s, len, b->num, &v, &r)
                 : wide    ? parse_number_padded_wide(s, len, b->num, &v, &r)
                           : parse_number_padded(s, len, b->num, &v, &r);
    if (k == NUM_OK) {
        b->col[c][b->row] = v;
        if (r != 0)
            put_corr(b, c, r);
        return;
    }
    b->col[c][b->row] = NAN;
    count_bad(b, c, f, k, s, len);
}

/* The next field's text: a key's, a column's, or neither. */
static void put_field(block *b, const char *s, size_t len, int padded)
{
    int f = b->field++;
    if (is_key(b, f))
        key_field(b, f, s, len);
    if (f < b->nmap && b->map[f] >= 0)
        number_field(b, f, b->map[f], s, len, padded, 0);
}

/* libcsv's callback: its buffer has no padding. */
static void on_field(void *s, size_t len, void *data)
{
    put_field(data, s, len, 0);
}

static void on_record(int ch, void *data)
{
    block *b = data;
    (void)ch;
    for (int f = b->field; f < b->nscan; f++) {
        int c = f < b->nmap ? b->map[f] : -1;
        if (is_key(b, f))
            row_keys_put(b->keys, b->row, b->keys->kmap[f], NULL, 0);
        if (c >= 0) {
            b->col[c][b->row] = NAN;
            b->out->missing[c]++;
            if (b->keys)
                row_keys_bad(b->keys, b->row, c, NUM_MISSING);
        }
    }
    b->field = 0;
    b->row++;
}

/* A line of blanks is no record (the grammar stays between records). */
static int blank_line(const char *s, const char *e, char delim)
{
    for (; s < e; s++)
        if (csv_g_class((unsigned char)*s, (unsigned char)delim, 1) !=
            CSV_G_BLANK)
            return 0;
    return 1;
}

/* libcsv trims blanks around an unquoted field: a key's text must be
 * the same on both paths (a number ignores them anyway). */
static void fast_field(block *b, const char *s, const char *e)
{
    if (b->keys) {
        while (s < e && (*s == ' ' || *s == '\t') && *s != b->delim)
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t') && e[-1] != b->delim)
            e--;
    }
    put_field(b, s, (size_t)(e - s), b->end - e >= NUM_PAD);
}

/* A repeated header line (csv_repeat_at), seen on the line being fed. */
static COLD void note_repeat(block *b)
{
    if (!b->out->repeats++)
        b->out->repeat_line = b->line;
}

/* A quoted field's text: between its quotes (the index put the closing
 * one last), each doubled quote halved, as libcsv gives it. */
static void quoted_field(block *b, const char *s, const char *e)
{
    s++;
    e--;
    size_t len = (size_t)(e - s);
    if (!b->ix.doubled || !memchr(s, CSV_G_QUOTE, len)) {
        put_field(b, s, len, b->end - e >= NUM_PAD);
        return;
    }
    size_t o = 0;
    for (const char *p = s; p < e; p++) {
        b->text[o++] = *p;
        p += *p == CSV_G_QUOTE;
    }
    put_field(b, b->text, o, 1);
}

/* The fields of one record from its start at s[at], the index's ends from
 * *next on; returns where the record ends (its CR or LF), or (size_t)-1
 * when the line was blank (no record). */
static size_t simd_record(block *b, const char *s, size_t at,
                          const uint32_t **next, uint64_t *line)
{
    int quoted = b->ix.quoted;
    for (int f = 0;; f++) {
        size_t e = *(*next)++;
        int last = s[e] != b->delim;
        if (last && f == 0 && blank_line(s + at, s + e, b->delim))
            return (size_t)-1;
        int q = quoted && s[at] == CSV_G_QUOTE;
        if (q && b->ix.inner_lf) {
            /* the field ends on the line its LFs lead to (strict_fail
               counts back from there) */
            *line += newlines(s + at, e - at);
            b->line = *line;
        }
        if (!wanted(b, f))
            b->field++;
        else if (q)
            quoted_field(b, s + at, s + e);
        else
            fast_field(b, s + at, s + e);
        if (last) {
            on_record(0, b);
            return e;
        }
        at = e + 1;
    }
}

/* simd_record for a block without keys and a batch without an LF inside
 * quotes, the common case: each wanted field straight to its column, the
 * shortest numbers (num_short8) read here without a call (parse thread
 * time 7-13% lower on the benchmark's file). */
static size_t plain_record(block *b, const char *s, size_t at,
                           const uint32_t **next)
{
    const uint32_t *end = *next;
    const int *code = b->code;
    double **col = b->col;
    size_t row = b->row;
    ptrdiff_t avail = b->end - s; /* a field ending NUM_PAD before: padded */
    int nmap = b->nmap, quoted = b->ix.quoted;
    char delim = b->delim, point = b->point;
    if (s[*end] != delim && blank_line(s + at, s + *end, delim)) {
        *next = end + 1; /* a record of one field, blank: no row */
        return (size_t)-1;
    }
    for (int f = 0;; f++) {
        size_t e = *end++;
        int last = s[e] != delim;
        int k = f < nmap ? code[f] : -1, c = k >> 1;
        const char *t = s + at;
        size_t len = e - at;
        int padded = (ptrdiff_t)e + NUM_PAD <= avail;
        double v;
        if (k < 0) {
            /* a field no column takes */
        } else if (quoted && *t == CSV_G_QUOTE) {
            b->field = f;
            quoted_field(b, t, s + e);
        } else if ((k & padded) && num_short_padded(t, len, point, &v)) {
            col[c][row] = v;
        } else {
            number_field(b, f, c, t, len, padded, 0);
        }
        if (last) {
            *next = end;
            b->field = f + 1;
            on_record(0, b);
            return e;
        }
        at = e + 1;
    }
}

/* Whether a record starting with byte c may repeat the header: its first
 * byte, or a BOM's (most records are turned away without a call). */
static int may_repeat(const csv_dialect *d, char c)
{
    return d->repeat && (d->repeat_len == 0 || c == d->repeat[0] ||
                         (unsigned char)c == 0xEF);
}

/* Field f of record r of a batch in even_records: its start and end. */
static inline size_t column_at(const char *s, const uint32_t *end, size_t r,
                               int f, size_t *e)
{
    *e = end[f];
    return f ? end[f - 1] + 1 : r ? end[-1] + 1 + (s[end[-1]] == CSV_G_CR) : 0;
}

/* What plain_record does with a field that is no short number, at row
 * `row` (wide: a column whose fields are longer, parse_number_padded_wide). */
static inline void column_field(block *b, size_t row, uint64_t line, int f,
                                int c, const char *t, size_t len, int padded,
                                int wide)
{
    b->row = row;
    b->line = line;
    b->field = f;
    if (b->ix.quoted && *t == CSV_G_QUOTE)
        quoted_field(b, t, t + len);
    else
        number_field(b, f, c, t, len, padded, wide);
}

#ifdef NUM_LANES
/* Field f of records [r, stop) of a column pass four records at a time,
 * to column c from row `row`: short numbers by num_short4, or (wide) those
 * with an exponent by num_exp4, while the fourth's field ends NUM_PAD
 * bytes (wide: NUM_PAD + 8, what num_exp4 reads) before the block does
 * (the others end before it), and for wide ones while a group has a
 * field it takes (a column of other spellings stops at its first). The
 * fields they do not take go to column_field in their order. Returns the
 * first record it left. */
NUM_LANES_TARGET static size_t lanes_pass(block *b, const char *s, size_t r,
                                          size_t stop, size_t nf, int f,
                                          size_t row, uint64_t line, int wide)
{
    const uint32_t *end = b->ix.end + r * nf;
    int c = b->code[f] >> 1;
    double *col = b->col[c] + row;
    ptrdiff_t avail = b->end - s - (wide ? NUM_PAD + 8 : NUM_PAD);
    while (stop - r >= 4) {
        size_t at[4], e[4];
        const char *m[4];
        uint64_t len[4], neg[4];
        for (int i = 0; i < 4; i++) {
            at[i] = column_at(s, end + i * nf, r + i, f, &e[i]);
            neg[i] = s[at[i]] == '-';
            m[i] = s + at[i] + neg[i];
            len[i] = e[i] - at[i] - neg[i];
        }
        if ((ptrdiff_t)e[3] > avail)
            break;
        unsigned miss = wide ? num_exp4(m, len, neg, b->point, col + r)
                             : num_short4(m, len, neg, b->point, col + r);
        for (unsigned left = miss; left; left &= left - 1) {
            unsigned i = (unsigned)NUM_CTZ64(left);
            column_field(b, row + r + i, line + r + i, f, c, s + at[i],
                         e[i] - at[i], 1, wide);
        }
        r += 4;
        end += 4 * nf;
        if (wide && miss == 15)
            break;
    }
    return r;
}
#endif

/* Field f of records [r, stop) of the batch s[0, n), records of nf fields
 * each, to column c, from row b->row and line `line` for record 0: the
 * short way (num_short_padded, four at a time where num_short4 may) while
 * the column's first field takes it. */
static void column_pass(block *b, const char *s, size_t r, size_t stop,
                        size_t nf, int f, uint64_t line)
{
    const uint32_t *end = b->ix.end + r * nf;
    int k = b->code[f], c = k >> 1;
    double *col = b->col[c];
    size_t row = b->row, first = r, at, e;
    ptrdiff_t avail = b->end - s; /* a field ending NUM_PAD before: padded */
    char point = b->point;
    for (; (k & 1) && r < stop; r++, end += nf) {
#ifdef NUM_LANES
        if (r == first + 1 && b->lanes) {
            size_t q = lanes_pass(b, s, r, stop, nf, f, row, line, 0);
            end += (q - r) * nf;
            r = q;
            if (r == stop)
                break;
        }
#endif
        at = column_at(s, end, r, f, &e);
        int padded = (ptrdiff_t)e + NUM_PAD <= avail;
        double v;
        if (padded && num_short_padded(s + at, e - at, point, &v))
            col[row + r] = v;
        else if (r == first)
            break;
        else
            column_field(b, row + r, line + r, f, c, s + at, e - at, padded, 0);
    }
#ifdef NUM_LANES
    if ((k & 1) && b->exp_lanes) {
        size_t q = lanes_pass(b, s, r, stop, nf, f, row, line, 1);
        end += (q - r) * nf;
        r = q;
    }
#endif
    for (; r < stop; r++, end += nf) {
        at = column_at(s, end, r, f, &e);
        int padded = (ptrdiff_t)e + NUM_PAD <= avail;
        column_field(b, row + r, line + r, f, c, s + at, e - at, padded, 1);
    }
}

/* How many fields each record of an indexed batch has, when it is plain
 * (simd_lines) and every record is one line of the same number of fields,
 * at least two (a line of one blank field is no record) and at least
 * those read; when its records fit the row batch, and none repeats the
 * header; and without --strict, whose error is the first field in reading
 * order. 0 otherwise. */
static size_t even_records(const block *b, const char *s, size_t n)
{
    const uint32_t *end = b->ix.end;
    size_t ends = b->ix.n, nf = 0;
    while (nf < ends && s[end[nf]] == b->delim)
        nf++;
    nf++;
    if (b->strict || nf < 2 || nf < (size_t)b->nscan || ends % nf ||
        b->ix.lines != ends / nf || ends / nf > b->out->cap - b->row)
        return 0;
    /* lines = ends / nf line ends, each at a record's last field: the
       others are delimiters */
    for (size_t i = nf - 1, at = 0; i < ends; i += nf) {
        if (s[end[i]] == b->delim ||
            (may_repeat(b->d, s[at]) && csv_repeat_at(b->d, s + at, n - at)))
            return 0;
        at = end[i] + 1 + (s[end[i]] == CSV_G_CR);
    }
    return nf;
}

/* A batch of even_records, a column at a time: each pass runs one
 * column's parse over its rows, which keeps its values in registers and
 * its branches the same from row to row (row by row, the loop over
 * fields spills them and switches between parsers every field). */
static uint64_t column_lines(block *b, const char *s, size_t nf, uint64_t line)
{
    size_t rows = b->ix.n / nf, row = b->row;
    /* COLUMN_TILE records at a time: their bytes and ends (about 7 KB for
       the benchmark's rows) stay in the first-level cache over all their
       columns' passes, where a whole batch's (about 90 KB) would not */
    for (size_t r = 0; r < rows; r += COLUMN_TILE) {
        size_t stop = rows - r < COLUMN_TILE ? rows : r + COLUMN_TILE;
        for (int f = 0; f < b->nmap; f++) {
            if (b->code[f] >= 0)
                column_pass(b, s, r, stop, nf, f, line);
            b->row = row;
        }
    }
    b->row = row + rows;
    b->field = 0;
    b->line = line + rows - 1;
    return line + rows;
}

/* A batch the index read (csv_simd_scan), record by record, from the
 * physical line at s; returns the line after it (the batch's LFs are its
 * records', its blank lines' and its quoted fields'). */
static uint64_t simd_lines(block *b, const char *s, size_t n, uint64_t line)
{
    const uint32_t *next = b->ix.end, *stop = next + b->ix.n;
    size_t at = 0;
    int plain = !b->ix.inner_lf && !b->keys;
    size_t nf = plain ? even_records(b, s, n) : 0;
    if (nf)
        return column_lines(b, s, nf, line);
    while (at < n) {
        b->line = line;
        size_t skip =
            may_repeat(b->d, s[at]) ? csv_repeat_at(b->d, s + at, n - at) : 0;
        if (skip) {
            note_repeat(b);
            at += skip;
            line += s[at - 1] == '\n';
            while (next < stop && *next < at)
                next++;
            continue;
        }
        const uint32_t *first = next;
        size_t e = plain ? plain_record(b, s, at, &next)
                         : simd_record(b, s, at, &next, &line);
        if (e == (size_t)-1)
            e = *first; /* a blank line: its one end */
        at = e + (s[e] == CSV_G_CR ? 2 : 1);
        line++;
    }
    return line;
}

/* Length of buf[0, n) up to and including its first CR or LF. */
static size_t piece_len(const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\r' || buf[i] == '\n')
            return i + 1;
    return n;
}

static int feed(struct csv_parser *p, block *b, const char *s, size_t n)
{
    if (csv_parse(p, s, n, on_field, on_record, b) != n) {
        b->failed = 1;
        cs_fail(b->e, CS_EDATA, b->file, b->line, "%s",
                csv_strerror(csv_error(p)));
    }
    return b->failed ? CS_EDATA : CS_OK;
}

/* Feeds one line, or less near the end of the row batch; returns its length. */
static size_t feed_line(struct csv_parser *p, block *b, const char *buf,
                        size_t n, size_t at, int *rc)
{
    const char *nl = memchr(buf + at, '\n', n - at);
    size_t len = nl ? (size_t)(nl - buf) + 1 - at : n - at;
    /* A line of len bytes ends at most len records. */
    if (b->out->cap - b->row <= len)
        len = piece_len(buf + at, len);
    *rc = feed(p, b, buf + at, len);
    at += len;
    if (buf[at - 1] == '\r' && b->row == b->out->cap && at < n &&
        buf[at] == '\n')
        len++; /* the LF of a CRLF belongs to the record that ended */
    return len;
}

/* The batch buf[at, at + len) cut before the line where the header's
 * text first appears (0: that line is the first). */
static size_t before_repeat(const block *b, const char *buf, size_t at,
                            size_t len)
{
    const char *hit = memmem(buf + at, len, b->d->repeat, b->d->repeat_len);
    if (!hit)
        return len;
    const char *nl = memrchr(buf + at, '\n', (size_t)(hit - buf - at));
    return nl ? (size_t)(nl - buf) + 1 - at : 0;
}

/* The length of the indexed batch s[0, len) cut after its room-th line
 * end (a record's, a blank line's or a repeated header's): at most room
 * records, so that a batch of any length fits the row batch. */
static size_t fit_rows(const block *b, const char *s, size_t len, size_t room)
{
    if (b->ix.lines <= room)
        return len; /* the whole batch fits: no walk over its ends */
    const uint32_t *end = b->ix.end, *stop = end + b->ix.n;
    for (; end < stop; end++) {
        if (s[*end] == b->delim)
            continue;
        if (--room == 0)
            return *end + (s[*end] == CSV_G_CR ? 2 : 1);
    }
    return len;
}

/* Reads a batch of whole lines from buf[at, n) with the index, when it
 * takes them: returns the length read (0: none) and the line after it in
 * *next_line. The batch is the longest one up to BATCH bytes, cut where
 * the row batch fills. */
static size_t simd_batch(struct csv_parser *p, block *b, const char *buf,
                         size_t n, size_t at, uint64_t line,
                         uint64_t *next_line)
{
    if (p->pstate != 0)
        return 0; /* the index starts between records */
    size_t w = min_size(n - at, BATCH);
    const char *nl = w ? memrchr(buf + at, '\n', w) : NULL;
    if (!nl)
        return 0;
    size_t len = (size_t)(nl - buf) + 1 - at;
    if (!csv_simd_scan(&b->ix, buf + at, len, (unsigned char)b->delim))
        return 0;
    len = fit_rows(b, buf + at, len, b->out->cap - b->row);
    *next_line = simd_lines(b, buf + at, len, line);
    return len;
}

/* Feeds records from buf[*pos, n) until the block or the row batch ends;
 * *line is the physical line at *pos. */
static int feed_lines(struct csv_parser *p, block *b, const char *buf, size_t n,
                      size_t *pos, uint64_t *line)
{
    size_t at = *pos;
    int rc = CS_OK;
    while (at < n && b->row < b->out->cap && rc == CS_OK) {
        /* A repeated header, at a line start between records. */
        size_t skip =
            b->d->repeat && p->pstate == 0 && (at == 0 || buf[at - 1] == '\n')
                ? csv_repeat_at(b->d, buf + at, n - at)
                : 0;
        if (skip) {
            b->line = *line;
            note_repeat(b);
            *line += buf[at + skip - 1] == '\n';
            at += skip;
            continue;
        }
        uint64_t next_line = 0; /* the index's count of the batch's lines */
        size_t len = simd_batch(p, b, buf, n, at, *line, &next_line);
        if (len) {
            rc = b->failed ? CS_EDATA : CS_OK;
            *line = next_line;
            at += len;
            continue;
        }
        size_t room = b->out->cap - b->row;
        size_t w = min_size(min_size(n - at, BATCH), room - 1);
        const char *nl = w ? memrchr(buf + at, '\n', w) : NULL;
        if (nl) {
            len = (size_t)(nl - buf) + 1 - at;
            /* Batches end at a newline, not always at a record's end: the
             * index needs libcsv between records (pstate 0, its
             * ROW_NOT_BEGUN), and refuses a batch that ends inside quotes
             * or needs the grammar's lax readings: libcsv reads those. */
            if (p->pstate == 0 &&
                csv_simd_scan(&b->ix, buf + at, len, (unsigned char)b->delim)) {
                next_line = simd_lines(b, buf + at, len, *line);
                rc = b->failed ? CS_EDATA : CS_OK;
            } else {
                if (b->d->repeat)
                    len = before_repeat(b, buf, at, len);
                /* The line that may repeat the header goes alone, so that
                 * its start is checked between records (above). */
                b->line = len ? 0 : *line;
                if (len)
                    rc = feed(p, b, buf + at, len);
                else
                    len = feed_line(p, b, buf, n, at, &rc);
            }
        } else {
            b->line = *line;
            len = feed_line(p, b, buf, n, at, &rc);
        }
        *line = next_line ? next_line : *line + newlines(buf + at, len);
        at += len;
    }
    *pos = at;
    return rc;
}

/* A block reused as a cursor: row counts records from 1, field fields;
 * l->line is the line being fed, where a field ends. */
static void loc_field(void *s, size_t len, void *data)
{
    block *l = data;
    if (l->field == 0)
        l->rec_line = l->line - newlines(s, len);
    while (l->next < l->nspots && l->spots[l->next].row == l->row &&
           l->spots[l->next].field == l->field) {
        csv_spot *sp = &l->spots[l->next++];
        sp->line = l->line - newlines(s, len);
        sp->record_line = l->rec_line;
        csv_show_field(s, len, sp->text, sizeof sp->text);
    }
    l->field++;
}

static void loc_record(int ch, void *data)
{
    block *l = data;
    (void)ch;
    /* a spot past the end of its record (a short row) is not there */
    while (l->next < l->nspots && l->spots[l->next].row == l->row)
        l->next++;
    l->row++;
    l->field = 0;
}

void csv_locate(const csv_dialect *d, const char *buf, size_t n,
                uint64_t first_line, csv_spot *spots, int nspots)
{
    struct csv_parser p;
    block l = {0};
    l.row = 1;
    l.line = first_line;
    l.spots = spots;
    l.nspots = nspots;
    for (int i = 0; i < nspots; i++)
        spots[i].line = spots[i].record_line = 0;
    if (csv_init_growing(&p, CSV_APPEND_NULL) != 0)
        return;
    csv_set_delim(&p, (unsigned char)(d->delim ? d->delim : ','));
    for (size_t at = 0; at < n && l.next < nspots;) {
        const char *nl = memchr(buf + at, '\n', n - at);
        size_t len = nl ? (size_t)(nl - buf) + 1 - at : n - at;
        if (!(p.pstate == 0 && csv_repeat_at(d, buf + at, n - at)))
            csv_parse(&p, buf + at, len, loc_field, loc_record, &l);
        at += len;
        l.line += nl != NULL;
    }
    if (l.next < nspots)
        csv_fini(&p, loc_field, loc_record, &l);
    csv_free(&p);
}

/* The line of the strict error's field, found after a batch. */
static uint64_t error_line(const block *b, const csv_dialect *d,
                           const char *buf, size_t n, uint64_t first_line)
{
    csv_spot sp = {b->err_row - b->row0 + 1, b->err_field, 0, 0, ""};
    csv_locate(d, buf, n, first_line, &sp, 1);
    return sp.line;
}

/* Whitespace-separated text (-W): blanks split fields; CR is one, so a
 * CRLF ends a line like an LF. */
static int ws_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static void ws_field(block *b, const char *s, const char *e)
{
    if (e - s >= 2 && *s == '"' && e[-1] == '"') {
        s++; /* no quoting: a pair of quotes around a field only goes */
        e--;
    }
    put_field(b, s, (size_t)(e - s), b->end - e >= NUM_PAD);
}

/* One line [s, e) without its LF: a record unless it is blank. */
static void ws_record(block *b, const char *s, const char *e)
{
    int f = 0;
    for (;;) {
        while (s < e && ws_blank(*s))
            s++;
        if (s == e)
            break;
        const char *fe = s;
        while (fe < e && !ws_blank(*fe))
            fe++;
        if (wanted(b, f))
            ws_field(b, s, fe);
        else
            b->field++;
        /* fields past the last mapped one need no scanning */
        if (++f >= b->nscan)
            break;
        s = fe;
    }
    if (f)
        on_record(0, b);
}

/* The whole block, line by line: every line's number is known, so
 * messages need no second pass. */
static int ws_lines(block *b, const char *buf, size_t n, size_t *pos,
                    uint64_t *line)
{
    size_t at = 0;
    uint64_t ln = *line;
    while (at < n && b->row < b->out->cap && !b->failed) {
        const char *s = buf + at;
        const char *nl = memchr(s, '\n', n - at);
        const char *le = nl ? nl : buf + n;
        b->line = ln;
        if (b->d->repeat && csv_repeat_at(b->d, s, n - at))
            note_repeat(b);
        else
            ws_record(b, s, le);
        at = (size_t)(le - buf) + (nl != NULL);
        ln += nl != NULL;
    }
    *pos = at;
    *line = ln;
    return b->failed ? CS_EDATA : CS_OK;
}

static int finish(struct csv_parser *p, block *b, const csv_dialect *d,
                  const char *buf, size_t n, uint64_t first_line)
{
    if (p->quoted) {
        /* Possibly an open quote at the end: let the cutter judge it. */
        csv_cutter c;
        csv_cutter_init(&c, d, first_line);
        if (csv_cut(&c, buf, n, 1, b->file, b->e) == (size_t)-1)
            return CS_EDATA;
    }
    csv_fini(p, on_field, on_record, b);
    return b->failed ? CS_EDATA : CS_OK;
}

int csv_parse_block(const csv_dialect *d, const char *buf, size_t n,
                    uint64_t first_line, const int *map, int nmap,
                    const csv_strict *strict, const char *file, row_batch *out,
                    size_t *consumed, uint64_t *lines, cs_error *e)
{
    block b = {.d = d,
               .delim = d->delim ? d->delim : ',',
               .num = d->num,
               .kinds = d->kinds,
               .out = out,
               .col = out->col,
               .map = map,
               .nmap = nmap,
               .nscan = nmap,
               .keys = out->keys,
               .row = out->nrows,
               .line = first_line,
               .strict = strict,
               .file = file,
               .e = e,
               .row0 = out->nrows,
               .end = buf + n};
    size_t pos = 0;
    uint64_t line = first_line;
    if (b.keys && b.keys->nkmap > b.nscan)
        b.nscan = b.keys->nkmap;
    int short8 = num_short_format(d->num, &b.point);
#ifdef NUM_LANES
    b.lanes = strcmp(csv_simd_kernel(), "avx2") == 0;
    b.exp_lanes =
        b.lanes && num_short8_exp_plain(d->num ? d->num->thousands : 0);
#endif
    if (d->whitespace) {
        int rc = ws_lines(&b, buf, n, &pos, &line);
        out->nrows = b.row;
        *consumed = pos;
        *lines = line - first_line;
        return rc;
    }
    struct csv_parser p;
    size_t most = min_size(n, BATCH);
    b.text = malloc(most + 1 + NUM_PAD);
    b.code = field_codes(d, map, nmap, short8);
    if (csv_simd_init(&b.ix, most) != 0 || !b.text || !b.code ||
        csv_init_growing(&p, CSV_APPEND_NULL) != 0) {
        csv_simd_free(&b.ix);
        free(b.text);
        free(b.code);
        return cs_fail(e, CS_ENOMEM, file, first_line, "out of memory");
    }
    csv_set_delim(&p, (unsigned char)b.delim);
    int rc = feed_lines(&p, &b, buf, n, &pos, &line);
    b.line = line;
    if (rc == CS_OK && pos == n)
        rc = finish(&p, &b, d, buf, n, first_line);
    csv_free(&p);
    csv_simd_free(&b.ix);
    free(b.text);
    free(b.code);
    if (b.err_pending)
        e->line = error_line(&b, d, buf, n, first_line);
    out->nrows = b.row;
    *consumed = pos;
    *lines = line - first_line;
    return rc == CS_OK ? CS_OK : CS_EDATA;
}
