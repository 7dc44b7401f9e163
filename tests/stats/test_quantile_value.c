/* src/stats/qvalue.c against exact rationals (GMP mpq): the type-7 value
 * (1 - f) a + f b of doubles from every regime (subnormals to 1e308,
 * neighbours, ties to even) and of exact integers d + r around 2^53..2^64
 * of both signs is the exact rational rounded once; integer results come
 * back whole (d, r and decimal text against mpz); infinities and zeros
 * follow the documented rules. Seed printed to stderr; COLSTAT_SEED
 * reproduces a run. */
#include "src/stats/quantile.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/testlib.h"

#ifdef COLSTAT_HAVE_GMP
#include <gmp.h>

#include "tests/stats/gmp_ref.h"

__extension__ typedef __int128 i128;

static uint64_t seed;

static int iters(int n)
{
    return test_quick() ? n / 10 + 1 : n;
}

/* A finite double of biased exponent in [elo, ehi], random sign. */
static double rand_exp(test_rng *g, int elo, int ehi)
{
    uint64_t e = (uint64_t)elo + rng_below(g, (size_t)(ehi - elo + 1));
    uint64_t frac = rng_next(g) & ((UINT64_C(1) << 52) - 1);
    return from_bits((rng_next(g) & (UINT64_C(1) << 63)) | e << 52 | frac);
}

/* An integer in [-2^64, 2^64] of random size, as d + r, d the nearest:
 * the ends too, which an integer column holds. */
static qnum rand_int(test_rng *g)
{
    int bits = 50 + (int)rng_below(g, 15); /* 2^50 .. 2^64 */
    if (rng_below(g, 8) == 0)
        bits = (int)rng_below(g, 65);
    i128 v = bits == 0 ? 0 : (i128)(rng_next(g) >> (64 - bits));
    if (rng_below(g, 16) == 0)
        v = (i128)1 << 64;
    if (rng_below(g, 2))
        v = -v;
    qnum q;
    q.d = (double)v;
    q.r = (int32_t)(v - (i128)q.d);
    return q;
}

static void to_mpq(mpq_t out, qnum v)
{
    mpq_t t;
    mpq_init(t);
    mpq_set_d(out, v.d);
    mpq_set_si(t, qsel_r(v.r), 1);
    mpq_add(out, out, t);
    mpq_clear(t);
}

static int integral_within_2_64(const mpq_t v)
{
    if (mpz_cmp_ui(mpq_denref(v), 1) != 0)
        return 0;
    mpz_t lim;
    mpz_init_set_ui(lim, 1);
    mpz_mul_2exp(lim, lim, 64);
    int ok = mpz_cmpabs(mpq_numref(v), lim) <= 0;
    mpz_clear(lim);
    return ok;
}

/* a <= b in the selection's order */
static void order(qnum *a, qnum *b)
{
    uint64_t ka = qsel_key(a->d), kb = qsel_key(b->d);
    if (ka > kb || (ka == kb && qsel_r(a->r) > qsel_r(b->r))) {
        qnum t = *a;
        *a = *b;
        *b = t;
    }
}

/* One interpolation against mpq: the value, and the integer form. */
/* Between integer order statistics: the exact v rounded to the nearest
 * integer, halves away from zero (floor(|v| + 1/2), v's sign), where that
 * lies in [-2^64, 2^64]. */
static void check_near(const qres *res, const mpq_t v)
{
    mpz_t n, lim;
    mpz_inits(n, lim, NULL);
    mpz_mul_2exp(n, mpq_numref(v), 1);
    mpz_abs(n, n);
    mpz_add(n, n, mpq_denref(v));
    mpz_mul_2exp(lim, mpq_denref(v), 1);
    mpz_fdiv_q(n, n, lim);
    if (mpq_sgn(v) < 0)
        mpz_neg(n, n);
    mpz_set_ui(lim, 1);
    mpz_mul_2exp(lim, lim, 64);
    int in_range = mpz_cmpabs(n, lim) <= 0;
    EXPECT(res->has_near == in_range, "has_near %d", res->has_near);
    if (in_range && res->has_near) {
        char buf[48], want[48];
        ck_assert(qvalue_int_text(res->near, buf, sizeof buf) > 0);
        mpz_get_str(want, 10, n);
        EXPECT(strcmp(buf, want) == 0, "nearest %s, not %s", buf, want);
    }
    mpz_clears(n, lim, NULL);
}

