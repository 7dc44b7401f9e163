/* Text columns and the distinct values' counts in partial states
 * (src/dist/state.h, state_fields.h): random texts (quotes, delimiters,
 * line breaks, multibyte and invalid UTF-8, NUL bytes) and numbers (-0
 * and 0, integers past 2^53 with their corrections, infinities, NaN) are
 * written as one printable line and read back the same, value for value
 * in the order first seen; the states of random splits merged in any
 * order count each distinct value as the whole does, against a count made
 * here by sorting; a hand-broken profile is refused. Seed logged. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/dist/state.h"
#include "src/dist/state_codec.h"
#include "src/dist/state_fields.h"
#include "tests/testlib.h"

enum { N = 4000, TOP = 5 };

static uint64_t rng;

/* A text of 0 to 6 pieces, each a byte or sequence CSV makes hard. */
static size_t draw_text(char *out)
{
    static const char *const piece[] = {
        "\"", ",",        "\n",           "\r",   "a",   "b",
        " ",  "\xc3\xa9", "\xe6\x97\xa5", "\xff", "\xc3"};
    size_t n = 0, k = test_rand(&rng) % 7;
    for (size_t i = 0; i < k; i++) {
        uint64_t r = test_rand(&rng) % 12;
        if (r == 11) { /* a NUL byte: a value is its bytes, any of them */
            out[n++] = 0;
            continue;
        }
        size_t l = strlen(piece[r]);
        memcpy(out + n, piece[r], l);
        n += l;
    }
    return n;
}

/* A number and its correction: few distinct ones, so that counts pile;
 * ints: integers alone (an integer column: corrections tell 2^60 + 1 from
 * 2^60). */
static double draw_number(int ints, int32_t *corr)
{
    uint64_t r = test_rand(&rng);
    *corr = 0;
    switch (ints && r % 7 > 2 ? 5 : r % 7) {
    case 0:
        return (r & 16) ? -0.0 : 0.0;
    case 1:
        return NAN;
    case 2:
        *corr = (int32_t)((r >> 8) % 5) - 2; /* 2^60 - 2 .. 2^60 + 2 */
        return 0x1p60;
    case 3:
        return (r & 16) ? INFINITY : -INFINITY;
    case 4:
        return (double)((int)((r >> 8) % 41) - 20) / 4;
    default:
        return (double)((int)((r >> 8) % 300) - 150);
    }
}

typedef struct data {
    char text[N][32];
    size_t len[N];
    int missing[N];
    double v[N];
    int32_t corr[N];
} data;

static void draw_data(data *d)
{
    int ints = (int)(test_rand(&rng) % 2);
    for (int i = 0; i < N; i++) {
        d->missing[i] = test_rand(&rng) % 10 == 0;
        d->len[i] = draw_text(d->text[i]);
        d->v[i] = draw_number(ints, &d->corr[i]);
    }
}

/* A result of rows [from, to): a text column and a number column, their
 * profiles whole (held_raw), as a run with --distinct gives. */
static void make(engine_result *r, const data *d, size_t from, size_t to)
{
    memset(r, 0, sizeof *r);
    r->ncols = r->nheld = 2;
    r->rows = to - from;
    r->cols = calloc(2, sizeof *r->cols);
    r->held_st = calloc(2, sizeof *r->held_st);
    r->held_h = calloc(2, sizeof *r->held_h);
    r->held_raw = calloc(2, sizeof *r->held_raw);
    ck_assert(r->cols && r->held_st && r->held_h && r->held_raw);
    r->prof_top = TOP;
    for (int k = 0; k < 2; k++) {
        engine_column *c = &r->cols[k];
        c->name = strdup(k ? "n" : "t");
        c->index = k + 1;
        c->held = k;
        c->kind = k ? COL_NUMBER : COL_TEXT;
        c->st = &r->held_st[k];
        c->h = &r->held_h[k];
        stats_init(&r->held_st[k]);
        ck_assert_int_eq(profile_init(&r->held_raw[k], 1), 0);
    }
    for (size_t i = from; i < to; i++)
        ck_assert_int_eq(profile_add_text(&r->held_raw[0],
                                          d->missing[i] ? NULL : d->text[i],
                                          d->len[i]),
                         0);
    stats_add_values(&r->held_st[1], d->v + from, d->corr + from, to - from, 1,
                     STAT_COUNT | STAT_MIN | STAT_MAX);
    uint64_t nans = 0;
    for (size_t i = from; i < to; i++)
        nans += isnan(d->v[i]) != 0;
    stats_add_counts(&r->held_st[1], 0, 0, nans, 0);
    ck_assert_int_eq(profile_add_numbers(&r->held_raw[1], d->v + from,
                                         d->corr + from, to - from),
                     0);
}

static char *key(void)
{
    engine_config c;
    memset(&c, 0, sizeof c);
    c.what = STAT_COUNT | STAT_MIN | STAT_MAX | STAT_DISTINCT | STAT_TOP;
    c.top = TOP;
    c.nbins = 256;
    char *k = state_key(&c);
    ck_assert(k != NULL);
    return k;
}

