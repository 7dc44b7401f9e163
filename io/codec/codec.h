/* Decoders of compressed input, private to io/. io/source/source owns the
 * descriptor and the compressed bytes read from it (codec_in); a codec
 * turns them into the data. One file a format: codec_gzip.c, codec_zstd.c,
 * codec_xz.c, codec_bz2.c; io/codec/magic.c knows them by their magic bytes. */
#ifndef COLSTAT_IO_CODEC_CODEC_H
#define COLSTAT_IO_CODEC_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io/base/error.h"
#include "io/codec/magic.h"

/* The compressed bytes of one input: buf[pos, len) are read and not yet
 * consumed. A codec moves pos past what it consumes (so pos always says
 * how far decoding got) and calls refill when it needs more. */
typedef struct codec_in {
    unsigned char *buf;
    size_t cap, pos, len;
    int eof;           /* read(2) has returned 0: no byte will follow */
    int regular;       /* a regular file, not a pipe or a terminal */
    int fd;            /* for a decoder that reads a regular file by ranges */
    uint64_t size;     /* a regular file's size at open, else 0 */
    uint64_t total;    /* bytes read(2) from fd so far */
    const char *name;  /* the input's name, for messages */
    unsigned threads;  /* decoding threads a codec may use (0, 1: one) */
    size_t gzip_piece; /* gzip: compressed bytes per piece (0: default) */
    /* Moves buf[pos, len) to the front and reads once after it. Returns 1
     * with new bytes, 0 at the end of the input, -1 on error (e filled;
     * also when a regular file changed size while being read). */
    int (*refill)(struct codec_in *in, cs_error *e);
} codec_in;

/* A decoder. open starts one on in, whose bytes at pos begin with the
 * format's magic; read decodes up to n bytes into out and returns the
 * count, 0 once the data has ended and all of it was checked (an end
 * that is sticky), -1 on error (e filled, status CS_EDATA). A truncated or
 * corrupt stream, or bytes after the last stream that the format's rule
 * does not allow, are errors. On a regular file read fills out whole
 * until the end; on a pipe it may return less rather than wait. */
typedef struct codec_ops {
    const char *name; /* "gzip": messages, source_format_name */
    const char *cli;  /* the command that decodes it: "gzip -dc" */
    int (*open)(codec_in *in, void **state, cs_error *e);
    ssize_t (*read)(void *state, codec_in *in, unsigned char *out, size_t n,
                    cs_error *e);
    void (*close)(void *state);
    /* -v: how the stream was decoded, one line into buf (NULL: nothing
     * to say beyond the format). */
    void (*describe)(void *state, char *buf, size_t n);
} codec_ops;

extern const codec_ops codec_gzip_ops, codec_zstd_ops, codec_xz_ops,
    codec_bz2_ops;

/* ---- Shared by the streaming decoders (io/codec/codec.c) ---- */

/* Where decoded bytes go: out[done, n) is free. */
typedef struct codec_out {
    unsigned char *p;
    size_t n, done;
} codec_out;

/* One step of a streaming decoder: decode, refill or cross a stream
 * boundary. Returns 1 to go on, 0 when the data has ended, -1 on error. */
typedef int (*codec_step)(void *state, codec_in *in, codec_out *out,
                          cs_error *e);

/* The read loop every streaming decoder shares: steps until out is full or
 * the data ends (*ended set, sticky); on a pipe returns what is decoded
 * as soon as the buffered input is used up, rather than wait. */
ssize_t codec_pump(void *state, codec_step step, int *ended, codec_in *in,
                   unsigned char *out, size_t n, cs_error *e);

/* What may follow the end of a stream (member, frame): nothing, another
 * stream, or where the format allows it zero padding. */
typedef struct codec_next_rule {
    const char *name;            /* the format, for messages */
    const magic_pattern *starts; /* what begins a stream: any of these */
    size_t nstarts;
    size_t zero_pad;      /* 0: none allowed; k: a run of zeros whose
                             length is a multiple of k */
    int stream_after_pad; /* another stream may follow the padding */
} codec_next_rule;

/* After the end of a stream: returns 1 when another one begins at
 * in->pos, 0 when the data has ended (padding consumed), -1 on error
 * ("trailing garbage after NAME data", a stream cut inside its magic). */
int codec_next_stream(codec_in *in, const codec_next_rule *rule, cs_error *e);

/* The message for input that ends inside a stream. Returns -1. */
int codec_truncated(const codec_in *in, const char *name, cs_error *e);

#endif
