#include "io/gzip/input.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io/gzip/deflate_dec.h"

/* A pipe is read into blocks of at most this size (a quarter of the
 * store, so that a small store still holds several), one read(2) per
 * block at most, so a slow writer's bytes are used as they come. */
#define BLOCK_MAX ((size_t)1 << 20)
#define BLOCK_MIN ((size_t)256)

typedef struct pblock {
    struct pblock *next;
    uint64_t off;
    size_t len;
    uint8_t data[];
} pblock;

struct gzin {
    gzin_reader r;
    uint8_t *head;
    size_t head_len;
    size_t cap, block;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* The pipe store: blocks in order, holding [first->off, hi). */
    pblock *first, *last;
    uint64_t hi;
    uint64_t released;
    int eof, reading, failed, cancelled;
    cs_error err;
};

gzin *gzin_new(const gzin_reader *r, const uint8_t *head, size_t head_len,
               size_t cap)
{
    gzin *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->r = *r;
    g->cap = cap < 4 * BLOCK_MIN ? 4 * BLOCK_MIN : cap;
    g->block = g->cap / 4 < BLOCK_MAX ? g->cap / 4 : BLOCK_MAX;
    g->head = malloc(head_len ? head_len : 1);
    if (!g->head) {
        free(g);
        return NULL;
    }
    memcpy(g->head, head, head_len);
    g->head_len = head_len;
    g->hi = head_len; /* a pipe's store starts after the head */
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    return g;
}

void gzin_free(gzin *g)
{
    if (!g)
        return;
    while (g->first) {
        pblock *b = g->first;
        g->first = b->next;
        free(b);
    }
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g->head);
    free(g);
}

int gzin_seekable(const gzin *g)
{
    return g->r.pread != NULL;
}

uint64_t gzin_size(gzin *g)
{
    if (gzin_seekable(g))
        return g->r.size;
    pthread_mutex_lock(&g->mu);
    uint64_t n = g->eof ? g->hi : UINT64_MAX;
    pthread_mutex_unlock(&g->mu);
    return n;
}

uint64_t gzin_bytes_read(gzin *g)
{
    pthread_mutex_lock(&g->mu);
    uint64_t n = g->hi;
    pthread_mutex_unlock(&g->mu);
    return n;
}

/* Frees the blocks wholly before the released offset. Lock held. */
static void trim(gzin *g)
{
    while (g->first && g->first->off + g->first->len <= g->released &&
           g->first != g->last) {
        pblock *b = g->first;
        g->first = b->next;
        free(b);
    }
    pthread_cond_broadcast(&g->cv);
}

