#include "src/dist/state.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char MAGIC[8] = {'C', 'O', 'L', 'S', 'T', 'A', 'T', 0x1a};

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

static void put_csum(out *o, const csum *c)
{
    sacc a;
    csum_get(c, &a);
    put_sacc(o, &a);
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
    put_csum(o, &s->sum);
    put_csum(o, &s->sumsq);
    put_csum(o, &s->sumsq_corr);
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

/* What state_read would refuse to read back, refused here first. */
static const char *too_big(const state_info *info, const engine_result *r,
                           size_t body)
{
    if (strlen(info->key) > STATE_MAX_KEY)
        return "the options' key is longer than 1 MiB";
    for (int k = 0; k < r->ncols; k++)
        if (strlen(r->cols[k].name) > STATE_MAX_NAME)
            return "a column name is longer than 64 KiB";
    if (body > STATE_MAX_BYTES)
        return "it would be larger than 2 GiB (fewer columns or bins)";
    return NULL;
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
        put_stats(&body, c->st);
        put_hist(&body, c->h);
    }
    put(&all, MAGIC, sizeof MAGIC);
    put_u32(&all, STATE_VERSION);
    put_text(&all, info->key);
    put_u32(&all, info->what);
    put_u64(&all, body.n);
    put(&all, body.p, body.n);
    put_u32(&all, (uint32_t)crc32(0, all.p, (uInt)all.n));
    int rc = CS_OK;
    const char *big = too_big(info, r, body.n);
    if (body.oom || all.oom)
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    else if (big)
        rc =
            cs_fail(e, CS_EDATA, "", 0, "cannot make a partial state: %s", big);
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
    const char *why; /* what was bad, when known */
} in;

static void bad(in *i, const char *why)
{
    if (!i->bad)
        i->why = why;
    i->bad = 1;
}

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

/* At most max bytes, none of them NUL (the text is used as a C string:
 * a NUL inside would make two different texts compare equal). */
static char *get_text(in *i, uint32_t max)
{
    uint32_t n = get_u32(i);
    const unsigned char *b = n <= max ? take(i, n) : NULL;
    if (b && memchr(b, 0, n))
        bad(i, "a NUL byte in a name or the key");
    char *s = b && !i->bad ? malloc((size_t)n + 1) : NULL;
    if (!s) {
        i->bad = 1;
        return NULL;
    }
    memcpy(s, b, n);
    s[n] = 0;
    return s;
}

/* Normalised digits only: [0, 2^32) below the top one, which holds the
 * sign alone (0 or -1: no sum of colstat's reaches 2^2176), so that
 * adding them up cannot overflow. */
static void get_sacc(in *i, sacc *a)
{
    sacc_init(a);
    for (int k = 0; k < SACC_DIGITS; k++) {
        a->d[k] = (int64_t)get_u64(i);
        int top = k == SACC_DIGITS - 1;
        if (top ? a->d[k] != 0 && a->d[k] != -1
                : a->d[k] < 0 || a->d[k] > 0xffffffffLL)
            bad(i, "a sum's digits not in their normal form");
    }
    a->pos_inf = get_u64(i);
    a->neg_inf = get_u64(i);
}

/* Into a csum_init'ed c; digits that are not normal never reach it. */
static void get_csum(in *i, csum *c)
{
    sacc a;
    get_sacc(i, &a);
    if (!i->bad && csum_add(c, &a))
        i->bad = 1;
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
    uint32_t all_int = get_u32(i);
    if (all_int > 1) /* written as 0 or 1 */
        bad(i, "an integrality flag other than 0 or 1");
    s->all_int = (int)all_int;
    get_csum(i, &s->sum);
    get_csum(i, &s->sumsq);
    get_csum(i, &s->sumsq_corr);
}

