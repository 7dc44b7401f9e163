/* Which input fields become output columns. -c LIST holds names, 1-based
 * indices and ranges ("2,4-6,price", "3-" to the last field); without it,
 * every field the sample shows to hold numbers. */
#ifndef COLSTAT_SRC_COLUMNS_H
#define COLSTAT_SRC_COLUMNS_H

#include "io/error.h"

/* The output columns: learned from the first input that shows its fields,
 * then matched in every input. */
typedef struct col_table {
    int ncols;
    char **names; /* as the first input names them */
    int *fields;  /* 0-based field in the first input */
    int by_name;  /* later inputs with a header are matched by name */
} col_table;

/* Resolves list (NULL: the numeric default) against the first input's
 * fields into t. named: the names come from a header line. Returns CS_OK
 * or the error of columns_select. */
int columns_learn(col_table *t, const char *list, char *const *names,
                  const unsigned char *numeric, int nfields, int named,
                  const char *file, cs_error *e);
void columns_free(col_table *t);

/* Resolves list (NULL: the numeric default) against a file's fields.
 * *fields receives the 0-based fields in output order (malloc'ed).
 * Returns CS_OK, or CS_EUSAGE naming what does not resolve (file names
 * the input in the message). */
int columns_select(const char *list, char *const *names,
                   const unsigned char *numeric, int nfields, const char *file,
                   int **fields, int *nout, cs_error *e);

/* Fills map[0, nmap) for one file of the table: map[f] = output column
 * for its field f, or -1. By name when the files have headers, else by
 * index (nmap must then exceed every out_fields[j], so that fields a
 * short file lacks still map and count as missing). Returns CS_OK, or
 * CS_EDATA when a named column is not in the file. */
int columns_map(char *const *out_names, const int *out_fields, int nout,
                int by_name, char *const *names, int nfields, const char *file,
                int nmap, int *map, cs_error *e);

#endif
