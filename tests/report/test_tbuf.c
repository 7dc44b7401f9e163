/* The report's text buffer (src/report/tbuf.c) against a plain reference
 * built beside it: random runs of put, putc, puts, printf (short and past
 * its stack room) and a stream on the buffer, across many growths; the
 * stream's bytes land in order between direct writes. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/tbuf.h"
#include "tests/testlib.h"

static uint64_t seed;

typedef struct ref {
    char *p;
    size_t len, cap;
} ref;

static void ref_put(ref *r, const char *s, size_t n)
{
    if (n == 0) /* no buffer yet, maybe; memcpy takes none */
        return;
    if (r->len + n > r->cap) {
        r->cap = (r->len + n) * 2;
        r->p = realloc(r->p, r->cap);
        ck_assert_ptr_nonnull(r->p);
    }
    memcpy(r->p + r->len, s, n);
    r->len += n;
}

static void random_text(test_rng *g, char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        s[i] = (char)(rng_below(g, 255) + 1); /* no NUL: puts reads it */
}

/* One step of each kind, the same bytes to both. */
static void step(test_rng *g, tbuf *b, ref *r, char *scratch)
{
    size_t n = rng_below(g, 8) == 0 ? rng_below(g, 5000) : rng_below(g, 40);
    random_text(g, scratch, n);
    scratch[n] = '\0';
    char num[64];
    switch (rng_below(g, 5)) {
    case 0:
        tbuf_put(b, scratch, n);
        ref_put(r, scratch, n);
        break;
    case 1:
        tbuf_putc(b, scratch[0] ? scratch[0] : 'x');
        ref_put(r, scratch[0] ? scratch : "x", 1);
        break;
    case 2:
        tbuf_puts(b, scratch);
        ref_put(r, scratch, n);
        break;
    case 3: { /* a format, its text past printf's stack room or not */
        unsigned long long v = rng_next(g);
        tbuf_printf(b, "%llu<%s>", v, scratch);
        int k = snprintf(num, sizeof num, "%llu<", v);
        ref_put(r, num, (size_t)k);
        ref_put(r, scratch, n);
        ref_put(r, ">", 1);
        break;
    }
    default: { /* through a stream on the buffer */
        FILE *f = tbuf_file(b);
        ck_assert_ptr_nonnull(f);
        fputs(scratch, f);
        fprintf(f, "%zu", n);
        ck_assert_int_eq(fclose(f), 0);
        ref_put(r, scratch, n);
        int k = snprintf(num, sizeof num, "%zu", n);
        ref_put(r, num, (size_t)k);
        break;
    }
    }
}

START_TEST(against_reference)
{
    test_rng g = rng_for(seed, 1);
    char *scratch = malloc(5001);
    ck_assert_ptr_nonnull(scratch);
    for (int round = 0; round < 20; round++) {
        tbuf b = {0};
        ref r = {0};
        size_t steps = rng_below(&g, test_quick() ? 2000 : 20000);
        for (size_t i = 0; i < steps; i++)
            step(&g, &b, &r, scratch);
        ck_assert_int_eq(b.bad, 0);
        ck_assert_uint_eq(b.len, r.len);
        ck_assert(b.len <= b.cap);
        ck_assert(r.len == 0 || memcmp(b.p, r.p, r.len) == 0);
        tbuf_free(&b);
        ck_assert_ptr_null(b.p);
        ck_assert_uint_eq(b.len, 0);
        free(r.p);
    }
    free(scratch);
}
END_TEST

/* Nothing written: an empty text, no buffer needed. */
START_TEST(empty)
{
    tbuf b = {0};
    tbuf_put(&b, "", 0);
    FILE *f = tbuf_file(&b);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_int_eq(b.bad, 0);
    tbuf_free(&b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("tbuf");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, against_reference);
    tcase_add_test(t, empty);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    seed = test_seed("test_tbuf");
    return run_suite(suite(), CK_FORK_GETENV);
}
