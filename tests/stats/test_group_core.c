/* src/stats/group_core.h, the device's group-by steps, run on the host
 * against the CPU's group table (group_table.h): random keys (quotes,
 * commas, newlines, unicode, the missing key; one or two key columns; one
 * group and 100,000) get one id per distinct key, the same key bytes in
 * the arena, their first rows, from one thread and from four at once; a
 * table too small says full; pieces of each group's rows reduced by
 * gc_part_add and gc_sum_add and merged into a host table give the
 * same summaries, bit for bit, as the rows added by group_add_column.
 * Seed printed; COLSTAT_SEED replays; COLSTAT_TEST_QUICK shrinks. */
#include "src/stats/group_core.h"

#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/stats/group_table.h"
#include "tests/testlib.h"

static uint64_t seed;

static const char *const words[] = {
    "a",           "b\"q",        "c,d",
    "line\nbreak", "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
    " x",          "200",         "200.0",
    "-3",          "a b",         "ab"};
#define NWORDS (sizeof words / sizeof words[0])

/* The rows' encoded keys, one after another. */
typedef struct keyset {
    char *bytes;
    size_t *off, *len;
    size_t n;
} keyset;

/* Key column text of group g: a word, a number, or (g % 17 == 16 in
 * column 0) the missing key. */
static size_t key_col(char *out, size_t g, int col)
{
    size_t w = (g + (size_t)col * 5) % NWORDS;
    if (col == 0 && g % 17 == 16)
        return gc_key_part(out, NULL, 0, 1);
    char text[64];
    int n = snprintf(text, sizeof text, "%s%zu", words[w], g / NWORDS);
    return gc_key_part(out, text, (uint32_t)n, 0);
}

static void make_keys(keyset *k, test_rng *r, size_t nrows, size_t ngroups,
                      int ncols)
{
    k->n = nrows;
    k->bytes = malloc(nrows * 2 * 80);
    k->off = malloc(nrows * sizeof *k->off);
    k->len = malloc(nrows * sizeof *k->len);
    ck_assert(k->bytes && k->off && k->len);
    size_t at = 0;
    for (size_t i = 0; i < nrows; i++) {
        /* every group at least once, then any */
        size_t g = i < ngroups ? i : rng_below(r, ngroups);
        k->off[i] = at;
        for (int c = 0; c < ncols; c++)
            at += key_col(k->bytes + at, g * 31 % ngroups, c);
        k->len[i] = at - k->off[i];
    }
}

static void free_keys(keyset *k)
{
    free(k->bytes);
    free(k->off);
    free(k->len);
}

/* A table for up to max groups, in host memory. */
typedef struct host_table {
    gc_table t;
    uint32_t ngroups, full;
    uint64_t used;
} host_table;

static void table_new(host_table *h, uint32_t max, uint64_t arena)
{
    memset(h, 0, sizeof *h);
    uint32_t slots = 1;
    while (slots < 2 * (max ? max : 1))
        slots *= 2;
    h->t.slot = calloc(slots, sizeof *h->t.slot);
    h->t.mask = slots - 1;
    h->t.max_groups = max;
    h->t.ngroups = &h->ngroups;
    h->t.key_off = malloc((max ? max : 1) * sizeof *h->t.key_off);
    h->t.key_len = malloc((max ? max : 1) * sizeof *h->t.key_len);
    h->t.first_row = malloc((max ? max : 1) * sizeof *h->t.first_row);
    h->t.arena = malloc(arena ? arena : 1);
    h->t.arena_room = arena;
    h->t.arena_used = &h->used;
    h->t.full = &h->full;
    ck_assert(h->t.slot && h->t.key_off && h->t.key_len && h->t.first_row &&
              h->t.arena);
}

static void table_free(host_table *h)
{
    free(h->t.slot);
    free(h->t.key_off);
    free(h->t.key_len);
    free(h->t.first_row);
    free(h->t.arena);
}

/* Every row's device id names the CPU table's group of the same key, one
 * to one; the arena holds the keys. */
