/* src/stats/qsel*.c against a full sort of the same values: every order
 * statistic the quantiles need, on random data drawn fresh each run (wide
 * exponents from subnormals to 1e308, many ties, both zeros, infinities,
 * NaN skipped, neighbours a few ulps apart, exact integers d + r around
 * 2^53..2^64 of both signs), n = 0, 1, 2, 3 up to a few million, with the
 * counts and candidates of each pass fed in random portions and random
 * order (threads, devices, ranks) and random configurations; the passes
 * and the memory on adversarial data stay within the documented bounds;
 * an input that changes between passes is an error. Seed printed to
 * stderr; COLSTAT_SEED reproduces a run. */
#include "src/stats/quantile.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testlib.h"

__extension__ typedef __int128 i128;

static uint64_t seed;

static int iters(int n)
{
    return test_quick() ? n / 10 + 1 : n;
}

/* ---- data --------------------------------------------------------- */

enum {
    D_WIDE,      /* any finite double, subnormals included */
    D_TIES,      /* a handful of values, many times each */
    D_SPECIAL,   /* zeros, infinities, NaN, a few ordinary values */
    D_NEIGHBOUR, /* a few ulps around one value */
    D_CLUSTERS,  /* two tight clusters far apart */
    D_UNIFORM,   /* uniform in [0, 1000) */
    D_INTS,      /* exact integers d + r, both signs, 2^53..2^64 */
    D_NREGIMES
};

static double rand_exp(test_rng *g, int elo, int ehi)
{
    uint64_t e = (uint64_t)elo + rng_below(g, (size_t)(ehi - elo + 1));
    uint64_t frac = rng_next(g) & ((UINT64_C(1) << 52) - 1);
    return from_bits((rng_next(g) & (UINT64_C(1) << 63)) | e << 52 | frac);
}

static qnum from_int(i128 v)
{
    qnum q;
    q.d = (double)v;
    q.r = (int32_t)(v - (i128)q.d);
    return q;
}

static i128 rand_int(test_rng *g)
{
    int bits = 53 + (int)rng_below(g, 12); /* 2^53 .. 2^64 */
    if (rng_below(g, 8) == 0)
        bits = (int)rng_below(g, 54);
    i128 v = bits == 0 ? 0 : (i128)(rng_next(g) >> (64 - bits));
    return rng_below(g, 2) ? -v : v;
}

/* A pool of values the regime draws from, for ties. */
typedef struct gen {
    int regime;
    double pool[8], centre[2];
    i128 ipool[8];
} gen;

static gen gen_make(test_rng *g, int regime)
{
    gen G;
    G.regime = regime;
    for (int i = 0; i < 8; i++) {
        G.pool[i] = rand_exp(g, 0, 2046);
        G.ipool[i] = rand_int(g);
    }
    G.centre[0] = rand_exp(g, 1, 2045);
    G.centre[1] = rand_exp(g, 1, 2045);
    return G;
}

static qnum draw(test_rng *g, const gen *G)
{
    static const double special[] = {0.0, -0.0, INFINITY, -INFINITY,
                                     NAN, 1.0,  -1.0,     0x1p-1074};
    qnum v = {0.0, 0};
    switch (G->regime) {
    case D_WIDE:
        v.d = rng_below(g, 10) ? rand_exp(g, 0, 2046) : rand_exp(g, 0, 3);
        break;
    case D_TIES:
        v.d = G->pool[rng_below(g, 1 + rng_below(g, 8))];
        break;
    case D_SPECIAL:
        v.d = special[rng_below(g, 8)];
        break;
    case D_NEIGHBOUR:
        v.d = from_bits(bits_of(G->centre[0]) + rng_below(g, 6));
        break;
    case D_CLUSTERS:
        v.d =
            from_bits(bits_of(G->centre[rng_below(g, 2)]) + rng_below(g, 1000));
        break;
    case D_UNIFORM:
        v.d = test_unif(&g->s) * 1000;
        break;
    default:
        v = from_int(rng_below(g, 3) ? rand_int(g)
                                     : G->ipool[rng_below(g, 3)] +
                                           (i128)rng_below(g, 3000));
        break;
    }
    return v;
}

