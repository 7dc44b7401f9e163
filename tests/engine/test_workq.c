#include <check.h>
#include <stdlib.h>
#include <time.h>

#include "src/engine/workq.h"
#include "tests/testlib.h"

typedef struct item {
    wq_item it;
    unsigned delay_us;
    int runs;
    unsigned long long value, result;
} item;

static void run(wq_item *w)
{
    item *x = (item *)w;
    struct timespec ts = {0, (long)x->delay_us * 1000};
    nanosleep(&ts, NULL);
    x->runs++;
    x->result = x->value * x->value + 1;
}

/* Every item runs exactly once, whatever the thread count and delays, and
 * waiting in submission order sees each result complete. */
START_TEST(each_item_runs_once)
{
    uint64_t rng = test_seed("test_workq");
    for (int threads = 1; threads <= 5; threads++) {
        workq *q = workq_start(threads);
        ck_assert_ptr_nonnull(q);
        enum { N = 300 };
        item *items = calloc(N, sizeof *items);
        for (int i = 0; i < N; i++) {
            items[i].it.run = run;
            items[i].delay_us = (unsigned)(test_rand(&rng) % 200);
            items[i].value = test_rand(&rng) >> 33;
            workq_push(q, &items[i].it);
        }
        for (int i = 0; i < N; i++) {
            workq_wait(q, &items[i].it);
            ck_assert_int_eq(items[i].runs, 1);
            ck_assert(items[i].result == items[i].value * items[i].value + 1);
        }
        workq_stop(q);
        free(items);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("workq");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, each_item_runs_once);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
