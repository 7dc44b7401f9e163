/* The kept values (value_store.h): blocks per column, in memory or in a
 * temporary file past the store's budget. */
#include "src/stats/value_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A growing block past the budget goes to the file once it holds this
 * many values: smaller tails stay in memory (at most this many values of
 * each column over the budget), so the file holds few, large blocks. */
#define SPILL_MIN ((size_t)1 << 16)
/* A growing block's first room, then doubling: a column of 10 values in
 * a table of 100000 columns takes 512 bytes, not the 32 KiB of 4096. */
#define FIRST_CAP ((size_t)64)
#define BLOCK_MAX ((size_t)1 << 24) /* values a growing block takes */

typedef struct block {
    double *d;
    int32_t *r; /* NULL: every correction is 0 */
    size_t n, cap;
    int in_file;
    int has_r;    /* in the file: corrections follow the values */
    uint64_t off; /* in the file: where the values start */
} block;

typedef struct column {
    block *b;
    size_t nb, capb;
} column;

struct value_store {
    int ncols;
    column *col;
    int limited;
    vstore_limits lim;
    size_t memory;
    uint64_t values;
    int dropped;
    int fd; /* the file, -1 until the first spill */
    uint64_t file_end;
    char dir[256];
};

value_store *vstore_new(int ncols, const vstore_limits *lim)
{
    value_store *k = calloc(1, sizeof *k);
    if (k)
        k->col = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof *k->col);
    if (!k || !k->col) {
        free(k);
        return NULL;
    }
    k->ncols = ncols;
    k->fd = -1;
    k->limited = lim != NULL;
    if (lim) {
        k->lim = *lim;
        snprintf(k->dir, sizeof k->dir, "%s",
                 lim->tmpdir && *lim->tmpdir ? lim->tmpdir : "/tmp");
        k->lim.tmpdir = k->dir;
    }
    return k;
}

static size_t block_bytes(const block *b)
{
    return b->in_file ? 0 : b->cap * (sizeof *b->d + (b->r ? sizeof *b->r : 0));
}

static void block_free(block *b)
{
    free(b->d);
    free(b->r);
    b->d = NULL;
    b->r = NULL;
}

static int out_of_memory(cs_error *e)
{
    return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for kept values");
}

static int add_block(column *c)
{
    if (c->nb == c->capb) {
        size_t cap = c->capb ? 2 * c->capb : 4;
        block *b = realloc(c->b, cap * sizeof *b);
        if (!b)
            return -1;
        c->b = b;
        c->capb = cap;
    }
    memset(&c->b[c->nb++], 0, sizeof(block));
    return 0;
}

/* Room for n more values (and corrections when the block has them). */
static int reserve(value_store *k, block *b, size_t n)
{
    if (b->cap - b->n >= n)
        return 0;
    size_t cap = b->cap ? b->cap : FIRST_CAP;
    while (cap - b->n < n)
        cap *= 2;
    size_t before = block_bytes(b);
    double *d = realloc(b->d, cap * sizeof *d);
    if (!d)
        return -1;
    b->d = d;
    if (b->r) {
        int32_t *r = realloc(b->r, cap * sizeof *r);
        if (!r)
            return -1;
        b->r = r;
    }
    b->cap = cap;
    k->memory += block_bytes(b) - before;
    return 0;
}

/* The block takes corrections from now on, its earlier ones 0. */
static int start_corrections(value_store *k, block *b)
{
    b->r = calloc(b->cap ? b->cap : 1, sizeof *b->r);
    if (!b->r)
        return -1;
    k->memory += b->cap * sizeof *b->r;
    return 0;
}

static int any_nonzero(const double *d, const int32_t *r, size_t n)
{
    for (size_t i = 0; r && i < n; i++)
        if (r[i] != 0 && d[i] == d[i])
            return 1;
    return 0;
}

/* NaNs are not kept: room is made for the numbers alone, so that a tail
 * left in memory past the budget is never larger than twice its values. */
static size_t numbers_in(const double *d, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += d[i] == d[i];
    return m;
}

static void free_all(value_store *k)
{
    for (int j = 0; j < k->ncols; j++) {
        for (size_t i = 0; i < k->col[j].nb; i++)
            block_free(&k->col[j].b[i]);
        k->col[j].nb = 0;
    }
    k->memory = 0;
    k->values = 0;
}

