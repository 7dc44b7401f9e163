/* The kept values (src/stats/value_store.h): whatever the limits, every value
 * (NaN left out) comes back in order with its correction, from memory or
 * from the temporary file; past a budget without a file the store drops
 * everything and says so; a file that cannot be made is an error. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/stats/value_store.h"
#include "tests/testlib.h"

enum { COLS = 3 };

static uint64_t seed;

typedef struct column {
    double *d;
    int32_t *r;
    size_t n;
} column;

/* Values with NaN among them; corrections in stretches (a row batch's column
 * has them or not). */
static void make(test_rng *g, column *c, size_t n)
{
    c->d = malloc((n ? n : 1) * sizeof *c->d);
    c->r = calloc(n ? n : 1, sizeof *c->r);
    c->n = n;
    int corr = 0;
    for (size_t i = 0; i < n; i++) {
        if (rng_below(g, 1000) == 0)
            corr = !corr;
        c->d[i] = rng_below(g, 10) == 0 ? NAN : (double)rng_next(g);
        c->r[i] = corr ? (int32_t)rng_below(g, 2049) - 1024 : 0;
    }
}

/* The values as they must come back: NaN out. */
static size_t expected(const column *c, double *d, int32_t *r)
{
    size_t m = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->d[i] == c->d[i]) {
            d[m] = c->d[i];
            r[m++] = c->r[i];
        }
    return m;
}

static void read_back(const value_store *k, int col, const column *c)
{
    double *wd = malloc((c->n ? c->n : 1) * sizeof *wd);
    int32_t *wr = malloc((c->n ? c->n : 1) * sizeof *wr);
    size_t m = expected(c, wd, wr), at = 0;
    vstore_buf buf = {0};
    cs_error e = {0};
    for (size_t b = 0; b < vstore_nblocks(k, col); b++) {
        const double *d;
        const int32_t *r;
        size_t n;
        ck_assert_int_eq(vstore_read(k, col, b, &buf, &d, &r, &n, &e), CS_OK);
        ck_assert(at + n <= m);
        for (size_t i = 0; i < n; i++, at++) {
            ck_assert(bits_of(d[i]) == bits_of(wd[at]));
            ck_assert_int_eq(r ? r[i] : 0, wr[at]);
        }
    }
    ck_assert_uint_eq(at, m);
    vstore_buf_free(&buf);
    free(wd);
    free(wr);
}

/* Values into the run's store through job stores (vstore_move) and
 * directly (vstore_add), in random pieces; returns the store. */
static value_store *fill(test_rng *g, column *cols, const vstore_limits *lim)
{
    cs_error e = {0};
    value_store *run = vstore_new(COLS, lim);
    ck_assert_ptr_nonnull(run);
    size_t done = 0, n = cols[0].n;
    while (done < n) {
        size_t len = 1 + rng_below(g, 40000);
        len = len > n - done ? n - done : len;
        int direct = rng_below(g, 3) == 0;
        value_store *job = direct ? run : vstore_new(COLS, NULL);
        for (size_t at = done; at < done + len;) {
            size_t piece = 1 + rng_below(g, 9000);
            piece = piece > done + len - at ? done + len - at : piece;
            for (int k = 0; k < COLS; k++) {
                int with_r = rng_below(g, 2) != 0;
                for (size_t i = at; i < at + piece; i++)
                    with_r |= cols[k].r[i] != 0; /* NULL: all 0 */
                ck_assert_int_eq(vstore_add(job, k, cols[k].d + at,
                                            with_r ? cols[k].r + at : NULL,
                                            piece, &e),
                                 CS_OK);
            }
            at += piece;
        }
        if (!direct) {
            ck_assert_int_eq(vstore_move(run, job, &e), CS_OK);
            ck_assert_uint_eq(vstore_values(job), 0);
            vstore_free(job);
        }
        done += len;
    }
    return run;
}

