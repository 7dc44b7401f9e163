#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/engine/columns.h"
#include "tests/testlib.h"

static uint64_t rng;

START_TEST(default_is_numeric_fields)
{
    char *names[] = {"a", "b", "c", "d"};
    unsigned char num[] = {1, 0, 1, 1};
    int *f = NULL, n = 0;
    cs_error e = {0};
    ck_assert_int_eq(columns_select(NULL, names, num, 4, "x", &f, &n, &e),
                     CS_OK);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(f[0], 0);
    ck_assert_int_eq(f[1], 2);
    ck_assert_int_eq(f[2], 3);
    free(f);
}
END_TEST

START_TEST(bad_items_are_usage_errors)
{
    char *names[] = {"a", "b"};
    unsigned char num[] = {1, 1};
    const char *bad[] = {"c", "3", "0", "2-1", "a,,b", "", "1-x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int *f = NULL, n = 0;
        cs_error e = {0};
        ck_assert_int_eq(columns_select(bad[i], names, num, 2, "x", &f, &n, &e),
                         CS_EUSAGE);
        ck_assert_msg(strstr(e.msg, "--columns") != NULL, "%s", e.msg);
    }
}
END_TEST

/* A name that looks like an index selects the column it names. */
START_TEST(name_wins_over_index)
{
    char *names[] = {"2", "x", "y"};
    unsigned char num[] = {1, 1, 1};
    int *f = NULL, n = 0;
    cs_error e = {0};
    ck_assert_int_eq(columns_select("2,3-", names, num, 3, "x", &f, &n, &e),
                     CS_OK);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(f[0], 0);
    ck_assert_int_eq(f[1], 2);
    free(f);
}
END_TEST

/* Random lists built from known choices: the selection must be exactly
 * the fields the choices spell, in order. */
START_TEST(random_lists)
{
    for (int iter = 0; iter < 2000; iter++) {
        int nf = 1 + (int)(test_rand(&rng) % 30);
        char **names = calloc((size_t)nf, sizeof *names);
        unsigned char num[32];
        for (int i = 0; i < nf; i++) {
            names[i] = malloc(16);
            snprintf(names[i], 16, "col_%d", i);
        }
        char list[1024] = "";
        int want[512] = {0}, nw = 0;
        int items = 1 + (int)(test_rand(&rng) % 6);
        for (int it = 0; it < items; it++) {
            char item[64];
            int a = (int)(test_rand(&rng) % (uint64_t)nf);
            int kind = (int)(test_rand(&rng) % 4);
            int b = a + (int)(test_rand(&rng) % (uint64_t)(nf - a));
            if (kind == 0) {
                snprintf(item, sizeof item, "col_%d", a);
                want[nw++] = a;
            } else if (kind == 1) {
                snprintf(item, sizeof item, "%d", a + 1);
                want[nw++] = a;
            } else if (kind == 2) {
                snprintf(item, sizeof item, "%d-%d", a + 1, b + 1);
                for (int k = a; k <= b; k++)
                    want[nw++] = k;
            } else {
                snprintf(item, sizeof item, "%d-", a + 1);
                for (int k = a; k < nf; k++)
                    want[nw++] = k;
            }
            if (it)
                strcat(list, ",");
            strcat(list, item);
        }
        int *f = NULL, n = 0;
        cs_error e = {0};
        ck_assert_int_eq(columns_select(list, names, num, nf, "x", &f, &n, &e),
                         CS_OK);
        ck_assert_int_eq(n, nw);
        for (int k = 0; k < n; k++)
            ck_assert_msg(f[k] == want[k], "list %s item %d", list, k);
        free(f);
        for (int i = 0; i < nf; i++)
            free(names[i]);
        free(names);
    }
}
END_TEST

START_TEST(map_by_name_and_index)
{
    char *out_names[] = {"b", "d"};
    int out_fields[] = {1, 3};
    char *names[] = {"d", "x", "b"};
    int map[4];
    cs_error e = {0};
    ck_assert_int_eq(
        columns_map(out_names, out_fields, 2, 1, names, 3, "f", 3, map, &e),
        CS_OK);
    ck_assert_int_eq(map[0], 1);
    ck_assert_int_eq(map[1], -1);
    ck_assert_int_eq(map[2], 0);
    /* By index, a short file still maps the fields it lacks (ragged). */
    ck_assert_int_eq(
        columns_map(out_names, out_fields, 2, 0, names, 3, "f", 4, map, &e),
        CS_OK);
    ck_assert_int_eq(map[1], 0);
    ck_assert_int_eq(map[3], 1);
    ck_assert_int_eq(map[0], -1);
    char *other[] = {"b", "c"};
    ck_assert_int_eq(
        columns_map(out_names, out_fields, 2, 1, other, 2, "f", 2, map, &e),
        CS_EDATA);
    ck_assert_msg(strstr(e.msg, "'d'") != NULL, "%s", e.msg);
}
END_TEST

int main(void)
{
    rng = test_seed("test_columns");
    Suite *s = suite_create("columns");
    TCase *tc = tcase_create("select");
    tcase_add_test(tc, default_is_numeric_fields);
    tcase_add_test(tc, bad_items_are_usage_errors);
    tcase_add_test(tc, name_wins_over_index);
    tcase_add_test(tc, random_lists);
    tcase_add_test(tc, map_by_name_and_index);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
