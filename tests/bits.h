/* A double's IEEE bits and back, for tests that compare or build values
 * bit for bit. */
#ifndef COLSTAT_TESTS_BITS_H
#define COLSTAT_TESTS_BITS_H

#include <stdint.h>
#include <string.h>

static inline uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline double from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

#endif
