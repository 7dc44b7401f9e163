#include "src/engine/group_gpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "io/base/row_keys.h"
#include "src/stats/group_core.h"

/* Sorted rows per reducing step, as gpu/group_rows.cu's CHUNK. */
#define STEP_ROWS 1024

int group_gpu_can(unsigned what)
{
    return !(what & (STAT_STD | STAT_MEDIAN | STAT_QUANTILES | STAT_HIST));
}

/* The batch's rows' keys in group_core.h's encoding, one after another. */
typedef struct batch_keys {
    char *bytes;
    size_t *off;
    uint32_t *len;
    size_t used;
} batch_keys;

static void keys_free(batch_keys *k)
{
    free(k->bytes);
    free(k->off);
    free(k->len);
}

static int keys_make(batch_keys *k, const row_keys *rk, size_t n)
{
    size_t need = 0, nk = (size_t)rk->nkeys;
    for (size_t i = 0; i < n * nk; i++)
        need += gc_key_part_size(rk->len[i], rk->len[i] == KEY_MISSING);
    k->bytes = malloc(need ? need : 1);
    k->off = malloc((n ? n : 1) * sizeof *k->off);
    k->len = malloc((n ? n : 1) * sizeof *k->len);
    if (!k->bytes || !k->off || !k->len || need > UINT32_MAX)
        return -1;
    k->used = 0;
    for (size_t i = 0; i < n; i++) {
        k->off[i] = k->used;
        for (size_t c = 0; c < nk; c++) {
            uint32_t l = rk->len[i * nk + c];
            int missing = l == KEY_MISSING;
            k->used +=
                gc_key_part(k->bytes + k->used,
                            missing ? NULL : rk->text + rk->off[i * nk + c],
                            missing ? 0 : l, missing);
        }
        k->len[i] = (uint32_t)(k->used - k->off[i]);
    }
    return 0;
}

/* ---- the device's steps on the host (GROUP_ON_HOST_STEPS): the same
 * table, stable sort by group and chunked reduction as group_rows.cu, so
 * that the merge below is tested where there is no device ---- */

typedef struct host_steps {
    gc_table t;
    uint32_t ngroups, full;
    uint64_t used;
    uint32_t *ids, *sorted;
} host_steps;

static void steps_free(host_steps *h)
{
    free(h->t.slot);
    free(h->t.key_off);
    free(h->t.key_len);
    free(h->t.first_row);
    free(h->ids);
    free(h->sorted);
}

static int steps_table(host_steps *h, const gpu_group_in *in)
{
    uint32_t slots = 2;
    while (slots < 2 * (uint64_t)in->max_groups)
        slots *= 2;
    memset(h, 0, sizeof *h);
    h->t.slot = calloc(slots, sizeof *h->t.slot);
    h->t.mask = slots - 1;
    h->t.max_groups = in->max_groups;
    h->t.ngroups = &h->ngroups;
    h->t.key_off = malloc(in->max_groups * sizeof *h->t.key_off);
    h->t.key_len = malloc(in->max_groups * sizeof *h->t.key_len);
    h->t.first_row = malloc(in->max_groups * sizeof *h->t.first_row);
    h->t.arena_room = in->arena_bytes;
    h->t.arena_used = &h->used;
    h->t.full = &h->full;
    h->ids = malloc((in->n ? in->n : 1) * sizeof *h->ids);
    h->sorted = malloc((in->n ? in->n : 1) * sizeof *h->sorted);
    return h->t.slot && h->t.key_off && h->t.key_len && h->t.first_row &&
                   h->ids && h->sorted
               ? 0
               : -1;
}

/* Rows [a, b) of the sorted order, one group's, into cell at. */
static int steps_run(const gpu_group_in *in, const uint32_t *sorted, size_t a,
                     size_t b, gpu_group_out *o, size_t at)
{
    int bad = 0;
    for (int k = 0; k < in->ncols; k++) {
        col_part *p = &o->part[at * (size_t)in->ncols + (size_t)k];
        group_sum *s = &o->sum[at * (size_t)in->ncols + (size_t)k];
        const int32_t *c = in->corr ? in->corr[k] : NULL;
        for (size_t i = a; i < b; i++) {
            double x = in->col[k][sorted[i]];
            if (isnan(x))
                continue;
            gc_part_add(p, x, c ? c[sorted[i]] : 0, in->first_row + sorted[i]);
            bad |= gc_sum_add(s, x);
        }
    }
    return bad;
}

static void steps_reduce(const gpu_group_in *in, host_steps *h,
                         gpu_group_out *o, size_t nchunks)
{
    const uint32_t *srt = h->sorted, *ids = o->row_group;
    size_t n = in->n;
    for (size_t ch = 0; ch < nchunks; ch++) {
        size_t lo = ch * STEP_ROWS,
               hi = lo + STEP_ROWS < n ? lo + STEP_ROWS : n;
        for (size_t a = lo; a < hi;) {
            uint32_t g = ids[srt[a]];
            size_t b = a + 1;
            while (b < hi && ids[srt[b]] == g)
                b++;
            size_t at = g;
            if ((a == lo && a > 0 && ids[srt[a - 1]] == g) ||
                (b == hi && b < n && ids[srt[b]] == g)) {
                at = o->ngroups + 2 * ch + (a == lo ? 0 : 1);
                o->piece_group[at] = g;
            }
            o->inexact |= steps_run(in, srt, a, b, o, at);
            a = b;
        }
    }
}

