/* io/source/source: plain files, gzip (single, multi-member, padded), damaged
 * gzip, zstd, xz and bzip2 (several streams, fillers and padding between
 * them, cut, damaged, followed by garbage, through pipes), formats
 * refused by their magic, nested compression, files that change size
 * while read, unreadable inputs and standard input, read back with random
 * read sizes and compared byte for byte with what was written. Compressed
 * files are made with each format's own library encoder (zlib's deflate,
 * ZSTD_compress2, liblzma's encoders, BZ2_bzBuffToBuffCompress),
 * independently of the decoders under test. */
#include <bzlib.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <lzma.h>
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
#include <zstd.h>

#include "io/source/source.h"

#include "tests/testlib.h"

static uint64_t g_seed;
static int g_quick;
/* How compressed input is decoded: one thread in the "core" case; in the
 * "parallel" case gzip by 2 to 4 threads with pieces of 1 to 16 KiB, so
 * that every gzip test also runs through io/gzip/gzip.h's pieces. */
static source_config g_cfg;
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
    /* also on the first append, empty or not: NULL + 0 is undefined
     * (clang's UBSan stops on it) */
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
        /* Text first: random bytes could open with another format's magic
         * (1f 8b), which a decoded head rightly reports as nested. */
        int kind = b->n == 0 ? 1 : (int)rng_below(r, 3);
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
        if (!source_format_name(s) && k > 0)
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
    if (source_open_cfg(path, &g_cfg, &s, e) != CS_OK) {
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
        ck_assert_int_eq(source_open_cfg(path, &g_cfg, &s, &e), CS_OK);
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
    ck_assert_int_eq(source_open_cfg(path, &g_cfg, &s, &e), CS_OK);
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
    ck_assert_int_eq(source_open_cfg(path, &g_cfg, &s, &e), CS_OK);
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
 * a lone 1f byte is a gzip file cut inside its magic (no text begins
 * with it); a gzip file with a .csv name is gzip. */
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
    ck_assert_int_eq(read_path(&r, path, &got, &e, &isgz), -1);
    assert_error(&e, path, "truncated gzip data");
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
    const char *format; /* NULL: "gzip" when gzip, else plain */
};

static void assert_format(const source *s, const char *want)
{
    const char *got = source_format_name(s);
    ck_assert_msg(want ? got && strcmp(got, want) == 0 : got == NULL,
                  "format %s, want %s", got ? got : "plain",
                  want ? want : "plain");
}

static int read_stdin(test_rng *r, buf *got, cs_error *e, void *arg)
{
    const struct stdin_expect *x = arg;
    source *s = NULL;
    memset(e, 0, sizeof *e);
    if (source_open_cfg("-", &g_cfg, &s, e) != CS_OK)
        return -1;
    ck_assert_str_eq(source_name(s), "(standard input)");
    ck_assert_int_eq(source_is_gzip(s), x->gzip);
    assert_format(s, x->format ? x->format : x->gzip ? "gzip" : NULL);
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
        struct stdin_expect x = {gz.n, gzip && gz.n > 0, NULL};
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

static int read_pipe(test_rng *r, const buf *feed, int delay_us,
                     const char *format, buf *got, cs_error *e)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    /* After an early error the writer finds the pipe closed: EPIPE, not a
     * signal, ends it. */
    signal(SIGPIPE, SIG_IGN);
    struct writer w = {p[1], feed, rng_next(r), delay_us};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, writer_main, &w), 0);
    int gzip = format && strcmp(format, "gzip") == 0;
    struct stdin_expect x = {0, gzip, format};
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
        int rc = read_pipe(&r, &gz, 0, "gzip", &got, &e);
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
        struct stdin_expect x = {0, gzip && gz.n > 0, NULL};
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

/* ---- zstd, xz and bzip2, and gzip again through the same tests ----
 * Each format: how to make one stream of it (with the format's own
 * library encoder, independent of the decoder under test), what may sit
 * between streams (zstd's skippable frames, xz's stream padding), and
 * the zero padding allowed after the last stream. */

