/* The CPU backend must give the same state whether a column arrives in
 * one chunk or in many (rows renumbered by first_row), which is what lets
 * the engine cut the input anywhere. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/engine/cpu.h"
#include "tests/testlib.h"

static uint64_t rng;

static double draw(void)
{
    uint64_t r = test_rand(&rng);
    switch (r % 5) {
    case 0:
        return NAN;
    case 1:
        return (double)(int)(r >> 40) - 8000000.0; /* integers, with ties */
    case 2:
        return (double)(r >> 11) * 0x1p-53 * 1e6;
    default:
        return ldexp((double)(r >> 12), (int)((r >> 3) % 200) - 150) *
               ((r & 4) ? -1 : 1);
    }
}

static void fill(chunk *c, size_t n, const double *v, const uint64_t *inv)
{
    chunk_clear(c);
    for (int j = 0; j < c->ncols; j++) {
        memcpy(c->col[j], v + (size_t)j * 100000, n * sizeof(double));
        for (size_t r = 0; r < n; r++)
            if (v[(size_t)j * 100000 + r] != v[(size_t)j * 100000 + r]) {
                c->missing[j] += r % 3 == 0;
                c->invalid[j] += r % 3 == 1;
                c->nan[j] += r % 3 == 2;
                if (r % 3 == 1 && !c->first_invalid[j])
                    c->first_invalid[j] = r + 1;
            }
    }
    (void)inv;
    c->nrows = n;
}

static void same_stats(const col_stats *a, const col_stats *b)
{
    col_summary x, y;
    stats_finalize(a, &x);
    stats_finalize(b, &y);
    ck_assert(x.count == y.count && x.missing == y.missing &&
              x.invalid == y.invalid && x.nan == y.nan);
    ck_assert(x.first_invalid_row == y.first_invalid_row);
    ck_assert(memcmp(&x.sum, &y.sum, sizeof x.sum) == 0);
    ck_assert(memcmp(&x.std, &y.std, sizeof x.std) == 0);
    ck_assert(x.min_row == y.min_row && x.max_row == y.max_row);
    ck_assert(memcmp(&x.min, &y.min, sizeof x.min) == 0);
    ck_assert(x.is_int == y.is_int);
}

START_TEST(split_equals_whole)
{
    enum { COLS = 3, N = 100000 };
    double *v = malloc(COLS * N * sizeof *v);
    for (size_t i = 0; i < (size_t)COLS * N; i++)
        v[i] = draw();
    size_t n = 1 + test_rand(&rng) % N;
    chunk whole, part;
    ck_assert_int_eq(chunk_init(&whole, COLS, N, NULL), 0);
    ck_assert_int_eq(chunk_init(&part, COLS, N, NULL), 0);
    fill(&whole, n, v, NULL);
    col_stats a[COLS], b[COLS], t[COLS];
    for (int j = 0; j < COLS; j++) {
        stats_init(&a[j]);
        stats_init(&b[j]);
    }
    cpu_reduce_chunk(&whole, 1, a, STAT_ALL);
    /* The same rows in random pieces, each reduced as its own chunk and
     * merged the way the engine merges jobs. */
    size_t done = 0;
    while (done < n) {
        size_t k = 1 + test_rand(&rng) % (n - done);
        double *shifted = malloc(COLS * N * sizeof *shifted);
        for (int j = 0; j < COLS; j++)
            memcpy(shifted + (size_t)j * N, v + (size_t)j * N + done,
                   k * sizeof(double));
        fill(&part, k, shifted, NULL);
        /* fill numbers invalid rows from the piece's own start. */
        for (int j = 0; j < COLS; j++)
            stats_init(&t[j]);
        cpu_reduce_chunk(&part, 1, t, STAT_ALL);
        for (int j = 0; j < COLS; j++)
            stats_merge(&b[j], &t[j], done);
        free(shifted);
        done += k;
    }
    for (int j = 0; j < COLS; j++) {
        /* Counters follow the row position (r % 3), which shifts between
         * pieces: compare only what does not depend on it. */
        b[j].missing = a[j].missing;
        b[j].invalid = a[j].invalid;
        b[j].nan = a[j].nan;
        b[j].first_invalid_row = a[j].first_invalid_row;
        same_stats(&a[j], &b[j]);
    }
    chunk_free(&whole, NULL);
    chunk_free(&part, NULL);
    free(v);
}
END_TEST

START_TEST(first_row_offsets_rows)
{
    chunk c;
    ck_assert_int_eq(chunk_init(&c, 1, 8, NULL), 0);
    double v[] = {3, 1, 4, 1, 5, 9, 2, 6};
    memcpy(c.col[0], v, sizeof v);
    c.nrows = 8;
    c.invalid[0] = 2;
    c.first_invalid[0] = 5;
    col_stats s;
    stats_init(&s);
    uint64_t base = 1 + test_rand(&rng) % 1000000;
    cpu_reduce_chunk(&c, base, &s, STAT_DEFAULT);
    ck_assert(s.min_row == base + 1 && s.max_row == base + 5);
    ck_assert(s.invalid == 2 && s.first_invalid_row == base + 4);
    chunk_free(&c, NULL);
}
END_TEST

int main(void)
{
    rng = test_seed("test_cpu_backend");
    Suite *s = suite_create("cpu_backend");
    TCase *tc = tcase_create("reduce");
    tcase_set_timeout(tc, 60);
    for (int i = 0; i < (test_quick() ? 2 : 10); i++)
        tcase_add_test(tc, split_equals_whole);
    tcase_add_test(tc, first_row_offsets_rows);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
