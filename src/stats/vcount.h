/* Exact counts of distinct values: a hash table from a value's bytes (a
 * text's, or a number's canonical key, profile.h) to how often it was
 * seen. Entries keep the order they were first seen in; their bytes live
 * in the table's own arena. */
#ifndef COLSTAT_SRC_STATS_VCOUNT_H
#define COLSTAT_SRC_STATS_VCOUNT_H

#include <stddef.h>
#include <stdint.h>

typedef struct vcount vcount;

vcount *vcount_new(void); /* NULL when out of memory */
void vcount_free(vcount *t);
void vcount_clear(vcount *t); /* no entries; memory kept */

/* key[0, len) seen n more times. Returns 0, or -1 when out of memory. */
int vcount_add(vcount *t, const void *key, size_t len, uint64_t n);

/* key[0, len) seen n more times if it is in t: returns 1, else 0 (t
 * unchanged). */
int vcount_bump(vcount *t, const void *key, size_t len, uint64_t n);

/* dst += src. Returns 0, or -1 when out of memory (dst then holds part
 * of src's counts: the caller gives up). */
int vcount_merge(vcount *dst, const vcount *src);

/* The hash of key[0, len) the table uses (its low bits pick a slot). */
uint64_t vcount_hash(const void *key, size_t len);

size_t vcount_size(const vcount *t);  /* distinct values */
size_t vcount_bytes(const vcount *t); /* memory it holds */

/* Entry i < vcount_size: its bytes and count. */
const char *vcount_key(const vcount *t, size_t i, size_t *len);
uint64_t vcount_count(const vcount *t, size_t i);

#endif
