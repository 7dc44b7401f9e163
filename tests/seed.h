/* Test randomness: a fresh seed each run, printed so a failure can be
 * replayed with COLSTAT_SEED=N. */
#ifndef COLSTAT_TESTS_SEED_H
#define COLSTAT_TESTS_SEED_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t test_seed(const char *suite)
{
    const char *env = getenv("COLSTAT_SEED");
    uint64_t s = env ? strtoull(env, NULL, 10)
                     : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    fprintf(stderr, "%s: seed %llu (replay with COLSTAT_SEED=%llu)\n", suite,
            (unsigned long long)s, (unsigned long long)s);
    return s;
}

/* splitmix64 (S. Vigna): small, fast, good enough to draw test inputs. */
static inline uint64_t test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 random bits. */
static inline double test_unif(uint64_t *state)
{
    return (double)(test_rand(state) >> 11) * 0x1p-53;
}

static inline int test_quick(void)
{
    return getenv("COLSTAT_TEST_QUICK") != NULL;
}

#endif
