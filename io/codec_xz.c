/* xz ("The .xz File Format" 1.1.0) through liblzma: streams in a row,
 * stream padding as the format defines it, every block's integrity check
 * verified. */
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "io/codec/codec.h"

typedef struct xz_state {
    lzma_stream s;
    int in_stream; /* a stream has begun and not yet ended */
    int ended;
} xz_state;

/* The format's own rule (section 2.2): after a stream, stream padding (a
 * run of zero bytes whose length is a multiple of four) and further
 * streams, in any order. liblzma's LZMA_CONCATENATED would apply the same
 * rule, but could not tell garbage after the last stream from a corrupt
 * one; crossing the boundaries here can. */
static const magic_pattern xz_magic[] = {
    {0, 6, "\xfd\x37\x7a\x58\x5a\x00", NULL}};
static const codec_next_rule xz_next = {"xz", xz_magic, 1, 4, 1};

static int xz_open(codec_in *in, void **state, cs_error *e)
{
    xz_state *x = calloc(1, sizeof *x);
    if (!x)
        return cs_fail(e, CS_ENOMEM, in->name, 0, "out of memory");
    lzma_stream init = LZMA_STREAM_INIT;
    x->s = init;
    *state = x;
    return CS_OK;
}

static int xz_fail(const codec_in *in, lzma_ret ret, cs_error *e)
{
    const char *what;
    switch (ret) {
    case LZMA_MEM_ERROR:
        cs_fail(e, CS_ENOMEM, in->name, 0, "out of memory in xz decoder");
        return -1;
    case LZMA_UNSUPPORTED_CHECK:
        what = "an integrity check of a kind liblzma cannot verify";
        break;
    case LZMA_OPTIONS_ERROR:
        what = "options this liblzma does not support";
        break;
    case LZMA_FORMAT_ERROR:
        what = "not in .xz format";
        break;
    case LZMA_DATA_ERROR:
        what = "compressed data is corrupt";
        break;
    default:
        what = "unknown error";
        break;
    }
    cs_fail(e, CS_EDATA, in->name, 0, "corrupt xz data: %s", what);
    return -1;
}

/* Starts decoding the stream at in->pos. Returns 1 or -1. */
static int xz_begin(xz_state *x, const codec_in *in, cs_error *e)
{
    /* liblzma's threaded decoder: a stream of several blocks (what xz -T
     * writes, and xz 5.6 by default) is decoded by one thread a core,
     * one block each, while the parse workers read what is done; a stream
     * of one block is decoded as by the single-threaded decoder. No
     * memory limit to stop at (the file's dictionary decides, as in xz
     * -d); threads only while their buffers stay within a quarter of the
     * memory. LZMA_TELL_UNSUPPORTED_CHECK: a check liblzma cannot verify
     * is an error, not silently unchecked. */
    lzma_mt mt;
    memset(&mt, 0, sizeof mt);
    mt.flags = LZMA_TELL_UNSUPPORTED_CHECK;
    mt.threads = lzma_cputhreads();
    if (mt.threads == 0)
        mt.threads = 1;
    mt.memlimit_threading = lzma_physmem() / 4;
    if (mt.memlimit_threading == 0)
        mt.memlimit_threading = (uint64_t)1 << 30;
    mt.memlimit_stop = UINT64_MAX;
    lzma_ret ret = lzma_stream_decoder_mt(&x->s, &mt);
    if (ret != LZMA_OK)
        return xz_fail(in, ret, e);
    x->in_stream = 1;
    return 1;
}

/* One step: a stream boundary, more input, or decoding. */
static int xz_step(void *state, codec_in *in, codec_out *out, cs_error *e)
{
    xz_state *x = state;
    if (!x->in_stream) {
        int r = codec_next_stream(in, &xz_next, e);
        if (r <= 0)
            return r;
        if (xz_begin(x, in, e) < 0)
            return -1;
    }
    /* Input first, whenever it is used up: the threaded decoder starts a
     * block on a free thread only once it is given the block's bytes, and
     * would otherwise wait for output block by block. */
    if (in->pos == in->len && in->refill(in, e) < 0)
        return -1;
    x->s.next_in = in->buf + in->pos;
    x->s.avail_in = in->len - in->pos;
    x->s.next_out = out->p + out->done;
    x->s.avail_out = out->n - out->done;
    lzma_ret ret = lzma_code(&x->s, LZMA_RUN);
    int progress = x->s.next_in != in->buf + in->pos ||
                   x->s.next_out != out->p + out->done;
    in->pos = (size_t)(x->s.next_in - in->buf);
    out->done = (size_t)(x->s.next_out - out->p);
    if (ret == LZMA_STREAM_END) {
        x->in_stream = 0;
        return 1;
    }
    /* LZMA_BUF_ERROR: no progress twice in a row, which here (room to
     * write, input given while there was any) means the input ended. */
    if (ret != LZMA_OK && ret != LZMA_BUF_ERROR)
        return xz_fail(in, ret, e);
    if (progress)
        return 1;
    if (in->pos == in->len && in->eof)
        return codec_truncated(in, "xz", e);
    return xz_fail(in, LZMA_PROG_ERROR, e); /* stuck with input to give */
}

static ssize_t xz_read(void *state, codec_in *in, unsigned char *out, size_t n,
                       cs_error *e)
{
    xz_state *x = state;
    return codec_pump(x, xz_step, &x->ended, in, out, n, e);
}

static void xz_close(void *state)
{
    xz_state *x = state;
    if (!x)
        return;
    lzma_end(&x->s);
    free(x);
}

const codec_ops codec_xz_ops = {"xz",    "xz -dc", xz_open,
                                xz_read, xz_close, NULL};
