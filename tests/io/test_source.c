/* io/source: plain files, gzip (single, multi-member, padded), damaged
 * gzip, unreadable inputs and standard input, read back with random read
 * sizes and compared byte for byte with what was written. gzip files are
 * made with zlib's deflate, independently of the inflate loop under test. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "io/source.h"

#include "tests/testlib.h"

static uint64_t g_seed;
static int g_quick;
static char g_dir[] = "/tmp/colstat_test_source_XXXXXX";

/* splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
 * generators", OOPSLA 2014). */
static int iters(int n)
{
    return g_quick ? (n + 3) / 4 : n;
}

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

/* Appends n bytes and returns where they go (to be filled). */
static unsigned char *buf_grow(buf *b, size_t n)
{
    /* also on the first append, empty or not: NULL + 0 is undefined (F9:
     * clang's UBSan stopped the suite) */
    if (b->n + n > b->cap || !b->p) {
        b->cap = (b->n + n) * 2 + 16;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    b->n += n;
    return b->p + b->n - n;
}

static void buf_add(buf *b, const void *p, size_t n)
{
    unsigned char *at = buf_grow(b, n);
    if (n)
        memcpy(at, p, n);
}

/* A size drawn over several scales: empty, tiny, around the 1 MB input
 * buffer, a few MB. */
static size_t rand_size(test_rng *r)
{
    switch (rng_below(r, 6)) {
    case 0:
        return rng_below(r, 4);
    case 1:
        return rng_below(r, 300);
    case 2:
        return rng_below(r, 70000);
    case 3:
        return (1u << 20) - 64 + rng_below(r, 128);
    default:
        return rng_below(r, (g_quick ? 1u : 3u) << 20);
    }
}

/* Data that compresses to varying degrees: random bytes, repeated words,
 * zero runs. */
static void rand_data(test_rng *r, buf *b, size_t n)
{
    static const char *words[] = {"1.5,", "-42,",        "3.14159e-7\n",
                                  "nan,", "price,qty\n", "\"x,y\","};
    size_t start = b->n;
    while (b->n - start < n) {
        size_t left = n - (b->n - start), k = 1 + rng_below(r, 4096);
        if (k > left)
            k = left;
        unsigned char tmp[4096];
        int kind = (int)rng_below(r, 3);
        for (size_t i = 0; i < k;) {
            if (kind == 0) {
                tmp[i++] = (unsigned char)rng_next(r);
            } else if (kind == 1) {
                const char *w = words[rng_below(r, 6)];
                for (size_t j = 0; w[j] && i < k; j++)
                    tmp[i++] = (unsigned char)w[j];
            } else {
                tmp[i++] = 0;
            }
        }
        buf_add(b, tmp, k);
    }
}

/* One gzip member of data[0, n) at the given level, sometimes with a file
 * name, comment and extra field in the header (RFC 1952 FNAME, FCOMMENT,
 * FEXTRA), which the reader must skip. */
static void gz_member(test_rng *r, const unsigned char *data, size_t n,
                      int level, buf *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED,
                                     Z_HUFFMAN_ONLY, Z_RLE};
    ck_assert_int_eq(deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8,
                                  strategies[rng_below(r, 4)]),
                     Z_OK);
    gz_header h;
    memset(&h, 0, sizeof h);
    unsigned char extra[40];
    if (rng_below(r, 3) == 0) {
        h.name = (Bytef *)"data.csv";
        h.comment = (Bytef *)"made by test_source";
        for (size_t i = 0; i < sizeof extra; i++)
            extra[i] = (unsigned char)rng_next(r);
        h.extra = extra;
        h.extra_len = (uInt)rng_below(r, sizeof extra);
        h.hcrc = (int)rng_below(r, 2);
        ck_assert_int_eq(deflateSetHeader(&z, &h), Z_OK);
    }
    size_t cap = deflateBound(&z, n) + 256;
    size_t at = out->n;
    z.next_out = buf_grow(out, cap);
    out->n = at;
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)n;
    z.avail_out = (uInt)cap;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    out->n = at + (cap - z.avail_out);
    deflateEnd(&z);
}