static void check_ids(const keyset *k, const host_table *h, const uint32_t *ids)
{
    group_table cpu;
    group_table_init(&cpu, 1, STAT_DEFAULT, 0);
    size_t n = h->ngroups;
    size_t *to_cpu = malloc((n ? n : 1) * sizeof *to_cpu);
    ck_assert(to_cpu);
    for (size_t g = 0; g < n; g++)
        to_cpu[g] = SIZE_MAX;
    for (size_t i = 0; i < k->n; i++) {
        const char *key = k->bytes + k->off[i];
        size_t id;
        ck_assert_int_eq(
            group_find(&cpu, key, k->len[i], group_hash(key, k->len[i]), &id),
            0);
        ck_assert_uint_lt(ids[i], n);
        if (to_cpu[ids[i]] == SIZE_MAX)
            to_cpu[ids[i]] = id;
        ck_assert_uint_eq(to_cpu[ids[i]], id);
        ck_assert(group_is(&cpu, id, h->t.arena + h->t.key_off[ids[i]],
                           h->t.key_len[ids[i]]));
    }
    ck_assert_uint_eq(cpu.n, n);
    group_table_free(&cpu);
    free(to_cpu);
}

START_TEST(test_one_thread)
{
    test_rng r = rng_for(seed, 1 + (uint64_t)_i);
    size_t ngroups = _i == 0 ? 1 : test_quick() ? 10000 : 100000;
    int ncols = 1 + (int)rng_below(&r, 2);
    keyset k;
    make_keys(&k, &r, 3 * ngroups, ngroups, ncols);
    host_table h;
    table_new(&h, (uint32_t)ngroups, 3 * ngroups * 2 * 80);
    uint32_t *ids = malloc(k.n * sizeof *ids);
    ck_assert(ids);
    for (size_t i = 0; i < k.n; i++) {
        const char *key = k.bytes + k.off[i];
        int rc = gc_find(&h.t, key, k.len[i], gc_hash(key, k.len[i]), i + 1,
                         &ids[i]);
        ck_assert_int_ne(rc, GC_FULL);
        /* one thread: a group is new at its first row */
        ck_assert_int_eq(rc == GC_NEW, h.t.first_row[ids[i]] == i + 1);
    }
    ck_assert_uint_eq(h.full, 0);
    check_ids(&k, &h, ids);
    free(ids);
    table_free(&h);
    free_keys(&k);
}
END_TEST

typedef struct worker {
    const keyset *k;
    host_table *h;
    uint32_t *ids;
    size_t from, step;
    int bad;
} worker;

static void *insert_rows(void *arg)
{
    worker *w = arg;
    for (size_t i = w->from; i < w->k->n; i += w->step) {
        const char *key = w->k->bytes + w->k->off[i];
        w->bad |=
            gc_find(&w->h->t, key, w->k->len[i], gc_hash(key, w->k->len[i]),
                    i + 1, &w->ids[i]) == GC_FULL;
    }
    return NULL;
}

START_TEST(test_four_threads)
{
    test_rng r = rng_for(seed, 10);
    size_t ngroups = test_quick() ? 5000 : 50000;
    keyset k;
    make_keys(&k, &r, 4 * ngroups, ngroups, 2);
    host_table h;
    table_new(&h, (uint32_t)ngroups, k.n * 2 * 80);
    uint32_t *ids = malloc(k.n * sizeof *ids);
    ck_assert(ids);
    worker w[4];
    pthread_t th[4];
    for (int t = 0; t < 4; t++) {
        w[t] = (worker){&k, &h, ids, (size_t)t, 4, 0};
        ck_assert_int_eq(pthread_create(&th[t], NULL, insert_rows, &w[t]), 0);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(th[t], NULL);
        ck_assert_int_eq(w[t].bad, 0);
    }
    check_ids(&k, &h, ids);
    /* a group's first row is a row of its key */
    for (size_t g = 0; g < h.ngroups; g++)
        ck_assert_uint_eq(ids[h.t.first_row[g] - 1], g);
    free(ids);
    table_free(&h);
    free_keys(&k);
}
END_TEST

