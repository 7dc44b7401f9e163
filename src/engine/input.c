/* Opening an input and reading its head. */
#include "src/engine/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/num/parse_kind.h"
#include "io/num/parse_number.h"

/* The head grows until it holds HEAD_RECORDS whole records (a header and
 * data to detect it by) or the whole input, but past the record limit
 * (csv_max_record) only for nothing: a first record longer than that is
 * an error, as any later one is (csv_cut). */
#define HEAD_RECORDS 3
/* Sampling the first input for its default columns and their kinds: its
 * first STREAM_HEAD bytes, in every form. */
#define STREAM_HEAD ((size_t)4 << 20)

static void free_names(char **names, int n)
{
    for (int i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

static void input_free(input *in)
{
    if (in->src)
        source_close(in->src);
    free(in->name);
    free(in->head);
    free(in->header_line);
    free_names(in->names, in->nfields);
    free(in->numeric);
    free(in->why);
    free(in->map);
    free(in->kmap);
    free(in);
}

void input_hold(input *in)
{
    in->refs++;
}

void input_release(input *in)
{
    if (in && --in->refs == 0)
        input_free(in);
}

/* Binary records name their fields "1", "2", ... and all hold numbers. */
static int binary_fields(input *in, cs_error *e)
{
    int n = in->spec->nfields;
    in->names = calloc((size_t)n, sizeof *in->names);
    in->numeric = malloc((size_t)n);
    if (!in->names || !in->numeric)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    in->nfields = n;
    memset(in->numeric, 1, (size_t)n);
    for (int i = 0; i < n; i++) {
        in->names[i] = malloc(16);
        if (!in->names[i])
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        snprintf(in->names[i], 16, "%d", i + 1);
    }
    return CS_OK;
}

/* Reads the head on to n bytes, fewer only at the end (head_eof). */
static int read_head(input *in, size_t n, account *acc, cs_error *e)
{
    char *p = realloc(in->head, n ? n : 1);
    if (!p)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    in->head = p;
    size_t had = in->head_len;
    double t0 = account_now();
    while (in->head_len < n) {
        ssize_t r =
            source_read(in->src, in->head + in->head_len, n - in->head_len, e);
        if (r < 0)
            return CS_EDATA;
        if (r == 0) {
            in->head_eof = 1;
            break;
        }
        in->head_len += (size_t)r;
    }
    account_time(acc, ACC_READ, account_now() - t0);
    account_bytes(acc, in->head_len - had);
    return CS_OK;
}

/* JSON read as CSV would fail further on with a misleading message
 * (an unterminated quoted field, one field a line): it is refused by name
 * here, with what to do instead, as io/codec/magic.c refuses Parquet. */
static int refuse_json(const input *in, cs_error *e)
{
    int kind = csv_json_kind(in->head, in->head_len);
    if (kind == CSV_JSON_LINES)
        return cs_fail(e, CS_EDATA, in->name, 0,
                       "JSON lines (an object a line), not read by colstat: "
                       "convert them to CSV first, such as jq -r '[.a, .b] | "
                       "@csv' FILE | colstat");
    if (kind == CSV_JSON)
        return cs_fail(e, CS_EDATA, in->name, 0,
                       "JSON document, not read by colstat: convert it to "
                       "CSV first, such as jq -r '.[] | [.a, .b] | @csv' "
                       "FILE | colstat");
    return CS_OK;
}

/* A record in the head past the limit: the first one's message, or a
 * later one's as the cutter words it (csv_cut), on the line after the
 * head's last line end (a record with quoted line ends began earlier). */
static int head_too_long(const input *in, size_t last_end, size_t limit,
                         cs_error *e)
{
    char lim[32];
    csv_size_text(limit, lim, sizeof lim);
    if (last_end == 0)
        return cs_fail(e, CS_EDATA, in->name, 1,
                       "the first record does not end within %s (the "
                       "longest record colstat reads)",
                       lim);
    uint64_t line = 1;
    for (const char *p = in->head;
         (p = memchr(p, '\n', (size_t)(in->head + last_end - p))); p++)
        line++;
    return cs_fail(e, CS_EDATA, in->name, line,
                   "a record longer than %s (the longest record colstat "
                   "reads)",
                   lim);
}

/* Whole records in the head (-1: no memory), of a dialect detected
 * afresh. */
static int head_records(const input *in)
{
    csv_dialect d = in->dialect;
    d.header = 0;
    d.repeat = NULL;
    d.repeat_len = 0;
    csv_detect(in->head, in->head_len, in->head_eof, &d);
    return csv_sample(in->head, in->head_len, in->head_eof, &d, 0, HEAD_RECORDS,
                      0, NULL, NULL, NULL);
}

/* Where the bytes after the last CR or LF of p[0, n) begin (0: none). */
static size_t after_line_end(const char *p, size_t n)
{
    const char *lf = memrchr(p, '\n', n), *cr = memrchr(p, '\r', n);
    const char *last = lf > cr ? lf : cr;
    return last ? (size_t)(last - p) + 1 : 0;
}

/* The head grows (doubling) until it holds a few whole records, so
 * that a first record (a header of 150000 names) longer than the first
 * read is read whole, as the same record later in the input would be.
 * Records are counted again only when new bytes end a line (a long
 * record is not parsed again at every doubling: a 256 MiB one took 49
 * s), and more bytes after the last line end than the record limit are
 * a record too long, found here before anything parses the head. */
static int grow_head(input *in, account *acc, cs_error *e)
{
    size_t last_end = 0; /* the bytes after the head's last line end */
    int got = 0;
    for (;;) {
        size_t end = after_line_end(in->head, in->head_len);
        if (in->head_eof || end > last_end) {
            if ((got = head_records(in)) < 0)
                return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
            last_end = end;
        }
        if (got >= HEAD_RECORDS || in->head_eof)
            return CS_OK;
        size_t limit = csv_max_record(&in->dialect);
        if (in->head_len - last_end > limit)
            return head_too_long(in, last_end, limit, e);
        size_t cap = last_end + limit + 1, n = 2 * in->head_len + 4096 < cap
                                                   ? 2 * in->head_len + 4096
                                                   : cap;
        if (read_head(in, n, acc, e) != CS_OK)
            return e->status;
    }
}

/* Item 3: the header line, once more inside the data (files joined by
 * cat or zcat), is a repeated header: kept as the dialect's repeat. Not
 * for a header of numbers alone (--header on numbers), where a line like
 * it is a record, nor for a header spanning lines. */
static int keep_header_line(input *in, size_t end, cs_error *e)
{
    size_t at =
        in->head_len >= 3 && !memcmp(in->head, "\xEF\xBB\xBF", 3) ? 3 : 0;
    end -= end > at && in->head[end - 1] == '\n';
    end -= end > at && in->head[end - 1] == '\r';
    int text = 0;
    for (int f = 0; f < in->nfields; f++) {
        double v;
        text |=
            parse_number(in->names[f], strlen(in->names[f]), &v) == NUM_INVALID;
    }
    if (!text || memchr(in->head + at, '\n', end - at) ||
        memchr(in->head + at, '\r', end - at))
        return CS_OK;
    if (!(in->header_line = malloc(end - at + 1)))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    memcpy(in->header_line, in->head + at, end - at);
    in->header_line[end - at] = '\0';
    in->dialect.repeat = in->header_line;
    in->dialect.repeat_len = end - at;
    return CS_OK;
}

/* The dialect, the header and the sample of a CSV head; the header bytes
 * are dropped from the head. An empty input shows no fields. */
static int csv_fields(input *in, cs_error *e)
{
    if (in->head_len == 0 && in->head_eof)
        return CS_OK;
    csv_detect(in->head, in->head_len, in->head_eof, &in->dialect);
    csv_head h;
    int rc = csv_read_head(in->head, in->head_len, in->head_eof, &in->dialect,
                           in->name, &h, e);
    if (rc != CS_OK)
        return rc;
    in->nfields = h.nfields;
    in->names = h.names;
    in->numeric = h.numeric;
    in->named = in->dialect.header == 1;
    if (in->named && keep_header_line(in, h.skip_bytes, e) != CS_OK)
        return e->status;
    in->head_len -= h.skip_bytes;
    memmove(in->head, in->head + h.skip_bytes, in->head_len);
    in->data_off = h.skip_bytes;
    in->first_line = h.skip_lines + 1;
    return CS_OK;
}

/* Counts of numbers and other texts per field over the input's first
 * STREAM_HEAD bytes, whatever its form: a stream's head was read that far;
 * a plain file's are read by offset, leaving its head as it is. The same
 * bytes give the same column kinds to a file, its gzip and a pipe (a plain
 * file sampled further than a stream once made a text column a number
 * column in one form and not in the other). Sets *whole when they are the
 * whole input. */
static int sample_counts(input *in, unsigned *num, unsigned *bad, int *whole,
                         cs_error *e)
{
    const char *buf = in->head;
    size_t n = in->head_len;
    char *w = NULL;
    *whole = in->head_eof;
    if (!in->head_eof && source_can_pread(in->src) &&
        in->data_off + in->head_len < STREAM_HEAD) {
        uint64_t size = source_file_size(in->src);
        uint64_t end = size < STREAM_HEAD ? size : STREAM_HEAD;
        n = end > in->data_off ? (size_t)(end - in->data_off) : 0;
        if (!(w = malloc(n ? n : 1)))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        if (source_pread(in->src, w, n, in->data_off, e) < 0) {
            free(w);
            return e->status;
        }
        buf = w;
        *whole = end == size;
    }
    int rc = csv_sample(buf, n, *whole, &in->dialect, 0, INT32_MAX, in->nfields,
                        num, bad, in->why) < 0
                 ? cs_fail(e, CS_ENOMEM, "", 0, "out of memory")
                 : CS_OK;
    free(w);
    return rc;
}

/* Item 6: which fields hold numbers, from a larger sample than the
 * header's detection needs (the first STREAM_HEAD bytes), so that a column
 * empty in the first records and numeric soon after is chosen. What stays
 * unseen is left to the engine (tentative columns). */
static int classify_fields(input *in, cs_error *e)
{
    size_t n = (size_t)(in->nfields ? in->nfields : 1);
    unsigned *num = calloc(n, sizeof *num), *bad = calloc(n, sizeof *bad);
    in->why = calloc(n, sizeof *in->why);
    int whole = 0;
    int rc = num && bad && in->why
                 ? sample_counts(in, num, bad, &whole, e)
                 : cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int f = 0; rc == CS_OK && f < in->nfields; f++) {
        in->numeric[f] = num[f] > bad[f]              ? CSV_NUMBERS
                         : num[f] == 0 && bad[f] == 0 ? CSV_UNSEEN
                                                      : CSV_TEXT;
        in->why[f].numbers = num[f];
        in->why[f].texts = bad[f];
        in->why[f].whole = whole;
        if (csv_why_kind(&in->why[f]) != KIND_NUMBER)
            in->numeric[f] = CSV_NUMBERS; /* dates, numbers with a unit */
    }
    free(num);
    free(bad);
    return rc;
}

static int sample_fields(input *in, account *acc, cs_error *e)
{
    if (!in->head_eof && !source_can_pread(in->src) &&
        in->data_off + in->head_len < STREAM_HEAD &&
        read_head(in, STREAM_HEAD - in->data_off, acc, e) != CS_OK)
        return e->status;
    return classify_fields(in, e);
}

/* The sample taken again once --names made their line a repeated header:
 * a piece that holds the file's header and one row read the header's
 * texts as a row, which outvoted the row's numbers. Over the head as
 * read from the start (seen_len), whatever part the head now keeps. */
static int resample(input *in, cs_error *e)
{
    size_t len = in->head_len;
    int eof = in->head_eof;
    in->head_len = in->seen_len;
    in->head_eof = in->seen_eof;
    free(in->why);
    in->why = NULL;
    int rc = classify_fields(in, e);
    in->head_len = len;
    in->head_eof = eof;
    return rc;
}

/* The data of the input is the part only: the head's bytes are dropped
 * and the source reads [lo, hi) of the file, never the header. */
static int apply_part(input *in, const engine_part *p, cs_error *e)
{
    uint64_t lo = p->lo, line = p->line;
    if (p->lo == p->hi) {
        in->none = 1;
        return CS_OK;
    }
    if (lo <= in->data_off) { /* the part begins with the data */
        lo = in->data_off;
        line = in->first_line;
    }
    if (p->hi == ENGINE_PART_END && lo == in->data_off)
        return CS_OK;
    if (!source_can_pread(in->src))
        return cs_fail(e, CS_EDATA, in->name, 0,
                       "only a plain file can be read in parts");
    uint64_t hi = p->hi < lo ? lo : p->hi;
    in->head_len = 0;
    in->head_eof = hi == lo;
    in->data_off = lo;
    in->first_line = line;
    return source_window(in->src, lo, hi, e);
}

int input_open(const char *path, const source_config *scfg,
               const binary_spec *spec, csv_dialect dialect, size_t head_bytes,
               int sample, const engine_part *part, account *acc, input **out,
               cs_error *e)
{
    *out = NULL;
    input *in = calloc(1, sizeof *in);
    if (!in)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    in->refs = 1;
    in->spec = spec;
    in->dialect = dialect;
    in->first_line = 1;
    source_config cfg = scfg ? *scfg : (source_config){0};
    cfg.raw_binary = spec != NULL;
    int rc = source_open_cfg(path, &cfg, &in->src, e);
    if (rc == CS_OK && !(in->name = strdup(source_name(in->src))))
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (rc == CS_OK && spec)
        in->by_range =
            source_can_pread(in->src) && source_file_size(in->src) > 0;
    if (rc == CS_OK && !in->by_range)
        rc = read_head(in, head_bytes, acc, e);
    if (rc == CS_OK && !spec)
        rc = refuse_json(in, e);
    if (rc == CS_OK && !spec)
        rc = grow_head(in, acc, e);
    if (rc == CS_OK)
        rc = spec ? binary_fields(in, e) : csv_fields(in, e);
    if (rc == CS_OK && !spec && sample && in->nfields)
        rc = sample_fields(in, acc, e);
    in->seen_len = in->head_len;
    in->seen_eof = in->head_eof;
    in->seen_line = in->first_line;
    if (rc == CS_OK && part)
        rc = apply_part(in, part, e);
    if (rc != CS_OK) {
        input_free(in);
        return e->status;
    }
    *out = in;
    return CS_OK;
}

int input_map(input *in, const col_table *t, cs_error *e)
{
    int nmap = in->nfields;
    for (int k = 0; k < t->ncols; k++)
        if (t->fields[k] + 1 > nmap)
            nmap = t->fields[k] + 1;
    in->nmap = nmap;
    in->map = malloc((size_t)(nmap ? nmap : 1) * sizeof *in->map);
    if (!in->map)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    col_fields f = {in->names, in->numeric,      in->nfields, in->named,
                    in->name,  in->spec != NULL, in->why,     0};
    return columns_map(t, &f, nmap, in->map, e);
}

int input_map_keys(input *in, const col_table *keys, cs_error *e)
{
    int nmap = in->nfields;
    for (int k = 0; k < keys->ncols; k++)
        if (keys->fields[k] + 1 > nmap)
            nmap = keys->fields[k] + 1;
    free(in->kmap);
    in->nkmap = nmap;
    in->nkeys = keys->ncols;
    in->kmap = malloc((size_t)(nmap ? nmap : 1) * sizeof *in->kmap);
    if (!in->kmap)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    col_fields f = {in->names, in->numeric,      in->nfields, in->named,
                    in->name,  in->spec != NULL, in->why,     0};
    return columns_map(keys, &f, nmap, in->kmap, e);
}

/* The names joined by the delimiter: the line a headerless part holds
 * where the file's header was (a repeated header, skipped). */
static char *names_line(char *const *names, int n, char delim)
{
    size_t len = 1;
    for (int k = 0; k < n; k++)
        len += strlen(names[k]) + 1;
    char *line = malloc(len), *at = line;
    for (int k = 0; line && k < n; k++) {
        size_t m = strlen(names[k]);
        memcpy(at, names[k], m);
        at += m;
        *at++ = delim;
    }
    if (line)
        at[n ? -1 : 0] = '\0';
    return line;
}

int input_no_rows(const input *in)
{
    if (!in->seen_eof)
        return 0;
    if (in->spec)
        return in->seen_len == 0;
    const char *p = in->head, *end = in->head + in->seen_len;
    while (p < end) {
        size_t rep = csv_repeat_at(&in->dialect, p, (size_t)(end - p));
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if (!rep && !(eol == p || (eol == p + 1 && *p == '\r')))
            return 0;
        p = rep ? p + rep : (nl ? nl + 1 : end);
    }
    return 1;
}

int input_quote_open(const input *in, cs_error *e)
{
    if (in->spec || in->dialect.whitespace || !in->seen_eof)
        return CS_OK;
    csv_cutter c;
    csv_cutter_init(&c, &in->dialect, in->seen_line);
    if (csv_cut(&c, in->head, in->seen_len, 1, in->name, e) == (size_t)-1)
        return e->status ? e->status : CS_EDATA;
    return CS_OK;
}

int input_give_names(input *in, char *const *names, int n, cs_error *e)
{
    if (in->nfields == 0)
        return CS_OK;
    if (in->nfields != n)
        return cs_fail(e, CS_EUSAGE, in->name, 0,
                       "--names gives %d name%s; the input has %d field%s", n,
                       n == 1 ? "" : "s", in->nfields,
                       in->nfields == 1 ? "" : "s");
    char **own = calloc((size_t)n, sizeof *own);
    char *line = names_line(names, n, in->dialect.delim);
    for (int k = 0; own && k < n; k++)
        if (!(own[k] = strdup(names[k])))
            break;
    if (!own || !line || (n && !own[n - 1])) {
        free_names(own, n);
        free(line);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    free_names(in->names, in->nfields);
    in->names = own;
    in->named = 1;
    free(in->header_line);
    in->header_line = line;
    in->dialect.repeat = line;
    in->dialect.repeat_len = strlen(line);
    return in->why ? resample(in, e) : CS_OK;
}
