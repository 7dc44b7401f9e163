/* Shortest round-trip decimal: the fewest significant digits p for which
 * the correctly rounded p-digit decimal reads back as the same double
 * (the property of Steele & White, "How to print floating-point numbers
 * accurately", PLDI 1990), found by trying p = 1..17 with printf's
 * correctly rounded %.*e and strtod. 17 digits always suffice for binary64
 * (IEEE 754-2008, 5.12.2). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Plain notation for 1e-5 <= |v| < 1e16, scientific outside. */
enum { PLAIN_MIN_EXP = -5, PLAIN_MAX_EXP = 15 };

/* Significant digits of the shortest form into digits (no trailing
 * zeros), and the decimal exponent of the first one. */
static void shortest_digits(double v, char *digits, int *exp10)
{
    char tmp[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    /* tmp is "[-]d[.ddd]e[+-]xx". */
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

int format_double(char *buf, size_t len, double v)
{
    if (isnan(v))
        return snprintf(buf, len, "nan");
    if (isinf(v))
        return snprintf(buf, len, v < 0 ? "-inf" : "inf");
    if (v == 0)
        return snprintf(buf, len, signbit(v) ? "-0" : "0");
    char digits[24], body[40];
    int x;
    shortest_digits(v, digits, &x);
    if (x >= PLAIN_MIN_EXP && x <= PLAIN_MAX_EXP)
        plain(body, digits, x);
    else
        scientific(body, digits, x);
    return snprintf(buf, len, "%s%s", v < 0 ? "-" : "", body);
}
