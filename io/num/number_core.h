/* The exact decimal-to-double core of io/num/parse_number.c, shared with the
 * device (gpu/parse_field.cuh) so that host and GPU cannot drift apart: the
 * two compile this one text. Everything is pure and table-driven; the only
 * step left out is the strtod fallback, which needs the C library: the core
 * reports NUM_HARD instead and leaves the scanned number in a num_decimal.
 *
 * Header-only, C11 and CUDA C++. An includer may define, before including:
 *   NUM_FN       qualifiers of every function (default static inline; the
 *                device: static __device__ __forceinline__)
 *   NUM_RARE_FN  those of rare paths kept out of line, so that the common
 *                ones stay lean (default static, noinline with GNU C; the
 *                device: static __device__ __noinline__)
 *   NUM_TABLE    storage of the constant tables (default static const; the
 *                device: static __device__ const, global memory, because
 *                the lanes of a warp index them at unrelated places and
 *                constant memory would serialize those reads)
 *   NUM_LOAD(p)  a load from those tables (default *(p); the device: __ldg)
 * Intrinsics, the 128-bit product and unaligned loads follow __CUDA_ARCH__.
 * The algorithms: Clinger 1990 and Lemire 2021, cited where they live. */
#ifndef COLSTAT_IO_NUM_NUMBER_CORE_H
#define COLSTAT_IO_NUM_NUMBER_CORE_H

#include "io/num/parse_number.h"

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef NUM_FN
#define NUM_FN static inline
#endif
#ifndef NUM_RARE_FN
#if defined(__GNUC__)
#define NUM_RARE_FN static __attribute__((noinline))
#else
#define NUM_RARE_FN static
#endif
#endif
#ifndef NUM_TABLE
#define NUM_TABLE static const
#endif
#ifndef NUM_LOAD
#define NUM_LOAD(p) (*(p))
#endif
#ifndef POW5_STORAGE
#define POW5_STORAGE NUM_TABLE
#endif

#include "io/num/pow5_table.h"

/* Beyond num_kind: only the host's strtod fallback can round this one. */
#define NUM_HARD 4

/* Significant digits kept exactly: 10^19 - 1 < 2^64. */
#define NUM_KEEP_DIGITS 19
/* Exponent text saturates here; any such value is far outside the range. */
#define NUM_EXP_CAP 100000000

/* w * 10^q, w the first NUM_KEEP_DIGITS significant digits. */
typedef struct num_decimal {
    uint64_t w;
    int64_t q;
    bool truncated; /* a nonzero digit was dropped */
    bool neg;
    /* digits, the point and thousands separators, for the slow paths */
    const char *mant_begin, *mant_end;
    char point, sep; /* the format's decimal and thousands separators */
    int64_t exp10;   /* the exponent as written */
} num_decimal;

#ifdef __CUDA_ARCH__
#define NUM_CLZ64(x) __clzll((long long)(x))
#define NUM_CTZ64(x) (__ffsll((long long)(x)) - 1)
#define NUM_SWAR 1 /* every CUDA device is little-endian */
#else
#define NUM_CLZ64(x) __builtin_clzll(x)
#define NUM_CTZ64(x) __builtin_ctzll(x)
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NUM_SWAR 1
#else
#define NUM_SWAR 0
#endif
#endif
/* Host and device: integers up to 2^64 and their products by 10^19. */
__extension__ typedef unsigned __int128 num_u128;

/* Extended-precision intermediates would round Clinger's one operation
 * twice; CUDA's double arithmetic rounds once. */
#if defined(__CUDA_ARCH__) || (defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0)
#define NUM_CLINGER 1
#else
#define NUM_CLINGER 0
#endif

