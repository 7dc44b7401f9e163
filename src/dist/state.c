#include "src/dist/state.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char MAGIC[8] = {'C', 'O', 'L', 'S', 'T', 'A', 'T', 0x1a};
#define MAX_NAME (1u << 20)
#define MAX_BINS (1u << 20)
#define MAX_COLS (1u << 24)

/* --- bytes out ------------------------------------------------------- */

typedef struct out {
    unsigned char *p;
    size_t n, cap;
    int oom;
} out;

static void put(out *o, const void *b, size_t n)
{
    if (o->oom)
        return;
    if (o->n + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->n + n)
            cap *= 2;
        unsigned char *q = realloc(o->p, cap);
        if (!q) {
            o->oom = 1;
            return;
        }
        o->p = q;
        o->cap = cap;
    }
    memcpy(o->p + o->n, b, n);
    o->n += n;
}

static void put_u64(out *o, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put(o, b, 8);
}

static void put_u32(out *o, uint32_t v)
{
    unsigned char b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put(o, b, 4);
}

static void put_f64(out *o, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_u64(o, u);
}

static void put_text(out *o, const char *s)
{
    size_t n = strlen(s);
    put_u32(o, (uint32_t)n);
    put(o, s, n);
}

/* Normalised first, so the digits have one form. */
static void put_sacc(out *o, const sacc *a)
{
    sacc c = *a;
    sacc_normalize(&c);
    for (int i = 0; i < SACC_DIGITS; i++)
        put_u64(o, (uint64_t)c.d[i]);
    put_u64(o, c.pos_inf);
    put_u64(o, c.neg_inf);
}

static void put_stats(out *o, const col_stats *s)
{
    const uint64_t u[] = {s->count,
                          s->missing,
                          s->invalid,
                          s->nan,
                          s->first_invalid_row,
                          s->min_row,
                          s->max_row,
                          s->min_row_int,
                          s->max_row_int,
                          (uint64_t)s->sum_r};
    for (size_t i = 0; i < sizeof u / sizeof *u; i++)
        put_u64(o, u[i]);
    put_f64(o, s->min);
    put_f64(o, s->max);
    put_u32(o, (uint32_t)s->min_corr);
    put_u32(o, (uint32_t)s->max_corr);
    put_u32(o, (uint32_t)s->all_int);
    put_sacc(o, &s->sum);
    put_sacc(o, &s->sumsq);
    put_sacc(o, &s->sumsq_corr);
}

static void put_hist(out *o, const hist *h)
{
    put_u32(o, h->bins ? (uint32_t)h->nbins : 0);
    if (!h->bins)
        return;
    put_f64(o, h->lo);
    put_f64(o, h->hi);
    put_u64(o, h->underflow);
    put_u64(o, h->overflow);
    for (int i = 0; i < h->nbins; i++)
        put_u64(o, h->bins[i]);
}

char *state_key(const engine_config *c)
{
    char *s = NULL;
    uint64_t lo, hi;
    memcpy(&lo, &c->range_lo, 8);
    memcpy(&hi, &c->range_hi, 8);
    int n =
        asprintf(&s,
                 "columns=%s;delim=%d;header=%d;binary=%s;what=%x;"
                 "nbins=%d;range=%d:%016" PRIx64 ":%016" PRIx64 ";strict=%d",
                 c->columns ? c->columns : "", c->delim, c->header,
                 c->binary ? c->binary : "", c->what, c->nbins, c->have_range,
                 lo, hi, c->strict);
    return n < 0 ? NULL : s;
}

int state_write(FILE *f, const state_info *info, const engine_result *r,
                cs_error *e)
{
    out body = {0}, all = {0};
    put_u64(&body, r->rows);
    put_u32(&body, (uint32_t)r->ncols);
    for (int k = 0; k < r->ncols; k++) {
        const engine_column *c = &r->cols[k];
        put_text(&body, c->name);
        put_u32(&body, (uint32_t)c->index);
        put_stats(&body, &c->st);
        put_hist(&body, &c->h);
    }
    put(&all, MAGIC, sizeof MAGIC);
    put_u32(&all, STATE_VERSION);
    put_text(&all, info->key);
    put_u32(&all, info->what);
    put_u64(&all, body.n);
    put(&all, body.p, body.n);
    put_u32(&all, (uint32_t)crc32(0, all.p, (uInt)all.n));
    int rc = CS_OK;
    if (body.oom || all.oom)
        rc = cs_fail(e, CS_EDATA, "", 0, "out of memory");
    else if (fwrite(all.p, 1, all.n, f) != all.n || fflush(f))
        rc = cs_fail(e, CS_EDATA, "", 0, "cannot write the state");
    free(body.p);
    free(all.p);
    return rc;
}

