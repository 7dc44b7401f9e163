/* colstat_gen: deterministic benchmark data. Writes DIR/bench.csv (8
 * numeric columns like a real export), DIR/bench.csv.gz (one gzip member,
 * deflated in parallel), DIR/bench.multi.csv.gz (one member per block, as
 * pigz -i/bgzip-style tools write) and DIR/bench.f64 (raw little-endian
 * doubles). Rows are made in blocks of BLOCK_ROWS; every block and column
 * has its own PRNG stream seeded from (seed, block, column), so the output
 * depends only on the seed and the size, never on the thread count. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define BLOCK_ROWS 16384u /* about 1.2 MB of text: one gzip member each */
#define MAX_LINE 160u     /* longest row the formats below can produce */
#define NCOLS 8
#define VALUE_COL 4 /* the "value" column, mirrored by bench.f64 */

static const char HEADER[] = "id,price,delta,reading,value,sci,count,sparse\n";

/* ---- PRNG: splitmix64 seeds xoshiro256** (Blackman & Vigna, "Scrambled
 * linear pseudorandom number generators", ACM TOMS 2021). ---- */

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

static void rng_seed(rng *r, uint64_t seed, uint64_t block, int col)
{
    uint64_t x = seed ^ (block * 0xD1B54A32D192ED03ull) ^
                 ((uint64_t)col * 0xABC98388FB8FAC03ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

/* ---- Text formatting without printf ---- */

static const char DIGITS2[] = "00010203040506070809101112131415161718192021222"
                              "32425262728293031323334353637383940414243444546"
                              "47484950515253545556575859606162636465666768697"
                              "07172737475767778798081828384858687888990919293"
                              "949596979899";

/* Writes exactly ndig digits of v (zero-padded). */
static char *put_digits(char *p, uint64_t v, int ndig)
{
    char *end = p + ndig;
    char *q = end;
    while (q - p >= 2) {
        q -= 2;
        memcpy(q, DIGITS2 + 2 * (v % 100), 2);
        v /= 100;
    }
    if (q > p)
        *--q = (char)('0' + v % 10);
    return end;
}

static int ndigits(uint64_t v)
{
    int n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

static char *put_u64(char *p, uint64_t v)
{
    return put_digits(p, v, ndigits(v));
}

static char *put_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

static const uint64_t POW10[] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull,
                                 10000000000000000ull,
                                 100000000000000000ull};

/* v / 10^dec with exactly dec decimals ("%.*f" of a scaled integer). */
static char *put_fixed(char *p, int64_t v, int dec)
{
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v < 0)
        *p++ = '-';
    p = put_u64(p, a / POW10[dec]);
    *p++ = '.';
    return put_digits(p, a % POW10[dec], dec);
}

/* GCC/Clang extension: exact products up to 2^128. */
__extension__ typedef unsigned __int128 u128;

/* floor(m * 5^p / 2^shift) and whether the dropped part is >, = or < half:
 * exact, since m * 5^p < 2^53 * 5^20 < 2^128. */
static uint64_t scaled_digits(uint64_t m, int p, int shift, int *cmp_half)
{
    u128 x = m;
    for (int i = 0; i < p; i++)
        x *= 5;
    u128 q = x >> shift;
    u128 rem = x - (q << shift);
    u128 half = (u128)1 << (shift - 1);
    *cmp_half = rem > half ? 1 : rem == half ? 0 : -1;
    return (uint64_t)q;
}

/* The 17 significant digits of d, correctly rounded (half to even, as
 * glibc's printf), and the decimal exponent: d ~ n * 10^-p. Valid for
 * d in [2^-10, 2^10): then 10^p * d needs at most 5^20 * 2^53. */
static uint64_t digits17(double d, int *pexp)
{
    int e2;
    double f = frexp(d, &e2); /* d = f * 2^e2, f in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(f, 53);
    int e = e2 - 53; /* d = m * 2^e */
    int p = 16 - (int)floor(log10(d));
    uint64_t n;
    int cmp;
    for (;;) {
        n = scaled_digits(m, p, -(e + p), &cmp);
        if (n >= POW10[17])
            p--;
        else if (n < POW10[16])
            p++;
        else
            break;
    }
    if (cmp > 0 || (cmp == 0 && (n & 1)))
        n++;
    if (n == POW10[17]) {
        n = POW10[16];
        p--;
    }
    *pexp = p;
    return n;
}

/* "%.17g" of d for d in [2^-10, 2^10), where %g picks fixed notation:
 * 17 significant digits, trailing zeros of the fraction dropped. */
static char *put_g17(char *p, double d)
{
    int dec;
    uint64_t n = digits17(d, &dec);
    int intdig = 17 - dec;
    char buf[24];
    put_digits(buf, n, 17);
    int last = 16;
    while (last >= intdig && last >= 0 && buf[last] == '0')
        last--;
    if (intdig > 0) {
        memcpy(p, buf, (size_t)intdig);
        p += intdig;
    } else {
        *p++ = '0';
    }
    if (last < intdig)
        return p;
    *p++ = '.';
    for (int i = intdig; i < 0; i++)
        *p++ = '0';
    int from = intdig > 0 ? intdig : 0;
    memcpy(p, buf + from, (size_t)(last + 1 - from));
    return p + (last + 1 - from);
}

/* ---- The columns ---- */

/* A double in [2^-10, 2^10) with a full 53-bit significand: what a
 * measurement exported with "%.17g" looks like. */
static double value_of(uint64_t r)
{
    uint64_t m = (1ull << 52) | (r >> 12);
    int k = (int)((r & 0xFFF) % 20) - 10;
    return ldexp((double)m, k - 52);
}

/* "d.dddddde+XX": 7 significant digits, exponent -8..+12. */
static char *put_sci(char *p, uint64_t r)
{
    uint64_t mant = 1000000 + (r >> 8) % 9000000;
    int ex = (int)(r & 0xFF) % 21 - 8;
    *p++ = (char)('0' + mant / 1000000);
    *p++ = '.';
    p = put_digits(p, mant % 1000000, 6);
    *p++ = 'e';
    *p++ = ex < 0 ? '-' : '+';
    return put_digits(p, (uint64_t)(ex < 0 ? -ex : ex), 2);
}

typedef struct rowgen {
    rng col[NCOLS];
} rowgen;

static char *put_row(char *p, rowgen *g, uint64_t row)
{
    p = put_u64(p, 10000000 + 3 * row + rng_next(&g->col[0]) % 3);
    *p++ = ',';
    p = put_fixed(p, (int64_t)(1 + rng_next(&g->col[1]) % 999999), 2);
    *p++ = ',';
    p = put_i64(p, (int64_t)(rng_next(&g->col[2]) % 199999) - 99999);
    *p++ = ',';
    p = put_fixed(p, (int64_t)(rng_next(&g->col[3]) % 1000001) - 400000, 4);
    *p++ = ',';
    p = put_g17(p, value_of(rng_next(&g->col[VALUE_COL])));
    *p++ = ',';
    p = put_sci(p, rng_next(&g->col[5]));
    *p++ = ',';
    uint64_t c = rng_next(&g->col[6]);
    p = put_u64(p, (uint64_t)__builtin_popcountll(c & (c >> 20) & 0xFFFFF));
    *p++ = ',';
    uint64_t s = rng_next(&g->col[7]);
    if (s % 100 != 0)
        p = put_fixed(p, (int64_t)((s >> 8) % 1000000), 3);
    *p++ = '\n';
    return p;
}

/* ---- Blocks and the parallel pipeline ---- */

typedef struct buf {
    unsigned char *p;
    size_t len, cap;
} buf;

typedef struct block {
    uint64_t index;     /* block number */
    uint64_t first_row; /* 0-based data row */
    uint32_t nrows;
    buf text;
    buf seg; /* raw deflate of text, sync-flushed, not final */
    uint32_t crc;
} block;

typedef struct config {
    uint64_t rows;     /* 0: stop at bytes */
    uint64_t bytes;    /* target CSV size when rows == 0 */
    uint64_t f64_rows; /* 0: same as the CSV */
    uint64_t seed;
    int threads;
    int want_csv, want_gz, want_multi, want_f64;
    const char *dir;
    int selftest;
} config;

static int buf_reserve(buf *b, size_t cap)
{
    if (b->cap >= cap)
        return 0;
    unsigned char *p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

static int block_text(block *b, const config *c)
{
    if (buf_reserve(&b->text, (size_t)b->nrows * MAX_LINE + sizeof HEADER))
        return -1;
    rowgen g;
    for (int i = 0; i < NCOLS; i++)
        rng_seed(&g.col[i], c->seed, b->index, i);
    char *p = (char *)b->text.p;
    if (b->index == 0) {
        memcpy(p, HEADER, sizeof HEADER - 1);
        p += sizeof HEADER - 1;
    }
    for (uint32_t i = 0; i < b->nrows; i++)
        p = put_row(p, &g, b->first_row + i);
    b->text.len = (size_t)(p - (char *)b->text.p);
    return 0;
}

static int deflate_all(z_stream *z, buf *out, int flush)
{
    int rc;
    do {
        if (out->len == out->cap &&
            buf_reserve(out, out->cap ? out->cap * 2 : 65536))
            return -1;
        z->next_out = out->p + out->len;
        z->avail_out = (uInt)(out->cap - out->len);
        rc = deflate(z, flush);
        out->len = out->cap - z->avail_out;
    } while (z->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return rc == Z_STREAM_ERROR ? -1 : 0;
}

/* Each block is deflated on its own into a raw stream ended by a sync
 * flush, which leaves it byte-aligned and not final, as pigz -i does
 * (Adler's design): the pieces concatenate into one gzip member, and each
 * one alone, closed by an empty final block, is a member of its own. So
 * both .gz files come from a single deflate of every block. */
static int block_segment(block *b)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    b->seg.len = 0;
    z.next_in = b->text.p;
    z.avail_in = (uInt)b->text.len;
    int rc = buf_reserve(&b->seg, deflateBound(&z, b->text.len) + 64);
    if (!rc)
        rc = deflate_all(&z, &b->seg, Z_SYNC_FLUSH);
    deflateEnd(&z);
    return rc;
}

static int block_compress(block *b, const config *c)
{
    b->crc = (uint32_t)crc32(0, b->text.p, (uInt)b->text.len);
    (void)c;
    return block_segment(b);
}

/* A round of work shared by the threads: each takes the next block. */
typedef struct work_round {
    block *blocks;
    int n;
    int phase; /* 0 text, 1 compress, 2 f64 */
    const config *c;
    atomic_int next;
    atomic_int failed;
} work_round;

static int f64_fill(block *b, const config *c)
{
    if (buf_reserve(&b->text, (size_t)b->nrows * 8))
        return -1;
    rng r;
    rng_seed(&r, c->seed, b->index, VALUE_COL);
    unsigned char *p = b->text.p;
    for (uint32_t i = 0; i < b->nrows; i++) {
        uint64_t bits;
        double d = value_of(rng_next(&r));
        memcpy(&bits, &d, 8);
        for (int k = 0; k < 8; k++)
            *p++ = (unsigned char)(bits >> (8 * k));
    }
    b->text.len = (size_t)b->nrows * 8;
    return 0;
}

static void *worker(void *arg)
{
    work_round *r = arg;
    for (;;) {
        int i = atomic_fetch_add(&r->next, 1);
        if (i >= r->n || atomic_load(&r->failed))
            return NULL;
        block *b = &r->blocks[i];
        int rc = r->phase == 0   ? block_text(b, r->c)
                 : r->phase == 1 ? block_compress(b, r->c)
                                 : f64_fill(b, r->c);
        if (rc)
            atomic_store(&r->failed, 1);
    }
}

static int run_round(block *blocks, int n, int phase, const config *c)
{
    work_round r = {.blocks = blocks, .n = n, .phase = phase, .c = c};
    atomic_init(&r.next, 0);
    atomic_init(&r.failed, 0);
    pthread_t tid[256];
    int nt = c->threads < 256 ? c->threads : 256;
    int started = 0;
    for (; started < nt; started++)
        if (pthread_create(&tid[started], NULL, worker, &r))
            break;
    if (started == 0)
        worker(&r);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    return atomic_load(&r.failed) ? -1 : 0;
}

/* ---- Output files ---- */

typedef struct outputs {
    FILE *csv, *gz, *multi;
    uint32_t crc;
    uint64_t text_bytes, rows;
    uint64_t gz_bytes, multi_bytes;
} outputs;

static int put_le32(FILE *f, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8),
                          (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    return fwrite(b, 1, 4, f) == 4 ? 0 : -1;
}

/* RFC 1952 header: no name, no mtime (reproducible), OS = Unix. */
static const unsigned char GZ_HEADER[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
/* An empty final fixed-Huffman block (RFC 1951 3.2.6) closes the sync-
 * flushed pieces. */
static const unsigned char DEFLATE_END[2] = {0x03, 0x00};

static int put_member(FILE *f, const block *b)
{
    if (fwrite(GZ_HEADER, 1, 10, f) != 10 ||
        fwrite(b->seg.p, 1, b->seg.len, f) != b->seg.len ||
        fwrite(DEFLATE_END, 1, 2, f) != 2 || put_le32(f, b->crc))
        return -1;
    return put_le32(f, (uint32_t)b->text.len);
}

static int write_blocks(outputs *o, const block *blocks, int n)
{
    for (int i = 0; i < n; i++) {
        const block *b = &blocks[i];
        if (o->csv && fwrite(b->text.p, 1, b->text.len, o->csv) != b->text.len)
            return -1;
        if (o->gz && fwrite(b->seg.p, 1, b->seg.len, o->gz) != b->seg.len)
            return -1;
        if (o->multi && put_member(o->multi, b))
            return -1;
        o->crc = (uint32_t)crc32_combine(o->crc, b->crc, (z_off_t)b->text.len);
        o->text_bytes += b->text.len;
        o->rows += b->nrows;
        o->gz_bytes += b->seg.len;
        o->multi_bytes += b->seg.len + 20;
    }
    return 0;
}

/* With a byte target, cuts the round where the text reaches it. Returns
 * the number of blocks to keep and sets *done when the data is complete. */
static int cut_round(block *blocks, int n, const config *c, uint64_t written,
                     int *done)
{
    if (c->rows) {
        *done = blocks[n - 1].first_row + blocks[n - 1].nrows >= c->rows;
        return n;
    }
    for (int i = 0; i < n; i++) {
        block *b = &blocks[i];
        if (written + b->text.len < c->bytes) {
            written += b->text.len;
            continue;
        }
        size_t need = (size_t)(c->bytes - written);
        unsigned char *nl =
            memchr(b->text.p + need - 1, '\n', b->text.len - (need - 1));
        size_t len = (size_t)(nl - b->text.p) + 1;
        uint32_t rows = 0;
        for (size_t k = 0; k < len; k++)
            rows += b->text.p[k] == '\n';
        b->nrows = rows - (b->index == 0); /* the header is no row */
        b->text.len = len;
        *done = 1;
        return i + 1;
    }
    *done = 0;
    return n;
}

static void plan_round(block *blocks, int n, uint64_t first_block,
                       uint64_t rows_cap)
{
    for (int i = 0; i < n; i++) {
        block *b = &blocks[i];
        b->index = first_block + (uint64_t)i;
        b->first_row = b->index * BLOCK_ROWS;
        uint64_t left = rows_cap > b->first_row ? rows_cap - b->first_row : 0;
        b->nrows = (uint32_t)(left < BLOCK_ROWS ? left : BLOCK_ROWS);
        b->seg.len = 0;
    }
}

static int rounds_csv(block *blocks, int per, const config *c, outputs *o)
{
    uint64_t rows_cap = c->rows ? c->rows : UINT64_MAX;
    int done = 0;
    for (uint64_t first = 0; !done; first += (uint64_t)per) {
        uint64_t left_blocks =
            (rows_cap - first * BLOCK_ROWS + BLOCK_ROWS - 1) / BLOCK_ROWS;
        int n = c->rows && left_blocks < (uint64_t)per ? (int)left_blocks : per;
        plan_round(blocks, n, first, rows_cap);
        if (run_round(blocks, n, 0, c))
            return -1;
        n = cut_round(blocks, n, c, o->text_bytes, &done);
        if ((c->want_gz || c->want_multi) && run_round(blocks, n, 1, c))
            return -1;
        if (write_blocks(o, blocks, n))
            return -1;
    }
    return 0;
}

static FILE *open_out(const config *c, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.tmp", c->dir, name);
    FILE *f = fopen(path, "wb");
    if (f)
        setvbuf(f, NULL, _IOFBF, 1 << 22);
    return f;
}

static int close_out(FILE *f, const config *c, const char *name, int ok)
{
    char tmp[4096], final[4096];
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", c->dir, name);
    snprintf(final, sizeof final, "%s/%s", c->dir, name);
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        remove(tmp);
        return -1;
    }
    return rename(tmp, final);
}

static int gz_finish(outputs *o)
{
    if (fwrite(DEFLATE_END, 1, 2, o->gz) != 2)
        return -1;
    o->gz_bytes += 2 + 10 + 8;
    if (put_le32(o->gz, o->crc))
        return -1;
    return put_le32(o->gz, (uint32_t)o->text_bytes);
}

static block *blocks_new(int n)
{
    return calloc((size_t)n, sizeof(block));
}

static int write_csv(const config *c, outputs *o)
{
    char path[4096];
    int per = 4 * c->threads;
    block *blocks = blocks_new(per);
    if (!blocks)
        return -1;
    memset(o, 0, sizeof *o);
    o->crc = (uint32_t)crc32(0, NULL, 0);
    int ok = 1;
    if (c->want_csv && !(o->csv = open_out(c, "bench.csv", path, sizeof path)))
        ok = 0;
    if (ok && c->want_gz &&
        !(o->gz = open_out(c, "bench.csv.gz", path, sizeof path)))
        ok = 0;
    if (ok && c->want_multi &&
        !(o->multi = open_out(c, "bench.multi.csv.gz", path, sizeof path)))
        ok = 0;
    if (ok && o->gz && fwrite(GZ_HEADER, 1, 10, o->gz) != 10)
        ok = 0;
    if (ok && rounds_csv(blocks, per, c, o))
        ok = 0;
    if (ok && o->gz && gz_finish(o))
        ok = 0;
    int rc = ok ? 0 : -1;
    if (o->csv && close_out(o->csv, c, "bench.csv", ok))
        rc = -1;
    if (o->gz && close_out(o->gz, c, "bench.csv.gz", ok))
        rc = -1;
    if (o->multi && close_out(o->multi, c, "bench.multi.csv.gz", ok))
        rc = -1;
    for (int i = 0; i < per; i++) {
        free(blocks[i].text.p);
        free(blocks[i].seg.p);
    }
    free(blocks);
    return rc;
}

static int write_f64(const config *c, uint64_t rows)
{
    char path[4096];
    int per = 4 * c->threads;
    block *blocks = blocks_new(per);
    FILE *f = blocks ? open_out(c, "bench.f64", path, sizeof path) : NULL;
    int ok = f != NULL;
    for (uint64_t first = 0; ok && first * BLOCK_ROWS < rows;
         first += (uint64_t)per) {
        uint64_t left =
            (rows - first * BLOCK_ROWS + BLOCK_ROWS - 1) / BLOCK_ROWS;
        int n = left < (uint64_t)per ? (int)left : per;
        plan_round(blocks, n, first, rows);
        ok = run_round(blocks, n, 2, c) == 0;
        for (int i = 0; ok && i < n; i++)
            ok = fwrite(blocks[i].text.p, 1, blocks[i].text.len, f) ==
                 blocks[i].text.len;
    }
    int rc = f && close_out(f, c, "bench.f64", ok) == 0 ? 0 : -1;
    for (int i = 0; blocks && i < per; i++)
        free(blocks[i].text.p);
    free(blocks);
    return rc;
}

/* ---- Self test: the formatter against glibc's printf ---- */

static int selftest(uint64_t seed)
{
    rng r;
    rng_seed(&r, seed, 0, 99);
    char a[64], b[64];
    for (long i = 0; i < 2000000; i++) {
        double d = value_of(rng_next(&r));
        if (i % 4 == 1) /* short decimals exercise the zero stripping */
            d = (double)(rng_next(&r) % 100000) / 64.0 + 0.0009765625;
        *put_g17(a, d) = 0;
        snprintf(b, sizeof b, "%.17g", d);
        if (strcmp(a, b) != 0 || strtod(a, NULL) != d) {
            fprintf(stderr, "colstat_gen: selftest: %s != %s\n", a, b);
            return 1;
        }
    }
    fprintf(stderr, "colstat_gen: selftest passed (seed %llu)\n",
            (unsigned long long)seed);
    return 0;
}

/* ---- Command line ---- */

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v <= 0)
        return -1;
    double mult = 1;
    int bin = end[0] && end[1] == 'i';
    switch (*end) {
    case 'k':
    case 'K':
        mult = bin ? 1024.0 : 1e3;
        break;
    case 'M':
        mult = bin ? 1048576.0 : 1e6;
        break;
    case 'G':
        mult = bin ? 1073741824.0 : 1e9;
        break;
    case 'T':
        mult = bin ? 1099511627776.0 : 1e12;
        break;
    case 0:
        break;
    default:
        return -1;
    }
    *out = (uint64_t)(v * mult);
    return 0;
}