/* ---- the reference: a sort by exact value ------------------------- */

static int ref_cmp(const void *a, const void *b)
{
    const qnum *x = a, *y = b;
    if (x->r || y->r) { /* exact integers: compare d + r exactly */
        i128 vx = (i128)x->d + x->r, vy = (i128)y->d + y->r;
        return (vx > vy) - (vx < vy);
    }
    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    return (signbit(x->d) == 0) - (signbit(y->d) == 0); /* -0 first */
}

typedef struct data {
    size_t n;     /* values given, NaN included */
    double *d;    /* the values as the caller holds them */
    int32_t *r;   /* NULL when every r is 0 */
    qnum *sorted; /* the non-NaN values, sorted */
    size_t nsorted;
} data;

static data data_make(test_rng *g, int regime, size_t n)
{
    data D = {n, malloc((n + 1) * sizeof(double)), NULL,
              malloc((n + 1) * sizeof(qnum)), 0};
    int with_r = regime == D_INTS;
    if (with_r)
        D.r = malloc((n + 1) * sizeof(int32_t));
    ck_assert(D.d && D.sorted && (!with_r || D.r));
    gen G = gen_make(g, regime);
    for (size_t i = 0; i < n; i++) {
        qnum v = draw(g, &G);
        D.d[i] = v.d;
        if (with_r)
            D.r[i] = v.r;
        if (v.d == v.d)
            D.sorted[D.nsorted++] = v;
    }
    qsort(D.sorted, D.nsorted, sizeof(qnum), ref_cmp);
    return D;
}

static void data_free(data *D)
{
    free(D->d);
    free(D->r);
    free(D->sorted);
}

/* ---- quantile lists ----------------------------------------------- */

#define MAXQ 40

/* 0, 1, the median, random decimals, and decimals aimed at a rank. */
static size_t rand_quantiles(test_rng *g, size_t n, qfrac *q)
{
    size_t k = 0;
    q[k++] = (qfrac){5, 1};
    if (rng_below(g, 2)) {
        q[k++] = (qfrac){0, 0};
        q[k++] = (qfrac){1, 0};
    }
    size_t extra = rng_below(g, MAXQ - 3);
    for (size_t i = 0; i < extra; i++) {
        uint64_t den = 1000000000000000000u;
        if (rng_below(g, 2) && n > 1) { /* floor((n-1) q) == j */
            uint64_t j = rng_below(g, n - 1);
            __extension__ unsigned __int128 p =
                (unsigned __int128)j * den + (n - 2);
            q[k++] = (qfrac){(uint64_t)(p / (n - 1)), 18};
        } else {
            uint32_t digits = (uint32_t)rng_below(g, 19);
            den = 1;
            for (uint32_t e = 0; e < digits; e++)
                den *= 10;
            q[k++] = (qfrac){rng_next(g) % (den + 1), digits};
        }
        while (q[k - 1].digits && q[k - 1].num % 10 == 0) {
            q[k - 1].num /= 10;
            q[k - 1].digits--;
        }
        if (q[k - 1].num == 0)
            q[k - 1].digits = 0;
    }
    return k;
}

/* ---- driving the passes in portions ------------------------------- */

/* Each portion counts and picks on its own; the state adds the shares
 * in a random order, as threads, devices or ranks would hand them in. */
