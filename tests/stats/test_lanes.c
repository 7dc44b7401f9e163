/* src/stats/lanes.c, both paths (AVX2 where the CPU has it, and the
 * portable loops), against a one-value-at-a-time reference written here:
 * count, min, max, integrality and the first index of each extreme, over
 * batches of every length to 70 and some long ones, drawn from NaN, both
 * zeros, infinities, fractions and integers at 2^52, 2^53 and 2^64. Seed
 * printed to stderr; COLSTAT_SEED reproduces a run. */
#include "src/stats/lanes.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testlib.h"

static uint64_t rng_state;

static double pick(void)
{
    double sign = test_rand(&rng_state) % 2 ? -1.0 : 1.0;
    switch (test_rand(&rng_state) % 12) {
    case 0:
        return NAN;
    case 1:
        return sign * 0.0;
    case 2:
        return sign * INFINITY;
    case 3: /* integers at the edges of the integer view */
        return sign * (0x1p52 + (double)(test_rand(&rng_state) % 3) - 1);
    case 4:
        return sign * (0x1p53 + 2 * (double)(test_rand(&rng_state) % 3));
    case 5: {
        uint64_t k = test_rand(&rng_state) % 3;
        return sign * (k == 0 ? 0x1p64 : nextafter(0x1p64, k == 1 ? 0 : 1e300));
    }
    case 6:
        return sign * (0x1p52 - 0.5);
    case 7:
        return sign * (double)(test_rand(&rng_state) % 5);
    case 8:
        return sign * test_unif(&rng_state) * 10;
    default:
        return sign * (double)(test_rand(&rng_state) % 1000) / 8;
    }
}

/* The reference: C's comparisons, one value at a time. */
static int is_int(double x)
{
    return fabs(x) <= 0x1p64 && x == floor(x);
}

static void check_batch(const double *v, size_t n)
{
    uint64_t count = 0;
    double mn = INFINITY, mx = -INFINITY;
    int all_int = 1;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        count++;
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
        all_int &= is_int(v[i]);
    }
    for (int portable = 0; portable < 2; portable++) {
        lanes_force_portable(portable);
        lanes r = lanes_scan(v, n);
        EXPECT(r.count == count, "n %zu portable %d: count %llu, want %llu", n,
               portable, (unsigned long long)r.count,
               (unsigned long long)count);
        EXPECT(r.min == mn && r.max == mx, "n %zu portable %d: min %a max %a",
               n, portable, r.min, r.max);
        EXPECT(r.all_int == all_int, "n %zu portable %d: all_int %d", n,
               portable, r.all_int);
        if (count == 0)
            continue;
        size_t lo = 0, hi = 0;
        while (!(v[lo] == mn))
            lo++;
        while (!(v[hi] == mx))
            hi++;
        EXPECT(lanes_first_equal(v, n, r.min) == lo &&
                   lanes_first_equal(v, n, r.max) == hi,
               "n %zu portable %d: first extremes", n, portable);
    }
    lanes_force_portable(0);
}

START_TEST(test_scan_batches)
{
    static double v[5000];
    for (size_t n = 0; n <= 70; n++)
        for (int it = 0; it < 200; it++) {
            for (size_t i = 0; i < n; i++)
                v[i] = pick();
            check_batch(v, n);
        }
    for (int it = 0; it < 50; it++) {
        size_t n = 1000 + (size_t)(test_rand(&rng_state) % 4000);
        for (size_t i = 0; i < n; i++) /* mostly ordinary, few specials */
            v[i] = test_rand(&rng_state) % 64 ? (double)(i % 977) / 4 : pick();
        check_batch(v, n);
    }
}
END_TEST

int main(void)
{
    rng_state = test_seed("test_lanes");
    Suite *s = suite_create("lanes");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_scan_batches);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
