/* src/stats/stats.c against a naive reference computed here: counts, min/max
 * with the first row (ties, -0.0/+0.0, infinities), NaN skipped, all_int,
 * batched adds merged in random tree order with row offsets, finalize
 * (sum/mean correctly rounded vs GMP, exact integer sums vs mpz, empty
 * columns). Seed printed to stderr; COLSTAT_SEED reproduces a run. */
#include "src/stats/stats.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/testlib.h"

#ifdef COLSTAT_HAVE_GMP
#include <gmp.h>

#include "tests/stats/gmp_ref.h"
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
    double fmin, fmax; /* finite extremes, zeros as +0; NaN: none */
} ref;

static void reference(const double *v, size_t n, ref *r)
{
    memset(r, 0, sizeof *r);
    r->all_int = 1;
    r->fmin = r->fmax = NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        if (isfinite(v[i])) {
            double z = v[i] == 0 ? 0.0 : v[i];
            if (isnan(r->fmin) || z < r->fmin)
                r->fmin = z;
            if (isnan(r->fmax) || z > r->fmax)
                r->fmax = z;
        }
        if (r->count == 0 || v[i] < r->min) {
            r->min = v[i];
            r->min_row = i + 1;
        }
        if (r->count == 0 || v[i] > r->max) {
            r->max = v[i];
            r->max_row = i + 1;
        }
        r->count++;
        if (!(v[i] == floor(v[i]) && fabs(v[i]) <= 0x1p64))
            r->all_int = 0;
    }
}

static int same_bits(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
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
    ck_assert_msg(same_bits(s->fmin, r->fmin) && same_bits(s->fmax, r->fmax),
                  "finite extremes %a %a, want %a %a", s->fmin, s->fmax,
                  r->fmin, r->fmax);
    /* the histogram's edges: min and max, or the finite ones */
    double lo, hi;
    stats_hist_edges(s, &lo, &hi);
    if (r->count == 0 || isnan(r->fmin)) {
        ck_assert(isnan(lo) && isnan(hi));
    } else {
        ck_assert(same_bits(lo, isfinite(r->min) ? r->min : r->fmin));
        ck_assert(same_bits(hi, isfinite(r->max) ? r->max : r->fmax));
    }
}

typedef struct group {
    size_t start; /* 0-based first value; rows are numbered from it */
    col_stats st;
} group;

/* Row batches reduced on their own with batch-local rows, then adjacent groups
 * merged in random order (a tree of merges), as the engine and a future
 * multi-process merge would do. */
