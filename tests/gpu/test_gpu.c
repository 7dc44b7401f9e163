/* GPU backend (gpu/gpu.h) against the CPU path (stats_add_values +
 * stats_merge, hist_add_values): every statistic must be bit-identical,
 * the integer view of batches that carry corrections (io/base/row_batch.h) too.
 * Histograms without a range and quantiles come from the passes after
 * finish (src/engine/passes.h) over the device's kept values (gpu_pass)
 * and its host store, against the histogram of the CPU and a sort.
 * Skips (77) when no device is usable. Random data, seed on stderr,
 * COLSTAT_SEED reproduces; COLSTAT_TEST_QUICK shrinks the sizes (for
 * compute-sanitizer). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef COLSTAT_HAVE_GPU
#include "gpu/gpu.h"
#include "src/engine/gpu_pack.h"
#include "src/engine/passes.h"
#include "src/stats/stats.h"

#include "tests/testlib.h"

/* gpu_config's test hooks, set per test case. */
static size_t hook_rows, hook_keep_bytes;
static int hook_keep, hook_terms;
static size_t host_memory = (size_t)1 << 40; /* the host store's budget */
static int host_spill;

static uint64_t rng_state;
static int quick;

static uint64_t next_u64(void)
{
    /* splitmix64 (S. Vigna) */
    return test_rand(&rng_state);
}

static double unit(void)
{
    return (double)(next_u64() >> 11) * 0x1p-53;
}

enum kind {
    K_UNIFORM, /* [0, 1) */
    K_SIGNED,  /* both signs, around 1e6 */
    K_WIDE,    /* any finite exponent, subnormals included */
    K_INT,     /* integers below 2^40: all_int holds */
    K_TIES,    /* a few values, many repeats, -0.0 and 0.0 */
    K_EXTREME, /* near DBL_MAX, subnormal, cancelling pairs */
    K_BIGINT,  /* integers near 2^62 .. 2^63 */
    K_INF,     /* some infinities among wide values */
    K_CORR,    /* integers past 2^53 to +-2^64 with their corrections,
                  clusters of one double, NaN rows with garbage ones */
    K_NOTINT,  /* K_CORR with a few CORR_NOT_INT: no integer column */
    K_INFTIES, /* infinities among a few small values and both zeros */
    K_ALLINF,  /* +inf and -inf only: no finite value */
    NKINDS
};

/* An integer of magnitude up to 2^64 as its double and correction. */
static double gen_corr(enum kind k, int32_t *corr)
{
    uint64_t r = next_u64(), mag;
    switch (r % 4) {
    case 0: /* a cluster of integers that round to one double */
        mag = (UINT64_C(1) << 60) + next_u64() % 1200;
        break;
    case 1:
        mag = (UINT64_C(1) << 53) + next_u64() % 7;
        break;
    case 2:
        mag = UINT64_MAX - next_u64() % 3000;
        break;
    default:
        mag = next_u64() >> (next_u64() % 12);
        break;
    }
    double d = (double)mag; /* rounds to nearest */
    uint64_t back = d >= 0x1p64 ? 0 : (uint64_t)d;
    int neg = (r >> 40) & 1;
    *corr = (int32_t)(int64_t)(mag - back);
    if (neg)
        *corr = -*corr;
    if (k == K_NOTINT && r % 97 == 0)
        *corr = CORR_NOT_INT;
    return neg ? -d : d;
}

