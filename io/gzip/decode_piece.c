#include "io/gzip/decode_piece.h"

#include <stdlib.h>
#include <string.h>

#include "io/gzip/inflate.h"
#include "io/gzip/member.h"

enum {
    PH_NEXT,    /* after a member: what follows? */
    PH_HEADER,  /* a member header */
    PH_DEFLATE, /* its deflate data */
    PH_TRAILER, /* its trailer */
    PH_PADDING, /* zeros to the end */
    PH_WHOLE,   /* a whole member by the one-thread inflater */
    PH_OVER,
};

struct gzpiece {
    ddec *d;
    inflater *z; /* for whole members, when it is the faster (ISA-L) */
    gzin_cursor *in;
    gzpiece_alloc alloc;
    gz_slice *cur;
    int phase, first, wide;
    uint64_t stop, block_stop;
    uint64_t at; /* byte offset, for the member phases */
    gzf_parser hdr;
    size_t floor;        /* oldest element of cur a reference may reach */
    size_t hist_valid;   /* valid history at the end of cur, <= 32768 */
    uint64_t out_before; /* output elements in slices handed over */
    /* Wide: the newest marker of cur seen (-1: none). */
    long long last_marker;
    int eos;
    gz_point end;
    int err;
    const char *msg;
    cs_error io;
};

gzpiece *gzpiece_new(gzpiece_alloc alloc)
{
    gzpiece *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->d = ddec_new();
    c->z = inflater_is_fastest() ? inflater_new() : NULL;
    if (!c->d || (inflater_is_fastest() && !c->z)) {
        gzpiece_free(c);
        return NULL;
    }
    c->alloc = alloc;
    return c;
}

void gzpiece_free(gzpiece *c)
{
    if (!c)
        return;
    ddec_free(c->d);
    inflater_free(c->z);
    free(c);
}

int gzpiece_wide(const gzpiece *c)
{
    return c->wide;
}

gz_slice *gzpiece_abandon(gzpiece *c)
{
    gz_slice *s = c->cur;
    c->cur = NULL;
    c->phase = PH_OVER;
    return s;
}

int gzpiece_end_eos(const gzpiece *c)
{
    return c->eos;
}

void gzpiece_end_point(const gzpiece *c, gz_point *out)
{
    *out = c->end;
}

uint64_t gzpiece_out_total(const gzpiece *c)
{
    return c->out_before + (c->cur ? c->cur->n : 0);
}

size_t gzpiece_hist_valid(const gzpiece *c)
{
    return c->hist_valid;
}

int gzpiece_fail_kind(const gzpiece *c)
{
    return c->err;
}

const char *gzpiece_fail_msg(const gzpiece *c)
{
    return c->msg ? c->msg : "";
}

const cs_error *gzpiece_fail_io(const gzpiece *c)
{
    return &c->io;
}

static int fail(gzpiece *c, int kind, const char *msg)
{
    c->err = kind;
    c->msg = msg;
    c->phase = PH_OVER;
    return GZC_FAIL;
}

static void grow_valid(gzpiece *c, size_t n)
{
    c->hist_valid =
        c->hist_valid + n > DDEC_WINDOW ? DDEC_WINDOW : c->hist_valid + n;
}

static size_t total(const gz_slice *s)
{
    return s->hist + s->n;
}

/* Points the decoder's output at the free end of cur. */
static void aim(gzpiece *c)
{
    ddec_set_output(c->d, c->cur->mem, total(c->cur), c->cur->cap, c->floor,
                    c->wide);
}

/* Takes the decoder's new output into cur. */
static void collect(gzpiece *c)
{
    size_t end = ddec_out_pos(c->d);
    size_t n = end - total(c->cur);
    c->cur->n += n;
    grow_valid(c, n);
}

/* A fresh slice whose history is the last hist_valid elements of old
 * (narrowed to bytes when the new one is not wide). */
static gz_slice *successor(gzpiece *c, const gz_slice *old, int wide)
{
    gz_slice *s = c->alloc.get(c->alloc.ctx);
    if (!s)
        return NULL;
    s->wide = wide;
    size_t keep = c->hist_valid, from = total(old) - keep;
    if (wide)
        memcpy(s->mem, old->mem + 2 * from, 2 * keep);
    else if (!old->wide)
        memcpy(s->mem, old->mem + from, keep);
    else
        for (size_t i = 0; i < keep; i++)
            s->mem[i] = (uint8_t)gzslice_at(old, from + i);
    s->hist = keep;
    return s;
}

