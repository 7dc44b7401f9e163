#include "group_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Eight bytes at a time: each word xored in, multiplied by an odd
 * constant (which carries every bit upward) and folded (which brings the
 * high bits down to the low ones the table indexes by). */
#define HASH_MUL UINT64_C(0x9e3779b97f4a7c15)
#define HASH_FOLD UINT64_C(0xd6e8feb86659fd93)

static inline uint64_t hash_word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * HASH_MUL;
    return h ^ (h >> 32);
}

uint64_t group_hash(const char *key, size_t len)
{
    uint64_t h = HASH_FOLD ^ (uint64_t)len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, key + i, 8);
        h = hash_word(h, w);
    }
    if (i < len) {
        uint64_t w = 0;
        for (size_t k = 0; i + k < len; k++)
            w |= (uint64_t)(unsigned char)key[i + k] << (8 * k);
        h = hash_word(h, w);
    }
    h *= HASH_FOLD;
    return h ^ (h >> 29);
}

void group_table_init(group_table *t, int ncols, unsigned what, int keep)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->what = what;
    t->keep = keep;
}

void group_table_direct(group_table *t)
{
    t->direct = !t->keep && !(t->what & STAT_STD);
}

void group_table_profile(group_table *t, int counting)
{
    t->profiled = 1;
    t->counting = counting;
}

#define GROUP_BATCH 512

static void vals_free(group_vals *v)
{
    free(v->d);
    free(v->r);
    free(v->row);
}

void group_table_clear(group_table *t)
{
    size_t nc = (size_t)t->ncols;
    for (size_t i = 0; i < t->n * nc; i++) {
        if (t->st)
            stats_free(&t->st[i]);
        if (t->sum)
            group_sum_free(&t->sum[i]);
        if (t->val)
            t->val[i].n = t->val[i].done = 0; /* the arrays serve the next */
        if (t->prof)
            profile_free(&t->prof[i]);
    }
    t->n = 0;
    t->prof_bytes = 0;
    t->keys_used = 0;
    t->values = 0;
    free(t->q);
    t->q = NULL;
    t->nq = 0;
    if (t->slot)
        memset(t->slot, 0, t->nslots * sizeof *t->slot);
}

