/* Decimal text to the nearest double. Three stages, cheapest first:
 * Clinger's exact fast path, the Eisel-Lemire 128-bit product, and strtod for
 * the rare inputs neither can decide. The core (scan_number, clinger,
 * eisel_lemire) is pure and table-driven so that it can run as a device
 * function. */
#include "parse_number.h"

#include "pow5_table.h"

#include <errno.h>
#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* Significant digits kept exactly: 10^19 - 1 < 2^64. */
#define KEEP_DIGITS 19
/* Exponent text saturates here; any such value is far outside the range. */
#define EXP_CAP 100000000
/* Halfway points between doubles have at most 767 significant digits, so
 * digits past this many only matter as "something nonzero follows". */
#define FALLBACK_DIGITS 800

/* w * 10^q, w the first KEEP_DIGITS significant digits. */
typedef struct decimal {
    uint64_t w;
    int64_t q;
    bool truncated; /* a nonzero digit was dropped */
    bool neg;
    const char *mant_begin, *mant_end; /* digits and '.', for the fallback */
    int64_t exp10;                     /* the exponent as written */
} decimal;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

static char lower(char c)
{
    return (char)(c | 0x20);
}

/* Case-insensitive equality of [s, e) with a lowercase word. */
static bool word_is(const char *s, const char *e, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(e - s) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower(s[i]) != word[i])
            return false;
    return true;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR_DIGITS 1
#else
#define SWAR_DIGITS 0
#endif

/* Eight ASCII bytes, first in the low byte: all digits? */
static bool eight_digits(uint64_t v)
{
    uint64_t hi_nibbles = v & UINT64_C(0xf0f0f0f0f0f0f0f0);
    uint64_t carry =
        (v + UINT64_C(0x0606060606060606)) & UINT64_C(0xf0f0f0f0f0f0f0f0);
    return hi_nibbles == UINT64_C(0x3030303030303030) &&
           carry == UINT64_C(0x3030303030303030);
}

/* Their value: pairs, then quads, then the whole, each step one multiply
 * per lane width, so the digits do not form a chain of eight. */
static uint64_t eight_value(uint64_t v)
{
    v -= UINT64_C(0x3030303030303030);
    v = (v & UINT64_C(0x00ff00ff00ff00ff)) * 10 +
        ((v >> 8) & UINT64_C(0x00ff00ff00ff00ff));
    v = (v & UINT64_C(0x0000ffff0000ffff)) * 100 +
        ((v >> 16) & UINT64_C(0x0000ffff0000ffff));
    return (v & UINT64_C(0xffffffff)) * 10000 + (v >> 32);
}

/* Appends the digits at p to *w (wrapping past 19 digits: the caller then
 * rescans). */
static inline const char *eat_digits(const char *p, const char *e, uint64_t *w)
{
    uint64_t x = *w;
    if (SWAR_DIGITS) {
        uint64_t v;
        while (e - p >= 8 && (memcpy(&v, p, 8), eight_digits(v))) {
            x = x * 100000000 + eight_value(v);
            p += 8;
        }
    }
    for (; p < e && is_digit(*p); p++)
        x = x * 10 + (uint64_t)(*p - '0');
    *w = x;
    return p;
}

/* The slow scan of a mantissa with more than KEEP_DIGITS digits: leading
 * zeros only move the point, the first KEEP_DIGITS significant digits go
 * into w, later ones move the point or set truncated. */
static void rescan(decimal *d)
{
    int kept = 0;
    bool fraction = false;
    d->w = 0;
    d->q = d->exp10;
    for (const char *p = d->mant_begin; p < d->mant_end; p++) {
        if (*p == '.') {
            fraction = true;
            continue;
        }
        unsigned digit = (unsigned)(*p - '0');
        if (kept < KEEP_DIGITS) {
            d->w = d->w * 10 + digit;
            kept += d->w != 0;
            d->q -= fraction;
        } else {
            d->q += !fraction;
            d->truncated |= digit != 0;
        }
    }
}