static unsigned char *encode(const engine_result *r, size_t *n)
{
    char *p = NULL;
    FILE *f = open_memstream(&p, n);
    cs_error e = {0};
    state_info info = {.key = key(),
                       .what = STAT_COUNT | STAT_MIN | STAT_MAX |
                               STAT_DISTINCT | STAT_TOP};
    ck_assert_int_eq(state_write(f, &info, r, &e), CS_OK);
    fclose(f);
    free(info.key);
    /* one line of printable ASCII, whatever the texts hold */
    for (size_t i = 0; i + 1 < *n; i++)
        ck_assert_msg(p[i] >= 0x20 && p[i] < 0x7f, "byte %zu: %d", i, p[i]);
    ck_assert(*n && p[*n - 1] == '\n');
    return (unsigned char *)p;
}

static int decode(const unsigned char *p, size_t n, engine_result *r,
                  cs_error *e)
{
    FILE *f = fmemopen((void *)p, n, "r");
    state_info info;
    int rc = state_read(f, "s", &info, r, e);
    fclose(f);
    if (rc == CS_OK)
        ck_assert_uint_eq(info.top, TOP);
    free(info.key);
    return rc;
}

static void same_counts(const vcount *a, const vcount *b, int ordered)
{
    ck_assert_uint_eq(vcount_size(a), vcount_size(b));
    for (size_t i = 0; i < vcount_size(a); i++) {
        size_t la, lb;
        const char *ka = vcount_key(a, i, &la);
        if (ordered) {
            const char *kb = vcount_key(b, i, &lb);
            ck_assert(la == lb && !memcmp(ka, kb, la));
            ck_assert_uint_eq(vcount_count(a, i), vcount_count(b, i));
            continue;
        }
        /* unordered: b holds each of a's values with its count */
        vcount *t = vcount_new();
        ck_assert(t && !vcount_merge(t, b));
        size_t before = vcount_size(t);
        ck_assert_int_eq(vcount_add(t, ka, la, 0), 0);
        ck_assert_uint_eq(vcount_size(t), before);
        vcount_free(t);
    }
}

START_TEST(round_trip)
{
    data *d = malloc(sizeof *d);
    draw_data(d);
    engine_result r, back;
    make(&r, d, 0, N);
    size_t n;
    unsigned char *p = encode(&r, &n);
    cs_error e = {0};
    ck_assert_msg(decode(p, n, &back, &e) == CS_OK, "%s", e.msg);
    ck_assert_int_eq(back.cols[0].kind, COL_TEXT);
    for (int k = 0; k < 2; k++) {
        const col_prof *a = &r.held_raw[k], *b = &back.held_raw[k];
        if (!k)
            ck_assert(a->count == b->count && a->missing == b->missing &&
                      a->len_min == b->len_min && a->len_max == b->len_max);
        same_counts(a->vals, b->vals, 1);
    }
    /* written again, the same bytes */
    size_t n2;
    unsigned char *p2 = encode(&back, &n2);
    ck_assert(n == n2 && !memcmp(p, p2, n));
    free(p2);
    free(p);
    engine_result_free(&r);
    engine_result_free(&back);
    free(d);
}
END_TEST

