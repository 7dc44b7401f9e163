#include "src/engine/feed.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void feed_init(feed *f, jobs *js, backend *be, account *acc, int nthreads,
               int ncols, int strict)
{
    memset(f, 0, sizeof *f);
    f->js = js;
    f->acc = acc;
    f->block = be->block_bytes;
    /* two copy faster than one thread cuts (bench/RESULTS.md) */
    f->readers = nthreads >= 8 ? 2 : 1;
    f->nthreads = nthreads;
    f->raw = (rawfeed){be, js, acc, nthreads, ncols, strict, NULL, 0};
}

void feed_free(feed *f)
{
    rawfeed_free(&f->raw);
    readahead_stop(f->ra);
    f->ra = NULL;
    free(f->carry);
    f->carry = NULL;
}

/* The carry now holds bytes[0, n), which it takes over (NULL: none). */
static void carry_adopt(feed *f, char *bytes, size_t n)
{
    if (!bytes) { /* nothing handed back: the source goes on */
        f->carry_len = 0;
        return;
    }
    free(f->carry);
    f->carry = bytes;
    f->carry_len = n;
    f->carry_cap = n;
}

static int carry_set(feed *f, const char *bytes, size_t n)
{
    f->carry_len = 0;
    if (n == 0)
        return 0;
    if (f->carry_cap < n) {
        char *p = realloc(f->carry, n);
        if (!p)
            return -1;
        f->carry = p;
        f->carry_cap = n;
    }
    memmove(f->carry, bytes, n);
    f->carry_len = n;
    return 0;
}

/* Reads up to n bytes (fewer only at the end: *eof). */
static ssize_t fill(feed *f, source *src, char *buf, size_t n, int *eof,
                    cs_error *e)
{
    double t0 = account_now();
    ssize_t got = source_read_full(src, buf, n, eof, e);
    if (got < 0)
        return -1;
    account_time(f->acc, ACC_READ, account_now() - t0);
    account_bytes(f->acc, (size_t)got);
    return got;
}

/* Where a record-aligned prefix of buf ends: the CSV cutter, or whole
 * binary records. Returns (size_t)-1 on error. */
static size_t cut(const input *in, csv_cutter *c, const char *buf, size_t len,
                  int eof, uint64_t *records, cs_error *e)
{
    if (!in->spec)
        return csv_cut(c, buf, len, eof, in->name, e);
    size_t rs = in->spec->record_size, n = len / rs * rs;
    if (eof && n != len) {
        cs_fail(e, CS_EDATA, in->name, 0,
                "%zu bytes left over after %llu whole records of %zu bytes",
                len - n, (unsigned long long)(*records + n / rs), rs);
        return (size_t)-1;
    }
    *records += n / rs;
    return n;
}

/* The state of one input being cut into jobs. */
typedef struct cutting {
    input *in;
    csv_cutter c;
    int eof;
    uint64_t records; /* binary: whole records so far */
} cutting;

/* Fills j with the carried bytes plus new input until it holds at least
 * one whole record (or the input ends); *n is where the cut falls. */
static int load_block(feed *f, cutting *ct, job *j, size_t *len, size_t *n,
                      cs_error *e)
{
    if (f->carry_len)
        memcpy(j->buf, f->carry, f->carry_len);
    *len = f->carry_len;
    for (;;) {
        if (!ct->eof) {
            ssize_t r =
                fill(f, ct->in->src, j->buf + *len, j->cap - *len, &ct->eof, e);
            if (r < 0)
                return CS_EDATA;
            *len += (size_t)r;
        }
        *n = cut(ct->in, &ct->c, j->buf, *len, ct->eof, &ct->records, e);
        if (*n == (size_t)-1)
            return CS_EDATA;
        if (*n > 0 || ct->eof)
            return CS_OK;
        /* A record longer than the buffer: grow it and read on, to one
         * byte past the record limit at most (the cutter's error then). */
        size_t max = ct->in->spec ? SIZE_MAX / 2 : ct->c.max_record + 1;
        size_t grow = j->cap * 2 < max ? j->cap * 2 : max;
        if (grow <= j->cap || job_reserve(j, grow))
            return cs_fail(e, CS_ENOMEM, ct->in->name, ct->c.line,
                           "out of memory for a record");
    }
}

