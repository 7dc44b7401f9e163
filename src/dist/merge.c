#include "src/dist/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/dist/state.h"

/* What --emit-state writes, narrower than what a state may hold (--mpi's
 * ranks exchange states of quantile runs, whose values travel apart): no
 * quantiles, and histograms only with fixed edges. */
static int emitted(const state_info *info, const char *name, cs_error *e)
{
    const char *why = NULL;
    if (info->what & (STAT_MEDIAN | STAT_QUANTILES))
        why = "it claims quantiles, which need the values";
    else if ((info->what & STAT_HIST) && !info->have_range)
        why = "it claims a histogram without --range";
    if (!why)
        return CS_OK;
    return cs_fail(e, CS_EDATA, name, 0,
                   "a state that --emit-state does not write: %s", why);
}

/* One state as read, with where it came from. */
typedef struct held {
    state_info info;
    engine_result r;
    const char *from; /* its operand's name */
} held;

typedef struct heap_of {
    held *v;
    size_t n, cap;
    size_t bytes; /* the values' counts held */
} heap_of;

static void held_free(heap_of *h)
{
    for (size_t i = 0; i < h->n; i++) {
        free(h->v[i].info.key);
        engine_result_free(&h->v[i].r);
    }
    free(h->v);
}

static held *next_slot(heap_of *h)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 16;
        held *p = realloc(h->v, cap * sizeof *p);
        if (!p)
            return NULL;
        h->v = p;
        h->cap = cap;
    }
    return &h->v[h->n];
}

/* The states' values' counts, all held at once, within --memory. */
static int within_memory(heap_of *h, const merge_ask *ask, const char *name,
                         cs_error *e)
{
    h->bytes += state_profile_bytes(&h->v[h->n - 1].r);
    if (h->bytes <= profile_budget(ask->memory, h->v[0].r.nheld))
        return CS_OK;
    return cs_fail(e, CS_EDATA, name, 0,
                   "--merge: the states' distinct values' counts (--distinct, "
                   "--mode, --top) need more than --memory (%zu bytes held "
                   "at once): give a larger --memory, or merge fewer states "
                   "at a time (--merge --emit-state, a tree)",
                   h->bytes);
}

/* Every state of one operand (at least one) into h. */
static int read_operand(const char *path, const merge_ask *ask, heap_of *h,
                        cs_error *e)
{
    int std = !strcmp(path, "-");
    const char *name = std ? "(standard input)" : path;
    FILE *f = std ? stdin : fopen(path, "rb");
    if (!f)
        return cs_fail(e, CS_EDATA, name, 0, "cannot open: %s",
                       strerror(errno));
    int rc = CS_OK;
    do {
        held *s = next_slot(h);
        if (!s)
            rc = cs_fail(e, CS_ENOMEM, name, 0, "out of memory");
        else
            rc = state_read(f, name, &s->info, &s->r, e);
        if (rc == CS_OK) {
            s->from = name;
            h->n++;
            rc = emitted(&s->info, name, e);
        }
        if (rc == CS_OK)
            rc = within_memory(h, ask, name, e);
    } while (rc == CS_OK && state_more(f));
    if (!std)
        fclose(f);
    return rc;
}

/* The statistics a state holding what can answer: count and extremes
 * always; sum and mean from the exact sum (kept for any of sum, mean,
 * std); std from the sum of squares; a histogram when it has one. */
static unsigned answerable(unsigned what)
{
    unsigned can = STAT_COUNT | STAT_MIN | STAT_MAX;
    if (what & (STAT_SUM | STAT_MEAN | STAT_STD))
        can |= STAT_SUM | STAT_MEAN;
    if (what & STAT_PROFILE) /* every value's count: any of them, any K */
        can |= STAT_PROFILE;
    return can | (what & (STAT_STD | STAT_HIST));
}

