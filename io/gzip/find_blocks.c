#include "io/gzip/find_blocks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io/gzip/load64.h"
#include "io/gzip/member.h"

/* A stored block's candidate is tried by decoding what follows its
 * payload for up to this many bytes (16-bit, the window unknown). */
#define TRIAL_OUT 65536
#define TRIAL_BLOCKS 3

struct bfind {
    ddec *probe;
    uint16_t *trial; /* 32 KiB of markers, then TRIAL_OUT elements */
};

/* Tables for the cheap part of a dynamic header's check: whether the
 * first 13 bits (BFINAL, BTYPE 2, HLIT <= 29, HDIST <= 29) can start one,
 * and the Kraft sum (in 128ths) of four 3-bit code-length lengths. */
static uint8_t head_ok[1 << 13];
static uint16_t kraft4[1 << 12];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
    for (unsigned v = 0; v < (1u << 13); v++)
        head_ok[v] =
            (v & 6) == 4 && ((v >> 3) & 31) <= 29 && ((v >> 8) & 31) <= 29;
    for (unsigned v = 0; v < (1u << 12); v++) {
        unsigned sum = 0;
        for (unsigned i = 0; i < 4; i++) {
            unsigned len = (v >> (3 * i)) & 7;
            sum += len ? 128u >> len : 0;
        }
        kraft4[v] = (uint16_t)sum;
    }
}

bfind *bfind_new(void)
{
    pthread_once(&tables_once, build_tables);
    bfind *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->probe = ddec_new();
    f->trial =
        malloc((DDEC_WINDOW + TRIAL_OUT + DDEC_OUT_SLACK) * sizeof *f->trial);
    if (!f->probe || !f->trial) {
        bfind_free(f);
        return NULL;
    }
    return f;
}

void bfind_free(bfind *f)
{
    if (!f)
        return;
    ddec_free(f->probe);
    free(f->trial);
    free(f);
}

static uint64_t bits_at(const uint8_t *buf, uint64_t bit)
{
    return load64(buf + bit / 8) >> (bit % 8);
}

/* The cheap part of a dynamic header's check, at bit `bit` of buf: block
 * type 2, counts zlib accepts, and a complete code-length code (the sum
 * of 2^-len over its codes is exactly 1). */
static int dynamic_plausible(const uint8_t *buf, uint64_t bit)
{
    uint64_t w = bits_at(buf, bit);
    if (!head_ok[w & 0x1fff])
        return 0;
    unsigned ncode = 4 + (unsigned)((w >> 13) & 15);
    /* The ncode lengths: 3 bits each from bit 17 (57 at most). */
    uint64_t l = bits_at(buf, bit + 17);
    uint64_t m = bits_at(buf, bit + 17 + 48) & 0x1ff;
    unsigned sum;
    if (ncode <= 16) {
        l &= ((uint64_t)1 << (3 * ncode)) - 1;
        m = 0;
    } else {
        l &= ((uint64_t)1 << 48) - 1;
        m &= ((uint64_t)1 << (3 * (ncode - 16))) - 1;
    }
    sum = kraft4[l & 0xfff] + kraft4[(l >> 12) & 0xfff] +
          kraft4[(l >> 24) & 0xfff] + kraft4[(l >> 36) & 0xfff] + kraft4[m];
    return sum == 128;
}

/* Whether a block header at bit `bit` of buf[0..len) looks valid: not
 * type 3; a stored block's lengths agree; a dynamic header passes the
 * probe. Beyond the buffer it is given the benefit of the doubt. */
static int block_ok(bfind *f, const uint8_t *buf, size_t len, uint64_t bit)
{
    if (bit / 8 + 8 >= len)
        return 1;
    unsigned type = (unsigned)(bits_at(buf, bit) >> 1) & 3;
    if (type == 3)
        return 0;
    if (type == 1)
        return 1;
    if (type == 0) {
        size_t at = (size_t)((bit + 3 + 7) / 8);
        if (at + 4 > len)
            return 1;
        unsigned n = buf[at] | buf[at + 1] << 8;
        unsigned nn = buf[at + 2] | buf[at + 3] << 8;
        return n == (~nn & 0xffff);
    }
    return dynamic_plausible(buf, bit) &&
           ddec_probe_dynamic(f->probe, buf, len, bit);
}

