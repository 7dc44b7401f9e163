/* Partial states (src/dist/state.h): a result written and read back is the
 * same, bit for bit; the states of random splits of a column, merged in
 * order, are the state of the whole; a state cut at any byte, with any
 * byte changed, of another version or with no magic is refused; an
 * endless input is refused after its header, and a hand-made state (a
 * valid CRC over what no run gives) and merges past the counters are
 * refused. Random values drawn fresh with a logged seed. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io/num/parse_kind.h"
#include "src/dist/state.h"
#include "src/dist/state_codec.h"
#include "tests/testlib.h"

enum { COLS = 3, N = 5000 };

static uint64_t rng;

static double draw(void)
{
    uint64_t r = test_rand(&rng);
    switch (r % 6) {
    case 0:
        return NAN;
    case 1:
        return (double)(int64_t)(r >> 20) - 4e12; /* integers */
    case 2:
        return r % 97 ? ldexp((double)(r >> 11), -40) : INFINITY;
    default:
        return ldexp((double)(r >> 12), (int)(r % 300) - 150) *
               ((r & 8) ? -1 : 1);
    }
}

/* A result of COLS columns over rows [from, to) of v. */
static void make(engine_result *r, double (*v)[N], size_t from, size_t to,
                 int with_hist)
{
    memset(r, 0, sizeof *r);
    r->ncols = COLS;
    r->rows = to - from;
    r->nheld = COLS;
    r->cols = calloc(COLS, sizeof *r->cols);
    r->held_st = calloc(COLS, sizeof *r->held_st);
    r->held_h = calloc(COLS, sizeof *r->held_h);
    ck_assert(r->cols && r->held_st && r->held_h);
    for (int k = 0; k < COLS; k++) {
        engine_column *c = &r->cols[k];
        col_stats *st = &r->held_st[k];
        char name[16];
        snprintf(name, sizeof name, "c%d", k);
        c->name = strdup(name);
        c->index = 2 * k + 1;
        c->st = st;
        c->h = &r->held_h[k];
        stats_init(st);
        stats_add_values(st, v[k] + from, NULL, to - from, 1, STAT_ALL);
        /* the NaN rows' fields, as a run would count them: NaN in the
           first column, missing and invalid halves in the others */
        uint64_t nans = 0, first_nan = 0;
        for (size_t i = from; i < to; i++)
            if (isnan(v[k][i]) && !nans++)
                first_nan = i - from + 1;
        uint64_t invalid = k ? nans / 2 : 0;
        stats_add_counts(st, k ? nans - invalid : 0, invalid, k ? 0 : nans,
                         invalid ? first_nan : 0);
        if (with_hist) {
            ck_assert_int_eq(hist_init(&r->held_h[k], 17, -1e6, 1e6), 0);
            hist_add_values(&r->held_h[k], v[k] + from, to - from);
        }
    }
}

static void same(const engine_result *a, const engine_result *b)
{
    ck_assert_uint_eq(a->rows, b->rows);
    ck_assert_int_eq(a->ncols, b->ncols);
    for (int k = 0; k < a->ncols; k++) {
        const engine_column *x = &a->cols[k], *y = &b->cols[k];
        ck_assert_str_eq(x->name, y->name);
        ck_assert_int_eq(x->index, y->index);
        col_summary s, t;
        stats_finalize(x->st, &s);
        stats_finalize(y->st, &t);
        ck_assert(!memcmp(&s.sum, &t.sum, 8) && !memcmp(&s.std, &t.std, 8));
        ck_assert(!memcmp(&s.min, &t.min, 8) && !memcmp(&s.max, &t.max, 8));
        ck_assert(s.count == t.count && s.min_row == t.min_row &&
                  s.max_row == t.max_row && s.missing == t.missing &&
                  s.invalid == t.invalid &&
                  s.first_invalid_row == t.first_invalid_row);
        ck_assert_int_eq(x->h->nbins, y->h->nbins);
        for (int i = 0; x->h->bins && i < x->h->nbins; i++)
            ck_assert_uint_eq(x->h->bins[i], y->h->bins[i]);
    }
}