void group_table_free(group_table *t)
{
    group_table_clear(t);
    for (size_t i = 0; t->val && i < t->inited * (size_t)t->ncols; i++)
        vals_free(&t->val[i]);
    free(t->key_off);
    free(t->key_len);
    free(t->hash);
    free(t->rows);
    free(t->first);
    free(t->st);
    free(t->val);
    free(t->part);
    free(t->sum);
    free(t->prof);
    free(t->keys);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

static int resize(void **p, size_t n, size_t sz)
{
    void *q = realloc(*p, n * sz);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

int group_table_track_first(group_table *t)
{
    t->first = malloc((t->cap ? t->cap : 1) * sizeof *t->first);
    return t->first ? 0 : -1;
}

static int grow_groups(group_table *t)
{
    size_t cap = t->cap ? 2 * t->cap : 16, nc = (size_t)t->ncols;
    if (resize((void **)&t->key_off, cap, sizeof *t->key_off) ||
        resize((void **)&t->key_len, cap, sizeof *t->key_len) ||
        resize((void **)&t->hash, cap, sizeof *t->hash) ||
        resize((void **)&t->rows, cap, sizeof *t->rows) ||
        (t->first && resize((void **)&t->first, cap, sizeof *t->first)) ||
        (t->profiled &&
         resize((void **)&t->prof, cap * nc + 1, sizeof *t->prof)) ||
        ((!t->direct || t->st) &&
         resize((void **)&t->st, cap * nc + 1, sizeof *t->st)) ||
        (t->dropped ? 0
         : t->direct
             ? resize((void **)&t->part, cap * nc + 1, sizeof *t->part) ||
                   resize((void **)&t->sum, cap * nc + 1, sizeof *t->sum)
             : resize((void **)&t->val, cap * nc + 1, sizeof *t->val)))
        return -1;
    t->cap = cap;
    return 0;
}

/* A slot: the group id + 1 below, the hash's high half above, so that
 * most probes that miss are told by the slot alone. */
static inline uint64_t slot_of(uint64_t hash, size_t id)
{
    return (hash & ~(uint64_t)UINT32_MAX) | (uint64_t)(id + 1);
}

static void place(group_table *t, size_t id)
{
    size_t mask = t->nslots - 1, i = (size_t)t->hash[id] & mask;
    while (t->slot[i])
        i = (i + 1) & mask;
    t->slot[i] = slot_of(t->hash[id], id);
}

/* Keeps the load at most a half. */
static int grow_slots(group_table *t)
{
    size_t n = t->nslots ? 2 * t->nslots : 64;
    uint64_t *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    free(t->slot);
    t->slot = s;
    t->nslots = n;
    for (size_t id = 0; id < t->n; id++)
        place(t, id);
    return 0;
}

/* Room in t for n groups more, and keys bytes more (and one byte: the
 * arena exists once a group does, even of empty keys). -1: no memory. */
static int room_for(group_table *t, size_t n, size_t keys)
{
    while (t->cap < t->n + n)
        if (grow_groups(t))
            return -1;
    if (t->keys_used + keys + 1 > t->keys_room) {
        size_t r = t->keys_room ? 2 * t->keys_room : 1024;
        while (r < t->keys_used + keys + 1)
            r *= 2;
        if (resize((void **)&t->keys, r, 1))
            return -1;
        t->keys_room = r;
    }
    return 0;
}

int group_table_reserve(group_table *t, size_t n, size_t keys)
{
    if (room_for(t, n, keys))
        return -1;
    while (t->nslots < 2 * (t->n + n))
        if (grow_slots(t))
            return -1;
    return 0;
}

int group_table_take(group_table *t, size_t n, group_taken *g)
{
    size_t ns = 64;
    if (!t->direct || t->st || t->dropped || t->profiled || t->n || !n)
        return -1;
    while (ns < 2 * n)
        ns *= 2;
    size_t *off = malloc(n * sizeof *off);
    uint32_t *len = malloc(n * sizeof *len);
    uint64_t *hash = malloc(n * sizeof *hash), *rows = malloc(n * sizeof *rows);
    uint64_t *first = t->first ? malloc(n * sizeof *first) : NULL;
    uint64_t *slot = calloc(ns, sizeof *slot);
    if (!off || !len || !hash || !rows || (t->first && !first) || !slot) {
        void *made[] = {off, len, hash, rows, first, slot};
        for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
            free(made[i]);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        off[i] = (size_t)g->key_off[i];
        len[i] = g->key_len[i];
        hash[i] = group_hash(g->keys + off[i], len[i]);
        rows[i] = g->rows[i];
        if (first)
            first[i] = g->first[i];
    }
    void *old[] = {t->key_off, t->key_len, t->hash, t->rows, t->first,
                   t->slot,    t->keys,    t->part, t->sum,  t->val};
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++)
        free(old[i]);
    t->val = NULL;
    t->key_off = off;
    t->key_len = len;
    t->hash = hash;
    t->rows = rows;
    t->first = first;
    t->keys = g->keys;
    t->keys_used = t->keys_room = g->keys_bytes;
    t->part = g->part;
    t->sum = g->sum;
    t->slot = slot;
    t->nslots = ns;
    t->n = t->cap = t->inited = n;
    for (size_t id = 0; id < n; id++)
        place(t, id);
    return 0;
}

static int add_group(group_table *t, const char *key, size_t len, uint64_t hash,
                     size_t *id)
{
    if (t->n >= UINT32_MAX - 1 || room_for(t, 1, len))
        return -1;
    size_t g = t->n++, nc = (size_t)t->ncols;
    if (len)
        memcpy(t->keys + t->keys_used, key, len);
    t->key_off[g] = t->keys_used;
    t->key_len[g] = (uint32_t)len;
    t->keys_used += len;
    t->hash[g] = hash;
    t->rows[g] = 0;
    if (t->first)
        t->first[g] = UINT64_MAX;
    for (size_t k = 0; k < nc; k++) {
        if (t->st)
            stats_init(&t->st[g * nc + k]);
        if (t->direct) {
            if (t->dropped)
                continue;
            stats_part_init(&t->part[g * nc + k]);
            group_sum_init(&t->sum[g * nc + k]);
        } else if (g >= t->inited)
            memset(&t->val[g * nc + k], 0, sizeof t->val[0]);
    }
    if (g >= t->inited)
        t->inited = g + 1;
    for (size_t k = 0; t->profiled && k < nc; k++) {
        if (profile_init(&t->prof[g * nc + k], t->counting))
            return -1;
        t->prof_bytes += profile_bytes(&t->prof[g * nc + k]);
    }
    *id = g;
    if (2 * t->n > t->nslots)
        return grow_slots(t);
    place(t, g);
    return 0;
}

int group_find(group_table *t, const char *key, size_t len, uint64_t hash,
               size_t *id)
{
    if (t->nslots) {
        size_t mask = t->nslots - 1;
        uint64_t tag = hash & ~(uint64_t)UINT32_MAX;
        for (size_t i = (size_t)hash & mask; t->slot[i]; i = (i + 1) & mask) {
            if ((t->slot[i] & ~(uint64_t)UINT32_MAX) != tag)
                continue;
            /* the tag matched the hash's high half: the key's bytes
               decide (the whole hash, one more line to load, rarely
               would) */
            size_t g = (size_t)(t->slot[i] & UINT32_MAX) - 1;
            if (group_is(t, g, key, len)) {
                *id = g;
                return 0;
            }
        }
    }
    return add_group(t, key, len, hash, id);
}

static int put_value(group_table *t, group_vals *v, double d, int32_t r,
                     uint64_t row)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 16;
        if (resize((void **)&v->d, cap, sizeof *v->d) ||
            resize((void **)&v->r, cap, sizeof *v->r) ||
            resize((void **)&v->row, cap, sizeof *v->row))
            return -1;
        v->cap = cap;
    }
    v->d[v->n] = d;
    v->r[v->n] = r;
    v->row[v->n++] = row;
    t->values++;
    return 0;
}