static int parse_files(const char *s, config *c)
{
    c->want_csv = c->want_gz = c->want_multi = c->want_f64 = 0;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", s);
    for (char *save, *t = strtok_r(tmp, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "csv"))
            c->want_csv = 1;
        else if (!strcmp(t, "gz"))
            c->want_gz = 1;
        else if (!strcmp(t, "multi"))
            c->want_multi = 1;
        else if (!strcmp(t, "f64"))
            c->want_f64 = 1;
        else
            return -1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fputs("usage: colstat_gen (--rows N | --bytes SIZE) [--seed S] --out DIR\n"
          "                   [--files csv,gz,multi,f64] [--f64-rows M]\n"
          "                   [--threads N] | --selftest\n"
          "SIZE takes k, M, G, T (powers of 1000) or Ki, Mi, Gi, Ti.\n"
          "Writes DIR/bench.csv, DIR/bench.csv.gz (one gzip member),\n"
          "DIR/bench.multi.csv.gz (one member per ~1.2 MB block) and\n"
          "DIR/bench.f64 (the value column as little-endian doubles).\n",
          f);
}

static int parse_args(int argc, char **argv, config *c)
{
    static const struct option opts[] = {
        {"rows", required_argument, NULL, 'r'},
        {"bytes", required_argument, NULL, 'b'},
        {"seed", required_argument, NULL, 's'},
        {"out", required_argument, NULL, 'o'},
        {"files", required_argument, NULL, 'f'},
        {"f64-rows", required_argument, NULL, 'F'},
        {"threads", required_argument, NULL, 'j'},
        {"selftest", no_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "j:", opts, NULL)) != -1) {
        int bad = 0;
        switch (ch) {
        case 'r':
            bad = parse_size(optarg, &c->rows);
            break;
        case 'b':
            bad = parse_size(optarg, &c->bytes);
            break;
        case 's':
            c->seed = strtoull(optarg, NULL, 0);
            break;
        case 'o':
            c->dir = optarg;
            break;
        case 'f':
            bad = parse_files(optarg, c);
            break;
        case 'F':
            bad = parse_size(optarg, &c->f64_rows);
            break;
        case 'j':
            c->threads = atoi(optarg);
            bad = c->threads < 1;
            break;
        case 'T':
            c->selftest = 1;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            return -1;
        }
        if (bad) {
            fprintf(stderr, "colstat_gen: bad value: %s\n", optarg);
            return -1;
        }
    }
    if (c->selftest)
        return 0;
    if (!c->dir || (!c->rows == !c->bytes) || optind != argc)
        return -1;
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    config c = {
        .seed = 1, .want_csv = 1, .want_gz = 1, .want_multi = 1, .want_f64 = 1};
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c.threads = ncpu > 0 ? (int)ncpu : 1;
    if (parse_args(argc, argv, &c)) {
        usage(stderr);
        return 2;
    }
    if (c.selftest)
        return selftest(c.seed);
    double t0 = now();
    outputs o;
    memset(&o, 0, sizeof o);
    int want_text = c.want_csv || c.want_gz || c.want_multi;
    if (want_text && write_csv(&c, &o)) {
        fprintf(stderr, "colstat_gen: %s: %s\n", c.dir, strerror(errno));
        return 1;
    }
    uint64_t f64_rows = c.f64_rows ? c.f64_rows : c.rows ? c.rows : o.rows;
    if (c.want_f64 && !f64_rows) {
        fprintf(stderr, "colstat_gen: --f64-rows needed without CSV rows\n");
        return 2;
    }
    if (c.want_f64 && write_f64(&c, f64_rows)) {
        fprintf(stderr, "colstat_gen: %s: %s\n", c.dir, strerror(errno));
        return 1;
    }
    fprintf(stderr,
            "colstat_gen: %llu rows, %llu bytes of CSV (gzip %llu, multi %llu),"
            " %llu f64 rows, %.2f s on %d threads\n",
            (unsigned long long)o.rows, (unsigned long long)o.text_bytes,
            (unsigned long long)o.gz_bytes, (unsigned long long)o.multi_bytes,
            (unsigned long long)(c.want_f64 ? f64_rows : 0), now() - t0,
            c.threads);
    return 0;
}
