/* gpu_group_rows (gpu/group_rows.cu) against the CPU's group table
 * (src/stats/group_table.h): random keys (quotes, commas, newlines,
 * unicode, the missing key; one or two key columns; one group, 1,000 and
 * 100,000), values of every kind (integers with corrections, ties and
 * both zeros, wide magnitudes, NaN); the device's groups are the CPU's,
 * with the same key bytes, first rows and rows, and its pieces merged on the
 * host give the CPU's summaries bit for bit. A table too small says
 * full; infinities say inexact. Skips (77) when no device is usable.
 * Seed printed; COLSTAT_SEED reproduces; COLSTAT_TEST_QUICK shrinks. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef COLSTAT_HAVE_GPU
#include "gpu/gpu.h"
#include "src/stats/group_table.h"

#include "tests/testlib.h"

static uint64_t seed;

static const char *const words[] = {
    "a",   "b\"q",  "c,d", "line\nbreak", "caf\xc3\xa9", "\xe6\x97\xa5",
    " x ", "200.0", "-3",  "a b",         "200"};
#define NWORDS (sizeof words / sizeof words[0])

/* group_core.h's encoding of one key column's text, or the missing key */
static size_t key_part(char *out, const char *text, uint32_t len, int missing)
{
    out[0] = (char)!missing;
    if (missing)
        return 1;
    memcpy(out + 1, &len, 4);
    memcpy(out + 5, text, len);
    return 5 + (size_t)len;
}

typedef struct rows {
    size_t n;
    char *keys;
    size_t keys_len;
    size_t *off;
    uint32_t *len;
    double *v[2];
    int32_t *c[2];
} rows;

static void draw(rows *r, test_rng *g, size_t n, size_t ngroups, int ncols,
                 int kind)
{
    r->n = n;
    r->keys = malloc(n * 2 * 64);
    r->off = malloc(n * sizeof *r->off);
    r->len = malloc(n * sizeof *r->len);
    ck_assert(r->keys && r->off && r->len);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = i < ngroups ? i : rng_below(g, ngroups);
        r->off[i] = at;
        for (int c = 0; c < ncols; c++) {
            char text[48];
            int len = snprintf(text, sizeof text, "%s%zu",
                               words[(k + (size_t)c) % NWORDS], k / NWORDS);
            at += key_part(r->keys + at, text, (uint32_t)len,
                           c == 0 && k % 13 == 12);
        }
        r->len[i] = (uint32_t)(at - r->off[i]);
    }
    r->keys_len = at;
    for (int c = 0; c < 2; c++) {
        r->v[c] = malloc(n * sizeof *r->v[c]);
        r->c[c] = calloc(n, sizeof *r->c[c]);
        ck_assert(r->v[c] && r->c[c]);
        for (size_t i = 0; i < n; i++) {
            uint64_t u = rng_next(g);
            double x = (double)(int64_t)(u % 2001) - 1000;
            if (kind == 1 && u % 3 == 0) {
                x = u % 2 ? 0x1p60 : -0x1p60;
                r->c[c][i] = (int32_t)(u % 201) - 100;
            } else if (kind == 2) {
                x = ldexp((double)(u >> 11) * 0x1p-53 - 0.5, (int)(u % 60));
            } else if (kind == 3 && u % 40 == 0) {
                x = u % 80 ? INFINITY : NAN;
            }
            r->v[c][i] = u % 97 == 0 ? NAN : x;
        }
    }
}

static void free_rows(rows *r)
{
    free(r->keys);
    free(r->off);
    free(r->len);
    for (int c = 0; c < 2; c++) {
        free(r->v[c]);
        free(r->c[c]);
    }
}

static void cpu_table(group_table *t, const rows *r)
{
    group_table_init(t, 2, STAT_DEFAULT, 0);
    group_table_direct(t);
    uint32_t *ids = malloc(r->n * sizeof *ids);
    ck_assert(ids);
    for (size_t i = 0; i < r->n; i++) {
        size_t id;
        const char *k = r->keys + r->off[i];
        ck_assert_int_eq(
            group_find(t, k, r->len[i], group_hash(k, r->len[i]), &id), 0);
        ids[i] = (uint32_t)id;
        t->rows[id]++;
    }
    for (int c = 0; c < 2; c++)
        ck_assert_int_eq(group_add_column(t, ids, c, r->v[c], r->c[c], r->n, 1),
                         0);
    ck_assert_int_eq(group_flush(t), 0);
    free(ids);
}

static void same(const col_stats *a, const col_stats *b)
{
    col_summary x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    stats_finalize(a, &x);
    stats_finalize(b, &y);
    ck_assert_uint_eq(x.count, y.count);
    ck_assert_uint_eq(x.nan, y.nan);
    ck_assert_uint_eq(bits_of(x.sum), bits_of(y.sum));
    ck_assert_uint_eq(bits_of(x.min), bits_of(y.min));
    ck_assert_uint_eq(bits_of(x.max), bits_of(y.max));
    ck_assert_uint_eq(x.min_row, y.min_row);
    ck_assert_uint_eq(x.max_row, y.max_row);
    ck_assert_int_eq(x.is_int, y.is_int);
    ck_assert_str_eq(x.sum_int, y.sum_int);
    ck_assert_str_eq(x.min_int, y.min_int);
    ck_assert_str_eq(x.max_int, y.max_int);
}

