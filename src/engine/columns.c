#include "src/engine/columns.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_reader.h"
#include "src/engine/name_regex.h"
#include "src/engine/names.h"

/* The selection being built: per field whether an item chose it and
 * whether an exclusion did, and the chosen fields in order. */
typedef struct sel {
    const col_fields *in;
    name_index idx;
    unsigned char *chosen, *excluded;
    int *order;
    int n, any_positive;
    const char *list;
} sel;

static int oom(cs_error *e)
{
    return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
}

static void mark(sel *s, int f, int neg)
{
    if (neg) {
        s->excluded[f] = 1;
        return;
    }
    s->any_positive = 1;
    if (!s->chosen[f]) {
        s->chosen[f] = 1;
        s->order[s->n++] = f;
    }
}

/* Without a header the names are 1, 2, ...: a name given was probably
 * meant for a first line that was taken for data. */
static const char *header_hint(const sel *s)
{
    return s->in->named || s->in->binary
               ? ""
               : " (no header line was detected: give --header if the first "
                 "line names the columns)";
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

/* A 1-based index; past 9 digits it is past any file's fields. */
static long to_index(const char *s, size_t n)
{
    if (n > 9)
        return 1000000000L;
    long v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* N, N-M or N-; returns 1 when it is one (marked or failed), 0 when the
 * item has another form. */
static int range_item(sel *s, const char *it, size_t n, int neg, int *rc,
                      cs_error *e)
{
    const char *dash = memchr(it, '-', n);
    size_t alen = dash ? (size_t)(dash - it) : n;
    size_t blen = dash ? n - alen - 1 : 0;
    if (!all_digits(it, alen) || (dash && blen && !all_digits(dash + 1, blen)))
        return 0;
    int nf = s->in->n;
    long lo = to_index(it, alen);
    long hi = dash ? (blen ? to_index(dash + 1, blen) : nf) : lo;
    if (lo < 1 || hi < lo)
        *rc = cs_fail(e, CS_EUSAGE, "", 0, "--columns: bad range '%.*s'",
                      (int)n, it);
    else if (hi > nf)
        *rc = cs_fail(e, CS_EUSAGE, s->in->file, 0,
                      "--columns: column %ld is past the last (%d)%s", hi, nf,
                      header_hint(s));
    for (long f = lo; *rc == CS_OK && f <= hi && f <= nf; f++)
        mark(s, (int)f - 1, neg);
    return 1;
}

/* /REGEX/: every field whose name matches (name_regex.h: bounded). */
static int regex_item(sel *s, const char *it, size_t n, int neg, cs_error *e)
{
    name_regex *re;
    if (name_regex_new(it, n, s->in->file, &re, e) != CS_OK)
        return e->status;
    int hits = 0, m = 0;
    for (int f = 0; f < s->in->n && m >= 0; f++)
        if ((m = name_regex_match(re, s->in->names[f], e)) > 0) {
            mark(s, f, neg);
            hits++;
        }
    name_regex_free(re);
    if (m < 0)
        return e->status;
    if (!hits)
        return cs_fail(e, CS_EUSAGE, s->in->file, 0,
                       "--columns: no column name matches %.*s%s", (int)n, it,
                       header_hint(s));
    return CS_OK;
}

/* Every field named it[0, n); returns how many. */
static int name_item(sel *s, const char *it, size_t n, int neg)
{
    int count = 0;
    names_nth(&s->idx, it, n, 0, &count);
    for (int k = 0; k < count; k++)
        mark(s, names_nth(&s->idx, it, n, k, NULL), neg);
    return count;
}

static int is_regex(const char *it, size_t n)
{
    return n >= 2 && it[0] == '/' && it[n - 1] == '/';
}

static int add_item(sel *s, const char *it, size_t n, cs_error *e)
{
    if (name_item(s, it, n, 0))
        return CS_OK;
    int neg = it[0] == '!';
    if (neg) {
        it++;
        n--;
        if (n == 0 || name_item(s, it, n, 1))
            return n ? CS_OK
                     : cs_fail(e, CS_EUSAGE, "", 0,
                               "--columns: '!' excludes nothing in '%s'",
                               s->list);
    }
    if (is_regex(it, n))
        return regex_item(s, it, n, neg, e);
    int rc = CS_OK;
    if (range_item(s, it, n, neg, &rc, e))
        return rc;
    return cs_fail(e, CS_EUSAGE, s->in->file, 0,
                   "--columns: no column named '%.*s'%s", (int)n, it,
                   header_hint(s));
}

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The end of the item that starts at p: the next comma, except that a
 * pattern (/.../ or !/.../) runs to a '/' followed by blanks and a comma
 * or the end, so that a comma may stand inside it. */
static const char *item_end(const char *p)
{
    const char *q = p + (*p == '!');
    if (*q == '/')
        for (const char *r = strchr(q + 1, '/'); r; r = strchr(r + 1, '/')) {
            const char *t = r + 1;
            while (blank(*t))
                t++;
            if (*t == ',' || *t == '\0')
                return t;
        }
    const char *c = strchr(p, ',');
    return c ? c : p + strlen(p);
}

static int parse_list(sel *s, const char *list, cs_error *e)
{
    const char *p = list;
    int rc = CS_OK;
    while (rc == CS_OK) {
        while (blank(*p))
            p++;
        const char *end = item_end(p);
        size_t n = (size_t)(end - p);
        while (n && blank(p[n - 1]))
            n--;
        if (n == 0)
            rc = cs_fail(e, CS_EUSAGE, "", 0, "--columns: empty item in '%s'",
                         list);
        else
            rc = add_item(s, p, n, e);
        if (*end == '\0')
            break;
        p = end + 1;
    }
    return rc;
}

static void sel_free(sel *s)
{
    names_free(&s->idx);
    free(s->chosen);
    free(s->excluded);
    free(s->order);
}

static int sel_init(sel *s, const col_fields *in, const char *list)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    s->list = list;
    size_t n = (size_t)(in->n ? in->n : 1);
    s->chosen = calloc(n, 1);
    s->excluded = calloc(n, 1);
    s->order = malloc(n * sizeof *s->order);
    if (!s->chosen || !s->excluded || !s->order ||
        names_build(&s->idx, in->names, in->n))
        return -1;
    return 0;
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    return p ? memcpy(p, s, n) : NULL;
}

static int table_alloc(col_table *t, int n)
{
    size_t k = (size_t)(n ? n : 1);
    t->names = calloc(k, sizeof *t->names);
    t->labels = calloc(k, sizeof *t->labels);
    t->fields = malloc(k * sizeof *t->fields);
    t->rank = malloc(k * sizeof *t->rank);
    return t->names && t->labels && t->fields && t->rank ? 0 : -1;
}

/* 'name', or 'name' (#index) when the name is not the field's alone. */
static char *label(const sel *s, int f)
{
    const char *name = s->in->names[f];
    int count = 0;
    names_nth(&s->idx, name, strlen(name), 0, &count);
    size_t n = strlen(name) + 32;
    char *l = malloc(n);
    if (l && count > 1)
        snprintf(l, n, "'%s' (#%d)", name, f + 1);
    else if (l)
        snprintf(l, n, "'%s'", name);
    return l;
}

/* Column k is field f: its name, and which field of that name it is. */
static int table_put(col_table *t, const sel *s, int k, int f)
{
    t->fields[k] = f;
    t->rank[k] = names_rank(&s->idx, f);
    t->names[k] = dup_string(s->in->names[f]);
    t->labels[k] = label(s, f);
    return t->names[k] && t->labels[k] ? 0 : -1;
}

/* The default leaves out the fields the sample showed text in; those
 * not excluded are named, so that no column goes without a word. */
static int left_out(col_table *t, const sel *s)
{
    const col_fields *in = s->in;
    size_t n = (size_t)(in->n ? in->n : 1);
    t->left = malloc(n * sizeof *t->left);
    t->left_labels = calloc(n, sizeof *t->left_labels);
    if (!t->left || !t->left_labels)
        return -1;
    for (int f = 0; f < in->n; f++)
        if (in->numeric[f] == CSV_TEXT && !s->excluded[f]) {
            t->left[t->nleft] = f;
            if (!(t->left_labels[t->nleft++] = label(s, f)))
                return -1;
        }
    return 0;
}

/* The chosen fields (or the default), less the excluded ones. */
static int fill_table(col_table *t, const sel *s)
{
    const col_fields *in = s->in;
    int n = 0, rc = 0;
    int *pick = malloc((size_t)(in->n ? in->n : 1) * sizeof *pick);
    if (!pick)
        return -1;
    if (s->any_positive) {
        for (int i = 0; i < s->n; i++)
            if (!s->excluded[s->order[i]])
                pick[n++] = s->order[i];
        t->nfirm = n;
    } else {
        if (!in->with_text && left_out(t, s))
            rc = -1;
        for (int want = CSV_NUMBERS; want <= CSV_UNSEEN; want++) {
            for (int f = 0; f < in->n; f++)
                if ((in->numeric[f] == want ||
                     (want == CSV_NUMBERS && in->with_text &&
                      in->numeric[f] == CSV_TEXT)) &&
                    !s->excluded[f])
                    pick[n++] = f;
            if (want == CSV_NUMBERS)
                t->nfirm = n;
        }
    }
    rc = rc ? rc : table_alloc(t, n);
    t->ncols = n;
    for (int k = 0; rc == 0 && k < n; k++)
        rc = table_put(t, s, k, pick[k]);
    free(pick);
    return rc;
}

int columns_learn(col_table *t, const char *list, const col_fields *in,
                  cs_error *e)
{
    memset(t, 0, sizeof *t);
    t->by_name = in->named;
    sel s;
    int rc = sel_init(&s, in, list) ? oom(e) : CS_OK;
    if (rc == CS_OK && list)
        rc = parse_list(&s, list, e);
    if (rc == CS_OK && fill_table(t, &s))
        rc = oom(e);
    if (rc == CS_OK && list && t->ncols == 0)
        rc = cs_fail(e, CS_EUSAGE, in->file, 0,
                     "--columns: '%s' leaves no column", list);
    sel_free(&s);
    if (rc != CS_OK)
        columns_free(t);
    return rc;
}

void columns_free(col_table *t)
{
    for (int k = 0; t->names && k < t->ncols; k++)
        free(t->names[k]);
    for (int k = 0; t->labels && k < t->ncols; k++)
        free(t->labels[k]);
    for (int k = 0; t->left_labels && k < t->nleft; k++)
        free(t->left_labels[k]);
    free(t->left);
    free(t->left_labels);
    free(t->names);
    free(t->labels);
    free(t->fields);
    free(t->rank);
    memset(t, 0, sizeof *t);
}

/* src's column k after dst's (which has room). -1: no memory. */
static int copy_column(col_table *dst, const col_table *src, int k)
{
    int j = dst->ncols++;
    dst->nfirm = dst->ncols;
    dst->fields[j] = src->fields[k];
    dst->rank[j] = src->rank[k];
    dst->names[j] = dup_string(src->names[k]);
    dst->labels[j] = dup_string(src->labels[k]);
    return dst->names[j] && dst->labels[j] ? 0 : -1;
}

int columns_join(col_table *dst, const col_table *a, const col_table *b,
                 const unsigned char *pick, cs_error *e)
{
    memset(dst, 0, sizeof *dst);
    dst->by_name = b->by_name;
    int n = a ? a->ncols : 0;
    for (int k = 0; k < b->ncols; k++)
        n += pick[k] != 0;
    if (table_alloc(dst, n))
        goto fail;
    for (int k = 0; a && k < a->ncols; k++)
        if (copy_column(dst, a, k))
            goto fail;
    for (int k = 0; k < b->ncols; k++)
        if (pick[k] && copy_column(dst, b, k))
            goto fail;
    return CS_OK;
fail:
    columns_free(dst);
    return oom(e);
}

int columns_subset(col_table *dst, const col_table *src,
                   const unsigned char *pick, cs_error *e)
{
    return columns_join(dst, NULL, src, pick, e);
}

static int holds(const int *fields, int n, int f)
{
    for (int i = 0; i < n; i++)
        if (fields[i] == f)
            return 1;
    return 0;
}

void columns_drop(col_table *t, const int *fields, int n)
{
    int to = 0, firm = 0;
    for (int k = 0; k < t->ncols; k++) {
        if (holds(fields, n, t->fields[k])) {
            free(t->names[k]);
            free(t->labels[k]);
            continue;
        }
        firm += k < t->nfirm;
        t->names[to] = t->names[k];
        t->labels[to] = t->labels[k];
        t->fields[to] = t->fields[k];
        t->rank[to++] = t->rank[k];
    }
    t->ncols = to;
    t->nfirm = firm;
    int left = 0;
    for (int k = 0; k < t->nleft; k++) {
        if (holds(fields, n, t->left[k])) {
            free(t->left_labels[k]);
            continue;
        }
        t->left_labels[left] = t->left_labels[k];
        t->left[left++] = t->left[k];
    }
    t->nleft = left;
}

static int map_by_name(const col_table *t, const col_fields *in, int *map,
                       cs_error *e)
{
    name_index x;
    if (names_build(&x, in->names, in->n))
        return oom(e);
    int rc = CS_OK;
    for (int j = 0; j < t->ncols && rc == CS_OK; j++) {
        int count = 0;
        const char *name = t->names[j];
        int f = names_nth(&x, name, strlen(name), t->rank[j], &count);
        if (f < 0 && count == 0)
            rc =
                cs_fail(e, CS_EDATA, in->file, 1, "no column named '%s'", name);
        else if (f < 0)
            rc = cs_fail(e, CS_EDATA, in->file, 1,
                         "%d column%s named '%s', where the first input has "
                         "more",
                         count, count == 1 ? "" : "s", name);
        else
            map[f] = j;
    }
    names_free(&x);
    return rc;
}

int columns_map(const col_table *t, const col_fields *in, int nmap, int *map,
                cs_error *e)
{
    for (int f = 0; f < nmap; f++)
        map[f] = -1;
    if (t->by_name && in->named)
        return map_by_name(t, in, map, e);
    for (int j = 0; j < t->ncols; j++)
        map[t->fields[j]] = j;
    return CS_OK;
}
