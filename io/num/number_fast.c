/* parse_number_padded: the host's fast path for the commonest spellings,
 * [-]digits[point digits] in at most 8 bytes after the sign, before the
 * core of io/num/number_core.h. The digits are read 8 bytes at a time from a
 * padded field (SWAR, as in Lemire, "Number Parsing at a Gigabyte per
 * Second", Software: Practice and Experience 51(8), 2021): at most 8 of
 * them make w < 2^53 and q in [-7, 0], where Clinger's one operation
 * (Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990)
 * rounds correctly, as the core does for them, and the integer correction
 * is 0, as num_int_corr's first test says; then the same mantissa with
 * an exponent of at most 3 digits, as C's %e prints it (short8_exp);
 * then 9 to 24 bytes of digits and at most one point, as "%.17g" prints a
 * measurement (long_plain: 37 -> 27 ns a field on such a column, whose
 * values below 0.01 the core rescanned). Every other text goes to
 * parse_number_fmt whole: a general scan here, and the same for up to 16
 * bytes, were tried and were slower than the core's (its branches on the
 * shape mispredict as lengths vary from row to row). */
#include "io/num/parse_number.h"

#include "io/num/number_core.h"
#include "io/num/number_short.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
/* num_short8_exp from one load of 16 bytes (len < 14 of them the text's
 * after the sign): the digit and 'e' bytes as bits, the exponent's digits
 * checked at once; the same values and refusals as the core's. */
static inline bool short8_exp_sse2(const char *m, unsigned len, bool neg,
                                   char point, double *out)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)m);
    uint32_t in = (UINT32_C(1) << len) - 1, dig = num_digit_bits(v) & in;
    uint32_t es =
        (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(
            _mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('e'))) &
        in;
    unsigned k = es ? (unsigned)NUM_CTZ64(es) : len;
    if (k == 0 || k > 8 || k + 1 >= len)
        return false;
    unsigned p = k + 1;
    bool eneg = m[p] == '-';
    p += m[p] == '-' || m[p] == '+';
    uint32_t tail = in & ~((UINT32_C(1) << p) - 1); /* the exponent's */
    if (p >= len || len - p > 3 || (dig & tail) != tail)
        return false;
    int ex = 0;
    for (; p < len; p++)
        ex = ex * 10 + (m[p] - '0');
    uint64_t w;
    unsigned frac;
    if (!num_short8_bits(m, k, dig, point, &w, &frac))
        return false;
    return num_short8_scale(w, (eneg ? -ex : ex) - (int)frac, neg, out);
}
#endif

/* The same mantissa with an exponent (num_short8_exp). */
static inline bool short8_exp(const char *s, size_t n, char point, double *out)
{
    bool neg = s[0] == '-';
#if defined(__SSE2__)
    return short8_exp_sse2(s + neg, (unsigned)(n - neg), neg, point, out);
#else
    return num_short8_exp(num_load8(s + neg), s + neg, s + n, neg, point, out);
#endif
}

/* The mask of a word's first k bytes (k may pass 8 or be below 0). */
static inline uint64_t low_bytes(int64_t k)
{
    return k >= 8 ? ~UINT64_C(0) : k <= 0 ? 0 : (UINT64_C(1) << (8 * k)) - 1;
}

/* The value of the first k digits of v, k in [0, 8]: they go to the top
 * bytes with '0's in front (the shifts are split so that none is by 64). */
static inline uint64_t head_value(uint64_t v, unsigned k)
{
    unsigned up = 4 * (8 - k), down = 4 * k;
    uint64_t zeros = (NUM_BYTES(0x30) >> down) >> down;
    return num_eight_value_mul(((v << up) << up) | zeros);
}

/* The value of the nd digits t0 t1 t2 (nd in [8, 24]; 24 bytes, first in
 * the low byte), when at most NUM_KEEP_DIGITS of them are significant:
 * then w holds it exactly. */
