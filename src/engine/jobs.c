/* The job pool: jobs go to the workers in input order and are retired in
 * that order, each by the backend, once its worker is done. */
#include "src/engine/jobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/engine/backend.h"
#include "src/engine/worker.h"

/* What the jobs' backend parts may take together, unless that leaves
 * fewer jobs than workers. */
#define JOBS_JSTATE_BUDGET ((size_t)128 << 20)

struct jobs {
    jobs_params p;
    workq *q;
    job **ring; /* in flight, in input order */
    int ring_cap, ring_head, ring_n;
    job *free_jobs;
    int njobs, max_jobs;
    uint64_t next_seq;
    uint64_t rows;
    char **inv_file; /* per column: where its first invalid field is */
    uint64_t *inv_line;
    char (*inv_text)[CSV_SHOWN]; /* and what it says */
    int err_retired;             /* e holds an error met in retiring: final */
    uint64_t repeats, repeat_line;
    char *repeat_file;
};

int job_reserve(job *j, size_t bytes)
{
    if (j->cap >= bytes)
        return 0;
    char *p = realloc(j->buf, bytes);
    if (!p)
        return -1;
    j->buf = p;
    j->cap = bytes;
    return 0;
}

static void job_free(jobs *js, job *j)
{
    backend *be = js->p.be;
    for (int c = 0; c < j->nbatches; c++)
        row_batch_free(&j->batches[c], NULL);
    free(j->batches);
    if (j->jstate)
        be->ops->jstate_free(be, j->jstate);
    free(j->first_invalid);
    free(j->buf);
    free(j);
}

/* A backend that reduces row batches at once gets one row batch per job, made
 * here; one that keeps them gets them as the worker needs them. */
static job *job_new(jobs *js, cs_error *e)
{
    backend *be = js->p.be;
    job *j = calloc(1, sizeof *j);
    if (!j) {
        cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        return NULL;
    }
    j->params = &js->p;
    j->item.run = worker_run;
    size_t n = (size_t)(js->p.ncols ? js->p.ncols : 1);
    j->first_invalid = calloc(n, sizeof *j->first_invalid);
    j->batches = calloc(1, sizeof *j->batches);
    j->nbatches_cap = 1;
    j->jstate = be->ops->jstate_new(be);
    int ok = j->first_invalid && j->batches && j->jstate;
    if (ok && !be->keeps_batches) {
        ok = row_batch_init(&j->batches[0], js->p.ncols, be->batch_rows,
                            NULL) == 0;
        j->nbatches = ok;
    }
    if (!ok) {
        job_free(js, j);
        cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        return NULL;
    }
    js->njobs++;
    return j;
}

static void job_reset(jobs *js, job *j)
{
    memset(&j->err, 0, sizeof j->err);
    j->rows = 0;
    j->repeats = j->repeat_line = 0;
    j->skip = j->len = 0;
    j->off = 0;
    j->pread = 0;
    j->nbatches_used = 0;
    j->t_read = j->t_parse = j->t_reduce = j->t_handoff = 0;
    memset(j->first_invalid, 0, (size_t)js->p.ncols * sizeof *j->first_invalid);
    js->p.be->ops->jstate_reset(js->p.be, j->jstate);
}

int jobs_start(const jobs_params *p, jobs **out, cs_error *e)
{
    *out = NULL;
    jobs *js = calloc(1, sizeof *js);
    if (!js)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    js->p = *p;
    /* Enough to keep every worker busy while the main thread feeds; fewer
     * where each job's state is large (a wide table), but never fewer
     * than one per worker and one being fed. */
    js->max_jobs = 2 * p->nthreads + 2;
    size_t each = p->be->jstate_bytes;
    if (each && (size_t)js->max_jobs * each > JOBS_JSTATE_BUDGET) {
        size_t fit = JOBS_JSTATE_BUDGET / each;
        js->max_jobs =
            fit > (size_t)p->nthreads + 1 ? (int)fit : p->nthreads + 1;
    }
    js->ring_cap = js->max_jobs;
    size_t n = (size_t)(p->ncols ? p->ncols : 1);
    js->ring = calloc((size_t)js->ring_cap, sizeof *js->ring);
    js->inv_file = calloc(n, sizeof *js->inv_file);
    js->inv_line = calloc(n, sizeof *js->inv_line);
    js->inv_text = calloc(n, sizeof *js->inv_text);
    if (js->ring && js->inv_file && js->inv_line && js->inv_text)
        js->q = workq_start(p->nthreads);
    *out = js;
    if (!js->q)
        return cs_fail(e, CS_ENOMEM, "", 0,
                       "out of memory (or at the process limit) starting "
                       "worker threads");
    return CS_OK;
}