/* File scope: CUDA allows no static arrays inside device functions. */
NUM_TABLE double num_pow10[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

NUM_FN bool num_is_blank(char c)
{
    return c == ' ' || c == '\t';
}

NUM_FN bool num_is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

NUM_FN char num_lower(char c)
{
    return (char)(c | 0x20);
}

/* Case-insensitive equality of [s, e) with a lowercase word. */
NUM_FN bool num_word_is(const char *s, const char *e, const char *word)
{
    for (; *word; s++, word++)
        if (s == e || num_lower(*s) != *word)
            return false;
    return s == e;
}

NUM_FN double num_from_bits(uint64_t bits, bool neg)
{
    bits |= (uint64_t)neg << 63;
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)bits);
#else
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
#endif
}

/* Eight bytes at p, first in the low byte. The text is not aligned.
 * NUM_PADDED_TEXT (device): every text lies in a buffer with 8 readable
 * bytes past it, so two aligned loads replace eight byte loads. */
NUM_FN uint64_t num_load8(const char *p)
{
    uint64_t v;
#if defined(__CUDA_ARCH__) && defined(NUM_PADDED_TEXT)
    const uint64_t *w = (const uint64_t *)((size_t)p & ~(size_t)7);
    unsigned sh = 8 * (unsigned)((size_t)p & 7);
    v = sh ? w[0] >> sh | w[1] << (64 - sh) : w[0];
#elif defined(__CUDA_ARCH__)
    v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | (unsigned char)p[i];
#else
    memcpy(&v, p, sizeof v);
#endif
    return v;
}

/* a * b: the low word returned, the high one in *hi. */
NUM_FN uint64_t num_mul64(uint64_t a, uint64_t b, uint64_t *hi)
{
#ifdef __CUDA_ARCH__
    *hi = __umul64hi(a, b);
    return a * b;
#else
    num_u128 p = (num_u128)a * b;
    *hi = (uint64_t)(p >> 64);
    return (uint64_t)p;
#endif
}

/* Eight ASCII bytes, first in the low byte: all digits? */
NUM_FN bool num_eight_digits(uint64_t v)
{
    uint64_t hi_nibbles = v & UINT64_C(0xf0f0f0f0f0f0f0f0);
    uint64_t carry =
        (v + UINT64_C(0x0606060606060606)) & UINT64_C(0xf0f0f0f0f0f0f0f0);
    return hi_nibbles == UINT64_C(0x3030303030303030) &&
           carry == UINT64_C(0x3030303030303030);
}

/* Their value: pairs, then quads, then the whole, each step one multiply
 * per lane width, so the digits do not form a chain of eight. */
NUM_FN uint64_t num_eight_value(uint64_t v)
{
    v -= UINT64_C(0x3030303030303030);
    v = (v & UINT64_C(0x00ff00ff00ff00ff)) * 10 +
        ((v >> 8) & UINT64_C(0x00ff00ff00ff00ff));
    v = (v & UINT64_C(0x0000ffff0000ffff)) * 100 +
        ((v >> 16) & UINT64_C(0x0000ffff0000ffff));
    return (v & UINT64_C(0xffffffff)) * 10000 + (v >> 32);
}

#define NUM_BYTES(c) (UINT64_C(0x0101010101010101) * (c))

/* 0x80 in each byte of v that is no ASCII digit, without a carry or a
 * borrow between bytes (so every byte's answer is exact). */
NUM_FN uint64_t num_nondigits(uint64_t v)
{
    uint64_t x = v ^ NUM_BYTES(0x30); /* a digit: 0 to 9 */
    uint64_t bad =
        (x & NUM_BYTES(0xf0)) |
        (((x & NUM_BYTES(0x0f)) + NUM_BYTES(0x06)) & NUM_BYTES(0x10));
    return (((bad & NUM_BYTES(0x7f)) + NUM_BYTES(0x7f)) | bad) &
           NUM_BYTES(0x80);
}

/* The high bits of a word's first k bytes (k may pass 8 or be below 0). */
NUM_FN uint64_t num_first_bytes(int64_t k)
{
    return k >= 8   ? NUM_BYTES(0x80)
           : k <= 0 ? 0
                    : NUM_BYTES(0x80) >> (64 - 8 * k);
}

