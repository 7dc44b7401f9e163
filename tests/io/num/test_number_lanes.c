/* num_short4 and num_exp4 (io/num/number_lanes.h) against the scalar
 * ways, one field at a time (num_short_padded, num_short8_exp): for four
 * random fields at once, the same fields taken and the same double bit
 * for bit; and against parse_number_fmt, the core's path, for those they
 * take. Fields are short numbers with their edges (a sign alone, a point
 * alone or at either end, "-0", eight digits), the same with an exponent
 * of 0 to 4 digits, signed or not, with a byte mutated, and junk, each at
 * the start of a heap copy whose padding holds random bytes. A fresh seed each
 * run (COLSTAT_SEED replays it); skipped (77) where the CPU has no AVX2. */
#include "io/num/number_lanes.h"
#include "io/num/number_short.h"
#include "io/num/parse_number.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testlib.h"

static uint64_t seed;

static unsigned below(test_rng *r, unsigned n)
{
    return (unsigned)rng_below(r, n);
}

/* A random field of at most 12 bytes, mostly a short number with point p;
 * with exp, mostly followed by an exponent (at most 19 bytes). */
static size_t random_field(test_rng *r, char p, int exp, char *o)
{
    static const char junk[] = "0123456789.,'-+eE xa\"\t";
    size_t n = 0;
    unsigned kind = below(r, 8);
    if (kind == 0) { /* junk */
        n = below(r, 13);
        for (size_t i = 0; i < n; i++)
            o[i] = below(r, 4) ? junk[below(r, sizeof junk - 1)]
                               : (char)rng_next(r);
        return n;
    }
    if (below(r, 3) == 0)
        o[n++] = '-';
    unsigned digits = below(r, 5) ? 1 + below(r, 8) : below(r, 11);
    unsigned point = below(r, 3) ? below(r, digits + 1) : digits + 1;
    for (unsigned i = 0; i < digits; i++) {
        if (i == point)
            o[n++] = p;
        o[n++] = (char)('0' + (below(r, 6) ? below(r, 10) : 9 * below(r, 2)));
    }
    if (point == digits)
        o[n++] = p;
    if (exp && below(r, 6)) {
        o[n++] = below(r, 4) ? 'e' : 'E';
        unsigned sign = below(r, 3);
        if (sign)
            o[n++] = sign == 1 ? '-' : '+';
        unsigned xd = below(r, 6) ? 1 + below(r, 3) : below(r, 5);
        for (unsigned i = 0; i < xd; i++)
            o[n++] = (char)('0' + (i == 0 && below(r, 2) ? below(r, 3)
                                                         : below(r, 10)));
    }
    if (kind == 1 && n) /* one byte mutated */
        o[below(r, (unsigned)n)] = junk[below(r, sizeof junk - 1)];
    return n;
}

#ifdef NUM_LANES
START_TEST(lanes_match_one_at_a_time)
{
    static const char points[] = ".,'";
    test_rng r = rng_for(seed, 1);
    long iters = test_quick() ? 100000 : 2000000;
    for (long it = 0; it < iters; it++) {
        char point = below(&r, 4) ? '.' : points[below(&r, 3)];
        int exp = (int)below(&r, 2);
        char text[4][24], *copy[4];
        size_t n[4];
        const char *m[4];
        uint64_t len[4], neg[4];
        for (int i = 0; i < 4; i++) {
            n[i] = random_field(&r, point, exp, text[i]);
            /* num_exp4 reads 20 bytes from past the sign */
            copy[i] = malloc(n[i] + NUM_PAD + 8);
            EXPECT(copy[i] != NULL, "out of memory");
            memcpy(copy[i], text[i], n[i]);
            for (size_t k = n[i]; k < n[i] + NUM_PAD + 8; k++)
                copy[i][k] = below(&r, 2) ? (char)('0' + below(&r, 10))
                                          : (char)rng_next(&r);
            neg[i] = copy[i][0] == '-';
            m[i] = copy[i] + neg[i];
            len[i] = n[i] - neg[i];
        }
        double out[4];
        unsigned miss = exp ? num_exp4(m, len, neg, point, out)
                            : num_short4(m, len, neg, point, out);
        for (int i = 0; i < 4; i++) {
            double want;
            /* a '-' in the padding after an empty field: len wraps, as
               after a '-' delimiter, and no end may be formed from it */
            int whole = len[i] <= n[i];
            int took = exp ? whole && num_short8_exp(num_load8(m[i]), m[i],
                                                     m[i] + len[i], neg[i],
                                                     point, &want)
                           : num_short_padded(copy[i], n[i], point, &want);
            EXPECT(took == !(miss >> i & 1),
                   "\"%.*s\" (point '%c'%s): taken %d, one at a time %d "
                   "(seed %" PRIu64 ")",
                   (int)n[i], text[i], point, exp ? ", exponent" : "",
                   !(miss >> i & 1), took, seed);
            if (took) {
                num_format f;
                num_format_init(&f);
                f.decimal = point;
                double core;
                int32_t corr;
                EXPECT(parse_number_fmt(text[i], n[i], &f, &core, &corr) ==
                               NUM_OK &&
                           bits_of(core) == bits_of(out[i]),
                       "\"%.*s\": core %a (seed %" PRIu64 ")", (int)n[i],
                       text[i], core, seed);
                EXPECT(bits_of(out[i]) == bits_of(want),
                       "\"%.*s\" (point '%c'): %a, one at a time %a "
                       "(seed %" PRIu64 ")",
                       (int)n[i], text[i], point, out[i], want, seed);
            }
            free(copy[i]);
        }
    }
}
END_TEST
#endif

int main(void)
{
    seed = test_seed("test_number_lanes");
#ifdef NUM_LANES
    if (!__builtin_cpu_supports("avx2"))
        return 77;
    Suite *s = suite_create("number_lanes");
    TCase *tc = tcase_create("differential");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, lanes_match_one_at_a_time);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
#else
    return 77;
#endif
}
