/* Decodes one piece of a gzip stream: from a start point (a member header,
 * a dynamic block header or a stored block's payload; io/gzip/deflate_dec.h)
 * to the first such point at or past a stop position, or to the end of
 * the stream, as a sequence of slices (io/gzip/slice.h). Member framing is
 * here: header (io/gzip/member.h), deflate data, trailer (noted as a cut in
 * the slice), then what follows: another member, zero padding to the end
 * (accepted, as GNU gzip does), or trailing garbage (an error).
 *
 * When the 32 KiB window before the start is not known, the output is
 * 16-bit with markers until one of: the last 32 KiB of output hold no
 * marker (checked at block ends; then bytes from there on); a member
 * starts; the owner gives the window (gzpiece_give_window). */
#ifndef COLSTAT_IO_GZIP_DECODE_PIECE_H
#define COLSTAT_IO_GZIP_DECODE_PIECE_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"
#include "io/gzip/deflate_dec.h"
#include "io/gzip/input.h"
#include "io/gzip/slice.h"

typedef struct gzpiece gzpiece;

/* Where empty slices come from: get returns one of cap elements or NULL
 * when out of memory. */
typedef struct gzpiece_alloc {
    void *ctx;
    gz_slice *(*get)(void *ctx);
} gzpiece_alloc;

enum gzpiece_status {
    GZC_SLICE,    /* *out: a finished slice; more follow */
    GZC_PROGRESS, /* a block ended, no slice yet (a chance to give the
                     window) */
    GZC_DONE,     /* *out: the last slice; gzpiece_end_* say where it ended */
    GZC_FAIL,     /* *out: the slice decoded before the error; gzpiece_fail */
};

enum gzpiece_error {
    GZE_DATA = 1,  /* corrupt data: the message says what */
    GZE_TRUNCATED, /* the stream ends inside a member */
    GZE_GARBAGE,   /* neither a member nor zero padding after a member */
    GZE_READ,      /* the reader failed: cs_error */
    GZE_MEMORY,
    GZE_GONE,   /* a pipe's bytes were let go: the piece is no longer needed */
    GZE_CRC,    /* a member's CRC-32 differs from its trailer's */
    GZE_LENGTH, /* a member's length differs from its ISIZE */
    GZE_INTERNAL, /* the decoder's own bookkeeping disagrees (a bug) */
};

/* Fills e with the one-line message for an error of that kind in the
 * stream called name (msg: GZE_DATA's detail; io: GZE_READ's error).
 * Every gzip decoder in io/ reports through this, so a damaged stream
 * reads the same whatever decoded it. Returns CS_EDATA. */
int gzpiece_report(cs_error *e, const char *name, int kind, const char *msg,
                   const cs_error *io);

gzpiece *gzpiece_new(gzpiece_alloc alloc);
void gzpiece_free(gzpiece *c);

/* window: NULL when unknown, else 32768 bytes whose last `valid` are the
 * output before start. The piece ends at the first member boundary at or
 * past bit `stop`, or the first block junction at or past `block_stop`
 * (>= stop), whichever comes first. first: start is the stream's first
 * byte. Returns 0, or -1 when out of memory. */
int gzpiece_begin(gzpiece *c, gzin_cursor *in, const gz_point *start,
                  const uint8_t *window, size_t valid, uint64_t stop,
                  uint64_t block_stop, int first);

int gzpiece_next(gzpiece *c, gz_slice **out);

/* The window became known: bytes from here on (the current slice is
 * resolved in place). Returns 0, or -1 when the output already refers to
 * bytes before the member (the next gzpiece_next fails). */
int gzpiece_give_window(gzpiece *c, const uint8_t *window, size_t valid);

int gzpiece_wide(const gzpiece *c);

/* Stops decoding; returns the slice being filled (NULL if none), the
 * caller's to free. */
gz_slice *gzpiece_abandon(gzpiece *c);

/* After GZC_DONE: at the end of the stream, or at a point. */
int gzpiece_end_eos(const gzpiece *c);
void gzpiece_end_point(const gzpiece *c, gz_point *out);

/* Output elements so far, and how many of the last 32768 belong to the
 * current member (32768 while the window is unknown and no member
 * started: the markers stand for it). */
uint64_t gzpiece_out_total(const gzpiece *c);
size_t gzpiece_hist_valid(const gzpiece *c);

/* After GZC_FAIL: the error's kind, its message (GZE_DATA) and, for
 * GZE_READ and GZE_MEMORY, the reader's error. */
int gzpiece_fail_kind(const gzpiece *c);
const char *gzpiece_fail_msg(const gzpiece *c);
const cs_error *gzpiece_fail_io(const gzpiece *c);

#endif