static void get_hist(in *i, hist *h)
{
    memset(h, 0, sizeof *h);
    uint32_t nbins = get_u32(i);
    if (!nbins)
        return;
    double lo = get_f64(i), hi = get_f64(i);
    if (!i->bad && nbins > STATE_MAX_BINS)
        bad(i, "a histogram of too many bins");
    if (i->bad || hist_init(h, (int)nbins, lo, hi)) {
        i->bad = 1;
        return;
    }
    h->underflow = get_u64(i);
    h->overflow = get_u64(i);
    for (uint32_t k = 0; k < nbins; k++)
        h->bins[k] = get_u64(i);
}

/* The payload: rows, columns (their count checked by the caller). */
static int get_columns(in *i, engine_result *r)
{
    r->rows = get_u64(i);
    uint32_t n = get_u32(i);
    if (i->bad || n == 0 || n > STATE_MAX_COLS)
        return -1;
    r->cols = calloc(n, sizeof *r->cols);
    r->held_st = calloc(n, sizeof *r->held_st);
    r->held_h = calloc(n, sizeof *r->held_h);
    if (!r->cols || !r->held_st || !r->held_h)
        return -1;
    r->ncols = r->nheld = (int)n;
    for (uint32_t k = 0; k < n && !i->bad; k++) {
        engine_column *c = &r->cols[k];
        c->name = get_text(i, STATE_MAX_NAME);
        uint32_t index = get_u32(i);
        if (index < 1 || index > STATE_MAX_COLS)
            bad(i, "a column index out of range");
        c->index = (int)index;
        get_stats(i, &r->held_st[k]);
        get_hist(i, &r->held_h[k]);
        c->st = &r->held_st[k];
        c->h = &r->held_h[k];
    }
    return i->bad ? -1 : 0;
}

/* Bytes read so far, in one growing buffer: it grows as bytes arrive, so
 * a header that declares more than the input holds allocates no more
 * than the input brings. */
typedef struct raw {
    unsigned char *p;
    size_t n, cap;
} raw;

/* Appends up to want bytes of f; returns -1 on a read error or when out
 * of memory, else 0 (fewer bytes at the end of f: r->n tells). */
static int read_more(FILE *f, raw *r, size_t want)
{
    size_t end = r->n + want;
    while (r->n < end) {
        if (r->n == r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 4096;
            if (cap > end)
                cap = end;
            unsigned char *q = realloc(r->p, cap);
            if (!q)
                return -1;
            r->p = q;
            r->cap = cap;
        }
        size_t got = fread(r->p + r->n, 1, r->cap - r->n, f);
        r->n += got;
        if (got == 0)
            return ferror(f) ? -1 : 0;
    }
    return 0;
}

/* The last 4 bytes are the CRC-32 of all before them. */
static int crc_ok(const unsigned char *p, size_t n)
{
    if (n < 4)
        return 0;
    in t = {p, n, n - 4, 0, NULL};
    uLong crc = crc32(0, Z_NULL, 0);
    /* crc32 takes a uInt length: a state may pass 4 GiB one day */
    for (size_t at = 0; at < n - 4; at += 1u << 30) {
        size_t k = n - 4 - at < (1u << 30) ? n - 4 - at : (1u << 30);
        crc = crc32(crc, p + at, (uInt)k);
    }
    return crc == get_u32(&t);
}

static int refuse(cs_error *e, const char *name, const char *why)
{
    return cs_fail(e, CS_EDATA, name, 0, "not a colstat state: %s", why);
}

/* The options a key spells that shape its state's contents: what, the
 * bins and the range, at its end after the last ";what=" (the texts of
 * -c and -b come before it and may hold anything). The tail must read
 * back exactly as state_key writes it. */
