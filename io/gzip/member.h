/* The gzip member wrapper (RFC 1952, 2.3): the header, parsed as bytes
 * arrive (a name or comment may be of any length), and the 8-byte trailer.
 * Every decoder in io/ reads members through this one parser, so all of
 * them accept and refuse the same headers, with zlib's rules: magic 1f 8b,
 * method 8, no reserved flag bits, FEXTRA/FNAME/FCOMMENT skipped, FHCRC
 * checked against the CRC-32 of the header bytes before it. */
#ifndef COLSTAT_IO_GZIP_MEMBER_H
#define COLSTAT_IO_GZIP_MEMBER_H

#include <stddef.h>
#include <stdint.h>

enum gzf_status {
    GZF_MORE = 0, /* header not complete yet: feed more bytes */
    GZF_DONE = 1, /* header complete */
    GZF_BAD = -1, /* not a valid header (gzf_parser.why says why) */
};

typedef struct gzf_parser {
    int state;
    unsigned flags;
    uint32_t need; /* bytes left in the current fixed-size field */
    uint32_t crc;  /* CRC-32 of the header so far, for FHCRC */
    uint16_t field;
    uint64_t len; /* header bytes consumed so far */
    const char *why;
} gzf_parser;

void gzf_begin(gzf_parser *p);

/* Consumes bytes of the header from buf[0..n); *used says how many.
 * Returns GZF_DONE (the header ended at buf + *used), GZF_MORE (all n
 * used) or GZF_BAD. */
int gzf_feed(gzf_parser *p, const uint8_t *buf, size_t n, size_t *used);

/* What follows a member (RFC 1952 2.2: members are concatenated), from
 * the bytes p[0..n) there; eof when the stream ends at p + n:
 * GZF_NEXT_END (nothing), GZF_NEXT_MEMBER (1f 8b, or 1f at the very end:
 * the header parser says what is wrong), GZF_NEXT_PADDING (zeros: GNU
 * gzip accepts zero padding to the end, as tapes and block devices
 * write), GZF_NEXT_GARBAGE (anything else), or GZF_NEXT_MORE (one more
 * byte is needed to tell). */
enum gzf_next {
    GZF_NEXT_MORE,
    GZF_NEXT_END,
    GZF_NEXT_MEMBER,
    GZF_NEXT_PADDING,
    GZF_NEXT_GARBAGE,
};
int gzf_after_member(const uint8_t *p, size_t n, int eof);

/* Little-endian 32-bit field, as the trailer's CRC-32 and ISIZE. */
uint32_t gzf_le32(const uint8_t *p);

#define GZF_TRAILER 8

#endif
