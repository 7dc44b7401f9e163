/* src/stats/stats.c against a naive reference computed here: counts, min/max
 * with the first row (ties, -0.0/+0.0, infinities), NaN skipped, all_int,
 * chunked adds merged in random tree order with row offsets, finalize
 * (sum/mean correctly rounded vs GMP, exact integer sums vs mpz, empty
 * columns). Seed printed to stderr; COLSTAT_SEED reproduces a run. */
#include "src/stats/stats.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef COLSTAT_HAVE_GMP
#include <gmp.h>

#include "tests/testlib.h"

#endif

static uint64_t rng_state;

static int iters(int n)
{
    return getenv("COLSTAT_TEST_QUICK") ? n / 10 + 1 : n;
}

/* Values with many ties, both zeros, NaN, infinities, fractions and
 * integers at the int64 boundary. */
static double pick(int kind)
{
    switch (test_rand(&rng_state) % (kind == 0 ? 4 : 12)) {
    case 0:
        return (double)(int)(test_rand(&rng_state) % 7) - 3;
    case 1:
        return test_rand(&rng_state) % 2 ? 0.0 : -0.0;
    case 2:
        return NAN;
    case 3:
        return (double)(int64_t)test_rand(&rng_state);
    case 4:
        return 0x1p63;
    case 5:
        return -0x1p63;
    case 6:
        return 0.5 * (double)(int)(test_rand(&rng_state) % 9);
    case 7:
        return test_rand(&rng_state) % 2 ? INFINITY : -INFINITY;
    case 8:
        return 0x1p52 + 0.5;
    case 9:
        return 1e300;
    default:
        return (double)(test_rand(&rng_state) % 1000) / 8;
    }
}

typedef struct ref {
    uint64_t count;
    double min, max;
    uint64_t min_row, max_row;
    int all_int;
} ref;

static void reference(const double *v, size_t n, ref *r)
{
    memset(r, 0, sizeof *r);
    r->all_int = 1;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        if (r->count == 0 || v[i] < r->min) {
            r->min = v[i];
            r->min_row = i + 1;
        }
        if (r->count == 0 || v[i] > r->max) {
            r->max = v[i];
            r->max_row = i + 1;
        }
        r->count++;
        if (!(v[i] == floor(v[i]) && fabs(v[i]) < 0x1p63))
            r->all_int = 0;
    }
}

static void assert_matches(const col_stats *s, const ref *r)
{
    ck_assert_uint_eq(s->count, r->count);
    ck_assert_int_eq(s->all_int, r->all_int);
    if (r->count) {
        ck_assert_uint_eq(s->min_row, r->min_row);
        ck_assert_uint_eq(s->max_row, r->max_row);
        ck_assert(memcmp(&s->min, &r->min, sizeof r->min) == 0);
        ck_assert(memcmp(&s->max, &r->max, sizeof r->max) == 0);
    }
}

typedef struct group {
    size_t start; /* 0-based first value; rows are numbered from it */
    col_stats st;
} group;

/* Chunks reduced on their own with chunk-local rows, then adjacent groups
 * merged in random order (a tree of merges), as the engine and a future
 * multi-process merge would do. */
static void chunked(const double *v, size_t n, unsigned what, col_stats *out)
{
    static group g[64];
    int ng = 0;
    for (size_t at = 0; at < n || ng == 0;) {
        size_t len = n - at;
        if (ng < 63 && len > 0)
            len = test_rand(&rng_state) % (len + 1);
        g[ng].start = at;
        stats_init(&g[ng].st);
        stats_add_values(&g[ng].st, v + at, len, 1, what);
        ng++;
        at += len;
        if (ng == 64)
            break;
    }
    while (ng > 1) {
        int k = (int)(test_rand(&rng_state) % (uint64_t)(ng - 1));
        stats_merge(&g[k].st, &g[k + 1].st, g[k + 1].start - g[k].start);
        memmove(&g[k + 1], &g[k + 2], (size_t)(ng - k - 2) * sizeof g[0]);
        ng--;
    }
    *out = g[0].st;
}

START_TEST(test_extrema_and_merge)
{
    static double v[3000];
    static col_stats whole, merged;
    for (int it = 0; it < iters(2000); it++) {
        size_t n = test_rand(&rng_state) % 3000;
        int kind = (int)(test_rand(&rng_state) % 2);
        for (size_t i = 0; i < n; i++)
            v[i] = pick(kind);
        ref r;
        reference(v, n, &r);
        unsigned what = test_rand(&rng_state) % 2 ? STAT_ALL : STAT_COUNT;
        stats_init(&whole);
        stats_add_values(&whole, v, n, 1, what);
        assert_matches(&whole, &r);
        chunked(v, n, what, &merged);
        assert_matches(&merged, &r);
        /* successive adds into one state, rows numbered globally */
        stats_init(&merged);
        for (size_t at = 0, len; at < n; at += len) {
            len = 1 + test_rand(&rng_state) % (n - at);
            stats_add_values(&merged, v + at, len, at + 1, what);
        }
        assert_matches(&merged, &r);
        chunked(v, n, what, &merged);
        col_summary a, b;
        stats_finalize(&whole, &a);
        stats_finalize(&merged, &b);
        ck_assert(memcmp(&a.sum, &b.sum, sizeof a.sum) == 0);
        ck_assert(memcmp(&a.mean, &b.mean, sizeof a.mean) == 0);
        ck_assert(memcmp(&a.std, &b.std, sizeof a.std) == 0);
        ck_assert_str_eq(a.sum_int, b.sum_int);
    }
}
END_TEST