/* One job: the carried bytes plus as much new input as fits, cut at the
 * last record boundary. Returns 1 when the input is used up, 0 to go on,
 * -1 on error. */
static int feed_one(feed *f, cutting *ct, cs_error *e)
{
    /* room for a block past the carry: doubling it would read a second
     * carry's worth, past the record limit, before the cutter looks */
    size_t want = f->carry_len + f->block;
    job *j = jobs_get(f->js, ct->in, want, e);
    if (!j)
        return -1;
    uint64_t line = ct->c.line;
    size_t len = 0, n = 0;
    int rc = load_block(f, ct, j, &len, &n, e);
    if (rc == CS_OK && carry_set(f, j->buf + n, len - n))
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (rc != CS_OK) {
        jobs_put(f->js, j);
        return -1;
    }
    if (n == 0)
        jobs_put(f->js, j);
    else
        jobs_dispatch(f->js, j, n, line);
    account_progress(f->acc, ct->in->name, source_raw_pos(ct->in->src),
                     source_file_size(ct->in->src));
    return ct->eof && f->carry_len == 0;
}

/* Room before a block read ahead for the bytes carried from the block
 * before: the tail of a record, almost always far shorter. */
#define AHEAD_FRONT ((size_t)64 << 10)

/* Whether the rest of ct's input is read ahead: a plain regular file of
 * CSV text with bytes left before its size at open. */
static int wants_ahead(feed *f, const cutting *ct)
{
    const source *s = ct->in->src;
    if (ct->eof || ct->in->spec || f->readers <= 0 || !source_can_pread(s) ||
        source_raw_pos(s) >= source_file_size(s))
        return 0;
    if (!f->ra && !(f->ra = readahead_start(f->readers)))
        f->readers = 0; /* no thread to be had: read in order */
    return f->ra != NULL;
}

/* Puts the carry just before the block read at buf + AHEAD_FRONT: in the
 * room there, or by moving the block up when it is longer. Returns where
 * the bytes start, (size_t)-1 without memory. */
static size_t join_carry(feed *f, job *j, size_t got)
{
    size_t c = f->carry_len;
    if (c <= AHEAD_FRONT) {
        if (c)
            memcpy(j->buf + AHEAD_FRONT - c, f->carry, c);
        return AHEAD_FRONT - c;
    }
    if (job_reserve(j, c + got))
        return (size_t)-1;
    memmove(j->buf + c, j->buf + AHEAD_FRONT, got);
    memcpy(j->buf, f->carry, c);
    return 0;
}

/* At the end of a file read ahead, a read there: the source's check that
 * the file kept its size at open (io/source/source.h). */
static int ahead_end(input *in, uint64_t end, cs_error *e)
{
    char c;
    if (source_seek(in->src, end, e) != CS_OK)
        return CS_EDATA;
    ssize_t r = source_read(in->src, &c, 1, e);
    if (r < 0)
        return CS_EDATA;
    if (r > 0)
        return cs_fail(e, CS_EDATA, in->name, 0, "file grew while being read");
    return CS_OK;
}

/* The carry and the next block read ahead, cut and handed out as
 * feed_one does. Returns 1 when the input is used up, 0 to go on, -1 on
 * error. */