static int open_file(value_store *k, cs_error *e)
{
    char path[300];
    snprintf(path, sizeof path, "%s/colstat-XXXXXX", k->dir);
    k->fd = mkstemp(path);
    if (k->fd < 0)
        return cs_fail(e, CS_EDATA, "", 0,
                       "cannot make a temporary file in %s: %s (TMPDIR "
                       "says where)",
                       k->dir, strerror(errno));
    unlink(path); /* gone when colstat ends, however it ends */
    return CS_OK;
}

static int write_all(value_store *k, const void *p, size_t bytes, cs_error *e)
{
    const char *c = p;
    while (bytes) {
        ssize_t w = pwrite(k->fd, c, bytes, (off_t)k->file_end);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return cs_fail(e, CS_EDATA, "", 0,
                           "cannot write the temporary file in %s: %s "
                           "(%llu bytes written; TMPDIR says where, "
                           "--memory how much stays in memory)",
                           k->dir, w < 0 ? strerror(errno) : "no space",
                           (unsigned long long)k->file_end);
        c += w;
        bytes -= (size_t)w;
        k->file_end += (uint64_t)w;
    }
    return CS_OK;
}

/* The block's values go to the file and leave memory. */
static int spill_block(value_store *k, block *b, cs_error *e)
{
    if (k->fd < 0 && open_file(k, e) != CS_OK)
        return e->status;
    size_t before = block_bytes(b);
    uint64_t off = k->file_end;
    if (write_all(k, b->d, b->n * sizeof *b->d, e) != CS_OK ||
        (b->r && write_all(k, b->r, b->n * sizeof *b->r, e) != CS_OK))
        return e->status;
    b->has_r = b->r != NULL;
    block_free(b);
    b->cap = 0;
    b->in_file = 1;
    b->off = off;
    k->memory -= before;
    return CS_OK;
}

/* Past the budget: the column's growing block goes to the file once it is
 * large, or everything is dropped. */
static int enforce(value_store *k, int col, cs_error *e)
{
    if (!k->limited || k->memory <= k->lim.budget)
        return CS_OK;
    if (!k->lim.spill) {
        free_all(k);
        k->dropped = 1;
        return CS_OK;
    }
    column *c = &k->col[col];
    block *b = &c->b[c->nb - 1];
    if (b->in_file || b->n < SPILL_MIN)
        return CS_OK;
    return spill_block(k, b, e);
}

int vstore_add(value_store *k, int col, const double *d, const int32_t *r,
               size_t n, cs_error *e)
{
    column *c = &k->col[col];
    if (n == 0 || k->dropped)
        return CS_OK;
    if ((c->nb == 0 || c->b[c->nb - 1].in_file ||
         c->b[c->nb - 1].n + n > BLOCK_MAX) &&
        add_block(c))
        return out_of_memory(e);
    block *b = &c->b[c->nb - 1];
    if (reserve(k, b, numbers_in(d, n)))
        return out_of_memory(e);
    if (!b->r && any_nonzero(d, r, n) && start_corrections(k, b))
        return out_of_memory(e);
    size_t m = b->n;
    for (size_t i = 0; i < n; i++) {
        if (d[i] != d[i])
            continue;
        b->d[m] = d[i];
        if (b->r)
            b->r[m] = r ? r[i] : 0;
        m++;
    }
    k->values += m - b->n;
    b->n = m;
    return enforce(k, col, e);
}

/* Capacity down to the values held (a failed shrink keeps the block). */
static void shrink(block *b)
{
    size_t cap = b->n ? b->n : 1;
    double *d = realloc(b->d, cap * sizeof *d);
    if (!d)
        return;
    b->d = d;
    int32_t *r = b->r ? realloc(b->r, cap * sizeof *r) : NULL;
    if (r)
        b->r = r; /* else the old, larger one stays */
    b->cap = cap;
}

/* A block arriving in a limited store: it fits in memory, or goes to the
 * file, or (dropped) is freed. Memory it does not use is given back. */
static int take_block(value_store *k, block *b, cs_error *e)
{
    if (k->dropped) {
        block_free(b);
        return CS_OK;
    }
    if (k->limited && b->cap > b->n + b->n / 8)
        shrink(b);
    k->memory += block_bytes(b);
    k->values += b->n;
    if (!k->limited || k->memory <= k->lim.budget)
        return CS_OK;
    if (!k->lim.spill) {
        block_free(b);
        free_all(k);
        k->dropped = 1;
        return CS_OK;
    }
    return spill_block(k, b, e);
}

