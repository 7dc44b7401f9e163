/* Tests of io/csv/csv_reader: fixed cases for each CSV feature, and a
 * randomized differential test against a small RFC 4180 reference parser
 * written here (state machine + strtod). */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "io/csv/csv_reader.h"
#include "io/csv/csv_simd.h"
#include "io/num/parse_number.h"
#include "tests/testlib.h"

static unsigned long long rng_state;

static uint64_t rnd(void)
{
    /* xorshift64* (Vigna, "An experimental exploration of Marsaglia's
     * xorshift generators, scrambled", 2016) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static size_t rndn(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

static int quick(void)
{
    return getenv("COLSTAT_TEST_QUICK") != NULL;
}

/* ---- growable text ---- */

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = 2 * (t->n + n + 1);
        t->s = realloc(t->s, t->cap);
        ck_assert_ptr_nonnull(t->s);
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = 0;
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* ---- what the reader produced, over all row batches ---- */

enum { MAXC = 8 };

typedef struct result {
    size_t rows;
    int ncols;
    double *v[MAXC];
    int32_t *corr[MAXC]; /* 0 where the row batch kept no correction */
    uint64_t missing[MAXC], invalid[MAXC], nan[MAXC], first_invalid[MAXC];
    uint64_t repeats, repeat_line; /* repeated headers skipped, the first */
} result;

static void result_init(result *r, int ncols)
{
    memset(r, 0, sizeof *r);
    r->ncols = ncols;
}

static void result_free(result *r)
{
    for (int c = 0; c < MAXC; c++) {
        free(r->v[c]);
        free(r->corr[c]);
    }
    memset(r, 0, sizeof *r);
}

static void result_push(result *r, int c, double v, int32_t corr)
{
    /* r->rows is the row being pushed for column c */
    r->v[c] = realloc(r->v[c], (r->rows + 1) * sizeof(double));
    r->corr[c] = realloc(r->corr[c], (r->rows + 1) * sizeof(int32_t));
    ck_assert_ptr_nonnull(r->v[c]);
    ck_assert_ptr_nonnull(r->corr[c]);
    r->v[c][r->rows] = v;
    r->corr[c][r->rows] = corr;
}

static void take_batch(result *r, row_batch *ch)
{
    for (size_t i = 0; i < ch->nrows; i++) {
        for (int c = 0; c < r->ncols; c++)
            result_push(r, c, ch->col[c][i],
                        ch->has_corr[c] ? ch->corr[c][i] : 0);
        r->rows++;
    }
    if (!r->repeats)
        r->repeat_line = ch->repeat_line;
    r->repeats += ch->repeats;
    for (int c = 0; c < r->ncols; c++) {
        uint64_t base = r->rows - ch->nrows;
        r->missing[c] += ch->missing[c];
        r->invalid[c] += ch->invalid[c];
        r->nan[c] += ch->nan[c];
        if (!r->first_invalid[c] && ch->first_invalid[c])
            r->first_invalid[c] = base + ch->first_invalid[c];
    }
    row_batch_clear(ch);
}

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void assert_same(const result *a, const result *b, uint64_t seed)
{
    ck_assert_msg(a->rows == b->rows, "rows %zu vs %zu (seed %llu)", a->rows,
                  b->rows, (unsigned long long)seed);
    for (int c = 0; c < a->ncols; c++) {
        ck_assert_msg(
            a->missing[c] == b->missing[c] && a->invalid[c] == b->invalid[c] &&
                a->nan[c] == b->nan[c] &&
                a->first_invalid[c] == b->first_invalid[c],
            "col %d counters differ (seed %llu)", c, (unsigned long long)seed);
        for (size_t i = 0; i < a->rows; i++) {
            ck_assert_msg(same_double(a->v[c][i], b->v[c][i]),
                          "col %d row %zu: %.17g vs %.17g (seed %llu)", c, i,
                          a->v[c][i], b->v[c][i], (unsigned long long)seed);
            ck_assert_msg(a->corr[c][i] == b->corr[c][i],
                          "col %d row %zu: correction %ld vs %ld (seed %llu)",
                          c, i, (long)a->corr[c][i], (long)b->corr[c][i],
                          (unsigned long long)seed);
        }
    }
}

/* ---- driving the reader like the engine does ---- */

typedef struct run_opts {
    size_t window;    /* bytes offered to csv_cut at a time; 0: all */
    size_t cap;       /* row batch rows */
    int strict;       /* --strict: columns [0, strict) are */
    uint64_t *starts; /* if set: check csv_line_of_row against these */
    size_t nstarts;
} run_opts;

static void check_row_lines(const csv_dialect *d, const char *blk, size_t k,
                            uint64_t line, size_t row0, const run_opts *o)
{
    if (!o->starts)
        return;
    /* Every row of the block starts where the reference says. */
    for (uint64_t r = 1; row0 + r <= o->nstarts; r++) {
        uint64_t got = csv_line_of_row(d, blk, k, line, r);
        if (got == 0)
            break;
        ck_assert_msg(got == o->starts[row0 + r - 1],
                      "row %llu: reference line %llu, got %llu",
                      (unsigned long long)(row0 + r),
                      (unsigned long long)o->starts[row0 + r - 1],
                      (unsigned long long)got);
    }
}

/* Parses one cut block into r through a row batch of o->cap rows. */
static int parse_cut_block(const csv_dialect *d, const char *blk, size_t k,
                           uint64_t line, const int *map, int nmap,
                           const run_opts *o, row_batch *ch, result *r,
                           cs_error *e)
{
    size_t off = 0;
    uint64_t at_line = line;
    size_t row0 = r->rows + ch->nrows;
    check_row_lines(d, blk, k, line, row0, o);
    do {
        if (ch->nrows == ch->cap)
            take_batch(r, ch);
        size_t consumed = 0;
        uint64_t lines = 0, nl = 0;
        static const char *const labels[] = {"'a'", "'b'", "'c'", "'d'",
                                             "'e'", "'f'", "'g'", "'h'"};
        csv_strict st = {o->strict, labels, NULL};
        int rc = csv_parse_block(d, blk + off, k - off, at_line, map, nmap,
                                 o->strict ? &st : NULL, "t.csv", ch, &consumed,
                                 &lines, e);
        if (rc != CS_OK)
            return rc;
        for (size_t i = off; i < off + consumed; i++)
            nl += blk[i] == '\n';
        ck_assert_uint_eq(lines, nl);
        ck_assert(consumed == k - off || ch->nrows == ch->cap);
        off += consumed;
        at_line += lines;
    } while (off < k);
    return CS_OK;
}

/* Cuts buf[0, n) in windows, parses every block; returns the status. */
static int run_reader(const csv_dialect *d, const char *buf, size_t n,
                      uint64_t first_line, const int *map, int nmap, int ncols,
                      const run_opts *o, result *r, cs_error *e)
{
    csv_cutter c;
    row_batch ch;
    ck_assert_int_eq(row_batch_init(&ch, ncols, o->cap, NULL), 0);
    csv_cutter_init(&c, d, first_line);
    result_init(r, ncols);
    size_t pos = 0, window = o->window ? o->window : n + 1;
    int rc = CS_OK;
    while (pos < n && rc == CS_OK) {
        size_t m = n - pos < window ? n - pos : window;
        uint64_t line = c.line;
        size_t k = csv_cut(&c, buf + pos, m, pos + m == n, "t.csv", e);
        if (k == (size_t)-1) {
            rc = CS_EDATA;
            break;
        }
        if (k == 0) {
            window *= 2; /* a record longer than the window */
            continue;
        }
        rc = parse_cut_block(d, buf + pos, k, line, map, nmap, o, &ch, r, e);
        pos += k;
    }
    take_batch(r, &ch);
    row_batch_free(&ch, NULL);
    return rc;
}

/* Parses s whole (one block, one row batch), all fields mapped in order. */
static int parse_all(const char *s, char delim, int ncols, result *r,
                     int strict, cs_error *e)
{
    csv_dialect d = {.delim = delim, .header = 0};
    int map[MAXC];
    for (int i = 0; i < MAXC; i++)
        map[i] = i < ncols ? i : -1;
    run_opts o = {0, 1000, strict, NULL, 0};
    return run_reader(&d, s, strlen(s), 1, map, ncols, ncols, &o, r, e);
}

#define NEAR(a, b)                                                             \
    ck_assert_msg(same_double((a), (b)), "%.17g != %.17g", (double)(a),        \
                  (double)(b))

/* ---- fixed cases ---- */

START_TEST(quoted_fields)
{
    result r;
    cs_error e = {0};
    const char *s = "\"12.5\",\"a,b\",3\n"
                    "\"x\"\"y\",4,\"1e3\"\n"
                    "\"7\n\",\"8\",\" -9 \"\n"
                    "\"line\none\",1,2\n";
    ck_assert_int_eq(parse_all(s, ',', 3, &r, 0, &e), CS_OK);
    ck_assert_uint_eq(r.rows, 4);
    NEAR(r.v[0][0], 12.5);
    ck_assert(isnan(r.v[1][0]));
    NEAR(r.v[2][0], 3);
    ck_assert(isnan(r.v[0][1]));
    NEAR(r.v[1][1], 4);
    NEAR(r.v[2][1], 1000);
    ck_assert(isnan(r.v[0][2])); /* "7\n": a newline is not a blank */
    NEAR(r.v[1][2], 8);
    NEAR(r.v[2][2], -9);
    ck_assert_uint_eq(r.invalid[0], 3);
    ck_assert_uint_eq(r.invalid[1], 1);
    ck_assert_uint_eq(r.first_invalid[0], 2);
    ck_assert_uint_eq(r.first_invalid[1], 1);
    result_free(&r);
}
END_TEST

START_TEST(crlf_and_final_record)
{
    result r;
    cs_error e = {0};
    ck_assert_int_eq(parse_all("1,2\r\n3,4\r\n\r\n5,6", ',', 2, &r, 0, &e),
                     CS_OK);
    ck_assert_uint_eq(r.rows, 3);
    NEAR(r.v[0][2], 5);
    NEAR(r.v[1][2], 6);
    NEAR(r.v[1][1], 4);
    ck_assert_uint_eq(r.missing[0] + r.missing[1], 0);
    result_free(&r);
    ck_assert_int_eq(parse_all("1,\"2\"\r\n3,", ',', 2, &r, 0, &e), CS_OK);
    ck_assert_uint_eq(r.rows, 2);
    NEAR(r.v[1][0], 2);
    ck_assert_uint_eq(r.missing[1], 1);
    result_free(&r);
}
END_TEST

START_TEST(bom_and_header)
{
    const char *s = "\xEF\xBB\xBF"
                    "id,\"price, usd\",qty\r\n1,2.5,3\n2,x,4\n";
    csv_dialect d = {.delim = 0, .header = -1};
    csv_head h;
    cs_error e = {0};
    csv_detect(s, strlen(s), 1, &d);
    ck_assert_int_eq(d.delim, ',');
    ck_assert_int_eq(d.header, 1);
    ck_assert_int_eq(csv_read_head(s, strlen(s), 1, &d, "t", &h, &e), CS_OK);
    ck_assert_int_eq(h.nfields, 3);
    ck_assert_str_eq(h.names[0], "id");
    ck_assert_str_eq(h.names[1], "price, usd");
    ck_assert_str_eq(h.names[2], "qty");
    ck_assert_uint_eq(h.skip_bytes, 3 + 21);
    ck_assert_uint_eq(h.skip_lines, 1);
    ck_assert(h.numeric[0] && h.numeric[2]);
    ck_assert(!h.numeric[1]); /* one number, one text: not a majority */
    csv_head_free(&h);

    /* No header: names are field numbers; only the BOM is skipped. */
    d = (csv_dialect){.delim = 0, .header = -1};
    s = "\xEF\xBB\xBF"
        "1;2\n3;x\n";
    csv_detect(s, strlen(s), 1, &d);
    ck_assert_int_eq(d.delim, ';');
    ck_assert_int_eq(d.header, 0);
    ck_assert_int_eq(csv_read_head(s, strlen(s), 1, &d, "t", &h, &e), CS_OK);
    ck_assert_int_eq(h.nfields, 2);
    ck_assert_str_eq(h.names[1], "2");
    ck_assert_uint_eq(h.skip_bytes, 3);
    ck_assert_uint_eq(h.skip_lines, 0);
    ck_assert(h.numeric[0] && !h.numeric[1]);
    csv_head_free(&h);
}
END_TEST

START_TEST(head_edges)
{
    csv_dialect d = {.delim = ',', .header = 1};
    csv_head h;
    cs_error e = {0};
    /* The first record must end within the bytes given (unless at EOF). */
    ck_assert_int_eq(csv_read_head("a,b,c", 5, 0, &d, "t", &h, &e), CS_EDATA);
    ck_assert_uint_eq(e.line, 1);
    ck_assert_ptr_null(h.names);
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(csv_read_head("a,,c", 4, 1, &d, "t", &h, &e), CS_OK);
    ck_assert_int_eq(h.nfields, 3);
    ck_assert_str_eq(h.names[1], "2"); /* an empty name: its number */
    ck_assert_uint_eq(h.skip_bytes, 4);
    csv_head_free(&h);
    /* Empty input: no fields. */
    ck_assert_int_eq(csv_read_head("\xEF\xBB\xBF\n\n", 5, 1, &d, "t", &h, &e),
                     CS_OK);
    ck_assert_int_eq(h.nfields, 0);
    ck_assert_uint_eq(h.skip_bytes, 3);
    csv_head_free(&h);
    /* Not at EOF, a partial last record is no sample: "4e" is cut short. */
    const char *partial = "x,y\n1,2\nab,4e";
    d = (csv_dialect){.delim = 0, .header = -1};
    csv_detect(partial, strlen(partial), 0, &d);
    ck_assert_int_eq(d.header, 1);
    ck_assert_int_eq(
        csv_read_head(partial, strlen(partial), 0, &d, "t", &h, &e), CS_OK);
    ck_assert(h.numeric[0] && h.numeric[1]);
    ck_assert_uint_eq(h.skip_bytes, 4);
    ck_assert_uint_eq(h.skip_lines, 1);
    csv_head_free(&h);
    /* A long invalid field is shortened in the message. */
    text t = {0};
    puts_(&t, "1\n");
    for (int i = 0; i < 100; i++)
        puts_(&t, "z");
    result r;
    ck_assert_int_eq(parse_all(t.s, ',', 1, &r, 1, &e), CS_EDATA);
    ck_assert_uint_eq(e.line, 2);
    ck_assert_str_eq(e.msg,
                     "column 'a': 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz..."
                     "' is not a number");
    result_free(&r);
    free(t.s);
}
END_TEST

START_TEST(header_detection)
{
    static const struct {
        const char *s;
        int header;
    } cases[] = {
        {"a,b\n1,2\n", 1},
        {"1,2\n3,4\n", 0},
        {"a,b\n", 1},
        {"1,2", 0},
        {"year,2020\n1,5\n", 1},
        {"bob,3\nann,4\n", 0},
        {"name,city\nbob,paris\n", 1},
        {"\"x\",\"y\"\n\"1\",\"2\"\n", 1},
        {"\n\nx,y\n1,2\n", 1},
        {"x,y\n,\n1,\n", 1},
        {"1.5,abc\n2.5,def\n", 0},
        {"nan,1\n2,3\n", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        csv_dialect d = {.delim = 0, .header = -1};
        csv_detect(cases[i].s, strlen(cases[i].s), 1, &d);
        ck_assert_msg(d.header == cases[i].header, "case %zu: %s", i,
                      cases[i].s);
    }
    /* A header given by the user is kept. */
    csv_dialect d = {.delim = '|', .header = 0};
    csv_detect("a,b\n1,2\n", 8, 1, &d);
    ck_assert_int_eq(d.header, 0);
    ck_assert_int_eq(d.delim, '|');
}
END_TEST

START_TEST(delimiter_detection)
{
    static const struct {
        const char *s;
        char delim;
    } cases[] = {
        {"a,b,c\n1,2,3\n", ','},   {"a\tb\tc\n", '\t'},
        {"a;b;c\n", ';'},          {"a|b|c\n", '|'},
        {"\"a,b,c\";d;e\n", ';'},  {"single\n1\n", ','},
        {"a;b,c;d\n", ';'},        {"\n\na|b\n", '|'},
        {"\"x\ny,z,w\"|q\n", '|'}, {"a,b;c;d\n1,2;3;4\n", ';'},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        csv_dialect d = {.delim = 0, .header = 0};
        csv_detect(cases[i].s, strlen(cases[i].s), 0, &d);
        ck_assert_msg(d.delim == cases[i].delim, "case %zu: got '%c'", i,
                      d.delim);
    }
}
END_TEST

/* The man page's rule on random first lines: the most frequent of comma,
 * TAB, semicolon and bar outside quotes, a tie to the first in that
 * order, a comma when none occurs. */
START_TEST(delimiter_ties)
{
    static const char cand[] = {',', '\t', ';', '|'};
    for (int round = 0; round < 500; round++) {
        char s[256];
        size_t n = 0, count[4] = {0};
        size_t len = rnd() % 40;
        for (size_t i = 0; i < len; i++) {
            uint64_t r = rnd() % 8;
            if (r < 4) {
                s[n++] = cand[r];
                count[r]++;
            } else if (r == 4) { /* a quoted candidate counts for none */
                s[n++] = '"';
                s[n++] = cand[rnd() % 4];
                s[n++] = '"';
            } else {
                s[n++] = (char)('a' + rnd() % 26);
            }
        }
        s[n++] = '\n';
        size_t best = 0;
        for (size_t k = 1; k < 4; k++)
            if (count[k] > count[best])
                best = k;
        char want = count[best] ? cand[best] : ',';
        csv_dialect d = {.delim = 0, .header = 0};
        csv_detect(s, n, 1, &d);
        ck_assert_msg(d.delim == want, "'%.*s': got %d, want %d", (int)n - 1, s,
                      d.delim, want);
    }
}
END_TEST

START_TEST(every_delimiter)
{
    static const char delims[] = {',', '\t', ';', '|'};
    for (size_t i = 0; i < sizeof delims; i++) {
        char s[128];
        char x = delims[i];
        snprintf(s, sizeof s, "a%cb%cc\n1%c \"2%c5\"%c3\n4%c%c6\n", x, x, x, x,
                 x, x, x);
        csv_dialect d = {.delim = 0, .header = -1};
        csv_detect(s, strlen(s), 1, &d);
        ck_assert_int_eq(d.delim, x);
        ck_assert_int_eq(d.header, 1);
        csv_head h;
        cs_error e = {0};
        ck_assert_int_eq(csv_read_head(s, strlen(s), 1, &d, "t", &h, &e),
                         CS_OK);
        ck_assert_int_eq(h.nfields, 3);
        result r;
        ck_assert_int_eq(parse_all(s + h.skip_bytes, x, 3, &r, 0, &e), CS_OK);
        ck_assert_uint_eq(r.rows, 2);
        NEAR(r.v[0][0], 1);
        ck_assert(isnan(r.v[1][0])); /* "2<delim>5" */
        NEAR(r.v[2][0], 3);
        NEAR(r.v[0][1], 4);
        ck_assert_uint_eq(r.missing[1], 1);
        NEAR(r.v[2][1], 6);
        result_free(&r);
        csv_head_free(&h);
    }
}
END_TEST

START_TEST(ragged_blank_empty_spaces)
{
    result r;
    cs_error e = {0};
    const char *s = "1,2,3\n"
                    "4\n"
                    "\n"
                    "  \t \n"
                    "5,6,7,8,9\n"
                    ",,\n"
                    " 1.5 ,\t-2\t,\" 3e1 \"\n"
                    "\"\"\n";
    ck_assert_int_eq(parse_all(s, ',', 3, &r, 0, &e), CS_OK);
    ck_assert_uint_eq(r.rows, 6);
    ck_assert_uint_eq(r.missing[0], 2);
    ck_assert_uint_eq(r.missing[1], 3);
    ck_assert_uint_eq(r.missing[2], 3);
    NEAR(r.v[2][2], 7);
    NEAR(r.v[0][4], 1.5);
    NEAR(r.v[1][4], -2);
    NEAR(r.v[2][4], 30);
    result_free(&r);

    csv_dialect d = {.delim = ',', .header = 0};
    ck_assert_uint_eq(csv_line_of_row(&d, s, strlen(s), 10, 3), 14);
    ck_assert_uint_eq(csv_line_of_row(&d, s, strlen(s), 10, 6), 17);
    ck_assert_uint_eq(csv_line_of_row(&d, s, strlen(s), 10, 7), 0);
}
END_TEST

START_TEST(nan_inf_invalid_counts)
{
    result r;
    cs_error e = {0};
    ck_assert_int_eq(
        parse_all("nan,inf\n-NaN,-Infinity\nabc,1e\n", ',', 2, &r, 0, &e),
        CS_OK);
    ck_assert_uint_eq(r.nan[0], 2);
    ck_assert_uint_eq(r.invalid[0], 1);
    ck_assert_uint_eq(r.first_invalid[0], 3);
    ck_assert(isinf(r.v[1][0]) && r.v[1][0] > 0);
    ck_assert(isinf(r.v[1][1]) && r.v[1][1] < 0);
    ck_assert_uint_eq(r.invalid[1], 1);
    result_free(&r);
}
END_TEST

/* The issue's nanosecond timestamps: the second column's corrections start
 * at its third row (the earlier ones read 0), missing and invalid fields
 * after it read 0, the first column never has any. */
START_TEST(integer_corrections)
{
    result r;
    cs_error e = {0};
    ck_assert_int_eq(parse_all("1,5\n2,1735704000123456789\n3,x\n"
                               "4,\n5,-1735704000123456790\n6,7\n",
                               ',', 2, &r, 0, &e),
                     CS_OK);
    static const int32_t want[] = {0, 21, 0, 0, -22, 0};
    ck_assert_uint_eq(r.rows, 6);
    for (size_t i = 0; i < 6; i++) {
        ck_assert_int_eq(r.corr[0][i], 0);
        ck_assert_int_eq(r.corr[1][i], want[i]);
    }
    ck_assert(r.v[1][1] == 1735704000123456768.0);
    result_free(&r);
}
END_TEST

START_TEST(unterminated_quote_line)
{
    const char *s = "1,2\n3,\"4\n\n5\",6\n7,\"8\n9,10\n11,12\n";
    result r;
    cs_error e = {0};
    csv_dialect d = {.delim = ',', .header = 0};
    int map[2] = {0, 1};
    for (size_t w = 1; w < 40; w += 3) {
        memset(&e, 0, sizeof e);
        run_opts o = {w, 3, 0, NULL, 0};
        ck_assert_int_eq(
            run_reader(&d, s, strlen(s), 20, map, 2, 2, &o, &r, &e), CS_EDATA);
        ck_assert_uint_eq(e.line, 24);
        ck_assert_str_eq(e.file, "t.csv");
        ck_assert_ptr_nonnull(strstr(e.msg, "quote"));
        result_free(&r);
    }
    /* The head reports it too when the first record never ends. */
    csv_head h;
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(csv_read_head("\n\"a,b\n", 6, 1, &d, "t", &h, &e),
                     CS_EDATA);
    ck_assert_uint_eq(e.line, 2);
    /* And the parser, when given an unterminated block directly. */
    memset(&e, 0, sizeof e);
    row_batch ch;
    size_t consumed;
    uint64_t lines;
    ck_assert_int_eq(row_batch_init(&ch, 2, 10, NULL), 0);
    ck_assert_int_eq(csv_parse_block(&d, s + 16, strlen(s) - 16, 24, map, 2, 0,
                                     "t", &ch, &consumed, &lines, &e),
                     CS_EDATA);
    ck_assert_uint_eq(e.line, 24);
    row_batch_free(&ch, NULL);
}
END_TEST

START_TEST(strict_error_line)
{
    const char *s = "1,2\n\n3,\"4\n\"\n5,6\n7,abc\n8,9\n";
    result r;
    cs_error e = {0};
    csv_dialect d = {.delim = ',', .header = 0};
    int map[2] = {0, 1};
    run_opts o = {0, 2, 2, NULL, 0};
    ck_assert_int_eq(run_reader(&d, s, strlen(s), 17, map, 2, 2, &o, &r, &e),
                     CS_EDATA);
    ck_assert_uint_eq(e.line, 19); /* "4\n" spans lines 19 and 20 */
    result_free(&r);
    memset(&e, 0, sizeof e);
    o.cap = 1000; /* parsed in one batch, the line found afterwards */
    ck_assert_int_eq(run_reader(&d, s, strlen(s), 17, map, 2, 2, &o, &r, &e),
                     CS_EDATA);
    ck_assert_uint_eq(e.line, 19);
    ck_assert_str_eq(e.msg, "column 'b': '4\n' is not a number");
    result_free(&r);
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(
        run_reader(&d, s + 12, strlen(s) - 12, 21, map, 2, 2, &o, &r, &e),
        CS_EDATA);
    ck_assert_uint_eq(e.line, 22);
    ck_assert_str_eq(e.msg, "column 'b': 'abc' is not a number");
    result_free(&r);
    /* Only the strict columns: 'abc' is the second's, which is not. */
    o.strict = 1;
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(
        run_reader(&d, s + 12, strlen(s) - 12, 21, map, 2, 2, &o, &r, &e),
        CS_OK);
    ck_assert_uint_eq(r.rows, 3);
    result_free(&r);
    o.strict = 2;
    /* An unmapped invalid field is no error. */
    int map1[2] = {0, -1};
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(
        run_reader(&d, s + 12, strlen(s) - 12, 21, map1, 2, 1, &o, &r, &e),
        CS_OK);
    ck_assert_uint_eq(r.rows, 3);
    result_free(&r);
}
END_TEST

START_TEST(batch_full_resume)
{
    const char *s = "1,2\r\n\r\n3,\"4\n\"\r\n5,6\r7,8\n9,10\n11";
    csv_dialect d = {.delim = ',', .header = 0};
    int map[2] = {1, 0};
    row_batch ch;
    cs_error e = {0};
    size_t consumed;
    uint64_t lines;
    ck_assert_int_eq(row_batch_init(&ch, 2, 2, NULL), 0);
    ck_assert_int_eq(csv_parse_block(&d, s, strlen(s), 5, map, 2, 0, "t", &ch,
                                     &consumed, &lines, &e),
                     CS_OK);
    ck_assert_uint_eq(ch.nrows, 2);
    ck_assert_uint_eq(consumed, 15); /* through the CRLF after "4\n" */
    ck_assert_uint_eq(lines, 4);
    NEAR(ch.col[1][1], 3);
    ck_assert(isnan(ch.col[0][1]));
    row_batch_clear(&ch);
    ck_assert_int_eq(csv_parse_block(&d, s + 15, strlen(s) - 15, 9, map, 2, 0,
                                     "t", &ch, &consumed, &lines, &e),
                     CS_OK);
    ck_assert_uint_eq(ch.nrows, 2);
    ck_assert_uint_eq(consumed, 8); /* "5,6\r7,8\n": a bare CR ends a record */
    ck_assert_uint_eq(lines, 1);
    NEAR(ch.col[1][1], 7);
    row_batch_clear(&ch);
    ck_assert_int_eq(csv_parse_block(&d, s + 23, strlen(s) - 23, 10, map, 2, 0,
                                     "t", &ch, &consumed, &lines, &e),
                     CS_OK);
    ck_assert_uint_eq(ch.nrows, 2);
    ck_assert_uint_eq(consumed, strlen(s) - 23);
    ck_assert_uint_eq(lines, 1);
    NEAR(ch.col[1][1], 11);
    ck_assert_uint_eq(ch.missing[0], 1);
    /* A full row batch takes nothing. */
    ck_assert_int_eq(csv_parse_block(&d, s, strlen(s), 5, map, 2, 0, "t", &ch,
                                     &consumed, &lines, &e),
                     CS_OK);
    ck_assert_uint_eq(consumed, 0);
    ck_assert_uint_eq(lines, 0);
    row_batch_free(&ch, NULL);
}
END_TEST

/* ---- the reference: RFC 4180 records, then strtod ---- */

typedef struct ref_field {
    char *s;
    size_t n;
    int quoted;
    uint64_t line; /* where the field starts */
} ref_field;

typedef struct ref_record {
    ref_field *f;
    int nf;
    uint64_t line;
} ref_record;

typedef struct ref_file {
    ref_record *r;
    size_t nr;
    int open_quote; /* input ends inside quotes */
    uint64_t open_quote_line;
} ref_file;

static int blank_only(const ref_field *f)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->s[i] != ' ' && f->s[i] != '\t')
            return 0;
    return !f->quoted;
}