static int ahead_one(feed *f, cutting *ct, uint64_t end, cs_error *e)
{
    job *j;
    uint64_t off, line = ct->c.line;
    size_t got, skip, n = 0;
    int r = readahead_next(f->ra, &j, &off, &got, e);
    if (r <= 0) {
        if (r == 0)
            cs_fail(e, CS_EDATA, ct->in->name, 0,
                    "internal error: the read-ahead ended early");
        return -1;
    }
    account_time(f->acc, ACC_READ, readahead_seconds(f->ra));
    account_bytes(f->acc, got);
    ct->eof = off + got == end;
    int rc = ct->eof ? ahead_end(ct->in, end, e) : CS_OK;
    if (rc == CS_OK && (skip = join_carry(f, j, got)) == (size_t)-1)
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    size_t len = f->carry_len + got;
    if (rc == CS_OK && (n = cut(ct->in, &ct->c, j->buf + skip, len, ct->eof,
                                &ct->records, e)) == (size_t)-1)
        rc = CS_EDATA;
    if (rc == CS_OK && carry_set(f, j->buf + skip + n, len - n))
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (rc != CS_OK || n == 0)
        jobs_put(f->js, j);
    else
        jobs_dispatch_from(f->js, j, skip, n, line);
    account_progress(f->acc, ct->in->name, off + got, end);
    return rc != CS_OK ? -1 : ct->eof && f->carry_len == 0;
}

/* The rest of a plain file, read ahead. Enough blocks in flight to keep
 * the readers busy, and no more than leaves the workers their jobs. */
static int feed_ahead(feed *f, cutting *ct, cs_error *e)
{
    const source *s = ct->in->src;
    uint64_t from = source_raw_pos(s), end = source_file_size(s);
    int depth = jobs_capacity(f->js) - f->nthreads - 1;
    if (depth > 2 * f->readers + 2)
        depth = 2 * f->readers + 2;
    readahead_begin(f->ra, f->js, ct->in, from, end, AHEAD_FRONT, f->block,
                    depth);
    int done = 0;
    while (done == 0)
        done = ahead_one(f, ct, end, e);
    if (done < 0)
        readahead_cancel(f->ra);
    return done < 0 ? e->status : CS_OK;
}

/* Binary records of a plain file: every worker preads its own range, so
 * reading scales with the threads instead of one reader's speed. */
static int feed_ranges(feed *f, input *in, cs_error *e)
{
    uint64_t size = source_file_size(in->src), rs = in->spec->record_size;
    if (size % rs)
        return cs_fail(e, CS_EDATA, in->name, 0,
                       "%llu bytes left over after %llu whole records of %llu "
                       "bytes",
                       (unsigned long long)(size % rs),
                       (unsigned long long)(size / rs), (unsigned long long)rs);
    if (rawfeed_wants(&f->raw, in))
        return rawfeed_binary(&f->raw, in, e);
    uint64_t step = f->block / rs * rs;
    if (step == 0)
        step = rs;
    /* a part (engine_part) starts at data_off, on a record boundary */
    for (uint64_t off = in->data_off; off < size; off += step) {
        size_t len = (size_t)(size - off < step ? size - off : step);
        job *j = jobs_get(f->js, in, len, e);
        if (!j)
            return e->status;
        account_bytes(f->acc, len);
        jobs_dispatch_range(f->js, j, off, len);
        account_progress(f->acc, in->name, off + len, size);
    }
    return CS_OK;
}

int feed_input(feed *f, input *in, cs_error *e)
{
    if (in->by_range)
        return feed_ranges(f, in, e);
    cutting ct = {in, {0}, in->head_eof, 0};
    uint64_t line = in->first_line;
    if (carry_set(f, in->head, in->head_len))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (!in->spec && rawfeed_wants(&f->raw, in)) {
        raw_rest rest;
        if (rawfeed_csv(&f->raw, in, &rest, e) != CS_OK) {
            free(rest.bytes);
            return e->status;
        }
        carry_adopt(f, rest.bytes, rest.len);
        ct.eof = rest.eof;
        line = rest.line;
    }
    csv_cutter_init(&ct.c, &in->dialect, line);
    if (wants_ahead(f, &ct))
        return feed_ahead(f, &ct, e);
    int done = 0;
    while (done == 0)
        done = feed_one(f, &ct, e);
    return done < 0 ? e->status : CS_OK;
}
