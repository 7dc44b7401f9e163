/* An exact sum built one value at a time, small enough for every group
 * and column of a job (--group-by). Most values enter a 128-bit integer
 * count of units 2^ex, ex chosen from the first value and raised when a
 * larger one comes, as a fixed-point accumulator does. Values that do not
 * fit it enter a few terms whose sum is theirs exactly (each added by
 * error-free TwoSums, Knuth's; zeros dropped, overlap compressed as
 * Shewchuk's Compress does). What fits neither goes to a csum (exact.h)
 * of its own, made then: rare. The value is exact, so the sum finalized
 * from it is the same double as from a superaccumulator. */
#ifndef COLSTAT_SRC_STATS_GROUP_SUM_H
#define COLSTAT_SRC_STATS_GROUP_SUM_H

#include <math.h>
#include <stdint.h>

#include "exact.h"

#define GROUP_SUM_TERMS 4

__extension__ typedef __int128 group_acc;

typedef struct group_sum {
    group_acc acc; /* units of 2^ex */
    double inv;    /* 2^-ex; 0 while there is no unit */
    int32_t ex;    /* INT32_MIN: no unit chosen yet */
    int32_t n;     /* terms in e; the rest of e is 0 */
    double e[GROUP_SUM_TERMS];
    csum *over; /* NULL until needed */
} group_sum;

void group_sum_init(group_sum *g);
void group_sum_free(group_sum *g); /* init'ed again */

int group_sum_add_any(group_sum *g, double x);

/* g += x (x not NaN). 0, or -1 when out of memory. Inline, the common
 * case: x a whole number of units (none chosen: inv is 0, never). */
static inline int group_sum_add(group_sum *g, double x)
{
    double y = x * g->inv;
    if (fabs(y) < 0x1p63) {
        int64_t u = (int64_t)y;
        /* y == 0 from x != 0 is an underflow, not a whole number */
        if ((double)u == y && u != 0) {
            g->acc += u;
            return 0;
        }
    }
    return group_sum_add_any(g, x);
}

/* dst += src. 0, or -1 when out of memory. */
int group_sum_merge(group_sum *dst, const group_sum *src);

/* c += g; g emptied. 0, or -1 when out of memory. */
int group_sum_move(group_sum *g, csum *c);

/* c += g, g as it was. 0, or -1 when out of memory. */
int group_sum_add_to(const group_sum *g, csum *c);

#endif
