#include "io/base/row_batch.h"

#include "io/base/row_keys.h"

#include <stdlib.h>
#include <string.h>

static void *plain_alloc(size_t bytes, void *ctx)
{
    (void)ctx;
    return malloc(bytes);
}

static void plain_free(void *p, void *ctx)
{
    (void)ctx;
    free(p);
}

/* missing, invalid, nan, first_invalid, has_corr, has_off */
#define BATCH_COUNTERS 6

static const row_batch_alloc plain = {plain_alloc, plain_free, NULL};

int row_batch_init(row_batch *c, int ncols, size_t cap,
                   const row_batch_alloc *a)
{
    if (!a)
        a = &plain;
    memset(c, 0, sizeof *c);
    c->ncols = ncols;
    c->cap = cap;
    size_t n = ncols > 0 ? (size_t)ncols : 1;
    size_t rows = cap ? cap : 1;
    c->col = calloc(n, sizeof *c->col);
    c->corr = calloc(n, sizeof *c->corr);
    c->off = calloc(n, sizeof *c->off);
    /* One block for the counter arrays keeps row_batch_clear one memset. */
    c->missing = calloc(BATCH_COUNTERS * n, sizeof(uint64_t));
    /* Pages of corrections never used are never touched: no memory. */
    int32_t *corr = malloc(n * rows * sizeof *corr);
    int16_t *off = malloc(n * rows * sizeof *off);
    if (!c->col || !c->corr || !c->off || !c->missing || !corr || !off) {
        free(corr);
        free(off);
        row_batch_free(c, a);
        return -1;
    }
    c->has_off = c->missing + 5 * n;
    for (size_t i = 0; i < n; i++)
        c->off[i] = off + i * rows;
    c->invalid = c->missing + n;
    c->nan = c->missing + 2 * n;
    c->first_invalid = c->missing + 3 * n;
    c->has_corr = c->missing + 4 * n;
    for (size_t i = 0; i < n; i++)
        c->corr[i] = corr + i * rows;
    for (int i = 0; i < ncols; i++) {
        c->col[i] = a->alloc((cap ? cap : 1) * sizeof(double), a->ctx);
        if (!c->col[i]) {
            row_batch_free(c, a);
            return -1;
        }
    }
    return 0;
}

void row_batch_clear(row_batch *c)
{
    c->nrows = 0;
    c->repeats = 0;
    c->repeat_line = 0;
    size_t n = c->ncols > 0 ? (size_t)c->ncols : 1;
    memset(c->missing, 0, BATCH_COUNTERS * n * sizeof(uint64_t));
    if (c->keys)
        row_keys_clear(c->keys);
}

void row_batch_free(row_batch *c, const row_batch_alloc *a)
{
    if (!a)
        a = &plain;
    row_keys_free(c->keys);
    c->keys = NULL;
    if (c->col)
        for (int i = 0; i < c->ncols; i++)
            if (c->col[i])
                a->free(c->col[i], a->ctx);
    free(c->col);
    if (c->corr)
        free(c->corr[0]);
    free(c->corr);
    if (c->off)
        free(c->off[0]);
    free(c->off);
    free(c->missing);
    memset(c, 0, sizeof *c);
}

void row_batch_corr_start(row_batch *c, int col, size_t rows)
{
    memset(c->corr[col], 0, rows * sizeof(int32_t));
    c->has_corr[col] = 1;
}

void row_batch_off_start(row_batch *c, int col, size_t rows)
{
    memset(c->off[col], 0, rows * sizeof(int16_t));
    c->has_off[col] = 1;
}

void row_batch_append_values(row_batch *dst, const row_batch *src)
{
    size_t at = dst->nrows, n = src->nrows;
    for (int k = 0; k < dst->ncols; k++) {
        memcpy(dst->col[k] + at, src->col[k], n * sizeof(double));
        if (src->has_corr[k] && !dst->has_corr[k])
            row_batch_corr_start(dst, k, at);
        if (src->has_corr[k])
            memcpy(dst->corr[k] + at, src->corr[k], n * sizeof(int32_t));
        else if (dst->has_corr[k])
            memset(dst->corr[k] + at, 0, n * sizeof(int32_t));
        if (src->has_off[k] && !dst->has_off[k])
            row_batch_off_start(dst, k, at);
        if (src->has_off[k])
            memcpy(dst->off[k] + at, src->off[k], n * sizeof(int16_t));
        else if (dst->has_off[k])
            memset(dst->off[k] + at, 0, n * sizeof(int16_t));
    }
    dst->nrows = at + n;
}