/* The key of a run of make's statistics, histograms or not, and -c
 * columns (any text: it only tells runs apart). */
static char *key_of(int with_hist, const char *columns)
{
    engine_config c;
    memset(&c, 0, sizeof c);
    c.columns = columns;
    c.what = with_hist ? STAT_ALL : STAT_ALL & ~STAT_HIST;
    c.nbins = 17;
    c.have_range = 1;
    c.range_lo = -1e6;
    c.range_hi = 1e6;
    char *k = state_key(&c);
    ck_assert(k != NULL);
    return k;
}

/* r's state under the key of a run with -c columns. */
static unsigned char *encode(const engine_result *r, const char *columns,
                             size_t *n)
{
    char *p = NULL;
    FILE *f = open_memstream(&p, n);
    cs_error e = {0};
    int hist = r->cols[0].h->bins != NULL;
    state_info info = {.key = key_of(hist, columns)};
    info.what = hist ? STAT_ALL : STAT_ALL & ~STAT_HIST;
    ck_assert_int_eq(state_write(f, &info, r, &e), CS_OK);
    fclose(f);
    free(info.key);
    return (unsigned char *)p;
}

static int decode(const unsigned char *p, size_t n, engine_result *r,
                  char **key, cs_error *e)
{
    FILE *f = fmemopen((void *)p, n ? n : 1, "r");
    if (n == 0) /* fmemopen needs a byte: an empty file reads nothing */
        fgetc(f);
    state_info info;
    int rc = state_read(f, "s", &info, r, e);
    fclose(f);
    *key = info.key;
    if (rc == CS_OK)
        ck_assert_uint_eq(info.what & ~STAT_HIST, STAT_ALL & ~STAT_HIST);
    return rc;
}

START_TEST(round_trip_and_merge)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (int i = 0; i < N; i++)
            v[k][i] = draw();
    int hist = (int)(test_rand(&rng) % 2);
    engine_result whole, acc, part, back;
    make(&whole, v, 0, N, hist);
    size_t n;
    unsigned char *p = encode(&whole, "k=1", &n);
    char *key = NULL;
    cs_error e = {0};
    ck_assert_int_eq(decode(p, n, &back, &key, &e), CS_OK);
    char *want = key_of(hist, "k=1");
    ck_assert_str_eq(key, want);
    free(want);
    same(&whole, &back);
    free(key);
    engine_result_free(&back);
    free(p);
    /* random splits, each through the encoding, merged in order */
    size_t cut = 1 + test_rand(&rng) % (N - 1);
    make(&acc, v, 0, cut, hist);
    while (cut < N) {
        size_t next = cut + 1 + test_rand(&rng) % (N - cut);
        make(&part, v, cut, next, hist);
        p = encode(&part, "k", &n);
        engine_result_free(&part);
        ck_assert_int_eq(decode(p, n, &part, &key, &e), CS_OK);
        ck_assert_int_eq(state_merge(&acc, &part, NULL, &e), CS_OK);
        engine_result_free(&part);
        free(key);
        free(p);
        cut = next;
    }
    /* counts added per part: compare the rest */
    for (int k = 0; k < COLS; k++) {
        acc.held_st[k].missing = whole.cols[k].st->missing;
        acc.held_st[k].invalid = whole.cols[k].st->invalid;
        acc.held_st[k].first_invalid_row = whole.cols[k].st->first_invalid_row;
    }
    same(&whole, &acc);
    engine_result_free(&whole);
    engine_result_free(&acc);
    free(v);
}
END_TEST

/* A datetime column with zones carries its extremes' UTC offsets through
 * a state, and only it; an offset past 23:59 is refused. */