static double gen(enum kind k)
{
    static const double ties[] = {-1.0, 0.0, -0.0, 1.0, 2.5, -1.0, 2.5};
    uint64_t r = next_u64();
    switch (k) {
    case K_UNIFORM:
        return unit();
    case K_SIGNED:
        return (unit() - 0.5) * 2e6;
    case K_WIDE:
        return from_bits((r & 0x800fffffffffffffull) |
                         ((next_u64() % 2047) << 52));
    case K_INT:
        return (double)((int64_t)(r >> 23) - ((int64_t)1 << 40));
    case K_TIES:
        return ties[r % 7];
    case K_EXTREME:
        switch (r % 4) {
        case 0:
            return (r & 16 ? -1 : 1) * 0x1.fffffffffffffp1023 *
                   (1 - unit() * 1e-3);
        case 1:
            return from_bits((next_u64() & 0x800fffffffffffffull));
        case 2:
            return (r & 16 ? -1 : 1) * 0x1p-480 * (1 + unit());
        default:
            return (r & 16 ? -1 : 1) * 0x1p480 * (1 + unit());
        }
    case K_BIGINT:
        if (r % 50 == 0)
            return r & 64 ? -0x1p63 : 0x1p63;
        return ldexp((double)(int64_t)(next_u64() >> 11) - 0x1p52, 10);
    case K_INF:
        if (r % 97 == 0)
            return r & 128 ? -INFINITY : INFINITY;
        return gen(K_WIDE);
    case K_INFTIES:
        if (r % 5 == 0)
            return r & 128 ? -INFINITY : INFINITY;
        return gen(K_TIES);
    case K_ALLINF:
        return r & 128 ? -INFINITY : INFINITY;
    case K_CORR:
    case K_NOTINT: {
        int32_t c;
        return gen_corr(k, &c);
    }
    default:
        return 0;
    }
}

/* One column's data: kind, NaN share; corrections of K_CORR and
 * K_NOTINT (else 0). */
static void fill(double *v, int32_t *corr, size_t n, enum kind k,
                 double nan_share)
{
    for (size_t i = 0; i < n; i++) {
        corr[i] = 0;
        if (unit() < nan_share) {
            v[i] = NAN;
            corr[i] = k >= K_CORR ? (int32_t)next_u64() : 0; /* ignored */
        } else if (k >= K_CORR) {
            v[i] = gen_corr(k, &corr[i]);
        } else {
            v[i] = gen(k);
        }
    }
}

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void check_sacc(const csum *gc, const csum *rc, const char *what,
                       const char *ctx)
{
    sacc a, b;
    csum_get(gc, &a);
    csum_get(rc, &b);
    sacc_normalize(&a);
    sacc_normalize(&b);
    ck_assert_msg(a.pos_inf == b.pos_inf && a.neg_inf == b.neg_inf,
                  "%s: %s infinities differ", ctx, what);
    ck_assert_msg(same_double(sacc_value(&a), sacc_value(&b)),
                  "%s: %s value %a vs CPU %a", ctx, what, sacc_value(&a),
                  sacc_value(&b));
    for (int i = 0; i < SACC_DIGITS; i++)
        ck_assert_msg(a.d[i] == b.d[i], "%s: %s digit %d: %lld vs CPU %lld",
                      ctx, what, i, (long long)a.d[i], (long long)b.d[i]);
}

static void check_stats(const col_stats *g, const col_stats *r, unsigned what,
                        const char *ctx)
{
    ck_assert_msg(g->count == r->count, "%s: count %llu vs CPU %llu", ctx,
                  (unsigned long long)g->count, (unsigned long long)r->count);
    if (r->count) {
        ck_assert_msg(same_double(g->min, r->min) && g->min_row == r->min_row,
                      "%s: min %a@%llu vs CPU %a@%llu", ctx, g->min,
                      (unsigned long long)g->min_row, r->min,
                      (unsigned long long)r->min_row);
        ck_assert_msg(same_double(g->max, r->max) && g->max_row == r->max_row,
                      "%s: max %a@%llu vs CPU %a@%llu", ctx, g->max,
                      (unsigned long long)g->max_row, r->max,
                      (unsigned long long)r->max_row);
    }
    ck_assert_msg(g->all_int == r->all_int, "%s: all_int %d vs CPU %d", ctx,
                  g->all_int, r->all_int);
    ck_assert_msg(same_double(g->fmin, r->fmin) &&
                      same_double(g->fmax, r->fmax),
                  "%s: finite extremes %a %a vs CPU %a %a", ctx, g->fmin,
                  g->fmax, r->fmin, r->fmax);
    if (r->count) { /* the integer view */
        ck_assert_msg(g->min_corr == r->min_corr &&
                          g->min_row_int == r->min_row_int,
                      "%s: integer min %d@%llu vs CPU %d@%llu", ctx,
                      g->min_corr, (unsigned long long)g->min_row_int,
                      r->min_corr, (unsigned long long)r->min_row_int);
        ck_assert_msg(g->max_corr == r->max_corr &&
                          g->max_row_int == r->max_row_int,
                      "%s: integer max %d@%llu vs CPU %d@%llu", ctx,
                      g->max_corr, (unsigned long long)g->max_row_int,
                      r->max_corr, (unsigned long long)r->max_row_int);
    }
    ck_assert_msg(g->sum_r == r->sum_r, "%s: sum of corrections %lld vs %lld",
                  ctx, (long long)g->sum_r, (long long)r->sum_r);
    if (what & (STAT_SUM | STAT_MEAN | STAT_STD))
        check_sacc(&g->sum, &r->sum, "sum", ctx);
    if (what & STAT_STD) {
        check_sacc(&g->sumsq, &r->sumsq, "sum of squares", ctx);
        check_sacc(&g->sumsq_corr, &r->sumsq_corr, "corrections of the squares",
                   ctx);
    }
    col_summary a, b; /* and what the report prints */
    stats_finalize(g, &a);
    stats_finalize(r, &b);
    ck_assert_msg(a.is_int == b.is_int && !strcmp(a.sum_int, b.sum_int) &&
                      !strcmp(a.min_int, b.min_int) &&
                      !strcmp(a.max_int, b.max_int) && a.min_row == b.min_row &&
                      a.max_row == b.max_row,
                  "%s: summaries differ: %d %s %s %s vs CPU %d %s %s %s", ctx,
                  a.is_int, a.sum_int, a.min_int, a.max_int, b.is_int,
                  b.sum_int, b.min_int, b.max_int);
}