/* The commonest spellings, [-]digits[point digits] in at most 8 bytes
 * after the sign, from the 8 bytes v after the sign (len of them the
 * field's) and without a branch on the shape (field lengths vary from row
 * to row, and mispredicted branches were most of a parse): at most 8
 * digits, so the core would find w < 2^53 and q in [-7, 0], round by
 * Clinger's one operation (x / 10^0 is x * 10^0), and give a correction
 * of 0 (num_int_corr's first test). The digits are read as in Lemire,
 * "Number Parsing at a Gigabyte per Second", Software: Practice and
 * Experience 51(8), 2021. False: the core must read it. num_short8_digits
 * gives the digits as the integer *w and how many of them follow the
 * point (*frac); num_short8 the value, w / 10^frac. */
NUM_FN bool num_short8_digits(uint64_t v, uint64_t len, char point, uint64_t *w,
                              unsigned *frac)
{
    uint64_t m = num_nondigits(v) & num_first_bytes((int64_t)len);
    unsigned k = m ? (unsigned)NUM_CTZ64(m) >> 3 : (unsigned)len;
    bool has_point = m != 0;
    unsigned nd = (unsigned)len - has_point; /* digits */
    if (!NUM_CLINGER || len - 1 >= 8 || (m & (m - 1)) || nd == 0 ||
        (has_point && (char)(v >> (8 * k)) != point))
        return false;
    /* the point taken out: the bytes past it move down one */
    uint64_t below = k < 8 ? (UINT64_C(1) << (8 * k)) - 1 : ~UINT64_C(0);
    uint64_t d = (v & below) | ((v >> 8) & ~below);
    /* the nd digits to the top bytes, '0's in front */
    uint64_t zeros = NUM_BYTES(0x30) >> 1 >> (8 * nd - 1);
    *w = num_eight_value(d << (8 * (8 - nd)) | zeros);
    *frac = (unsigned)len - k - has_point;
    return true;
}

NUM_FN bool num_short8(uint64_t v, uint64_t len, bool neg, char point,
                       double *out)
{
    uint64_t w;
    unsigned frac;
    if (!num_short8_digits(v, len, point, &w, &frac))
        return false;
    double x = (double)w / NUM_LOAD(&num_pow10[frac]);
    *out = neg ? -x : x;
    return true;
}

/* The first 'e' or 'E' among the 9 bytes at m (v: the first 8 of them),
 * or 9: the bytes equal to 'e' once lower-cased, by the zero-byte test of
 * their XOR with "eeeeeeee" (a borrow marks only bytes above the first
 * zero, so the lowest mark is exact). */
NUM_FN unsigned num_exp_mark(uint64_t v, const char *m)
{
    uint64_t x = (v | NUM_BYTES(0x20)) ^ NUM_BYTES('e');
    uint64_t z = (x - NUM_BYTES(0x01)) & ~x & NUM_BYTES(0x80);
    if (z)
        return (unsigned)NUM_CTZ64(z) >> 3;
    return (m[8] | 0x20) == 'e' ? 8 : 9;
}

/* num_short8_exp's last step, w < 2^53 times 10^q: where q is in
 * [-22, 22], 10^|q| is exact and Clinger's one operation rounds
 * correctly, as the core does; the correction is 0 where the value is
 * below 2^53 (exact), past it the core reads it. False: the core must. */
NUM_FN bool num_short8_scale(uint64_t w, int q, bool neg, double *out)
{
    double x;
    if (q >= 0 && q <= 22)
        x = (double)w * NUM_LOAD(&num_pow10[q]);
    else if (q < 0 && q >= -22)
        x = (double)w / NUM_LOAD(&num_pow10[-q]);
    else
        return false;
    if (x >= 9007199254740992.0) /* 2^53 */
        return false;
    *out = neg ? -x : x;
    return true;
}

