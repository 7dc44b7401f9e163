/* The parts of io/gzip/deliver.c's machinery, shared by its three files:
 * deliver.c (the API and the reader that delivers slices in
 * order), chain.c (which piece follows which: links, windows,
 * redoes) and decode_threads.c (the decoding threads). One mutex guards all
 * of a gzp; slices move between the threads whole.
 *
 * A piece j covers the compressed bytes [j*piece_bytes, (j+1)*piece_bytes)
 * nominally.
 * Its result starts at a point (io/gzip/deflate_dec.h) and ends at the first
 * point at or past (j+1)*piece_bytes, or at the stream's end. Its link says
 * whether its start is the end of piece j-1's accepted result: unknown,
 * ok, or bad (then it is decoded again, a redo, from that end with the
 * window known). Pieces j < cur are delivered; piece cur is being
 * delivered; pieces up to cur + slots are in flight. */
#ifndef COLSTAT_IO_GZIP_INTERNAL_H
#define COLSTAT_IO_GZIP_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "io/gzip/decode_piece.h"
#include "io/gzip/deflate_dec.h"
#include "io/gzip/gzip.h"
#include "io/gzip/input.h"
#include "io/gzip/serial.h"
#include "io/gzip/slice.h"

enum piece_state {
    PS_FREE,    /* slot unused */
    PS_RUN,     /* a thread searches or decodes */
    PS_DONE,    /* decoded to its end point or the stream's end */
    PS_FAIL,    /* decoding failed (err) */
    PS_NOSTART, /* no start in its range */
    PS_WAIT,    /* cancelled: waits for a redo */
};

enum link_state { LK_UNKNOWN, LK_OK, LK_BAD };

/* The roles of a piece's cursor in the pipe store (io/gzip/input.h): the
 * piece being delivered never waits for room; once accepted, its decoding
 * lets go of what it passed (no piece that can still be accepted starts
 * before it). */
enum cursor_role { CR_NONE, CR_URGENT, CR_LEADS };

typedef struct piece {
    uint64_t idx;
    unsigned version; /* bumped when its result is thrown away */
    int state, link;
    int has_start, redo, eos;
    gz_point start, end;
    int err;
    char msg[96];
    cs_error io;
    gz_slice *q_head, *q_tail; /* decoded, not yet delivered */
    size_t q_len;
    uint64_t out_total;
    int workers;         /* threads on it (0 or 1) */
    int retired;         /* delivered (or abandoned): slot reusable */
    gzin_cursor *cursor; /* its thread's, while it runs */
    int role; /* what its cursor was made: 0, CR_URGENT or CR_LEADS */
    int redo_wanted, taken;
    gz_point redo_from;
    /* The window before it (32768 bytes, the last win_valid valid) and
     * after it (its last 32 KiB of output: bytes, or 16-bit elements
     * until its own window is known). */
    int win_known, tail_known, tail_wide;
    size_t win_valid, tail_valid, tail_len;
    uint8_t win[DDEC_WINDOW];
    uint8_t tail[DDEC_WINDOW];
    uint16_t tail16[DDEC_WINDOW];
} piece;

struct gzp {
    char *name;
    void *fd_ctx; /* gzp_open_fd's reader, freed with the gzp */
    gzin *in;
    unsigned threads, nslots;
    size_t piece_bytes, slice_elems, held_max, cursor_cap;
    int parallel;
    const char *why;
    gzs *serial;
    double t0, t_end;
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_out, cv_room;
    piece *slots;
    uint64_t next, cur, npieces;
    int stopping;
    pthread_t *tids;
    void **workers; /* decode_threads.c's */
    unsigned started;
    gz_slice *pool;
    size_t pool_len;
    /* The reader's side. */
    gz_slice *out;
    size_t out_pos;
    int redo_active;
    piece *redo_piece; /* what the reader decodes itself */
    piece beyond;      /* past the last piece (see next_slice) */
    gzpiece *rgz;
    struct bfind *rfind;
    gzin_cursor rcur;
    gz_point prev_end;
    uint64_t piece_out;       /* bytes of piece cur taken for delivery */
    uint8_t win[DDEC_WINDOW]; /* the window before piece cur */
    size_t win_valid;
    uint8_t roll[2 * DDEC_WINDOW]; /* the last bytes delivered */
    size_t roll_len;
    uint64_t since_member;
    uint32_t crc;
    uint64_t mlen;
    int done, failed;
    cs_error err;
    uint64_t bytes_out, pieces, redone, members;
    uint64_t starts[4]; /* pieces accepted by how they started */
};

static inline piece *gzp_slot(gzp *g, uint64_t j)
{
    return &g->slots[j % g->nslots];
}

/* Lock held by the callers of all of these. */

/* Settles links, hands windows on, finds tails, asks for redoes, from
 * piece cur on, as far as what is known allows. */
void gzp_chain(gzp *g);

/* Throws piece p's result away (its thread stops at its next look). */
void gzp_cancel(gzp *g, piece *p);

/* A slice from the pool (lock NOT held: it takes it). */
gz_slice *gzp_slice_get(void *g);
void gzp_slice_put(gzp *g, gz_slice *s);

/* How piece p's decoding by c ended: its tail, taken from its last slice
 * before that is handed over; then the end itself (r: GZC_DONE or
 * GZC_FAIL), once the last slice is queued. */
void gzp_record_tail(piece *p, gzpiece *c, const gz_slice *last);
void gzp_record_end(piece *p, gzpiece *c, int r);

/* The window a redo of piece j starts with, or NULL while unknown. */
const uint8_t *gzp_pred_window(gzp *g, uint64_t j, size_t *valid);

/* Piece p taken to be decoded again from its redo point, with win (valid
 * bytes of it) as the window before: by the reader or a worker. */
void gzp_take_redo(piece *p, const uint8_t *win, size_t valid);

/* Where piece j's block junctions start to count (decode_piece.h's
 * block_stop): past the next piece's range when that holds a member
 * header (piece j then ends at the member boundary the next one starts
 * at), else at its own end. Reads the next range through cur. */
uint64_t gzp_block_stop(gzp *g, struct bfind *f, gzin_cursor *cur, uint64_t j);

/* Starts and stops the decoding threads. */
int gzp_workers_start(gzp *g);
void gzp_workers_stop(gzp *g);

#endif