/* Blocks from another store go after the column's growing block, which
 * then grows no more: past the budget it goes to the file whatever its
 * size, or each merge would leave one more tail in memory. */
static int settle_tail(value_store *k, column *c, cs_error *e)
{
    if (!k->limited || !k->lim.spill || k->dropped || c->nb == 0 ||
        k->memory <= k->lim.budget || c->b[c->nb - 1].in_file)
        return CS_OK;
    return spill_block(k, &c->b[c->nb - 1], e);
}

int vstore_move(value_store *dst, value_store *src, cs_error *e)
{
    for (int j = 0; j < src->ncols; j++) {
        column *d = &dst->col[j];
        size_t need = d->nb + src->col[j].nb;
        if (need > d->capb) {
            block *b = realloc(d->b, need * sizeof *b);
            if (!b)
                return out_of_memory(e);
            d->b = b;
            d->capb = need;
        }
    }
    int rc = CS_OK;
    for (int j = 0; j < src->ncols; j++) {
        column *d = &dst->col[j], *s = &src->col[j];
        if (s->nb && rc == CS_OK)
            rc = settle_tail(dst, d, e);
        for (size_t i = 0; i < s->nb; i++) {
            block b = s->b[i];
            if (b.n == 0 || rc != CS_OK) {
                block_free(&b);
                continue;
            }
            rc = take_block(dst, &b, e);
            if (!dst->dropped && rc == CS_OK)
                d->b[d->nb++] = b;
            else
                block_free(&b);
        }
        s->nb = 0;
    }
    src->memory = 0;
    src->values = 0;
    return rc;
}

int vstore_dropped(const value_store *k)
{
    return k->dropped;
}

size_t vstore_memory(const value_store *k)
{
    return k->memory;
}

uint64_t vstore_spilled(const value_store *k)
{
    return k->file_end;
}

uint64_t vstore_values(const value_store *k)
{
    return k->values;
}

size_t vstore_nblocks(const value_store *k, int col)
{
    return k->col[col].nb;
}

static int read_all(const value_store *k, void *p, size_t bytes, uint64_t off,
                    cs_error *e)
{
    char *c = p;
    while (bytes) {
        ssize_t r = pread(k->fd, c, bytes, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return cs_fail(e, CS_EDATA, "", 0,
                           "cannot read the temporary file in %s: %s", k->dir,
                           r < 0 ? strerror(errno) : "it is shorter");
        c += r;
        bytes -= (size_t)r;
        off += (uint64_t)r;
    }
    return CS_OK;
}

static int buf_reserve(vstore_buf *buf, size_t n)
{
    if (buf->cap >= n)
        return 0;
    double *d = realloc(buf->d, n * sizeof *d);
    if (d)
        buf->d = d;
    int32_t *r = d ? realloc(buf->r, n * sizeof *r) : NULL;
    if (r)
        buf->r = r;
    if (!d || !r)
        return -1;
    buf->cap = n;
    return 0;
}

int vstore_read(const value_store *k, int col, size_t i, vstore_buf *buf,
                const double **d, const int32_t **r, size_t *n, cs_error *e)
{
    const block *b = &k->col[col].b[i];
    *n = b->n;
    if (!b->in_file) {
        *d = b->d;
        *r = b->r;
        return CS_OK;
    }
    if (buf_reserve(buf, b->n ? b->n : 1))
        return out_of_memory(e);
    uint64_t bytes = (uint64_t)b->n * sizeof *b->d;
    if (read_all(k, buf->d, (size_t)bytes, b->off, e) != CS_OK ||
        (b->has_r &&
         read_all(k, buf->r, b->n * sizeof *b->r, b->off + bytes, e) != CS_OK))
        return e->status;
    *d = buf->d;
    *r = b->has_r ? buf->r : NULL;
    return CS_OK;
}

void vstore_buf_free(vstore_buf *b)
{
    free(b->d);
    free(b->r);
    memset(b, 0, sizeof *b);
}

void vstore_free(value_store *k)
{
    if (!k)
        return;
    for (int j = 0; j < k->ncols; j++) {
        for (size_t i = 0; i < k->col[j].nb; i++)
            block_free(&k->col[j].b[i]);
        free(k->col[j].b);
    }
    if (k->fd >= 0)
        close(k->fd);
    free(k->col);
    free(k);
}