static void ref_end_record(ref_file *rf, ref_record *cur)
{
    /* A record of one blank unquoted field is a blank line, not a row. */
    if (cur->nf == 1 && blank_only(&cur->f[0])) {
        free(cur->f[0].s);
        free(cur->f);
    } else {
        rf->r = realloc(rf->r, (rf->nr + 1) * sizeof *rf->r);
        rf->r[rf->nr++] = *cur;
    }
    memset(cur, 0, sizeof *cur);
}

static void ref_new_field(ref_record *cur, uint64_t line)
{
    cur->f = realloc(cur->f, (size_t)(cur->nf + 1) * sizeof *cur->f);
    cur->f[cur->nf++] = (ref_field){calloc(1, 1), 0, 0, line};
}

static void ref_add(ref_record *cur, char ch)
{
    ref_field *f = &cur->f[cur->nf - 1];
    f->s = realloc(f->s, f->n + 2);
    f->s[f->n++] = ch;
    f->s[f->n] = 0;
}

static void ref_parse(const char *s, size_t n, char delim, uint64_t line,
                      ref_file *rf)
{
    enum { START, UNQ, QUO, QUO_QUOTE } st = START;
    ref_record cur = {0};
    memset(rf, 0, sizeof *rf);
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (st == START && !cur.nf) {
            cur.line = line;
            ref_new_field(&cur, line);
        }
        if (st == QUO) {
            if (ch == '"')
                st = QUO_QUOTE;
            else
                ref_add(&cur, ch);
        } else if (st == QUO_QUOTE && ch == '"') {
            ref_add(&cur, ch);
            st = QUO;
        } else if (ch == delim) {
            ref_new_field(&cur, line);
            st = START;
        } else if (ch == '\n' ||
                   (ch == '\r' && i + 1 < n && s[i + 1] == '\n')) {
            i += ch == '\r';
            ref_end_record(rf, &cur);
            st = START;
        } else if (st == START && ch == '"') {
            cur.f[cur.nf - 1].quoted = 1;
            rf->open_quote_line = line;
            st = QUO;
        } else {
            ref_add(&cur, ch);
            st = UNQ;
        }
        line += s[i] == '\n';
    }
    rf->open_quote = st == QUO;
    if (cur.nf)
        ref_end_record(rf, &cur);
}

