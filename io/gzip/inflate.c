#include "io/gzip/inflate.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef COLSTAT_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "io/gzip/crc.h"
#include "io/gzip/member.h"

enum { S_HEADER, S_DATA, S_TRAILER, S_DONE, S_FAILED };

struct inflater {
    int mode, state, err;
    const char *msg;
    gzf_parser hdr;
    uint32_t crc;
    uint64_t size;
    uint8_t trailer[GZF_TRAILER];
    size_t trailer_have;
    /* Bytes after the deflate data that the backend took in earlier
     * calls (ISA-L reads ahead): they are the next input. */
    uint8_t carry[8];
    size_t carry_len;
#ifdef COLSTAT_HAVE_ISAL
    struct inflate_state isal;
#else
    z_stream zs;
    int zs_ready;
#endif
};

const char *inflater_backend(void)
{
#ifdef COLSTAT_HAVE_ISAL
    return "ISA-L";
#else
    return "zlib";
#endif
}

int inflater_is_fastest(void)
{
#ifdef COLSTAT_HAVE_ISAL
    return 1;
#else
    return 0;
#endif
}

void inflater_trailer(const inflater *z, uint32_t *crc, uint32_t *isize)
{
    *crc = gzf_le32(z->trailer);
    *isize = gzf_le32(z->trailer + 4);
}

inflater *inflater_new(void)
{
    return calloc(1, sizeof(inflater));
}

void inflater_free(inflater *z)
{
    if (!z)
        return;
#ifndef COLSTAT_HAVE_ISAL
    if (z->zs_ready)
        inflateEnd(&z->zs);
#endif
    free(z);
}

size_t inflater_carry(inflater *z, uint8_t *out)
{
    size_t n = z->carry_len;
    memcpy(out, z->carry, n);
    z->carry_len = 0;
    return n;
}

int inflater_error(const inflater *z)
{
    return z->err;
}

const char *inflater_message(const inflater *z)
{
    return z->msg ? z->msg : "invalid deflate data";
}

static int fail(inflater *z, int err, const char *msg)
{
    z->err = err;
    z->msg = msg;
    z->state = S_FAILED;
    return INFL_ERROR;
}

#ifdef COLSTAT_HAVE_ISAL
static int backend_reset(inflater *z, const uint8_t *dict, size_t n)
{
    isal_inflate_init(&z->isal);
    /* Raw deflate; ISA-L keeps the CRC-32 of the output as it goes. */
    z->isal.crc_flag = ISAL_GZIP_NO_HDR;
    if (dict && n &&
        isal_inflate_set_dict(&z->isal, (uint8_t *)dict, (uint32_t)n) !=
            ISAL_DECOMP_OK)
        return -1;
    return 0;
}

/* Returns 1 at the end of the deflate data, 0 to go on, -1 on an error.
 * *in_used counts only the bytes that belong to the deflate data. */
static int backend_run(inflater *z, const uint8_t *in, size_t in_len,
                       size_t *in_used, uint8_t *out, size_t out_len,
                       size_t *out_used)
{
    struct inflate_state *s = &z->isal;
    const uint32_t cap = UINT32_MAX / 2;
    s->next_in = (uint8_t *)in;
    s->avail_in = (uint32_t)(in_len < cap ? in_len : cap);
    s->next_out = out;
    s->avail_out = (uint32_t)(out_len < cap ? out_len : cap);
    int r = isal_inflate(s);
    *in_used = (size_t)(s->next_in - in);
    *out_used = (size_t)(s->next_out - out);
    if (r < 0)
        return -1;
    if (s->block_state != ISAL_BLOCK_FINISH)
        return 0;
    /* ISA-L reads ahead: whole bytes still in its bit buffer were not
     * part of the stream (the rest of the last byte is padding). Those
     * taken in this call are given back; older ones are carried. */
    size_t extra = (size_t)(s->read_in_length / 8);
    unsigned pad = (unsigned)(s->read_in_length % 8);
    if (extra <= *in_used) {
        *in_used -= extra;
    } else {
        size_t old = extra - *in_used;
        for (size_t i = 0; i < old; i++)
            z->carry[i] = (uint8_t)(s->read_in >> (pad + 8 * i));
        z->carry_len = old;
        *in_used = 0;
    }
    z->crc = s->crc;
    return 1;
}
#else
static int backend_reset(inflater *z, const uint8_t *dict, size_t n)
{
    if (!z->zs_ready) {
        if (inflateInit2(&z->zs, -MAX_WBITS) != Z_OK)
            return -1;
        z->zs_ready = 1;
    } else if (inflateReset(&z->zs) != Z_OK) {
        return -1;
    }
    if (dict && n && inflateSetDictionary(&z->zs, dict, (uInt)n) != Z_OK)
        return -1;
    return 0;
}

