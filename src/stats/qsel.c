/* The selection state of quantile.h: which key ranges a pass looks at,
 * and how the summed counts of a pass narrow them (after Alabi et al.,
 * "Fast k-selection algorithms for graphics processing units", 2012).
 * Targets are the 0-based ranks the quantiles need, distinct and
 * ascending; each range holds a run of them, and ranges stay sorted and
 * disjoint because each new one is a bin of an old one. */
#include <stdlib.h>
#include <string.h>

#include "quantile.h"

enum { DEFAULT_BITS = 14, MIN_BITS = 4, MAX_BITS = 16 };
#define DEFAULT_MAX_BINS ((size_t)1 << 17)
#define DEFAULT_MAX_CANDIDATES ((size_t)1 << 16)

/* The ranges of one pass, with the targets each holds. */
typedef struct ranges {
    size_t n;
    qsel_range *g;
    uint64_t *below; /* values with a key below g[j].lo */
    size_t *tf, *tc; /* g[j] holds targets tf[j] .. tf[j] + tc[j] - 1 */
} ranges;

/* A range's place in the order the candidate budget is spent in. */
typedef struct by_count {
    uint64_t count;
    size_t j;
} by_count;

struct qsel {
    qsel_config cfg;
    size_t nq, cap; /* cap: 2 nq, the most targets there can be */
    qfrac *q;
    qrank *rank; /* per quantile, once n is known */
    size_t *qt;  /* per quantile: the target of rank k */
    uint64_t n;
    int n_known, done;
    size_t nt;
    uint64_t *t; /* targets: 0-based ranks, ascending, distinct */
    qnum *val;   /* each target's value, once resolved */
    ranges cur, next;
    by_count *order;
    uint64_t *counts;
    size_t nbins;
    uint64_t *kmin, *kmax; /* per range: extrema of the doubles' keys */
    int extrema;           /* reported this pass */
    qnum *cand;
    uint64_t *filled; /* per collect range: candidates added */
    uint64_t ncand;
    unsigned passes;
    size_t peak;
};

static qsel_config normalized(const qsel_config *cfg)
{
    qsel_config c = {0, 0, 0, 0};
    if (cfg)
        c = *cfg;
    if (c.bits <= 0)
        c.bits = DEFAULT_BITS;
    c.bits = c.bits < MIN_BITS   ? MIN_BITS
             : c.bits > MAX_BITS ? MAX_BITS
                                 : c.bits;
    if (c.max_bins == 0)
        c.max_bins = DEFAULT_MAX_BINS;
    if (c.max_bins < (size_t)1 << c.bits)
        c.max_bins = (size_t)1 << c.bits;
    if (c.max_candidates == 0)
        c.max_candidates = DEFAULT_MAX_CANDIDATES;
    c.with_r = c.with_r != 0;
    return c;
}

static int ranges_alloc(ranges *r, size_t cap)
{
    r->g = malloc(cap * sizeof *r->g);
    r->below = malloc(cap * sizeof *r->below);
    r->tf = malloc(cap * sizeof *r->tf);
    r->tc = malloc(cap * sizeof *r->tc);
    return r->g && r->below && r->tf && r->tc ? 0 : -1;
}

static void ranges_free(ranges *r)
{
    free(r->g);
    free(r->below);
    free(r->tf);
    free(r->tc);
}

static qsel_u128 key_max(const qsel *s)
{
    return ((qsel_u128)1 << (s->cfg.with_r ? 64 + QSEL_R_BITS : 64)) - 1;
}

static int bit_length(qsel_u128 x)
{
    int b = 0;
    for (; x >> 64; x >>= 64)
        b += 64;
    uint64_t lo = (uint64_t)x;
    return lo ? b + 64 - __builtin_clzll(lo) : b;
}

static qnum decode(const qsel *s, qsel_u128 k)
{
    qnum v = {0.0, 0};
    if (s->cfg.with_r) {
        v.r = (int32_t)(k & ((1u << QSEL_R_BITS) - 1)) - QSEL_R_MAX;
        k >>= QSEL_R_BITS;
    }
    v.d = qsel_key_double((uint64_t)k);
    return v;
}

/* Targets tf .. tf + tc - 1 take their values: v[0] for all, or (sorted
 * values from rank below on) v[t - below] for target t. */
static void resolve(qsel *s, size_t tf, size_t tc, const qnum *v,
                    const uint64_t *below)
{
    for (size_t i = tf; i < tf + tc; i++)
        s->val[i] = below ? v[s->t[i] - *below] : v[0];
}

