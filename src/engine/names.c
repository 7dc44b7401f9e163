/* Open addressing with linear probing over a power-of-two table at most
 * half full; names are hashed with FNV-1a (Fowler, Noll, Vo; the
 * parameters of draft-eastlake-fnv). Fields of one name are grouped by a
 * counting sort, so the k-th of a name is one lookup. */
#include "src/engine/names.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static int same(const char *name, const char *s, size_t len)
{
    return strncmp(name, s, len) == 0 && name[len] == '\0';
}

/* The slot holding name s, or the empty slot where it would go. */
static int probe(const name_index *x, const char *s, size_t len)
{
    int mask = x->nslots - 1;
    int i = (int)(hash(s, len) & (uint64_t)mask);
    while (x->slot[i] >= 0 && !same(x->names[x->slot[i]], s, len))
        i = (i + 1) & mask;
    return i;
}

static int alloc_arrays(name_index *x, int n)
{
    size_t k = (size_t)(n ? n : 1);
    x->slot = malloc((size_t)x->nslots * sizeof *x->slot);
    x->rank = malloc(k * sizeof *x->rank);
    x->start = malloc(k * sizeof *x->start);
    x->count = calloc(k, sizeof *x->count);
    x->members = malloc(k * sizeof *x->members);
    return x->slot && x->rank && x->start && x->count && x->members ? 0 : -1;
}

int names_build(name_index *x, char *const *names, int n)
{
    memset(x, 0, sizeof *x);
    x->names = names;
    x->n = n;
    x->nslots = 16;
    while (x->nslots < 2 * n)
        x->nslots *= 2;
    int *first = malloc((size_t)(n ? n : 1) * sizeof *first);
    if (!first || alloc_arrays(x, n)) {
        free(first);
        names_free(x);
        return -1;
    }
    memset(x->slot, 0xff, (size_t)x->nslots * sizeof *x->slot);
    for (int f = 0; f < n; f++) {
        int i = probe(x, names[f], strlen(names[f]));
        if (x->slot[i] < 0)
            x->slot[i] = f;
        first[f] = x->slot[i];
        x->rank[f] = x->count[first[f]]++;
    }
    int at = 0;
    for (int f = 0; f < n; f++)
        if (first[f] == f) {
            x->start[f] = at;
            at += x->count[f];
        }
    for (int f = 0; f < n; f++)
        x->members[x->start[first[f]] + x->rank[f]] = f;
    free(first);
    return 0;
}

int names_nth(const name_index *x, const char *s, size_t len, int k, int *count)
{
    int f = x->slot[probe(x, s, len)];
    int c = f < 0 ? 0 : x->count[f];
    if (count)
        *count = c;
    return k >= 0 && k < c ? x->members[x->start[f] + k] : -1;
}

int names_rank(const name_index *x, int f)
{
    return x->rank[f];
}

void names_free(name_index *x)
{
    free(x->slot);
    free(x->rank);
    free(x->start);
    free(x->count);
    free(x->members);
    memset(x, 0, sizeof *x);
}
