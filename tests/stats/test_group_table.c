/* src/stats/group_table.c: groups found by key bytes (colliding hashes
 * told apart by the bytes), and job tables merged with row offsets in any
 * order against one table filled row by row: the same groups, rows,
 * statistics and kept values. Seed printed; COLSTAT_SEED replays. */
#include "src/stats/group_table.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testlib.h"

static uint64_t seed;

static void key_text(test_rng *r, int nkeys, char *buf, size_t *len)
{
    size_t k = rng_below(r, (size_t)nkeys);
    /* keys sharing prefixes, and one empty key */
    *len = k == 0 ? 0 : (size_t)snprintf(buf, 32, "k%zu", k * 7);
}

START_TEST(test_colliding_hashes)
{
    group_table t;
    group_table_init(&t, 1, STAT_DEFAULT, 0);
    static const char *const keys[] = {"", "a", "ab", "b", "a\0b", "ba"};
    static const size_t lens[] = {0, 1, 2, 1, 3, 2};
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < 6; i++) {
            size_t id = 99;
            ck_assert_int_eq(group_find(&t, keys[i], lens[i], 42, &id), 0);
            ck_assert_uint_eq(id, i);
        }
    ck_assert_uint_eq(t.n, 6);
    group_table_free(&t);
}
END_TEST

/* Room made ahead for n groups: they come without growth, found again by
 * their keys after groups made before the room. */
START_TEST(test_reserve)
{
    test_rng r = rng_for(seed, 900 + (uint64_t)_i);
    size_t before = rng_below(&r, 40), n = 1 + rng_below(&r, 5000);
    group_table t;
    group_table_init(&t, 2, STAT_DEFAULT, 0);
    group_table_direct(&t);
    char buf[32];
    size_t id;
    for (size_t i = 0; i < before; i++) {
        size_t len = (size_t)snprintf(buf, sizeof buf, "b%zu", i);
        ck_assert_int_eq(group_find(&t, buf, len, group_hash(buf, len), &id),
                         0);
    }
    ck_assert_int_eq(group_table_reserve(&t, n, n * 12), 0);
    size_t cap = t.cap, nslots = t.nslots, room = t.keys_room;
    ck_assert_uint_ge(cap, before + n);
    ck_assert_uint_ge(nslots, 2 * (before + n));
    for (size_t i = 0; i < n; i++) {
        size_t len = (size_t)snprintf(buf, sizeof buf, "n%zu", i);
        ck_assert_int_eq(group_find(&t, buf, len, group_hash(buf, len), &id),
                         0);
        ck_assert_uint_eq(id, before + i);
    }
    ck_assert_uint_eq(t.cap, cap);
    ck_assert_uint_eq(t.nslots, nslots);
    ck_assert_uint_eq(t.keys_room, room);
    for (size_t i = 0; i < before + n; i++) {
        size_t len =
            i < before ? (size_t)snprintf(buf, sizeof buf, "b%zu", i)
                       : (size_t)snprintf(buf, sizeof buf, "n%zu", i - before);
        ck_assert_int_eq(group_find(&t, buf, len, group_hash(buf, len), &id),
                         0);
        ck_assert_uint_eq(id, i);
    }
    ck_assert_uint_eq(t.n, before + n);
    group_table_free(&t);
}
END_TEST