static int flush_one(group_table *t, size_t at)
{
    group_vals *v = &t->val[at];
    size_t k = v->n - v->done;
    if (!k)
        return 0;
    /* corrections are rare: none to look at is faster */
    const int32_t *r = v->r + v->done;
    size_t i = 0;
    while (i < k && !r[i])
        i++;
    if (stats_add_rows(&t->st[at], v->d + v->done, i < k ? r : NULL,
                       v->row + v->done, k, t->what))
        return -1;
    v->done = v->n;
    if (!t->keep) {
        t->values -= v->n;
        v->n = v->done = 0;
    }
    return 0;
}

int group_table_quantiles(group_table *t, size_t nq)
{
    size_t cells = t->cap * (size_t)t->ncols;
    free(t->q);
    t->q = calloc(cells * nq + 1, sizeof *t->q);
    t->nq = t->q ? nq : 0;
    return t->q ? 0 : -1;
}

int group_vals_append(group_table *t, size_t id, int col, const double *d,
                      const int32_t *r, size_t n)
{
    group_vals *v = &t->val[id * (size_t)t->ncols + (size_t)col];
    if (!n)
        return 0;
    if (v->n != v->done)
        return -1; /* waiting values would take these as theirs */
    if (n > v->cap - v->n) {
        size_t cap = v->n + n;
        if (resize((void **)&v->d, cap, sizeof *v->d) ||
            resize((void **)&v->r, cap, sizeof *v->r) ||
            resize((void **)&v->row, cap, sizeof *v->row))
            return -1;
        v->cap = cap;
    }
    memcpy(v->d + v->n, d, n * sizeof *d);
    memcpy(v->r + v->n, r, n * sizeof *r);
    memset(v->row + v->n, 0, n * sizeof *v->row);
    v->n += n;
    v->done = v->n;
    t->values += n;
    return 0;
}