/* [eE][+-]?digits, or nothing. Returns NULL when malformed. */
static const char *scan_exponent(const char *p, const char *e, decimal *d)
{
    d->exp10 = 0;
    if (p == e || lower(*p) != 'e')
        return p;
    p++;
    bool neg = p < e && *p == '-';
    if (p < e && (*p == '-' || *p == '+'))
        p++;
    if (p == e || !is_digit(*p))
        return NULL;
    int64_t x = 0;
    for (; p < e && is_digit(*p); p++)
        if (x < EXP_CAP)
            x = x * 10 + (*p - '0');
    d->exp10 = neg ? -x : x;
    return p;
}

/* Parses the blank-trimmed, sign-stripped text [p, e) into d. */
static num_kind scan_number(const char *p, const char *e, decimal *d)
{
    uint64_t w = 0;
    d->mant_begin = p;
    const char *q = eat_digits(p, e, &w);
    ptrdiff_t ndigits = q - p, nfrac = 0;
    if (q < e && *q == '.') {
        const char *f = q + 1;
        q = eat_digits(f, e, &w);
        nfrac = q - f;
        ndigits += nfrac;
    }
    if (ndigits == 0)
        return NUM_INVALID;
    d->mant_end = q;
    q = scan_exponent(q, e, d);
    if (q != e)
        return NUM_INVALID;
    d->w = w;
    d->q = d->exp10 - nfrac;
    if (ndigits > KEEP_DIGITS)
        rescan(d);
    return NUM_OK;
}

/* Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990: when w
 * and 10^|q| are exact doubles, one IEEE operation rounds correctly. */
