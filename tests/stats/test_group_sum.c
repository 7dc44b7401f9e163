/* src/stats/group_sum.c against exact rational arithmetic (GMP mpq): sums
 * of doubles from every regime (whole numbers of one unit, decimals,
 * magnitudes rising and falling, huge, tiny, infinite, signed zeros, any
 * bits) added one at a time and merged in pieces in any order hold the
 * exact sum: moved into a csum, its value is the exact sum rounded once.
 * Seed printed to stderr; COLSTAT_SEED reproduces a run. */
#include "src/stats/group_sum.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testlib.h"

#ifdef COLSTAT_HAVE_GMP
#include <gmp.h>

#include "tests/stats/gmp_ref.h"

static uint64_t seed;

static double value(test_rng *r, int regime)
{
    double sign = rng_below(r, 2) ? -1.0 : 1.0;
    switch (regime == 0 ? rng_below(r, 9) : (size_t)regime) {
    case 1: /* whole numbers */
        return sign * (double)rng_below(r, 1000001);
    case 2: /* three decimals */
        return sign * (double)rng_below(r, 1000000) / 1000.0;
    case 3: /* magnitudes that rise: units raised again and again */
        return sign * ldexp(1.0 + (double)rng_below(r, 1u << 30) / 0x1p30,
                            (int)rng_below(r, 200) - 100);
    case 4:
        return sign * ldexp(1.0, 880 + (int)rng_below(r, 60));
    case 5:
        return sign * ldexp(1.0, -1074 + (int)rng_below(r, 200));
    case 6:
        return rng_below(r, 50) ? sign * 0.0 : sign * INFINITY;
    case 7: {
        uint64_t b = rng_next(r);
        double x;
        memcpy(&x, &b, sizeof x);
        return isfinite(x) ? x : 0.25;
    }
    default:
        return sign *
               ldexp((double)rng_below(r, 1u << 20), -(int)rng_below(r, 70));
    }
}

START_TEST(test_exact_any_split)
{
    test_rng r = rng_for(seed, (uint64_t)_i);
    int regime = _i % 9;
    size_t n = 1 + rng_below(&r, test_quick() ? 500 : 5000);
    double *v = malloc(n * sizeof *v);
    mpq_t exact, q;
    mpq_init(exact);
    mpq_init(q);
    int inf = 0, ninf = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = value(&r, regime);
        if (isinf(v[i])) {
            inf += v[i] > 0;
            ninf += v[i] < 0;
            continue;
        }
        mpq_set_d(q, v[i]);
        mpq_add(exact, exact, q);
    }
    /* pieces of random lengths, each its own sum, merged last to first */
    group_sum whole;
    group_sum_init(&whole);
    size_t at = n;
    while (at > 0) {
        size_t len = 1 + rng_below(&r, at);
        group_sum part;
        group_sum_init(&part);
        for (size_t i = at - len; i < at; i++)
            ck_assert_int_eq(group_sum_add(&part, v[i]), 0);
        ck_assert_int_eq(group_sum_merge(&whole, &part), 0);
        group_sum_free(&part);
        at -= len;
    }
    csum c;
    sacc a;
    csum_init(&c);
    ck_assert_int_eq(group_sum_move(&whole, &c), 0);
    csum_get(&c, &a);
    double got = sacc_value(&a);
    if (inf && ninf)
        ck_assert(isnan(got));
    else if (inf || ninf)
        ck_assert(got == (inf ? INFINITY : -INFINITY));
    else
        ck_assert_msg(is_rounded(exact, got), "regime %d, n %zu: %a", regime, n,
                      got);
    csum_free(&c);
    mpq_clear(exact);
    mpq_clear(q);
    free(v);
}
END_TEST

int main(void)
{
    seed = test_seed("test_group_sum");
    Suite *s = suite_create("group_sum");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_exact_any_split, 0, 90);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK);
}
#else
int main(void)
{
    fprintf(stderr, "test_group_sum: no GMP: skipped\n");
    return 77;
}
#endif
