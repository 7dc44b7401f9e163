/* src/stats/group_table.c: groups found by key bytes (colliding hashes
 * told apart by the bytes), and job tables merged with row offsets in any
 * order against one table filled row by row: the same groups, rows,
 * statistics and kept values. Seed printed; COLSTAT_SEED replays. */
#include "src/stats/group_table.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testlib.h"

static uint64_t seed;

static void key_text(test_rng *r, int nkeys, char *buf, size_t *len)
{
    size_t k = rng_below(r, (size_t)nkeys);
    /* keys sharing prefixes, and one empty key */
    *len = k == 0 ? 0 : (size_t)snprintf(buf, 32, "k%zu", k * 7);
}

START_TEST(test_colliding_hashes)
{
    group_table t;
    group_table_init(&t, 1, STAT_DEFAULT, 0);
    static const char *const keys[] = {"", "a", "ab", "b", "a\0b", "ba"};
    static const size_t lens[] = {0, 1, 2, 1, 3, 2};
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < 6; i++) {
            size_t id = 99;
            ck_assert_int_eq(group_find(&t, keys[i], lens[i], 42, &id), 0);
            ck_assert_uint_eq(id, i);
        }
    ck_assert_uint_eq(t.n, 6);
    group_table_free(&t);
}
END_TEST

static void fill(group_table *t, test_rng *r, int nkeys, size_t from, size_t to,
                 uint64_t first_row, const double *v)
{
    for (size_t i = from; i < to; i++) {
        test_rng kr = rng_for(seed, i + 1);
        char buf[32];
        size_t len, id;
        key_text(&kr, nkeys, buf, &len);
        ck_assert_int_eq(group_find(t, buf, len, group_hash(buf, len), &id), 0);
        t->rows[id]++;
        if (!isnan(v[i]))
            ck_assert_int_eq(
                group_add(t, id, 0, v[i], 0, first_row + (i - from)), 0);
    }
    (void)r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void same_group(const group_table *a, size_t ia, const group_table *b,
                       size_t ib)
{
    ck_assert_uint_eq(a->rows[ia], b->rows[ib]);
    col_summary x, y;
    stats_finalize(&a->st[ia], &x);
    stats_finalize(&b->st[ib], &y);
    ck_assert_uint_eq(x.count, y.count);
    ck_assert_uint_eq(x.min_row, y.min_row);
    ck_assert_uint_eq(x.max_row, y.max_row);
    ck_assert(bits_of(x.sum) == bits_of(y.sum));
    ck_assert(bits_of(x.min) == bits_of(y.min) &&
              bits_of(x.max) == bits_of(y.max));
    const group_vals *va = &a->val[ia], *vb = &b->val[ib];
    ck_assert_uint_eq(va->n, vb->n);
    if (!va->n)
        return;
    qsort(va->d, va->n, sizeof(double), cmp_double);
    qsort(vb->d, vb->n, sizeof(double), cmp_double);
    for (size_t i = 0; i < va->n; i++)
        ck_assert(va->d[i] == vb->d[i]);
}

START_TEST(test_merge_any_order)
{
    test_rng r = rng_for(seed, 1000 + (uint64_t)_i);
    size_t n = 1 + rng_below(&r, test_quick() ? 2000 : 20000);
    int nkeys = 1 + (int)rng_below(&r, _i % 2 ? 5000 : 10);
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = rng_below(&r, 10) == 0 ? NAN
                                      : (double)(int)rng_below(&r, 100) / 4.0;
    group_table whole, merged;
    group_table_init(&whole, 1, STAT_ALL, 1);
    group_table_init(&merged, 1, STAT_ALL, 1);
    fill(&whole, &r, nkeys, 0, n, 1, v);
    ck_assert_int_eq(group_flush(&whole), 0);
    /* jobs of random lengths, merged from last to first */
    size_t cut[65], nc = 0;
    cut[nc++] = 0;
    while (nc < 64 && cut[nc - 1] < n)
        cut[nc] = cut[nc - 1] + 1 + rng_below(&r, n / 8 + 1), nc++;
    cut[nc - 1] = n;
    for (size_t j = nc - 1; j-- > 0;) {
        group_table job;
        group_table_init(&job, 1, STAT_ALL, 1);
        fill(&job, &r, nkeys, cut[j], cut[j + 1], 1, v);
        ck_assert_int_eq(group_flush(&job), 0);
        ck_assert_int_eq(group_merge(&merged, &job, cut[j]), 0);
        group_table_free(&job);
    }
    ck_assert_uint_eq(whole.n, merged.n);
    for (size_t g = 0; g < whole.n; g++) {
        size_t id;
        const char *k = group_key(&whole, g);
        size_t len = whole.key_len[g];
        ck_assert_int_eq(group_find(&merged, k, len, group_hash(k, len), &id),
                         0);
        same_group(&whole, g, &merged, id);
    }
    ck_assert_uint_eq(whole.n, merged.n); /* nothing was added */
    ck_assert(group_table_bytes(&merged) > 0);
    group_table_free(&whole);
    group_table_free(&merged);
    free(v);
}
END_TEST

int main(void)
{
    seed = test_seed("test_group_table");
    Suite *s = suite_create("group_table");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_colliding_hashes);
    tcase_add_loop_test(tc, test_merge_any_order, 0, 8);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