void jobs_add_repeats(jobs *js, uint64_t n, const char *file, uint64_t line)
{
    if (n && !js->repeats && line && (js->repeat_file = strdup(file)))
        js->repeat_line = line;
    js->repeats += n;
}

uint64_t jobs_repeats(const jobs *js, const char **file, uint64_t *line)
{
    *file = js->repeat_file;
    *line = js->repeat_line;
    return js->repeats;
}

void jobs_note_invalid(jobs *js, int col, const char *file, uint64_t line,
                       const char *text)
{
    if (js->inv_line[col] || !line)
        return;
    js->inv_file[col] = strdup(file);
    if (js->inv_file[col])
        js->inv_line[col] = line;
    snprintf(js->inv_text[col], sizeof js->inv_text[col], "%s", text);
}

const char *jobs_first_invalid(const jobs *js, int col, uint64_t *line,
                               const char **text)
{
    *line = js->inv_line[col];
    *text = js->inv_text[col];
    return js->inv_file[col];
}

/* Spots in the order csv_locate wants them: by row, then field. */
static int spot_order(const void *a, const void *b)
{
    const csv_spot *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return (x->field > y->field) - (x->field < y->field);
}

/* The job holds the first invalid field of some columns: found in its
 * bytes again (line and text), all at once. A spot's field leads to its
 * column through the input's map. */
static void note_invalid(jobs *js, const job *j)
{
    int n = 0;
    for (int k = 0; k < js->p.ncols && !js->p.spec; k++)
        n += j->first_invalid[k] && !js->inv_line[k];
    csv_spot *sp = n ? malloc((size_t)n * sizeof *sp) : NULL;
    if (!sp)
        return;
    const input *in = j->in;
    int i = 0;
    for (int f = 0; f < in->nmap; f++) {
        int k = in->map[f];
        if (k >= 0 && j->first_invalid[k] && !js->inv_line[k])
            sp[i++] = (csv_spot){j->first_invalid[k], f, 0, 0, ""};
    }
    qsort(sp, (size_t)i, sizeof *sp, spot_order);
    csv_locate(&in->dialect, j->buf + j->skip, j->len, j->first_line, sp, i);
    for (int s = 0; s < i; s++)
        jobs_note_invalid(js, in->map[sp[s].field], in->name, sp[s].record_line,
                          sp[s].text);
    free(sp);
}

/* Waits for the oldest job and retires it. After an error, nothing more
 * is merged; the first error in input order is the one kept. An error the
 * main thread met (reading, cutting, opening the next input) lies past
 * every job in flight, whose bytes it had already handed out: a job's
 * error, retired later, replaces it (else thread timing would decide). */
static int retire_one(jobs *js, cs_error *e)
{
    job *j = js->ring[js->ring_head];
    double t0 = account_now();
    workq_wait(js->q, &j->item);
    account_time(js->p.acc, ACC_RETIRE, account_now() - t0);
    js->ring_head = (js->ring_head + 1) % js->ring_cap;
    js->ring_n--;
    int abandon = e->status || j->err.status, had = e->status;
    if (j->err.status && !js->err_retired) {
        *e = j->err;
        js->err_retired = 1;
    }
    if (!abandon) {
        account_time(js->p.acc, ACC_READ, j->t_read);
        account_time(js->p.acc, ACC_PARSE, j->t_parse);
        account_time(js->p.acc, ACC_REDUCE, j->t_reduce);
        account_time(js->p.acc, ACC_HANDOFF, j->t_handoff);
        note_invalid(js, j);
        jobs_add_repeats(js, j->repeats, j->in->name, j->repeat_line);
    }
    backend *be = js->p.be;
    be->ops->retire(be, j, js->rows + 1, abandon, e);
    js->err_retired |= !had && e->status;
    if (!abandon)
        js->rows += j->rows;
    input_release(j->in);
    j->in = NULL;
    j->next_free = js->free_jobs;
    js->free_jobs = j;
    return e->status;
}

