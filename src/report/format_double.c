/* Shortest round-trip decimal: the fewest significant digits p for which
 * the correctly rounded p-digit decimal reads back as the same double
 * (the property of Steele & White, "How to print floating-point numbers
 * accurately", PLDI 1990), found by trying p = 1..17 with printf's
 * correctly rounded %.*e and strtod (at most three tries for a normal
 * double: shortest_digits says why). 17 digits always suffice for binary64
 * (IEEE 754-2008, 5.12.2). With a limit of N digits (--digits), the search
 * stops at N: the value correctly rounded to N digits. */
#include "report.h"

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

int format_double_digits(char *buf, size_t len, double v, int digits)
{
    if (isnan(v))
        return snprintf(buf, len, "nan");
    if (isinf(v))
        return snprintf(buf, len, v < 0 ? "-inf" : "inf");
    if (v == 0)
        return snprintf(buf, len, signbit(v) ? "-0" : "0");
    char d[24];
    int x;
    shortest_digits(v, digits > 0 && digits < 17 ? digits : 17, d, &x);
    return format_decimal(buf, len, v < 0, d, x);
}

int format_double(char *buf, size_t len, double v)
{
    return format_double_digits(buf, len, v, 0);
}