static int rand_level(test_rng *r)
{
    return (int)rng_below(r, 11) - 1; /* -1 is zlib's default */
}

static char *write_file(const char *tag, const void *p, size_t n)
{
    static unsigned counter;
    char *path = malloc(strlen(g_dir) + 64);
    ck_assert_ptr_nonnull(path);
    sprintf(path, "%s/%s_%u_%ld", g_dir, tag, counter++, (long)getpid());
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    if (n)
        ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* Read sizes mostly moderate, sometimes one byte, sometimes huge. */
static size_t rand_read_size(test_rng *r)
{
    switch (rng_below(r, 4)) {
    case 0:
        return 1 + rng_below(r, 16);
    case 1:
        return 1 + rng_below(r, 4096);
    case 2:
        return 1 + rng_below(r, 300000);
    default:
        return 1 + rng_below(r, 4u << 20);
    }
}

/* Reads s to the end or the first error. Returns 0 or -1; got holds what
 * was delivered either way. Checks raw_pos never goes back. */
static int read_all(test_rng *r, source *s, buf *got, cs_error *e)
{
    unsigned char *tmp = malloc(4u << 20);
    ck_assert_ptr_nonnull(tmp);
    uint64_t pos = source_raw_pos(s);
    int rc = 0;
    for (;;) {
        size_t want = rand_read_size(r);
        ssize_t k = source_read(s, tmp, want, e);
        ck_assert_int_le(k, (ssize_t)want);
        uint64_t now = source_raw_pos(s);
        ck_assert_uint_ge(now, pos);
        pos = now;
        if (!source_is_gzip(s) && k > 0)
            ck_assert_uint_eq(now, got->n + (size_t)k);
        if (k < 0) {
            ck_assert_int_eq(k, -1);
            ck_assert_int_eq(e->status, CS_EDATA);
            rc = -1;
            break;
        }
        if (k == 0)
            break;
        buf_add(got, tmp, (size_t)k);
    }
    if (rc == 0) /* the end is sticky */
        ck_assert_int_eq(source_read(s, tmp, 1 + rng_below(r, 100), e), 0);
    free(tmp);
    return rc;
}

static void assert_same(const buf *got, const buf *want)
{
    ck_assert_uint_eq(got->n, want->n);
    ck_assert_msg(want->n == 0 || memcmp(got->p, want->p, want->n) == 0,
                  "data differs");
}

static void assert_prefix(const buf *got, const buf *want)
{
    ck_assert_uint_le(got->n, want->n);
    ck_assert_msg(got->n == 0 || memcmp(got->p, want->p, got->n) == 0,
                  "delivered bytes are not a prefix of the data");
}

/* Opens path and reads it whole. Returns as read_all. */
static int read_path(test_rng *r, const char *path, buf *got, cs_error *e,
                     int *is_gzip)
{
    source *s = NULL;
    memset(e, 0, sizeof *e);
    if (source_open(path, &s, e) != CS_OK) {
        ck_assert_ptr_null(s);
        return -1;
    }
    ck_assert_str_eq(source_name(s), path);
    *is_gzip = source_is_gzip(s);
    int rc = read_all(r, s, got, e);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(source_file_size(s), (uint64_t)st.st_size);
    ck_assert_uint_le(source_raw_pos(s), (uint64_t)st.st_size);
    if (rc == 0)
        ck_assert_uint_eq(source_raw_pos(s), (uint64_t)st.st_size);
    source_close(s);
    return rc;
}

static void assert_error(const cs_error *e, const char *path, const char *msg)
{
    ck_assert_int_eq(e->status, CS_EDATA);
    ck_assert_str_eq(e->file, path);
    ck_assert_uint_eq(e->line, 0);
    ck_assert_msg(strstr(e->msg, msg) != NULL, "message '%s' lacks '%s'",
                  e->msg, msg);
}

START_TEST(plain_files)
{
    test_rng r = rng_for(g_seed, 1);
    for (int it = 0; it < iters(16); it++) {
        buf want = {0}, got = {0};
        rand_data(&r, &want, rand_size(&r));
        if (want.n >= 2 && want.p[0] == 0x1f && want.p[1] == 0x8b)
            want.p[0] = 'x';
        char *path = write_file("plain", want.p, want.n);
        cs_error e;
        int gz = -1;
        ck_assert_int_eq(read_path(&r, path, &got, &e, &gz), 0);
        ck_assert_int_eq(gz, 0);
        assert_same(&got, &want);
        unlink(path);
        free(path);
        free(want.p);
        free(got.p);
    }
}
END_TEST

/* source_seek: after some reads, a seek to a random offset makes the next
 * reads deliver the file from there (the GPU's hand-over to the host). */
START_TEST(plain_seek)
{
    test_rng r = rng_for(g_seed, 16);
    for (int it = 0; it < iters(16); it++) {
        buf want = {0};
        rand_data(&r, &want, 1 + rand_size(&r));
        want.p[0] = 'x'; /* not gzip */
        char *path = write_file("seek", want.p, want.n);
        source *s = NULL;
        cs_error e = {0};
        ck_assert_int_eq(source_open(path, &s, &e), CS_OK);
        unsigned char *tmp = malloc(want.n + 1);
        ck_assert_ptr_nonnull(tmp);
        ck_assert_int_ge(source_read(s, tmp, 1 + rng_below(&r, want.n), &e), 0);
        size_t off = rng_below(&r, want.n + 1);
        ck_assert_int_eq(source_seek(s, off, &e), CS_OK);
        size_t got = 0;
        ssize_t k;
        while ((k = source_read(s, tmp + got, want.n + 1 - got, &e)) > 0)
            got += (size_t)k;
        ck_assert_int_eq(k, 0);
        ck_assert_uint_eq(got, want.n - off);
        ck_assert_int_eq(memcmp(tmp, want.p + off, got), 0);
        ck_assert_uint_eq(source_raw_pos(s), want.n);
        source_close(s);
        free(tmp);
        unlink(path);
        free(path);
        free(want.p);
    }
}
END_TEST

/* A gzip stream cannot seek: an error, not a silent wrong position. */
START_TEST(gzip_seek_refused)
{
    test_rng r = rng_for(g_seed, 17);
    buf plain = {0}, gz = {0};
    rand_data(&r, &plain, 1000);
    gz_member(&r, plain.p, plain.n, rand_level(&r), &gz);
    char *path = write_file("gzseek", gz.p, gz.n);
    source *s = NULL;
    cs_error e = {0};
    ck_assert_int_eq(source_open(path, &s, &e), CS_OK);
    ck_assert_int_eq(source_seek(s, 10, &e), CS_EDATA);
    ck_assert_str_eq(e.file, path);
    source_close(s);
    unlink(path);
    free(path);
    free(plain.p);
    free(gz.p);
}
END_TEST

/* Several members, some empty: what pigz, bgzip and cat a.gz b.gz make. */
static void make_members(test_rng *r, int k, buf *plain, buf *gz, size_t *ends)
{
    for (int m = 0; m < k; m++) {
        size_t at = plain->n;
        if (rng_below(r, 4) != 0)
            rand_data(r, plain, rand_size(r) / (size_t)k);
        gz_member(r, plain->p ? plain->p + at : NULL, plain->n - at,
                  rand_level(r), gz);
        if (ends)
            ends[m] = gz->n;
    }
}

START_TEST(gzip_levels)
{
    test_rng r = rng_for(g_seed, 2);
    for (int it = 0; it < iters(16); it++) {
        buf want = {0}, gz = {0}, got = {0};
        make_members(&r, 1, &want, &gz, NULL);
        char *path = write_file("gz", gz.p, gz.n);
        cs_error e;
        int isgz = -1;
        ck_assert_int_eq(read_path(&r, path, &got, &e, &isgz), 0);
        ck_assert_int_eq(isgz, 1);
        assert_same(&got, &want);
        unlink(path);
        free(path);
        free(want.p);
        free(gz.p);
        free(got.p);
    }
}
END_TEST

START_TEST(gzip_multi_member)
{
    test_rng r = rng_for(g_seed, 3);
    for (int it = 0; it < iters(12); it++) {
        buf want = {0}, gz = {0}, got = {0};
        make_members(&r, 2 + (int)rng_below(&r, 6), &want, &gz, NULL);
        char *path = write_file("multi", gz.p, gz.n);
        cs_error e;
        int isgz = -1;
        ck_assert_int_eq(read_path(&r, path, &got, &e, &isgz), 0);
        ck_assert_int_eq(isgz, 1);
        assert_same(&got, &want);
        unlink(path);
        free(path);
        free(want.p);
        free(gz.p);
        free(got.p);
    }
}
END_TEST

START_TEST(gzip_truncated)
{
    test_rng r = rng_for(g_seed, 4);
    for (int it = 0; it < iters(40); it++) {
        buf want = {0}, gz = {0}, got = {0};
        size_t ends[4];
        int k = 1 + (int)rng_below(&r, 4);
        make_members(&r, k, &want, &gz, ends);
        /* Any cut from 2 bytes on (1 byte is not gzip magic, so a plain
         * file) that does not fall on a member boundary. */
        size_t cut;
        int on_boundary;
        do {
            cut = 2 + rng_below(&r, gz.n - 2);
            on_boundary = 0;
            for (int m = 0; m < k; m++)
                on_boundary |= cut == ends[m];
        } while (on_boundary);
        char *path = write_file("trunc", gz.p, cut);
        cs_error e;
        int isgz = -1;
        ck_assert_int_eq(read_path(&r, path, &got, &e, &isgz), -1);
        assert_error(&e, path, "unexpected end of gzip data (truncated?)");
        assert_prefix(&got, &want);
        unlink(path);
        free(path);
        free(want.p);
        free(gz.p);
        free(got.p);
    }
}
END_TEST

/* A changed byte in a member's trailer (CRC-32 or ISIZE, the last 8 bytes
 * of the member) must be an error. */
START_TEST(gzip_bad_trailer)
{
    test_rng r = rng_for(g_seed, 5);
    for (int it = 0; it < iters(30); it++) {
        buf want = {0}, gz = {0}, got = {0};
        size_t ends[4];
        int k = 1 + (int)rng_below(&r, 4);
        make_members(&r, k, &want, &gz, ends);
        size_t at = ends[rng_below(&r, (size_t)k)] - 1 - rng_below(&r, 8);
        gz.p[at] ^= (unsigned char)(1 + rng_below(&r, 255));
        char *path = write_file("crc", gz.p, gz.n);
        cs_error e;
        int isgz = -1;
        ck_assert_int_eq(read_path(&r, path, &got, &e, &isgz), -1);
        assert_error(&e, path, "corrupt gzip data: incorrect ");
        unlink(path);
        free(path);
        free(want.p);
        free(gz.p);
        free(got.p);
    }
}
END_TEST

/* A changed byte in the compressed data: an error, or (when the change
 * hits bits deflate ignores) exactly the original data; never wrong data
 * reported as success. */
START_TEST(gzip_corrupt_body)
{
    test_rng r = rng_for(g_seed, 6);
    int errors = 0, n = iters(40);
    for (int it = 0; it < n; it++) {
        buf want = {0}, gz = {0}, got = {0};
        rand_data(&r, &want, 1000 + rng_below(&r, 200000));
        gz_member(&r, want.p, want.n, 1 + (int)rng_below(&r, 9), &gz);
        /* Skip the 10-byte header: MTIME, XFL, OS and FTEXT may change
         * freely. Header extras move the data further; that is fine. */
        size_t at = 10 + rng_below(&r, gz.n - 18);
        gz.p[at] ^= (unsigned char)(1 + rng_below(&r, 255));
        char *path = write_file("corrupt", gz.p, gz.n);
        cs_error e;
        int isgz = -1;
        if (read_path(&r, path, &got, &e, &isgz) == 0) {
            assert_same(&got, &want);
        } else {
            errors++;
            ck_assert_int_eq(e.status, CS_EDATA);
            ck_assert_str_eq(e.file, path);
        }
        unlink(path);
        free(path);
        free(want.p);
        free(gz.p);
        free(got.p);
    }
    ck_assert_int_gt(errors, n / 2);
}
END_TEST

START_TEST(gzip_trailing_garbage)
{
    test_rng r = rng_for(g_seed, 7);
    for (int it = 0; it < iters(20); it++) {
        buf want = {0}, gz = {0}, got = {0};
        make_members(&r, 1 + (int)rng_below(&r, 3), &want, &gz, NULL);
        unsigned char junk[64];
        size_t nj = 1 + rng_below(&r, sizeof junk);
        for (size_t i = 0; i < nj; i++)
            junk[i] = (unsigned char)rng_next(&r);
        junk[0] =
            (unsigned char)(1 + rng_below(&r, 0x1e)); /* not 0, not 0x1f */
        buf_add(&gz, junk, nj);
        char *path = write_file("junk", gz.p, gz.n);
        cs_error e;
        int isgz = -1;
        ck_assert_int_eq(read_path(&r, path, &got, &e, &isgz), -1);
        assert_error(&e, path, "trailing garbage after gzip data");
        assert_prefix(&got, &want);
        unlink(path);
        free(path);
        free(want.p);
        free(gz.p);
        free(got.p);
    }
}
END_TEST

/* Zero bytes after the last member are padding (as from tape or a block
 * device) and accepted; a non-zero byte among them is garbage. */
START_TEST(gzip_zero_padding)
{
    test_rng r = rng_for(g_seed, 8);
    for (int it = 0; it < iters(16); it++) {
        buf want = {0}, gz = {0}, got = {0};
        make_members(&r, 1 + (int)rng_below(&r, 3), &want, &gz, NULL);
        size_t nz = 1 + rng_below(&r, rng_below(&r, 2) ? 3u << 20 : 600);
        size_t at = gz.n;
        memset(buf_grow(&gz, nz), 0, nz);
        int dirty = (int)rng_below(&r, 2);
        if (dirty)
            gz.p[at + rng_below(&r, nz)] =
                (unsigned char)(1 + rng_below(&r, 255));
        char *path = write_file("pad", gz.p, gz.n);
        cs_error e;
        int isgz = -1;
        int rc = read_path(&r, path, &got, &e, &isgz);
        if (dirty && gz.p[at] == 0) {
            ck_assert_int_eq(rc, -1);
            assert_error(&e, path, "trailing garbage after gzip data");
        } else if (dirty) {
            ck_assert_int_eq(rc, -1); /* garbage or a bad member header */
        } else {
            ck_assert_int_eq(rc, 0);
            assert_same(&got, &want);
        }
        unlink(path);
        free(path);
        free(want.p);
        free(gz.p);
        free(got.p);
    }
}
END_TEST

/* raw_pos counts compressed bytes inflate has taken, not bytes sitting
 * in the input buffer: on incompressible data it keeps close to the bytes
 * delivered. */
START_TEST(gzip_raw_pos_progress)
{
    test_rng r = rng_for(g_seed, 14);
    buf want = {0}, gz = {0};
    for (size_t i = 0; i < ((size_t)3 << 20) / 8; i++) {
        uint64_t v = rng_next(&r);
        buf_add(&want, &v, sizeof v);
    }
    gz_member(&r, want.p, want.n, 1 + (int)rng_below(&r, 9), &gz);
    char *path = write_file("rawpos", gz.p, gz.n);
    source *s = NULL;
    cs_error e;
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(source_open(path, &s, &e), CS_OK);
    static unsigned char tmp[1 << 16];
    uint64_t total = 0;
    ssize_t k;
    while ((k = source_read(s, tmp, 1 + rng_below(&r, sizeof tmp), &e)) > 0) {
        total += (uint64_t)k;
        uint64_t pos = source_raw_pos(s);
        ck_assert_uint_le(pos, total + 2 * sizeof tmp + 1024);
        ck_assert_uint_ge(pos + 2 * sizeof tmp + 1024, total);
    }
    ck_assert_int_eq(k, 0);
    ck_assert_uint_eq(total, want.n);
    ck_assert_uint_eq(source_raw_pos(s), gz.n);
    source_close(s);
    unlink(path);
    free(path);
    free(want.p);
    free(gz.p);
}
END_TEST

/* The magic alone decides: 1f 8b then anything that is not gzip fails;
 * a lone 1f byte is plain data; a gzip file with a .csv name is gzip. */
START_TEST(gzip_magic_edges)
{
    test_rng r = rng_for(g_seed, 9);
    for (int it = 0; it < iters(20); it++) {
        unsigned char b[64] = {0x1f, 0x8b};
        size_t n = 2 + rng_below(&r, sizeof b - 1);
        for (size_t i = 2; i < n; i++)
            b[i] = (unsigned char)rng_next(&r);
        char *path = write_file("magic", b, n);
        buf got = {0};
        cs_error e;
        int isgz = -1;
        ck_assert_int_eq(read_path(&r, path, &got, &e, &isgz), -1);
        ck_assert_int_eq(isgz, 1);
        assert_error(&e, path, "gzip data");
        unlink(path);
        free(path);
        free(got.p);
    }
    unsigned char one = 0x1f;
    char *path = write_file("one", &one, 1);
    buf got = {0};
    cs_error e;
    int isgz = -1;
    ck_assert_int_eq(read_path(&r, path, &got, &e, &isgz), 0);
    ck_assert_int_eq(isgz, 0);
    ck_assert_uint_eq(got.n, 1);
    ck_assert_uint_eq(got.p[0], 0x1f);
    unlink(path);
    free(path);
    free(got.p);
}
END_TEST

START_TEST(open_missing)
{
    char path[128];
    snprintf(path, sizeof path, "%s/no_such_file_%llu", g_dir,
             (unsigned long long)(g_seed % 100000));
    source *s = (source *)&path; /* must be reset to NULL */
    cs_error e;
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(source_open(path, &s, &e), CS_EDATA);
    ck_assert_ptr_null(s);
    assert_error(&e, path, "cannot open: No such file or directory");
    ck_assert_str_eq(e.msg, "cannot open: No such file or directory");
}
END_TEST

START_TEST(open_directory)
{
    source *s = NULL;
    cs_error e;
    memset(&e, 0, sizeof e);
    int rc = source_open(g_dir, &s, &e);
    if (rc == CS_OK) {
        unsigned char tmp[16];
        ck_assert_int_eq(source_read(s, tmp, sizeof tmp, &e), -1);
        source_close(s);
    }
    assert_error(&e, g_dir, "Is a directory");
}
END_TEST

START_TEST(empty_file)
{
    test_rng r = rng_for(g_seed, 10);
    char *path = write_file("empty", "", 0);
    buf got = {0};
    cs_error e;
    int isgz = -1;
    ck_assert_int_eq(read_path(&r, path, &got, &e, &isgz), 0);
    ck_assert_int_eq(isgz, 0);
    ck_assert_uint_eq(got.n, 0);
    ck_assert_int_eq(e.status, CS_OK);
    unlink(path);
    free(path);
}
END_TEST

/* Runs fn with fd as standard input, restoring it after. */
static int with_stdin(int fd, int (*fn)(test_rng *, buf *, cs_error *, void *),
                      test_rng *r, buf *got, cs_error *e, void *arg)
{
    int saved = dup(STDIN_FILENO);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    close(fd);
    int rc = fn(r, got, e, arg);
    ck_assert_int_eq(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(saved);
    return rc;
}

struct stdin_expect {
    uint64_t file_size;
    int gzip;
};

static int read_stdin(test_rng *r, buf *got, cs_error *e, void *arg)
{
    const struct stdin_expect *x = arg;
    source *s = NULL;
    memset(e, 0, sizeof *e);
    if (source_open("-", &s, e) != CS_OK)
        return -1;
    ck_assert_str_eq(source_name(s), "(standard input)");
    ck_assert_int_eq(source_is_gzip(s), x->gzip);
    ck_assert_uint_eq(source_file_size(s), x->file_size);
    int rc = read_all(r, s, got, e);
    if (rc != 0)
        ck_assert_str_eq(e->file, "(standard input)");
    source_close(s);
    return rc;
}

START_TEST(stdin_file)
{
    test_rng r = rng_for(g_seed, 11);
    for (int it = 0; it < iters(8); it++) {
        buf want = {0}, gz = {0}, got = {0};
        int gzip = (int)rng_below(&r, 2);
        if (gzip) {
            make_members(&r, 1 + (int)rng_below(&r, 3), &want, &gz, NULL);
        } else {
            rand_data(&r, &want, rand_size(&r));
            if (want.n >= 2 && want.p[0] == 0x1f && want.p[1] == 0x8b)
                want.p[0] = 'x';
            buf_add(&gz, want.p, want.n);
        }
        char *path = write_file("stdin", gz.p, gz.n);
        int fd = open(path, O_RDONLY);
        ck_assert_int_ge(fd, 0);
        struct stdin_expect x = {gz.n, gzip && gz.n > 0};
        cs_error e;
        ck_assert_int_eq(with_stdin(fd, read_stdin, &r, &got, &e, &x), 0);
        assert_same(&got, &want);
        unlink(path);
        free(path);
        free(want.p);
        free(gz.p);
        free(got.p);
    }
}
END_TEST

/* A writer thread feeds a pipe in random pieces, some of one byte, so the
 * reader sees reads that end anywhere: inside the magic, a header, a
 * member boundary, the trailer. */
struct writer {
    int fd;
    const buf *data;
    uint64_t seed;
    int delay_us;
};

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    test_rng r = {w->seed};
    size_t at = 0;
    while (at < w->data->n) {
        size_t k = rng_below(&r, 3) == 0 ? 1 + rng_below(&r, 3)
                                         : 1 + rng_below(&r, 9000);
        if (k > w->data->n - at)
            k = w->data->n - at;
        ssize_t done = write(w->fd, w->data->p + at, k);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            break;
        at += (size_t)done;
        if (w->delay_us)
            usleep((useconds_t)w->delay_us);
    }
    close(w->fd);
    return NULL;
}

static int read_pipe(test_rng *r, const buf *feed, int delay_us, int gzip,
                     buf *got, cs_error *e)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    /* After an early error the writer finds the pipe closed: EPIPE, not a
     * signal, ends it. */
    signal(SIGPIPE, SIG_IGN);
    struct writer w = {p[1], feed, rng_next(r), delay_us};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, writer_main, &w), 0);
    struct stdin_expect x = {0, gzip};
    int rc = with_stdin(p[0], read_stdin, r, got, e, &x);
    pthread_join(t, NULL);
    return rc;
}

