/* The passes after the input (src/engine/passes.h) with their counting
 * (src/engine/tally.h), driven as the engine drives them but over values
 * in memory: each pass's values are cut into shares of random sizes,
 * counted by tallies added in random order, or by tally_kept's threads
 * over a kept store (src/stats/value_store.h). The quantiles must be those of a
 * sort (type 7, qvalue_interpolate over the sorted order statistics), the
 * histograms those of hist_add_values, and a column of a few distinct
 * values must take two passes however wide their keys lie (the ranges'
 * extrema, qsel_add_extrema). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/engine/passes.h"
#include "tests/testlib.h"

enum { COLS = 5, NQ = 7 };

static uint64_t seed;

typedef struct data {
    double *d[COLS];
    int32_t *r[COLS];
    size_t n;
} data;

/* Column kinds: 0/1 flags, small integers, doubles of every size with
 * infinities, zeros of both signs and NaN, integers near 2^62 with their
 * corrections, and uniform doubles. */
static void value(test_rng *g, int k, double *d, int32_t *r)
{
    uint64_t x = rng_next(g);
    *r = 0;
    switch (k) {
    case 0:
        *d = (double)(x & 1);
        break;
    case 1:
        *d = (double)(x % 16);
        break;
    case 2:
        *d = x % 50 == 0   ? NAN
             : x % 50 == 1 ? INFINITY
             : x % 50 == 2 ? -INFINITY
             : x % 50 == 3 ? -0.0
             : x % 50 == 4 ? 0.0
                           : ldexp((double)(x >> 11), (int)(x % 400) - 250) *
                                 ((x >> 9) & 1 ? -1 : 1);
        break;
    case 3: {
        int64_t v = ((int64_t)1 << 62) + (int64_t)(x % 5000) - 2500;
        *d = (double)v;
        *r = (int32_t)(v - (int64_t)*d);
        break;
    }
    default:
        *d = (double)(x >> 11) * 0x1p-53;
        break;
    }
}

static void make(test_rng *g, data *x, size_t n)
{
    x->n = n;
    for (int k = 0; k < COLS; k++) {
        x->d[k] = malloc((n ? n : 1) * sizeof(double));
        x->r[k] = malloc((n ? n : 1) * sizeof(int32_t));
        for (size_t i = 0; i < n; i++)
            value(g, k, &x->d[k][i], &x->r[k][i]);
    }
}

static void release(data *x)
{
    for (int k = 0; k < COLS; k++) {
        free(x->d[k]);
        free(x->r[k]);
    }
}

static int cmp_value(const void *a, const void *b)
{
    const qnum *x = a, *y = b;
    uint64_t kx = qsel_key(x->d), ky = qsel_key(y->d);
    if (kx != ky)
        return (kx > ky) - (kx < ky);
    return (x->r > y->r) - (x->r < y->r);
}

static void sorted_quantile(const data *x, int k, int all_int, qfrac q,
                            qres *out)
{
    qnum *v = malloc((x->n ? x->n : 1) * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < x->n; i++)
        if (x->d[k][i] == x->d[k][i])
            v[m++] = (qnum){x->d[k][i], all_int ? x->r[k][i] : 0};
    qsort(v, m, sizeof *v, cmp_value);
    memset(out, 0, sizeof *out);
    if (m) {
        qrank rk = qlist_rank(q, m);
        qnum a = v[rk.k - 1], b = rk.fnum ? v[rk.k] : a;
        qvalue_interpolate(a, b, rk.fnum, rk.fden, out);
    }
    free(v);
}

/* One pass counted by shares: tallies over random pieces, added in a
 * random order. */
