/* The bytes of a state and the one line of text that carries them
 * (state.h). Numbers are LEB128 varints (signed ones zigzag-mapped first,
 * as Protocol Buffers' encoding guide describes), doubles their 8 IEEE
 * bytes little-endian, texts a varint length then the bytes; the line is
 * those bytes in base64 (RFC 4648, section 4, no padding). Each value has
 * exactly one encoding: a reader that meets another (an overlong varint,
 * base64 whose unused bits are not zero) marks the input bad, so that a
 * state read and written again gives the same bytes. */
#ifndef COLSTAT_SRC_DIST_STATE_CODEC_H
#define COLSTAT_SRC_DIST_STATE_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes out: a growing buffer; oom once a growth failed (then no more is
 * written). */
typedef struct sc_out {
    unsigned char *p;
    size_t n, cap;
    int oom;
} sc_out;

void sc_put(sc_out *o, const void *b, size_t n);
void sc_put_u64(sc_out *o, uint64_t v);
void sc_put_i64(sc_out *o, int64_t v);
void sc_put_f64(sc_out *o, double v);
void sc_put_text(sc_out *o, const char *s);
void sc_put_crc(sc_out *o); /* CRC-32 of all so far, 4 bytes LE */

/* Bytes in: bad once a read ran past the end or met a value of another
 * encoding; why says what, when known (the first reason stays). */
typedef struct sc_in {
    const unsigned char *p;
    size_t n, at;
    int bad;
    const char *why;
} sc_in;

void sc_bad(sc_in *i, const char *why);
const unsigned char *sc_take(sc_in *i, size_t n);
uint64_t sc_get_u64(sc_in *i);
int64_t sc_get_i64(sc_in *i);
uint32_t sc_get_u32(sc_in *i); /* a varint of at most 2^32 - 1 */
double sc_get_f64(sc_in *i);
/* A malloc'ed copy of a text of at most max bytes and no NUL (it is used
 * as a C string: a NUL inside would make two texts compare equal). */
char *sc_get_text(sc_in *i, uint32_t max);
/* Whether the 4 bytes LE at p[n - 4] are the CRC-32 of p[0, n - 4). */
int sc_crc_ok(const unsigned char *p, size_t n);

/* The line: prefix, then base64 of p[0, n), then a newline. Returns 0, or
 * -1 on a write error. */
int sc_line_write(FILE *f, const char *prefix, const unsigned char *p,
                  size_t n);

/* Reading a line's base64 back, as it arrives: sc_line_feed gives one
 * character; the decoded bytes grow in out. */
typedef struct sc_b64 {
    uint32_t acc; /* bits not yet made a byte */
    int nbits;    /* how many */
    int k;        /* characters of the group of 4 so far */
} sc_b64;

/* 1: c was a base64 character, its bytes (if it completed one) appended;
 * 0: c is not one; -1: out of memory. */
int sc_b64_feed(sc_b64 *b, sc_out *out, int c);
/* At the line's end: 0 when the last group's unused bits are zero and it
 * is not a lone character, else -1. */
int sc_b64_end(const sc_b64 *b);

#endif
