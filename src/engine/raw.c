/* Raw input for the GPU: the bytes of an input go to the device as they
 * are, through a ring of page-locked slots, and the device parses them
 * (gpu.h, gpu_raw_*). A plain file is read by several threads at once,
 * each pread-ing whole slots at their offsets (one thread cannot keep up
 * with the copy engine); a pipe or gzip stream by the main thread, in
 * order. Slots go to the device in input order.
 *
 * When the device stops early (input it cannot parse exactly as libcsv
 * would), the host takes over from the first byte the device did not
 * reduce: a plain file is re-read from there; for a stream, the bytes the
 * device held back and the slots not yet recycled are put back into
 * g->carry, in order, for the host's feeding loop. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "io/source.h"

#ifdef COLSTAT_HAVE_GPU

/* Measured on the H200 host (bench/RESULTS.md, "Overlap"): 12 readers
 * taking 1 MiB pieces keep the copy engine busy (a 4 GiB file goes through
 * in 1.08x the copies' own time; whole 8 MiB preads, 1.2x); more slots
 * cost page-locking time and gained nothing. */
#define RAW_SLOTS 12         /* page-locked slots */
#define RAW_READERS 12       /* threads reading a plain file, at most */
#define RAW_INFLIGHT 4       /* chunks submitted and not yet given back */
#define RAW_PIECE (1u << 20) /* what one pread asks for */

typedef struct slot_info {
    uint64_t index; /* chunk held; valid when full */
    uint64_t at;    /* its offset in the input */
    size_t len;
    int full;
    unsigned pieces; /* read so far */
} slot_info;

/* The readers of a plain file and the main thread that submits. */
typedef struct feeder {
    engine *g;
    const source *src;
    uint64_t base, size; /* file offset of chunk 0; bytes from there */
    size_t chunk, piece;
    uint64_t nchunks;
    unsigned per_chunk; /* pieces */
    slot_info info[RAW_SLOTS];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t next_read, recycled; /* pieces taken, chunks given back */
    int stop;
    size_t carry_used, carry_len; /* streams: g->carry's bytes in slots */
    cs_error err;
    double t_read;
} feeder;

static int raw_slots(engine *g, size_t chunk)
{
    if (g->raw_slot)
        return CS_OK;
    double t0 = engine_now();
    g->raw_slot = calloc(RAW_SLOTS, sizeof *g->raw_slot);
    if (!g->raw_slot)
        return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    for (int i = 0; i < RAW_SLOTS; i++)
        if (!(g->raw_slot[i] = g->alloc->alloc(chunk, g->alloc->ctx)))
            return cs_fail(g->e, CS_EDATA, "", 0,
                           "out of page-locked memory for the GPU");
    g->t_alloc += engine_now() - t0;
    return CS_OK;
}

void raw_free(engine *g)
{
    for (int i = 0; g->raw_slot && i < RAW_SLOTS; i++)
        if (g->raw_slot[i])
            g->alloc->free(g->raw_slot[i], g->alloc->ctx);
    free(g->raw_slot);
    g->raw_slot = NULL;
}

int raw_wanted(const engine *g, const input_file *f)
{
    const char *env = getenv("COLSTAT_GPU_PARSE"); /* test hook: 0 = host */
    if (!g->gpu || (env && *env == '0'))
        return 0;
    return !g->binary || source_can_pread(f->src);
}

/* Under fd->mu: the next piece to read, once its chunk has a slot; or
 * UINT64_MAX when there is none left. */
static uint64_t take_piece(feeder *fd)
{
    uint64_t total = fd->nchunks * fd->per_chunk;
    while (!fd->stop && fd->next_read < total &&
           fd->next_read / fd->per_chunk >= fd->recycled + RAW_SLOTS)
        pthread_cond_wait(&fd->cv, &fd->mu);
    return fd->stop || fd->next_read >= total ? UINT64_MAX : fd->next_read++;
}