static int parse_key(const char *key, state_info *info)
{
    const char *tail = NULL;
    for (const char *p = key; (p = strstr(p, ";what=")); p++)
        tail = p;
    unsigned what;
    int nbins, have_range, strict, used = -1;
    uint64_t lo, hi;
    if (!tail ||
        sscanf(tail,
               ";what=%x;nbins=%d;range=%d:%16" SCNx64 ":%16" SCNx64
               ";strict=%d%n",
               &what, &nbins, &have_range, &lo, &hi, &strict, &used) != 6 ||
        used < 0 || tail[used])
        return -1;
    char again[128];
    snprintf(again, sizeof again,
             ";what=%x;nbins=%d;range=%d:%016" PRIx64 ":%016" PRIx64
             ";strict=%d",
             what, nbins, have_range, lo, hi, strict);
    if (strcmp(again, tail) || strict < 0 || strict > 1)
        return -1;
    info->nbins = nbins;
    info->have_range = have_range;
    memcpy(&info->lo, &lo, 8);
    memcpy(&info->hi, &hi, 8);
    return what == info->what ? 0 : -1;
}

/* What any key says: known statistics, bins within bounds, finite
 * edges in order. (What --emit-state may hold is narrower: merge.c.) */
static const char *key_invariant(const state_info *k)
{
    const unsigned known = STAT_ALL | STAT_QUANTILES;
    if (!k->what || (k->what & ~known))
        return "statistics colstat does not know";
    if (k->nbins < 1 || k->nbins > (int)STATE_MAX_BINS)
        return "a bin count out of range";
    if (k->have_range < 0 || k->have_range > 1)
        return "a range flag out of range";
    if (k->have_range && !(isfinite(k->lo) && isfinite(k->hi) && k->lo < k->hi))
        return "a range that is not LO < HI, both finite";
    return NULL;
}

/* Fixed size of a column's statistics in the encoding (put_stats). */
#define SACC_BYTES ((uint64_t)(SACC_DIGITS + 2) * 8)
#define STATS_BYTES (10 * 8 + 2 * 8 + 3 * 4 + 3 * SACC_BYTES)

uint64_t state_max_bytes(const state_info *info, uint64_t ncols)
{
    uint64_t hist = 4;
    if (info->what & STAT_HIST)
        hist += 32 + 8 * (uint64_t)info->nbins;
    uint64_t col = 4 + STATE_MAX_NAME + 4 + STATS_BYTES + hist;
    return 12 + ncols * col; /* ncols <= 2^24: no overflow */
}

/* The least payload of ncols columns: empty names, and histograms when
 * the key has them. */
static uint64_t min_bytes(const state_info *info, uint64_t ncols)
{
    uint64_t hist = 4;
    if (info->what & STAT_HIST)
        hist += 32 + 8 * (uint64_t)info->nbins;
    return 12 + ncols * (4 + 4 + STATS_BYTES + hist);
}

/* The header, read alone first: magic, version, key, what and the
 * payload's length, each checked before anything more is read (so that
 * /dev/zero, a FIFO or an endless stream is refused at once). */
static int read_header(FILE *f, const char *name, raw *b, state_info *info,
                       uint64_t *len, cs_error *e)
{
    if (read_more(f, b, sizeof MAGIC) || b->n < sizeof MAGIC ||
        memcmp(b->p, MAGIC, sizeof MAGIC))
        return refuse(e, name, "no state's magic bytes");
    if (read_more(f, b, 8) || b->n < sizeof MAGIC + 8)
        return refuse(e, name, "cut short (header)");
    in i = {b->p, b->n, sizeof MAGIC, 0, NULL};
    uint32_t version = get_u32(&i), keylen = get_u32(&i);
    if (version != STATE_VERSION)
        return cs_fail(e, CS_EDATA, name, 0,
                       "state of version %u; this colstat reads version %d",
                       version, STATE_VERSION);
    if (keylen > STATE_MAX_KEY)
        return refuse(e, name, "a key longer than 1 MiB");
    if (read_more(f, b, (size_t)keylen + 12) || b->n - i.at < keylen + 12)
        return refuse(e, name, "cut short (header)");
    i.p = b->p;
    i.n = b->n;
    i.at -= 4;
    info->key = get_text(&i, STATE_MAX_KEY);
    info->what = get_u32(&i);
    *len = get_u64(&i);
    const char *why = NULL;
    if (!info->key || parse_key(info->key, info))
        why = "its key is not one colstat writes";
    else
        why = key_invariant(info);
    if (why)
        return cs_fail(e, CS_EDATA, name, 0,
                       "a state that no colstat run gives: %s", why);
    return CS_OK;
}

