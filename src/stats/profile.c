#include "profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "utf8.h"

#define NUM_KEY PROFILE_NUM_KEY

int profile_init(col_prof *p, int counting)
{
    memset(p, 0, sizeof *p);
    p->len_min = UINT64_MAX;
    if (counting && !(p->vals = vcount_new()))
        return -1;
    return 0;
}

void profile_free(col_prof *p)
{
    vcount_free(p->vals);
    p->vals = NULL;
}

void profile_clear(col_prof *p)
{
    vcount *v = p->vals;
    memset(p, 0, sizeof *p);
    p->len_min = UINT64_MAX;
    if ((p->vals = v) != NULL)
        vcount_clear(v);
}

/* Whether s[0, n) is ASCII alone (a character a byte), 8 bytes a step. */
static int ascii(const unsigned char *s, size_t n)
{
    uint64_t any = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        any |= w;
    }
    for (; i < n; i++)
        any |= s[i];
    return (any & UINT64_C(0x8080808080808080)) == 0;
}

uint64_t profile_length(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    if (ascii(s, n))
        return n;
    uint64_t chars = 0;
    for (size_t i = 0; i < n; chars++) {
        size_t len = utf8_seq(s + i, n - i);
        if (!len)
            return n;
        i += len;
    }
    return chars;
}

/* Whether a value of hash h is in p's partition: the high half of the
 * hash, so that the table's slots (its low bits) stay spread. */
static int in_part(const col_prof *p, uint64_t h)
{
    return !p->nparts || (h >> 32) % p->nparts == p->part;
}

int profile_add_text(col_prof *p, const char *s, size_t n)
{
    if (!s) {
        p->missing++;
        return 0;
    }
    p->count++;
    uint64_t len = profile_length(s, n);
    if (len < p->len_min)
        p->len_min = len;
    if (len > p->len_max)
        p->len_max = len;
    /* the hash only for a partition's pass: vcount_add makes its own */
    if (!p->vals || (p->nparts && !in_part(p, vcount_hash(s, n))))
        return 0;
    return vcount_add(p->vals, s, n, 1);
}

void profile_num_key(unsigned char *key, double d, int32_t r)
{
    if (d == 0)
        d = 0; /* -0 is 0 */
    if (r == CORR_NOT_INT)
        r = 0;
    memcpy(key, &d, 8);
    memcpy(key + 8, &r, 4);
}

void profile_key_num(const char *key, double *d, int32_t *r)
{
    memcpy(d, key, 8);
    memcpy(r, key + 8, 4);
}

int profile_add_numbers(col_prof *p, const double *v, const int32_t *corr,
                        size_t n)
{
    unsigned char key[NUM_KEY];
    for (size_t i = 0; p->vals && i < n; i++) {
        if (isnan(v[i]))
            continue;
        profile_num_key(key, v[i], corr ? corr[i] : 0);
        /* by the double alone: one double's integers share a partition,
           where a column of doubles makes them one value */
        if (p->nparts && !in_part(p, vcount_hash(key, 8)))
            continue;
        if (vcount_add(p->vals, key, NUM_KEY, 1))
            return -1;
    }
    return 0;
}

int profile_merge(col_prof *dst, const col_prof *src)
{
    dst->count += src->count;
    dst->missing += src->missing;
    if (src->len_min < dst->len_min)
        dst->len_min = src->len_min;
    if (src->len_max > dst->len_max)
        dst->len_max = src->len_max;
    if (dst->vals && src->vals)
        return vcount_merge(dst->vals, src->vals);
    return 0;
}

int profile_add_counted(col_prof *p, const char *key, size_t len,
                        uint64_t count, int is_text)
{
    if (!p->vals || !in_part(p, vcount_hash(key, is_text ? len : 8)))
        return 0;
    return vcount_add(p->vals, key, len, count);
}

int profile_merge_values(col_prof *dst, const col_prof *src)
{
    return dst->vals && src->vals ? vcount_merge(dst->vals, src->vals) : 0;
}

void profile_partition(col_prof *p, uint32_t part, uint32_t nparts)
{
    p->part = part;
    p->nparts = nparts;
}

size_t profile_bytes(const col_prof *p)
{
    return p->vals ? vcount_bytes(p->vals) : 0;
}

/* Numbers that are one double made one value: the corrections dropped. */
static vcount *by_double(const vcount *t)
{
    vcount *out = vcount_new();
    for (size_t i = 0; out && i < vcount_size(t); i++) {
        size_t len;
        const char *k = vcount_key(t, i, &len);
        double d;
        int32_t r;
        unsigned char key[NUM_KEY];
        profile_key_num(k, &d, &r);
        profile_num_key(key, d, 0);
        if (vcount_add(out, key, NUM_KEY, vcount_count(t, i))) {
            vcount_free(out);
            return NULL;
        }
    }
    return out;
}

