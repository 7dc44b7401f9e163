/* Checks against exact rationals (GMP mpq) that the stats tests share:
 * correct rounding of a double, and a standard deviation within 1e-13
 * relative. Include after gmp.h. */
#ifndef COLSTAT_TESTS_STATS_GMP_REF_H
#define COLSTAT_TESTS_STATS_GMP_REF_H

#include <float.h>
#include <math.h>

#include "tests/testlib.h"

/* q == r correctly rounded to nearest, ties to even (signs of zero
 * ignored: the contract says an exact zero is +0). */
static inline int is_rounded(const mpq_t q, double r)
{
    if (isnan(r))
        return 0;
    mpq_t lo, hi, t;
    mpq_inits(lo, hi, t, NULL);
    int ok;
    if (isinf(r)) {
        /* |q| >= 2^1024 - 2^970: the overflow threshold */
        mpq_set_d(t, ldexp(1.0, 1023));
        mpq_set_d(lo, ldexp(1.0, 1023) - ldexp(1.0, 970));
        mpq_add(t, t, lo);
        mpq_abs(lo, q);
        ok = mpq_cmp(lo, t) >= 0 && (r > 0) == (mpq_sgn(q) > 0);
    } else {
        double below = nextafter(r, -INFINITY), above = nextafter(r, INFINITY);
        mpq_set_d(t, r);
        mpq_set_d(lo, isinf(below) ? -DBL_MAX : below);
        mpq_set_d(hi, isinf(above) ? DBL_MAX : above);
        if (isinf(below) || isinf(above)) {
            /* the neighbour past DBL_MAX is 2^1024: DBL_MAX + ulp */
            mpq_t u;
            mpq_init(u);
            mpq_set_d(u, ldexp(1.0, 971));
            if (isinf(below))
                mpq_sub(lo, lo, u);
            else
                mpq_add(hi, hi, u);
            mpq_clear(u);
        }
        mpq_add(lo, lo, t);
        mpq_div_2exp(lo, lo, 1);
        mpq_add(hi, hi, t);
        mpq_div_2exp(hi, hi, 1);
        int even = (bits_of(r) & 1) == 0;
        int c1 = mpq_cmp(q, lo), c2 = mpq_cmp(q, hi);
        ok = (c1 > 0 || (c1 == 0 && even)) && (c2 < 0 || (c2 == 0 && even));
    }
    mpq_clears(lo, hi, t, NULL);
    return ok;
}

/* |std - sqrt(v)| <= 1e-13 sqrt(v), checked as squares in mpq */
static inline int std_close(const mpq_t v, double sd)
{
    if (mpq_sgn(v) == 0)
        return sd == 0.0;
    mpq_t a, f;
    mpq_inits(a, f, NULL);
    if (isinf(sd)) { /* only when sqrt(v) is past DBL_MAX */
        mpq_set_d(a, DBL_MAX);
        mpq_mul(a, a, a);
        int ok = mpq_cmp(v, a) > 0;
        mpq_clears(a, f, NULL);
        return ok;
    }
    if (!(sd > 0x1p-1000)) {
        mpq_clears(a, f, NULL);
        return 0;
    }
    mpq_set_ui(f, 10000000000000u - 1, 10000000000000u);
    mpq_set_d(a, sd);
    mpq_mul(a, a, f);
    mpq_mul(a, a, a);
    int ok = mpq_cmp(a, v) <= 0;
    mpq_set_ui(f, 10000000000000u + 1, 10000000000000u);
    mpq_set_d(a, sd);
    mpq_mul(a, a, f);
    mpq_mul(a, a, a);
    ok = ok && mpq_cmp(a, v) >= 0;
    mpq_clears(a, f, NULL);
    return ok;
}

#endif
