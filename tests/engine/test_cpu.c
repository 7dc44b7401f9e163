/* The CPU backend through the backend interface (backend.h): the same rows
 * cut into jobs of random sizes and row batches of random sizes, retired in
 * order, must give the state and histograms of one pass over the whole
 * column, with rows numbered across jobs; which is what lets the engine
 * cut the input anywhere. The passes after the input (passes.h) run over
 * the values kept in memory, spilled to a file, or (dropped past the
 * budget) over the same rows fed again in other jobs, and must give the
 * quantiles of a sort. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/engine/backend.h"
#include "src/engine/passes.h"
#include "tests/testlib.h"

enum { COLS = 3, N = 60000, BIG = 2 }; /* column BIG: integers near 2^60 */

static uint64_t rng;

static double draw(void)
{
    uint64_t r = test_rand(&rng);
    switch (r % 5) {
    case 0:
        return NAN;
    case 1:
        return (double)(int)(r >> 40) - 8000000.0; /* integers, with ties */
    case 2:
        return (double)(r >> 11) * 0x1p-53 * 1e6;
    default:
        return ldexp((double)(r >> 12), (int)((r >> 3) % 200) - 150) *
               ((r & 4) ? -1 : 1);
    }
}

/* An integer near 2^60 as its double and correction, or NaN. */
static void draw_big(double *d, int32_t *r)
{
    uint64_t x = test_rand(&rng);
    if (x % 9 == 0) {
        *d = NAN;
        *r = 0;
        return;
    }
    int64_t v = ((int64_t)1 << 60) + (int64_t)(x >> 40) % 3000 - 1500;
    *d = (double)v;
    *r = (int32_t)(v - (int64_t)*d);
}

static void quiet(void *ctx, engine_msg kind, const char *file, uint64_t line,
                  const char *s)
{
    (void)ctx, (void)kind, (void)file, (void)line, (void)s;
}

static const engine_sink sink = {quiet, NULL};

static int32_t (*corr)[N]; /* the values' corrections */

/* Rows [from, from + n) of v as a row batch; row r's field counts as invalid
 * when r % 7 == 3 (NaN kept there as the parser would). */
static void fill(row_batch *c, double (*v)[N], size_t from, size_t n)
{
    row_batch_clear(c);
    row_batch_corr_start(c, BIG, 0);
    for (int k = 0; k < COLS; k++)
        for (size_t i = 0; i < n; i++) {
            size_t r = from + i;
            if (k == BIG)
                c->corr[k][i] = r % 7 == 3 ? 0 : corr[k][r];
            c->col[k][i] = r % 7 == 3 ? NAN : v[k][r];
            if (r % 7 == 3) {
                c->invalid[k]++;
                if (!c->first_invalid[k])
                    c->first_invalid[k] = i + 1;
            } else if (isnan(v[k][r])) {
                c->nan[k]++;
            }
        }
    c->nrows = n;
}

static void same(const col_stats *a, const col_stats *b)
{
    col_summary x, y;
    stats_finalize(a, &x);
    stats_finalize(b, &y);
    ck_assert(x.count == y.count && x.invalid == y.invalid && x.nan == y.nan);
    ck_assert_uint_eq(x.first_invalid_row, y.first_invalid_row);
    ck_assert(memcmp(&x.sum, &y.sum, sizeof x.sum) == 0);
    ck_assert(memcmp(&x.std, &y.std, sizeof x.std) == 0);
    ck_assert(memcmp(&x.min, &y.min, sizeof x.min) == 0);
    ck_assert(memcmp(&x.max, &y.max, sizeof x.max) == 0);
    ck_assert(x.min_row == y.min_row && x.max_row == y.max_row);
    ck_assert(x.is_int == y.is_int);
}

static void same_hist(const hist *a, const hist *b)
{
    ck_assert_int_eq(a->nbins, b->nbins);
    ck_assert(memcmp(&a->lo, &b->lo, 8) == 0 && memcmp(&a->hi, &b->hi, 8) == 0);
    ck_assert(a->underflow == b->underflow && a->overflow == b->overflow);
    for (int i = 0; i < a->nbins; i++)
        ck_assert_uint_eq(a->bins[i], b->bins[i]);
}

