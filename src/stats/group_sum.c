/* Exact few-term sums (group_sum.h). */
#include "group_sum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below this no sum of fewer than 2^64 such values overflows, so each
 * TwoSum is exact; the rare larger values (and infinities) go to the
 * csum. Units stay within [2^-960, 2^840]: their pieces are normal
 * doubles. */
#define SUM_BIG 0x1p900
#define SUM_TINY 0x1p-900
#define NO_UNIT INT32_MIN
/* a value of binade k (2^k <= |x| < 2^(k+1)) takes units 2^(k - UNIT_BELOW):
 * below 2^63 units, values up to binade k + 2 fit, each exactly from
 * binade k - 8 up */
#define UNIT_BELOW 60

void group_sum_init(group_sum *g)
{
    memset(g, 0, sizeof *g);
    g->ex = NO_UNIT;
}

void group_sum_free(group_sum *g)
{
    if (g->over) {
        csum_free(g->over);
        free(g->over);
    }
    group_sum_init(g);
}

/* The csum's share: x (a double, exact) into it. */
static int to_over(group_sum *g, double x)
{
    if (!g->over) {
        g->over = malloc(sizeof *g->over);
        if (!g->over)
            return -1;
        csum_init(g->over);
    }
    sacc a;
    sacc_init(&a);
    sacc_add(&a, x);
    return csum_add(g->over, &a);
}

/* s + r = a + b exactly (no overflow below SUM_BIG). */
static inline double two_sum(double a, double b, double *r)
{
    double s = a + b, bv = s - a;
    *r = (a - (s - bv)) + (b - bv);
    return s;
}

/* e[0..m), smallest first, rewritten as fewer terms of the same sum where
 * they overlap (Shewchuk's Compress, with TwoSum throughout so that it is
 * exact whatever the terms); returns their number. */
static int compress(double *e, int m)
{
    double g[GROUP_SUM_TERMS + 1], r, q = e[m - 1];
    int bottom = m - 1, top = 0;
    for (int i = m - 2; i >= 0; i--) {
        double s = two_sum(q, e[i], &r);
        if (r != 0) {
            g[bottom--] = s;
            q = r;
        } else {
            q = s;
        }
    }
    g[bottom] = q;
    for (int i = bottom + 1; i < m; i++) {
        q = two_sum(g[i], q, &r);
        if (r != 0)
            e[top++] = r;
    }
    if (q != 0)
        e[top++] = q;
    return top;
}

/* x into the terms, or where they cannot hold it into the csum. */
static int terms_add(group_sum *g, double x)
{
    if (!(fabs(x) < SUM_BIG))
        return to_over(g, x);
    /* every slot, zeros included, and no branch on the terms: whether a
       TwoSum's error is 0 is a coin toss the predictor loses */
    double q = x, r;
    int m = 0;
    for (int i = 0; i < GROUP_SUM_TERMS; i++) {
        q = two_sum(q, g->e[i], &r);
        g->e[i] = 0;
        g->e[m] = r;
        m += r != 0;
    }
    if (m < GROUP_SUM_TERMS || q == 0) {
        if (m < GROUP_SUM_TERMS)
            g->e[m] = q;
        g->n = m + (m < GROUP_SUM_TERMS && q != 0);
        return 0;
    }
    double e[GROUP_SUM_TERMS + 1];
    memcpy(e, g->e, sizeof g->e);
    e[m] = q;
    m = compress(e, m + 1);
    memset(g->e, 0, sizeof g->e);
    g->n = m < GROUP_SUM_TERMS ? m : GROUP_SUM_TERMS;
    memcpy(g->e, e, (size_t)g->n * sizeof *e);
    /* still too wide: the csum holds any width */
    return m > GROUP_SUM_TERMS ? to_over(g, e[GROUP_SUM_TERMS]) : 0;
}

/* The integer part as three doubles, exactly: 42-bit pieces of it, each
 * scaled by a power of two. */
