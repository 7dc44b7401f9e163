/* Group-by state: the groups of a run (or of one job), found by their
 * key bytes, each with a col_stats per column and, when the statistics
 * need every value (quantiles, histograms), the group's values. Without
 * those (and without squares) a table is direct: each value goes at once
 * into its group's col_part and group_sum (small, no batches), and
 * group_flush makes the col_stats from them.
 *
 * A key is an opaque byte string (the engine encodes its key columns in
 * it). Groups are found by an open-addressing hash table (linear probing)
 * over a multiply-and-fold hash of the key's 8-byte words (group_hash),
 * collisions resolved by comparing the key bytes. Group ids are dense, in
 * order of first appearance. */
#ifndef COLSTAT_SRC_STATS_GROUP_TABLE_H
#define COLSTAT_SRC_STATS_GROUP_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "group_sum.h"
#include "profile.h"
#include "quantile.h"
#include "stats.h"

/* A group's values of one column: d + r each (stats.h), and their rows.
 * Values [0, done) are in the group's col_stats; [done, n) wait to be
 * added in one batch (a single value's add costs as much as hundreds in
 * one call). Without keep, the added ones are dropped. */
typedef struct group_vals {
    double *d;
    int32_t *r;
    uint64_t *row;
    size_t n, done, cap;
} group_vals;

typedef struct group_table {
    int ncols;
    unsigned what;
    int keep; /* keep every value */
    /* no statistic needs a batch (no values kept, no squares): each value
       goes straight into its group's part and sum, which group_flush
       moves into st (allocated then) */
    int direct;
    col_part *part; /* [cap * ncols], when direct (NULL once dropped) */
    group_sum *sum; /* [cap * ncols], when direct: of STAT_SUM, STAT_MEAN */
    int dropped;    /* group_drop_parts: st holds everything */
    size_t n, cap;
    size_t inited; /* groups whose val arrays were set up (clear keeps them) */
    /* per group */
    size_t *key_off;
    uint32_t *key_len;
    uint64_t *hash;
    uint64_t *rows;
    /* with group_table_track_first: the least row (in the caller's
       numbering) seen in the group, UINT64_MAX until the caller sets it;
       else NULL */
    uint64_t *first;
    col_stats *st;   /* [cap * ncols]; direct: NULL until group_flush */
    group_vals *val; /* [cap * ncols] */
    char *keys;
    size_t keys_used, keys_room;
    uint64_t *slot; /* group id + 1 | the hash's high half; 0 empty */
    size_t nslots;
    size_t values; /* kept values, all groups */
    /* with group_table_profile: a col_prof per group and column (text
       columns, --distinct, --mode, --top), and the bytes they hold */
    col_prof *prof;
    int profiled, counting;
    size_t prof_bytes;
    /* with group_table_quantiles: each cell's nq quantiles made elsewhere
       (the device selects them from its sorted values), [cap * ncols *
       nq], in place of values; else NULL */
    qres *q;
    size_t nq;
} group_table;

uint64_t group_hash(const char *key, size_t len);

void group_table_init(group_table *t, int ncols, unsigned what, int keep);
/* Makes t direct where its statistics allow (no values kept, no
 * squares); before its first group. */
void group_table_direct(group_table *t);
void group_table_free(group_table *t);
/* Keeps a profile (profile.h) per group and column, counting values when
 * counting: before its first group. */
void group_table_profile(group_table *t, int counting);

/* Keeps each group's first row (first): before its first group. -1: no
 * memory. */
int group_table_track_first(group_table *t);
/* Group ids renumbered in order of first rows (a tracked table's): the
 * order of first appearance, whatever order the groups came in. -1: no
 * memory (t unchanged). */
int group_table_by_first(group_table *t);
void group_table_clear(group_table *t); /* no groups; memory value_store */

/* Room for n groups more and keys bytes of their keys, made at once (a
 * million groups coming: no growth by doubling). -1: no memory. */
int group_table_reserve(group_table *t, size_t n, size_t keys);

/* Groups made elsewhere (the device), in the table's encoding: keys at
 * keys + key_off[g], key_len[g] bytes (keys_bytes in all), their rows,
 * first rows (when the table tracks them) and cells (part and sum, one
 * per column). */
typedef struct group_taken {
    char *keys;
    size_t keys_bytes;
    const uint64_t *key_off;
    const uint32_t *key_len;
    const uint64_t *rows, *first;
    col_part *part;
    group_sum *sum;
} group_taken;

/* n (> 0) such groups become those of an empty direct table t: t owns
 * g's keys, part and sum (malloc'd; their cells not copied) after. -1:
 * t is not such a table, or no memory (t unchanged, nothing taken). */
int group_table_take(group_table *t, size_t n, group_taken *g);

/* The id of the group of key (hash: group_hash of it), made when new.
 * Returns 0, or -1 when out of memory. */