/* Hands cur over through *out and goes on in a fresh slice of the given
 * width. Returns GZC_SLICE, or GZC_FAIL when out of memory. */
static int hand_over(gzpiece *c, gz_slice **out, int wide)
{
    gz_slice *old = c->cur, *s = successor(c, old, wide);
    if (!s)
        return fail(c, GZE_MEMORY, "out of memory");
    if (!old->wide && gzslice_finish(old) != 0) {
        gzslice_free(s);
        return fail(c, GZE_MEMORY, "out of memory");
    }
    if (wide) {
        c->last_marker -= (long long)(total(old) - s->hist);
        if (c->last_marker < -1)
            c->last_marker = -1;
    }
    c->out_before += old->n;
    c->cur = s;
    c->wide = wide;
    c->floor = 0;
    if (!wide)
        ddec_report_blocks(c->d, 0);
    aim(c);
    *out = old;
    return GZC_SLICE;
}

/* Whether the last 32 KiB of cur hold no marker. Looks back from the
 * end to the newest marker, and not again before 32 KiB more output
 * could have left it behind: each check costs what lies after it. */
static int window_clean(gzpiece *c)
{
    const uint16_t *v = (const uint16_t *)(const void *)c->cur->mem;
    long long end = (long long)total(c->cur);
    if (end - c->last_marker <= DDEC_WINDOW)
        return 0;
    long long lo = end - DDEC_WINDOW;
    if (lo <= c->last_marker)
        lo = c->last_marker + 1;
    for (long long i = end - 1; i >= lo; i--)
        if (v[i] >= 256) {
            c->last_marker = i;
            return 0;
        }
    return 1;
}

/* Makes the cursor hold bytes from `keep` on, `want` of them if the
 * stream has them: decoding moves on (io/gzip/input.h: a leading cursor lets
 * what lies before keep go). Returns 0 or GZC_FAIL. */
static int fill(gzpiece *c, uint64_t keep, size_t want)
{
    int r = gzin_cursor_advance(c->in, keep, want, &c->io);
    if (r == GZIN_GONE)
        return fail(c, GZE_GONE, "input let go");
    if (r < 0)
        return fail(c, GZE_READ, "read error");
    return 0;
}

static size_t held_from(const gzpiece *c, uint64_t off)
{
    uint64_t end = c->in->base + c->in->len;
    return off < end && off >= c->in->base ? (size_t)(end - off) : 0;
}

static void start_deflate(gzpiece *c, const gz_point *at)
{
    ddec_start(c->d, at);
    ddec_set_stop(c->d, c->block_stop);
    ddec_report_blocks(c->d, c->wide);
    ddec_set_input(c->d, c->in->buf, c->in->len, c->in->base, c->in->eof);
    aim(c);
    c->phase = PH_DEFLATE;
}

static int finish(gzpiece *c, gz_slice **out, int status)
{
    if (!c->cur->wide && gzslice_finish(c->cur) != 0)
        status = fail(c, GZE_MEMORY, "out of memory");
    *out = c->cur;
    c->out_before += c->cur->n;
    c->cur = NULL;
    if (status == GZC_DONE)
        c->phase = PH_OVER;
    return status;
}

static int deflate(gzpiece *c, gz_slice **out)
{
    int r = ddec_run(c->d);
    collect(c);
    switch (r) {
    case DDEC_NEED_INPUT:
        if (fill(c, ddec_pos(c->d) / 8, 4 * DDEC_MARGIN) != 0)
            return finish(c, out, GZC_FAIL);
        ddec_set_input(c->d, c->in->buf, c->in->len, c->in->base, c->in->eof);
        return -1;
    case DDEC_OUT_FULL:
        return hand_over(c, out, c->wide && !window_clean(c));
    case DDEC_BLOCK_END:
        if (window_clean(c))
            return hand_over(c, out, 0);
        return GZC_PROGRESS;
    case DDEC_BOUNDARY:
        ddec_point(c->d, &c->end);
        return finish(c, out, GZC_DONE);
    case DDEC_END:
        c->at = (ddec_pos(c->d) + 7) / 8;
        c->phase = PH_TRAILER;
        return -1;
    case DDEC_TRUNCATED:
        fail(c, GZE_TRUNCATED, "unexpected end of gzip data");
        return finish(c, out, GZC_FAIL);
    default:
        /* ddec_error has zlib's detail; ISA-L has none: one text for
         * all, whichever decoder met the damage. */
        fail(c, GZE_DATA, "invalid deflate data");
        return finish(c, out, GZC_FAIL);
    }
}