/* [-]mantissa[eE][+-]digits, as C's %e prints (1.738831e+09), from the
 * bytes [m, end) after the sign (v: the first 8; 9 readable): num_short8's
 * mantissa (at most 8 digits, so w < 2^53) and at most 3 exponent digits.
 * Where q, the exponent less the digits after the point, is in [-22, 22],
 * 10^|q| is exact and Clinger's one operation rounds correctly, as the
 * core does for these; the correction is 0 where the value is below 2^53
 * (exact), past it the core reads it. False: the core must read it. */
NUM_FN bool num_short8_exp(uint64_t v, const char *m, const char *end, bool neg,
                           char point, double *out)
{
    unsigned k = num_exp_mark(v, m);
    if (k == 0 || k > 8 || m + k >= end)
        return false;
    const char *p = m + k + 1;
    bool eneg = p < end && *p == '-';
    p += p < end && (*p == '-' || *p == '+');
    if (p == end || end - p > 3)
        return false;
    int ex = 0;
    for (; p < end; p++) {
        unsigned d = (unsigned)(unsigned char)*p - '0';
        if (d > 9)
            return false;
        ex = ex * 10 + (int)d;
    }
    uint64_t w;
    unsigned frac;
    if (!num_short8_digits(v, k, point, &w, &frac))
        return false;
    return num_short8_scale(w, (eneg ? -ex : ex) - (int)frac, neg, out);
}

/* Whether num_short8_exp may read fields of a format whose thousands
 * separator is t: not 'e' (the API allows it). */
NUM_FN bool num_short8_exp_plain(char t)
{
    return (t | 0x20) != 'e';
}

/* Whether num_short8 may read fields of format f: other points could be
 * letters or signs; a thousands separator equal to the point, or a null
 * spelling, changes what a text means: the core reads those. */
NUM_FN bool num_short8_plain(char decimal, char thousands, int nnull)
{
    return (decimal == '.' || decimal == ',') && thousands != decimal && !nnull;
}

/* Appends the digits at p to *w (wrapping past 19 digits: the caller then
 * rescans). */
NUM_FN const char *num_eat_digits(const char *p, const char *e, uint64_t *w)
{
    uint64_t x = *w;
    if (NUM_SWAR) {
        uint64_t v;
        while (e - p >= 8 && (v = num_load8(p), num_eight_digits(v))) {
            x = x * 100000000 + num_eight_value(v);
            p += 8;
        }
    }
    for (; p < e && num_is_digit(*p); p++)
        x = x * 10 + (uint64_t)(*p - '0');
    *w = x;
    return p;
}

/* The slow scan of a mantissa with more than NUM_KEEP_DIGITS digits: leading
 * zeros only move the point, the first NUM_KEEP_DIGITS significant digits go
 * into w, later ones move the point or set truncated; separators are
 * skipped. */
NUM_FN void num_rescan(num_decimal *d)
{
    int kept = 0;
    bool fraction = false;
    d->w = 0;
    d->q = d->exp10;
    for (const char *p = d->mant_begin; p < d->mant_end; p++) {
        if (*p == d->point) {
            fraction = true;
            continue;
        }
        if (!num_is_digit(*p))
            continue; /* a thousands separator */
        unsigned digit = (unsigned)(*p - '0');
        if (kept < NUM_KEEP_DIGITS) {
            d->w = d->w * 10 + digit;
            kept += d->w != 0;
            d->q -= fraction;
        } else {
            d->q += !fraction;
            d->truncated = d->truncated || digit != 0;
        }
    }
}

