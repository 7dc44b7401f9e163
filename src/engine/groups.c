#include "src/engine/groups.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/num/parse_number.h"
#include "src/engine/group_cells.h"
#include "src/stats/qsel_key.h"

typedef struct key_part {
    const char *s; /* NULL: missing */
    size_t len;
    double d;
    int32_t r;
} key_part;

typedef struct sort_ent {
    uint64_t pre;      /* the first key's order as far as pre_of tells */
    const key_part *k; /* [nkeys] */
    int nkeys;
    const unsigned char *numeric; /* [nkeys] */
    size_t id;
} sort_ent;

static int cmp_text(const key_part *a, const key_part *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->s, b->s, n) : 0;
    if (c)
        return c;
    return (a->len > b->len) - (a->len < b->len);
}

static int cmp_key(const key_part *a, const key_part *b, int numeric)
{
    if (!a->s || !b->s)
        return (a->s == NULL) - (b->s == NULL); /* the missing key last */
    if (numeric) {
        if (a->d != b->d)
            return a->d < b->d ? -1 : 1;
        if (a->r != b->r)
            return a->r < b->r ? -1 : 1;
    }
    return cmp_text(a, b);
}

static int cmp_groups(const void *x, const void *y)
{
    const sort_ent *a = x, *b = y;
    if (a->pre != b->pre) /* most comparisons end here, no key read */
        return a->pre < b->pre ? -1 : 1;
    for (int i = 0; i < a->nkeys; i++) {
        int c = cmp_key(&a->k[i], &b->k[i], a->numeric[i]);
        if (c)
            return c;
    }
    return 0;
}

/* A number whose order as an unsigned integer is the double's (-0 as
 * 0: cmp_key finds them equal and lets the text decide). */
static uint64_t pre_number(double d)
{
    uint64_t u;
    d += 0.0;
    memcpy(&u, &d, sizeof u);
    return u >> 63 ? ~u : u | UINT64_C(1) << 63;
}

/* The first 8 bytes big-endian, zeros past the end: where two differ,
 * the texts differ there the same way, or the shorter text ends there
 * (and comes first, as in cmp_text). */
static uint64_t pre_text(const char *s, size_t len)
{
    uint64_t u = 0;
    for (size_t i = 0; i < 8; i++)
        u = u << 8 | (i < len ? (unsigned char)s[i] : 0u);
    return u;
}

/* A number that orders two keys of one column as cmp_key does wherever
 * the numbers differ (equal numbers tell nothing): the missing key's is
 * the largest. */
static uint64_t pre_of(const key_part *k, int numeric)
{
    if (!k->s)
        return UINT64_MAX;
    return numeric ? pre_number(k->d) : pre_text(k->s, k->len);
}

/* Whether pre_of may order the first key column: not when a numeric
 * column holds a NaN (cmp_key has no order for it; the keys are then
 * compared whole, as they always were). */
static int pre_usable(const key_part *parts, size_t n, size_t nk, int numeric)
{
    for (size_t g = 0; numeric && g < n; g++)
        if (parts[g * nk].s && isnan(parts[g * nk].d))
            return 0;
    return 1;
}

/* The parts of an encoded key (group_cpu.c: per key 0, or 1, a 4-byte
 * length and the text). */
static void decode(const char *key, int nkeys, key_part *out)
{
    for (int i = 0; i < nkeys; i++) {
        out[i] = (key_part){NULL, 0, 0.0, 0};
        if (!*key++)
            continue;
        uint32_t l;
        memcpy(&l, key, 4);
        out[i].s = key + 4;
        out[i].len = l;
        key += 4 + l;
    }
}

/* Decodes every key; numeric[i]: every key of column i is a number. */
static void parse_keys(const group_table *t, const groups_params *p,
                       key_part *parts, unsigned char *numeric)
{
    size_t nk = (size_t)p->nkeys;
    memset(numeric, 1, nk);
    for (size_t g = 0; g < t->n; g++) {
        key_part *k = &parts[g * nk];
        decode(group_key(t, g), p->nkeys, k);
        for (size_t i = 0; i < nk; i++) {
            if (!k[i].s || !numeric[i])
                continue;
            int32_t r = 0;
            if (parse_number_fmt(k[i].s, k[i].len, p->num, &k[i].d, &r) !=
                NUM_OK)
                numeric[i] = 0;
            k[i].r = qsel_r(r);
        }
    }
}