static int trailer(gzpiece *c, gz_slice **out)
{
    if (held_from(c, c->at) < GZF_TRAILER && !c->in->eof &&
        fill(c, c->at, GZF_TRAILER) != 0)
        return finish(c, out, GZC_FAIL);
    if (held_from(c, c->at) < GZF_TRAILER) {
        fail(c, GZE_TRUNCATED, "unexpected end of gzip data");
        return finish(c, out, GZC_FAIL);
    }
    const uint8_t *p = c->in->buf + (c->at - c->in->base);
    if (gzslice_cut(c->cur, gzf_le32(p), gzf_le32(p + 4)) != 0) {
        fail(c, GZE_MEMORY, "out of memory");
        return finish(c, out, GZC_FAIL);
    }
    c->at += GZF_TRAILER;
    c->phase = PH_NEXT;
    return -1;
}

/* After a member (or at a member start that is not the stream's first):
 * the end, a junction, zero padding, another member, or garbage. */
static int next_member(gzpiece *c, gz_slice **out)
{
    if (held_from(c, c->at) < 2 && !c->in->eof && fill(c, c->at, 2) != 0)
        return finish(c, out, GZC_FAIL);
    size_t avail = held_from(c, c->at);
    const uint8_t *p = c->in->buf + (c->at - c->in->base);
    switch (gzf_after_member(p, avail, c->in->eof)) {
    case GZF_NEXT_END:
        c->eos = 1;
        return finish(c, out, GZC_DONE);
    case GZF_NEXT_PADDING:
        c->phase = PH_PADDING;
        return -1;
    case GZF_NEXT_GARBAGE:
        fail(c, GZE_GARBAGE, "trailing garbage after gzip data");
        return finish(c, out, GZC_FAIL);
    default:
        break;
    }
    if (avail >= 2 && c->at * 8 >= c->stop) {
        c->end = (gz_point){.kind = GZP_MEMBER, .pos = c->at * 8};
        return finish(c, out, GZC_DONE);
    }
    /* When the piece ends at a member boundary (the next piece starts at
     * a member header: block_stop lies past stop), a member can be decoded
     * whole by the faster inflater: no block junction inside it can be
     * where the piece ends (and were the next piece's header false, that
     * piece is decoded again anyway). */
    if (c->z && !c->wide && c->block_stop > c->stop) {
        c->hist_valid = 0;
        c->floor = total(c->cur);
        inflater_reset(c->z, INFL_GZIP, NULL, 0);
        c->phase = PH_WHOLE;
        return -1;
    }
    gzf_begin(&c->hdr);
    c->phase = PH_HEADER;
    return -1;
}

static int whole_fail(gzpiece *c, gz_slice **out)
{
    int err = inflater_error(c->z);
    fail(c,
         err == INFL_E_CRC      ? GZE_CRC
         : err == INFL_E_LENGTH ? GZE_LENGTH
         : err == INFL_E_MEMORY ? GZE_MEMORY
                                : GZE_DATA,
         err == INFL_E_HEADER ? inflater_message(c->z) : NULL);
    return finish(c, out, GZC_FAIL);
}

