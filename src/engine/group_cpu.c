/* The CPU backend of --group-by: each worker sorts its job's rows into a
 * group table (no locks), taken from a pool while the job is parsed, and
 * merges it into the run's table when the job is done (under a lock);
 * the table goes back to the pool, so that there are as many tables as
 * jobs being parsed, not as jobs in flight. A job's rows are not yet
 * numbered when it is done (the jobs before it may still be parsing), so
 * tables hold them as the job's place and the row's place in the job
 * (row_packed), which order rows as their numbers do: every tie between
 * rows is decided the same. Retiring notes each job's first row, and
 * finish turns the packed rows into rows. The answer is the same for any
 * thread count. The values a group's quantiles and histograms need are
 * kept in the group (group_table.h); the group state counts against
 * --memory. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/base/row_keys.h"
#include "src/engine/backend.h"
#include "src/engine/group_dev.h"
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
/* A device batch of more groups than 1 in this many rows sends the rest
 * of the run to the host: the device's groups come back to be merged as
 * the host would make them, so with nearly a group a row it only adds
 * (measured on an H100, 2 GB, 10^6 keys: 51.9 s on the device, 15.2 s
 * on the host). */
#define GROUP_DEVICE_SPARSE 4

/* Whether a run's batches go to the device: the first batch probes it
 * while the others are reduced on the host (with 16 workers, 16 batches
 * of 10^6 keys went to the device before the first came back: 27.4 s
 * against the host's 15.9 s); then on, or off for the rest of the run. */
enum { DEVICE_UNKNOWN, DEVICE_PROBING, DEVICE_ON, DEVICE_OFF };
/* A batch of fewer rows (the last of a small input) decides nothing: the
 * next batch probes again. */
#define GROUP_PROBE_ROWS 1024

/* A packed row: the job's place above, the row's 1-based place in the job
 * below (a job holds far fewer than 2^32 rows: a block and a record). */
#define ROW_BITS 32
#define ROW_MASK ((UINT64_C(1) << ROW_BITS) - 1)

typedef struct group_jstate {
    group_table *t; /* from the pool while a worker fills it, else NULL */
    char *key;      /* a row's encoded key */
    size_t key_room;
    size_t last;               /* the group of the row before + 1, 0 none */
    size_t on_device, on_host; /* batches, with a device (group_gpu.h) */
} group_jstate;

/* The run's groups while jobs merge into them: shards by the key's hash,
 * each under a lock of its own, so that workers merge at once (with a
 * million keys nearly every row is a group of its job's table, and one
 * lock over one table made 16 workers wait on one: 2 GB took 64 s). */
#define GROUP_SHARDS_MAX 64
typedef struct group_shard {
    pthread_mutex_t lock;
    group_table t;
} group_shard;

typedef struct group_backend {
    backend base; /* first: the engine sees this */
    backend_params p;
    pthread_mutex_t lock; /* the pool */
    group_shard shard[GROUP_SHARDS_MAX];
    int nshards;        /* a power of two */
    group_table merged; /* the shards' groups, at finish */
    group_table **pool; /* free tables */
    size_t npool, pool_cap, ntables;
    uint64_t *first_row; /* [seq]: each retired job's first row */
    size_t nfirst;
    char *last_name; /* the last retired job's input and first line */
    uint64_t last_line;
    size_t groups, bytes, values; /* for -v, once finished */
    size_t on_device, on_host;
    int device;       /* DEVICE_*: whether batches go to the device; set by
                         the workers, read by every worker (atomics) */
    int sparse_noted; /* the first batch of many groups: */
    size_t sparse_groups, sparse_rows; /*   its, for -v */
    group_dev *dev; /* the device parses plain CSV (group_dev.h), or NULL */
} group_backend;

static void *gb_jstate_new(backend *b)
{
    (void)b;
    return calloc(1, sizeof(group_jstate));
}

/* t made empty for p's groups. -1: no memory (t freed). */
static int table_setup(const backend_params *p, group_table *t)
{
    group_table_init(t, p->ncols, p->what, group_backend_keeps(p));
    group_table_direct(t);
    if (p->kind)
        group_table_profile(t, (p->what & STAT_PROFILE) != 0);
    if (!group_table_track_first(t))
        return 0;
    group_table_free(t);
    return -1;
}

