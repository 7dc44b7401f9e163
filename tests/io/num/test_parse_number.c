/* io/num/parse_number against glibc strtod (values, bit for bit) and against
 * POSIX regular expressions of the accepted grammar (kinds), on random input
 * drawn from a logged seed (COLSTAT_SEED reproduces a run). */
#include "io/num/parse_number.h"

#include <check.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef COLSTAT_HAVE_GMP
#include <gmp.h>
#endif

#include "tests/testlib.h"

#include "tests/io/num/hard_numbers.h"

static uint64_t seed;
static uint64_t rng_state;
static long scale_div = 1;

/* splitmix64 */
static uint64_t rnd(void)
{
    return test_rand(&rng_state);
}

static unsigned below(unsigned n)
{
    return (unsigned)(rnd() % n);
}

static long iters(long full)
{
    long n = full / scale_div;
    return n > 0 ? n : 1;
}

/* Parses exactly n bytes from a heap copy of that size, so that reading past
 * the field is caught by ASan. */
static num_kind parse_exact(const char *s, size_t n, double *out)
{
    char *copy = malloc(n ? n : 1);
    EXPECT(copy != NULL, "out of memory");
    memcpy(copy, s, n);
    num_kind k = parse_number(copy, n, out);
    free(copy);
    return k;
}

static num_kind parse_exact_corr(const char *s, size_t n, double *out,
                                 int32_t *corr)
{
    char *copy = malloc(n ? n : 1);
    EXPECT(copy != NULL, "out of memory");
    memcpy(copy, s, n);
    num_kind k = parse_number_corr(copy, n, out, corr);
    free(copy);
    return k;
}

/* s is a NUL-terminated number with no trailing blanks. */
static void expect_strtod(const char *s)
{
    char *end;
    double want = strtod(s, &end);
    EXPECT(*end == '\0', "generator bug, strtod stops in \"%s\"", s);
    double got = 0;
    num_kind k = parse_exact(s, strlen(s), &got);
    EXPECT(k == NUM_OK, "\"%s\": kind %d (seed %" PRIu64 ")", s, k, seed);
    EXPECT(bits_of(got) == bits_of(want),
           "\"%s\": got %a want %a (seed %" PRIu64 ")", s, got, want, seed);
}

static uint64_t random_finite_bits(void)
{
    uint64_t b;
    do
        b = rnd();
    while (((b >> 52) & 0x7ff) == 0x7ff);
    return b;
}

