/* gzip (RFC 1952) through zlib's inflate. The only file that knows zlib
 * on the read path: a faster gzip decoder replaces this one whole. */
#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

#include "io/codec.h"

typedef struct gz_state {
    z_stream z;
    int between_members; /* the last member ended; what follows is open */
    int ended;
} gz_state;

/* After the end of a member. What may follow: nothing; another member
 * (concatenated gzip, as pigz, bgzip and `cat a.gz b.gz` make); or zero
 * bytes to the end of the file. Zero padding is accepted because tape and
 * block devices pad that way and GNU gzip accepts it too; zeros cannot
 * start a member, so nothing is lost by it. */
static const magic_pattern gz_magic[] = {{0, 2, "\x1f\x8b", NULL}};
static const codec_next_rule gz_next = {"gzip", gz_magic, 1, 1, 0};

static int gz_open(codec_in *in, void **state, cs_error *e)
{
    gz_state *g = calloc(1, sizeof *g);
    /* 16 + MAX_WBITS: gzip wrapper only, so inflate itself rejects a
     * following member that is not gzip, and checks CRC-32 and ISIZE. */
    if (!g || inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
        free(g);
        return cs_fail(e, CS_EDATA, in->name, 0,
                       "cannot start gzip decoder: out of memory");
    }
    *state = g;
    return CS_OK;
}

static int gz_fail(const codec_in *in, const gz_state *g, int ret, cs_error *e)
{
    if (ret == Z_MEM_ERROR)
        cs_fail(e, CS_EDATA, in->name, 0, "out of memory in gzip decoder");
    else /* Z_DATA_ERROR covers a bad header, bad deflate data and a CRC-32
          * or length mismatch; zlib's message says which. */
        cs_fail(e, CS_EDATA, in->name, 0, "corrupt gzip data: %s",
                g->z.msg ? g->z.msg : "unknown error");
    return -1;
}

/* One step of decoding: more input, a member boundary, or inflate. */
static int gz_step(void *state, codec_in *in, codec_out *out, cs_error *e)
{
    gz_state *g = state;
    if (g->between_members) {
        int r = codec_next_stream(in, &gz_next, e);
        if (r <= 0)
            return r;
        inflateReset(&g->z);
        g->between_members = 0;
    }
    if (in->pos == in->len) {
        int r = in->refill(in, e);
        if (r < 0)
            return -1;
        if (r == 0)
            return codec_truncated(in, "gzip", e);
    }
    size_t room = out->n - out->done, avail = in->len - in->pos;
    g->z.next_in = in->buf + in->pos;
    g->z.avail_in = (uInt)(avail < UINT_MAX ? avail : UINT_MAX);
    g->z.next_out = out->p + out->done;
    g->z.avail_out = (uInt)(room < UINT_MAX ? room : UINT_MAX);
    int ret = inflate(&g->z, Z_NO_FLUSH);
    in->pos = (size_t)(g->z.next_in - in->buf);
    out->done = (size_t)(g->z.next_out - out->p);
    if (ret == Z_STREAM_END) {
        g->between_members = 1;
        return 1;
    }
    if (ret == Z_OK)
        return 1;
    /* Z_BUF_ERROR means no progress: fine when input or output ran out;
     * with room on both sides it would loop forever, so it is an error. */
    if (ret == Z_BUF_ERROR && (g->z.avail_in == 0 || g->z.avail_out == 0))
        return 1;
    return gz_fail(in, g, ret == Z_NEED_DICT ? Z_DATA_ERROR : ret, e);
}

static ssize_t gz_read(void *state, codec_in *in, unsigned char *out, size_t n,
                       cs_error *e)
{
    gz_state *g = state;
    return codec_pump(g, gz_step, &g->ended, in, out, n, e);
}

static void gz_close(void *state)
{
    gz_state *g = state;
    if (!g)
        return;
    inflateEnd(&g->z);
    free(g);
}

const codec_ops codec_gzip_ops = {"gzip", "gzip -dc", gz_open, gz_read,
                                  gz_close};
