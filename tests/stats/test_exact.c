/* src/stats/exact.c against exact rational arithmetic (GMP mpq): sums, means
 * and standard deviations of random doubles from many regimes must be the exact
 * value correctly rounded (std: within 1e-13 relative), merges must be
 * bit-identical for any split and order, integer strings must match mpz. Seed
 * printed to stderr; COLSTAT_SEED reproduces a run. */
#include "src/stats/exact.h"

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

#include "tests/stats/gmp_ref.h"

static uint64_t rng_state;

static int iters(int n)
{
    return getenv("COLSTAT_TEST_QUICK") ? n / 10 + 1 : n;
}

/* a finite double with biased exponent in [elo, ehi], random sign */
static double rand_exp(int elo, int ehi)
{
    uint64_t e = (uint64_t)(elo + (int)(test_rand(&rng_state) %
                                        (uint64_t)(ehi - elo + 1)));
    uint64_t frac = test_rand(&rng_state) & ((UINT64_C(1) << 52) - 1);
    return from_bits((test_rand(&rng_state) & (UINT64_C(1) << 63)) | (e << 52) |
                     frac);
}

enum {
    R_UNIFORM,
    R_FULL,
    R_HUGE,
    R_SUBNORMAL,
    R_CANCEL,
    R_HALFWAY,
    R_BIGINT,
    R_MEANNOISE,
    R_NREGIMES
};

/* Fills x with up to n values of one regime (R_CANCEL an even count:
 * none for n = 1, R_HALFWAY 2 or 3); returns how many. */