static void run_portions(test_rng *g, qsel *s, const data *D, size_t parts)
{
    size_t cut[17];
    cut[0] = 0;
    cut[parts] = D->n;
    for (size_t p = 1; p < parts; p++)
        cut[p] = rng_below(g, D->n + 1);
    for (size_t p = 1; p < parts; p++) /* sort the inner cuts */
        for (size_t q = p + 1; q < parts; q++)
            if (cut[q] < cut[p]) {
                size_t t = cut[p];
                cut[p] = cut[q];
                cut[q] = t;
            }
    while (!qsel_done(s)) {
        size_t nb = qsel_nbins(s), room = (size_t)qsel_ncandidates(s);
        uint64_t *c = calloc(parts * nb + 1, sizeof *c);
        qnum *v = malloc((parts * room + 1) * sizeof *v);
        size_t found[16], order[16];
        ck_assert(c && v);
        for (size_t p = 0; p < parts; p++) {
            const int32_t *r = D->r ? D->r + cut[p] : NULL;
            size_t len = cut[p + 1] - cut[p];
            qsel_count(s, c + p * nb, D->d + cut[p], r, len);
            found[p] = qsel_pick(s, v + p * room, room, D->d + cut[p], r, len);
            ck_assert(found[p] <= room);
            order[p] = p;
        }
        for (size_t p = parts; p > 1; p--) {
            size_t j = rng_below(g, p), t = order[p - 1];
            order[p - 1] = order[j];
            order[j] = t;
        }
        cs_error e = {0};
        for (size_t i = 0; i < parts; i++) {
            size_t p = order[i];
            qsel_add_counts(s, c + p * nb);
            ck_assert(qsel_add_candidates(s, v + p * room, found[p], &e) ==
                      CS_OK);
        }
        free(c);
        free(v);
        ck_assert_msg(qsel_narrow(s, &e) == CS_OK, "%s", e.msg);
    }
}

static unsigned ceil_div(unsigned a, unsigned b)
{
    return (a + b - 1) / b;
}

/* The order statistics of every quantile are the sort's, bit for bit, and
 * the result is their interpolation. */
static void check_against_sort(const qsel *s, const data *D, const qfrac *q,
                               size_t nq)
{
    for (size_t i = 0; i < nq; i++) {
        qnum a, b;
        qres res, want;
        ck_assert_int_eq(qsel_result(s, i, &res), 0);
        if (D->nsorted == 0) {
            ck_assert(!res.has_value);
            ck_assert_int_eq(qsel_order_stats(s, i, &a, &b), -1);
            continue;
        }
        ck_assert_int_eq(qsel_order_stats(s, i, &a, &b), 0);
        qrank rk = qlist_rank(q[i], D->nsorted);
        qnum wa = D->sorted[rk.k - 1], wb = rk.fnum ? D->sorted[rk.k] : wa;
        EXPECT(bits_of(a.d) == bits_of(wa.d) && a.r == wa.r &&
                   bits_of(b.d) == bits_of(wb.d) && b.r == wb.r,
               "n %zu q %llu/10^%u rank %llu: got %a%+d %a%+d, want %a%+d "
               "%a%+d",
               D->nsorted, (unsigned long long)q[i].num, q[i].digits,
               (unsigned long long)rk.k, a.d, a.r, b.d, b.r, wa.d, wa.r, wb.d,
               wb.r);
        qvalue_interpolate(wa, wb, rk.fnum, rk.fden, &want);
        EXPECT(bits_of(res.value) == bits_of(want.value) &&
                   res.is_int == want.is_int,
               "result differs");
    }
}

static qsel_config rand_config(test_rng *g, int with_r)
{
    static const size_t cands[] = {1, 2, 16, 1000, 0};
    qsel_config c = {with_r, 0, 0, 0};
    if (rng_below(g, 2)) {
        c.bits = 4 + (int)rng_below(g, 13);
        c.max_candidates = cands[rng_below(g, 5)];
        c.max_bins = rng_below(g, 2) ? (size_t)1 << (4 + rng_below(g, 14)) : 0;
    }
    return c;
}

/* One random case: regime, n, quantiles, configuration, bound or not,
 * one share or several (shares: 0 random, 1 one, 2 several). */