static void count_shares(test_rng *g, pass_plan *p, const data *x)
{
    enum { SHARES = 6 };
    cs_error e = {0};
    tally *t[SHARES];
    for (int s = 0; s < SHARES; s++) {
        t[s] = tally_new(COLS);
        ck_assert_ptr_nonnull(t[s]);
        ck_assert_int_eq(tally_reset(t[s], p, &e), CS_OK);
    }
    for (size_t at = 0; at < x->n;) {
        size_t len = 1 + rng_below(g, 5000);
        len = len > x->n - at ? x->n - at : len;
        tally *s = t[rng_below(g, SHARES)];
        for (int k = 0; k < COLS; k++)
            ck_assert_int_eq(tally_values(s, k, x->d[k] + at,
                                          k == 3 ? x->r[k] + at : NULL, len,
                                          &e),
                             CS_OK);
        at += len;
    }
    int order[SHARES] = {0, 1, 2, 3, 4, 5};
    for (int s = SHARES - 1; s > 0; s--) {
        int j = (int)rng_below(g, (size_t)s + 1), tmp = order[s];
        order[s] = order[j];
        order[j] = tmp;
    }
    for (int s = 0; s < SHARES; s++) {
        ck_assert_int_eq(tally_add(t[order[s]], &e), CS_OK);
        tally_free(t[order[s]]);
    }
}

/* The same values in a kept store, spilled in part. */
static value_store *keep(test_rng *g, const data *x)
{
    cs_error e = {0};
    vstore_limits lim = {rng_below(g, x->n * 8 + 1), 1, NULL};
    value_store *k = vstore_new(COLS, &lim);
    ck_assert_ptr_nonnull(k);
    for (int c = 0; c < COLS; c++)
        ck_assert_int_eq(
            vstore_add(k, c, x->d[c], c == 3 ? x->r[c] : NULL, x->n, &e),
            CS_OK);
    return k;
}

/* Every pass; returns how many. */
static unsigned run(test_rng *g, const data *x, const col_stats *st,
                    const qfrac *q, size_t nq, hist *h, size_t max_cand,
                    qres (*res)[NQ])
{
    cs_error e = {0};
    passes *ps;
    passes_params pp = {COLS, st, q, nq, h, max_cand, 0};
    value_store *k = rng_below(g, 2) ? keep(g, x) : NULL;
    ck_assert_int_eq(passes_new(&pp, &ps, &e), CS_OK);
    while (!passes_done(ps)) {
        pass_plan *p = passes_plan(ps);
        ck_assert_ptr_nonnull(p);
        if (k)
            ck_assert_int_eq(tally_kept(p, k, 1 + (int)rng_below(g, 4), &e),
                             CS_OK);
        else
            count_shares(g, p, x);
        ck_assert_msg(passes_narrow(ps, &e) == CS_OK, "%s", e.msg);
    }
    for (int c = 0; c < COLS; c++)
        for (size_t i = 0; i < nq; i++)
            ck_assert_int_eq(passes_result(ps, c, i, &res[c][i]), 0);
    unsigned n = passes_run(ps);
    passes_free(ps);
    vstore_free(k);
    return n;
}

static void stats_done(col_stats *st)
{
    for (int k = 0; k < COLS; k++)
        stats_free(&st[k]);
}

static void stats_of(const data *x, col_stats *st)
{
    for (int k = 0; k < COLS; k++) {
        stats_init(&st[k]);
        stats_add_values(&st[k], x->d[k], k == 3 ? x->r[k] : NULL, x->n, 1,
                         STAT_ALL);
    }
}

