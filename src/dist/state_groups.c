#include "src/dist/state_groups.h"

#include <stdlib.h>
#include <string.h>

/* Less than the least a group's column takes (its statistics, 38 bytes
 * at the least, and an absent histogram). */
#define MIN_GROUP_COLUMN 38u

static int bad(sc_in *i, const char *why)
{
    sc_bad(i, why);
    return -1;
}

/* Whether a column's cells carry a profile: a text column's, or every
 * column's values' counts. */
static int profiled(const engine_column *c, unsigned what)
{
    return c->kind == COL_TEXT || (what & STAT_PROFILE);
}

void state_put_groups(sc_out *o, const engine_result *r, unsigned what)
{
    const engine_groups *gs = r->groups;
    const group_table *t = &gs->table;
    size_t nc = (size_t)t->ncols;
    const hist none = {0};
    sc_put_u64(o, (uint64_t)gs->nkeys);
    for (int k = 0; k < gs->nkeys; k++)
        sc_put_text(o, gs->names[k]);
    sc_put_u64(o, t->n);
    for (size_t g = 0; g < t->n; g++) {
        sc_put_u64(o, t->key_len[g]);
        sc_put(o, group_key(t, g), t->key_len[g]);
        sc_put_u64(o, t->rows[g]);
        for (int k = 0; k < r->ncols; k++) {
            size_t at = g * nc + (size_t)r->cols[k].held;
            state_put_stats(o, &t->st[at]);
            state_put_hist(o, gs->h ? &gs->h[at] : &none);
            state_put_offsets(o, r->cols[k].kind, &t->st[at]);
            if (profiled(&r->cols[k], what))
                state_put_prof(o, t->prof ? &t->prof[at] : NULL,
                               r->cols[k].kind == COL_TEXT,
                               (what & STAT_PROFILE) != 0);
        }
    }
}

/* The key columns' names. */
static int get_names(sc_in *i, engine_groups *gs)
{
    uint64_t n = sc_get_u64(i);
    if (i->bad || n < 1 || n > STATE_MAX_COLS || n > i->n - i->at)
        return bad(i, "a key column count out of range");
    gs->names = calloc(n, sizeof *gs->names);
    if (!gs->names)
        return bad(i, "out of memory");
    gs->nkeys = (int)n;
    for (uint64_t k = 0; k < n && !i->bad; k++)
        gs->names[k] = sc_get_text(i, STATE_MAX_NAME);
    return i->bad ? -1 : 0;
}

/* One group: its key made a group of the table (new: a key given twice
 * is refused), its rows, its columns' statistics and histograms. */
/* A cell's profile read into the table in place of the empty one its
 * group was made with. */
static void get_cell_prof(sc_in *i, group_table *t, size_t at, int is_text,
                          int counted)
{
    col_prof p;
    state_get_prof(i, &p, is_text, counted);
    t->prof_bytes -= profile_bytes(&t->prof[at]);
    profile_free(&t->prof[at]);
    t->prof[at] = p;
    t->prof_bytes += profile_bytes(&p);
}

static int get_group(sc_in *i, const state_info *info, const engine_result *r,
                     engine_groups *gs)
{
    group_table *t = &gs->table;
    uint64_t len = sc_get_u64(i);
    if (!i->bad && len > i->n - i->at)
        sc_bad(i, "a group's key past the payload");
    const char *key = i->bad ? NULL : (const char *)sc_take(i, (size_t)len);
    uint64_t rows = sc_get_u64(i);
    if (i->bad || !key)
        return -1;
    size_t id, before = t->n;
    if (group_find(t, key, (size_t)len, group_hash(key, (size_t)len), &id))
        return bad(i, "out of memory");
    if (t->n == before)
        return bad(i, "a group given twice");
    t->rows[id] = rows;
    size_t nc = (size_t)t->ncols;
    for (size_t k = 0; k < nc && !i->bad; k++) {
        col_stats s;
        state_get_stats(i, &s);
        stats_free(&t->st[id * nc + k]);
        t->st[id * nc + k] = s;
        state_get_hist(i, &gs->h[id * nc + k]);
        state_get_offsets(i, r->cols[k].kind, &t->st[id * nc + k]);
        if (!i->bad && profiled(&r->cols[k], info->what))
            get_cell_prof(i, t, id * nc + k, r->cols[k].kind == COL_TEXT,
                          (info->what & STAT_PROFILE) != 0);
    }
    return i->bad ? -1 : 0;
}

/* A table that keeps the cells' profiles (a text column, the values'
 * counts), and which columns are text, as a run's groups say. -1: no
 * memory. */