START_TEST(test_full)
{
    test_rng r = rng_for(seed, 20);
    keyset k;
    make_keys(&k, &r, 200, 100, 1);
    for (int arena_short = 0; arena_short < 2; arena_short++) {
        host_table h;
        table_new(&h, arena_short ? 1000 : 50, arena_short ? 300 : 1 << 20);
        int full = 0;
        for (size_t i = 0; i < k.n && !full; i++) {
            uint32_t id;
            const char *key = k.bytes + k.off[i];
            full = gc_find(&h.t, key, k.len[i], gc_hash(key, k.len[i]), i + 1,
                           &id) == GC_FULL;
        }
        ck_assert_int_eq(full, 1);
        ck_assert_uint_eq(h.full, 1);
        table_free(&h);
    }
    free_keys(&k);
}
END_TEST

/* A value and its correction: integers (some past 2^53 with their
 * corrections), ties and both zeros, wide magnitudes, infinities, NaN. */
static double draw_value(test_rng *r, int kind, int32_t *corr)
{
    *corr = 0;
    uint64_t u = rng_next(r);
    switch (kind) {
    case 0:
        return (double)(int64_t)(u % 2001) - 1000;
    case 1:
        if (u % 3 == 0) {
            *corr = (int32_t)(rng_below(r, 200)) - 100;
            return 0x1p60 * (u % 2 ? 1 : -1);
        }
        return (double)(int64_t)(u >> 12) * (u % 2 ? 1 : -1);
    case 2: {
        static const double ties[] = {0.0, -0.0, 1.5, -1.5, 2.0};
        return ties[u % 5];
    }
    case 3:
        return ldexp((double)(u >> 11) * 0x1p-53 - 0.5, (int)(u % 400) - 200);
    case 4:
        if (u % 50 == 0)
            return u % 100 ? INFINITY : -INFINITY;
        return ((double)(u >> 11) * 0x1p-53 - 0.5) * 1e6;
    default:
        return u % 10 == 0 ? NAN : (double)(u >> 11) * 0x1p-53;
    }
}

static void same_summary(const col_stats *a, const col_stats *b)
{
    col_summary x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    stats_finalize(a, &x);
    stats_finalize(b, &y);
    ck_assert_uint_eq(x.count, y.count);
    ck_assert_uint_eq(x.missing, y.missing);
    ck_assert_uint_eq(x.invalid, y.invalid);
    ck_assert_uint_eq(x.nan, y.nan);
    ck_assert_uint_eq(x.first_invalid_row, y.first_invalid_row);
    ck_assert_uint_eq(bits_of(x.sum), bits_of(y.sum));
    ck_assert_uint_eq(bits_of(x.mean), bits_of(y.mean));
    ck_assert_uint_eq(bits_of(x.min), bits_of(y.min));
    ck_assert_uint_eq(bits_of(x.max), bits_of(y.max));
    ck_assert_uint_eq(x.min_row, y.min_row);
    ck_assert_uint_eq(x.max_row, y.max_row);
    ck_assert_int_eq(x.is_int, y.is_int);
    ck_assert_str_eq(x.sum_int, y.sum_int);
    ck_assert_str_eq(x.min_int, y.min_int);
    ck_assert_str_eq(x.max_int, y.max_int);
}

/* One group's piece: rows [from, to) of the group's row list. */
static int reduce_piece(col_part *p, group_sum *s, const size_t *rows,
                        size_t from, size_t to, const double *v,
                        const int32_t *c)
{
    group_sum host;
    int rc = 0;
    gc_part_init(p);
    gc_sum_init(s);
    group_sum_init(&host);
    for (size_t i = from; i < to && !rc; i++) {
        size_t row = rows[i];
        if (isnan(v[row])) {
            gc_part_counts(p, 0, 0, 1, 0);
            continue;
        }
        gc_part_add(p, v[row], c[row], row + 1);
        rc = gc_sum_add(s, v[row]);
        /* it gives up where, and only where, group_sum needs its csum */
        ck_assert_int_eq(group_sum_add(&host, v[row]), 0);
        ck_assert_int_eq(rc != 0, host.over != NULL);
    }
    group_sum_free(&host);
    return rc;
}