typedef struct test_fmt {
    const char *name; /* source_format_name */
    size_t sniff;     /* bytes the magic check needs */
    /* Appends one stream of d[0, n); checked: with an integrity check. */
    void (*stream)(test_rng *r, const unsigned char *d, size_t n, int checked,
                   buf *out);
    void (*filler)(test_rng *r, buf *out); /* NULL: none */
    size_t zero_pad; /* zeros allowed at the end: 0 none, k multiples of k */
} test_fmt;

static void gz_stream(test_rng *r, const unsigned char *d, size_t n,
                      int checked, buf *out)
{
    (void)checked; /* gzip always has its CRC-32 */
    gz_member(r, d, n, rand_level(r), out);
}

static void zstd_stream(test_rng *r, const unsigned char *d, size_t n,
                        int checked, buf *out)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ck_assert_ptr_nonnull(c);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel,
                           (int)rng_below(r, 12) - 2);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checked || rng_below(r, 2));
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, (int)rng_below(r, 2));
    size_t cap = ZSTD_compressBound(n), at = out->n;
    unsigned char *p = buf_grow(out, cap);
    size_t k = ZSTD_compress2(c, p, cap, d ? d : (const void *)"", n);
    ck_assert_msg(!ZSTD_isError(k), "%s", ZSTD_getErrorName(k));
    out->n = at + k;
    ZSTD_freeCCtx(c);
}

/* A skippable frame (RFC 8878 3.1.2): magic 0x184D2A5?, a 32-bit size,
 * that many bytes of anything. */
static void zstd_skippable(test_rng *r, buf *out)
{
    size_t k = rng_below(r, 300);
    unsigned char h[8] = {(unsigned char)(0x50 + rng_below(r, 16)),
                          0x2a,
                          0x4d,
                          0x18,
                          (unsigned char)k,
                          (unsigned char)(k >> 8),
                          0,
                          0};
    buf_add(out, h, 8);
    unsigned char *p = buf_grow(out, k);
    for (size_t i = 0; i < k; i++)
        p[i] = (unsigned char)rng_next(r);
}

static void xz_stream(test_rng *r, const unsigned char *d, size_t n,
                      int checked, buf *out)
{
    static const lzma_check checks[] = {LZMA_CHECK_CRC32, LZMA_CHECK_CRC64,
                                        LZMA_CHECK_SHA256, LZMA_CHECK_NONE};
    lzma_check check = checks[rng_below(r, checked ? 3 : 4)];
    uint32_t preset = (uint32_t)rng_below(r, 4);
    lzma_stream s = LZMA_STREAM_INIT;
    if (rng_below(r, 2)) { /* several blocks */
        lzma_mt mt;
        memset(&mt, 0, sizeof mt);
        mt.threads = 1;
        mt.block_size = 4096 + rng_below(r, 300000);
        mt.preset = preset;
        mt.check = check;
        ck_assert_int_eq(lzma_stream_encoder_mt(&s, &mt), LZMA_OK);
    } else {
        ck_assert_int_eq(lzma_easy_encoder(&s, preset, check), LZMA_OK);
    }
    s.next_in = d;
    s.avail_in = n;
    lzma_ret ret;
    do {
        size_t room = 65536 + n / 4, at = out->n;
        s.next_out = buf_grow(out, room);
        s.avail_out = room;
        ret = lzma_code(&s, LZMA_FINISH);
        out->n = at + (room - s.avail_out);
        ck_assert(ret == LZMA_OK || ret == LZMA_STREAM_END);
    } while (ret != LZMA_STREAM_END);
    lzma_end(&s);
}

static void xz_padding(test_rng *r, buf *out)
{
    size_t k = 4 * (1 + rng_below(r, 5));
    memset(buf_grow(out, k), 0, k);
}

static void bz2_stream(test_rng *r, const unsigned char *d, size_t n,
                       int checked, buf *out)
{
    (void)checked; /* bzip2 always has its CRCs */
    unsigned cap = (unsigned)(n + n / 50 + 1000);
    size_t at = out->n;
    char *p = (char *)buf_grow(out, cap);
    char none = 0;
    ck_assert_int_eq(BZ2_bzBuffToBuffCompress(p, &cap, d ? (char *)d : &none,
                                              (unsigned)n,
                                              1 + (int)rng_below(r, 9), 0, 0),
                     BZ_OK);
    out->n = at + cap;
}

