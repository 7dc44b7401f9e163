/* The CPU backend of --group-by: each worker sorts its job's rows into a
 * group table of its own (no locks), retiring merges the job's table into
 * the run's in input order, so the answer is the same for any thread
 * count. The values a group's quantiles and histograms need are kept in
 * the group (group_table.h); the group state counts against --memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/base/row_keys.h"
#include "src/engine/backend.h"
#include "src/engine/group_gpu.h"
#include "src/engine/input.h"
#include "src/stats/group_table.h"

/* Bytes per job, as cpu.c's: a job's waiting values take about twice its
 * bytes (measured: 4 MiB jobs were no faster with 1,000 groups). */
#define GROUP_BLOCK (1u << 20)
#define GROUP_CHUNK_ROWS 4096
/* as cpu.c: wide tables get fewer rows a row_batch */
#define GROUP_CHUNK_VALUES (1u << 20)
#define GROUP_CHUNK_MIN_ROWS 16
/* On the device (group_gpu.h) a call costs its setup: large jobs, one
 * row batch each */
#define GROUP_DEVICE_BLOCK (16u << 20)
#define GROUP_DEVICE_ROWS (1u << 18)

typedef struct group_jstate {
    group_table t;
    char *key; /* a row's encoded key */
    size_t key_room;
    size_t last;               /* the group of the row before + 1, 0 none */
    size_t on_device, on_host; /* batches, with a device (group_gpu.h) */
} group_jstate;

typedef struct group_backend {
    backend base; /* first: the engine sees this */
    backend_params p;
    group_jstate merged;
    size_t groups, bytes, values; /* for -v, once finished */
    size_t on_device, on_host;
} group_backend;

static void *gb_jstate_new(backend *b)
{
    group_backend *g = (group_backend *)b;
    group_jstate *pt = calloc(1, sizeof *pt);
    if (pt) {
        group_table_init(&pt->t, g->p.ncols, g->p.what,
                         group_backend_keeps(&g->p));
        group_table_direct(&pt->t);
    }
    return pt;
}

static void gb_jstate_reset(backend *b, void *state)
{
    group_jstate *pt = state;
    (void)b;
    group_table_clear(&pt->t);
    pt->last = 0;
}

static void gb_jstate_free(backend *b, void *state)
{
    group_jstate *pt = state;
    (void)b;
    group_table_free(&pt->t);
    free(pt->key);
    free(pt);
}

/* The row's keys as one byte string: per key, 0 for the missing key, or
 * 1, the length (4 bytes) and the text. */
static int encode(group_jstate *pt, const row_keys *k, size_t row, size_t *len)
{
    size_t need = 0;
    for (int i = 0; i < k->nkeys; i++) {
        uint32_t l = k->len[row * (size_t)k->nkeys + (size_t)i];
        need += l == KEY_MISSING ? 1 : 5 + (size_t)l;
    }
    if (need > pt->key_room) {
        char *p = realloc(pt->key, need);
        if (!p)
            return -1;
        pt->key = p;
        pt->key_room = need;
    }
    size_t at = 0;
    for (int i = 0; i < k->nkeys; i++) {
        size_t x = row * (size_t)k->nkeys + (size_t)i;
        uint32_t l = k->len[x];
        pt->key[at++] = l != KEY_MISSING;
        if (l == KEY_MISSING)
            continue;
        memcpy(pt->key + at, &l, 4);
        memcpy(pt->key + at + 4, k->text + k->off[x], l);
        at += 4 + l;
    }
    *len = at;
    return 0;
}

static int row_group(group_jstate *pt, const row_batch *c, size_t i,
                     uint32_t *ids)
{
    size_t len, id;
    if (encode(pt, c->keys, i, &len))
        return -1;
    /* logs come sorted or in runs often: the row before's group first */
    if (pt->last && group_is(&pt->t, pt->last - 1, pt->key, len))
        id = pt->last - 1;
    else if (group_find(&pt->t, pt->key, len, group_hash(pt->key, len), &id))
        return -1;
    pt->last = id + 1;
    ids[i] = (uint32_t)id;
    pt->t.rows[id]++;
    return 0;
}

/* Fields that did not enter, each into its row's group. */
static void add_bad(group_jstate *pt, const row_keys *k, const uint32_t *ids,
                    uint64_t first_row)
{
    for (size_t b = 0; b < k->nbad; b++) {
        const key_bad *x = &k->bad[b];
        int inv = x->kind == NUM_INVALID;
        group_add_counts(&pt->t, ids[x->row], x->col, x->kind == NUM_MISSING,
                         inv, x->kind == NUM_NAN, inv ? first_row + x->row : 0);
    }
}

/* The batch on the device (group_gpu.h): its groups found there, each
 * row's group and count here. *host: the device gave it back. */
static int device_batch(group_jstate *pt, const row_batch *c, uint64_t first,
                        int where, uint32_t *ids, int *host, cs_error *e)
{
    if (group_gpu_batch(&pt->t, c, first, where, ids, host, e) != CS_OK)
        return e->status;
    pt->on_device += !*host;
    pt->on_host += *host;
    for (size_t i = 0; !*host && i < c->nrows; i++)
        pt->t.rows[ids[i]]++;
    return CS_OK;
}

