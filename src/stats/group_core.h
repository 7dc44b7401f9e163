/* Group-by's inner steps as one source for host and device: the key of a
 * row (the bytes group_cpu.c makes, so that a device group is found in a
 * host group_table by them), a concurrent hash table from key bytes to
 * dense group ids, and the per-group reduction of one column (a col_part,
 * stats.h, and a group_sum, group_sum.h: exactly the state a direct group
 * table keeps, so that the host merges device pieces into its own table
 * with stats_part_merge and group_sum_merge and prints the same bytes).
 *
 * The table is open addressing with linear probing (Knuth, TAOCP vol. 3,
 * 6.4, algorithm L) over a slot array of group ids; a slot is claimed by
 * compare-and-swap, then the key is copied into the key arena and the id
 * published, and probes that meet a claimed slot wait for its id;
 * collisions are resolved by comparing the key bytes. Ids are dense in
 * order of claim. When the groups or the arena run out, gc_find says so
 * and the caller runs the group-by on the host instead.
 *
 * The reduction steps are stats.c's stats_part_add and group_sum.c's
 * group_sum_add written again without allocation: a sum that group_sum
 * would hand to its csum (values past 2^900, infinities, more than
 * GROUP_SUM_TERMS terms) makes gc_sum_add fail, and the caller falls back.
 *
 * Header-only. GC_FN, the qualifiers of every function, is static inline,
 * and under nvcc also __host__ __device__. On the host the atomics are
 * GCC's __atomic builtins, on the device CUDA's. */
#ifndef COLSTAT_SRC_STATS_GROUP_CORE_H
#define COLSTAT_SRC_STATS_GROUP_CORE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "group_sum.h"
#include "stats.h"

#ifndef GC_FN
#ifdef __CUDACC__
#define GC_FN static __host__ __device__ __forceinline__
#else
#define GC_FN static inline
#endif
#endif

/* ---------------------------------------------------------------- atomics */