/* A whole member by the one-thread inflater, into the slices. */
static int whole_member(gzpiece *c, gz_slice **out)
{
    size_t room = c->cur->cap - DDEC_OUT_SLACK - total(c->cur);
    if (room == 0)
        return hand_over(c, out, 0);
    if (held_from(c, c->at) == 0 && !c->in->eof &&
        fill(c, c->at, 4 * DDEC_MARGIN) != 0)
        return finish(c, out, GZC_FAIL);
    size_t in_len = held_from(c, c->at), out_len = room;
    int r = inflater_run(c->z, c->in->buf + (c->at - c->in->base), &in_len,
                         c->cur->mem + total(c->cur), &out_len);
    c->at += in_len;
    c->cur->n += out_len;
    grow_valid(c, out_len);
    if (r == INFL_ERROR)
        return whole_fail(c, out);
    if (r == INFL_END) {
        uint32_t crc, isize;
        inflater_trailer(c->z, &crc, &isize);
        if (gzslice_cut(c->cur, crc, isize) != 0) {
            fail(c, GZE_MEMORY, "out of memory");
            return finish(c, out, GZC_FAIL);
        }
        c->phase = PH_NEXT;
        return -1;
    }
    if (in_len == 0 && out_len == 0 && c->in->eof && held_from(c, c->at) == 0) {
        fail(c, GZE_TRUNCATED, "unexpected end of gzip data");
        return finish(c, out, GZC_FAIL);
    }
    return -1;
}

static int padding(gzpiece *c, gz_slice **out)
{
    for (;;) {
        size_t avail = held_from(c, c->at);
        const uint8_t *p = c->in->buf + (c->at - c->in->base);
        for (size_t i = 0; i < avail; i++)
            if (p[i] != 0) {
                fail(c, GZE_GARBAGE, "trailing garbage after gzip data");
                return finish(c, out, GZC_FAIL);
            }
        c->at += avail;
        if (c->in->eof) {
            c->eos = 1;
            return finish(c, out, GZC_DONE);
        }
        if (fill(c, c->at, 1) != 0)
            return finish(c, out, GZC_FAIL);
    }
}

static int member_header(gzpiece *c, gz_slice **out)
{
    for (;;) {
        size_t avail = held_from(c, c->at), used = 0;
        const uint8_t *p = c->in->buf + (c->at - c->in->base);
        int r = gzf_feed(&c->hdr, p, avail, &used);
        c->at += used;
        if (r == GZF_BAD) {
            fail(c, GZE_DATA, c->hdr.why);
            return finish(c, out, GZC_FAIL);
        }
        if (r == GZF_DONE)
            break;
        if (c->in->eof) {
            fail(c, GZE_TRUNCATED, "unexpected end of gzip data");
            return finish(c, out, GZC_FAIL);
        }
        if (fill(c, c->at, 1) != 0)
            return finish(c, out, GZC_FAIL);
    }
    /* A new member: nothing before it may be referred to. */
    c->hist_valid = 0;
    if (held_from(c, c->at) < DDEC_MARGIN && !c->in->eof &&
        fill(c, c->at, 4 * DDEC_MARGIN) != 0)
        return finish(c, out, GZC_FAIL);
    gz_point at = {.kind = GZP_BLOCK, .pos = c->at * 8};
    if (c->wide) {
        int r = hand_over(c, out, 0);
        start_deflate(c, &at);
        return r;
    }
    c->floor = total(c->cur);
    start_deflate(c, &at);
    return -1;
}

int gzpiece_begin(gzpiece *c, gzin_cursor *in, const gz_point *start,
                  const uint8_t *window, size_t valid, uint64_t stop,
                  uint64_t block_stop, int first)
{
    c->in = in;
    c->stop = stop;
    c->block_stop = block_stop;
    c->first = first;
    c->eos = 0;
    c->err = 0;
    c->msg = NULL;
    c->out_before = 0;
    c->cur = c->alloc.get(c->alloc.ctx);
    if (!c->cur)
        return -1;
    c->wide = window == NULL;
    c->floor = 0;
    gz_slice *s = c->cur;
    s->wide = c->wide;
    if (c->wide) {
        /* The unknown window: marker k stands for its byte k. */
        uint16_t *v = (uint16_t *)(void *)s->mem;
        for (unsigned k = 0; k < DDEC_WINDOW; k++)
            v[k] = (uint16_t)(256 + k);
        s->hist = DDEC_WINDOW;
        c->hist_valid = DDEC_WINDOW;
        c->last_marker = DDEC_WINDOW - 1;
    } else {
        memcpy(s->mem, window + DDEC_WINDOW - valid, valid);
        s->hist = valid;
        c->hist_valid = valid;
    }
    uint64_t byte = start->pos / 8;
    if (start->pos >= (start->kind == GZP_MEMBER ? stop : block_stop)) {
        /* Already at the stop: an empty piece. */
        c->end = *start;
        c->phase = PH_OVER;
        return 0;
    }
    int got = gzin_cursor_fill(in, byte, 4 * DDEC_MARGIN, &c->io);
    if (got != 0) {
        if (got == GZIN_GONE)
            fail(c, GZE_GONE, "input let go");
        else
            fail(c, GZE_READ, "read error");
        c->phase = PH_OVER;
        return 0;
    }
    if (start->kind == GZP_MEMBER) {
        c->at = byte;
        if (first) {
            gzf_begin(&c->hdr);
            c->phase = PH_HEADER;
        } else {
            c->phase = PH_NEXT;
        }
    } else {
        start_deflate(c, start);
    }
    return 0;
}

