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

/* num_short8 with its digit test in SSE2 (every x86-64 has it): one
 * compare of the 8 bytes and a bit a byte, for the core's carry-free test
 * and its byte mask; the rest is the core's. */
static inline bool num_short8_sse2(const char *m, uint64_t len, bool neg,
                                   char point, double *out)
{
    __m128i d = _mm_sub_epi8(_mm_loadl_epi64((const __m128i *)(const void *)m),
                             _mm_set1_epi8('0'));
    __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
    uint32_t bad =
        ~(uint32_t)_mm_movemask_epi8(digit) & ((UINT32_C(1) << len) - 1);
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
    uint64_t w = num_eight_value_mul(t << (8 * (8 - nd)) | zeros);
    double x = (double)w / NUM_LOAD(&num_pow10[len - k - has_point]);
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
