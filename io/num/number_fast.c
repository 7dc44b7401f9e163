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

/* 0x80 in each byte of v that is no ASCII digit, without a carry or a
 * borrow between bytes (so every byte's answer is exact). */
static inline uint64_t nondigits(uint64_t v)
{
    uint64_t x = v ^ BYTES(0x30); /* a digit: 0 to 9 */
    uint64_t bad =
        (x & BYTES(0xf0)) | (((x & BYTES(0x0f)) + BYTES(0x06)) & BYTES(0x10));
    return (((bad & BYTES(0x7f)) + BYTES(0x7f)) | bad) & BYTES(0x80);
}

/* The high bits of a word's first k bytes (k may pass 8 or be below 0). */
static inline uint64_t first_bytes(ptrdiff_t k)
{
    return k >= 8 ? BYTES(0x80) : k <= 0 ? 0 : BYTES(0x80) >> (64 - 8 * k);
}

/* The value of the digits in bytes [a, b) of the 16 bytes v0, v1. */
static inline uint64_t span_value(uint64_t v0, uint64_t v1, size_t a, size_t b)
{
    if (b <= a)
        return 0;
    if (b <= 8)
        return lead_value(v0 >> (8 * a), (unsigned)(b - a));
    if (a >= 8)
        return lead_value(v1 >> (8 * (a - 8)), (unsigned)(b - a));
    return lead_value(v0 >> (8 * a), (unsigned)(8 - a)) * num_pow10_u64[b - 8] +
           lead_value(v1, (unsigned)(b - 8));
}

/* The commonest spellings, [-]digits[point digits] in at most 8 bytes
 * after the sign, from one load and without a branch on the shape (field
 * lengths vary from row to row, and mispredicted branches were most of a
 * parse): at most 8 digits, so the core would find w < 2^53 and q in
 * [-7, 0], round by Clinger's one operation (x / 10^0 is x * 10^0), and
 * give a correction of 0 (num_int_corr's first test). */
static inline bool short8(const char *s, size_t n, char point, double *out)
{
    bool neg = s[0] == '-';
    size_t len = n - neg;
    uint64_t v = num_load8(s + neg);
    uint64_t m = nondigits(v) & first_bytes((ptrdiff_t)len);
    unsigned k = m ? (unsigned)__builtin_ctzll(m) >> 3 : (unsigned)len;
    bool has_point = m != 0;
    unsigned nd = (unsigned)len - has_point; /* digits */
    if (!NUM_CLINGER || len - 1 >= 8 || (m & (m - 1)) || nd == 0 ||
        (has_point && s[neg + k] != point))
        return false;
    /* the point taken out: the bytes past it move down one */
    uint64_t below = k < 8 ? (UINT64_C(1) << (8 * k)) - 1 : ~UINT64_C(0);
    uint64_t d = (v & below) | ((v >> 8) & ~below);
    /* the nd digits to the top bytes, '0's in front */
    uint64_t zeros = BYTES(0x30) >> 1 >> (8 * nd - 1);
    uint64_t w = num_eight_value(d << (8 * (8 - nd)) | zeros);
    double x = (double)w / num_pow10[len - k - has_point];
    *out = neg ? -x : x;
    return true;
}

/* The common spellings, [-]digits[point digits] in at most 16 bytes
 * after the sign, from two loads: at most 15 digits, so the core would
 * find w < 2^53 and q in [-15, 0], round by Clinger's one operation, and
 * give a correction of 0 (num_int_corr's first test). */
static inline bool short_plain(const char *s, size_t n, char point, double *out)
{
    bool neg = s[0] == '-';
    const char *p = s + neg;
    size_t len = n - neg;
    if (!NUM_CLINGER || len - 1 >= 16)
        return false;
    uint64_t v0 = num_load8(p), v1 = num_load8(p + 8);
    uint64_t m0 = nondigits(v0) & first_bytes((ptrdiff_t)len);
    uint64_t m1 = nondigits(v1) & first_bytes((ptrdiff_t)len - 8);
    size_t k = len; /* the point's place, len: none */
    if (m0 | m1) {
        uint64_t m = m0 ? m0 : m1;
        if ((m0 && m1) || (m & (m - 1)))
            return false; /* two bytes that are no digits */
        k = (m0 ? 0 : 8) + (size_t)(__builtin_ctzll(m) >> 3);
        if (p[k] != point || len == 1)
            return false;
    }
    if (len - (k < len) > 15)
        return false; /* 16 digits could pass 2^53 */
    size_t after = len - k - (k < len);
    uint64_t w = span_value(v0, v1, 0, k) * num_pow10_u64[after] +
                 span_value(v0, v1, k + 1, len);
    double x = (double)w;
    x = after ? x / num_pow10[after] : x;
    *out = neg ? -x : x;
    return true;
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

#if defined(__GNUC__)
#define RARE __attribute__((noinline, cold))
#else
#define RARE
#endif

/* Digits from the first nonzero one to the last of the mantissa [p, e),
 * its point skipped: the significant digits the core keeps (num_rescan).
 * Only for mantissas of more than NUM_KEEP_DIGITS digits. */
static RARE ptrdiff_t significant(const char *p, const char *e, char point)
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

/* num_convert kept out of the common path's frame. */
static RARE bool convert(const num_decimal *d, double *out)
{
    return num_convert(d, out);
}

static const num_format c_format = {.decimal = '.'};

#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

/* What short8 does not take: scan_plain, then the core. Out of line, so
 * that short8's path keeps a small frame. */
static OUT_OF_LINE num_kind longer(const char *s, size_t n, const num_format *f,
                                   double *out, int32_t *corr)
{
    num_decimal d;
    if (f->thousands != f->decimal && !f->nnull &&
        short_plain(s, n, f->decimal, out)) {
        *corr = 0;
        return NUM_OK;
    }
    if (!n || !scan_plain(s, s + n, f, &d) ||
        (f->nnull && num_is_null(f, s, s + n)))
        return parse_number_fmt(s, n, f, out, corr);
    double x;
    /* num_convert's first step, inline; the rest out of line */
    if (num_clinger(d.w, d.q, &x))
        *out = d.neg ? -x : x;
    else if (!convert(&d, out))
        return parse_number_fmt(s, n, f, out, corr);
    *corr = num_int_corr(&d, *out);
    return NUM_OK;
}

num_kind parse_number_padded(const char *s, size_t n, const num_format *f,
                             double *out, int32_t *corr)
{
    if (!f)
        f = &c_format;
    /* other separators could be letters or signs: the core reads those */
    if (f->decimal != '.' && f->decimal != ',')
        return parse_number_fmt(s, n, f, out, corr);
    if (n - 1 < 9 && f->thousands != f->decimal && !f->nnull &&
        short8(s, n, f->decimal, out)) {
        *corr = 0;
        return NUM_OK;
    }
    return longer(s, n, f, out, corr);
}