static void check_hist(const hist *g, const hist *r, const char *ctx)
{
    ck_assert_msg(g->nbins == r->nbins, "%s: nbins", ctx);
    ck_assert_msg(same_double(g->lo, r->lo) && same_double(g->hi, r->hi),
                  "%s: edges [%a, %a] vs CPU [%a, %a]", ctx, g->lo, g->hi,
                  r->lo, r->hi);
    ck_assert_msg(
        g->underflow == r->underflow && g->overflow == r->overflow,
        "%s: under/overflow %llu/%llu vs CPU %llu/%llu", ctx,
        (unsigned long long)g->underflow, (unsigned long long)g->overflow,
        (unsigned long long)r->underflow, (unsigned long long)r->overflow);
    for (int i = 0; i < r->nbins; i++)
        ck_assert_msg(g->bins[i] == r->bins[i], "%s: bin %d: %llu vs CPU %llu",
                      ctx, i, (unsigned long long)g->bins[i],
                      (unsigned long long)r->bins[i]);
}

static int has_corr(const int32_t *corr, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (corr[i])
            return 1;
    return 0;
}

typedef struct run_spec {
    const char *name;
    int ncols;
    unsigned what;
    int nbins, have_range;
    const size_t *batches; /* rows of each row_batch */
    int nbatches;
    enum kind kinds[4];
    double nan_share[4];
} run_spec;

/* The quantiles every run with STAT_MEDIAN selects. */
static const qfrac quants[] = {{5, 1},  {0, 0},   {1, 2},
                               {25, 2}, {999, 3}, {1, 0}};
enum { NQ = 6 };

/* The passes the engine runs after finish: on the device and over the
 * host store. */
static void run_passes(gpu_backend *g, int nc, const col_stats *gs, hist *h,
                       int median, qres (*res)[NQ], const char *name)
{
    cs_error why = {0};
    passes *ps;
    passes_params pp = {nc, gs, quants, median ? NQ : 0, h, 0, 0};
    ck_assert_int_eq(passes_new(&pp, &ps, &why), CS_OK);
    while (!passes_done(ps)) {
        pass_plan *p = passes_plan(ps);
        gpu_pass_col cols[4];
        gpu_pack_pass(p, cols);
        ck_assert_msg(gpu_store_all(g), "%s: values not all kept", name);
        ck_assert_msg(gpu_pass(g, cols, &why) == 0, "%s: pass: %s", name,
                      why.msg);
        const value_store *host = gpu_host_values(g);
        if (host)
            ck_assert_int_eq(tally_kept(p, host, 2, &why), CS_OK);
        ck_assert_msg(passes_narrow(ps, &why) == CS_OK, "%s: narrow: %s", name,
                      why.msg);
    }
    for (int j = 0; median && j < nc; j++)
        for (int i = 0; i < NQ; i++)
            ck_assert_int_eq(passes_result(ps, j, (size_t)i, &res[j][i]), 0);
    passes_free(ps);
}

