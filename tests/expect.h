/* Check's ck_assert_* reports every passing assertion through a pipe, which
 * dominates loops of millions; EXPECT only acts on failure. */
#ifndef COLSTAT_TESTS_EXPECT_H
#define COLSTAT_TESTS_EXPECT_H

#include <check.h>

#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond))                                                           \
            ck_abort_msg(__VA_ARGS__);                                         \
    } while (0)

#endif
