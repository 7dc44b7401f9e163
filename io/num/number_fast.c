/* parse_number_padded: the host's fast path for the commonest spellings,
 * [-]digits[point digits] in at most 8 bytes after the sign, before the
 * core of io/num/number_core.h. The digits are read 8 bytes at a time from a
 * padded field (SWAR, as in Lemire, "Number Parsing at a Gigabyte per
 * Second", Software: Practice and Experience 51(8), 2021): at most 8 of
 * them make w < 2^53 and q in [-7, 0], where Clinger's one operation
 * (Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990)
 * rounds correctly, as the core does for them, and the integer correction
 * is 0, as num_int_corr's first test says. Every other text goes to
 * parse_number_fmt whole: a general scan here, and the same for up to 16
 * bytes, were tried and were slower than the core's (its branches on the
 * shape mispredict as lengths vary from row to row). */
#include "io/num/parse_number.h"

#include "io/num/number_core.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define BYTES(c) (UINT64_C(0x0101010101010101) * (c))

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

static const num_format c_format = {.decimal = '.'};

num_kind parse_number_padded(const char *s, size_t n, const num_format *f,
                             double *out, int32_t *corr)
{
    if (!f)
        f = &c_format;
    /* Other points could be letters or signs; a thousands separator equal
     * to the point, or a null spelling, changes what a text means: the
     * core reads those. */
    bool plain = (f->decimal == '.' || f->decimal == ',') &&
                 f->thousands != f->decimal && !f->nnull;
    /* 8 bytes after a sign: longer texts skip short8's checks */
    if (plain && n - (s[0] == '-') - 1 < 8 && short8(s, n, f->decimal, out)) {
        *corr = 0;
        return NUM_OK;
    }
    return parse_number_fmt(s, n, f, out, corr);
}