static int gen(int regime, double *x, int n)
{
    int k = 0;
    switch (regime) {
    case R_UNIFORM: {
        double scale = ldexp(1.0, (int)(test_rand(&rng_state) % 200) - 100);
        for (; k < n; k++)
            x[k] = (2 * test_unif(&rng_state) - 1) * scale;
        break;
    }
    case R_FULL:
        for (; k < n; k++)
            x[k] = rand_exp(0, 2046);
        break;
    case R_HUGE:
        for (; k < n; k++)
            x[k] = rand_exp(2040, 2046);
        break;
    case R_SUBNORMAL:
        for (; k < n; k++)
            x[k] = rand_exp(0, 3);
        break;
    case R_CANCEL: /* big values and their negations around small ones */
        for (; k + 1 < n; k += 2) {
            x[k] = rand_exp(1900, 2046);
            x[k + 1] = test_rand(&rng_state) % 2 ? -x[k] : rand_exp(0, 1100);
        }
        for (int i = k - 1; i > 0; i--) {
            int j = (int)(test_rand(&rng_state) % (uint64_t)(i + 1));
            double t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
        break;
    case R_HALFWAY: { /* r + ulp(r)/2, sometimes nudged by the tiniest */
        double r = rand_exp(1, 2045);
        int e;
        frexp(r, &e);
        x[k++] = r;
        x[k++] =
            copysign(ldexp(1.0, e - 54), test_rand(&rng_state) % 2 ? r : -r);
        if (test_rand(&rng_state) % 2)
            x[k++] = test_rand(&rng_state) % 2 ? 0x1p-1074 : -0x1p-1074;
        break;
    }
    case R_BIGINT:
        for (; k < n; k++)
            x[k] = ldexp((double)(int64_t)(test_rand(&rng_state) >>
                                           (test_rand(&rng_state) % 64)),
                         (int)(test_rand(&rng_state) % 12)) *
                   (test_rand(&rng_state) % 2 ? 1 : -1);
        break;
    default: /* 1e9 + 1e-6 noise: huge mean, tiny spread */
        for (; k < n; k++)
            x[k] = 1e9 + (2 * test_unif(&rng_state) - 1) * 1e-6;
        break;
    }
    return k;
}

static void exact_sum(mpq_t s, mpq_t s2, const double *x, int n)
{
    mpq_t t;
    mpq_init(t);
    mpq_set_ui(s, 0, 1);
    mpq_set_ui(s2, 0, 1);
    for (int i = 0; i < n; i++) {
        mpq_set_d(t, x[i]);
        mpq_add(s, s, t);
        mpq_mul(t, t, t);
        mpq_add(s2, s2, t);
    }
    mpq_clear(t);
}

static void check_one(const double *x, int n, int regime)
{
    sacc s, s2;
    sacc_init(&s);
    sacc_init(&s2);
    for (int i = 0; i < n; i++) {
        sacc_add(&s, x[i]);
        sacc_add_square(&s2, x[i]);
    }
    mpq_t q, q2, t, v;
    mpq_inits(q, q2, t, v, NULL);
    exact_sum(q, q2, x, n);
    double sum = sacc_value(&s);
    ck_assert_msg(is_rounded(q, sum), "regime %d n %d: sum %a", regime, n, sum);
    mpq_set_ui(t, (unsigned long)n, 1);
    mpq_div(t, q, t);
    double mean = sacc_mean(&s, (uint64_t)n);
    ck_assert_msg(is_rounded(t, mean), "regime %d n %d: mean %a", regime, n,
                  mean);
    /* v = (n q2 - q^2) / (n (n - 1)) */
    mpq_set_ui(t, (unsigned long)n, 1);
    mpq_mul(v, q2, t);
    mpq_mul(t, q, q);
    mpq_sub(v, v, t);
    mpq_set_ui(t, (unsigned long)n * (unsigned long)(n - 1), 1);
    mpq_div(v, v, t);
    double sd = sacc_std(&s, &s2, (uint64_t)n);
    /* a subnormal std cannot carry 1e-13 relative precision */
    mpq_set_d(t, 0x1p-1000);
    mpq_mul(t, t, t);
    if (mpq_cmp(v, t) > 0 || mpq_sgn(v) == 0)
        ck_assert_msg(std_close(v, sd), "regime %d n %d: std %a", regime, n,
                      sd);
    mpq_clears(q, q2, t, v, NULL);
}

START_TEST(test_regimes)
{
    double x[300];
    for (int it = 0; it < iters(20000); it++) {
        int regime = it % R_NREGIMES;
        int n = gen(regime, x, 4 + (int)(test_rand(&rng_state) % 250));
        check_one(x, n, regime);
    }
}
END_TEST

START_TEST(test_known_cases)
{
    double cases[][3] = {{1e300, 1.0, -1e300},      /* cancellation */
                         {1.0, 0x1p-53, 0.0},       /* tie to even: 1 */
                         {1.0, 0x1p-53, 0x1p-1074}, /* just above: up */
                         {DBL_MAX, DBL_MAX, -DBL_MAX},
                         {DBL_MAX, 0x1p970, 0.0}, /* tie at overflow: inf */
                         {0x1p-1074, -0x1p-1074, 0x1p-1074}};
    double want[] = {1.0,     1.0,      0x1.0000000000001p0,
                     DBL_MAX, INFINITY, 0x1p-1074};
    for (size_t c = 0; c < sizeof want / sizeof want[0]; c++) {
        sacc s;
        sacc_init(&s);
        for (int i = 0; i < 3; i++)
            sacc_add(&s, cases[c][i]);
        ck_assert_msg(sacc_value(&s) == want[c], "case %zu: %a", c,
                      sacc_value(&s));
        check_one(cases[c], 3, -1);
    }
}
END_TEST

/* means that land exactly halfway between doubles: (2r + ulp(r)) / 2 */
START_TEST(test_mean_ties)
{
    for (int it = 0; it < iters(2000); it++) {
        double r = fabs(rand_exp(1, 2045));
        if (bits_of(r) << 12 == 0)
            continue; /* below a power of two the spacing halves */
        double u = nextafter(r, INFINITY) - r;
        double x[2] = {2 * r, test_rand(&rng_state) % 2 ? u : -u};
        sacc s;
        sacc_init(&s);
        sacc_add(&s, x[0]);
        sacc_add(&s, x[1]);
        double m = sacc_mean(&s, 2);
        double other = x[1] > 0 ? nextafter(r, INFINITY) : nextafter(r, 0);
        ck_assert(m == r || m == other);
        ck_assert((bits_of(m) & 1) == 0);
        check_one(x, 2, -2);
    }
}
END_TEST

START_TEST(test_zero_and_inf)
{
    sacc s, s2;
    sacc_init(&s);
    sacc_init(&s2);
    sacc_add(&s, -0.0);
    sacc_add(&s, -0.0);
    ck_assert(bits_of(sacc_value(&s)) == 0); /* exact zero prints +0 */
    ck_assert(bits_of(sacc_mean(&s, 2)) == 0);
    /* a negative mean too small for a subnormal rounds to -0 */
    sacc_add(&s, -0x1p-1074);
    ck_assert(bits_of(sacc_mean(&s, 3)) == bits_of(-0.0));
    sacc_add(&s, INFINITY);
    sacc_add_square(&s2, -INFINITY);
    ck_assert(sacc_value(&s) == INFINITY);
    ck_assert(sacc_mean(&s, 4) == INFINITY);
    ck_assert(isnan(sacc_std(&s, &s2, 4)));
    sacc_add(&s, -INFINITY);
    ck_assert(isnan(sacc_value(&s)));
    sacc_init(&s);
    sacc_add(&s, -INFINITY);
    ck_assert(sacc_value(&s) == -INFINITY);
    ck_assert(isnan(sacc_std(&s2, &s2, 1)));
}
END_TEST

/* The same values split into random parts, each part added in its own
 * random order, the parts merged in random order: identical digits. */
START_TEST(test_merge_splits)
{
    double x[400];
    for (int it = 0; it < iters(400); it++) {
        int n = gen(it % R_NREGIMES, x, 8 + (int)(test_rand(&rng_state) % 380));
        sacc whole, parts[8], merged;
        sacc_init(&whole);
        for (int i = 0; i < n; i++)
            sacc_add(&whole, x[i]);
        int np = 1 + (int)(test_rand(&rng_state) % 8);
        for (int p = 0; p < np; p++)
            sacc_init(&parts[p]);
        for (int i = n - 1; i >= 0; i--) {
            int j = (int)(test_rand(&rng_state) % (uint64_t)(i + 1));
            double t = x[i];
            x[i] = x[j];
            x[j] = t;
            sacc_add(&parts[test_rand(&rng_state) % (uint64_t)np], x[i]);
        }
        int order[8] = {0};
        for (int p = 0; p < np; p++) {
            int j = (int)(test_rand(&rng_state) % (uint64_t)(p + 1));
            order[p] = order[j];
            order[j] = p;
        }
        sacc_init(&merged);
        for (int p = 0; p < np; p++)
            sacc_merge(&merged, &parts[order[p]]);
        sacc_normalize(&whole);
        sacc_normalize(&merged);
        ck_assert(memcmp(whole.d, merged.d, sizeof whole.d) == 0);
        ck_assert(bits_of(sacc_value(&whole)) == bits_of(sacc_value(&merged)));
    }
}
END_TEST

/* The compact sum: the values of every regime, with infinities and
 * cancellations, in random parts added as superaccumulators, the parts'
 * compact sums merged in random order: the value of one whole
 * superaccumulator, digit for digit; kept in its window, no memory, when
 * its digits fit one (narrow values), negative sums included. */
START_TEST(test_compact_sums)
{
    double x[400];
    int windowed = 0, spread = 0;
    for (int it = 0; it < iters(600); it++) {
        int n = gen(it % R_NREGIMES, x, 8 + (int)(test_rand(&rng_state) % 380));
        if (it % 5 == 0)
            x[test_rand(&rng_state) % (uint64_t)n] =
                test_rand(&rng_state) % 2 ? INFINITY : -INFINITY;
        if (it % 7 == 0) /* to exactly zero */
            for (int i = 0; i + 1 < n; i += 2)
                x[i + 1] = -x[i];
        sacc whole;
        sacc_init(&whole);
        for (int i = 0; i < n; i++)
            sacc_add(&whole, x[i]);
        int np = 1 + (int)(test_rand(&rng_state) % 8);
        csum parts[8], merged;
        for (int p = 0, at = 0; p < np; p++) {
            int len =
                p + 1 == np
                    ? n - at
                    : (int)(test_rand(&rng_state) % (uint64_t)(n - at + 1));
            sacc s;
            sacc_init(&s);
            for (int i = at; i < at + len; i++)
                sacc_add(&s, x[i]);
            csum_init(&parts[p]);
            ck_assert_int_eq(csum_add(&parts[p], &s), 0);
            at += len;
        }
        csum_init(&merged);
        for (int p = np - 1; p >= 0; p--) {
            int k = (int)(test_rand(&rng_state) % (uint64_t)(p + 1));
            ck_assert_int_eq(csum_merge(&merged, &parts[k]), 0);
            csum_free(&parts[k]);
            parts[k] = parts[p];
        }
        sacc got;
        csum_get(&merged, &got);
        sacc_normalize(&whole);
        sacc_normalize(&got);
        ck_assert(memcmp(whole.d, got.d, sizeof whole.d) == 0);
        ck_assert(whole.pos_inf == got.pos_inf && whole.neg_inf == got.neg_inf);
        ck_assert(bits_of(sacc_value(&whole)) == bits_of(sacc_value(&got)));
        windowed += merged.all == NULL;
        spread += merged.all != NULL;
        csum_free(&merged);
    }
    ck_assert(windowed > 0 && spread > 0);
    /* narrow values, positive or negative: in the window */
    for (int sign = -1; sign <= 1; sign += 2) {
        sacc s;
        csum c;
        sacc_init(&s);
        csum_init(&c);
        for (int i = 0; i < 100000; i++)
            sacc_add(&s, sign * (i * 0.01 + 1e6));
        ck_assert_int_eq(csum_add(&c, &s), 0);
        ck_assert_ptr_null(c.all);
        sacc got;
        csum_get(&c, &got);
        ck_assert(bits_of(sacc_value(&got)) == bits_of(sacc_value(&s)));
        csum_free(&c);
    }
}
END_TEST

static void sacc_to_mpq(mpq_t q, const sacc *a);

/* csum_value, csum_mean and csum_integer_string (from the window alone)
 * give the whole accumulator's results bit for bit, and the mean is the
 * exact quotient rounded once (GMP), for every regime's sums, integer
 * sums of every size, cancellations to zero and infinities, divided by
 * small and huge counts. */
static void check_compact(const csum *c, const sacc *whole, uint64_t n)
{
    char a[48], b[48];
    ck_assert(bits_of(csum_value(c)) == bits_of(sacc_value(whole)));
    ck_assert(bits_of(csum_mean(c, n)) == bits_of(sacc_mean(whole, n)));
    int ia = csum_integer_string(c, a, sizeof a);
    int ib = sacc_integer_string(whole, b, sizeof b);
    ck_assert_int_eq(ia, ib);
    if (ia)
        ck_assert_str_eq(a, b);
    if (whole->pos_inf || whole->neg_inf || n == 0)
        return;
    mpq_t q;
    mpq_init(q);
    sacc_to_mpq(q, whole);
    mpz_t z;
    mpz_init(z);
    mpz_set_ui(z, (unsigned long)(n >> 32));
    mpz_mul_2exp(z, z, 32);
    mpz_add_ui(z, z, (unsigned long)(n & 0xffffffffu));
    mpq_t d;
    mpq_init(d);
    mpq_set_z(d, z);
    mpq_div(q, q, d);
    ck_assert(is_rounded(q, csum_mean(c, n)));
    mpq_clears(q, d, NULL);
    mpz_clear(z);
}

/* csum_add_taking gives what csum_add gives, into an empty csum and
 * into one holding a sum already: the same window, the same whole. */
static void same_csum(const csum *a, const csum *b)
{
    ck_assert(!a->all == !b->all);
    if (a->all)
        ck_assert(!memcmp(a->all->d, b->all->d, sizeof a->all->d));
    else
        ck_assert(!memcmp(a->w, b->w, sizeof a->w) && a->lo == b->lo);
    ck_assert(a->pos_inf == b->pos_inf && a->neg_inf == b->neg_inf);
}

START_TEST(test_add_taking)
{
    double x[400];
    for (int it = 0; it < iters(400); it++) {
        int n = gen(it % R_NREGIMES, x, 1 + (int)(test_rand(&rng_state) % 16));
        if (it % 5 == 0)
            x[0] = it % 2 ? INFINITY : -INFINITY;
        csum want, got;
        csum_init(&want);
        csum_init(&got);
        for (int round = 0; round < 2; round++) { /* empty, then not */
            sacc s;
            sacc_init(&s);
            for (int i = round; i < n; i++)
                sacc_add(&s, x[i]);
            ck_assert_int_eq(csum_add(&want, &s), 0);
            ck_assert_int_eq(csum_add_taking(&got, &s), 0);
            same_csum(&want, &got);
        }
        ck_assert(csum_value(&want) == csum_value(&got) ||
                  (isnan(csum_value(&want)) && isnan(csum_value(&got))));
        csum_free(&want);
        csum_free(&got);
    }
}
END_TEST

START_TEST(test_compact_finalize)
{
    double x[400];
    for (int it = 0; it < iters(900); it++) {
        int n = gen(it % R_NREGIMES, x, 1 + (int)(test_rand(&rng_state) % 380));
        if (it % 3 == 1) /* integers of every size, both signs */
            for (int i = 0; i < n; i++)
                x[i] = ldexp((double)(int64_t)(test_rand(&rng_state) >> 11) -
                                 0x1p52,
                             (int)(test_rand(&rng_state) % 64));
        if (it % 11 == 0 && n > 0) /* R_CANCEL gives none for n = 1 */
            x[test_rand(&rng_state) % (uint64_t)n] =
                test_rand(&rng_state) % 2 ? INFINITY : -INFINITY;
        if (it % 7 == 0) /* to exactly zero */
            for (int i = 0; i + 1 < n; i += 2)
                x[i + 1] = -x[i];
        sacc whole;
        csum c;
        sacc_init(&whole);
        csum_init(&c);
        for (int i = 0; i < n; i++)
            sacc_add(&whole, x[i]);
        ck_assert_int_eq(csum_add(&c, &whole), 0);
        uint64_t counts[] = {
            1, (uint64_t)n, 3, 1 + test_rand(&rng_state), UINT64_MAX, 0};
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
            check_compact(&c, &whole, counts[k]);
        csum_free(&c);
    }
    csum z;
    sacc zero;
    csum_init(&z);
    sacc_init(&zero);
    check_compact(&z, &zero, 5);
}
END_TEST

static void sacc_to_mpq(mpq_t q, const sacc *a)
{
    mpz_t z, t;
    mpz_inits(z, t, NULL);
    for (int i = SACC_DIGITS - 1; i >= 0; i--) {
        mpz_mul_2exp(z, z, 32);
        mpz_set_si(t, (long)a->d[i]);
        mpz_add(z, z, t);
    }
    mpq_set_z(q, z);
    mpq_div_2exp(q, q, (unsigned long)-SACC_LSB_EXP);
    mpz_clears(z, t, NULL);
}

/* Digits at the largest magnitude the pending bound allows (as after
 * SACC_MAX_PENDING - 1 additions of nearly 2^32 each): adding past the
 * bound must normalise, and merging two full ones must not overflow. */
START_TEST(test_pending_limit)
{
    for (int it = 0; it < iters(20); it++) {
        sacc a, b;
        sacc_init(&a);
        int64_t big = (int64_t)(SACC_MAX_PENDING - 1) * (int64_t)0xffffffff;
        for (int i = 0; i < SACC_DIGITS - 1; i++)
            a.d[i] = test_rand(&rng_state) % 2
                         ? big - (int64_t)(test_rand(&rng_state) % 1000)
                         : -big + (int64_t)(test_rand(&rng_state) % 1000);
        a.pending = SACC_MAX_PENDING - 1;
        b = a;
        mpq_t q, t;
        mpq_inits(q, t, NULL);
        sacc_to_mpq(q, &a);
        mpq_mul_2exp(q, q, 1); /* a + b */
        sacc_merge(&a, &b);
        for (int i = 0; i < 3; i++) {
            double x = rand_exp(0, 2046);
            sacc_add(&a, x);
            mpq_set_d(t, x);
            mpq_add(q, q, t);
        }
        ck_assert_uint_lt(a.pending, SACC_MAX_PENDING);
        sacc_to_mpq(t, &a);
        ck_assert(mpq_equal(q, t));
        ck_assert(is_rounded(q, sacc_value(&a)));
        mpq_clears(q, t, NULL);
    }
}
END_TEST

/* Many tiny additions to one digit: pending grows and values stay exact. */
START_TEST(test_many_adds)
{
    sacc a;
    sacc_init(&a);
    long n = getenv("COLSTAT_TEST_QUICK") ? 1000000 : 20000000;
    for (long i = 0; i < n; i++)
        sacc_add(&a, 0x1.ffffp-1060);
    double want = (double)n * 0x1.ffffp-1060;
    ck_assert(sacc_value(&a) == want);
}
END_TEST

START_TEST(test_integer_string)
{
    double x[300];
    char buf[800], want[800];
    for (int it = 0; it < iters(2000); it++) {
        int regime = it % 3 == 0 ? R_FULL : R_BIGINT;
        int n = gen(regime, x, 4 + (int)(test_rand(&rng_state) % 200));
        sacc s;
        sacc_init(&s);
        for (int i = 0; i < n; i++)
            sacc_add(&s, x[i]);
        mpq_t q, q2;
        mpq_inits(q, q2, NULL);
        exact_sum(q, q2, x, n);
        int isint = mpz_cmp_ui(mpq_denref(q), 1) == 0;
        int got = sacc_integer_string(&s, buf, sizeof buf);
        ck_assert_int_eq(got, isint);
        if (isint) {
            mpz_get_str(want, 10, mpq_numref(q));
            ck_assert_str_eq(buf, want);
            size_t len = strlen(want);
            ck_assert_int_eq(sacc_integer_string(&s, buf, len), 0);
            ck_assert_int_eq(sacc_integer_string(&s, buf, len + 1), 1);
        }
        mpq_clears(q, q2, NULL);
    }
    sacc s;
    sacc_init(&s);
    ck_assert(sacc_integer_string(&s, buf, 2) && strcmp(buf, "0") == 0);
    sacc_add(&s, -0.0);
    ck_assert(sacc_integer_string(&s, buf, 2) && strcmp(buf, "0") == 0);
    sacc_add(&s, INFINITY);
    ck_assert_int_eq(sacc_integer_string(&s, buf, sizeof buf), 0);
}
END_TEST

/* sacc_add_product: sums of x * k for doubles of every regime and k of
 * every size, exactly (the integer sum as digits, else correctly rounded),
 * and cancelling to exactly zero against the products of -k. */
START_TEST(test_add_product)
{
    double x[300];
    int64_t k[300];
    char buf[800], want[800];
    for (int it = 0; it < iters(2000); it++) {
        int regime = (int)(test_rand(&rng_state) % R_NREGIMES);
        if (regime == R_HUGE) /* x * k must stay finite */
            regime = R_BIGINT;
        int n = gen(regime, x, 4 + (int)(test_rand(&rng_state) % 200));
        sacc s, back;
        sacc_init(&s);
        sacc_init(&back);
        mpq_t q, t, u;
        mpq_inits(q, t, u, NULL);
        for (int i = 0; i < n; i++) {
            uint64_t r = test_rand(&rng_state);
            k[i] = (int64_t)(test_rand(&rng_state) >> (r % 64)) *
                   (r & 64 ? -1 : 1);
            if (r % 7 == 0)
                k[i] = (int64_t)(r % 2049) - 1024; /* a correction */
            if (k[i] == INT64_MIN)
                k[i]++;
            sacc_add_product(&s, x[i], k[i]);
            sacc_add_product(&back, x[i], -k[i]);
            mpq_set_d(t, x[i]);
            _Static_assert(sizeof(long) >= sizeof k[i], "k fits a long");
            mpq_set_si(u, (long)k[i], 1);
            mpq_mul(t, t, u);
            mpq_add(q, q, t);
        }
        ck_assert_msg(is_rounded(q, sacc_value(&s)), "regime %d: sum %a",
                      regime, sacc_value(&s));
        if (mpz_cmp_ui(mpq_denref(q), 1) == 0) {
            mpz_get_str(want, 10, mpq_numref(q));
            ck_assert(sacc_integer_string(&s, buf, sizeof buf));
            ck_assert_str_eq(buf, want);
        }
        sacc_merge(&s, &back);
        ck_assert(sacc_integer_string(&s, buf, sizeof buf) &&
                  strcmp(buf, "0") == 0);
        mpq_clears(q, t, u, NULL);
    }
    /* an infinity counts only with a weight, with the product's sign */
    sacc s;
    sacc_init(&s);
    sacc_add_product(&s, INFINITY, 0);
    sacc_add_product(&s, -0x1p-1074, INT64_MAX);
    ck_assert(sacc_value(&s) == -0x1p-1074 * 0x1p63);
    sacc_add_product(&s, INFINITY, -1);
    ck_assert(sacc_value(&s) == -INFINITY);
}
END_TEST

/* The block loop equals value-by-value adds, NaN skipped, infinities
 * counted, also when a block starts next to the pending limit. */
START_TEST(test_add_values)
{
    double x[300];
    for (int it = 0; it < iters(1000); it++) {
        int n = gen(it % R_NREGIMES, x, 4 + (int)(test_rand(&rng_state) % 290));
        for (int i = 0; i < n; i++)
            if (test_rand(&rng_state) % 10 == 0)
                x[i] = test_rand(&rng_state) % 3
                           ? NAN
                           : (test_rand(&rng_state) % 2 ? INFINITY : -INFINITY);
        sacc a, a2, b, b2;
        sacc_init(&a);
        sacc_init(&a2);
        sacc_init(&b);
        sacc_init(&b2);
        if (it % 2) {
            a.pending =
                SACC_MAX_PENDING - 1 - (uint32_t)(test_rand(&rng_state) % 4);
            a2.pending =
                SACC_MAX_PENDING - 1 - (uint32_t)(test_rand(&rng_state) % 4);
        }
        int squares = (int)(test_rand(&rng_state) % 2);
        /* both loops: the AVX2 one (without squares) where the CPU has it */
        sacc_force_portable((it / 2) % 2);
        sacc_add_values(&a, squares ? &a2 : NULL, x, (size_t)n);
        sacc_force_portable(0);
        ck_assert_uint_lt(a.pending, SACC_MAX_PENDING);
        ck_assert_uint_lt(a2.pending, SACC_MAX_PENDING);
        for (int i = 0; i < n; i++) {
            if (isnan(x[i]))
                continue;
            sacc_add(&b, x[i]);
            if (squares)
                sacc_add_square(&b2, x[i]);
        }
        sacc_normalize(&a);
        sacc_normalize(&a2);
        sacc_normalize(&b);
        sacc_normalize(&b2);
        ck_assert(memcmp(a.d, b.d, sizeof a.d) == 0);
        ck_assert(memcmp(a2.d, b2.d, sizeof a2.d) == 0);
        ck_assert_uint_eq(a.pos_inf, b.pos_inf);
        ck_assert_uint_eq(a.neg_inf, b.neg_inf);
        ck_assert_uint_eq(a2.pos_inf, b2.pos_inf);
    }
}
END_TEST

/* sacc_add_values over several of its blocks against GMP: runs of one
 * exponent at the largest significand and one sign (each lane of a block
 * at its bound), the largest and the subnormal exponents, a regime's mix,
 * NaN and infinities between; lengths around the block (4092 values). */
START_TEST(test_add_values_blocks)
{
    static const int lens[] = {4091, 4092, 4093, 8184, 8185, 12289};
    static double x[12289];
    for (int it = 0; it < iters(24); it++) {
        int n = lens[it % 6], kind = (it / 6) % 4;
        double big = from_bits((uint64_t)(test_rand(&rng_state) % 2047) << 52 |
                               ((UINT64_C(1) << 52) - 1));
        if (test_rand(&rng_state) % 2)
            big = -big;
        int inf = 0;
        for (int i = 0; i < n; i++) {
            if (kind == 0)
                x[i] = big;
            else if (kind == 1)
                x[i] = test_rand(&rng_state) % 2 ? DBL_MAX
                                                 : 0x0.fffffffffffffp-1022;
            else
                x[i] = rand_exp(0, 2046);
            if (kind == 3 && test_rand(&rng_state) % 50 == 0) {
                x[i] = test_rand(&rng_state) % 2 ? NAN : INFINITY;
                inf += isinf(x[i]);
            }
        }
        sacc a, a2;
        sacc_init(&a);
        sacc_init(&a2);
        sacc_add_values(&a, &a2, x, (size_t)n);
        mpq_t q, q2, t;
        mpq_inits(q, q2, t, NULL);
        mpq_set_ui(q, 0, 1);
        mpq_set_ui(q2, 0, 1);
        for (int i = 0; i < n; i++) {
            if (!isfinite(x[i]))
                continue;
            mpq_set_d(t, x[i]);
            mpq_add(q, q, t);
            mpq_mul(t, t, t);
            mpq_add(q2, q2, t);
        }
        sacc b, b2; /* value by value: the digits must be the same */
        sacc_init(&b);
        sacc_init(&b2);
        for (int i = 0; i < n; i++)
            if (!isnan(x[i])) {
                sacc_add(&b, x[i]);
                sacc_add_square(&b2, x[i]);
            }
        sacc_normalize(&a);
        sacc_normalize(&a2);
        sacc_normalize(&b);
        sacc_normalize(&b2);
        ck_assert_msg(memcmp(a.d, b.d, sizeof a.d) == 0, "kind %d n %d", kind,
                      n);
        ck_assert_msg(memcmp(a2.d, b2.d, sizeof a2.d) == 0, "kind %d n %d",
                      kind, n);
        ck_assert_uint_eq(a.pos_inf, (uint64_t)inf);
        ck_assert_uint_eq(a2.pos_inf, (uint64_t)inf);
        a.pos_inf = a2.pos_inf = 0;
        ck_assert_msg(is_rounded(q, sacc_value(&a)), "kind %d n %d: sum %a",
                      kind, n, sacc_value(&a));
        ck_assert_msg(is_rounded(q2, sacc_value(&a2)),
                      "kind %d n %d: sum of squares %a", kind, n,
                      sacc_value(&a2));
        /* without squares (the AVX2 loop where the CPU has it): the same
           digits */
        sacc c;
        sacc_init(&c);
        sacc_add_values(&c, NULL, x, (size_t)n);
        sacc_normalize(&c);
        ck_assert_msg(memcmp(c.d, b.d, sizeof c.d) == 0, "kind %d n %d", kind,
                      n);
        ck_assert_uint_eq(c.pos_inf, (uint64_t)inf);
        mpq_clears(q, q2, t, NULL);
    }
}
END_TEST

/* The motivating case: a naive n*S2 - S1^2 in doubles loses everything. */
START_TEST(test_std_huge_mean)
{
    double x[2000];
    for (int it = 0; it < iters(20); it++) {
        int n = 2 + (int)(test_rand(&rng_state) % 1998);
        for (int i = 0; i < n; i++)
            x[i] = 1e9 + (2 * test_unif(&rng_state) - 1) * 1e-6;
        check_one(x, n, R_MEANNOISE);
    }
}
END_TEST

int main(void)
{
    rng_state = test_seed("test_exact");
    Suite *s = suite_create("exact");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_regimes);
    tcase_add_test(tc, test_known_cases);
    tcase_add_test(tc, test_zero_and_inf);
    tcase_add_test(tc, test_merge_splits);
    tcase_add_test(tc, test_compact_sums);
    tcase_add_test(tc, test_compact_finalize);
    tcase_add_test(tc, test_add_taking);
    tcase_add_test(tc, test_pending_limit);
    tcase_add_test(tc, test_many_adds);
    tcase_add_test(tc, test_integer_string);
    tcase_add_test(tc, test_add_product);
    tcase_add_test(tc, test_std_huge_mean);
    tcase_add_test(tc, test_add_values);
    tcase_add_test(tc, test_add_values_blocks);
    tcase_add_test(tc, test_mean_ties);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}

#else
int main(void)
{
    fprintf(stderr, "test_exact: GMP not found, skipped\n");
    return 77;
}
#endif