START_TEST(stdin_pipe)
{
    test_rng r = rng_for(g_seed, 12);
    for (int it = 0; it < iters(12); it++) {
        buf want = {0}, gz = {0}, got = {0};
        size_t ends[4];
        int k = 1 + (int)rng_below(&r, 4);
        make_members(&r, k, &want, &gz, ends);
        int kind = (int)rng_below(&r, 3); /* whole, truncated, zero-padded */
        if (kind == 1) {
            size_t n = 2 + rng_below(&r, gz.n - 2);
            for (int m = 0; m < k; m++)
                if (n == ends[m])
                    n--; /* off the boundary; >= 2 still (member >= 18) */
            gz.n = n;
        } else if (kind == 2) {
            size_t nz = 1 + rng_below(&r, 5000);
            memset(buf_grow(&gz, nz), 0, nz);
        }
        cs_error e;
        int rc = read_pipe(&r, &gz, 0, 1, &got, &e);
        if (kind == 1) {
            ck_assert_int_eq(rc, -1);
            ck_assert_str_eq(e.msg, "unexpected end of gzip data (truncated?)");
            assert_prefix(&got, &want);
        } else {
            ck_assert_int_eq(rc, 0);
            assert_same(&got, &want);
        }
        free(want.p);
        free(gz.p);
        free(got.p);
    }
}
END_TEST