START_TEST(in_memory_spilled_dropped)
{
    test_rng g = rng_for(seed, (uint64_t)_i);
    column cols[COLS];
    size_t n = 1 + rng_below(&g, test_quick() ? 60000 : 300000);
    for (int k = 0; k < COLS; k++)
        make(&g, &cols[k], n);
    size_t all = n * COLS * 12;
    /* A growing block starts with room for up to 4096 values (value_store.c's
     * FIRST_CAP) and doubles: without the first block's room, a short
     * column (seed 103, QUICK) passed "big" and was dropped. */
    vstore_limits big = {all * 4 + (size_t)COLS * 4096 * 12, 0, NULL};
    vstore_limits spill = {rng_below(&g, all / 2 + 1), 1, NULL};
    vstore_limits drop = {rng_below(&g, all / 4 + 1), 0, NULL};
    const vstore_limits *lims[] = {NULL, &big, &spill, &drop};
    for (int l = 0; l < 4; l++) {
        value_store *k = fill(&g, cols, lims[l]);
        if (lims[l] == &drop && !vstore_dropped(k))
            ck_assert_uint_le(vstore_memory(k), drop.budget);
        if (vstore_dropped(k)) {
            ck_assert(lims[l] == &drop);
            ck_assert_uint_eq(vstore_memory(k), 0);
            for (int c = 0; c < COLS; c++)
                ck_assert_uint_eq(vstore_nblocks(k, c), 0);
        } else {
            for (int c = 0; c < COLS; c++)
                read_back(k, c, &cols[c]);
        }
        if (lims[l] == &spill) /* past it: the growing tails, at most */
            ck_assert_uint_le(vstore_memory(k),
                              spill.budget + COLS * ((size_t)1 << 16) * 24);
        if (lims[l] == NULL || lims[l] == &big)
            ck_assert_uint_eq(vstore_spilled(k), 0);
        vstore_free(k);
    }
    for (int k = 0; k < COLS; k++) {
        free(cols[k].d);
        free(cols[k].r);
    }
}
END_TEST

START_TEST(spills_when_over)
{
    test_rng g = rng_for(seed, 99);
    column c[COLS];
    for (int k = 0; k < COLS; k++)
        make(&g, &c[k], 200000);
    vstore_limits lim = {1000, 1, NULL};
    value_store *k = fill(&g, c, &lim);
    ck_assert(vstore_spilled(k) > 0 && !vstore_dropped(k));
    for (int j = 0; j < COLS; j++) {
        read_back(k, j, &c[j]);
        free(c[j].d);
        free(c[j].r);
    }
    vstore_free(k);
}
END_TEST

/* A tail left in memory past the budget takes room for its numbers only:
 * a piece of mostly NaN (not kept) must not grow it (it did: room was
 * made for every value of the piece, NaN or not). */
START_TEST(nan_makes_no_room)
{
    cs_error e = {0};
    vstore_limits lim = {0, 1, NULL};
    value_store *k = vstore_new(1, &lim);
    ck_assert_ptr_nonnull(k);
    size_t n = ((size_t)1 << 16) - 2, nan = 200000;
    double *d = malloc((n + nan) * sizeof *d);
    ck_assert_ptr_nonnull(d);
    for (size_t i = 0; i < n + nan; i++)
        d[i] = i < n ? (double)i : NAN;
    ck_assert_int_eq(vstore_add(k, 0, d, NULL, n, &e), CS_OK);
    ck_assert_int_eq(vstore_add(k, 0, d + n - 1, NULL, 1 + nan, &e), CS_OK);
    ck_assert_uint_eq(vstore_values(k), n + 1);
    ck_assert_uint_eq(vstore_spilled(k), 0); /* a tail below the spill size */
    ck_assert_uint_le(vstore_memory(k), ((size_t)1 << 16) * 24);
    vstore_free(k);
    free(d);
}
END_TEST

/* Past the budget, a column's tail in memory followed by another store's
 * blocks (vstore_move) grows no more and goes to the file: merges must not
 * leave a tail in memory each (they did). */