/* [eE][+-]?digits, or nothing. Returns NULL when malformed. */
NUM_FN const char *num_scan_exponent(const char *p, const char *e,
                                     num_decimal *d)
{
    d->exp10 = 0;
    if (p == e || num_lower(*p) != 'e')
        return p;
    p++;
    bool neg = p < e && *p == '-';
    if (p < e && (*p == '-' || *p == '+'))
        p++;
    if (p == e || !num_is_digit(*p))
        return NULL;
    int64_t x = 0;
    for (; p < e && num_is_digit(*p); p++)
        if (x < NUM_EXP_CAP)
            x = x * 10 + (*p - '0');
    d->exp10 = neg ? -x : x;
    return p;
}

/* The digit groups of an integer part after its first group, which ends
 * at q on a thousands separator: a separator counts only between two
 * digits. Rare (only with a separator): out of line. */
NUM_RARE_FN const char *num_eat_groups(const char *q, const char *e, char sep,
                                       uint64_t *w, ptrdiff_t *ndigits)
{
    while (e - q >= 2 && *q == sep && num_is_digit(q[1])) {
        const char *g = q + 1;
        q = num_eat_digits(g, e, w);
        *ndigits += q - g;
    }
    return q;
}

/* Parses the blank-trimmed, sign-stripped text [p, e) into d, numbers
 * written as f says. */
NUM_FN num_kind num_scan_number(const char *p, const char *e, num_decimal *d,
                                const num_format *f)
{
    uint64_t w = 0;
    d->mant_begin = p;
    d->point = f->decimal;
    d->sep = f->thousands;
    const char *q = num_eat_digits(p, e, &w);
    ptrdiff_t ndigits = q - p, nfrac = 0;
    /* a NUL byte in the text must not pass for "no separator" */
    if (q < e && *q == f->thousands && f->thousands && ndigits)
        q = num_eat_groups(q, e, f->thousands, &w, &ndigits);
    if (q < e && *q == f->decimal) {
        const char *f = q + 1;
        q = num_eat_digits(f, e, &w);
        nfrac = q - f;
        ndigits += nfrac;
    }
    if (ndigits == 0)
        return NUM_INVALID;
    d->mant_end = q;
    q = num_scan_exponent(q, e, d);
    if (q != e)
        return NUM_INVALID;
    d->w = w;
    d->q = d->exp10 - nfrac;
    if (ndigits > NUM_KEEP_DIGITS)
        num_rescan(d);
    return NUM_OK;
}

/* Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990: when w
 * and 10^|q| are exact doubles, one IEEE operation rounds correctly. */
NUM_FN bool num_clinger(uint64_t w, int64_t q, double *out)
{
    if (!NUM_CLINGER || w > (UINT64_C(1) << 53) || q < -22 || q > 22)
        return false;
    double x = (double)w;
    *out = q < 0 ? x / NUM_LOAD(&num_pow10[-q]) : x * NUM_LOAD(&num_pow10[q]);
    return true;
}

/* w times the 128-bit table entry {hi, lo}: 192 bits, p[2] the top word. */
NUM_FN void num_mul_64x128(uint64_t w, uint64_t hi, uint64_t lo, uint64_t p[3])
{
    uint64_t lo_hi, hi_hi;
    p[0] = num_mul64(w, lo, &lo_hi);
    uint64_t hi_lo = num_mul64(w, hi, &hi_hi);
    p[1] = hi_lo + lo_hi;
    p[2] = hi_hi + (p[1] < lo_hi);
}

/* Whether the table's error could move the true value across a rounding
 * boundary. The product p is exact for 0 <= q <= POW5_EXACT_Q_MAX; otherwise
 * the true value lies in (p, p + 2^64) for q > 0 and in (p - 2^64, p) for
 * q < 0, so only all-ones (resp. all-zeros) bits between the round bit and
 * bit 64 leave room for a halfway point inside that interval. */
NUM_FN bool num_ambiguous(int64_t q, const uint64_t p[3], int round_pos,
                          bool round_bit)
{
    uint64_t mask = (UINT64_C(1) << (round_pos - 128)) - 1;
    if (q > POW5_EXACT_Q_MAX)
        return !round_bit && (p[2] & mask) == mask && p[1] == UINT64_MAX;
    if (q < 0)
        return round_bit && (p[2] & mask) == 0 && (p[1] >> 1) == 0;
    return false;
}