static void one_case(test_rng *g, int regime, size_t n, int shares)
{
    data D = data_make(g, regime, n);
    qfrac q[MAXQ];
    size_t nq = rand_quantiles(g, D.nsorted, q);
    qsel_config cfg = rand_config(g, regime == D_INTS);
    qsel *s = qsel_new(q, nq, &cfg);
    ck_assert(s != NULL);
    cs_error e = {0};
    if (rng_below(g, 2)) { /* the stats pass knew n, min and max */
        qnum lo = {0.0, 0}, hi = {0.0, 0};
        if (D.nsorted) {
            lo = D.sorted[0];
            hi = D.sorted[D.nsorted - 1];
        }
        if (lo.d == 0) /* min/max report either zero */
            lo.d = rng_below(g, 2) ? 0.0 : -0.0;
        if (hi.d == 0)
            hi.d = rng_below(g, 2) ? 0.0 : -0.0;
        ck_assert(qsel_bound(s, D.nsorted, lo, hi, &e) == CS_OK);
    }
    if (shares == 0)
        shares = 1 + (int)rng_below(g, 2);
    if (shares == 1)
        ck_assert_msg(qsel_select_array(s, D.d, D.r, D.n, &e) == CS_OK, "%s",
                      e.msg);
    else
        run_portions(g, s, &D, 2 + rng_below(g, 15));
    check_against_sort(s, &D, q, nq);
    /* with every range given its full bins, the documented bound holds */
    int bits = cfg.bits ? cfg.bits : 14;
    size_t bins = cfg.max_bins ? cfg.max_bins : (size_t)1 << 17;
    if (bins >= (2 * nq + 1) << bits)
        EXPECT(qsel_passes(s) <=
                   ceil_div(regime == D_INTS ? 76 : 64, (unsigned)bits),
               "%u passes with %d bits", qsel_passes(s), bits);
    qsel_free(s);
    data_free(&D);
}

START_TEST(test_small_n)
{
    test_rng g = rng_for(seed, 1);
    for (int it = 0; it < iters(20000); it++)
        one_case(&g, it % D_NREGIMES, rng_below(&g, 5), 0);
}
END_TEST

START_TEST(test_random)
{
    test_rng g = rng_for(seed, 2);
    for (int it = 0; it < iters(3000); it++) {
        size_t n = rng_below(&g, 2) ? rng_below(&g, 100)
                                    : rng_below(&g, 1 + rng_below(&g, 20000));
        one_case(&g, it % D_NREGIMES, n, 0);
    }
}
END_TEST

/* A few million values fed in 2 to 16 portions, every regime. */
START_TEST(test_large)
{
    test_rng g = rng_for(seed, 3);
    size_t n = test_quick() ? 300000 : 3000000;
    for (int regime = 0; regime < D_NREGIMES; regime++)
        one_case(&g, regime, n - rng_below(&g, 1000), 2);
}
END_TEST

/* One pass of s over D's values cut at cut: the shares' counts and
 * candidates added in either order. */
static void pass_in_two(qsel *s, const data *D, size_t cut, int swap)
{
    size_t nb = qsel_nbins(s), room = (size_t)qsel_ncandidates(s);
    size_t at[2] = {0, cut}, len[2] = {cut, D->n - cut}, k[2];
    uint64_t *c = calloc(2 * nb + 1, sizeof *c);
    qnum *v = malloc((2 * room + 1) * sizeof *v);
    ck_assert(c && v);
    for (int p = 0; p < 2; p++) {
        const int32_t *r = D->r ? D->r + at[p] : NULL;
        qsel_count(s, c + p * nb, D->d + at[p], r, len[p]);
        k[p] = qsel_pick(s, v + p * room, room, D->d + at[p], r, len[p]);
    }
    cs_error e = {0};
    for (int i = 0; i < 2; i++) {
        int p = i ^ swap;
        qsel_add_counts(s, c + p * nb);
        ck_assert(qsel_add_candidates(s, v + p * room, k[p], &e) == CS_OK);
    }
    ck_assert(qsel_narrow(s, &e) == CS_OK);
    free(c);
    free(v);
}

static int same_range(const qsel_range *a, const qsel_range *b)
{
    return a->lo == b->lo && a->hi == b->hi && a->count == b->count &&
           a->first == b->first && a->nbins == b->nbins && a->shift == b->shift;
}

/* The state is a function of the summed counts: one share and two give
 * the same ranges, pass after pass. */