static void batched(const double *v, size_t n, unsigned what, col_stats *out)
{
    static group g[64];
    int ng = 0;
    for (size_t at = 0; at < n || ng == 0;) {
        size_t len = n - at;
        if (ng < 63 && len > 0)
            len = test_rand(&rng_state) % (len + 1);
        g[ng].start = at;
        stats_init(&g[ng].st);
        stats_add_values(&g[ng].st, v + at, NULL, len, 1, what);
        ng++;
        at += len;
        if (ng == 64)
            break;
    }
    while (ng > 1) {
        int k = (int)(test_rand(&rng_state) % (uint64_t)(ng - 1));
        ck_assert_int_eq(
            stats_merge(&g[k].st, &g[k + 1].st, g[k + 1].start - g[k].start),
            0);
        stats_free(&g[k + 1].st);
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
        stats_free(&whole);
        stats_init(&whole);
        stats_add_values(&whole, v, NULL, n, 1, what);
        assert_matches(&whole, &r);
        stats_free(&merged);
        batched(v, n, what, &merged);
        assert_matches(&merged, &r);
        /* successive adds into one state, rows numbered globally */
        stats_free(&merged);
        stats_init(&merged);
        for (size_t at = 0, len; at < n; at += len) {
            len = 1 + test_rand(&rng_state) % (n - at);
            stats_add_values(&merged, v + at, NULL, len, at + 1, what);
        }
        assert_matches(&merged, &r);
        stats_free(&merged);
        batched(v, n, what, &merged);
        col_summary a, b;
        stats_finalize(&whole, &a);
        stats_finalize(&merged, &b);
        ck_assert(memcmp(&a.sum, &b.sum, sizeof a.sum) == 0);
        ck_assert(memcmp(&a.mean, &b.mean, sizeof a.mean) == 0);
        ck_assert(memcmp(&a.std, &b.std, sizeof a.std) == 0);
        ck_assert_str_eq(a.sum_int, b.sum_int);
    }
    stats_free(&whole);
    stats_free(&merged);
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
    stats_add_values(&s, nans, NULL, 3, 1, STAT_ALL);
    s.nan = 3;
    stats_finalize(&s, &o);
    ck_assert_uint_eq(o.count, 0);
    ck_assert_uint_eq(o.nan, 3);
    ck_assert(o.sum == 0 && !signbit(o.sum));
    ck_assert(isnan(o.mean) && isnan(o.std) && isnan(o.min) && isnan(o.max));
    ck_assert_uint_eq(o.min_row, 0);
    ck_assert_uint_eq(o.max_row, 0);
    ck_assert_int_eq(o.is_int, 0);
    /* one value: std undefined, the rest defined */
    double one = -2.5;
    stats_add_values(&s, &one, NULL, 1, 4, STAT_ALL);
    stats_finalize(&s, &o);
    ck_assert(o.mean == -2.5 && o.min == -2.5 && o.max == -2.5);
    ck_assert_uint_eq(o.min_row, 4);
    ck_assert(isnan(o.std));
    stats_free(&s);
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
        stats_add_values(&s, v, NULL, n, 1, STAT_DEFAULT);
        stats_finalize(&s, &o);
        stats_free(&s);
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
            all_int &= v[i] == floor(v[i]) && fabs(v[i]) <= 0x1p64;
        ck_assert_int_eq(o.is_int, all_int);
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

#ifdef COLSTAT_HAVE_GMP
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/* The double nearest v (|v| <= 2^64), ties to even, by hand. */
static double nearest(i128 v)
{
    u128 m = v < 0 ? -(u128)v : (u128)v;
    int bits = 0;
    for (u128 t = m; t; t >>= 1)
        bits++;
    double d;
    if (bits <= 53) {
        d = (double)(uint64_t)m;
    } else {
        int e = bits - 53;
        u128 q = m >> e, rem = m & (((u128)1 << e) - 1),
             half = (u128)1 << (e - 1);
        if (rem > half || (rem == half && (q & 1)))
            q++;
        d = ldexp((double)(uint64_t)q, e);
    }
    return v < 0 ? -d : d;
}

static void mpz_from_i128(mpz_t z, i128 v)
{
    u128 m = v < 0 ? -(u128)v : (u128)v;
    mpz_set_ui(z, (unsigned long)(uint64_t)(m >> 64));
    mpz_mul_2exp(z, z, 64);
    mpz_add_ui(z, z, (unsigned long)(uint64_t)m);
    if (v < 0)
        mpz_neg(z, z);
}

/* An integer of one regime: small, around 2^53, anywhere up to 2^64, at
 * +-2^64, or in a cluster of integers that round to one double (ties in d,
 * different corrections). */
static i128 draw_int(int regime, i128 cluster)
{
    uint64_t r = test_rand(&rng_state);
    int neg = (int)(r >> 63);
    i128 m;
    switch (regime) {
    case 0:
        m = (i128)(r % 1000);
        break;
    case 1:
        m = ((i128)1 << 53) + (i128)(r % 9) - 4;
        break;
    case 2:
        m = (i128)(test_rand(&rng_state) >> (r % 12));
        break;
    case 3:
        m = ((i128)1 << 64) - (i128)(r % 3000) * (r % 5 != 0);
        break;
    default:
        return cluster + (i128)(r % 2047) - 1023;
    }
    return neg ? -m : m;
}

/* One random column of exact integers as doubles and corrections; maybe
 * mixed (a value that is no integer: a fraction, or CORR_NOT_INT beside an
 * integral double), NaN rows with garbage corrections. */
typedef struct icol {
    size_t n;
    double d[600];
    int32_t corr[600];
    i128 v[600];   /* the value, where real and an integer */
    int real[600]; /* not NaN */
    int mixed;
} icol;

static void draw_column(icol *c)
{
    c->n = 1 + test_rand(&rng_state) % 600;
    int regimes = 1 + (int)(test_rand(&rng_state) % 31); /* a set of them */
    i128 cluster = ((i128)1 << (60 + test_rand(&rng_state) % 4)) +
                   (i128)(test_rand(&rng_state) >> 8);
    cluster = (i128)nearest(cluster); /* a double: the cluster straddles it */
    c->mixed = test_rand(&rng_state) % 4 == 0;
    for (size_t i = 0; i < c->n; i++) {
        int regime;
        do
            regime = (int)(test_rand(&rng_state) % 5);
        while (!(regimes >> regime & 1));
        c->real[i] = test_rand(&rng_state) % 16 != 0;
        if (!c->real[i]) {
            c->d[i] = NAN;
            c->corr[i] = (int32_t)test_rand(&rng_state); /* ignored */
            continue;
        }
        c->v[i] = draw_int(regime, cluster);
        c->d[i] = nearest(c->v[i]);
        if (c->v[i] == 0 && test_rand(&rng_state) % 2)
            c->d[i] = -0.0;
        c->corr[i] = (int32_t)(c->v[i] - (i128)c->d[i]);
    }
    if (c->mixed) {
        size_t i = test_rand(&rng_state) % c->n;
        c->real[i] = 1;
        if (test_rand(&rng_state) % 2) {
            c->d[i] = 0.5 + (double)(test_rand(&rng_state) % 100);
            c->corr[i] = 0;
        } else {
            c->d[i] = nearest(draw_int(2, 0));
            c->corr[i] = CORR_NOT_INT;
        }
    }
}

/* The column's statistics: in row batches split at random points, each with
 * its corrections (or NULL where they are all 0, as a row batch without any
 * passes them), merged in random tree order. */
static void reduce_column(const icol *c, unsigned what, col_stats *out)
{
    static col_stats g[16];
    static size_t start[16];
    int ng = 0;
    for (size_t at = 0; at < c->n || ng == 0;) {
        size_t len =
            ng < 15 ? test_rand(&rng_state) % (c->n - at + 1) : c->n - at;
        int any = 0;
        for (size_t i = at; i < at + len; i++)
            any |= c->corr[i] != 0;
        const int32_t *corr =
            any || test_rand(&rng_state) % 2 ? c->corr + at : NULL;
        start[ng] = at;
        stats_init(&g[ng]);
        stats_add_values(&g[ng], c->d + at, corr, len, 1, what);
        ng++;
        at += len;
    }
    while (ng > 1) {
        int k = (int)(test_rand(&rng_state) % (uint64_t)(ng - 1));
        ck_assert_int_eq(stats_merge(&g[k], &g[k + 1], start[k + 1] - start[k]),
                         0);
        stats_free(&g[k + 1]);
        memmove(&g[k + 1], &g[k + 2], (size_t)(ng - k - 2) * sizeof g[0]);
        memmove(&start[k + 1], &start[k + 2],
                (size_t)(ng - k - 2) * sizeof start[0]);
        ng--;
    }
    *out = g[0];
}

/* The exact integers: sum, mean rounded once, std from the exact sums,
 * extremes with their first rows, all printed exactly. */
static void check_integers(const icol *c, const col_summary *o)
{
    mpz_t s, s2, t;
    mpq_t q, v;
    mpz_inits(s, s2, t, NULL);
    mpq_inits(q, v, NULL);
    uint64_t n = 0, min_row = 0, max_row = 0;
    i128 mn = 0, mx = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!c->real[i])
            continue;
        mpz_from_i128(t, c->v[i]);
        mpz_add(s, s, t);
        mpz_addmul(s2, t, t);
        if (!n || c->v[i] < mn) {
            mn = c->v[i];
            min_row = i + 1;
        }
        if (!n || c->v[i] > mx) {
            mx = c->v[i];
            max_row = i + 1;
        }
        n++;
    }
    char want[64];
    ck_assert_uint_eq(o->count, n);
    ck_assert_str_eq(o->sum_int, mpz_get_str(want, 10, s));
    mpz_from_i128(t, mn);
    ck_assert_str_eq(o->min_int, mpz_get_str(want, 10, t));
    mpz_from_i128(t, mx);
    ck_assert_str_eq(o->max_int, mpz_get_str(want, 10, t));
    ck_assert_uint_eq(o->min_row, min_row);
    ck_assert_uint_eq(o->max_row, max_row);
    mpq_set_z(q, s);
    ck_assert_msg(is_rounded(q, o->sum), "sum %a", o->sum);
    mpz_set_ui(t, (unsigned long)n);
    mpq_set_z(v, t);
    mpq_div(q, q, v);
    ck_assert_msg(is_rounded(q, o->mean), "mean %a", o->mean);
    if (n > 1) { /* (n s2 - s^2) / (n (n - 1)) */
        mpz_mul_ui(s2, s2, (unsigned long)n);
        mpz_submul(s2, s, s);
        mpq_set_z(v, s2);
        mpz_set_ui(t, (unsigned long)(n * (n - 1)));
        mpq_set_z(q, t);
        mpq_div(v, v, q);
        ck_assert_msg(std_close(v, o->std), "std %a", o->std);
    }
    mpz_clears(s, s2, t, NULL);
    mpq_clears(q, v, NULL);
}

