/* num_short_padded (number_short.h) and short8_exp (number_fast.c) for
 * four fields at once, num_short4 and num_exp4, one field to a 64-bit
 * lane of AVX2: a column's fields of four records in one pass of
 * vector compares, shuffles and multiplies where the scalar way spends
 * some seventy instructions a field on its masks, shifts and the three
 * multiplications of Lemire's eight-digit step. The same double for every
 * field it takes: the digits' integer w < 10^8 exactly, divided by
 * 10^(digits after the point), both exact doubles, so the one division
 * rounds as the scalar way's does. The eight digits' value is the usual
 * SIMD reduction by multiply-add of neighbours (10, then 100, then 10^4;
 * Lemire, "Number Parsing at a Gigabyte per Second", Software: Practice
 * and Experience 51(8), 2021, section 5, and Mula's "SIMD-ized decimal
 * integer parsing" notes); the integers become doubles by the bits of
 * 2^52 + w (Hacker's Delight, 2nd ed., section 17-2). */
#ifndef COLSTAT_IO_NUM_NUMBER_LANES_H
#define COLSTAT_IO_NUM_NUMBER_LANES_H

#include "io/num/number_core.h"

#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__) && NUM_CLINGER
#define NUM_LANES 1
#define NUM_LANES_TARGET __attribute__((target("avx2")))
#include <immintrin.h>

/* Byte i of each 64-bit lane: i, for compares with a lane's length. */
#define NUM_LANE_INDEX 0x0706050403020100

/* Byte 0 of each 64-bit lane of x to all eight of it. */
NUM_LANES_TARGET static inline __m256i num_lane_spread(__m256i x)
{
    return _mm256_shuffle_epi8(
        x, _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 8, 0,
                            0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 8));
}

/* The first 8 bytes at each m[i], one to a lane. */
NUM_LANES_TARGET static inline __m256i num_lane_load(const char *const m[4])
{
    __m128i v01 = _mm_unpacklo_epi64(
        _mm_loadl_epi64((const __m128i *)(const void *)m[0]),
        _mm_loadl_epi64((const __m128i *)(const void *)m[1]));
    __m128i v23 = _mm_unpacklo_epi64(
        _mm_loadl_epi64((const __m128i *)(const void *)m[2]),
        _mm_loadl_epi64((const __m128i *)(const void *)m[3]));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(v01), v23, 1);
}

/* A lane's digits [point digits], as num_short8_bits reads them: its
 * value w in the lane (< 10^8) and the digits after the point in *frac;
 * in *miss all ones for a lane it cannot read (a length n out of [1, 8],
 * a byte neither digit nor point, two points, no digit). */
NUM_LANES_TARGET static inline __m256i
num_lane_digits(__m256i v, __m256i n, char point, __m256i *frac, __m256i *miss)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i idx = _mm256_set1_epi64x(NUM_LANE_INDEX);
    /* the bytes of the text: digits, the point, anything else */
    __m256i in = _mm256_cmpgt_epi8(num_lane_spread(n), idx);
    __m256i d = _mm256_sub_epi8(v, _mm256_set1_epi8('0'));
    __m256i dig = _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(9)), d);
    __m256i bad = _mm256_andnot_si256(dig, in);
    __m256i pt =
        _mm256_and_si256(bad, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(point)));
    /* points, and where the one is (its index + 1; 0 without) */
    __m256i npt =
        _mm256_sad_epu8(_mm256_and_si256(pt, _mm256_set1_epi8(1)), zero);
    __m256i at1 = _mm256_sad_epu8(
        _mm256_and_si256(pt, _mm256_add_epi8(idx, _mm256_set1_epi8(1))), zero);
    *miss = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(1), n),
                        _mm256_cmpgt_epi64(n, _mm256_set1_epi64x(8))),
        _mm256_or_si256(
            _mm256_xor_si256(
                _mm256_cmpeq_epi64(_mm256_xor_si256(bad, pt), zero),
                _mm256_set1_epi64x(-1)),
            _mm256_or_si256(_mm256_cmpgt_epi64(npt, _mm256_set1_epi64x(1)),
                            _mm256_cmpeq_epi64(npt, n))));
    *frac =
        _mm256_and_si256(_mm256_sub_epi64(n, at1), _mm256_sub_epi64(zero, npt));

    /* the point taken out: the digits past it move down one byte (a lane
       without one: cut at 8, nothing moves) */
    __m256i digits = _mm256_and_si256(d, _mm256_andnot_si256(bad, in));
    __m256i cut =
        _mm256_sub_epi64(_mm256_add_epi64(at1, _mm256_set1_epi64x(8)),
                         _mm256_add_epi64(_mm256_slli_epi64(npt, 3), npt));
    __m256i below = _mm256_cmpgt_epi8(num_lane_spread(cut), idx);
    __m256i t = _mm256_or_si256(
        _mm256_and_si256(digits, below),
        _mm256_andnot_si256(below, _mm256_srli_epi64(digits, 8)));
    /* the nd = n - points digits to the top bytes, zeros before them;
       their value: pairs, fours, then the two fours of a lane */
    __m256i nd = _mm256_sub_epi64(n, npt);
    t = _mm256_sllv_epi64(
        t, _mm256_slli_epi64(_mm256_sub_epi64(_mm256_set1_epi64x(8), nd), 3));
    __m256i p2 = _mm256_maddubs_epi16(t, _mm256_set1_epi16(0x010a));
    __m256i p4 = _mm256_madd_epi16(p2, _mm256_set1_epi32(0x00010064));
    return _mm256_add_epi64(_mm256_mul_epu32(p4, _mm256_set1_epi64x(10000)),
                            _mm256_srli_epi64(p4, 32));
}