/* Reads chunks piece by piece, several threads per chunk: a chunk is
 * ready soon after its turn comes (one 8 MiB pread takes a thread some
 * 1.5 ms, eight times the copy engine's time for it), so the copy engine
 * starts early and never waits long for the next one. */
static void *reader_main(void *arg)
{
    feeder *fd = arg;
    pthread_mutex_lock(&fd->mu);
    for (uint64_t p; (p = take_piece(fd)) != UINT64_MAX;) {
        pthread_mutex_unlock(&fd->mu);
        uint64_t i = p / fd->per_chunk, at = i * fd->chunk;
        size_t len =
            (size_t)(fd->size - at < fd->chunk ? fd->size - at : fd->chunk);
        size_t off = (p % fd->per_chunk) * fd->piece;
        size_t n = off < len ? len - off : 0;
        n = n < fd->piece ? n : fd->piece;
        cs_error e = {0};
        double t0 = engine_now();
        ssize_t r =
            n ? source_pread(fd->src, fd->g->raw_slot[i % RAW_SLOTS] + off, n,
                             fd->base + at + off, &e)
              : 0;
        double dt = engine_now() - t0;
        pthread_mutex_lock(&fd->mu);
        fd->t_read += dt;
        slot_info *s = &fd->info[i % RAW_SLOTS];
        if (r < 0 && !fd->err.status)
            fd->err = e;
        if (r < 0)
            fd->stop = 1;
        if (++s->pieces == fd->per_chunk) {
            s->index = i;
            s->at = at;
            s->len = len;
            s->full = 1;
        }
        if (r < 0 || s->full)
            pthread_cond_broadcast(&fd->cv);
    }
    pthread_mutex_unlock(&fd->mu);
    return NULL;
}

/* Main thread: waits until chunk i is read. Returns its slot, or -1. */
static int await_chunk(feeder *fd, uint64_t i)
{
    slot_info *s = &fd->info[i % RAW_SLOTS];
    pthread_mutex_lock(&fd->mu);
    while (!fd->err.status && !(s->full && s->index == i))
        pthread_cond_wait(&fd->cv, &fd->mu);
    int ok = !fd->err.status;
    pthread_mutex_unlock(&fd->mu);
    return ok ? (int)(i % RAW_SLOTS) : -1;
}

/* Gives the oldest submitted chunk's slot back once its bytes are on the
 * device (a file: the host re-reads from wherever the device stops) or
 * once the device has parsed it (a stream: the host needs the bytes after
 * the exact stop). Returns 1 when the device has stopped, 0, or -1. */
static int recycle(engine *g, feeder *fd, int exact)
{
    uint64_t i = fd->recycled;
    int k = (int)(i % RAW_SLOTS);
    double t0 = engine_now();
    int stopped = 0;
    int rc = exact ? gpu_raw_wait(g->gpu, g->raw_slot[k], &stopped, g->e)
                   : gpu_raw_copied(g->gpu, g->raw_slot[k], &stopped, g->e);
    g->t_wait += engine_now() - t0;
    if (rc != CS_OK)
        return -1;
    if (stopped)
        return 1;
    pthread_mutex_lock(&fd->mu);
    fd->info[k].full = 0;
    fd->info[k].pieces = 0;
    fd->recycled = i + 1;
    pthread_cond_broadcast(&fd->cv);
    pthread_mutex_unlock(&fd->mu);
    return 0;
}

static int submit_slot(engine *g, int k, size_t len)
{
    double t0 = engine_now();
    int rc = gpu_raw_submit(g->gpu, g->raw_slot[k], len, g->e);
    g->t_submit += engine_now() - t0;
    return rc;
}

/* Chunks [0, nchunks) of a plain file, read by a pool of threads. Returns
 * CS_OK (the device may have stopped: gpu_raw_end says) or an error. */
