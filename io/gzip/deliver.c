/* io/gzip/gzip.h: choosing sequential or parallel decoding, and the
 * reader's side of the parallel one: pieces taken in order, each checked
 * to start where the one before ended (or decoded again from there),
 * 16-bit slices resolved with the window before their piece, every
 * member's CRC-32 and ISIZE checked before its end is handed over. */
#include "io/gzip/gzip.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/gzip/crc.h"
#include "io/gzip/find_blocks.h"
#include "io/gzip/inflate.h"
#include "io/gzip/internal.h"

/* Per thread, the input is read in pieces of at most this. */
#define CURSOR_CAP ((size_t)1 << 20)
/* Output slices: this many elements at most (fewer for small pieces). */
#define SLICE_MAX ((size_t)1 << 20)
/* A piece may hold this many times its compressed size in undelivered
 * output before its thread waits for the reader. */
#define HELD_RATIO 3

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int fail(gzp *g, int kind, const char *msg, const cs_error *io,
                cs_error *e)
{
    g->failed = 1;
    gzpiece_report(&g->err, g->name, kind, msg, io);
    *e = g->err;
    return -1;
}

/* The last bytes delivered, kept for the window of the next piece. */
static void roll(gzp *g, const uint8_t *p, size_t n)
{
    size_t k = n < DDEC_WINDOW ? n : DDEC_WINDOW;
    if (g->roll_len + k > sizeof g->roll) {
        size_t keep = DDEC_WINDOW - k;
        if (keep > g->roll_len)
            keep = g->roll_len;
        memmove(g->roll, g->roll + g->roll_len - keep, keep);
        g->roll_len = keep;
    }
    memcpy(g->roll + g->roll_len, p + n - k, k);
    g->roll_len += k;
}

/* Makes slice s of piece cur ready to deliver: bytes, CRCs, every member
 * ending in it checked. Returns 0 or -1 (e filled). */
static int prepare(gzp *g, gz_slice *s, cs_error *e)
{
    int r = 0;
    if (s->wide)
        r = gzslice_resolve(s, g->win, g->win_valid);
    else if (!s->crc_done)
        r = gzslice_finish(s);
    if (r != 0)
        return fail(g, r > 0 ? GZE_DATA : GZE_MEMORY, NULL, NULL, e);
    size_t from = 0;
    for (size_t i = 0; i <= s->ncut; i++) {
        size_t to = i < s->ncut ? s->cuts[i].at : s->n;
        g->crc = gzcrc_combine(g->crc, s->seg_crc[i], to - from);
        g->mlen += to - from;
        g->since_member += to - from;
        from = to;
        if (i == s->ncut)
            break;
        if (g->crc != s->cuts[i].crc)
            return fail(g, GZE_CRC, NULL, NULL, e);
        if ((uint32_t)g->mlen != s->cuts[i].isize)
            return fail(g, GZE_LENGTH, NULL, NULL, e);
        g->members++;
        g->crc = 0;
        g->mlen = 0;
        g->since_member = 0;
    }
    roll(g, s->mem + s->hist, s->n);
    return 0;
}

/* Piece cur is delivered: the next one starts where it ended, with its
 * last 32 KiB as window. Lock held. */
static void advance(gzp *g)
{
    piece *p = gzp_slot(g, g->cur);
    g->prev_end = p->end;
    g->pieces++;
    g->redone += p->redo;
    if (!p->redo && g->cur > 0)
        g->starts[p->start.kind & 3]++;
    p->retired = 1;
    gzp_cancel(g, p);
    g->cur++;
    size_t k = g->roll_len < DDEC_WINDOW ? g->roll_len : DDEC_WINDOW;
    memcpy(g->win + DDEC_WINDOW - k, g->roll + g->roll_len - k, k);
    g->win_valid = g->since_member < k ? (size_t)g->since_member : k;
    /* Nothing before the new piece's nominal start is read again (its
     * search looks 8 bytes back). */
    uint64_t lo = g->cur * g->piece_bytes;
    gzin_release(g->in, lo >= 8 ? lo - 8 : 0);
    pthread_cond_broadcast(&g->cv_work);
    gzp_chain(g);
}

/* Piece cur is wholly delivered: on to the next, or the end. Every byte
 * decoded must have been delivered, and the stream must end after a
 * member's trailer: checks against the decoder's own faults, which would
 * otherwise pass for a short stream. Lock held. */
