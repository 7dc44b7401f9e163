/* A chunk is a batch of parsed rows, column by column: the unit every
 * backend consumes. Readers fill it; a backend reduces it. A value that did
 * not enter the statistics (missing, invalid, NaN) is stored as NaN, and the
 * per-column counters say which it was: backends only skip NaN. */
#ifndef COLSTAT_IO_CHUNK_H
#define COLSTAT_IO_CHUNK_H

#include <stddef.h>
#include <stdint.h>

/* Where the column arrays live: plain malloc, or page-locked memory that a
 * GPU backend supplies (so host-to-device copies run at full speed). */
typedef struct chunk_alloc {
    void *(*alloc)(size_t bytes, void *ctx); /* NULL on failure */
    void (*free)(void *p, void *ctx);
    void *ctx;
} chunk_alloc;

typedef struct chunk {
    size_t nrows; /* rows held */
    size_t cap;   /* rows each column array can hold */
    int ncols;
    double **col;                      /* col[c][r] */
    uint64_t *missing, *invalid, *nan; /* per column, over the rows held */
    uint64_t *first_invalid;           /* per column: 1-based row in this
                                          chunk of the first invalid field,
                                          0 when none */
} chunk;

/* a == NULL means malloc. Returns 0, or -1 when out of memory. */
int chunk_init(chunk *c, int ncols, size_t cap, const chunk_alloc *a);
void chunk_clear(chunk *c); /* nrows and counters to zero */
void chunk_free(chunk *c, const chunk_alloc *a);

#endif