START_TEST(test_shares_agree)
{
    test_rng g = rng_for(seed, 8);
    for (int it = 0; it < iters(200); it++) {
        data D = data_make(&g, it % D_NREGIMES, rng_below(&g, 50000));
        qfrac q[MAXQ];
        size_t nq = rand_quantiles(&g, D.nsorted, q);
        qsel_config cfg = rand_config(&g, it % D_NREGIMES == D_INTS);
        qsel *a = qsel_new(q, nq, &cfg), *b = qsel_new(q, nq, &cfg);
        ck_assert(a && b);
        while (!qsel_done(a)) {
            size_t na, nb;
            const qsel_range *ga = qsel_ranges(a, &na);
            const qsel_range *gb = qsel_ranges(b, &nb);
            ck_assert(na == nb && !qsel_done(b));
            for (size_t j = 0; j < na; j++)
                ck_assert(same_range(&ga[j], &gb[j]));
            pass_in_two(a, &D, D.n, 0);
            pass_in_two(b, &D, rng_below(&g, D.n + 1), (int)rng_below(&g, 2));
        }
        ck_assert(qsel_done(b) && qsel_passes(a) == qsel_passes(b));
        check_against_sort(a, &D, q, nq);
        check_against_sort(b, &D, q, nq);
        qsel_free(a);
        qsel_free(b);
        data_free(&D);
    }
}
END_TEST

/* ---- passes and memory on adversarial data ------------------------ */

typedef struct cost {
    unsigned passes;
    size_t peak;
} cost;

static cost run_array(const double *d, const int32_t *r, size_t n,
                      const qfrac *q, size_t nq, const qsel_config *cfg,
                      int bound)
{
    qsel *s = qsel_new(q, nq, cfg);
    ck_assert(s != NULL);
    cs_error e = {0};
    if (bound) {
        qnum lo = {0.0, 0}, hi = {0.0, 0};
        size_t cnt = 0;
        for (size_t i = 0; i < n; i++) {
            if (d[i] != d[i])
                continue;
            qnum v = {d[i], r ? r[i] : 0};
            if (cnt++ == 0 || ref_cmp(&v, &lo) < 0)
                lo = v;
            if (cnt == 1 || ref_cmp(&v, &hi) > 0)
                hi = v;
        }
        ck_assert(qsel_bound(s, cnt, lo, hi, &e) == CS_OK);
    }
    ck_assert_msg(qsel_select_array(s, d, r, n, &e) == CS_OK, "%s", e.msg);
    cost c = {qsel_passes(s), qsel_peak_bytes(s)};
    qsel_free(s);
    return c;
}

START_TEST(test_adversarial)
{
    test_rng g = rng_for(seed, 4);
    size_t n = test_quick() ? 200000 : 1000000;
    double *d = malloc(n * sizeof *d);
    int32_t *r = malloc(n * sizeof *r);
    ck_assert(d && r);
    qfrac q[] = {{5, 1}, {1, 2}, {99, 2}, {0, 0}, {1, 0}};
    qsel_config cfg = {0, 0, 0, 0};
    size_t mem = ((size_t)1 << 17) * 8 + ((size_t)1 << 16) * sizeof(qnum);
    const char *names[] = {"all equal", "two clusters", "last bit only",
                           "one d, every r"};
    for (int kind = 0; kind < 4; kind++) {
        double x = rand_exp(&g, 1, 2045);
        for (size_t i = 0; i < n; i++) {
            r[i] = 0;
            if (kind == 0)
                d[i] = x;
            else if (kind == 1)
                d[i] = i % 2 ? x : -x;
            else if (kind == 2)
                d[i] = from_bits(bits_of(x) ^ (rng_next(&g) & 1));
            else {
                d[i] = 0x1p63; /* 2^63 + r rounds to 2^63 */
                r[i] = (int32_t)rng_below(&g, 1536) - 511;
            }
        }
        cfg.with_r = kind == 3;
        int32_t *rr = kind == 3 ? r : NULL;
        cost open = run_array(d, rr, n, q, 5, &cfg, 0);
        cost bound = run_array(d, rr, n, q, 5, &cfg, 1);
        fprintf(stderr,
                "test_quantile_select: %s, n %zu: %u passes (%zu bytes), "
                "%u with min/max known (%zu bytes)\n",
                names[kind], n, open.passes, open.peak, bound.passes,
                bound.peak);
        ck_assert_uint_le(open.passes, kind == 3 ? 6 : 5); /* 14 bits */
        ck_assert_uint_le(bound.passes, open.passes);
        ck_assert_uint_le(open.peak, mem);
        ck_assert_uint_le(bound.peak, mem);
        if (kind == 0)
            ck_assert_uint_eq(bound.passes, 0);
    }
    free(d);
    free(r);
}
END_TEST

