/* Column selection (-c LIST) and the mapping of each input's fields to
 * the output columns: every item form, exclusions, the default with its
 * tentative columns, columns selected twice or sharing a name, messages
 * that name what does not resolve, random lists against a model of the
 * rules, and linear time on 200000 fields. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_reader.h"
#include "src/engine/columns.h"
#include "tests/testlib.h"

static uint64_t g_seed;

/* Selects list over names (numeric NULL: all CSV_NUMBERS); returns the
 * status, the table in *t (free it). */
static int pick(col_table *t, const char *list, char **names,
                const unsigned char *numeric, int n, int named, cs_error *e)
{
    unsigned char all[64];
    if (!numeric) {
        memset(all, CSV_NUMBERS, sizeof all);
        numeric = all;
    }
    col_fields f = {names, numeric, n, named, "in.csv", 0, NULL, 0};
    memset(e, 0, sizeof *e);
    return columns_learn(t, list, &f, e);
}

/* The table's fields as "1,3,4" (1-based), tentative ones after '+'. */
static const char *picked(const col_table *t)
{
    static char buf[4096];
    size_t k = 0;
    buf[0] = 0;
    for (int j = 0; j < t->ncols; j++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%d",
                              j == 0          ? ""
                              : j == t->nfirm ? "+"
                                              : ",",
                              t->fields[j] + 1);
    return buf;
}

static void expect(const char *list, char **names, int n, const char *want)
{
    col_table t;
    cs_error e;
    int rc = pick(&t, list, names, NULL, n, 1, &e);
    ck_assert_msg(rc == CS_OK, "-c '%s': %s", list, e.msg);
    ck_assert_msg(strcmp(picked(&t), want) == 0, "-c '%s': got %s, want %s",
                  list, picked(&t), want);
    columns_free(&t);
}

static void expect_error(const char *list, char **names, int n, int named,
                         const char *want1, const char *want2)
{
    col_table t;
    cs_error e;
    int rc = pick(&t, list, names, NULL, n, named, &e);
    ck_assert_msg(rc == CS_EUSAGE, "-c '%s': status %d", list, rc);
    ck_assert_msg(strstr(e.msg, want1), "-c '%s': '%s' lacks '%s'", list, e.msg,
                  want1);
    ck_assert_msg(!want2 || strstr(e.msg, want2), "-c '%s': '%s' lacks '%s'",
                  list, e.msg, want2);
}

/* Numbers first, in field order; then, tentatively, fields the sample saw
 * no value in; never text. */
START_TEST(default_numbers_then_unseen)
{
    char *names[] = {"a", "b", "c", "d", "e"};
    unsigned char num[] = {CSV_NUMBERS, CSV_TEXT, CSV_UNSEEN, CSV_NUMBERS,
                           CSV_UNSEEN};
    col_table t;
    cs_error e;
    ck_assert_int_eq(pick(&t, NULL, names, num, 5, 1, &e), CS_OK);
    ck_assert_str_eq(picked(&t), "1,4+3,5");
    ck_assert_int_eq(t.nfirm, 2);
    columns_free(&t);
    /* only exclusions: the default less them */
    ck_assert_int_eq(pick(&t, "!d, !/^e$/", names, num, 5, 1, &e), CS_OK);
    ck_assert_str_eq(picked(&t), "1+3");
    columns_free(&t);
    /* nothing numeric: no column, and no error here (the engine says it) */
    unsigned char text[] = {0, 0, 0, 0, 0};
    ck_assert_int_eq(pick(&t, NULL, names, text, 5, 1, &e), CS_OK);
    ck_assert_int_eq(t.ncols, 0);
    columns_free(&t);
}
END_TEST

START_TEST(item_forms)
{
    char *names[] = {"id", "temp_in", "temp_out", "2020", "!x", "p,q", "n"};
    expect("2", names, 7, "2");
    expect("2-3", names, 7, "2,3");
    expect("5-", names, 7, "5,6,7");
    expect("id", names, 7, "1");
    expect("2020", names, 7, "4"); /* a name wins over the index */
    expect("!x", names, 7, "5");   /* and over an exclusion */
    expect("/^temp_/", names, 7, "2,3");
    expect("/,/", names, 7, "6"); /* a comma inside a pattern */
    expect("/^(id|n)$/, 3", names, 7, "1,7,3");
    expect("  id ,\t3 ", names, 7, "1,3"); /* blanks trimmed */
    expect("1-7,!/^temp/,!2020", names, 7, "1,5,6,7");
    expect("!1-6", names, 7, "7");
    expect("7,1", names, 7, "7,1"); /* in the order given */
}
END_TEST

/* A column selected again prints once, where first selected; two fields
 * of one name are both selected by it, and stay apart by rank. */
START_TEST(twice_and_shared_names)
{
    char *names[] = {"id", "value", "value"};
    expect("3,3", names, 3, "3");
    expect("value,2", names, 3, "2,3");
    expect("2-3,3", names, 3, "2,3");
    expect("3,value", names, 3, "3,2");
    col_table t;
    cs_error e;
    ck_assert_int_eq(pick(&t, "3,2", names, NULL, 3, 1, &e), CS_OK);
    ck_assert_int_eq(t.rank[0], 1);
    ck_assert_int_eq(t.rank[1], 0);
    columns_free(&t);
}
END_TEST