static volatile sig_atomic_t g_alarms;

static void on_alarm(int sig)
{
    (void)sig;
    g_alarms++;
}

/* Signals arriving while read(2) waits on a slow pipe make it fail with
 * EINTR (the handler is installed without SA_RESTART); the source must
 * retry, not report an error. */
START_TEST(eintr_retried)
{
    test_rng r = rng_for(g_seed, 13);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    /* The writer thread inherits the blocked mask; only we get SIGALRM. */
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (int gzip = 0; gzip < 2; gzip++) {
        buf want = {0}, gz = {0}, got = {0};
        if (gzip) {
            make_members(&r, 2, &want, &gz, NULL);
        } else {
            rand_data(&r, &want, 20000 + rng_below(&r, 20000));
            want.p[0] = 'x';
            buf_add(&gz, want.p, want.n);
        }
        int p[2];
        ck_assert_int_eq(pipe(p), 0);
        struct writer w = {p[1], &gz, rng_next(&r), 300};
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, writer_main, &w), 0);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        struct itimerval tv = {{0, 200}, {0, 200}};
        g_alarms = 0;
        setitimer(ITIMER_REAL, &tv, NULL);
        struct stdin_expect x = {0, gzip && gz.n > 0};
        cs_error e;
        int rc = with_stdin(p[0], read_stdin, &r, &got, &e, &x);
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
        pthread_join(t, NULL);
        pthread_sigmask(SIG_BLOCK, &block, &old);
        ck_assert_msg(rc == 0, "read failed: %s", e.msg);
        assert_same(&got, &want);
        ck_assert_int_gt(g_alarms, 0);
        free(want.p);
        free(gz.p);
        free(got.p);
    }
}
END_TEST