static int by_key(const void *x, const void *y)
{
    const double *a = x, *b = y;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* The distinct numbers counted here by sorting (value, correction; the
 * value alone unless the column is an integer column): -0 is 0, NaN no
 * value. */
static size_t distinct_numbers(const data *d, int all_int)
{
    double(*k)[2] = malloc(sizeof(double[N][2]));
    size_t m = 0, out = 0;
    for (size_t i = 0; i < N; i++)
        if (!isnan(d->v[i])) {
            k[m][0] = d->v[i] == 0 ? 0.0 : d->v[i];
            k[m++][1] = all_int ? d->corr[i] : 0;
        }
    qsort(k, m, sizeof *k, by_key);
    for (size_t i = 0; i < m; i++)
        out += !i || by_key(k[i], k[i - 1]);
    free(k);
    return out;
}

START_TEST(merge_any_order)
{
    data *d = malloc(sizeof *d);
    draw_data(d);
    enum { PARTS = 7 };
    size_t cut[PARTS + 1] = {0};
    for (int i = 1; i < PARTS; i++)
        cut[i] = test_rand(&rng) % N;
    cut[PARTS] = N;
    for (int i = 1; i < PARTS; i++) /* sorted: parts of rows, some empty */
        for (int j = i; j > 1 && cut[j] < cut[j - 1]; j--) {
            size_t t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
    int order[PARTS];
    for (int i = 0; i < PARTS; i++)
        order[i] = i;
    for (int i = PARTS - 1; i > 0; i--) {
        int j = (int)(test_rand(&rng) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    engine_result acc, part, whole;
    cs_error e = {0};
    for (int i = 0; i < PARTS; i++) {
        int p = order[i];
        size_t n;
        make(&part, d, cut[p], cut[p + 1]);
        unsigned char *s = encode(&part, &n);
        engine_result_free(&part);
        ck_assert_msg(decode(s, n, i ? &part : &acc, &e) == CS_OK, "%s", e.msg);
        free(s);
        if (i) {
            ck_assert_msg(state_merge(&acc, &part, NULL, &e) == CS_OK, "%s",
                          e.msg);
            engine_result_free(&part);
        }
    }
    make(&whole, d, 0, N);
    for (int k = 0; k < 2; k++)
        same_counts(whole.held_raw[k].vals, acc.held_raw[k].vals, 0);
    ck_assert_uint_eq(whole.held_raw[0].count, acc.held_raw[0].count);
    ck_assert_uint_eq(whole.held_raw[0].len_min, acc.held_raw[0].len_min);
    ck_assert_uint_eq(whole.held_raw[0].len_max, acc.held_raw[0].len_max);
    ck_assert_int_eq(engine_result_finalize(&acc, &e), CS_OK);
    ck_assert_int_eq(engine_result_finalize(&whole, &e), CS_OK);
    ck_assert_uint_eq(acc.cols[1].prof->distinct,
                      distinct_numbers(d, acc.cols[1].sum.is_int));
    for (int k = 0; k < 2; k++) {
        const prof_summary *a = acc.cols[k].prof, *b = whole.cols[k].prof;
        ck_assert(a->counted && b->counted);
        ck_assert_uint_eq(a->distinct, b->distinct);
        ck_assert_uint_eq(a->ntop, b->ntop);
        for (size_t i = 0; i < a->ntop; i++) {
            ck_assert_uint_eq(a->top[i].count, b->top[i].count);
            ck_assert(a->top[i].len == b->top[i].len &&
                      !memcmp(&a->top[i].d, &b->top[i].d, 8) &&
                      a->top[i].r == b->top[i].r);
            ck_assert(!a->top[i].len ||
                      !memcmp(a->top[i].text, b->top[i].text, a->top[i].len));
        }
    }
    engine_result_free(&acc);
    engine_result_free(&whole);
    free(d);
}
END_TEST

/* A state whose one number value is written by hand, its CRC right. */
static unsigned char *with_value(const unsigned char *value, size_t vlen,
                                 uint64_t count, size_t *n)
{
    sc_out body = {0}, all = {0};
    col_stats st;
    stats_init(&st);
    double one = 1;
    stats_add_values(&st, &one, NULL, 1, 1, STAT_COUNT | STAT_MIN | STAT_MAX);
    sc_put_u64(&body, 1); /* rows */
    sc_put_u64(&body, 1); /* columns */
    sc_put_text(&body, "n");
    sc_put_u64(&body, 1);
    state_put_stats(&body, &st);
    sc_put_u64(&body, 0); /* no histogram */
    sc_put_u64(&body, 1);
    sc_put(&body, value, vlen);
    sc_put_u64(&body, count);
    char *k = key();
    sc_put_text(&all, k);
    sc_put_u64(&all,
               STAT_COUNT | STAT_MIN | STAT_MAX | STAT_DISTINCT | STAT_TOP);
    for (int i = 0; i < 3; i++)
        sc_put_u64(&all, 0);
    sc_put_u64(&all, body.n);
    sc_put(&all, body.p, body.n);
    sc_put_crc(&all);
    char *p = NULL;
    FILE *f = open_memstream(&p, n);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "colstat-state %d ", STATE_VERSION);
    ck_assert_int_eq(sc_line_write(f, prefix, all.p, all.n), 0);
    fclose(f);
    free(k);
    free(body.p);
    free(all.p);
    stats_free(&st);
    return (unsigned char *)p;
}

START_TEST(handmade_refused)
{
    /* the value 1 as the writer gives it (t = zigzag(1) + 1 = 3), then
       as no writer does: a double, -0 as a double, seen no time, the
       value 2 (outside [min, max]), counted twice */
    const unsigned char ok[] = {3};
    const unsigned char as_double[] = {0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0};
    const unsigned char two[] = {5};
    struct {
        const unsigned char *v;
        size_t n;
        uint64_t count;
        const char *why;
    } cases[] = {
        {ok, 1, 1, NULL},
        {as_double, sizeof as_double, 1, "one encoding"},
        {ok, 1, 0, "no time"},
        {two, 1, 1, "not the column's values"},
        {ok, 1, 2, "not its count"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t n;
        unsigned char *p =
            with_value(cases[c].v, cases[c].n, cases[c].count, &n);
        engine_result r;
        cs_error e = {0};
        int rc = decode(p, n, &r, &e);
        if (!cases[c].why) {
            ck_assert_msg(rc == CS_OK, "%s", e.msg);
            engine_result_free(&r);
        } else {
            ck_assert_int_eq(rc, CS_EDATA);
            ck_assert_msg(strstr(e.msg, cases[c].why), "case %zu: %s", c,
                          e.msg);
        }
        free(p);
    }
}
END_TEST

int main(void)
{
    rng = test_seed("test_state_profile");
    Suite *s = suite_create("state_profile");
    TCase *tc = tcase_create("state_profile");
    tcase_set_timeout(tc, 120);
    for (int i = 0; i < 3; i++) {
        tcase_add_test(tc, round_trip);
        tcase_add_test(tc, merge_any_order);
    }
    tcase_add_test(tc, handmade_refused);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