/* The CPU's direct table over every row. */
static void cpu_groups(group_table *t, const keyset *k, const double *v,
                       const int32_t *c)
{
    group_table_init(t, 1, STAT_DEFAULT, 0);
    group_table_direct(t);
    uint32_t *ids = malloc(k->n * sizeof *ids);
    ck_assert(ids);
    for (size_t i = 0; i < k->n; i++) {
        size_t id;
        const char *key = k->bytes + k->off[i];
        ck_assert_int_eq(
            group_find(t, key, k->len[i], group_hash(key, k->len[i]), &id), 0);
        ids[i] = (uint32_t)id;
        t->rows[id]++;
        if (isnan(v[i]))
            group_add_counts(t, id, 0, 0, 0, 1, 0);
    }
    ck_assert_int_eq(group_add_column(t, ids, 0, v, c, k->n, 1), 0);
    ck_assert_int_eq(group_flush(t), 0);
    free(ids);
}

START_TEST(test_reduce)
{
    test_rng r = rng_for(seed, 30 + (uint64_t)_i);
    int kind = _i % 6;
    size_t ngroups = 1 + rng_below(&r, _i < 6 ? 50 : 3000);
    size_t nrows = ngroups * (1 + rng_below(&r, 40));
    keyset k;
    make_keys(&k, &r, nrows, ngroups, 1 + (int)rng_below(&r, 2));
    double *v = malloc(nrows * sizeof *v);
    int32_t *c = malloc(nrows * sizeof *c);
    ck_assert(v && c);
    for (size_t i = 0; i < nrows; i++)
        v[i] = draw_value(&r, kind, &c[i]);
    host_table h;
    table_new(&h, (uint32_t)ngroups, nrows * 2 * 80);
    /* each group's rows, in order: the device's sort by group */
    uint32_t *ids = malloc(nrows * sizeof *ids);
    size_t *start = calloc(ngroups + 1, sizeof *start),
           *rows = malloc(nrows * sizeof *rows);
    ck_assert(ids && start && rows);
    for (size_t i = 0; i < nrows; i++) {
        const char *key = k.bytes + k.off[i];
        ck_assert_int_ne(gc_find(&h.t, key, k.len[i], gc_hash(key, k.len[i]),
                                 i + 1, &ids[i]),
                         GC_FULL);
        start[ids[i] + 1]++;
    }
    for (size_t g = 0; g < ngroups; g++)
        start[g + 1] += start[g];
    size_t *fill = malloc((ngroups + 1) * sizeof *fill);
    ck_assert(fill);
    memcpy(fill, start, (ngroups + 1) * sizeof *fill);
    for (size_t i = 0; i < nrows; i++)
        rows[fill[ids[i]]++] = i;
    /* pieces of random length, merged in random order into a host table */
    group_table dev;
    group_table_init(&dev, 1, STAT_DEFAULT, 0);
    group_table_direct(&dev);
    int fell_back = 0;
    for (size_t g = 0; g < h.ngroups && !fell_back; g++) {
        size_t id;
        const char *key = h.t.arena + h.t.key_off[g];
        ck_assert_int_eq(group_find(&dev, key, h.t.key_len[g],
                                    group_hash(key, h.t.key_len[g]), &id),
                         0);
        dev.rows[id] += start[g + 1] - start[g];
        for (size_t a = start[g]; a < start[g + 1] && !fell_back;) {
            size_t b = a + 1 + rng_below(&r, 1 + (start[g + 1] - a) / 2);
            col_part p;
            group_sum s;
            if (reduce_piece(&p, &s, rows, a, b, v, c)) {
                fell_back = 1;
                break;
            }
            stats_part_merge(&dev.part[id], &p, 0);
            ck_assert_int_eq(group_sum_merge(&dev.sum[id], &s), 0);
            a = b;
        }
    }
    group_table cpu;
    cpu_groups(&cpu, &k, v, c);
    if (!fell_back) {
        ck_assert_int_eq(group_flush(&dev), 0);
        ck_assert_uint_eq(dev.n, cpu.n);
        for (size_t id = 0; id < cpu.n; id++) {
            size_t d;
            const char *key = group_key(&cpu, id);
            ck_assert_int_eq(group_find(&dev, key, cpu.key_len[id],
                                        group_hash(key, cpu.key_len[id]), &d),
                             0);
            ck_assert_uint_eq(dev.rows[d], cpu.rows[id]);
            same_summary(&dev.st[d], &cpu.st[id]);
        }
    }
    group_table_free(&dev);
    group_table_free(&cpu);
    table_free(&h);
    free_keys(&k);
    free(v);
    free(c);
    free(ids);
    free(start);
    free(rows);
    free(fill);
}
END_TEST

