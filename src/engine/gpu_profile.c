/* The GPU backend's profiles (gpu_profile.h). The device's runs are each
 * value with its count; values past the device's room sit in the host
 * store and are counted here. A value the device holds and the host
 * store does not is counted once, by the device: unless it is among the
 * device's k most frequent, k values (each counted at least as often in
 * all) rank before it, so it is in no top k. The host store's values are
 * counted whole, with their device counts added, so the candidates are
 * the device's k most frequent and every value of the host store. */
#include "src/engine/gpu_profile.h"

#include <math.h>
#include <stdlib.h>

#include "src/stats/vcount.h"

#define RUNS_AT_ONCE ((size_t)1 << 20) /* runs copied to the host a time */

typedef struct runs_buf {
    double *d;
    int32_t *r;
    uint64_t *count;
} runs_buf;

static int buf_new(runs_buf *b, size_t n)
{
    n = n ? n : 1;
    b->d = malloc(n * sizeof *b->d);
    b->r = malloc(n * sizeof *b->r);
    b->count = malloc(n * sizeof *b->count);
    return b->d && b->r && b->count ? 0 : -1;
}

static void buf_free(runs_buf *b)
{
    free(b->d);
    free(b->r);
    free(b->count);
}

static int nomem(cs_error *e)
{
    return cs_fail(e, CS_ENOMEM, "", 0,
                   "out of memory counting distinct values");
}

/* A value's key as the profile keeps it: with_r an integer column's
 * exact integer, else the double alone. */
static void key_of(unsigned char *key, double d, int32_t r, int with_r)
{
    profile_num_key(key, d, with_r ? r : 0);
}

/* The host store's values of column col, each counted into *out. */
static int host_counts(const value_store *vs, int col, int with_r, vcount **out,
                       cs_error *e)
{
    *out = NULL;
    size_t nb = vs ? vstore_nblocks(vs, col) : 0;
    if (!nb)
        return CS_OK;
    if (!(*out = vcount_new()))
        return nomem(e);
    vstore_buf buf = {0};
    unsigned char key[PROFILE_NUM_KEY];
    int rc = CS_OK;
    for (size_t b = 0; rc == CS_OK && b < nb; b++) {
        const double *d;
        const int32_t *r;
        size_t n;
        rc = vstore_read(vs, col, b, &buf, &d, &r, &n, e);
        for (size_t i = 0; rc == CS_OK && i < n; i++) {
            if (isnan(d[i]))
                continue;
            key_of(key, d[i], r ? r[i] : 0, with_r);
            if (vcount_add(*out, key, PROFILE_NUM_KEY, 1))
                rc = nomem(e);
        }
    }
    vstore_buf_free(&buf);
    return rc;
}

/* Adds every device run's count to the host store's value it is, if any;
 * *found: how many were. */
static int bump_host(gpu_backend *dev, uint64_t nruns, int with_r, vcount *h,
                     uint64_t *found, cs_error *e)
{
    runs_buf b;
    size_t most = nruns < RUNS_AT_ONCE ? (size_t)nruns : RUNS_AT_ONCE;
    int rc = buf_new(&b, most) ? nomem(e) : CS_OK;
    unsigned char key[PROFILE_NUM_KEY];
    *found = 0;
    for (uint64_t at = 0; rc == CS_OK && at < nruns; at += most) {
        size_t n = nruns - at < most ? (size_t)(nruns - at) : most;
        rc = gpu_value_runs_get(dev, at, n, b.d, b.r, b.count, e);
        for (size_t i = 0; rc == CS_OK && i < n; i++) {
            key_of(key, b.d[i], b.r[i], with_r);
            *found +=
                (uint64_t)vcount_bump(h, key, PROFILE_NUM_KEY, b.count[i]);
        }
    }
    buf_free(&b);
    return rc;
}

/* The device's k most frequent (of its nruns) not in the host store's
 * counts h (NULL: none), into p's values. */
static int take_top(gpu_backend *dev, size_t k, uint64_t nruns, int with_r,
                    vcount *h, col_prof *p, cs_error *e)
{
    runs_buf b;
    size_t n = 0;
    k = nruns < k ? (size_t)nruns : k; /* --top K may ask far more */
    int rc = buf_new(&b, k) ? nomem(e) : CS_OK;
    if (rc == CS_OK)
        rc = gpu_value_runs_top(dev, k, b.d, b.r, b.count, &n, e);
    unsigned char key[PROFILE_NUM_KEY];
    for (size_t i = 0; rc == CS_OK && i < n; i++) {
        key_of(key, b.d[i], b.r[i], with_r);
        if (h && vcount_bump(h, key, PROFILE_NUM_KEY, 0)) /* h has it */
            continue;
        if (vcount_add(p->vals, key, PROFILE_NUM_KEY, b.count[i]))
            rc = nomem(e);
    }
    buf_free(&b);
    return rc;
}

static int column(gpu_backend *dev, int col, const col_stats *st, size_t k,
                  col_prof *p, cs_error *e)
{
    col_summary s;
    stats_finalize(st, &s);
    int with_r = s.is_int;
    uint64_t nruns, found = 0;
    vcount *h = NULL;
    if (profile_init(p, 1))
        return nomem(e);
    int rc = gpu_value_runs(dev, col, with_r, &nruns, e);
    if (rc == CS_OK)
        rc = host_counts(gpu_host_values(dev), col, with_r, &h, e);
    if (rc == CS_OK && h)
        rc = bump_host(dev, nruns, with_r, h, &found, e);
    if (rc == CS_OK)
        rc = take_top(dev, k ? k : 1, nruns, with_r, h, p, e);
    if (rc == CS_OK && h && vcount_merge(p->vals, h))
        rc = nomem(e);
    p->parted = 1;
    p->parted_distinct = nruns - found + (h ? vcount_size(h) : 0);
    vcount_free(h);
    return rc;
}

int gpu_profiles_make(gpu_backend *dev, int ncols, const col_stats *st,
                      size_t k, col_prof *out, cs_error *e)
{
    for (int c = 0; c < ncols; c++)
        if (column(dev, c, &st[c], k, &out[c], e) != CS_OK)
            return e->status;
    return CS_OK;
}