static void fill(group_table *t, test_rng *r, int nkeys, size_t from, size_t to,
                 uint64_t first_row, const double *v)
{
    for (size_t i = from; i < to; i++) {
        test_rng kr = rng_for(seed, i + 1);
        char buf[32];
        size_t len, id;
        key_text(&kr, nkeys, buf, &len);
        ck_assert_int_eq(group_find(t, buf, len, group_hash(buf, len), &id), 0);
        t->rows[id]++;
        if (!isnan(v[i]))
            ck_assert_int_eq(
                group_add(t, id, 0, v[i], 0, first_row + (i - from)), 0);
    }
    (void)r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void same_group(const group_table *a, size_t ia, const group_table *b,
                       size_t ib)
{
    ck_assert_uint_eq(a->rows[ia], b->rows[ib]);
    col_summary x, y;
    stats_finalize(&a->st[ia], &x);
    stats_finalize(&b->st[ib], &y);
    ck_assert_uint_eq(x.count, y.count);
    ck_assert_uint_eq(x.min_row, y.min_row);
    ck_assert_uint_eq(x.max_row, y.max_row);
    ck_assert(bits_of(x.sum) == bits_of(y.sum));
    ck_assert(bits_of(x.min) == bits_of(y.min) &&
              bits_of(x.max) == bits_of(y.max));
    const group_vals *va = &a->val[ia], *vb = &b->val[ib];
    ck_assert_uint_eq(va->n, vb->n);
    if (!va->n)
        return;
    qsort(va->d, va->n, sizeof(double), cmp_double);
    qsort(vb->d, vb->n, sizeof(double), cmp_double);
    for (size_t i = 0; i < va->n; i++)
        ck_assert(va->d[i] == vb->d[i]);
}

START_TEST(test_merge_any_order)
{
    test_rng r = rng_for(seed, 1000 + (uint64_t)_i);
    size_t n = 1 + rng_below(&r, test_quick() ? 2000 : 20000);
    int nkeys = 1 + (int)rng_below(&r, _i % 2 ? 5000 : 10);
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = rng_below(&r, 10) == 0 ? NAN
                                      : (double)(int)rng_below(&r, 100) / 4.0;
    group_table whole, merged;
    group_table_init(&whole, 1, STAT_ALL, 1);
    group_table_init(&merged, 1, STAT_ALL, 1);
    fill(&whole, &r, nkeys, 0, n, 1, v);
    ck_assert_int_eq(group_flush(&whole), 0);
    /* jobs of random lengths, merged from last to first */
    size_t cut[65], nc = 0;
    cut[nc++] = 0;
    while (nc < 64 && cut[nc - 1] < n)
        cut[nc] = cut[nc - 1] + 1 + rng_below(&r, n / 8 + 1), nc++;
    cut[nc - 1] = n;
    for (size_t j = nc - 1; j-- > 0;) {
        group_table job;
        group_table_init(&job, 1, STAT_ALL, 1);
        fill(&job, &r, nkeys, cut[j], cut[j + 1], 1, v);
        ck_assert_int_eq(group_flush(&job), 0);
        ck_assert_int_eq(group_merge(&merged, &job, cut[j]), 0);
        group_table_free(&job);
    }
    ck_assert_uint_eq(whole.n, merged.n);
    for (size_t g = 0; g < whole.n; g++) {
        size_t id;
        const char *k = group_key(&whole, g);
        size_t len = whole.key_len[g];
        ck_assert_int_eq(group_find(&merged, k, len, group_hash(k, len), &id),
                         0);
        same_group(&whole, g, &merged, id);
    }
    ck_assert_uint_eq(whole.n, merged.n); /* nothing was added */
    ck_assert(group_table_bytes(&merged) > 0);
    group_table_free(&whole);
    group_table_free(&merged);
    free(v);
}
END_TEST

/* A value of every kind the sums and extremes treat apart: integers with
 * and without corrections, decimals, huge, infinite, subnormal, signed
 * zeros, any bits at all (sums that spread past a few terms), NaN. */
static double odd_value(test_rng *r, int32_t *corr)
{
    double sign = rng_below(r, 2) ? -1.0 : 1.0;
    *corr = 0;
    switch (rng_below(r, 10)) {
    case 0:
        return (double)((int64_t)rng_below(r, 2000001) - 1000000);
    case 1:
        return sign * (double)rng_below(r, 1000000) / 1000.0;
    case 2:
        *corr = (int32_t)rng_below(r, 2049) - 1024;
        return sign * ldexp(1.0 + (double)rng_below(r, 1u << 20) / 0x1p20,
                            53 + (int)rng_below(r, 11));
    case 3:
        *corr = CORR_NOT_INT;
        return (double)rng_below(r, 100);
    case 4:
        return sign * ldexp(1.0, 890 + (int)rng_below(r, 30));
    case 5:
        return rng_below(r, 4) ? sign * INFINITY : sign * 0x1p-1074;
    case 6: {
        uint64_t b = rng_next(r);
        double x;
        memcpy(&x, &b, sizeof x);
        return isfinite(x) ? x : 1.5;
    }
    case 7:
        return sign * 0.0;
    case 8:
        return NAN;
    default:
        return sign *
               ldexp((double)rng_below(r, 1u << 30), -(int)rng_below(r, 120));
    }
}

/* Each group's statistics made from an unflushed direct table's cell
 * (group_cell_stats), against a flushed table's. */
static void cells_same_as(const group_table *ref, group_table *direct)
{
    for (size_t g = 0; g < ref->n; g++) {
        size_t id;
        const char *k = group_key(ref, g);
        size_t len = ref->key_len[g];
        ck_assert(group_find(direct, k, len, group_hash(k, len), &id) == 0 &&
                  id < direct->n);
        col_stats s;
        col_summary x, y;
        ck_assert_int_eq(group_cell_stats(direct, id, &s), 0);
        stats_finalize(&ref->st[g], &x);
        stats_finalize(&s, &y);
        stats_free(&s);
        ck_assert_msg(!memcmp(&x, &y, sizeof x), "group %zu: sum %a / %a", g,
                      x.sum, y.sum);
    }
}

/* A table that adds each value as it comes (no quantiles, no squares)
 * gives, through jobs merged unflushed in any order, the statistics of
 * one that batches them: the same bits, sums exact. */
START_TEST(test_direct_same_as_batched)
{
    test_rng r = rng_for(seed, 2000 + (uint64_t)_i);
    size_t n = 1 + rng_below(&r, test_quick() ? 3000 : 30000);
    int nkeys = 1 + (int)rng_below(&r, _i % 2 ? 300 : 4);
    /* some runs of one kind only, so that sums stay few terms long */
    int narrow = _i % 3 == 0;
    double *v = malloc(n * sizeof *v);
    int32_t *c = malloc(n * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        v[i] = odd_value(&r, &c[i]);
        /* NaN and infinities stay as drawn: their cast is undefined */
        if (narrow && isfinite(v[i]))
            v[i] = (double)(int64_t)(fmod(v[i], 1e6) * 8) / 8, c[i] = 0;
    }
    group_table ref, direct;
    group_table_init(&ref, 1, STAT_DEFAULT, 1);
    group_table_init(&direct, 1, STAT_DEFAULT, 0);
    group_table_direct(&ref); /* keeps values: not direct */
    group_table_direct(&direct);
    ck_assert(!ref.direct && direct.direct);
    size_t cut[33], nc = 0;
    cut[nc++] = 0;
    while (nc < 32 && cut[nc - 1] < n)
        cut[nc] = cut[nc - 1] + 1 + rng_below(&r, n / 4 + 1), nc++;
    cut[nc - 1] = n;
    for (size_t j = nc - 1; j-- > 0;) {
        group_table job[2];
        group_table_init(&job[0], 1, STAT_DEFAULT, 1);
        group_table_init(&job[1], 1, STAT_DEFAULT, 0);
        group_table_direct(&job[1]);
        for (size_t i = cut[j]; i < cut[j + 1]; i++) {
            char buf[32];
            size_t len, id;
            test_rng kr = rng_for(seed, i + 1);
            key_text(&kr, nkeys, buf, &len);
            for (int t = 0; t < 2; t++) {
                uint64_t row = 1 + i - cut[j];
                ck_assert_int_eq(
                    group_find(&job[t], buf, len, group_hash(buf, len), &id),
                    0);
                job[t].rows[id]++;
                if (!isnan(v[i]))
                    ck_assert_int_eq(group_add(&job[t], id, 0, v[i], c[i], row),
                                     0);
                else
                    group_add_counts(&job[t], id, 0, i % 2, 1 - i % 2, 0,
                                     i % 2 ? 0 : row);
            }
        }
        ck_assert_int_eq(group_flush(&job[0]), 0);
        ck_assert_int_eq(group_merge(&ref, &job[0], cut[j]), 0);
        ck_assert_int_eq(group_merge(&direct, &job[1], cut[j]), 0);
        group_table_free(&job[0]);
        group_table_free(&job[1]);
    }
    ck_assert_uint_eq(ref.n, direct.n);
    cells_same_as(&ref, &direct);
    cells_same_as(&ref, &direct); /* the table unchanged by them */
    ck_assert_int_eq(group_flush(&direct), 0);
    for (size_t g = 0; g < ref.n; g++) {
        size_t id;
        const char *k = group_key(&ref, g);
        size_t len = ref.key_len[g];
        ck_assert_int_eq(group_find(&direct, k, len, group_hash(k, len), &id),
                         0);
        col_summary x, y;
        stats_finalize(&ref.st[g], &x);
        stats_finalize(&direct.st[id], &y);
        ck_assert_msg(!memcmp(&x, &y, sizeof x),
                      "group %zu: sum %a / %a, min %a / %a row %llu / %llu", g,
                      x.sum, y.sum, x.min, y.min, (unsigned long long)x.min_row,
                      (unsigned long long)y.min_row);
    }
    group_table_free(&ref);
    group_table_free(&direct);
    free(v);
    free(c);
}
END_TEST

/* Rows of job tables merged last job first, each group's first row kept:
 * renumbered by first rows, the ids are those of a table filled row by
 * row (the order of first appearance). Then the parts dropped: merging
 * a kept-values table into it gives what merging it into the undropped
 * table gives, new groups too. */
static void fill_direct(group_table *t, int nkeys, size_t from, size_t to,
                        uint64_t row0, const double *v)
{
    for (size_t i = from; i < to; i++) {
        test_rng kr = rng_for(seed, i + 1);
        char buf[32];
        size_t len, id;
        key_text(&kr, nkeys, buf, &len);
        ck_assert_int_eq(group_find(t, buf, len, group_hash(buf, len), &id), 0);
        t->rows[id]++;
        uint64_t row = row0 + (i - from);
        if (t->first && row < t->first[id])
            t->first[id] = row;
        ck_assert_int_eq(group_add(t, id, 0, v[i], 0, row), 0);
    }
}

static void same_summaries(const group_table *a, const group_table *b)
{
    ck_assert_uint_eq(a->n, b->n);
    for (size_t g = 0; g < a->n; g++) {
        col_summary x, y;
        ck_assert_uint_eq(a->key_len[g], b->key_len[g]);
        ck_assert(!memcmp(group_key(a, g), group_key(b, g), a->key_len[g]));
        ck_assert_uint_eq(a->rows[g], b->rows[g]);
        stats_finalize(&a->st[g], &x);
        stats_finalize(&b->st[g], &y);
        ck_assert(!memcmp(&x, &y, sizeof x));
    }
}

START_TEST(test_first_and_dropped)
{
    test_rng r = rng_for(seed, 3000 + (uint64_t)_i);
    size_t n = 1 + rng_below(&r, test_quick() ? 3000 : 30000);
    int nkeys = 1 + (int)rng_below(&r, _i % 2 ? 3000 : 6);
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (double)(int)rng_below(&r, 1000) / 8.0;
    group_table whole, merged[2], kept;
    group_table_init(&whole, 1, STAT_DEFAULT, 0);
    group_table_direct(&whole);
    fill_direct(&whole, nkeys, 0, n, 1, v);
    for (int m = 0; m < 2; m++) {
        group_table_init(&merged[m], 1, STAT_DEFAULT, 0);
        group_table_direct(&merged[m]);
        ck_assert_int_eq(group_table_track_first(&merged[m]), 0);
    }
    size_t cut[17], nc = 0;
    cut[nc++] = 0;
    while (nc < 16 && cut[nc - 1] < n)
        cut[nc] = cut[nc - 1] + 1 + rng_below(&r, n / 4 + 1), nc++;
    cut[nc - 1] = n;
    for (size_t j = nc - 1; j-- > 0;) {
        group_table job;
        group_table_init(&job, 1, STAT_DEFAULT, 0);
        group_table_direct(&job);
        ck_assert_int_eq(group_table_track_first(&job), 0);
        fill_direct(&job, nkeys, cut[j], cut[j + 1], 1 + cut[j], v);
        for (int m = 0; m < 2; m++)
            ck_assert_int_eq(group_merge(&merged[m], &job, 0), 0);
        group_table_free(&job);
    }
    ck_assert_int_eq(group_flush(&whole), 0);
    for (int m = 0; m < 2; m++) {
        ck_assert_int_eq(group_table_by_first(&merged[m]), 0);
        ck_assert_int_eq(group_flush(&merged[m]), 0);
        same_summaries(&whole, &merged[m]);
    }
    group_drop_parts(&merged[1]);
    ck_assert(merged[1].part == NULL && merged[1].sum == NULL);
    /* more groups than before, kept values: merged into both */
    group_table_init(&kept, 1, STAT_DEFAULT, 1);
    fill(&kept, &r, 2 * nkeys + 2, 0, n, 1, v);
    ck_assert_int_eq(group_flush(&kept), 0);
    for (int m = 0; m < 2; m++)
        ck_assert_int_eq(group_merge(&merged[m], &kept, 7), 0);
    ck_assert_int_eq(group_flush(&merged[0]), 0);
    ck_assert_int_eq(group_flush(&merged[1]), 0);
    same_summaries(&merged[0], &merged[1]);
    group_table_free(&whole);
    group_table_free(&kept);
    group_table_free(&merged[0]);
    group_table_free(&merged[1]);
    free(v);
}
END_TEST

/* Each group's text profile, in jobs merged in any order and reordered
 * by first rows, against counts kept here: counts, missing, and every
 * value's count. */
/* The number after a key's or value's letter: its bytes are not
 * NUL-terminated (atoi read on into the arena's next bytes, which made
 * this test fail now and then). */
/* Jobs' tables merged into shards by the key's hash (group_merge_ids of
 * each shard's groups, as the CPU backend's workers merge), the shards
 * then moved into one (group_table_adopt): the groups, rows, statistics
 * and kept values of one table filled row by row. Kept values (_i even)
 * and direct tables (odd); a shard cleared and filled again (its value
 * arrays outlive its groups), shards left empty. */
START_TEST(test_adopt_shards)
{
    test_rng r = rng_for(seed, 3000 + (uint64_t)_i);
    size_t n = 1 + rng_below(&r, test_quick() ? 3000 : 30000);
    int nkeys = 1 + (int)rng_below(&r, _i % 4 < 2 ? 8000 : 12);
    int keep = _i % 2 == 0, nsh = 1 << rng_below(&r, 6);
    unsigned what = keep ? STAT_ALL : STAT_DEFAULT;
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) /* ties: the extremes' rows decide */
        v[i] = (double)(int)rng_below(&r, 400) / 8.0 - 20;
    group_table whole, shard[32];
    group_table_init(&whole, 1, what, keep);
    group_table_direct(&whole);
    ck_assert_int_eq(group_table_track_first(&whole), 0);
    fill_direct(&whole, nkeys, 0, n, 1, v);
    for (int s = 0; s < nsh; s++) {
        group_table_init(&shard[s], 1, what, keep);
        group_table_direct(&shard[s]);
        ck_assert_int_eq(group_table_track_first(&shard[s]), 0);
    }
    /* shard 0 held groups once: cleared, its arrays stay */
    fill_direct(&shard[0], nkeys, 0, n < 50 ? n : 50, 1, v);
    group_table_clear(&shard[0]);
    size_t at = 0;
    while (at < n) {
        size_t to = at + 1 + rng_below(&r, n / 6 + 1);
        to = to > n ? n : to;
        group_table job;
        group_table_init(&job, 1, what, keep);
        group_table_direct(&job);
        ck_assert_int_eq(group_table_track_first(&job), 0);
        fill_direct(&job, nkeys, at, to, 1 + at, v);
        if (!job.direct)
            ck_assert_int_eq(group_flush(&job), 0);
        uint32_t *ids = malloc((job.n + 1) * sizeof *ids);
        for (int s = 0; s < nsh; s++) {
            size_t k = 0;
            for (size_t g = 0; g < job.n; g++)
                if ((int)((job.hash[g] >> 26) & (uint64_t)(nsh - 1)) == s)
                    ids[k++] = (uint32_t)g;
            ck_assert_int_eq(group_merge_ids(&shard[s], &job, ids, k, 0), 0);
        }
        free(ids);
        group_table_free(&job);
        at = to;
    }
    group_table all = shard[nsh - 1];
    for (int s = 0; s < nsh - 1; s++)
        ck_assert_int_eq(group_table_adopt(&all, &shard[s]), 0);
    ck_assert_uint_eq(all.n, whole.n);
    ck_assert_int_eq(group_flush(&whole), 0);
    ck_assert_int_eq(group_flush(&all), 0);
    for (size_t g = 0; g < whole.n; g++) {
        size_t id;
        const char *k = group_key(&whole, g);
        size_t len = whole.key_len[g];
        ck_assert_int_eq(group_find(&all, k, len, group_hash(k, len), &id), 0);
        if (keep)
            same_group(&whole, g, &all, id);
        col_summary x, y;
        stats_finalize(&whole.st[g], &x);
        stats_finalize(&all.st[id], &y);
        ck_assert(!memcmp(&x, &y, sizeof x));
        ck_assert_uint_eq(whole.first[g], all.first[id]);
    }
    ck_assert_uint_eq(all.n, whole.n); /* found, none added */
    group_table_free(&whole);
    group_table_free(&all);
    free(v);
}
END_TEST