static int rm_entry(const char *p, const struct stat *st, int flag,
                    struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

static Suite *source_suite(void)
{
    Suite *s = suite_create("source");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, plain_files);
    tcase_add_test(tc, gzip_levels);
    tcase_add_test(tc, gzip_multi_member);
    tcase_add_test(tc, gzip_truncated);
    tcase_add_test(tc, gzip_bad_trailer);
    tcase_add_test(tc, gzip_corrupt_body);
    tcase_add_test(tc, gzip_trailing_garbage);
    tcase_add_test(tc, gzip_zero_padding);
    tcase_add_test(tc, gzip_raw_pos_progress);
    tcase_add_test(tc, gzip_magic_edges);
    tcase_add_test(tc, open_missing);
    tcase_add_test(tc, open_directory);
    tcase_add_test(tc, empty_file);
    tcase_add_test(tc, stdin_file);
    tcase_add_test(tc, stdin_pipe);
    tcase_add_test(tc, eintr_retried);
    tcase_add_test(tc, plain_seek);
    tcase_add_test(tc, gzip_seek_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    g_seed = test_seed("test_source");
    g_quick = getenv("COLSTAT_TEST_QUICK") != NULL;
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    int rc = run_suite(source_suite(), CK_FORK_GETENV);
    nftw(g_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (rc != EXIT_SUCCESS)
        fprintf(stderr, "test_source: failed with COLSTAT_SEED=%llu\n",
                (unsigned long long)g_seed);
    return rc;
}