static void check_pair(qnum a, qnum b, uint64_t fnum, uint64_t fden)
{
    qres res;
    qvalue_interpolate(a, b, fnum, fden, &res);
    mpq_t qa, qb, f, v;
    mpq_inits(qa, qb, f, v, NULL);
    to_mpq(qa, a);
    to_mpq(qb, b);
    mpq_set_ui(f, fnum, fden);
    mpq_canonicalize(f);
    mpq_sub(v, qb, qa);
    mpq_mul(v, v, f);
    mpq_add(v, v, qa);
    ck_assert(res.has_value);
    EXPECT(is_rounded(v, res.value), "%a%+d .. %a%+d at %llu/%llu: %a", a.d,
           a.r, b.d, b.r, (unsigned long long)fnum, (unsigned long long)fden,
           res.value);
    int ints =
        integral_within_2_64(qa) && (fnum == 0 || integral_within_2_64(qb));
    int want_int = ints && integral_within_2_64(v);
    EXPECT(res.is_int == want_int, "%a%+d .. %a%+d at %llu/%llu: is_int %d",
           a.d, a.r, b.d, b.r, (unsigned long long)fnum,
           (unsigned long long)fden, res.is_int);
    if (want_int) {
        mpq_t x;
        mpq_init(x);
        to_mpq(x, res.exact);
        EXPECT(mpq_equal(x, v), "exact form differs");
        EXPECT(res.exact.d == res.value, "d is not the nearest double");
        EXPECT(abs(res.exact.r) <= QSEL_R_MAX, "r out of range");
        char buf[48], want[48];
        ck_assert(qvalue_int_text(res.exact, buf, sizeof buf) > 0);
        mpz_get_str(want, 10, mpq_numref(v));
        EXPECT(strcmp(buf, want) == 0, "text %s, not %s", buf, want);
        mpq_clear(x);
    }
    if (ints)
        check_near(&res, v);
    else
        EXPECT(!res.has_near, "a nearest integer between non-integers");
    mpq_clears(qa, qb, f, v, NULL);
}

static uint64_t rand_den(test_rng *g, uint64_t *fnum)
{
    uint64_t den = 1;
    for (size_t k = 1 + rng_below(g, 18); k > 0; k--)
        den *= 10;
    *fnum = rng_next(g) % den;
    return den;
}

static double rand_regime(test_rng *g, int regime)
{
    switch (regime) {
    case 0:
        return rand_exp(g, 0, 2046); /* anything finite */
    case 1:
        return rand_exp(g, 0, 2); /* subnormal and the smallest normals */
    case 2:
        return rand_exp(g, 2030, 2046); /* near the top */
    case 3:
        return (double)(int)rng_below(g, 21) - 10;
    default:
        return (2 * test_unif(&g->s) - 1) * 1000;
    }
}

START_TEST(test_doubles)
{
    test_rng g = rng_for(seed, 1);
    for (int it = 0; it < iters(100000); it++) {
        qnum a = {rand_regime(&g, (int)rng_below(&g, 5)), 0};
        qnum b = {rand_regime(&g, (int)rng_below(&g, 5)), 0};
        if (rng_below(&g, 4) == 0) /* neighbours, a few ulps apart */
            b.d = nextafter(a.d, rng_below(&g, 2) ? INFINITY : -INFINITY);
        order(&a, &b);
        uint64_t fnum, fden = rand_den(&g, &fnum);
        if (rng_below(&g, 8) == 0)
            fnum = 0;
        check_pair(a, b, fnum, fden);
    }
}
END_TEST

