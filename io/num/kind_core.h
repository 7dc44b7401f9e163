/* The parsing of column kinds beyond plain numbers (parse_kind.h), shared
 * with the device (gpu/parse_field.cuh) as number_core.h is: ISO 8601 dates
 * and datetimes to exact microseconds since 1970-01-01T00:00:00Z, and
 * numbers written with a unit.
 *
 * Header-only, C11 and CUDA C++. The includer defines, before including:
 *   KIND_FN       qualifiers of every function (default static inline)
 *   KIND_PARSE_NUMBER(s, e, f, out, corr)  the plain number parser of [s, e)
 *                 with format f: parse_number_fmt's kinds (the device's
 *                 may also give NUM_HARD, which passes through)
 * The calendar arithmetic is Howard Hinnant's days_from_civil and
 * civil_from_days ("chrono-Compatible Low-Level Date Algorithms", 2013),
 * on the proleptic Gregorian calendar. */
#ifndef COLSTAT_IO_NUM_KIND_CORE_H
#define COLSTAT_IO_NUM_KIND_CORE_H

#include "io/num/parse_kind.h"

#include <stddef.h>
#include <stdint.h>

#ifndef KIND_FN
#define KIND_FN static inline
#endif

KIND_FN int kind_blank(char c)
{
    return c == ' ' || c == '\t';
}