static void ref_free(ref_file *rf)
{
    for (size_t i = 0; i < rf->nr; i++) {
        for (int j = 0; j < rf->r[i].nf; j++)
            free(rf->r[i].f[j].s);
        free(rf->r[i].f);
    }
    free(rf->r);
}

typedef enum { R_NUM, R_MISSING, R_INVALID, R_NAN } ref_kind;

static int digits(const char *s, size_t *i)
{
    size_t k = *i;
    while (isdigit((unsigned char)s[*i]))
        (*i)++;
    return *i > k;
}

/* Syntax of the contract of io/num/parse_number.h, value from strtod. */
static ref_kind ref_number(const char *s, double *v)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (!n)
        return R_MISSING;
    char t[256];
    if (n >= sizeof t)
        return R_INVALID;
    memcpy(t, s, n);
    t[n] = 0;
    const char *w = t + (t[0] == '+' || t[0] == '-');
    if (!strcasecmp(w, "nan"))
        return R_NAN;
    if (!strcasecmp(w, "inf") || !strcasecmp(w, "infinity")) {
        *v = t[0] == '-' ? -INFINITY : INFINITY;
        return R_NUM;
    }
    size_t i = (size_t)(w - t);
    int whole = digits(t, &i), frac = 0;
    if (t[i] == '.') {
        i++;
        frac = digits(t, &i);
    }
    if (!whole && !frac)
        return R_INVALID;
    if (t[i] == 'e' || t[i] == 'E') {
        i++;
        i += t[i] == '+' || t[i] == '-';
        if (!digits(t, &i))
            return R_INVALID;
    }
    if (t[i])
        return R_INVALID;
    *v = strtod(t, NULL);
    return R_NUM;
}