/* The device's pieces merged by key into a host table. */
static void device_table(group_table *t, const gpu_group_out *o, const rows *r,
                         const group_table *cpu)
{
    group_table_init(t, 2, STAT_DEFAULT, 0);
    group_table_direct(t);
    size_t *host = malloc((o->ngroups ? o->ngroups : 1) * sizeof *host);
    ck_assert(host);
    for (uint32_t g = 0; g < o->ngroups; g++) {
        const char *k = o->arena + o->key_off[g];
        ck_assert_int_eq(group_find(t, k, o->key_len[g],
                                    group_hash(k, o->key_len[g]), &host[g]),
                         0);
        /* its first row is the first row of its key */
        size_t first = o->first_row[g] - 1, cid;
        ck_assert_uint_lt(first, r->n);
        ck_assert(r->len[first] == o->key_len[g] &&
                  !memcmp(r->keys + r->off[first], k, o->key_len[g]));
        ck_assert_int_eq(group_find((group_table *)cpu, k, o->key_len[g],
                                    group_hash(k, o->key_len[g]), &cid),
                         0);
        t->rows[host[g]] = cpu->rows[cid];
    }
    for (size_t i = 0; i < r->n; i++) { /* each row's group is its key's */
        uint32_t g = o->row_group[i];
        ck_assert_uint_lt(g, o->ngroups);
        ck_assert(
            o->key_len[g] == r->len[i] &&
            !memcmp(o->arena + o->key_off[g], r->keys + r->off[i], r->len[i]));
    }
    for (size_t p = 0; p < o->npieces; p++) {
        if (o->piece_group[p] == UINT32_MAX)
            continue;
        ck_assert_uint_lt(o->piece_group[p], o->ngroups);
        size_t at = host[o->piece_group[p]] * 2;
        for (int c = 0; c < 2; c++) {
            stats_part_merge(&t->part[at + (size_t)c],
                             &o->part[p * 2 + (size_t)c], 0);
            ck_assert_int_eq(group_sum_merge(&t->sum[at + (size_t)c],
                                             &o->sum[p * 2 + (size_t)c]),
                             0);
        }
    }
    ck_assert_int_eq(group_flush(t), 0);
    free(host);
}

START_TEST(test_groups)
{
    static const size_t sizes[] = {1, 1000, 100000};
    test_rng g = rng_for(seed, 1 + (uint64_t)_i);
    size_t ngroups = sizes[_i % 3];
    if (test_quick() && ngroups > 1000)
        ngroups = 1000;
    int kind = _i / 3;
    rows r;
    draw(&r, &g, ngroups * (1 + rng_below(&g, 8)) + rng_below(&g, 5000),
         ngroups, 1 + (int)rng_below(&g, 2), kind);
    const double *cols[2] = {r.v[0], r.v[1]};
    const int32_t *corrs[2] = {r.c[0], r.c[1]};
    gpu_group_in in = {r.n,       r.keys, r.keys_len, r.off, r.len,
                       2,         cols,   corrs,      1,     (uint32_t)ngroups,
                       r.keys_len};
    gpu_group_out o;
    cs_error e = {0};
    ck_assert_msg(gpu_group_rows(&in, &o, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(o.full, 0);
    group_table cpu, dev;
    cpu_table(&cpu, &r);
    ck_assert_uint_eq(o.ngroups, cpu.n);
    /* integers always fit the device's sums; infinities never do; wide
       values may need the host's csum */
    int inf = 0;
    for (size_t i = 0; i < r.n; i++)
        inf |= isinf(r.v[0][i]) || isinf(r.v[1][i]);
    if (kind != 2)
        ck_assert_int_eq(o.inexact, inf);
    if (!o.inexact) {
        device_table(&dev, &o, &r, &cpu);
        for (size_t id = 0; id < cpu.n; id++) {
            size_t d;
            const char *k = group_key(&cpu, id);
            ck_assert_int_eq(group_find(&dev, k, cpu.key_len[id],
                                        group_hash(k, cpu.key_len[id]), &d),
                             0);
            for (int c = 0; c < 2; c++)
                same(&dev.st[d * 2 + (size_t)c], &cpu.st[id * 2 + (size_t)c]);
        }
        ck_assert_uint_eq(dev.n, cpu.n);
        group_table_free(&dev);
    }
    group_table_free(&cpu);
    gpu_group_out_free(&o);
    in.max_groups = ngroups > 1 ? (uint32_t)ngroups / 2 : 1;
    if (ngroups > 1) {
        ck_assert_msg(gpu_group_rows(&in, &o, &e) == 0, "%s", e.msg);
        ck_assert_int_eq(o.full, 1);
        gpu_group_out_free(&o);
    }
    free_rows(&r);
}
END_TEST

int main(void)
{
    seed = test_seed("test_gpu_group");
    cs_error why = {0};
    gpu_group_in probe = {0};
    gpu_group_out o;
    probe.max_groups = 1;
    probe.ncols = 1;
    if (gpu_group_rows(&probe, &o, &why) != 0) {
        fprintf(stderr, "test_gpu_group: %s\n", why.msg);
        return strncmp(why.msg, "no usable GPU", 13) == 0 ? 77 : 1;
    }
    Suite *s = suite_create("gpu_group");
    TCase *tc = tcase_create("groups");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_groups, 0, 12);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}

#else

int main(void)
{
    fprintf(stderr, "test_gpu_group: built without the GPU backend\n");
    return 77;
}

#endif