/* A direct table's col_stats, made when first needed. */
static int need_st(group_table *t)
{
    if (t->st)
        return 0;
    t->st = malloc((t->cap * (size_t)t->ncols + 1) * sizeof *t->st);
    if (!t->st)
        return -1;
    for (size_t i = 0; i < t->n * (size_t)t->ncols; i++)
        stats_init(&t->st[i]);
    return 0;
}

static int add_direct(group_table *t, size_t at, double v, int32_t r,
                      uint64_t row)
{
    stats_part_add(&t->part[at], v, r, row);
    return t->what & (STAT_SUM | STAT_MEAN) ? group_sum_add(&t->sum[at], v) : 0;
}

int group_add(group_table *t, size_t id, int col, double v, int32_t r,
              uint64_t row)
{
    size_t at = id * (size_t)t->ncols + (size_t)col;
    if (t->direct)
        return add_direct(t, at, v, r, row);
    group_vals *g = &t->val[at];
    if (put_value(t, g, v, r, row))
        return -1;
    return g->n - g->done >= GROUP_BATCH ? flush_one(t, at) : 0;
}

#define GROUP_AHEAD 8

/* add_direct's loop, the sums' test hoisted out of it */
static int column_direct(group_table *t, const uint32_t *ids, int col,
                         const double *v, const int32_t *r, size_t n,
                         uint64_t first_row)
{
    size_t nc = (size_t)t->ncols;
    int sums = (t->what & (STAT_SUM | STAT_MEAN)) != 0;
    for (size_t i = 0; i < n; i++) {
        if (i + GROUP_AHEAD < n) { /* the groups are anywhere: ask early */
            size_t ahead = (size_t)ids[i + GROUP_AHEAD] * nc + (size_t)col;
            __builtin_prefetch(&t->part[ahead], 1);
            __builtin_prefetch(&t->sum[ahead], 1);
        }
        if (isnan(v[i]))
            continue;
        size_t at = (size_t)ids[i] * nc + (size_t)col;
        stats_part_add(&t->part[at], v[i], r ? r[i] : 0, first_row + i);
        if (sums && group_sum_add(&t->sum[at], v[i]))
            return -1;
    }
    return 0;
}

int group_add_column(group_table *t, const uint32_t *ids, int col,
                     const double *v, const int32_t *r, size_t n,
                     uint64_t first_row)
{
    if (t->direct)
        return column_direct(t, ids, col, v, r, n, first_row);
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]) &&
            group_add(t, ids[i], col, v[i], r ? r[i] : 0, first_row + i))
            return -1;
    return 0;
}

int group_add_offsets(group_table *t, const uint32_t *ids, int col,
                      const double *v, const int16_t *off, size_t n,
                      uint64_t first_row)
{
    for (size_t i = 0; i < n; i++) {
        if (!off[i] || isnan(v[i]))
            continue;
        size_t at = (size_t)ids[i] * (size_t)t->ncols + (size_t)col;
        if (t->direct)
            stats_part_offset(&t->part[at], first_row + i, off[i]);
        else if (flush_one(t, at)) /* its extremes known only once added */
            return -1;
        else
            stats_add_offsets(&t->st[at], &off[i], 1, first_row + i);
    }
    return 0;
}

static int flush_direct(group_table *t, size_t at)
{
    stats_merge_part(&t->st[at], &t->part[at], 0);
    stats_part_init(&t->part[at]);
    return group_sum_move(&t->sum[at], &t->st[at].sum);
}

int group_cell_stats(const group_table *t, size_t at, col_stats *out)
{
    stats_init(out);
    stats_merge_part(out, &t->part[at], 0);
    return group_sum_add_to(&t->sum[at], &out->sum);
}