START_TEST(offsets_travel)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (int i = 0; i < N; i++)
            v[k][i] = draw();
    engine_result r, back;
    make(&r, v, 0, N, 0);
    r.cols[0].kind = KIND_DATETIME_Z;
    r.cols[1].kind = KIND_DATETIME;
    for (int k = 0; k < 2; k++) {
        r.held_st[k].min_off = (int16_t)(k ? 0 : -1439);
        r.held_st[k].max_off = (int16_t)(k ? 0 : 765);
    }
    size_t n;
    unsigned char *p = encode(&r, "k", &n);
    char *key = NULL;
    cs_error e = {0};
    ck_assert_int_eq(decode(p, n, &back, &key, &e), CS_OK);
    ck_assert_int_eq(back.cols[0].kind, KIND_DATETIME_Z);
    ck_assert_int_eq(back.cols[1].kind, KIND_DATETIME);
    ck_assert_int_eq(back.cols[0].st->min_off, -1439);
    ck_assert_int_eq(back.cols[0].st->max_off, 765);
    ck_assert_int_eq(back.cols[1].st->min_off, 0);
    same(&r, &back);
    engine_result_free(&back);
    free(key);
    free(p);
    r.held_st[0].max_off = 1440;
    p = encode(&r, "k", &n);
    ck_assert_int_eq(decode(p, n, &back, &key, &e), CS_EDATA);
    ck_assert_msg(strstr(e.msg, "UTC offset") != NULL, "%s", e.msg);
    engine_result_free(&back);
    free(key);
    free(p);
    engine_result_free(&r);
    free(v);
}
END_TEST

START_TEST(damage_is_refused)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (int i = 0; i < N; i++)
            v[k][i] = draw();
    engine_result r, back;
    make(&r, v, 0, 100, 1);
    size_t n;
    unsigned char *p = encode(&r, "key", &n);
    char *key;
    cs_error e = {0};
    for (size_t cut = 0; cut < n; cut += 1 + cut / 16) {
        memset(&e, 0, sizeof e);
        ck_assert_int_eq(decode(p, cut, &back, &key, &e), CS_EDATA);
        ck_assert(strstr(e.msg, "state") != NULL);
    }
    for (int it = 0; it < 300; it++) {
        size_t at = test_rand(&rng) % n;
        unsigned char was = p[at];
        p[at] ^= (unsigned char)(1 + test_rand(&rng) % 255);
        memset(&e, 0, sizeof e);
        ck_assert_int_eq(decode(p, n, &back, &key, &e), CS_EDATA);
        p[at] = was;
    }
    p[14] = '0' + STATE_VERSION + 1; /* "colstat-state 3 " */
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(decode(p, n, &back, &key, &e), CS_EDATA);
    ck_assert(strstr(e.msg, "version") != NULL);
    engine_result other;
    make(&other, v, 0, 10, 0); /* no histograms: columns differ */
    ck_assert_int_eq(state_merge(&r, &other, NULL, &e), CS_EDATA);
    engine_result_free(&other);
    engine_result_free(&r);
    free(p);
    free(v);
}
END_TEST

/* An endless input (as /dev/zero, a FIFO, a stream that never ends):
 * zeros, or a prefix and then zeros, up to CAP bytes, counting reads. */
enum { CAP = 64 << 20 };

typedef struct endless {
    const unsigned char *prefix;
    size_t nprefix, at;
    char fill; /* what follows the prefix */
} endless;

static ssize_t endless_read(void *c, char *buf, size_t n)
{
    endless *s = c;
    if (s->at >= CAP)
        return 0;
    for (size_t i = 0; i < n; i++, s->at++)
        buf[i] = s->at < s->nprefix ? (char)s->prefix[s->at] : s->fill;
    return (ssize_t)n;
}

/* state_read over prefix then fill without end: refused, having read less
 * than the prefix and limit bytes more. */
static void refused_early(const unsigned char *prefix, size_t n, char fill,
                          size_t limit)
{
    endless s = {prefix, n, 0, fill};
    cookie_io_functions_t io = {endless_read, NULL, NULL, NULL};
    FILE *f = fopencookie(&s, "r", io);
    ck_assert(f != NULL);
    state_info info;
    engine_result r;
    cs_error e = {0};
    ck_assert_int_eq(state_read(f, "s", &info, &r, &e), CS_EDATA);
    ck_assert(strstr(e.msg, "state") != NULL);
    fclose(f);
    ck_assert_msg(s.at <= n + limit, "read %zu bytes of %zu + %zu", s.at, n,
                  limit);
}

