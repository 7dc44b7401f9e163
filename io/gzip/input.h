/* The compressed bytes of one gzip stream, for several readers at once.
 * Stream offset 0 is the first byte the caller sniffed (the head bytes it
 * already read); a seekable input is then read by every reader with pread
 * at the offset it needs; a pipe is read once, in order, into a store.
 *
 * The store's one rule: bytes go only when released, and only the
 * consumer that is finished with them releases them: gzin_release (the
 * decoder's owner: the serial decoder as it consumes, the parallel reader
 * as it delivers a piece), or gzin_cursor_advance on a leading cursor
 * (the decoder of the piece being delivered, as its decoding moves on).
 * Reading through a cursor never releases anything, so a reader may look
 * ahead and come back. The store holds at most `cap` bytes: a reader
 * asking for more waits for room, except an urgent one (the piece being
 * delivered: its delivery is what makes room, so no wait is forever). */
#ifndef COLSTAT_IO_GZIP_INPUT_H
#define COLSTAT_IO_GZIP_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io/base/error.h"

/* Where the bytes after the head come from. read: the next bytes of the
 * stream (0 at its end, -1 on error with e filled). pread: NULL for a
 * pipe; else the bytes at stream offset off (head included; 0 at the
 * end). size: the stream's length in bytes when pread is given. */
typedef struct gzin_reader {
    void *ctx;
    ssize_t (*read)(void *ctx, void *buf, size_t n, cs_error *e);
    ssize_t (*pread)(void *ctx, void *buf, size_t n, uint64_t off, cs_error *e);
    uint64_t size;
} gzin_reader;

typedef struct gzin gzin;

/* Returns NULL when out of memory. */
gzin *gzin_new(const gzin_reader *r, const uint8_t *head, size_t head_len,
               size_t cap);
void gzin_free(gzin *g);

int gzin_seekable(const gzin *g);

/* The stream's size when known (seekable, or a pipe read to its end),
 * else UINT64_MAX. */
uint64_t gzin_size(gzin *g);

/* Compressed bytes taken from the reader so far. */
uint64_t gzin_bytes_read(gzin *g);

/* Every read from now on, and every wait for room, ends with GZIN_GONE:
 * the owner is shutting down. */
void gzin_cancel(gzin *g);

/* No reader will ask for bytes before off again (pipes free them). */
void gzin_release(gzin *g, uint64_t off);

/* A reader's view: buf[0..len) holds the stream's bytes [base, base+len),
 * followed by 64 zero bytes (io/gzip/deflate_dec.h's DDEC_PAD); eof when the
 * stream ends at base + len. */
typedef struct gzin_cursor {
    gzin *src;
    uint8_t *buf;
    size_t cap;
    uint64_t base;
    size_t len;
    int eof;
    int urgent; /* never waits for room */
    int leads;  /* urgent, and gzin_cursor_advance releases behind it */
} gzin_cursor;

#define GZIN_GONE (-2)

/* Makes c urgent, or leading (which is urgent too), from any thread. */
void gzin_cursor_set_urgent(gzin_cursor *c, int leads);

/* Returns 0, or -1 when out of memory (e filled). */
int gzin_cursor_init(gzin_cursor *c, gzin *g, uint64_t at, size_t cap,
                     cs_error *e);
void gzin_cursor_done(gzin_cursor *c);

/* Drops the bytes before keep and reads on until at least `want` bytes
 * from keep are held, the buffer is full or the stream ends. Returns 0;
 * -1 on a read error (e filled); GZIN_GONE when a pipe's bytes at keep
 * were released (the reader is no longer needed). */
int gzin_cursor_fill(gzin_cursor *c, uint64_t keep, size_t want, cs_error *e);

/* gzin_cursor_fill for a decoder moving forward: a leading cursor first
 * releases the bytes before keep. */
int gzin_cursor_advance(gzin_cursor *c, uint64_t keep, size_t want,
                        cs_error *e);

#endif
