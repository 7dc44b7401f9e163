/* The engine's feed, jobs and raw hand-over, driven through a fake backend
 * (backend.h): random CSV with quoted fields holding delimiters, quotes,
 * CR, LF and CRLF, cut into jobs at random block sizes by several threads,
 * must give exactly the rows one parse of the whole text gives, retired in
 * input order with contiguous row numbers; and a fake device that parses
 * the bytes itself and stops at a random point must hand over to the host
 * so that, together, every row is seen once, in order, from a plain file
 * (re-read from the stop) and from a stream (bytes handed back). */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "src/engine/backend.h"
#include "src/engine/feed.h"
#include "tests/testlib.h"

#define NCOLS 3
#define MAX_ROWS 20000

static uint64_t g_seed;

/* ------------------------------------------------------------ the text */

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = 2 * (t->n + n + 1);
        t->p = realloc(t->p, t->cap);
        ck_assert_ptr_nonnull(t->p);
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = 0;
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* A field: a number (maybe quoted, maybe blank-padded), empty, text, or a
 * quoted field holding the delimiter, doubled quotes, CR, LF, CRLF. */
static void field(text *t, test_rng *r)
{
    char b[64];
    switch (rng_below(r, 8)) {
    case 0:
        return; /* missing */
    case 1:
        puts_(t, "\"a,\"\"b\"\"\r\nc\nd\rx\"");
        return;
    case 2:
        puts_(t, "word");
        return;
    case 3:
        snprintf(b, sizeof b, "\"%d\"", (int)rng_below(r, 2000) - 1000);
        puts_(t, b);
        return;
    case 4:
        snprintf(b, sizeof b, " %.3f ", (double)rng_below(r, 100000) / 7.0);
        puts_(t, b);
        return;
    default:
        snprintf(b, sizeof b, "%lld",
                 (long long)rng_below(r, 1u << 30) - (1 << 29));
        puts_(t, b);
    }
}

/* The header, and the text as it is once more between rows (files joined
 * by cat). */
static const char header[] = "a,b,c";
static int repeats_made;

static void make_csv(text *t, test_rng *r, int rows)
{
    puts_(t, "a,b,c\n");
    repeats_made = 0;
    for (int i = 0; i < rows; i++) {
        if (rng_below(r, 40) == 0) {
            puts_(t, rng_below(r, 4) ? "a,b,c\n"
                                     : "\xEF\xBB\xBF"
                                       "a,b,c\r\n");
            repeats_made++;
        }
        for (int f = 0; f < NCOLS; f++) {
            if (f)
                puts_(t, ",");
            field(t, r);
        }
        puts_(t, rng_below(r, 3) ? "\n" : "\r\n");
    }
}

/* ------------------------------------------------- what rows were seen */

/* One value per row and column; NaN stands for a field that did not
 * enter, with the reason kept apart. */
typedef struct rows {
    double v[NCOLS][MAX_ROWS];
    uint64_t n;
    uint64_t missing[NCOLS], invalid[NCOLS];
} rows;

static void add_batch(rows *out, const row_batch *c, uint64_t first_row)
{
    ck_assert_uint_le(first_row - 1 + c->nrows, MAX_ROWS);
    for (int k = 0; k < NCOLS; k++) {
        memcpy(&out->v[k][first_row - 1], c->col[k], c->nrows * sizeof(double));
        out->missing[k] += c->missing[k];
        out->invalid[k] += c->invalid[k];
    }
    if (first_row - 1 + c->nrows > out->n)
        out->n = first_row - 1 + c->nrows;
}

/* The reference: the whole text after the header in one parse. */
static void reference(const text *t, rows *ref)
{
    memset(ref, 0, sizeof *ref);
    csv_dialect d = {.delim = ',',
                     .header = 1,
                     .repeat = header,
                     .repeat_len = strlen(header)};
    int map[NCOLS] = {0, 1, 2};
    row_batch c;
    ck_assert_int_eq(row_batch_init(&c, NCOLS, MAX_ROWS, NULL), 0);
    const char *data = strchr(t->p, '\n') + 1;
    size_t used = 0;
    uint64_t lines = 0;
    cs_error e = {0};
    ck_assert_int_eq(csv_parse_block(&d, data, t->n - (size_t)(data - t->p), 2,
                                     map, NCOLS, 0, "ref", &c, &used, &lines,
                                     &e),
                     CS_OK);
    add_batch(ref, &c, 1);
    row_batch_free(&c, NULL);
}

