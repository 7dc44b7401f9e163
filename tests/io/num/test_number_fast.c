/* parse_number_padded and _wide (io/num/number_fast.c) against
 * parse_number_fmt, the core's path: the same kind, the same double bit for bit
 * and the same integer correction for every text, on millions of random
 * spellings (the common ones, their edges, and mutations of them), with random
 * bytes in the padding; and against glibc strtod where the text is a number in
 * the C locale's format. A fresh seed each run (COLSTAT_SEED replays it). */
#include "io/num/parse_number.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testlib.h"

static uint64_t seed;

static unsigned below(test_rng *r, unsigned n)
{
    return (unsigned)rng_below(r, n);
}

/* A random digit string: leading zeros, a point somewhere or none, an
 * exponent or none, a sign or none; mostly short, sometimes past 19
 * digits. */
static int digit_string(test_rng *r, char *o)
{
    char *s = o;
    unsigned sign = below(r, 6);
    if (sign == 0)
        *o++ = '-';
    else if (sign == 1)
        *o++ = '+';
    unsigned zeros = below(r, 3) ? 0 : below(r, 6);
    unsigned digits = below(r, 4) ? 1 + below(r, 12) : below(r, 26);
    unsigned total = zeros + digits;
    unsigned point = below(r, 3) ? below(r, total + 2) : total + 9;
    for (unsigned i = 0; i < total; i++) {
        if (i == point)
            *o++ = '.';
        unsigned d = i < zeros ? 0 : below(r, 10);
        if (below(r, 8) == 0) /* runs of nines and zeros */
            d = below(r, 2) ? 9 : 0;
        *o++ = (char)('0' + d);
    }
    if (point == total)
        *o++ = '.';
    if (below(r, 3) == 0) {
        *o++ = below(r, 2) ? 'e' : 'E';
        unsigned es = below(r, 3);
        if (es)
            *o++ = es == 1 ? '-' : '+';
        unsigned ez = below(r, 4) ? 0 : below(r, 4);
        while (ez--)
            *o++ = '0';
        o += sprintf(o, "%u", below(r, 4) ? below(r, 30) : below(r, 400));
    }
    *o = '\0';
    return (int)(o - s);
}

/* The spellings data has: printf's of random doubles and integers. */
static int printed(test_rng *r, char *o)
{
    double u = (double)(rng_next(r) >> 11) * 0x1p-53;
    switch (below(r, 9)) {
    case 0:
        return sprintf(o, "%.*f", (int)below(r, 7), (u - 0.3) * 10000);
    case 1:
        return sprintf(o, "%.17g", u * 1e4);
    case 2:
        return sprintf(o, "%.*g", 1 + (int)below(r, 17),
                       from_bits(rng_next(r) & ~(UINT64_C(0x7ff) << 52)) *
                           (below(r, 2) ? 1 : 0x1p500));
    case 3:
        return sprintf(o, "%.*e", (int)below(r, 18), (u - 0.5) * 1e15);
    case 4:
        return sprintf(o, "%" PRIu64, rng_next(r) >> below(r, 64));
    case 5:
        return sprintf(o, "-%" PRIu64 "%s", rng_next(r) >> below(r, 64),
                       below(r, 2) ? "" : ".000");
    case 7: /* measurements as "%.17g" prints them: 9 to 24 bytes, leading
               zeros past 19 digits below 0.01 */
        return sprintf(o, "%s%.17g", below(r, 2) ? "" : "-",
                       ldexp(1.0 + u, (int)below(r, 40) - 20));
    case 8: /* fixed points of 9 to 24 significant digits and leading zeros */
        return sprintf(o, "%.*f", (int)below(r, 23),
                       ldexp(u, (int)below(r, 90) - 60));
    default: /* around 2^53 and 2^64, where corrections start */
        return sprintf(o, "%s%" PRIu64 "%s", below(r, 2) ? "" : "-",
                       (below(r, 2) ? UINT64_C(9007199254740992)
                                    : UINT64_C(18446744073709549568)) +
                           below(r, 5000) - 2500,
                       below(r, 3)   ? ""
                       : below(r, 2) ? "e0"
                                     : ".0");
    }
}

