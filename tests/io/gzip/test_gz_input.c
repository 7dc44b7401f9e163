/* io/gzip/input.h: a pipe's store of compressed bytes keeps them until they
 * are released, never lets a reader's own look-ahead free them, and never
 * makes the reader that must proceed wait forever. Random stream lengths,
 * store sizes and read sizes; the seed is printed. A wait that never ends
 * is a failure by Check's timeout. */
#include "io/gzip/input.h"

#include "tests/testlib.h"

static uint64_t seed;

/* A pipe of n pseudo-random bytes, read in random short pieces. */
typedef struct pipe_src {
    uint64_t n, at;
    test_rng r;
} pipe_src;

static uint8_t byte_at(uint64_t off)
{
    return (uint8_t)((off * 2654435761u) >> 13);
}

static ssize_t pipe_read(void *ctx, void *buf, size_t n, cs_error *e)
{
    (void)e;
    pipe_src *p = ctx;
    uint64_t k = p->n - p->at;
    if (k > n)
        k = n;
    if (k > 1)
        k = 1 + rng_below(&p->r, (size_t)k);
    for (uint64_t i = 0; i < k; i++)
        ((uint8_t *)buf)[i] = byte_at(p->at + i);
    p->at += k;
    return (ssize_t)k;
}

/* Whether the cursor holds the stream's true bytes. */
static int holds_truth(const gzin_cursor *c)
{
    for (size_t i = 0; i < c->len; i++)
        if (c->buf[i] != byte_at(c->base + i))
            return 0;
    return 1;
}

typedef struct setup {
    pipe_src src;
    gzin_reader rd;
    gzin *in;
    uint8_t head[2];
} setup;

static void open_pipe(setup *s, uint64_t n, size_t cap, test_rng *r)
{
    s->src = (pipe_src){.n = n, .at = 2, .r = rng_for(rng_next(r), 1)};
    s->rd = (gzin_reader){.ctx = &s->src, .read = pipe_read};
    s->head[0] = byte_at(0);
    s->head[1] = byte_at(1);
    s->in = gzin_new(&s->rd, s->head, 2, cap);
    ck_assert_ptr_nonnull(s->in);
}

/* The one reader of a stream many times the store's size, moving on and
 * releasing as it consumes (as the serial decoder does), reaches the end:
 * it is urgent, so it never waits for room only it could make. */
START_TEST(one_reader_reaches_the_end)
{
    test_rng r = rng_for(seed, 1 + (uint64_t)_i);
    setup s;
    size_t cap = 1024 + rng_below(&r, 64 << 10);
    uint64_t n = cap * (3 + rng_below(&r, 20)) + rng_below(&r, 5000);
    open_pipe(&s, n, cap, &r);
    gzin_cursor c;
    cs_error e = {0};
    ck_assert_int_eq(gzin_cursor_init(&c, s.in, 0, 4096, &e), 0);
    c.urgent = 1;
    uint64_t at = 0;
    while (!(c.eof && at == c.base + c.len)) {
        gzin_release(s.in, at);
        ck_assert_int_eq(gzin_cursor_fill(&c, at, 1 + rng_below(&r, 4096), &e),
                         0);
        EXPECT(holds_truth(&c), "wrong bytes at %llu",
               (unsigned long long)c.base);
        at += 1 + rng_below(&r, (size_t)(c.base + c.len - at));
        if (at > c.base + c.len)
            at = c.base + c.len;
    }
    ck_assert_uint_eq(at, n);
    gzin_cursor_done(&c);
    gzin_free(s.in);
}
END_TEST

/* A leading cursor that looks ahead (fill) and comes back finds every
 * byte it passed: only gzin_cursor_advance and gzin_release let bytes go.
 * (The piece being delivered scanned the next piece's range through its
 * own cursor, which let go of the bytes it then decoded.) */
START_TEST(look_ahead_keeps_the_bytes)
{
    test_rng r = rng_for(seed, 100 + (uint64_t)_i);
    setup s;
    size_t cap = 4096 + rng_below(&r, 16 << 10);
    uint64_t n = 8 * (uint64_t)cap;
    open_pipe(&s, n, cap, &r);
    gzin_cursor c;
    cs_error e = {0};
    ck_assert_int_eq(gzin_cursor_init(&c, s.in, 0, 1024, &e), 0);
    gzin_cursor_set_urgent(&c, 1);
    uint64_t start = rng_below(&r, cap);
    ck_assert_int_eq(gzin_cursor_advance(&c, start, 1, &e), 0);
    for (uint64_t ahead = start; ahead < start + cap; ahead += 700)
        ck_assert_int_eq(gzin_cursor_fill(&c, ahead, 1024, &e), 0);
    ck_assert_int_eq(gzin_cursor_fill(&c, start, 1024, &e), 0);
    ck_assert_uint_eq(c.base, start);
    EXPECT(c.len > 0 && holds_truth(&c), "bytes at %llu lost",
           (unsigned long long)start);
    /* Decoding moves on: what lies before it may go, and a jump back
     * there is told so (GZIN_GONE) or given the right bytes, never wrong
     * ones. (Whether they went depends on how the store's pieces fall:
     * seed 3807136728809, loop 15, still held them.) */
    uint64_t on = start + 3 * (uint64_t)cap;
    for (uint64_t at = start; at <= on; at += 512)
        ck_assert_int_eq(gzin_cursor_advance(&c, at, 1024, &e), 0);
    int back = gzin_cursor_fill(&c, start, 16, &e);
    ck_assert(back == GZIN_GONE || back == 0);
    EXPECT(back == GZIN_GONE || (c.base == start && holds_truth(&c)),
           "wrong bytes at %llu after moving on", (unsigned long long)start);
    gzin_cursor_done(&c);
    gzin_free(s.in);
}
END_TEST

int main(void)
{
    seed = test_seed("test_gz_input");
    Suite *s = suite_create("gz_input");
    TCase *tc = tcase_create("pipe store");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, one_reader_reaches_the_end, 0, 30);
    tcase_add_loop_test(tc, look_ahead_keeps_the_bytes, 0, 30);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