START_TEST(test_counters_merge)
{
    col_stats a, b;
    for (int it = 0; it < iters(200); it++) {
        stats_init(&a);
        stats_init(&b);
        a.missing = test_rand(&rng_state) % 5;
        b.missing = test_rand(&rng_state) % 5;
        b.invalid = 1 + test_rand(&rng_state) % 3;
        b.nan = test_rand(&rng_state) % 3;
        uint64_t ra =
            test_rand(&rng_state) % 2 ? 0 : 1 + test_rand(&rng_state) % 10;
        uint64_t rb = 1 + test_rand(&rng_state) % 10,
                 off = 10 + test_rand(&rng_state) % 100;
        a.first_invalid_row = ra;
        b.first_invalid_row = rb;
        stats_merge(&a, &b, off);
        ck_assert_uint_eq(a.first_invalid_row, ra ? ra : rb + off);
        ck_assert_uint_eq(a.invalid, b.invalid);
        ck_assert_uint_eq(a.nan, b.nan);
    }
}
END_TEST

START_TEST(test_finalize_empty)
{
    col_stats s;
    col_summary o;
    double nans[3] = {NAN, NAN, NAN};
    stats_init(&s);
    stats_add_values(&s, nans, 3, 1, STAT_ALL);
    s.nan = 3;
    stats_finalize(&s, &o);
    ck_assert_uint_eq(o.count, 0);
    ck_assert_uint_eq(o.nan, 3);
    ck_assert(o.sum == 0 && !signbit(o.sum));
    ck_assert(isnan(o.mean) && isnan(o.std) && isnan(o.min) && isnan(o.max));
    ck_assert_uint_eq(o.min_row, 0);
    ck_assert_uint_eq(o.max_row, 0);
    ck_assert_int_eq(o.sum_is_int, 0);
    /* one value: std undefined, the rest defined */
    double one = -2.5;
    stats_add_values(&s, &one, 1, 4, STAT_ALL);
    stats_finalize(&s, &o);
    ck_assert(o.mean == -2.5 && o.min == -2.5 && o.max == -2.5);
    ck_assert_uint_eq(o.min_row, 4);
    ck_assert(isnan(o.std));
}
END_TEST

#ifdef COLSTAT_HAVE_GMP
/* sum and mean correctly rounded; integer sums exact decimal strings */
START_TEST(test_finalize_exact)
{
    static double v[500];
    for (int it = 0; it < iters(500); it++) {
        size_t n = 1 + test_rand(&rng_state) % 500;
        int ints = (int)(test_rand(&rng_state) % 2);
        for (size_t i = 0; i < n; i++) {
            int64_t k =
                (int64_t)test_rand(&rng_state) >> (test_rand(&rng_state) % 64);
            v[i] = ints ? (double)k : (double)k * 0x1p-20;
        }
        col_stats s;
        col_summary o;
        stats_init(&s);
        stats_add_values(&s, v, n, 1, STAT_DEFAULT);
        stats_finalize(&s, &o);
        mpq_t q, t;
        mpq_inits(q, t, NULL);
        for (size_t i = 0; i < n; i++) {
            mpq_set_d(t, v[i]);
            mpq_add(q, q, t);
        }
        /* correct rounding is test_exact's; here: within one ulp */
        double d = mpq_get_d(q); /* truncates */
        ck_assert(fabs(o.sum - d) <= fabs(d) * 0x1p-52);
        int all_int = 1;
        for (size_t i = 0; i < n; i++)
            all_int &= v[i] == floor(v[i]) && fabs(v[i]) < 0x1p63;
        ck_assert_int_eq(o.sum_is_int, all_int);
        if (all_int) {
            char want[64];
            mpz_get_str(want, 10, mpq_numref(q));
            ck_assert_str_eq(o.sum_int, want);
        }
        mpq_clears(q, t, NULL);
    }
}
END_TEST
#endif

int main(void)
{
    rng_state = test_seed("test_stats");
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_extrema_and_merge);
    tcase_add_test(tc, test_counters_merge);
    tcase_add_test(tc, test_finalize_empty);
#ifdef COLSTAT_HAVE_GMP
    tcase_add_test(tc, test_finalize_exact);
#endif
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