/* Four integers, one to a lane. */
NUM_LANES_TARGET static inline __m256i num_lanes_of(const uint64_t a[4])
{
    return _mm256_setr_epi64x((long long)a[0], (long long)a[1], (long long)a[2],
                              (long long)a[3]);
}

/* 10^(p mod 8) in each lane, from a register of the eight powers. */
NUM_LANES_TARGET static inline __m256i num_lane_pow8(__m256i p)
{
    return _mm256_and_si256(_mm256_permutevar8x32_epi32(
                                _mm256_setr_epi32(1, 10, 100, 1000, 10000,
                                                  100000, 1000000, 10000000),
                                _mm256_and_si256(p, _mm256_set1_epi64x(7))),
                            _mm256_set1_epi64x(0xffffffff));
}

/* The lanes' values x, negated where neg[i], to out; the mask of the
 * lanes missed. */
NUM_LANES_TARGET static inline unsigned
num_lanes_put(__m256d x, const uint64_t neg[4], __m256i miss, double *out)
{
    __m256i sign = _mm256_slli_epi64(num_lanes_of(neg), 63);
    _mm256_storeu_pd(out, _mm256_xor_pd(x, _mm256_castsi256_pd(sign)));
    return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(miss));
}

/* Lanes of integers below 2^52 as doubles, exactly: the bits of 2^52 + w
 * less 2^52. */
NUM_LANES_TARGET static inline __m256d num_lane_double(__m256i w)
{
    const __m256i two52 = _mm256_set1_epi64x(0x4330000000000000);
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(w, two52)),
                         _mm256_castsi256_pd(two52));
}

/* The text of field i after its sign at m[i], len[i] bytes of it (any
 * value: a length past 8 is a field this cannot take), neg[i] 1 after a
 * '-'; 8 bytes from each m[i] must be readable. Puts in out[i] the value
 * num_short_padded gives the field (the sign's bytes and the point being
 * point) where it takes it; returns the bit mask of the fields it does
 * not take, whose out[i] then holds junk: the caller's parse_number_padded
 * must read them. Only where the CPU has AVX2. */
NUM_LANES_TARGET static inline unsigned num_short4(const char *const m[4],
                                                   const uint64_t len[4],
                                                   const uint64_t neg[4],
                                                   char point, double *out)
{
    __m256i frac, miss;
    __m256i w = num_lane_digits(num_lane_load(m), num_lanes_of(len), point,
                                &frac, &miss);
    __m256d x =
        _mm256_div_pd(num_lane_double(w), num_lane_double(num_lane_pow8(frac)));
    return num_lanes_put(x, neg, miss, out);
}

/* 10^|q| for lanes with |q| <= 22: 10^(|q| mod 8), an integer, times
 * 10^(8 (|q| div 8)), both exact doubles whose product is too. */
