#include "io/gzip/member.h"

#include <string.h>

#include "io/gzip/crc.h"

enum {
    F_HCRC = 2,
    F_EXTRA = 4,
    F_NAME = 8,
    F_COMMENT = 16,
    F_RESERVED = 0xe0,
};

/* In the order the fields appear. */
enum {
    S_ID1,
    S_ID2,
    S_CM,
    S_FLG,
    S_FIXED, /* MTIME, XFL, OS: 6 bytes */
    S_XLEN,
    S_EXTRA,
    S_NAME,
    S_COMMENT,
    S_HCRC,
    S_DONE,
};

void gzf_begin(gzf_parser *p)
{
    *p = (gzf_parser){.state = S_ID1};
}

uint32_t gzf_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static int bad(gzf_parser *p, const char *why)
{
    p->why = why;
    return GZF_BAD;
}

/* Moves to the first field at or after `from` that the flags ask for. */
static void enter(gzf_parser *p, int from)
{
    static const struct {
        int state;
        unsigned flag;
    } optional[] = {
        {S_XLEN, F_EXTRA},
        {S_NAME, F_NAME},
        {S_COMMENT, F_COMMENT},
        {S_HCRC, F_HCRC},
    };
    p->state = S_DONE;
    for (size_t i = 0; i < sizeof optional / sizeof *optional; i++)
        if (optional[i].state >= from && (p->flags & optional[i].flag)) {
            p->state = optional[i].state;
            break;
        }
    p->need = 2; /* XLEN and HCRC are the two-byte fields */
    p->field = 0;
}

/* One byte of the header. */
static int step(gzf_parser *p, uint8_t c)
{
    static const uint8_t magic[] = {0x1f, 0x8b};
    switch (p->state) {
    case S_ID1:
    case S_ID2:
        if (c != magic[p->state])
            return bad(p, "not in gzip format");
        p->state++;
        break;
    case S_CM:
        if (c != 8)
            return bad(p, "unknown compression method");
        p->state = S_FLG;
        break;
    case S_FLG:
        if (c & F_RESERVED)
            return bad(p, "unknown header flags set");
        p->flags = c;
        p->state = S_FIXED;
        p->need = 6;
        break;
    case S_FIXED:
        if (--p->need == 0)
            enter(p, S_XLEN);
        break;
    case S_XLEN:
        p->field |= (uint16_t)(c << 8 * (2 - p->need));
        if (--p->need == 0) {
            p->need = p->field;
            if (p->need)
                p->state = S_EXTRA;
            else
                enter(p, S_NAME);
        }
        break;
    case S_EXTRA:
        if (--p->need == 0)
            enter(p, S_NAME);
        break;
    case S_NAME:
    case S_COMMENT:
        if (c == 0)
            enter(p, p->state + 1);
        break;
    case S_HCRC:
        p->field |= (uint16_t)(c << 8 * (2 - p->need));
        if (--p->need == 0) {
            if (p->field != (p->crc & 0xffff))
                return bad(p, "header crc mismatch");
            p->state = S_DONE;
        }
        break;
    default:
        break;
    }
    return GZF_MORE;
}

int gzf_feed(gzf_parser *p, const uint8_t *buf, size_t n, size_t *used)
{
    size_t i = 0, crc_from = 0;
    int crc_open = p->state < S_HCRC; /* bytes before FHCRC are summed */
    while (i < n && p->state != S_DONE) {
        if (p->state == S_NAME || p->state == S_COMMENT) {
            /* Names can be long: find their end at memchr's speed. */
            const uint8_t *z = memchr(buf + i, 0, n - i);
            size_t skip = (z ? (size_t)(z - buf) : n) - i;
            i += skip;
            p->len += skip;
            if (!z)
                break;
        }
        uint8_t c = buf[i++];
        p->len++;
        if (step(p, c) == GZF_BAD) {
            *used = i;
            return GZF_BAD;
        }
        if (crc_open && p->state >= S_HCRC) {
            p->crc = gzcrc_update(p->crc, buf + crc_from, i - crc_from);
            crc_open = 0;
        }
    }
    if (crc_open)
        p->crc = gzcrc_update(p->crc, buf + crc_from, i - crc_from);
    *used = i;
    return p->state == S_DONE ? GZF_DONE : GZF_MORE;
}

int gzf_after_member(const uint8_t *p, size_t n, int eof)
{
    if (n == 0)
        return eof ? GZF_NEXT_END : GZF_NEXT_MORE;
    if (p[0] == 0)
        return GZF_NEXT_PADDING;
    if (p[0] != 0x1f)
        return GZF_NEXT_GARBAGE;
    if (n == 1)
        return eof ? GZF_NEXT_MEMBER : GZF_NEXT_MORE;
    return p[1] == 0x8b ? GZF_NEXT_MEMBER : GZF_NEXT_GARBAGE;
}
