/* -c over a result's columns (engine.h: engine_select_columns), for
 * --merge: the states' columns are the input's fields they came from, so
 * -c's grammar (columns.h) is resolved against those fields, by the same
 * code as a run's, and indices keep meaning the input's fields. */
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_reader.h"
#include "src/engine/columns.h"
#include "src/engine/engine.h"

/* The column of r at 1-based field index, or -1. */
static int column_at(const engine_result *r, int index)
{
    for (int k = 0; k < r->ncols; k++)
        if (r->cols[k].index == index)
            return k;
    return -1;
}

/* The fields up to the last column's: the columns' names where they are,
 * "" (and text, so no default picks it) between them. A text column is
 * text here too: a list of `!ITEM`s alone (the default less them) leaves
 * it out, as a run without -a does (--merge takes no -a). */
static int fields_of(const engine_result *r, col_fields *in, char ***names,
                     unsigned char **numeric)
{
    int n = 0;
    for (int k = 0; k < r->ncols; k++)
        n = r->cols[k].index > n ? r->cols[k].index : n;
    *names = malloc((size_t)(n ? n : 1) * sizeof **names);
    *numeric = calloc((size_t)(n ? n : 1), 1);
    if (!*names || !*numeric)
        return -1;
    for (int f = 0; f < n; f++)
        (*names)[f] = "";
    for (int k = 0; k < r->ncols; k++) {
        (*names)[r->cols[k].index - 1] = r->cols[k].name;
        (*numeric)[r->cols[k].index - 1] =
            r->cols[k].kind == COL_TEXT ? CSV_TEXT : CSV_NUMBERS;
    }
    memset(in, 0, sizeof *in);
    in->names = *names;
    in->numeric = *numeric;
    in->n = n;
    in->named = 1;
    return 0;
}

/* r's columns become those of t that r has, in t's order (a range or a
 * regular expression also spans the fields between r's columns, which no
 * state holds: those are passed over); the others' texts freed (their
 * statistics stay in r's held arrays, freed with r). */
static int keep(engine_result *r, const col_table *t, cs_error *e)
{
    engine_column *cols = calloc((size_t)t->nfirm + 1, sizeof *cols);
    char *taken = calloc((size_t)r->ncols + 1, 1);
    if (!cols || !taken) {
        free(cols);
        free(taken);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    int n = 0;
    for (int j = 0; j < t->nfirm; j++) {
        int k = column_at(r, t->fields[j] + 1);
        if (k >= 0) {
            cols[n++] = r->cols[k];
            taken[k] = 1;
        }
    }
    for (int k = 0; n && k < r->ncols; k++)
        if (!taken[k]) {
            free(r->cols[k].name);
            free(r->cols[k].label);
            free(r->cols[k].invalid_file);
            free(r->cols[k].invalid_text);
        }
    free(taken);
    if (!n) {
        free(cols);
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--columns: selects no column the states hold");
    }
    free(r->cols);
    r->cols = cols;
    r->ncols = n;
    return CS_OK;
}

/* The -c list resolved against r's columns into t. */
static int resolve(const engine_result *r, const char *list, col_table *t,
                   cs_error *e)
{
    col_fields in;
    char **names = NULL;
    unsigned char *numeric = NULL;
    memset(t, 0, sizeof *t);
    int rc = fields_of(r, &in, &names, &numeric)
                 ? cs_fail(e, CS_ENOMEM, "", 0, "out of memory")
                 : columns_learn(t, list, &in, e);
    free(names);
    free(numeric);
    return rc;
}

int engine_select_columns(engine_result *r, const char *list, cs_error *e)
{
    col_table t;
    int rc = resolve(r, list, &t, e);
    if (rc == CS_OK)
        rc = keep(r, &t, e);
    columns_free(&t);
    return rc;
}

int engine_columns_wanted(const engine_result *r, const char *list,
                          unsigned char *want, cs_error *e)
{
    col_table t;
    int rc = resolve(r, list, &t, e);
    memset(want, 0, (size_t)r->ncols);
    for (int j = 0; rc == CS_OK && j < t.nfirm; j++) {
        int k = column_at(r, t.fields[j] + 1);
        if (k >= 0)
            want[k] = 1;
    }
    columns_free(&t);
    return rc;
}
