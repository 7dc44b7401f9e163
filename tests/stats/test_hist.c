/* src/stats/hist.c and the hist_bin.h formula against the exact bin
 * floor((v - lo) * nbins / (hi - lo)) computed with GMP mpq: equal for
 * every value, those within a few ulps of an edge (where the formula's
 * fast estimate rounds and its exact test decides) included; the test
 * prints how many it drew there. Bins are monotone in v. Merges, NaN
 * skipping and under/overflow are checked too. COLSTAT_SEED reproduces a
 * run. */
#include "src/stats/hist_bin.h"
#include "src/stats/stats.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/testlib.h"

#ifdef COLSTAT_HAVE_GMP
#include <gmp.h>

static uint64_t rng_state;

static int iters(int n)
{
    return getenv("COLSTAT_TEST_QUICK") ? n / 10 + 1 : n;
}

/* -1 / nbins outside; else the exact bin; *near: within tol of an edge */
static int exact_bin(double lo, double hi, int nbins, double v, int *near)
{
    *near = 0;
    if (v < lo)
        return -1;
    if (v > hi)
        return nbins;
    if (v == hi)
        return hi > lo ? nbins - 1 : 0;
    mpq_t t, d, tol;
    mpz_t f;
    mpq_inits(t, d, tol, NULL);
    mpz_init(f);
    mpq_set_d(t, v);
    mpq_set_d(d, lo);
    mpq_sub(t, t, d);
    mpq_set_d(tol, hi);
    mpq_sub(d, tol, d); /* hi - lo */
    mpq_div(t, t, d);
    mpq_set_ui(tol, (unsigned long)nbins, 1);
    mpq_mul(t, t, tol);
    mpz_fdiv_q(f, mpq_numref(t), mpq_denref(t));
    int b = (int)mpz_get_si(f);
    /* hist_bin.h's bound: 2^-50 (hi - lo) in v, nbins 2^-50 in t (three
     * roundings of at most 2^-53 relative each, on t <= nbins) */
    mpq_set_d(tol, ldexp((double)nbins, -50));
    mpq_set_z(d, f);
    mpq_sub(d, t, d); /* frac(t) in [0, 1) */
    if (mpq_cmp(d, tol) <= 0)
        *near = 1;
    mpq_set_ui(t, 1, 1);
    mpq_sub(d, t, d); /* distance to the next edge */
    if (mpq_cmp(d, tol) <= 0)
        *near = 1;
    mpq_clears(t, d, tol, NULL);
    mpz_clear(f);
    return b < nbins ? b : nbins - 1;
}

static double rand_range(double *hi, int regime)
{
    double lo, a, b;
    switch (regime) {
    case 0: /* ordinary */
        a = (2 * test_unif(&rng_state) - 1) * 1000;
        b = (2 * test_unif(&rng_state) - 1) * 1000;
        break;
    case 1: /* near overflow: hi - lo itself overflows */
        a = -DBL_MAX * test_unif(&rng_state);
        b = DBL_MAX * test_unif(&rng_state);
        break;
    case 2: /* subnormal */
        a = ldexp(2 * test_unif(&rng_state) - 1, -1060);
        b = ldexp(2 * test_unif(&rng_state) - 1, -1060);
        break;
    default: /* a narrow range far from zero */
        a = 1e9 + test_unif(&rng_state) * 1e-3;
        b = a + test_unif(&rng_state) * 1e-3;
        break;
    }
    lo = fmin(a, b);
    *hi = fmax(a, b);
    return lo;
}

/* values: inside, outside, on and next to the (rounded) exact edges */
static double rand_value(double lo, double hi, int nbins)
{
    double w = hi * 0.5 - lo * 0.5;
    switch (test_rand(&rng_state) % 6) {
    case 0:
        return lo + (hi - lo) * (1.1 * test_unif(&rng_state) - 0.05);
    case 1:
        return test_rand(&rng_state) % 2 ? lo : hi;
    case 2:
        return nextafter(test_rand(&rng_state) % 2 ? lo : hi,
                         test_rand(&rng_state) % 2 ? INFINITY : -INFINITY);
    default: { /* near edge k: lo + k * w * 2 / nbins, a few ulps off */
        double e = lo + 2.0 * (w * ((double)(test_rand(&rng_state) %
                                             (unsigned)(nbins + 1)) /
                                    nbins));
        for (int s = (int)(test_rand(&rng_state) % 5) - 2; s != 0;
             s += s > 0 ? -1 : 1)
            e = nextafter(e, s > 0 ? INFINITY : -INFINITY);
        return e;
    }
    }
}