/* The start of a state's line whose header declares a payload of len
 * bytes (before any of it): the key of make's runs, in base64, cut at a
 * whole group of 4 characters (so the characters after it continue it). */
static unsigned char *header_declaring(uint64_t len, size_t *n)
{
    unsigned char bin[256];
    char *key = key_of(1, "c");
    size_t k = strlen(key), at = 0;
    uint64_t v[] = {k, STAT_ALL, 0, 0, 0, len};
    for (size_t i = 0; i < 6; i++) {
        if (i == 1) {
            memcpy(bin + at, key, k);
            at += k;
        }
        uint64_t x = v[i];
        do {
            bin[at++] = (unsigned char)((x & 0x7f) | (x >> 7 ? 0x80 : 0));
            x >>= 7;
        } while (x);
    }
    free(key);
    while (at % 3) /* whole groups: the 'A's after it are zero bits */
        bin[at++] = 0;
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
                              "wxyz0123456789+/";
    unsigned char *p = malloc(32 + at / 3 * 4);
    *n = (size_t)sprintf((char *)p, "colstat-state %d ", STATE_VERSION);
    for (size_t i = 0; i < at; i += 3) {
        uint32_t g =
            (uint32_t)bin[i] << 16 | (uint32_t)bin[i + 1] << 8 | bin[i + 2];
        for (int c = 0; c < 4; c++)
            p[(*n)++] = (unsigned char)b64[(g >> (18 - 6 * c)) & 63];
    }
    return p;
}

START_TEST(header_first)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (int i = 0; i < N; i++)
            v[k][i] = draw();
    engine_result r;
    make(&r, v, 0, N, 1);
    size_t n;
    unsigned char *p = encode(&r, "c", &n);
    refused_early(NULL, 0, 0, 1 << 16);    /* no prefix: at once */
    refused_early(p, 16, 0, 1 << 16);      /* the prefix, then NULs */
    refused_early(p, 16, 'A', 1 << 16);    /* a key of 0 bytes, endless */
    refused_early(p, n - 1, 'A', 1 << 16); /* the state, then more */
    free(p);
    p = header_declaring((uint64_t)1 << 40, &n); /* past the bound */
    refused_early(p, n, 'A', 1 << 16);
    free(p);
    p = header_declaring(STATE_MAX_BYTES, &n); /* past 3 columns' bound */
    refused_early(p, n, 'A', 1 << 16);
    free(p);
    engine_result_free(&r);
    free(v);
}
END_TEST

/* What the reader would refuse, the writer makes not: a name past
 * STATE_MAX_NAME. */
START_TEST(write_bounds)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (int i = 0; i < N; i++)
            v[k][i] = draw();
    engine_result r;
    make(&r, v, 0, 10, 0);
    free(r.cols[1].name);
    r.cols[1].name = malloc(STATE_MAX_NAME + 2);
    memset(r.cols[1].name, 'n', STATE_MAX_NAME + 1);
    r.cols[1].name[STATE_MAX_NAME + 1] = 0;
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    state_info info = {.key = key_of(0, "c"), .what = STAT_ALL & ~STAT_HIST};
    cs_error e = {0};
    ck_assert_int_eq(state_write(f, &info, &r, &e), CS_EDATA);
    ck_assert(strstr(e.msg, "64 KiB") != NULL);
    fclose(f);
    ck_assert_uint_eq(n, 0);
    free(p);
    free(info.key);
    engine_result_free(&r);
    free(v);
}
END_TEST

/* What a hand-made state (its CRC valid: written by state_write) may hold
 * that no run gives; each refused on reading. */
