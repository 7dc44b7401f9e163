/* io/gzip/deflate_dec and io/gzip/find_blocks against zlib, on thousands of
 * random raw deflate streams (every level and strategy, random memLevel, sync,
 * full and block flushes, data from incompressible to long runs):
 *  - from every kind of true block boundary (found with zlib's Z_BLOCK),
 *    with the window unknown (16-bit markers, then replaced by the true
 *    window) or given: the output is zlib's from there;
 *  - decoding stops at exactly the first junction at or past a random
 *    position, with zlib's output count there;
 *  - the block finder from random offsets: a candidate that is a true
 *    junction decodes to zlib's output; a false one (counted: it must be
 *    rare) is never the junction the decoding before it stops at, so it
 *    is always caught; decoding from it or from random bit positions ends
 *    (an error, the end, or a full buffer) without harm;
 *  - truncated streams end in DDEC_TRUNCATED or DDEC_ERROR;
 *  - dynamic headers with damaged code lengths: accepted or refused
 *    exactly as zlib does, with zlib's output when accepted. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io/gzip/deflate_dec.h"
#include "io/gzip/find_blocks.h"

#include "tests/testlib.h"

static uint64_t g_seed;

static int iters(int n)
{
    return test_quick() ? n / 5 + 1 : n;
}

/* ------------------------------------------------------------ streams */

typedef struct stream {
    uint8_t *comp; /* raw deflate, DDEC_PAD zero bytes after */
    size_t clen;
    uint8_t *plain;
    size_t plen;
    /* Every block start (bit), its output offset and its type; the last
     * entry is the end of the final block. */
    uint64_t *bpos;
    size_t *bout;
    int *btype;
    size_t nb;
} stream;

static void fill_data(test_rng *r, uint8_t *p, size_t n)
{
    int kind = (int)rng_below(r, 4);
    for (size_t i = 0; i < n;) {
        size_t run = 1 + rng_below(r, 300);
        if (run > n - i)
            run = n - i;
        switch (kind) {
        case 0: /* incompressible */
            for (size_t k = 0; k < run; k++)
                p[i + k] = (uint8_t)rng_next(r);
            break;
        case 1: /* text-like: digits and separators */
            for (size_t k = 0; k < run; k++)
                p[i + k] = (uint8_t)("0123456789,.\n"[rng_below(r, 13)]);
            break;
        case 2: /* runs and far repeats */
            if (i >= 1000 && rng_below(r, 2)) {
                size_t d = 1 + rng_below(r, i < 32768 ? i : 32768);
                for (size_t k = 0; k < run; k++)
                    p[i + k] = p[i + k - d];
            } else {
                memset(p + i, (int)rng_below(r, 3), run);
            }
            break;
        default: /* a mix */
            for (size_t k = 0; k < run; k++)
                p[i + k] = (uint8_t)(rng_below(r, 8) ? 'a' + rng_below(r, 6)
                                                     : rng_next(r));
            break;
        }
        i += run;
    }
}

static void add_boundary(stream *s, uint64_t pos, size_t out)
{
    s->bpos = realloc(s->bpos, (s->nb + 1) * sizeof *s->bpos);
    s->bout = realloc(s->bout, (s->nb + 1) * sizeof *s->bout);
    s->btype = realloc(s->btype, (s->nb + 1) * sizeof *s->btype);
    ck_assert(s->bpos && s->bout && s->btype);
    s->bpos[s->nb] = pos;
    s->bout[s->nb] = out;
    s->btype[s->nb] =
        pos / 8 + 1 < s->clen + 1
            ? (int)((s->comp[pos / 8] | s->comp[pos / 8 + 1] << 8) >>
                    (pos % 8 + 1)) &
                  3
            : -1;
    s->nb++;
}