/* --- bytes in -------------------------------------------------------- */

typedef struct in {
    const unsigned char *p;
    size_t n, at;
    int bad;
} in;

static const unsigned char *take(in *i, size_t n)
{
    if (i->bad || i->n - i->at < n) {
        i->bad = 1;
        return NULL;
    }
    i->at += n;
    return i->p + i->at - n;
}

static uint64_t get_u64(in *i)
{
    const unsigned char *b = take(i, 8);
    uint64_t v = 0;
    for (int k = 7; b && k >= 0; k--)
        v = v << 8 | b[k];
    return v;
}

static uint32_t get_u32(in *i)
{
    const unsigned char *b = take(i, 4);
    uint32_t v = 0;
    for (int k = 3; b && k >= 0; k--)
        v = v << 8 | b[k];
    return v;
}

static double get_f64(in *i)
{
    uint64_t u = get_u64(i);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

static char *get_text(in *i)
{
    uint32_t n = get_u32(i);
    const unsigned char *b = n <= MAX_NAME ? take(i, n) : NULL;
    char *s = b ? malloc((size_t)n + 1) : NULL;
    if (!s) {
        i->bad = 1;
        return NULL;
    }
    memcpy(s, b, n);
    s[n] = 0;
    return s;
}

/* Normalised digits only: [0, 2^32) below the top one. */
static void get_sacc(in *i, sacc *a)
{
    sacc_init(a);
    for (int k = 0; k < SACC_DIGITS; k++) {
        a->d[k] = (int64_t)get_u64(i);
        if (k < SACC_DIGITS - 1 && (a->d[k] < 0 || a->d[k] > 0xffffffffLL))
            i->bad = 1;
    }
    a->pos_inf = get_u64(i);
    a->neg_inf = get_u64(i);
}

static void get_stats(in *i, col_stats *s)
{
    stats_init(s);
    uint64_t *u[] = {&s->count,   &s->missing,           &s->invalid,
                     &s->nan,     &s->first_invalid_row, &s->min_row,
                     &s->max_row, &s->min_row_int,       &s->max_row_int};
    for (size_t k = 0; k < sizeof u / sizeof *u; k++)
        *u[k] = get_u64(i);
    s->sum_r = (int64_t)get_u64(i);
    s->min = get_f64(i);
    s->max = get_f64(i);
    s->min_corr = (int32_t)get_u32(i);
    s->max_corr = (int32_t)get_u32(i);
    s->all_int = (int)get_u32(i);
    get_sacc(i, &s->sum);
    get_sacc(i, &s->sumsq);
    get_sacc(i, &s->sumsq_corr);
}

static void get_hist(in *i, hist *h)
{
    memset(h, 0, sizeof *h);
    uint32_t nbins = get_u32(i);
    if (!nbins)
        return;
    double lo = get_f64(i), hi = get_f64(i);
    if (i->bad || nbins > MAX_BINS || hist_init(h, (int)nbins, lo, hi)) {
        i->bad = 1;
        return;
    }
    h->underflow = get_u64(i);
    h->overflow = get_u64(i);
    for (uint32_t k = 0; k < nbins; k++)
        h->bins[k] = get_u64(i);
}

static int get_columns(in *i, engine_result *r)
{
    r->rows = get_u64(i);
    uint32_t n = get_u32(i);
    if (i->bad || n > MAX_COLS || (size_t)n > i->n / 64)
        return -1;
    r->cols = calloc(n ? n : 1, sizeof *r->cols);
    if (!r->cols)
        return -1;
    r->ncols = (int)n;
    for (uint32_t k = 0; k < n && !i->bad; k++) {
        engine_column *c = &r->cols[k];
        c->name = get_text(i);
        c->index = (int)get_u32(i);
        get_stats(i, &c->st);
        get_hist(i, &c->h);
    }
    return i->bad ? -1 : 0;
}

static unsigned char *slurp(FILE *f, size_t *n)
{
    size_t cap = 1 << 16;
    unsigned char *p = malloc(cap);
    *n = 0;
    for (size_t got; p && (got = fread(p + *n, 1, cap - *n, f)) > 0;) {
        *n += got;
        if (*n == cap) {
            unsigned char *q = realloc(p, cap *= 2);
            if (!q)
                free(p);
            p = q;
        }
    }
    if (p && ferror(f)) {
        free(p);
        return NULL;
    }
    return p;
}

/* The last 4 bytes are the CRC-32 of all before them. */
static int crc_ok(const unsigned char *p, size_t n)
{
    if (n < 4)
        return 0;
    in t = {p, n, n - 4, 0};
    return crc32(0, p, (uInt)(n - 4)) == get_u32(&t);
}

static int refuse(cs_error *e, const char *name, const char *why)
{
    return cs_fail(e, CS_EDATA, name, 0, "not a colstat state: %s", why);
}

int state_read(FILE *f, const char *name, state_info *info, engine_result *r,
               cs_error *e)
{
    memset(r, 0, sizeof *r);
    memset(info, 0, sizeof *info);
    size_t n;
    unsigned char *p = slurp(f, &n);
    if (!p)
        return cs_fail(e, CS_EDATA, name, 0, "cannot read the state");
    in i = {p, n, 0, 0};
    int rc = CS_OK;
    const unsigned char *m = take(&i, sizeof MAGIC);
    uint32_t version = get_u32(&i);
    if (!m || memcmp(m, MAGIC, sizeof MAGIC))
        rc = refuse(e, name, "no state's magic bytes");
    else if (version != STATE_VERSION)
        rc = cs_fail(e, CS_EDATA, name, 0,
                     "state of version %u; this colstat reads version %d",
                     version, STATE_VERSION);
    else if (!crc_ok(p, n))
        rc = refuse(e, name, "cut short or corrupt (CRC-32 mismatch)");
    if (rc == CS_OK) {
        info->key = get_text(&i);
        info->what = get_u32(&i);
        uint64_t len = get_u64(&i);
        if (i.bad || len != n - 4 - i.at)
            rc = refuse(e, name, "cut short or corrupt (length)");
        i.n = n - 4;
    }
    if (rc == CS_OK && (get_columns(&i, r) || i.at != i.n))
        rc = refuse(e, name, "corrupt payload");
    free(p);
    if (rc != CS_OK) {
        free(info->key);
        info->key = NULL;
        engine_result_free(r);
    }
    return rc;
}

static int same_hist(const hist *a, const hist *b)
{
    if (!a->bins || !b->bins)
        return !a->bins && !b->bins;
    return a->nbins == b->nbins && !memcmp(&a->lo, &b->lo, 8) &&
           !memcmp(&a->hi, &b->hi, 8);
}

int state_merge(engine_result *dst, const engine_result *src, cs_error *e)
{
    if (dst->ncols != src->ncols)
        return cs_fail(e, CS_EDATA, "", 0,
                       "the states have different columns (%d and %d)",
                       dst->ncols, src->ncols);
    for (int k = 0; k < dst->ncols; k++) {
        const engine_column *a = &dst->cols[k], *b = &src->cols[k];
        if (strcmp(a->name, b->name) || a->index != b->index ||
            !same_hist(&a->h, &b->h))
            return cs_fail(e, CS_EDATA, "", 0,
                           "the states' column %d differs ('%s' and '%s')",
                           k + 1, a->name, b->name);
    }
    for (int k = 0; k < dst->ncols; k++) {
        engine_column *a = &dst->cols[k];
        stats_merge(&a->st, &src->cols[k].st, dst->rows);
        if (a->h.bins)
            hist_merge(&a->h, &src->cols[k].h);
    }
    dst->rows += src->rows;
    return CS_OK;
}