/* Halfway cases: neighbours at 1/2, two ulps at 1/4 and 3/4. */
START_TEST(test_ties)
{
    test_rng g = rng_for(seed, 2);
    for (int it = 0; it < iters(20000); it++) {
        qnum a = {rand_regime(&g, (int)rng_below(&g, 3)), 0}, b = a;
        b.d = nextafter(a.d, INFINITY);
        if (isinf(b.d))
            continue;
        check_pair(a, b, 5, 10);
        b.d = nextafter(b.d, INFINITY);
        if (isinf(b.d))
            continue;
        check_pair(a, b, 25, 100);
        check_pair(a, b, 75, 100);
    }
    /* 1 and 1 + 2^-52 at 1/2: halfway, ties to even gives 1 */
    qres res;
    qvalue_interpolate((qnum){1.0, 0}, (qnum){1.0 + 0x1p-52, 0}, 1, 2, &res);
    ck_assert(res.value == 1.0);
    qvalue_interpolate((qnum){1.0 + 0x1p-52, 0}, (qnum){1.0 + 0x1p-51, 0}, 1, 2,
                       &res);
    ck_assert(res.value == 1.0 + 0x1p-51);
}
END_TEST

/* Exact integers d + r of an integer column, both signs, 2^53..2^64. */
START_TEST(test_integers)
{
    test_rng g = rng_for(seed, 3);
    for (int it = 0; it < iters(100000); it++) {
        qnum a = rand_int(&g), b = rand_int(&g);
        if (rng_below(&g, 4) == 0) { /* close neighbours */
            i128 v = (i128)a.d + a.r + (i128)rng_below(&g, 5000);
            if (v <= ((i128)1 << 64)) {
                b.d = (double)v;
                b.r = (int32_t)(v - (i128)b.d);
            }
        }
        order(&a, &b);
        uint64_t fnum, fden = rand_den(&g, &fnum);
        if (rng_below(&g, 4) == 0) {
            fden = 2 * (1 + rng_below(&g, 2)) * 5;
            fnum = rng_below(&g, fden);
        }
        check_pair(a, b, fnum, fden);
    }
}
END_TEST

/* The documented cases, value by value. */
START_TEST(test_known)
{
    qres res;
    /* median of 1, 2, 3, 4 in an integer column: 2.5, not an integer */
    qvalue_interpolate((qnum){2, 0}, (qnum){3, 0}, 1, 2, &res);
    ck_assert(res.value == 2.5 && !res.is_int);
    /* median of 1, 3: 2, an integer */
    qvalue_interpolate((qnum){1, 0}, (qnum){3, 0}, 5, 10, &res);
    ck_assert(res.value == 2.0 && res.is_int && res.exact.d == 2.0);
    /* 1735704000123456789 and ...791 at 1/2: ...790, exactly */
    i128 x = (i128)1735704000123456789LL;
    qnum a = {(double)x, (int32_t)(x - (i128)(double)x)};
    qnum b = {(double)(x + 2), (int32_t)(x + 2 - (i128)(double)(x + 2))};
    qvalue_interpolate(a, b, 1, 2, &res);
    char buf[48];
    ck_assert(res.is_int && qvalue_int_text(res.exact, buf, sizeof buf));
    ck_assert_str_eq(buf, "1735704000123456790");
    /* magnitudes just below the largest an integer column holds, 2^64 */
    qnum top = {0x1p64, -1}, bottom = {-0x1p64, 1};
    ck_assert(qvalue_int_text(top, buf, sizeof buf) &&
              strcmp(buf, "18446744073709551615") == 0);
    ck_assert(qvalue_int_text(bottom, buf, sizeof buf) &&
              strcmp(buf, "-18446744073709551615") == 0);
    ck_assert_int_eq(qvalue_int_text(top, buf, 20), 0);
    ck_assert(qvalue_int_text((qnum){-0x1p64, 0}, buf, sizeof buf) &&
              strcmp(buf, "-18446744073709551616") == 0);
    ck_assert_int_eq(qvalue_int_text((qnum){0x1p64, 1}, buf, sizeof buf), 0);
    /* the median of -2^64 and 942: an integer, printed whole */
    qvalue_interpolate((qnum){-0x1p64, 0}, (qnum){942, 0}, 1, 2, &res);
    ck_assert(res.is_int && qvalue_int_text(res.exact, buf, sizeof buf));
    ck_assert_str_eq(buf, "-9223372036854775337");
    ck_assert_int_eq(qvalue_int_text((qnum){0.5, 0}, buf, sizeof buf), 0);
    ck_assert(qvalue_int_text((qnum){-0.0, 0}, buf, sizeof buf) &&
              strcmp(buf, "0") == 0);
    /* r == INT32_MIN reads as 0 */
    qvalue_interpolate((qnum){2.5, INT32_MIN}, (qnum){3.5, INT32_MIN}, 1, 2,
                       &res);
    ck_assert(res.value == 3.0 && !res.is_int);
}
END_TEST

