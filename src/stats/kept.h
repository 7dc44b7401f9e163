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
#ifndef COLSTAT_SRC_STATS_KEPT_H
#define COLSTAT_SRC_STATS_KEPT_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"

typedef struct kept kept;

typedef struct kept_limits {
    size_t budget;      /* bytes of values and corrections in memory */
    int spill;          /* past the budget: 1 spill to a file, 0 drop */
    const char *tmpdir; /* where the file is made (NULL or "": /tmp); it
                           is unlinked at once */
} kept_limits;

/* lim NULL: no limit. NULL when out of memory. */
kept *kept_new(int ncols, const kept_limits *lim);

/* Appends d[0, n) to column col, with their corrections r (NULL: all 0);
 * NaN left out. CS_EDATA when out of memory or the file cannot be
 * written. */
int kept_add(kept *k, int col, const double *d, const int32_t *r, size_t n,
             cs_error *e);

/* src's values follow dst's, column by column; src is left empty. On an
 * error nothing is lost that was in dst. */
int kept_move(kept *dst, kept *src, cs_error *e);

int kept_dropped(const kept *k);      /* past a budget without a file */
size_t kept_memory(const kept *k);    /* bytes held in memory */
uint64_t kept_spilled(const kept *k); /* bytes written to the file */
uint64_t kept_values(const kept *k);  /* values held, all columns */

/* Reading the blocks back: any number of threads at once, each with a
 * buffer of its own for the blocks read from the file. */
typedef struct kept_buf {
    double *d;
    int32_t *r;
    size_t cap;
} kept_buf;

size_t kept_nblocks(const kept *k, int col);

/* Block i of column col: *n values at *d, their corrections at *r (NULL:
 * all 0). Valid until the next read into buf, or a change of the store. */
int kept_read(const kept *k, int col, size_t i, kept_buf *buf, const double **d,
              const int32_t **r, size_t *n, cs_error *e);

void kept_buf_free(kept_buf *b);
void kept_free(kept *k);

#endif