START_TEST(bad_items_are_usage_errors)
{
    char *names[] = {"a", "b"};
    expect_error("c", names, 2, 1, "no column named 'c'", NULL);
    expect_error("3", names, 2, 1, "past the last (2)", NULL);
    expect_error("0", names, 2, 1, "bad range '0'", NULL);
    expect_error("2-1", names, 2, 1, "bad range", NULL);
    expect_error("a,,b", names, 2, 1, "empty item", NULL);
    expect_error("", names, 2, 1, "empty item", NULL);
    expect_error("a, ", names, 2, 1, "empty item", NULL);
    expect_error("1-x", names, 2, 1, "no column named '1-x'", NULL);
    expect_error("/z/", names, 2, 1, "no column name matches /z/", NULL);
    expect_error("!/z/", names, 2, 1, "no column name matches /z/", NULL);
    expect_error("!zz", names, 2, 1, "no column named 'zz'", NULL);
    expect_error("/[/", names, 2, 1, "bad regular expression /[/", NULL);
    expect_error("!", names, 2, 1, "excludes nothing", NULL);
    expect_error("a,!a", names, 2, 1, "leaves no column", NULL);
    expect_error("!1-2", names, 2, 1, "leaves no column", NULL);
}
END_TEST

/* Without a header the names are 1, 2, ...: a name or an index past the
 * last suggests --header (a header of numbers: year,2020,2021). */
START_TEST(no_header_hint)
{
    char *names[] = {"1", "2", "3"};
    expect_error("year", names, 3, 0, "no column named 'year'", "--header");
    expect_error("2021", names, 3, 0, "past the last (3)", "--header");
    expect_error("/^y/", names, 3, 0, "matches /^y/", "--header");
    char *named[] = {"year", "2020", "2021"};
    col_table t;
    cs_error e;
    ck_assert_int_eq(pick(&t, "nope", named, NULL, 3, 1, &e), CS_EUSAGE);
    ck_assert_msg(!strstr(e.msg, "--header"), "%s", e.msg);
}
END_TEST

/* The rules as a model: items select sets of fields, exclusions remove
 * theirs, each field once in the order first selected. */
typedef struct model {
    int nf;
    int order[256], n;
    unsigned char chosen[64], excluded[64];
} model;

static void model_mark(model *m, int f, int neg)
{
    if (neg)
        m->excluded[f] = 1;
    else if (!m->chosen[f]) {
        m->chosen[f] = 1;
        m->order[m->n++] = f;
    }
}

static void random_item(test_rng *r, model *m, char *item, size_t cap)
{
    int nf = m->nf;
    int a = (int)rng_below(r, (size_t)nf);
    int b = a + (int)rng_below(r, (size_t)(nf - a));
    int neg = rng_below(r, 5) == 0;
    const char *bang = neg ? "!" : "";
    switch (rng_below(r, 5)) {
    case 0:
        snprintf(item, cap, "%scol_%d", bang, a);
        model_mark(m, a, neg);
        break;
    case 1:
        snprintf(item, cap, " %s%d ", bang, a + 1);
        model_mark(m, a, neg);
        break;
    case 2:
        snprintf(item, cap, "%s%d-%d", bang, a + 1, b + 1);
        for (int k = a; k <= b; k++)
            model_mark(m, k, neg);
        break;
    case 3:
        snprintf(item, cap, "%s%d-", bang, a + 1);
        for (int k = a; k < nf; k++)
            model_mark(m, k, neg);
        break;
    default: /* the names ending in a's last digit */
        snprintf(item, cap, "%s/%d$/", bang, a % 10);
        for (int k = 0; k < nf; k++)
            if (k % 10 == a % 10)
                model_mark(m, k, neg);
    }
}

START_TEST(random_lists)
{
    test_rng r = rng_for(g_seed, 1);
    char *names[64];
    for (int i = 0; i < 64; i++) {
        names[i] = malloc(16);
        snprintf(names[i], 16, "col_%d", i);
    }
    for (int iter = 0; iter < 3000; iter++) {
        model m = {0};
        m.nf = 1 + (int)rng_below(&r, 40);
        char list[2048] = "", item[64];
        int items = 1 + (int)rng_below(&r, 6);
        for (int it = 0; it < items; it++) {
            random_item(&r, &m, item, sizeof item);
            if (it)
                strcat(list, ",");
            strcat(list, item);
        }
        char want[4096] = "";
        size_t k = 0;
        int any = 0;
        for (int i = 0; i < m.n; i++)
            if (!m.excluded[m.order[i]])
                k += (size_t)snprintf(want + k, sizeof want - k, "%s%d",
                                      any++ ? "," : "", m.order[i] + 1);
        if (m.n == 0) /* only exclusions: the default (all numbers) less */
            for (int f = 0; f < m.nf; f++)
                if (!m.excluded[f])
                    k += (size_t)snprintf(want + k, sizeof want - k, "%s%d",
                                          any++ ? "," : "", f + 1);
        if (!any)
            expect_error(list, names, m.nf, 1, "leaves no column", NULL);
        else
            expect(list, names, m.nf, want);
    }
    for (int i = 0; i < 64; i++)
        free(names[i]);
}
END_TEST