/* What the reader should give for rf under map; the strict error line (0 if
 * none) of columns [0, nstrict) goes to *strict_line. */
static void ref_expect(const ref_file *rf, const int *map, int nmap, int ncols,
                       int nstrict, result *r, uint64_t *strict_line)
{
    result_init(r, ncols);
    *strict_line = 0;
    for (size_t i = 0; i < rf->nr; i++) {
        for (int f = 0; f < nmap; f++) {
            int c = map[f];
            if (c < 0)
                continue;
            double v = NAN, same;
            int32_t corr = 0;
            const char *text = f < rf->r[i].nf ? rf->r[i].f[f].s : "";
            ref_kind k = ref_number(text, &v);
            /* the correction's value is test_parse_number's; here: that
               each lands on its row */
            if (k == R_NUM)
                parse_number_corr(text, strlen(text), &same, &corr);
            result_push(r, c, k == R_NUM ? v : NAN, corr);
            r->missing[c] += k == R_MISSING;
            r->nan[c] += k == R_NAN;
            if (k == R_INVALID) {
                r->invalid[c]++;
                if (!r->first_invalid[c])
                    r->first_invalid[c] = i + 1;
                if (!*strict_line && c < nstrict)
                    *strict_line = rf->r[i].f[f].line;
            }
        }
        r->rows++;
    }
}

/* ---- random CSV in the common ground of RFC 4180 and libcsv ---- */

/* 1: values are mostly short fixed-point numbers, 2: mostly as %e prints
 * them, as in columns the reader takes four fields at a time (num_short4,
 * num_exp4). */
static int mostly_short;