int group_find(group_table *t, const char *key, size_t len, uint64_t hash,
               size_t *id);

/* Adds value v (+ r) of row `row` of column col to group id: rows in
 * ascending order; the statistics see it by group_flush at the latest.
 * -1: no memory. */
int group_add(group_table *t, size_t id, int col, double v, int32_t r,
              uint64_t row);

/* n values of column col of group id that its statistics already hold
 * (d[i] + r[i]: made elsewhere, the device), kept for its quantiles;
 * their rows are not known (0). -1: no memory, or values still wait. */
int group_vals_append(group_table *t, size_t id, int col, const double *d,
                      const int32_t *r, size_t n);

/* Room for every cell's nq quantiles made elsewhere (t->q, zeroed):
 * after the last group is made. -1: no memory. */
int group_table_quantiles(group_table *t, size_t nq);

/* group_add of each v[i] but NaN (+ r[i]; r NULL: 0), row first_row + i,
 * to group ids[i]: one column of a row batch. -1: no memory. */
int group_add_column(group_table *t, const uint32_t *ids, int col,
                     const double *v, const int32_t *r, size_t n,
                     uint64_t first_row);

/* After group_add_column of the same values: off[i] is row first_row +
 * i's UTC offset (a datetime column with zones, stats.h), taken by the
 * extremes that row holds in its group. -1: no memory. */
int group_add_offsets(group_table *t, const uint32_t *ids, int col,
                      const double *v, const int16_t *off, size_t n,
                      uint64_t first_row);

/* A profiled table's group id's text field s[0, n) of column col (s
 * NULL: missing). -1: no memory. */
int group_profile_text(group_table *t, size_t id, int col, const char *s,
                       size_t n);
/* v[i] (+ r[i]; r NULL: 0) of column col into the profile of group
 * ids[i], NaN skipped. -1: no memory. */
int group_profile_numbers(group_table *t, const uint32_t *ids, int col,
                          const double *v, const int32_t *r, size_t n);

/* Every waiting value into its group's statistics (st). -1: no memory. */
int group_flush(group_table *t);

/* The statistics of a direct, unflushed table's cell (group id *
 * ncols + column) into out (stats_init'ed here: stats_free it), the same
 * as group_flush makes, the table unchanged: a million groups' col_stats
 * made one group at a time as they are written, not all at once. -1: no
 * memory. */
int group_cell_stats(const group_table *t, size_t at, col_stats *out);

/* Asks for group id's cells ahead of their use (a prefetch: a
 * hint, nothing changes): the report visits the groups in key order, at
 * random in memory. */
void group_ask(const group_table *t, size_t id);

/* A flushed direct table's parts and sums freed (its col_stats hold
 * them): a million groups' finished table half the size. It takes no
 * more values; merges of flushed or non-direct tables into it go on. */
void group_drop_parts(group_table *t);

/* dst += src (flushed, or both direct), src's row numbers shifted by
 * row_offset. -1: no memory. */
int group_merge(group_table *dst, const group_table *src, uint64_t row_offset);
/* dst += src where no key of src is in dst (a shard's groups, by their
 * hash): src's groups move to dst's end, their cells as bytes (tables
 * made alike; others merge, group_merge), and src is freed
 * (group_table_free). -1: no memory. */
int group_table_adopt(group_table *dst, group_table *src);
/* group_merge of src's groups ids[0, n) alone, in that order. */
int group_merge_ids(group_table *dst, const group_table *src,
                    const uint32_t *ids, size_t n, uint64_t row_offset);

/* Adds a group's column's fields that did not enter (stats_add_counts). */
void group_add_counts(group_table *t, size_t id, int col, uint64_t missing,
                      uint64_t invalid, uint64_t nan,
                      uint64_t first_invalid_row);

/* Every row number t holds (extremes, first invalid rows, kept values'
 * rows; 0, none, stays 0) replaced by map(ctx, row). map must keep the
 * rows' order: ties between rows were decided by it. */
void group_table_map_rows(group_table *t, uint64_t (*map)(void *, uint64_t),
                          void *ctx);

/* Bytes the table holds, about. */
size_t group_table_bytes(const group_table *t);

static inline const char *group_key(const group_table *t, size_t id)
{
    return t->keys + t->key_off[id];
}

/* a[0, n) == b[0, n), inline: keys are short, a call costs more */
static inline int group_same_bytes(const char *a, const char *b, size_t n)
{
    for (; n >= 8; a += 8, b += 8, n -= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return 0;
    }
    for (; n; n--)
        if (*a++ != *b++)
            return 0;
    return 1;
}

/* Whether group id's key is key[0, len). */
static inline int group_is(const group_table *t, size_t id, const char *key,
                           size_t len)
{
    return t->key_len[id] == len &&
           group_same_bytes(t->keys + t->key_off[id], key, len);
}

#endif