static group_table *table_new(const group_backend *g)
{
    group_table *t = malloc(sizeof *t);
    if (t && table_setup(&g->p, t)) {
        free(t);
        t = NULL;
    }
    return t;
}

/* Room in the pool for every table made and one more. -1: no memory. */
static int pool_room(group_backend *g)
{
    if (g->ntables < g->pool_cap)
        return 0;
    size_t cap = g->pool_cap ? 2 * g->pool_cap : 16;
    group_table **p = realloc(g->pool, cap * sizeof *p);
    if (!p)
        return -1;
    g->pool = p;
    g->pool_cap = cap;
    return 0;
}

/* A table for a job: a free one, or a new one. NULL: no memory. */
static group_table *table_take(group_backend *g)
{
    group_table *t = NULL;
    pthread_mutex_lock(&g->lock);
    if (g->npool)
        t = g->pool[--g->npool];
    else if (pool_room(g) == 0 && (t = table_new(g)))
        g->ntables++;
    pthread_mutex_unlock(&g->lock);
    return t;
}

/* A table this small keeps its groups for the next job that takes it,
 * merged at finish: with few groups, merging and emptying it after every
 * job cost a good part of the work (the extremes start again each time).
 * --memory counts such tables only at finish: a few of them, each this
 * small. */
#define GROUP_KEEP_TABLE ((size_t)4 << 20)

/* The job's table back to the pool (which has room for every table
 * made), emptied unless keep. */
static void table_give(group_backend *g, group_jstate *pt, int keep)
{
    if (!pt->t)
        return;
    if (!keep)
        group_table_clear(pt->t);
    pthread_mutex_lock(&g->lock);
    g->pool[g->npool++] = pt->t;
    pthread_mutex_unlock(&g->lock);
    pt->t = NULL;
    pt->last = 0;
}

static void gb_jstate_reset(backend *b, void *state)
{
    table_give((group_backend *)b, state, 0);
}

static void gb_jstate_free(backend *b, void *state)
{
    group_jstate *pt = state;
    table_give((group_backend *)b, pt, 0);
    free(pt->key);
    free(pt);
}

/* The row's group keys (k's first nkeys; text columns' fields follow) as
 * one byte string: per key, 0 for the missing key, or 1, the length (4
 * bytes) and the text. */
