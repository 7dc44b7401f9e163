/* What the unit tests share: the Check runner, seeded randomness (a fresh
 * seed each run, printed, COLSTAT_SEED replays it), per-test random
 * streams, bit views of doubles and a quiet EXPECT. */
#ifndef COLSTAT_TESTS_TESTLIB_H
#define COLSTAT_TESTS_TESTLIB_H
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Runs a Check suite and gives main's exit status for ctest. fork is
 * Check's: CK_FORK_GETENV (its default, CK_FORK in the environment
 * decides), or CK_NOFORK where a test must share the process (a CUDA
 * context does not survive fork; seeds set in main). */

static inline int run_suite(Suite *s, enum fork_status fork)
{
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, fork);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Test randomness: a fresh seed each run, printed so a failure can be
 * replayed with COLSTAT_SEED=N. */

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

/* Per-test random streams for suites with many tests: each test draws from
 * its own stream (the run's seed mixed with a salt), so a failing test
 * replays alone with COLSTAT_SEED. */

typedef struct test_rng {
    uint64_t s;
} test_rng;

static inline uint64_t rng_next(test_rng *r)
{
    return test_rand(&r->s);
}

static inline size_t rng_below(test_rng *r, size_t n)
{
    return n ? (size_t)(rng_next(r) % n) : 0;
}

static inline test_rng rng_for(uint64_t seed, uint64_t salt)
{
    test_rng r = {seed ^ (salt * 0x2545f4914f6cdd1dULL)};
    rng_next(&r);
    return r;
}

/* A double's IEEE bits and back, for tests that compare or build values
 * bit for bit. */

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

/* Check's ck_assert_* reports every passing assertion through a pipe, which
 * dominates loops of millions; EXPECT only acts on failure. */

#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond))                                                           \
            ck_abort_msg(__VA_ARGS__);                                         \
    } while (0)

#endif
