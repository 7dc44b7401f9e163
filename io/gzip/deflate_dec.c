#include "io/gzip/deflate_dec.h"

#include <stdlib.h>
#include <string.h>

#include "io/gzip/huff_table.h"
#include "io/gzip/load64.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

enum { ST_HEADER, ST_STORED, ST_HUFF, ST_DONE };

/* ddec_run's steps return a status or this, to go on. */
#define GO_ON (-1)

struct ddec {
    /* Input; bb holds bc unread bits, and its bits above bc are either
     * zero or the bits of the bytes at `in` (see refill). */
    const uint8_t *buf;
    size_t len;
    uint64_t base;
    int eof;
    const uint8_t *in;
    uint64_t bb;
    unsigned bc;
    uint64_t pos; /* saved position, for a new input buffer */
    /* Output */
    uint8_t *out;
    size_t op, cap, floor;
    int wide;
    /* Block */
    int state, bfinal;
    uint32_t stored_left;
    uint64_t stop;
    int report_blocks;
    gz_point at;
    const char *why;
    const uint32_t *lt, *dt;
    int (*run8)(ddec *), (*run16)(ddec *);
    int probing; /* ddec_probe_dynamic: the tables are only checked */
    uint32_t litlen[HUFF_LITLEN_SIZE];
    uint32_t dist[HUFF_DIST_SIZE];
    uint32_t codelen[HUFF_CODELEN_SIZE];
};

int gz_point_equal(const gz_point *a, const gz_point *b)
{
    if (a->kind != b->kind || a->pos != b->pos)
        return 0;
    return a->kind != GZP_STORED ||
           (a->len == b->len && a->bfinal == b->bfinal);
}

static int (*pick(int wide))(ddec *);

ddec *ddec_new(void)
{
    ddec *d = calloc(1, sizeof *d);
    if (d) {
        d->stop = UINT64_MAX;
        d->run8 = pick(0);
        d->run16 = pick(1);
    }
    return d;
}

void ddec_free(ddec *d)
{
    free(d);
}

void ddec_start(ddec *d, const gz_point *at)
{
    d->buf = NULL;
    d->pos = at->pos;
    d->stop = UINT64_MAX;
    d->report_blocks = 0;
    d->why = NULL;
    if (at->kind == GZP_STORED) {
        d->state = ST_STORED;
        d->stored_left = at->len;
        d->bfinal = at->bfinal;
    } else {
        d->state = ST_HEADER;
        d->bfinal = 0;
    }
}

void ddec_set_input(ddec *d, const uint8_t *buf, size_t len, uint64_t base,
                    int eof)
{
    d->buf = buf;
    d->len = len;
    d->base = base;
    d->eof = eof;
    d->in = buf + (d->pos / 8 - base);
    d->bb = 0;
    d->bc = 0;
    unsigned skip = (unsigned)(d->pos % 8);
    if (skip) {
        d->bb = (uint64_t)(*d->in++ >> skip);
        d->bc = 8 - skip;
    }
}

void ddec_set_output(ddec *d, void *buf, size_t pos, size_t cap, size_t floor,
                     int wide)
{
    d->out = buf;
    d->op = pos;
    d->cap = cap;
    d->floor = floor;
    d->wide = wide;
}

size_t ddec_out_pos(const ddec *d)
{
    return d->op;
}

void ddec_set_stop(ddec *d, uint64_t stop)
{
    d->stop = stop;
}

void ddec_report_blocks(ddec *d, int on)
{
    d->report_blocks = on;
}

static uint64_t position(const ddec *d, const uint8_t *in, unsigned bc)
{
    return ((uint64_t)(in - d->buf) + d->base) * 8 - bc;
}

uint64_t ddec_pos(const ddec *d)
{
    return d->buf ? position(d, d->in, d->bc) : d->pos;
}

void ddec_point(const ddec *d, gz_point *out)
{
    *out = d->at;
}

const char *ddec_error(const ddec *d)
{
    return d->why ? d->why : "invalid deflate data";
}

static uint64_t end_bits(const ddec *d)
{
    return (d->base + d->len) * 8;
}

/* Tops the bit buffer up to 56..63 bits with one unaligned load: the
 * bytes it takes in are counted whole; the load's other bits are the next
 * bytes' and are loaded again, identically, next time. */
static ALWAYS_INLINE void refill(const uint8_t **in, uint64_t *bb, unsigned *bc)
{
    *bb |= load64(*in) << *bc;
    *in += (63 - *bc) >> 3;
    *bc |= 56;
}

static ALWAYS_INLINE void drop(uint64_t *bb, unsigned *bc, unsigned n)
{
    *bb >>= n;
    *bc -= n;
}

static int fail(ddec *d, const char *why)
{
    d->why = why;
    return DDEC_ERROR;
}