int group_flush(group_table *t)
{
    if (t->dropped)
        return 0;
    if (t->direct && need_st(t))
        return -1;
    for (size_t i = 0; i < t->n * (size_t)t->ncols; i++)
        if (t->direct ? flush_direct(t, i) : flush_one(t, i))
            return -1;
    return 0;
}

void group_add_counts(group_table *t, size_t id, int col, uint64_t missing,
                      uint64_t invalid, uint64_t nan,
                      uint64_t first_invalid_row)
{
    size_t at = id * (size_t)t->ncols + (size_t)col;
    if (t->direct)
        stats_part_counts(&t->part[at], missing, invalid, nan,
                          first_invalid_row);
    else
        stats_add_counts(&t->st[at], missing, invalid, nan, first_invalid_row);
}

int group_profile_text(group_table *t, size_t id, int col, const char *s,
                       size_t n)
{
    col_prof *p = &t->prof[id * (size_t)t->ncols + (size_t)col];
    size_t before = profile_bytes(p);
    int rc = profile_add_text(p, s, n);
    t->prof_bytes += profile_bytes(p) - before;
    return rc;
}

int group_profile_numbers(group_table *t, const uint32_t *ids, int col,
                          const double *v, const int32_t *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        col_prof *p = &t->prof[ids[i] * (size_t)t->ncols + (size_t)col];
        size_t before = profile_bytes(p);
        int rc = profile_add_numbers(p, &v[i], r ? &r[i] : NULL, 1);
        t->prof_bytes += profile_bytes(p) - before;
        if (rc)
            return -1;
    }
    return 0;
}

/* src's profile of cell from into dst's of cell at. */
static int merge_prof(group_table *dst, size_t at, const group_table *src,
                      size_t from)
{
    if (!dst->prof || !src->prof)
        return 0;
    size_t before = profile_bytes(&dst->prof[at]);
    int rc = profile_merge(&dst->prof[at], &src->prof[from]);
    dst->prof_bytes += profile_bytes(&dst->prof[at]) - before;
    return rc;
}

/* src's cell from into dst's cell at, both direct. */
static int merge_direct(group_table *dst, size_t at, const group_table *src,
                        size_t from, uint64_t row_offset)
{
    if (src->st &&
        (need_st(dst) || stats_merge(&dst->st[at], &src->st[from], row_offset)))
        return -1;
    if (!src->direct || src->dropped)
        return 0;
    if (dst->dropped) /* never: a finished table takes no running one */
        return -1;
    stats_part_merge(&dst->part[at], &src->part[from], row_offset);
    return group_sum_merge(&dst->sum[at], &src->sum[from]);
}

/* src's kept values, already in src's statistics, into dst's. */
static int merge_vals(group_table *t, group_vals *dst, const group_vals *src,
                      uint64_t row_offset)
{
    for (size_t i = 0; i < src->n; i++)
        if (put_value(t, dst, src->d[i], src->r[i], src->row[i] + row_offset))
            return -1;
    dst->done = dst->n;
    return 0;
}

void group_drop_parts(group_table *t)
{
    if (!t->direct || !t->st)
        return;
    for (size_t i = 0; t->sum && i < t->n * (size_t)t->ncols; i++)
        group_sum_free(&t->sum[i]);
    free(t->part);
    free(t->sum);
    t->part = NULL;
    t->sum = NULL;
    t->dropped = 1;
}

/* A large table's groups lie anywhere in memory, so a merge into it
 * would wait for each group's lines in turn: they are asked for ahead,
 * first the slot a hash points at, then (once that is in) the lines of
 * the group it names, most often the one sought, then its key. */
#define ASK_SLOT 24
#define ASK_GROUP 12
#define ASK_KEY 4

static void ask(const void *p, size_t bytes)
{
    __builtin_prefetch(p, 1);
    __builtin_prefetch((const char *)p + bytes - 1, 1);
}

static void ask_slot(const group_table *t, uint64_t hash)
{
    if (t->nslots)
        __builtin_prefetch(&t->slot[(size_t)hash & (t->nslots - 1)]);
}