static void map_of(const col_table *t, char **names, int n, int named, int nmap,
                   int *map, int rc_want, cs_error *e)
{
    unsigned char num[64];
    memset(num, CSV_NUMBERS, sizeof num);
    col_fields f = {names, num, n, named, "next.csv", 0, NULL, 0};
    memset(e, 0, sizeof *e);
    ck_assert_int_eq(columns_map(t, &f, nmap, map, e), rc_want);
}

START_TEST(map_by_name_and_index)
{
    char *first[] = {"a", "b", "c", "d"};
    col_table t;
    cs_error e;
    ck_assert_int_eq(pick(&t, "b,d", first, NULL, 4, 1, &e), CS_OK);
    int map[5];
    char *names[] = {"d", "x", "b"};
    map_of(&t, names, 3, 1, 3, map, CS_OK, &e);
    ck_assert_int_eq(map[0], 1);
    ck_assert_int_eq(map[1], -1);
    ck_assert_int_eq(map[2], 0);
    /* By index, a short file still maps the fields it lacks (ragged). */
    map_of(&t, names, 3, 0, 4, map, CS_OK, &e);
    ck_assert_int_eq(map[1], 0);
    ck_assert_int_eq(map[3], 1);
    ck_assert_int_eq(map[0], -1);
    char *other[] = {"b", "c"};
    map_of(&t, other, 2, 1, 2, map, CS_EDATA, &e);
    ck_assert_msg(strstr(e.msg, "no column named 'd'") != NULL, "%s", e.msg);
    columns_free(&t);
}
END_TEST

/* Two columns of one name map, in a later file, to the fields of that
 * name in the same order (not both to one field, the other reading
 * nothing). */
START_TEST(map_shared_names)
{
    char *first[] = {"92", "-792", "92"};
    col_table t;
    cs_error e;
    ck_assert_int_eq(pick(&t, "1-3", first, NULL, 3, 1, &e), CS_OK);
    int map[4];
    map_of(&t, first, 3, 1, 3, map, CS_OK, &e);
    ck_assert_int_eq(map[0], 0);
    ck_assert_int_eq(map[1], 1);
    ck_assert_int_eq(map[2], 2);
    char *moved[] = {"92", "x", "-792", "92"};
    map_of(&t, moved, 4, 1, 4, map, CS_OK, &e);
    ck_assert_int_eq(map[0], 0);
    ck_assert_int_eq(map[1], -1);
    ck_assert_int_eq(map[2], 1);
    ck_assert_int_eq(map[3], 2);
    char *once[] = {"-792", "92"};
    map_of(&t, once, 2, 1, 2, map, CS_EDATA, &e);
    ck_assert_msg(strstr(e.msg, "1 column named '92'"), "%s", e.msg);
    columns_free(&t);
}
END_TEST

/* Choosing and mapping 200000 fields is linear (quadratic name
 * lookups took seconds at 100000); also when every field has one name. */
START_TEST(wide_is_linear)
{
    int n = 200000;
    char **names = malloc((size_t)n * sizeof *names);
    unsigned char *num = malloc((size_t)n);
    int *map = malloc((size_t)n * sizeof *map);
    for (int same = 0; same < 2; same++) {
        for (int i = 0; i < n; i++) {
            names[i] = malloc(16);
            snprintf(names[i], 16, same ? "x" : "c%d", i);
        }
        memset(num, CSV_NUMBERS, (size_t)n);
        col_fields f = {names, num, n, 1, "wide.csv", 0, NULL, 0};
        col_table t;
        cs_error e = {0};
        ck_assert_int_eq(columns_learn(&t, NULL, &f, &e), CS_OK);
        ck_assert_int_eq(t.ncols, n);
        ck_assert_int_eq(columns_map(&t, &f, n, map, &e), CS_OK);
        for (int i = 0; i < n; i++)
            ck_assert_int_eq(map[i], i);
        columns_free(&t);
        ck_assert_int_eq(columns_learn(&t, same ? "x" : "c199999,c7", &f, &e),
                         CS_OK);
        ck_assert_int_eq(t.ncols, same ? n : 2);
        columns_free(&t);
        for (int i = 0; i < n; i++)
            free(names[i]);
    }
    free(names);
    free(num);
    free(map);
}
END_TEST

int main(void)
{
    g_seed = test_seed("test_columns");
    Suite *s = suite_create("columns");
    TCase *tc = tcase_create("select");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, default_numbers_then_unseen);
    tcase_add_test(tc, item_forms);
    tcase_add_test(tc, twice_and_shared_names);
    tcase_add_test(tc, bad_items_are_usage_errors);
    tcase_add_test(tc, no_header_hint);
    tcase_add_test(tc, random_lists);
    tcase_add_test(tc, map_by_name_and_index);
    tcase_add_test(tc, map_shared_names);
    tcase_add_test(tc, wide_is_linear);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
