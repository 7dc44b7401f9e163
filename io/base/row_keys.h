/* The group-by keys of a row batch's rows: for each row, the text of each key
 * field (after CSV unquoting, byte for byte), or none for a missing key,
 * and the fields that did not enter a column's statistics, by row, so
 * that a group's missing, invalid and NaN counts can be told apart
 * (the row batch holds them per column only). Filled by the CSV reader when a
 * row batch points to one (row_batch.keys); NULL there costs nothing. */
#ifndef COLSTAT_IO_ROW_KEYS_H
#define COLSTAT_IO_ROW_KEYS_H

#include <stddef.h>
#include <stdint.h>

#define KEY_MISSING UINT32_MAX

/* A field that did not enter a column: row of the batch, column, kind
 * (num_kind: NUM_MISSING, NUM_INVALID or NUM_NAN). */
typedef struct key_bad {
    uint32_t row;
    int32_t col;
    uint8_t kind;
} key_bad;

typedef struct row_keys {
    /* which fields are keys: kmap[f] is the key index of field f, or -1
       (f < nkmap); the reader's, set before each block */
    const int *kmap;
    int nkmap;
    int nkeys;
    size_t cap;    /* rows */
    uint32_t *off; /* [cap * nkeys]: where each key's text begins in text */
    uint32_t *len; /* [cap * nkeys]: its length, KEY_MISSING when missing */
    char *text;    /* the keys' bytes */
    size_t used, room;
    key_bad *bad;
    size_t nbad, bad_room;
    int failed; /* out of memory: the batch is unusable */
} row_keys;

/* Returns NULL when out of memory. */
row_keys *row_keys_new(int nkeys, size_t cap);
void row_keys_free(row_keys *k);
void row_keys_clear(row_keys *k); /* no rows */

/* Row row's key i: s[0, n), or missing (s NULL). */
void row_keys_put(row_keys *k, size_t row, int i, const char *s, size_t n);
/* Row row's keys all missing (a record without those fields). */
void row_keys_row_missing(row_keys *k, size_t row);
void row_keys_bad(row_keys *k, size_t row, int col, int kind);

#endif
