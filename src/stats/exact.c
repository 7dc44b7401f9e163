/* Superaccumulator after R. M. Neal, "Fast exact summation using small and
 * large superaccumulators", arXiv:1505.05571 (2015): every double is an
 * integer multiple of 2^-1074, so a wide fixed-point integer holds any sum
 * exactly. Digits are 32-bit words kept in int64 so carries can be
 * deferred (see exact.h). Conversions work on a sign-magnitude copy held as
 * little-endian arrays of 32-bit limbs. */
#include "exact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define M32 0xffffffffu
#define FRAC_BITS 2176 /* -SACC_LSB_EXP: limbs 0..67 are the fraction */
#define WIDE 280       /* limbs of a product of two accumulators, plus n */

__extension__ typedef unsigned __int128 u128;

void sacc_init(sacc *a)
{
    memset(a, 0, sizeof *a);
}

static void count_inf(sacc *a, uint64_t bits)
{
    if (bits >> 63)
        a->neg_inf++;
    else
        a->pos_inf++;
}

static void bump_pending(sacc *a)
{
    if (++a->pending >= SACC_MAX_PENDING)
        sacc_normalize(a);
}

/* The bit of the accumulator that bit 0 of the significand of a double
 * with biased exponent bexp lands on: e - SACC_LSB_EXP, where x = m * 2^e
 * (normal: e = bexp - 1075; subnormal: e = -1074). */
static inline int exp_shift(int bexp)
{
    return bexp + (bexp == 0) - 1075 + FRAC_BITS;
}

/* x = m * 2^e with m the integer significand; returns exp_shift. */
static inline int split_double(uint64_t bits, uint64_t *m)
{
    int bexp = (int)((bits >> 52) & 0x7ff);
    uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
    *m = frac | ((uint64_t)(bexp != 0) << 52);
    return exp_shift(bexp);
}

/* The digit updates without the pending check, for the block loop. */
static inline void add_digits(sacc *a, uint64_t bits)
{
    uint64_t m;
    int shift = split_double(bits, &m);
    int i = shift >> 5, r = shift & 31;
    /* sign mask: conditional negation without a branch */
    int64_t neg = -(int64_t)(bits >> 63);
    uint64_t t = m >> (32 - r); /* bits of m << r above the first digit */
    int64_t p0 = (int64_t)((m << r) & M32);
    int64_t p1 = (int64_t)(t & M32);
    int64_t p2 = (int64_t)(t >> 32);
    a->d[i] += (p0 ^ neg) - neg;
    a->d[i + 1] += (p1 ^ neg) - neg;
    a->d[i + 2] += (p2 ^ neg) - neg;
}

/* Adds p < 2^117 placed at bit shift (p << (shift % 32) < 2^149: five
 * digits), negated when neg is -1 (0: added as is). */
static inline void add_wide_digits(sacc *a, u128 p, int shift, int64_t neg)
{
    int i = shift >> 5, r = shift & 31;
    u128 t = p >> (32 - r);
    int64_t v[5] = {
        (int64_t)(((uint64_t)p << r) & M32), (int64_t)((uint64_t)t & M32),
        (int64_t)((uint64_t)(t >> 32) & M32),
        (int64_t)((uint64_t)(t >> 64) & M32), (int64_t)(uint64_t)(t >> 96)};
    for (int k = 0; k < 5; k++)
        a->d[i + k] += (v[k] ^ neg) - neg;
}

static inline void add_square_digits(sacc *a, uint64_t bits)
{
    uint64_t m;
    /* x^2 = m^2 * 2^(2e): shift2 = 2e - LSB = 2*shift + SACC_LSB_EXP */
    int shift = 2 * split_double(bits, &m) - FRAC_BITS;
    add_wide_digits(a, (u128)m * m, shift, 0); /* m*m < 2^106 */
}

static inline int is_inf_bits(uint64_t bits)
{
    return ((bits >> 52) & 0x7ff) == 0x7ff;
}