/* The stable counting sort by group and the reduction. */
static int steps_sort_reduce(const gpu_group_in *in, host_steps *h,
                             gpu_group_out *o)
{
    size_t ng = o->ngroups, nchunks = (in->n + STEP_ROWS - 1) / STEP_ROWS;
    size_t *start = calloc(ng + 1, sizeof *start);
    o->npieces = ng + 2 * nchunks;
    size_t cells = o->npieces * (size_t)in->ncols;
    o->piece_group = malloc((o->npieces ? o->npieces : 1) * sizeof(uint32_t));
    o->part = malloc((cells ? cells : 1) * sizeof *o->part);
    o->sum = malloc((cells ? cells : 1) * sizeof *o->sum);
    if (!start || !o->piece_group || !o->part || !o->sum) {
        free(start);
        return -1;
    }
    const uint32_t *ids = o->row_group;
    for (size_t i = 0; i < in->n; i++)
        start[ids[i] + 1]++;
    for (size_t g = 0; g < ng; g++)
        start[g + 1] += start[g];
    for (size_t i = 0; i < in->n; i++)
        h->sorted[start[ids[i]]++] = (uint32_t)i;
    free(start);
    for (size_t p = 0; p < o->npieces; p++)
        o->piece_group[p] = p < ng ? (uint32_t)p : UINT32_MAX;
    for (size_t i = 0; i < cells; i++) {
        gc_part_init(&o->part[i]);
        gc_sum_init(&o->sum[i]);
    }
    steps_reduce(in, h, o, nchunks);
    return 0;
}

static void steps_out_free(gpu_group_out *o)
{
    free(o->arena);
    free(o->key_off);
    free(o->key_len);
    free(o->row_group);
    free(o->piece_group);
    free(o->part);
    free(o->sum);
    memset(o, 0, sizeof *o);
}

static int host_steps_run(const gpu_group_in *in, gpu_group_out *o)
{
    host_steps h;
    memset(o, 0, sizeof *o);
    o->arena = malloc(in->arena_bytes ? in->arena_bytes : 1);
    int rc = steps_table(&h, in);
    h.t.arena = o->arena;
    for (size_t i = 0; rc == 0 && !h.full && i < in->n; i++) {
        const char *k = in->keys + in->key_off[i];
        gc_find(&h.t, k, in->key_len[i], gc_hash(k, in->key_len[i]),
                in->first_row + i, &h.ids[i]);
    }
    if (rc == 0 && !o->arena)
        rc = -1;
    o->full = h.full != 0;
    if (rc == 0 && !o->full) {
        o->ngroups = h.ngroups;
        o->key_off = h.t.key_off;
        o->key_len = h.t.key_len;
        o->row_group = h.ids;
        h.t.key_off = NULL;
        h.t.key_len = NULL;
        h.ids = NULL;
        rc = steps_sort_reduce(in, &h, o);
    }
    steps_free(&h);
    return rc;
}

/* ---- the merge ---- */

/* Every piece into its group of t; ids[i], row i's group of t. */
static int merge_pieces(group_table *t, const gpu_group_out *o, size_t n,
                        uint32_t *ids)
{
    size_t nc = (size_t)t->ncols;
    size_t *host = malloc((o->ngroups ? o->ngroups : 1) * sizeof *host);
    if (!host)
        return -1;
    int bad = 0;
    for (uint32_t g = 0; !bad && g < o->ngroups; g++) {
        const char *k = o->arena + o->key_off[g];
        bad = group_find(t, k, o->key_len[g], group_hash(k, o->key_len[g]),
                         &host[g]);
    }
    for (size_t i = 0; !bad && i < n; i++)
        ids[i] = (uint32_t)host[o->row_group[i]];
    for (size_t p = 0; !bad && p < o->npieces; p++) {
        if (o->piece_group[p] == UINT32_MAX)
            continue;
        size_t at = host[o->piece_group[p]] * nc;
        for (size_t k = 0; !bad && k < nc; k++) {
            stats_part_merge(&t->part[at + k], &o->part[p * nc + k], 0);
            bad = group_sum_merge(&t->sum[at + k], &o->sum[p * nc + k]);
        }
    }
    free(host);
    return bad;
}

int group_gpu_batch(group_table *t, const row_batch *c, uint64_t first_row,
                    int where, uint32_t *ids, int *host, size_t *ngroups,
                    cs_error *e)
{
    batch_keys k = {0};
    *ngroups = 0;
    *host = c->ncols < 1 || c->ncols > 64; /* what the device call takes */
    if (c->nrows == 0 || *host)
        return CS_OK;
    if (keys_make(&k, c->keys, c->nrows)) {
        keys_free(&k);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for group keys");
    }
    const double *cols[64];
    const int32_t *corrs[64];
    for (int j = 0; j < c->ncols; j++) {
        cols[j] = c->col[j];
        corrs[j] = c->has_corr[j] ? c->corr[j] : NULL;
    }
    gpu_group_in in = {c->nrows, k.bytes, k.used, k.off,     k.len,
                       c->ncols, cols,    corrs,  first_row, (uint32_t)c->nrows,
                       k.used};
    gpu_group_out o;
    int rc;
    if (where == GROUP_ON_DEVICE)
        rc = gpu_group_rows(&in, &o, e);
    else if (host_steps_run(&in, &o))
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    else
        rc = CS_OK;
    keys_free(&k);
    if (rc == CS_OK)
        *ngroups = o.ngroups;
    if (rc == CS_OK && (o.full || o.inexact))
        *host = 1;
    else if (rc == CS_OK && merge_pieces(t, &o, c->nrows, ids))
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    if (where == GROUP_ON_DEVICE)
        gpu_group_out_free(&o);
    else
        steps_out_free(&o);
    return rc;
}