GC_FN uint32_t gc_cas32(uint32_t *p, uint32_t cmp, uint32_t val)
{
#ifdef __CUDA_ARCH__
    return atomicCAS((unsigned *)p, cmp, val);
#else
    __atomic_compare_exchange_n(p, &cmp, val, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    return cmp;
#endif
}

/* Reads a slot; a published id's key, length and row written before it
 * are seen after it (acquire: on the device the fence orders the plain
 * loads of the key after the slot's, as gc_store32's orders them before). */
GC_FN uint32_t gc_load32(const uint32_t *p)
{
#ifdef __CUDA_ARCH__
    uint32_t v = *(const volatile uint32_t *)p;
    __threadfence();
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

/* Publishes val after every write before it. */
GC_FN void gc_store32(uint32_t *p, uint32_t val)
{
#ifdef __CUDA_ARCH__
    __threadfence();
    atomicExch((unsigned *)p, val);
#else
    __atomic_store_n(p, val, __ATOMIC_RELEASE);
#endif
}

GC_FN uint32_t gc_add32(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
    return atomicAdd((unsigned *)p, v);
#else
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

GC_FN uint64_t gc_add64(uint64_t *p, uint64_t v)
{
#ifdef __CUDA_ARCH__
    return atomicAdd((unsigned long long *)p, (unsigned long long)v);
#else
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

/* -------------------------------------------------------------------- keys */

/* A row's key is, per key column, one byte 0 for the missing key, or 1,
 * the text's length (4 bytes, little-endian as the host's memcpy on the
 * machines colstat runs on) and the text: group_cpu.c's encoding. */
GC_FN size_t gc_key_part_size(uint32_t len, int missing)
{
    return missing ? 1 : 5 + (size_t)len;
}

/* Writes one key column's part at out; returns its size. */
GC_FN size_t gc_key_part(char *out, const char *text, uint32_t len, int missing)
{
    out[0] = (char)!missing;
    if (missing)
        return 1;
    memcpy(out + 1, &len, 4);
    memcpy(out + 5, text, len);
    return 5 + (size_t)len;
}

/* 64-bit words folded by a multiply (Fibonacci hashing, Knuth, TAOCP vol.
 * 3, 6.4) and mixed by MurmurHash3's fmix64 finalizer (Appleby). */
GC_FN uint64_t gc_hash(const char *key, size_t len)
{
    const uint64_t m = UINT64_C(0x9E3779B97F4A7C15);
    uint64_t h = (uint64_t)len * m;
    for (; len >= 8; key += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, key, 8);
        h = (h ^ w) * m;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < len; i++)
        w |= (uint64_t)(unsigned char)key[i] << (8 * i);
    h = (h ^ w) * m;
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

/* ------------------------------------------------------------------- table */

#define GC_EMPTY 0u
#define GC_BUSY 1u    /* claimed, its id not yet published */
#define GC_GAVE_UP 2u /* claimed when groups or arena ran out */
#define GC_ID_BASE 3u /* a published slot holds id + GC_ID_BASE */

enum { GC_FOUND, GC_NEW, GC_FULL };

/* Every pointer is to memory of the side that runs gc_find (the counters
 * too: the table is passed by value to a kernel). */
typedef struct gc_table {
    uint32_t *slot; /* [mask + 1], GC_EMPTY at first */
    uint32_t mask;  /* slots - 1, a power of two less one */
    uint32_t max_groups;
    uint32_t *ngroups;   /* ids handed out (may pass max_groups: full) */
    uint64_t *key_off;   /* [max_groups] */
    uint32_t *key_len;   /* [max_groups] */
    uint64_t *first_row; /* [max_groups]: the row that made the group */
    char *arena;
    uint64_t arena_room;
    uint64_t *arena_used; /* may pass arena_room: full */
    uint32_t *full;       /* set once a key found no room */
} gc_table;

GC_FN int gc_same(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* Claims a new group for key in slot s (already GC_BUSY). */
GC_FN int gc_make(const gc_table *t, uint32_t *s, const char *key, size_t len,
                  uint64_t row, uint32_t *id)
{
    uint32_t g = gc_add32(t->ngroups, 1);
    uint64_t off = g < t->max_groups ? gc_add64(t->arena_used, len) : 0;
    if (g >= t->max_groups || off + len > t->arena_room ||
        g > UINT32_MAX - GC_ID_BASE) {
        gc_store32(t->full, 1);
        gc_store32(s, GC_GAVE_UP);
        return GC_FULL;
    }
    memcpy(t->arena + off, key, len);
    t->key_off[g] = off;
    t->key_len[g] = (uint32_t)len;
    t->first_row[g] = row;
    gc_store32(s, g + GC_ID_BASE);
    *id = g;
    return GC_NEW;
}

/* The id of key's group (hash: gc_hash of it), made when new with row as
 * its first row: GC_FOUND or GC_NEW, or GC_FULL when there is no room. */
GC_FN int gc_find(const gc_table *t, const char *key, size_t len, uint64_t hash,
                  uint64_t row, uint32_t *id)
{
    uint32_t i = (uint32_t)hash & t->mask;
    for (uint32_t probes = 0; probes <= t->mask;) {
        uint32_t *s = &t->slot[i];
        uint32_t v = gc_load32(s);
        if (v == GC_EMPTY) {
            v = gc_cas32(s, GC_EMPTY, GC_BUSY);
            if (v == GC_EMPTY)
                return gc_make(t, s, key, len, row, id);
        }
        if (v == GC_BUSY)
            continue; /* its key comes: wait for it, same slot */
        if (v == GC_GAVE_UP)
            return GC_FULL;
        uint32_t g = v - GC_ID_BASE;
        if (t->key_len[g] == len &&
            gc_same(t->arena + t->key_off[g], key, len)) {
            *id = g;
            return GC_FOUND;
        }
        i = (i + 1) & t->mask;
        probes++;
    }
    gc_store32(t->full, 1);
    return GC_FULL;
}

/* --------------------------------------------------------------- reduction */

/* stats.c's is_int_range: an integer of magnitude at most 2^64. */
GC_FN int gc_is_int(double v)
{
    double a = fabs(v);
    return (a <= 0x1p64) & ((a >= 0x1p52) | ((a + 0x1p52) - 0x1p52 == a));
}

/* stats.c's take_at: the minimum (sign 1) or maximum (sign -1) of count
 * values so far takes v (its row, integer view's correction c, the row
 * and offset of that view) where it comes first; for a value added and
 * for a part merged alike. */
GC_FN void gc_take(uint64_t count, double *dv, uint64_t *drow, int32_t *dcorr,
                   uint64_t *drow_int, int16_t *doff, double v, uint64_t row,
                   int32_t c, uint64_t row_int, int16_t off, int sign)
{
    int first = count == 0 || (sign > 0 ? v < *dv : v > *dv);
    int tie = !first && v == *dv;
    int int_first = first || (tie && (sign > 0 ? c < *dcorr : c > *dcorr));
    int int_tie = tie && c == *dcorr;
    if (first || (tie && row < *drow)) {
        *dv = v;
        *drow = row;
    }
    if (int_first || (int_tie && row_int < *drow_int)) {
        *dcorr = c;
        *drow_int = row_int;
        *doff = off;
    }
}

/* stats_part_init */
GC_FN void gc_part_init(col_part *p)
{
    memset(p, 0, sizeof *p);
    p->min = p->max = p->fmin = p->fmax = NAN;
    p->all_int = 1;
}

/* stats_part_add: v (not NaN, correction r) of row `row`, after every row
 * before it in this part. */
GC_FN void gc_part_add(col_part *p, double v, int32_t r, uint64_t row)
{
    int in = gc_is_int(v);
    if (!(p->count && v > p->min && v < p->max)) {
        int32_t c = r == CORR_NOT_INT || !in ? 0 : r;
        gc_take(p->count, &p->min, &p->min_row, &p->min_corr, &p->min_row_int,
                &p->min_off, v, row, c, row, 0, 1);
        gc_take(p->count, &p->max, &p->max_row, &p->max_corr, &p->max_row_int,
                &p->max_off, v, row, c, row, 0, -1);
    }
    if (isfinite(v)) { /* zeros as +0: stats.c's finite_at */
        double z = v + 0.0;
        if (!(p->fmin <= z))
            p->fmin = z;
        if (!(p->fmax >= z))
            p->fmax = z;
    }
    p->count++;
    p->all_int &= in;
    if (r != 0 && in) {
        if (r == CORR_NOT_INT)
            p->all_int = 0;
        else
            p->sum_r += r;
    }
}

/* stats_part_counts */
GC_FN void gc_part_counts(col_part *p, uint64_t missing, uint64_t invalid,
                          uint64_t nan, uint64_t first_invalid_row)
{
    p->missing += missing;
    p->invalid += invalid;
    p->nan += nan;
    if (first_invalid_row &&
        (!p->first_invalid_row || first_invalid_row < p->first_invalid_row))
        p->first_invalid_row = first_invalid_row;
}

/* group_sum.c's constants: values past GC_SUM_BIG (and infinities) need
 * its csum; units 2^(binade - GC_UNIT_BELOW). */
#define GC_SUM_BIG 0x1p900
#define GC_SUM_TINY 0x1p-900
#define GC_UNIT_BELOW 60

GC_FN void gc_sum_init(group_sum *g)
{
    memset(g, 0, sizeof *g);
    g->ex = INT32_MIN;
}

GC_FN double gc_two_sum(double a, double b, double *r)
{
    double s = a + b, bv = s - a;
    *r = (a - (s - bv)) + (b - bv);
    return s;
}

/* group_sum.c's compress: e[0..m) as fewer terms of the same sum. */
GC_FN int gc_compress(double *e, int m)
{
    double g[GROUP_SUM_TERMS + 1], r, q = e[m - 1];
    int bottom = m - 1, top = 0;
    for (int i = m - 2; i >= 0; i--) {
        double s = gc_two_sum(q, e[i], &r);
        if (r != 0) {
            g[bottom--] = s;
            q = r;
        } else {
            q = s;
        }
    }
    g[bottom] = q;
    for (int i = bottom + 1; i < m; i++) {
        q = gc_two_sum(g[i], q, &r);
        if (r != 0)
            e[top++] = r;
    }
    if (q != 0)
        e[top++] = q;
    return top;
}

/* x into the terms; -1 where only a csum could hold the sum. */
GC_FN int gc_terms_add(group_sum *g, double x)
{
    if (!(fabs(x) < GC_SUM_BIG))
        return -1;
    double q = x, r;
    int m = 0;
    for (int i = 0; i < GROUP_SUM_TERMS; i++) {
        q = gc_two_sum(q, g->e[i], &r);
        g->e[i] = 0;
        g->e[m] = r;
        m += r != 0;
    }
    if (m < GROUP_SUM_TERMS || q == 0) {
        if (m < GROUP_SUM_TERMS)
            g->e[m] = q;
        g->n = m + (m < GROUP_SUM_TERMS && q != 0);
        return 0;
    }
    double e[GROUP_SUM_TERMS + 1];
    for (int i = 0; i < GROUP_SUM_TERMS; i++)
        e[i] = g->e[i];
    e[m] = q;
    m = gc_compress(e, m + 1);
    for (int i = 0; i < GROUP_SUM_TERMS; i++)
        g->e[i] = i < m ? e[i] : 0;
    g->n = m < GROUP_SUM_TERMS ? m : GROUP_SUM_TERMS;
    return m > GROUP_SUM_TERMS ? -1 : 0;
}

/* x as a whole number of units: group_sum.c's units_of. */
GC_FN int gc_units(const group_sum *g, double x, int64_t *u)
{
    double y = x * g->inv;
    if (!(fabs(y) < 0x1p63))
        return 0;
    *u = (int64_t)y;
    return (double)*u == y && *u != 0;
}

/* New units for x's binade, the integer part moved to the terms first. */
GC_FN int gc_rebase(group_sum *g, double x)
{
    double t[3] = {0, 0, 0};
    if (g->acc != 0) {
        const group_acc mask = ((group_acc)1 << 42) - 1;
        t[0] = ldexp((double)(int64_t)(g->acc & mask), g->ex);
        t[1] = ldexp((double)(int64_t)((g->acc >> 42) & mask), g->ex + 42);
        t[2] = ldexp((double)(int64_t)(g->acc >> 84), g->ex + 84);
    }
    g->acc = 0;
    g->ex = ilogb(x) - GC_UNIT_BELOW;
    g->inv = ldexp(1.0, -g->ex);
    for (int i = 0; i < 3; i++)
        if (t[i] != 0 && gc_terms_add(g, t[i]))
            return -1;
    return 0;
}

/* g += x (x not NaN), exactly: 0, or -1 where group_sum would need its
 * csum (the caller gives the run to the host). */
GC_FN int gc_sum_add(group_sum *g, double x)
{
    int64_t u;
    if (g->ex != INT32_MIN && gc_units(g, x, &u)) {
        g->acc += u;
        return 0;
    }
    double a = fabs(x);
    if (x == 0)
        return 0;
    if (a >= GC_SUM_TINY && a < GC_SUM_BIG &&
        (g->ex == INT32_MIN || ilogb(x) - GC_UNIT_BELOW > g->ex)) {
        if (gc_rebase(g, x))
            return -1;
        if (gc_units(g, x, &u)) {
            g->acc += u;
            return 0;
        }
    }
    return gc_terms_add(g, x);
}

/* ------------------------------------------------------------------ merges */

/* stats_part_merge(dst, src, 0): in any order of parts, the same. */
GC_FN void gc_part_merge(col_part *d, const col_part *s)
{
    gc_part_counts(d, s->missing, s->invalid, s->nan, s->first_invalid_row);
    if (s->count > 0) {
        gc_take(d->count, &d->min, &d->min_row, &d->min_corr, &d->min_row_int,
                &d->min_off, s->min, s->min_row, s->min_corr, s->min_row_int,
                s->min_off, 1);
        gc_take(d->count, &d->max, &d->max_row, &d->max_corr, &d->max_row_int,
                &d->max_off, s->max, s->max_row, s->max_corr, s->max_row_int,
                s->max_off, -1);
    }
    if (s->fmin <= s->fmax) {
        double lo = s->fmin + 0.0, hi = s->fmax + 0.0;
        if (!(d->fmin <= lo))
            d->fmin = lo;
        if (!(d->fmax >= hi))
            d->fmax = hi;
    }
    d->count += s->count;
    d->all_int &= s->all_int;
    d->sum_r += s->sum_r;
}

/* group_sum_merge without a csum: dst += src, 0, or -1 where group_sum
 * would need one (src holds none: the device makes none). The integer
 * part goes in as three exact doubles, as group_sum.c's acc_terms. */
GC_FN int gc_sum_merge(group_sum *d, const group_sum *s)
{
    if (s->acc != 0) {
        const group_acc mask = ((group_acc)1 << 42) - 1;
        double t[3];
        t[0] = ldexp((double)(int64_t)(s->acc & mask), s->ex);
        t[1] = ldexp((double)(int64_t)((s->acc >> 42) & mask), s->ex + 42);
        t[2] = ldexp((double)(int64_t)(s->acc >> 84), s->ex + 84);
        for (int i = 0; i < 3; i++)
            if (t[i] != 0 && gc_sum_add(d, t[i]))
                return -1;
    }
    for (int i = 0; i < s->n; i++)
        if (gc_sum_add(d, s->e[i]))
            return -1;
    return 0;
}

#endif