/* zlib's block boundaries: inflate with Z_BLOCK returns at each. */
static void find_boundaries(stream *s)
{
    z_stream z = {0};
    ck_assert_int_eq(inflateInit2(&z, -15), Z_OK);
    uint8_t *out = malloc(s->plen + 1);
    z.next_in = s->comp;
    z.avail_in = (uInt)s->clen;
    z.next_out = out;
    z.avail_out = (uInt)s->plen + 1;
    add_boundary(s, 0, 0);
    for (;;) {
        int r = inflate(&z, Z_BLOCK);
        ck_assert_msg(r == Z_OK, "zlib: %d", r);
        uint64_t pos = (uint64_t)z.total_in * 8 - (z.data_type & 7);
        /* 128: at a block's end; 64: it was the final block. */
        if (z.data_type & 128) {
            add_boundary(s, pos, z.total_out);
            if (z.data_type & 64)
                break;
        }
    }
    ck_assert_uint_eq(z.total_out, s->plen);
    ck_assert(memcmp(out, s->plain, s->plen) == 0);
    inflateEnd(&z);
    free(out);
}

static void make_stream(test_rng *r, stream *s, size_t max)
{
    memset(s, 0, sizeof *s);
    s->plen = rng_below(r, max + 1);
    s->plain = malloc(s->plen + 1);
    fill_data(r, s->plain, s->plen);
    static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED,
                                     Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED};
    z_stream z = {0};
    ck_assert_int_eq(deflateInit2(&z, (int)rng_below(r, 10), Z_DEFLATED, -15,
                                  1 + (int)rng_below(r, 9),
                                  strategies[rng_below(r, 5)]),
                     Z_OK);
    size_t cap = deflateBound(&z, s->plen) + 64 * 40 + DDEC_PAD;
    s->comp = calloc(cap, 1);
    z.next_out = s->comp;
    z.avail_out = (uInt)cap;
    size_t at = 0;
    int flushes = (int)rng_below(r, 4);
    for (int f = 0; f < flushes; f++) {
        size_t to = at + rng_below(r, s->plen - at + 1);
        z.next_in = s->plain + at;
        z.avail_in = (uInt)(to - at);
        static const int kinds[] = {Z_SYNC_FLUSH, Z_FULL_FLUSH, Z_BLOCK,
                                    Z_PARTIAL_FLUSH};
        ck_assert_int_ne(deflate(&z, kinds[rng_below(r, 4)]), Z_STREAM_ERROR);
        at = to;
    }
    z.next_in = s->plain + at;
    z.avail_in = (uInt)(s->plen - at);
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    s->clen = z.total_out;
    deflateEnd(&z);
    memset(s->comp + s->clen, 0, DDEC_PAD);
    find_boundaries(s);
}

static void free_stream(stream *s)
{
    free(s->comp);
    free(s->plain);
    free(s->bpos);
    free(s->bout);
    free(s->btype);
}

/* The junction at block boundary k, if the decoder stops at one there:
 * a dynamic header, or a stored block's payload. */
static int junction_at(const stream *s, size_t k, gz_point *pt)
{
    if (k + 1 >= s->nb)
        return 0;
    uint64_t p = s->bpos[k];
    if (s->btype[k] == 2) {
        *pt = (gz_point){.kind = GZP_BLOCK, .pos = p};
        return 1;
    }
    if (s->btype[k] != 0)
        return 0;
    uint64_t at = (p + 3 + 7) / 8;
    unsigned len = s->comp[at] | s->comp[at + 1] << 8;
    *pt = (gz_point){.kind = GZP_STORED,
                     .pos = (at + 4) * 8,
                     .len = len,
                     .bfinal = (uint8_t)(s->comp[p / 8] >> (p % 8) & 1)};
    return 1;
}

/* Output offset of a junction: its block's (stored: the same, the payload
 * is still ahead). */
static size_t junction_out(const stream *s, size_t k)
{
    return s->bout[k];
}

/* --------------------------------------------------------- decoding */

typedef struct result {
    int status;
    uint8_t *bytes; /* resolved output */
    size_t n;
    gz_point at;
    uint64_t pos;
} result;

/* Decodes from pt: with the window unknown (wide) or given (the plain
 * bytes before `from`), to the end, an error, or the stop. Markers are
 * replaced from the true window (plain before `from`). */
