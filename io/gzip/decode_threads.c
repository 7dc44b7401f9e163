/* The decoding threads of io/gzip/gzip.h. Each takes the most urgent
 * task: a redo (a piece decoded again from the known end of the one
 * before it, with its window), else the next piece: find its first start
 * (io/gzip/find_blocks.h), decode from there (io/gzip/decode_piece.h) to the
 * first point at or past its end, handing slices over as they fill. A thread
 * whose piece was thrown away (its version changed) drops it at its next
 * look; one whose piece holds held_max undelivered slices waits. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/gzip/find_blocks.h"
#include "io/gzip/internal.h"

typedef struct worker {
    gzp *g;
    gzpiece *c;
    bfind *f;
    gzin_cursor cur;
    uint8_t win[DDEC_WINDOW];
} worker;

typedef struct task {
    uint64_t j;
    unsigned version;
    int redo;
    gz_point start;
    size_t valid;
    gz_slice *resolve; /* a 16-bit slice to resolve, not a decode */
} task;

static const uint8_t zero_window[DDEC_WINDOW];

/* A 16-bit slice of an accepted piece whose window is known: resolved
 * here, in parallel, rather than by the reader. Lock held. */
static int pick_resolve(gzp *g, worker *w, task *t)
{
    for (uint64_t j = g->cur; j < g->next; j++) {
        piece *p = gzp_slot(g, j);
        if (p->link != LK_OK || !p->win_known || p->retired)
            continue;
        for (gz_slice *s = p->q_head; s; s = s->next) {
            /* busy first: a busy slice's wide is its resolver's to write */
            if (s->busy || !s->wide)
                continue;
            s->busy = 1;
            memcpy(w->win, p->win, DDEC_WINDOW);
            *t = (task){.j = j,
                        .version = p->version,
                        .valid = p->win_valid,
                        .resolve = s};
            return 1;
        }
    }
    return 0;
}

/* Piece p's thread reads through w's cursor from now on, in the role the
 * piece has (gzp_chain promotes it as cur moves). Lock held: roles are
 * only set under it. */
static void attach(gzp *g, piece *p, worker *w, uint64_t j)
{
    p->cursor = &w->cur;
    p->role = j != g->cur ? CR_NONE : p->link == LK_OK ? CR_LEADS : CR_URGENT;
    w->cur.urgent = p->role != CR_NONE;
    w->cur.leads = p->role == CR_LEADS;
}

/* A slice to resolve, a redo whose window is known, else the next piece.
 * Lock held. */
static int pick(gzp *g, worker *w, task *t)
{
    if (pick_resolve(g, w, t))
        return 1;
    for (uint64_t j = g->cur; j < g->next; j++) {
        piece *p = gzp_slot(g, j);
        size_t valid;
        const uint8_t *win;
        if (!p->redo_wanted || p->taken || p->workers ||
            !(win = gzp_pred_window(g, j, &valid)))
            continue;
        memcpy(w->win, win, DDEC_WINDOW);
        gzp_take_redo(p, win, valid);
        p->workers = 1;
        attach(g, p, w, j);
        *t = (task){.j = j,
                    .version = p->version,
                    .redo = 1,
                    .start = p->start,
                    .valid = valid};
        return 1;
    }
    if (g->npieces == UINT64_MAX && gzin_size(g->in) != UINT64_MAX)
        g->npieces = (gzin_size(g->in) + g->piece_bytes - 1) / g->piece_bytes;
    if (g->next >= g->cur + g->nslots || g->next >= g->npieces)
        return 0;
    piece *p = gzp_slot(g, g->next);
    if (p->state != PS_FREE && !(p->retired && p->workers == 0))
        return 0;
    unsigned version = p->version + 1;
    memset(p, 0, offsetof(piece, win));
    p->version = version;
    p->idx = g->next;
    p->state = PS_RUN;
    p->workers = 1;
    attach(g, p, w, g->next);
    if (g->next == 0) {
        p->has_start = 1;
        p->start = (gz_point){.kind = GZP_MEMBER, .pos = 0};
        memset(p->win, 0, DDEC_WINDOW);
        p->win_known = 1;
    }
    *t = (task){.j = g->next++, .version = version, .start = p->start};
    return 1;
}

/* The thread leaves its piece. Lock held. */
static void detach(gzp *g, piece *p)
{
    p->workers = 0;
    p->cursor = NULL;
    pthread_cond_broadcast(&g->cv_work);
}

/* The first candidate (of members only, or of any kind) in piece j's
 * range, read through cur. Returns 1 (found), 0 (none), or -1 (the input
 * failed: *err says how). */