static void mutate(engine_result *r, int which)
{
    col_stats *s = &r->held_st[1];
    hist *h = &r->held_h[1];
    sacc a;
    sacc_init(&a);
    switch (which) {
    case 0: /* a count past the rows (2^64-1 + 2 wrapped to 1) */
        s->count = UINT64_MAX;
        return;
    case 1: /* a sum of corrections no count allows */
        s->sum_r = INT64_MAX;
        return;
    case 2: { /* min > max */
        double t = s->min;
        s->min = s->max;
        s->max = t;
        return;
    }
    case 3: /* a count of 0 with a sum */
        s->count = 0;
        s->min = s->max = NAN;
        s->min_row = s->max_row = s->min_row_int = s->max_row_int = 0;
        s->min_corr = s->max_corr = 0;
        return;
    case 4: /* min_row past the rows */
        s->min_row = r->rows + 1;
        return;
    case 5: /* a negative index */
        r->cols[1].index = -1;
        return;
    case 6: /* two columns of one index */
        r->cols[1].index = r->cols[0].index;
        return;
    case 7: /* a histogram of other values than the count */
        h->bins[0]++;
        return;
    case 8: /* other edges than the key's */
        h->hi *= 2;
        return;
    case 9: /* a correction no integer has */
        s->min_corr = 5000;
        return;
    case 10: /* a first invalid row, no invalid field */
        s->invalid = 0;
        s->first_invalid_row = 1;
        return;
    case 11: /* a sum past any 2^64 doubles' */
        a.d[SACC_DIGITS - 1] = 5;
        ck_assert_int_eq(csum_add(&s->sum, &a), 0);
        return;
    case 12: /* +inf in the sum without +inf among the values */
        s->max = 1.0;
        s->min = fmin(s->min, 1.0);
        sacc_add(&a, INFINITY);
        ck_assert_int_eq(csum_add(&s->sum, &a), 0);
        return;
    case 13: /* all_int 2 */
        s->all_int = 2;
        return;
    case 15: /* a sum past count times max (or below count times min) */
        csum_free(&s->sum);
        sacc_add(&a, isfinite(s->max) ? DBL_MAX : -DBL_MAX);
        ck_assert_int_eq(csum_add(&s->sum, &a), 0);
        return;
    case 16: /* integers whose sum is not one */
        s->all_int = 1;
        sacc_add(&a, 0.5);
        ck_assert_int_eq(csum_add(&s->sum, &a), 0);
        return;
    case 17: /* integers whose extreme is no integer (fuzz_merge: UB) */
        s->all_int = 1;
        s->min = -3e231;
        return;
    default: /* a negative sum of squares */
        csum_free(&s->sumsq);
        sacc_add(&a, -1.0);
        ck_assert_int_eq(csum_add(&s->sumsq, &a), 0);
        return;
    }
}

START_TEST(handmade_refused)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (int i = 0; i < N; i++)
            v[k][i] = draw();
    for (int which = 0; which <= 18; which++) {
        engine_result r, back;
        make(&r, v, 0, 200, 1);
        mutate(&r, which);
        size_t n;
        unsigned char *p = encode(&r, "c", &n);
        char *key = NULL;
        cs_error e = {0};
        ck_assert_msg(decode(p, n, &back, &key, &e) == CS_EDATA,
                      "mutation %d was read", which);
        ck_assert(strstr(e.msg, "state") != NULL);
        free(p);
        engine_result_free(&r);
    }
    free(v);
}
END_TEST

/* A GPU run counts a column's invalid fields but finds the first one's
 * line, not its row: its state holds invalid > 0 beside row 0, which must
 * be read (every --mpi run on GPUs with an invalid field was refused). */
START_TEST(invalid_row_unknown_read)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (int i = 0; i < N; i++)
            v[k][i] = draw();
    engine_result r, back;
    make(&r, v, 0, 200, 1);
    r.rows += 3; /* rows of invalid fields only */
    col_stats *s = &r.held_st[1 + test_rand(&rng) % (COLS - 1)];
    s->invalid += 3;
    s->first_invalid_row = 0;
    size_t n;
    unsigned char *p = encode(&r, "c", &n);
    char *key = NULL;
    cs_error e = {0};
    ck_assert_msg(decode(p, n, &back, &key, &e) == CS_OK, "%s", e.msg);
    same(&r, &back);
    free(p);
    free(key);
    engine_result_free(&back);
    engine_result_free(&r);
    free(v);
}
END_TEST

/* A one-column state made by hand in the encoding (src/dist/state_codec.h,
 * the order of state.c), its CRC right: one value 1 in row 1, whose sum
 * holds the single digit `digit` at position `at`. */