/* The payload's length against the bounds its column count allows. */
static int read_payload(FILE *f, const char *name, raw *b,
                        const state_info *info, uint64_t len, cs_error *e)
{
    size_t head = b->n;
    if (len < 12 || read_more(f, b, 12) || b->n - head < 12)
        return refuse(e, name, "cut short (payload)");
    in i = {b->p, b->n, head + 8, 0, NULL};
    uint32_t ncols = get_u32(&i);
    if (ncols == 0 || ncols > STATE_MAX_COLS)
        return refuse(e, name, "a column count out of range");
    uint64_t max = state_max_bytes(info, ncols);
    if (len > max || len > STATE_MAX_BYTES)
        return cs_fail(e, CS_EDATA, name, 0,
                       "not a colstat state: a payload of %" PRIu64
                       " bytes, past the %" PRIu64 " that %u columns may "
                       "take (and 2 GiB in all)",
                       len, max < STATE_MAX_BYTES ? max : STATE_MAX_BYTES,
                       ncols);
    if (len < min_bytes(info, ncols))
        return refuse(e, name, "cut short or corrupt (length)");
    size_t rest = (size_t)len - 12 + 4; /* and the CRC */
    if (read_more(f, b, rest) || b->n - head - 12 < rest)
        return refuse(e, name, "cut short");
    if (fgetc(f) != EOF)
        return refuse(e, name, "bytes past its end");
    if (!crc_ok(b->p, b->n))
        return refuse(e, name, "cut short or corrupt (CRC-32 mismatch)");
    return CS_OK;
}

static int read_state(FILE *f, const char *name, state_info *info,
                      engine_result *r, cs_error *e)
{
    raw b = {0};
    uint64_t len = 0;
    int rc = read_header(f, name, &b, info, &len, e);
    size_t head = b.n;
    if (rc == CS_OK)
        rc = read_payload(f, name, &b, info, len, e);
    if (rc == CS_OK) {
        in i = {b.p, b.n - 4, head, 0, NULL};
        if (get_columns(&i, r) || i.at != i.n)
            rc = refuse(e, name, i.why ? i.why : "corrupt payload");
    }
    free(b.p);
    if (rc == CS_OK)
        rc = state_check(info, r, name, e);
    return rc;
}

int state_read(FILE *f, const char *name, state_info *info, engine_result *r,
               cs_error *e)
{
    memset(r, 0, sizeof *r);
    memset(info, 0, sizeof *info);
    int rc = read_state(f, name, info, r, e);
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
            !same_hist(a->h, b->h))
            return cs_fail(e, CS_EDATA, "", 0,
                           "the states' column %d differs ('%s' and '%s')",
                           k + 1, a->name, b->name);
    }
    /* each state's counts are at most its rows (state_check), so rows
       that add up keep every count and row number from wrapping; the sum
       of the corrections is signed and checked apart */
    if (dst->rows > UINT64_MAX - src->rows)
        return cs_fail(e, CS_EDATA, "", 0, "the states' rows add up past 2^64");
    for (int k = 0; k < dst->ncols; k++) {
        int64_t r;
        if (__builtin_add_overflow(dst->cols[k].st->sum_r,
                                   src->cols[k].st->sum_r, &r))
            return cs_fail(e, CS_EDATA, "", 0,
                           "the states' column %d: its integer corrections "
                           "add up past 2^63",
                           k + 1);
    }
    for (int k = 0; k < dst->ncols; k++) {
        /* the column's statistics are dst's own, in its held arrays */
        ptrdiff_t at = dst->cols[k].st - dst->held_st;
        if (stats_merge(&dst->held_st[at], src->cols[k].st, dst->rows))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        if (dst->held_h[at].bins)
            hist_merge(&dst->held_h[at], src->cols[k].h);
    }
    dst->rows += src->rows;
    return CS_OK;
}
