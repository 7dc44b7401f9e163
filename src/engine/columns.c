#include "columns.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct sel {
    int *f;
    int n, cap;
} sel;

static int sel_push(sel *s, int field)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        int *f = realloc(s->f, (size_t)cap * sizeof *f);
        if (!f)
            return -1;
        s->f = f;
        s->cap = cap;
    }
    s->f[s->n++] = field;
    return 0;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static long to_index(const char *s, size_t n)
{
    if (n > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* An item is N, N-M, N- or a name. A name wins over the numeric reading
 * only when no field is named like that: "2020" selects a column headed
 * 2020 if there is one. */
static int add_item(sel *s, const char *it, size_t n, char *const *names,
                    int nfields, const char *file, cs_error *e)
{
    for (int f = 0; f < nfields; f++)
        if (strlen(names[f]) == n && memcmp(names[f], it, n) == 0)
            return sel_push(s, f) ? cs_fail(e, CS_EDATA, "", 0, "out of memory")
                                  : CS_OK;
    const char *dash = memchr(it, '-', n);
    size_t alen = dash ? (size_t)(dash - it) : n;
    size_t blen = dash ? n - alen - 1 : 0;
    if (all_digits(it, alen) &&
        (!dash || blen == 0 || all_digits(dash + 1, blen))) {
        long lo = to_index(it, alen);
        long hi = dash ? (blen ? to_index(dash + 1, blen) : nfields) : lo;
        if (lo < 1 || hi < lo)
            return cs_fail(e, CS_EUSAGE, "", 0, "--columns: bad range '%.*s'",
                           (int)n, it);
        if (hi > nfields)
            return cs_fail(e, CS_EUSAGE, file, 0,
                           "--columns: column %ld is past the last (%d)", hi,
                           nfields);
        for (long f = lo; f <= hi; f++)
            if (sel_push(s, (int)f - 1))
                return cs_fail(e, CS_EDATA, "", 0, "out of memory");
        return CS_OK;
    }
    return cs_fail(e, CS_EUSAGE, file, 0, "--columns: no column named '%.*s'",
                   (int)n, it);
}

int columns_select(const char *list, char *const *names,
                   const unsigned char *numeric, int nfields, const char *file,
                   int **fields, int *nout, cs_error *e)
{
    sel s = {0};
    int rc = CS_OK;
    if (!list) {
        for (int f = 0; f < nfields && rc == CS_OK; f++)
            if (numeric[f] && sel_push(&s, f))
                rc = cs_fail(e, CS_EDATA, "", 0, "out of memory");
    } else {
        const char *p = list;
        while (rc == CS_OK) {
            const char *end = strchr(p, ',');
            size_t n = end ? (size_t)(end - p) : strlen(p);
            if (n == 0)
                rc = cs_fail(e, CS_EUSAGE, "", 0,
                             "--columns: empty item in '%s'", list);
            else
                rc = add_item(&s, p, n, names, nfields, file, e);
            if (!end)
                break;
            p = end + 1;
        }
    }
    if (rc != CS_OK) {
        free(s.f);
        return rc;
    }
    *fields = s.f;
    *nout = s.n;
    return CS_OK;
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    return p ? memcpy(p, s, n) : NULL;
}

int columns_learn(col_table *t, const char *list, char *const *names,
                  const unsigned char *numeric, int nfields, int named,
                  const char *file, cs_error *e)
{
    memset(t, 0, sizeof *t);
    int rc = columns_select(list, names, numeric, nfields, file, &t->fields,
                            &t->ncols, e);
    if (rc != CS_OK)
        return rc;
    t->names = calloc((size_t)(t->ncols ? t->ncols : 1), sizeof *t->names);
    if (!t->names)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    for (int k = 0; k < t->ncols; k++)
        if (!(t->names[k] = dup_string(names[t->fields[k]])))
            return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    t->by_name = named;
    return CS_OK;
}

void columns_free(col_table *t)
{
    for (int k = 0; t->names && k < t->ncols; k++)
        free(t->names[k]);
    free(t->names);
    free(t->fields);
    memset(t, 0, sizeof *t);
}

int columns_map(char *const *out_names, const int *out_fields, int nout,
                int by_name, char *const *names, int nfields, const char *file,
                int nmap, int *map, cs_error *e)
{
    for (int f = 0; f < nmap; f++)
        map[f] = -1;
    for (int j = 0; j < nout; j++) {
        int f = -1;
        if (by_name) {
            for (int k = 0; k < nfields && f < 0; k++)
                if (strcmp(names[k], out_names[j]) == 0)
                    f = k;
            if (f < 0)
                return cs_fail(e, CS_EDATA, file, 1, "no column named '%s'",
                               out_names[j]);
        } else {
            f = out_fields[j];
        }
        map[f] = j;
    }
    return CS_OK;
}
