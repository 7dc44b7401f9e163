/* Values kept for statistics that need the whole column first (histogram
 * edges from the final min and max): per column, a list of blocks in input
 * order. Appending never moves earlier values, and blocks pass from one
 * store to another without copying (a job's store into the run's). */
#ifndef COLSTAT_SRC_STATS_KEPT_H
#define COLSTAT_SRC_STATS_KEPT_H

#include <stddef.h>

typedef struct kept kept;

kept *kept_new(int ncols); /* NULL: out of memory */

/* Appends v[0, n) to column col, NaN left out. -1: out of memory. */
int kept_add(kept *k, int col, const double *v, size_t n);

/* src's values follow dst's, column by column; src is left empty. -1:
 * out of memory (nothing moved). */
int kept_move(kept *dst, kept *src);

/* Block i of column col (n values), NULL past the last. */
const double *kept_block(const kept *k, int col, size_t i, size_t *n);

void kept_free(kept *k);

#endif