START_TEST(test_bins_vs_exact)
{
    long near_total = 0, off_by_one = 0, values = 0;
    for (int it = 0; it < iters(400); it++) {
        int regime = it % 4;
        int nbins = test_rand(&rng_state) % 3
                        ? 256
                        : 1 + (int)(test_rand(&rng_state) % 300);
        double hi, lo = rand_range(&hi, regime);
        hist_scale sc = hist_scale_make(lo, hi, nbins);
        for (int k = 0; k < 500; k++) {
            double v = rand_value(lo, hi, nbins);
            if (isnan(v))
                continue;
            int near, want = exact_bin(lo, hi, nbins, v, &near);
            int got = hist_bin(&sc, v);
            values++;
            near_total += near;
            off_by_one += got != want;
            ck_assert_msg(got == want,
                          "lo %a hi %a nbins %d v %a: bin %d, exact %d", lo, hi,
                          nbins, v, got, want);
        }
    }
    fprintf(stderr,
            "test_hist: %ld values, %ld within rounding of an edge, "
            "%ld off the exact bin\n",
            values, near_total, off_by_one);
    ck_assert(near_total > values / 10); /* the edges are reached */
}
END_TEST

/* lo >= 0 and every edge a double with a power-of-two step: then the
 * formula is exact too, edges and their neighbours included. */
START_TEST(test_exact_edges)
{
    for (int it = 0; it < iters(300); it++) {
        int nbins = 1 << (test_rand(&rng_state) % 9);
        double step = ldexp(1.0, (int)(test_rand(&rng_state) % 40) - 20);
        double lo = step * (double)(test_rand(&rng_state) % 1000);
        double hi = lo + step * nbins;
        hist_scale sc = hist_scale_make(lo, hi, nbins);
        for (int k = 0; k <= nbins; k++) {
            double e = lo + step * k;
            double vs[3] = {e, nextafter(e, -INFINITY), nextafter(e, INFINITY)};
            for (int j = 0; j < 3; j++) {
                int near;
                ck_assert_int_eq(hist_bin(&sc, vs[j]),
                                 exact_bin(lo, hi, nbins, vs[j], &near));
            }
        }
    }
}
END_TEST

/* Short decimal edges, the common case of labels: the edge itself lands
 * in its bin, the double below it in the bin before, for ranges of any
 * sign ([0, 100] in 10 bins, [-1, 1] in 256, [3, 17] in 10 ...). */
START_TEST(test_decimal_edges)
{
    for (int it = 0; it < iters(300); it++) {
        int nbins = 1 + (int)(test_rand(&rng_state) % 300);
        double unit = pow(10, (double)(test_rand(&rng_state) % 9) - 4);
        double lo = unit * ((double)(test_rand(&rng_state) % 2001) - 1000);
        double hi = lo + unit * (1 + (double)(test_rand(&rng_state) % 1000));
        hist_scale sc = hist_scale_make(lo, hi, nbins);
        for (int k = 0; k <= nbins; k++) {
            double e = lo + (hi - lo) * k / nbins;
            double vs[3] = {e, nextafter(e, -INFINITY), nextafter(e, INFINITY)};
            for (int j = 0; j < 3; j++) {
                int near;
                ck_assert_msg(hist_bin(&sc, vs[j]) ==
                                  exact_bin(lo, hi, nbins, vs[j], &near),
                              "lo %a hi %a nbins %d v %a", lo, hi, nbins,
                              vs[j]);
            }
        }
    }
}
END_TEST

/* Ranges at the ends of the doubles with values at the other end: edges
 * of [-DBL_MAX, DBL_MAX] next to subnormals and zeros, subnormal ranges,
 * a tiny lo below a huge hi. */
