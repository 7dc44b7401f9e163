/* --device auto's policy: the CPU for small inputs, the GPU for large
 * plain ones when there is a GPU, the CPU for compressed inputs and
 * streams (bound by decompression or of unknown size), and never a GPU
 * that is not there. Sizes drawn at random on each side of the crossover
 * that the policy itself reports. */
#include <check.h>
#include <string.h>

#include "src/engine/policy.h"
#include "src/stats/stats.h"
#include "tests/testlib.h"

static uint64_t rng;

static policy_choice choose(int gpu, int binary, unsigned what, probe_kind k,
                            uint64_t bytes, int threads)
{
    policy_params p = {threads, gpu, binary, what, 0, 0};
    probe_info in = {k, bytes};
    policy_choice c;
    policy_choose(&p, &in, 1, &c);
    return c;
}

/* The smallest size the policy sends to the GPU, by bisection. */
static uint64_t crossover(int binary, unsigned what, int threads)
{
    uint64_t lo = 1, hi = (uint64_t)1 << 50;
    while (lo + 1 < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (choose(1, binary, what, PROBE_PLAIN, mid, threads).gpu)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

START_TEST(small_cpu_large_gpu)
{
    static const unsigned whats[] = {STAT_DEFAULT, STAT_SUM | STAT_MAX,
                                     STAT_ALL};
    for (int it = 0; it < 200; it++) {
        int binary = (int)(test_rand(&rng) % 2);
        unsigned what = whats[test_rand(&rng) % 3];
        int threads = 1 + (int)(test_rand(&rng) % 64);
        uint64_t x = crossover(binary, what, threads);
        /* a GPU's fixed cost is worth paying only for tens of MB */
        ck_assert_uint_gt(x, 10u << 20);
        ck_assert_uint_lt(x, (uint64_t)1 << 45);
        uint64_t small = test_rand(&rng) % x, big = x + test_rand(&rng) % x;
        ck_assert(!choose(1, binary, what, PROBE_PLAIN, small, threads).gpu);
        policy_choice c = choose(1, binary, what, PROBE_PLAIN, big, threads);
        ck_assert_msg(c.gpu, "%s", c.why);
        ck_assert(strstr(c.why, "GPU") != NULL);
        /* no GPU, no GPU; streams and other compressed inputs stay on the
         * CPU; gzip, decoded in parallel either way, goes to the faster
         * parser */
        ck_assert(!choose(0, binary, what, PROBE_PLAIN, big, threads).gpu);
        ck_assert(!choose(1, binary, what, PROBE_STREAM, 0, threads).gpu);
        c = choose(1, binary, what, PROBE_GZIP, 1u << 20, threads);
        ck_assert_msg(!c.gpu, "%s", c.why);
        ck_assert(choose(1, binary, what, PROBE_GZIP, big, threads).gpu);
        ck_assert(!choose(1, binary, what, PROBE_COMPRESSED, big, threads).gpu);
    }
}
END_TEST

/* Plain CSV's sums on the GPU host's 16 threads (bench/auto, 2026-11-28):
 * the CPU 0.449 s at 2 GB against the GPU's 0.534, the GPU 0.632 s at 4
 * GB against the CPU's 0.863: the crossover lies between. */
START_TEST(sums_crossover_between_2_and_4_gb)
{
    uint64_t x = crossover(0, STAT_SUM | STAT_MAX, 16);
    ck_assert_uint_gt(x, UINT64_C(2000000000));
    ck_assert_uint_lt(x, UINT64_C(4000000000));
}
END_TEST

/* -a keeps the values: 16 threads, the CPU 0.267 s at 350 MB against the
 * GPU's 0.504, the GPU 0.476 s at 500 MB against the CPU's 0.496. */
START_TEST(kept_values_crossover_between_350_and_500_mb)
{
    uint64_t x = crossover(0, STAT_ALL, 16);
    ck_assert_uint_gt(x, UINT64_C(350000000));
    ck_assert_uint_lt(x, UINT64_C(500000000));
}
END_TEST

/* Several inputs add up: many small files can make one large run. */
START_TEST(inputs_add_up)
{
    uint64_t x = crossover(0, STAT_DEFAULT, 16);
    probe_info in[64];
    for (int i = 0; i < 64; i++)
        in[i] = (probe_info){PROBE_PLAIN, x / 32};
    policy_params p = {16, 1, 0, STAT_DEFAULT, 0, 0};
    policy_choice c;
    policy_choose(&p, in, 64, &c);
    ck_assert(c.gpu);
    policy_choose(&p, in, 16, &c);
    ck_assert(!c.gpu);
}
END_TEST

/* --group-by: the device parses and groups plain CSV past a crossover
 * (hundreds of MB on 16 threads: bench/RESULTS.md, 500 MB the CPU's and
 * 2 GB the GPU's), binary records never; streams stay on the CPU. */
START_TEST(group_by)
{
    for (int it = 0; it < 100; it++) {
        int threads = 1 + (int)(test_rand(&rng) % 64);
        policy_params p = {threads, 1, 0, STAT_SUM | STAT_MAX, 0, 1};
        uint64_t lo = 1, hi = (uint64_t)1 << 50;
        while (lo + 1 < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            probe_info in = {PROBE_PLAIN, mid};
            policy_choice c;
            policy_choose(&p, &in, 1, &c);
            *(c.gpu ? &hi : &lo) = mid;
        }
        if (threads == 16) {
            ck_assert_uint_gt(hi, 500u << 20);
            ck_assert_uint_lt(hi, (uint64_t)2 << 30);
        }
        ck_assert_uint_gt(hi, 10u << 20);
        policy_choice c;
        probe_info big = {PROBE_PLAIN, hi + test_rand(&rng) % hi};
        policy_choose(&p, &big, 1, &c);
        ck_assert_msg(c.gpu, "%s", c.why);
        probe_info stream = {PROBE_STREAM, 0};
        policy_choose(&p, &stream, 1, &c);
        ck_assert(!c.gpu);
        p.binary = 1;
        policy_choose(&p, &big, 1, &c);
        ck_assert_msg(!c.gpu, "%s", c.why);
    }
}
END_TEST

/* --distinct, --mode, --top cost the CPU more a byte than sums, the
 * device about what keeping the values does: their crossover lies below
 * the sums' (16 threads: 700 MB of CSV goes to the device with them,
 * stays on the CPU without), and still above tens of MB. */
START_TEST(profiles_move_the_crossover)
{
    unsigned prof[] = {STAT_DISTINCT, STAT_MODE, STAT_TOP,
                       STAT_SUM | STAT_DISTINCT};
    for (int i = 0; i < 4; i++) {
        ck_assert(
            !choose(1, 0, STAT_SUM | STAT_MAX, PROBE_PLAIN, 700u << 20, 16)
                 .gpu);
        policy_choice c = choose(1, 0, prof[i], PROBE_PLAIN, 700u << 20, 16);
        ck_assert_msg(c.gpu, "%s", c.why);
        for (int threads = 1; threads <= 64; threads *= 2) {
            uint64_t x = crossover(0, prof[i], threads);
            ck_assert_uint_gt(x, 10u << 20);
            ck_assert_uint_le(x, crossover(0, STAT_SUM | STAT_MAX, threads));
        }
    }
}
END_TEST

int main(void)
{
    rng = test_seed("test_policy");
    Suite *s = suite_create("policy");
    TCase *tc = tcase_create("policy");
    tcase_add_test(tc, small_cpu_large_gpu);
    tcase_add_test(tc, inputs_add_up);
    tcase_add_test(tc, sums_crossover_between_2_and_4_gb);
    tcase_add_test(tc, kept_values_crossover_between_350_and_500_mb);
    tcase_add_test(tc, group_by);
    tcase_add_test(tc, profiles_move_the_crossover);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