/* colstat's order of values: -0.0 before +0.0 (quantile.h's keys). */
static int cmp_value(const void *a, const void *b)
{
    const qnum *x = a, *y = b;
    if (x->d != y->d)
        return (x->d > y->d) - (x->d < y->d);
    if (!signbit(x->d) != !signbit(y->d))
        return signbit(x->d) ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

/* Type 7 by a sort; corrections count in an integer column only. */
static void check_quantiles(const double *v, const int32_t *corr, size_t n,
                            int all_int, const qres *got, const char *ctx)
{
    qnum *x = malloc((n ? n : 1) * sizeof *x);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] == v[i])
            x[m++] = (qnum){v[i], all_int ? corr[i] : 0};
    qsort(x, m, sizeof *x, cmp_value);
    for (int i = 0; i < NQ; i++) {
        qres want = {0, 0.0, 0, {0.0, 0}, 0, {0.0, 0}};
        if (m) {
            qrank rk = qlist_rank(quants[i], m);
            qnum a = x[rk.k - 1], b = rk.fnum ? x[rk.k] : a;
            qvalue_interpolate(a, b, rk.fnum, rk.fden, &want);
        }
        ck_assert_msg(got[i].has_value == want.has_value &&
                          same_double(got[i].value, want.value) &&
                          got[i].is_int == want.is_int &&
                          (!want.is_int || (got[i].exact.d == want.exact.d &&
                                            got[i].exact.r == want.exact.r)),
                      "%s: quantile %d: %a (int %d) vs sort %a (int %d)", ctx,
                      i, got[i].value, got[i].is_int, want.value, want.is_int);
    }
    free(x);
}

/* The engine's loop: three batches in rotation, each waited for before it
 * is refilled; then the CPU path over the same batches. */
