/* Shortest round-trip decimal: the fewest significant digits p for which
 * the correctly rounded p-digit decimal reads back as the same double
 * (the property of Steele & White, "How to print floating-point numbers
 * accurately", PLDI 1990), found by trying p = 1..17 with printf's
 * correctly rounded %.*e and strtod (at most three tries for a normal
 * double: shortest_digits says why). 17 digits always suffice for binary64
 * (IEEE 754-2008, 5.12.2). With a limit of N digits (--digits), the search
 * stops at N: the value correctly rounded to N digits.
 * The digits come from Ryu (src/report/shortest.h), which finds the same
 * ones far faster: see fast_digits for why they agree and where the
 * search above still decides. */
#include "report.h"
#include "shortest.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Plain notation for 1e-5 <= |v| < 1e16, scientific outside. */
enum { PLAIN_MIN_EXP = -5, PLAIN_MAX_EXP = 15 };

/* tmp ("[-]d[.ddd]e[+-]xx") into digits (no trailing zeros) and the
 * decimal exponent of the first one. */
static void split_e(const char *tmp, char *digits, int *exp10)
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

static int round_trips(double v, int p, char *tmp, size_t cap)
{
    snprintf(tmp, cap, "%.*e", p - 1, v);
    return strtod(tmp, NULL) == v;
}

/* Significant digits of the shortest form, or of v rounded to max_p
 * digits when that is shorter, into digits (no trailing zeros), and the
 * decimal exponent of the first one.
 * For a normal double, fifteen digits decide it in one try: a p-digit
 * decimal D that reads back as v is within half an ulp of v (at most
 * 2^-53 of v), and the 15-digit decimals near v are at least 10^-15 of v
 * apart, so D padded with zeros is v rounded to 15 digits; and if that
 * does not read back, no shorter decimal does. Only 16 and 17 are left to
 * try. A subnormal's ulp is far larger than 2^-53 of it: those try every
 * p, as the plain definition says. */
static void shortest_digits(double v, int max_p, char *digits, int *exp10)
{
    char tmp[40];
    int p = 1;
    if (fabs(v) >= DBL_MIN) {
        if (round_trips(v, 15, tmp, sizeof tmp)) {
            split_e(tmp, digits, exp10);
            if ((int)strlen(digits) <= max_p)
                return;
        }
        p = max_p < 15 ? max_p : 16;
    }
    for (; p < max_p; p++)
        if (round_trips(v, p, tmp, sizeof tmp))
            break;
    if (p >= max_p)
        round_trips(v, max_p, tmp, sizeof tmp);
    split_e(tmp, digits, exp10);
}

static void plain(char *out, const char *d, int x)
{
    int n = (int)strlen(d);
    if (x < 0) {
        out += sprintf(out, "0.");
        for (int i = -1; i > x; i--)
            *out++ = '0';
        strcpy(out, d);
        return;
    }
    for (int i = 0; i <= x; i++)
        *out++ = i < n ? d[i] : '0';
    if (n > x + 1)
        sprintf(out, ".%s", d + x + 1);
    else
        *out = '\0';
}

static void scientific(char *out, const char *d, int x)
{
    *out++ = d[0];
    if (d[1])
        out += sprintf(out, ".%s", d + 1);
    sprintf(out, "e%c%d", x < 0 ? '-' : '+', abs(x));
}

int format_decimal(char *buf, size_t len, int neg, const char *digits,
                   int exp10)
{
    char d[24], body[48];
    size_t n = strlen(digits);
    n = n < sizeof d - 1 ? n : sizeof d - 1;
    memcpy(d, digits, n);
    while (n > 1 && d[n - 1] == '0')
        n--;
    d[n] = '\0';
    if (exp10 >= PLAIN_MIN_EXP && exp10 <= PLAIN_MAX_EXP)
        plain(body, d, exp10);
    else
        scientific(body, d, exp10);
    return snprintf(buf, len, "%s%s", neg ? "-" : "", body);
}

/* The digits d[0..n) with the first at 10^x, in format_decimal's
 * notation, into out (48 bytes). Returns the length. */