/* The line of a hand-made payload (body, freed here) under make's key
 * without histograms, its CRC valid. */
static unsigned char *line_of(sc_out *body, size_t *n)
{
    sc_out all = {0};
    char *key = key_of(0, "c");
    sc_put_text(&all, key);
    sc_put_u64(&all, STAT_ALL & ~STAT_HIST);
    for (int i = 0; i < 3; i++)
        sc_put_u64(&all, 0);
    sc_put_u64(&all, body->n);
    sc_put(&all, body->p, body->n);
    sc_put_crc(&all);
    char *p = NULL;
    FILE *f = open_memstream(&p, n);
    ck_assert(f && !all.oom && !body->oom);
    ck_assert_int_eq(sc_line_write(f, "colstat-state 3 ", all.p, all.n), 0);
    fclose(f);
    free(key);
    free(body->p);
    free(all.p);
    return (unsigned char *)p;
}

/* A state of one column of kind `kind` (its index's high bits) holding
 * one value, 1.0, with its sum's one digit `digit` at `at`; noff UTC
 * offsets off[] after its histogram. */
static unsigned char *hand_kind_state(int64_t digit, uint64_t at, uint64_t kind,
                                      const int64_t *off, int noff, size_t *n)
{
    sc_out body = {0};
    const uint64_t head[] = {1, 1}, counts[] = {1, 0, 0, 0, 0, 1, 1, 1, 1};
    for (size_t i = 0; i < 2; i++)
        sc_put_u64(&body, head[i]);
    sc_put_text(&body, "c0");
    sc_put_u64(&body, 1 | kind << 32);
    for (size_t i = 0; i < 9; i++)
        sc_put_u64(&body, counts[i]);
    sc_put_i64(&body, 0);
    sc_put_f64(&body, 1.0);
    sc_put_f64(&body, 1.0);
    sc_put_i64(&body, 0);
    sc_put_i64(&body, 0);
    sc_put_u64(&body, 1);
    const uint64_t sums[] = {1, at, 0, 0, 0, 0, 0, 0, 0, 0};
    sc_put_u64(&body, sums[0]);
    sc_put_u64(&body, sums[1]);
    sc_put_i64(&body, digit);
    for (size_t i = 2; i < 10; i++)
        sc_put_u64(&body, sums[i]);
    sc_put_u64(&body, 0); /* no histogram */
    for (int i = 0; i < noff; i++)
        sc_put_i64(&body, off[i]);
    return line_of(&body, n);
}

static unsigned char *hand_state(int64_t digit, uint64_t at, size_t *n)
{
    return hand_kind_state(digit, at, 0, NULL, 0, n);
}

/* A datetime column with zones: its offsets read back with the bit that
 * says they follow; refused without it (a colstat before offsets wrote
 * it), without the offsets, or with one past 23:59. */
START_TEST(offsets_by_hand)
{
    const uint64_t z = KIND_DATETIME_Z, zoff = z | STATE_KIND_OFFSETS;
    const int64_t off[] = {-330, 1439}, far[] = {0, 1440};
    const struct {
        uint64_t kind;
        const int64_t *off;
        int noff;
        const char *why;
    } c[] = {{zoff, off, 2, NULL},
             {z, NULL, 0, "unknown kind"},
             {zoff, NULL, 0, "corrupt"},
             {zoff, far, 2, "UTC offset"},
             {KIND_DATETIME, off, 2, "corrupt"}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        engine_result back;
        char *key = NULL;
        size_t n;
        unsigned char *q =
            hand_kind_state(1, 68, c[i].kind, c[i].off, c[i].noff, &n);
        cs_error e = {0};
        int rc = decode(q, n, &back, &key, &e);
        if (!c[i].why) {
            ck_assert_msg(rc == CS_OK, "%s", e.msg);
            ck_assert_int_eq(back.cols[0].kind, KIND_DATETIME_Z);
            ck_assert_int_eq(back.cols[0].st->min_off, -330);
            ck_assert_int_eq(back.cols[0].st->max_off, 1439);
        } else {
            ck_assert_int_eq(rc, CS_EDATA);
            ck_assert_msg(strstr(e.msg, c[i].why) != NULL, "%zu: %s", i, e.msg);
        }
        engine_result_free(&back);
        free(key);
        free(q);
    }
}
END_TEST