static int number_of(const char *s, size_t len)
{
    int v = 0;
    for (size_t i = 1; i < len; i++)
        v = 10 * v + (s[i] - '0');
    return v;
}

START_TEST(test_profiles)
{
    enum { KEYS = 40, VALS = 6 };
    test_rng r = rng_for(seed, 3000 + (uint64_t)_i);
    size_t n = 1 + rng_below(&r, test_quick() ? 3000 : 30000), nj = 0;
    uint64_t want[KEYS][VALS + 1] = {{0}}, first[KEYS], seen[KEYS] = {0};
    group_table merged;
    group_table_init(&merged, 1, STAT_COUNT, 0);
    group_table_direct(&merged);
    group_table_profile(&merged, 1);
    ck_assert_int_eq(group_table_track_first(&merged), 0);
    for (size_t at = 0; at < n; nj++) {
        size_t end = at + 1 + rng_below(&r, n / 4 + 1);
        group_table job;
        group_table_init(&job, 1, STAT_COUNT, 0);
        group_table_direct(&job);
        group_table_profile(&job, 1);
        ck_assert_int_eq(group_table_track_first(&job), 0);
        for (; at < n && at < end; at++) {
            char key[16], val[16];
            int k = (int)rng_below(&r, KEYS), v = (int)rng_below(&r, VALS + 1);
            int klen = snprintf(key, sizeof key, "k%d", k);
            int vlen = snprintf(val, sizeof val, "w%d", v);
            size_t id;
            ck_assert_int_eq(group_find(&job, key, (size_t)klen,
                                        group_hash(key, (size_t)klen), &id),
                             0);
            if (job.first[id] == UINT64_MAX)
                job.first[id] = at;
            if (!seen[k]++)
                first[k] = at;
            want[k][v]++;
            /* value 0 is the missing field */
            ck_assert_int_eq(group_profile_text(&job, id, 0, v ? val : NULL,
                                                v ? (size_t)vlen : 0),
                             0);
        }
        ck_assert_int_eq(group_merge(&merged, &job, 0), 0);
        group_table_free(&job);
    }
    ck_assert_int_eq(group_table_by_first(&merged), 0);
    ck_assert(merged.prof_bytes > 0 && group_table_bytes(&merged) > 0);
    for (size_t id = 0; id < merged.n; id++) {
        int k = number_of(group_key(&merged, id), merged.key_len[id]);
        ck_assert_uint_eq(merged.first[id], first[k]);
        const col_prof *p = &merged.prof[id];
        uint64_t present = 0;
        for (int v = 1; v <= VALS; v++)
            present += want[k][v];
        ck_assert_uint_eq(p->missing, want[k][0]);
        ck_assert_uint_eq(p->count, present);
        prof_summary sum;
        ck_assert_int_eq(profile_summarize(p, 1, 0, VALS, &sum), 0);
        for (size_t i = 0; i < sum.ntop; i++) {
            int v = number_of(sum.top[i].text, sum.top[i].len);
            ck_assert_uint_eq(sum.top[i].count, want[k][v]);
        }
        size_t distinct = 0;
        for (int v = 1; v <= VALS; v++)
            distinct += want[k][v] != 0;
        ck_assert_uint_eq(sum.distinct, distinct);
        profile_summary_free(&sum);
    }
    group_table_clear(&merged);
    ck_assert_uint_eq(merged.prof_bytes, 0);
    group_table_free(&merged);
    ck_assert(nj > 0);
}
END_TEST