static const test_fmt fmts[] = {
    {"gzip", 2, gz_stream, NULL, 1},
    {"zstd", 4, zstd_stream, zstd_skippable, 0},
    {"xz", 6, xz_stream, xz_padding, 4},
    {"bzip2", 10, bz2_stream, NULL, 0},
};
#define NFMTS (sizeof fmts / sizeof fmts[0])

/* Where each stream lies in the file, to cut inside one. */
typedef struct spans {
    size_t start[8], end[8];
    int n;
} spans;

/* k streams (some empty, fillers between some of them), data in plain. */
static void make_streams(test_rng *r, const test_fmt *f, int k, int checked,
                         buf *plain, buf *z, spans *sp)
{
    sp->n = 0;
    for (int m = 0; m < k; m++) {
        if (m > 0 && f->filler && rng_below(r, 3) == 0)
            f->filler(r, z);
        size_t at = plain->n;
        if (rng_below(r, 5) != 0)
            rand_data(r, plain, rand_size(r) / (size_t)k);
        sp->start[sp->n] = z->n;
        f->stream(r, plain->p ? plain->p + at : NULL, plain->n - at, checked,
                  z);
        sp->end[sp->n++] = z->n;
    }
}

/* Reads path whole; *format is what the source said it was. */
static int read_fmt(test_rng *r, const char *path, buf *got, cs_error *e,
                    const char **format)
{
    source *s = NULL;
    memset(e, 0, sizeof *e);
    if (source_open_cfg(path, &g_cfg, &s, e) != CS_OK) {
        ck_assert_ptr_null(s);
        return -1;
    }
    *format = source_format_name(s);
    int rc = read_all(r, s, got, e);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(source_file_size(s), (uint64_t)st.st_size);
    if (rc == 0)
        ck_assert_uint_eq(source_raw_pos(s), (uint64_t)st.st_size);
    source_close(s);
    return rc;
}

static void free_bufs(buf *a, buf *b, buf *c, char *path)
{
    unlink(path);
    free(path);
    free(a->p);
    free(b->p);
    free(c->p);
}

/* Streams in a row, empty ones, fillers between them and allowed
 * padding after them: read back whole, byte for byte. */
START_TEST(codec_streams)
{
    test_rng r = rng_for(g_seed, 20 + (uint64_t)_i);
    const test_fmt *f = &fmts[_i];
    for (int it = 0; it < iters(12); it++) {
        buf want = {0}, z = {0}, got = {0};
        spans sp;
        make_streams(&r, f, 1 + (int)rng_below(&r, 6), 0, &want, &z, &sp);
        if (f->filler && rng_below(&r, 3) == 0)
            f->filler(&r, &z);
        if (f->zero_pad && rng_below(&r, 3) == 0) {
            size_t nz = f->zero_pad * (1 + rng_below(&r, 3000));
            memset(buf_grow(&z, nz), 0, nz);
        }
        char *path = write_file(f->name, z.p, z.n);
        cs_error e;
        const char *fmt = NULL;
        int rc = read_fmt(&r, path, &got, &e, &fmt);
        ck_assert_msg(rc == 0, "%s: %s", f->name, e.msg);
        ck_assert_str_eq(fmt, f->name);
        assert_same(&got, &want);
        free_bufs(&want, &z, &got, path);
    }
}
END_TEST

/* The input cut anywhere inside a stream: "unexpected end", and what
 * was delivered is a prefix of the data. */