static void random_value(text *t, char delim)
{
    static const char *odd[] = {
        "abc",  "1.2.3", "--1",      "1e",  "0x1A", ".",   "NA", "nan",
        "NaN",  "-inf",  "Infinity", "+5",  "1e+5", ".5",  "5.", "1,5",
        "x\"y", "a\nb",  "7\r\n",    "3;4", "2|1",  "1\t2"};
    char num[64];
    size_t pick = mostly_short && rndn(12) ? 0 : rndn(11);
    if (pick == 0 && mostly_short == 2)
        snprintf(num, sizeof num, "%.*e", (int)rndn(9),
                 ((double)(int64_t)rnd() / 9.2e18) *
                     pow(10, (int)rndn(70) - 35));
    else if (pick < 5)
        snprintf(num, sizeof num, "%.*f", (int)rndn(6),
                 ((double)(int64_t)rnd() / 9.2e18) * pow(10, (int)rndn(8)));
    else if (pick < 7)
        snprintf(num, sizeof num, "%.17g",
                 (double)(int64_t)rnd() * 1e-300 * pow(10, (int)rndn(600)));
    else if (pick < 8)
        snprintf(num, sizeof num, "%lld",
                 (long long)(rnd() % 2000000) - 1000000);
    else if (pick < 9)
        snprintf(num, sizeof num, "%s", odd[rndn(sizeof odd / sizeof *odd)]);
    else if (pick < 10) /* past 2^53: corrections, or integral non-integers */
        snprintf(num, sizeof num, "%s%llu%s", rndn(2) ? "-" : "",
                 (unsigned long long)(rnd() >> rndn(12)),
                 rndn(4)   ? ""
                 : rndn(2) ? ".5"
                           : ".000");
    else
        num[0] = 0;
    int needs_quotes = strpbrk(num, "\"\r\n") || strchr(num, delim);
    int quoted = needs_quotes || (num[0] && rndn(4) == 0);
    const char *pad = rndn(5) ? "" : rndn(2) || delim == '\t' ? " " : "\t ";
    if (!quoted) {
        puts_(t, pad);
        puts_(t, num);
        puts_(t, pad);
        return;
    }
    puts_(t, "\"");
    puts_(t, pad);
    for (const char *p = num; *p; p++) {
        put(t, p, 1);
        if (*p == '"')
            put(t, p, 1); /* doubled */
    }
    puts_(t, pad);
    puts_(t, "\"");
}

/* A random file of nrec records; even: each of nfields fields, with no
 * blank line between them (the reader takes such batches a column at a
 * time), else some lines blank and some records shorter or longer. */
static void random_csv_of(text *t, char delim, int nfields, size_t nrec,
                          int even)
{
    const char *nl = rndn(2) ? "\n" : "\r\n";
    for (size_t i = 0; i < nrec; i++) {
        if (!even && rndn(20) == 0)
            puts_(t, rndn(2) ? "\n" : "\r\n"); /* a blank line */
        int nf = !even && rndn(8) == 0 ? 1 + (int)rndn((size_t)nfields + 2)
                                       : nfields;
        for (int f = 0; f < nf; f++) {
            if (f)
                put(t, &delim, 1);
            size_t at = t->n;
            random_value(t, delim);
            /* One blank field would be a blank line: keep it a row. */
            if (nf == 1 && strspn(t->s + at, " \t") == t->n - at) {
                t->n = at;
                puts_(t, "\"\"");
            }
        }
        if (i + 1 < nrec || rndn(2))
            puts_(t, rndn(10) == 0 ? (*nl == '\n' ? "\r\n" : "\n") : nl);
    }
}

static void random_csv(text *t, char delim, int nfields, size_t nrec)
{
    random_csv_of(t, delim, nfields, nrec, 0);
}

static uint64_t start_seed(void)
{
    uint64_t seed = test_seed("test_csv_reader");
    rng_state = seed ? seed : 1;
    return seed;
}

START_TEST(differential_random)
{
    uint64_t seed = start_seed();
    static const char delims[] = {',', '\t', ';', '|'};
    int iters = quick() ? 60 : 400;
    for (int it = 0; it < iters; it++) {
        char delim = delims[rndn(4)];
        int nfields = 1 + (int)rndn(6);
        text t = {0};
        int even = (int)rndn(2);
        mostly_short = even ? (int)rndn(3) : 0;
        /* the column passes' scalar way too (kernel 1: no AVX2) */
        csv_simd_force(rndn(3) ? -1 : 1);
        random_csv_of(&t, delim, nfields, 1 + rndn(120), even);
        uint64_t first_line = 1 + rndn(100);
        ref_file rf;
        ref_parse(t.s, t.n, delim, first_line, &rf);
        ck_assert(!rf.open_quote);

        int nmap = 1 + (int)rndn((size_t)nfields + 2), map[MAXC + 2], ncols = 0;
        for (int f = 0; f < nmap; f++)
            map[f] = rndn(4) == 0 || ncols == MAXC ? -1 : ncols++;
        result want, got;
        uint64_t strict_line;
        int nstrict = ncols ? 1 + (int)rndn((size_t)ncols) : 0;
        ref_expect(&rf, map, nmap, ncols, nstrict, &want, &strict_line);

        uint64_t *starts = malloc((rf.nr + 1) * sizeof *starts);
        for (size_t i = 0; i < rf.nr; i++)
            starts[i] = rf.r[i].line;
        csv_dialect d = {.delim = delim, .header = 0};
        run_opts o = {1 + rndn(300), rndn(2) ? 1 + rndn(40) : 1000, 0, starts,
                      rf.nr};
        cs_error e = {0};
        ck_assert_int_eq(run_reader(&d, t.s, t.n, first_line, map, nmap, ncols,
                                    &o, &got, &e),
                         CS_OK);
        assert_same(&want, &got, seed);
        result_free(&got);

        /* --strict: the first invalid field of a strict column, on its
         * line. */
        o.strict = nstrict;
        o.starts = NULL;
        int rc = run_reader(&d, t.s, t.n, first_line, map, nmap, ncols, &o,
                            &got, &e);
        ck_assert_int_eq(rc, strict_line ? CS_EDATA : CS_OK);
        ck_assert_msg(
            e.line == strict_line, "strict line %llu, want %llu (seed %llu)",
            e.line, (unsigned long long)strict_line, (unsigned long long)seed);
        result_free(&got);

        /* An unterminated quoted field at the end names its line. */
        uint64_t qline = first_line;
        for (size_t i = 0; i < t.n; i++)
            qline += t.s[i] == '\n';
        qline += !(t.n && t.s[t.n - 1] == '\n');
        puts_(&t, t.n && t.s[t.n - 1] == '\n' ? "" : "\n");
        puts_(&t, "1");
        put(&t, &delim, 1);
        puts_(&t, "\"2\n3\n");
        memset(&e, 0, sizeof e);
        o.strict = 0;
        rc = run_reader(&d, t.s, t.n, first_line, map, nmap, ncols, &o, &got,
                        &e);
        ck_assert_int_eq(rc, CS_EDATA);
        ck_assert_uint_eq(e.line, qline);
        result_free(&got);
        result_free(&want);
        free(starts);
        ref_free(&rf);
        free(t.s);
    }
    csv_simd_force(-1);
    mostly_short = 0;
}
END_TEST

/* Item 3: a line identical to the header (a BOM before it, CRLF or LF
 * after it) between records is no row; inside a quoted field it is text.
 * Records with header lines between them parse as the same records
 * without, for any cut and row batch size; rows map to their lines; the
 * skipped lines are counted and the first is located. */