/* The group the first slot of hash names, or SIZE_MAX. */
static size_t slot_group(const group_table *t, uint64_t hash)
{
    uint64_t s = t->nslots ? t->slot[(size_t)hash & (t->nslots - 1)] : 0;
    return s ? (size_t)(s & UINT32_MAX) - 1 : SIZE_MAX;
}

static void ask_group(const group_table *t, uint64_t hash)
{
    size_t g = slot_group(t, hash), nc = (size_t)t->ncols;
    if (g == SIZE_MAX)
        return;
    __builtin_prefetch(&t->key_off[g]);
    __builtin_prefetch(&t->key_len[g]);
    __builtin_prefetch(&t->rows[g], 1);
    if (t->first)
        __builtin_prefetch(&t->first[g], 1);
    if (t->part)
        ask(&t->part[g * nc], nc * sizeof *t->part);
    if (t->sum)
        ask(&t->sum[g * nc], nc * sizeof *t->sum);
    if (t->st)
        ask(&t->st[g * nc], nc * sizeof *t->st);
}

void group_ask(const group_table *t, size_t id)
{
    size_t nc = (size_t)t->ncols;
    if (t->part)
        ask(&t->part[id * nc], nc * sizeof *t->part);
    if (t->sum)
        ask(&t->sum[id * nc], nc * sizeof *t->sum);
    if (t->st)
        ask(&t->st[id * nc], nc * sizeof *t->st);
}

static void ask_key(const group_table *t, uint64_t hash)
{
    size_t g = slot_group(t, hash);
    if (g != SIZE_MAX)
        __builtin_prefetch(t->keys + t->key_off[g]);
}

/* Whether a and b hold the same arrays (made alike, neither flushed nor
 * dropped since), so that cells move between them as bytes. */
static int alike(const group_table *a, const group_table *b)
{
    /* the per-cell arrays follow from these once a table has groups */
    return a->ncols == b->ncols && a->what == b->what && a->keep == b->keep &&
           a->direct == b->direct && a->dropped == b->dropped &&
           !a->st == !b->st && !a->first == !b->first &&
           a->profiled == b->profiled && a->counting == b->counting;
}

/* n items of size sz from src's array to dst's, after dst's used ones. */
static void move_items(void *dst, size_t used, const void *src, size_t n,
                       size_t sz)
{
    if (dst && src && n)
        memcpy((char *)dst + used * sz, src, n * sz);
}

/* The arrays of the groups t holds no more, freed: their cells' memory
 * belongs to another table now. */
static void forget_vals(group_table *t, size_t from)
{
    for (size_t i = from * (size_t)t->ncols;
         t->val && i < t->inited * (size_t)t->ncols; i++)
        vals_free(&t->val[i]);
    if (t->inited > from)
        t->inited = from;
}

int group_table_adopt(group_table *dst, group_table *src)
{
    if (!src->n || !alike(dst, src)) {
        int bad = group_merge(dst, src, 0);
        group_table_free(src);
        return bad ? -1 : 0;
    }
    size_t n = src->n, nc = (size_t)dst->ncols, at = dst->n;
    if (room_for(dst, n, src->keys_used))
        return -1;
    forget_vals(dst, at); /* the arrays there are overwritten */
    forget_vals(src, n);
    if (src->keys_used)
        memcpy(dst->keys + dst->keys_used, src->keys, src->keys_used);
    for (size_t g = 0; g < n; g++)
        dst->key_off[at + g] = src->key_off[g] + dst->keys_used;
    dst->keys_used += src->keys_used;
    move_items(dst->key_len, at, src->key_len, n, sizeof *dst->key_len);
    move_items(dst->hash, at, src->hash, n, sizeof *dst->hash);
    move_items(dst->rows, at, src->rows, n, sizeof *dst->rows);
    move_items(dst->first, at, src->first, n, sizeof *dst->first);
    move_items(dst->st, at * nc, src->st, n * nc, sizeof *dst->st);
    move_items(dst->part, at * nc, src->part, n * nc, sizeof *dst->part);
    move_items(dst->sum, at * nc, src->sum, n * nc, sizeof *dst->sum);
    move_items(dst->val, at * nc, src->val, n * nc, sizeof *dst->val);
    move_items(dst->prof, at * nc, src->prof, n * nc, sizeof *dst->prof);
    dst->n += n;
    if (dst->val)
        dst->inited = dst->n;
    dst->values += src->values;
    dst->prof_bytes += src->prof_bytes;
    src->n = src->inited = 0; /* its cells are dst's now */
    group_table_free(src);
    int grown = 0;
    while (2 * dst->n > dst->nslots) {
        if (grow_slots(dst)) /* places every group */
            return -1;
        grown = 1;
    }
    for (size_t g = at; !grown && g < dst->n; g++)
        place(dst, g);
    return 0;
}

