/* A row batch is a batch of parsed rows, column by column: the unit every
 * backend consumes. Readers fill it; a backend reduces it. A value that did
 * not enter the statistics (missing, invalid, NaN) is stored as NaN, and the
 * per-column counters say which it was: backends only skip NaN.
 *
 * Each value is a double plus an integer correction (parse_number.h,
 * parse_number_corr: integers up to 2^64 stay exact). Corrections are rare,
 * so a column's are kept only from its first nonzero one on: until then
 * has_corr[c] is 0 and corr[c] is not read. */
#ifndef COLSTAT_IO_BASE_ROW_BATCH_H
#define COLSTAT_IO_BASE_ROW_BATCH_H

#include <stddef.h>
#include <stdint.h>

struct row_keys;

/* Where the column arrays live: plain malloc, or page-locked memory that a
 * GPU backend supplies (so host-to-device copies run at full speed). */
typedef struct row_batch_alloc {
    void *(*alloc)(size_t bytes, void *ctx); /* NULL on failure */
    void (*free)(void *p, void *ctx);
    void *ctx;
} row_batch_alloc;

typedef struct row_batch {
    size_t nrows; /* rows held */
    size_t cap;   /* rows each column array can hold */
    int ncols;
    double **col;       /* col[c][r] */
    int32_t **corr;     /* corr[c][r], while has_corr[c];
                           plain memory, not row_batch_alloc's */
    uint64_t *has_corr; /* per column: corr[c] is in use */
    int16_t **off;      /* off[c][r], while has_off[c]: the UTC offset in
                           minutes a datetime was written in (plain memory) */
    uint64_t *has_off;  /* per column: off[c] is in use */
    uint64_t *missing, *invalid, *nan; /* per column, over the rows held */
    uint64_t *first_invalid;           /* per column: 1-based row in this
                                          row batch of the first invalid field,
                                          0 when none */
    uint64_t repeats;      /* repeated header lines skipped (no rows) */
    uint64_t repeat_line;  /* the first one's physical line, 0: none */
    struct row_keys *keys; /* group-by keys (io/base/row_keys.h), or NULL;
                                row_batch_free frees it */
} row_batch;

/* a == NULL means malloc. Returns 0, or -1 when out of memory. */
int row_batch_init(row_batch *c, int ncols, size_t cap,
                   const row_batch_alloc *a);
void row_batch_clear(row_batch *c); /* nrows and counters to zero */
void row_batch_free(row_batch *c, const row_batch_alloc *a);

/* Puts column col's corrections in use, those of rows [0, rows) zero
 * (rows <= cap): a reader calls it when a first nonzero correction
 * appears. */
void row_batch_corr_start(row_batch *c, int col, size_t rows);

/* Puts column col's offsets in use, those of rows [0, rows) zero, as
 * row_batch_corr_start: a reader calls it at a first nonzero offset. */
void row_batch_off_start(row_batch *c, int col, size_t rows);

/* Appends src's values, corrections and offsets (not its counters) to dst,
 * which must have room for them. */
void row_batch_append_values(row_batch *dst, const row_batch *src);

#endif