/* What the device made (group_vals_append's values, already in the
 * statistics; group_table_quantiles' results) moves with its group when
 * group_table_by_first renumbers them; values that still wait refuse
 * values made elsewhere. */
START_TEST(test_made_elsewhere)
{
    test_rng r = rng_for(seed, 4000 + (uint64_t)_i);
    size_t n = 2 + rng_below(&r, 300), nq = 1 + rng_below(&r, 3);
    group_table t;
    group_table_init(&t, 2, STAT_DEFAULT | STAT_MEDIAN, 1);
    ck_assert_int_eq(group_table_track_first(&t), 0);
    char buf[32];
    uint64_t *first = malloc(n * sizeof *first);
    for (size_t g = 0; g < n; g++) {
        size_t len = (size_t)snprintf(buf, sizeof buf, "g%zu", g), id;
        ck_assert_int_eq(group_find(&t, buf, len, group_hash(buf, len), &id),
                         0);
        ck_assert_uint_eq(id, g);
        first[g] = 1 + rng_below(&r, 1000000);
        t.first[g] = first[g];
        for (int k = 0; k < 2; k++) {
            size_t m = rng_below(&r, 5);
            double d[5];
            int32_t c[5];
            for (size_t i = 0; i < m; i++) {
                d[i] = (double)(g * 10 + i) + 0.5 * k;
                c[i] = (int32_t)i - 2;
            }
            ck_assert_int_eq(group_vals_append(&t, g, k, d, c, m), 0);
        }
    }
    ck_assert_int_eq(group_table_quantiles(&t, nq), 0);
    for (size_t g = 0; g < n; g++)
        for (size_t k = 0; k < 2; k++)
            for (size_t i = 0; i < nq; i++)
                t.q[(g * 2 + k) * nq + i].value =
                    (double)(g * 100 + k * 10 + i);
    ck_assert_int_eq(group_table_by_first(&t), 0);
    for (size_t id = 0; id < n; id++) {
        char kb[32] = {0}; /* a key's bytes end with no NUL */
        memcpy(kb, group_key(&t, id), t.key_len[id]);
        size_t g = (size_t)atoi(kb + 1);
        ck_assert_uint_eq(t.first[id], first[g]);
        ck_assert(id == 0 || t.first[id - 1] <= t.first[id]);
        for (size_t k = 0; k < 2; k++) {
            const group_vals *v = &t.val[id * 2 + k];
            ck_assert_uint_eq(v->done, v->n);
            for (size_t i = 0; i < v->n; i++) {
                ck_assert(v->d[i] == (double)(g * 10 + i) + 0.5 * (double)k);
                ck_assert_int_eq(v->r[i], (int32_t)i - 2);
                ck_assert_uint_eq(v->row[i], 0);
            }
            for (size_t i = 0; i < nq; i++)
                ck_assert(t.q[(id * 2 + k) * nq + i].value ==
                          (double)(g * 100 + k * 10 + i));
        }
    }
    /* a value waiting for the statistics: values made elsewhere refused */
    double one = 1.0;
    int32_t zero = 0;
    ck_assert_int_eq(group_add(&t, 0, 0, 2.0, 0, 5), 0);
    ck_assert_int_eq(group_vals_append(&t, 0, 0, &one, &zero, 1), -1);
    ck_assert_int_eq(group_flush(&t), 0);
    ck_assert_int_eq(group_vals_append(&t, 0, 0, &one, &zero, 1), 0);
    group_table_free(&t);
    free(first);
}
END_TEST