START_TEST(codec_truncated)
{
    test_rng r = rng_for(g_seed, 30 + (uint64_t)_i);
    const test_fmt *f = &fmts[_i];
    char msg[64];
    snprintf(msg, sizeof msg, "unexpected end of %s data (truncated?)",
             f->name);
    for (int it = 0; it < iters(40); it++) {
        buf want = {0}, z = {0}, got = {0};
        spans sp;
        make_streams(&r, f, 1 + (int)rng_below(&r, 4), 0, &want, &z, &sp);
        int m = (int)rng_below(&r, (size_t)sp.n);
        size_t lo = sp.start[m] + (m == 0 ? f->sniff : 1);
        size_t cut = lo + rng_below(&r, sp.end[m] - lo);
        char *path = write_file("cut", z.p, cut);
        cs_error e;
        const char *fmt = NULL;
        ck_assert_int_eq(read_fmt(&r, path, &got, &e, &fmt), -1);
        assert_error(&e, path, msg);
        assert_prefix(&got, &want);
        free_bufs(&want, &z, &got, path);
    }
}
END_TEST

/* A changed byte past the magic: an error, or exactly the original data
 * (a bit the format ignores); never other data reported as success.
 * Streams carry their integrity check here: a zstd frame without one (the
 * library's default, not zstd(1)'s) or xz --check=none cannot tell. */
START_TEST(codec_corrupt)
{
    test_rng r = rng_for(g_seed, 40 + (uint64_t)_i);
    const test_fmt *f = &fmts[_i];
    int errors = 0, n = iters(40);
    for (int it = 0; it < n; it++) {
        buf want = {0}, z = {0}, got = {0};
        rand_data(&r, &want, 1000 + rng_below(&r, 200000));
        f->stream(&r, want.p, want.n, 1, &z);
        size_t at = f->sniff + rng_below(&r, z.n - f->sniff);
        z.p[at] ^= (unsigned char)(1 + rng_below(&r, 255));
        char *path = write_file("flip", z.p, z.n);
        cs_error e;
        const char *fmt = NULL;
        if (read_fmt(&r, path, &got, &e, &fmt) == 0) {
            assert_same(&got, &want);
        } else {
            errors++;
            ck_assert_int_eq(e.status, CS_EDATA);
            ck_assert_str_eq(e.file, path);
        }
        free_bufs(&want, &z, &got, path);
    }
    ck_assert_int_gt(errors, n / 2);
}
END_TEST

/* Bytes after the last stream that are neither a stream nor padding the
 * format allows: "trailing garbage". Zeros: padding for gzip, for xz in
 * multiples of four; garbage for zstd and bzip2. */
START_TEST(codec_garbage)
{
    test_rng r = rng_for(g_seed, 50 + (uint64_t)_i);
    const test_fmt *f = &fmts[_i];
    char msg[64];
    snprintf(msg, sizeof msg, "trailing garbage after %s data", f->name);
    for (int it = 0; it < iters(24); it++) {
        buf want = {0}, z = {0}, got = {0};
        spans sp;
        make_streams(&r, f, 1 + (int)rng_below(&r, 3), 0, &want, &z, &sp);
        int zeros = (int)rng_below(&r, 2);
        size_t nj = 1 + rng_below(&r, 64);
        unsigned char *j = buf_grow(&z, nj);
        for (size_t i = 0; i < nj; i++)
            j[i] = zeros ? 0 : (unsigned char)rng_next(&r);
        if (!zeros) /* a lower-case letter begins no stream of any format */
            j[0] = (unsigned char)('a' + rng_below(&r, 26));
        char *path = write_file("junk", z.p, z.n);
        cs_error e;
        const char *fmt = NULL;
        int rc = read_fmt(&r, path, &got, &e, &fmt);
        if (zeros && f->zero_pad && nj % f->zero_pad == 0) {
            ck_assert_msg(rc == 0, "%s: %s", f->name, e.msg);
            assert_same(&got, &want);
        } else {
            ck_assert_int_eq(rc, -1);
            assert_error(&e, path,
                         zeros && f->zero_pad ? "bytes of padding, not a "
                                                "multiple of 4"
                                              : msg);
            assert_prefix(&got, &want);
        }
        free_bufs(&want, &z, &got, path);
    }
}
END_TEST

/* Through a pipe written in random pieces, some of one byte: reads end
 * anywhere, inside a magic, a header, a stream boundary. */