static void same_rows(const rows *a, const rows *b)
{
    ck_assert_uint_eq(a->n, b->n);
    for (int k = 0; k < NCOLS; k++) {
        ck_assert_uint_eq(a->missing[k], b->missing[k]);
        ck_assert_uint_eq(a->invalid[k], b->invalid[k]);
        for (uint64_t i = 0; i < a->n; i++)
            ck_assert_msg(memcmp(&a->v[k][i], &b->v[k][i], 8) == 0 ||
                              (isnan(a->v[k][i]) && isnan(b->v[k][i])),
                          "column %d row %llu: %g vs %g", k,
                          (unsigned long long)i + 1, a->v[k][i], b->v[k][i]);
    }
}

/* ---------------------------------------------------- the fake backend */

typedef struct fake_jstate {
    row_batch *copy; /* the job's row batches, copied by batch_done */
    int n, cap;
} fake_jstate;

typedef struct fake {
    backend base;
    rows got;
    uint64_t retired, last_seq, rows_retired;
    int delay; /* workers sleep a little: completion order shuffles */
    /* the device: */
    int device, stream;
    size_t slot;
    text bytes;       /* everything submitted, in order */
    size_t nslots;    /* submitted */
    size_t stop_slot; /* the device stops at the start of this slot */
    uint64_t first_row, first_line;
    const int *map;
    int nmap;
    const char *repeat;
    size_t repeat_len;
    uint64_t repeats; /* the device skipped */
} fake;

static void *fake_jstate_new(backend *b)
{
    (void)b;
    return calloc(1, sizeof(fake_jstate));
}

static void fake_jstate_reset(backend *b, void *state)
{
    (void)b;
    fake_jstate *p = state;
    for (int i = 0; i < p->n; i++)
        row_batch_free(&p->copy[i], NULL);
    p->n = 0;
}

static void fake_jstate_free(backend *b, void *state)
{
    fake_jstate_reset(b, state);
    free(((fake_jstate *)state)->copy);
    free(state);
}

static int fake_batch_done(backend *b, job *j, const row_batch *c, cs_error *e)
{
    fake *f = (fake *)b;
    fake_jstate *p = j->jstate;
    (void)e;
    if (f->delay && (j->seq % 3) == 0)
        usleep(200);
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 4;
        p->copy = realloc(p->copy, (size_t)p->cap * sizeof *p->copy);
    }
    row_batch *d = &p->copy[p->n++];
    ck_assert_int_eq(row_batch_init(d, NCOLS, c->nrows, NULL), 0);
    for (int k = 0; k < NCOLS; k++) {
        memcpy(d->col[k], c->col[k], c->nrows * sizeof(double));
        d->missing[k] = c->missing[k];
        d->invalid[k] = c->invalid[k];
    }
    d->nrows = c->nrows;
    return CS_OK;
}

static int fake_retire(backend *b, job *j, uint64_t first_row, int abandon,
                       cs_error *e)
{
    fake *f = (fake *)b;
    fake_jstate *p = j->jstate;
    ck_assert_int_eq(abandon, 0);
    /* in input order, rows numbered without a gap */
    ck_assert(f->retired == 0 || j->seq == f->last_seq + 1);
    ck_assert_uint_eq(first_row, f->rows_retired + 1);
    f->last_seq = j->seq;
    f->retired++;
    uint64_t row = first_row;
    for (int i = 0; i < p->n; i++) {
        add_batch(&f->got, &p->copy[i], row);
        row += p->copy[i].nrows;
    }
    ck_assert_uint_eq(row - first_row, j->rows);
    f->rows_retired += j->rows;
    return e->status;
}

static int fake_finish(backend *b, col_stats *out, hist *h, cs_error *e)
{
    (void)b, (void)out, (void)h;
    return e->status;
}

static void fake_describe(backend *b, account *acc)
{
    (void)b, (void)acc;
}

static void fake_close(backend *b)
{
    (void)b;
}

static const backend_ops fake_ops = {
    .jstate_new = fake_jstate_new,
    .jstate_reset = fake_jstate_reset,
    .jstate_free = fake_jstate_free,
    .batch_done = fake_batch_done,
    .retire = fake_retire,
    .finish = fake_finish,
    .describe = fake_describe,
    .close = fake_close,
};