/* Groups made elsewhere taken whole by an empty direct table (their
 * cells not copied): found again by their keys, with their rows, first
 * rows and cells; a table that holds a group takes none. */
START_TEST(test_take)
{
    test_rng r = rng_for(seed, 5000 + (uint64_t)_i);
    size_t n = 1 + rng_below(&r, 3000), nc = 1 + rng_below(&r, 3);
    char *keys = malloc(n * 16 + 1);
    uint64_t *off = malloc(n * sizeof *off), *rows = malloc(n * sizeof *rows);
    uint64_t *first = malloc(n * sizeof *first);
    uint32_t *len = malloc(n * sizeof *len);
    col_part *part = malloc(n * nc * sizeof *part);
    group_sum *sum = malloc(n * nc * sizeof *sum);
    size_t used = 0;
    for (size_t g = 0; g < n; g++) {
        off[g] = used;
        len[g] = (uint32_t)snprintf(keys + used, 16, "t%zu", g);
        used += len[g];
        rows[g] = 1 + rng_below(&r, 100);
        first[g] = 1 + rng_below(&r, 1000000);
        for (size_t k = 0; k < nc; k++) {
            stats_part_init(&part[g * nc + k]);
            group_sum_init(&sum[g * nc + k]);
            stats_part_add(&part[g * nc + k], (double)(g * nc + k), 0,
                           first[g]);
            ck_assert_int_eq(group_sum_add(&sum[g * nc + k], (double)g), 0);
        }
    }
    group_table busy, t;
    group_table_init(&busy, (int)nc, STAT_DEFAULT, 0);
    group_table_direct(&busy);
    size_t id;
    ck_assert_int_eq(group_find(&busy, "x", 1, group_hash("x", 1), &id), 0);
    group_taken gt = {keys, used, off, len, rows, first, part, sum};
    ck_assert_int_eq(group_table_take(&busy, n, &gt), -1);
    group_table_free(&busy);
    group_table_init(&t, (int)nc, STAT_DEFAULT, 0);
    group_table_direct(&t);
    ck_assert_int_eq(group_table_track_first(&t), 0);
    ck_assert_int_eq(group_table_take(&t, n, &gt), 0);
    ck_assert_uint_eq(t.n, n);
    for (size_t g = 0; g < n; g++) {
        char buf[16];
        size_t l = (size_t)snprintf(buf, sizeof buf, "t%zu", g);
        ck_assert_int_eq(group_find(&t, buf, l, group_hash(buf, l), &id), 0);
        ck_assert_uint_eq(id, g);
        ck_assert_uint_eq(t.rows[g], rows[g]);
        ck_assert_uint_eq(t.first[g], first[g]);
        for (size_t k = 0; k < nc; k++)
            ck_assert(t.part[g * nc + k].min == (double)(g * nc + k));
    }
    ck_assert_uint_eq(t.n, n); /* no key made again */
    ck_assert_int_eq(group_find(&t, "new", 3, group_hash("new", 3), &id), 0);
    ck_assert_uint_eq(id, n);
    ck_assert_int_eq(group_flush(&t), 0);
    for (size_t g = 0; g < n; g++) {
        col_summary cs;
        stats_finalize(&t.st[g * nc], &cs);
        ck_assert(cs.sum == (double)g);
    }
    group_table_free(&t);
    free(off);
    free(rows);
    free(first);
    free(len);
}
END_TEST

int main(void)
{
    seed = test_seed("test_group_table");
    Suite *s = suite_create("group_table");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_colliding_hashes);
    tcase_add_loop_test(tc, test_reserve, 0, 6);
    tcase_add_loop_test(tc, test_merge_any_order, 0, 8);
    tcase_add_loop_test(tc, test_direct_same_as_batched, 0, 12);
    tcase_add_loop_test(tc, test_first_and_dropped, 0, 6);
    tcase_add_loop_test(tc, test_profiles, 0, 6);
    tcase_add_loop_test(tc, test_adopt_shards, 0, 8);
    tcase_add_loop_test(tc, test_made_elsewhere, 0, 8);
    tcase_add_loop_test(tc, test_take, 0, 6);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