static result decode(const stream *s, const gz_point *pt, size_t from, int wide,
                     uint64_t stop)
{
    ddec *d = ddec_new();
    size_t cap = 32768 + s->plen + DDEC_OUT_SLACK + 1024;
    void *buf = malloc(cap * (wide ? 2 : 1));
    size_t hist;
    if (wide) {
        uint16_t *v = buf;
        for (unsigned k = 0; k < 32768; k++)
            v[k] = (uint16_t)(256 + k);
        hist = 32768;
    } else {
        hist = from < 32768 ? from : 32768;
        memcpy(buf, s->plain + from - hist, hist);
    }
    ddec_start(d, pt);
    ddec_set_stop(d, stop);
    ddec_set_input(d, s->comp, s->clen, 0, 1);
    ddec_set_output(d, buf, hist, cap, 0, wide);
    result r = {.status = ddec_run(d)};
    r.n = ddec_out_pos(d) - hist;
    r.pos = ddec_pos(d);
    if (r.status == DDEC_BOUNDARY)
        ddec_point(d, &r.at);
    r.bytes = malloc(r.n + 1);
    for (size_t i = 0; i < r.n; i++) {
        unsigned v =
            wide ? ((uint16_t *)buf)[hist + i] : ((uint8_t *)buf)[hist + i];
        /* Marker 256 + k: byte k of the 32 KiB before `from`. */
        if (v >= 256 && v - 256 < 32768 - (from < 32768 ? from : 32768)) {
            r.status = -100; /* refers to a byte before the stream */
            r.bytes[i] = 0;
            continue;
        }
        r.bytes[i] = v < 256 ? (uint8_t)v : s->plain[from - 32768 + (v - 256)];
    }
    free(buf);
    ddec_free(d);
    return r;
}

START_TEST(from_every_boundary)
{
    test_rng r = rng_for(g_seed, 1);
    int tried[3] = {0};
    for (int it = 0; it < iters(600); it++) {
        stream s;
        make_stream(&r, &s, rng_below(&r, 4) ? 60000 : 400000);
        /* Up to 12 boundaries a stream, each decoded to its end. */
        size_t step = s.nb > 12 ? s.nb / 12 : 1;
        for (size_t k = rng_below(&r, step); k + 1 < s.nb; k += step) {
            gz_point pt;
            size_t from = junction_out(&s, k);
            if (!junction_at(&s, k, &pt)) {
                /* A fixed block: decoding may still start at its header. */
                pt = (gz_point){.kind = GZP_BLOCK, .pos = s.bpos[k]};
            }
            int wide = from > 0 && rng_below(&r, 4) != 0;
            tried[pt.kind == GZP_STORED ? 0 : s.btype[k] == 2 ? 1 : 2]++;
            result got = decode(&s, &pt, from, wide, UINT64_MAX);
            EXPECT(got.status == DDEC_END,
                   "seed %llu it %d: block %zu status %d",
                   (unsigned long long)g_seed, it, k, got.status);
            EXPECT(got.n == s.plen - from &&
                       memcmp(got.bytes, s.plain + from, got.n) == 0,
                   "seed %llu it %d: block %zu (%s) output differs",
                   (unsigned long long)g_seed, it, k, wide ? "wide" : "bytes");
            EXPECT(got.pos == s.bpos[s.nb - 1],
                   "seed %llu it %d: ends at bit %llu, zlib %llu",
                   (unsigned long long)g_seed, it, (unsigned long long)got.pos,
                   (unsigned long long)s.bpos[s.nb - 1]);
            free(got.bytes);
        }
        free_stream(&s);
    }
    /* The streams must have reached every kind of start. */
    ck_assert(tried[0] > 0 && tried[1] > 0 && tried[2] > 0);
}
END_TEST

