/* A raw deflate decoder (RFC 1951) that can start at any block boundary,
 * stop exactly at one, and write bytes or 16-bit symbols.
 *
 * Written for decoding one deflate stream in pieces on several threads
 * (io/gzip/gzip.h). A piece may start where the 32 KiB of output before
 * it are not known yet: it then writes 16-bit values, a byte b as b and a
 * reference to byte k of the unknown window (k = 0 the oldest of its 32768)
 * as 256 + k, the "markers" of Kerbiriou & Chikhi (IPDPSW 2019) and
 * Knespel & Brunst (HPDC 2023), replaced once the window is known.
 *
 * It accepts exactly what zlib accepts (io/gzip/huff_table.h has the code
 * rules; the block rules are zlib's too) and reports zlib's messages.
 *
 * Input: a buffer of the compressed stream with at least DDEC_PAD readable
 * bytes after its end; bit positions are absolute (from the stream's
 * first byte). Unless the buffer reaches the end of the stream, the
 * decoder stops (DDEC_NEED_INPUT) while DDEC_MARGIN bytes are still
 * unread, at a point where it can resume: the caller then gives a buffer
 * starting at or before ddec_pos / 8.
 *
 * Output: an array the caller owns; the decoder appends at a position and
 * may refer back to elements before it down to a floor (the oldest
 * element a back-reference may reach: the member's first byte or the
 * first byte of the known window). It stops (DDEC_OUT_FULL) before an
 * element could be written at or past cap - DDEC_OUT_SLACK; elements up
 * to cap may be scribbled on. */
#ifndef COLSTAT_IO_GZIP_DEFLATE_DEC_H
#define COLSTAT_IO_GZIP_DEFLATE_DEC_H

#include <stddef.h>
#include <stdint.h>

#define DDEC_PAD 64
#define DDEC_MARGIN 1024
#define DDEC_OUT_SLACK 288
#define DDEC_WINDOW 32768

/* A place where decoding can start and where the decoder can stop: the
 * junction of two pieces. */
enum gz_point_kind {
    GZP_BLOCK = 1,  /* a dynamic-Huffman block header at bit pos */
    GZP_STORED = 2, /* the payload of a stored block, at byte pos / 8, with
                       len bytes left; bfinal is its block's BFINAL */
    GZP_MEMBER = 3, /* a gzip member header at byte pos / 8 */
};

typedef struct gz_point {
    uint64_t pos;
    uint32_t len;
    uint8_t kind;
    uint8_t bfinal;
} gz_point;

int gz_point_equal(const gz_point *a, const gz_point *b);

enum ddec_status {
    DDEC_BOUNDARY,   /* at a junction at or past the stop (ddec_point) */
    DDEC_BLOCK_END,  /* a block ended (only when asked for) */
    DDEC_END,        /* the final block ended at ddec_pos */
    DDEC_OUT_FULL,   /* output array full */
    DDEC_NEED_INPUT, /* give more input */
    DDEC_ERROR,      /* invalid data (ddec_error) */
    DDEC_TRUNCATED,  /* the stream ends inside a block */
};

typedef struct ddec ddec;

ddec *ddec_new(void);
void ddec_free(ddec *d);

/* Start at the point (GZP_BLOCK: any block header; GZP_STORED: inside a
 * stored block). Clears the stop and the block-end reporting. */
void ddec_start(ddec *d, const gz_point *at);

void ddec_set_input(ddec *d, const uint8_t *buf, size_t len, uint64_t base,
                    int eof);

/* Output: 16-bit elements when wide, bytes otherwise. */
void ddec_set_output(ddec *d, void *buf, size_t pos, size_t cap, size_t floor,
                     int wide);
size_t ddec_out_pos(const ddec *d);

/* Stop at the first junction (a dynamic block header, or the payload of a
 * stored block) at bit position >= stop. UINT64_MAX: never. */
void ddec_set_stop(ddec *d, uint64_t stop);

/* Report DDEC_BLOCK_END after every block. */
void ddec_report_blocks(ddec *d, int on);

int ddec_run(ddec *d);

/* Bit position of the next bit to read. */
uint64_t ddec_pos(const ddec *d);

/* After DDEC_BOUNDARY: where the decoder stands. */
void ddec_point(const ddec *d, gz_point *out);

/* After DDEC_ERROR: zlib's message. */
const char *ddec_error(const ddec *d);

/* Whether a valid dynamic block header (zlib's rules) starts at bit pos
 * of buf (with DDEC_PAD bytes readable after len, bits past len read as
 * zeros). For the block finder; d's decoding state is lost. */
int ddec_probe_dynamic(ddec *d, const uint8_t *buf, size_t len, uint64_t pos);

#endif
