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
/* Tests: 1 runs sacc_add_values' portable loop, 0 the best the CPU has. */
void sacc_force_portable(int on);
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

/* A sum kept compact (a file of 100000 columns holds one per column per
 * job and more): the few digits a sum usually spans, in a window of
 * CSUM_WINDOW; the whole superaccumulator, on the heap, only once its
 * digits spread wider (numbers of very different magnitudes). Same value,
 * same results as a sacc, exactly. Digits are kept normalised to
 * [-2^31, 2^31), so that a negative sum is as compact as a positive. */
#define CSUM_WINDOW 8

typedef struct csum {
    int64_t w[CSUM_WINDOW]; /* digits lo .. lo + CSUM_WINDOW - 1 */
    int32_t lo;             /* -1: the finite part is 0 */
    sacc *all;              /* the whole, once spread (then w is unused) */
    uint64_t pos_inf, neg_inf;
} csum;

void csum_init(csum *c);
void csum_free(csum *c); /* csum_init'ed again */
/* c += a. Returns 0, or -1 when out of memory (c unchanged). */
int csum_add(csum *c, const sacc *a);
/* csum_add, a used up (its digits changed): an empty c takes a without
 * a copy of it (a million groups' sums are made so, 1 KiB each). */
int csum_add_taking(csum *c, sacc *a);
/* dst += src. Returns 0, or -1 when out of memory. */
int csum_merge(csum *dst, const csum *src);
/* The value as a sacc. */
void csum_get(const csum *c, sacc *a);

/* sacc_value, sacc_mean and sacc_integer_string of the value, the same
 * results, from the window alone where the sum is in it (a million
 * groups' sums are finalized each: the whole accumulator is 1 KiB). */
double csum_value(const csum *c);
double csum_mean(const csum *c, uint64_t n);
int csum_integer_string(const csum *c, char *buf, size_t len);

#endif
