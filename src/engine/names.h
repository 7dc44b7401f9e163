/* An index of an input's field names: the fields that bear a name, in
 * order, found in constant time, so that choosing and matching columns
 * stays linear in the number of fields (a file may have 100000, all of
 * one name). */
#ifndef COLSTAT_SRC_ENGINE_NAMES_H
#define COLSTAT_SRC_ENGINE_NAMES_H

#include <stddef.h>

typedef struct name_index {
    char *const *names; /* the caller's, kept while the index is used */
    int n, nslots;
    int *slot;    /* open addressing: the first field of a name, or -1 */
    int *rank;    /* per field: 0 for the first of its name, 1... */
    int *start;   /* per first field of a name: its group in `members` */
    int *count;   /* per first field of a name: fields of that name */
    int *members; /* the fields, grouped by name, in order */
} name_index;

/* Indexes names[0, n). Returns 0, or -1 when out of memory. */
int names_build(name_index *x, char *const *names, int n);

/* The k-th (0-based) field named s[0, len), or -1 when there are not
 * that many; *count (unless NULL) receives how many there are. */
int names_nth(const name_index *x, const char *s, size_t len, int k,
              int *count);

/* Which field of its name field f is: 0 for the first. */
int names_rank(const name_index *x, int f);

void names_free(name_index *x);

#endif
