/* A gzip stream inflated by several threads and delivered in order.
 *
 * Three ways, chosen per stream and per piece (io/gzip/internal.h has the
 * machinery):
 *  - sequential: one thread (threads <= 1, or an input smaller than two
 *    pieces) runs the fast one-thread inflater (io/gzip/inflate.h: ISA-L, or
 *    zlib) over every member;
 *  - members in parallel and one stream in parallel: the compressed
 *    bytes are cut into pieces of `piece_bytes`; a thread per piece finds
 *    its first gzip member header or deflate block (io/gzip/find_blocks.h),
 *    decodes from there, with the 32 KiB window before it unknown at
 *    first (16-bit output with markers), to the first block or member
 *    boundary at or past the piece's end; pieces are joined in order,
 *    each only if it started exactly where the one before ended, their
 *    markers then replaced by the real window (Kerbiriou & Chikhi,
 *    IPDPSW 2019; Knespel & Brunst, "Rapidgzip", HPDC 2023). A piece
 *    whose start turns out wrong, or that found no start, is decoded
 *    again from where the one before ended, with its window known.
 *
 * Nothing unchecked is ever delivered as final: every member's CRC-32
 * (of its pieces, combined as zlib's crc32_combine does) and ISIZE are
 * checked before the slice holding its end is handed over; the last
 * gzp_read returns 0 only once all of them and the stream's end checked
 * out; a truncated or damaged stream is an error, also after some bytes
 * were delivered. The output is byte for byte zlib's.
 *
 * Memory, whatever the stream's size or compression ratio: a pipe's
 * store of (threads + 4) x piece_bytes compressed bytes; per piece in flight
 * (threads + 2 of them) its decoded slices, at most 3 x piece_bytes elements
 * of 1 byte (2 while its window is unknown) plus 32 KiB of window each,
 * and 160 KiB of windows; per thread a 1 MiB input buffer and ~100 KiB
 * of decoder tables. A piece that decodes to more waits for the reader.
 * For 16 threads and the default 4 MiB piece: at most about 0.9 GiB,
 * about 0.3 GiB for text once the windows are known; 2 threads: 95 MiB. */
#ifndef COLSTAT_IO_GZIP_GZIP_H
#define COLSTAT_IO_GZIP_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io/base/error.h"
#include "io/gzip/input.h"

#define GZP_PIECE_DEFAULT ((size_t)4 << 20)
#define GZP_PIECE_MIN ((size_t)1 << 10)

typedef struct gzp_config {
    unsigned threads;   /* decoding threads; 0 or 1: sequential */
    size_t piece_bytes; /* compressed bytes per piece; 0: the default; a
                           small one (down to GZP_PIECE_MIN) is a test hook */
    size_t store;       /* a pipe's store of compressed bytes; 0: (threads
                           + 4) x piece_bytes; a small one is a test hook */
} gzp_config;

typedef struct gzp gzp;

/* Opens the gzip stream whose first head_len bytes the caller already
 * read (head; they must start with the magic 1f 8b), the rest coming
 * from r. name is for messages. Returns CS_OK, or CS_EDATA (e filled). */
int gzp_open(gzp **out, const gzin_reader *r, const uint8_t *head,
             size_t head_len, const char *name, const gzp_config *cfg,
             cs_error *e);

/* The same for a file descriptor, read with pread from several threads
 * when it is a regular file (from its current offset minus head_len),
 * else in order. The descriptor stays the caller's. */
int gzp_open_fd(gzp **out, int fd, const uint8_t *head, size_t head_len,
                const char *name, const gzp_config *cfg, cs_error *e);

/* Up to n inflated bytes, in order, blocking as needed. Returns the
 * count; 0 only at the verified end of the stream; -1 on an error (e
 * filled: "corrupt gzip data: ...", "unexpected end of gzip data
 * (truncated?)", "trailing garbage after gzip data", read errors). */
ssize_t gzp_read(gzp *g, void *buf, size_t n, cs_error *e);

/* What -v shows. */
typedef struct gzp_stats {
    int parallel;        /* 0: sequential */
    const char *mode;    /* "members in parallel" (more than one member),
                            "one stream in parallel", "sequential" */
    const char *why;     /* sequential: why ("one thread", "input smaller
                            than two pieces") */
    const char *decoder; /* the inflater: "ISA-L", "zlib", or "colstat"
                            for the parallel decoder */
    unsigned threads;
    uint64_t bytes_in;   /* compressed bytes read */
    uint64_t bytes_used; /* compressed bytes behind what was delivered
                            (progress; the stream's size at its end) */
    uint64_t bytes_out;  /* inflated bytes delivered */
    double seconds;      /* from gzp_open to the end (or to now) */
    uint64_t pieces;     /* pieces delivered (parallel) */
    uint64_t at_member;  /* of them, found their start at a member header */
    uint64_t at_block;   /* ... at a deflate block (dynamic or stored) */
    uint64_t redone;     /* ... decoded again from where the one before
                            ended (a false or no start): the first piece
                            started at the stream's start */
    uint64_t members;    /* gzip members checked */
} gzp_stats;

void gzp_get_stats(gzp *g, gzp_stats *st);

void gzp_close(gzp *g);

#endif