static int backend_run(inflater *z, const uint8_t *in, size_t in_len,
                       size_t *in_used, uint8_t *out, size_t out_len,
                       size_t *out_used)
{
    const size_t cap = (size_t)1 << 30; /* avail_* are 32-bit */
    z->zs.next_in = (Bytef *)in;
    z->zs.avail_in = (uInt)(in_len < cap ? in_len : cap);
    z->zs.next_out = out;
    z->zs.avail_out = (uInt)(out_len < cap ? out_len : cap);
    int r = inflate(&z->zs, Z_NO_FLUSH);
    *in_used = (size_t)(z->zs.next_in - in);
    *out_used = (size_t)(z->zs.next_out - out);
    z->crc = gzcrc_update(z->crc, out, *out_used);
    if (r == Z_STREAM_END)
        return 1;
    if (r == Z_OK || r == Z_BUF_ERROR)
        return 0;
    return -1;
}
#endif

int inflater_reset(inflater *z, enum infl_mode mode, const uint8_t *dict,
                   size_t dict_len)
{
    z->mode = mode;
    z->state = mode == INFL_GZIP ? S_HEADER : S_DATA;
    z->err = 0;
    z->msg = NULL;
    z->crc = 0;
    z->size = 0;
    z->trailer_have = 0;
    z->carry_len = 0;
    gzf_begin(&z->hdr);
    if (backend_reset(z, mode == INFL_RAW ? dict : NULL, dict_len) != 0)
        return fail(z, INFL_E_MEMORY, "out of memory"), -1;
    return 0;
}

static int data(inflater *z, const uint8_t *in, size_t *in_len, uint8_t *out,
                size_t *out_len)
{
    size_t used_in, used_out;
    int r = backend_run(z, in, *in_len, &used_in, out, *out_len, &used_out);
    *in_len = used_in;
    *out_len = used_out;
    z->size += used_out;
    if (r < 0)
        return fail(z, INFL_E_DATA, "invalid deflate data");
    if (r == 1)
        z->state = z->mode == INFL_GZIP ? S_TRAILER : S_DONE;
    return INFL_OK;
}

static int trailer(inflater *z, const uint8_t *in, size_t *in_len)
{
    size_t k = GZF_TRAILER - z->trailer_have;
    if (k > *in_len)
        k = *in_len;
    memcpy(z->trailer + z->trailer_have, in, k);
    z->trailer_have += k;
    *in_len = k;
    if (z->trailer_have < GZF_TRAILER)
        return INFL_OK;
    if (gzf_le32(z->trailer) != z->crc)
        return fail(z, INFL_E_CRC, "incorrect data check");
    if (gzf_le32(z->trailer + 4) != (uint32_t)z->size)
        return fail(z, INFL_E_LENGTH, "incorrect length check");
    z->state = S_DONE;
    return INFL_END;
}

int inflater_run(inflater *z, const uint8_t *in, size_t *in_len, uint8_t *out,
                 size_t *out_len)
{
    size_t have = *in_len, room = *out_len, used = 0, made = 0;
    int r = INFL_OK;
    while (r == INFL_OK && z->state != S_DONE && z->state != S_FAILED) {
        size_t n = have - used, m = room - made;
        if (z->state == S_HEADER) {
            if (n == 0)
                break;
            int h = gzf_feed(&z->hdr, in + used, n, &n);
            used += n;
            if (h == GZF_BAD)
                r = fail(z, INFL_E_HEADER, z->hdr.why);
            else if (h == GZF_DONE)
                z->state = S_DATA;
            continue;
        }
        if (z->state == S_TRAILER) {
            if (z->carry_len) {
                size_t k = z->carry_len;
                r = trailer(z, z->carry, &k);
                memmove(z->carry, z->carry + k, z->carry_len - k);
                z->carry_len -= k;
                continue;
            }
            if (n == 0)
                break;
            r = trailer(z, in + used, &n);
            used += n;
            continue;
        }
        if (m == 0)
            break;
        int before = z->state;
        r = data(z, in + used, &n, out + made, &m);
        used += n;
        made += m;
        if (r == INFL_OK && z->state == before && n == 0 && m == 0)
            break; /* needs more input or room */
    }
    *in_len = used;
    *out_len = made;
    if (r == INFL_OK && z->state == S_DONE && z->mode == INFL_RAW)
        r = INFL_END;
    return r;
}