/* The device's way over raw CSV (gpu/group_raw.cu): each group's rows in
 * any order (its counting sort is not stable), cut into pieces, each
 * reduced by gc_part_add and gc_sum_add and merged into the group's cell
 * by gc_part_merge and gc_sum_merge, in any order; the cell then copied
 * into a host table, as src/engine/group_dev.c does. The same summaries
 * as the CPU's, or a fall back to the host exactly where a sum needs a
 * csum. */
START_TEST(test_merge_any_order)
{
    test_rng r = rng_for(seed, 60 + (uint64_t)_i);
    int kind = _i % 6;
    size_t ngroups = 1 + rng_below(&r, 300);
    size_t nrows = ngroups * (1 + rng_below(&r, 60));
    keyset k;
    make_keys(&k, &r, nrows, ngroups, 1);
    double *v = malloc(nrows * sizeof *v);
    int32_t *c = malloc(nrows * sizeof *c);
    size_t *rows = malloc(nrows * sizeof *rows);
    ck_assert(v && c && rows);
    for (size_t i = 0; i < nrows; i++)
        v[i] = draw_value(&r, kind, &c[i]);
    group_table cpu, dev;
    cpu_groups(&cpu, &k, v, c);
    group_table_init(&dev, 1, STAT_DEFAULT, 0);
    group_table_direct(&dev);
    int fell_back = 0;
    for (size_t g = 0; g < cpu.n && !fell_back; g++) {
        size_t n = 0, id;
        const char *key = group_key(&cpu, g);
        for (size_t i = 0; i < nrows; i++)
            if (k.len[i] == cpu.key_len[g] &&
                !memcmp(k.bytes + k.off[i], key, k.len[i]))
                rows[n++] = i;
        for (size_t i = n; i > 1; i--) { /* any order */
            size_t j = rng_below(&r, i), t = rows[i - 1];
            rows[i - 1] = rows[j];
            rows[j] = t;
        }
        col_part cell, p;
        group_sum sum, s;
        gc_part_init(&cell);
        gc_sum_init(&sum);
        for (size_t a = 0; a < n && !fell_back;) {
            size_t b = a + 1 + rng_below(&r, 1 + (n - a) / 2);
            fell_back = reduce_piece(&p, &s, rows, a, b, v, c) ||
                        gc_sum_merge(&sum, &s);
            gc_part_merge(&cell, &p);
            a = b;
        }
        ck_assert_int_eq(group_find(&dev, key, cpu.key_len[g],
                                    group_hash(key, cpu.key_len[g]), &id),
                         0);
        dev.rows[id] = cpu.rows[g];
        dev.part[id] = cell;
        dev.sum[id] = sum;
    }
    if (!fell_back) {
        ck_assert_int_eq(group_flush(&dev), 0);
        ck_assert_int_eq(group_flush(&cpu), 0);
        for (size_t g = 0; g < cpu.n; g++)
            same_summary(&dev.st[g], &cpu.st[g]);
    }
    group_table_free(&dev);
    group_table_free(&cpu);
    free_keys(&k);
    free(v);
    free(c);
    free(rows);
}
END_TEST

int main(void)
{
    seed = test_seed("test_group_core");
    Suite *s = suite_create("group_core");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_one_thread, 0, 2);
    tcase_add_test(tc, test_four_threads);
    tcase_add_test(tc, test_full);
    tcase_add_loop_test(tc, test_merge_any_order, 0, 24);
    tcase_add_loop_test(tc, test_reduce, 0, 12);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