/* A mixed column reports the doubles, as before the integer view. */
static void check_doubles(const icol *c, const col_summary *o)
{
    ref r;
    reference(c->d, c->n, &r);
    ck_assert(memcmp(&o->min, &r.min, sizeof r.min) == 0);
    ck_assert(memcmp(&o->max, &r.max, sizeof r.max) == 0);
    ck_assert_uint_eq(o->min_row, r.min_row);
    ck_assert_uint_eq(o->max_row, r.max_row);
    mpq_t q, t;
    mpq_inits(q, t, NULL);
    for (size_t i = 0; i < c->n; i++)
        if (c->real[i]) {
            mpq_set_d(t, c->d[i]);
            mpq_add(q, q, t);
        }
    ck_assert_msg(is_rounded(q, o->sum), "sum %a", o->sum);
    mpq_clears(q, t, NULL);
}

/* Columns of exact integers near 2^53 .. 2^64 (and mixed ones), split,
 * merged: the integer view against GMP. */
START_TEST(test_integer_view)
{
    static icol c;
    int kinds[2] = {0, 0};
    for (int it = 0; it < iters(3000); it++) {
        draw_column(&c);
        col_stats st;
        col_summary o;
        reduce_column(&c, STAT_ALL, &st);
        stats_finalize(&st, &o);
        stats_free(&st);
        if (o.count == 0)
            continue;
        ck_assert_int_eq(o.is_int, !c.mixed);
        kinds[o.is_int]++;
        if (o.is_int)
            check_integers(&c, &o);
        else
            check_doubles(&c, &o);
    }
    ck_assert(kinds[0] > 0 && kinds[1] > 0);
}
END_TEST