/* A sum's digit out of its normal form, the CRC made right: refused
 * before the digits are added up (fuzz_merge: signed overflow in the
 * compact sum's balancing); the same state with a normal digit is read. */
START_TEST(digits_refused)
{
    const uint64_t at[] = {0, 5, SACC_DIGITS - 1};
    engine_result back;
    char *key = NULL;
    for (size_t d = 0; d < 3; d++) {
        size_t n;
        unsigned char *q = hand_state(INT64_MAX, at[d], &n);
        cs_error e = {0};
        ck_assert_int_eq(decode(q, n, &back, &key, &e), CS_EDATA);
        ck_assert_msg(strstr(e.msg, "digits") != NULL, "%s", e.msg);
        free(q);
    }
    size_t n;
    unsigned char *q = hand_state(1, 68, &n); /* 2^0: digit 68 holds 1 */
    cs_error e = {0};
    ck_assert_msg(decode(q, n, &back, &key, &e) == CS_OK, "%s", e.msg);
    engine_result_free(&back);
    free(key);
    free(q);
}
END_TEST

/* A payload that declares more columns than its bytes can hold: refused
 * before the columns are made (fuzz_merge: 2^24 columns in 400 bytes
 * asked 5 GB of memory). */
START_TEST(columns_past_payload)
{
    sc_out body = {0};
    sc_put_u64(&body, 1);         /* rows */
    sc_put_u64(&body, 1u << 24);  /* columns */
    for (int i = 0; i < 400; i++) /* a few bytes of them */
        sc_put(&body, "\0", 1);
    size_t n = 0;
    unsigned char *p = line_of(&body, &n);
    engine_result back;
    char *k = NULL;
    cs_error e = {0};
    ck_assert_int_eq(decode(p, n, &back, &k, &e), CS_EDATA);
    ck_assert_msg(strstr(e.msg, "shorter than its columns") != NULL, "%s",
                  e.msg);
    free(p);
    free(k);
}
END_TEST

/* A hand-made payload of rows and no columns, under make's key. */
static unsigned char *no_columns(uint64_t rows, size_t *n)
{
    sc_out body = {0};
    sc_put_u64(&body, rows);
    sc_put_u64(&body, 0); /* columns */
    return line_of(&body, n);
}

/* The state of a run over no rows (an engine's empty partition: a file's
 * header alone) is short: no columns, no groups. Written by state_write
 * and read back (its header is shorter than the reader waited for: it
 * was refused as cut short); merged into a state of rows it adds
 * nothing; with rows and no columns it is refused; cut, refused. */
START_TEST(no_rows_state)
{
    engine_result none = {0}, back, whole;
    size_t n;
    char *p = NULL, *key = NULL;
    FILE *f = open_memstream(&p, &n);
    cs_error e = {0};
    state_info info = {.key = key_of(0, "c"), .what = STAT_ALL & ~STAT_HIST};
    ck_assert_int_eq(state_write(f, &info, &none, &e), CS_OK);
    fclose(f);
    free(info.key);
    ck_assert_int_eq(decode((unsigned char *)p, n, &back, &key, &e), CS_OK);
    ck_assert(state_no_rows(&back) && back.rows == 0);
    free(key);
    for (size_t cut = 0; cut + 1 < n; cut++) { /* a newline at each end */
        char *c = malloc(cut + 1);
        memcpy(c, p, cut);
        c[cut] = '\n';
        engine_result r;
        cs_error ce = {0};
        ck_assert_int_eq(decode((unsigned char *)c, cut + 1, &r, &key, &ce),
                         CS_EDATA);
        free(key);
        free(c);
    }
    free(p);
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (int i = 0; i < N; i++)
            v[k][i] = draw();
    size_t at = test_rand(&rng) % N;
    make(&whole, v, 0, at, 0);
    engine_result ref;
    make(&ref, v, 0, at, 0);
    ck_assert_int_eq(state_merge(&whole, &back, NULL, &e), CS_OK);
    same(&whole, &ref);
    engine_result_free(&back);
    unsigned char *bad = no_columns(1 + test_rand(&rng) % 1000, &n);
    ck_assert_int_eq(decode(bad, n, &back, &key, &e), CS_EDATA);
    ck_assert_msg(strstr(e.msg, "column count") != NULL, "%s", e.msg);
    free(bad);
    free(key);
    engine_result_free(&whole);
    engine_result_free(&ref);
    free(v);
}
END_TEST