static bool clinger(uint64_t w, int64_t q, double *out)
{
    static const double pow10[] = {
        1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#if FLT_EVAL_METHOD != 0
    (void)pow10;
    (void)w;
    (void)q;
    (void)out;
    return false; /* extended intermediates would round twice */
#else
    if (w > (UINT64_C(1) << 53) || q < -22 || q > 22)
        return false;
    double x = (double)w;
    *out = q < 0 ? x / pow10[-q] : x * pow10[q];
    return true;
#endif
}

static void mul_64x128(uint64_t w, const struct pow5_entry *m, uint64_t p[3])
{
    u128 lo = (u128)w * m->lo;
    u128 hi = (u128)w * m->hi;
    u128 mid = (hi & UINT64_MAX) + (uint64_t)(lo >> 64);
    p[0] = (uint64_t)lo;
    p[1] = (uint64_t)mid;
    p[2] = (uint64_t)(hi >> 64) + (uint64_t)(mid >> 64);
}

/* Whether the table's error could move the true value across a rounding
 * boundary. The product p is exact for 0 <= q <= POW5_EXACT_Q_MAX; otherwise
 * the true value lies in (p, p + 2^64) for q > 0 and in (p - 2^64, p) for
 * q < 0, so only all-ones (resp. all-zeros) bits between the round bit and
 * bit 64 leave room for a halfway point inside that interval. */
static bool ambiguous(int64_t q, const uint64_t p[3], int round_pos,
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
static uint64_t pack_normal(uint64_t mant, int64_t e)
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
static bool round_product(const uint64_t p[3], int top, int64_t e, int64_t q,
                          uint64_t *bits)
{
    int64_t sub = e < -1022 ? -1022 - e : 0; /* bits lost to subnormality */
    int64_t unit = top - 52 + sub;           /* weight of the last kept bit */
    if (unit > top + 1) {
        *bits = 0; /* below half the smallest subnormal */
        return true;
    }
    int round_pos = (int)unit - 1;
    bool round_bit = (p[2] >> (round_pos - 128)) & 1;
    if (ambiguous(q, p, round_pos, round_bit))
        return false;
    uint64_t below = p[2] & ((UINT64_C(1) << (round_pos - 128)) - 1);
    bool exact = q >= 0 && q <= POW5_EXACT_Q_MAX;
    bool sticky = !exact || below || p[1] || p[0];
    uint64_t mant = unit - 128 < 64 ? p[2] >> (unit - 128) : 0;
    mant += round_bit && (sticky || (mant & 1));
    /* a subnormal's bits are its significand; 2^52 is the smallest normal */
    *bits = sub ? mant : pack_normal(mant, e);
    return true;
}

/* Eisel-Lemire (D. Lemire, "Number Parsing at a Gigabyte per Second",
 * Software: Practice and Experience 51(8), 2021): w * 10^q as w * 5^q from a
 * 128-bit table times 2^q, rounded by hand. Returns false when the table's
 * error could change the rounding (caller falls back). w != 0. Result bits in
 * *bits, sign not applied. */
static bool eisel_lemire(uint64_t w, int64_t q, uint64_t *bits)
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
    int lz = __builtin_clzll(w);
    uint64_t p[3];
    mul_64x128(w << lz, m, p);
    int top = p[2] >> 63 ? 191 : 190;
    /* value = p * 2^(e2 + q - lz) */
    return round_product(p, top, top + m->e2 + q - lz, q, bits);
}

static char *put_int(char *o, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;
    if (v < 0)
        *o++ = '-';
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        *o++ = tmp[--n];
    return o;
}

/* strtod on a canonical copy: at most FALLBACK_DIGITS significant digits, a
 * trailing '1' standing for any nonzero digits dropped, then the exponent.
 * Fits a stack buffer whatever the input length. */
static double fallback(decimal d)
{
    char buf[FALLBACK_DIGITS + 40];
    char *o = buf;
    int64_t kept = 0, frac = 0;
    bool dropped = false, seen = false, in_frac = false;
    for (const char *p = d.mant_begin; p < d.mant_end; p++) {
        if (*p == '.') {
            in_frac = true;
            continue;
        }
        seen |= *p != '0';
        if (!seen) {
            frac += in_frac; /* leading zeros only scale */
            continue;
        }
        if (kept < FALLBACK_DIGITS) {
            *o++ = *p;
            kept++;
            frac += in_frac;
        } else {
            dropped |= *p != '0';
            frac -= !in_frac;
        }
    }
    if (dropped) {
        *o++ = '1';
        frac++;
    }
    *o++ = 'e';
    o = put_int(o, d.exp10 - frac);
    *o = '\0';
    int saved = errno; /* ERANGE is not news to a caller that sees inf */
    double x = strtod(buf, NULL);
    errno = saved;
    return x;
}

static double from_bits(uint64_t bits, bool neg)
{
    double x;
    bits |= (uint64_t)neg << 63;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static double convert(decimal d)
{
    double x;
    uint64_t lo, hi;
    if (d.w == 0)
        return from_bits(0, d.neg);
    if (!d.truncated) {
        if (clinger(d.w, d.q, &x))
            return d.neg ? -x : x;
        if (eisel_lemire(d.w, d.q, &lo))
            return from_bits(lo, d.neg);
    } else if (eisel_lemire(d.w, d.q, &lo) && eisel_lemire(d.w + 1, d.q, &hi) &&
               lo == hi) {
        /* the dropped digits put the value strictly between the two */
        return from_bits(lo, d.neg);
    }
    x = fallback(d);
    return d.neg ? -x : x;
}

static num_kind special(const char *s, const char *e, bool neg, double *out)
{
    if (word_is(s, e, "nan"))
        return NUM_NAN;
    if (word_is(s, e, "inf") || word_is(s, e, "infinity")) {
        *out = from_bits(UINT64_C(0x7ff0000000000000), neg);
        return NUM_OK;
    }
    return NUM_INVALID;
}

num_kind parse_number(const char *s, size_t n, double *out)
{
    const char *e = s + n;
    while (s < e && is_blank(*s))
        s++;
    while (e > s && is_blank(e[-1]))
        e--;
    if (s == e)
        return NUM_MISSING;
    decimal d = {0};
    d.neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (s < e && lower(*s) >= 'a' && lower(*s) <= 'z')
        return special(s, e, d.neg, out);
    if (scan_number(s, e, &d) != NUM_OK)
        return NUM_INVALID;
    *out = convert(d);
    return NUM_OK;
}