static int member_at(bfind *f, const uint8_t *buf, size_t len, size_t i)
{
    const uint8_t *p = buf + i;
    if (len - i < 18 || p[0] != 0x1f || p[1] != 0x8b || p[2] != 8 ||
        (p[3] & 0xe0) || (p[8] != 0 && p[8] != 2 && p[8] != 4) ||
        (p[9] > 13 && p[9] != 255))
        return 0;
    gzf_parser h;
    gzf_begin(&h);
    size_t used;
    if (gzf_feed(&h, p, len - i, &used) != GZF_DONE)
        return 0;
    return block_ok(f, buf, len, (uint64_t)(i + used) * 8);
}

/* Decodes the blocks after a stored block's payload (the bits of a false
 * candidate are random: in a few symbols they break a rule). A payload
 * past the end of the stream is false; what the buffer does not hold yet
 * gets the benefit of the doubt. */
static int trial(bfind *f, const uint8_t *buf, size_t len, int eof, size_t end)
{
    if (end > len || (!eof && len - end < DDEC_MARGIN))
        return !eof || end < len;
    for (unsigned k = 0; k < DDEC_WINDOW; k++)
        f->trial[k] = (uint16_t)(256 + k);
    gz_point pt = {.kind = GZP_BLOCK, .pos = (uint64_t)end * 8};
    ddec_start(f->probe, &pt);
    ddec_report_blocks(f->probe, 1);
    ddec_set_input(f->probe, buf, len, 0, eof);
    ddec_set_output(f->probe, f->trial, DDEC_WINDOW,
                    DDEC_WINDOW + TRIAL_OUT + DDEC_OUT_SLACK, 0, 1);
    for (int blocks = 0; blocks < TRIAL_BLOCKS; blocks++) {
        int r = ddec_run(f->probe);
        if (r == DDEC_ERROR || r == DDEC_TRUNCATED)
            return 0;
        if (r != DDEC_BLOCK_END)
            return 1;
    }
    return 1;
}

static int stored_at(bfind *f, const uint8_t *buf, size_t len, int eof,
                     size_t i)
{
    if (i < 5)
        return 0;
    unsigned n = buf[i - 4] | buf[i - 3] << 8;
    unsigned nn = buf[i - 2] | buf[i - 1] << 8;
    if (n != (~nn & 0xffff) || (buf[i - 5] & 0xc0))
        return 0;
    return trial(f, buf, len, eof, i + n);
}

/* Members only: the magic's first byte found at memchr's speed. */
static int next_member(bfind *f, const uint8_t *buf, size_t len, uint64_t base,
                       uint64_t from, uint64_t end, gz_point *at)
{
    size_t i = (size_t)((from + 7) / 8 - base);
    size_t stop = (size_t)(end / 8 - base);
    while (i < stop) {
        const uint8_t *p = memchr(buf + i, 0x1f, stop - i);
        if (!p)
            break;
        i = (size_t)(p - buf);
        if (buf[i + 1] == 0x8b && member_at(f, buf, len, i)) {
            *at = (gz_point){.kind = GZP_MEMBER, .pos = (base + i) * 8};
            return 1;
        }
        i++;
    }
    return 0;
}

int bfind_next(bfind *f, const uint8_t *buf, size_t len, uint64_t base, int eof,
               int members_only, uint64_t from, uint64_t limit, gz_point *at,
               uint64_t *searched)
{
    /* Without the stream's end, keep a dynamic header's worth of bytes
     * ahead of every position tried. */
    uint64_t end = (base + (eof                 ? len
                            : len > DDEC_MARGIN ? len - DDEC_MARGIN
                                                : 0)) *
                   8;
    if (end > limit)
        end = limit;
    if (from < base * 8)
        from = base * 8;
    if (members_only) {
        if (next_member(f, buf, len, base, from, end, at))
            return 1;
        *searched = end > from ? end : from;
        return 0;
    }
    for (uint64_t p = from; p < end; p++) {
        size_t i = (size_t)(p / 8 - base);
        if (p % 8 == 0) {
            if (member_at(f, buf, len, i)) {
                *at = (gz_point){.kind = GZP_MEMBER, .pos = p};
                return 1;
            }
            if (stored_at(f, buf, len, eof, i)) {
                unsigned n = buf[i - 4] | buf[i - 3] << 8;
                *at = (gz_point){.kind = GZP_STORED, .pos = p, .len = n};
                return 1;
            }
        }
        uint64_t rel = p - base * 8;
        if (dynamic_plausible(buf, rel) &&
            ddec_probe_dynamic(f->probe, buf, len, rel)) {
            *at = (gz_point){.kind = GZP_BLOCK, .pos = p};
            return 1;
        }
    }
    *searched = end > from ? end : from;
    return 0;
}