/* A header's bits past the end of the stream: the stream is truncated.
 * The check keeps every load inside the buffer's padding. */
static int past_end(const ddec *d)
{
    return d->eof && position(d, d->in, d->bc) > end_bits(d);
}

static unsigned take(ddec *d, unsigned n)
{
    if (d->bc < n)
        refill(&d->in, &d->bb, &d->bc);
    unsigned v = (unsigned)(d->bb & ((1u << n) - 1));
    drop(&d->bb, &d->bc, n);
    return v;
}

/* One code-length symbol, and with it its repeat (RFC 1951, 3.2.7).
 * Fills lens from *i on; returns GO_ON or an error. */
static int code_length(ddec *d, uint8_t *lens, unsigned *i, unsigned total)
{
    if (d->bc < 14)
        refill(&d->in, &d->bb, &d->bc);
    uint32_t e = d->codelen[d->bb & ((1u << HUFF_CODELEN_BITS) - 1)];
    drop(&d->bb, &d->bc, huff_len(e));
    unsigned sym = huff_value(e), rep, val = 0;
    if (sym < 16) {
        lens[(*i)++] = (uint8_t)sym;
        return GO_ON;
    }
    if (sym == 16) {
        if (*i == 0)
            return fail(d, "invalid bit length repeat");
        val = lens[*i - 1];
        rep = 3 + take(d, 2);
    } else if (sym == 17) {
        rep = 3 + take(d, 3);
    } else {
        rep = 11 + take(d, 7);
    }
    if (*i + rep > total)
        return fail(d, "invalid bit length repeat");
    memset(lens + *i, (int)val, rep);
    *i += rep;
    return GO_ON;
}

/* The header of a dynamic block, after its 3 first bits (RFC 1951,
 * 3.2.7), with zlib's checks in zlib's order. */
static int dynamic_header(ddec *d)
{
    static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                      11, 4,  12, 3, 13, 2, 14, 1, 15};
    unsigned nlen = 257 + take(d, 5);
    unsigned ndist = 1 + take(d, 5);
    unsigned ncode = 4 + take(d, 4);
    if (nlen > 286 || ndist > 30)
        return fail(d, "too many length or distance symbols");
    uint8_t lens[288 + 32] = {0};
    for (unsigned i = 0; i < ncode; i++)
        lens[order[i]] = (uint8_t)take(d, 3);
    if (past_end(d))
        return DDEC_TRUNCATED;
    if (huff_build(d->codelen, HUFF_T_CODELEN, lens, 19) != 0)
        return fail(d, "invalid code lengths set");
    memset(lens, 0, 19);
    for (unsigned i = 0; i < nlen + ndist;) {
        int r = code_length(d, lens, &i, nlen + ndist);
        if (past_end(d))
            return DDEC_TRUNCATED;
        if (r != GO_ON)
            return r;
    }
    if (lens[256] == 0)
        return fail(d, "invalid code -- missing end-of-block");
    if (huff_build(d->litlen, HUFF_T_LITLEN, lens, nlen) != 0)
        return fail(d, "invalid literal/lengths set");
    if (huff_build(d->dist, HUFF_T_DIST, lens + nlen, ndist) != 0)
        return fail(d, "invalid distances set");
    if (!d->probing)
        huff_pair_literals(d->litlen);
    d->lt = d->litlen;
    d->dt = d->dist;
    return GO_ON;
}

/* LEN and NLEN of a stored block, then byte-aligned input. */
static int stored_header(ddec *d)
{
    drop(&d->bb, &d->bc, d->bc & 7);
    unsigned len = take(d, 16);
    unsigned nlen = take(d, 16);
    if (past_end(d))
        return DDEC_TRUNCATED;
    if (len != (~nlen & 0xffff))
        return fail(d, "invalid stored block lengths");
    /* From here on bytes are copied: the bit buffer is let go. */
    d->in -= d->bc / 8;
    d->bb = 0;
    d->bc = 0;
    d->stored_left = len;
    d->state = ST_STORED;
    uint64_t at = position(d, d->in, 0);
    if (at >= d->stop) {
        d->at = (gz_point){.kind = GZP_STORED,
                           .pos = at,
                           .len = len,
                           .bfinal = (uint8_t)d->bfinal};
        return DDEC_BOUNDARY;
    }
    return GO_ON;
}