/* The two examples, by hand. */
START_TEST(test_integer_examples)
{
    double d[3];
    int32_t corr[3];
    col_stats s;
    col_summary o;
    const char *ns[3] = {"1735704000123456789", "1735704000123456790",
                         "1735704000123456791"};
    for (int i = 0; i < 3; i++) {
        i128 v = (i128)strtoull(ns[i], NULL, 10);
        d[i] = nearest(v);
        corr[i] = (int32_t)(v - (i128)d[i]);
    }
    stats_init(&s);
    stats_add_values(&s, d, corr, 3, 1, STAT_ALL);
    stats_finalize(&s, &o);
    ck_assert(o.is_int);
    ck_assert_str_eq(o.sum_int, "5207112000370370370");
    ck_assert_str_eq(o.min_int, "1735704000123456789");
    ck_assert_str_eq(o.max_int, "1735704000123456791");
    ck_assert_uint_eq(o.min_row, 1);
    ck_assert_uint_eq(o.max_row, 3);
    ck_assert(o.mean == 1735704000123456790.0);
    ck_assert(o.std == 1.0);
    stats_free(&s);
    i128 w[3] = {((i128)1 << 53) + 1, ((i128)1 << 53) + 1, 1};
    for (int i = 0; i < 3; i++) {
        d[i] = nearest(w[i]);
        corr[i] = (int32_t)(w[i] - (i128)d[i]);
    }
    stats_init(&s);
    stats_add_values(&s, d, corr, 3, 1, STAT_ALL);
    stats_finalize(&s, &o);
    ck_assert_str_eq(o.sum_int, "18014398509481987");
    ck_assert_str_eq(o.max_int, "9007199254740993");
    stats_free(&s);
}
END_TEST
#endif

