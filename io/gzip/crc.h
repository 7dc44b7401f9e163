/* CRC-32 of gzip members (RFC 1952, 8), computed in pieces by several
 * threads and joined in order: crc_combine gives the CRC of A followed by B
 * from the CRCs of A and B and the length of B (zlib's crc32_combine). The
 * pieces use ISA-L's folding CRC where the build has it, zlib's otherwise;
 * both give the same values. */
#ifndef COLSTAT_IO_GZIP_CRC_H
#define COLSTAT_IO_GZIP_CRC_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of buf appended to data whose CRC-32 is crc (0 for none). */
uint32_t gzcrc_update(uint32_t crc, const uint8_t *buf, size_t n);

/* The CRC-32 of A then B, from crc_a, crc_b and B's length. */
uint32_t gzcrc_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

#endif