/* IEEE bits of a significand (implicit bit included) and exponent, after
 * rounding carried it to 2^53 or past the largest finite double. */
NUM_FN uint64_t num_pack_normal(uint64_t mant, int64_t e)
{
    if (mant >> 53) {
        mant >>= 1;
        e++;
    }
    if (e > 1023)
        return UINT64_C(0x7ff0000000000000);
    return ((uint64_t)(e + 1023) << 52) | (mant & ((UINT64_C(1) << 52) - 1));
}

/* Rounds the 192-bit product p, leading bit 'top', worth 2^e at that bit,
 * to nearest even. False when the table's error leaves the rounding open. */
NUM_FN bool num_round_product(const uint64_t p[3], int top, int64_t e,
                              int64_t q, uint64_t *bits)
{
    int64_t sub = e < -1022 ? -1022 - e : 0; /* bits lost to subnormality */
    int64_t unit = top - 52 + sub;           /* weight of the last kept bit */
    if (unit > top + 1) {
        *bits = 0; /* below half the smallest subnormal */
        return true;
    }
    int round_pos = (int)unit - 1;
    bool round_bit = (p[2] >> (round_pos - 128)) & 1;
    if (num_ambiguous(q, p, round_pos, round_bit))
        return false;
    uint64_t below = p[2] & ((UINT64_C(1) << (round_pos - 128)) - 1);
    bool exact = q >= 0 && q <= POW5_EXACT_Q_MAX;
    bool sticky = !exact || below || p[1] || p[0];
    uint64_t mant = unit - 128 < 64 ? p[2] >> (unit - 128) : 0;
    mant += round_bit && (sticky || (mant & 1));
    /* a subnormal's bits are its significand; 2^52 is the smallest normal */
    *bits = sub ? mant : num_pack_normal(mant, e);
    return true;
}

/* Eisel-Lemire (D. Lemire, "Number Parsing at a Gigabyte per Second",
 * Software: Practice and Experience 51(8), 2021): w * 10^q as w * 5^q from a
 * 128-bit table times 2^q, rounded by hand. Returns false when the table's
 * error could change the rounding (caller falls back). w != 0. Result bits in
 * *bits, sign not applied. */
NUM_FN bool num_eisel_lemire(uint64_t w, int64_t q, uint64_t *bits)
{
    if (q < POW5_Q_MIN) {
        *bits = 0;
        return true;
    }
    if (q > POW5_Q_MAX) {
        *bits = UINT64_C(0x7ff0000000000000);
        return true;
    }
    const struct pow5_entry *m = &pow5_table[q - POW5_Q_MIN];
    int lz = NUM_CLZ64(w);
    uint64_t p[3];
    num_mul_64x128(w << lz, NUM_LOAD(&m->hi), NUM_LOAD(&m->lo), p);
    int top = p[2] >> 63 ? 191 : 190;
    /* value = p * 2^(e2 + q - lz) */
    return num_round_product(p, top, top + NUM_LOAD(&m->e2) + q - lz, q, bits);
}

/* The nearest double to d, when the fast paths can decide it. */
NUM_FN bool num_convert(const num_decimal *d, double *out)
{
    double x;
    uint64_t lo, hi;
    if (d->w == 0) {
        *out = num_from_bits(0, d->neg);
        return true;
    }
    if (!d->truncated) {
        if (num_clinger(d->w, d->q, &x)) {
            *out = d->neg ? -x : x;
            return true;
        }
        if (num_eisel_lemire(d->w, d->q, &lo)) {
            *out = num_from_bits(lo, d->neg);
            return true;
        }
    } else if (num_eisel_lemire(d->w, d->q, &lo) &&
               num_eisel_lemire(d->w + 1, d->q, &hi) && lo == hi) {
        /* the dropped digits put the value strictly between the two */
        *out = num_from_bits(lo, d->neg);
        return true;
    }
    return false;
}