/* A state of columns and rows 0 (a part none of whose records fell to
 * it; an empty binary input's state as colstat wrote it before such a
 * state had no columns) holds no rows: read back, merged either side of
 * a state of rows it adds nothing, and a merge of such states alone
 * still holds no rows (--merge's no-data error). */
START_TEST(zero_rows_with_columns)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (int i = 0; i < N; i++)
            v[k][i] = draw();
    size_t at = test_rand(&rng) % N, n;
    engine_result zero, back, other, whole, ref;
    make(&zero, v, at, at, 0);
    unsigned char *p = encode(&zero, "k", &n);
    char *key = NULL;
    cs_error e = {0};
    ck_assert_int_eq(decode(p, n, &back, &key, &e), CS_OK);
    ck_assert(state_no_rows(&back));
    free(key);
    ck_assert_int_eq(decode(p, n, &other, &key, &e), CS_OK);
    free(key);
    ck_assert_int_eq(state_merge(&back, &other, NULL, &e), CS_OK);
    ck_assert(state_no_rows(&back) && back.rows == 0);
    make(&whole, v, 0, N, 0);
    make(&ref, v, 0, N, 0);
    ck_assert_int_eq(state_merge(&whole, &other, NULL, &e), CS_OK);
    same(&whole, &ref);
    ck_assert_int_eq(state_merge(&back, &whole, NULL, &e), CS_OK);
    same(&back, &ref);
    engine_result_free(&zero);
    engine_result_free(&back);
    engine_result_free(&other);
    engine_result_free(&whole);
    engine_result_free(&ref);
    free(p);
    free(v);
}
END_TEST

/* Merges whose totals pass the counters: refused, not wrapped. */
START_TEST(merge_overflow_refused)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (int i = 0; i < N; i++)
            v[k][i] = draw();
    engine_result a, b;
    cs_error e = {0};
    make(&a, v, 0, 100, 0);
    make(&b, v, 100, 200, 0);
    a.rows = UINT64_MAX - 1;
    ck_assert_int_eq(state_merge(&a, &b, NULL, &e), CS_EDATA);
    a.rows = (uint64_t)1 << 61;
    b.rows = (uint64_t)1 << 61;
    a.held_st[0].count = b.held_st[0].count = (uint64_t)1 << 61;
    a.held_st[0].sum_r = b.held_st[0].sum_r = ((int64_t)1 << 62) + 1;
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(state_merge(&a, &b, NULL, &e), CS_EDATA);
    ck_assert(strstr(e.msg, "2^63") != NULL);
    engine_result_free(&a);
    engine_result_free(&b);
    free(v);
}
END_TEST

int main(void)
{
    rng = test_seed("test_state");
    Suite *s = suite_create("state");
    TCase *tc = tcase_create("state");
    tcase_set_timeout(tc, 120);
    for (int i = 0; i < 5; i++)
        tcase_add_test(tc, round_trip_and_merge);
    tcase_add_test(tc, offsets_travel);
    tcase_add_test(tc, damage_is_refused);
    tcase_add_test(tc, header_first);
    tcase_add_test(tc, write_bounds);
    tcase_add_test(tc, handmade_refused);
    tcase_add_test(tc, invalid_row_unknown_read);
    tcase_add_test(tc, digits_refused);
    tcase_add_test(tc, offsets_by_hand);
    tcase_add_test(tc, columns_past_payload);
    tcase_add_test(tc, merge_overflow_refused);
    tcase_add_test(tc, no_rows_state);
    tcase_add_test(tc, zero_rows_with_columns);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