START_TEST(against_a_sort)
{
    test_rng g = rng_for(seed, (uint64_t)_i);
    static const qfrac pool[] = {{0, 0},  {1, 0},   {5, 1},      {1, 2},
                                 {99, 2}, {999, 3}, {333333, 6}, {75, 2}};
    data x;
    make(&g, &x, rng_below(&g, test_quick() ? 20000 : 150000));
    qfrac q[NQ];
    size_t nq = 1 + rng_below(&g, NQ);
    for (size_t i = 0; i < nq; i++)
        q[i] = pool[rng_below(&g, 8)];
    col_stats st[COLS];
    stats_of(&x, st);
    int nbins = 1 + (int)rng_below(&g, 300);
    hist h[COLS], want[COLS];
    for (int k = 0; k < COLS; k++) {
        double lo = st[k].count ? st[k].min : NAN;
        double hi = st[k].count ? st[k].max : NAN;
        ck_assert_int_eq(hist_init(&h[k], nbins, lo, hi), 0);
        ck_assert_int_eq(hist_init(&want[k], nbins, lo, hi), 0);
        hist_add_values(&want[k], x.d[k], x.n);
    }
    qres res[COLS][NQ];
    run(&g, &x, st, q, nq, h, 16 + rng_below(&g, 5000), res);
    for (int k = 0; k < COLS; k++) {
        for (size_t i = 0; i < nq; i++) {
            qres w;
            sorted_quantile(&x, k, st[k].all_int, q[i], &w);
            ck_assert_int_eq(res[k][i].has_value, w.has_value);
            ck_assert_msg(bits_of(res[k][i].value) == bits_of(w.value),
                          "column %d, quantile %zu: %a, sort %a", k, i,
                          res[k][i].value, w.value);
            ck_assert_int_eq(res[k][i].is_int, w.is_int);
            ck_assert(!w.is_int || (res[k][i].exact.d == w.exact.d &&
                                    res[k][i].exact.r == w.exact.r));
        }
        ck_assert(h[k].underflow == want[k].underflow &&
                  h[k].overflow == want[k].overflow);
        for (int b = 0; b < nbins; b++)
            ck_assert_uint_eq(h[k].bins[b], want[k].bins[b]);
        hist_free(&h[k]);
        hist_free(&want[k]);
    }
    stats_done(st);
    release(&x);
}
END_TEST

/* Flags and small integers: their keys span 2^62, but two passes find
 * the median (the first's extrema clip the bin to one key). */
START_TEST(few_values_two_passes)
{
    test_rng g = rng_for(seed, 1000);
    data x;
    make(&g, &x, 100000);
    col_stats st[COLS];
    stats_of(&x, st);
    qfrac med = {5, 1};
    qres res[COLS][NQ];
    passes *ps;
    cs_error e = {0};
    passes_params pp = {2, st, &med, 1, NULL, 1000, 0}; /* columns 0 and 1 */
    ck_assert_int_eq(passes_new(&pp, &ps, &e), CS_OK);
    while (!passes_done(ps)) {
        pass_plan *p = passes_plan(ps);
        tally *t = tally_new(2);
        ck_assert_int_eq(tally_reset(t, p, &e), CS_OK);
        for (int k = 0; k < 2; k++)
            tally_values(t, k, x.d[k], NULL, x.n, &e);
        ck_assert_int_eq(tally_add(t, &e), CS_OK);
        tally_free(t);
        ck_assert_int_eq(passes_narrow(ps, &e), CS_OK);
    }
    ck_assert_uint_eq(passes_run(ps), 2);
    for (int k = 0; k < 2; k++) {
        qres w;
        ck_assert_int_eq(passes_result(ps, k, 0, &res[k][0]), 0);
        sorted_quantile(&x, k, 1, med, &w);
        ck_assert(res[k][0].value == w.value);
    }
    passes_free(ps);
    stats_done(st);
    release(&x);
}
END_TEST

/* Sums that do not add up (a share lost, or the input changed between
 * passes): an error, never an answer. */
START_TEST(changed_input)
{
    test_rng g = rng_for(seed, 2000);
    data x;
    make(&g, &x, 50000);
    col_stats st[COLS];
    stats_of(&x, st);
    qfrac med = {5, 1};
    passes *ps;
    cs_error e = {0};
    passes_params pp = {COLS, st, &med, 1, NULL, 100, 0};
    ck_assert_int_eq(passes_new(&pp, &ps, &e), CS_OK);
    pass_plan *p = passes_plan(ps);
    x.n -= 1 + rng_below(&g, 100); /* rows lost */
    count_shares(&g, p, &x);
    ck_assert_int_eq(passes_narrow(ps, &e), CS_EDATA);
    ck_assert_ptr_nonnull(strstr(e.msg, "changed"));
    passes_free(ps);
    stats_done(st);
    release(&x);
}
END_TEST

int main(void)
{
    seed = test_seed("test_passes");
    Suite *s = suite_create("passes");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, against_a_sort, 0, test_quick() ? 4 : 16);
    tcase_add_test(tc, few_values_two_passes);
    tcase_add_test(tc, changed_input);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
