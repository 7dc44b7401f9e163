/* A slice: a run of decoded output of one piece of a gzip stream, in the
 * order of the stream, with the member ends that fall inside it.
 *
 * Its memory holds `hist` elements of history (the output before it, so
 * that the decoder can refer back into it; not delivered) followed by the
 * `n` elements of output. Elements are bytes, or while the window before
 * the piece is unknown 16-bit values: a byte b as b, byte k of the
 * unknown 32 KiB window as 256 + k (io/gzip/deflate_dec.h). gzslice_resolve
 * turns such a slice into bytes once the window is known.
 *
 * A member ends inside the slice at each cut: output offset `at`, with the
 * member's trailer (CRC-32 and ISIZE, RFC 1952 2.3.1). seg_crc[i] is the
 * CRC-32 of the output between cut i-1 (or the slice's start) and cut i
 * (or its end): computed by gzslice_finish for byte slices, by
 * gzslice_resolve for the others. */
#ifndef COLSTAT_IO_GZIP_SLICE_H
#define COLSTAT_IO_GZIP_SLICE_H

#include <stddef.h>
#include <stdint.h>

typedef struct gz_cut {
    size_t at;
    uint32_t crc;
    uint32_t isize;
} gz_cut;

typedef struct gz_slice {
    uint8_t *mem;
    size_t cap; /* elements the memory holds (plus DDEC_OUT_SLACK) */
    size_t hist, n;
    int wide;
    gz_cut *cuts;
    size_t ncut, cut_cap;
    uint32_t *seg_crc; /* ncut + 1 values, once crc_done */
    size_t seg_cap;
    int crc_done;
    /* For the owner's lists and its threads (io/gzip/deliver.c): being
     * resolved by a thread; refers before its member; thrown away while
     * busy (the resolving thread frees it). */
    struct gz_slice *next;
    int busy, bad, orphan;
} gz_slice;

/* A slice of cap elements, empty. NULL when out of memory. */
gz_slice *gzslice_new(size_t cap);
void gzslice_free(gz_slice *s);

/* Empties a slice for reuse (width, history and cuts cleared). */
void gzslice_reset(gz_slice *s);

/* Notes a member end at the current end of the output. Returns 0, or -1
 * when out of memory. */
int gzslice_cut(gz_slice *s, uint32_t crc, uint32_t isize);

/* Computes seg_crc of a byte slice. Returns 0, or -1 (out of memory). */
int gzslice_finish(gz_slice *s);

/* Replaces the markers of a 16-bit slice by the window's bytes and makes
 * it a byte slice, without CRCs: gzslice_resolve's first half. */
int gzslice_narrow(gz_slice *s, const uint8_t *window, size_t valid);

/* Replaces the markers of a 16-bit slice by the window's bytes (window:
 * the 32768 bytes before the piece, of which the last `valid` belong to
 * the member, the others may not be referred to) and makes it a byte
 * slice, CRCs included. Returns 0, -1 when out of memory, or 1 when the
 * output refers to a byte before the member (zlib's "invalid distance too
 * far back"). */
int gzslice_resolve(gz_slice *s, const uint8_t *window, size_t valid);

/* The element at index i (history included) as a 16-bit value. */
static inline unsigned gzslice_at(const gz_slice *s, size_t i)
{
    return s->wide ? ((const uint16_t *)(const void *)s->mem)[i] : s->mem[i];
}

#endif
