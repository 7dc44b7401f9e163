/* Decode tables for deflate's canonical Huffman codes (RFC 1951, 3.2.2),
 * with zlib's rules for which codes are acceptable, so that every decoder
 * built on them accepts exactly the streams zlib accepts: an
 * over-subscribed code is refused; an incomplete code is refused, except a
 * literal/length or distance code made of one code of length 1 (zlib
 * allows it; the unused bit pattern decodes to an invalid code); a
 * distance code with no codes at all is allowed (any distance in the
 * block is then invalid).
 *
 * A table is looked up with the next HUFF_*_BITS bits of the stream (least
 * significant bit first, as deflate packs them). An entry is 32 bits:
 *   bits  0..3   code length in bits (the whole code, also for entries
 *                reached through a subtable)
 *   bits  4..7   extra bits after the code (lengths, distances); for
 *                HUFF_SUB the subtable's index width; for HUFF_LIT the
 *                number of literals (1, or 2 after huff_pair_literals)
 *   bits  8..23  value: literal byte (two: the first in bits 8..15),
 *                length or distance base, or for HUFF_SUB the subtable's
 *                offset in the same array
 *   bits 27..31  kind (one of the HUFF_* flags)
 * A HUFF_SUB entry's subtable is indexed by the bits after the first
 * HUFF_*_BITS ones. Code-length code entries are HUFF_LIT with the symbol
 * (0..18) as value. */
#ifndef COLSTAT_IO_GZIP_HUFF_TABLE_H
#define COLSTAT_IO_GZIP_HUFF_TABLE_H

#include <stdint.h>

#define HUFF_LIT 0x80000000u /* literal byte (code-length symbol) */
#define HUFF_LEN 0x40000000u /* length, or distance in a distance table */
#define HUFF_EOB 0x20000000u /* end of block */
#define HUFF_SUB 0x10000000u /* pointer to a subtable */
#define HUFF_BAD 0x08000000u /* not a valid code */

#define HUFF_LITLEN_BITS 11
#define HUFF_DIST_BITS 8
#define HUFF_CODELEN_BITS 7
/* Primary entries plus the largest number of subtables (one per long
 * code at most) of the largest size (15-bit codes). */
#define HUFF_LITLEN_SIZE ((1 << HUFF_LITLEN_BITS) + 288 * (1 << (15 - 11)))
#define HUFF_DIST_SIZE ((1 << HUFF_DIST_BITS) + 32 * (1 << (15 - 8)))
#define HUFF_CODELEN_SIZE (1 << HUFF_CODELEN_BITS)

enum huff_kind { HUFF_T_LITLEN, HUFF_T_DIST, HUFF_T_CODELEN };

static inline unsigned huff_len(uint32_t e)
{
    return e & 15;
}

static inline unsigned huff_extra(uint32_t e)
{
    return (e >> 4) & 15;
}

static inline unsigned huff_value(uint32_t e)
{
    return (e >> 8) & 0xffff;
}

/* Fills table (HUFF_*_SIZE entries for kind) for the code lengths
 * lens[0..n). Returns 0, or -1 when zlib would refuse the code. */
int huff_build(uint32_t *table, enum huff_kind kind, const uint8_t *lens,
               unsigned n);

/* Where a literal's code leaves room in the primary lookup for the whole
 * code of a second literal, makes the entry decode both (one lookup for
 * two bytes: most of text). Only for decoding: the codes are unchanged. */
void huff_pair_literals(uint32_t *table);

/* The fixed codes of RFC 1951, 3.2.6 (built once, shared, read-only). */
const uint32_t *huff_fixed_litlen(void);
const uint32_t *huff_fixed_dist(void);

#endif
