/* The shortest spellings, [-]digits[point digits] in at most 8 bytes
 * after the sign, inline for a caller's per-field loop: the same double
 * parse_number_padded gives them (its first step, the core's num_short8),
 * without the call. A call out of a loop over fields makes its compiler
 * reload every value the loop keeps in memory; for the CSV reader's six
 * short columns that was about a tenth of a parse thread's instructions. */
#ifndef COLSTAT_IO_NUM_NUMBER_SHORT_H
#define COLSTAT_IO_NUM_NUMBER_SHORT_H

#include "io/num/number_core.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether fields of format f (NULL: the C locale's) may be read here; the
 * point they use in *point. */
static inline bool num_short_format(const num_format *f, char *point)
{
    *point = f ? f->decimal : '.';
    return !f || num_short8_plain(f->decimal, f->thousands, f->nnull);
}

/* The value of 8 ASCII digits, the first in the low byte, by three
 * multiplications that each join neighbouring groups (Lemire, "Number
 * Parsing at a Gigabyte per Second", 2021, section 5): on the host, fewer
 * instructions than the core's shifts and masks (num_eight_value), which
 * the device keeps. */
static inline uint64_t num_eight_value_mul(uint64_t v)
{
    v = (v & UINT64_C(0x0f0f0f0f0f0f0f0f)) * 2561 >> 8;
    v = (v & UINT64_C(0x00ff00ff00ff00ff)) * 6553601 >> 16;
    return (v & UINT64_C(0x0000ffff0000ffff)) * UINT64_C(42949672960001) >> 32;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* Bit i: byte i of v is a digit (its value past '0' at most 9, unsigned:
 * the bytes below '0' wrap above it). */
static inline uint32_t num_digit_bits(__m128i v)
{
    __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
    __m128i small = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
    return (uint32_t)_mm_movemask_epi8(small);
}

/* num_short8_digits from the bytes' digit bits (dig): one compare of
 * them in SSE2 (every x86-64 has it) for the core's carry-free test and
 * its byte mask; the rest is the core's. */
static inline bool num_short8_bits(const char *m, uint64_t len, uint32_t dig,
                                   char point, uint64_t *w, unsigned *frac)
{
    uint32_t bad = ~dig & ((UINT32_C(1) << len) - 1);
    unsigned k = bad ? (unsigned)NUM_CTZ64(bad) : (unsigned)len;
    bool has_point = bad != 0;
    unsigned nd = (unsigned)len - has_point; /* digits */
    if (!NUM_CLINGER || (bad & (bad - 1)) || nd == 0 ||
        (has_point && m[k] != point))
        return false;
    /* the point taken out, the nd digits to the top bytes (as the core) */
    uint64_t v = num_load8(m);
    uint64_t below = k < 8 ? (UINT64_C(1) << (8 * k)) - 1 : ~UINT64_C(0);
    uint64_t t = (v & below) | ((v >> 8) & ~below);
    uint64_t zeros = NUM_BYTES(0x30) >> 1 >> (8 * nd - 1);
    *w = num_eight_value_mul(t << (8 * (8 - nd)) | zeros);
    *frac = (unsigned)len - k - has_point;
    return true;
}

/* num_short8 by num_short8_bits. */
static inline bool num_short8_sse2(const char *m, uint64_t len, bool neg,
                                   char point, double *out)
{
    uint64_t w;
    unsigned frac;
    uint32_t dig =
        num_digit_bits(_mm_loadl_epi64((const __m128i *)(const void *)m));
    if (!num_short8_bits(m, len, dig, point, &w, &frac))
        return false;
    double x = (double)w / NUM_LOAD(&num_pow10[frac]);
    *out = neg ? -x : x;
    return true;
}
#endif

/* The field s[0, n), NUM_PAD bytes after it readable, of a format
 * num_short_format accepted: true with *out set when it is such a
 * spelling (its integer correction is 0); false: parse_number_padded
 * must read it. */
static inline bool num_short_padded(const char *s, size_t n, char point,
                                    double *out)
{
    bool neg = s[0] == '-';
    if (n - neg - 1 >= 8)
        return false;
#if defined(__SSE2__)
    return num_short8_sse2(s + neg, n - neg, neg, point, out);
#else
    return num_short8(num_load8(s + neg), n - neg, neg, point, out);
#endif
}

#endif
