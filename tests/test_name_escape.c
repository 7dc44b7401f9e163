/* The one-line spelling of column names (src/name_escape.h): any name
 * written by name_escape_write holds no line break and reads back, as a
 * -c item, as itself; names that need no escape print unchanged; the
 * items of a list keep their commas and patterns keep their backslashes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/name_escape.h"
#include "tests/testlib.h"

static uint64_t seed;

static char *escaped(const char *name)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    name_escape_write(f, name);
    fclose(f);
    return text;
}

static char *unescaped(const char *list)
{
    char *out = malloc(strlen(list) + 1);
    ck_assert_ptr_nonnull(out);
    name_unescape_list(list, out);
    return out;
}

START_TEST(round_trip)
{
    static const char pieces[] = "ab\\nr\n\r x";
    test_rng r = rng_for(seed, 1);
    int n = test_quick() ? 2000 : 20000;
    for (int t = 0; t < n; t++) {
        char name[32];
        size_t len = 1 + rng_below(&r, sizeof name - 1);
        for (size_t i = 0; i < len; i++)
            name[i] = pieces[rng_below(&r, sizeof pieces - 1)];
        name[len] = '\0';
        char *e = escaped(name);
        ck_assert_msg(!strpbrk(e, "\n\r"), "a line break in '%s'", e);
        char *back = unescaped(e);
        ck_assert_str_eq(back, name);
        free(back);
        free(e);
    }
}
END_TEST

START_TEST(plain_names_unchanged)
{
    static const char *const names[] = {"price", "back\\slash", "C:\\tmp",
                                        "a\\b",  "t\\",         "x y"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *e = escaped(names[i]);
        ck_assert_str_eq(e, names[i]);
        free(e);
    }
}
END_TEST

START_TEST(lists)
{
    static const char *const cases[][2] = {
        {"a\\nb,c", "a\nb,c"},
        {"2,4-6, x\\r\\ny ", "2,4-6, x\r\ny "},
        {"/^a\\nb$/,a\\\\n", "/^a\\nb$/,a\\n"},
        {"!/x\\n,y/ ,!p\\nq", "!/x\\n,y/ ,!p\nq"},
        {"/a/b\\n", "/a/b\n"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = unescaped(cases[i][0]);
        ck_assert_str_eq(got, cases[i][1]);
        free(got);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("name_escape");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, plain_names_unchanged);
    tcase_add_test(tc, lists);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    seed = test_seed("test_name_escape");
    return run_suite(suite(), CK_FORK_GETENV);
}