START_TEST(test_kind_table)
{
    static const struct {
        const char *s;
        num_kind kind;
        double value;
    } cases[] = {
        {"", NUM_MISSING, 0},
        {"   ", NUM_MISSING, 0},
        {"\t \t", NUM_MISSING, 0},
        {"0", NUM_OK, 0},
        {"-0", NUM_OK, -0.0},
        {"+0.000e-999", NUM_OK, 0},
        {" 1.5\t", NUM_OK, 1.5},
        {"\t-2.25 ", NUM_OK, -2.25},
        {"+7", NUM_OK, 7},
        {"1.", NUM_OK, 1},
        {".5", NUM_OK, 0.5},
        {"-.5e1", NUM_OK, -5},
        {"1E+2", NUM_OK, 100},
        {"1e-2", NUM_OK, 0.01},
        {"007", NUM_OK, 7},
        {"1e400", NUM_OK, HUGE_VAL},
        {"-1e400", NUM_OK, -HUGE_VAL},
        {"1e-400", NUM_OK, 0},
        {"-1e-400", NUM_OK, -0.0},
        {"1e99999999999999999999", NUM_OK, HUGE_VAL},
        {"0e99999999999999999999", NUM_OK, 0},
        {"inf", NUM_OK, HUGE_VAL},
        {"-Inf", NUM_OK, -HUGE_VAL},
        {" +INFINITY ", NUM_OK, HUGE_VAL},
        {"infinity", NUM_OK, HUGE_VAL},
        {"nan", NUM_NAN, 0},
        {"-NaN", NUM_NAN, 0},
        {" NAN\t", NUM_NAN, 0},
        {"infinit", NUM_INVALID, 0},
        {"in", NUM_INVALID, 0},
        {"nan(1)", NUM_INVALID, 0},
        {"nana", NUM_INVALID, 0},
        {".", NUM_INVALID, 0},
        {"-", NUM_INVALID, 0},
        {"+", NUM_INVALID, 0},
        {"--1", NUM_INVALID, 0},
        {"+-1", NUM_INVALID, 0},
        {"1e", NUM_INVALID, 0},
        {"1e+", NUM_INVALID, 0},
        {"e5", NUM_INVALID, 0},
        {".e5", NUM_INVALID, 0},
        {"1,000", NUM_INVALID, 0},
        {"0x10", NUM_INVALID, 0},
        {"0x1p3", NUM_INVALID, 0},
        {"1.5x", NUM_INVALID, 0},
        {"1 2", NUM_INVALID, 0},
        {"- 1", NUM_INVALID, 0},
        {"1..2", NUM_INVALID, 0},
        {"1e5.5", NUM_INVALID, 0},
        {"\n1", NUM_INVALID, 0},
        {"1\r", NUM_INVALID, 0},
        {"abc", NUM_INVALID, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = 12345;
        num_kind k = parse_exact(cases[i].s, strlen(cases[i].s), &got);
        ck_assert_msg(k == cases[i].kind, "\"%s\": kind %d want %d", cases[i].s,
                      k, cases[i].kind);
        if (k == NUM_OK)
            ck_assert_msg(bits_of(got) == bits_of(cases[i].value),
                          "\"%s\": got %a", cases[i].s, got);
    }
    /* embedded NUL and bytes past n */
    double x = 0;
    ck_assert_int_eq(parse_exact("1\0002", 3, &x), NUM_INVALID);
    ck_assert_int_eq(parse_exact("\0", 1, &x), NUM_INVALID);
    ck_assert_int_eq(parse_number("12345", 2, &x), NUM_OK);
    ck_assert(x == 12);
    ck_assert_int_eq(parse_number("1e", 1, &x), NUM_OK);
    ck_assert(x == 1);
}
END_TEST

/* Reference grammar, written independently of the scanner. */
static num_kind regex_kind(const char *s)
{
    static regex_t num, inf, nan_re, blank;
    static int ready;
    if (!ready) {
        ck_assert_int_eq(regcomp(&num,
                                 "^[ \t]*[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)"
                                 "([eE][+-]?[0-9]+)?[ \t]*$",
                                 REG_EXTENDED | REG_NOSUB),
                         0);
        ck_assert_int_eq(regcomp(&inf, "^[ \t]*[+-]?(inf|infinity)[ \t]*$",
                                 REG_EXTENDED | REG_NOSUB | REG_ICASE),
                         0);
        ck_assert_int_eq(regcomp(&nan_re, "^[ \t]*[+-]?nan[ \t]*$",
                                 REG_EXTENDED | REG_NOSUB | REG_ICASE),
                         0);
        ck_assert_int_eq(regcomp(&blank, "^[ \t]*$", REG_EXTENDED | REG_NOSUB),
                         0);
        ready = 1;
    }
    if (!regexec(&blank, s, 0, NULL, 0))
        return NUM_MISSING;
    if (!regexec(&num, s, 0, NULL, 0) || !regexec(&inf, s, 0, NULL, 0))
        return NUM_OK;
    if (!regexec(&nan_re, s, 0, NULL, 0))
        return NUM_NAN;
    return NUM_INVALID;
}

START_TEST(test_kind_random)
{
    static const char *seeds[] = {"1.5",  "-2e10",  " .5 ",  "+7.",
                                  "inf",  "NaN",    "0",     "",
                                  "1e-5", "\t-3\t", "12.34", "infinity"};
    static const char alphabet[] = "0123456789.eE+- \tiInNfFaAyxXpP,\r\n";
    long n = iters(400000);
    for (long i = 0; i < n; i++) {
        char s[64];
        strcpy(s, seeds[below(sizeof seeds / sizeof seeds[0])]);
        int edits = 1 + (int)below(4);
        for (int j = 0; j < edits; j++) {
            size_t len = strlen(s);
            size_t at = below((unsigned)len + 1);
            char c = alphabet[below(sizeof alphabet - 1)];
            unsigned op = below(3);
            if (op == 0 && len < 60) {
                memmove(s + at + 1, s + at, len - at + 1);
                s[at] = c;
            } else if (op == 1 && at < len) {
                memmove(s + at, s + at + 1, len - at);
            } else if (at < len) {
                s[at] = c;
            }
        }
        double got = 0;
        num_kind k = parse_exact(s, strlen(s), &got);
        num_kind want = regex_kind(s);
        EXPECT(k == want, "\"%s\": kind %d want %d (seed %" PRIu64 ")", s, k,
               want, seed);
        if (k == NUM_OK) {
            double ref = strtod(s, NULL);
            EXPECT(bits_of(got) == bits_of(ref),
                   "\"%s\": got %a want %a (seed %" PRIu64 ")", s, got, ref,
                   seed);
        }
    }
}
END_TEST

START_TEST(test_random_doubles)
{
    long n = iters(600000);
    char s[512];
    for (long i = 0; i < n; i++) {
        double x = from_bits(random_finite_bits());
        snprintf(s, sizeof s, "%.17g", x);
        expect_strtod(s);
        snprintf(s, sizeof s, "%.*g", 1 + (int)below(17), x);
        expect_strtod(s);
        snprintf(s, sizeof s, "%.*e", (int)below(25), x);
        expect_strtod(s);
        /* moderate magnitudes in plain notation, like real CSV values */
        double y = ldexp((double)(rnd() >> 11), (int)below(120) - 100);
        snprintf(s, sizeof s, "%.*f", (int)below(22), (rnd() & 1) ? -y : y);
        expect_strtod(s);
    }
}
END_TEST

/* 1..40 random digits, random point, optional exponent in [-350, 350],
 * optional leading and trailing zero runs. */
static void random_digit_string(char *s)
{
    char *o = s;
    if (rnd() & 1)
        *o++ = (rnd() & 1) ? '-' : '+';
    unsigned lead = below(4) == 0 ? below(30) : 0;
    unsigned nd = 1 + below(40);
    unsigned trail = below(4) == 0 ? below(30) : 0;
    unsigned total = lead + nd + trail;
    unsigned point = below(total + 2); /* == total + 1: no point */
    for (unsigned i = 0; i < total; i++) {
        if (i == point)
            *o++ = '.';
        bool digit_zone = i >= lead && i < lead + nd;
        *o++ = (char)('0' + (digit_zone ? below(10) : 0));
    }
    if (point == total)
        *o++ = '.';
    if (below(4) != 0)
        o += sprintf(o, "%c%d", (rnd() & 1) ? 'e' : 'E', (int)below(701) - 350);
    *o = '\0';
}

START_TEST(test_random_digit_strings)
{
    long n = iters(1500000);
    char s[256];
    for (long i = 0; i < n; i++) {
        random_digit_string(s);
        expect_strtod(s);
    }
}
END_TEST

/* The exact decimal expansion of the midpoint between a double and its
 * successor, then the same truncated and nudged by one in the last digit:
 * the hardest inputs for any fast path. Needs a long double wide enough to
 * hold the midpoint; glibc prints it exactly. */
static void halfway_family(double x)
{
#if LDBL_MANT_DIG >= 54
    static char s[1200];
    long double lo = x, hi = nextafter(x, HUGE_VAL);
    if (isinf(x))
        return;
    if (isinf(nextafter(x, HUGE_VAL)))
        hi = (long double)x + ldexpl(1, 1023 - 52); /* 2^1024 */
    long double mid = (lo + hi) / 2;
    int len = snprintf(s, sizeof s, "%.780Le", mid);
    EXPECT(len < (int)sizeof s, "expansion too long");
    char *e = strchr(s, 'e');
    char exp[16];
    strcpy(exp, e);
    /* drop trailing zeros of the exact expansion */
    char *z = e;
    while (z[-1] == '0')
        z--;
    strcpy(z, exp);
    expect_strtod(s);
    size_t digits_end = (size_t)(z - s);
    char t[1200];
    /* truncations at random length, with the last digit nudged */
    for (int k = 0; k < 3; k++) {
        size_t cut = 3 + below((unsigned)digits_end - 2);
        if (cut > digits_end)
            cut = digits_end;
        memcpy(t, s, cut);
        size_t m = cut;
        int nudge = (int)below(3) - 1;
        char last = t[m - 1];
        if (last >= '0' && last <= '9') {
            int v = last - '0' + nudge;
            if (v >= 0 && v <= 9)
                t[m - 1] = (char)('0' + v);
        }
        if (below(2))
            m += (size_t)sprintf(t + m, "%s", below(2) ? "000" : "0001");
        strcpy(t + m, exp);
        expect_strtod(t);
    }
#else
    (void)x;
#endif
}

START_TEST(test_halfway)
{
#if LDBL_MANT_DIG < 54
    fprintf(stderr, "long double too narrow: halfway test skipped\n");
    return;
#endif
    long n = iters(60000);
    for (long i = 0; i < n; i++) {
        uint64_t b = random_finite_bits() & ~(UINT64_C(1) << 63);
        switch (below(4)) {
        case 0: /* subnormal or near the subnormal boundary */
            b = (b & ((UINT64_C(1) << 52) - 1)) | ((uint64_t)below(3) << 52);
            break;
        case 1: /* short significand: ties reachable with few digits */
            b &= ~((UINT64_C(1) << (30 + below(22))) - 1);
            break;
        default:
            break;
        }
        halfway_family(from_bits(b));
    }
    halfway_family(DBL_MAX);
    halfway_family(0);
    halfway_family(DBL_MIN);
    halfway_family(from_bits(1));
}
END_TEST

START_TEST(test_subnormals_and_edges)
{
    char s[512];
    long n = iters(300000);
    for (long i = 0; i < n; i++) {
        uint64_t b = rnd() >> below(64);
        b &= (UINT64_C(1) << 52) - 1;
        double x = from_bits(b | ((uint64_t)below(2) << 52));
        snprintf(s, sizeof s, "%.*g", 1 + (int)below(25), x);
        expect_strtod(s);
        /* powers of ten with long significands near the ends of the range */
        int e = below(2) ? 280 + (int)below(60) : -360 + (int)below(60);
        snprintf(s, sizeof s, "%" PRIu64 "%" PRIu64 "e%d", rnd(), rnd(),
                 (below(2) ? e : -e));
        expect_strtod(s);
    }
    for (size_t i = 0; i < HARD_NUMBERS; i++)
        expect_strtod(hard_numbers[i]);
}
END_TEST

/* Very long inputs exercise the strtod fallback's digit compaction. */
START_TEST(test_long_inputs)
{
    static char s[6000];
    long n = iters(4000);
    for (long i = 0; i < n; i++) {
        char *o = s;
        if (below(2))
            *o++ = '-';
        unsigned lead = below(3) ? 0 : below(1500);
        unsigned nd = 1 + below(2500);
        unsigned point = below(lead + nd + 1);
        for (unsigned j = 0; j < lead + nd; j++) {
            if (j == point)
                *o++ = '.';
            *o++ = (char)(j < lead ? '0' : '0' + below(10));
        }
        if (below(3) == 0) /* nonzero only far beyond any needed digit */
            for (unsigned j = 0; j < 900; j++)
                *o++ = j == 899 ? '1' : '0';
        sprintf(o, "e%d", (int)below(3000) - 1500);
        expect_strtod(s);
    }
}
END_TEST

#ifdef COLSTAT_HAVE_GMP
/* The exact value of a finite number text (blanks, sign, digits with a
 * point, exponent) as a rational, read here without the parser. */
static void exact_value(const char *s, mpq_t v)
{
    char digits[8192];
    size_t nd = 0;
    long nfrac = 0, exp10 = 0;
    int neg = 0, frac = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    for (; (*s >= '0' && *s <= '9') || *s == '.'; s++) {
        if (*s == '.') {
            frac = 1;
            continue;
        }
        EXPECT(nd + 1 < sizeof digits, "test text too long");
        digits[nd++] = *s;
        nfrac += frac;
    }
    digits[nd] = '\0';
    if (*s == 'e' || *s == 'E')
        exp10 = strtol(s + 1, NULL, 10);
    mpz_t num, den;
    mpz_inits(num, den, NULL);
    mpz_set_str(num, digits, 10);
    /* beyond 10^+-100000 only zero is an integral double of at most 2^64 */
    long e = exp10 - nfrac;
    e = e > 100000 ? 100000 : e < -100000 ? -100000 : e;
    mpz_ui_pow_ui(den, 10, (unsigned long)labs(e));
    if (e >= 0) {
        mpz_mul(num, num, den);
        mpz_set_ui(den, 1);
    }
    if (neg)
        mpz_neg(num, num);
    mpq_set_num(v, num);
    mpq_set_den(v, den);
    mpq_canonicalize(v);
    mpz_clears(num, den, NULL);
}

/* parse_number_corr's correction, from the exact value: v - x when the
 * text is an integer v, |v| <= 2^64; CORR_NOT_INT when x is an integral
 * double of at most 2^64 but v no such integer; 0 otherwise. */
static int32_t want_corr(const char *s, double x)
{
    double a = fabs(x);
    if (!(a <= 0x1p64) || a != floor(a))
        return 0;
    mpq_t v;
    mpz_t lim, xz;
    mpq_init(v);
    mpz_inits(lim, xz, NULL);
    exact_value(s, v);
    mpz_ui_pow_ui(lim, 2, 64);
    int32_t r = CORR_NOT_INT;
    if (mpz_cmp_ui(mpq_denref(v), 1) == 0 &&
        mpz_cmpabs(mpq_numref(v), lim) <= 0) {
        mpz_set_d(xz, x);
        mpz_sub(xz, mpq_numref(v), xz);
        EXPECT(mpz_cmpabs_ui(xz, 1024) <= 0, "\"%s\": |v - x| > 1024", s);
        r = (int32_t)mpz_get_si(xz);
    }
    mpq_clear(v);
    mpz_clears(lim, xz, NULL);
    return r;
}

static long corr_seen[3]; /* zero, nonzero, CORR_NOT_INT */

static void expect_corr(const char *s)
{
    double x = 0, plain = 0;
    int32_t r = 12345;
    num_kind k = parse_exact_corr(s, strlen(s), &x, &r);
    EXPECT(k == NUM_OK, "\"%s\": kind %d (seed %" PRIu64 ")", s, k, seed);
    EXPECT(parse_exact(s, strlen(s), &plain) == NUM_OK &&
               bits_of(plain) == bits_of(x),
           "\"%s\": parse_number_corr %a, parse_number %a", s, x, plain);
    int32_t want = want_corr(s, x);
    EXPECT(r == want,
           "\"%s\": correction %ld, want %ld (x %a, seed %" PRIu64 ")", s,
           (long)r, (long)want, x, seed);
    corr_seen[r == 0 ? 0 : r == CORR_NOT_INT ? 2 : 1]++;
}

START_TEST(test_corr_table)
{
    static const struct {
        const char *s;
        int32_t corr;
    } cases[] = {
        {"0", 0},
        {"-0", 0},
        {"1e3", 0},
        {"1.0", 0},
        {"1.5e1", 0},
        {"007.000", 0},
        {"1.5", 0},
        {"9007199254740992", 0},
        {"9007199254740993", 1},
        {"-9007199254740993", -1},
        {"9007199254740993.000", 1},
        {"9007199254740995", -1},
        {"1735704000123456789", 21},
        {"1735704000123456790", 22},
        {"1735704000123456791", 23},
        {" +18446744073709551615 ", -1},
        {"18446744073709551616", 0},
        {"-18446744073709551616", 0},
        {"1844674407370955161.5e1", -1},
        {"18446744073709551617", CORR_NOT_INT},
        {"18446744073709551616.5", CORR_NOT_INT},
        {"3.0000000000000000001", CORR_NOT_INT},
        {"9007199254740993.5", CORR_NOT_INT},
        {"1e-400", CORR_NOT_INT},
        {"-1e-400", CORR_NOT_INT},
        {"0e99999999999999999999", 0},
        {"1e20", 0},
        {"1e400", 0},
        {"inf", 0},
        {"-Infinity", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double x;
        int32_t r = 12345;
        num_kind k = parse_exact_corr(cases[i].s, strlen(cases[i].s), &x, &r);
        ck_assert_msg(k == NUM_OK && r == cases[i].corr,
                      "\"%s\": kind %d correction %ld, want %ld", cases[i].s, k,
                      (long)r, (long)cases[i].corr);
        if (!isinf(x))
            expect_corr(cases[i].s);
    }
    double x;
    int32_t r = 12345;
    ck_assert_int_eq(parse_number_corr("nan", 3, &x, &r), NUM_NAN);
    ck_assert_int_eq(r, 0);
    r = 12345;
    ck_assert_int_eq(parse_number_corr(" ", 1, &x, &r), NUM_MISSING);
    ck_assert_int_eq(r, 0);
    r = 12345;
    ck_assert_int_eq(parse_number_corr("12a", 3, &x, &r), NUM_INVALID);
    ck_assert_int_eq(r, 0);
}
END_TEST

/* Decimal digits of an integer, at random or near 2^53, 2^63, 2^64, 10^19. */
static int integer_digits(char *o)
{
    static const char *marks[] = {"9007199254740992", "9223372036854775808",
                                  "18446744073709551616",
                                  "10000000000000000000"};
    if (below(3) == 0) {
        mpz_t z;
        mpz_init_set_str(z, marks[below(4)], 10);
        long k = (long)below(5000) - 2500;
        if (k < 0)
            mpz_sub_ui(z, z, (unsigned long)-k);
        else
            mpz_add_ui(z, z, (unsigned long)k);
        mpz_get_str(o, 10, z);
        mpz_clear(z);
        return (int)strlen(o);
    }
    int n = 1 + (int)below(25);
    for (int i = 0; i < n; i++)
        o[i] = (char)('0' + below(10));
    o[n] = '\0';
    return n;
}

/* An integer spelled many ways (leading zeros, a point and zeros after it,
 * the point moved by an exponent), or nearly an integer. */
static void random_int_text(char *s)
{
    char d[64];
    int n = integer_digits(d);
    char *o = s;
    for (unsigned b = below(3) ? 0 : 1 + below(2); b; b--)
        *o++ = below(2) ? ' ' : '\t';
    if (below(2))
        *o++ = below(2) ? '-' : '+';
    for (unsigned z = below(4) ? 0 : 1 + below(3); z; z--)
        *o++ = '0';
    int point = below(2) ? n : (int)below((unsigned)n + 1);
    memcpy(o, d, (size_t)point);
    o += point;
    if (point < n || below(3) == 0)
        *o++ = '.';
    memcpy(o, d + point, (size_t)(n - point));
    o += n - point;
    unsigned zeros = below(3) ? 0 : below(6);
    for (unsigned z = 0; z < zeros; z++)
        *o++ = '0';
    switch (below(4)) {
    case 0: /* nearly: a digit far out */
        o += sprintf(o, "%0*d1", (int)below(25), 0);
        break;
    case 1: /* a few more digits of fraction */
        o += sprintf(o, "%u", (unsigned)below(1000));
        break;
    default:
        break;
    }
    long e = n - point;
    if (e || below(4) == 0)
        o += sprintf(o, "%c%+ld", below(2) ? 'e' : 'E',
                     e + (below(4) == 0 ? (long)below(5) - 2 : 0));
    for (unsigned b = below(3) ? 0 : 1 + below(2); b; b--)
        *o++ = below(2) ? ' ' : '\t';
    *o = '\0';
}

START_TEST(test_corr_random)
{
    long n = iters(400000);
    char s[256];
    for (long i = 0; i < n; i++) {
        random_int_text(s);
        expect_corr(s);
    }
    fprintf(stderr,
            "test_corr_random: corrections 0: %ld, other: %ld, "
            "CORR_NOT_INT: %ld\n",
            corr_seen[0], corr_seen[1], corr_seen[2]);
    /* the generator reaches every case */
    ck_assert(corr_seen[1] > n / 20 && corr_seen[2] > n / 20);
    /* and the texts of the other tests: doubles of every size */
    for (long i = 0; i < n / 4; i++) {
        random_digit_string(s);
        expect_corr(s);
        double x = from_bits(random_finite_bits());
        snprintf(s, sizeof s, "%.*g", 1 + (int)below(25), x);
        expect_corr(s);
    }
}
END_TEST
#endif

/* ---- formats: --thousands, --decimal, --null ---------------------- */

static void set_format(num_format *f, char decimal, char thousands)
{
    num_format_init(f);
    f->decimal = decimal;
    f->thousands = thousands;
}

START_TEST(test_format_table)
{
    static const struct {
        const char *s;
        char decimal, thousands;
        num_kind kind;
        const char *as; /* the same number in the C format */
    } cases[] = {
        {"1,234.50", '.', ',', NUM_OK, "1234.50"},
        {"1.234,50", ',', '.', NUM_OK, "1234.50"},
        {"1713,16", ',', 0, NUM_OK, "1713.16"},
        {" -1 234 567,891 ", ',', ' ', NUM_OK, "-1234567.891"},
        {"1'234'567.5e-3", '.', '\'', NUM_OK, "1234567.5e-3"},
        {"12,34,567", '.', ',', NUM_OK, "1234567"}, /* any grouping */
        {",5", ',', '.', NUM_OK, ".5"},
        {"5,", ',', '.', NUM_OK, "5."},
        {"1,234,567,890,123,456,789", '.', ',', NUM_OK, "1234567890123456789"},
        {"1,234,567,890,123,456,789,012", '.', ',', NUM_OK,
         "1234567890123456789012"},
        {"0.000,1", '.', ',', NUM_INVALID, NULL}, /* not in the fraction */
        {",123", '.', ',', NUM_INVALID, NULL},
        {"1,,234", '.', ',', NUM_INVALID, NULL},
        {"1,234,", '.', ',', NUM_INVALID, NULL},
        {"1,234.5,6", '.', ',', NUM_INVALID, NULL},
        {"1e1,000", '.', ',', NUM_INVALID, NULL},
        {"-,5", '.', ',', NUM_INVALID, NULL},
        {"1.5", ',', 0, NUM_INVALID, NULL}, /* '.' is no point there */
        {"1,5", '.', 0, NUM_INVALID, NULL},
        {"1.234.567", ',', '.', NUM_OK, "1234567"},
        {"inf", ',', '.', NUM_OK, "inf"},
        {"-NaN", ',', '.', NUM_NAN, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        num_format f;
        set_format(&f, cases[i].decimal, cases[i].thousands);
        double got = 0, want = 0;
        int32_t corr = 0, want_corr = 0;
        num_kind k =
            parse_number_fmt(cases[i].s, strlen(cases[i].s), &f, &got, &corr);
        ck_assert_msg(k == cases[i].kind, "\"%s\" ('%c' '%c'): kind %d want %d",
                      cases[i].s, cases[i].decimal, cases[i].thousands, k,
                      cases[i].kind);
        if (k != NUM_OK)
            continue;
        ck_assert_int_eq(parse_number_corr(cases[i].as, strlen(cases[i].as),
                                           &want, &want_corr),
                         NUM_OK);
        ck_assert_msg(bits_of(got) == bits_of(want) && corr == want_corr,
                      "\"%s\": %a %ld, want %a %ld", cases[i].s, got,
                      (long)corr, want, (long)want_corr);
    }
    /* 2^64 - 1 with separators stays an exact integer */
    num_format f;
    set_format(&f, '.', ',');
    double x;
    int32_t r;
    ck_assert_int_eq(
        parse_number_fmt("18,446,744,073,709,551,615", 26, &f, &x, &r), NUM_OK);
    ck_assert(x == 0x1p64 && r == -1);
    ck_assert_int_eq(parse_number_fmt("9,007,199,254,740,993", 21, &f, &x, &r),
                     NUM_OK);
    ck_assert(x == 0x1p53 && r == 1);
}
END_TEST

START_TEST(test_null_table)
{
    num_format f;
    num_format_init(&f);
    const char *nulls[] = {"NA", "N/A", "null", "-", "\\N", "-999"};
    for (size_t i = 0; i < 6; i++)
        ck_assert_int_eq(num_format_add_null(&f, nulls[i], strlen(nulls[i])),
                         0);
    static const struct {
        const char *s;
        num_kind kind;
    } cases[] = {
        {"NA", NUM_MISSING},  {" NA\t", NUM_MISSING}, {"na", NUM_INVALID},
        {"NA1", NUM_INVALID}, {"N/A", NUM_MISSING},   {"null", NUM_MISSING},
        {"nul", NUM_INVALID}, {"-", NUM_MISSING},     {"--", NUM_INVALID},
        {"\\N", NUM_MISSING}, {"\\n", NUM_INVALID},   {"-999", NUM_MISSING},
        {"-999.0", NUM_OK},   {"-9990", NUM_OK},      {"", NUM_MISSING},
        {"nan", NUM_NAN},     {"1", NUM_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double x;
        int32_t r = 7;
        num_kind k =
            parse_number_fmt(cases[i].s, strlen(cases[i].s), &f, &x, &r);
        ck_assert_msg(k == cases[i].kind, "\"%s\": kind %d want %d", cases[i].s,
                      k, cases[i].kind);
        if (k != NUM_OK)
            ck_assert_int_eq(r, 0);
    }
    /* the limits */
    num_format g;
    num_format_init(&g);
    char word[40];
    memset(word, 'x', sizeof word);
    ck_assert_int_eq(num_format_add_null(&g, word, NUM_NULL_LEN), 0);
    ck_assert_int_eq(num_format_add_null(&g, word, NUM_NULL_LEN + 1), -1);
    ck_assert_int_eq(num_format_add_null(&g, word, 0), -1);
    for (int i = 1; i < NUM_NULL_MAX; i++)
        ck_assert_int_eq(num_format_add_null(&g, word, 1 + (size_t)i % 9), 0);
    ck_assert_int_eq(num_format_add_null(&g, word, 1), -1);
}
END_TEST

/* The grammar of a format, written independently of the scanner: the
 * integer part's digits may hold single thousands separators between
 * them; the decimal separator takes the place of '.'. */
static regex_t *format_regex(char decimal, char thousands)
{
    static regex_t re;
    static char built[2];
    static int ready;
    if (ready && built[0] == decimal && built[1] == thousands)
        return &re;
    if (ready)
        regfree(&re);
    char pat[256], ip[32];
    if (thousands)
        snprintf(ip, sizeof ip, "[0-9]+([%c][0-9]+)*", thousands);
    else
        snprintf(ip, sizeof ip, "[0-9]+");
    snprintf(pat, sizeof pat,
             "^[ \t]*[+-]?(%s([%c][0-9]*)?|[%c][0-9]+)([eE][+-]?[0-9]+)?[ "
             "\t]*$",
             ip, decimal, decimal);
    ck_assert_int_eq(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0);
    built[0] = decimal;
    built[1] = thousands;
    ready = 1;
    return &re;
}

/* The text with separators dropped and the decimal one made '.'. */
static void canonical(const char *s, char decimal, char thousands, char *out)
{
    for (; *s; s++)
        if (*s == decimal)
            *out++ = '.';
        else if (!thousands || *s != thousands)
            *out++ = *s;
    *out = '\0';
}

/* s, a number in the C format, rewritten: '.' as decimal, thousands
 * separators between the integer digits (in threes, or anywhere). */
static void with_separators(const char *s, char decimal, char thousands,
                            char *out)
{
    size_t i = 0, o = 0, n = strlen(s);
    while (i < n && !(s[i] >= '0' && s[i] <= '9') && s[i] != '.')
        out[o++] = s[i++];
    size_t d0 = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t nd = i - d0;
    int anywhere = below(6) == 0;
    for (size_t k = 0; k < nd; k++) {
        if (thousands && k && (anywhere ? below(3) == 0 : (nd - k) % 3 == 0))
            out[o++] = thousands;
        out[o++] = s[d0 + k];
    }
    for (; i < n; i++)
        out[o++] = s[i] == '.' ? decimal : s[i];
    out[o] = '\0';
}

START_TEST(test_format_random)
{
    static const char decimals[] = ".,'";
    static const char seps[] = ",. '_";
    long n = iters(300000);
    static char s[8192], t[8192], c[8192];
    for (long i = 0; i < n; i++) {
        char decimal = decimals[below(3)];
        char thousands = below(4) ? seps[below(5)] : 0;
        if (thousands == decimal)
            thousands = 0;
        num_format f;
        set_format(&f, decimal, thousands);
        switch (below(3)) {
        case 0:
            random_digit_string(s);
            break;
        case 1:
            snprintf(s, sizeof s, "%.*g", 1 + (int)below(17),
                     from_bits(random_finite_bits()));
            break;
        default:
            snprintf(s, sizeof s, "%s%" PRIu64, below(2) ? "-" : "",
                     rnd() >> below(64));
            break;
        }
        with_separators(s, decimal, thousands, t);
        if (below(3) == 0) { /* edits among digits and separators */
            const char alphabet[] = {'0', '5', '.', ',', '\'',
                                     ' ', '_', 'e', '-', decimal};
            size_t len = strlen(t), at = below((unsigned)len + 1);
            char ch = alphabet[below(sizeof alphabet)];
            if (below(2) || at == len) {
                memmove(t + at + 1, t + at, len - at + 1);
                t[at] = ch;
            } else {
                t[at] = ch;
            }
        }
        double got = 0, want = 0;
        int32_t corr = 0, want_corr = 0;
        num_kind k = parse_number_fmt(t, strlen(t), &f, &got, &corr);
        int match = !regexec(format_regex(decimal, thousands), t, 0, NULL, 0);
        canonical(t, decimal, thousands, c);
        num_kind want_k = match ? NUM_OK : regex_kind(t);
        if (!match && want_k == NUM_OK && !strpbrk(t, "iI"))
            want_k = NUM_INVALID; /* "1.5" where '.' is no point */
        EXPECT(k == want_k,
               "\"%s\" ('%c' '%c'): kind %d want %d (seed %" PRIu64 ")", t,
               decimal, thousands, k, want_k, seed);
        if (k != NUM_OK || !match)
            continue;
        want = strtod(c, NULL);
        EXPECT(bits_of(got) == bits_of(want),
               "\"%s\": got %a want %a (seed %" PRIu64 ")", t, got, want, seed);
        EXPECT(parse_number_corr(c, strlen(c), &want, &want_corr) == NUM_OK &&
                   corr == want_corr,
               "\"%s\": correction %ld, \"%s\" %ld (seed %" PRIu64 ")", t,
               (long)corr, c, (long)want_corr, seed);
    }
}
END_TEST

START_TEST(test_null_random)
{
    static const char *words[] = {"NA",   "N/A", "null", "-",    "\\N",
                                  "-999", "nan", "?",    "#N/A", "1e5"};
    long n = iters(200000);
    for (long i = 0; i < n; i++) {
        num_format f;
        num_format_init(&f);
        int used[10] = {0};
        for (unsigned k = below(5); k; k--) {
            unsigned w = below(10);
            if (!used[w])
                num_format_add_null(&f, words[w], strlen(words[w]));
            used[w] = 1;
        }
        char s[96], core[64];
        const char *w = words[below(10)];
        snprintf(core, sizeof core, "%s%s", w,
                 below(4)   ? ""
                 : below(2) ? "x"
                            : "0");
        snprintf(s, sizeof s, "%s%s%s", below(3) ? "" : " \t", core,
                 below(3) ? "" : "  ");
        int is_null = 0;
        for (unsigned k = 0; k < 10; k++)
            is_null |= used[k] && !strcmp(core, words[k]);
        double x, y;
        int32_t r;
        num_kind k = parse_number_fmt(s, strlen(s), &f, &x, &r);
        num_kind want = is_null ? NUM_MISSING : parse_number(s, strlen(s), &y);
        EXPECT(k == want, "\"%s\": kind %d want %d (seed %" PRIu64 ")", s, k,
               want, seed);
    }
}
END_TEST

static Suite *parse_suite(void)
{
    Suite *s = suite_create("parse_number");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_kind_table);
    tcase_add_test(tc, test_kind_random);
    tcase_add_test(tc, test_random_doubles);
    tcase_add_test(tc, test_random_digit_strings);
    tcase_add_test(tc, test_halfway);
    tcase_add_test(tc, test_subnormals_and_edges);
    tcase_add_test(tc, test_long_inputs);
    tcase_add_test(tc, test_format_table);
    tcase_add_test(tc, test_null_table);
    tcase_add_test(tc, test_format_random);
    tcase_add_test(tc, test_null_random);
#ifdef COLSTAT_HAVE_GMP
    tcase_add_test(tc, test_corr_table);
    tcase_add_test(tc, test_corr_random);
#endif
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *env = getenv("COLSTAT_SEED");
    seed = env ? strtoull(env, NULL, 10)
               : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    rng_state = seed;
    if (getenv("COLSTAT_TEST_QUICK"))
        scale_div = 20;
    fprintf(stderr, "test_parse_number: seed=%" PRIu64 "%s\n", seed,
            scale_div > 1 ? " (quick)" : "");
    return run_suite(parse_suite(), CK_FORK_GETENV);
}