/* The reference: one row batch of everything, reduced alone. */
static void whole(double (*v)[N], size_t n, const backend_params *p,
                  col_stats *st, hist *h)
{
    row_batch c;
    ck_assert_int_eq(row_batch_init(&c, COLS, n, NULL), 0);
    fill(&c, v, 0, n);
    for (int k = 0; k < COLS; k++) {
        stats_init(&st[k]);
        ck_assert_int_eq(stats_add_values(&st[k], c.col[k],
                                          c.has_corr[k] ? c.corr[k] : NULL, n,
                                          1, p->what),
                         0);
        stats_add_counts(&st[k], 0, c.invalid[k], c.nan[k], c.first_invalid[k]);
        double lo = p->have_range ? p->range_lo : st[k].min;
        double hi = p->have_range ? p->range_hi : st[k].max;
        ck_assert_int_eq(hist_init(&h[k], p->nbins, lo, hi), 0);
        hist_add_values(&h[k], c.col[k], n);
    }
    row_batch_free(&c, NULL);
}

/* (d, r) order, the order of d + r. */
static int cmp_value(const void *a, const void *b)
{
    const qnum *x = a, *y = b;
    if (x->d != y->d)
        return (x->d > y->d) - (x->d < y->d);
    return (x->r > y->r) - (x->r < y->r);
}

/* Type 7 by a sort of the column's values (rows r % 7 == 3 are not
 * values: fill makes them invalid). */
static void sorted_quantiles(double (*v)[N], size_t n, int k, const qfrac *q,
                             size_t nq, qres *out)
{
    qnum *x = malloc((n ? n : 1) * sizeof *x);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (i % 7 != 3 && v[k][i] == v[k][i])
            x[m++] = (qnum){v[k][i], k == BIG ? corr[k][i] : 0};
    qsort(x, m, sizeof *x, cmp_value);
    for (size_t i = 0; i < nq; i++) {
        memset(&out[i], 0, sizeof out[i]);
        if (!m)
            continue;
        qrank rk = qlist_rank(q[i], m);
        qnum a = x[rk.k - 1], b = rk.fnum ? x[rk.k] : a;
        qvalue_interpolate(a, b, rk.fnum, rk.fden, &out[i]);
    }
    free(x);
}

/* Every row of v in jobs of random sizes, each in row batches of random sizes,
 * retired in order. */
static void feed(backend *be, job *j, row_batch *c, double (*v)[N], size_t n)
{
    cs_error e = {0};
    for (size_t done = 0; done < n;) {
        size_t len = 1 + test_rand(&rng) % (n - done);
        be->ops->jstate_reset(be, j->jstate);
        j->rows = 0;
        while (j->rows < len) {
            size_t k = 1 + test_rand(&rng) % (len - j->rows);
            fill(c, v, done + j->rows, k);
            ck_assert_int_eq(be->ops->batch_done(be, j, c, &e), CS_OK);
            j->rows += k;
        }
        ck_assert_int_eq(be->ops->retire(be, j, done + 1, 0, &e), CS_OK);
        done += len;
    }
}

/* The passes the driver runs: over what the backend kept, else over the
 * rows fed again; returns how many read the rows again. */
static int run_passes(backend *be, job *j, row_batch *c, double (*v)[N],
                      size_t n, const col_stats *st, hist *h, const qfrac *q,
                      size_t nq, qres (*res)[8])
{
    cs_error e = {0};
    passes *ps;
    /* few candidates at a time: pass after pass of counting */
    passes_params pp = {COLS, st, q, nq, h, 1 + test_rand(&rng) % 3000, 0};
    int reread = 0;
    ck_assert_int_eq(passes_new(&pp, &ps, &e), CS_OK);
    while (!passes_done(ps)) {
        pass_plan *plan = passes_plan(ps);
        int all = 0;
        ck_assert_ptr_nonnull(plan);
        ck_assert_int_eq(be->ops->pass_begin(be, plan, &e), CS_OK);
        ck_assert_int_eq(be->ops->pass_kept(be, &all, &e), CS_OK);
        if (!all)
            feed(be, j, c, v, n);
        reread += !all;
        ck_assert_int_eq(be->ops->pass_end(be, &e), CS_OK);
        ck_assert_msg(passes_narrow(ps, &e) == CS_OK, "%s", e.msg);
    }
    for (int k = 0; k < COLS; k++)
        for (size_t i = 0; i < nq; i++)
            ck_assert_int_eq(passes_result(ps, k, i, &res[k][i]), 0);
    passes_free(ps);
    return reread;
}