/* The group of src at place i of the merge: ids[i], or i (ids NULL). */
static size_t nth(const uint32_t *ids, size_t i)
{
    return ids ? ids[i] : i;
}

/* The lines in dst of src's group at place i + k of the merge (n places)
 * asked for, k of ASK_*. */
static void ask_ahead(group_table *dst, const group_table *src,
                      const uint32_t *ids, size_t i, size_t n)
{
    if (i + ASK_SLOT < n)
        ask_slot(dst, src->hash[nth(ids, i + ASK_SLOT)]);
    if (i + ASK_GROUP < n)
        ask_group(dst, src->hash[nth(ids, i + ASK_GROUP)]);
    if (i + ASK_KEY < n)
        ask_key(dst, src->hash[nth(ids, i + ASK_KEY)]);
}

int group_merge(group_table *dst, const group_table *src, uint64_t row_offset)
{
    return group_merge_ids(dst, src, NULL, src->n, row_offset);
}

int group_merge_ids(group_table *dst, const group_table *src,
                    const uint32_t *ids, size_t n, uint64_t row_offset)
{
    size_t nc = (size_t)dst->ncols;
    for (size_t i = 0; i < n; i++) {
        size_t id, g = nth(ids, i);
        ask_ahead(dst, src, ids, i, n);
        if (group_find(dst, group_key(src, g), src->key_len[g], src->hash[g],
                       &id))
            return -1;
        dst->rows[id] += src->rows[g];
        if (dst->first && src->first && src->first[g] < dst->first[id])
            dst->first[id] = src->first[g];
        for (size_t k = 0; k < nc; k++) {
            if (merge_prof(dst, id * nc + k, src, g * nc + k))
                return -1;
            if (dst->direct) {
                if (merge_direct(dst, id * nc + k, src, g * nc + k, row_offset))
                    return -1;
                continue;
            }
            if (stats_merge(&dst->st[id * nc + k], &src->st[g * nc + k],
                            row_offset))
                return -1;
            if (dst->keep && merge_vals(dst, &dst->val[id * nc + k],
                                        &src->val[g * nc + k], row_offset))
                return -1;
        }
    }
    return 0;
}

typedef struct first_id {
    uint64_t first;
    size_t id;
} first_id;

static int cmp_first(const void *x, const void *y)
{
    const first_id *a = x, *b = y;
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* *p's items (per of size sz each per group; room for room groups and
 * one item more) in the order of o; NULL stays NULL. */
static void *reorder(void *p, size_t sz, size_t per, const first_id *o,
                     size_t n, size_t room)
{
    if (!p)
        return NULL;
    char *q = malloc(room * per * sz + sz);
    for (size_t i = 0; q && i < n; i++)
        memcpy(q + i * per * sz, (char *)p + o[i].id * per * sz, per * sz);
    return q;
}

/* Each per-group array, then each per-cell array, in the order of o:
 * every new one made before any old one goes. */