/* Instants past 2^53 (corrections) with many ties, each written at an
 * offset: the extremes' offsets are their first rows', through row
 * batches (stats_add_offsets), merges in random tree order and col_parts
 * one value at a time (stats_part_offset). */
START_TEST(test_offsets)
{
    enum { N = 2000 };
    static double d[N];
    static int32_t corr[N];
    static int16_t off[N];
    static int64_t us[N];
    for (int it = 0; it < iters(200); it++) {
        size_t n = 1 + test_rand(&rng_state) % N;
        int distinct = 1 + (int)(test_rand(&rng_state) % 5);
        for (size_t i = 0; i < n; i++) {
            us[i] = 1700000000000000000 +
                    (int64_t)(test_rand(&rng_state) % (uint64_t)distinct) * 7;
            d[i] = (double)us[i];
            corr[i] = (int32_t)(us[i] - (int64_t)d[i]);
            off[i] = test_rand(&rng_state) % 3
                         ? (int16_t)((int)(test_rand(&rng_state) % 2879) - 1439)
                         : 0;
        }
        size_t lo = 0, hi = 0;
        for (size_t i = 1; i < n; i++) {
            lo = us[i] < us[lo] ? i : lo;
            hi = us[i] > us[hi] ? i : hi;
        }
        /* batches of random length, merged in random order */
        static group g[64];
        int ng = 0;
        for (size_t at = 0; at < n && ng < 64; ng++) {
            size_t len =
                ng == 63 ? n - at : 1 + test_rand(&rng_state) % (n - at);
            g[ng].start = at;
            stats_init(&g[ng].st);
            stats_add_values(&g[ng].st, d + at, corr + at, len, 1, STAT_MIN);
            stats_add_offsets(&g[ng].st, off + at, len, 1);
            at += len;
        }
        while (ng > 1) {
            int k = (int)(test_rand(&rng_state) % (uint64_t)(ng - 1));
            ck_assert_int_eq(stats_merge(&g[k].st, &g[k + 1].st,
                                         g[k + 1].start - g[k].start),
                             0);
            stats_free(&g[k + 1].st);
            memmove(&g[k + 1], &g[k + 2], (size_t)(ng - k - 2) * sizeof g[0]);
            ng--;
        }
        col_part p;
        col_stats fromp;
        stats_part_init(&p);
        stats_init(&fromp);
        for (size_t i = 0; i < n; i++) {
            stats_part_add(&p, d[i], corr[i], i + 1);
            if (off[i])
                stats_part_offset(&p, i + 1, off[i]);
        }
        stats_merge_part(&fromp, &p, 0);
        const col_stats *got[] = {&g[0].st, &fromp};
        for (int w = 0; w < 2; w++) {
            ck_assert_uint_eq(got[w]->min_row_int, lo + 1);
            ck_assert_uint_eq(got[w]->max_row_int, hi + 1);
            ck_assert_int_eq(got[w]->min_off, off[lo]);
            ck_assert_int_eq(got[w]->max_off, off[hi]);
        }
        stats_free(&g[0].st);
        stats_free(&fromp);
    }
}
END_TEST

int main(void)
{
    rng_state = test_seed("test_stats");
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_extrema_and_merge);
    tcase_add_test(tc, test_counters_merge);
    tcase_add_test(tc, test_finalize_empty);
    tcase_add_test(tc, test_offsets);
#ifdef COLSTAT_HAVE_GMP
    tcase_add_test(tc, test_finalize_exact);
    tcase_add_test(tc, test_integer_view);
    tcase_add_test(tc, test_integer_examples);
#endif
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
