/* Which input fields become output columns, and how each input's fields
 * map to them.
 *
 * -c LIST is comma-separated items, blanks around each ignored:
 *   NAME     every field of that name (an exact name wins over any other
 *            reading of the item: a column headed 2020 is selected by 2020)
 *   N, N-M, N-   1-based indices and ranges ("N-": to the last field)
 *   /REGEX/  every field whose name matches the POSIX extended regular
 *            expression (it ends at a '/' followed by a comma or the end)
 *   !ITEM    excludes what ITEM selects
 * The selection is the fields the items select, in the order first
 * selected, each once, less those the exclusions select; with only
 * exclusions (or no list), the default less those. The default is every
 * field the sample shows numbers in (CSV_NUMBERS), then, tentatively,
 * those it saw no value in (CSV_UNSEEN): the engine reports a tentative
 * column only if it turns out to hold numbers. */
#ifndef COLSTAT_SRC_COLUMNS_H
#define COLSTAT_SRC_COLUMNS_H

#include "io/base/error.h"
#include "io/csv/csv_reader.h"

/* The output columns: learned from the first input that shows its fields,
 * then matched in every input. Columns [0, nfirm) are the chosen ones in
 * output order; [nfirm, ncols) the tentative ones, in field order. */
typedef struct col_table {
    int ncols, nfirm;
    char **names;  /* as the first input names them */
    int *fields;   /* 0-based field in the first input */
    int *rank;     /* 0 for the first field of its name, 1 for the second... */
    char **labels; /* how messages name it: 'price', or 'value' (#3) where
                      the first input has more fields of that name */
    int by_name;   /* later inputs with a header are matched by name */
    /* The default's fields that the sample showed no numbers in (not
     * those an exclusion left out): messages name them, with why */
    int nleft;
    int *left;          /* 0-based fields, in field order */
    char **left_labels; /* as labels are */
} col_table;

/* A field sample (numeric[f]) says one of CSV_TEXT, CSV_NUMBERS,
 * CSV_UNSEEN (io/csv/csv_reader.h). named: the names come from a header line
 * (messages then suggest --header when a name is not found). */
typedef struct col_fields {
    char *const *names;
    const unsigned char *numeric;
    int n;
    int named;
    const char *file;   /* for messages */
    int binary;         /* binary records: no header to suggest */
    const csv_why *why; /* what the sample saw (NULL: unsampled) */
    int with_text;      /* the default takes the text fields too, as
                           chosen ones, in field order with the numbers' */
} col_fields;

/* Resolves list (NULL: the default) against the first input's fields
 * into t. Returns CS_OK, or CS_EUSAGE naming the item that does not
 * resolve (CS_ENOMEM when out of memory). */
int columns_learn(col_table *t, const char *list, const col_fields *in,
                  cs_error *e);
void columns_free(col_table *t);

/* dst: src's columns k where pick[k], in src's order (text columns'
 * fields, delivered as row_keys). CS_ENOMEM when out of memory. */
int columns_subset(col_table *dst, const col_table *src,
                   const unsigned char *pick, cs_error *e);

/* dst: a's columns (a NULL: none), then b's columns k where pick[k], in
 * b's order (--group-by's keys, then the text columns' fields not among
 * them, all delivered as row_keys). CS_ENOMEM when out of memory. */
int columns_join(col_table *dst, const col_table *a, const col_table *b,
                 const unsigned char *pick, cs_error *e);

/* Leaves fields[0, n) (0-based fields of the first input) out of t's
 * columns and out of its left-out notes: --group-by's keys, which the
 * default does not summarise. */
void columns_drop(col_table *t, const int *fields, int n);

/* Fills map[0, nmap) for one input: map[f] = the column of its field f,
 * or -1. By name when the table and the input have headers (the rank-th
 * field of a column's name), else by index (nmap must then exceed every
 * t->fields[j], so that fields a short record lacks still map and count
 * as missing). Returns CS_OK, or CS_EDATA when a named column is not in
 * the input. */
int columns_map(const col_table *t, const col_fields *in, int nmap, int *map,
                cs_error *e);

#endif
