#include "src/engine/group_dev.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "io/num/parse_kind.h"
#include "src/engine/gpu_pack.h"

struct group_dev {
    gpu_backend *dev;
    int ncols;
    gpu_raw_result raw; /* per column arrays, reused by every input */
    size_t inputs, stopped;
    uint64_t rows, groups;
    double t_merge; /* the groups taken and merged into the host's */
    /* the quantiles each group selects; pick: the device may select them
       (no state carries the groups' values) */
    const qfrac *q;
    size_t nq;
    int pick;
    size_t picked;   /* columns whose quantiles the device selected */
    int host_sort;   /* the values' sort did not fit the device */
    char reason[96]; /* the first stop's */
};

int group_dev_open(const backend_params *p, group_dev **out, cs_error *e)
{
    const engine_hooks *h = p->hooks;
    gpu_config cfg = {.ncols = p->ncols,
                      .what = p->what,
                      .raw_bytes = h->gpu_raw_bytes,
                      .sort_bytes = h->gpu_sort_bytes,
                      .keep_set = h->gpu_keep_set,
                      .keep_bytes = h->gpu_keep_bytes,
                      .memory = p->memory,
                      .tmpdir = p->tmpdir,
                      .sharers = p->gpu_sharers};
    size_t n = (size_t)(p->ncols ? p->ncols : 1);
    group_dev *d = calloc(1, sizeof *d);
    *out = NULL;
    if (!d)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    d->ncols = p->ncols;
    d->q = p->q;
    d->nq = p->nq;
    d->pick = p->group_lazy;
    gpu_raw_result *r = &d->raw;
    r->missing = calloc(n, sizeof *r->missing);
    r->invalid = calloc(n, sizeof *r->invalid);
    r->nan = calloc(n, sizeof *r->nan);
    r->first_invalid_line = calloc(n, sizeof *r->first_invalid_line);
    r->first_invalid_text = calloc(n, GPU_FIELD_BYTES);
    r->first_invalid_len = calloc(n, sizeof *r->first_invalid_len);
    if (!r->missing || !r->invalid || !r->nan || !r->first_invalid_line ||
        !r->first_invalid_text || !r->first_invalid_len) {
        group_dev_close(d);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    if (gpu_open(&cfg, &d->dev, e) != CS_OK) {
        group_dev_close(d);
        return e->status;
    }
    *out = d;
    return CS_OK;
}

const row_batch_alloc *group_dev_alloc(group_dev *d)
{
    return gpu_row_batch_alloc(d->dev);
}

int group_dev_used(const group_dev *d)
{
    return d && d->inputs > 0;
}

int group_dev_can(unsigned what)
{
    return !(what & (STAT_STD | STAT_HIST));
}

/* A plain CSV whose columns the device reads as the host does: no
 * datetime with zones (the offsets of its extremes are the host's). */
int group_dev_wants(int binary, int whitespace, const unsigned char *kinds,
                    int ncols)
{
    for (int k = 0; kinds && k < ncols; k++)
        if (kinds[k] == KIND_DATETIME_Z)
            return 0;
    return !binary && !whitespace;
}

size_t group_dev_slot_bytes(group_dev *d)
{
    return gpu_raw_segment_bytes(d->dev);
}

int group_dev_begin(group_dev *d, const bytes_format *f, uint64_t first_row,
                    uint64_t first_line, cs_error *e)
{
    gpu_raw_format fmt = gpu_pack_format(f);
    d->inputs++;
    return gpu_raw_begin(d->dev, &fmt, first_row, first_line, e);
}

int group_dev_submit(group_dev *d, const void *bytes, size_t n, cs_error *e)
{
    return gpu_raw_submit(d->dev, bytes, n, e);
}

int group_dev_copied(group_dev *d, const void *bytes, int *stopped, cs_error *e)
{
    return gpu_raw_copied(d->dev, bytes, stopped, e);
}

int group_dev_wait(group_dev *d, const void *bytes, int *stopped, cs_error *e)
{
    return gpu_raw_wait(d->dev, bytes, stopped, e);
}

/* The groups count the fields that did not enter: the device's counts
 * per column serve the notes only (where the first invalid field is). */
int group_dev_end(group_dev *d, bytes_result *r, char *tail, size_t *tail_len,
                  cs_error *e)
{
    gpu_raw_result *x = &d->raw;
    size_t n = (size_t)d->ncols;
    memcpy(x->first_invalid_line, r->first_invalid_line,
           n * sizeof *x->first_invalid_line);
    if (gpu_raw_end(d->dev, x, tail, tail_len, e) != CS_OK)
        return e->status;
    gpu_pack_result(x, d->ncols, r);
    d->rows += x->rows;
    if (x->stopped && !d->stopped++)
        memcpy(d->reason, x->reason, sizeof d->reason);
    return CS_OK;
}

/* Group g's cells into id's of a table that keeps col_stats (values
 * kept: no parts). */
static int merge_stats(group_table *t, const gpu_group_out *o, uint32_t g,
                       size_t id)
{
    size_t nc = (size_t)t->ncols;
    for (size_t c = 0; c < nc; c++) {
        col_stats *s = &t->st[id * nc + c];
        stats_merge_part(s, &o->part[(size_t)g * nc + c], 0);
        if (group_sum_add_to(&o->sum[(size_t)g * nc + c], &s->sum))
            return -1;
    }
    return 0;
}

/* Group g of o into t: found (or made) by its key (*id), its cells
 * merged. */
static int merge_group(group_table *t, const gpu_group_out *o, uint32_t g,
                       size_t *id)
{
    const char *k = o->arena + o->key_off[g];
    size_t nc = (size_t)t->ncols, had = t->n;
    if (group_find(t, k, o->key_len[g], group_hash(k, o->key_len[g]), id))
        return -1;
    t->rows[*id] += o->rows[g];
    if (o->first_row[g] < t->first[*id])
        t->first[*id] = o->first_row[g];
    if (!t->direct)
        return merge_stats(t, o, g, *id);
    if (*id == had) { /* new here: its cells are the device's (no csum) */
        memcpy(&t->part[*id * nc], &o->part[(size_t)g * nc],
               nc * sizeof *t->part);
        memcpy(&t->sum[*id * nc], &o->sum[(size_t)g * nc], nc * sizeof *t->sum);
        return 0;
    }
    for (size_t c = 0; c < nc; c++) {
        stats_part_merge(&t->part[*id * nc + c], &o->part[(size_t)g * nc + c],
                         0);
        if (group_sum_merge(&t->sum[*id * nc + c], &o->sum[(size_t)g * nc + c]))
            return -1;
    }
    return 0;
}

/* The n values of o's groups (ids: theirs in t), column by column,
 * each group's sorted where the device sorts them: the host's selection
 * then finds them in order. */
static int take_values(group_dev *d, group_table *t, const gpu_group_out *o,
                       const size_t *ids, size_t n, cs_error *e)
{
    size_t nc = (size_t)t->ncols;
    if (group_flush(t)) /* the host's waiting values: none wait after */
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    double *v = malloc((n ? n : 1) * sizeof *v);
    int32_t *r = malloc((n ? n : 1) * sizeof *r);
    int bad = !v || !r;
    for (size_t k = 0; !bad && k < nc; k++) {
        if (gpu_raw_group_values(d->dev, (int)k, v, r, n, e) != CS_OK) {
            free(v);
            free(r);
            return e->status;
        }
        size_t at = 0;
        for (uint32_t g = 0; !bad && g < o->ngroups; g++) {
            uint64_t m = o->part[(size_t)g * nc + k].count;
            bad = m > o->rows[g] ||
                  group_vals_append(t, ids[g], (int)k, v + at, r + at, m);
            at += o->rows[g];
        }
    }
    free(v);
    free(r);
    return bad ? cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups")
               : CS_OK;
}

/* Column k's order statistics' places in the device's layout (group
 * after group, each's sorted values), two per group and quantile: the
 * k-th and the (k+1)-th of type 7 (Hyndman and Fan, 1996). */
static void pick_places(const group_dev *d, const gpu_group_out *o, size_t k,
                        uint64_t *pos)
{
    size_t nc = (size_t)d->ncols, at = 0;
    uint64_t start = 0;
    for (uint32_t g = 0; g < o->ngroups; g++) {
        uint64_t m = o->part[(size_t)g * nc + k].count;
        for (size_t i = 0; i < d->nq; i++, at += 2) {
            qrank rk = m ? qlist_rank(d->q[i], m) : (qrank){1, 0, 1};
            pos[at] = start + rk.k - 1;
            pos[at + 1] = start + (rk.fnum ? rk.k : rk.k - 1);
        }
        start += o->rows[g];
    }
}

/* Each group's quantiles selected by the device from its sorted values
 * (t holds o's groups alone, ids[g] == g): a few values a group come
 * back, not every one. */
static int pick_quantiles(group_dev *d, group_table *t, const gpu_group_out *o,
                          size_t n, cs_error *e)
{
    size_t nc = (size_t)t->ncols, np = (size_t)o->ngroups * d->nq * 2;
    uint64_t *pos = malloc((np ? np : 1) * sizeof *pos);
    double *v = malloc((np ? np : 1) * sizeof *v);
    int32_t *r = malloc((np ? np : 1) * sizeof *r);
    int rc = pos && v && r && !group_table_quantiles(t, d->nq)
                 ? CS_OK
                 : cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups");
    for (size_t k = 0; rc == CS_OK && k < nc; k++) {
        pick_places(d, o, k, pos);
        rc = gpu_raw_group_pick(d->dev, (int)k, n, pos, np, v, r, e);
        for (uint32_t g = 0; rc == CS_OK && g < o->ngroups; g++) {
            const col_stats *s = &t->st[(size_t)g * nc + k];
            if (!s->count) /* no value: its quantiles stay null (zeroed) */
                continue;
            int with_r = stats_needs_corr(s);
            qres *out = &t->q[((size_t)g * nc + k) * d->nq];
            for (size_t i = 0; i < d->nq; i++) {
                size_t at = ((size_t)g * d->nq + i) * 2;
                qrank rk = qlist_rank(d->q[i], s->count);
                qnum a = {v[at], with_r ? r[at] : 0};
                qnum b = {v[at + 1], with_r ? r[at + 1] : 0};
                qvalue_interpolate(a, b, rk.fnum, rk.fden, &out[i]);
            }
        }
    }
    d->picked = rc == CS_OK ? nc : 0;
    free(pos);
    free(v);
    free(r);
    return rc;
}

/* The rows the device kept values of: its groups'. */
static size_t kept_rows(const gpu_group_out *o)
{
    size_t n = 0;
    for (uint32_t g = 0; g < o->ngroups; g++)
        n += o->rows[g];
    return n;
}

/* o's groups become an empty direct table's, their cells not copied
 * (a million groups' are 1.8 GB): 0, or -1 where t takes them not. */
static int take_all(group_table *t, gpu_group_out *o)
{
    size_t bytes = 0;
    for (uint32_t g = 0; g < o->ngroups; g++)
        if (o->key_off[g] + o->key_len[g] > bytes)
            bytes = (size_t)(o->key_off[g] + o->key_len[g]);
    group_taken g = {o->arena, bytes,        o->key_off, o->key_len,
                     o->rows,  o->first_row, o->part,    o->sum};
    if (group_table_take(t, o->ngroups, &g))
        return -1;
    o->arena = NULL; /* the table's now */
    o->part = NULL;
    o->sum = NULL;
    return 0;
}

int group_dev_merge(group_dev *d, group_table *t, cs_error *e)
{
    gpu_group_out o;
    if (!group_dev_used(d))
        return CS_OK;
    double t0 = account_now();
    if (gpu_raw_groups(d->dev, &o, e) != CS_OK)
        return e->status;
    size_t keys = 0;
    for (uint32_t g = 0; g < o.ngroups; g++)
        keys += o.key_len[g];
    /* the device alone made the groups: it selects their quantiles, or
       its cells become the table's */
    int alone = t->n == 0 && t->values == 0;
    if (alone && o.ngroups && !t->keep && take_all(t, &o) == 0) {
        d->groups = o.ngroups;
        gpu_group_out_free(&o);
        d->t_merge = account_now() - t0;
        return CS_OK;
    }
    /* with values kept: whether the device sorts them (else the host
       orders them, and -v says so) */
    size_t n = t->keep ? kept_rows(&o) : 0;
    int sorted = 0;
    if (n && gpu_raw_group_sorted(d->dev, n, &sorted, e) != CS_OK) {
        gpu_group_out_free(&o);
        return e->status;
    }
    d->host_sort = n && !sorted;
    alone = alone && d->pick && d->nq && sorted;
    size_t *ids = malloc((o.ngroups ? o.ngroups : 1) * sizeof *ids);
    int bad = !ids || group_table_reserve(t, o.ngroups, keys);
    for (uint32_t g = 0; !bad && g < o.ngroups; g++)
        bad = merge_group(t, &o, g, &ids[g]);
    int rc = bad ? cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the groups")
                 : CS_OK;
    if (rc == CS_OK && n) /* none: the device stopped at once */
        rc = alone ? pick_quantiles(d, t, &o, n, e)
                   : take_values(d, t, &o, ids, n, e);
    d->groups = o.ngroups;
    free(ids);
    gpu_group_out_free(&o);
    d->t_merge = account_now() - t0;
    return rc;
}

void group_dev_describe(const group_dev *d, account *acc)
{
    if (!d)
        return;
    account_say(acc,
                "groups  %zu inputs parsed and grouped on the device (%llu "
                "rows, %llu groups)%s%s",
                d->inputs, (unsigned long long)d->rows,
                (unsigned long long)d->groups,
                d->stopped ? "; it stopped at the first for " : "",
                d->stopped ? d->reason : "");
    gpu_times t;
    gpu_get_times(d->dev, &t);
    account_say(acc,
                "GPU     %s: context %.3f s, opening %.3f s; copies %.3f s, "
                "kernels %.3f s (device time); groups taken and merged on "
                "the host %.3f s%s",
                t.device, t.context_s,
                t.open_s[GPU_OPEN_CONTEXT] + t.open_s[GPU_OPEN_QUERY] +
                    t.open_s[GPU_OPEN_BUFFERS] + t.open_s[GPU_OPEN_EVENTS] +
                    t.open_s[GPU_OPEN_LAUNCH] + t.open_s[GPU_OPEN_RAW],
                t.h2d_s, t.kernel_s, d->t_merge,
                d->picked      ? " (their quantiles selected on the device)"
                : d->host_sort ? " (their values sorted on the host: the "
                                 "sort did not fit the device's memory)"
                               : "");
}

void group_dev_close(group_dev *d)
{
    if (!d)
        return;
    if (d->dev)
        gpu_close(d->dev);
    gpu_raw_result *r = &d->raw;
    free(r->missing);
    free(r->invalid);
    free(r->nan);
    free(r->first_invalid_line);
    free(r->first_invalid_text);
    free(r->first_invalid_len);
    free(d);
}
