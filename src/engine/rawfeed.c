#include "src/engine/rawfeed.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Measured on the H200 host (bench/RESULTS.md, "Overlap"): 12 readers
 * taking 1 MiB pieces keep the copy engine busy (a 4 GiB file goes through
 * in 1.08x the copies' own time; whole 8 MiB preads, 1.2x); more slots
 * cost page-locking time and gained nothing. */
#define RAW_SLOTS 12         /* slots in the ring */
#define RAW_READERS 12       /* threads reading a plain file, at most */
#define RAW_INFLIGHT 4       /* slots submitted and not yet given back */
#define RAW_PIECE (1u << 20) /* what one pread asks for */

typedef struct slot_info {
    uint64_t index; /* segment held; valid when full */
    uint64_t at;    /* its offset in the input */
    size_t len;
    int full;
    unsigned pieces; /* read so far */
} slot_info;

/* The readers of a plain file and the main thread that submits. */
typedef struct pump {
    rawfeed *rf;
    const source *src;
    uint64_t base, size; /* file offset of segment 0; bytes from there */
    size_t segment, piece;
    uint64_t nsegments;
    unsigned per_segment; /* pieces */
    slot_info info[RAW_SLOTS];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t next_read, recycled; /* pieces taken, segments given back */
    int stop;
    size_t head_used; /* streams: head bytes that went into slots */
    cs_error err;
    double t_read;
    uint64_t bytes_read;
} pump;

int rawfeed_wants(const rawfeed *rf, const input *in)
{
    backend *be = rf->be;
    int ws = !in->spec && in->dialect.whitespace;
    if (!be->bytes)
        return 0;
    if (be->bytes->wants(be, in->spec != NULL, source_can_pread(in->src), ws,
                         in->spec ? NULL : in->dialect.kinds, rf->ncols))
        return 1;
    if (ws) /* not silently: -v says who parses */
        account_say(rf->acc,
                    "%s: whitespace-separated (-W): parsed on the host, "
                    "reduced on the %s",
                    in->name, be->name);
    return 0;
}

/* Slots live in the backend's memory (page-locked for a GPU), else in
 * plain memory. */
static void *slot_alloc(const backend *be, size_t n)
{
    return be->alloc ? be->alloc->alloc(n, be->alloc->ctx) : malloc(n);
}

static void slot_free(const backend *be, void *p)
{
    if (be->alloc)
        be->alloc->free(p, be->alloc->ctx);
    else
        free(p);
}

/* The ring's table; each slot is page-locked when first needed (slot_at),
 * so that a small input pins one slot, not the ring, and a large one pins
 * the rest while the first segments are already on their way. */
static int make_ring(rawfeed *rf, cs_error *e)
{
    if (rf->slot)
        return CS_OK;
    rf->slot_bytes = rf->be->bytes->slot_bytes(rf->be);
    rf->slot = calloc(RAW_SLOTS, sizeof *rf->slot);
    return rf->slot ? CS_OK : cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
}

/* Slot k, made if it is not yet; NULL (e filled) when memory is short.
 * Readers call it under their mutex. */
static char *slot_at(rawfeed *rf, int k, cs_error *e)
{
    if (!rf->slot[k] && !(rf->slot[k] = slot_alloc(rf->be, rf->slot_bytes)))
        cs_fail(e, CS_ENOMEM, "", 0, "out of page-locked memory for the GPU");
    return rf->slot[k];
}

void rawfeed_free(rawfeed *rf)
{
    for (int i = 0; rf->slot && i < RAW_SLOTS; i++)
        if (rf->slot[i])
            slot_free(rf->be, rf->slot[i]);
    free(rf->slot);
    rf->slot = NULL;
}

/* Under p->mu: the next piece to read, once its segment has a slot; or
 * UINT64_MAX when there is none left. */
static uint64_t take_piece(pump *p)
{
    uint64_t total = p->nsegments * p->per_segment;
    while (!p->stop && p->next_read < total &&
           p->next_read / p->per_segment >= p->recycled + RAW_SLOTS)
        pthread_cond_wait(&p->cv, &p->mu);
    return p->stop || p->next_read >= total ? UINT64_MAX : p->next_read++;
}

/* Under p->mu: piece read (r bytes, or -1 with e). */
static void piece_done(pump *p, uint64_t i, uint64_t at, size_t len, ssize_t r,
                       const cs_error *e)
{
    slot_info *s = &p->info[i % RAW_SLOTS];
    if (r < 0 && !p->err.status)
        p->err = *e;
    if (r < 0)
        p->stop = 1;
    else
        p->bytes_read += (uint64_t)r;
    if (++s->pieces == p->per_segment) {
        s->index = i;
        s->at = at;
        s->len = len;
        s->full = 1;
    }
    if (r < 0 || s->full)
        pthread_cond_broadcast(&p->cv);
}

/* Reads segments piece by piece, several threads per segment: a segment is
 * ready soon after its turn comes (one 8 MiB pread takes a thread some
 * 1.5 ms, eight times the copy engine's time for it), so the copy engine
 * starts early and never waits long for the next one. */
static void *reader_main(void *arg)
{
    pump *p = arg;
    pthread_mutex_lock(&p->mu);
    for (uint64_t k; (k = take_piece(p)) != UINT64_MAX;) {
        uint64_t i = k / p->per_segment, at = i * p->segment;
        cs_error e = {0};
        char *slot = slot_at(p->rf, (int)(i % RAW_SLOTS), &e);
        pthread_mutex_unlock(&p->mu);
        size_t len =
            (size_t)(p->size - at < p->segment ? p->size - at : p->segment);
        size_t off = (k % p->per_segment) * p->piece;
        size_t n = off < len ? len - off : 0;
        n = n < p->piece ? n : p->piece;
        double t0 = account_now();
        ssize_t r =
            !slot ? -1
            : n   ? source_pread(p->src, slot + off, n, p->base + at + off, &e)
                  : 0;
        double dt = account_now() - t0;
        pthread_mutex_lock(&p->mu);
        p->t_read += dt;
        piece_done(p, i, at, len, r, &e);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Main thread: waits until segment i is read. Returns its slot, or -1. */
static int await_segment(pump *p, uint64_t i)
{
    slot_info *s = &p->info[i % RAW_SLOTS];
    pthread_mutex_lock(&p->mu);
    while (!p->err.status && !(s->full && s->index == i))
        pthread_cond_wait(&p->cv, &p->mu);
    int ok = !p->err.status;
    pthread_mutex_unlock(&p->mu);
    return ok ? (int)(i % RAW_SLOTS) : -1;
}

/* Gives the oldest submitted segment's slot back once the backend took its
 * bytes in (a file: the host re-reads from wherever the backend stops) or
 * parsed them (a stream: the host needs the bytes after the exact stop).
 * Returns 1 when the backend has stopped, 0, or -1 (e). */
static int recycle(pump *p, int exact, cs_error *e)
{
    backend *be = p->rf->be;
    uint64_t i = p->recycled;
    int k = (int)(i % RAW_SLOTS), stopped = 0;
    const char *bytes = p->rf->slot[k];
    int rc = exact ? be->bytes->wait(be, bytes, &stopped, e)
                   : be->bytes->copied(be, bytes, &stopped, e);
    if (rc != CS_OK)
        return -1;
    if (stopped)
        return 1;
    pthread_mutex_lock(&p->mu);
    p->info[k].full = 0;
    p->info[k].pieces = 0;
    p->recycled = i + 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

static int start_readers(pump *p, pthread_t *th, cs_error *e)
{
    int nth = 0;
    int readers = p->rf->nthreads < RAW_READERS ? p->rf->nthreads : RAW_READERS;
    readers = readers > 0 ? readers : 1;
    for (; nth < readers && (uint64_t)nth < p->nsegments * p->per_segment;
         nth++)
        if (pthread_create(&th[nth], NULL, reader_main, p) != 0)
            break;
    if (nth == 0 && p->nsegments)
        cs_fail(e, CS_ENOMEM, "", 0,
                "out of memory (or at the process limit) starting reader "
                "threads");
    return nth;
}

static void stop_readers(pump *p, pthread_t *th, int nth)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int t = 0; t < nth; t++)
        pthread_join(th[t], NULL);
}

/* Segments [0, nsegments) of a plain file, read by a pool of threads. Returns
 * CS_OK (the backend may have stopped: its end says) or an error. */
static int pump_file(pump *p, const char *name, cs_error *e)
{
    rawfeed *rf = p->rf;
    backend *be = rf->be;
    pthread_t th[RAW_READERS];
    int nth = start_readers(p, th, e);
    for (uint64_t i = 0; !e->status && i < p->nsegments; i++) {
        int k = await_segment(p, i);
        if (k < 0)
            break;
        be->bytes->submit(be, rf->slot[k], p->info[k].len, e);
        account_progress(rf->acc, name,
                         p->base + p->info[k].at + p->info[k].len,
                         source_file_size(p->src));
        int st = 0;
        while (!e->status && st == 0 && i + 1 - p->recycled > RAW_INFLIGHT)
            st = recycle(p, 0, e);
        if (st > 0)
            break;
    }
    stop_readers(p, th, nth);
    account_time(rf->acc, ACC_READ, p->t_read);
    account_bytes(rf->acc, p->bytes_read);
    if (!e->status && p->err.status)
        *e = p->err;
    return e->status;
}

static void pump_init(pump *p, rawfeed *rf, const source *src, uint64_t base,
                      uint64_t size)
{
    memset(p, 0, sizeof *p);
    p->rf = rf;
    p->src = src;
    p->base = base;
    p->size = size;
    p->segment = rf->slot_bytes;
    p->nsegments = (size + p->segment - 1) / p->segment;
    p->piece = RAW_PIECE < p->segment ? RAW_PIECE : p->segment;
    p->per_segment = (unsigned)((p->segment + p->piece - 1) / p->piece);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
}

static void pump_done(pump *p)
{
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
}

/* Reads up to n bytes of a stream (fewer only at its end: *eof). */
static ssize_t read_stream(rawfeed *rf, source *src, char *buf, size_t n,
                           int *eof, cs_error *e)
{
    double t0 = account_now();
    ssize_t got = source_read_full(src, buf, n, eof, e);
    if (got < 0)
        return -1;
    account_time(rf->acc, ACC_READ, account_now() - t0);
    account_bytes(rf->acc, (size_t)got);
    return got;
}

/* A stream: the main thread fills slot after slot, the head's bytes
 * first. */
static int pump_stream(pump *p, input *in, int *eof, cs_error *e)
{
    rawfeed *rf = p->rf;
    backend *be = rf->be;
    for (uint64_t i = 0; !e->status; i++) {
        int k = (int)(i % RAW_SLOTS);
        size_t left = in->head_len - p->head_used;
        size_t len = left < p->segment ? left : p->segment;
        if (!slot_at(rf, k, e))
            return e->status;
        memcpy(rf->slot[k], in->head + p->head_used, len);
        p->head_used += len;
        if (len < p->segment && !*eof) {
            ssize_t r = read_stream(rf, in->src, rf->slot[k] + len,
                                    p->segment - len, eof, e);
            if (r < 0)
                return e->status;
            len += (size_t)r;
        }
        if (len == 0)
            break;
        p->info[k] = (slot_info){i, p->size, len, 1, 0};
        p->size += len;
        p->nsegments = i + 1;
        be->bytes->submit(be, rf->slot[k], len, e);
        account_progress(rf->acc, in->name, source_raw_pos(in->src),
                         source_file_size(in->src));
        int st = 0;
        while (!e->status && st == 0 && i + 1 - p->recycled >= RAW_SLOTS)
            st = recycle(p, 1, e);
        if (st > 0 || (*eof && p->head_used == in->head_len))
            break;
    }
    return e->status;
}

/* The bytes of a stream the host must parse: what the backend held back,
 * every slot from the first byte after it, then the head's bytes that
 * never went into a slot. */
static int put_back(pump *p, const input *in, const char *tail, size_t tail_len,
                    uint64_t consumed, raw_rest *rest, cs_error *e)
{
    uint64_t from = consumed + tail_len;
    size_t left = in->head_len - p->head_used, need = tail_len + left;
    for (uint64_t i = p->recycled; i < p->nsegments; i++)
        if (p->info[i % RAW_SLOTS].at >= from)
            need += p->info[i % RAW_SLOTS].len;
    char *b = malloc(need ? need : 1);
    if (!b)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    memcpy(b, tail, tail_len);
    size_t at = tail_len;
    for (uint64_t i = p->recycled; i < p->nsegments; i++) {
        const slot_info *s = &p->info[i % RAW_SLOTS];
        if (s->at >= from) {
            memcpy(b + at, p->rf->slot[i % RAW_SLOTS], s->len);
            at += s->len;
        }
    }
    memcpy(b + at, in->head + p->head_used, left);
    rest->bytes = b;
    rest->len = need;
    return CS_OK;
}

/* The backend's end of an input: its rows join the count, its first
 * invalid fields the notes, and its wall time since t0 -v's stream
 * line. */
static int end_input(rawfeed *rf, const input *in, bytes_result *r, char *tail,
                     size_t *tail_len, double t0, cs_error *e)
{
    backend *be = rf->be;
    size_t n = (size_t)(rf->ncols ? rf->ncols : 1);
    r->first_invalid_line = calloc(n, sizeof *r->first_invalid_line);
    r->first_invalid_text = calloc(n, sizeof *r->first_invalid_text);
    int rc = r->first_invalid_line && r->first_invalid_text
                 ? CS_OK
                 : cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (rc == CS_OK)
        rc = be->bytes->end(be, r, tail, tail_len, e);
    account_stream(rf->acc, account_now() - t0, r->consumed);
    if (rc == CS_OK) {
        jobs_add_rows(rf->js, r->rows);
        jobs_add_repeats(rf->js, r->repeats, in->name, r->repeat_line);
        for (int k = 0; k < rf->ncols; k++)
            jobs_note_invalid(rf->js, k, in->name, r->first_invalid_line[k],
                              r->first_invalid_text[k]);
    }
    free(r->first_invalid_line);
    free(r->first_invalid_text);
    r->first_invalid_line = NULL;
    r->first_invalid_text = NULL;
    return rc;
}

/* Rows a byte of a CSV input likely holds: as many as its head has lines
 * (a quoted line break overcounts, which is the safe side); 0 when
 * unknown. The GPU sizes its room for kept values from it. */
static double row_rate(const input *in)
{
    if (in->spec || !in->head_len)
        return 0;
    uint64_t lines = 0;
    for (const char *p = in->head, *end = in->head + in->head_len;
         (p = memchr(p, '\n', (size_t)(end - p))); p++)
        lines++;
    return (double)lines / (double)in->head_len;
}

static int begin(rawfeed *rf, const input *in, uint64_t first_line, cs_error *e)
{
    uint64_t size = source_can_pread(in->src) ? source_file_size(in->src) : 0;
    bytes_format fmt = {.spec = in->spec,
                        .delim = in->dialect.delim ? in->dialect.delim : ',',
                        .strict = rf->strict,
                        .num = in->dialect.num,
                        .kinds = in->dialect.kinds,
                        .map = in->map,
                        .nmap = in->nmap,
                        .size_hint = size,
                        .row_rate = row_rate(in),
                        .repeat = in->dialect.repeat,
                        .repeat_len = in->dialect.repeat_len,
                        .kmap = in->kmap,
                        .nkmap = in->kmap ? in->nkmap : 0,
                        .nkeys = in->kmap ? in->nkeys : 0};
    /* rows are numbered in input order: earlier jobs first */
    if (jobs_drain(rf->js, e) != CS_OK)
        return e->status;
    backend *be = rf->be;
    if (be->bytes->begin(be, &fmt, jobs_rows(rf->js) + 1, first_line, e))
        return e->status;
    return make_ring(rf, e);
}

int rawfeed_binary(rawfeed *rf, input *in, cs_error *e)
{
    if (begin(rf, in, 0, e) != CS_OK)
        return e->status;
    pump p;
    double t0 = account_now();
    pump_init(&p, rf, in->src, in->data_off,
              source_file_size(in->src) - in->data_off);
    int rc = pump_file(&p, in->name, e);
    pump_done(&p);
    if (rc != CS_OK)
        return rc;
    bytes_result r;
    memset(&r, 0, sizeof r);
    size_t tail = 0;
    return end_input(rf, in, &r, NULL, &tail, t0, e);
}

static void say(rawfeed *rf, const input *in, const bytes_result *r,
                uint64_t line)
{
    if (r->stopped)
        account_say(rf->acc,
                    "%s:%llu: GPU parse stopped (%s); the host parsed "
                    "from here",
                    in->name, (unsigned long long)line, r->reason);
    else
        account_say(rf->acc, "%s: parsed on the GPU", in->name);
}

/* After the backend: the host's part starts at data byte r->consumed. */
static int hand_over(pump *p, input *in, const bytes_result *r,
                     const char *tail, size_t tail_len, raw_rest *rest,
                     cs_error *e)
{
    if (!source_can_pread(in->src))
        return put_back(p, in, tail, tail_len, r->consumed, rest, e);
    rest->eof = 0;
    return source_seek(in->src, in->data_off + r->consumed, e);
}

int rawfeed_csv(rawfeed *rf, input *in, raw_rest *rest, cs_error *e)
{
    memset(rest, 0, sizeof *rest);
    rest->eof = in->head_eof;
    rest->line = in->first_line;
    if (begin(rf, in, in->first_line, e) != CS_OK)
        return e->status;
    pump p;
    double t0 = account_now();
    int plain = source_can_pread(in->src);
    uint64_t size = source_file_size(in->src);
    /* plain: the file from the first data byte on, re-read by the pool */
    pump_init(&p, rf, in->src, in->data_off, plain ? size - in->data_off : 0);
    int rc =
        plain ? pump_file(&p, in->name, e) : pump_stream(&p, in, &rest->eof, e);
    char *tail = rc == CS_OK ? malloc(p.segment + 1) : NULL;
    if (rc == CS_OK && !tail)
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    bytes_result r;
    memset(&r, 0, sizeof r);
    size_t tail_len = 0;
    if (rc == CS_OK)
        rc = end_input(rf, in, &r, tail, &tail_len, t0, e);
    if (rc == CS_OK) {
        rest->line += r.lines;
        say(rf, in, &r, rest->line);
        rc = hand_over(&p, in, &r, tail, tail_len, rest, e);
    }
    free(tail);
    pump_done(&p);
    return rc;
}
