#include "src/engine/readahead.h"

#include <stdlib.h>

#include "src/engine/account.h"
#include "src/engine/workq.h"

#define RA_MAX_DEPTH 16

/* One block being read. */
typedef struct ra_read {
    wq_item item; /* first: the work queue hands this back */
    const source *src;
    job *j;
    size_t front, n;
    uint64_t off;
    double secs;
    cs_error err;
} ra_read;

struct readahead {
    workq *q;
    jobs *js;
    input *in;
    uint64_t next, end; /* the next block's offset; where reading ends */
    size_t front, block, want;
    int depth, head, n_in; /* ring[head] is the oldest of n_in in flight */
    double secs;
    ra_read ring[RA_MAX_DEPTH];
};

readahead *readahead_start(int threads)
{
    readahead *ra = calloc(1, sizeof *ra);
    if (ra && !(ra->q = workq_start(threads > 0 ? threads : 1))) {
        free(ra);
        ra = NULL;
    }
    return ra;
}

static void run_read(wq_item *it)
{
    ra_read *r = (ra_read *)it;
    double t0 = account_now();
    (void)source_pread(r->src, r->j->buf + r->front, r->n, r->off, &r->err);
    r->secs = account_now() - t0;
}

void readahead_begin(readahead *ra, jobs *js, input *in, uint64_t from,
                     uint64_t end, size_t front, size_t block, int depth)
{
    ra->js = js;
    ra->in = in;
    ra->next = from;
    ra->end = end;
    ra->front = front;
    ra->block = block;
    ra->want = front + block;
    ra->depth = depth < 1 ? 1 : depth > RA_MAX_DEPTH ? RA_MAX_DEPTH : depth;
    ra->head = ra->n_in = 0;
}

/* Posts reads until depth are in flight or the range is all given out. */
static int post(readahead *ra, cs_error *e)
{
    while (ra->n_in < ra->depth && ra->next < ra->end) {
        job *j = jobs_get(ra->js, ra->in, ra->want, e);
        if (!j)
            return -1;
        ra_read *r = &ra->ring[(ra->head + ra->n_in) % RA_MAX_DEPTH];
        uint64_t left = ra->end - ra->next;
        *r = (ra_read){.item = {.run = run_read},
                       .src = ra->in->src,
                       .j = j,
                       .front = ra->front,
                       .n = left < ra->block ? (size_t)left : ra->block,
                       .off = ra->next};
        workq_push(ra->q, &r->item);
        ra->next += r->n;
        ra->n_in++;
    }
    return 0;
}

/* The oldest read, waited for and taken off the ring. */
static ra_read *take(readahead *ra)
{
    ra_read *r = &ra->ring[ra->head];
    workq_wait(ra->q, &r->item);
    ra->head = (ra->head + 1) % RA_MAX_DEPTH;
    ra->n_in--;
    ra->secs += r->secs;
    return r;
}

int readahead_next(readahead *ra, job **j, uint64_t *off, size_t *n,
                   cs_error *e)
{
    if (post(ra, e))
        return -1;
    if (!ra->n_in)
        return 0;
    ra_read *r = take(ra);
    if (r->err.status) {
        *e = r->err;
        jobs_put(ra->js, r->j);
        return -1;
    }
    *j = r->j;
    *off = r->off;
    *n = r->n;
    return 1;
}

void readahead_cancel(readahead *ra)
{
    while (ra->n_in)
        jobs_put(ra->js, take(ra)->j);
    ra->next = ra->end;
}

double readahead_seconds(readahead *ra)
{
    double s = ra->secs;
    ra->secs = 0;
    return s;
}

void readahead_stop(readahead *ra)
{
    if (!ra)
        return;
    workq_stop(ra->q);
    free(ra);
}
