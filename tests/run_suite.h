/* Runs a Check suite and gives main's exit status for ctest. fork is
 * Check's: CK_FORK_GETENV (its default, CK_FORK in the environment
 * decides), or CK_NOFORK where a test must share the process (a CUDA
 * context does not survive fork; seeds set in main). */
#ifndef COLSTAT_TESTS_RUN_SUITE_H
#define COLSTAT_TESTS_RUN_SUITE_H

#include <check.h>
#include <stdlib.h>

static inline int run_suite(Suite *s, enum fork_status fork)
{
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, fork);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