START_TEST(test_extreme_ranges)
{
    const double big = DBL_MAX, tiny = 0x1p-1074;
    const double ranges[][2] = {
        {-big, big},   {-big, big / 3},   {-tiny, big},       {tiny, big},
        {-big, -tiny}, {-1e-310, 3e-310}, {-big / 2, big / 2}};
    const double vals[] = {0.0,      -0.0,   tiny,    -tiny,     3 * tiny,
                           -5e-324,  1e-310, -1e-310, 0x1p-1022, -0x1p-1022,
                           1.5,      -1.5,   1e300,   -1e300,    big / 4,
                           -big / 4, big,    -big,    2e-310,    -2e-310};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        double lo = ranges[r][0], hi = ranges[r][1];
        for (int nbins = 1; nbins <= 1024; nbins = nbins * 2 + nbins % 3) {
            hist_scale sc = hist_scale_make(lo, hi, nbins);
            for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
                double v = vals[i];
                for (int d = -2; d <= 2; d++) {
                    int near;
                    ck_assert_msg(hist_bin(&sc, v) ==
                                      exact_bin(lo, hi, nbins, v, &near),
                                  "lo %a hi %a nbins %d v %a: bin %d", lo, hi,
                                  nbins, v, hist_bin(&sc, v));
                    v = nextafter(v, d < 0 ? -INFINITY : INFINITY);
                }
            }
        }
    }
}
END_TEST

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(test_monotone)
{
    static double v[2000];
    for (int it = 0; it < iters(100); it++) {
        int nbins = 1 + (int)(test_rand(&rng_state) % 300);
        double hi, lo = rand_range(&hi, it % 4);
        for (int i = 0; i < 2000; i++)
            v[i] = rand_value(lo, hi, nbins);
        qsort(v, 2000, sizeof v[0], cmp_double);
        hist_scale sc = hist_scale_make(lo, hi, nbins);
        for (int i = 1; i < 2000; i++)
            ck_assert_int_le(hist_bin(&sc, v[i - 1]), hist_bin(&sc, v[i]));
    }
}
END_TEST

/* hist_add_values over parts, merged, equals the reference counts */
START_TEST(test_add_merge)
{
    static double v[5000];
    for (int it = 0; it < iters(100); it++) {
        int nbins = test_rand(&rng_state) % 2
                        ? 256
                        : 1 + (int)(test_rand(&rng_state) % 50);
        double hi, lo = rand_range(&hi, it % 4);
        if (it % 10 == 0)
            hi = lo; /* a constant column */
        size_t n = test_rand(&rng_state) % 5000;
        for (size_t i = 0; i < n; i++)
            v[i] = test_rand(&rng_state) % 10 ? rand_value(lo, hi, nbins) : NAN;
        hist whole, part;
        ck_assert_int_eq(hist_init(&whole, nbins, lo, hi), 0);
        size_t cut = n ? test_rand(&rng_state) % n : 0, at = 0;
        while (at < n) {
            size_t len = cut ? cut : n;
            len = len < n - at ? len : n - at;
            ck_assert_int_eq(hist_init(&part, nbins, lo, hi), 0);
            hist_add_values(&part, v + at, len);
            hist_merge(&whole, &part);
            hist_free(&part);
            at += len;
        }
        uint64_t *ref = calloc((size_t)nbins + 2, sizeof *ref);
        hist_scale sc = hist_scale_make(lo, hi, nbins);
        for (size_t i = 0; i < n; i++) {
            if (isnan(v[i]))
                continue;
            int near, b = exact_bin(lo, hi, nbins, v[i], &near);
            ck_assert_int_eq(b, hist_bin(&sc, v[i]));
            ck_assert_msg(b >= -1 && b <= nbins, "lo %a hi %a v %a b %d", lo,
                          hi, v[i], b);
            ref[b + 1]++;
        }
        ck_assert_uint_eq(whole.underflow, ref[0]);
        ck_assert_uint_eq(whole.overflow, ref[nbins + 1]);
        for (int b = 0; b < nbins; b++)
            ck_assert_uint_eq(whole.bins[b], ref[b + 1]);
        free(ref);
        hist_free(&whole);
    }
}
END_TEST

int main(void)
{
    rng_state = test_seed("test_hist");
    Suite *s = suite_create("hist");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_bins_vs_exact);
    tcase_add_test(tc, test_exact_edges);
    tcase_add_test(tc, test_decimal_edges);
    tcase_add_test(tc, test_extreme_ranges);
    tcase_add_test(tc, test_monotone);
    tcase_add_test(tc, test_add_merge);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}

#else
int main(void)
{
    fprintf(stderr, "test_hist: GMP not found, skipped\n");
    return 77;
}
#endif
