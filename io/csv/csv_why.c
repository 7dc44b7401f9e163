/* Why a text is not a number, for messages that would otherwise only say
 * "text": a usual spelling of a missing value (then --null is the cure),
 * digits grouped by a separator (--thousands), or a number with a unit
 * ('$', '%', 'ms': the units themselves are a later feature). */
#include "io/csv/csv_reader.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/num/parse_kind.h"

/* The spellings of a missing value the usual exporters write: R and
 * pandas (NA, NaN, None, <NA>), SQL (NULL, \N from MySQL and
 * PostgreSQL's COPY), spreadsheets (#N/A, N/A), and a lone dash. */
static const char *const null_words[] = {
    "NA",   "N/A", "N.A.", "#N/A", "<NA>", "null", "NaN",
    "None", "nil", "-",    "--",   "\\N",  "?",    "missing",
};

int csv_null_spelling(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof null_words / sizeof null_words[0]; i++)
        if (strlen(null_words[i]) == n && strncasecmp(s, null_words[i], n) == 0)
            return 1;
    return 0;
}

static size_t digits(const char *s, size_t n, size_t i)
{
    size_t k = i;
    while (k < n && isdigit((unsigned char)s[k]))
        k++;
    return k - i;
}

/* [sign] digits with groups of three after ',', '.', '\'' or ' ', and a
 * fraction: from i, the end of it, or i when none. grouped: groups seen. */
static size_t number_at(const char *s, size_t n, size_t i, int *grouped)
{
    size_t at = i + (i < n && (s[i] == '-' || s[i] == '+'));
    size_t d = digits(s, n, at);
    *grouped = 0;
    if (d == 0)
        return i;
    at += d;
    while (d <= 3 && at + 4 <= n && strchr(",.' ", s[at]) &&
           digits(s, n, at + 1) == 3) {
        at += 4;
        *grouped = 1;
    }
    if (at + 1 < n && (s[at] == '.' || s[at] == ',') &&
        digits(s, n, at + 1) > 0)
        at += 1 + digits(s, n, at + 1);
    return at;
}

/* A unit before the number: '$' or UTF-8 (EUR, GBP signs); after it:
 * letters, '%', '/', UTF-8 (deg, micro), at most UNIT_MAX bytes. */
enum { UNIT_MAX = 8 };

static size_t run_of(const char *s, size_t n, size_t i, int after)
{
    size_t k = i;
    while (k < n && k - i < UNIT_MAX) {
        unsigned char c = (unsigned char)s[k];
        if (!(c == '$' || c >= 0x80 ||
              (after && (isalpha(c) || c == '%' || c == '/'))))
            break;
        k++;
    }
    return k - i;
}

/* '$12', '-6%', '12 ms', '$31,359.32': the unit into unit[cap]. */
static int with_unit(const char *s, size_t n, char *unit, size_t cap,
                     int *grouped)
{
    size_t sign = n && (s[0] == '-' || s[0] == '+');
    size_t pre = run_of(s, n, sign, 0), at = sign + pre;
    size_t end = number_at(s, n, at, grouped);
    if (end == at)
        return 0;
    size_t u = end;
    while (!pre && u < n && s[u] == ' ')
        u++;
    size_t post = pre ? 0 : run_of(s, n, u, 1);
    if ((pre ? end : u + post) != n || (!pre && !post))
        return 0;
    snprintf(unit, cap, "%.*s", (int)(pre ? pre : post), s + (pre ? sign : u));
    return 1;
}

int csv_text_kind(const char *s, size_t n, char *unit, size_t cap)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    int grouped = 0;
    if (csv_null_spelling(s, n))
        return CSV_WHY_NULL;
    if (with_unit(s, n, unit, cap, &grouped))
        return CSV_WHY_UNIT;
    if (number_at(s, n, 0, &grouped) == n && grouped)
        return CSV_WHY_GROUPED;
    return CSV_WHY_TEXT;
}

unsigned char csv_why_kind(const csv_why *why)
{
    unsigned dated = why->dates + why->datetimes;
    unsigned others = why->numbers + why->texts - why->nulls - dated;
    if (dated > others)
        return why->zoned       ? KIND_DATETIME_Z
               : why->datetimes ? KIND_DATETIME
                                : KIND_DATE;
    if (why->with_unit && why->with_unit >= why->numbers &&
        why->with_unit > why->texts - why->nulls - why->with_unit)
        return (unsigned char)(KIND_UNIT + why->unit_first - 1);
    return KIND_NUMBER;
}