START_TEST(codec_pipe)
{
    test_rng r = rng_for(g_seed, 60 + (uint64_t)_i);
    const test_fmt *f = &fmts[_i];
    for (int it = 0; it < iters(10); it++) {
        buf want = {0}, z = {0}, got = {0};
        spans sp;
        make_streams(&r, f, 1 + (int)rng_below(&r, 4), 0, &want, &z, &sp);
        int cut = (int)rng_below(&r, 3) == 0;
        if (cut) {
            int m = (int)rng_below(&r, (size_t)sp.n);
            size_t lo = sp.start[m] + (m == 0 ? f->sniff : 1);
            z.n = lo + rng_below(&r, sp.end[m] - lo);
        }
        cs_error e;
        int rc = read_pipe(&r, &z, 0, f->name, &got, &e);
        if (cut) {
            ck_assert_int_eq(rc, -1);
            ck_assert_msg(strstr(e.msg, "unexpected end of") != NULL, "%s",
                          e.msg);
            assert_prefix(&got, &want);
        } else {
            ck_assert_msg(rc == 0, "%s: %s", f->name, e.msg);
            assert_same(&got, &want);
        }
        free(want.p);
        free(z.p);
        free(got.p);
    }
}
END_TEST

/* Formats colstat recognises only to refuse: an error at open naming
 * the format, whatever follows the magic. */
START_TEST(refused_formats)
{
    static const struct {
        unsigned off, len;
        const char *magic, *name;
    } cases[] = {
        {0, 4, "PK\x03\x04", "zip archive"},
        {0, 4, "PK\x05\x06", "zip archive"},
        {0, 4, "PK\x07\x08", "zip archive"},
        {0, 6, "7z\xbc\xaf\x27\x1c", "7z archive"},
        {0, 6, "Rar!\x1a\x07", "RAR archive"},
        {257, 5, "ustar", "tar archive"},
        {0, 4, "\x04\x22\x4d\x18", "lz4 data"},
        {0, 4, "\x02\x21\x4c\x18", "lz4 data"},
        {0, 5, "LZIP\x01", "lzip data"},
        {0, 9, "\x89LZO\x00\r\n\x1a\n", "lzop data"},
        {0, 3, "\x1f\x9d\x90", "compress (.Z) data"},
        {0, 5, "PAR1\x15", "Parquet file"},
        {0, 8, "ARROW1\x00\x00", "Arrow IPC (Feather) file"},
        {0, 4, "Obj\x01", "Avro file"},
        {0, 8, "\x89HDF\r\n\x1a\n", "HDF5 file"},
        {0, 16, "SQLite format 3\x00", "SQLite database"},
        {0, 8, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "OLE2 document"},
        {0, 6, "\x93NUMPY", "NumPy .npy file"},
    };
    test_rng r = rng_for(g_seed, 70);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unsigned char b[700];
        size_t n = cases[c].off + cases[c].len + rng_below(&r, 400);
        for (size_t i = 0; i < n; i++)
            b[i] = (unsigned char)rng_next(&r);
        b[0] = 'x'; /* before an offset magic: no other format's */
        memcpy(b + cases[c].off, cases[c].magic, cases[c].len);
        char *path = write_file("refused", b, n);
        source *s = NULL;
        cs_error e = {0};
        ck_assert_int_eq(source_open(path, &s, &e), CS_EDATA);
        ck_assert_ptr_null(s);
        assert_error(&e, path, cases[c].name);
        assert_error(&e, path, "not read by colstat");
        unlink(path);
        free(path);
    }
}
END_TEST

/* Text that begins like a magic, but not all of it, is plain text: a CSV
 * header "BZh9,PAR1" is not bzip2 or Parquet. */
START_TEST(magic_near_misses)
{
    static const char *texts[] = {
        "BZh9,PAR1,LZIP\n1,2,3\n", "PAR1,x\n1,2\n", "BZh,a\n1\n",
        "ARROW1,b\n4,5\n",         "PK,QK\n1,2\n",  "Obj,1\n2,3\n",
    };
    test_rng r = rng_for(g_seed, 71);
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        buf want = {0}, got = {0};
        buf_add(&want, texts[t], strlen(texts[t]));
        char *path = write_file("near", want.p, want.n);
        cs_error e;
        const char *fmt = "unset";
        ck_assert_int_eq(read_fmt(&r, path, &got, &e, &fmt), 0);
        ck_assert_ptr_null(fmt);
        assert_same(&got, &want);
        unlink(path);
        free(path);
        free(want.p);
        free(got.p);
    }
}
END_TEST

