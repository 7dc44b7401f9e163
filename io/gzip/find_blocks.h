/* Finds where decoding of a gzip stream can start without what comes
 * before: the speculative search of Knespel & Brunst ("Rapidgzip", HPDC
 * 2023, 3.2) and Kerbiriou & Chikhi (IPDPSW 2019). A candidate is
 *  - a gzip member header (RFC 1952 2.3: magic, method 8, no reserved
 *    flags, a usual XFL and OS, the whole header parsed) followed by a
 *    valid first block header;
 *  - a stored block's payload (RFC 1951 3.2.4): LEN = ~NLEN before it,
 *    the two BTYPE bits and the padding before them zero (as deflate
 *    encoders write them), and after the payload a valid block header;
 *  - a dynamic block header (RFC 1951 3.2.7) that zlib would accept: at
 *    most 286 literal/length and 30 distance codes, a complete code-length
 *    code, then every code length decoded and both codes built
 *    (io/gzip/huff_table.h).
 * Fixed-Huffman blocks are not searched for: almost any bits decode as
 * one. A candidate can still be false; whoever decodes from it learns so
 * when the decoding before it does not end exactly there. */
#ifndef COLSTAT_IO_GZIP_FIND_BLOCKS_H
#define COLSTAT_IO_GZIP_FIND_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "io/gzip/deflate_dec.h"

typedef struct bfind bfind;

bfind *bfind_new(void);
void bfind_free(bfind *f);

/* Searches bit positions [from, limit) of buf (the stream's bytes [base,
 * base + len), DDEC_PAD zero bytes after; eof when the stream ends
 * there), for member headers only (members_only) or for any candidate.
 * Returns 1 with the first candidate in *at; or 0 with *searched: every
 * position before it was searched (limit, or less when the buffer ended
 * first: then search on from there with more bytes). */
int bfind_next(bfind *f, const uint8_t *buf, size_t len, uint64_t base, int eof,
               int members_only, uint64_t from, uint64_t limit, gz_point *at,
               uint64_t *searched);

#endif