static int pump_file(engine *g, feeder *fd)
{
    pthread_t th[RAW_READERS];
    int nth = 0, rc = CS_OK;
    int readers = g->nthreads < RAW_READERS ? g->nthreads : RAW_READERS;
    readers = readers > 0 ? readers : 1;
    for (; nth < readers && (uint64_t)nth < fd->nchunks * fd->per_chunk; nth++)
        if (pthread_create(&th[nth], NULL, reader_main, fd) != 0)
            break;
    if (nth == 0 && fd->nchunks)
        rc = cs_fail(g->e, CS_EDATA, "", 0, "cannot start reader threads");
    for (uint64_t i = 0; rc == CS_OK && i < fd->nchunks; i++) {
        int k = await_chunk(fd, i);
        if (k < 0)
            break;
        rc = submit_slot(g, k, fd->info[k].len);
        g->bytes_in += fd->info[k].len; /* read by a reader thread */
        show_progress(g, source_name(fd->src),
                      fd->base + fd->info[k].at + fd->info[k].len,
                      source_file_size(fd->src));
        int st = 0;
        while (rc == CS_OK && st == 0 && i + 1 - fd->recycled > RAW_INFLIGHT)
            st = recycle(g, fd, 0);
        if (st)
            rc = st < 0 ? g->e->status : CS_OK;
        if (st > 0)
            break;
    }
    pthread_mutex_lock(&fd->mu);
    fd->stop = 1;
    pthread_cond_broadcast(&fd->cv);
    pthread_mutex_unlock(&fd->mu);
    for (int t = 0; t < nth; t++)
        pthread_join(th[t], NULL);
    g->t_read += fd->t_read;
    if (rc == CS_OK && fd->err.status)
        *g->e = fd->err;
    return g->e->status;
}

static void feeder_init(feeder *fd, engine *g, const source *src, uint64_t base,
                        uint64_t size)
{
    memset(fd, 0, sizeof *fd);
    fd->g = g;
    fd->src = src;
    fd->base = base;
    fd->size = size;
    fd->chunk = gpu_raw_chunk_bytes(g->gpu);
    fd->nchunks = (size + fd->chunk - 1) / fd->chunk;
    fd->piece = RAW_PIECE;
    if (fd->piece > fd->chunk)
        fd->piece = fd->chunk;
    fd->per_chunk = (unsigned)((fd->chunk + fd->piece - 1) / fd->piece);
    pthread_mutex_init(&fd->mu, NULL);
    pthread_cond_init(&fd->cv, NULL);
}

static void feeder_done(feeder *fd)
{
    pthread_cond_destroy(&fd->cv);
    pthread_mutex_destroy(&fd->mu);
}

static int result_alloc(engine *g, gpu_raw_result *r)
{
    size_t n = (size_t)(g->ncols ? g->ncols : 1);
    memset(r, 0, sizeof *r);
    r->missing = calloc(n, sizeof *r->missing);
    r->invalid = calloc(n, sizeof *r->invalid);
    r->nan = calloc(n, sizeof *r->nan);
    r->first_invalid_line = calloc(n, sizeof *r->first_invalid_line);
    if (r->missing && r->invalid && r->nan && r->first_invalid_line)
        return CS_OK;
    return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
}

static void result_free(gpu_raw_result *r)
{
    free(r->missing);
    free(r->invalid);
    free(r->nan);
    free(r->first_invalid_line);
}

/* The device's rows and counters join the engine's. */
static void take_result(engine *g, const input_file *f, const gpu_raw_result *r)
{
    for (int k = 0; k < g->ncols; k++) {
        g->st[k].missing += r->missing[k];
        g->st[k].invalid += r->invalid[k];
        g->st[k].nan += r->nan[k];
        if (!g->inv_line[k] && r->first_invalid_line[k]) {
            g->inv_line[k] = r->first_invalid_line[k];
            g->inv_file[k] = f->name;
        }
    }
    g->rows += r->rows;
}

/* The device's end of an input: its counts join the engine's, and the
 * input's wall time since t0 goes to -v's stream line. */
