/* Column kinds beyond plain numbers, and their fields' parsing: ISO 8601
 * dates and datetimes, and numbers written with a unit. A column's kind
 * is one byte, chosen from a sample of its fields (the engine); every
 * field of the column is then read as that kind says.
 *
 * An instant is the exact count of microseconds since
 * 1970-01-01T00:00:00Z, as a value of the integer view (stats.h: the
 * double nearest it plus the integer correction), so that its extremes
 * and quantiles are exact. Accepted: YYYY-MM-DD (years 0001 to 9999),
 * optionally followed by 'T', 't' or a blank and HH:MM, HH:MM:SS or
 * HH:MM:SS.frac ('.' or ',', 1 to 9 digits, those past the sixth zeros),
 * then optionally a zone: 'Z', +-HH, +-HHMM or +-HH:MM (at most 23:59). A
 * datetime without a zone is read as UTC. Anything else, a leap second
 * or 24:00 included, is no date.
 *
 * A number with a unit: the unit before the number (currencies, after an
 * optional sign: '-$12', '$-12') or after it (blanks between allowed:
 * '12 ms'); the number as parse_number_fmt reads it (--thousands,
 * --decimal). A bare number in a unit column is a number in that unit. */
#ifndef COLSTAT_IO_NUM_PARSE_KIND_H
#define COLSTAT_IO_NUM_PARSE_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "io/num/parse_number.h"

/* A column's kind: a plain number, a date, a datetime (KIND_DATETIME_Z:
 * the sample saw zones, so instants print in UTC with 'Z'), or a number
 * in unit KIND_UNIT + u. */
enum {
    KIND_NUMBER = 0,
    KIND_DATE = 1,
    KIND_DATETIME = 2,
    KIND_DATETIME_Z = 3,
    KIND_UNIT = 16,
};

/* The units, in their order (prefixes first). */
enum {
    KIND_U_DOLLAR,
    KIND_U_EURO,
    KIND_U_POUND,
    KIND_U_YEN,
    KIND_U_PERCENT,
    KIND_U_NS,
    KIND_U_US,
    KIND_U_MICRO,
    KIND_U_MS,
    KIND_U_S,
    KIND_U_MIN,
    KIND_U_H,
    KIND_U_B,
    KIND_U_KB,
    KIND_U_MB,
    KIND_U_GB,
    KIND_U_TB,
    KIND_U_KIB,
    KIND_U_MIB,
    KIND_U_GIB,
    KIND_U_TIB,
    KIND_NUNITS
};

/* What a text is as a date (kind_parse_date). */
enum { KIND_DT_NONE, KIND_DT_DATE, KIND_DT_NAIVE, KIND_DT_ZONED };

/* The range of instants: 0001-01-01T00:00:00 at +23:59 to
 * 9999-12-31T23:59:59.999999 at -23:59, in microseconds. */
#define KIND_US_MIN (-62135596800000000 - 86340000000)
#define KIND_US_MAX (253402300799999999 + 86340000000)

/* A field of a kind-k column, as parse_number_fmt returns (f NULL: the C
 * locale); a text of another kind is NUM_INVALID. */
num_kind parse_kind_fmt(const char *s, size_t n, const num_format *f,
                        unsigned k, double *out, int32_t *corr);

/* What the sample learns of a text: KIND_DT_* as a date (*us its instant),
 * and the unit it carries as a number (-1: none, or no number). */
int parse_kind_date(const char *s, size_t n, int64_t *us);
int parse_kind_unit(const char *s, size_t n, const num_format *f);

/* The offset a text that parse_kind_date reads as a date or datetime was
 * written in, in minutes east of UTC: 0 for 'Z', a zero offset or no zone
 * (what it gives for another text is no offset of any use). Host only:
 * the device carries no offsets. */
int parse_kind_offset(const char *s, size_t n);

/* The unit's text ("ms"), "" for none. */
const char *kind_unit_name(unsigned k);

#endif
