/* Partial states (src/dist/state.h): a result written and read back is the
 * same, bit for bit; the states of random splits of a column, merged in
 * order, are the state of the whole; a state cut at any byte, with any
 * byte changed, of another version or with no magic is refused. Random
 * values drawn fresh with a logged seed. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/dist/state.h"
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
    r->cols = calloc(COLS, sizeof *r->cols);
    for (int k = 0; k < COLS; k++) {
        engine_column *c = &r->cols[k];
        char name[16];
        snprintf(name, sizeof name, "c%d", k);
        c->name = strdup(name);
        c->index = 2 * k + 1;
        stats_init(&c->st);
        stats_add_values(&c->st, v[k] + from, NULL, to - from, 1, STAT_ALL);
        stats_add_counts(&c->st, k, 2 * k, 0, k ? 1 + k : 0);
        if (with_hist) {
            ck_assert_int_eq(hist_init(&c->h, 17, -1e6, 1e6), 0);
            hist_add_values(&c->h, v[k] + from, to - from);
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
        stats_finalize(&x->st, &s);
        stats_finalize(&y->st, &t);
        ck_assert(!memcmp(&s.sum, &t.sum, 8) && !memcmp(&s.std, &t.std, 8));
        ck_assert(!memcmp(&s.min, &t.min, 8) && !memcmp(&s.max, &t.max, 8));
        ck_assert(s.count == t.count && s.min_row == t.min_row &&
                  s.max_row == t.max_row && s.missing == t.missing &&
                  s.invalid == t.invalid &&
                  s.first_invalid_row == t.first_invalid_row);
        ck_assert_int_eq(x->h.nbins, y->h.nbins);
        for (int i = 0; x->h.bins && i < x->h.nbins; i++)
            ck_assert_uint_eq(x->h.bins[i], y->h.bins[i]);
    }
}

static unsigned char *encode(const engine_result *r, const char *key, size_t *n)
{
    char *p = NULL;
    FILE *f = open_memstream(&p, n);
    cs_error e = {0};
    state_info info = {(char *)key, STAT_ALL};
    ck_assert_int_eq(state_write(f, &info, r, &e), CS_OK);
    fclose(f);
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
        ck_assert_uint_eq(info.what, STAT_ALL);
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
    ck_assert_str_eq(key, "k=1");
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
        ck_assert_int_eq(state_merge(&acc, &part, &e), CS_OK);
        engine_result_free(&part);
        free(key);
        free(p);
        cut = next;
    }
    /* counts added per part: compare the rest */
    for (int k = 0; k < COLS; k++) {
        acc.cols[k].st.missing = whole.cols[k].st.missing;
        acc.cols[k].st.invalid = whole.cols[k].st.invalid;
        acc.cols[k].st.first_invalid_row = whole.cols[k].st.first_invalid_row;
    }
    same(&whole, &acc);
    engine_result_free(&whole);
    engine_result_free(&acc);
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
    p[8] = STATE_VERSION + 1; /* the version, little-endian */
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(decode(p, n, &back, &key, &e), CS_EDATA);
    ck_assert(strstr(e.msg, "version") != NULL);
    engine_result other;
    make(&other, v, 0, 10, 0); /* no histograms: columns differ */
    ck_assert_int_eq(state_merge(&r, &other, &e), CS_EDATA);
    engine_result_free(&other);
    engine_result_free(&r);
    free(p);
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
    tcase_add_test(tc, damage_is_refused);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
