#include "chunk.h"

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

static const chunk_alloc plain = {plain_alloc, plain_free, NULL};

int chunk_init(chunk *c, int ncols, size_t cap, const chunk_alloc *a)
{
    if (!a)
        a = &plain;
    memset(c, 0, sizeof *c);
    c->ncols = ncols;
    c->cap = cap;
    size_t n = ncols > 0 ? (size_t)ncols : 1;
    c->col = calloc(n, sizeof *c->col);
    /* One block for the four counter arrays keeps chunk_clear one memset. */
    c->missing = calloc(4 * n, sizeof(uint64_t));
    if (!c->col || !c->missing) {
        chunk_free(c, a);
        return -1;
    }
    c->invalid = c->missing + n;
    c->nan = c->missing + 2 * n;
    c->first_invalid = c->missing + 3 * n;
    for (int i = 0; i < ncols; i++) {
        c->col[i] = a->alloc((cap ? cap : 1) * sizeof(double), a->ctx);
        if (!c->col[i]) {
            chunk_free(c, a);
            return -1;
        }
    }
    return 0;
}

void chunk_clear(chunk *c)
{
    c->nrows = 0;
    size_t n = c->ncols > 0 ? (size_t)c->ncols : 1;
    memset(c->missing, 0, 4 * n * sizeof(uint64_t));
}

void chunk_free(chunk *c, const chunk_alloc *a)
{
    if (!a)
        a = &plain;
    if (c->col)
        for (int i = 0; i < c->ncols; i++)
            if (c->col[i])
                a->free(c->col[i], a->ctx);
    free(c->col);
    free(c->missing);
    memset(c, 0, sizeof *c);
}