static int acc_terms(const group_sum *g, double *t)
{
    if (g->acc == 0)
        return 0;
    const group_acc mask = ((group_acc)1 << 42) - 1;
    t[0] = ldexp((double)(int64_t)(g->acc & mask), g->ex);
    t[1] = ldexp((double)(int64_t)((g->acc >> 42) & mask), g->ex + 42);
    t[2] = ldexp((double)(int64_t)(g->acc >> 84), g->ex + 84);
    return 3;
}

/* Units for x's binade (a normal, |x| in [SUM_TINY, SUM_BIG)), the
 * integer part moved to the terms first. */
static int rebase(group_sum *g, double x)
{
    double t[3];
    int k = acc_terms(g, t);
    g->acc = 0;
    g->ex = ilogb(x) - UNIT_BELOW;
    g->inv = ldexp(1.0, -g->ex);
    for (int i = 0; i < k; i++)
        if (t[i] != 0 && terms_add(g, t[i]))
            return -1;
    return 0;
}

/* x as a whole number of units; 0 when it is none (or 0 itself). */
static inline int units_of(const group_sum *g, double x, int64_t *u)
{
    double y = x * g->inv;
    if (!(fabs(y) < 0x1p63))
        return 0;
    *u = (int64_t)y;
    /* y == 0 from x != 0 is an underflow, not a whole number */
    return (double)*u == y && *u != 0;
}

int group_sum_add_any(group_sum *g, double x)
{
    int64_t u;
    if (g->ex != NO_UNIT && units_of(g, x, &u)) {
        g->acc += u;
        return 0;
    }
    double a = fabs(x);
    if (x == 0)
        return 0;
    /* larger than the units allow: new units (rare: a binade above) */
    if (a >= SUM_TINY && a < SUM_BIG &&
        (g->ex == NO_UNIT || ilogb(x) - UNIT_BELOW > g->ex)) {
        if (rebase(g, x))
            return -1;
        if (units_of(g, x, &u)) {
            g->acc += u;
            return 0;
        }
    }
    return terms_add(g, x);
}

/* |a| < 2^bits */
static int acc_below(group_acc a, int bits)
{
    group_acc lim = (group_acc)1 << bits;
    return a < lim && a > -lim;
}

/* dst.acc += src.acc where the units are near enough that neither
 * overflows, in the finer units: no piece to add one by one. */
static int merge_acc(group_sum *dst, const group_sum *src)
{
    if (dst->ex == NO_UNIT) {
        dst->acc = src->acc;
        dst->ex = src->ex;
        dst->inv = src->inv;
        return 1;
    }
    int d = src->ex - dst->ex;
    if (d < -60 || d > 60)
        return 0;
    const group_sum *fine = d >= 0 ? dst : src, *coarse = d >= 0 ? src : dst;
    int s = d >= 0 ? d : -d;
    if (!acc_below(fine->acc, 124) || !acc_below(coarse->acc, 124 - s))
        return 0;
    group_acc sum = fine->acc + coarse->acc * ((group_acc)1 << s);
    dst->ex = fine->ex;
    dst->inv = fine->inv;
    dst->acc = sum;
    return 1;
}

int group_sum_merge(group_sum *dst, const group_sum *src)
{
    double t[3];
    int k = src->acc != 0 && merge_acc(dst, src) ? 0 : acc_terms(src, t);
    for (int i = 0; i < k; i++)
        if (t[i] != 0 && group_sum_add(dst, t[i]))
            return -1;
    for (int i = 0; i < src->n; i++)
        if (group_sum_add(dst, src->e[i]))
            return -1;
    if (!src->over)
        return 0;
    if (!dst->over && to_over(dst, 0.0))
        return -1;
    return csum_merge(dst->over, src->over);
}

int group_sum_move(group_sum *g, csum *c)
{
    int rc = group_sum_add_to(g, c);
    group_sum_free(g);
    return rc;
}

int group_sum_add_to(const group_sum *g, csum *c)
{
    sacc a;
    double t[3];
    int k = acc_terms(g, t);
    sacc_init(&a);
    for (int i = 0; i < k; i++)
        sacc_add(&a, t[i]);
    for (int i = 0; i < g->n; i++)
        sacc_add(&a, g->e[i]);
    int rc = csum_add_taking(c, &a);
    if (!rc && g->over)
        rc = csum_merge(c, g->over);
    return rc;
}