/* "nan", "inf" or "infinity", any case. */
NUM_FN num_kind num_special(const char *s, const char *e, bool neg, double *out)
{
    if (num_word_is(s, e, "nan"))
        return NUM_NAN;
    if (num_word_is(s, e, "inf") || num_word_is(s, e, "infinity")) {
        *out = num_from_bits(UINT64_C(0x7ff0000000000000), neg);
        return NUM_OK;
    }
    return NUM_INVALID;
}

/* Whether the blank-trimmed [s, e) is one of f's null spellings; only
 * called when f has some. The length mask turns most numbers away before
 * any comparison. */
NUM_FN bool num_is_null(const num_format *f, const char *s, const char *e)
{
    ptrdiff_t n = e - s;
    if (n > NUM_NULL_LEN || !((f->null_lens >> n) & 1))
        return false;
    for (int i = 0; i < f->nnull; i++) {
        if (f->null_len[i] != n)
            continue;
        const char *t = f->null_text + f->null_at[i];
        ptrdiff_t k = 0;
        while (k < n && s[k] == t[k])
            k++;
        if (k == n)
            return true;
    }
    return false;
}

/* parse_number on [s, e) with numbers written as f says, short of its
 * strtod fallback: returns a num_kind (*out set for NUM_OK), or NUM_HARD
 * with d holding the scanned number for that fallback (d->neg its sign). */
NUM_FN int num_parse_core(const char *s, const char *e, const num_format *f,
                          double *out, num_decimal *d)
{
    while (s < e && num_is_blank(*s))
        s++;
    while (e > s && num_is_blank(e[-1]))
        e--;
    if (s == e || (f->nnull && num_is_null(f, s, e)))
        return NUM_MISSING;
    d->truncated = false;
    d->neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (s < e && num_lower(*s) >= 'a' && num_lower(*s) <= 'z') {
        d->w = 0; /* no digits: no correction (num_int_corr) */
        d->q = 0;
        return num_special(s, e, d->neg, out);
    }
    if (num_scan_number(s, e, d, f) != NUM_OK)
        return NUM_INVALID;
    return num_convert(d, out) ? NUM_OK : NUM_HARD;
}

/* The integer view (parse_number.h, parse_number_corr): a text that spells
 * an integer v, |v| <= 2^64, keeps v exactly as its double x plus the
 * correction v - x, which correct rounding bounds by half the spacing of
 * doubles below 2^64 (1024). */

/* 10^0 .. 10^19: every power of ten below 2^64. */
NUM_TABLE uint64_t num_pow10_u64[20] = {UINT64_C(1),
                                        UINT64_C(10),
                                        UINT64_C(100),
                                        UINT64_C(1000),
                                        UINT64_C(10000),
                                        UINT64_C(100000),
                                        UINT64_C(1000000),
                                        UINT64_C(10000000),
                                        UINT64_C(100000000),
                                        UINT64_C(1000000000),
                                        UINT64_C(10000000000),
                                        UINT64_C(100000000000),
                                        UINT64_C(1000000000000),
                                        UINT64_C(10000000000000),
                                        UINT64_C(100000000000000),
                                        UINT64_C(1000000000000000),
                                        UINT64_C(10000000000000000),
                                        UINT64_C(100000000000000000),
                                        UINT64_C(1000000000000000000),
                                        UINT64_C(10000000000000000000)};

#define NUM_INT_LIMIT ((num_u128)1 << 64)

/* a >= 0 (or NaN): an integral double of magnitude at most 2^64? Below
 * 2^52, adding and subtracting 2^52 rounds a to an integer; above it every
 * double is one. The reducers test values the same way (src/stats). */
NUM_FN bool num_int_double(double a)
{
    return a <= 0x1p64 && (a >= 0x1p52 || (a + 0x1p52) - 0x1p52 == a);
}