START_TEST(merges_leave_no_tails)
{
    cs_error e = {0};
    vstore_limits lim = {0, 1, NULL};
    value_store *k = vstore_new(1, &lim);
    ck_assert_ptr_nonnull(k);
    enum { ROUNDS = 40, DIRECT = 30000, MOVED = 10 };
    static double d[DIRECT];
    uint64_t want = 0;
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < DIRECT; i++)
            d[i] = (double)(want + (uint64_t)i);
        ck_assert_int_eq(vstore_add(k, 0, d, NULL, DIRECT, &e), CS_OK);
        want += DIRECT;
        value_store *job = vstore_new(1, NULL);
        ck_assert_ptr_nonnull(job);
        for (int i = 0; i < MOVED; i++)
            d[i] = (double)(want + (uint64_t)i);
        ck_assert_int_eq(vstore_add(job, 0, d, NULL, MOVED, &e), CS_OK);
        ck_assert_int_eq(vstore_move(k, job, &e), CS_OK);
        vstore_free(job);
        want += MOVED;
        ck_assert_uint_le(vstore_memory(k), ((size_t)1 << 16) * 24);
    }
    ck_assert_uint_eq(vstore_values(k), want);
    vstore_buf buf = {0};
    uint64_t at = 0;
    for (size_t b = 0; b < vstore_nblocks(k, 0); b++) {
        const double *v;
        const int32_t *r;
        size_t n;
        ck_assert_int_eq(vstore_read(k, 0, b, &buf, &v, &r, &n, &e), CS_OK);
        for (size_t i = 0; i < n; i++, at++)
            ck_assert(v[i] == (double)at); /* every value, in order */
    }
    ck_assert_uint_eq(at, want);
    vstore_buf_free(&buf);
    vstore_free(k);
}
END_TEST

START_TEST(no_place_for_the_file)
{
    vstore_limits lim = {0, 1, "/nonexistent/colstat-test"};
    value_store *k = vstore_new(1, &lim);
    value_store *job = vstore_new(1, NULL);
    cs_error e = {0};
    double v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = i;
    ck_assert_int_eq(vstore_add(job, 0, v, NULL, 1000, &e), CS_OK);
    ck_assert_int_eq(vstore_move(k, job, &e), CS_EDATA);
    ck_assert_ptr_nonnull(strstr(e.msg, "temporary file"));
    vstore_free(job);
    vstore_free(k);
}
END_TEST

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* The process's address space now, in bytes (0: unknown). */
static size_t address_space(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* In a child whose address space cannot grow by more than 64 MiB: adds
 * 512 MiB of values (zero pages, mapped before the limit) to a store
 * without limits. Exits 0 when that failed as out of memory. */
static void add_past_the_address_space(void)
{
    size_t n = (size_t)64 << 20;
    double *d = calloc(n, sizeof *d);
    size_t now = address_space();
    if (!d || !now)
        _exit(2);
    struct rlimit lim = {now + ((size_t)64 << 20), now + ((size_t)64 << 20)};
    if (setrlimit(RLIMIT_AS, &lim))
        _exit(3);
    value_store *k = vstore_new(1, NULL);
    cs_error e = {0};
    int rc = k ? vstore_add(k, 0, d, NULL, n, &e) : CS_ENOMEM;
    int ok = rc == CS_ENOMEM && (!k || strstr(e.msg, "out of memory"));
    _exit(ok ? 0 : 4 + (rc & 3));
}

/* Memory running out is CS_ENOMEM, not bad data. */
START_TEST(out_of_memory)
{
#ifdef UNDER_ASAN
    return; /* ASan reserves terabytes: no address-space limit under it */
#endif
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        add_past_the_address_space();
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "child: exit %d (4 + status: not CS_ENOMEM)",
                  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}
END_TEST

int main(void)
{
    seed = test_seed("test_value_store");
    Suite *s = suite_create("kept");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, in_memory_spilled_dropped, 0, 8);
    tcase_add_test(tc, spills_when_over);
    tcase_add_test(tc, nan_makes_no_room);
    tcase_add_test(tc, merges_leave_no_tails);
    tcase_add_test(tc, no_place_for_the_file);
    tcase_add_test(tc, out_of_memory);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