/* One layer is decoded: compressed data or an archive inside it is an
 * error at the first read, naming both. */
START_TEST(nested_formats)
{
    test_rng r = rng_for(g_seed, 72);
    for (size_t outer = 0; outer < NFMTS; outer++) {
        buf data = {0}, inner = {0}, z = {0};
        rand_data(&r, &data, 1000 + rng_below(&r, 5000));
        size_t in_fmt = rng_below(&r, NFMTS + 1);
        char want[96];
        if (in_fmt < NFMTS) {
            fmts[in_fmt].stream(&r, data.p, data.n, 0, &inner);
            snprintf(want, sizeof want, "%s data inside %s data",
                     fmts[in_fmt].name, fmts[outer].name);
        } else { /* a tar header block */
            unsigned char *h = buf_grow(&inner, 512);
            memset(h, 0, 512);
            memcpy(h, "data.csv", 8);
            memcpy(h + 257, "ustar", 6);
            buf_add(&inner, data.p, data.n);
            snprintf(want, sizeof want, "tar archive inside %s data",
                     fmts[outer].name);
        }
        fmts[outer].stream(&r, inner.p, inner.n, 0, &z);
        char *path = write_file("nested", z.p, z.n);
        source *s = NULL;
        cs_error e = {0};
        ck_assert_int_eq(source_open_cfg(path, &g_cfg, &s, &e), CS_OK);
        unsigned char tmp[64];
        ck_assert_int_eq(source_read(s, tmp, sizeof tmp, &e), -1);
        assert_error(&e, path, want);
        source_close(s);
        unlink(path);
        free(path);
        free(data.p);
        free(inner.p);
        free(z.p);
    }
}
END_TEST

/* A regular file cut or appended to while it is read: an error at the
 * end of reading (or as soon as it has grown past its size), never a
 * short or long result reported whole. Plain files, and compressed ones
 * (a cut there may also read as truncated data). */
START_TEST(file_changes_size)
{
    test_rng r = rng_for(g_seed, 73);
    for (int it = 0; it < iters(24); it++) {
        buf want = {0}, file = {0};
        rand_data(&r, &want, 300000 + rng_below(&r, 3u << 20));
        want.p[0] = 'x';
        int zf = (int)rng_below(&r, NFMTS + 1); /* NFMTS: plain */
        if (zf < (int)NFMTS)
            fmts[zf].stream(&r, want.p, want.n, 1, &file);
        else
            buf_add(&file, want.p, want.n);
        char *path = write_file("change", file.p, file.n);
        source *s = NULL;
        cs_error e = {0};
        ck_assert_int_eq(source_open_cfg(path, &g_cfg, &s, &e), CS_OK);
        size_t first = rng_below(&r, want.n / 2);
        unsigned char *tmp = malloc(want.n + 1);
        ck_assert_ptr_nonnull(tmp);
        size_t got = 0;
        while (got < first) {
            ssize_t k = source_read(s, tmp, first - got, &e);
            ck_assert_int_gt(k, 0);
            got += (size_t)k;
        }
        int grow = (int)rng_below(&r, 2);
        if (grow) {
            FILE *a = fopen(path, "ab");
            ck_assert_ptr_nonnull(a);
            fputs("1,2,3\n", a);
            ck_assert_int_eq(fclose(a), 0);
        } else {
            ck_assert_int_eq(truncate(path, (off_t)rng_below(&r, file.n)), 0);
        }
        ssize_t k;
        while ((k = source_read(s, tmp, 1 + rng_below(&r, 100000), &e)) > 0)
            ;
        ck_assert_int_eq(k, -1);
        ck_assert_str_eq(e.file, path);
        if (zf == (int)NFMTS)
            ck_assert_msg(strstr(e.msg, grow ? "file grew while being read"
                                             : "file shrank while being "
                                               "read"),
                          "%s", e.msg);
        source_close(s);
        free(tmp);
        unlink(path);
        free(path);
        free(want.p);
        free(file.p);
    }
}
END_TEST