static int encode(group_jstate *pt, const row_keys *k, int nkeys, size_t row,
                  size_t *len)
{
    size_t need = 0;
    for (int i = 0; i < nkeys; i++) {
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
    for (int i = 0; i < nkeys; i++) {
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

/* The group of row i (packed: row) of c into ids[i]. */
static int row_group(group_jstate *pt, const row_batch *c, int nkeys, size_t i,
                     uint64_t row, uint32_t *ids)
{
    size_t len, id;
    if (encode(pt, c->keys, nkeys, i, &len))
        return -1;
    /* logs come sorted or in runs often: the row before's group first */
    if (pt->last && group_is(pt->t, pt->last - 1, pt->key, len))
        id = pt->last - 1;
    else if (group_find(pt->t, pt->key, len, group_hash(pt->key, len), &id))
        return -1;
    pt->last = id + 1;
    ids[i] = (uint32_t)id;
    pt->t->rows[id]++;
    if (row < pt->t->first[id])
        pt->t->first[id] = row;
    return 0;
}

/* Fields that did not enter, each into its row's group. */
static void add_bad(group_jstate *pt, const row_keys *k, const uint32_t *ids,
                    uint64_t first_row)
{
    for (size_t b = 0; b < k->nbad; b++) {
        const key_bad *x = &k->bad[b];
        int inv = x->kind == NUM_INVALID;
        group_add_counts(pt->t, ids[x->row], x->col, x->kind == NUM_MISSING,
                         inv, x->kind == NUM_NAN, inv ? first_row + x->row : 0);
    }
}

/* Each column's fields into their groups' profiles: a text column's from
 * the row batch's keys, a number column's values. */
static int profile_rows(const backend_params *p, group_table *t,
                        const row_batch *c, const uint32_t *ids)
{
    const row_keys *keys = c->keys;
    for (int k = 0; k < c->ncols; k++) {
        if (p->kind[k] != COL_TEXT) {
            if (group_profile_numbers(t, ids, k, c->col[k],
                                      c->has_corr[k] ? c->corr[k] : NULL,
                                      c->nrows))
                return -1;
            continue;
        }
        for (size_t r = 0; r < c->nrows; r++) {
            size_t at = r * (size_t)keys->nkeys + (size_t)p->text_key[k];
            uint32_t len = keys->len[at];
            const char *s =
                len == KEY_MISSING ? NULL : keys->text + keys->off[at];
            if (group_profile_text(t, ids[r], k, s,
                                   len == KEY_MISSING ? 0 : len))
                return -1;
        }
    }
    return 0;
}

/* The batch on the device (group_gpu.h): its groups found there, each
 * row's group and count here. *host: the device gave it back. */
static int device_batch(group_backend *g, group_jstate *pt, const row_batch *c,
                        uint64_t first, int where, uint32_t *ids, int *host,
                        cs_error *e)
{
    size_t ng;
    if (group_gpu_batch(pt->t, c, first, where, ids, host, &ng, e) != CS_OK)
        return e->status;
    int judged = c->nrows >= GROUP_PROBE_ROWS;
    int many = judged && ng > c->nrows / GROUP_DEVICE_SPARSE;
    /* given back with no groups: a batch the device does not take */
    int off = many || (*host && !ng);
    int m = DEVICE_PROBING;
    /* off is for good; on (or not yet judged) only from the probe */
    if (off)
        __atomic_store_n(&g->device, DEVICE_OFF, __ATOMIC_RELEASE);
    else
        __atomic_compare_exchange_n(&g->device, &m,
                                    judged ? DEVICE_ON : DEVICE_UNKNOWN, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    if (many && !__atomic_exchange_n(&g->sparse_noted, 1, __ATOMIC_ACQ_REL)) {
        g->sparse_groups = ng;
        g->sparse_rows = c->nrows;
    }
    pt->on_device += !*host;
    pt->on_host += *host;
    for (size_t i = 0; !*host && i < c->nrows; i++) {
        pt->t->rows[ids[i]]++;
        if (first + i < pt->t->first[ids[i]])
            pt->t->first[ids[i]] = first + i;
    }
    return CS_OK;
}

static int gb_batch_done(backend *b, job *j, const row_batch *c, cs_error *e)
{
    group_backend *g = (group_backend *)b;
    int where = g->p.group_device;
    group_jstate *pt = j->jstate;
    /* nothing for the device, or rows the host parsed while the device
       parses: no probe */
    if (!c->nrows || g->dev)
        where = GROUP_ON_HOST;
    if (where != GROUP_ON_HOST) {
        int m = DEVICE_UNKNOWN; /* the first batch probes the device */
        if (!__atomic_compare_exchange_n(&g->device, &m, DEVICE_PROBING, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
            m != DEVICE_ON) {
            where = GROUP_ON_HOST;
            pt->on_host++;
        }
    }
    if (j->rows + c->nrows > ROW_MASK || j->seq > UINT64_MAX >> ROW_BITS)
        return cs_fail(e, CS_EDATA, j->in->name, j->first_line,
                       "group-by: more than 2^32 rows in one piece of input");
    uint64_t first = j->seq << ROW_BITS | (j->rows + 1);
    if (!c->keys || c->keys->failed || (!pt->t && !(pt->t = table_take(g))))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for group keys");
    uint32_t *ids = malloc((c->nrows ? c->nrows : 1) * sizeof *ids);
    int bad = !ids, host = 1;
    if (!bad && where != GROUP_ON_HOST &&
        device_batch(g, pt, c, first, where, ids, &host, e) != CS_OK) {
        free(ids);
        return e->status;
    }
    for (size_t i = 0; !bad && host && i < c->nrows; i++)
        bad = row_group(pt, c, g->p.group_keys, i, first + i, ids);
    /* column by column: each column's values in one loop */
    for (int k = 0; !bad && host && k < c->ncols; k++)
        bad = group_add_column(pt->t, ids, k, c->col[k],
                               c->has_corr[k] ? c->corr[k] : NULL, c->nrows,
                               first);
    /* the offsets datetimes with zones were written in (the device's
       pieces carry none): the host's, wherever the values were reduced */
    for (int k = 0; !bad && k < c->ncols; k++)
        if (c->has_off[k])
            bad = group_add_offsets(pt->t, ids, k, c->col[k], c->off[k],
                                    c->nrows, first);
    if (!bad)
        add_bad(pt, c->keys, ids, first);
    if (!bad && g->p.kind)
        bad = profile_rows(&g->p, pt->t, c, ids);
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

/* Main thread, in input order: the job's first row, for finish; the
 * merged table against --memory. Jobs merge as they are done, so the job
 * that finds the table past --memory is the one being retired then; the
 * table only grows, so whether the run fails does not depend on it. */
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
    if (j->seq >= g->nfirst) {
        size_t n = g->nfirst ? 2 * g->nfirst : 64;
        while (n <= j->seq)
            n *= 2;
        uint64_t *p = realloc(g->first_row, n * sizeof *p);
        if (!p)
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        memset(p + g->nfirst, 0, (n - g->nfirst) * sizeof *p);
        g->first_row = p;
        g->nfirst = n;
    }
    g->first_row[j->seq] = first_row;
    if (!g->last_name || strcmp(g->last_name, j->in->name)) {
        free(g->last_name);
        if (!(g->last_name = strdup(j->in->name)))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    g->last_line = j->first_line;
    size_t bytes = 0, n = 0;
    for (int s = 0; s < g->nshards; s++) {
        pthread_mutex_lock(&g->shard[s].lock);
        bytes += group_table_bytes(&g->shard[s].t);
        n += g->shard[s].t.n;
        pthread_mutex_unlock(&g->shard[s].lock);
    }
    if (bytes > g->p.memory) {
        char mem[32];
        size_text(g->p.memory, mem, sizeof mem);
        return cs_fail(e, CS_EDATA, j->in->name, j->first_line,
                       "group-by: %zu groups and their values need more than "
                       "--memory %s; raise --memory",
                       n, mem);
    }
    return CS_OK;
}

/* A packed row (row_packed) as the row it is. */
static uint64_t unpack_row(void *ctx, uint64_t row)
{
    const group_backend *g = ctx;
    return g->first_row[row >> ROW_BITS] - 1 + (row & ROW_MASK);
}

/* One column's groups [lo, hi) of a direct table merged: a piece of
 * the whole column's statistics. */
typedef struct total_piece {
    size_t k, lo, hi;
    col_part p;
    group_sum s;
    int bad;
} total_piece;

/* The pieces, taken in turn by the threads that merge them. */
typedef struct total_job {
    const group_table *t;
    total_piece *q;
    size_t n, next;
} total_job;

static void *total_main(void *arg)
{
    total_job *j = arg;
    size_t nc = (size_t)j->t->ncols, i;
    while ((i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->n) {
        total_piece *q = &j->q[i];
        for (size_t id = q->lo; id < q->hi && !q->bad; id++) {
            stats_part_merge(&q->p, &j->t->part[id * nc + q->k], 0);
            q->bad = group_sum_merge(&q->s, &j->t->sum[id * nc + q->k]);
        }
    }
    return NULL;
}

/* Groups a piece of the totals takes at least: fewer are merged on one
 * thread. */
#define TOTAL_PIECE_MIN 65536
#define TOTAL_THREADS_MAX 64

/* The whole columns' statistics of a direct table (no col_stats yet):
 * the same values as merging every group's col_stats, for a fraction of
 * the work; a million groups' in pieces (column by column, range by
 * range) on the run's threads: the merges are exact, so any order gives
 * the same. -1: no memory. */
static int direct_totals(const group_table *t, int threads, col_stats *out)
{
    size_t nc = (size_t)t->ncols, per = 1;
    while ((per + 1) * nc <= (size_t)threads &&
           t->n / (per + 1) >= TOTAL_PIECE_MIN)
        per++;
    total_job j = {t, calloc(nc * per + 1, sizeof *j.q), nc * per, 0};
    if (!j.q)
        return -1;
    for (size_t i = 0; i < j.n; i++) {
        size_t r = i % per;
        j.q[i].k = i / per;
        j.q[i].lo = t->n / per * r;
        j.q[i].hi = r + 1 == per ? t->n : t->n / per * (r + 1);
        stats_part_init(&j.q[i].p);
        group_sum_init(&j.q[i].s);
    }
    size_t want = t->n >= TOTAL_PIECE_MIN ? (size_t)threads : 1, started = 0;
    want = want < j.n ? want : j.n;
    want = want < TOTAL_THREADS_MAX ? want : TOTAL_THREADS_MAX;
    pthread_t th[TOTAL_THREADS_MAX];
    while (started + 1 < want &&
           pthread_create(&th[started], NULL, total_main, &j) == 0)
        started++;
    total_main(&j); /* and this thread */
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    int bad = 0;
    for (size_t i = 0; i < j.n; i++) {
        stats_merge_part(&out[j.q[i].k], &j.q[i].p, 0);
        bad |= j.q[i].bad || group_sum_add_to(&j.q[i].s, &out[j.q[i].k].sum);
        group_sum_free(&j.q[i].s);
    }
    free(j.q);
    return bad ? -1 : 0;
}

/* Every group's col_stats merged into the whole columns'. -1: no memory. */
static int group_totals(const group_table *t, col_stats *out)
{
    for (size_t id = 0; id < t->n; id++)
        for (int k = 0; k < t->ncols; k++)
            if (stats_merge(&out[k], &t->st[id * (size_t)t->ncols + (size_t)k],
                            0))
                return -1;
    return 0;
}

/* The shards' groups moved into the run's table, the largest first (it
 * becomes the table), each shard freed once moved: their keys are apart.
 * -1: no memory. */
static int merge_shards(group_backend *g)
{
    int big = 0;
    for (int s = 1; s < g->nshards; s++)
        if (g->shard[s].t.n > g->shard[big].t.n)
            big = s;
    g->merged = g->shard[big].t;
    memset(&g->shard[big].t, 0, sizeof g->shard[big].t);
    int bad = 0;
    while (g->nshards > 0) {
        group_shard *s = &g->shard[--g->nshards];
        if (!bad && s->t.n)
            bad = group_table_adopt(&g->merged, &s->t);
        group_table_free(&s->t);
        pthread_mutex_destroy(&s->lock);
    }
    return bad ? -1 : 0;
}

/* The run's table against --memory, once its groups are all in it. */
static int within_memory(group_backend *g, cs_error *e)
{
    if (group_table_bytes(&g->merged) <= g->p.memory)
        return CS_OK;
    char mem[32];
    size_text(g->p.memory, mem, sizeof mem);
    return cs_fail(e, CS_EDATA, g->last_name ? g->last_name : "", g->last_line,
                   "group-by: %zu groups and their values need more than "
                   "--memory %s; raise --memory",
                   g->merged.n, mem);
}

/* The shards and the tables that kept their groups (GROUP_KEEP_TABLE)
 * into the run's, then the whole against --memory. */
static int merge_kept(group_backend *g, cs_error *e)
{
    if (merge_shards(g))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    for (size_t i = 0; i < g->npool; i++) {
        if (group_merge(&g->merged, g->pool[i], 0))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
        group_table_clear(g->pool[i]);
    }
    return within_memory(g, e);
}

/* The groups the device made (their rows numbered as the input's) into
 * the run's: the host's rows first numbered so too. */
static int merge_device(group_backend *g, cs_error *e)
{
    group_table *t = &g->merged;
    if (!group_dev_used(g->dev))
        return CS_OK;
    if (t->n)
        group_table_map_rows(t, unpack_row, g);
    for (size_t i = 0; i < t->n; i++)
        if (t->first[i] != UINT64_MAX)
            t->first[i] = unpack_row(g, t->first[i]);
    if (group_dev_merge(g->dev, t, e) != CS_OK)
        return e->status;
    return within_memory(g, e);
}

/* The whole columns' statistics: every group's merged. */
static int gb_finish(backend *b, col_stats *out, hist *h, cs_error *e)
{
    group_backend *g = (group_backend *)b;
    group_table *t = &g->merged;
    (void)h;
    if (merge_kept(g, e) != CS_OK || merge_device(g, e) != CS_OK)
        return e->status;
    int direct = t->direct && !t->st;
    /* lazy: each group's col_stats are made as the report writes it, and
       the groups, sorted by key for it, need no order before */
    int lazy = direct && g->p.group_lazy;
    /* the groups as one thread would have made them: a state lists
       them in this order */
    if (!lazy && group_table_by_first(t))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (t->n && !group_dev_used(g->dev)) /* else merge_device did */
        group_table_map_rows(t, unpack_row, g);
    if ((direct && direct_totals(t, g->p.nthreads, out)) ||
        (!lazy && group_flush(t)) || (!direct && group_totals(t, out)))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    g->groups = t->n; /* the engine moves the table out after this */
    g->bytes = group_table_bytes(t);
    g->values = t->values;
    if (!lazy)
        group_drop_parts(t);
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
                    "host (more groups than the device's table, sums past "
                    "its exact range, while the first probed the device, "
                    "or after a batch of many groups)",
                    g->on_device, g->on_host);
    group_dev_describe(g->dev, acc);
    if (g->sparse_rows)
        account_say(acc,
                    "groups  a batch of %zu rows held %zu groups (more than "
                    "1 in %d): the host reduced the batches after it, "
                    "where the device would only add to its work",
                    g->sparse_rows, g->sparse_groups, GROUP_DEVICE_SPARSE);
}

static void gb_close(backend *b)
{
    group_backend *g = (group_backend *)b;
    group_dev_close(g->dev);
    group_table_free(&g->merged);
    for (int s = 0; s < g->nshards; s++) {
        group_table_free(&g->shard[s].t);
        pthread_mutex_destroy(&g->shard[s].lock);
    }
    for (size_t i = 0; i < g->npool; i++) {
        group_table_free(g->pool[i]);
        free(g->pool[i]);
    }
    free(g->pool);
    free(g->first_row);
    free(g->last_name);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* Shard of a key's hash: bits above those a shard's slots use, below
 * the tag its slots keep (group_table.c). */
static int shard_of(const group_backend *g, uint64_t hash)
{
    return (int)(hash >> 26) & (g->nshards - 1);
}

/* Each shard's groups of t merged into it under its lock: shards free now
 * first, then the rest as their locks come. -1: no memory. */
static int merge_sharded(group_backend *g, const group_table *t)
{
    size_t at[GROUP_SHARDS_MAX + 1] = {0}, n = t->n;
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return -1;
    for (size_t i = 0; i < n; i++)
        at[shard_of(g, t->hash[i]) + 1]++;
    for (int s = 0; s < g->nshards; s++)
        at[s + 1] += at[s];
    size_t fill[GROUP_SHARDS_MAX];
    memcpy(fill, at, sizeof fill);
    for (size_t i = 0; i < n; i++)
        ids[fill[shard_of(g, t->hash[i])]++] = (uint32_t)i;
    unsigned char done[GROUP_SHARDS_MAX] = {0};
    int bad = 0;
    for (int wait = 0; wait < 2 && !bad; wait++)
        for (int s = 0; s < g->nshards && !bad; s++) {
            if (done[s] || at[s] == at[s + 1])
                continue;
            pthread_mutex_t *lock = &g->shard[s].lock;
            if (wait ? pthread_mutex_lock(lock) : pthread_mutex_trylock(lock))
                continue;
            bad = group_merge_ids(&g->shard[s].t, t, ids + at[s],
                                  at[s + 1] - at[s], 0);
            pthread_mutex_unlock(lock);
            done[s] = 1;
        }
    free(ids);
    return bad ? -1 : 0;
}

/* Worker thread: the job's waiting values into its groups' statistics,
 * its groups into the run's, its table back to the pool. */
static int gb_job_done(backend *b, job *j, cs_error *e)
{
    group_backend *g = (group_backend *)b;
    group_jstate *pt = j->jstate;
    int keep = 0;
    if (e->status == CS_OK && pt->t) {
        /* a direct table's sums merge as they are, cheaper than flushed */
        int bad = !pt->t->direct && group_flush(pt->t);
        keep = !bad && group_table_bytes(pt->t) <= GROUP_KEEP_TABLE;
        if (!bad && !keep)
            bad = merge_sharded(g, pt->t);
        if (bad)
            cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    }
    table_give(g, pt, keep);
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

/* --- plain CSV parsed and grouped on the device: group_dev.h --------- */

static group_dev *dev_of(backend *b)
{
    return ((group_backend *)b)->dev;
}

static int gd_wants(backend *b, int binary, int seekable, int whitespace,
                    const unsigned char *kinds, int ncols)
{
    (void)b;
    (void)seekable;
    return group_dev_wants(binary, whitespace, kinds, ncols);
}

static size_t gd_slot_bytes(backend *b)
{
    return group_dev_slot_bytes(dev_of(b));
}

static int gd_begin(backend *b, const bytes_format *f, uint64_t first_row,
                    uint64_t first_line, cs_error *e)
{
    return group_dev_begin(dev_of(b), f, first_row, first_line, e);
}

static int gd_submit(backend *b, const void *bytes, size_t n, cs_error *e)
{
    return group_dev_submit(dev_of(b), bytes, n, e);
}

static int gd_copied(backend *b, const void *bytes, int *stopped, cs_error *e)
{
    return group_dev_copied(dev_of(b), bytes, stopped, e);
}

static int gd_wait(backend *b, const void *bytes, int *stopped, cs_error *e)
{
    return group_dev_wait(dev_of(b), bytes, stopped, e);
}

static int gd_end(backend *b, bytes_result *r, char *tail, size_t *tail_len,
                  cs_error *e)
{
    return group_dev_end(dev_of(b), r, tail, tail_len, e);
}

static const backend_bytes_ops group_dev_ops = {
    gd_wants, gd_slot_bytes, gd_begin, gd_submit, gd_copied, gd_wait, gd_end,
};

int group_backend_keeps(const backend_params *p)
{
    return (p->what & (STAT_MEDIAN | STAT_QUANTILES | STAT_HIST)) != 0;
}

/* Two shards a thread (a power of two; one for one thread). -1: no
 * memory (those made stay for gb_close). */
static int open_shards(group_backend *g)
{
    int want = g->p.nthreads > 1 ? 2 * g->p.nthreads : 1;
    int n = 1;
    while (n < want && n < GROUP_SHARDS_MAX)
        n *= 2;
    for (g->nshards = 0; g->nshards < n; g->nshards++) {
        group_shard *s = &g->shard[g->nshards];
        if (pthread_mutex_init(&s->lock, NULL))
            return -1;
        if (table_setup(&g->p, &s->t)) {
            pthread_mutex_destroy(&s->lock);
            return -1;
        }
    }
    return 0;
}

int backend_group_open(const backend_params *p, backend **out, cs_error *e)
{
    group_backend *g = calloc(1, sizeof *g);
    *out = NULL;
    if (!g)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    g->p = *p;
    if (pthread_mutex_init(&g->lock, NULL)) {
        free(g);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    if (open_shards(g)) {
        gb_close(&g->base);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    g->base = (backend){
        &group_ops,       NULL, "cpu", GROUP_BLOCK,
        GROUP_CHUNK_ROWS, 0,    NULL,  (size_t)p->ncols * sizeof(col_stats)};
    if (p->group_device == GROUP_ON_DEVICE) {
        g->base.block_bytes = GROUP_DEVICE_BLOCK;
        g->base.batch_rows = GROUP_DEVICE_ROWS;
    }
    /* plain CSV: the device parses and groups it (group_dev.h); where it
       does not open, the host parses all */
    cs_error why = {0};
    if (p->group_device == GROUP_ON_DEVICE && !p->hooks->host_parse &&
        group_dev_open(p, &g->dev, &why) != CS_OK) {
        if (!p->group_auto) { /* --device gpu: no device is an error */
            gb_close(&g->base);
            *e = why;
            return e->status;
        }
        account_say(p->acc,
                    "groups  the device did not open (%s): the host "
                    "groups all",
                    why.msg);
        g->p.group_device = GROUP_ON_HOST;
    }
    /* what the device does not parse the host does: its own way (the
       device's batches only add work to the host's parse, bench/RESULTS.md) */
    if (g->dev) {
        g->base.bytes = &group_dev_ops;
        g->base.alloc = group_dev_alloc(g->dev);
        g->base.name = "gpu";
        g->base.block_bytes = GROUP_BLOCK;
        g->base.batch_rows = GROUP_CHUNK_ROWS;
    }
    *out = &g->base;
    return CS_OK;
}

group_table *backend_group_table(backend *b)
{
    return &((group_backend *)b)->merged;
}