static int finish_piece(gzp *g, piece *p, cs_error *e)
{
    if (g->piece_out != p->out_total || (p->eos && g->mlen != 0) ||
        (p->eos && g->members == 0))
        return fail(g, GZE_INTERNAL, NULL, NULL, e);
    g->piece_out = 0;
    if (!p->eos) {
        advance(g);
        return 0;
    }
    g->done = 1;
    g->t_end = now();
    return 0;
}

/* The reader decodes piece cur again itself, to the stop. Lock held (let
 * go while the decoder starts: it takes slices from the pool). */
static int take_redo(gzp *g, piece *p, uint64_t stop)
{
    gzp_take_redo(p, g->win, g->win_valid);
    g->redo_active = 1;
    g->redo_piece = p;
    gz_point start = p->start;
    uint64_t j = g->cur;
    /* g->win changes only in this thread: it can be read unlocked. */
    pthread_mutex_unlock(&g->mu);
    uint64_t block_stop =
        stop == UINT64_MAX ? stop : gzp_block_stop(g, g->rfind, &g->rcur, j);
    int r = gzpiece_begin(g->rgz, &g->rcur, &start, g->win, g->win_valid, stop,
                          block_stop, 0);
    pthread_mutex_lock(&g->mu);
    return r;
}

/* One slice of the reader's own redo into g->out. Lock held on entry and
 * exit. Returns 0, or -1 (e filled). */
static int redo_step(gzp *g, cs_error *e)
{
    piece *p = g->redo_piece;
    gz_slice *s = NULL;
    pthread_mutex_unlock(&g->mu);
    int r = gzpiece_next(g->rgz, &s);
    pthread_mutex_lock(&g->mu);
    if (r == GZC_DONE || r == GZC_FAIL) {
        /* Its slices are not queued: the end can be noted at once. */
        if (r == GZC_DONE)
            gzp_record_tail(p, g->rgz, s);
        gzp_record_end(p, g->rgz, r);
        g->redo_active = 0;
        gzp_chain(g);
        pthread_cond_broadcast(&g->cv_work);
    }
    if (r == GZC_FAIL) {
        gzp_slice_put(g, s);
        return fail(g, p->err, p->msg, &p->io, e);
    }
    if (s && (s->n || s->ncut)) {
        g->out = s;
        g->out_pos = 0;
        g->piece_out += s->n;
        pthread_mutex_unlock(&g->mu);
        int rc = prepare(g, s, e);
        pthread_mutex_lock(&g->mu);
        return rc;
    }
    gzp_slice_put(g, s);
    return 0;
}