static int out_of_memory(cs_error *e)
{
    return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_by_count(const void *a, const void *b)
{
    const by_count *x = a, *y = b;
    if (x->count != y->count)
        return (x->count > y->count) - (x->count < y->count);
    return (x->j > y->j) - (x->j < y->j);
}

/* (key, r) order: the order of the composite keys. */
static int cmp_qnum(const void *a, const void *b)
{
    const qnum *x = a, *y = b;
    uint64_t kx = qsel_key(x->d), ky = qsel_key(y->d);
    if (kx != ky)
        return (kx > ky) - (kx < ky);
    return (x->r > y->r) - (x->r < y->r);
}

/* Index of target t (present) among s->t. */
static size_t target_index(const qsel *s, uint64_t t)
{
    size_t lo = 0, hi = s->nt;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->t[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* n is known: the ranks of every quantile, the distinct targets. */
static void set_targets(qsel *s)
{
    s->nt = 0;
    for (size_t i = 0; i < s->nq && s->n > 0; i++) {
        s->rank[i] = qlist_rank(s->q[i], s->n);
        s->t[s->nt++] = s->rank[i].k - 1;
        if (s->rank[i].fnum)
            s->t[s->nt++] = s->rank[i].k;
    }
    qsort(s->t, s->nt, sizeof *s->t, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < s->nt; i++)
        if (m == 0 || s->t[m - 1] != s->t[i])
            s->t[m++] = s->t[i];
    s->nt = m;
    for (size_t i = 0; i < s->nq && s->n > 0; i++)
        s->qt[i] = target_index(s, s->rank[i].k - 1);
    s->cur.below[0] = 0;
    s->cur.tf[0] = 0;
    s->cur.tc[0] = s->nt;
    s->cur.g[0].count = s->n;
}

static void hist_shape(qsel_range *g, int bits)
{
    int len = bit_length(g->hi - g->lo);
    g->shift = (uint32_t)(len > bits ? len - bits : 0);
    g->nbins = (uint32_t)((g->hi - g->lo) >> g->shift) + 1;
}

/* Ranges of one key are resolved now, however many values they hold;
 * the others stay, in order. */
static void drop_resolved(qsel *s)
{
    ranges *c = &s->cur;
    size_t m = 0;
    for (size_t j = 0; j < c->n; j++) {
        if (s->n_known && c->g[j].lo == c->g[j].hi) {
            qnum v = decode(s, c->g[j].lo);
            resolve(s, c->tf[j], c->tc[j], &v, NULL);
            continue;
        }
        c->g[m] = c->g[j];
        c->below[m] = c->below[j];
        c->tf[m] = c->tf[j];
        c->tc[m] = c->tc[j];
        m++;
    }
    c->n = m;
}

/* The smallest ranges are collected while the candidate budget lasts
 * (none before n is known); returns how many are left to count. */
static size_t choose_collected(qsel *s)
{
    ranges *c = &s->cur;
    for (size_t j = 0; j < c->n; j++) {
        s->order[j].count = c->g[j].count;
        s->order[j].j = j;
    }
    qsort(s->order, c->n, sizeof *s->order, cmp_by_count);
    uint64_t budget = s->cfg.max_candidates;
    size_t nhist = 0;
    for (size_t i = 0; i < c->n; i++) {
        qsel_range *g = &c->g[s->order[i].j];
        g->nbins = 1; /* counted unless collected */
        if (s->n_known && g->count <= budget) {
            g->nbins = 0;
            budget -= g->count;
        } else
            nhist++;
    }
    return nhist;
}

/* Bins and candidate slots of the pass: the ranges counted share
 * max_bins, 2^bits each at most. */
static void lay_out(qsel *s, size_t nhist)
{
    int bits = s->cfg.bits;
    while (nhist && bits > 1 && (nhist << bits) > s->cfg.max_bins)
        bits--;
    s->nbins = 0;
    s->ncand = 0;
    for (size_t j = 0; j < s->cur.n; j++) {
        qsel_range *g = &s->cur.g[j];
        if (g->nbins) {
            hist_shape(g, bits);
            g->first = s->nbins;
            s->nbins += g->nbins;
        } else {
            g->first = s->ncand;
            g->shift = 0;
            s->ncand += g->count;
        }
    }
}

/* The next pass, from the ranges that hold unresolved targets. */
static int plan(qsel *s, cs_error *e)
{
    drop_resolved(s);
    lay_out(s, choose_collected(s));
    free(s->counts);
    free(s->cand);
    s->counts = calloc(s->nbins ? s->nbins : 1, sizeof *s->counts);
    s->cand = malloc((s->ncand ? s->ncand : 1) * sizeof *s->cand);
    memset(s->filled, 0, s->cap * sizeof *s->filled);
    for (size_t j = 0; j < s->cap; j++) {
        s->kmin[j] = UINT64_MAX;
        s->kmax[j] = 0;
    }
    s->extrema = 0;
    if (!s->counts || !s->cand)
        return out_of_memory(e);
    size_t bytes =
        s->nbins * sizeof *s->counts + (size_t)s->ncand * sizeof *s->cand;
    s->peak = bytes > s->peak ? bytes : s->peak;
    s->done = s->cur.n == 0;
    return CS_OK;
}

qsel *qsel_new(const qfrac *q, size_t nq, const qsel_config *cfg)
{
    qsel *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cfg = normalized(cfg);
    s->nq = nq;
    s->cap = 2 * nq + 1;
    s->q = malloc((nq + 1) * sizeof *s->q);
    s->rank = malloc((nq + 1) * sizeof *s->rank);
    s->qt = malloc((nq + 1) * sizeof *s->qt);
    s->t = malloc(s->cap * sizeof *s->t);
    s->val = malloc(s->cap * sizeof *s->val);
    s->order = malloc(s->cap * sizeof *s->order);
    s->filled = malloc(s->cap * sizeof *s->filled);
    s->kmin = malloc(s->cap * sizeof *s->kmin);
    s->kmax = malloc(s->cap * sizeof *s->kmax);
    int bad = ranges_alloc(&s->cur, s->cap) | ranges_alloc(&s->next, s->cap);
    if (bad || !s->q || !s->rank || !s->qt || !s->t || !s->val || !s->order ||
        !s->filled || !s->kmin || !s->kmax) {
        qsel_free(s);
        return NULL;
    }
    if (nq)
        memcpy(s->q, q, nq * sizeof *q);
    s->cur.n = nq > 0;
    s->cur.g[0].lo = 0;
    s->cur.g[0].hi = key_max(s);
    s->cur.g[0].count = 0; /* n, once pass 1 has counted it */
    s->done = nq == 0;
    cs_error e = {0};
    if (plan(s, &e)) {
        qsel_free(s);
        return NULL;
    }
    return s;
}

void qsel_free(qsel *s)
{
    if (!s)
        return;
    free(s->q);
    free(s->rank);
    free(s->qt);
    free(s->t);
    free(s->val);
    free(s->order);
    free(s->filled);
    free(s->kmin);
    free(s->kmax);
    ranges_free(&s->cur);
    ranges_free(&s->next);
    free(s->counts);
    free(s->cand);
    free(s);
}

/* The zeros are one value with two keys: a bound at either zero takes in
 * both. */
int qsel_bound(qsel *s, uint64_t n, qnum min, qnum max, cs_error *e)
{
    if (s->nq == 0)
        return CS_OK;
    s->n = n;
    s->n_known = 1;
    set_targets(s);
    int with_r = s->cfg.with_r;
    s->cur.g[0].lo = qsel_ckey(min.d == 0 ? -0.0 : min.d, min.r, with_r);
    s->cur.g[0].hi = qsel_ckey(max.d == 0 ? 0.0 : max.d, max.r, with_r);
    s->cur.n = n > 0;
    return plan(s, e);
}

int qsel_done(const qsel *s)
{
    return s->done;
}

unsigned qsel_passes(const qsel *s)
{
    return s->passes;
}

const qsel_range *qsel_ranges(const qsel *s, size_t *nranges)
{
    *nranges = s->cur.n;
    return s->cur.g;
}

size_t qsel_nbins(const qsel *s)
{
    return s->nbins;
}

uint64_t qsel_ncandidates(const qsel *s)
{
    return s->ncand;
}

int qsel_with_r(const qsel *s)
{
    return s->cfg.with_r;
}

size_t qsel_peak_bytes(const qsel *s)
{
    return s->peak;
}

void qsel_add_counts(qsel *s, const uint64_t *counts)
{
    for (size_t i = 0; i < s->nbins; i++)
        s->counts[i] += counts[i];
}

void qsel_add_extrema(qsel *s, const uint64_t *lo, const uint64_t *hi)
{
    for (size_t j = 0; j < s->cur.n; j++) {
        s->kmin[j] = lo[j] < s->kmin[j] ? lo[j] : s->kmin[j];
        s->kmax[j] = hi[j] > s->kmax[j] ? hi[j] : s->kmax[j];
    }
    s->extrema = 1;
}

int qsel_changed(cs_error *e)
{
    return cs_fail(e, CS_EDATA, "", 0,
                   "the input changed between the passes that select "
                   "quantiles");
}

int qsel_add_candidates(qsel *s, const qnum *v, size_t n, cs_error *e)
{
    int with_r = s->cfg.with_r;
    for (size_t i = 0; i < n; i++) {
        long j =
            qsel_find(s->cur.g, s->cur.n, qsel_ckey(v[i].d, v[i].r, with_r));
        if (j < 0 || s->cur.g[j].nbins || s->filled[j] == s->cur.g[j].count)
            return qsel_changed(e);
        qnum *slot = &s->cand[s->cur.g[j].first + s->filled[j]++];
        slot->d = v[i].d;
        slot->r = with_r ? qsel_r(v[i].r) : 0;
    }
    return CS_OK;
}

/* Every range got exactly the values the previous pass said it holds. */
static int check(const qsel *s, cs_error *e)
{
    for (size_t j = 0; j < s->cur.n; j++) {
        const qsel_range *g = &s->cur.g[j];
        uint64_t got = 0;
        if (g->nbins)
            for (uint32_t b = 0; b < g->nbins; b++)
                got += s->counts[g->first + b];
        else
            got = s->filled[j];
        if (got != g->count)
            return qsel_changed(e);
    }
    return CS_OK;
}

/* The keys the values counted in range j lie in: the range, narrowed to
 * the extrema of their doubles when the shares reported them (a double's
 * composite keys span its 2^12 corrections). */
static void value_bounds(const qsel *s, size_t j, qsel_u128 *lo, qsel_u128 *hi)
{
    const qsel_range *g = &s->cur.g[j];
    *lo = g->lo;
    *hi = g->hi;
    if (!s->extrema || s->kmin[j] > s->kmax[j])
        return;
    int rb = s->cfg.with_r ? QSEL_R_BITS : 0;
    qsel_u128 a = (qsel_u128)s->kmin[j] << rb;
    qsel_u128 b = ((qsel_u128)s->kmax[j] << rb) | (((qsel_u128)1 << rb) - 1);
    *lo = a > *lo ? a : *lo;
    *hi = b < *hi ? b : *hi;
}

/* The bins of range j that hold its targets become ranges of the next
 * pass, clipped to where its values lie. The counts add up to g->count,
 * so each target finds its bin. */
static void split(qsel *s, size_t j)
{
    const qsel_range *g = &s->cur.g[j];
    const uint64_t *c = s->counts + g->first;
    ranges *nx = &s->next;
    uint64_t below = s->cur.below[j], cum = 0;
    uint32_t b = 0;
    long last = -1;
    qsel_u128 vlo, vhi;
    value_bounds(s, j, &vlo, &vhi);
    for (size_t i = s->cur.tf[j]; i < s->cur.tf[j] + s->cur.tc[j]; i++) {
        while (below + cum + c[b] <= s->t[i])
            cum += c[b++];
        if ((long)b == last) {
            nx->tc[nx->n - 1]++;
            continue;
        }
        last = (long)b;
        qsel_range *ng = &nx->g[nx->n];
        ng->lo = g->lo + ((qsel_u128)b << g->shift);
        ng->hi = ng->lo + (((qsel_u128)1 << g->shift) - 1);
        ng->hi = ng->hi < g->hi ? ng->hi : g->hi;
        ng->lo = ng->lo > vlo ? ng->lo : vlo;
        ng->hi = ng->hi < vhi ? ng->hi : vhi;
        ng->count = c[b];
        nx->below[nx->n] = below + cum;
        nx->tf[nx->n] = i;
        nx->tc[nx->n] = 1;
        nx->n++;
    }
}

/* A collect range's values, sorted, give its targets directly. */
static void pick_targets(qsel *s, size_t j)
{
    const qsel_range *g = &s->cur.g[j];
    qnum *v = s->cand + g->first;
    qsort(v, g->count, sizeof *v, cmp_qnum);
    resolve(s, s->cur.tf[j], s->cur.tc[j], v, &s->cur.below[j]);
}

int qsel_narrow(qsel *s, cs_error *e)
{
    if (s->done)
        return CS_OK;
    if (!s->n_known) {
        s->n = 0;
        for (size_t i = 0; i < s->nbins; i++)
            s->n += s->counts[i];
        s->n_known = 1;
        set_targets(s);
    }
    if (check(s, e))
        return e->status;
    s->next.n = 0;
    for (size_t j = 0; j < s->cur.n && s->n > 0; j++) {
        if (s->cur.g[j].nbins)
            split(s, j);
        else
            pick_targets(s, j);
    }
    ranges tmp = s->cur;
    s->cur = s->next;
    s->next = tmp;
    s->passes++;
    return plan(s, e);
}

int qsel_result(const qsel *s, size_t i, qres *out)
{
    qnum a, b;
    if (!s->done || i >= s->nq)
        return -1;
    if (qsel_order_stats(s, i, &a, &b)) {
        out->has_value = 0;
        out->value = 0.0;
        out->is_int = 0;
        out->exact = (qnum){0.0, 0};
        out->has_near = 0;
        return 0;
    }
    qvalue_interpolate(a, b, s->rank[i].fnum, s->rank[i].fden, out);
    return 0;
}

int qsel_order_stats(const qsel *s, size_t i, qnum *xk, qnum *xk1)
{
    if (!s->done || i >= s->nq || s->n == 0)
        return -1;
    *xk = s->val[s->qt[i]];
    *xk1 = s->rank[i].fnum ? s->val[s->qt[i] + 1] : *xk;
    return 0;
}
