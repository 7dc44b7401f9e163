/* Splitting one CSV between processes (csv_summarize, csv_summary_then,
 * csv_first_record): random text with quoted fields holding delimiters,
 * doubled quotes, CR, LF and CRLF, blank lines and blanks, cut at random
 * byte offsets. The pieces' summaries composed must equal the whole's;
 * each piece then starts at its first place between records, and the
 * pieces parsed on their own must give exactly the rows of one parse of
 * the whole text, in order. A boundary proven for every state
 * (csv_common_record) is one of the parse's, the first such, and splits
 * the text into pieces that parse to its rows. Seed logged; COLSTAT_SEED
 * replays it. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_reader.h"
#include "tests/testlib.h"

#define MAXROWS 4000

static uint64_t g_seed;

static void add(char **p, size_t *n, const char *s)
{
    size_t k = strlen(s);
    *p = realloc(*p, *n + k + 1);
    memcpy(*p + *n, s, k + 1);
    *n += k;
}

static char *make_text(test_rng *r, size_t *n)
{
    static const char *const fields[] = {
        "1",          "-2.5",     "\"3\"",      "",  " 4 ",  "\"a,b\"",
        "\"x\"\"y\"", "\"l\nm\"", "\"c\r\nd\"", "w", "\"\"", "5e3"};
    static const char *const ends[] = {"\n", "\r\n", "\r", "\n\n", "\n  \n"};
    char *p = NULL;
    *n = 0;
    add(&p, n, "");
    int rows = 1 + (int)rng_below(r, 300);
    for (int i = 0; i < rows; i++) {
        for (int f = 0; f < 3; f++) {
            if (f)
                add(&p, n, ",");
            add(&p, n, fields[rng_below(r, 12)]);
        }
        add(&p, n, ends[rng_below(r, 5)]);
    }
    return p;
}

/* Rows of one block: every field of 3 columns, as parsed. */
static size_t parse(const char *buf, size_t n, double *out)
{
    csv_dialect d = {.delim = ',', .header = 0};
    int map[3] = {0, 1, 2};
    row_batch c;
    ck_assert_int_eq(row_batch_init(&c, 3, MAXROWS, NULL), 0);
    size_t used = 0;
    uint64_t lines = 0;
    cs_error e = {0};
    ck_assert_int_eq(
        csv_parse_block(&d, buf, n, 1, map, 3, 0, "t", &c, &used, &lines, &e),
        CS_OK);
    for (size_t i = 0; i < c.nrows; i++)
        for (int k = 0; k < 3; k++)
            out[3 * i + (size_t)k] = c.col[k][i];
    size_t rows = c.nrows;
    row_batch_free(&c, NULL);
    return rows;
}

START_TEST(pieces_are_the_whole)
{
    test_rng r = rng_for(g_seed, 1);
    csv_dialect d = {.delim = ',', .header = 0};
    double *want = malloc(3 * MAXROWS * sizeof *want);
    double *got = malloc(3 * MAXROWS * sizeof *got);
    for (int it = 0; it < (test_quick() ? 200 : 2000); it++) {
        size_t n;
        char *t = make_text(&r, &n);
        size_t rows = parse(t, n, want);
        int k = 1 + (int)rng_below(&r, 6);
        size_t cut[8] = {0};
        for (int i = 1; i < k; i++)
            cut[i] = rng_below(&r, n + 1);
        cut[k] = n;
        for (int i = 1; i < k; i++) /* sorted */
            for (int j = i; j > 1 && cut[j] < cut[j - 1]; j--) {
                size_t x = cut[j];
                cut[j] = cut[j - 1];
                cut[j - 1] = x;
            }
        /* each piece's start state, from the summaries before it */
        csv_summary acc, s, whole;
        csv_summarize(&d, t, 0, &acc);
        size_t start[9];
        for (int i = 0; i <= k; i++) {
            int state = acc.end[csv_start_state()];
            size_t tail = n - cut[i];
            size_t f = csv_first_record(&d, t + cut[i], tail, state);
            start[i] = f == (size_t)-1 ? n : cut[i] + f;
            if (i < k) {
                csv_summarize(&d, t + cut[i], cut[i + 1] - cut[i], &s);
                csv_summary_then(&acc, &s);
            }
        }
        csv_summarize(&d, t, n, &whole);
        ck_assert(!memcmp(whole.end, acc.end, CSV_NSTATES) &&
                  whole.lfs == acc.lfs);
        size_t total = 0;
        for (int i = 0; i < k; i++) {
            ck_assert_uint_le(start[i], start[i + 1]);
            total +=
                parse(t + start[i], start[i + 1] - start[i], got + 3 * total);
        }
        ck_assert_uint_eq(total, rows);
        for (size_t i = 0; i < 3 * rows; i++)
            ck_assert_msg(!memcmp(&got[i], &want[i], 8) ||
                              (isnan(got[i]) && isnan(want[i])),
                          "field %zu: %g vs %g", i, got[i], want[i]);
        free(t);
    }
    free(want);
    free(got);
}
END_TEST