static const char *stat_name(unsigned bit)
{
    return bit & STAT_SUM        ? "--sum"
           : bit & STAT_MEAN     ? "--mean"
           : bit & STAT_STD      ? "--std"
           : bit & STAT_DISTINCT ? "--distinct"
           : bit & STAT_MODE     ? "--mode"
           : bit & STAT_TOP      ? "--top"
                                 : "--hist";
}

/* What is asked of states of the key in info, or CS_EUSAGE saying why
 * they cannot answer it. */
static int ask_ok(const merge_ask *ask, const state_info *info, cs_error *e)
{
    unsigned lack = ask->what & ~answerable(info->what);
    if (lack & STAT_PROFILE)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--merge: the states do not hold the values' counts "
                       "that %s needs (emit them with --distinct, --mode or "
                       "--top)",
                       stat_name(lack & STAT_PROFILE));
    if (lack)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--merge: the states do not hold what %s needs "
                       "(emit them with %s)",
                       stat_name(lack), stat_name(lack));
    int hist = (info->what & STAT_HIST) != 0;
    if ((ask->nbins || ask->have_range) && !hist)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--merge: the states hold no histogram to give "
                       "--bins or --range to");
    if ((ask->nbins && ask->nbins != info->nbins) ||
        (ask->have_range && (ask->lo != info->lo || ask->hi != info->hi)))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--merge: the states' histograms have %d bins over "
                       "[%.17g, %.17g]: other bins or edges need the values",
                       info->nbins, info->lo, info->hi);
    return CS_OK;
}

static int by_part(const void *a, const void *b)
{
    const held *x = a, *y = b;
    return (x->info.part_lo > y->info.part_lo) -
           (x->info.part_lo < y->info.part_lo);
}

/* Parts: all states of --part or none; one count N; after sorting, each
 * run of parts right after the one before; every part when whole. */
static int check_parts(heap_of *h, int whole, cs_error *e)
{
    uint32_t n = h->v[0].info.part_n;
    for (size_t i = 1; i < h->n; i++) {
        uint32_t m = h->v[i].info.part_n;
        if (m != n && n && m)
            return cs_fail(e, CS_EDATA, h->v[i].from, 0,
                           "--merge: a state of %u parts beside states of %u",
                           m, n);
        if (m != n)
            return cs_fail(e, CS_EDATA, h->v[i].from, 0,
                           "--merge: states of --part beside states of "
                           "whole runs");
    }
    if (!n)
        return CS_OK;
    qsort(h->v, h->n, sizeof *h->v, by_part);
    uint32_t next = h->v[0].info.part_lo;
    if (whole && next != 1)
        return cs_fail(e, CS_EDATA, "", 0, "--merge: part 1 of %u missing", n);
    for (size_t i = 0; i < h->n; i++) {
        const state_info *p = &h->v[i].info;
        if (p->part_lo < next)
            return cs_fail(e, CS_EDATA, h->v[i].from, 0,
                           "--merge: part %u of %u given twice", p->part_lo, n);
        if (p->part_lo > next)
            return cs_fail(e, CS_EDATA, "", 0, "--merge: part %u of %u missing",
                           next, n);
        next = p->part_hi + 1;
    }
    if (whole && next != n + 1)
        return cs_fail(e, CS_EDATA, "", 0, "--merge: part %u of %u missing",
                       next, n);
    return CS_OK;
}

/* States whose values' counts differ: one with them and one without
 * (named), or with them for other options. */
static int counts_differ(const held *a, const held *b, cs_error *e)
{
    unsigned x = a->info.what & STAT_PROFILE, y = b->info.what & STAT_PROFILE;
    if (!x != !y)
        return cs_fail(e, CS_EDATA, b->from, 0,
                       "%s holds the values' counts (%s), %s does not: "
                       "emit every state with the same of --distinct, "
                       "--mode and --top",
                       x ? a->from : b->from, stat_name(x ? x : y),
                       x ? b->from : a->from);
    if (x == y && a->info.top == b->info.top)
        return CS_OK;
    return cs_fail(e, CS_EDATA, b->from, 0,
                   "%s and %s hold the values' counts for other options "
                   "(--distinct, --mode, --top K): emit every state with "
                   "the same",
                   a->from, b->from);
}