static int scan(gzp *g, bfind *f, gzin_cursor *cur, uint64_t j,
                int members_only, gz_point *at, int *err)
{
    uint64_t from = j * g->piece_bytes * 8, limit = from + g->piece_bytes * 8;
    uint64_t keep = j * g->piece_bytes >= 8 ? j * g->piece_bytes - 8 : 0;
    for (;;) {
        cs_error e = {0};
        int r = gzin_cursor_fill(cur, keep, g->cursor_cap, &e);
        if (r != 0) {
            *err = r == GZIN_GONE ? GZE_GONE : GZE_READ;
            return -1;
        }
        uint64_t searched;
        if (bfind_next(f, cur->buf, cur->len, cur->base, cur->eof, members_only,
                       from, limit, at, &searched))
            return 1;
        if (searched >= limit || cur->eof)
            return 0;
        from = searched;
        keep = searched / 8 >= 8 ? searched / 8 - 8 : 0;
    }
}

/* Where piece j starts: the first member header in its range, else the
 * first candidate of any kind (io/gzip/find_blocks.h). Members first: a piece
 * that starts at one knows its window (none) and decodes bytes at once. */
static int search(worker *w, uint64_t j, gz_point *at, int *err)
{
    int r = scan(w->g, w->f, &w->cur, j, 1, at, err);
    return r != 0 ? r : scan(w->g, w->f, &w->cur, j, 0, at, err);
}

uint64_t gzp_block_stop(gzp *g, bfind *f, gzin_cursor *cur, uint64_t j)
{
    uint64_t stop = (j + 1) * g->piece_bytes * 8;
    pthread_mutex_lock(&g->mu);
    uint64_t npieces = g->npieces; /* a pipe's reader sets it at its end */
    pthread_mutex_unlock(&g->mu);
    if (j + 1 >= npieces)
        return UINT64_MAX;
    gz_point at;
    int err;
    return scan(g, f, cur, j + 1, 1, &at, &err) > 0 ? stop + g->piece_bytes * 8
                                                    : stop;
}

/* Keeps the tail of piece p (its last 32 KiB of output) from its last
 * slice, before the slice is handed over. Lock held. */
void gzp_record_tail(piece *p, gzpiece *c, const gz_slice *last)
{
    if (!last)
        return;
    size_t tot = last->hist + last->n;
    size_t k = tot < DDEC_WINDOW ? tot : DDEC_WINDOW;
    if (last->wide) {
        memcpy(p->tail16, (const uint16_t *)(const void *)last->mem + tot - k,
               2 * k);
        p->tail_len = k;
        p->tail_wide = 1;
    } else {
        memcpy(p->tail + DDEC_WINDOW - k, last->mem + tot - k, k);
        p->tail_valid = gzpiece_hist_valid(c);
        p->tail_wide = 0;
    }
}

/* Notes how piece p's decoding by c ended (GZC_DONE or GZC_FAIL), once
 * its last slice is queued: the reader may then move past it. Lock
 * held. */
void gzp_record_end(piece *p, gzpiece *c, int r)
{
    p->out_total = gzpiece_out_total(c);
    if (r != GZC_DONE) {
        p->state = PS_FAIL;
        p->err = gzpiece_fail_kind(c);
        snprintf(p->msg, sizeof p->msg, "%s", gzpiece_fail_msg(c));
        p->io = *gzpiece_fail_io(c);
        return;
    }
    p->state = PS_DONE;
    p->eos = gzpiece_end_eos(c);
    gzpiece_end_point(c, &p->end);
    p->tail_known = !p->eos && !p->tail_wide;
}

/* Queues a slice of piece p, waiting while p holds held_max of them.
 * Returns 0, or -1 when p was thrown away meanwhile. Lock held. */
static int queue(gzp *g, piece *p, unsigned version, gz_slice *s)
{
    if (s->n == 0 && s->ncut == 0) {
        gzp_slice_put(g, s);
        return 0;
    }
    while (p->q_len >= g->held_max && p->version == version && !g->stopping)
        pthread_cond_wait(&g->cv_room, &g->mu);
    if (p->version != version || g->stopping) {
        gzp_slice_put(g, s);
        return -1;
    }
    s->next = NULL;
    if (p->q_tail)
        p->q_tail->next = s;
    else
        p->q_head = s;
    p->q_tail = s;
    p->q_len++;
    pthread_cond_broadcast(&g->cv_out);
    return 0;
}

static void decode(worker *w, const task *t, const gz_point *start,
                   const uint8_t *win, size_t valid)
{
    gzp *g = w->g;
    piece *p = gzp_slot(g, t->j);
    uint64_t stop = (t->j + 1) * g->piece_bytes * 8;
    uint64_t block_stop = gzp_block_stop(g, w->f, &w->cur, t->j);
    int began = gzpiece_begin(w->c, &w->cur, start, win, valid, stop,
                              block_stop, t->j == 0);
    pthread_mutex_lock(&g->mu);
    for (;;) {
        gz_slice *s = NULL;
        int r = GZC_FAIL;
        if (began == 0) {
            pthread_mutex_unlock(&g->mu);
            r = gzpiece_next(w->c, &s);
            pthread_mutex_lock(&g->mu);
        }
        if (p->version != t->version || g->stopping) {
            if (s)
                gzp_slice_put(g, s);
            gzp_slice_put(g, gzpiece_abandon(w->c));
            break;
        }
        if (r == GZC_DONE)
            gzp_record_tail(p, w->c, s);
        if (s && queue(g, p, t->version, s) != 0) {
            gzp_slice_put(g, gzpiece_abandon(w->c));
            break;
        }
        if (r == GZC_DONE || r == GZC_FAIL) {
            gzp_record_end(p, w->c, r);
            gzp_chain(g);
            pthread_cond_broadcast(&g->cv_out);
            break;
        }
        if (gzpiece_wide(w->c) && p->win_known) {
            memcpy(w->win, p->win, DDEC_WINDOW);
            size_t v = p->win_valid;
            pthread_mutex_unlock(&g->mu);
            gzpiece_give_window(w->c, w->win, v);
            pthread_mutex_lock(&g->mu);
        }
    }
    detach(g, p);
    pthread_mutex_unlock(&g->mu);
}

