/* Text to double, correctly rounded: the same double strtod gives in the C
 * locale, several times faster. Accepted: optional spaces or tabs around,
 * optional sign, digits with an optional '.', optional exponent
 * ([eE][+-]?digits); "inf"/"infinity" and "nan" in any case, signed or not.
 * Hex floats, thousands separators and trailing garbage are invalid. */
#ifndef COLSTAT_IO_PARSE_NUMBER_H
#define COLSTAT_IO_PARSE_NUMBER_H

#include <stddef.h>

typedef enum num_kind {
    NUM_OK = 0,  /* *out holds the value (finite or infinite) */
    NUM_MISSING, /* empty or only blanks */
    NUM_INVALID, /* not a number */
    NUM_NAN,     /* spells NaN */
} num_kind;

/* s need not be NUL-terminated; n bytes are read. */
num_kind parse_number(const char *s, size_t n, double *out);

#endif