static void run(const run_spec *sp)
{
    cs_error why = {0};
    char ctx[256];
    int nc = sp->ncols;
    size_t total = 0, cap = 1;
    for (int i = 0; i < sp->nbatches; i++) {
        total += sp->batches[i];
        if (sp->batches[i] > cap)
            cap = sp->batches[i];
    }
    double *data[4];
    int32_t *corr[4];
    for (int j = 0; j < nc; j++) {
        data[j] = malloc((total ? total : 1) * sizeof(double));
        corr[j] = malloc((total ? total : 1) * sizeof(int32_t));
        ck_assert(data[j] && corr[j]);
        fill(data[j], corr[j], total, sp->kinds[j], sp->nan_share[j]);
    }
    double lo = 0, hi = 1;
    if (sp->have_range) { /* edges inside the data, so both tails count */
        lo = gen(sp->kinds[0]);
        hi = gen(sp->kinds[0]);
        if (isnan(lo) || isinf(lo))
            lo = -0.5;
        if (isnan(hi) || isinf(hi))
            hi = 0.75;
        if (lo > hi) {
            double t = lo;
            lo = hi;
            hi = t;
        }
    }
    gpu_config cfg = {.ncols = nc,
                      .what = sp->what,
                      .nbins = sp->nbins,
                      .have_range = sp->have_range,
                      .lo = lo,
                      .hi = hi,
                      .batch_rows = hook_rows,
                      .raw_bytes = 0,
                      .keep_set = hook_keep,
                      .keep_bytes = hook_keep_bytes,
                      .terms = hook_terms,
                      .memory = host_memory,
                      .spill = host_spill,
                      .tmpdir = NULL,
                      .sharers = 0};
    gpu_backend *g;
    ck_assert_msg(gpu_open(&cfg, &g, &why) == 0, "%s: open: %s", sp->name,
                  why.msg);
    const row_batch_alloc *al = gpu_row_batch_alloc(g);
    row_batch ring[3];
    int used[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(row_batch_init(&ring[k], nc, cap, al), 0);
    size_t off = 0;
    for (int i = 0; i < sp->nbatches; i++) {
        row_batch *c = &ring[i % 3];
        if (used[i % 3])
            ck_assert_msg(gpu_batch_wait(g, c, &why) == 0, "%s: wait: %s",
                          sp->name, why.msg);
        row_batch_clear(c);
        c->nrows = sp->batches[i];
        for (int j = 0; j < nc; j++) {
            memcpy(c->col[j], data[j] + off, c->nrows * sizeof(double));
            /* corrections where the batch has any, sometimes all zero */
            if (has_corr(corr[j] + off, c->nrows) || next_u64() % 4 == 0) {
                row_batch_corr_start(c, j, 0);
                memcpy(c->corr[j], corr[j] + off, c->nrows * sizeof(int32_t));
            }
        }
        ck_assert_msg(gpu_submit(g, c, off + 1, &why) == 0, "%s: submit: %s",
                      sp->name, why.msg);
        used[i % 3] = 1;
        off += c->nrows;
    }
    col_stats gs[4], rs[4];
    hist gh[4], rh[4];
    for (int j = 0; j < nc; j++) {
        stats_init(&gs[j]);
        stats_init(&rs[j]);
    }
    int hist_on = (sp->what & STAT_HIST) != 0;
    ck_assert_msg(
        gpu_finish(g, gs, hist_on && sp->have_range ? gh : NULL, &why) == 0,
        "%s: finish: %s", sp->name, why.msg);
    int median = (sp->what & STAT_MEDIAN) != 0;
    qres qs[4][NQ];
    int binned = hist_on && !sp->have_range;
    for (int j = 0; binned && j < nc; j++) { /* as the engine sets them */
        double lo, hi;
        stats_hist_edges(&gs[j], &lo, &hi);
        ck_assert_int_eq(hist_init(&gh[j], sp->nbins, lo, hi), 0);
    }
    if (binned || median)
        run_passes(g, nc, gs, binned ? gh : NULL, median, qs, sp->name);
    gpu_times t;
    gpu_get_times(g, &t);
    ck_assert_msg(t.h2d_bytes >= (uint64_t)total * nc * sizeof(double),
                  "%s: h2d bytes %llu", sp->name,
                  (unsigned long long)t.h2d_bytes);
    ck_assert(t.device[0] != '\0');
    for (int k = 0; k < 3; k++)
        row_batch_free(&ring[k], al);
    gpu_close(g);

    off = 0;
    for (int i = 0; i < sp->nbatches; i++) {
        for (int j = 0; j < nc; j++) {
            col_stats part;
            stats_init(&part);
            ck_assert_int_eq(stats_add_values(&part, data[j] + off,
                                              corr[j] + off, sp->batches[i], 1,
                                              sp->what),
                             0);
            ck_assert_int_eq(stats_merge(&rs[j], &part, off), 0);
            stats_free(&part);
        }
        off += sp->batches[i];
    }
    for (int j = 0; j < nc; j++) {
        snprintf(ctx, sizeof ctx, "%s, column %d (kind %d), %zu rows", sp->name,
                 j, (int)sp->kinds[j], total);
        check_stats(&gs[j], &rs[j], sp->what, ctx);
        if (median)
            check_quantiles(data[j], corr[j], total, rs[j].all_int, qs[j], ctx);
        if (!hist_on)
            continue;
        double hlo = lo, hhi = hi;
        if (!sp->have_range)
            stats_hist_edges(&rs[j], &hlo, &hhi);
        ck_assert_int_eq(hist_init(&rh[j], sp->nbins, hlo, hhi), 0);
        hist_add_values(&rh[j], data[j], total);
        check_hist(&gh[j], &rh[j], ctx);
        hist_free(&rh[j]);
        hist_free(&gh[j]);
    }
    for (int j = 0; j < nc; j++) {
        stats_free(&gs[j]);
        stats_free(&rs[j]);
        free(data[j]);
        free(corr[j]);
    }
}

static size_t scaled(size_t n)
{
    return quick ? (n > 20000 ? n / 64 + 1 : n) : n;
}

/* Single batches of the sizes that find off-by-one and tail bugs, every
 * column kind but infinities, all statistics. */
START_TEST(test_sizes)
{
    static const size_t sizes[] = {0,    1,    2,    3,    255,   256,  257,
                                   1023, 1024, 1025, 4097, 65537, 99991};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = scaled(sizes[s]);
        for (int k0 = 0; k0 < K_INF; k0 += 2) {
            run_spec sp = {"sizes",
                           2,
                           STAT_ALL,
                           256,
                           0,
                           &n,
                           1,
                           {(enum kind)k0, (enum kind)(k0 + 1)},
                           {0.05, unit() < 0.2 ? 1.0 : 0.01}};
            run(&sp);
        }
    }
}
END_TEST