/* Puts the next slice in g->out, or sets g->done. Returns 0 or -1. */
static int next_slice(gzp *g, cs_error *e)
{
    pthread_mutex_lock(&g->mu);
    int rc = 0;
    while (!g->out && !g->done && rc == 0) {
        if (g->redo_active) {
            rc = redo_step(g, e);
            continue;
        }
        if (g->npieces == UINT64_MAX && gzin_size(g->in) != UINT64_MAX)
            g->npieces =
                (gzin_size(g->in) + g->piece_bytes - 1) / g->piece_bytes;
        if (g->cur >= g->npieces) {
            /* The piece before ended at a junction past the last piece's
             * range (a stream cut short there): decode on from it. */
            piece *b = &g->beyond;
            memset(b, 0, offsetof(piece, win));
            b->redo_from = g->prev_end;
            if (take_redo(g, b, UINT64_MAX) != 0)
                rc = fail(g, GZE_MEMORY, NULL, NULL, e);
            continue;
        }
        piece *p = gzp_slot(g, g->cur);
        gzp_chain(g);
        if (g->cur >= g->next || p->idx != g->cur || p->retired) {
            pthread_cond_wait(&g->cv_out, &g->mu);
            continue;
        }
        if (p->link == LK_BAD) {
            if (p->redo_wanted && !p->taken) {
                if (take_redo(g, p, (g->cur + 1) * g->piece_bytes * 8) != 0)
                    rc = fail(g, GZE_MEMORY, NULL, NULL, e);
                continue;
            }
        } else if (p->link == LK_OK && p->q_head) {
            gz_slice *s = p->q_head;
            if (s->busy) { /* a thread resolves it */
                pthread_cond_wait(&g->cv_out, &g->mu);
                continue;
            }
            if (s->bad) {
                rc = fail(g, GZE_DATA, NULL, NULL, e);
                continue;
            }
            p->q_head = s->next;
            if (!p->q_head)
                p->q_tail = NULL;
            p->q_len--;
            pthread_cond_broadcast(&g->cv_room);
            g->out = s;
            g->out_pos = 0;
            g->piece_out += s->n;
            pthread_mutex_unlock(&g->mu);
            rc = prepare(g, s, e);
            pthread_mutex_lock(&g->mu);
            continue;
        } else if (p->link == LK_OK && p->state == PS_DONE) {
            rc = finish_piece(g, p, e);
            continue;
        } else if (p->link == LK_OK && p->state == PS_FAIL) {
            rc = fail(g, p->err, p->msg, &p->io, e);
            continue;
        }
        pthread_cond_wait(&g->cv_out, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
    return rc;
}

ssize_t gzp_read(gzp *g, void *buf, size_t n, cs_error *e)
{
    if (!g->parallel) {
        ssize_t r = gzs_read(g->serial, buf, n, e);
        if (r > 0)
            g->bytes_out += (uint64_t)r;
        else if (r == 0 && !g->t_end)
            g->t_end = now();
        return r;
    }
    if (g->failed) {
        *e = g->err;
        return -1;
    }
    size_t got = 0;
    while (got < n) {
        if (g->out) {
            size_t k = g->out->n - g->out_pos;
            if (k > n - got)
                k = n - got;
            memcpy((uint8_t *)buf + got,
                   g->out->mem + g->out->hist + g->out_pos, k);
            got += k;
            g->out_pos += k;
            if (g->out_pos == g->out->n) {
                pthread_mutex_lock(&g->mu);
                gzp_slice_put(g, g->out);
                pthread_mutex_unlock(&g->mu);
                g->out = NULL;
            }
            continue;
        }
        if (g->done)
            break;
        if (next_slice(g, e) != 0)
            return -1;
    }
    g->bytes_out += got;
    return (ssize_t)got;
}

static int setup_parallel(gzp *g)
{
    g->slots = calloc(g->nslots, sizeof *g->slots);
    g->rgz = gzpiece_new((gzpiece_alloc){.ctx = g, .get = gzp_slice_get});
    g->rfind = bfind_new();
    cs_error e = {0};
    if (!g->slots || !g->rgz || !g->rfind ||
        gzin_cursor_init(&g->rcur, g->in, 0, g->cursor_cap, &e) != 0)
        return -1;
    /* The reader decodes only accepted pieces being delivered. */
    g->rcur.urgent = g->rcur.leads = 1;
    g->prev_end = (gz_point){.kind = GZP_MEMBER, .pos = 0};
    g->npieces = gzin_seekable(g->in)
                     ? (gzin_size(g->in) + g->piece_bytes - 1) / g->piece_bytes
                     : UINT64_MAX;
    return gzp_workers_start(g);
}

int gzp_open(gzp **out, const gzin_reader *r, const uint8_t *head,
             size_t head_len, const char *name, const gzp_config *cfg,
             cs_error *e)
{
    *out = NULL;
    gzp *g = calloc(1, sizeof *g);
    if (!g)
        return cs_fail(e, CS_ENOMEM, name, 0, "out of memory");
    g->t0 = now();
    g->name = strdup(name);
    g->threads = cfg && cfg->threads > 1 ? cfg->threads : 1;
    g->piece_bytes =
        cfg && cfg->piece_bytes ? cfg->piece_bytes : GZP_PIECE_DEFAULT;
    if (g->piece_bytes < GZP_PIECE_MIN)
        g->piece_bytes = GZP_PIECE_MIN;
    g->nslots = g->threads + 2;
    g->slice_elems = g->piece_bytes < SLICE_MAX ? g->piece_bytes : SLICE_MAX;
    g->held_max = HELD_RATIO * g->piece_bytes / g->slice_elems;
    g->cursor_cap = CURSOR_CAP;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv_work, NULL);
    pthread_cond_init(&g->cv_out, NULL);
    pthread_cond_init(&g->cv_room, NULL);
    size_t store =
        cfg && cfg->store ? cfg->store : (g->nslots + 2) * g->piece_bytes;
    g->in = gzin_new(r, head, head_len, store);
    if (!g->name || !g->in) {
        gzp_close(g);
        return cs_fail(e, CS_ENOMEM, name, 0, "out of memory");
    }
    if (g->threads == 1)
        g->why = "one thread";
    else if (gzin_seekable(g->in) && gzin_size(g->in) < 2 * g->piece_bytes)
        g->why = "input smaller than two pieces";
    g->parallel = g->why == NULL;
    /* A small file needs no megabyte per thread to read it. */
    if (gzin_seekable(g->in) && gzin_size(g->in) + 4096 < g->cursor_cap)
        g->cursor_cap = (size_t)gzin_size(g->in) + 4096;
    int bad = g->parallel ? setup_parallel(g)
                          : !(g->serial = gzs_new(g->in, g->name));
    if (bad) {
        gzp_close(g);
        return cs_fail(e, CS_ENOMEM, name, 0,
                       "out of memory (or at the process limit) starting the "
                       "gzip decoder");
    }
    *out = g;
    return CS_OK;
}

void gzp_get_stats(gzp *g, gzp_stats *st)
{
    memset(st, 0, sizeof *st);
    st->parallel = g->parallel;
    st->why = g->why;
    st->threads = g->threads;
    st->bytes_out = g->bytes_out;
    st->seconds = (g->t_end ? g->t_end : now()) - g->t0;
    if (!g->parallel) {
        st->mode = "sequential";
        st->decoder = inflater_backend();
        st->members = gzs_members(g->serial);
        st->bytes_used = gzs_used(g->serial);
        st->bytes_in = gzin_bytes_read(g->in);
        if (gzin_seekable(g->in))
            st->bytes_in = gzin_size(g->in);
        return;
    }
    pthread_mutex_lock(&g->mu);
    st->decoder = "colstat";
    st->pieces = g->pieces;
    st->redone = g->redone;
    st->members = g->members;
    st->at_member = g->starts[GZP_MEMBER];
    st->at_block = g->starts[GZP_BLOCK] + g->starts[GZP_STORED];
    st->bytes_used = g->prev_end.pos / 8;
    st->mode =
        g->members > 1 ? "members in parallel" : "one stream in parallel";
    pthread_mutex_unlock(&g->mu);
    st->bytes_in =
        gzin_seekable(g->in) ? gzin_size(g->in) : gzin_bytes_read(g->in);
    if (g->done)
        st->bytes_used = st->bytes_in;
}

void gzp_close(gzp *g)
{
    if (!g)
        return;
    if (g->workers)
        gzp_workers_stop(g);
    for (unsigned i = 0; g->slots && i < g->nslots; i++)
        gzp_cancel(g, &g->slots[i]);
    if (g->rgz)
        gzp_slice_put(g, gzpiece_abandon(g->rgz));
    gzslice_free(g->out);
    while (g->pool) {
        gz_slice *s = g->pool;
        g->pool = s->next;
        gzslice_free(s);
    }
    gzpiece_free(g->rgz);
    bfind_free(g->rfind);
    if (g->rcur.buf)
        gzin_cursor_done(&g->rcur);
    free(g->slots);
    gzs_free(g->serial);
    gzin_free(g->in);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv_work);
    pthread_cond_destroy(&g->cv_out);
    pthread_cond_destroy(&g->cv_room);
    free(g->fd_ctx);
    free(g->name);
    free(g);
}