START_TEST(repeated_headers)
{
    uint64_t seed = start_seed();
    static const char delims[] = {',', '\t', ';', '|'};
    int iters = quick() ? 60 : 300;
    for (int it = 0; it < iters; it++) {
        char delim = delims[rndn(4)];
        int nfields = 1 + (int)rndn(5);
        text hdr = {0}, with = {0}, clean = {0};
        for (int f = 0; f < nfields; f++) {
            if (f)
                put(&hdr, &delim, 1);
            int quoted = rndn(4) == 0;
            puts_(&hdr, quoted ? "\"q,n\"\"x" : "name");
            put(&hdr, &"abcdefgh"[f], 1);
            puts_(&hdr, quoted ? "\"" : "");
        }
        uint64_t line = 1 + rndn(50), first_line = line, inserted = 0;
        uint64_t first_repeat = 0;
        uint64_t *skip = calloc(2000, sizeof *skip);
        size_t nrec = 1 + rndn(150);
        for (size_t i = 0; i < nrec; i++) {
            if (rndn(4) == 0) { /* a repeated header between records */
                if (rndn(5) == 0)
                    puts_(&with, "\xEF\xBB\xBF");
                put(&with, hdr.s, hdr.n);
                puts_(&with, rndn(3) ? "\n" : "\r\n");
                first_repeat = first_repeat ? first_repeat : line;
                skip[inserted++] = line++;
            }
            text rec = {0};
            if (rndn(10) == 0) { /* the header inside a quoted field */
                puts_(&rec, "\"x\n");
                put(&rec, hdr.s, hdr.n);
                puts_(&rec, "\ny\"");
                put(&rec, &delim, 1);
                puts_(&rec, "1\n");
            } else {
                random_csv(&rec, delim, nfields, 1);
                if (rec.s[rec.n - 1] != '\n')
                    puts_(&rec, "\n");
            }
            for (size_t k = 0; k < rec.n; k++)
                line += rec.s[k] == '\n';
            put(&with, rec.s, rec.n);
            put(&clean, rec.s, rec.n);
            free(rec.s);
        }
        /* the rows' lines: every record of the text with the headers,
         * less the inserted lines */
        ref_file rf;
        ref_parse(with.s, with.n, delim, first_line, &rf);
        uint64_t *starts = malloc((rf.nr + 1) * sizeof *starts);
        size_t ns = 0;
        for (size_t i = 0, k = 0; i < rf.nr; i++) {
            while (k < inserted && skip[k] < rf.r[i].line)
                k++;
            if (k == inserted || skip[k] != rf.r[i].line)
                starts[ns++] = rf.r[i].line;
        }
        int map[MAXC], nmap = nfields, ncols = nfields;
        for (int f = 0; f < nfields; f++)
            map[f] = f;
        csv_dialect plain = {.delim = delim, .header = 1};
        csv_dialect d = {
            .delim = delim, .header = 1, .repeat = hdr.s, .repeat_len = hdr.n};
        run_opts o = {0, 1000, 0, NULL, 0};
        result want, got;
        cs_error e = {0};
        ck_assert_int_eq(run_reader(&plain, clean.s, clean.n, 1, map, nmap,
                                    ncols, &o, &want, &e),
                         CS_OK);
        o = (run_opts){1 + rndn(300), rndn(2) ? 1 + rndn(40) : 1000, 0, starts,
                       ns};
        ck_assert_int_eq(run_reader(&d, with.s, with.n, first_line, map, nmap,
                                    ncols, &o, &got, &e),
                         CS_OK);
        assert_same(&want, &got, seed);
        ck_assert_uint_eq(got.repeats, inserted);
        ck_assert_uint_eq(got.repeat_line, first_repeat);
        ck_assert_uint_eq(ns, want.rows);
        result_free(&want);
        result_free(&got);
        ref_free(&rf);
        free(starts);
        free(skip);
        free(hdr.s);
        free(with.s);
        free(clean.s);
    }
}
END_TEST

static int by_row_field(const void *a, const void *b)
{
    const csv_spot *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return (x->field > y->field) - (x->field < y->field);
}

/* csv_locate, what messages show of a field found again after parsing
 * (a warning's first invalid field, a strict error's line): random spots,
 * some past a short record's fields, against the reference parse: the
 * field's line, its record's line, its text as csv_show_field shows the
 * reference's. */
START_TEST(locate_fields)
{
    uint64_t seed = start_seed();
    static const char delims[] = {',', '\t', ';', '|'};
    int iters = quick() ? 60 : 400;
    for (int it = 0; it < iters; it++) {
        char delim = delims[rndn(4)];
        int nfields = 1 + (int)rndn(6);
        text t = {0};
        random_csv(&t, delim, nfields, 1 + rndn(80));
        uint64_t first_line = 1 + rndn(100);
        ref_file rf;
        ref_parse(t.s, t.n, delim, first_line, &rf);
        csv_spot sp[8] = {{0}};
        int n = 0;
        for (int k = 0; rf.nr && k < 8; k++) {
            csv_spot c = {1 + rndn(rf.nr), (int)rndn((size_t)nfields + 2), 0, 0,
                          ""};
            int again = 0; /* each spot once */
            for (int j = 0; j < n; j++)
                again |= sp[j].row == c.row && sp[j].field == c.field;
            if (!again)
                sp[n++] = c;
        }
        qsort(sp, (size_t)n, sizeof *sp, by_row_field);
        csv_dialect d = {.delim = delim, .header = 0};
        csv_locate(&d, t.s, t.n, first_line, sp, n);
        for (int i = 0; i < n; i++) {
            const ref_record *r = &rf.r[sp[i].row - 1];
            if (sp[i].field >= r->nf) {
                ck_assert_msg(sp[i].line == 0, "seed %llu: row %llu field %d",
                              (unsigned long long)seed,
                              (unsigned long long)sp[i].row, sp[i].field);
                continue;
            }
            const ref_field *f = &r->f[sp[i].field];
            char want[CSV_SHOWN];
            csv_show_field(f->s, f->n, want, sizeof want);
            ck_assert_msg(
                sp[i].line == f->line && sp[i].record_line == r->line,
                "seed %llu: row %llu field %d: lines %llu %llu, want "
                "%llu %llu",
                (unsigned long long)seed, (unsigned long long)sp[i].row,
                sp[i].field, (unsigned long long)sp[i].line,
                (unsigned long long)sp[i].record_line,
                (unsigned long long)f->line, (unsigned long long)r->line);
            ck_assert_msg(!strcmp(sp[i].text, want),
                          "seed %llu: '%s' shown, want '%s'",
                          (unsigned long long)seed, sp[i].text, want);
        }
        ref_free(&rf);
        free(t.s);
    }
    /* shown: blanks around left out, 40 bytes at most, cut between UTF-8
     * sequences, "..." after a cut */
    char out[CSV_SHOWN];
    csv_show_field(" \t x y \t", strlen(" \t x y \t"), out, sizeof out);
    ck_assert_str_eq(out, "x y");
    char u[64] = "";
    for (int i = 0; i < 19; i++)
        strcat(u, "\xc3\xa9");
    strcat(u, "a\xc3\xa9z"); /* 39 bytes, then one of 2 */
    csv_show_field(u, strlen(u), out, sizeof out);
    ck_assert_uint_eq(strlen(out), 39 + 3);
    ck_assert_str_eq(out + 39, "...");
}
END_TEST

/* The cutter's line count over quote-free blocks of short lines: an LF
 * in the same place of every 16 bytes for thousands of bytes (a byte
 * counter per place would wrap past 255), lines of 1 to 17 bytes, with
 * and without CRs. */
START_TEST(cut_counts_short_lines)
{
    csv_dialect d = {.delim = ',', .header = 0};
    for (size_t len = 1; len <= 17; len++) {
        size_t lines = 9000 + len, n = 0;
        char *buf = malloc(lines * len + 1);
        ck_assert_ptr_nonnull(buf);
        for (size_t i = 0; i < lines; i++) {
            memset(buf + n, '7', len - 1);
            n += len;
            buf[n - 1] = '\n';
            if (len > 2 && i % 3 == 0 && i + 1 < lines)
                buf[n - 2] = '\r';
        }
        csv_cutter c;
        csv_cutter_init(&c, &d, 5);
        cs_error e = {0};
        size_t cut = csv_cut(&c, buf, n - 1, 0, "t.csv", &e);
        /* cut before the last line's LF: every line but the last ended */
        ck_assert_uint_eq(cut, n - len);
        ck_assert_uint_eq(c.line, 5 + lines - 1);
        free(buf);
    }
}
END_TEST

/* Text in libcsv's corners (quotes mid-field, text after a closing quote,
 * bare CRs, blanks): however it is cut, the blocks parse as the whole does. */
START_TEST(cut_agrees_with_libcsv)
{
    uint64_t seed = start_seed();
    static const char alphabet[] = "12.a \"\"\",,\n\n\r\t";
    int iters = quick() ? 100 : 1000;
    for (int it = 0; it < iters; it++) {
        text t = {0};
        size_t n = 1 + rndn(400);
        for (size_t i = 0; i < n; i++)
            put(&t, &alphabet[rndn(sizeof alphabet - 1)], 1);
        csv_dialect d = {.delim = ',', .header = 0};
        int map[4] = {0, 1, 2, 3};
        run_opts whole = {0, 100000, 0, NULL, 0};
        run_opts cut = {1 + rndn(64), 1 + rndn(8), 0, NULL, 0};
        result a, b;
        cs_error ea = {0}, eb = {0};
        int ra = run_reader(&d, t.s, t.n, 1, map, 4, 4, &whole, &a, &ea);
        int rb = run_reader(&d, t.s, t.n, 1, map, 4, 4, &cut, &b, &eb);
        ck_assert_int_eq(ra, rb);
        if (ra == CS_OK)
            assert_same(&a, &b, seed);
        else
            ck_assert_uint_eq(ea.line, eb.line);
        result_free(&a);
        result_free(&b);
        free(t.s);
    }
}
END_TEST

