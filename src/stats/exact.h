/* Exact summation of doubles: a fixed-point superaccumulator wide enough
 * for any double and any square of one, after R. M. Neal, "Fast exact
 * summation using small and large superaccumulators" (arXiv:1505.05571,
 * 2015), with the square of x = m * 2^e added as the exact integer m*m
 * placed at 2^(2e). Merging is digit-wise addition, so a sum is the same
 * for any order, thread count or split of the input.
 *
 * Layout (the GPU backend writes the same layout, so both merge through
 * this code): value = sum over i of d[i] * 2^(32*i + SACC_LSB_EXP).
 * Between normalisations a digit may exceed 32 bits; each addition adds
 * less than 2^32 in magnitude to a digit, so up to SACC_MAX_PENDING
 * additions can be made before sacc_normalize must run. */
#ifndef COLSTAT_SRC_EXACT_H
#define COLSTAT_SRC_EXACT_H

#include <stddef.h>
#include <stdint.h>

#define SACC_DIGITS 137
#define SACC_LSB_EXP (-2176)
#define SACC_MAX_PENDING (1u << 30)

typedef struct sacc {
    int64_t d[SACC_DIGITS];
    uint32_t pending;          /* additions since the last normalisation */
    uint64_t pos_inf, neg_inf; /* infinities are counted, not added */
} sacc;

void sacc_init(sacc *a);
void sacc_add(sacc *a, double x);        /* x must not be NaN */
void sacc_add_square(sacc *a, double x); /* adds x*x exactly; not NaN */
/* Adds x*k exactly; |k| < 2^63. An infinite x counts as an infinity of
 * the product's sign (when k is not 0). */
void sacc_add_product(sacc *a, double x, int64_t k);
/* sacc_add (and, when sumsq is not NULL, sacc_add_square into sumsq) of
 * every non-NaN x[i]: the hot loop, with the pending check per block. */
void sacc_add_values(sacc *sum, sacc *sumsq, const double *x, size_t n);
void sacc_merge(sacc *dst, const sacc *src);
void sacc_normalize(sacc *a); /* digits to [0, 2^32), the top one signed */

/* The value rounded once to the nearest double (ties to even); +-inf
 * when infinities were added, NaN when both signs were. An exact zero is
 * +0 (also for a sum of -0.0 values). */
double sacc_value(const sacc *a);

/* The value over n (n > 0), rounded once; a negative value too small to
 * be a subnormal gives -0.0, as IEEE division would. */
double sacc_mean(const sacc *a, uint64_t n);

/* Sample standard deviation from the exact sum and sum of squares of n
 * values: sqrt((n*S2 - S1^2) / (n*(n-1))), the quotient rounded once
 * (after scaling by an even power of two, so it cannot overflow), then
 * the square root: within 2 ulps. NaN when n < 2 or infinities were
 * added. */
double sacc_std(const sacc *sum, const sacc *sumsq, uint64_t n);

/* When the value is an integer, writes its decimal digits (with '-') to
 * buf and returns 1; returns 0 when it is not an integer, is not finite or
 * does not fit in len bytes. */
int sacc_integer_string(const sacc *a, char *buf, size_t len);

#endif