/* About 3M rows in batches of uneven sizes, three and four columns. */
START_TEST(test_many_batches)
{
    size_t batches[9];
    int nch = 0;
    size_t left = scaled(3000017);
    while (left && nch < 9) {
        size_t n = nch == 8 ? left : 1 + next_u64() % (2 * left / 5 + 1);
        if (n > left)
            n = left;
        batches[nch++] = n;
        left -= n;
    }
    for (int rep = 0; rep < 3; rep++) {
        run_spec sp = {
            "many batches",
            rep == 0 ? 3 : 4,
            rep == 2 ? (unsigned)STAT_DEFAULT : (unsigned)STAT_ALL,
            256,
            rep == 1,
            batches,
            nch,
            {(enum kind)(next_u64() % K_INF), K_WIDE, K_TIES, K_EXTREME},
            {0.02, 0.0, 0.1, 0.3}};
        run(&sp);
    }
}
END_TEST

/* Bin counts from 1 to past shared memory, with and without a range. */
START_TEST(test_bins)
{
    static const int nbins[] = {1, 7, 256, 5000, 100000};
    size_t batches[2] = {scaled(150001), scaled(60000)};
    for (int b = 0; b < 5; b++)
        for (int r = 0; r < 2; r++) {
            run_spec sp = {"bins",
                           2,
                           STAT_HIST | STAT_COUNT,
                           nbins[b],
                           r,
                           batches,
                           2,
                           {K_SIGNED, r ? K_UNIFORM : K_TIES},
                           {0.05, 0.0}};
            run(&sp);
        }
}
END_TEST

/* Batches larger than the device buffers go in pieces; kept histogram
 * values past the device budget go through host memory. */
START_TEST(test_pieces_and_host_keep)
{
    size_t batches[4] = {2500, 999, 1000, 7001};
    hook_rows = 1000;
    run_spec sp = {"pieces", 2, STAT_ALL,        33,        0,
                   batches,  4, {K_WIDE, K_INT}, {0.1, 0.0}};
    run(&sp);
    hook_keep = 1;
    hook_keep_bytes = 20000;
    sp.name = "pieces, kept on host";
    run(&sp);
    hook_rows = 0;
    size_t big[2] = {scaled(300000), scaled(200001)};
    sp.batches = big;
    sp.nbatches = 2;
    sp.name = "kept on host";
    run(&sp);
    host_memory = 100000; /* and past the host's budget, in a file */
    host_spill = 1;
    sp.name = "kept on host, spilled";
    run(&sp);
    host_memory = (size_t)1 << 40;
    host_spill = 0;
    hook_keep = 0;
}
END_TEST

/* Infinities (also as histogram edges), the statistic subsets, all-NaN
 * and empty input. */
START_TEST(test_inf_and_subsets)
{
    size_t batches[3] = {scaled(200000), 17, scaled(100003)};
    static const unsigned whats[] = {STAT_STD, STAT_COUNT, STAT_SUM,
                                     STAT_MIN | STAT_MAX};
    for (int w = 0; w < 4; w++) {
        run_spec sp = {"inf and subsets",
                       3,
                       whats[w],
                       0,
                       0,
                       batches,
                       3,
                       {K_INF, K_EXTREME, K_BIGINT},
                       {0.01, 0.5, 0.0}};
        run(&sp);
    }
    /* infinities in histograms: the edges are the finite extremes, the
       infinities underflow and overflow; a column of infinities only */
    for (int r = 0; r < 2; r++) {
        run_spec sp = {"inf with hist",
                       4,
                       STAT_ALL,
                       64,
                       r,
                       batches,
                       3,
                       {K_INF, K_EXTREME, K_INFTIES, K_ALLINF},
                       {0.01, 0.0, 0.1, 0.3}};
        run(&sp);
    }
    size_t none[2] = {0, 0};
    run_spec sp = {"empty", 1, STAT_ALL, 8, 0, none, 2, {K_WIDE}, {0}};
    run(&sp);
    run_spec nan = {"all NaN",           2,         STAT_ALL, 8, 0, batches, 3,
                    {K_WIDE, K_UNIFORM}, {1.0, 1.0}};
    run(&nan);
}
END_TEST

