/* csv_fields (io/csv/csv_fields.c) against libcsv, the reference: random
 * texts of random dialects, from a few bytes to past several of its 64 KiB
 * batches (quoted fields with delimiters, line ends and doubled quotes;
 * blanks around fields; blank lines; CRLF; records long enough to span
 * feeds; now and then damage where the grammar reads laxly, which the
 * index turns away), fed in random pieces. The fields and record ends
 * must be csv_parse's over the whole text, byte for byte and in order.
 * Seed logged; COLSTAT_SEED replays it. */
#include <check.h>
#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_fields.h"
#include "tests/testlib.h"

static uint64_t g_seed;

/* The callbacks' log: 'F' text '|' per field, 'R' end '|' per record. */
typedef struct trace {
    char *s;
    size_t n, cap;
} trace;

static void put(trace *t, char kind, const char *text, size_t len)
{
    if (t->n + len + 8 > t->cap) {
        t->cap = 2 * (t->n + len + 8);
        t->s = realloc(t->s, t->cap);
        ck_assert_ptr_nonnull(t->s);
    }
    t->s[t->n++] = kind;
    memcpy(t->s + t->n, text, len);
    t->n += len;
    t->s[t->n++] = '|';
}

static void on_field(void *text, size_t len, void *data)
{
    put(data, 'F', text, len);
}

static void on_record(int c, void *data)
{
    char end = (char)c;
    put(data, 'R', &end, 1);
}

static char pick(test_rng *r, const char *from)
{
    return from[rng_below(r, strlen(from))];
}

static void add(trace *t, char c)
{
    if (t->n + 1 > t->cap) {
        t->cap = 2 * t->cap + 64;
        t->s = realloc(t->s, t->cap);
        ck_assert_ptr_nonnull(t->s);
    }
    t->s[t->n++] = c;
}

/* One field: quoted (its quotes doubled) or not, blanks around it now and
 * then, sometimes long. */
static void random_field(test_rng *r, char delim, trace *t)
{
    size_t len = rng_below(r, 8) == 0 ? rng_below(r, 3000) : rng_below(r, 12);
    int quoted = rng_below(r, 3) == 0;
    if (!quoted && rng_below(r, 6) == 0)
        add(t, ' ');
    if (quoted)
        add(t, '"');
    for (size_t i = 0; i < len; i++) {
        char c = quoted ? pick(r, "ab1 \t\"\r\n,;|") : pick(r, "1234.e- \tab");
        if (quoted && c == '"')
            add(t, '"');
        if (quoted && rng_below(r, 9) == 0)
            c = delim;
        if (quoted || c != delim)
            add(t, c);
    }
    if (quoted)
        add(t, '"');
    else if (rng_below(r, 6) == 0)
        add(t, '\t' == delim ? ' ' : '\t');
}

/* A text of about `size` bytes: records, blank lines, maybe damage. */
static void random_text(test_rng *r, char delim, size_t size, trace *t)
{
    const char *end = rng_below(r, 3) == 0 ? "\r\n" : "\n";
    t->n = 0;
    while (t->n < size) {
        size_t nf = rng_below(r, 12) == 0 ? 0 : 1 + rng_below(r, 6);
        for (size_t b = nf ? 0 : rng_below(r, 3); b > 0; b--)
            add(t, ' '); /* a line of blanks */
        for (size_t f = 0; f < nf; f++) {
            if (f)
                add(t, delim);
            random_field(r, delim, t);
        }
        for (const char *c = end; *c; c++)
            add(t, *c);
    }
    static const char noise[] = "\"\"x\r\n  \t1,;|";
    for (size_t d = rng_below(r, 4) == 0 ? rng_below(r, 4) : 0; d && t->n; d--)
        t->s[rng_below(r, t->n)] = pick(r, noise);
    if (rng_below(r, 4) == 0 && t->n) /* no line end at the end */
        t->n -= 1 + rng_below(r, t->n < 4 ? t->n : 4);
}

static int libcsv_trace(const char *s, size_t n, char delim, trace *t)
{
    struct csv_parser p;
    ck_assert_int_eq(csv_init(&p, CSV_APPEND_NULL), 0);
    csv_set_delim(&p, (unsigned char)delim);
    int ok = csv_parse(&p, s, n, on_field, on_record, t) == n;
    if (ok)
        csv_fini(&p, on_field, on_record, t);
    csv_free(&p);
    return ok;
}

/* The same text through csv_fields, fed in random pieces. */
static int fields_trace(test_rng *r, const char *s, size_t n, char delim,
                        trace *t)
{
    csv_fields f;
    ck_assert_int_eq(
        csv_fields_init(&f, (unsigned char)delim, on_field, on_record, t), 0);
    size_t at = 0;
    int ok = 1;
    while (ok && at < n) {
        size_t k = rng_below(r, 3) == 0 ? 1 + rng_below(r, 64)
                                        : 1 + rng_below(r, 200000);
        k = k < n - at ? k : n - at;
        ok = csv_fields_feed(&f, s + at, k) == 0;
        at += k;
    }
    if (ok)
        csv_fields_fini(&f);
    csv_fields_free(&f);
    return ok;
}

START_TEST(against_libcsv)
{
    static const char delims[] = {',', ';', '|', '\t', ' '};
    test_rng r = rng_for(g_seed, 1);
    int iters = test_quick() ? 300 : 1500;
    trace text = {0}, want = {0}, got = {0};
    for (int it = 0; it < iters; it++) {
        char delim = delims[rng_below(&r, sizeof delims)];
        size_t size =
            rng_below(&r, 4) == 0 ? rng_below(&r, 400000) : rng_below(&r, 3000);
        random_text(&r, delim, size, &text);
        want.n = got.n = 0;
        int ok = libcsv_trace(text.s, text.n, delim, &want);
        int ok2 = fields_trace(&r, text.s, text.n, delim, &got);
        ck_assert_msg(ok == ok2 && want.n == got.n &&
                          !memcmp(want.s, got.s, want.n),
                      "iteration %d, %zu bytes, delim '%c': libcsv and "
                      "csv_fields differ (seed %llu)",
                      it, text.n, delim, (unsigned long long)g_seed);
    }
    free(text.s);
    free(want.s);
    free(got.s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("csv_fields");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, against_libcsv);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    g_seed = test_seed("test_csv_fields");
    return run_suite(suite(), CK_FORK_GETENV);
}