NUM_LANES_TARGET static inline __m256d num_lane_pow10(__m256i aq)
{
    /* the high power's two halves: dwords 2h and 2h + 1 of a table */
    __m256i h2 = _mm256_slli_epi64(_mm256_srli_epi64(aq, 3), 1);
    __m256i pick = _mm256_or_si256(
        h2, _mm256_slli_epi64(_mm256_add_epi64(h2, _mm256_set1_epi64x(1)), 32));
    __m256d hi = _mm256_castsi256_pd(_mm256_permutevar8x32_epi32(
        _mm256_castpd_si256(_mm256_setr_pd(1e0, 1e8, 1e16, 1e24)), pick));
    return _mm256_mul_pd(num_lane_double(num_lane_pow8(aq)), hi);
}

/* Where each lane's exponent mark is (an 'e' or 'E' among the first 9
 * bytes of its text, 9 for none) and its digits after their sign: x[i],
 * xn[i] of them, xneg[i] 1 after a '-'. */
NUM_LANES_TARGET static inline void
num_lanes_exponent(const char *const m[4], const uint64_t len[4], __m256i v,
                   uint64_t k[4], const char *x[4], uint64_t xn[4],
                   uint64_t xneg[4])
{
    __m256i in = _mm256_cmpgt_epi8(num_lane_spread(num_lanes_of(len)),
                                   _mm256_set1_epi64x(NUM_LANE_INDEX));
    uint32_t es = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(
        in, _mm256_cmpeq_epi8(_mm256_or_si256(v, _mm256_set1_epi8(0x20)),
                              _mm256_set1_epi8('e'))));
    for (int i = 0; i < 4; i++) {
        uint32_t bits = es >> (8 * i) & 0xff;
        k[i] = bits ? (uint64_t)NUM_CTZ64(bits)
                    : 9 - (uint64_t)((m[i][8] | 0x20) == 'e' && len[i] > 8);
        const char *p = m[i] + k[i] + 1;
        xneg[i] = *p == '-';
        uint64_t sign = xneg[i] | (*p == '+');
        x[i] = p + sign;
        xn[i] = len[i] - k[i] - 1 - sign;
    }
}

/* num_short4 for fields as C's %e prints them, [-]mantissa[eE][+-]digits,
 * where short8_exp (number_fast.c) reads them: a mantissa num_short4
 * would take, before an 'e' among its first 9 bytes, then at most 3
 * exponent digits; q, the exponent less the digits after the point, in
 * [-22, 22], so that 10^|q| is exact and Clinger's one operation (Clinger,
 * "How to Read Floating Point Numbers Accurately", PLDI 1990) rounds as
 * the scalar way does; a value below 2^53. 20 bytes from each m[i] must
 * be readable. The same contract as num_short4 otherwise. */
NUM_LANES_TARGET static inline unsigned num_exp4(const char *const m[4],
                                                 const uint64_t len[4],
                                                 const uint64_t neg[4],
                                                 char point, double *out)
{
    const char *x[4];
    uint64_t k[4], xn[4], xneg[4];
    __m256i v = num_lane_load(m);
    num_lanes_exponent(m, len, v, k, x, xn, xneg);
    __m256i frac, miss, xfrac, xmiss;
    __m256i w = num_lane_digits(v, num_lanes_of(k), point, &frac, &miss);
    /* the exponent: 1 to 3 digits ('0' as its point: none is taken) */
    __m256i xv = num_lanes_of(xn);
    __m256i ex = num_lane_digits(num_lane_load(x), xv, '0', &xfrac, &xmiss);
    __m256i eneg = _mm256_sub_epi64(_mm256_setzero_si256(), num_lanes_of(xneg));
    __m256i q = _mm256_sub_epi64(
        _mm256_sub_epi64(_mm256_xor_si256(ex, eneg), eneg), frac);
    __m256i qneg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), q);
    __m256i aq = _mm256_sub_epi64(_mm256_xor_si256(q, qneg), qneg);
    miss = _mm256_or_si256(
        _mm256_or_si256(miss, xmiss),
        _mm256_or_si256(_mm256_cmpgt_epi64(xv, _mm256_set1_epi64x(3)),
                        _mm256_cmpgt_epi64(aq, _mm256_set1_epi64x(22))));
    __m256d wd = num_lane_double(w), p10 = num_lane_pow10(aq);
    __m256d val =
        _mm256_blendv_pd(_mm256_mul_pd(wd, p10), _mm256_div_pd(wd, p10),
                         _mm256_castsi256_pd(qneg));
    miss = _mm256_or_si256(
        miss, _mm256_castpd_si256(_mm256_cmp_pd(
                  val, _mm256_set1_pd(9007199254740992.0), _CMP_GE_OQ)));
    return num_lanes_put(val, neg, miss, out);
}
#endif

#endif