int gzpiece_next(gzpiece *c, gz_slice **out)
{
    *out = NULL;
    for (;;) {
        int r;
        switch (c->phase) {
        case PH_NEXT:
            r = next_member(c, out);
            break;
        case PH_HEADER:
            r = member_header(c, out);
            break;
        case PH_DEFLATE:
            r = deflate(c, out);
            break;
        case PH_TRAILER:
            r = trailer(c, out);
            break;
        case PH_PADDING:
            r = padding(c, out);
            break;
        case PH_WHOLE:
            r = whole_member(c, out);
            break;
        default:
            if (c->cur)
                return finish(c, out, c->err ? GZC_FAIL : GZC_DONE);
            return c->err ? GZC_FAIL : GZC_DONE;
        }
        if (r != -1)
            return r;
    }
}

int gzpiece_give_window(gzpiece *c, const uint8_t *window, size_t valid)
{
    if (!c->wide || !c->cur)
        return 0;
    gz_slice *s = c->cur;
    /* Where the window's valid bytes begin in cur (none of it may be left
     * once earlier slices hold more than the history). */
    size_t start = s->hist > c->out_before ? s->hist - c->out_before : 0;
    size_t floor = start > valid ? start - valid : 0;
    if (gzslice_narrow(s, window, valid) != 0) {
        fail(c, GZE_DATA, "invalid deflate data");
        return -1;
    }
    c->wide = 0;
    c->floor = floor;
    c->hist_valid = (size_t)(c->out_before + s->n + valid > DDEC_WINDOW
                                 ? DDEC_WINDOW
                                 : c->out_before + s->n + valid);
    ddec_report_blocks(c->d, 0);
    aim(c);
    return 0;
}

int gzpiece_report(cs_error *e, const char *name, int kind, const char *msg,
                   const cs_error *io)
{
    switch (kind) {
    case GZE_TRUNCATED:
        return cs_fail(e, CS_EDATA, name, 0,
                       "unexpected end of gzip data (truncated?)");
    case GZE_GARBAGE:
        return cs_fail(e, CS_EDATA, name, 0,
                       "trailing garbage after gzip data");
    case GZE_CRC:
        return cs_fail(e, CS_EDATA, name, 0,
                       "corrupt gzip data: incorrect data check");
    case GZE_LENGTH:
        return cs_fail(e, CS_EDATA, name, 0,
                       "corrupt gzip data: incorrect length check");
    case GZE_READ:
        if (io && io->status)
            return cs_fail(e, io->status, io->file[0] ? io->file : name,
                           io->line, "%s", io->msg);
        return cs_fail(e, CS_EDATA, name, 0, "cannot read");
    case GZE_INTERNAL:
        return cs_fail(e, CS_EDATA, name, 0,
                       "gzip decoder inconsistency: output withheld");
    case GZE_MEMORY:
        return cs_fail(e, CS_ENOMEM, name, 0, "out of memory in gzip decoder");
    case GZE_GONE:
        /* Only a piece that can no longer be accepted loses its input:
         * one reaching the reader is the decoder's fault, not the data's. */
        return cs_fail(e, CS_EDATA, name, 0,
                       "gzip decoder inconsistency: input let go too early");
    default:
        return cs_fail(e, CS_EDATA, name, 0, "corrupt gzip data: %s",
                       msg && *msg ? msg : "invalid deflate data");
    }
}