static void resolve(worker *w, const task *t)
{
    gzp *g = w->g;
    gz_slice *s = t->resolve;
    int r = gzslice_resolve(s, w->win, t->valid);
    pthread_mutex_lock(&g->mu);
    s->busy = 0;
    s->bad = r != 0;
    if (s->orphan)
        gzp_slice_put(g, s);
    pthread_cond_broadcast(&g->cv_out);
    pthread_mutex_unlock(&g->mu);
}

static void run(worker *w, const task *t)
{
    gzp *g = w->g;
    if (t->resolve) {
        resolve(w, t);
        return;
    }
    gz_point start = t->start;
    const uint8_t *win = NULL;
    size_t valid = t->valid;
    if (t->redo) {
        win = w->win;
    } else if (t->j == 0) {
        win = zero_window;
        valid = 0;
    } else {
        int err = 0, found = search(w, t->j, &start, &err);
        pthread_mutex_lock(&g->mu);
        piece *p = gzp_slot(g, t->j);
        if (p->version == t->version && !g->stopping) {
            if (found < 0) {
                p->state = PS_FAIL;
                p->err = err;
            } else if (!found) {
                p->state = PS_NOSTART;
            } else {
                p->has_start = 1;
                p->start = start;
            }
            gzp_chain(g);
            pthread_cond_broadcast(&g->cv_out);
        } else {
            found = -1;
        }
        if (found > 0 && start.kind == GZP_MEMBER) {
            win = zero_window; /* a member refers to nothing before it */
            valid = 0;
        } else if (found > 0 && p->win_known) {
            memcpy(w->win, p->win, DDEC_WINDOW);
            win = w->win;
            valid = p->win_valid;
        }
        if (found <= 0)
            detach(g, p);
        pthread_mutex_unlock(&g->mu);
        if (found <= 0)
            return;
    }
    decode(w, t, &start, win, valid);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    gzp *g = w->g;
    pthread_mutex_lock(&g->mu);
    while (!g->stopping) {
        task t;
        if (!pick(g, w, &t)) {
            pthread_cond_wait(&g->cv_work, &g->mu);
            continue;
        }
        pthread_mutex_unlock(&g->mu);
        run(w, &t);
        pthread_mutex_lock(&g->mu);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

static void worker_free(worker *w)
{
    if (!w)
        return;
    gzpiece_free(w->c);
    bfind_free(w->f);
    gzin_cursor_done(&w->cur);
    free(w);
}

static worker *worker_new(gzp *g)
{
    worker *w = calloc(1, sizeof *w);
    cs_error e = {0};
    if (!w)
        return NULL;
    w->g = g;
    w->c = gzpiece_new((gzpiece_alloc){.ctx = g, .get = gzp_slice_get});
    w->f = bfind_new();
    if (!w->c || !w->f ||
        gzin_cursor_init(&w->cur, g->in, 0, g->cursor_cap, &e) != 0) {
        worker_free(w);
        return NULL;
    }
    return w;
}

int gzp_workers_start(gzp *g)
{
    g->tids = calloc(g->threads, sizeof *g->tids);
    g->workers = calloc(g->threads, sizeof(worker *));
    if (!g->tids || !g->workers)
        return -1;
    for (unsigned i = 0; i < g->threads; i++) {
        worker *w = worker_new(g);
        if (!w)
            return -1;
        ((worker **)g->workers)[i] = w;
        if (pthread_create(&g->tids[i], NULL, worker_main, w) != 0)
            return -1;
        g->started++;
    }
    return 0;
}

void gzp_workers_stop(gzp *g)
{
    pthread_mutex_lock(&g->mu);
    g->stopping = 1;
    pthread_cond_broadcast(&g->cv_work);
    pthread_cond_broadcast(&g->cv_room);
    pthread_cond_broadcast(&g->cv_out);
    pthread_mutex_unlock(&g->mu);
    gzin_cancel(g->in);
    for (unsigned i = 0; i < g->started; i++)
        pthread_join(g->tids[i], NULL);
    for (unsigned i = 0; g->workers && i < g->threads; i++)
        worker_free(((worker **)g->workers)[i]);
    free(g->workers);
    free(g->tids);
    g->workers = NULL;
    g->tids = NULL;
    g->started = 0;
}
