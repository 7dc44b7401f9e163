/* src/stats/qlist.c: quantile lists parsed into exact decimals (valid and
 * invalid lists, random decimals written in many ways), their shortest
 * text, and their ranks among n values against GMP (h = (n-1) q exactly).
 * Seed printed to stderr; COLSTAT_SEED reproduces a run. */
#include "src/stats/quantile.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "tests/testlib.h"

#ifdef COLSTAT_HAVE_GMP
#include <gmp.h>
#endif

static uint64_t seed;

static int iters(int n)
{
    return test_quick() ? n / 10 + 1 : n;
}

static void expect_list(const char *text, size_t n, const char *const *want)
{
    qlist l;
    cs_error e = {0};
    ck_assert_msg(qlist_parse(text, &l, &e) == CS_OK, "'%s': %s", text, e.msg);
    ck_assert_msg(l.n == n, "'%s': %zu values", text, l.n);
    for (size_t i = 0; i < n; i++) {
        char buf[QLIST_TEXT_MAX];
        qlist_text(l.q[i], buf, sizeof buf);
        ck_assert_msg(strcmp(buf, want[i]) == 0, "'%s' [%zu]: %s, not %s", text,
                      i, buf, want[i]);
    }
    qlist_free(&l);
}

START_TEST(test_valid)
{
    expect_list("0.5", 1, (const char *const[]){"0.5"});
    expect_list(".5,0.50,00.500", 1, (const char *const[]){"0.5"});
    expect_list("0.99,0.5,0.9", 3, (const char *const[]){"0.99", "0.5", "0.9"});
    expect_list("0,1,1.0,0.,-0,+1", 2, (const char *const[]){"0", "1"});
    expect_list(" 0.25 ,\t0.75", 2, (const char *const[]){"0.25", "0.75"});
    expect_list("0.05,0.000000000000000001,0.999999999999999999", 3,
                (const char *const[]){"0.05", "0.000000000000000001",
                                      "0.999999999999999999"});
    expect_list("0.1000000000000000000000000", 1, (const char *const[]){"0.1"});
    qlist l;
    cs_error e = {0};
    ck_assert_int_eq(qlist_parse("0.125", &l, &e), CS_OK);
    ck_assert(l.q[0].num == 125 && l.q[0].digits == 3);
    qlist_free(&l);
}
END_TEST

static void expect_bad(const char *text, const char *part)
{
    qlist l = {0, NULL};
    cs_error e = {0};
    ck_assert_msg(qlist_parse(text, &l, &e) == CS_EUSAGE, "'%s' accepted",
                  text);
    ck_assert_int_eq(e.status, CS_EUSAGE);
    ck_assert_msg(strstr(e.msg, part) != NULL, "'%s': message '%s'", text,
                  e.msg);
    ck_assert(l.q == NULL && l.n == 0);
}

START_TEST(test_invalid)
{
    expect_bad("1.5", "'1.5' is not in [0, 1]");
    expect_bad("-0.1", "'-0.1' is not in [0, 1]");
    expect_bad("1.0000000000000000000001", "not in [0, 1]");
    expect_bad("2", "'2' is not in [0, 1]");
    expect_bad("100000000000000000000000", "not in [0, 1]");
    expect_bad("abc", "'abc' is not a decimal");
    expect_bad("0.5,abc", "'abc' is not a decimal");
    expect_bad("", "the list is empty");
    expect_bad("  ", "the list is empty");
    expect_bad(",", "element 1 is empty");
    expect_bad("0.5,", "element 2 is empty");
    expect_bad("0.5,,0.9", "element 2 is empty");
    expect_bad("0.5, ,0.9", "element 2 is empty");
    expect_bad("0.1234567890123456789", "more than 18 decimals");
    expect_bad("1e-1", "not a decimal");
    expect_bad("nan", "not a decimal");
    expect_bad("inf", "not a decimal");
    expect_bad("0x1", "not a decimal");
    expect_bad(".", "not a decimal");
    expect_bad("-", "not a decimal");
    expect_bad("0.5.5", "not a decimal");
    expect_bad("0 .5", "not a decimal");
    expect_bad("--0.5", "not a decimal");
    expect_bad("0.5;0.9", "not a decimal");
}
END_TEST

/* Random decimals written with leading zeros, trailing zeros, blanks and
 * an optional "+": parsed back to the same reduced fraction, printed as
 * the shortest text, duplicates merged at their first place. */
