/* Open addressing with linear probing (Knuth, TAOCP vol. 3, 6.4,
 * algorithm L) over a power-of-two slot array at most half full; a slot
 * holds an entry's index + 1. The hash mixes 8 bytes at a time by
 * multiplication and ends with SplitMix64's finalizer (Steele, Lea and
 * Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014). */
#include "vcount.h"

#include <stdlib.h>
#include <string.h>

typedef struct vc_entry {
    uint64_t hash;
    size_t off;
    size_t len;
    uint64_t count;
} vc_entry;

struct vcount {
    uint32_t *slot; /* entry + 1, 0: empty */
    size_t mask;    /* slots - 1 */
    vc_entry *e;
    size_t n, cap;
    char *arena;
    size_t used, room;
};

/* Small at first: under -g every group's column has a table, most of
 * them of a few values (a million groups) */
#define VC_FIRST_SLOTS 8
#define VC_FIRST_ENTRIES 4
#define VC_FIRST_ROOM 64

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t hash_bytes(const unsigned char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ n;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    return mix(h ^ w);
}

vcount *vcount_new(void)
{
    vcount *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->slot = calloc(VC_FIRST_SLOTS, sizeof *t->slot);
    if (!t->slot) {
        free(t);
        return NULL;
    }
    t->mask = VC_FIRST_SLOTS - 1;
    return t;
}

void vcount_free(vcount *t)
{
    if (!t)
        return;
    free(t->slot);
    free(t->e);
    free(t->arena);
    free(t);
}

void vcount_clear(vcount *t)
{
    memset(t->slot, 0, (t->mask + 1) * sizeof *t->slot);
    t->n = 0;
    t->used = 0;
}

static int grow_slots(vcount *t)
{
    size_t n = 2 * (t->mask + 1);
    uint32_t *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = t->e[i].hash & (n - 1);
        while (s[j])
            j = (j + 1) & (n - 1);
        s[j] = (uint32_t)(i + 1);
    }
    free(t->slot);
    t->slot = s;
    t->mask = n - 1;
    return 0;
}

static int room_for(vcount *t, size_t len)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : VC_FIRST_ENTRIES;
        vc_entry *e = realloc(t->e, cap * sizeof *e);
        if (!e)
            return -1;
        t->e = e;
        t->cap = cap;
    }
    if (!t->arena || t->room - t->used < len) {
        size_t room = t->room ? 2 * t->room : VC_FIRST_ROOM;
        while (room - t->used < len)
            room *= 2;
        char *a = realloc(t->arena, room);
        if (!a)
            return -1;
        t->arena = a;
        t->room = room;
    }
    return 0;
}

/* The entry of key (hash h), or NULL; *at: its slot, or the empty slot
 * that ended the probe. */
static vc_entry *find(const vcount *t, uint64_t h, const void *key, size_t len,
                      size_t *at)
{
    size_t j = h & t->mask;
    for (uint32_t s; (s = t->slot[j]) != 0; j = (j + 1) & t->mask) {
        vc_entry *x = &t->e[s - 1];
        if (x->hash == h && x->len == len &&
            memcmp(t->arena + x->off, key, len) == 0) {
            *at = j;
            return x;
        }
    }
    *at = j;
    return NULL;
}

static int add_hashed(vcount *t, uint64_t h, const void *key, size_t len,
                      uint64_t n)
{
    size_t j;
    vc_entry *x = find(t, h, key, len, &j);
    if (x) {
        x->count += n;
        return 0;
    }
    if (t->n >= UINT32_MAX - 1 || room_for(t, len))
        return -1;
    memcpy(t->arena + t->used, key, len);
    t->e[t->n] = (vc_entry){h, t->used, len, n};
    t->used += len;
    t->slot[j] = (uint32_t)++t->n;
    return 2 * t->n > t->mask + 1 ? grow_slots(t) : 0;
}

int vcount_add(vcount *t, const void *key, size_t len, uint64_t n)
{
    return add_hashed(t, hash_bytes(key, len), key, len, n);
}

int vcount_bump(vcount *t, const void *key, size_t len, uint64_t n)
{
    size_t j;
    vc_entry *x = find(t, hash_bytes(key, len), key, len, &j);
    if (x)
        x->count += n;
    return x != NULL;
}

uint64_t vcount_hash(const void *key, size_t len)
{
    return hash_bytes(key, len);
}

int vcount_merge(vcount *dst, const vcount *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const vc_entry *x = &src->e[i];
        if (add_hashed(dst, x->hash, src->arena + x->off, x->len, x->count))
            return -1;
    }
    return 0;
}

size_t vcount_size(const vcount *t)
{
    return t->n;
}

size_t vcount_bytes(const vcount *t)
{
    return (t->mask + 1) * sizeof *t->slot + t->cap * sizeof *t->e + t->room;
}

const char *vcount_key(const vcount *t, size_t i, size_t *len)
{
    *len = t->e[i].len;
    return t->arena + t->e[i].off;
}

uint64_t vcount_count(const vcount *t, size_t i)
{
    return t->e[i].count;
}