void sacc_add(sacc *a, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    if (is_inf_bits(bits)) {
        count_inf(a, bits);
        return;
    }
    add_digits(a, bits);
    bump_pending(a);
}

void sacc_add_square(sacc *a, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    if (is_inf_bits(bits)) {
        a->pos_inf++;
        return;
    }
    add_square_digits(a, bits);
    bump_pending(a);
}

/* x * k = (m * |k|) * 2^e with m * |k| < 2^116: one wide addition. */
void sacc_add_product(sacc *a, double x, int64_t k)
{
    uint64_t bits, m;
    memcpy(&bits, &x, sizeof bits);
    uint64_t mag = k < 0 ? 0 - (uint64_t)k : (uint64_t)k;
    uint64_t neg = (bits >> 63) ^ (uint64_t)(k < 0);
    if (is_inf_bits(bits)) {
        if (mag)
            count_inf(a, neg << 63);
        return;
    }
    int shift = split_double(bits, &m);
    add_wide_digits(a, (u128)m * mag, shift, -(int64_t)neg);
    bump_pending(a);
}

/* sacc_add_values' loop. Neal's small superaccumulator (the paper above,
 * section 3) keeps one chunk per exponent; here the significands of a
 * block are summed per biased exponent in int64 buckets, and each bucket
 * that was used goes into the digits once, at the block's end. A value
 * then costs one add to a bucket instead of three to the digits, and
 * consecutive values of a column (mostly of a few exponents) fall in
 * different lanes, so their adds do not wait for each other. Lanes of one
 * exponent share a cache line: lanes 16 KiB apart alias every 4 KiB and
 * stall the loads (measured: a column of 0-9 at 4.3 against 2.1 ns). */
#define LANES 4
#define EXPONENTS 2047 /* biased exponents of finite doubles */
/* 1023 significands a lane: 1023 * (2^53 - 1) < 2^63; their squares,
 * 4092 * 2^106 < 2^118, so add_wide_digits' top digit stays < 2^22 */
#define BLOCK_VALUES (1023 * LANES)

typedef struct buckets {
    int64_t sum[EXPONENTS][LANES];
    u128 sq[EXPONENTS];
} buckets;

/* One set a thread, all zero between calls (each block clears what it
 * used), so a call costs no clearing of the 96 KiB; a caller's column or
 * batch would need one set each. */
static _Thread_local buckets tls_buckets;

/* An infinity or a NaN (the exponent field all ones): NaN is skipped. */
static void add_special(sacc *sum, sacc *sumsq, uint64_t bits)
{
    if (bits & ((UINT64_C(1) << 52) - 1))
        return;
    count_inf(sum, bits);
    if (sumsq)
        sumsq->pos_inf++;
}

/* Moves buckets lo..hi into the digits and clears them. */
static void fold(sacc *sum, sacc *sumsq, buckets *b, int lo, int hi)
{
    for (int e = lo; e <= hi; e++) {
        __extension__ __int128 s = 0;
        for (int l = 0; l < LANES; l++) {
            s += b->sum[e][l];
            b->sum[e][l] = 0;
        }
        if (s != 0) {
            u128 mag = s < 0 ? 0 - (u128)s : (u128)s;
            add_wide_digits(sum, mag, exp_shift(e), s < 0 ? -1 : 0);
            sum->pending++;
        }
        if (sumsq && b->sq[e]) {
            add_wide_digits(sumsq, b->sq[e], 2 * exp_shift(e) - FRAC_BITS, 0);
            b->sq[e] = 0;
            sumsq->pending++;
        }
    }
}

/* Value k of a block into lane k % LANES; lo and hi track the exponents
 * used. */