/* A file descriptor as a reader. */
typedef struct fd_ctx {
    int fd;
    uint64_t base; /* file offset of stream offset 0 */
    const char *name;
} fd_ctx;

static ssize_t fd_read(void *ctx, void *buf, size_t n, cs_error *e)
{
    fd_ctx *f = ctx;
    for (;;) {
        ssize_t r = read(f->fd, buf, n);
        if (r >= 0)
            return r;
        if (errno != EINTR)
            return cs_fail(e, CS_EDATA, f->name, 0, "cannot read: %s",
                           strerror(errno)),
                   -1;
    }
}

static ssize_t fd_pread(void *ctx, void *buf, size_t n, uint64_t off,
                        cs_error *e)
{
    fd_ctx *f = ctx;
    for (;;) {
        ssize_t r = pread(f->fd, buf, n, (off_t)(f->base + off));
        if (r >= 0)
            return r;
        if (errno != EINTR)
            return cs_fail(e, CS_EDATA, f->name, 0, "cannot read: %s",
                           strerror(errno)),
                   -1;
    }
}

int gzp_open_fd(gzp **out, int fd, const uint8_t *head, size_t head_len,
                const char *name, const gzp_config *cfg, cs_error *e)
{
    *out = NULL;
    fd_ctx *f = calloc(1, sizeof *f);
    if (!f)
        return cs_fail(e, CS_ENOMEM, name, 0, "out of memory");
    f->fd = fd;
    f->name = name;
    gzin_reader r = {.ctx = f, .read = fd_read};
    struct stat st;
    off_t at = lseek(fd, 0, SEEK_CUR);
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && at >= (off_t)head_len &&
        st.st_size >= at) {
        f->base = (uint64_t)at - head_len;
        r.pread = fd_pread;
        r.size = (uint64_t)st.st_size - f->base;
    }
    int rc = gzp_open(out, &r, head, head_len, name, cfg, e);
    if (rc != CS_OK) {
        free(f);
        return rc;
    }
    (*out)->fd_ctx = f;
    f->name = (*out)->name;
    return CS_OK;
}
