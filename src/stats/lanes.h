/* A batch of doubles' count, extrema and integrality, the first pass of
 * stats_add_values: what every column's reduction reads, so it runs four
 * doubles a step where the CPU has AVX2. */
#ifndef COLSTAT_SRC_STATS_LANES_H
#define COLSTAT_SRC_STATS_LANES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lanes {
    uint64_t count;  /* values that are not NaN */
    double min, max; /* +inf and -inf when count is 0 */
    int all_int;     /* every non-NaN value an integer of magnitude <= 2^64 */
} lanes;

/* v is an integer of magnitude at most 2^64 (the integer view's range, as
 * io/num/number_core.h's num_int_double). Below 2^52, adding and
 * subtracting 2^52 rounds |v| to an integer; above it every double is
 * one. No branch, so loops over it stay branch-free. */
static inline int lanes_int_range(double v)
{
    double a = fabs(v);
    return (a <= 0x1p64) & ((a >= 0x1p52) | ((a + 0x1p52) - 0x1p52 == a));
}

lanes lanes_scan(const double *v, size_t n);

/* The index of the first v[i] == x; x is one of v[0..n) (-0.0 == +0.0). */
size_t lanes_first_equal(const double *v, size_t n, double x);

/* Tests: 1 runs the portable loops, 0 the best the CPU has. */
void lanes_force_portable(int on);

#endif