/* ---- -W and number formats ---- */

/* Parses s whole as whitespace text (one block, one row batch), fields mapped
 * in order, numbers as f says (NULL: the C format). */
static int parse_ws(const char *s, int ncols, const num_format *f, result *r,
                    int strict, cs_error *e)
{
    csv_dialect d = {.header = 0, .whitespace = 1, .num = f};
    int map[MAXC];
    for (int i = 0; i < MAXC; i++)
        map[i] = i < ncols ? i : -1;
    run_opts o = {0, 1000, strict, NULL, 0};
    return run_reader(&d, s, strlen(s), 1, map, ncols, ncols, &o, r, e);
}

START_TEST(whitespace_fixed)
{
    result r;
    cs_error e = {0};
    const char *s = "  1   2\t\t3  \n" /* blanks around and between */
                    "\n   \t \r\n"     /* blank lines: no records */
                    "4 \"5\"\r\n"      /* CRLF; a quoted field */
                    "6\n"              /* a short row */
                    "7 8 9 10 11\n"    /* extra fields are ignored */
                    "x \"a b\" 1e3";   /* no quoting: "a and b" */
    ck_assert_int_eq(parse_ws(s, 3, NULL, &r, 0, &e), CS_OK);
    ck_assert_uint_eq(r.rows, 5);
    NEAR(r.v[0][0], 1);
    NEAR(r.v[1][0], 2);
    NEAR(r.v[2][0], 3);
    NEAR(r.v[0][1], 4);
    NEAR(r.v[1][1], 5);
    ck_assert(isnan(r.v[2][1]));
    NEAR(r.v[0][2], 6);
    NEAR(r.v[2][3], 9);
    ck_assert(isnan(r.v[0][4]) && isnan(r.v[1][4]) && isnan(r.v[2][4]));
    ck_assert_uint_eq(r.missing[1], 1);
    ck_assert_uint_eq(r.missing[2], 2);
    ck_assert_uint_eq(r.invalid[0], 1);
    ck_assert_uint_eq(r.invalid[1], 1);
    ck_assert_uint_eq(r.invalid[2], 1); /* b" */
    result_free(&r);
    /* --strict (both columns) names the line, blank lines counted */
    ck_assert_int_eq(parse_ws("1 2\n\n3 x\n", 2, NULL, &r, 2, &e), CS_EDATA);
    ck_assert_uint_eq(e.line, 3);
    ck_assert_msg(strstr(e.msg, "column 'b': 'x'"), "%s", e.msg);
    result_free(&r);
}
END_TEST

/* The head of whitespace text: names split at blanks, the header told
 * from the data, blank lines before it skipped. */
START_TEST(whitespace_head)
{
    const char *s = "\n  PID  %CPU   COMMAND\n    1   0.5   init\n"
                    "   22   1.0   sh -c x\n";
    csv_dialect d = {.header = -1, .whitespace = 1};
    csv_detect(s, strlen(s), 1, &d);
    ck_assert_int_eq(d.header, 1);
    ck_assert_int_eq(d.delim, 0);
    csv_head h;
    cs_error e = {0};
    ck_assert_int_eq(csv_read_head(s, strlen(s), 1, &d, "t", &h, &e), CS_OK);
    ck_assert_int_eq(h.nfields, 3);
    ck_assert_str_eq(h.names[0], "PID");
    ck_assert_str_eq(h.names[1], "%CPU");
    ck_assert_str_eq(h.names[2], "COMMAND");
    ck_assert(h.numeric[0] && h.numeric[1] && !h.numeric[2]);
    ck_assert_uint_eq(h.skip_lines, 2);
    ck_assert_uint_eq(h.skip_bytes, (size_t)(strstr(s, "    1") - s));
    csv_head_free(&h);
}
END_TEST

/* A reference for -W written here: lines at LF, fields at runs of space,
 * tab and CR, a pair of quotes around a field dropped, values by
 * parse_number; compared with the reader over random cuts and row batch
 * sizes, and csv_line_of_row with the lines of the records. */
START_TEST(whitespace_random)
{
    static const char *tokens[] = {
        "1",  "-2.5", "3e2", "\"4\"", "x",   "nan", "inf",        "\"\"",
        "1.", ".5",   "1e",  "007",   "abc", "-0",  "12345678901"};
    static const char *blanks[] = {" ", "  ", "\t", " \t ", "\r"};
    int n = quick() ? 50 : 400;
    for (int it = 0; it < n; it++) {
        uint64_t seed = rng_state;
        int ncols = 1 + (int)rndn(4);
        text t = {0};
        result want;
        result_init(&want, ncols);
        uint64_t starts[400];
        size_t nstarts = 0;
        uint64_t line = 1;
        for (int li = (int)rndn(60); li > 0; li--) {
            if (rndn(6) == 0) { /* a blank line */
                puts_(&t, rndn(2) ? "" : blanks[rndn(5)]);
                puts_(&t, "\n");
                line++;
                continue;
            }
            if (rndn(2))
                puts_(&t, blanks[rndn(5)]);
            int nf = 1 + (int)rndn((size_t)ncols + 2);
            for (int f = 0; f < nf; f++) {
                const char *tok = tokens[rndn(15)];
                if (f)
                    puts_(&t, blanks[rndn(4)]);
                puts_(&t, tok);
                if (f >= ncols)
                    continue;
                size_t len = strlen(tok);
                const char *v = tok;
                if (len >= 2 && tok[0] == '"' && tok[len - 1] == '"') {
                    v++;
                    len -= 2;
                }
                double x;
                int32_t corr;
                num_kind k = parse_number_corr(v, len, &x, &corr);
                result_push(&want, f, k == NUM_OK ? x : NAN, corr);
                want.missing[f] += k == NUM_MISSING;
                want.nan[f] += k == NUM_NAN;
                if (k == NUM_INVALID && !want.invalid[f]++)
                    want.first_invalid[f] = want.rows + 1;
            }
            for (int f = nf; f < ncols; f++) {
                result_push(&want, f, NAN, 0);
                want.missing[f]++;
            }
            want.rows++;
            starts[nstarts++] = line;
            if (rndn(2))
                puts_(&t, blanks[rndn(5)]);
            if (rndn(10) || li > 1) {
                puts_(&t, rndn(4) ? "\n" : "\r\n");
                line++;
            }
        }
        csv_dialect d = {.header = 0, .whitespace = 1};
        int map[MAXC];
        for (int i = 0; i < MAXC; i++)
            map[i] = i < ncols ? i : -1;
        run_opts o = {1 + rndn(64), 1 + rndn(8), 0, starts, nstarts};
        result got;
        cs_error e = {0};
        ck_assert_int_eq(run_reader(&d, t.s ? t.s : "", t.n, 1, map, ncols,
                                    ncols, &o, &got, &e),
                         CS_OK);
        assert_same(&got, &want, seed);
        result_free(&got);
        result_free(&want);
        free(t.s);
    }
}
END_TEST

START_TEST(number_formats)
{
    num_format f;
    num_format_init(&f);
    f.decimal = ',';
    f.thousands = '.';
    ck_assert_int_eq(num_format_add_null(&f, "NA", 2), 0);
    ck_assert_int_eq(num_format_add_null(&f, "-", 1), 0);
    csv_dialect d = {.delim = ';', .header = 0, .num = &f};
    int map[MAXC] = {0, 1, -1, -1, -1, -1, -1, -1};
    run_opts o = {0, 1000, 0, NULL, 0};
    const char *s = "1.234,50;NA\n\"1713,16\"; - \n1,5;\"NA\"\n1.5;na\n";
    result r;
    cs_error e = {0};
    ck_assert_int_eq(run_reader(&d, s, strlen(s), 1, map, 2, 2, &o, &r, &e),
                     CS_OK);
    ck_assert_uint_eq(r.rows, 4);
    NEAR(r.v[0][0], 1234.5);
    NEAR(r.v[0][1], 1713.16);
    NEAR(r.v[0][2], 1.5);
    NEAR(r.v[0][3], 15); /* '.' groups there */
    ck_assert_uint_eq(r.missing[1], 3);
    ck_assert_uint_eq(r.invalid[1], 1);
    result_free(&r);
    /* the same through -W */
    ck_assert_int_eq(parse_ws("1.234,5 NA\n- 2\n", 2, &f, &r, 0, &e), CS_OK);
    NEAR(r.v[0][0], 1234.5);
    ck_assert_uint_eq(r.missing[0], 1);
    ck_assert_uint_eq(r.missing[1], 1);
    result_free(&r);
}
END_TEST

/* Short numbers in a format's spellings and in the other separator's, in
 * blocks long enough that most fields are read padded (the reader's own
 * short path): each field's value, invalid count and missing count are
 * parse_number_fmt's on its text. */
