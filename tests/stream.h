/* Per-test random streams for suites with many tests: each test draws from
 * its own stream (the run's seed mixed with a salt), so a failing test
 * replays alone with COLSTAT_SEED. */
#ifndef COLSTAT_TESTS_STREAM_H
#define COLSTAT_TESTS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "seed.h"

typedef struct rng {
    uint64_t s;
} rng;

static inline uint64_t next(rng *r)
{
    return test_rand(&r->s);
}

static inline size_t below(rng *r, size_t n)
{
    return n ? (size_t)(next(r) % n) : 0;
}

static inline rng rng_for(uint64_t seed, uint64_t salt)
{
    rng r = {seed ^ (salt * 0x2545f4914f6cdd1dULL)};
    next(&r);
    return r;
}

#endif
