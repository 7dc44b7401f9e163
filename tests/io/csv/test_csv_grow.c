/* A libcsv parser's field buffer grows geometrically (io/csv/csv_grow.h):
 * one field of random length (up to 6 MB, random bytes, quoted or not) fed
 * in random pieces comes back whole, while the buffer moves O(log n) times,
 * where libcsv's own growth (128 bytes a step) moved it n/128 times and an
 * allocator that copies on realloc (AddressSanitizer's) took minutes on an
 * 8 MB field. Seed logged; COLSTAT_SEED replays it. */
#include <check.h>
#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_grow.h"
#include "tests/testlib.h"

static uint64_t g_seed;

typedef struct got {
    const char *want;
    size_t want_len;
    int fields, records, same;
} got;

static void on_field(void *text, size_t len, void *data)
{
    got *g = data;
    g->fields++;
    g->same = len == g->want_len && memcmp(text, g->want, len) == 0;
}

static void on_record(int c, void *data)
{
    (void)c;
    ((got *)data)->records++;
}

/* A field's text (no quote, delimiter or line end: it goes out unquoted
 * or quoted as drawn) and its bytes in the input. */
static char *draw_field(test_rng *r, size_t n)
{
    char *s = malloc(n + 1);
    ck_assert_ptr_nonnull(s);
    for (size_t i = 0; i < n; i++)
        s[i] = (char)('!' + rng_below(r, 94));
    for (size_t i = 0; i < n; i++)
        if (s[i] == '"' || s[i] == ',')
            s[i] = 'x';
    s[n] = 0;
    return s;
}

START_TEST(test_long_field)
{
    test_rng r = rng_for(g_seed, (uint64_t)_i + 1);
    size_t n = 1 + rng_below(&r, test_quick() ? 2u << 20 : 6u << 20);
    int quoted = (int)rng_below(&r, 2);
    char *text = draw_field(&r, n);
    char *in = malloc(n + 4);
    ck_assert_ptr_nonnull(in);
    size_t m = 0;
    if (quoted)
        in[m++] = '"';
    memcpy(in + m, text, n);
    m += n;
    if (quoted)
        in[m++] = '"';
    in[m++] = '\n';

    struct csv_parser p;
    ck_assert_int_eq(csv_init_growing(&p, CSV_APPEND_NULL), 0);
    ck_assert(p.realloc_func == csv_grow_realloc);
    got g = {text, n, 0, 0, 0};
    int moves = 0;
    void *last = NULL;
    for (size_t at = 0; at < m;) {
        size_t len = 1 + rng_below(&r, 1 << 16);
        if (len > m - at)
            len = m - at;
        ck_assert_uint_eq(csv_parse(&p, in + at, len, on_field, on_record, &g),
                          len);
        at += len;
        moves += p.entry_buf != last;
        last = p.entry_buf;
    }
    csv_fini(&p, on_field, on_record, &g);
    csv_free(&p);
    ck_assert_msg(g.fields == 1 && g.records == 1 && g.same,
                  "a field of %zu bytes (quoted %d) came back changed (seed "
                  "%llu)",
                  n, quoted, (unsigned long long)g_seed);
    /* 2^23 bytes is 16 doublings past libcsv's first 128 */
    ck_assert_int_le(moves, 40);
    free(text);
    free(in);
}
END_TEST

/* The realloc itself: capacity doubles, bytes are kept, a request within
 * the capacity hands back the same block, and libcsv's fixed steps cost a
 * logarithmic number of real reallocations. */
START_TEST(test_grow_steps)
{
    test_rng r = rng_for(g_seed, 100);
    char *b = csv_grow_realloc(NULL, 128);
    ck_assert_ptr_nonnull(b);
    unsigned char fill = (unsigned char)rng_below(&r, 256);
    memset(b, fill, 128);
    size_t have = 128;
    int moves = 0;
    for (size_t size = 256; size <= (8u << 20); size += 128) {
        char *nb = csv_grow_realloc(b, size);
        ck_assert_ptr_nonnull(nb);
        moves += nb != b;
        for (int k = 0; k < 4; k++)
            ck_assert_uint_eq((unsigned char)nb[rng_below(&r, have)], fill);
        memset(nb + have, fill, size - have);
        have = size;
        b = nb;
        /* within what is held: no move */
        ck_assert_ptr_eq(csv_grow_realloc(b, 1 + rng_below(&r, size)), b);
    }
    ck_assert_int_le(moves, 20);
    csv_grow_free(b);
    csv_grow_free(NULL);
    ck_assert_ptr_null(csv_grow_realloc(NULL, (size_t)-1));
}
END_TEST

int main(void)
{
    g_seed = test_seed("test_csv_grow");
    Suite *s = suite_create("csv_grow");
    TCase *tc = tcase_create("grow");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_long_field, 0, 6);
    tcase_add_test(tc, test_grow_steps);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