START_TEST(number_formats_random)
{
    uint64_t seed = start_seed();
    static const char points[] = {'.', ','};
    static const char groups[] = {0, '.', ',', ' ', 'e'};
    int iters = quick() ? 20 : 100;
    for (int it = 0; it < iters; it++) {
        num_format f;
        num_format_init(&f);
        f.decimal = points[rndn(2)];
        f.thousands = groups[rndn(5)];
        if (rndn(3) == 0)
            ck_assert_int_eq(num_format_add_null(&f, "-", 1), 0);
        int ncols = 1 + (int)rndn(3), map[MAXC];
        for (int c = 0; c < MAXC; c++)
            map[c] = c < ncols ? c : -1;
        text t = {0};
        size_t rows = 1 + rndn(400);
        for (size_t i = 0; i < rows; i++) {
            for (int c = 0; c < ncols; c++) {
                char fld[32];
                int n = snprintf(fld, sizeof fld, "%s%u", rndn(4) ? "" : "-",
                                 (unsigned)rndn(100000));
                if (rndn(3) && n > 2) /* a separator inside the digits */
                    fld[1 + rndn((size_t)n - 2)] = "., "[rndn(3)];
                /* empty fields, but no blank line (no record) */
                put(&t, fld, ncols == 1 || rndn(20) ? (size_t)n : 0);
                put(&t, c + 1 < ncols ? ";" : "\n", 1);
            }
        }
        csv_dialect d = {.delim = ';', .header = 0, .num = &f};
        run_opts o = {0, 1 + rndn(1000), 0, NULL, 0};
        result r;
        cs_error e = {0};
        ck_assert_int_eq(
            run_reader(&d, t.s, t.n, 1, map, ncols, ncols, &o, &r, &e), CS_OK);
        ck_assert_uint_eq(r.rows, rows);
        uint64_t missing[MAXC] = {0}, invalid[MAXC] = {0};
        const char *p = t.s;
        for (size_t i = 0; i < rows; i++) {
            for (int c = 0; c < ncols; c++) {
                size_t len = strcspn(p, ";\n");
                double want;
                int32_t corr;
                num_kind k = parse_number_fmt(p, len, &f, &want, &corr);
                missing[c] += k == NUM_MISSING;
                invalid[c] += k == NUM_INVALID;
                if (k != NUM_OK)
                    want = NAN;
                ck_assert_msg(same_double(r.v[c][i], want),
                              "'%.*s' (point '%c', group %d): %.17g, want "
                              "%.17g (seed %llu)",
                              (int)len, p, f.decimal, f.thousands, r.v[c][i],
                              want, (unsigned long long)seed);
                p += len + 1;
            }
        }
        for (int c = 0; c < ncols; c++) {
            ck_assert_uint_eq(r.missing[c], missing[c]);
            ck_assert_uint_eq(r.invalid[c], invalid[c]);
        }
        result_free(&r);
        free(t.s);
    }
}
END_TEST

/* A decimal or thousands separator loses the delimiter detection to any
 * other candidate on the line; alone it still wins (quoted numbers). The
 * header detection reads the numbers and the null spellings as such. */
START_TEST(detection_with_formats)
{
    num_format comma;
    num_format_init(&comma);
    comma.decimal = ',';
    static const struct {
        const char *s;
        char delim;
    } cases[] = {
        {"1713,16;20,5\n", ';'},         {"a;b\n1713,16;20,5\n", ';'},
        {"a,b\n\"1,5\",\"2,5\"\n", ','}, {"1,5|2,5|3,5\n", '|'},
        {"price\n1713,16\n", ';'}, /* one field: no delimiter splits it */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        csv_dialect d = {.delim = 0, .header = 0, .num = &comma};
        csv_detect(cases[i].s, strlen(cases[i].s), 1, &d);
        ck_assert_msg(d.delim == cases[i].delim, "case %zu: got '%c'", i,
                      d.delim);
    }
    /* without the format the comma wins, as before */
    csv_dialect d = {.delim = 0, .header = 0};
    csv_detect("1713,16;20,5\n", 13, 1, &d);
    ck_assert_int_eq(d.delim, ',');
    /* NA is missing, not text: the first row is data */
    num_format na;
    num_format_init(&na);
    ck_assert_int_eq(num_format_add_null(&na, "NA", 2), 0);
    const char *s = "NA,1\n2,NA\n3,4\n";
    d = (csv_dialect){.delim = ',', .header = -1, .num = &na};
    csv_detect(s, strlen(s), 1, &d);
    ck_assert_int_eq(d.header, 0);
    d = (csv_dialect){.delim = ',', .header = -1};
    csv_detect(s, strlen(s), 1, &d);
    ck_assert_int_eq(d.header, 1);
}
END_TEST

/* Why a text is not a number (csv_text_kind), and a sample's counts by
 * kind with the first example of each (csv_sample's why). */
START_TEST(text_kinds)
{
    static const struct {
        const char *text, *unit;
        int kind;
    } cases[] = {
        {"NA", "", CSV_WHY_NULL},       {" n/a ", "", CSV_WHY_NULL},
        {"NULL", "", CSV_WHY_NULL},     {"\\N", "", CSV_WHY_NULL},
        {"-", "", CSV_WHY_NULL},        {"none", "", CSV_WHY_NULL},
        {"#N/A", "", CSV_WHY_NULL},     {"$31,359.32", "$", CSV_WHY_UNIT},
        {"-6%", "%", CSV_WHY_UNIT},     {"12 ms", "ms", CSV_WHY_UNIT},
        {"-$5", "$", CSV_WHY_UNIT},     {"3.5kg", "kg", CSV_WHY_UNIT},
        {"1,234", "", CSV_WHY_GROUPED}, {"-12 345 678", "", CSV_WHY_GROUPED},
        {"h1", "", CSV_WHY_TEXT},       {"alpha", "", CSV_WHY_TEXT},
        {"1.2.3", "", CSV_WHY_TEXT},    {"12a34", "", CSV_WHY_TEXT},
        {"", "", CSV_WHY_TEXT},         {"$", "", CSV_WHY_TEXT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char unit[16] = "";
        int k = csv_text_kind(cases[i].text, strlen(cases[i].text), unit,
                              sizeof unit);
        ck_assert_msg(k == cases[i].kind, "'%s': %d", cases[i].text, k);
        if (k == CSV_WHY_UNIT)
            ck_assert_str_eq(unit, cases[i].unit);
    }
    const char *text = "NA,1,5%\nNA,x,\"1,000\"\n2,N/A,7%\n";
    csv_dialect d = {.delim = ','};
    unsigned num[3] = {0}, bad[3] = {0};
    csv_why why[3];
    memset(why, 0, sizeof why);
    ck_assert_int_eq(
        csv_sample(text, strlen(text), 1, &d, 0, 100, 3, num, bad, why), 3);
    ck_assert_uint_eq(why[0].nulls, 2);
    ck_assert_str_eq(why[0].null_text, "NA");
    ck_assert_uint_eq(why[1].nulls, 1);
    ck_assert_uint_eq(bad[1], 2);
    ck_assert_uint_eq(why[2].units, 2);
    ck_assert_uint_eq(why[2].grouped, 1);
    ck_assert_str_eq(why[2].unit, "%");
    ck_assert_str_eq(why[2].grouped_text, "1,000");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("csv_reader");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, quoted_fields);
    tcase_add_test(tc, crlf_and_final_record);
    tcase_add_test(tc, bom_and_header);
    tcase_add_test(tc, head_edges);
    tcase_add_test(tc, header_detection);
    tcase_add_test(tc, delimiter_detection);
    tcase_add_test(tc, delimiter_ties);
    tcase_add_test(tc, every_delimiter);
    tcase_add_test(tc, ragged_blank_empty_spaces);
    tcase_add_test(tc, nan_inf_invalid_counts);
    tcase_add_test(tc, integer_corrections);
    tcase_add_test(tc, unterminated_quote_line);
    tcase_add_test(tc, strict_error_line);
    tcase_add_test(tc, repeated_headers);
    tcase_add_test(tc, locate_fields);
    tcase_add_test(tc, batch_full_resume);
    tcase_add_test(tc, differential_random);
    tcase_add_test(tc, cut_agrees_with_libcsv);
    tcase_add_test(tc, cut_counts_short_lines);
    tcase_add_test(tc, whitespace_fixed);
    tcase_add_test(tc, whitespace_head);
    tcase_add_test(tc, whitespace_random);
    tcase_add_test(tc, number_formats);
    tcase_add_test(tc, number_formats_random);
    tcase_add_test(tc, detection_with_formats);
    tcase_add_test(tc, text_kinds);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite(), CK_FORK_GETENV);
}