/* The first q in [1, n] where every state at buf leads to a place between
 * records, byte by byte through the summaries; (size_t)-1 if none. */
static size_t first_common(const csv_dialect *d, const char *buf, size_t n)
{
    csv_summary acc, one;
    csv_summarize(d, buf, 0, &acc);
    for (size_t q = 1; q <= n; q++) {
        csv_summarize(d, buf + q - 1, 1, &one);
        csv_summary_then(&acc, &one);
        int all = 1;
        for (int k = 0; k < CSV_NSTATES; k++)
            all &= acc.end[k] == csv_start_state();
        if (all)
            return q;
    }
    return (size_t)-1;
}

START_TEST(common_boundary_is_the_parse_s)
{
    test_rng r = rng_for(g_seed, 2);
    csv_dialect d = {.delim = ',', .header = 0};
    double *want = malloc(3 * MAXROWS * sizeof *want);
    double *got = malloc(3 * MAXROWS * sizeof *got);
    int found = 0;
    for (int it = 0; it < (test_quick() ? 300 : 2000); it++) {
        size_t n;
        char *t = make_text(&r, &n);
        size_t c = rng_below(&r, n + 1);
        size_t p = csv_common_record(&d, t + c, n - c);
        ck_assert_uint_eq(p, first_common(&d, t + c, n - c));
        if (p == (size_t)-1) {
            free(t);
            continue;
        }
        found++;
        size_t rows = parse(t, n, want);
        size_t head = parse(t, c + p, got);
        ck_assert_uint_eq(head + parse(t + c + p, n - c - p, got + 3 * head),
                          rows);
        for (size_t i = 0; i < 3 * rows; i++)
            ck_assert(!memcmp(&got[i], &want[i], 8) ||
                      (isnan(got[i]) && isnan(want[i])));
        free(t);
    }
    ck_assert_int_gt(found, 0);
    /* no quote: the parse from inside a quoted field never leaves it */
    ck_assert_uint_eq(csv_common_record(&d, "1,2\n3,4\n", 8), (size_t)-1);
    free(want);
    free(got);
}
END_TEST

/* -W text has no quotes: a '"' in it opens nothing, so the line after it
 * is a record of its own (quoted CSV would carry the field on). */
START_TEST(whitespace_quotes_are_bytes)
{
    static const char t[] = "\"2 1\n3 4\n", u[] = "\"2,1\n3,4\n";
    size_t n = sizeof t - 1, cut = 5;
    csv_dialect w = {.delim = ' ', .header = 0, .whitespace = 1};
    csv_dialect q = {.delim = ',', .header = 0};
    csv_summary s;
    csv_summarize(&w, t, cut, &s);
    int st = s.end[csv_start_state()];
    ck_assert_int_eq(st, csv_start_state());
    ck_assert_uint_eq(csv_first_record(&w, t + cut, n - cut, st), 0);
    csv_summarize(&q, u, cut, &s);
    ck_assert_int_ne(s.end[csv_start_state()], csv_start_state());
}
END_TEST

int main(void)
{
    g_seed = test_seed("test_csv_split");
    Suite *s = suite_create("csv_split");
    TCase *tc = tcase_create("split");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, pieces_are_the_whole);
    tcase_add_test(tc, whitespace_quotes_are_bytes);
    tcase_add_test(tc, common_boundary_is_the_parse_s);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
