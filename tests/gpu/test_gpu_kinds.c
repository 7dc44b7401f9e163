/* The device's parsing of column kinds (gpu_parse_kind_fields,
 * gpu/parse_field.cuh over io/num/kind_core.h) against the host's
 * parse_kind_fmt: dates and datetimes of every accepted form, numbers
 * with each unit and separators, and their mutants (a byte changed,
 * dropped or added), in every column kind: the same kind, the same bits
 * and correction for every field; "hard" (4) only where the host reads a
 * number. Seed logged (COLSTAT_SEED replays). Skips (77) without a
 * usable device. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef COLSTAT_HAVE_GPU
#include "gpu/gpu.h"
#include "io/num/parse_kind.h"

#include "tests/testlib.h"

static uint64_t seed;

static int pick(uint64_t *r, int n)
{
    return (int)(test_rand(r) % (uint64_t)n);
}

/* A random date, datetime or number with a unit, maybe mutated. */
static size_t draw(uint64_t *r, char *s, size_t cap)
{
    int n;
    if (pick(r, 2)) {
        n = snprintf(s, cap, "%04d-%02d-%02d", 1 + pick(r, 9999),
                     1 + pick(r, 12), 1 + pick(r, 31));
        if (pick(r, 3))
            n += snprintf(s + n, cap - (size_t)n, "%c%02d:%02d:%02d.%0*d%s",
                          "T "[pick(r, 2)], pick(r, 25), pick(r, 61),
                          pick(r, 61), 1 + pick(r, 9), pick(r, 1000),
                          pick(r, 2)   ? "Z"
                          : pick(r, 2) ? "+05:30"
                                       : "-0800");
    } else {
        unsigned k = KIND_UNIT + (unsigned)pick(r, KIND_NUNITS);
        const char *u = kind_unit_name(k);
        int v = pick(r, 2000000) - 1000000;
        n = k < KIND_UNIT + KIND_U_PERCENT
                ? snprintf(s, cap, "%s%s%d,%03d.5", v < 0 ? "-" : "", u,
                           abs(v) / 1000, abs(v) % 1000)
                : snprintf(s, cap, "%d.%02d%s%s", v, pick(r, 100),
                           pick(r, 2) ? " " : "", u);
    }
    if (pick(r, 4) == 0) { /* a mutant */
        int at = pick(r, n), how = pick(r, 3);
        if (how == 0)
            s[at] = (char)(32 + pick(r, 95));
        else if (how == 1)
            memmove(s + at, s + at + 1, (size_t)(n-- - at));
        else if (n + 1 < (int)cap) {
            memmove(s + at + 1, s + at, (size_t)(n++ - at + 1));
            s[at] = "0-:.T Z+$%s"[pick(r, 11)];
        }
    }
    return (size_t)n;
}

START_TEST(test_random_fields)
{
    uint64_t r = seed;
    size_t n = test_quick() ? 4000 : 60000, cap = n * 48;
    char *text = malloc(cap);
    size_t *off = malloc(n * sizeof *off), *len = malloc(n * sizeof *len);
    int *kind = malloc(n * sizeof *kind);
    double *val = malloc(n * sizeof *val);
    int32_t *corr = malloc(n * sizeof *corr);
    ck_assert(text && off && len && kind && val && corr);
    num_format fmt;
    num_format_init(&fmt);
    fmt.thousands = ',';
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        off[i] = at;
        len[i] = draw(&r, text + at, 48);
        at += len[i];
    }
    static const unsigned kinds[] = {KIND_DATE,
                                     KIND_DATETIME,
                                     KIND_DATETIME_Z,
                                     KIND_UNIT + KIND_U_MS,
                                     KIND_UNIT + KIND_U_DOLLAR,
                                     KIND_UNIT + KIND_U_MICRO,
                                     KIND_NUMBER};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        cs_error e = {0};
        ck_assert_msg(gpu_parse_kind_fields(text, at, off, len, n, &fmt,
                                            kinds[k], kind, val, corr, &e) == 0,
                      "%s", e.msg);
        for (size_t i = 0; i < n; i++) {
            double v = 0;
            int32_t c = 0;
            num_kind want =
                parse_kind_fmt(text + off[i], len[i], &fmt, kinds[k], &v, &c);
            if (kind[i] == 4 && want == NUM_OK)
                continue; /* the host's fallback rounds it */
            ck_assert_msg(
                kind[i] == (int)want &&
                    (want != NUM_OK ||
                     (memcmp(&v, &val[i], sizeof v) == 0 && c == corr[i])),
                "kind %u: '%.*s': device %d %.17g %d, host %d %.17g "
                "%d",
                kinds[k], (int)len[i], text + off[i], kind[i], val[i], corr[i],
                want, v, c);
        }
    }
    free(text), free(off), free(len), free(kind), free(val), free(corr);
}
END_TEST

int main(void)
{
    seed = test_seed("test_gpu_kinds");
    cs_error why = {0};
    size_t none = 0;
    int kind;
    double val;
    int32_t corr;
    num_format fmt;
    num_format_init(&fmt);
    if (gpu_parse_kind_fields("", 0, &none, &none, 0, &fmt, KIND_DATE, &kind,
                              &val, &corr, &why) != 0) {
        fprintf(stderr, "test_gpu_kinds: %s\n", why.msg);
        return strncmp(why.msg, "no usable GPU", 13) == 0 ? 77 : 1;
    }
    Suite *s = suite_create("gpu_kinds");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_random_fields);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}

#else

int main(void)
{
    fprintf(stderr, "test_gpu_kinds: built without the GPU backend\n");
    return 77;
}

#endif
