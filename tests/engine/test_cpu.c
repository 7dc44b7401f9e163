/* The CPU backend through the backend interface (backend.h): the same rows
 * cut into jobs of random sizes and chunks of random sizes, retired in
 * order, must give the state and histograms of one pass over the whole
 * column, with rows numbered across jobs; which is what lets the engine
 * cut the input anywhere. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/engine/backend.h"
#include "tests/testlib.h"

enum { COLS = 3, N = 60000 };

static uint64_t rng;

static double draw(void)
{
    uint64_t r = test_rand(&rng);
    switch (r % 5) {
    case 0:
        return NAN;
    case 1:
        return (double)(int)(r >> 40) - 8000000.0; /* integers, with ties */
    case 2:
        return (double)(r >> 11) * 0x1p-53 * 1e6;
    default:
        return ldexp((double)(r >> 12), (int)((r >> 3) % 200) - 150) *
               ((r & 4) ? -1 : 1);
    }
}

static void quiet(void *ctx, engine_msg kind, const char *file, uint64_t line,
                  const char *s)
{
    (void)ctx, (void)kind, (void)file, (void)line, (void)s;
}

static const engine_sink sink = {quiet, NULL};

/* Rows [from, from + n) of v as a chunk; row r's field counts as invalid
 * when r % 7 == 3 (NaN kept there as the parser would). */
static void fill(chunk *c, double (*v)[N], size_t from, size_t n)
{
    chunk_clear(c);
    for (int k = 0; k < COLS; k++)
        for (size_t i = 0; i < n; i++) {
            size_t r = from + i;
            c->col[k][i] = r % 7 == 3 ? NAN : v[k][r];
            if (r % 7 == 3) {
                c->invalid[k]++;
                if (!c->first_invalid[k])
                    c->first_invalid[k] = i + 1;
            } else if (isnan(v[k][r])) {
                c->nan[k]++;
            }
        }
    c->nrows = n;
}

static void same(const col_stats *a, const col_stats *b)
{
    col_summary x, y;
    stats_finalize(a, &x);
    stats_finalize(b, &y);
    ck_assert(x.count == y.count && x.invalid == y.invalid && x.nan == y.nan);
    ck_assert_uint_eq(x.first_invalid_row, y.first_invalid_row);
    ck_assert(memcmp(&x.sum, &y.sum, sizeof x.sum) == 0);
    ck_assert(memcmp(&x.std, &y.std, sizeof x.std) == 0);
    ck_assert(memcmp(&x.min, &y.min, sizeof x.min) == 0);
    ck_assert(memcmp(&x.max, &y.max, sizeof x.max) == 0);
    ck_assert(x.min_row == y.min_row && x.max_row == y.max_row);
    ck_assert(x.is_int == y.is_int);
}

static void same_hist(const hist *a, const hist *b)
{
    ck_assert_int_eq(a->nbins, b->nbins);
    ck_assert(memcmp(&a->lo, &b->lo, 8) == 0 && memcmp(&a->hi, &b->hi, 8) == 0);
    ck_assert(a->underflow == b->underflow && a->overflow == b->overflow);
    for (int i = 0; i < a->nbins; i++)
        ck_assert_uint_eq(a->bins[i], b->bins[i]);
}

/* The reference: one chunk of everything, reduced alone. */
static void whole(double (*v)[N], size_t n, const backend_params *p,
                  col_stats *st, hist *h)
{
    chunk c;
    ck_assert_int_eq(chunk_init(&c, COLS, n, NULL), 0);
    fill(&c, v, 0, n);
    for (int k = 0; k < COLS; k++) {
        stats_init(&st[k]);
        stats_add_values(&st[k], c.col[k], NULL, n, 1, p->what);
        stats_add_counts(&st[k], 0, c.invalid[k], c.nan[k], c.first_invalid[k]);
        double lo = p->have_range ? p->range_lo : st[k].min;
        double hi = p->have_range ? p->range_hi : st[k].max;
        ck_assert_int_eq(hist_init(&h[k], p->nbins, lo, hi), 0);
        hist_add_values(&h[k], c.col[k], n);
    }
    chunk_free(&c, NULL);
}

/* Jobs of random sizes, each in chunks of random sizes. */
static void through_backend(double (*v)[N], size_t n, const backend_params *p,
                            col_stats *st, hist *h)
{
    backend *be;
    cs_error e = {0};
    ck_assert_int_eq(backend_cpu_open(p, &be, &e), CS_OK);
    job j;
    memset(&j, 0, sizeof j);
    j.part = be->ops->part_new(be);
    chunk c;
    ck_assert_int_eq(chunk_init(&c, COLS, N, NULL), 0);
    for (size_t done = 0; done < n;) {
        size_t len = 1 + test_rand(&rng) % (n - done);
        be->ops->part_reset(be, j.part);
        j.rows = 0;
        while (j.rows < len) {
            size_t k = 1 + test_rand(&rng) % (len - j.rows);
            fill(&c, v, done + j.rows, k);
            ck_assert_int_eq(be->ops->chunk_done(be, &j, &c, &e), CS_OK);
            j.rows += k;
        }
        ck_assert_int_eq(be->ops->retire(be, &j, done + 1, 0, &e), CS_OK);
        done += len;
    }
    for (int k = 0; k < COLS; k++)
        stats_init(&st[k]);
    ck_assert_int_eq(be->ops->finish(be, st, h, &e), CS_OK);
    be->ops->part_free(be, j.part);
    be->ops->close(be);
    chunk_free(&c, NULL);
}

START_TEST(jobs_merge_as_whole)
{
    double(*v)[N] = malloc(sizeof(double[COLS][N]));
    for (int k = 0; k < COLS; k++)
        for (size_t i = 0; i < N; i++)
            v[k][i] = draw();
    size_t n = 1 + test_rand(&rng) % N;
    account acc;
    account_init(&acc, &sink, 0, 0);
    engine_hooks hooks = {0};
    int ranged = test_rand(&rng) % 2;
    backend_params p = {
        COLS, STAT_ALL, 1 + (int)(test_rand(&rng) % 300), ranged, -1e5,
        1e5,  NULL,     1 + (int)(test_rand(&rng) % 4),   &hooks, &acc};
    col_stats a[COLS], b[COLS];
    hist ha[COLS], hb[COLS];
    whole(v, n, &p, a, ha);
    through_backend(v, n, &p, b, hb);
    for (int k = 0; k < COLS; k++) {
        same(&a[k], &b[k]);
        same_hist(&ha[k], &hb[k]);
        hist_free(&ha[k]);
        hist_free(&hb[k]);
    }
    free(v);
}
END_TEST

int main(void)
{
    rng = test_seed("test_cpu");
    Suite *s = suite_create("cpu");
    TCase *tc = tcase_create("backend");
    tcase_set_timeout(tc, 120);
    for (int i = 0; i < (test_quick() ? 3 : 12); i++)
        tcase_add_test(tc, jobs_merge_as_whole);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