/* One edit: a byte from the alphabet inserted or put in place. */
static int mutate(test_rng *r, char *s, int n, char decimal)
{
    static const char alphabet[] = "0159.,'_ \teE+-xin\"";
    char c = below(r, 12) ? alphabet[below(r, sizeof alphabet - 1)] : decimal;
    unsigned at = below(r, (unsigned)n + 1);
    if (below(r, 2) || at == (unsigned)n) {
        memmove(s + at + 1, s + at, (size_t)(n - (int)at) + 1);
        s[at] = c;
        return n + 1;
    }
    s[at] = c;
    return n;
}

/* A format: the C locale's mostly, else a random point, separator and
 * null spellings (some of them numbers). */
static void random_format(test_rng *r, num_format *f)
{
    static const char points[] = ".,'";
    /* 'e' is no separator colstat's options allow, but the API takes it */
    static const char seps[] = ",. '_e";
    static const char *nulls[] = {"NA", "-999", "1e5", "0", "-", "9.5"};
    num_format_init(f);
    if (below(r, 2))
        return;
    f->decimal = points[below(r, 3)];
    f->thousands = below(r, 2) ? seps[below(r, 6)] : 0;
    if (f->thousands == f->decimal)
        f->thousands = 0;
    for (unsigned k = below(r, 3); k; k--) {
        const char *w = nulls[below(r, 6)];
        num_format_add_null(f, w, strlen(w));
    }
}

/* The text with '.' as f's point, in place. */
static void localize(char *s, const num_format *f)
{
    for (; *s; s++)
        if (*s == '.')
            *s = f->decimal;
}

/* Both paths on s[0, n), the padded one from a heap copy of exactly
 * n + NUM_PAD bytes (ASan sees a read past them) whose padding holds
 * random bytes, digits often. */
static void compare(test_rng *r, const char *s, size_t n, const num_format *f)
{
    char *copy = malloc(n + NUM_PAD);
    EXPECT(copy != NULL, "out of memory");
    memcpy(copy, s, n);
    for (size_t i = n; i < n + NUM_PAD; i++)
        copy[i] = below(r, 2) ? (char)('0' + below(r, 10)) : (char)rng_next(r);
    double want = 0;
    int32_t want_corr = 0;
    num_kind wk = parse_number_fmt(s, n, f, &want, &want_corr);
    for (int wide = 0; wide < 2; wide++) {
        double got = 0;
        int32_t got_corr = 0;
        num_kind gk =
            wide ? parse_number_padded_wide(copy, n, f, &got, &got_corr)
                 : parse_number_padded(copy, n, f, &got, &got_corr);
        EXPECT(gk == wk, "\"%.*s\"%s: kind %d want %d (seed %" PRIu64 ")",
               (int)n, s, wide ? " (wide)" : "", gk, wk, seed);
        if (wk != NUM_OK)
            continue;
        EXPECT(bits_of(got) == bits_of(want) && got_corr == want_corr,
               "\"%.*s\"%s: %a corr %ld, core %a corr %ld (seed %" PRIu64 ")",
               (int)n, s, wide ? " (wide)" : "", got, (long)got_corr, want,
               (long)want_corr, seed);
    }
    free(copy);
}

/* The C locale's numbers against strtod too. */
static void expect_strtod(const char *s)
{
    double got = 0;
    int32_t corr;
    char *copy = malloc(strlen(s) + NUM_PAD);
    EXPECT(copy != NULL, "out of memory");
    memset(copy, '7', strlen(s) + NUM_PAD);
    memcpy(copy, s, strlen(s));
    num_kind k = parse_number_padded(copy, strlen(s), NULL, &got, &corr);
    free(copy);
    char *end;
    double want = strtod(s, &end);
    if (*end || k != NUM_OK)
        return; /* not a number: compare() has judged its kind */
    EXPECT(bits_of(got) == bits_of(want),
           "\"%s\": %a, strtod %a (seed %" PRIu64 ")", s, got, want, seed);
}