START_TEST(stops_at_first_junction)
{
    test_rng r = rng_for(g_seed, 2);
    for (int it = 0; it < iters(1500); it++) {
        stream s;
        make_stream(&r, &s, 100000);
        uint64_t stop = rng_below(&r, s.clen * 8 + 2);
        gz_point want = {0};
        size_t want_out = 0, k;
        for (k = 0; k + 1 < s.nb; k++) {
            gz_point pt;
            if (junction_at(&s, k, &pt) && pt.pos >= stop) {
                want = pt;
                want_out = junction_out(&s, k);
                break;
            }
        }
        gz_point start = {.kind = GZP_BLOCK, .pos = 0};
        result got = decode(&s, &start, 0, 0, stop);
        if (want.kind) {
            EXPECT(got.status == DDEC_BOUNDARY &&
                       gz_point_equal(&got.at, &want) && got.n == want_out,
                   "seed %llu it %d: stop %llu: status %d at %d:%llu, want "
                   "%d:%llu",
                   (unsigned long long)g_seed, it, (unsigned long long)stop,
                   got.status, got.at.kind, (unsigned long long)got.at.pos,
                   want.kind, (unsigned long long)want.pos);
        } else {
            EXPECT(got.status == DDEC_END && got.n == s.plen,
                   "seed %llu it %d: stop %llu: status %d, want the end",
                   (unsigned long long)g_seed, it, (unsigned long long)stop,
                   got.status);
        }
        EXPECT(memcmp(got.bytes, s.plain, got.n) == 0,
               "seed %llu it %d: output differs", (unsigned long long)g_seed,
               it);
        free(got.bytes);
        free_stream(&s);
    }
}
END_TEST

/* The index of the boundary whose junction is at pt, or -1. */
static long true_junction(const stream *s, const gz_point *pt)
{
    for (size_t k = 0; k + 1 < s->nb; k++) {
        gz_point j;
        if (junction_at(s, k, &j) && j.kind == pt->kind && j.pos == pt->pos)
            return (long)k;
    }
    return -1;
}

START_TEST(finder_from_random_offsets)
{
    test_rng r = rng_for(g_seed, 3);
    bfind *f = bfind_new();
    long found = 0, false_starts = 0;
    for (int it = 0; it < iters(2000); it++) {
        stream s;
        make_stream(&r, &s, 200000);
        for (int t = 0; t < 4; t++) {
            uint64_t from = rng_below(&r, s.clen * 8 + 1), searched;
            gz_point pt;
            if (!bfind_next(f, s.comp, s.clen, 0, 1, 0, from, UINT64_MAX, &pt,
                            &searched))
                continue;
            EXPECT(pt.pos >= from, "candidate before the search start");
            found++;
            long k = true_junction(&s, &pt);
            if (k < 0) {
                /* A false start: decoding from it must end cleanly, and
                 * it can never equal where a decoder stops. */
                false_starts++;
                result got = decode(&s, &pt, 0, 1, UINT64_MAX);
                free(got.bytes);
                continue;
            }
            if (pt.kind == GZP_STORED)
                pt.bfinal = 0; /* the finder's guess */
            size_t from_out = junction_out(&s, (size_t)k);
            gz_point exact;
            junction_at(&s, (size_t)k, &exact);
            if (!gz_point_equal(&pt, &exact))
                continue; /* a final stored block: caught at the junction */
            result got = decode(&s, &pt, from_out, 1, UINT64_MAX);
            EXPECT(got.status == DDEC_END && got.n == s.plen - from_out &&
                       memcmp(got.bytes, s.plain + from_out, got.n) == 0,
                   "seed %llu it %d: from candidate %llu: status %d",
                   (unsigned long long)g_seed, it, (unsigned long long)pt.pos,
                   got.status);
            free(got.bytes);
        }
        free_stream(&s);
    }
    bfind_free(f);
    fprintf(stderr, "finder: %ld candidates, %ld false\n", found, false_starts);
    /* False starts cost a piece decoded twice: they must be rare. */
    ck_assert_int_gt(found, 100);
    ck_assert_int_le(false_starts * 100, found);
}
END_TEST

