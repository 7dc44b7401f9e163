/* The type-7 value between two order statistics, exact and rounded once,
 * and the exact integer form of the result (see quantile.h). The weighted
 * sum (fden - fnum) a + fnum b is formed exactly in a superaccumulator
 * (exact.h) and divided by fden with one rounding; an integer result of
 * integer values is also computed in 128-bit integers so that it can be
 * printed whole. */
#include <math.h>
#include <stdio.h>

#include "exact.h"
#include "quantile.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static qnum norm(qnum v)
{
    v.r = qsel_r(v.r);
    return v;
}

/* d + r is an integer in [-2^64, 2^64] (an integer column's values'
 * range, stats.h): *out holds it. */
static int as_int(qnum v, i128 *out)
{
    if (!(fabs(v.d) <= 0x1p64) || v.d != floor(v.d))
        return 0;
    *out = (i128)v.d + v.r;
    i128 lim = (i128)1 << 64;
    return *out >= -lim && *out <= lim;
}

/* The integer v of [-2^64, 2^64] as d + r with d the nearest double. */
static qnum from_int(i128 v)
{
    qnum q;
    q.d = (double)v;
    q.r = (int32_t)(v - (i128)q.d);
    return q;
}

static void exact_result(qres *out, qnum v)
{
    i128 iv;
    out->is_int = as_int(v, &iv);
    out->exact = out->is_int ? from_int(iv) : v;
    out->has_near = out->is_int;
    out->near = out->exact;
}

/* num / den (den > 0) rounded to the nearest integer, halves away from
 * zero. */
static i128 div_nearest(i128 num, i128 den)
{
    i128 q = num / den, r = num % den;
    if ((r < 0 ? -r : r) * 2 >= den)
        q += num < 0 ? -1 : 1;
    return q;
}

static double value_of(qnum v)
{
    if (v.r == 0)
        return v.d; /* keeps -0.0 */
    sacc s;
    sacc_init(&s);
    sacc_add(&s, v.d);
    sacc_add(&s, (double)v.r);
    return sacc_value(&s);
}

static double weighted(qnum a, qnum b, uint64_t fnum, uint64_t fden)
{
    sacc s;
    sacc_init(&s);
    sacc_add_product(&s, a.d, fden - fnum);
    sacc_add_product(&s, (double)a.r, fden - fnum);
    sacc_add_product(&s, b.d, fnum);
    sacc_add_product(&s, (double)b.r, fnum);
    return sacc_mean(&s, fden);
}

/* Both weights are above 0 here and a <= b, so an infinite a is -inf
 * unless b is +inf too, and an infinite b is +inf unless a is -inf. */
static double infinite(qnum a, qnum b)
{
    if (isinf(a.d) && isinf(b.d) && a.d != b.d)
        return NAN;
    return isinf(a.d) ? a.d : b.d;
}

void qvalue_interpolate(qnum a, qnum b, uint64_t fnum, uint64_t fden, qres *out)
{
    a = norm(a);
    b = norm(b);
    out->has_value = 1;
    if (fnum == 0 || (qsel_key(a.d) == qsel_key(b.d) && a.r == b.r)) {
        out->value = value_of(a);
        exact_result(out, a);
        return;
    }
    out->is_int = 0;
    out->exact = a;
    out->has_near = 0;
    if (isinf(a.d) || isinf(b.d)) {
        out->value = infinite(a, b);
        return;
    }
    out->value = weighted(a, b, fnum, fden);
    i128 ia, ib;
    if (as_int(a, &ia) && as_int(b, &ib)) {
        /* |ia|, |ib| <= 2^64 and the weights <= 10^18 < 2^60: no overflow */
        i128 num = ia * (i128)(fden - fnum) + ib * (i128)fnum;
        i128 near = div_nearest(num, (i128)fden);
        if (num % (i128)fden == 0)
            exact_result(out, from_int(num / (i128)fden));
        out->has_near = near >= -((i128)1 << 64) && near <= (i128)1 << 64;
        out->near = out->has_near ? from_int(near) : a;
    }
}

int qvalue_int_text(qnum v, char *buf, size_t len)
{
    i128 iv;
    if (!as_int(norm(v), &iv))
        return 0;
    char rev[24];
    int k = 0;
    u128 mag = iv < 0 ? -(u128)iv : (u128)iv;
    do {
        rev[k++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag);
    size_t need = (size_t)k + (iv < 0) + 1;
    if (need > len)
        return 0;
    size_t o = 0;
    if (iv < 0)
        buf[o++] = '-';
    while (k > 0)
        buf[o++] = rev[--k];
    buf[o] = '\0';
    return (int)o;
}