/* Integers past 2^53 with their corrections: sizes, many batches (some with
 * corrections, some without), pieces, subsets of the statistics, ties of
 * one double, CORR_NOT_INT, all NaN. */
START_TEST(test_corrections)
{
    static const size_t sizes[] = {1, 2, 3, 255, 257, 1025, 65537, 99991};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = scaled(sizes[s]);
        run_spec sp = {"corrections, sizes",
                       2,
                       STAT_ALL,
                       64,
                       0,
                       &n,
                       1,
                       {K_CORR, s % 2 ? K_NOTINT : K_INT},
                       {0.05, 0.01}};
        run(&sp);
    }
    size_t batches[5] = {scaled(300001), 1, scaled(70000), 5000,
                         scaled(123457)};
    static const unsigned whats[] = {STAT_ALL, STAT_DEFAULT, STAT_STD,
                                     STAT_MIN | STAT_MAX, STAT_COUNT};
    for (int w = 0; w < 5; w++) {
        run_spec sp = {"corrections, batches",
                       4,
                       whats[w],
                       16,
                       w == 0,
                       batches,
                       5,
                       {K_CORR, K_NOTINT, K_BIGINT, K_CORR},
                       {0.02, 0.0, 0.1, 1.0}};
        run(&sp);
    }
    hook_rows = 1000;
    size_t pieces[3] = {2500, 999, 7001};
    run_spec sp = {"corrections, pieces", 2,         STAT_ALL, 33, 0, pieces, 3,
                   {K_CORR, K_NOTINT},    {0.1, 0.0}};
    run(&sp);
    hook_rows = 0;
}
END_TEST

static Suite *gpu_suite(void)
{
    /* one case per test, so CK_RUN_CASE picks one (compute-sanitizer) */
    const struct {
        const char *name;
        const TTest *test;
    } cases[] = {{"sizes", test_sizes},
                 {"batches", test_many_batches},
                 {"bins", test_bins},
                 {"pieces", test_pieces_and_host_keep},
                 {"subsets", test_inf_and_subsets},
                 {"corrections", test_corrections}};
    Suite *s = suite_create("gpu");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        TCase *tc = tcase_create(cases[i].name);
        tcase_set_timeout(tc, 600);
        tcase_add_test(tc, cases[i].test);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    rng_state = test_seed("test_gpu");
    /* COLSTAT_GPU_TERMS runs the exact sums with 2, 3 or 4 terms, or
     * -2, -3 ordered (gpu/reduce_kernel.cu): every variant must pass. */
    const char *terms = getenv("COLSTAT_GPU_TERMS");
    hook_terms = terms ? atoi(terms) : 0;
    quick = getenv("COLSTAT_TEST_QUICK") != NULL;

    cs_error why = {0};
    gpu_config probe = {.ncols = 1,
                        .what = STAT_COUNT,
                        .nbins = 0,
                        .have_range = 0,
                        .lo = 0,
                        .hi = 0,
                        .batch_rows = 0,
                        .raw_bytes = 0,
                        .keep_set = 0,
                        .keep_bytes = 0,
                        .terms = 0,
                        .memory = 0,
                        .spill = 0,
                        .tmpdir = NULL,
                        .sharers = 0};
    gpu_backend *g;
    if (gpu_open(&probe, &g, &why) != 0) {
        fprintf(stderr, "test_gpu: %s\n", why.msg);
        return strncmp(why.msg, "no usable GPU", 13) == 0 ? 77 : 1;
    }
    gpu_close(g);

    return run_suite(gpu_suite(), CK_NOFORK);
}

#else

int main(void)
{
    fprintf(stderr, "test_gpu: built without the GPU backend\n");
    return 77;
}

#endif
