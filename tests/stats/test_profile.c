/* src/stats/profile.c and vcount.c against a plain reference: random
 * numbers (zeros of both signs, integers with corrections, halves) and
 * random byte strings, split at random into parts that are merged in
 * order; distinct counts, counts and the top values' order (count, then
 * the smaller value) compared with a quadratic count over the values.
 * COLSTAT_SEED reproduces a run. */
#include "src/stats/profile.h"
#include "src/stats/stats.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testlib.h"

static uint64_t seed;

typedef struct ref_val {
    double d;
    int32_t r;
    char s[8];
    size_t len;
    uint64_t count;
} ref_val;

static int ref_cmp_num(const ref_val *a, const ref_val *b)
{
    if (a->d != b->d)
        return a->d < b->d ? -1 : 1;
    return (a->r > b->r) - (a->r < b->r);
}

static int ref_cmp_text(const ref_val *a, const ref_val *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->s, b->s, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* Counts v into ref[*n], quadratically: the reference. */
static void ref_add(ref_val *ref, size_t *n, const ref_val *v, int text)
{
    for (size_t i = 0; i < *n; i++)
        if (!(text ? ref_cmp_text(&ref[i], v) : ref_cmp_num(&ref[i], v))) {
            ref[i].count++;
            return;
        }
    ref[*n] = *v;
    ref[(*n)++].count = 1;
}

/* Whether top is the reference's order: count down, value up. */
static void check_top(const prof_summary *p, ref_val *ref, size_t n, int text)
{
    ck_assert_uint_eq(p->distinct, n);
    for (size_t i = 0; i < p->ntop; i++) {
        const prof_value *v = &p->top[i];
        ref_val x = {v->d, v->r, {0}, v->len, v->count};
        if (text)
            memcpy(x.s, v->text, v->len);
        size_t j = 0;
        while (j < n &&
               (text ? ref_cmp_text(&ref[j], &x) : ref_cmp_num(&ref[j], &x)))
            j++;
        ck_assert_uint_lt(j, n);
        ck_assert_uint_eq(ref[j].count, v->count);
        /* nothing outside the top beats it */
        for (size_t k = 0; k < n; k++) {
            int before = ref[k].count > v->count ||
                         (ref[k].count == v->count &&
                          (text ? ref_cmp_text(&ref[k], &x)
                                : ref_cmp_num(&ref[k], &x)) < 0);
            if (before) {
                int in_top = 0;
                for (size_t t = 0; t < i; t++)
                    in_top |=
                        text ? p->top[t].len == ref[k].len &&
                                   !memcmp(p->top[t].text, ref[k].s, ref[k].len)
                             : p->top[t].d == ref[k].d &&
                                   p->top[t].r == ref[k].r;
                ck_assert(in_top);
            }
        }
    }
}

START_TEST(test_numbers)
{
    test_rng g = rng_for(seed, 1);
    for (int round = 0; round < (test_quick() ? 20 : 200); round++) {
        size_t n = 1 + rng_below(&g, 3000);
        double *v = malloc(n * sizeof *v);
        int32_t *r = calloc(n, sizeof *r);
        ref_val *ref = calloc(n, sizeof *ref);
        size_t nref = 0;
        int ints = rng_below(&g, 2);
        for (size_t i = 0; i < n; i++) {
            size_t k = rng_below(&g, 40);
            v[i] = k == 0 ? -0.0 : k == 1 ? NAN : (double)k - 20;
            if (!ints && rng_below(&g, 4) == 0)
                v[i] += 0.5;
            if (ints && rng_below(&g, 8) == 0) {
                v[i] = 0x1p60;
                r[i] = (int32_t)rng_below(&g, 3);
            }
            if (!isnan(v[i])) {
                /* not an integer column: one value a double */
                ref_val x = {v[i] == 0 ? 0 : v[i], ints ? r[i] : 0, {0}, 0, 0};
                ref_add(ref, &nref, &x, 0);
            }
        }
        col_prof whole, part;
        ck_assert_int_eq(profile_init(&whole, 1), 0);
        ck_assert_int_eq(profile_init(&part, 1), 0);
        for (size_t at = 0; at < n;) {
            size_t m = 1 + rng_below(&g, n - at);
            profile_clear(&part);
            ck_assert_int_eq(profile_add_numbers(&part, v + at, r + at, m), 0);
            ck_assert_int_eq(profile_merge(&whole, &part), 0);
            at += m;
        }
        prof_summary s;
        size_t k = 1 + rng_below(&g, 10);
        ck_assert_int_eq(profile_finalize(&whole, 0, ints, k, &s), 0);
        check_top(&s, ref, nref, 0);
        ck_assert_uint_eq(s.ntop, nref < k ? nref : k);
        profile_summary_free(&s);
        profile_free(&whole);
        profile_free(&part);
        free(v);
        free(r);
        free(ref);
    }
}
END_TEST

START_TEST(test_texts)
{
    test_rng g = rng_for(seed, 2);
    for (int round = 0; round < (test_quick() ? 20 : 200); round++) {
        size_t n = 1 + rng_below(&g, 2000);
        ref_val *ref = calloc(n, sizeof *ref);
        size_t nref = 0;
        col_prof whole, part;
        ck_assert_int_eq(profile_init(&whole, 1), 0);
        ck_assert_int_eq(profile_init(&part, 1), 0);
        uint64_t missing = 0;
        for (size_t i = 0; i < n; i++) {
            if (rng_below(&g, 7) == 0) {
                missing++;
                ck_assert_int_eq(profile_add_text(&part, NULL, 0), 0);
                continue;
            }
            ref_val x = {0, 0, {0}, 1 + rng_below(&g, 3), 0};
            for (size_t j = 0; j < x.len; j++)
                x.s[j] = "ab\xc3\xa9\xff"[rng_below(&g, 5)];
            ck_assert_int_eq(profile_add_text(&part, x.s, x.len), 0);
            ref_add(ref, &nref, &x, 1);
            if (rng_below(&g, 50) == 0) {
                ck_assert_int_eq(profile_merge(&whole, &part), 0);
                profile_clear(&part);
            }
        }
        ck_assert_int_eq(profile_merge(&whole, &part), 0);
        ck_assert_uint_eq(whole.missing, missing);
        ck_assert_uint_eq(whole.count, n - missing);
        prof_summary s;
        ck_assert_int_eq(profile_finalize(&whole, 1, 0, 5, &s), 0);
        check_top(&s, ref, nref, 1);
        profile_summary_free(&s);
        profile_free(&whole);
        profile_free(&part);
        free(ref);
    }
}
END_TEST

START_TEST(test_lengths)
{
    ck_assert_uint_eq(profile_length("abc", 3), 3);
    ck_assert_uint_eq(profile_length("caf\xc3\xa9", 5), 4);
    ck_assert_uint_eq(profile_length("\xf0\x9f\x98\x80", 4), 1);
    ck_assert_uint_eq(profile_length("\xe6\x97\xa5\xe6\x9c\xac", 6), 2);
    ck_assert_uint_eq(profile_length("ab\xc3", 3), 3);           /* cut */
    ck_assert_uint_eq(profile_length("\xed\xa0\x80", 3), 3);     /* surrogate */
    ck_assert_uint_eq(profile_length("\xc0\xaf", 2), 2);         /* overlong */
    ck_assert_uint_eq(profile_length("\xf4\x90\x80\x80", 4), 4); /* > 10FFFF */
    ck_assert_uint_eq(profile_length("", 0), 0);
    /* past 8 bytes (ASCII is counted 8 bytes a step): a multibyte
       character in the first word, in the second, in the tail */
    ck_assert_uint_eq(profile_length("abcdefghijklmnopq", 17), 17);
    ck_assert_uint_eq(profile_length("\xc3\xa9"
                                     "bcdefghijk",
                                     12),
                      11);
    ck_assert_uint_eq(profile_length("abcdefghij\xc3\xa9kl", 14), 13);
    ck_assert_uint_eq(profile_length("abcdefghijklmnopq\xe6\x97\xa5", 20), 18);
    ck_assert_uint_eq(profile_length("abcdefghijklmnop\xc3", 17), 17); /* cut */
}
END_TEST

/* The reference's index of key[0, len) among ref[0, n), or n. */
static size_t ref_find(const ref_val *ref, size_t n, const char *key,
                       size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (ref[i].len == len && memcmp(ref[i].s, key, len) == 0)
            return i;
    return n;
}

/* vcount_bump adds to a key that is there and leaves a table without it
 * as it was: keys of 1 to 3 bytes of a small alphabet, so that bumps meet
 * present and absent keys alike, against a list of the keys added. */
START_TEST(test_bump)
{
    test_rng g = rng_for(seed, 3);
    for (int round = 0; round < (test_quick() ? 20 : 200); round++) {
        vcount *t = vcount_new();
        ck_assert_ptr_nonnull(t);
        ref_val ref[4 + 16 + 64];
        size_t nref = 0, steps = 1 + rng_below(&g, 400);
        for (size_t i = 0; i < steps; i++) {
            size_t len = 1 + rng_below(&g, 3);
            char key[3];
            for (size_t j = 0; j < len; j++)
                key[j] = (char)('a' + rng_below(&g, 4));
            uint64_t n = rng_below(&g, 5);
            size_t at = ref_find(ref, nref, key, len);
            if (rng_below(&g, 2)) {
                ck_assert_int_eq(vcount_bump(t, key, len, n), at < nref);
                if (at < nref)
                    ref[at].count += n;
            } else {
                ck_assert_int_eq(vcount_add(t, key, len, n), 0);
                if (at == nref) {
                    memcpy(ref[nref].s, key, len);
                    ref[nref].len = len;
                    ref[nref++].count = 0;
                }
                ref[at].count += n;
            }
            ck_assert_uint_eq(vcount_size(t), nref);
        }
        for (size_t i = 0; i < vcount_size(t); i++) {
            size_t len;
            const char *k = vcount_key(t, i, &len);
            size_t at = ref_find(ref, nref, k, len);
            ck_assert_uint_lt(at, nref);
            ck_assert_uint_eq(vcount_count(t, i), ref[at].count);
        }
        vcount_free(t);
    }
}
END_TEST

int main(void)
{
    seed = test_seed("test_profile");
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_texts);
    tcase_add_test(tc, test_lengths);
    tcase_add_test(tc, test_bump);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
