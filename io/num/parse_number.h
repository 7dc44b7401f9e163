/* Text to double, correctly rounded: the same double strtod gives in the C
 * locale, several times faster. Accepted: optional spaces or tabs around,
 * optional sign, digits with an optional '.', optional exponent
 * ([eE][+-]?digits); "inf"/"infinity" and "nan" in any case, signed or not.
 * Hex floats, thousands separators and trailing garbage are invalid, unless
 * a num_format says how the numbers are written (parse_number_fmt). */
#ifndef COLSTAT_IO_NUM_PARSE_NUMBER_H
#define COLSTAT_IO_NUM_PARSE_NUMBER_H

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

/* How the numbers of an input are written, beyond the C locale: the
 * decimal separator; a thousands separator, skipped where it stands
 * between two digits of the integer part ("1,234,567.5"); spellings that
 * count as missing, like an empty field, compared byte for byte after the
 * blanks around a field are trimmed ("NA", "\N", "-999"). Plain data of a
 * fixed size, so that the device gets a copy. */
#define NUM_NULL_MAX 16   /* spellings */
#define NUM_NULL_LEN 31   /* bytes of one */
#define NUM_NULL_TEXT 256 /* bytes of them all */

typedef struct num_format {
    char decimal;   /* '.' by default */
    char thousands; /* 0: none */
    unsigned char nnull;
    unsigned char null_len[NUM_NULL_MAX];
    unsigned short null_at[NUM_NULL_MAX]; /* in null_text */
    uint32_t null_lens;                   /* bit k: a spelling of k bytes */
    char null_text[NUM_NULL_TEXT];
} num_format;

/* '.', no thousands separator, no spelling: parse_number's format. */
void num_format_init(num_format *f);

/* Adds a spelling of n bytes (1 to NUM_NULL_LEN). Returns 0, or -1 when it
 * does not fit (too long, or NUM_NULL_MAX / NUM_NULL_TEXT reached). */
int num_format_add_null(num_format *f, const char *s, size_t n);

/* parse_number_corr for numbers written as f says (NULL: the C locale's,
 * as num_format_init); a null spelling is NUM_MISSING. */
num_kind parse_number_fmt(const char *s, size_t n, const num_format *f,
                          double *out, int32_t *corr);

/* Bytes past a field that parse_number_padded may read. */
#define NUM_PAD 16

/* parse_number_fmt, the same kind, double and correction for every input,
 * faster for the common spellings (digits, a fraction, an exponent, at
 * most 19 significant digits): they are read 8 bytes at a time, so
 * s[n, n + NUM_PAD) must be readable; what they hold does not matter. */
num_kind parse_number_padded(const char *s, size_t n, const num_format *f,
                             double *out, int32_t *corr);

/* parse_number_padded, the same answer, for a column whose fields are
 * mostly longer than its first test takes (num_short_padded): that test
 * skipped. */
num_kind parse_number_padded_wide(const char *s, size_t n, const num_format *f,
                                  double *out, int32_t *corr);
#endif