START_TEST(random_positions_and_truncation)
{
    test_rng r = rng_for(g_seed, 4);
    for (int it = 0; it < iters(1500); it++) {
        stream s;
        make_stream(&r, &s, 50000);
        /* Any bit position as a block start: no harm, an end. */
        gz_point pt = {.kind = GZP_BLOCK, .pos = rng_below(&r, s.clen * 8)};
        result got = decode(&s, &pt, 0, 1, UINT64_MAX);
        EXPECT(got.status == DDEC_END || got.status == DDEC_ERROR ||
                   got.status == DDEC_TRUNCATED || got.status == -100,
               "random start: status %d", got.status);
        free(got.bytes);
        /* A truncated stream never ends normally. */
        size_t cut = rng_below(&r, s.clen);
        size_t keep = s.clen;
        uint8_t saved[DDEC_PAD];
        memcpy(saved, s.comp + cut, DDEC_PAD);
        memset(s.comp + cut, 0, DDEC_PAD);
        s.clen = cut;
        pt = (gz_point){.kind = GZP_BLOCK, .pos = 0};
        got = decode(&s, &pt, 0, 0, UINT64_MAX);
        /* Unless only the final byte's padding was cut. */
        if (cut * 8 < s.bpos[s.nb - 1])
            EXPECT(got.status == DDEC_TRUNCATED || got.status == DDEC_ERROR,
                   "seed %llu it %d: cut at %zu of %zu: status %d",
                   (unsigned long long)g_seed, it, cut, keep, got.status);
        memcpy(s.comp + cut, saved, DDEC_PAD);
        s.clen = keep;
        free(got.bytes);
        free_stream(&s);
    }
}
END_TEST

/* ------------------------------------------------ code acceptance */

typedef struct bits {
    uint8_t *p;
    size_t n; /* bits written */
} bits;

static void put(bits *b, unsigned v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, b->n++)
        if (v >> i & 1)
            b->p[b->n / 8] |= (uint8_t)(1u << b->n % 8);
}

/* Canonical codes of the lengths (RFC 1951 3.2.2), bit-reversed for
 * writing least significant bit first. 0 when the lengths cannot be
 * coded (over-subscribed): symbols then get no code. */
static void codes(const uint8_t *lens, unsigned n, unsigned *code)
{
    unsigned count[16] = {0}, next[16];
    for (unsigned i = 0; i < n; i++)
        count[lens[i]]++;
    count[0] = 0;
    unsigned c = 0;
    for (unsigned l = 1; l < 16; l++) {
        c = (c + count[l - 1]) << 1;
        next[l] = c;
    }
    for (unsigned i = 0; i < n; i++) {
        code[i] = 0;
        if (!lens[i])
            continue;
        unsigned v = next[lens[i]]++, rev = 0;
        for (unsigned k = 0; k < lens[i]; k++, v >>= 1)
            rev = rev << 1 | (v & 1);
        code[i] = rev;
    }
}

/* Random code lengths that are a code (a random Huffman tree's depths),
 * then maybe damaged by one length moved up or down. */
static void random_lengths(test_rng *r, uint8_t *lens, unsigned n, int damage)
{
    memset(lens, 0, n);
    unsigned used = 1 + (unsigned)rng_below(r, n);
    /* Start from one code of length 0 and split leaves at random. */
    unsigned sym[320], nsym = 1;
    sym[0] = (unsigned)rng_below(r, n);
    lens[sym[0]] = 0;
    while (nsym < used) {
        unsigned i = (unsigned)rng_below(r, nsym), s = sym[i];
        if (lens[s] >= 15)
            break;
        unsigned t;
        do
            t = (unsigned)rng_below(r, n);
        while (lens[t] || t == s);
        lens[s]++;
        lens[t] = lens[s];
        sym[nsym++] = t;
    }
    if (nsym == 1)
        lens[sym[0]] = 1;
    if (damage) {
        unsigned s = sym[rng_below(r, nsym)];
        lens[s] = (uint8_t)(lens[s] > 1 && rng_below(r, 2) ? lens[s] - 1
                                                           : lens[s] + 1);
        if (lens[s] > 15)
            lens[s] = 15;
    }
}

/* One dynamic block (final) with the given literal/length and distance
 * lengths (sent with a plain code-length code of fixed 5-bit lengths),
 * then symbols drawn from those that have codes. */
