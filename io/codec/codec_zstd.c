/* zstd (RFC 8878) through libzstd's streaming decoder: frames in a row,
 * skippable frames skipped, each frame's checksum checked when present. */
#include <stdlib.h>
#include <zstd.h>

#include "io/codec/codec.h"

typedef struct zs_state {
    ZSTD_DStream *d;
    int in_frame; /* a frame has begun and not yet ended */
    int ended;
} zs_state;

/* Only frames may follow a frame, as zstd(1) has it: a zstd frame or a
 * skippable frame (magic 0x184D2A50 to 0x184D2A5F). Zero bytes are
 * garbage too. */
static const magic_pattern zs_magic[] = {
    {0, 4, "\x28\xb5\x2f\xfd", NULL},
    {0, 4, "\x50\x2a\x4d\x18", "\xf0\xff\xff\xff"}};
static const codec_next_rule zs_next = {"zstd", zs_magic, 2, 0, 0};

static int zs_open(codec_in *in, void **state, cs_error *e)
{
    zs_state *z = calloc(1, sizeof *z);
    if (z)
        z->d = ZSTD_createDStream();
    if (!z || !z->d) {
        free(z);
        return cs_fail(e, CS_ENOMEM, in->name, 0,
                       "out of memory starting the zstd decoder");
    }
    /* Windows up to 2 GiB (zstd --long=31), not only the default 128
     * MiB: what zstd made, colstat reads. */
    ZSTD_DCtx_setParameter(z->d, ZSTD_d_windowLogMax, 31);
    *state = z;
    return CS_OK;
}

/* One step: a frame boundary, decoding, or more input. */
static int zs_step(void *state, codec_in *in, codec_out *out, cs_error *e)
{
    zs_state *z = state;
    if (!z->in_frame) {
        int r = codec_next_stream(in, &zs_next, e);
        if (r <= 0)
            return r;
        z->in_frame = 1;
    }
    ZSTD_inBuffer ib = {in->buf + in->pos, in->len - in->pos, 0};
    ZSTD_outBuffer ob = {out->p + out->done, out->n - out->done, 0};
    size_t ret = ZSTD_decompressStream(z->d, &ob, &ib);
    in->pos += ib.pos;
    out->done += ob.pos;
    if (ZSTD_isError(ret)) {
        cs_fail(e, CS_EDATA, in->name, 0, "corrupt zstd data: %s",
                ZSTD_getErrorName(ret));
        return -1;
    }
    if (ret == 0) { /* the frame is decoded and flushed */
        z->in_frame = 0;
        return 1;
    }
    if (ib.pos || ob.pos)
        return 1;
    /* No progress with room to write: the frame needs more input. */
    int r = in->refill(in, e);
    if (r == 0)
        return codec_truncated(in, "zstd", e);
    return r;
}

static ssize_t zs_read(void *state, codec_in *in, unsigned char *out, size_t n,
                       cs_error *e)
{
    zs_state *z = state;
    return codec_pump(z, zs_step, &z->ended, in, out, n, e);
}

static void zs_close(void *state)
{
    zs_state *z = state;
    if (!z)
        return;
    ZSTD_freeDStream(z->d);
    free(z);
}

const codec_ops codec_zstd_ops = {"zstd",  "zstd -dc", zs_open,
                                  zs_read, zs_close,   NULL};