static long iters(long full)
{
    return test_quick() ? full / 20 : full;
}

START_TEST(test_common_spellings)
{
    test_rng r = rng_for(seed, 1);
    char s[128];
    num_format c;
    num_format_init(&c);
    for (long i = iters(3000000); i > 0; i--) {
        int n = below(&r, 2) ? printed(&r, s) : digit_string(&r, s);
        compare(&r, s, (size_t)n, &c);
        expect_strtod(s);
    }
}
END_TEST

START_TEST(test_mutated_and_formats)
{
    test_rng r = rng_for(seed, 2);
    char s[128];
    for (long i = iters(3000000); i > 0; i--) {
        num_format f;
        random_format(&r, &f);
        int n = below(&r, 2) ? printed(&r, s) : digit_string(&r, s);
        localize(s, &f);
        for (unsigned k = below(&r, 3); k; k--)
            n = mutate(&r, s, n, f.decimal);
        compare(&r, s, (size_t)n, &f);
    }
}
END_TEST

/* Edges by hand: empty, blanks, signs alone, points alone, 19 and 20
 * significant digits, leading zeros past 19 digits, exponents of 4 and 5
 * digits, specials, a NUL. */
START_TEST(test_edges)
{
    static const char *texts[] = {
        "", " ", "-", "+", ".", "-.", "5.", ".5", "-0", "+0.0e-0", "0", "1e",
        "1e+", "1e9999", "1e-9999", "1e00001", "1.5e308", "1.8e308", "4.9e-324",
        "2e-324", "9999999999999999999", "99999999999999999999",
        "1844674407370955161.5", "18446744073709551615", "18446744073709551616",
        "18446744073709551617", "0.0000000000000000000000123456789",
        "0.00575220087097421710", "000000000000000000000000001",
        "1.0000000000000000000", "9007199254740993", "9007199254740993.0", "1 ",
        " 1", "1,5", "1_000", "inf", "-Infinity", "nan", "0x10", "12345678",
        "123456789", "1234567812345678", "12345678.12345678", "-999", "1e5",
        /* 9 to 24 bytes: digits and a point */
        "0.0000000000000000001", "00000000000000000000001",
        "000000000000000000000001", "0000000000000000000000001",
        "12345678901234567890", "1234567890123456789012", "9999999999999999999",
        "-9007199254740993", "9223372036854775809", "123456789.000000000",
        "0.000000000000000000", "-0.00000000000000000", "12345678.",
        ".123456789", "1234567890123.4567890123", "123456789012.34567890123",
        "0.64173187681959343", "0.0057522008709742171", "1.0000000000000002220",
        "4503599627370495.5", "4503599627370496.5", "9007199254740993.00001",
        "123456789012345678.9", "12345.6789e", "+123456789.5", "123456789.5 ",
        "1234567,89.5"};
    test_rng r = rng_for(seed, 3);
    num_format c, f;
    num_format_init(&c);
    num_format_init(&f);
    f.decimal = ',';
    f.thousands = '.';
    num_format_add_null(&f, "-999", 4);
    num_format_add_null(&f, "1e5", 3);
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        for (int rep = 0; rep < 20; rep++) {
            compare(&r, texts[i], strlen(texts[i]), &c);
            compare(&r, texts[i], strlen(texts[i]), &f);
        }
        expect_strtod(texts[i]);
    }
    compare(&r, "1\0", 2, &c);
    compare(&r, "12\0003", 4, &c);
}
END_TEST

static Suite *fast_suite(void)
{
    Suite *s = suite_create("number_fast");
    TCase *tc = tcase_create("differential");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_edges);
    tcase_add_test(tc, test_common_spellings);
    tcase_add_test(tc, test_mutated_and_formats);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    seed = test_seed("test_number_fast");
    return run_suite(fast_suite(), CK_FORK_GETENV);
}