START_TEST(test_random_lists)
{
    test_rng g = rng_for(seed, 1);
    for (int it = 0; it < iters(2000); it++) {
        size_t n = 1 + rng_below(&g, 8);
        char text[2048] = "", want[8][QLIST_TEXT_MAX];
        size_t nwant = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t digits = (uint32_t)rng_below(&g, 19);
            uint64_t den = 1;
            for (uint32_t k = 0; k < digits; k++)
                den *= 10;
            uint64_t num = rng_next(&g) % (den + 1);
            if (rng_below(&g, 4) == 0 && i > 0)
                num = 0; /* duplicates of 0 */
            char body[64];
            if (num == den)
                snprintf(body, sizeof body, "1.%0*d", (int)digits, 0);
            else
                snprintf(body, sizeof body, "%s.%0*llu",
                         rng_below(&g, 2) ? "0" : "", (int)digits,
                         (unsigned long long)num);
            /* the reduced form, printed independently */
            while (num && num % 10 == 0 && digits)
                num /= 10, digits--;
            char red[QLIST_TEXT_MAX];
            if (num == 0 || digits == 0)
                snprintf(red, sizeof red, "%d", num == 0 ? 0 : 1);
            else
                snprintf(red, sizeof red, "0.%0*llu", (int)digits,
                         (unsigned long long)num);
            int dup = 0;
            for (size_t j = 0; j < nwant; j++)
                dup |= strcmp(want[j], red) == 0;
            if (!dup)
                strcpy(want[nwant++], red);
            size_t len = strlen(text);
            snprintf(text + len, sizeof text - len, "%s%s%s%s%s", i ? "," : "",
                     rng_below(&g, 3) ? "" : " ", rng_below(&g, 4) ? "" : "+",
                     body, rng_below(&g, 3) ? "" : "000 ");
        }
        const char *ptrs[8];
        for (size_t j = 0; j < nwant; j++)
            ptrs[j] = want[j];
        expect_list(text, nwant, ptrs);
    }
}
END_TEST

START_TEST(test_rank_small)
{
    /* n = 4: h = 3q; the median sits halfway between x2 and x3 */
    qrank r = qlist_rank((qfrac){5, 1}, 4);
    ck_assert(r.k == 2 && r.fnum * 2 == r.fden);
    r = qlist_rank((qfrac){0, 0}, 4);
    ck_assert(r.k == 1 && r.fnum == 0);
    r = qlist_rank((qfrac){1, 0}, 4);
    ck_assert(r.k == 4 && r.fnum == 0);
    r = qlist_rank((qfrac){5, 1}, 1);
    ck_assert(r.k == 1 && r.fnum == 0);
    r = qlist_rank((qfrac){999999999999999999u, 18}, UINT64_MAX);
    ck_assert(r.k < UINT64_MAX && r.fnum > 0 && r.fnum < r.fden);
}
END_TEST

#ifdef COLSTAT_HAVE_GMP
/* floor((n-1) q) + 1 and the fraction, against mpz, for n up to 2^64-1. */
START_TEST(test_rank_gmp)
{
    test_rng g = rng_for(seed, 2);
    mpz_t h, den, fl, rem;
    mpz_inits(h, den, fl, rem, NULL);
    for (int it = 0; it < iters(20000); it++) {
        uint32_t digits = (uint32_t)rng_below(&g, 19);
        mpz_ui_pow_ui(den, 10, digits);
        uint64_t d = mpz_get_ui(den);
        qfrac q = {rng_next(&g) % (d + 1), digits};
        uint64_t n = rng_next(&g) >> rng_below(&g, 64);
        n += n == 0;
        qrank r = qlist_rank(q, n);
        mpz_set_ui(h, n - 1);
        mpz_mul_ui(h, h, q.num);
        mpz_fdiv_qr(fl, rem, h, den);
        ck_assert(mpz_cmp_ui(fl, r.k - 1) == 0);
        ck_assert(r.k >= 1 && r.k <= n);
        if (mpz_sgn(rem) == 0) {
            ck_assert(r.fnum == 0);
            continue;
        }
        ck_assert(r.k < n);
        /* fnum / fden == rem / den */
        mpz_mul_ui(rem, rem, r.fden);
        mpz_mul_ui(h, den, r.fnum);
        ck_assert(mpz_cmp(rem, h) == 0);
        ck_assert(r.fnum < r.fden);
    }
    mpz_clears(h, den, fl, rem, NULL);
}
END_TEST
#endif

int main(void)
{
    seed = test_seed("test_quantile_list");
    Suite *s = suite_create("quantile_list");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_valid);
    tcase_add_test(tc, test_invalid);
    tcase_add_test(tc, test_random_lists);
    tcase_add_test(tc, test_rank_small);
#ifdef COLSTAT_HAVE_GMP
    tcase_add_test(tc, test_rank_gmp);
#endif
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