static int layout(char *out, int neg, const char *d, int n, int x)
{
    char *p = out;
    if (neg)
        *p++ = '-';
    if (x < PLAIN_MIN_EXP || x > PLAIN_MAX_EXP) {
        *p++ = d[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)n - 1);
            p += n - 1;
        }
        int a = abs(x);
        *p++ = 'e';
        *p++ = x < 0 ? '-' : '+';
        if (a >= 100)
            *p++ = (char)('0' + a / 100);
        if (a >= 10)
            *p++ = (char)('0' + a / 10 % 10);
        *p++ = (char)('0' + a % 10);
    } else if (x < 0) {
        *p++ = '0';
        *p++ = '.';
        memset(p, '0', (size_t)(-x - 1));
        p += -x - 1;
        memcpy(p, d, (size_t)n);
        p += n;
    } else if (n > x + 1) {
        memcpy(p, d, (size_t)x + 1);
        p += x + 1;
        *p++ = '.';
        memcpy(p, d + x + 1, (size_t)(n - x - 1));
        p += n - x - 1;
    } else {
        memcpy(p, d, (size_t)n);
        memset(p + n, '0', (size_t)(x + 1 - n));
        p += x + 1;
    }
    *p = '\0';
    return (int)(p - out);
}

/* text (n bytes) into buf as snprintf would. */
static int put(char *buf, size_t len, const char *text, int n)
{
    if (len > 0) {
        size_t k = (size_t)n < len - 1 ? (size_t)n : len - 1;
        memcpy(buf, text, k);
        buf[k] = '\0';
    }
    return n;
}

/* The n decimal digits of m into d, two at a time (the dependent
 * divisions are what cost). */
static void write_digits(char *d, int n, uint64_t m)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021"
                                "22232425262728293031323334353637383940414243"
                                "44454647484950515253545556575859606162636465"
                                "66676869707172737475767778798081828384858687"
                                "888990919293949596979899";
    char *p = d + n;
    for (; m >= 100; m /= 100)
        memcpy(p -= 2, pairs + 2 * (m % 100), 2);
    if (m >= 10)
        memcpy(p - 2, pairs + 2 * m, 2);
    else
        p[-1] = (char)('0' + m);
}

/* Ryu's digits of v into d (n of them, first at 10^x), or 0 where the
 * search must decide. Ryu gives the shortest decimal in v's rounding
 * interval, the closest to v, ties to even; the search gives the
 * correctly rounded p-digit decimal for the least p that reads back, ties
 * to even as printf rounds. Up to 15 digits the interval holds one such
 * decimal at most (shortest_digits), so both agree. At 16 and 17 they
 * agree where the interval is symmetric about v: then the closest
 * p-digit decimal is inside when any is. At a power of two the lower gap
 * is half the upper one: the search decides those. Beyond max_p digits,
 * v is to be rounded, which is the search's job too. */
static int fast_digits(double v, int max_p, char *d, int *x)
{
    uint64_t m, bits;
    int e, n = 1;
    shortest_decimal(v, &m, &e);
    for (uint64_t p = 10; n < 20 && m >= p; p *= 10)
        n++;
    memcpy(&bits, &v, sizeof bits);
    if (n > max_p || (n >= 16 && (bits & ((1ull << 52) - 1)) == 0))
        return 0;
    write_digits(d, n, m);
    *x = e + n - 1;
    return n;
}

int format_double_digits(char *buf, size_t len, double v, int digits)
{
    if (isnan(v))
        return snprintf(buf, len, "nan");
    if (isinf(v))
        return snprintf(buf, len, v < 0 ? "-inf" : "inf");
    if (v == 0)
        return snprintf(buf, len, signbit(v) ? "-0" : "0");
    char d[24], text[48];
    int x, max_p = digits > 0 && digits < 17 ? digits : 17;
    int n = fast_digits(v, max_p, d, &x);
    if (n > 0) {
        int k = layout(text, v < 0, d, n, x);
        return put(buf, len, text, k);
    }
    shortest_digits(v, max_p, d, &x);
    return format_decimal(buf, len, v < 0, d, x);
}

int format_double(char *buf, size_t len, double v)
{
    return format_double_digits(buf, len, v, 0);
}