/* A bounded range's last bin ends at max: when it starts there too it is
 * one key, known after one pass however many values tie at max. */
START_TEST(test_last_bin_is_max)
{
    test_rng g = rng_for(seed, 7);
    size_t n = 100000;
    double *d = malloc(n * sizeof *d);
    ck_assert(d != NULL);
    double lo = rand_exp(&g, 1, 2000);
    /* key(max) - key(min) = 2^34: 2^13 + 1 bins of 2^21 keys, the last
     * one starting at key(max) */
    double hi = qsel_key_double(qsel_key(lo) + (UINT64_C(1) << 34));
    for (size_t i = 0; i < n; i++)
        d[i] = rng_below(&g, 2) ? lo : hi;
    d[0] = lo;
    d[1] = hi;
    qfrac q = {1, 0};
    qsel_config cfg = {0, 14, 0, 16};
    cost c = run_array(d, NULL, n, &q, 1, &cfg, 1);
    ck_assert_uint_eq(c.passes, 1);
    free(d);
}
END_TEST

/* ---- typical data: how many passes ------------------------------- */

/* With the candidate budget scaled by n / 10^9, a run on n values narrows
 * like a run on 10^9 values with the default budget. Logged for the
 * report; bounded by the documented worst case. */
START_TEST(test_typical_passes)
{
    test_rng g = rng_for(seed, 5);
    size_t n = test_quick() ? 200000 : 2000000;
    double *d = malloc(n * sizeof *d);
    ck_assert(d != NULL);
    qfrac q[] = {{5, 1}, {1, 1}, {9, 1}, {99, 2}};
    const char *names[] = {"uniform [0,1)", "normal(100, 15)", "lognormal",
                           "ids 1..n", "prices 0.01..999.99"};
    size_t cap = (size_t)(65536.0 * (double)n / 1e9);
    for (int kind = 0; kind < 5; kind++) {
        for (size_t i = 0; i < n; i++) {
            double u = test_unif(&g.s), v = test_unif(&g.s) + 0x1p-60;
            double z = sqrt(-2 * log(v)) * cos(6.283185307179586 * u);
            d[i] = kind == 0   ? u
                   : kind == 1 ? 100 + 15 * z
                   : kind == 2 ? exp(z)
                   : kind == 3 ? (double)(i + 1)
                               : (double)(1 + rng_below(&g, 99999)) / 100;
        }
        char line[256];
        int len = snprintf(line, sizeof line, "%s:", names[kind]);
        for (int bits = 11; bits <= 16; bits++) {
            qsel_config cfg = {0, bits, (size_t)8 << bits, cap ? cap : 1};
            cost open = run_array(d, NULL, n, q, 4, &cfg, 0);
            cost bound = run_array(d, NULL, n, q, 4, &cfg, 1);
            len += snprintf(line + len, sizeof line - (size_t)len, " b%d %u/%u",
                            bits, open.passes, bound.passes);
            ck_assert_uint_le(open.passes, ceil_div(64, (unsigned)bits));
        }
        fprintf(stderr,
                "test_quantile_select: passes as for 1e9 values (open/"
                "bounded) %s\n",
                line);
    }
    free(d);
}
END_TEST

/* ---- the input changes between passes ----------------------------- */