/* The device: keeps every byte; at end, "parses" the records that end
 * before the slot it stops at, exactly as the host would. */
static int dev_wants(backend *b, int binary, int seekable, int whitespace,
                     const unsigned char *kinds, int ncols)
{
    fake *f = (fake *)b;
    (void)seekable;
    (void)kinds;
    (void)ncols;
    return f->device && !binary && !whitespace;
}

static size_t dev_slot_bytes(backend *b)
{
    return ((fake *)b)->slot;
}

static int dev_begin(backend *b, const bytes_format *fmt, uint64_t first_row,
                     uint64_t first_line, cs_error *e)
{
    fake *f = (fake *)b;
    f->first_row = first_row;
    f->first_line = first_line;
    f->map = fmt->map;
    f->nmap = fmt->nmap;
    f->repeat = fmt->repeat;
    f->repeat_len = fmt->repeat_len;
    f->bytes.n = 0;
    f->nslots = 0;
    ck_assert_uint_eq(first_row, f->rows_retired + 1);
    return e->status;
}

static int dev_submit(backend *b, const void *bytes, size_t n, cs_error *e)
{
    fake *f = (fake *)b;
    ck_assert_uint_le(n, f->slot);
    /* every slot but the last is full */
    ck_assert_uint_eq(f->bytes.n, f->nslots * f->slot);
    put(&f->bytes, bytes, n);
    f->nslots++;
    return e->status;
}

/* The slot that holds bytes: the latest one submitted from that memory. */
static int dev_copied(backend *b, const void *bytes, int *stopped, cs_error *e)
{
    fake *f = (fake *)b;
    (void)bytes;
    *stopped = f->nslots > f->stop_slot;
    return e->status;
}

static int dev_end(backend *b, bytes_result *r, char *tail, size_t *tail_len,
                   cs_error *e)
{
    fake *f = (fake *)b;
    size_t stop_at = f->stop_slot * f->slot;
    if (stop_at > f->bytes.n)
        stop_at = f->bytes.n;
    /* the last record boundary at or before the stop */
    csv_dialect d = {.delim = ',',
                     .header = 1,
                     .repeat = f->repeat,
                     .repeat_len = f->repeat_len};
    csv_cutter c;
    csv_cutter_init(&c, &d, f->first_line);
    size_t consumed = csv_cut(&c, f->bytes.p, stop_at, 0, "dev", e);
    row_batch ck;
    ck_assert_int_eq(row_batch_init(&ck, NCOLS, MAX_ROWS, NULL), 0);
    size_t used = 0;
    uint64_t lines = 0;
    ck_assert_int_eq(csv_parse_block(&d, f->bytes.p, consumed, f->first_line,
                                     f->map, f->nmap, 0, "dev", &ck, &used,
                                     &lines, e),
                     CS_OK);
    add_batch(&f->got, &ck, f->first_row);
    r->rows = ck.nrows;
    r->lines = c.line - f->first_line;
    r->consumed = consumed;
    r->stopped = stop_at < f->bytes.n || f->stop_slot < f->nslots;
    r->repeats = ck.repeats;
    r->repeat_line = ck.repeat_line;
    f->rows_retired += ck.nrows;
    row_batch_free(&ck, NULL);
    *tail_len = stop_at - consumed;
    ck_assert_uint_le(*tail_len, f->slot); /* the contract's bound */
    memcpy(tail, f->bytes.p + consumed, *tail_len);
    return e->status;
}

static const backend_bytes_ops fake_bytes = {
    dev_wants,  dev_slot_bytes, dev_begin, dev_submit,
    dev_copied, dev_copied,     dev_end,
};

/* ------------------------------------------------------------- drivers */

static void quiet(void *ctx, engine_msg kind, const char *file, uint64_t line,
                  const char *s)
{
    (void)ctx, (void)kind, (void)file, (void)line, (void)s;
}

static const engine_sink sink = {quiet, NULL};

static char *write_file(const text *t, int gz)
{
    char *path = strdup("/tmp/test_feed_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    if (gz) {
        gzFile g = gzdopen(fd, "wb1");
        ck_assert_int_eq(gzwrite(g, t->p, (unsigned)t->n), (int)t->n);
        gzclose(g);
    } else {
        ck_assert_int_eq(write(fd, t->p, t->n), (ssize_t)t->n);
        close(fd);
    }
    return path;
}