KIND_FN int kind_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* n digits at p (p + n <= e) as a number, or -1. */
KIND_FN int kind_digits(const char *p, const char *e, int n)
{
    int v = 0;
    if (e - p < n)
        return -1;
    for (int i = 0; i < n; i++) {
        if (!kind_digit(p[i]))
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/* Days from 1970-01-01 to y-m-d (Hinnant's days_from_civil). */
KIND_FN int64_t kind_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

KIND_FN int kind_month_days(int y, int m)
{
    if (m == 2)
        return 28 + ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0);
    return 30 + ((m + (m >= 8)) & 1);
}

/* "YYYY-MM-DD" at p: the days since 1970, or 0 with *ok 0. */
KIND_FN int64_t kind_scan_date(const char *p, const char *e, int *ok)
{
    int y = kind_digits(p, e, 4);
    int m =
        y >= 0 && e - p >= 10 && p[4] == '-' ? kind_digits(p + 5, e, 2) : -1;
    int d = m >= 0 && p[7] == '-' ? kind_digits(p + 8, e, 2) : -1;
    *ok = y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= kind_month_days(y, m);
    return *ok ? kind_days_from_civil(y, m, d) : 0;
}

/* The fraction after a second's '.' or ',' at p: microseconds, digits
 * past the sixth all zeros (a finer instant is no value here). Advances
 * *pp; -1 when malformed. */
KIND_FN int64_t kind_scan_fraction(const char **pp, const char *e)
{
    const char *p = *pp;
    int64_t us = 0;
    int n = 0;
    for (; p < e && kind_digit(*p); p++, n++) {
        if (n < 6)
            us = us * 10 + (*p - '0');
        else if (*p != '0')
            return -1;
    }
    if (n == 0 || n > 9)
        return -1;
    for (; n < 6; n++)
        us *= 10;
    *pp = p;
    return us;
}

/* "HH:MM[:SS[.frac]]" at *pp: microseconds into the day, or -1. */
KIND_FN int64_t kind_scan_time(const char **pp, const char *e)
{
    const char *p = *pp;
    int h = kind_digits(p, e, 2);
    int m = h >= 0 && e - p >= 5 && p[2] == ':' ? kind_digits(p + 3, e, 2) : -1;
    if (h < 0 || h > 23 || m < 0 || m > 59)
        return -1;
    p += 5;
    int64_t us = 0;
    int s = 0;
    if (p < e && *p == ':') {
        s = kind_digits(p + 1, e, 2);
        if (s < 0 || s > 59)
            return -1;
        p += 3;
        if (p < e && (*p == '.' || *p == ',')) {
            p++;
            if ((us = kind_scan_fraction(&p, e)) < 0)
                return -1;
        }
    }
    *pp = p;
    return ((int64_t)h * 3600 + m * 60 + s) * 1000000 + us;
}

/* The zone at p up to e: 'Z', +-HH, +-HHMM, +-HH:MM. The offset in
 * minutes east of UTC, or KIND_NO_ZONE when malformed. */
#define KIND_NO_ZONE 100000
KIND_FN int kind_scan_zone(const char *p, const char *e)
{
    if (e - p == 1 && (*p == 'Z' || *p == 'z'))
        return 0;
    if (e - p < 3 || (*p != '+' && *p != '-'))
        return KIND_NO_ZONE;
    int sign = *p == '-' ? -1 : 1;
    int h = kind_digits(p + 1, e, 2), m = 0;
    const char *q = p + 3;
    if (q < e && *q == ':')
        q++;
    if (q < e) {
        m = kind_digits(q, e, 2);
        q += 2;
    }
    if (h < 0 || h > 23 || m < 0 || m > 59 || q != e ||
        (e - p == 4 && p[3] == ':'))
        return KIND_NO_ZONE;
    return sign * (h * 60 + m);
}

/* An ISO 8601 date or datetime in [s, e), blanks around it allowed:
 * KIND_DT_DATE, KIND_DT_NAIVE or KIND_DT_ZONED with *us the instant
 * (microseconds since 1970 UTC; a datetime without a zone read as UTC), or
 * KIND_DT_NONE. */
KIND_FN int kind_parse_date(const char *s, const char *e, int64_t *us)
{
    while (s < e && kind_blank(*s))
        s++;
    while (e > s && kind_blank(e[-1]))
        e--;
    int ok;
    int64_t days = kind_scan_date(s, e, &ok);
    if (!ok)
        return KIND_DT_NONE;
    *us = days * 86400 * 1000000;
    const char *p = s + 10;
    if (p == e)
        return KIND_DT_DATE;
    if (*p != 'T' && *p != 't' && *p != ' ')
        return KIND_DT_NONE;
    p++;
    int64_t t = kind_scan_time(&p, e);
    if (t < 0)
        return KIND_DT_NONE;
    *us += t;
    if (p == e)
        return KIND_DT_NAIVE;
    int zone = kind_scan_zone(p, e);
    if (zone == KIND_NO_ZONE)
        return KIND_DT_NONE;
    *us -= (int64_t)zone * 60 * 1000000;
    return KIND_DT_ZONED;
}

/* The unit's text, its length, and whether it stands before the number. */
KIND_FN const char *kind_unit_text(int u, int *len, int *prefix)
{
    const char *t = "";
    *prefix = u <= KIND_U_YEN;
    switch (u) {
    case KIND_U_DOLLAR:
        t = "$";
        break;
    case KIND_U_EURO:
        t = "\xE2\x82\xAC";
        break;
    case KIND_U_POUND:
        t = "\xC2\xA3";
        break;
    case KIND_U_YEN:
        t = "\xC2\xA5";
        break;
    case KIND_U_PERCENT:
        t = "%";
        break;
    case KIND_U_NS:
        t = "ns";
        break;
    case KIND_U_US:
        t = "us";
        break;
    case KIND_U_MICRO:
        t = "\xC2\xB5s";
        break;
    case KIND_U_MS:
        t = "ms";
        break;
    case KIND_U_S:
        t = "s";
        break;
    case KIND_U_MIN:
        t = "min";
        break;
    case KIND_U_H:
        t = "h";
        break;
    case KIND_U_B:
        t = "B";
        break;
    case KIND_U_KB:
        t = "KB";
        break;
    case KIND_U_MB:
        t = "MB";
        break;
    case KIND_U_GB:
        t = "GB";
        break;
    case KIND_U_TB:
        t = "TB";
        break;
    case KIND_U_KIB:
        t = "KiB";
        break;
    case KIND_U_MIB:
        t = "MiB";
        break;
    case KIND_U_GIB:
        t = "GiB";
        break;
    case KIND_U_TIB:
        t = "TiB";
        break;
    default:
        break;
    }
    int n = 0;
    while (t[n])
        n++;
    *len = n;
    return t;
}

KIND_FN int kind_same(const char *a, const char *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* Where unit u stands in [*s, *e) (blanks around cut off): cuts it off,
 * with the blanks between it and the number, and says 1; a sign before
 * a prefix goes to *neg ('-$12'). 0 when the text does not carry u. */
KIND_FN int kind_cut_unit(const char **s, const char **e, int u, int *neg)
{
    int len, prefix;
    const char *t = kind_unit_text(u, &len, &prefix);
    const char *p = *s, *q = *e;
    *neg = 0;
    if (prefix) {
        int sign = q - p > 1 && (*p == '-' || *p == '+');
        if (q - p - sign < len || !kind_same(p + sign, t, len))
            return 0;
        *neg = sign && *p == '-';
        p += sign + len;
        if (sign && p < q && (*p == '-' || *p == '+'))
            return 0; /* two signs */
    } else {
        if (q - p < len || !kind_same(q - len, t, len))
            return 0;
        q -= len;
        while (q > p && kind_blank(q[-1]))
            q--;
    }
    *s = p;
    *e = q;
    return p < q;
}

/* A field of a column whose kind is k (parse_kind.h): a number with
 * parse_number_fmt's kinds, the unit or date rules applied. */
KIND_FN int kind_parse_field(const char *s, const char *e, const num_format *f,
                             unsigned k, double *out, int32_t *corr)
{
    if (k == KIND_NUMBER)
        return KIND_PARSE_NUMBER(s, e, f, out, corr);
    if (k >= KIND_UNIT) {
        const char *p = s, *q = e;
        int neg;
        while (p < q && kind_blank(*p))
            p++;
        while (q > p && kind_blank(q[-1]))
            q--;
        if (!kind_cut_unit(&p, &q, (int)(k - KIND_UNIT), &neg))
            return KIND_PARSE_NUMBER(s, e, f, out, corr); /* a bare number */
        int r = KIND_PARSE_NUMBER(p, q, f, out, corr);
        if (r == NUM_MISSING || r == NUM_NAN)
            return NUM_INVALID; /* '$' or 'nan%' alone */
        if (neg && r == NUM_OK) {
            *out = -*out;
            *corr = *corr == CORR_NOT_INT ? *corr : -*corr;
        }
        return r;
    }
    int64_t us;
    int dt = kind_parse_date(s, e, &us);
    if (dt == KIND_DT_NONE || (k == KIND_DATE && dt != KIND_DT_DATE)) {
        int r = KIND_PARSE_NUMBER(s, e, f, out, corr);
        *corr = 0;
        return r == NUM_MISSING || r == NUM_NAN ? r : NUM_INVALID;
    }
    double d = (double)us;
    *out = d;
    /* |us| < 2^59, so d is within 2^6 of it: the difference fits */
    *corr = (int32_t)(us - (int64_t)d);
    return NUM_OK;
}

#endif