static void through_backend(double (*v)[N], size_t n, const backend_params *p,
                            col_stats *st, hist *h, const qfrac *q, size_t nq,
                            qres (*res)[8])
{
    backend *be;
    cs_error e = {0};
    ck_assert_int_eq(backend_cpu_open(p, &be, &e), CS_OK);
    job j;
    memset(&j, 0, sizeof j);
    j.jstate = be->ops->jstate_new(be);
    row_batch c;
    ck_assert_int_eq(row_batch_init(&c, COLS, N, NULL), 0);
    feed(be, &j, &c, v, n);
    for (int k = 0; k < COLS; k++)
        stats_init(&st[k]);
    memset(h, 0, COLS * sizeof *h);
    ck_assert_int_eq(be->ops->finish(be, st, h, &e), CS_OK);
    for (int k = 0; !p->have_range && k < COLS; k++)
        ck_assert_int_eq(hist_init(&h[k], p->nbins, st[k].min, st[k].max), 0);
    int reread =
        run_passes(be, &j, &c, v, n, st, p->have_range ? NULL : h, q, nq, res);
    /* kept within the budget, or spilled: never read twice */
    ck_assert(reread == 0 || (p->memory < n * 12 * COLS && !p->spill));
    be->ops->jstate_free(be, j.jstate);
    be->ops->close(be);
    row_batch_free(&c, NULL);
}

static void same_quantile(const qres *a, const qres *b)
{
    ck_assert_int_eq(a->has_value, b->has_value);
    ck_assert_uint_eq(bits_of(a->value), bits_of(b->value));
    ck_assert_int_eq(a->is_int, b->is_int);
    if (a->is_int)
        ck_assert(a->exact.d == b->exact.d && a->exact.r == b->exact.r);
}

START_TEST(jobs_merge_as_whole)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    corr = calloc(1, sizeof(int32_t[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (size_t i = 0; i < N; i++) {
            if (k == BIG)
                draw_big(&v[k][i], &corr[k][i]);
            else
                v[k][i] = draw();
        }
    size_t n = 1 + test_rand(&rng) % N;
    account acc;
    account_init(&acc, &sink, 0, 0);
    engine_hooks hooks = {0};
    int ranged = test_rand(&rng) % 2;
    /* all in memory, a budget that spills, one that drops */
    size_t budgets[] = {(size_t)1 << 40, test_rand(&rng) % (n * 8 * COLS),
                        test_rand(&rng) % 4096};
    size_t budget = budgets[test_rand(&rng) % 3];
    backend_params p = {.ncols = COLS,
                        .what = STAT_ALL | STAT_QUANTILES,
                        .nbins = 1 + (int)(test_rand(&rng) % 300),
                        .have_range = ranged,
                        .range_lo = -1e5,
                        .range_hi = 1e5,
                        .spec = NULL,
                        .nthreads = 1 + (int)(test_rand(&rng) % 4),
                        .memory = budget,
                        .spill = (int)(test_rand(&rng) % 2),
                        .tmpdir = NULL,
                        .gpu_sharers = 0,
                        .hooks = &hooks,
                        .acc = &acc};
    static const qfrac pool[] = {{0, 0},  {1, 0},   {5, 1},  {1, 2},
                                 {99, 2}, {999, 3}, {25, 2}, {123456789, 9}};
    qfrac q[8];
    size_t nq = 1 + test_rand(&rng) % 8;
    for (size_t i = 0; i < nq; i++)
        q[i] = pool[test_rand(&rng) % 8];
    col_stats a[COLS], b[COLS];
    hist ha[COLS], hb[COLS];
    qres got[COLS][8], want[8];
    whole(v, n, &p, a, ha);
    through_backend(v, n, &p, b, hb, q, nq, got);
    for (int k = 0; k < COLS; k++) {
        same(&a[k], &b[k]);
        same_hist(&ha[k], &hb[k]);
        hist_free(&ha[k]);
        hist_free(&hb[k]);
        sorted_quantiles(v, n, k, q, nq, want);
        for (size_t i = 0; i < nq; i++)
            same_quantile(&got[k][i], &want[i]);
        stats_free(&a[k]);
        stats_free(&b[k]);
    }
    free(v);
    free(corr);
}
END_TEST

int main(void)
{
    rng = test_seed("test_cpu");
    Suite *s = suite_create("cpu");
    TCase *tc = tcase_create("backend");
    tcase_set_timeout(tc, 120);
    for (int i = 0; i < (test_quick() ? 3 : 12); i++)
        tcase_add_test(tc, jobs_merge_as_whole);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