/* One pass over d[0..n), times times over; the first error, if any. */
static int pass_times(qsel *s, const double *d, size_t n, int times,
                      cs_error *e)
{
    size_t room = (size_t)qsel_ncandidates(s);
    uint64_t *c = calloc(qsel_nbins(s) + 1, sizeof *c);
    qnum *v = malloc((times * room + 1) * sizeof *v);
    size_t k = 0;
    ck_assert(c && v);
    for (int t = 0; t < times; t++) {
        qsel_count(s, c, d, NULL, n);
        k += qsel_pick(s, v + k, room, d, NULL, n);
    }
    qsel_add_counts(s, c);
    int st = qsel_add_candidates(s, v, k, e);
    free(c);
    free(v);
    return st ? st : qsel_narrow(s, e);
}

/* how: 0 the second pass sees every value twice, 1 the first pass misses
 * one, 2 a collect pass hands over one too many, 3 one too few. */
static int changed_case(const double *d, size_t n, int how, cs_error *e)
{
    qfrac q = {5, 1};
    qsel_config cfg = {0, 16, 0, how >= 2 ? 100000 : 1};
    qsel *s = qsel_new(&q, 1, &cfg);
    ck_assert(s != NULL);
    ck_assert(qsel_bound(s, n, (qnum){0.0, 0}, (qnum){1.0, 0}, e) == CS_OK);
    int st = CS_OK;
    if (how == 0) {
        ck_assert(pass_times(s, d, n, 1, e) == CS_OK && !qsel_done(s));
        st = pass_times(s, d, n, 2, e);
    } else if (how == 1) {
        st = pass_times(s, d, n - 1, 1, e);
    } else {
        ck_assert(qsel_ncandidates(s) == n); /* all of them fit */
        qnum *v = malloc((n + 1) * sizeof *v);
        ck_assert(qsel_pick(s, v, n, d, NULL, n) == n);
        v[n] = v[0];
        st = qsel_add_candidates(s, v, how == 2 ? n + 1 : n - 1, e);
        if (st == CS_OK)
            st = qsel_narrow(s, e);
        free(v);
    }
    qsel_free(s);
    return st;
}

START_TEST(test_changed_input)
{
    test_rng g = rng_for(seed, 6);
    size_t n = 5000;
    double *d = malloc(n * sizeof *d);
    ck_assert(d != NULL);
    for (size_t i = 0; i < n; i++)
        d[i] = test_unif(&g.s);
    for (int how = 0; how < 4; how++) {
        cs_error e = {0};
        ck_assert_int_eq(changed_case(d, n, how, &e), CS_EDATA);
        ck_assert(strstr(e.msg, "input changed") != NULL);
    }
    free(d);
}
END_TEST

START_TEST(test_no_quantiles)
{
    qsel *s = qsel_new(NULL, 0, NULL);
    ck_assert(s != NULL && qsel_done(s));
    qres res;
    ck_assert_int_eq(qsel_result(s, 0, &res), -1);
    qsel_free(s);
    qfrac q = {5, 1};
    s = qsel_new(&q, 1, NULL);
    ck_assert(!qsel_done(s));
    ck_assert_int_eq(qsel_result(s, 0, &res), -1);
    cs_error e = {0};
    double nan = NAN;
    ck_assert(qsel_select_array(s, &nan, NULL, 1, &e) == CS_OK);
    ck_assert(qsel_done(s) && qsel_passes(s) == 1);
    ck_assert(qsel_result(s, 0, &res) == 0 && !res.has_value);
    qsel_free(s);
}
END_TEST

int main(void)
{
    seed = test_seed("test_quantile_select");
    Suite *s = suite_create("quantile_select");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_small_n);
    tcase_add_test(tc, test_random);
    tcase_add_test(tc, test_large);
    tcase_add_test(tc, test_shares_agree);
    tcase_add_test(tc, test_adversarial);
    tcase_add_test(tc, test_last_bin_is_max);
    tcase_add_test(tc, test_typical_passes);
    tcase_add_test(tc, test_changed_input);
    tcase_add_test(tc, test_no_quantiles);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
