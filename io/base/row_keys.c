#include "io/base/row_keys.h"

#include <stdlib.h>
#include <string.h>

row_keys *row_keys_new(int nkeys, size_t cap)
{
    row_keys *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->nkeys = nkeys;
    k->cap = cap;
    size_t n = (cap ? cap : 1) * (size_t)(nkeys > 0 ? nkeys : 1);
    k->off = malloc(n * sizeof *k->off);
    k->len = malloc(n * sizeof *k->len);
    if (!k->off || !k->len) {
        row_keys_free(k);
        return NULL;
    }
    return k;
}

void row_keys_free(row_keys *k)
{
    if (!k)
        return;
    free(k->off);
    free(k->len);
    free(k->text);
    free(k->bad);
    free(k);
}

void row_keys_clear(row_keys *k)
{
    k->used = 0;
    k->nbad = 0;
    k->failed = 0;
}

/* Grows *p (of *room elements of size sz) to hold need; -1: no memory. */
static int grow(void **p, size_t *room, size_t need, size_t sz)
{
    if (need <= *room)
        return 0;
    size_t r = *room ? *room : 256;
    while (r < need)
        r *= 2;
    void *q = realloc(*p, r * sz);
    if (!q)
        return -1;
    *p = q;
    *room = r;
    return 0;
}

void row_keys_put(row_keys *k, size_t row, int i, const char *s, size_t n)
{
    size_t at = row * (size_t)k->nkeys + (size_t)i;
    if (!s || n >= KEY_MISSING || k->used + n >= KEY_MISSING ||
        grow((void **)&k->text, &k->room, k->used + n, 1)) {
        k->failed |= s != NULL;
        k->len[at] = KEY_MISSING;
        return;
    }
    if (n)
        memcpy(k->text + k->used, s, n);
    k->off[at] = (uint32_t)k->used;
    k->len[at] = (uint32_t)n;
    k->used += n;
}

void row_keys_row_missing(row_keys *k, size_t row)
{
    for (int i = 0; i < k->nkeys; i++)
        k->len[row * (size_t)k->nkeys + (size_t)i] = KEY_MISSING;
}

void row_keys_bad(row_keys *k, size_t row, int col, int kind)
{
    if (grow((void **)&k->bad, &k->bad_room, k->nbad + 1, sizeof *k->bad)) {
        k->failed = 1;
        return;
    }
    k->bad[k->nbad++] = (key_bad){(uint32_t)row, col, (uint8_t)kind};
}
