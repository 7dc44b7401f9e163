/* Text to double, correctly rounded: the same double strtod gives in the C
 * locale, several times faster. Accepted: optional spaces or tabs around,
 * optional sign, digits with an optional '.', optional exponent
 * ([eE][+-]?digits); "inf"/"infinity" and "nan" in any case, signed or not.
 * Hex floats, thousands separators and trailing garbage are invalid. */
#ifndef COLSTAT_IO_PARSE_NUMBER_H
#define COLSTAT_IO_PARSE_NUMBER_H

#include <stddef.h>
#include <stdint.h>

typedef enum num_kind {
    NUM_OK = 0,  /* *out holds the value (finite or infinite) */
    NUM_MISSING, /* empty or only blanks */
    NUM_INVALID, /* not a number */
    NUM_NAN,     /* spells NaN */
} num_kind;

/* s need not be NUL-terminated; n bytes are read. */
num_kind parse_number(const char *s, size_t n, double *out);

/* The integer view: integers of magnitude up to 2^64 stay exact as the
 * double plus a correction. Marks a value whose double is an integer of at
 * most 2^64 although the text is no such integer ("3.0000000000000000001",
 * "18446744073709551617"). src/stats/stats.h defines the same. */
#define CORR_NOT_INT INT32_MIN

/* parse_number, and *corr: for a text that spells an integer v with
 * |v| <= 2^64 ("12", "-0", "1e3", "1.50e1", "007.000"), v - *out exactly
 * (|*corr| <= 1024; 0 up to 2^53); CORR_NOT_INT as above; 0 otherwise (the
 * double then is no integer of at most 2^64 itself) and for kinds other
 * than NUM_OK. */
num_kind parse_number_corr(const char *s, size_t n, double *out, int32_t *corr);

#endif