/* Pseudo-files (/proc) are regular files of size 0 with content: read
 * whole, not "grown". */
START_TEST(proc_file)
{
    test_rng r = rng_for(g_seed, 75);
    const char *path = "/proc/self/status";
    if (access(path, R_OK) != 0)
        return;
    source *s = NULL;
    cs_error e = {0};
    ck_assert_int_eq(source_open_cfg(path, &g_cfg, &s, &e), CS_OK);
    ck_assert_uint_eq(source_file_size(s), 0);
    buf got = {0};
    ck_assert_msg(read_all(&r, s, &got, &e) == 0, "%s", e.msg);
    ck_assert_uint_gt(got.n, 0);
    source_close(s);
    free(got.p);
}
END_TEST

/* Standard input may be a regular file already read in part (a shell's
 * `{ head -1; colstat; } < file`): the rest is the data, not a file that
 * shrank. */
START_TEST(stdin_at_offset)
{
    test_rng r = rng_for(g_seed, 74);
    buf all = {0}, want = {0}, got = {0};
    rand_data(&r, &all, 10000 + rng_below(&r, 2u << 20));
    all.p[0] = 'x';
    size_t off = rng_below(&r, all.n);
    all.p[off] = 'x'; /* plain, wherever the offset lands */
    buf_add(&want, all.p + off, all.n - off);
    char *path = write_file("offset", all.p, all.n);
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(lseek(fd, (off_t)off, SEEK_SET), (off_t)off);
    struct stdin_expect x = {all.n, 0, NULL};
    cs_error e;
    int rc = with_stdin(fd, read_stdin, &r, &got, &e, &x);
    ck_assert_msg(rc == 0, "%s", e.msg);
    assert_same(&got, &want);
    unlink(path);
    free(path);
    free(all.p);
    free(want.p);
    free(got.p);
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

static void parallel_cfg(void)
{
    test_rng r = rng_for(g_seed, 99);
    g_cfg.threads = 2 + (unsigned)rng_below(&r, 3);
    g_cfg.gzip_piece = (size_t)1024 << rng_below(&r, 5);
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
    tcase_add_test(tc, refused_formats);
    tcase_add_test(tc, magic_near_misses);
    tcase_add_test(tc, nested_formats);
    tcase_add_test(tc, file_changes_size);
    tcase_add_test(tc, stdin_at_offset);
    tcase_add_test(tc, proc_file);
    tcase_add_loop_test(tc, codec_streams, 0, NFMTS);
    tcase_add_loop_test(tc, codec_truncated, 0, NFMTS);
    tcase_add_loop_test(tc, codec_corrupt, 0, NFMTS);
    tcase_add_loop_test(tc, codec_garbage, 0, NFMTS);
    tcase_add_loop_test(tc, codec_pipe, 0, NFMTS);
    suite_add_tcase(s, tc);
    TCase *par = tcase_create("parallel");
    tcase_set_timeout(par, 120);
    tcase_add_checked_fixture(par, parallel_cfg, NULL);
    tcase_add_test(par, gzip_levels);
    tcase_add_test(par, gzip_multi_member);
    tcase_add_test(par, gzip_truncated);
    tcase_add_test(par, gzip_bad_trailer);
    tcase_add_test(par, gzip_corrupt_body);
    tcase_add_test(par, gzip_trailing_garbage);
    tcase_add_test(par, gzip_zero_padding);
    tcase_add_test(par, gzip_raw_pos_progress);
    tcase_add_test(par, stdin_file);
    tcase_add_test(par, stdin_pipe);
    tcase_add_loop_test(par, codec_streams, 0, 1);
    tcase_add_loop_test(par, codec_truncated, 0, 1);
    tcase_add_loop_test(par, codec_corrupt, 0, 1);
    tcase_add_loop_test(par, codec_garbage, 0, 1);
    tcase_add_loop_test(par, codec_pipe, 0, 1);
    suite_add_tcase(s, par);
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