static int apply_order(group_table *t, const first_id *o)
{
    size_t n = t->n, cap = t->cap, nc = (size_t)t->ncols;
    void **arr[] = {
        (void **)&t->key_off, (void **)&t->key_len, (void **)&t->hash,
        (void **)&t->rows,    (void **)&t->first,   (void **)&t->st,
        (void **)&t->val,     (void **)&t->part,    (void **)&t->sum,
        (void **)&t->prof,    (void **)&t->q};
    size_t sz[] = {sizeof *t->key_off, sizeof *t->key_len,  sizeof *t->hash,
                   sizeof *t->rows,    sizeof *t->first,    sizeof *t->st,
                   sizeof *t->val,     sizeof *t->part,     sizeof *t->sum,
                   sizeof *t->prof,    t->nq * sizeof *t->q};
    enum { NARR = sizeof sz / sizeof sz[0], CELLS_FROM = 5 };
    void *made[NARR];
    int bad = 0;
    for (int i = 0; i < NARR; i++) {
        size_t per = i >= CELLS_FROM ? nc : 1;
        made[i] = reorder(*arr[i], sz[i], per, o, n, cap);
        bad |= *arr[i] && !made[i];
    }
    for (int i = 0; i < NARR; i++) {
        if (bad) {
            free(made[i]);
            continue;
        }
        free(*arr[i]);
        *arr[i] = made[i];
    }
    return bad ? -1 : 0;
}

int group_table_by_first(group_table *t)
{
    if (!t->first || t->n < 2)
        return 0;
    first_id *o = malloc(t->n * sizeof *o);
    if (!o)
        return -1;
    for (size_t i = 0; i < t->n; i++)
        o[i] = (first_id){t->first[i], i};
    qsort(o, t->n, sizeof *o, cmp_first);
    /* value arrays set up past the groups (a cleared table's) go first */
    for (size_t i = t->n * (size_t)t->ncols;
         t->val && i < t->inited * (size_t)t->ncols; i++)
        vals_free(&t->val[i]);
    if (t->inited > t->n)
        t->inited = t->n;
    int bad = apply_order(t, o);
    free(o);
    if (bad)
        return -1;
    memset(t->slot, 0, t->nslots * sizeof *t->slot);
    for (size_t id = 0; id < t->n; id++)
        place(t, id);
    return 0;
}

static uint64_t map_row(uint64_t (*map)(void *, uint64_t), void *ctx,
                        uint64_t row)
{
    return row ? map(ctx, row) : 0;
}

#define MAP_ROWS(x)                                                            \
    do {                                                                       \
        (x)->min_row = map_row(map, ctx, (x)->min_row);                        \
        (x)->max_row = map_row(map, ctx, (x)->max_row);                        \
        (x)->min_row_int = map_row(map, ctx, (x)->min_row_int);                \
        (x)->max_row_int = map_row(map, ctx, (x)->max_row_int);                \
        (x)->first_invalid_row = map_row(map, ctx, (x)->first_invalid_row);    \
    } while (0)

void group_table_map_rows(group_table *t, uint64_t (*map)(void *, uint64_t),
                          void *ctx)
{
    for (size_t i = 0; i < t->n * (size_t)t->ncols; i++) {
        if (t->part)
            MAP_ROWS(&t->part[i]);
        if (t->st)
            MAP_ROWS(&t->st[i]);
        for (size_t k = 0; t->val && k < t->val[i].n; k++)
            t->val[i].row[k] = map_row(map, ctx, t->val[i].row[k]);
    }
}

size_t group_table_bytes(const group_table *t)
{
    size_t per =
        sizeof(size_t) + sizeof(uint32_t) + 2 * sizeof(uint64_t) +
        (size_t)t->ncols *
            (t->direct
                 ? (t->dropped ? 0 : sizeof(col_part) + sizeof(group_sum)) +
                       (t->st ? sizeof(col_stats) : 0)
                 : sizeof(col_stats) + sizeof(group_vals));
    /* values: as their arrays grow, up to twice their room */
    if (t->profiled)
        per += (size_t)t->ncols * sizeof(col_prof);
    return t->cap * per + t->keys_room + t->nslots * sizeof(uint64_t) +
           t->prof_bytes +
           t->values * (sizeof(double) + sizeof(int32_t) + sizeof(uint64_t)) *
               2;
}