/* Retires the jobs already done, in order: memory returns early and the
 * backend gets rows as soon as they exist. */
static int retire_done(jobs *js, cs_error *e)
{
    while (js->ring_n && workq_done(js->q, &js->ring[js->ring_head]->item))
        if (retire_one(js, e))
            return e->status;
    return e->status;
}

static job *take_job(jobs *js, cs_error *e)
{
    for (;;) {
        if (e->status || retire_done(js, e))
            return NULL;
        if (js->free_jobs) {
            job *j = js->free_jobs;
            js->free_jobs = j->next_free;
            return j;
        }
        if (js->njobs < js->max_jobs)
            return job_new(js, e);
        if (!js->ring_n) {
            cs_fail(e, CS_EDATA, "", 0, "internal error: no free job");
            return NULL;
        }
        retire_one(js, e);
    }
}

job *jobs_get(jobs *js, input *in, size_t bytes, cs_error *e)
{
    job *j = take_job(js, e);
    if (!j)
        return NULL;
    job_reset(js, j);
    if (job_reserve(j, bytes)) {
        jobs_put(js, j);
        cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        return NULL;
    }
    input_hold(in);
    j->in = in;
    return j;
}

void jobs_put(jobs *js, job *j)
{
    input_release(j->in);
    j->in = NULL;
    j->next_free = js->free_jobs;
    js->free_jobs = j;
}

static void dispatch(jobs *js, job *j)
{
    j->seq = js->next_seq++;
    js->ring[(js->ring_head + js->ring_n) % js->ring_cap] = j;
    js->ring_n++;
    workq_push(js->q, &j->item);
}

int jobs_capacity(const jobs *js)
{
    return js->max_jobs;
}

void jobs_dispatch_from(jobs *js, job *j, size_t skip, size_t len,
                        uint64_t first_line)
{
    j->skip = skip;
    j->len = len;
    j->first_line = first_line;
    dispatch(js, j);
}

void jobs_dispatch(jobs *js, job *j, size_t len, uint64_t first_line)
{
    j->skip = 0;
    j->len = len;
    j->first_line = first_line;
    dispatch(js, j);
}

void jobs_dispatch_range(jobs *js, job *j, uint64_t off, size_t len)
{
    j->len = len;
    j->off = off;
    j->pread = 1;
    dispatch(js, j);
}

int jobs_drain(jobs *js, cs_error *e)
{
    while (js->ring_n)
        retire_one(js, e);
    backend *be = js->p.be;
    if (be->ops->flush)
        be->ops->flush(be, e);
    return e->status;
}

void jobs_trim(jobs *js)
{
    while (js->free_jobs && !js->ring_n) {
        job *j = js->free_jobs;
        js->free_jobs = j->next_free;
        job_free(js, j);
        js->njobs--;
    }
}

uint64_t jobs_rows(const jobs *js)
{
    return js->rows;
}

void jobs_add_rows(jobs *js, uint64_t n)
{
    js->rows += n;
}

void jobs_stop(jobs *js)
{
    if (!js)
        return;
    workq_stop(js->q);
    while (js->free_jobs) {
        job *j = js->free_jobs;
        js->free_jobs = j->next_free;
        job_free(js, j);
    }
    for (int k = 0; js->inv_file && k < js->p.ncols; k++)
        free(js->inv_file[k]);
    free(js->inv_file);
    free(js->inv_line);
    free(js->inv_text);
    free(js->repeat_file);
    free(js->ring);
    free(js);
}
