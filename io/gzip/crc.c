#include "io/gzip/crc.h"

#include <zlib.h>
#ifdef COLSTAT_HAVE_ISAL
#include <isa-l/crc.h>
#endif

uint32_t gzcrc_update(uint32_t crc, const uint8_t *buf, size_t n)
{
#ifdef COLSTAT_HAVE_ISAL
    /* crc32_gzip_refl takes a 64-bit length and continues from crc with
     * the same pre- and post-inversion as zlib's crc32. */
    return n ? crc32_gzip_refl(crc, (uint8_t *)buf, n) : crc;
#else
    return (uint32_t)crc32_z(crc, buf, n);
#endif
}

uint32_t gzcrc_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    /* z_off_t may be 32 bits wide. crc32_combine(a, 0, n) is a moved
     * over n bytes (the combination is linear: A's part shifted, XOR B's),
     * so a long B is crossed in steps z_off_t can hold. */
    const uint64_t step = (uint64_t)1 << 30;
    while (len_b > step) {
        crc_a = (uint32_t)crc32_combine(crc_a, 0, (z_off_t)step);
        len_b -= step;
    }
    return (uint32_t)crc32_combine(crc_a, crc_b, (z_off_t)len_b);
}
