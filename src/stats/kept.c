#include "src/stats/kept.h"

#include <stdlib.h>
#include <string.h>

typedef struct block {
    double *v;
    size_t n, cap;
} block;

typedef struct column {
    block *b;
    size_t nb, capb;
} column;

struct kept {
    int ncols;
    column *col;
};

kept *kept_new(int ncols)
{
    kept *k = calloc(1, sizeof *k);
    if (k)
        k->col = calloc((size_t)(ncols ? ncols : 1), sizeof *k->col);
    if (!k || !k->col) {
        free(k);
        return NULL;
    }
    k->ncols = ncols;
    return k;
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
    c->b[c->nb++] = (block){NULL, 0, 0};
    return 0;
}

static int reserve(block *b, size_t n)
{
    if (b->cap - b->n >= n)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->n < n)
        cap *= 2;
    double *v = realloc(b->v, cap * sizeof *v);
    if (!v)
        return -1;
    b->v = v;
    b->cap = cap;
    return 0;
}

int kept_add(kept *k, int col, const double *v, size_t n)
{
    column *c = &k->col[col];
    if (n == 0)
        return 0;
    if (c->nb == 0 && add_block(c))
        return -1;
    block *b = &c->b[c->nb - 1];
    if (reserve(b, n))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (v[i] == v[i])
            b->v[b->n++] = v[i];
    return 0;
}

int kept_move(kept *dst, kept *src)
{
    for (int j = 0; j < src->ncols; j++) {
        column *d = &dst->col[j];
        size_t need = d->nb + src->col[j].nb;
        if (need > d->capb) {
            block *b = realloc(d->b, need * sizeof *b);
            if (!b)
                return -1;
            d->b = b;
            d->capb = need;
        }
    }
    for (int j = 0; j < src->ncols; j++) {
        column *d = &dst->col[j], *s = &src->col[j];
        for (size_t i = 0; i < s->nb; i++)
            if (s->b[i].n)
                d->b[d->nb++] = s->b[i];
            else
                free(s->b[i].v);
        s->nb = 0;
    }
    return 0;
}

const double *kept_block(const kept *k, int col, size_t i, size_t *n)
{
    const column *c = &k->col[col];
    if (i >= c->nb)
        return NULL;
    *n = c->b[i].n;
    return c->b[i].v;
}

void kept_free(kept *k)
{
    if (!k)
        return;
    for (int j = 0; j < k->ncols; j++) {
        for (size_t i = 0; i < k->col[j].nb; i++)
            free(k->col[j].b[i].v);
        free(k->col[j].b);
    }
    free(k->col);
    free(k);
}
