/* Which piece follows which (io/gzip/internal.h): a piece is accepted when
 * it starts exactly where the accepted piece before it ended; its window
 * is then that piece's last 32 KiB, known as soon as that piece's own
 * output is bytes there (or its window is known in turn). A piece that
 * did not start there, found no start, or lost its input, is decoded
 * again from that end (a redo) once the window there is known. */
#include <string.h>

#include "io/gzip/internal.h"

/* Where the accepted result before piece j ended; 0 while that is not
 * known (still decoding, failed, or the stream ended there). */
static int pred_end(gzp *g, uint64_t j, gz_point *end)
{
    if (j == g->cur) {
        *end = g->prev_end;
        return 1;
    }
    const piece *q = gzp_slot(g, j - 1);
    if (q->link != LK_OK || q->state != PS_DONE || q->eos)
        return 0;
    *end = q->end;
    return 1;
}

const uint8_t *gzp_pred_window(gzp *g, uint64_t j, size_t *valid)
{
    if (j == g->cur) {
        *valid = g->win_valid;
        return g->win;
    }
    const piece *q = gzp_slot(g, j - 1);
    if (q->link != LK_OK || q->state != PS_DONE || q->eos || !q->tail_known)
        return NULL;
    *valid = q->tail_valid;
    return q->tail;
}

void gzp_cancel(gzp *g, piece *p)
{
    p->version++;
    /* Its thread, until it looks again, no longer speaks for it: a redo
     * of the piece must not make that thread's cursor lead. */
    p->cursor = NULL;
    p->role = CR_NONE;
    while (p->q_head) {
        gz_slice *s = p->q_head;
        p->q_head = s->next;
        if (s->busy)
            s->orphan = 1; /* its resolving thread frees it */
        else
            gzp_slice_put(g, s);
    }
    p->q_tail = NULL;
    p->q_len = 0;
    pthread_cond_broadcast(&g->cv_room);
}

static void settle(gzp *g, uint64_t j, piece *p)
{
    gz_point end;
    if (p->link != LK_UNKNOWN || !pred_end(g, j, &end))
        return;
    if (!p->has_start && p->state == PS_RUN)
        return; /* still searching */
    int gone = p->state == PS_FAIL && p->err == GZE_GONE;
    if (p->has_start && gz_point_equal(&p->start, &end) && !gone) {
        p->link = LK_OK;
        return;
    }
    p->link = LK_BAD;
    gzp_cancel(g, p);
    p->state = PS_WAIT;
    p->has_start = 0;
    p->win_known = p->tail_known = p->tail_wide = 0;
    p->redo_wanted = 1;
    p->redo_from = end;
    pthread_cond_broadcast(&g->cv_work);
    pthread_cond_broadcast(&g->cv_out);
}

static void give_window(gzp *g, uint64_t j, piece *p)
{
    size_t valid;
    const uint8_t *w;
    if (p->win_known || !(w = gzp_pred_window(g, j, &valid)))
        return;
    memcpy(p->win, w, DDEC_WINDOW);
    p->win_valid = valid;
    p->win_known = 1;
}

/* A piece that ended in 16-bit output: its tail is its last elements
 * with the markers replaced from its window. */
static void find_tail(piece *p)
{
    if (p->tail_known || p->state != PS_DONE || p->eos || !p->tail_wide ||
        !p->win_known)
        return;
    size_t k = p->tail_len;
    uint8_t *t = p->tail + DDEC_WINDOW - k;
    for (size_t i = 0; i < k; i++) {
        unsigned v = p->tail16[i];
        t[i] = v < 256 ? (uint8_t)v : p->win[v - 256];
    }
    uint64_t valid = p->win_valid + p->out_total;
    p->tail_valid = valid > DDEC_WINDOW ? DDEC_WINDOW : (size_t)valid;
    p->tail_known = 1;
}

/* The cursor of the piece being delivered reads first: urgent while it
 * searches, leading once the piece is accepted (io/gzip/input.h). */
static void promote(gzp *g, piece *p)
{
    int role = p->link == LK_OK ? CR_LEADS : CR_URGENT;
    if (p->idx != g->cur || p->retired || !p->cursor || p->role >= role)
        return;
    gzin_cursor_set_urgent(p->cursor, role == CR_LEADS);
    p->role = role;
}

void gzp_chain(gzp *g)
{
    for (uint64_t j = g->cur; j < g->next; j++) {
        piece *p = gzp_slot(g, j);
        settle(g, j, p);
        if (j == g->cur)
            promote(g, p);
        if (p->link != LK_OK)
            break;
        give_window(g, j, p);
        find_tail(p);
        if (p->state != PS_DONE || p->eos)
            break;
    }
}

void gzp_take_redo(piece *p, const uint8_t *win, size_t valid)
{
    p->taken = 1;
    p->redo_wanted = 0;
    p->redo = 1;
    p->has_start = 1;
    p->start = p->redo_from;
    p->link = LK_OK;
    p->state = PS_RUN;
    memcpy(p->win, win, DDEC_WINDOW);
    p->win_valid = valid;
    p->win_known = 1;
}