static int block_header(ddec *d)
{
    if (!d->eof && d->len - (size_t)(d->in - d->buf) < DDEC_MARGIN)
        return DDEC_NEED_INPUT;
    if (past_end(d))
        return DDEC_TRUNCATED;
    if (d->bc < 3)
        refill(&d->in, &d->bb, &d->bc);
    uint64_t at = position(d, d->in, d->bc);
    unsigned type = (unsigned)(d->bb >> 1) & 3;
    if (type == 2 && at >= d->stop) {
        d->at = (gz_point){.kind = GZP_BLOCK, .pos = at};
        return DDEC_BOUNDARY;
    }
    d->bfinal = (int)(d->bb & 1);
    drop(&d->bb, &d->bc, 3);
    if (past_end(d))
        return DDEC_TRUNCATED;
    switch (type) {
    case 0:
        return stored_header(d);
    case 1:
        d->lt = huff_fixed_litlen();
        d->dt = huff_fixed_dist();
        d->state = ST_HUFF;
        return GO_ON;
    case 2: {
        int r = dynamic_header(d);
        if (r == GO_ON)
            d->state = ST_HUFF;
        return r;
    }
    default:
        return fail(d, "invalid block type");
    }
}

static int block_done(ddec *d)
{
    d->state = d->bfinal ? ST_DONE : ST_HEADER;
    return d->report_blocks ? DDEC_BLOCK_END : GO_ON;
}

static int copy_stored(ddec *d)
{
    while (d->stored_left > 0) {
        size_t avail = d->len - (size_t)(d->in - d->buf);
        if (avail == 0)
            return d->eof ? DDEC_TRUNCATED : DDEC_NEED_INPUT;
        size_t room = d->cap > d->op + DDEC_OUT_SLACK
                          ? d->cap - DDEC_OUT_SLACK - d->op
                          : 0;
        if (room == 0)
            return DDEC_OUT_FULL;
        size_t n = d->stored_left;
        if (n > avail)
            n = avail;
        if (n > room)
            n = room;
        if (d->wide) {
            uint16_t *o = (uint16_t *)d->out + d->op;
            for (size_t i = 0; i < n; i++)
                o[i] = d->in[i];
        } else {
            memcpy(d->out + d->op, d->in, n);
        }
        d->in += n;
        d->op += n;
        d->stored_left -= (uint32_t)n;
    }
    return block_done(d);
}

/* Copies a match of len elements from dist back; may write up to 7 bytes
 * (3 elements) past the end. */
static ALWAYS_INLINE void copy8(uint8_t *o, unsigned dist, unsigned len)
{
    const uint8_t *s = o - dist;
    uint8_t *end = o + len;
    if (dist >= 8) {
        do {
            memcpy(o, s, 8);
            o += 8;
            s += 8;
        } while (o < end);
    } else if (dist == 1) {
        memset(o, *s, len);
    } else {
        while (o < end)
            *o++ = *s++;
    }
}

static ALWAYS_INLINE void copy16(uint16_t *o, unsigned dist, unsigned len)
{
    const uint16_t *s = o - dist;
    uint16_t *end = o + len;
    if (dist >= 4) {
        do {
            memcpy(o, s, 8);
            o += 4;
            s += 4;
        } while (o < end);
    } else {
        while (o < end)
            *o++ = *s++;
    }
}

#define LIT_MASK ((1u << HUFF_LITLEN_BITS) - 1)

/* One or two literals (huff_pair_literals): both bytes are stored either
 * way, the position moves by the count (a second byte that is not one is
 * overwritten next). Returns the new position. */
static ALWAYS_INLINE size_t put(uint8_t *o8, uint16_t *o16, const int wide,
                                size_t at, uint32_t e)
{
    unsigned v = huff_value(e);
    if (wide) {
        o16[at] = (uint16_t)(v & 0xff);
        o16[at + 1] = (uint16_t)(v >> 8);
    } else {
        uint16_t two = (uint16_t)v;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        two = (uint16_t)(two >> 8 | two << 8);
#endif
        memcpy(o8 + at, &two, 2);
    }
    return at + huff_extra(e);
}

/* The symbols of a Huffman block until its end, a full output or the end
 * of the input. Every symbol starts with a refill (>= 56 bits), enough
 * for a length and a distance with their extra bits (15+5+15+13). */