static inline bool long_digits(uint64_t t0, uint64_t t1, uint64_t t2,
                               int64_t nd, uint64_t *w)
{
    if (nd > NUM_KEEP_DIGITS &&
        ((t0 ^ NUM_BYTES(0x30)) & low_bytes(nd - NUM_KEEP_DIGITS)))
        return false;
    unsigned n1 = nd - 8 < 8 ? (unsigned)(nd - 8) : 8;
    unsigned n2 = nd > 16 ? (unsigned)(nd - 16) : 0;
    *w = (num_eight_value_mul(t0) * num_pow10_u64[n1] + head_value(t1, n1)) *
             num_pow10_u64[n2] +
         head_value(t2, n2);
    return true;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* Where the one byte among the first len (<= 24) at m that is no digit
 * lies, len if none; -1 if there are more: two loads and compares of
 * SSE2 (every x86-64 has it), against the three words' carry-free
 * tests, some sixty instructions fewer a field. */
static inline int64_t lone_nondigit_at(const char *m, int64_t len)
{
    uint32_t lo =
        num_digit_bits(_mm_loadu_si128((const __m128i *)(const void *)m));
    uint32_t hi = num_digit_bits(
        _mm_loadl_epi64((const __m128i *)(const void *)(m + 16)));
    uint32_t bad = ~(lo | hi << 16) & ((UINT32_C(1) << len) - 1);
    if (bad & (bad - 1))
        return -1;
    return bad ? NUM_CTZ64(bad) : len;
}
#else
/* Where the one byte among the first len of v0 v1 v2 that is no digit
 * lies, len if none; -1 if there are more. */
static inline int64_t lone_nondigit(uint64_t v0, uint64_t v1, uint64_t v2,
                                    int64_t len)
{
    uint64_t m0 = num_nondigits(v0) & num_first_bytes(len);
    uint64_t m1 = num_nondigits(v1) & num_first_bytes(len - 8);
    uint64_t m2 = num_nondigits(v2) & num_first_bytes(len - 16);
    if ((m0 & (m0 - 1)) | (m1 & (m1 - 1)) | (m2 & (m2 - 1)) ||
        (m0 != 0) + (m1 != 0) + (m2 != 0) > 1)
        return -1;
    return m0 ? NUM_CTZ64(m0) >> 3
           : m1 ? 8 + (NUM_CTZ64(m1) >> 3)
           : m2 ? 16 + (NUM_CTZ64(m2) >> 3)
                : len;
}
#endif

/* Texts of 9 to 24 bytes after the sign that are digits with at most one
 * point inside them, no exponent, no separator: what "%.17g" prints for a
 * measurement, and long integers. The core's scan reads them a digit at a
 * time past its 8-byte steps and rescans those with leading zeros past 19
 * digits; here the 24 bytes after the sign are three words (a field of 9
 * or more has them, with NUM_PAD), the point is taken out by moving the
 * bytes after it down one, and at most NUM_KEEP_DIGITS significant digits
 * make w exactly, with q = -(digits after the point). Then what the core's
 * num_convert does for such a w and q: Clinger's one operation, else
 * Eisel-Lemire (Lemire 2021, cited above), whose open cases go back to the
 * core. The integer correction: 0 for a value that is not integral (the
 * core's num_int_corr), w - x for an integer; an integral value with a
 * point goes to the core. False: the core must read it. */
static bool long_plain(const char *s, size_t n, char point, double *out,
                       int32_t *corr)
{
    bool neg = s[0] == '-';
    const char *m = s + neg;
    int64_t len = (int64_t)n - neg;
    uint64_t v0 = num_load8(m), v1 = num_load8(m + 8), v2 = num_load8(m + 16);
#if defined(__SSE2__)
    int64_t at = lone_nondigit_at(m, len);
#else
    int64_t at = lone_nondigit(v0, v1, v2, len);
#endif
    bool has_point = at < len;
    if (!NUM_CLINGER || at < 0 ||
        (has_point && (at == 0 || at == len - 1 || m[at] != point)))
        return false;
    /* the point taken out: the bytes past it move down one */
    uint64_t k0 = low_bytes(at), k1 = low_bytes(at - 8),
             k2 = low_bytes(at - 16);
    uint64_t t0 = (v0 & k0) | (((v0 >> 8) | (v1 << 56)) & ~k0);
    uint64_t t1 = (v1 & k1) | (((v1 >> 8) | (v2 << 56)) & ~k1);
    uint64_t t2 = (v2 & k2) | ((v2 >> 8) & ~k2);
    uint64_t w, bits;
    if (!long_digits(t0, t1, t2, len - has_point, &w) || w == 0)
        return false;
    int64_t frac = has_point ? len - at - 1 : 0;
    double x;
    *corr = 0;
    if (frac == 0 && w < (UINT64_C(1) << 53)) {
        x = (double)(int64_t)w; /* its own double */
    } else if (frac == 0) {
        x = (double)w; /* rounded to nearest, as by Eisel-Lemire */
        int64_t diff = (int64_t)(w - (uint64_t)x);
        *corr = (int32_t)(neg ? -diff : diff);
    } else {
        if (w <= (UINT64_C(1) << 53) && frac <= 22)
            x = (double)(int64_t)w / num_pow10[frac];
        else if (num_eisel_lemire(w, -frac, &bits))
            x = num_from_bits(bits, false);
        else
            return false;
        if (num_int_double(x))
            return false;
    }
    *out = neg ? -x : x;
    return true;
}

/* Whether the 8 bytes after the sign are digits: at most 16 bytes of
 * them are mostly an integer, which the core reads faster (12 against 16
 * ns a field for 9 digits). */
static inline bool long_integer(const char *s)
{
    return num_nondigits(num_load8(s + (s[0] == '-'))) == 0;
}

static const num_format c_format = {.decimal = '.'};

/* parse_number_padded past its first test (f not NULL). */
static inline num_kind padded_past_short(const char *s, size_t n,
                                         const num_format *f, bool plain,
                                         double *out, int32_t *corr)
{
    size_t len = n - (s[0] == '-');
    /* with an exponent: 8 mantissa bytes, 'e', a sign, 3 digits at most;
       not where 'e' separates thousands (the API allows it) */
    if (plain && len - 3 < 11 && num_short8_exp_plain(f->thousands) &&
        short8_exp(s, n, f->decimal, out)) {
        *corr = 0;
        return NUM_OK;
    }
    /* 9 to 24 bytes after the sign: digits and a point */
    if (plain && len - 9 < 16 && (len > 16 || !long_integer(s)) &&
        long_plain(s, n, f->decimal, out, corr))
        return NUM_OK;
    return parse_number_fmt(s, n, f, out, corr);
}

num_kind parse_number_padded(const char *s, size_t n, const num_format *f,
                             double *out, int32_t *corr)
{
    if (!f)
        f = &c_format;
    bool plain = num_short8_plain(f->decimal, f->thousands, f->nnull);
    if (plain && num_short_padded(s, n, f->decimal, out)) {
        *corr = 0;
        return NUM_OK;
    }
    return padded_past_short(s, n, f, plain, out, corr);
}

num_kind parse_number_padded_wide(const char *s, size_t n, const num_format *f,
                                  double *out, int32_t *corr)
{
    if (!f)
        f = &c_format;
    bool plain = num_short8_plain(f->decimal, f->thousands, f->nnull);
    return padded_past_short(s, n, f, plain, out, corr);
}