static size_t dynamic_block(test_rng *r, uint8_t *out, const uint8_t *ll,
                            unsigned nlen, const uint8_t *dl, unsigned ndist)
{
    bits b = {out, 0};
    put(&b, 1, 1);
    put(&b, 2, 2);
    put(&b, nlen - 257, 5);
    put(&b, ndist - 1, 5);
    put(&b, 15, 4); /* 19 code-length lengths */
    static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                      11, 4,  12, 3, 13, 2, 14, 1, 15};
    /* Lengths 0..15 get 4-bit codes... a complete code over 19 symbols
     * needs: 16 symbols of length 4 is complete, so 16..18 unused. */
    uint8_t cl[19] = {0};
    for (unsigned i = 0; i < 16; i++)
        cl[i] = 4;
    for (unsigned i = 0; i < 19; i++)
        put(&b, cl[order[i]], 3);
    unsigned clc[19];
    codes(cl, 19, clc);
    for (unsigned i = 0; i < nlen + ndist; i++) {
        unsigned l = i < nlen ? ll[i] : dl[i - nlen];
        put(&b, clc[l], 4);
    }
    unsigned lc[288], dc[32];
    codes(ll, nlen, lc);
    codes(dl, ndist, dc);
    int nsyms = (int)rng_below(r, 200);
    for (int k = 0; k < nsyms; k++) {
        unsigned s = (unsigned)rng_below(r, 256);
        if (ll[s])
            put(&b, lc[s], ll[s]);
    }
    if (ll[256])
        put(&b, lc[256], ll[256]);
    return (b.n + 7) / 8;
}

START_TEST(code_acceptance_as_zlib)
{
    test_rng r = rng_for(g_seed, 5);
    int agreed_ok = 0, agreed_bad = 0;
    for (int it = 0; it < iters(5000); it++) {
        uint8_t ll[288], dl[32];
        unsigned nlen = 257 + (unsigned)rng_below(&r, 30);
        unsigned ndist = 1 + (unsigned)rng_below(&r, 30);
        random_lengths(&r, ll, nlen, rng_below(&r, 3) == 0);
        random_lengths(&r, dl, ndist, rng_below(&r, 3) == 0);
        if (rng_below(&r, 4) == 0)
            memset(dl, 0, ndist); /* no distance codes at all */
        if (rng_below(&r, 3))
            ll[256] = ll[256] ? ll[256] : 15; /* usually an end of block */
        uint8_t comp[4096 + DDEC_PAD] = {0};
        size_t clen = dynamic_block(&r, comp, ll, nlen, dl, ndist);
        uint8_t zout[8192] = {0}, out[8192 + DDEC_OUT_SLACK] = {0};
        z_stream z = {0};
        inflateInit2(&z, -15);
        z.next_in = comp;
        z.avail_in = (uInt)clen;
        z.next_out = zout;
        z.avail_out = sizeof zout;
        int zr = inflate(&z, Z_FINISH);
        inflateEnd(&z);
        ddec *d = ddec_new();
        gz_point pt = {.kind = GZP_BLOCK, .pos = 0};
        ddec_start(d, &pt);
        ddec_set_input(d, comp, clen, 0, 1);
        ddec_set_output(d, out, 0, sizeof out, 0, 0);
        int dr = ddec_run(d);
        size_t n = ddec_out_pos(d);
        ddec_free(d);
        if (zr == Z_STREAM_END) {
            EXPECT(dr == DDEC_END && n == z.total_out &&
                       memcmp(out, zout, n) == 0,
                   "seed %llu it %d: zlib accepts, ddec %d",
                   (unsigned long long)g_seed, it, dr);
            agreed_ok++;
        } else {
            EXPECT(dr != DDEC_END,
                   "seed %llu it %d: zlib refuses (%d: %s), "
                   "ddec accepts",
                   (unsigned long long)g_seed, it, zr, z.msg ? z.msg : "");
            agreed_bad++;
        }
    }
    ck_assert(agreed_ok > 0 && agreed_bad > 0);
}
END_TEST

int main(void)
{
    g_seed = test_seed("test_deflate_dec");
    Suite *s = suite_create("deflate_dec");
    TCase *tc = tcase_create("vs zlib");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, from_every_boundary);
    tcase_add_test(tc, stops_at_first_junction);
    tcase_add_test(tc, finder_from_random_offsets);
    tcase_add_test(tc, random_positions_and_truncation);
    tcase_add_test(tc, code_acceptance_as_zlib);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