static int profile_groups(const state_info *info, const engine_result *r,
                          engine_groups *gs)
{
    int any = 0;
    for (int k = 0; k < r->ncols; k++)
        any |= profiled(&r->cols[k], info->what);
    if (!any)
        return 0;
    group_table_profile(&gs->table, (info->what & STAT_PROFILE) != 0);
    gs->top = info->top ? info->top : 1;
    gs->text = calloc((size_t)r->ncols + 1, 1);
    if (!gs->text)
        return -1;
    for (int k = 0; k < r->ncols; k++)
        gs->text[k] = r->cols[k].kind == COL_TEXT;
    return 0;
}

int state_get_groups(sc_in *i, const state_info *info, engine_result *r)
{
    engine_groups *gs = calloc(1, sizeof *gs);
    if (!gs)
        return bad(i, "out of memory");
    r->groups = gs;
    group_table_init(&gs->table, r->ncols, info->what, 0);
    gs->nheld = r->ncols;
    for (int k = 0; k < r->ncols; k++)
        r->cols[k].held = k;
    if (profile_groups(info, r, gs))
        return bad(i, "out of memory");
    if (get_names(i, gs))
        return -1;
    uint64_t n = sc_get_u64(i);
    uint64_t least = 2 + (uint64_t)r->ncols * MIN_GROUP_COLUMN;
    if (i->bad || n > (i->n - i->at) / least) /* before any is made */
        return bad(i, "a group count past what the payload holds");
    gs->h = calloc(n ? n * (size_t)r->ncols : 1, sizeof *gs->h);
    if (!gs->h)
        return bad(i, "out of memory");
    for (uint64_t g = 0; g < n; g++)
        if (get_group(i, info, r, gs))
            return -1;
    return 0;
}

static int same_keys(const engine_groups *a, const engine_groups *b)
{
    if (a->nkeys != b->nkeys || a->table.ncols != b->table.ncols)
        return 0;
    for (int k = 0; k < a->nkeys; k++)
        if (strcmp(a->names[k], b->names[k]))
            return 0;
    return 1;
}

/* dst's histograms, one per group and column again (before: its groups
 * before the merge), src's added. */
static int merge_hists(engine_groups *d, const engine_groups *s, size_t before)
{
    size_t nc = (size_t)d->table.ncols, n = d->table.n;
    hist *h = realloc(d->h, (n ? n * nc : 1) * sizeof *h);
    if (!h)
        return -1;
    d->h = h;
    memset(h + before * nc, 0, (n - before) * nc * sizeof *h);
    for (size_t g = 0; s->h && g < s->table.n; g++) {
        const char *key = group_key(&s->table, g);
        size_t len = s->table.key_len[g], id;
        if (group_find(&d->table, key, len, s->table.hash[g], &id))
            return -1;
        for (size_t k = 0; k < nc; k++) {
            const hist *from = &s->h[g * nc + k];
            hist *to = &h[id * nc + k];
            if (from->bins && !to->bins &&
                hist_init(to, from->nbins, from->lo, from->hi))
                return -1;
            if (from->bins)
                hist_merge(to, from);
        }
    }
    return 0;
}

/* Whether each group's integer corrections add up within 2^63 (as
 * state_merge checks the columns'): 0, 1 past it, -1 out of memory. The
 * groups src has and dst lacks are made in dst here, empty. */
static int corrections_past(engine_groups *d, const engine_groups *s)
{
    size_t nc = (size_t)d->table.ncols;
    for (size_t g = 0; g < s->table.n; g++) {
        size_t id;
        if (group_find(&d->table, group_key(&s->table, g), s->table.key_len[g],
                       s->table.hash[g], &id))
            return -1;
        for (size_t k = 0; k < nc; k++) {
            int64_t r;
            if (__builtin_add_overflow(d->table.st[id * nc + k].sum_r,
                                       s->table.st[g * nc + k].sum_r, &r))
                return 1;
        }
    }
    return 0;
}

int state_merge_groups(engine_result *dst, const engine_result *src,
                       cs_error *e)
{
    engine_groups *d = dst->groups;
    if (!same_keys(d, src->groups))
        return cs_fail(e, CS_EDATA, "", 0,
                       "the states' groups have different key columns");
    size_t before = d->table.n;
    int past = corrections_past(d, src->groups);
    if (past > 0)
        return cs_fail(e, CS_EDATA, "", 0,
                       "the states' groups: their integer corrections add "
                       "up past 2^63");
    if (past < 0 || group_merge(&d->table, &src->groups->table, dst->rows) ||
        merge_hists(d, src->groups, before))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    return CS_OK;
}

int state_groups_arrange(engine_result *r, const state_info *info, cs_error *e)
{
    if (!r->groups)
        return CS_OK;
    num_format f;
    num_format_init(&f);
    f.decimal = info->key_decimal;
    f.thousands = info->key_thousands;
    return engine_groups_arrange(r->groups, &f, e);
}