static int gb_batch_done(backend *b, job *j, const row_batch *c, cs_error *e)
{
    int where = ((group_backend *)b)->p.group_device;
    group_jstate *pt = j->jstate;
    uint64_t first = j->rows + 1;
    if (!c->keys || c->keys->failed)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for group keys");
    uint32_t *ids = malloc((c->nrows ? c->nrows : 1) * sizeof *ids);
    int bad = !ids, host = 1;
    if (!bad && where != GROUP_ON_HOST &&
        device_batch(pt, c, first, where, ids, &host, e) != CS_OK) {
        free(ids);
        return e->status;
    }
    for (size_t i = 0; !bad && host && i < c->nrows; i++)
        bad = row_group(pt, c, i, ids);
    /* column by column: each column's values in one loop */
    for (int k = 0; !bad && host && k < c->ncols; k++)
        bad = group_add_column(&pt->t, ids, k, c->col[k],
                               c->has_corr[k] ? c->corr[k] : NULL, c->nrows,
                               first);
    /* the offsets datetimes with zones were written in (the device's
       pieces carry none): the host's, wherever the values were reduced */
    for (int k = 0; !bad && k < c->ncols; k++)
        if (c->has_off[k])
            bad = group_add_offsets(&pt->t, ids, k, c->col[k], c->off[k],
                                    c->nrows, first);
    if (!bad)
        add_bad(pt, c->keys, ids, first);
    free(ids);
    return bad ? cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups")
               : CS_OK;
}

static void size_text(size_t n, char *buf, size_t cap)
{
    static const char *const unit[] = {"", "k", "M", "G", "T"};
    int u = 0;
    double v = (double)n;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, "%.4g%s", v, unit[u]);
}

static int gb_retire(backend *b, job *j, uint64_t first_row, int abandon,
                     cs_error *e)
{
    group_backend *g = (group_backend *)b;
    group_jstate *pt = j->jstate;
    if (abandon)
        return e->status;
    g->on_device += pt->on_device;
    g->on_host += pt->on_host;
    pt->on_device = pt->on_host = 0;
    if (group_merge(&g->merged.t, &pt->t, first_row - 1))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    if (group_table_bytes(&g->merged.t) > g->p.memory) {
        char mem[32];
        size_text(g->p.memory, mem, sizeof mem);
        return cs_fail(e, CS_EDATA, j->in->name, j->first_line,
                       "group-by: %zu groups and their values need more than "
                       "--memory %s; raise --memory",
                       g->merged.t.n, mem);
    }
    return CS_OK;
}

/* The whole columns' statistics: every group's merged. */
static int gb_finish(backend *b, col_stats *out, hist *h, cs_error *e)
{
    group_backend *g = (group_backend *)b;
    const group_table *t = &g->merged.t;
    (void)h;
    if (group_flush(&g->merged.t))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    g->groups = t->n; /* the engine moves the table out after this */
    g->bytes = group_table_bytes(t);
    g->values = t->values;
    for (size_t id = 0; id < t->n; id++)
        for (int k = 0; k < t->ncols; k++)
            if (stats_merge(&out[k], &t->st[id * (size_t)t->ncols + (size_t)k],
                            0))
                return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    return CS_OK;
}

static void gb_describe(backend *b, account *acc)
{
    group_backend *g = (group_backend *)b;
    account_say(acc, "groups  %zu, %.1f MB with %zu values kept", g->groups,
                (double)g->bytes / 1e6, g->values);
    if (g->p.group_device != GROUP_ON_HOST)
        account_say(acc,
                    "groups  %zu batches reduced on the device, %zu on the "
                    "host (more groups than the device's table, or sums "
                    "past its exact range)",
                    g->on_device, g->on_host);
}

static void gb_close(backend *b)
{
    group_backend *g = (group_backend *)b;
    group_table_free(&g->merged.t);
    free(g->merged.key);
    free(g);
}

/* Worker thread: the job's waiting values into its groups' statistics. */
static int gb_job_done(backend *b, job *j, cs_error *e)
{
    group_jstate *pt = j->jstate;
    (void)b;
    /* a direct table's sums merge as they are, cheaper than flushed */
    if (e->status == CS_OK && !pt->t.direct && group_flush(&pt->t))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    return e->status;
}

static const backend_ops group_ops = {
    .jstate_new = gb_jstate_new,
    .jstate_reset = gb_jstate_reset,
    .jstate_free = gb_jstate_free,
    .batch_done = gb_batch_done,
    .job_done = gb_job_done,
    .retire = gb_retire,
    .finish = gb_finish,
    .describe = gb_describe,
    .close = gb_close,
};

int group_backend_keeps(const backend_params *p)
{
    return (p->what & (STAT_MEDIAN | STAT_QUANTILES | STAT_HIST)) != 0;
}

int backend_group_open(const backend_params *p, backend **out, cs_error *e)
{
    group_backend *g = calloc(1, sizeof *g);
    *out = NULL;
    if (!g)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    g->p = *p;
    group_table_init(&g->merged.t, p->ncols, p->what, group_backend_keeps(p));
    group_table_direct(&g->merged.t);
    g->base = (backend){
        &group_ops,       NULL, "cpu", GROUP_BLOCK,
        GROUP_CHUNK_ROWS, 0,    NULL,  (size_t)p->ncols * sizeof(col_stats)};
    if (p->group_device == GROUP_ON_DEVICE) {
        g->base.block_bytes = GROUP_DEVICE_BLOCK;
        g->base.batch_rows = GROUP_DEVICE_ROWS;
    }
    *out = &g->base;
    return CS_OK;
}

group_table *backend_group_table(backend *b)
{
    return &((group_backend *)b)->merged.t;
}
