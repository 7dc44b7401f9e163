/* parse_number_padded: the host's fast path for the common spellings,
 * read 8 bytes at a time from a padded field, before the general scan of
 * io/num/number_core.h. It only finds the significand w and the exponent q
 * (the value w * 10^q) and hands them to the core's conversion (Clinger,
 * then Eisel-Lemire) and integer correction, so that every answer is the
 * core's: a text it cannot read as the core does goes to
 * parse_number_fmt whole. SWAR digit parsing as in Lemire, "Number Parsing
 * at a Gigabyte per Second", Software: Practice and Experience 51(8),
 * 2021. */
#include "io/num/parse_number.h"

#include "io/num/number_core.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define BYTES(c) (UINT64_C(0x0101010101010101) * (c))

/* How many of v's bytes, first in the low byte, are ASCII digits before
 * the first that is not (0 to 8). A byte below the first non-digit is a
 * digit, which neither carries nor borrows, so that byte's test is exact
 * whatever the bytes past it hold. */
static inline unsigned lead_digits(uint64_t v)
{
    uint64_t m = ((v + BYTES(0x46)) | (v - BYTES(0x30))) & BYTES(0x80);
    return m ? (unsigned)__builtin_ctzll(m) >> 3 : 8;
}

/* The value of v's first k digits (1 <= k <= 8): moved to the top bytes,
 * '0's in front. */
static inline uint64_t lead_value(uint64_t v, unsigned k)
{
    uint64_t zeros = k < 8 ? BYTES(0x30) >> (8 * k) : 0;
    return num_eight_value(v << (8 * (8 - k)) | zeros);
}

/* The digits from p, at most up to e, appended to *w (wrapping past 19
 * digits: the caller counts them); returns where they end. Reads 8 bytes
 * at p <= e. */
static inline const char *digit_run(const char *p, const char *e, uint64_t *w)
{
    for (;;) {
        uint64_t v = num_load8(p);
        unsigned k = lead_digits(v);
        if ((size_t)(e - p) < k)
            k = (unsigned)(e - p);
        if (k == 0)
            return p;
        *w = *w * num_pow10_u64[k] + lead_value(v, k);
        p += k;
        if (k < 8)
            return p;
    }
}

/* Digits from the first nonzero one to the last of the mantissa [p, e),
 * its point skipped: the significant digits the core keeps (num_rescan). */
static ptrdiff_t significant(const char *p, const char *e, char point)
{
    ptrdiff_t lead = 0, all = 0;
    bool nonzero = false;
    for (; p < e; p++) {
        if (*p == point)
            continue;
        all++;
        nonzero = nonzero || *p != '0';
        lead += !nonzero;
    }
    return all - lead;
}

/* [eE][+-]?digits of at most 4 digits, or nothing, into *x; NULL when the
 * core must judge it. */
static inline const char *exponent(const char *p, const char *e, int64_t *x)
{
    *x = 0;
    if (p == e || num_lower(*p) != 'e')
        return p;
    p++;
    bool neg = p < e && *p == '-';
    p += p < e && (*p == '-' || *p == '+');
    const char *first = p;
    for (; p < e && num_is_digit(*p) && p - first < 4; p++)
        *x = *x * 10 + (*p - '0');
    if (p == first)
        return NULL;
    *x = neg ? -*x : *x;
    return p;
}

/* The core's num_decimal of [s, e) when the text is plain (sign, digits,
 * point, exponent, no blanks, no separator, at most NUM_KEEP_DIGITS
 * significant digits); false otherwise. */
static inline bool scan_plain(const char *s, const char *e, const num_format *f,
                              num_decimal *d)
{
    const char *p = s;
    d->neg = p < e && *p == '-';
    p += p < e && (*p == '-' || *p == '+');
    const char *m = p;
    uint64_t w = 0;
    p = digit_run(p, e, &w);
    ptrdiff_t nint = p - m, nfrac = 0;
    if (p < e && *p == f->thousands && f->thousands && nint)
        return false; /* grouped digits: the core's */
    if (p < e && *p == f->decimal) {
        const char *frac = ++p;
        p = digit_run(frac, e, &w);
        nfrac = p - frac;
    }
    if (nint + nfrac == 0)
        return false;
    if (nint + nfrac > NUM_KEEP_DIGITS &&
        significant(m, p, f->decimal) > NUM_KEEP_DIGITS)
        return false;
    int64_t x;
    p = exponent(p, e, &x);
    if (p != e)
        return false;
    d->w = w;
    d->q = x - nfrac;
    d->truncated = false;
    return true;
}

static const num_format c_format = {.decimal = '.'};

num_kind parse_number_padded(const char *s, size_t n, const num_format *f,
                             double *out, int32_t *corr)
{
    if (!f)
        f = &c_format;
    num_decimal d;
    /* other separators could be letters or signs: the core reads those */
    bool plain_point = f->decimal == '.' || f->decimal == ',';
    if (n && plain_point && scan_plain(s, s + n, f, &d) &&
        !(f->nnull && num_is_null(f, s, s + n)) && num_convert(&d, out)) {
        *corr = num_int_corr(&d, *out);
        return NUM_OK;
    }
    return parse_number_fmt(s, n, f, out, corr);
}