/* The first state that holds rows (its columns are the merge's), or the
 * first when none does. */
static size_t base_of(const heap_of *h)
{
    for (size_t i = 0; i < h->n; i++)
        if (!state_no_rows(&h->v[i].r))
            return i;
    return 0;
}

/* Every state merged, in order, into the base, whose rows come first
 * (the states of no rows before it add none). */
static int merge_all(heap_of *h, size_t base, const unsigned char *want,
                     cs_error *e)
{
    const held *first = &h->v[base];
    for (size_t i = 0; i < h->n; i++) {
        if (i == base)
            continue;
        if (counts_differ(first, &h->v[i], e) != CS_OK)
            return e->status;
        if (strcmp(h->v[i].info.key, first->info.key))
            return cs_fail(e, CS_EDATA, h->v[i].from, 0,
                           "a state of other options than %s's (%s against "
                           "%s)",
                           first->from, h->v[i].info.key, first->info.key);
        int rc = state_merge(&h->v[base].r, &h->v[i].r, want, e);
        if (rc != CS_OK)
            return rc;
    }
    return CS_OK;
}

/* Which of r's columns -c keeps (*want NULL: r has none), so that the
 * columns it drops need not merge. */
static int columns_wanted(const engine_result *r, const char *list,
                          unsigned char **want, cs_error *e)
{
    if (!r->ncols)
        return CS_OK;
    *want = malloc((size_t)r->ncols);
    if (!*want)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    return engine_columns_wanted(r, list, *want, e);
}

/* The base's info and result handed out, covering every state's parts;
 * the rest freed. */
static void take_base(heap_of *h, size_t base, engine_result *out,
                      state_info *info)
{
    *out = h->v[base].r;
    *info = h->v[base].info;
    if (info->part_n) {
        info->part_lo = h->v[0].info.part_lo;
        info->part_hi = h->v[h->n - 1].info.part_hi;
    }
    memset(&h->v[base], 0, sizeof h->v[base]);
}

int merge_states(const char *const *paths, int n, const merge_ask *ask,
                 int whole, engine_result *out, unsigned *what,
                 state_info *info, cs_error *e)
{
    heap_of h = {0};
    int rc = CS_OK;
    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    for (int i = 0; i < n && rc == CS_OK; i++)
        rc = read_operand(paths[i], ask, &h, e);
    if (rc == CS_OK)
        rc = ask_ok(ask, &h.v[0].info, e);
    if (rc == CS_OK)
        rc = check_parts(&h, whole, e);
    size_t base = base_of(&h);
    unsigned char *want = NULL;
    if (rc == CS_OK && ask->columns)
        rc = columns_wanted(&h.v[base].r, ask->columns, &want, e);
    if (rc == CS_OK)
        rc = merge_all(&h, base, want, e);
    free(want);
    if (rc == CS_OK) {
        *what = ask->what ? ask->what : h.v[0].info.what;
        take_base(&h, base, out, info);
    }
    held_free(&h);
    int none = rc == CS_OK && state_no_rows(out);
    if (none && whole) /* as one run over inputs without rows */
        rc = cs_fail(e, CS_EDATA, "", 0,
                     "--merge: no data: the states hold no rows (their "
                     "inputs were empty, or held a header alone)");
    if (rc == CS_OK)
        rc = state_groups_arrange(out, info, e);
    if (rc == CS_OK && ask->columns && !none)
        rc = engine_select_columns(out, ask->columns, e);
    if (ask->top) /* the states hold every value's count: any K */
        out->prof_top = ask->top;
    if (ask->top && out->groups)
        out->groups->top = ask->top;
    if (rc == CS_OK)
        rc = engine_result_finalize(out, e);
    if (rc != CS_OK) {
        engine_result_free(out);
        free(info->key);
        info->key = NULL;
    }
    return rc;
}