void gzin_cancel(gzin *g)
{
    pthread_mutex_lock(&g->mu);
    g->cancelled = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

void gzin_release(gzin *g, uint64_t off)
{
    if (gzin_seekable(g))
        return;
    pthread_mutex_lock(&g->mu);
    if (off > g->released) {
        g->released = off;
        trim(g);
    }
    pthread_mutex_unlock(&g->mu);
}

int gzin_cursor_init(gzin_cursor *c, gzin *g, uint64_t at, size_t cap,
                     cs_error *e)
{
    *c = (gzin_cursor){.src = g, .cap = cap, .base = at};
    c->buf = malloc(cap + DDEC_PAD);
    if (!c->buf)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory"), -1;
    memset(c->buf, 0, DDEC_PAD);
    return 0;
}

void gzin_cursor_set_urgent(gzin_cursor *c, int leads)
{
    pthread_mutex_lock(&c->src->mu);
    c->urgent = 1;
    c->leads = leads;
    pthread_cond_broadcast(&c->src->cv);
    pthread_mutex_unlock(&c->src->mu);
}

void gzin_cursor_done(gzin_cursor *c)
{
    free(c->buf);
    c->buf = NULL;
}

/* Copies what the head holds of [off, off + n) into dst; returns bytes. */
static size_t from_head(const gzin *g, uint8_t *dst, uint64_t off, size_t n)
{
    if (off >= g->head_len)
        return 0;
    size_t k = (size_t)(g->head_len - off);
    if (k > n)
        k = n;
    memcpy(dst, g->head + off, k);
    return k;
}

static int fill_seekable(gzin_cursor *c, cs_error *e)
{
    gzin *g = c->src;
    while (c->len < c->cap) {
        uint64_t off = c->base + c->len;
        size_t k = from_head(g, c->buf + c->len, off, c->cap - c->len);
        if (k == 0) {
            ssize_t r =
                g->r.pread(g->r.ctx, c->buf + c->len, c->cap - c->len, off, e);
            if (r < 0)
                return -1;
            if (r == 0) {
                c->eof = 1;
                break;
            }
            k = (size_t)r;
        }
        c->len += k;
    }
    if (c->base + c->len >= g->r.size)
        c->eof = 1;
    return 0;
}

/* Copies the store's bytes from the cursor's end on. Lock held. */
static void copy_stored(gzin *g, gzin_cursor *c)
{
    uint64_t off = c->base + c->len;
    off += from_head(g, c->buf + c->len, off, c->cap - c->len);
    c->len = (size_t)(off - c->base);
    for (pblock *b = g->first; b && c->len < c->cap; b = b->next) {
        if (off >= b->off + b->len || off < b->off)
            continue;
        size_t k = (size_t)(b->off + b->len - off);
        if (k > c->cap - c->len)
            k = c->cap - c->len;
        memcpy(c->buf + c->len, b->data + (off - b->off), k);
        c->len += k;
        off += k;
    }
}

/* One read(2) of the pipe into the store; the lock is let go meanwhile.
 * Returns 0, or -1 (g->failed). */
static int read_more(gzin *g)
{
    pblock *b = g->last;
    size_t block = g->block;
    int fresh = !b || b->len == block;
    g->reading = 1;
    pthread_mutex_unlock(&g->mu);
    if (fresh) {
        b = malloc(sizeof *b + block);
        if (b)
            *b = (pblock){.off = g->hi};
    }
    cs_error e = {0};
    ssize_t r = -1;
    if (!b)
        cs_fail(&e, CS_ENOMEM, "", 0, "out of memory");
    else
        r = g->r.read(g->r.ctx, b->data + b->len, block - b->len, &e);
    pthread_mutex_lock(&g->mu);
    g->reading = 0;
    pthread_cond_broadcast(&g->cv);
    if (r < 0) {
        if (fresh)
            free(b);
        g->failed = 1;
        g->err = e;
        return -1;
    }
    if (r == 0)
        g->eof = 1;
    if (fresh && r > 0) {
        if (g->last)
            g->last->next = b;
        else
            g->first = b;
        g->last = b;
    } else if (fresh) {
        free(b);
    }
    if (r > 0) {
        g->last->len += (size_t)r;
        g->hi += (uint64_t)r;
    }
    return 0;
}

static int fill_pipe(gzin_cursor *c, size_t want, cs_error *e)
{
    gzin *g = c->src;
    int rc = 0;
    pthread_mutex_lock(&g->mu);
    uint64_t next = c->base + c->len;
    uint64_t lo = g->first ? g->first->off : g->hi;
    if (next >= g->head_len && next < lo) {
        pthread_mutex_unlock(&g->mu);
        return GZIN_GONE;
    }
    for (;;) {
        if (g->cancelled) {
            rc = GZIN_GONE;
            break;
        }
        copy_stored(g, c);
        if (c->len >= want || c->len == c->cap)
            break;
        if (g->failed) {
            *e = g->err;
            rc = -1;
            break;
        }
        if (g->eof) {
            c->eof = 1;
            break;
        }
        lo = g->first ? g->first->off : g->hi;
        if (g->reading || (!c->urgent && g->hi - lo >= g->cap)) {
            pthread_cond_wait(&g->cv, &g->mu);
            continue;
        }
        if (read_more(g) < 0) {
            *e = g->err;
            rc = -1;
            break;
        }
    }
    if (g->eof && c->base + c->len == g->hi)
        c->eof = 1;
    pthread_mutex_unlock(&g->mu);
    return rc;
}

int gzin_cursor_fill(gzin_cursor *c, uint64_t keep, size_t want, cs_error *e)
{
    if (keep > c->base + c->len || keep < c->base) {
        c->base = keep;
        c->len = 0;
        c->eof = 0; /* a jump: the end may lie elsewhere */
    } else if (keep > c->base) {
        size_t drop = (size_t)(keep - c->base);
        memmove(c->buf, c->buf + drop, c->len - drop);
        c->len -= drop;
        c->base = keep;
    }
    if (want > c->cap)
        want = c->cap;
    int r = gzin_seekable(c->src) ? fill_seekable(c, e) : fill_pipe(c, want, e);
    memset(c->buf + c->len, 0, DDEC_PAD);
    return r;
}

int gzin_cursor_advance(gzin_cursor *c, uint64_t keep, size_t want, cs_error *e)
{
    gzin *g = c->src;
    if (!gzin_seekable(g)) {
        pthread_mutex_lock(&g->mu);
        int leads = c->leads;
        pthread_mutex_unlock(&g->mu);
        if (leads)
            gzin_release(g, keep);
    }
    return gzin_cursor_fill(c, keep, want, e);
}