static inline void bucket_one(sacc *sum, sacc *sumsq, buckets *b, uint64_t bits,
                              int lane, int *lo, int *hi)
{
    int e = (int)((bits >> 52) & 0x7ff);
    if (e == 0x7ff) {
        add_special(sum, sumsq, bits);
        return;
    }
    uint64_t m;
    (void)split_double(bits, &m);
    int64_t neg = -(int64_t)(bits >> 63);
    b->sum[e][lane] += ((int64_t)m ^ neg) - neg;
    if (sumsq)
        b->sq[e] += (u128)m * m;
    *lo = e < *lo ? e : *lo;
    *hi = e > *hi ? e : *hi;
}

/* At most BLOCK_VALUES values; the digits have room for one addition per
 * exponent (the caller normalised them when not). Called with sumsq NULL
 * or not at two sites, so each inlined loop is specialised. */
static inline void add_block(sacc *sum, sacc *sumsq, const double *x, size_t n)
{
    buckets *b = &tls_buckets;
    int lo = EXPONENTS, hi = -1;
    size_t k = 0;
    for (; k + LANES <= n; k += LANES)
        for (int l = 0; l < LANES; l++) {
            uint64_t bits;
            memcpy(&bits, &x[k + (size_t)l], sizeof bits);
            bucket_one(sum, sumsq, b, bits, l, &lo, &hi);
        }
    for (int l = 0; k < n; k++, l++) {
        uint64_t bits;
        memcpy(&bits, &x[k], sizeof bits);
        bucket_one(sum, sumsq, b, bits, l, &lo, &hi);
    }
    if (lo <= hi)
        fold(sum, sumsq, b, lo, hi);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SACC_X86 1

/* add_block without squares, four values (one a lane) a step in AVX2:
 * the exponents, significands and signs of the four at once, then the
 * four adds to their buckets; a step holding an infinity or a NaN goes
 * value by value. The same buckets get the same adds as add_block's: the
 * digits are the same. About a third of its instructions a value (a
 * tenth of a CSV parse thread's, `--sum` of numeric columns). */
__attribute__((target("avx2"))) static void
add_block_avx2(sacc *sum, const double *x, size_t n)
{
    buckets *b = &tls_buckets;
    const __m256i top = _mm256_set1_epi64x(0x7ff),
                  frac = _mm256_set1_epi64x((INT64_C(1) << 52) - 1),
                  implicit = _mm256_set1_epi64x(INT64_C(1) << 52),
                  high = _mm256_set1_epi64x(INT64_C(0x7fffffff) << 32),
                  zero = _mm256_setzero_si256();
    /* lo and hi in the even 32-bit halves; the odd ones stay out of it */
    __m256i vlo = _mm256_set1_epi64x(EXPONENTS | INT64_C(0x7fffffff) << 32);
    __m256i vhi = zero;
    int lo = EXPONENTS, hi = -1;
    size_t k = 0;
    for (; k + LANES <= n; k += LANES) {
        __m256i bits =
            _mm256_loadu_si256((const __m256i *)(const void *)(x + k));
        __m256i e = _mm256_and_si256(_mm256_srli_epi64(bits, 52), top);
        if (!_mm256_testz_si256(_mm256_cmpeq_epi64(e, top),
                                _mm256_cmpeq_epi64(e, top))) {
            for (int l = 0; l < LANES; l++) {
                uint64_t one;
                memcpy(&one, &x[k + (size_t)l], sizeof one);
                bucket_one(sum, NULL, b, one, l, &lo, &hi);
            }
            continue;
        }
        __m256i m = _mm256_or_si256(
            _mm256_and_si256(bits, frac),
            _mm256_andnot_si256(_mm256_cmpeq_epi64(e, zero), implicit));
        __m256i neg = _mm256_cmpgt_epi64(zero, bits);
        __m256i v = _mm256_sub_epi64(_mm256_xor_si256(m, neg), neg);
        vlo = _mm256_min_epi32(vlo, _mm256_or_si256(e, high));
        vhi = _mm256_max_epi32(vhi, e);
        int64_t add[LANES], at[LANES];
        _mm256_storeu_si256((__m256i *)(void *)add, v);
        _mm256_storeu_si256((__m256i *)(void *)at, e);
        for (int l = 0; l < LANES; l++)
            b->sum[at[l]][l] += add[l];
    }
    int32_t l32[8], h32[8];
    _mm256_storeu_si256((__m256i *)(void *)l32, vlo);
    _mm256_storeu_si256((__m256i *)(void *)h32, vhi);
    for (int l = 0; l < 8; l += 2) {
        lo = l32[l] < lo ? l32[l] : lo;
        hi = h32[l] > hi && k > 0 ? h32[l] : hi;
    }
    for (int l = 0; k < n; k++, l++) {
        uint64_t one;
        memcpy(&one, &x[k], sizeof one);
        bucket_one(sum, NULL, b, one, l, &lo, &hi);
    }
    if (lo <= hi)
        fold(sum, NULL, b, lo, hi);
}
#endif

static int portable_only;

void sacc_force_portable(int on)
{
    portable_only = on;
}

/* Whether add_block_avx2 may run here. */
static int use_avx2(void)
{
#ifdef SACC_X86
    return !portable_only && __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

void sacc_add_values(sacc *sum, sacc *sumsq, const double *x, size_t n)
{
    int avx2 = !sumsq && use_avx2();
    while (n > 0) {
        size_t len = n < BLOCK_VALUES ? n : BLOCK_VALUES;
        if (sum->pending >= SACC_MAX_PENDING - EXPONENTS)
            sacc_normalize(sum);
        if (sumsq && sumsq->pending >= SACC_MAX_PENDING - EXPONENTS)
            sacc_normalize(sumsq);
        if (sumsq)
            add_block(sum, sumsq, x, len);
#ifdef SACC_X86
        else if (avx2)
            add_block_avx2(sum, x, len);
#endif
        else
            add_block(sum, NULL, x, len);
        x += len;
        n -= len;
    }
}

void sacc_normalize(sacc *a)
{
    int64_t carry = 0;
    for (int i = 0; i < SACC_DIGITS - 1; i++) {
        int64_t v = a->d[i] + carry;
        carry = v >> 32; /* arithmetic shift: floor division by 2^32 */
        a->d[i] = v & (int64_t)M32;
    }
    a->d[SACC_DIGITS - 1] += carry;
    a->pending = 0;
}

void sacc_merge(sacc *dst, const sacc *src)
{
    /* |digit| < (pending + 1) * 2^32 on both sides; keep the sum of
     * bounds below 2^63 by normalising whatever is too full. */
    sacc tmp;
    if (src->pending >= SACC_MAX_PENDING / 2) {
        tmp = *src;
        sacc_normalize(&tmp);
        src = &tmp;
    }
    if (dst->pending >= SACC_MAX_PENDING / 2)
        sacc_normalize(dst);
    for (int i = 0; i < SACC_DIGITS; i++)
        dst->d[i] += src->d[i];
    dst->pending += src->pending + 1;
    dst->pos_inf += src->pos_inf;
    dst->neg_inf += src->neg_inf;
}

/* |a| as limbs; returns 1 when a is negative. */
static int magnitude(const sacc *a, uint32_t *mag)
{
    sacc c = *a;
    sacc_normalize(&c);
    int neg = c.d[SACC_DIGITS - 1] < 0;
    if (neg) {
        for (int i = 0; i < SACC_DIGITS; i++)
            c.d[i] = -c.d[i];
        sacc_normalize(&c);
    }
    for (int i = 0; i < SACC_DIGITS; i++)
        mag[i] = (uint32_t)c.d[i];
    return neg;
}

static int top_limb(const uint32_t *l, int n)
{
    while (n > 0 && l[n - 1] == 0)
        n--;
    return n - 1;
}

static int bit_length32(uint32_t v)
{
    return 32 - __builtin_clz(v);
}

/* (-1)^neg * (sum l[i] 2^(32i + base) + tiny), rounded to nearest even,
 * where sticky says a nonzero tiny below the last limb was dropped. */
static double round_limbs(const uint32_t *l, int n, int base, int sticky,
                          int neg)
{
    int t = top_limb(l, n);
    if (t < 0)
        return neg && sticky ? -0.0 : 0.0;
    int b = bit_length32(l[t]);
    long msb = 32L * t + b - 1 + base; /* exponent of the leading bit */
    /* top 64 bits left-aligned, the rest into sticky */
    u128 w = (u128)l[t] << 64;
    if (t >= 1)
        w |= (u128)l[t - 1] << 32;
    if (t >= 2)
        w |= l[t - 2];
    for (int i = t - 3; i >= 0 && !sticky; i--)
        sticky = l[i] != 0;
    w <<= 32 + (32 - b);
    uint64_t hi = (uint64_t)(w >> 64);
    sticky |= (uint64_t)w != 0;
    long keep = msb < -1022 ? msb + 1075 : 53; /* subnormals keep fewer */
    if (keep < 0)
        return neg ? -0.0 : 0.0;
    uint64_t mant = keep ? hi >> (64 - keep) : 0;
    uint64_t rbit = (hi >> (63 - keep)) & 1;
    sticky |= (hi & ((UINT64_C(1) << (63 - keep)) - 1)) != 0;
    if (rbit && (sticky || (mant & 1)))
        mant++;
    double v = ldexp((double)mant, (int)(msb - keep + 1));
    return neg ? -v : v;
}

static double inf_value(const sacc *a)
{
    if (a->pos_inf && a->neg_inf)
        return NAN;
    return a->pos_inf ? INFINITY : -INFINITY;
}

/* An exact zero gives +0 (also for a sum of -0.0 values): the sum is the
 * exact rational, which has no sign. */
double sacc_value(const sacc *a)
{
    if (a->pos_inf || a->neg_inf)
        return inf_value(a);
    uint32_t mag[SACC_DIGITS];
    int neg = magnitude(a, mag);
    return round_limbs(mag, SACC_DIGITS, SACC_LSB_EXP, 0, neg);
}

/* l[0..n) /= d in place; returns the remainder. The zero limbs on top
 * stay zero: the division starts below them (most of a wide product's
 * 280 are). */
static uint64_t div_limbs(uint32_t *l, int n, uint64_t d)
{
    u128 rem = 0;
    for (int i = top_limb(l, n); i >= 0; i--) {
        u128 cur = (rem << 32) | l[i];
        l[i] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    return (uint64_t)rem;
}

/* The quotient keeps every bit down to 2^-2176, far below the smallest
 * subnormal, so the remainder only decides the sticky bit. A negative
 * value that rounds to zero gives -0.0, as IEEE division would. */
double sacc_mean(const sacc *a, uint64_t n)
{
    if (a->pos_inf || a->neg_inf)
        return inf_value(a);
    if (n == 0)
        return NAN;
    uint32_t mag[SACC_DIGITS];
    int neg = magnitude(a, mag);
    int sticky = div_limbs(mag, SACC_DIGITS, n) != 0;
    return round_limbs(mag, SACC_DIGITS, SACC_LSB_EXP, sticky, neg);
}

/* r[0..WIDE) = x * y, schoolbook on 32-bit limbs */
static void mul_limbs(const uint32_t *x, int nx, const uint32_t *y, int ny,
                      uint32_t *r)
{
    memset(r, 0, WIDE * sizeof *r);
    for (int i = 0; i < nx; i++) {
        uint64_t carry = 0;
        if (x[i] == 0)
            continue;
        for (int j = 0; j < ny; j++) {
            uint64_t cur = (uint64_t)x[i] * y[j] + r[i + j] + carry;
            r[i + j] = (uint32_t)cur;
            carry = cur >> 32;
        }
        for (int k = i + ny; carry; k++) {
            uint64_t cur = (uint64_t)r[k] + carry;
            r[k] = (uint32_t)cur;
            carry = cur >> 32;
        }
    }
}

/* x -= y over WIDE limbs; returns the final borrow (1 when y > x) */
static int sub_limbs(uint32_t *x, const uint32_t *y)
{
    int64_t borrow = 0;
    for (int i = 0; i < WIDE; i++) {
        int64_t v = (int64_t)x[i] - y[i] - borrow;
        borrow = v < 0;
        x[i] = (uint32_t)v;
    }
    return (int)borrow;
}

/* sqrt(q * 2^base) for the exact quotient q (+ sticky): q is rounded once
 * after scaling by an even power of two, so the variance neither
 * overflows nor underflows before the square root. */
static double sqrt_scaled(const uint32_t *q, int base, int sticky)
{
    int t = top_limb(q, WIDE);
    if (t < 0)
        return 0.0;
    long msb = 32L * t + bit_length32(q[t]) - 1 + base;
    long half = (msb >= 0 ? msb : msb - 1) / 2; /* floor(msb / 2) */
    double v = round_limbs(q, WIDE, (int)(base - 2 * half), sticky, 0);
    return ldexp(sqrt(v), (int)half);
}

double sacc_std(const sacc *sum, const sacc *sumsq, uint64_t n)
{
    if (n < 2 || sum->pos_inf || sum->neg_inf || sumsq->pos_inf)
        return NAN;
    uint32_t s1[SACC_DIGITS], s2[SACC_DIGITS], nlimb[2];
    uint32_t a[WIDE], b[WIDE];
    magnitude(sum, s1);
    magnitude(sumsq, s2);
    int t1 = top_limb(s1, SACC_DIGITS) + 1;
    int t2 = top_limb(s2, SACC_DIGITS) + 1;
    nlimb[0] = (uint32_t)n;
    nlimb[1] = (uint32_t)(n >> 32);
    /* in units of 2^(2 * SACC_LSB_EXP): A = n * S2 * 2^2176, B = S1^2 */
    mul_limbs(s2, t2, nlimb, 2, b);
    memset(a, 0, sizeof a);
    memcpy(a + FRAC_BITS / 32, b, (WIDE - FRAC_BITS / 32) * sizeof *a);
    mul_limbs(s1, t1, s1, t1, b);
    if (sub_limbs(a, b)) /* cannot happen: n*S2 >= S1^2 */
        return NAN;
    int sticky = div_limbs(a, WIDE, n) != 0;
    sticky |= div_limbs(a, WIDE, n - 1) != 0;
    return sqrt_scaled(a, 2 * SACC_LSB_EXP, sticky);
}

/* Decimal digits of l[0..n) (destroyed), least significant first. */
static size_t decimal_reversed(uint32_t *l, int n, char *out)
{
    size_t k = 0;
    for (;;) {
        uint32_t r = (uint32_t)div_limbs(l, n, 1000000000u);
        int more = top_limb(l, n) >= 0;
        for (int j = 0; j < 9 && (more || r); j++) {
            out[k++] = (char)('0' + r % 10);
            r /= 10;
        }
        if (!more)
            break;
    }
    if (k == 0)
        out[k++] = '0';
    return k;
}

/* buf := the k digits rev holds last first, after a '-' where neg (never
 * "-0"); 0 where they do not fit in len bytes with the NUL. */
static int write_reversed(const char *rev, size_t k, int neg, char *buf,
                          size_t len)
{
    neg = neg && !(k == 1 && rev[0] == '0');
    if (k + (size_t)neg + 1 > len)
        return 0;
    size_t o = 0;
    if (neg)
        buf[o++] = '-';
    while (k > 0)
        buf[o++] = rev[--k];
    buf[o] = '\0';
    return 1;
}

int sacc_integer_string(const sacc *a, char *buf, size_t len)
{
    if (a->pos_inf || a->neg_inf)
        return 0;
    uint32_t mag[SACC_DIGITS];
    int neg = magnitude(a, mag);
    for (int i = 0; i < FRAC_BITS / 32; i++)
        if (mag[i])
            return 0;
    char rev[700]; /* 2^2208 has 665 decimal digits */
    int nint = SACC_DIGITS - FRAC_BITS / 32;
    size_t k = decimal_reversed(mag + FRAC_BITS / 32, nint, rev);
    return write_reversed(rev, k, neg, buf, len);
}

/* ---- the compact sum ---------------------------------------------- */

/* Digits to [-2^31, 2^31) (the top one takes what is left): the balanced
 * form keeps a negative value's digits as few as a positive one's. */
static void balance(sacc *a)
{
    /* The carry chain over all 137 digits was most of a group's sum made
       final (perf, 10^6 groups of 4 columns: store 7.0% of the samples,
       3.8% with the chain cut short as below). Zero digits
       below the first nonzero one take no carry and stay zero; above the
       last nonzero one, once the carry is 0 every digit stays zero. So
       the chain runs over the digits between alone, the same result. */
    int top = SACC_DIGITS - 1, i = 0, last = top;
    while (i < top && a->d[i] == 0)
        i++;
    while (last > i && a->d[last] == 0)
        last--;
    int64_t carry = 0;
    for (; i < top && (i <= last || carry); i++) {
        int64_t v = a->d[i] + carry;
        carry = (v + ((int64_t)1 << 31)) >> 32; /* arithmetic: floor */
        a->d[i] = v - carry * ((int64_t)1 << 32);
    }
    a->d[top] += carry;
    a->pending = 0;
}

void csum_init(csum *c)
{
    memset(c, 0, sizeof *c);
    c->lo = -1;
}

void csum_free(csum *c)
{
    free(c->all);
    csum_init(c);
}

void csum_get(const csum *c, sacc *a)
{
    if (c->all) {
        *a = *c->all;
        return;
    }
    sacc_init(a);
    for (int i = 0; c->lo >= 0 && i < CSUM_WINDOW; i++)
        a->d[c->lo + i] = c->w[i];
    a->pos_inf = c->pos_inf;
    a->neg_inf = c->neg_inf;
}

/* c = t (balanced here): in the window when its digits fit, else whole. */
static int store(csum *c, sacc *t)
{
    balance(t);
    int a = 0, b = SACC_DIGITS - 1;
    while (a < SACC_DIGITS && t->d[a] == 0)
        a++;
    while (b > a && t->d[b] == 0)
        b--;
    if (a < SACC_DIGITS && b - a >= CSUM_WINDOW) {
        sacc *all = malloc(sizeof *all);
        if (!all)
            return -1;
        *all = *t;
        c->all = all;
        return 0;
    }
    memset(c->w, 0, sizeof c->w);
    c->lo = a < SACC_DIGITS ? a : -1;
    if (c->lo > SACC_DIGITS - CSUM_WINDOW)
        c->lo = SACC_DIGITS - CSUM_WINDOW;
    for (int i = 0; c->lo >= 0 && i < CSUM_WINDOW; i++)
        c->w[i] = t->d[c->lo + i];
    c->pos_inf = t->pos_inf;
    c->neg_inf = t->neg_inf;
    return 0;
}

int csum_add(csum *c, const sacc *a)
{
    if (c->all) {
        sacc_merge(c->all, a);
        return 0;
    }
    if (c->lo < 0 && !c->pos_inf && !c->neg_inf) { /* 0 + a: a */
        sacc t = *a;
        return store(c, &t);
    }
    sacc t;
    csum_get(c, &t);
    sacc_merge(&t, a);
    return store(c, &t);
}

int csum_add_taking(csum *c, sacc *a)
{
    if (!c->all && c->lo < 0 && !c->pos_inf && !c->neg_inf)
        return store(c, a);
    return csum_add(c, a);
}

int csum_merge(csum *dst, const csum *src)
{
    if (!src->all && src->lo < 0 && !src->pos_inf && !src->neg_inf)
        return 0;
    sacc t;
    csum_get(src, &t);
    return csum_add(dst, &t);
}

/* ---- finalizing from the window ------------------------------------ */

/* Zero limbs under the window's: a quotient by n < 2^64 of a value of at
 * least one window unit keeps 64 bits and more, so that the remainder only
 * decides the sticky bit, as in sacc_mean. */
#define WIN_BELOW 4
#define WIN_LIMBS (WIN_BELOW + CSUM_WINDOW + 1)

/* The window as sign and magnitude, l[WIN_LIMBS] (the limbs under it
 * zero); returns 1 when negative. Limb i is worth 2^(32 i + *base). */
static int window_magnitude(const csum *c, uint32_t *l, int *base)
{
    int64_t d[CSUM_WINDOW + 1];
    for (int i = 0; i < CSUM_WINDOW; i++)
        d[i] = c->w[i];
    d[CSUM_WINDOW] = 0;
    int neg = 0;
    for (int pass = 0; pass < 2; pass++) {
        int64_t carry = 0;
        for (int i = 0; i < CSUM_WINDOW; i++) {
            int64_t v = d[i] + carry;
            carry = v >> 32;
            d[i] = v & (int64_t)M32;
        }
        d[CSUM_WINDOW] += carry;
        if (pass || d[CSUM_WINDOW] >= 0)
            break;
        neg = 1;
        for (int i = 0; i <= CSUM_WINDOW; i++)
            d[i] = -d[i];
    }
    memset(l, 0, WIN_BELOW * sizeof *l);
    for (int i = 0; i <= CSUM_WINDOW; i++)
        l[WIN_BELOW + i] = (uint32_t)d[i];
    *base = SACC_LSB_EXP + 32 * (c->lo - WIN_BELOW);
    return neg;
}

/* In the window: no whole accumulator, no infinity. */
static int windowed(const csum *c)
{
    return !c->all && !c->pos_inf && !c->neg_inf;
}

double csum_value(const csum *c)
{
    if (!windowed(c)) {
        sacc a;
        csum_get(c, &a);
        return sacc_value(&a);
    }
    if (c->lo < 0)
        return 0.0;
    uint32_t l[WIN_LIMBS];
    int base, neg = window_magnitude(c, l, &base);
    return round_limbs(l, WIN_LIMBS, base, 0, neg);
}

double csum_mean(const csum *c, uint64_t n)
{
    if (!windowed(c) || n == 0) {
        sacc a;
        csum_get(c, &a);
        return sacc_mean(&a, n);
    }
    if (c->lo < 0)
        return 0.0;
    uint32_t l[WIN_LIMBS];
    int base, neg = window_magnitude(c, l, &base);
    int sticky = div_limbs(l, WIN_LIMBS, n) != 0;
    return round_limbs(l, WIN_LIMBS, base, sticky, neg);
}

/* The window's integer limbs start at limb FRAC_BITS / 32 of the whole;
 * a window above it (an integer of more than 2^(32 * 9) or so) takes the
 * whole accumulator's way. */
int csum_integer_string(const csum *c, char *buf, size_t len)
{
    const int first = FRAC_BITS / 32;
    if (!windowed(c) || c->lo > first) {
        sacc a;
        csum_get(c, &a);
        return sacc_integer_string(&a, buf, len);
    }
    uint32_t l[WIN_LIMBS];
    int base, neg = 0, lo = c->lo < 0 ? first : c->lo;
    if (c->lo < 0)
        memset(l, 0, sizeof l);
    else
        neg = window_magnitude(c, l, &base);
    /* l[WIN_BELOW + i] is limb lo + i of the whole */
    int at = WIN_BELOW + first - lo;
    for (int i = 0; i < at; i++)
        if (l[i])
            return 0;
    char rev[100]; /* 2^(32 * WIN_LIMBS) has 126 decimal digits */
    size_t k = decimal_reversed(l + at, WIN_LIMBS - at, rev);
    return write_reversed(rev, k, neg, buf, len);
}
