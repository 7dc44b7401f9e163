/* shortest_decimal (Ryu) alone: known answers, and on random doubles the
 * digits read back as the double (strtod) while one digit fewer, rounded
 * either way, does not. */
#include "../testlib.h"
#include "src/report/shortest.h"

#include <math.h>

static uint64_t seed;

static void init_seed(void)
{
    seed = test_seed("shortest");
}

static double read_back(uint64_t d, int e)
{
    char text[48];
    snprintf(text, sizeof text, "%llue%d", (unsigned long long)d, e);
    return strtod(text, NULL);
}

START_TEST(known)
{
    static const struct {
        double v;
        uint64_t d;
        int e;
    } cases[] = {
        {1, 1, 0},
        {0.1, 1, -1},
        {0.1 + 0.2, 30000000000000004ull, -17},
        {5e-324, 5, -324},
        {1.7976931348623157e308, 17976931348623157ull, 292},
        {9007199254740993.0, 9007199254740992ull, 0},
        {1e23, 1, 23},
        {-2.5, 25, -1},
        {123456789012345680.0, 12345678901234568ull, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t d;
        int e;
        shortest_decimal(cases[i].v, &d, &e);
        ck_assert_msg(d == cases[i].d && e == cases[i].e,
                      "%.17g: %llue%d, not %llue%d", cases[i].v,
                      (unsigned long long)d, e, (unsigned long long)cases[i].d,
                      cases[i].e);
    }
}
END_TEST

START_TEST(random_round_trip)
{
    uint64_t r = seed;
    long n = test_quick() ? 50000 : 1000000;
    for (long i = 0; i < n; i++) {
        double v = fabs(from_bits(test_rand(&r)));
        if (!isfinite(v) || v == 0)
            continue;
        uint64_t d;
        int e;
        shortest_decimal(v, &d, &e);
        ck_assert_msg(d % 10 != 0, "%a: trailing zero in %llu", v,
                      (unsigned long long)d);
        ck_assert_msg(read_back(d, e) == v, "%a: %llue%d reads back as %a", v,
                      (unsigned long long)d, e, read_back(d, e));
        if (d >= 10) {
            ck_assert(read_back(d / 10, e + 1) != v);
            ck_assert(read_back(d / 10 + 1, e + 1) != v);
        }
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("shortest");
    TCase *t = tcase_create("ryu");
    tcase_set_timeout(t, 300);
    tcase_add_unchecked_fixture(t, init_seed, NULL);
    tcase_add_test(t, known);
    tcase_add_test(t, random_round_trip);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return run_suite(suite(), CK_FORK_GETENV);
}
