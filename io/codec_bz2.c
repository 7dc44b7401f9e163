/* bzip2 through libbz2: streams in a row (as pbzip2, lbzip2 and
 * `cat a.bz2 b.bz2` make), each block's and each stream's CRC checked. */
#include <bzlib.h>
#include <limits.h>
#include <stdlib.h>

#include "io/codec/codec.h"

typedef struct bz_state {
    bz_stream z;
    int ready;     /* z is initialised */
    int in_stream; /* a stream has begun and not yet ended */
    int ended;
} bz_state;

/* Only streams may follow a stream. bzip2(1) warns about trailing
 * garbage and ignores it; here it is an error, zero bytes included, since
 * it may be a damaged stream. A stream is "BZh" then the level; the
 * decoder checks the rest. */
static const magic_pattern bz_magic[] = {{0, 3, "BZh", NULL}};
static const codec_next_rule bz_next = {"bzip2", bz_magic, 1, 0, 0};

static int bz_open(codec_in *in, void **state, cs_error *e)
{
    bz_state *b = calloc(1, sizeof *b);
    if (!b)
        return cs_fail(e, CS_ENOMEM, in->name, 0, "out of memory");
    *state = b;
    return CS_OK;
}

static int bz_fail(const codec_in *in, int ret, cs_error *e)
{
    const char *what = "unknown error";
    if (ret == BZ_MEM_ERROR) {
        cs_fail(e, CS_ENOMEM, in->name, 0, "out of memory in bzip2 decoder");
        return -1;
    }
    if (ret == BZ_DATA_ERROR)
        what = "compressed data is corrupt (bad CRC or structure)";
    else if (ret == BZ_DATA_ERROR_MAGIC)
        what = "bad stream header";
    cs_fail(e, CS_EDATA, in->name, 0, "corrupt bzip2 data: %s", what);
    return -1;
}

/* Starts decoding the stream at in->pos. Returns 1 or -1. */
static int bz_begin(bz_state *b, const codec_in *in, cs_error *e)
{
    if (b->ready)
        BZ2_bzDecompressEnd(&b->z);
    b->ready = 0;
    int ret = BZ2_bzDecompressInit(&b->z, 0, 0);
    if (ret != BZ_OK)
        return bz_fail(in, ret, e);
    b->ready = 1;
    b->in_stream = 1;
    return 1;
}

/* One step: a stream boundary, decoding, or more input. */
static int bz_step(void *state, codec_in *in, codec_out *out, cs_error *e)
{
    bz_state *b = state;
    if (!b->in_stream) {
        int r = codec_next_stream(in, &bz_next, e);
        if (r <= 0)
            return r;
        if (bz_begin(b, in, e) < 0)
            return -1;
    }
    size_t avail = in->len - in->pos, room = out->n - out->done;
    b->z.next_in = (char *)in->buf + in->pos;
    b->z.avail_in = (unsigned)(avail < UINT_MAX ? avail : UINT_MAX);
    b->z.next_out = (char *)out->p + out->done;
    b->z.avail_out = (unsigned)(room < UINT_MAX ? room : UINT_MAX);
    int ret = BZ2_bzDecompress(&b->z);
    size_t used = (size_t)(b->z.next_in - (char *)in->buf) - in->pos;
    size_t made = (size_t)(b->z.next_out - (char *)out->p) - out->done;
    in->pos += used;
    out->done += made;
    if (ret == BZ_STREAM_END) {
        b->in_stream = 0;
        return 1;
    }
    if (ret != BZ_OK)
        return bz_fail(in, ret, e);
    if (used || made)
        return 1;
    int r = in->refill(in, e);
    if (r == 0)
        return codec_truncated(in, "bzip2", e);
    return r;
}

static ssize_t bz_read(void *state, codec_in *in, unsigned char *out, size_t n,
                       cs_error *e)
{
    bz_state *b = state;
    return codec_pump(b, bz_step, &b->ended, in, out, n, e);
}

static void bz_close(void *state)
{
    bz_state *b = state;
    if (!b)
        return;
    if (b->ready)
        BZ2_bzDecompressEnd(&b->z);
    free(b);
}

const codec_ops codec_bz2_ops = {"bzip2", "bzip2 -dc", bz_open,
                                 bz_read, bz_close,    NULL};
