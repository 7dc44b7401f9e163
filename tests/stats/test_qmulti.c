/* src/stats/qmulti.c: the order statistics at many ranks at once, against
 * a full sort (qsort with the same order) of the same values: random
 * values with many ties (equal doubles, equal doubles with other
 * corrections, -0 and +0, infinities), sorted, reversed, all equal and
 * organ-pipe inputs, ranks random and at both ends; every value before a
 * rank no greater, after it no less, and the values a permutation of the
 * input. Seed printed; COLSTAT_SEED replays. */
#include "src/stats/qmulti.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testlib.h"

static uint64_t seed;

static int cmp_void(const void *a, const void *b)
{
    return qmulti_cmp(a, b);
}

static qnum draw(test_rng *r, int kind, size_t i, size_t n)
{
    switch (kind) {
    case 0: { /* ties everywhere */
        static const double few[] = {-0.0,     0.0,       1.5,   -2.0,
                                     INFINITY, -INFINITY, 1e300, 0x1p60};
        double d = few[rng_below(r, 8)];
        return (qnum){d, d == 0x1p60 ? (int32_t)rng_below(r, 5) - 2 : 0};
    }
    case 1:
        return (qnum){(double)i, 0}; /* sorted */
    case 2:
        return (qnum){(double)(n - i), 0}; /* reversed */
    case 3:
        return (qnum){7.0, 0}; /* all equal */
    case 4:
        return (qnum){(double)(i < n / 2 ? i : n - i), 0}; /* organ pipe */
    default:
        return (qnum){(double)(int64_t)(rng_next(r) >> 20) / 1024.0, 0};
    }
}

START_TEST(test_against_sort)
{
    test_rng r = rng_for(seed, (uint64_t)_i);
    size_t n = 1 + rng_below(&r, _i % 3 ? 2000 : 200000);
    int kind = _i % 6;
    qnum *x = malloc(n * sizeof *x), *s = malloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++)
        s[i] = x[i] = draw(&r, kind, i, n);
    qsort(s, n, sizeof *s, cmp_void);
    size_t nr = 1 + rng_below(&r, 8), want[10];
    for (size_t i = 0; i < nr; i++)
        want[i] = rng_below(&r, n);
    want[nr++] = 0;
    want[nr++] = n - 1;
    for (size_t i = 1; i < nr; i++) /* ascending, once each */
        for (size_t j = i; j > 0 && want[j - 1] > want[j]; j--) {
            size_t t = want[j];
            want[j] = want[j - 1];
            want[j - 1] = t;
        }
    size_t m = 0;
    for (size_t i = 0; i < nr; i++)
        if (!m || want[m - 1] != want[i])
            want[m++] = want[i];
    qmulti_select(x, n, want, m);
    for (size_t i = 0; i < m; i++) {
        size_t k = want[i];
        ck_assert_msg(qmulti_cmp(&x[k], &s[k]) == 0, "rank %zu of %zu", k, n);
        for (size_t j = 0; j < n; j++)
            ck_assert(j < k ? qmulti_cmp(&x[j], &x[k]) <= 0
                            : qmulti_cmp(&x[j], &x[k]) >= 0);
    }
    qsort(x, n, sizeof *x, cmp_void); /* a permutation: the same sorted */
    for (size_t i = 0; i < n; i++)
        ck_assert(qmulti_cmp(&x[i], &s[i]) == 0 &&
                  signbit(x[i].d) == signbit(s[i].d));
    free(x);
    free(s);
}
END_TEST

int main(void)
{
    seed = test_seed("test_qmulti");
    Suite *s = suite_create("qmulti");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_against_sort, 0, 36);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
