/* gzip (RFC 1952) through colstat's parallel decoder (io/gzip/gzip.h):
 * a regular file is read with pread by every decoding thread, a pipe in
 * order as its bytes arrive; with one thread, the one-thread inflater
 * (ISA-L where built, zlib otherwise). Members, padding and trailing
 * garbage follow the rules gzp_read states, which are zlib's and GNU
 * gzip's: concatenated members read whole, zeros after the last member
 * accepted, anything else after it an error. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "io/codec/codec.h"
#include "io/gzip/gzip.h"

typedef struct gz_state {
    gzp *g;
    uint64_t total0; /* in->total at open, the head included */
    size_t head_len;
} gz_state;

static int gz_open(codec_in *in, void **state, cs_error *e)
{
    gz_state *s = calloc(1, sizeof *s);
    if (!s)
        return cs_fail(e, CS_ENOMEM, in->name, 0,
                       "out of memory starting the gzip decoder");
    gzp_config cfg = {.threads = in->threads, .piece_bytes = in->gzip_piece};
    s->head_len = in->len - in->pos;
    s->total0 = in->total;
    /* The descriptor's offset is just past the head: gzp_open_fd counts
     * the stream from the head's first byte. */
    int rc = gzp_open_fd(&s->g, in->fd, in->buf + in->pos, s->head_len,
                         in->name, &cfg, e);
    if (rc != CS_OK) {
        free(s);
        return rc;
    }
    in->pos = in->len;
    in->total -= s->head_len; /* nothing used yet: progress from here */
    *state = s;
    return CS_OK;
}

/* A regular file must not change size while read (io/source/source.c checks the
 * same for its own reads): pieces read with pread never see bytes
 * appended after the size taken at open. */
static int check_size(const codec_in *in, cs_error *e)
{
    struct stat st;
    if (!in->regular || in->size == 0 || fstat(in->fd, &st) != 0 ||
        (uint64_t)st.st_size == in->size)
        return 0;
    cs_fail(e, CS_EDATA, in->name, 0,
            "file %s while being read (%llu bytes at open, %llu now)",
            (uint64_t)st.st_size < in->size ? "shrank" : "grew",
            (unsigned long long)in->size, (unsigned long long)st.st_size);
    return -1;
}

static ssize_t gz_read(void *state, codec_in *in, unsigned char *out, size_t n,
                       cs_error *e)
{
    gz_state *s = state;
    ssize_t r = gzp_read(s->g, out, n, e);
    if (r == 0 && check_size(in, e) < 0)
        return -1;
    if (r >= 0) { /* source_raw_pos: compressed bytes used */
        gzp_stats st;
        gzp_get_stats(s->g, &st);
        in->total = s->total0 - s->head_len + st.bytes_used;
    }
    return r;
}

/* -v: "gzip: 1.234 s, 0.81 GB/s out, 2 threads, one stream in parallel
 * (colstat, 120 pieces: 3 at members, 117 at blocks, 0 redone)". */
static void gz_describe(void *state, char *buf, size_t n)
{
    gz_state *s = state;
    gzp_stats st;
    gzp_get_stats(s->g, &st);
    double gbps = st.seconds > 0 ? (double)st.bytes_out / st.seconds / 1e9 : 0;
    int k = snprintf(buf, n,
                     "gzip: %.3f s inflating, %.3f GB/s out, %.1f MB in, "
                     "%u thread%s, %s",
                     st.seconds, gbps, (double)st.bytes_in / 1e6, st.threads,
                     st.threads == 1 ? "" : "s", st.mode);
    if (k < 0 || (size_t)k >= n)
        return;
    if (st.parallel)
        snprintf(buf + k, n - (size_t)k,
                 " (%llu members, %llu pieces: %llu at a member, %llu at a "
                 "block, %llu redone)",
                 (unsigned long long)st.members, (unsigned long long)st.pieces,
                 (unsigned long long)st.at_member,
                 (unsigned long long)st.at_block,
                 (unsigned long long)st.redone);
    else
        snprintf(buf + k, n - (size_t)k, " (%s; not parallel: %s)", st.decoder,
                 st.why ? st.why : "one thread");
}

static void gz_close(void *state)
{
    gz_state *s = state;
    if (!s)
        return;
    gzp_close(s->g);
    free(s);
}

const codec_ops codec_gzip_ops = {"gzip",  "gzip -dc", gz_open,
                                  gz_read, gz_close,   gz_describe};