START_TEST(test_infinities_and_zeros)
{
    qres res;
    qnum ninf = {-INFINITY, 0}, pinf = {INFINITY, 0}, one = {1.0, 0};
    qvalue_interpolate(ninf, one, 1, 2, &res);
    ck_assert(res.value == -INFINITY && !res.is_int);
    qvalue_interpolate(one, pinf, 1, 1000, &res);
    ck_assert(res.value == INFINITY);
    qvalue_interpolate(one, pinf, 0, 1, &res); /* h integral: x_k itself */
    ck_assert(res.value == 1.0 && res.is_int);
    qvalue_interpolate(ninf, one, 0, 1, &res);
    ck_assert(res.value == -INFINITY);
    qvalue_interpolate(ninf, pinf, 1, 2, &res);
    ck_assert(isnan(res.value) && res.has_value);
    qvalue_interpolate(ninf, ninf, 1, 2, &res);
    ck_assert(res.value == -INFINITY);
    qvalue_interpolate(pinf, pinf, 99, 100, &res);
    ck_assert(res.value == INFINITY);
    /* zeros: the same key keeps its sign, two keys meet at +0 */
    qvalue_interpolate((qnum){-0.0, 0}, (qnum){-0.0, 0}, 1, 2, &res);
    ck_assert(bits_of(res.value) == bits_of(-0.0) && res.is_int);
    qvalue_interpolate((qnum){-0.0, 0}, (qnum){0.0, 0}, 1, 2, &res);
    ck_assert(bits_of(res.value) == 0);
    qvalue_interpolate((qnum){-0.0, 0}, (qnum){0.0, 0}, 0, 1, &res);
    ck_assert(bits_of(res.value) == bits_of(-0.0));
    /* a negative result below the smallest subnormal rounds to -0 */
    qvalue_interpolate((qnum){-0x1p-1074, 0}, (qnum){0.0, 0}, 9, 10, &res);
    ck_assert(bits_of(res.value) == bits_of(-0.0));
    qvalue_interpolate((qnum){-1.0, 0}, (qnum){1.0, 0}, 1, 2, &res);
    ck_assert(bits_of(res.value) == 0 && res.is_int);
}
END_TEST

int main(void)
{
    seed = test_seed("test_quantile_value");
    Suite *s = suite_create("quantile_value");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_doubles);
    tcase_add_test(tc, test_ties);
    tcase_add_test(tc, test_integers);
    tcase_add_test(tc, test_known);
    tcase_add_test(tc, test_infinities_and_zeros);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}

#else
int main(void)
{
    fprintf(stderr, "test_quantile_value: GMP not found, skipped\n");
    return 77;
}
#endif