static int end_raw(engine *g, const input_file *f, gpu_raw_result *r,
                   char *tail, size_t *tail_len, double t0)
{
    int rc = gpu_raw_end(g->gpu, r, tail, tail_len, g->e);
    g->t_stream += engine_now() - t0;
    g->stream_bytes += r->consumed;
    if (rc == CS_OK)
        take_result(g, f, r);
    return rc;
}

static int begin(engine *g, const input_file *f, uint64_t first_line)
{
    gpu_raw_format fmt = {
        .binary = g->binary,
        .delim = f->dialect.delim ? f->dialect.delim : ',',
        .strict = g->o->strict,
        .record_size = g->spec.record_size,
        .type = g->spec.type,
        .offset = g->spec.offset,
        .map = f->map,
        .nmap = f->nmap,
        .size_hint = source_can_pread(f->src) ? source_file_size(f->src) : 0};
    /* rows are numbered in input order: earlier jobs first */
    int rc = engine_drain(g);
    if (rc == CS_OK)
        rc = gpu_raw_begin(g->gpu, &fmt, g->rows + 1, first_line, g->e);
    if (rc == CS_OK)
        rc = raw_slots(g, gpu_raw_chunk_bytes(g->gpu));
    return rc;
}

int raw_feed_binary(engine *g, input_file *f)
{
    uint64_t size = source_file_size(f->src);
    int rc = begin(g, f, 0);
    if (rc != CS_OK)
        return rc;
    feeder fd;
    double t0 = engine_now();
    feeder_init(&fd, g, f->src, 0, size);
    rc = pump_file(g, &fd);
    feeder_done(&fd);
    gpu_raw_result r;
    if (rc == CS_OK)
        rc = result_alloc(g, &r);
    if (rc != CS_OK)
        return rc;
    size_t tail = 0;
    rc = end_raw(g, f, &r, NULL, &tail, t0);
    result_free(&r);
    return rc;
}

/* A stream: the main thread reads slot after slot. The first data bytes
 * are in g->carry[0, clen). Returns CS_OK or an error; *eof as fill. */
static int pump_stream(engine *g, input_file *f, feeder *fd, size_t clen,
                       int *eof)
{
    size_t from_carry = 0;
    int rc = CS_OK;
    for (uint64_t i = 0; rc == CS_OK; i++) {
        int k = (int)(i % RAW_SLOTS);
        size_t len =
            clen - from_carry < fd->chunk ? clen - from_carry : fd->chunk;
        memcpy(g->raw_slot[k], g->carry + from_carry, len);
        from_carry += len;
        if (len < fd->chunk && !*eof) {
            ssize_t r =
                fill(g, f->src, g->raw_slot[k] + len, fd->chunk - len, eof);
            if (r < 0)
                return g->e->status;
            len += (size_t)r;
        }
        if (len == 0)
            break;
        fd->info[k] = (slot_info){i, fd->size, len, 1, 0};
        fd->size += len;
        fd->nchunks = i + 1;
        rc = submit_slot(g, k, len);
        show_progress(g, f->name, source_raw_pos(f->src),
                      source_file_size(f->src));
        int st = 0;
        while (rc == CS_OK && st == 0 && i + 1 - fd->recycled >= RAW_SLOTS)
            st = recycle(g, fd, 1);
        if (st < 0)
            rc = g->e->status;
        if (st > 0 || (*eof && from_carry == clen))
            break;
    }
    fd->carry_used = from_carry;
    fd->carry_len = clen;
    return rc;
}

/* The bytes of a stream the host must parse: what the device held back,
 * every slot from the first byte after it, then what was read before the
 * device started and never went into a slot. */