static int text_cmp(const prof_value *a, const prof_value *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->text, b->text, n) : 0;
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int num_cmp(const prof_value *a, const prof_value *b)
{
    if (a->d != b->d)
        return a->d < b->d ? -1 : 1;
    return (a->r > b->r) - (a->r < b->r);
}

/* Most frequent first, then the smaller value. */
static int by_count_text(const void *x, const void *y)
{
    const prof_value *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return text_cmp(a, b);
}

static int by_count_num(const void *x, const void *y)
{
    const prof_value *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return num_cmp(a, b);
}

static void entry(const vcount *t, size_t i, int is_text, prof_value *v)
{
    size_t len;
    const char *k = vcount_key(t, i, &len);
    memset(v, 0, sizeof *v);
    v->count = vcount_count(t, i);
    if (is_text) {
        v->text = k;
        v->len = len;
    } else {
        profile_key_num(k, &v->d, &v->r);
    }
}

/* The k best of t's values into out (sorting them all: the distinct
 * values are few next to the rows that made them). */
static int pick_top(const vcount *t, int is_text, size_t k, prof_summary *out)
{
    size_t n = vcount_size(t);
    prof_value *all = malloc((n ? n : 1) * sizeof *all);
    if (!all)
        return -1;
    for (size_t i = 0; i < n; i++)
        entry(t, i, is_text, &all[i]);
    qsort(all, n, sizeof *all, is_text ? by_count_text : by_count_num);
    out->ntop = n < k ? n : k;
    out->top = all;
    return 0;
}

int profile_take_part(col_prof *dst, col_prof *part, int is_text, int all_int,
                      size_t k)
{
    prof_summary s;
    col_prof tmp = {0};
    tmp.vals = part->vals;
    part->vals = NULL; /* consumed: the caller makes it anew */
    int rc = profile_finalize(&tmp, is_text, all_int, k, &s);
    dst->parted = 1;
    dst->parted_distinct += s.distinct;
    unsigned char key[NUM_KEY];
    for (size_t i = 0; rc == 0 && i < s.ntop; i++) {
        const prof_value *v = &s.top[i];
        if (is_text) {
            rc = vcount_add(dst->vals, v->text, v->len, v->count);
        } else {
            profile_num_key(key, v->d, v->r);
            rc = vcount_add(dst->vals, key, NUM_KEY, v->count);
        }
    }
    profile_summary_free(&s);
    vcount_free(tmp.vals);
    return rc;
}

static void summary_counts(const col_prof *p, int is_text, prof_summary *out)
{
    memset(out, 0, sizeof *out);
    out->text = is_text;
    out->count = p->count;
    out->missing = p->missing;
    out->len_min = p->count ? p->len_min : 0;
    out->len_max = p->len_max;
}

int profile_finalize(col_prof *p, int is_text, int all_int, size_t k,
                     prof_summary *out)
{
    summary_counts(p, is_text, out);
    if (!p->vals)
        return 0;
    out->counted = 1;
    if (is_text || all_int) {
        out->own = p->vals;
        p->vals = NULL;
    } else if (!(out->own = by_double(p->vals))) {
        return -1;
    }
    out->distinct = p->parted ? p->parted_distinct : vcount_size(out->own);
    return pick_top(out->own, is_text, k, out);
}

int profile_summarize(const col_prof *p, int is_text, int all_int, size_t k,
                      prof_summary *out)
{
    summary_counts(p, is_text, out);
    if (!p->vals)
        return 0;
    out->counted = 1;
    const vcount *t = p->vals;
    if (!is_text && !all_int && !(t = out->own = by_double(p->vals)))
        return -1;
    out->distinct = p->parted ? p->parted_distinct : vcount_size(t);
    return pick_top(t, is_text, k, out);
}

/* Floor and a small table's bytes: prof_budget's reasons (profile.h). */
#define PROF_FLOOR ((size_t)64 << 10)
#define PROF_EMPTY_TABLE 2048

size_t profile_budget(size_t memory, int ncols)
{
    size_t m = memory > PROF_FLOOR ? memory : PROF_FLOOR;
    return m + (size_t)(ncols > 0 ? ncols : 0) * PROF_EMPTY_TABLE;
}

void profile_summary_free(prof_summary *s)
{
    free(s->top);
    vcount_free(s->own);
    memset(s, 0, sizeof *s);
}
