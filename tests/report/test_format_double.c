/* format_double (Ryu's digits, src/report/shortest.c) against the search
 * it replaced, kept here as the reference: the fewest of 15, 16, 17
 * correctly rounded digits (printf's %.*e) that strtod reads back, every p
 * for a subnormal, laid out by snprintf. Byte for byte, with and without
 * --digits, over random bit patterns, short decimals, integers, powers of
 * ten and two with their neighbours, subnormals and the edges of the
 * plain notation. */
#include "../testlib.h"
#include "src/report/report.h"

#include <float.h>
#include <math.h>

static uint64_t seed;

static void init_seed(void)
{
    seed = test_seed("format_double");
}

static void ref_split(const char *tmp, char *digits, int *exp10)
{
    const char *s = tmp + (tmp[0] == '-');
    int n = 0;
    for (; *s != 'e'; s++)
        if (*s != '.')
            digits[n++] = *s;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    *exp10 = atoi(s + 1);
}

static int ref_trips(double v, int p, char *tmp, size_t cap)
{
    snprintf(tmp, cap, "%.*e", p - 1, v);
    return strtod(tmp, NULL) == v;
}

static void ref_digits(double v, int max_p, char *digits, int *exp10)
{
    char tmp[40];
    int p = 1;
    if (fabs(v) >= DBL_MIN) {
        if (ref_trips(v, 15, tmp, sizeof tmp)) {
            ref_split(tmp, digits, exp10);
            if ((int)strlen(digits) <= max_p)
                return;
        }
        p = max_p < 15 ? max_p : 16;
    }
    for (; p < max_p; p++)
        if (ref_trips(v, p, tmp, sizeof tmp))
            break;
    if (p >= max_p)
        ref_trips(v, max_p, tmp, sizeof tmp);
    ref_split(tmp, digits, exp10);
}

static void ref_layout(char *out, const char *d, int x)
{
    int n = (int)strlen(d);
    if (x < -5 || x > 15) {
        out += sprintf(out, "%c", d[0]);
        if (d[1])
            out += sprintf(out, ".%s", d + 1);
        sprintf(out, "e%c%d", x < 0 ? '-' : '+', abs(x));
    } else if (x < 0) {
        out += sprintf(out, "0.");
        for (int i = -1; i > x; i--)
            *out++ = '0';
        strcpy(out, d);
    } else {
        for (int i = 0; i <= x; i++)
            *out++ = i < n ? d[i] : '0';
        if (n > x + 1)
            sprintf(out, ".%s", d + x + 1);
        else
            *out = '\0';
    }
}

static int reference(char *buf, size_t len, double v, int digits)
{
    if (isnan(v))
        return snprintf(buf, len, "nan");
    if (isinf(v))
        return snprintf(buf, len, v < 0 ? "-inf" : "inf");
    if (v == 0)
        return snprintf(buf, len, signbit(v) ? "-0" : "0");
    char d[24], body[48];
    int x;
    ref_digits(v, digits > 0 && digits < 17 ? digits : 17, d, &x);
    ref_layout(body, d, x);
    return snprintf(buf, len, "%s%s", v < 0 ? "-" : "", body);
}

static long checked;

static void same(double v, int digits)
{
    char got[40], want[40];
    memset(got, 'x', sizeof got);
    int g = format_double_digits(got, sizeof got, v, digits);
    int w = reference(want, sizeof want, v, digits);
    ck_assert_msg(g == w && !strcmp(got, want),
                  "%a (%.17g), %d digits: %s, not %s", v, v, digits, got, want);
    checked++;
}

/* v with no limit, and with a random one now and then. */
static void both(double v, uint64_t *r)
{
    same(v, 0);
    if (test_rand(r) % 8 == 0)
        same(v, 1 + (int)(test_rand(r) % 17));
}

/* Each test runs in its own process under Check's fork: each counts. */
static void report(const char *what)
{
    fprintf(stderr, "format_double: %s: %ld doubles compared\n", what, checked);
}

