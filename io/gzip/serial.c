#include "io/gzip/serial.h"

#include <stdlib.h>
#include <string.h>

#include "io/gzip/decode_piece.h"
#include "io/gzip/inflate.h"
#include "io/gzip/member.h"

#define CURSOR ((size_t)1 << 20)

enum { P_NEXT, P_MEMBER, P_PADDING, P_END, P_FAILED };

struct gzs {
    gzin *in;
    gzin_cursor cur;
    inflater *z;
    const char *name;
    int phase;
    uint64_t at; /* offset of the next unused byte */
    unsigned long long members;
    cs_error err;
};

gzs *gzs_new(gzin *in, const char *name)
{
    gzs *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    cs_error e = {0};
    s->z = inflater_new();
    if (!s->z || gzin_cursor_init(&s->cur, in, 0, CURSOR, &e) != 0) {
        inflater_free(s->z);
        free(s);
        return NULL;
    }
    /* The only reader: it must never wait for room in a pipe's store, and
     * it lets go of what it has consumed (in held). */
    s->cur.urgent = 1;
    s->in = in;
    s->name = name;
    /* The caller saw the magic: a bad header here is a damaged member,
     * not garbage. */
    inflater_reset(s->z, INFL_GZIP, NULL, 0);
    s->phase = P_MEMBER;
    return s;
}

void gzs_free(gzs *s)
{
    if (!s)
        return;
    gzin_cursor_done(&s->cur);
    inflater_free(s->z);
    free(s);
}

uint64_t gzs_used(const gzs *s)
{
    return s->at;
}

unsigned long long gzs_members(const gzs *s)
{
    return s->members;
}

static ssize_t fail(gzs *s, int kind, const char *msg, cs_error *e)
{
    s->phase = P_FAILED;
    gzpiece_report(&s->err, s->name, kind, msg, &s->err);
    *e = s->err;
    return -1;
}

/* Bytes held from s->at on, reading more when none are. Returns -1 on a
 * read error. */
static ssize_t held(gzs *s, size_t want, cs_error *e)
{
    uint64_t end = s->cur.base + s->cur.len;
    if (end - s->at >= want || s->cur.eof)
        return (ssize_t)(end - s->at);
    cs_error io = {0};
    gzin_release(s->in, s->at);
    if (gzin_cursor_fill(&s->cur, s->at, want, &io) != 0) {
        s->err = io;
        return fail(s, GZE_READ, NULL, e);
    }
    return (ssize_t)(s->cur.base + s->cur.len - s->at);
}

static const uint8_t *here(const gzs *s)
{
    return s->cur.buf + (s->at - s->cur.base);
}

static ssize_t next(gzs *s, cs_error *e)
{
    ssize_t n = held(s, 2, e);
    if (n < 0)
        return -1;
    switch (gzf_after_member(here(s), (size_t)n, s->cur.eof)) {
    case GZF_NEXT_END:
        s->phase = P_END;
        return 0;
    case GZF_NEXT_PADDING:
        s->phase = P_PADDING;
        return 0;
    case GZF_NEXT_GARBAGE:
        return fail(s, GZE_GARBAGE, NULL, e);
    default:
        inflater_reset(s->z, INFL_GZIP, NULL, 0);
        s->phase = P_MEMBER;
        return 0;
    }
}

static ssize_t padding(gzs *s, cs_error *e)
{
    for (;;) {
        ssize_t n = held(s, 1, e);
        if (n < 0)
            return -1;
        const uint8_t *p = here(s);
        for (ssize_t i = 0; i < n; i++)
            if (p[i])
                return fail(s, GZE_GARBAGE, NULL, e);
        s->at += (uint64_t)n;
        if (s->cur.eof) {
            s->phase = P_END;
            return 0;
        }
    }
}

static ssize_t member(gzs *s, uint8_t *out, size_t room, cs_error *e)
{
    ssize_t n = held(s, 1, e);
    if (n < 0)
        return -1;
    size_t in_len = (size_t)n, out_len = room;
    int r = inflater_run(s->z, here(s), &in_len, out, &out_len);
    s->at += in_len;
    if (r == INFL_ERROR) {
        int err = inflater_error(s->z);
        int kind = err == INFL_E_CRC      ? GZE_CRC
                   : err == INFL_E_LENGTH ? GZE_LENGTH
                   : err == INFL_E_MEMORY ? GZE_MEMORY
                                          : GZE_DATA;
        return fail(s, kind,
                    err == INFL_E_HEADER ? inflater_message(s->z) : NULL, e);
    }
    if (r == INFL_END) {
        s->members++;
        s->phase = P_NEXT;
    } else if (in_len == 0 && out_len == 0 && s->cur.eof &&
               s->at == s->cur.base + s->cur.len) {
        return fail(s, GZE_TRUNCATED, NULL, e);
    }
    return (ssize_t)out_len;
}

ssize_t gzs_read(gzs *s, void *buf, size_t n, cs_error *e)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r;
        switch (s->phase) {
        case P_NEXT:
            r = next(s, e);
            break;
        case P_MEMBER:
            r = member(s, (uint8_t *)buf + got, n - got, e);
            break;
        case P_PADDING:
            r = padding(s, e);
            break;
        case P_END:
            return (ssize_t)got;
        default:
            *e = s->err;
            return -1;
        }
        if (r < 0)
            return -1;
        got += (size_t)r;
    }
    return (ssize_t)got;
}