static int order(const groups_params *p, engine_groups *gs)
{
    const group_table *t = &gs->table;
    size_t nk = (size_t)p->nkeys, n1 = t->n ? t->n : 1;
    key_part *parts = malloc(n1 * nk * sizeof *parts);
    unsigned char *numeric = malloc(nk);
    sort_ent *ent = malloc(n1 * sizeof *ent);
    int ok = parts && numeric && ent;
    if (ok) {
        parse_keys(t, p, parts, numeric);
        int pre = nk && pre_usable(parts, t->n, nk, numeric[0]);
        for (size_t g = 0; g < t->n; g++)
            ent[g] = (sort_ent){pre ? pre_of(&parts[g * nk], numeric[0]) : 0,
                                &parts[g * nk], p->nkeys, numeric, g};
        qsort(ent, t->n, sizeof *ent, cmp_groups);
        size_t nc = (size_t)t->ncols;
        for (size_t i = 0; i < t->n; i++) {
            size_t g = ent[i].id;
            engine_group *o = &gs->g[i];
            for (size_t k = 0; k < nk; k++) {
                gs->keys[i * nk + k] = parts[g * nk + k].s;
                gs->key_lens[i * nk + k] = parts[g * nk + k].len;
            }
            o->rows = t->rows[g];
            o->key = &gs->keys[i * nk];
            o->key_len = &gs->key_lens[i * nk];
            o->st = t->st ? &t->st[g * nc] : NULL;
            o->id = g;
            o->h = gs->h ? &gs->h[g * nc] : NULL;
            o->q = gs->q ? &gs->q[g * nc * p->nq] : NULL;
            o->prof = t->prof ? &t->prof[g * nc] : NULL;
        }
    }
    free(parts);
    free(numeric);
    free(ent);
    return ok ? 0 : -1;
}

static int make(const groups_params *p, engine_groups *gs)
{
    size_t n1 = gs->table.n ? gs->table.n : 1, nk = (size_t)p->nkeys;
    size_t cells = n1 * (size_t)(gs->table.ncols ? gs->table.ncols : 1);
    gs->names = calloc(nk, sizeof *gs->names);
    gs->g = calloc(n1, sizeof *gs->g);
    gs->keys = calloc(n1 * nk, sizeof *gs->keys);
    gs->key_lens = calloc(n1 * nk, sizeof *gs->key_lens);
    if (p->what & STAT_HIST)
        gs->h = calloc(cells, sizeof *gs->h);
    if (p->nq)
        gs->q = calloc(cells * p->nq, sizeof *gs->q);
    if (!gs->names || !gs->g || !gs->keys || !gs->key_lens ||
        (!gs->h && (p->what & STAT_HIST)) || (!gs->q && p->nq))
        return -1;
    for (size_t i = 0; i < nk; i++)
        if (!(gs->names[i] = strdup(p->names[i])))
            return -1;
    return group_cells_make(p, gs) || order(p, gs) ? -1 : 0;
}

int groups_make(const groups_params *p, group_table *t, engine_groups **out,
                cs_error *e)
{
    engine_groups *gs = calloc(1, sizeof *gs);
    *out = gs;
    if (!gs)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    gs->table = *t;
    memset(t, 0, sizeof *t);
    gs->nkeys = p->nkeys;
    gs->n = gs->table.n;
    gs->nq = p->nq;
    gs->nheld = gs->table.ncols;
    if (make(p, gs))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    return CS_OK;
}

int engine_groups_arrange(engine_groups *gs, const num_format *num, cs_error *e)
{
    const group_table *t = &gs->table;
    groups_params p = {gs->nkeys, gs->names, num, t->what, NULL, 0,
                       0,         0,         0.0, 0.0,     1};
    size_t n1 = t->n ? t->n : 1, nk = (size_t)gs->nkeys;
    free(gs->g);
    free(gs->keys);
    free(gs->key_lens);
    gs->n = t->n;
    gs->nheld = t->ncols;
    gs->g = calloc(n1, sizeof *gs->g);
    gs->keys = calloc(n1 * nk, sizeof *gs->keys);
    gs->key_lens = calloc(n1 * nk, sizeof *gs->key_lens);
    if (!gs->g || !gs->keys || !gs->key_lens || order(&p, gs))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    return CS_OK;
}

void groups_free(engine_groups *gs)
{
    if (!gs)
        return;
    for (int i = 0; gs->names && i < gs->nkeys; i++)
        free(gs->names[i]);
    size_t cells = gs->table.n * (size_t)gs->table.ncols;
    for (size_t i = 0; gs->h && i < cells; i++)
        hist_free(&gs->h[i]);
    group_table_free(&gs->table);
    free(gs->names);
    free(gs->g);
    free(gs->keys);
    free(gs->key_lens);
    free(gs->h);
    free(gs->q);
    free(gs->text);
    free(gs);
}