/* w * 10^q as *v when it is an integer of magnitude at most 2^64 (w and q
 * of a mantissa kept whole: no nonzero digit dropped). */
NUM_FN bool num_kept_integer(uint64_t w, int64_t q, num_u128 *v)
{
    *v = 0;
    if (w == 0)
        return true;
    if (q >= 0) {
        if (q > 19)
            return false;
        *v = (num_u128)w * NUM_LOAD(&num_pow10_u64[q]);
        return *v <= NUM_INT_LIMIT;
    }
    if (q < -19) /* w < 10^19 <= 10^-q */
        return false;
    uint64_t p = NUM_LOAD(&num_pow10_u64[-q]);
    *v = w / p;
    return w % p == 0;
}

/* The same from the whole text, digit by digit: the slow case of a mantissa
 * longer than NUM_KEEP_DIGITS whose dropped digits are not all zero.
 * Thousands separators are skipped. */
NUM_FN bool num_text_integer(const num_decimal *d, num_u128 *v)
{
    bool point = false;
    int64_t nfrac = 0, left = 0;
    for (const char *p = d->mant_begin; p < d->mant_end; p++) {
        bool digit = num_is_digit(*p);
        nfrac += point && digit;
        left += digit;
        point = point || *p == d->point;
    }
    /* e: the exponent of the last digit; left: digits from here on */
    int64_t e = d->exp10 - nfrac;
    num_u128 x = 0;
    for (const char *p = d->mant_begin; p < d->mant_end; p++) {
        if (!num_is_digit(*p))
            continue;
        unsigned digit = (unsigned)(*p - '0');
        if (e + --left < 0) { /* a digit of the fraction */
            if (digit)
                return false;
            continue;
        }
        x = x * 10 + digit;
        if (x > NUM_INT_LIMIT)
            return false;
    }
    if (e > 0 && x != 0) {
        if (e > 20)
            return false;
        for (int64_t k = 0; k < e; k++)
            if ((x *= 10) > NUM_INT_LIMIT)
                return false;
    }
    *v = x;
    return true;
}

/* num_int_corr for an integral x, a = |x| <= 2^64. */
NUM_RARE_FN int32_t num_int_corr_exact(const num_decimal *d, double a)
{
    /* an integer below 2^53 is its own double */
    if (a < 0x1p53 && !d->truncated && d->q >= 0)
        return 0;
    num_u128 v;
    bool ok = d->truncated ? num_text_integer(d, &v)
                           : num_kept_integer(d->w, d->q, &v);
    if (!ok)
        return CORR_NOT_INT;
    num_u128 ax = a == 0x1p64 ? NUM_INT_LIMIT : (num_u128)(uint64_t)a;
    int64_t diff = (int64_t)(uint64_t)(v - ax);
    return (int32_t)(d->neg ? -diff : diff);
}

/* The correction of x, the correctly rounded value of the number scanned
 * into d: v - x when the text is an integer v, |v| <= 2^64; CORR_NOT_INT
 * when x is an integral double of at most 2^64 but the text no such
 * integer; 0 when x itself is not integral or beyond 2^64. */
NUM_FN int32_t num_int_corr(const num_decimal *d, double x)
{
    /* The common texts, decided before x is known, without a branch on
     * each test: a mantissa kept whole below 2^52 with no exponent left
     * (q = 0) is an integer that is its own double; with a fraction (q in
     * [-300, -1]: no underflow) it spells no integer and rounds to no
     * integral double, as its distance to the integers, 10^q or more,
     * exceeds half an ulp. */
    if (!d->truncated & (d->w < (UINT64_C(1) << 52)) &
        ((uint64_t)(d->q + 300) <= 300))
        return 0;
    double a = x < 0 ? -x : x;
    return num_int_double(a) ? num_int_corr_exact(d, a) : 0;
}

#endif