static int put_back(engine *g, feeder *fd, const char *tail, size_t tail_len,
                    uint64_t consumed, size_t *clen)
{
    uint64_t from = consumed + tail_len;
    size_t rest = fd->carry_len - fd->carry_used, need = tail_len + rest;
    for (uint64_t i = fd->recycled; i < fd->nchunks; i++)
        if (fd->info[i % RAW_SLOTS].at >= from)
            need += fd->info[i % RAW_SLOTS].len;
    char *p = malloc(need ? need : 1);
    if (!p)
        return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    memcpy(p, tail, tail_len);
    size_t at = tail_len;
    for (uint64_t i = fd->recycled; i < fd->nchunks; i++) {
        const slot_info *s = &fd->info[i % RAW_SLOTS];
        if (s->at >= from) {
            memcpy(p + at, g->raw_slot[i % RAW_SLOTS], s->len);
            at += s->len;
        }
    }
    memcpy(p + at, g->carry + fd->carry_used, rest);
    free(g->carry);
    g->carry = p;
    g->carry_cap = need ? need : 1;
    *clen = need;
    return CS_OK;
}

static void say(engine *g, const input_file *f, const gpu_raw_result *r,
                uint64_t line)
{
    if (!g->o->verbose)
        return;
    if (r->stopped)
        fprintf(g->err_out,
                "colstat: %s:%llu: GPU parse stopped (%s); the host parsed "
                "from here\n",
                f->name, (unsigned long long)line, r->reason);
    else
        fprintf(g->err_out, "colstat: %s: parsed on the GPU\n", f->name);
}

/* After the device: the host's part starts at data byte r->consumed. */
static int hand_over(engine *g, input_file *f, feeder *fd, uint64_t data_off,
                     const gpu_raw_result *r, const char *tail, size_t tail_len,
                     size_t *clen, int *eof)
{
    if (!source_can_pread(f->src))
        return put_back(g, fd, tail, tail_len, r->consumed, clen);
    *clen = 0;
    *eof = 0;
    return source_seek(f->src, data_off + r->consumed, g->e);
}

int raw_feed_csv(engine *g, input_file *f, uint64_t data_off, size_t *clen,
                 int *eof, uint64_t *line)
{
    int rc = begin(g, f, *line);
    if (rc != CS_OK)
        return rc;
    feeder fd;
    double t0 = engine_now();
    int plain = source_can_pread(f->src);
    uint64_t size = source_file_size(f->src);
    /* plain: the bytes in g->carry, then the file from there on */
    feeder_init(&fd, g, f->src, data_off, plain ? size - data_off : 0);
    if (plain)
        rc = pump_file(g, &fd);
    else
        rc = pump_stream(g, f, &fd, *clen, eof);
    gpu_raw_result r;
    char *tail = rc == CS_OK ? malloc(fd.chunk + 1) : NULL;
    if (rc == CS_OK && !tail)
        rc = cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    if (rc == CS_OK)
        rc = result_alloc(g, &r);
    if (rc != CS_OK) {
        free(tail);
        feeder_done(&fd);
        return rc;
    }
    size_t tail_len = 0;
    rc = end_raw(g, f, &r, tail, &tail_len, t0);
    if (rc == CS_OK) {
        *line += r.lines;
        say(g, f, &r, *line);
        rc = hand_over(g, f, &fd, data_off, &r, tail, tail_len, clen, eof);
    }
    result_free(&r);
    free(tail);
    feeder_done(&fd);
    return rc;
}

#else

int raw_wanted(const engine *g, const input_file *f)
{
    (void)g;
    (void)f;
    return 0;
}

int raw_feed_binary(engine *g, input_file *f)
{
    (void)f;
    return cs_fail(g->e, CS_EDATA, "", 0, "no GPU");
}

int raw_feed_csv(engine *g, input_file *f, uint64_t data_off, size_t *clen,
                 int *eof, uint64_t *line)
{
    (void)f;
    (void)data_off;
    (void)clen;
    (void)eof;
    (void)line;
    return cs_fail(g->e, CS_EDATA, "", 0, "no GPU");
}

void raw_free(engine *g)
{
    (void)g;
}

#endif
