/* Deflate packs its bits least significant first: both readers of the bit
 * stream (the decoder and the block finder) take 64 of them at a time,
 * from any byte, with the stream's first byte in the low bits whatever
 * the host's byte order. Private to io/gzip/. */
#ifndef COLSTAT_IO_GZIP_LOAD64_H
#define COLSTAT_IO_GZIP_LOAD64_H

#include <stdint.h>
#include <string.h>

/* The 8 bytes at p as a little-endian integer; p need not be aligned. */
static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

#endif
