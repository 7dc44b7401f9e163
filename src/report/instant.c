/* Instants and spans as text (report.h): ISO 8601 from microseconds since
 * 1970 UTC, by Howard Hinnant's civil_from_days ("chrono-Compatible
 * Low-Level Date Algorithms", 2013), proleptic Gregorian. */
#include <stdio.h>

#include "report.h"

/* Floor division and its remainder, for instants before 1970. */
static int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
    int64_t q = a / b, r = a % b;
    if (r < 0) {
        q--;
        r += b;
    }
    *rem = r;
    return q;
}

/* Hinnant's civil_from_days: the date of day z since 1970. */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* ".5", ".000123": the fraction of us microseconds, trailing zeros
 * left out; "" for none. */
static void fraction_text(char *buf, size_t cap, int64_t us)
{
    int digits = 6;
    if (us == 0) {
        snprintf(buf, cap, "%s", "");
        return;
    }
    while (us % 10 == 0) {
        us /= 10;
        digits--;
    }
    snprintf(buf, cap, ".%0*lld", digits, (long long)us);
}

int report_instant_text(char *buf, size_t cap, int64_t us, int date_only,
                        int zone)
{
    int64_t in_day, y;
    int m, d;
    civil_from_days(floor_div(us, 86400000000, &in_day), &y, &m, &d);
    if (date_only)
        return snprintf(buf, cap, "%04lld-%02d-%02d", (long long)y, m, d);
    int64_t frac = in_day % 1000000, s = in_day / 1000000;
    char f[16];
    fraction_text(f, sizeof f, frac);
    return snprintf(buf, cap, "%04lld-%02d-%02dT%02d:%02d:%02d%s%s",
                    (long long)y, m, d, (int)(s / 3600), (int)(s / 60 % 60),
                    (int)(s % 60), f, zone ? "Z" : "");
}

int report_instant_at(char *buf, size_t cap, int64_t us, int off)
{
    int n = report_instant_text(buf, cap, us + (int64_t)off * 60000000, 0, 0);
    size_t at = n > 0 && (size_t)n < cap ? (size_t)n : 0;
    int a = off < 0 ? -off : off;
    if (!off)
        return n + snprintf(buf + at, cap - at, "Z");
    return n + snprintf(buf + at, cap - at, "%c%02d:%02d", off < 0 ? '-' : '+',
                        a / 60, a % 60);
}

void report_span_text(char *buf, size_t cap, int64_t us, int date_only)
{
    int64_t days = us / 86400000000, in_day = us % 86400000000;
    if (date_only) {
        snprintf(buf, cap, "%lldd", (long long)days);
        return;
    }
    int64_t s = in_day / 1000000;
    char f[16], day[32] = "";
    fraction_text(f, sizeof f, in_day % 1000000);
    if (days)
        snprintf(day, sizeof day, "%lldd ", (long long)days);
    snprintf(buf, cap, "%s%02d:%02d:%02d%s", day, (int)(s / 3600),
             (int)(s / 60 % 60), (int)(s % 60), f);
}

void report_span_seconds(char *buf, size_t cap, int64_t us)
{
    char f[16];
    fraction_text(f, sizeof f, us % 1000000);
    snprintf(buf, cap, "%lld%s", (long long)(us / 1000000), f);
}