/* Feeds path through a fake backend and checks what it saw. */
static void feed_through(fake *f, const char *path, const rows *ref,
                         int nthreads, size_t head, int readers)
{
    account acc;
    account_init(&acc, &sink, 0, 0);
    jobs *js = NULL;
    cs_error e = {0};
    jobs_params jp = {&f->base, nthreads, NCOLS, NULL, 0, &acc};
    ck_assert_int_eq(jobs_start(&jp, &js, &e), CS_OK);
    feed fd;
    feed_init(&fd, js, &f->base, &acc, nthreads, NCOLS, 0);
    fd.readers = readers; /* 0: the feed reads in order */
    input *in = NULL;
    csv_dialect d = {.delim = ',', .header = 1};
    ck_assert_int_eq(
        input_open(path, NULL, NULL, d, head, 1, NULL, &acc, &in, &e), CS_OK);
    col_table t;
    char *names[] = {"a", "b", "c"};
    unsigned char num[] = {1, 1, 1};
    col_fields cf = {names, num, 3, 1, path, 0, NULL, 0};
    ck_assert_int_eq(columns_learn(&t, NULL, &cf, &e), CS_OK);
    ck_assert_int_eq(input_map(in, &t, &e), CS_OK);
    int rc = feed_input(&fd, in, &e);
    ck_assert_msg(rc == CS_OK, "%s:%llu: %s", e.file, e.line, e.msg);
    input_release(in);
    ck_assert_int_eq(jobs_drain(js, &e), CS_OK);
    ck_assert_uint_eq(jobs_rows(js), ref->n);
    same_rows(&f->got, ref);
    const char *rfile;
    uint64_t rline;
    ck_assert_uint_eq(jobs_repeats(js, &rfile, &rline), (uint64_t)repeats_made);
    feed_free(&fd);
    jobs_stop(js);
    columns_free(&t);
}

static void fake_init(fake *f, test_rng *r)
{
    memset(f, 0, sizeof *f);
    f->base = (backend){&fake_ops,
                        &fake_bytes,
                        "fake",
                        1 + rng_below(r, 300),
                        1 + rng_below(r, 40),
                        (int)rng_below(r, 2),
                        NULL,
                        0};
    f->delay = (int)rng_below(r, 2);
}

/* Host parse only: blocks of 1 to 300 bytes, row batches of 1 to 40 rows,
 * 1 to 4 threads; plain files (read ahead by 0 to 3 threads) and gzip
 * streams. */
START_TEST(cut_anywhere_same_rows)
{
    test_rng r = rng_for(g_seed, 1);
    int rounds = test_quick() ? 6 : 30;
    for (int it = 0; it < rounds; it++) {
        text t = {0};
        make_csv(&t, &r, 1 + (int)rng_below(&r, 1500));
        rows *ref = malloc(sizeof *ref);
        reference(&t, ref);
        for (int gz = 0; gz < 2; gz++) {
            char *path = write_file(&t, gz);
            fake *f = malloc(sizeof *f);
            fake_init(f, &r);
            feed_through(f, path, ref, 1 + (int)rng_below(&r, 4),
                         8 + rng_below(&r, 700), (int)rng_below(&r, 4));
            unlink(path);
            free(path);
            free(f->bytes.p);
            free(f);
        }
        free(ref);
        free(t.p);
    }
}
END_TEST

/* A device that stops at a random slot (or never): the host goes on from
 * there, from the file (plain) or from the bytes handed back (gzip). */
START_TEST(device_hands_over)
{
    test_rng r = rng_for(g_seed, 2);
    int rounds = test_quick() ? 8 : 40;
    for (int it = 0; it < rounds; it++) {
        text t = {0};
        make_csv(&t, &r, 1 + (int)rng_below(&r, 1500));
        rows *ref = malloc(sizeof *ref);
        reference(&t, ref);
        for (int gz = 0; gz < 2; gz++) {
            char *path = write_file(&t, gz);
            fake *f = malloc(sizeof *f);
            fake_init(f, &r);
            f->device = 1;
            f->slot = 64 + rng_below(&r, 400); /* > any record */
            f->stop_slot = rng_below(&r, 3) ? rng_below(&r, t.n / f->slot + 2)
                                            : (size_t)-1;
            feed_through(f, path, ref, 1 + (int)rng_below(&r, 4),
                         8 + rng_below(&r, 700), (int)rng_below(&r, 4));
            unlink(path);
            free(path);
            free(f->bytes.p);
            free(f);
        }
        free(ref);
        free(t.p);
    }
}
END_TEST

