/* Ryu's general case (U. Adams, "Ryu: fast float-to-string conversion",
 * PLDI 2018, section 3 and Figure 4): the interval's bounds and v itself,
 * times 4, scaled by a power of ten with the 125-bit multipliers of
 * src/report/ryu_pow5_table.h so that the scaled values are exact in their
 * integer parts; then decimal digits are dropped while the bounds still
 * differ, tracking whether what was dropped was all zeros (an exact bound,
 * an exact tie). */
#include "shortest.h"

#include "ryu_pow5_table.h"

#include <string.h>

__extension__ typedef unsigned __int128 u128;

enum { MANT_BITS = 52, EXP_BIAS = 1023 };

/* floor(e * log10(2)), floor(e * log10(5)), bit length of 5^e: the
 * paper's fixed-point approximations, exact over the exponents used. */
static int log10_pow2(int e)
{
    return (int)(((uint32_t)e * 78913u) >> 18);
}
static int log10_pow5(int e)
{
    return (int)(((uint32_t)e * 732923u) >> 20);
}
static int pow5_bits(int e)
{
    return (int)((((uint32_t)e * 1217359u) >> 19) + 1);
}

static int pow5_factor(uint64_t v)
{
    int n = 0;
    for (; v % 5 == 0; v /= 5)
        n++;
    return n;
}

/* (m * mul) >> j for a 125-bit mul, j >= 64. */
static uint64_t mul_shift(uint64_t m, const uint64_t *mul, int j)
{
    u128 lo = (u128)m * mul[0];
    u128 hi = (u128)m * mul[1];
    return (uint64_t)(((lo >> 64) + hi) >> (j - 64));
}

/* The scaled v, upper and lower bound with what Ryu needs to round. */
struct scaled {
    uint64_t vr, vp, vm;
    int e10, vm_zeros, vr_zeros, accept;
};

static void scale_up(struct scaled *s, uint64_t m2, int e2, int mm_shift)
{
    uint64_t mv = 4 * m2;
    int q = log10_pow2(e2) - (e2 > 3);
    int i = -e2 + q + RYU_POW5_BITS + pow5_bits(q) - 1;
    s->e10 = q;
    s->vr = mul_shift(mv, RYU_POW5_INV[q], i);
    s->vp = mul_shift(mv + 2, RYU_POW5_INV[q], i);
    s->vm = mul_shift(mv - 1 - (uint64_t)mm_shift, RYU_POW5_INV[q], i);
    if (q > 21)
        return;
    if (mv % 5 == 0)
        s->vr_zeros = pow5_factor(mv) >= q;
    else if (s->accept)
        s->vm_zeros = pow5_factor(mv - 1 - (uint64_t)mm_shift) >= q;
    else
        s->vp -= pow5_factor(mv + 2) >= q;
}

static void scale_down(struct scaled *s, uint64_t m2, int e2, int mm_shift)
{
    uint64_t mv = 4 * m2;
    int q = log10_pow5(-e2) - (-e2 > 1);
    int i = -e2 - q;
    int j = q - (pow5_bits(i) - RYU_POW5_BITS);
    s->e10 = q + e2;
    s->vr = mul_shift(mv, RYU_POW5[i], j);
    s->vp = mul_shift(mv + 2, RYU_POW5[i], j);
    s->vm = mul_shift(mv - 1 - (uint64_t)mm_shift, RYU_POW5[i], j);
    if (q <= 1) {
        s->vr_zeros = 1;
        if (s->accept)
            s->vm_zeros = mm_shift == 1;
        else
            s->vp--;
    } else if (q < 63) {
        s->vr_zeros = (mv & ((1ull << q) - 1)) == 0;
    }
}

/* The common case, nothing exact to track: only the last digit dropped
 * rounds, so digits may go two at a time (the same steps as one by one). */
static uint64_t drop_inexact(struct scaled *s, int *removed)
{
    int up = 0;
    for (; s->vp / 100 > s->vm / 100; *removed += 2) {
        up = s->vr % 100 >= 50;
        s->vr /= 100, s->vp /= 100, s->vm /= 100;
    }
    for (; s->vp / 10 > s->vm / 10; ++*removed) {
        up = s->vr % 10 >= 5;
        s->vr /= 10, s->vp /= 10, s->vm /= 10;
    }
    return s->vr + (s->vr == s->vm || up);
}

/* Drops digits while the bounds differ; returns the digits kept, rounded. */
static uint64_t drop_digits(struct scaled *s, int *removed)
{
    if (!s->vm_zeros && !s->vr_zeros)
        return drop_inexact(s, removed);
    int last = 0;
    for (; s->vp / 10 > s->vm / 10; ++*removed) {
        s->vm_zeros &= s->vm % 10 == 0;
        s->vr_zeros &= last == 0;
        last = (int)(s->vr % 10);
        s->vr /= 10, s->vp /= 10, s->vm /= 10;
    }
    if (s->vm_zeros)
        for (; s->vm % 10 == 0; ++*removed) {
            s->vr_zeros &= last == 0;
            last = (int)(s->vr % 10);
            s->vr /= 10, s->vp /= 10, s->vm /= 10;
        }
    if (s->vr_zeros && last == 5 && s->vr % 2 == 0)
        last = 4; /* an exact tie: to even */
    int below = s->vr == s->vm && (!s->accept || !s->vm_zeros);
    return s->vr + (below || last >= 5);
}

void shortest_decimal(double v, uint64_t *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t mant = bits & ((1ull << MANT_BITS) - 1);
    int ex = (int)((bits >> MANT_BITS) & 0x7ff);
    uint64_t m2 = ex ? mant | (1ull << MANT_BITS) : mant;
    int e2 = (ex ? ex : 1) - EXP_BIAS - MANT_BITS - 2;
    /* The lower gap is half the upper one at a power of two. */
    int mm_shift = mant != 0 || ex <= 1;
    struct scaled s = {0};
    s.accept = (m2 & 1) == 0;
    if (e2 >= 0)
        scale_up(&s, m2, e2, mm_shift);
    else
        scale_down(&s, m2, e2, mm_shift);
    int removed = 0;
    uint64_t d = drop_digits(&s, &removed);
    int e = s.e10 + removed;
    for (; d % 10 == 0; d /= 10)
        e++;
    *digits = d;
    *exp10 = e;
}