static long count(long full)
{
    return test_quick() ? full / 20 : full;
}

START_TEST(random_bits)
{
    uint64_t r = seed ^ 1;
    for (long i = count(3000000); i > 0; i--)
        both(from_bits(test_rand(&r)), &r);
    report("random bits");
}
END_TEST

START_TEST(short_decimals)
{
    uint64_t r = seed ^ 2;
    for (long i = count(1500000); i > 0; i--) {
        char text[64];
        int p = 1 + (int)(test_rand(&r) % 17);
        int x = (int)(test_rand(&r) % 660) - 345;
        /* Most numbers people print sit near 1. */
        if (test_rand(&r) % 2)
            x = (int)(test_rand(&r) % 40) - 20;
        int at =
            snprintf(text, sizeof text, "%s%d.", test_rand(&r) % 2 ? "-" : "",
                     1 + (int)(test_rand(&r) % 9));
        for (int k = 1; k < p; k++)
            text[at++] = (char)('0' + test_rand(&r) % 10);
        snprintf(text + at, sizeof text - (size_t)at, "e%d", x);
        both(strtod(text, NULL), &r);
    }
    report("short decimals");
}
END_TEST

START_TEST(integers)
{
    uint64_t r = seed ^ 3;
    for (long i = count(1000000); i > 0; i--) {
        uint64_t u = test_rand(&r) >> (test_rand(&r) % 64);
        both(test_rand(&r) % 2 ? (double)u : -(double)u, &r);
    }
    report("integers");
}
END_TEST

/* v and its neighbours a few ulps either side. */
static void around(double v, uint64_t *r)
{
    double up = v, down = v;
    both(v, r);
    for (int k = 0; k < 4; k++) {
        up = nextafter(up, INFINITY);
        down = nextafter(down, -INFINITY);
        both(up, r);
        both(down, r);
        both(-up, r);
    }
}

START_TEST(powers)
{
    uint64_t r = seed ^ 4;
    char text[16];
    for (int e = -345; e <= 310; e++) {
        snprintf(text, sizeof text, "1e%d", e);
        around(strtod(text, NULL), &r);
    }
    for (int e = -1074; e <= 1023; e++)
        around(ldexp(1, e), &r);
    static const double edge[] = {DBL_MAX,
                                  DBL_MIN,
                                  4.9e-324,
                                  DBL_EPSILON,
                                  9007199254740992.0,
                                  9999999999999998.0,
                                  1e16,
                                  99999.999999999985,
                                  1e-5,
                                  9.9999e-6,
                                  0.1,
                                  0.3,
                                  2.0 / 3,
                                  5e-324,
                                  1234567890123456.25};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        around(edge[i], &r);
    report("powers");
}
END_TEST

START_TEST(subnormals)
{
    uint64_t r = seed ^ 5;
    for (long i = count(500000); i > 0; i--) {
        uint64_t m = test_rand(&r) >> (12 + test_rand(&r) % 52);
        both(from_bits(m | (test_rand(&r) & (1ull << 63))), &r);
    }
    report("subnormals");
}
END_TEST

/* A digit changed in the reference must be caught: the test would pass a
 * formatter that ignored everything. */
START_TEST(reference_differs)
{
    char a[40], b[40];
    format_double(a, sizeof a, 0.1 + 0.2);
    reference(b, sizeof b, 0.3, 0);
    ck_assert_str_ne(a, b);
    ck_assert_str_eq(a, "0.30000000000000004");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("format_double");
    TCase *t = tcase_create("against the search");
    tcase_set_timeout(t, 600);
    tcase_add_unchecked_fixture(t, init_seed, NULL);
    tcase_add_test(t, random_bits);
    tcase_add_test(t, short_decimals);
    tcase_add_test(t, integers);
    tcase_add_test(t, powers);
    tcase_add_test(t, subnormals);
    tcase_add_test(t, reference_differs);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return run_suite(suite(), CK_FORK_GETENV);
}
