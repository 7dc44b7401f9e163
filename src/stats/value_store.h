/* Values kept for statistics that need the whole column first: histogram
 * edges from the final min and max, and the passes of the quantile
 * selection (quantile.h). Per column, a list of blocks of values, NaN left
 * out, each with its values' corrections r (stats.h) when one of them is
 * nonzero. Appending never moves earlier values, and blocks pass from one
 * store to another without copying (a job's store into the run's).
 *
 * A store may have limits: a budget of bytes in memory and, past it,
 * either a temporary file that takes the blocks that do not fit (spill:
 * for input that cannot be read twice), or nothing (drop: every value is
 * freed and the store keeps no more; the caller reads its input again
 * instead). A store without limits (a job's) keeps all in memory. */
#ifndef COLSTAT_SRC_STATS_VALUE_STORE_H
#define COLSTAT_SRC_STATS_VALUE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"

typedef struct value_store value_store;

typedef struct vstore_limits {
    size_t budget;      /* bytes of values and corrections in memory */
    int spill;          /* past the budget: 1 spill to a file, 0 drop */
    const char *tmpdir; /* where the file is made (NULL or "": /tmp); it
                           is unlinked at once */
} vstore_limits;

/* lim NULL: no limit. NULL when out of memory. */
value_store *vstore_new(int ncols, const vstore_limits *lim);

/* Appends d[0, n) to column col, with their corrections r (NULL: all 0);
 * NaN left out. CS_ENOMEM when out of memory, CS_EDATA when the file cannot be
 * written. */
int vstore_add(value_store *k, int col, const double *d, const int32_t *r,
               size_t n, cs_error *e);

/* src's values follow dst's, column by column; src is left empty. On an
 * error nothing is lost that was in dst. */
int vstore_move(value_store *dst, value_store *src, cs_error *e);

int vstore_dropped(const value_store *k);   /* past a budget without a file */
size_t vstore_memory(const value_store *k); /* bytes held in memory */
uint64_t vstore_spilled(const value_store *k); /* bytes written to the file */
uint64_t vstore_values(const value_store *k);  /* values held, all columns */

/* Reading the blocks back: any number of threads at once, each with a
 * buffer of its own for the blocks read from the file. */
typedef struct vstore_buf {
    double *d;
    int32_t *r;
    size_t cap;
} vstore_buf;

size_t vstore_nblocks(const value_store *k, int col);

/* Block i of column col: *n values at *d, their corrections at *r (NULL:
 * all 0). Valid until the next read into buf, or a change of the store. */
int vstore_read(const value_store *k, int col, size_t i, vstore_buf *buf,
                const double **d, const int32_t **r, size_t *n, cs_error *e);

void vstore_buf_free(vstore_buf *b);
void vstore_free(value_store *k);

#endif