/* With an invalid field (--strict) in the first input and an
 * unterminated quote in the second, the first error in input order is
 * reported, however the threads run. The worker holding the first input's
 * job is held back until the main thread has met the quote: before the
 * fix, that error stayed. */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open;

static int gated_job_done(backend *b, job *j, cs_error *e)
{
    (void)b, (void)j;
    pthread_mutex_lock(&gate_mu);
    while (!gate_open)
        pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    return e->status;
}

static int any_retire(backend *b, job *j, uint64_t first_row, int abandon,
                      cs_error *e)
{
    (void)b, (void)j, (void)first_row, (void)abandon;
    return e->status;
}

static const backend_ops gated_ops = {
    .jstate_new = fake_jstate_new,
    .jstate_reset = fake_jstate_reset,
    .jstate_free = fake_jstate_free,
    .batch_done = fake_batch_done,
    .job_done = gated_job_done,
    .retire = any_retire,
    .finish = fake_finish,
    .describe = fake_describe,
    .close = fake_close,
};

START_TEST(first_error_in_input_order)
{
    text a = {0}, b = {0};
    puts_(&a, "a,b,c\n1,2,3\n4,oops,6\n7,8,9\n");
    puts_(&b, "a,b,c\n1,2,3\n4,\"never closed,6\n7,8,9\n");
    char *pa = write_file(&a, 0), *pb = write_file(&b, 0);
    fake *f = calloc(1, sizeof *f);
    f->base = (backend){&gated_ops, NULL, "gated", 1 << 20, 64, 0, NULL, 0};
    account acc;
    account_init(&acc, &sink, 0, 0);
    static const char *const labels[] = {"'a'", "'b'", "'c'"};
    csv_strict strict = {NCOLS, labels, NULL};
    jobs *js = NULL;
    cs_error e = {0};
    jobs_params jp = {&f->base, 2, NCOLS, NULL, &strict, &acc};
    ck_assert_int_eq(jobs_start(&jp, &js, &e), CS_OK);
    feed fd;
    feed_init(&fd, js, &f->base, &acc, 2, NCOLS, NCOLS);
    char *names[] = {"a", "b", "c"};
    unsigned char num[] = {1, 1, 1};
    col_fields cf = {names, num, 3, 1, pa, 0, NULL, 0};
    col_table t;
    ck_assert_int_eq(columns_learn(&t, NULL, &cf, &e), CS_OK);
    gate_open = 0;
    csv_dialect d = {.delim = ',', .header = 1};
    input *in = NULL;
    for (int k = 0; k < 2 && e.status == CS_OK; k++) {
        ck_assert_int_eq(input_open(k ? pb : pa, NULL, NULL, d, 1 << 16, 0,
                                    NULL, &acc, &in, &e),
                         CS_OK);
        ck_assert_int_eq(input_map(in, &t, &e), CS_OK);
        feed_input(&fd, in, &e);
        input_release(in);
    }
    ck_assert_msg(strstr(e.msg, "unterminated") != NULL, "%s", e.msg);
    pthread_mutex_lock(&gate_mu);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
    ck_assert_int_eq(jobs_drain(js, &e), CS_EDATA);
    ck_assert_str_eq(e.file, pa);
    ck_assert_uint_eq(e.line, 3);
    ck_assert_str_eq(e.msg, "column 'b': 'oops' is not a number");
    feed_free(&fd);
    jobs_stop(js);
    columns_free(&t);
    unlink(pa);
    unlink(pb);
    free(pa);
    free(pb);
    free(a.p);
    free(b.p);
    free(f);
}
END_TEST

int main(void)
{
    g_seed = test_seed("test_feed");
    Suite *s = suite_create("feed");
    TCase *tc = tcase_create("feed");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, cut_anywhere_same_rows);
    tcase_add_test(tc, device_hands_over);
    tcase_add_test(tc, first_error_in_input_order);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
