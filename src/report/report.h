/* Writes the results: an aligned table for people (histograms drawn as
 * bars), or TSV, CSV or JSON for programs. Numbers print in the shortest
 * form that reads back to the same double; the sum, min and max of an
 * integer column (col_summary.is_int) print as exact integers. The JSON
 * document follows DESIGN.md's contract. */
#ifndef COLSTAT_SRC_REPORT_H
#define COLSTAT_SRC_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "src/stats/stats.h"

typedef enum out_format { FMT_TABLE, FMT_TSV, FMT_CSV, FMT_JSON } out_format;

typedef struct report_col {
    const char *name;
    int index; /* 1-based position in the input */
    col_summary s;
    const hist *h; /* NULL unless STAT_HIST */
} report_col;

/* width: terminal columns for the table's bars (80 when unknown).
 * Returns 0, or -1 when writing failed (errno set). */
int report_write(FILE *f, out_format fmt, unsigned what, uint64_t rows,
                 const report_col *cols, int ncols, int width);

/* Shortest decimal that strtod reads back as v ("inf", "-inf", "nan" for
 * the non-finite). Returns the length written (buf of 32 bytes is enough). */
int format_double(char *buf, size_t len, double v);

#endif