static ALWAYS_INLINE int huffman(ddec *d, const int wide)
{
    const uint8_t *in = d->in;
    uint64_t bb = d->bb;
    unsigned bc = d->bc;
    size_t op = d->op;
    uint8_t *const o8 = d->out;
    uint16_t *const o16 = (uint16_t *)d->out;
    const uint32_t *const lt = d->lt, *const dt = d->dt;
    const size_t margin = d->eof ? 16 : DDEC_MARGIN;
    const uint8_t *const in_fast =
        d->buf + (d->len > margin ? d->len - margin : 0);
    const size_t op_fast =
        d->cap > DDEC_OUT_SLACK ? d->cap - DDEC_OUT_SLACK : 0;
    const uint64_t floor = d->floor;
    int r;
    for (;;) {
        if (op >= op_fast) {
            r = DDEC_OUT_FULL;
            break;
        }
        if (in >= in_fast) {
            if (!d->eof) {
                r = DDEC_NEED_INPUT;
                break;
            }
            if (position(d, in, bc) > end_bits(d)) {
                r = DDEC_TRUNCATED;
                break;
            }
        }
        refill(&in, &bb, &bc);
        uint32_t e = lt[bb & LIT_MASK];
        if (e & HUFF_LIT) {
            /* Up to three literals per refill (3 x 15 bits); then the
             * next symbol starts on a full buffer again. */
            drop(&bb, &bc, huff_len(e));
            op = put(o8, o16, wide, op, e);
            e = lt[bb & LIT_MASK];
            if (!(e & HUFF_LIT))
                goto refilled;
            drop(&bb, &bc, huff_len(e));
            op = put(o8, o16, wide, op, e);
            e = lt[bb & LIT_MASK];
            if (!(e & HUFF_LIT))
                goto refilled;
            drop(&bb, &bc, huff_len(e));
            op = put(o8, o16, wide, op, e);
            continue;
        refilled:
            refill(&in, &bb, &bc);
        }
        if (e & HUFF_SUB) {
            e = lt[huff_value(e) +
                   ((bb >> HUFF_LITLEN_BITS) & ((1u << huff_extra(e)) - 1))];
            if (e & HUFF_LIT) {
                drop(&bb, &bc, huff_len(e));
                op = put(o8, o16, wide, op, e);
                continue;
            }
        }
        if (e & HUFF_LEN) {
            unsigned n = huff_len(e), x = huff_extra(e);
            unsigned len =
                huff_value(e) + (unsigned)((bb >> n) & ((1u << x) - 1));
            drop(&bb, &bc, n + x);
            uint32_t f = dt[bb & ((1u << HUFF_DIST_BITS) - 1)];
            if (f & HUFF_SUB)
                f = dt[huff_value(f) +
                       ((bb >> HUFF_DIST_BITS) & ((1u << huff_extra(f)) - 1))];
            if (!(f & HUFF_LEN)) {
                r = fail(d, "invalid distance code");
                break;
            }
            n = huff_len(f);
            x = huff_extra(f);
            unsigned dist =
                huff_value(f) + (unsigned)((bb >> n) & ((1u << x) - 1));
            drop(&bb, &bc, n + x);
            if (dist > op - floor) {
                r = fail(d, "invalid distance too far back");
                break;
            }
            if (wide)
                copy16(o16 + op, dist, len);
            else
                copy8(o8 + op, dist, len);
            op += len;
            continue;
        }
        if (e & HUFF_EOB) {
            drop(&bb, &bc, huff_len(e));
            d->in = in, d->bb = bb, d->bc = bc, d->op = op;
            return block_done(d);
        }
        r = fail(d, "invalid literal/length code");
        break;
    }
    d->in = in, d->bb = bb, d->bc = bc, d->op = op;
    return r;
}

static int huffman8(ddec *d)
{
    return huffman(d, 0);
}

static int huffman16(ddec *d)
{
    return huffman(d, 1);
}

/* Variable shifts dominate the loop: x86-64 before BMI2 needs three
 * micro-operations for one, SHRX one. Built twice, chosen at run time. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("bmi2"))) static int huffman8_bmi2(ddec *d)
{
    return huffman(d, 0);
}

__attribute__((target("bmi2"))) static int huffman16_bmi2(ddec *d)
{
    return huffman(d, 1);
}

static int (*pick(int wide))(ddec *)
{
    if (__builtin_cpu_supports("bmi2"))
        return wide ? huffman16_bmi2 : huffman8_bmi2;
    return wide ? huffman16 : huffman8;
}
#else
static int (*pick(int wide))(ddec *)
{
    return wide ? huffman16 : huffman8;
}
#endif

int ddec_run(ddec *d)
{
    int r = GO_ON;
    while (r == GO_ON) {
        switch (d->state) {
        case ST_HEADER:
            r = block_header(d);
            break;
        case ST_STORED:
            r = copy_stored(d);
            break;
        case ST_HUFF:
            r = d->wide ? d->run16(d) : d->run8(d);
            break;
        default:
            r = DDEC_END;
            break;
        }
    }
    /* Whatever used bits past the end of a truncated stream, damage or
     * the last code, is the truncation (zlib would have stopped there,
     * waiting for more input). */
    if (past_end(d))
        r = DDEC_TRUNCATED;
    d->pos = position(d, d->in, d->bc);
    return r;
}

int ddec_probe_dynamic(ddec *d, const uint8_t *buf, size_t len, uint64_t pos)
{
    d->pos = pos;
    ddec_set_input(d, buf, len, 0, 1);
    if (d->bc < 3)
        refill(&d->in, &d->bb, &d->bc);
    if ((d->bb & 6) != 4)
        return 0;
    drop(&d->bb, &d->bc, 3);
    d->probing = 1;
    int ok = dynamic_header(d) == GO_ON && !past_end(d);
    d->probing = 0;
    return ok;
}
