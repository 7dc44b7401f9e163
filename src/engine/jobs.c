/* Jobs: a record-aligned slice of input that a worker parses into chunks
 * and, on the CPU backend, reduces; the main thread then retires jobs in
 * input order, which numbers their rows and merges their state. */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "internal.h"
#include "io/source.h"

static int dvec_push_values(dvec *d, const double *v, size_t n)
{
    if (d->cap - d->n < n) {
        size_t cap = d->cap ? d->cap : 4096;
        while (cap - d->n < n)
            cap *= 2;
        double *p = realloc(d->v, cap * sizeof *p);
        if (!p)
            return -1;
        d->v = p;
        d->cap = cap;
    }
    /* NaN never enters a histogram: keeping it would only cost memory. */
    for (size_t i = 0; i < n; i++)
        if (v[i] == v[i])
            d->v[d->n++] = v[i];
    return 0;
}

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

/* The next chunk to fill. The CPU backend reduces each chunk at once and
 * reuses one; for the GPU a job keeps them all until they are staged. */
static chunk *next_chunk(job *j)
{
    engine *g = j->g;
    if (!g->gpu || j->ncks_used < j->ncks) {
        chunk *c = &j->cks[g->gpu ? j->ncks_used : 0];
        j->ncks_used++;
        chunk_clear(c);
        return c;
    }
    if (j->ncks == j->nck_cap) {
        int cap = j->nck_cap ? 2 * j->nck_cap : 2;
        chunk *p = realloc(j->cks, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        j->cks = p;
        j->nck_cap = cap;
    }
    chunk *c = &j->cks[j->ncks];
    if (chunk_init(c, g->ncols, CHUNK_ROWS(g), NULL))
        return NULL;
    j->ncks++;
    j->ncks_used++;
    return c;
}

static int reduce_on_cpu(job *j, const chunk *c)
{
    engine *g = j->g;
    double t0 = engine_now();
    cpu_reduce_chunk(c, j->rows + 1, j->st, g->what);
    if (g->what & STAT_HIST)
        for (int k = 0; k < g->ncols; k++) {
            if (g->o->have_range)
                hist_add_values(&j->h[k], c->col[k], c->nrows);
            else if (dvec_push_values(&j->keep[k], c->col[k], c->nrows))
                return cs_fail(&j->err, CS_EDATA, "", 0,
                               "out of memory keeping values for --hist "
                               "(give --range LO:HI to bin without them)");
        }
    j->t_reduce += engine_now() - t0;
    return CS_OK;
}

static int finish_chunk(job *j, const chunk *c)
{
    for (int k = 0; k < c->ncols; k++)
        if (!j->first_invalid[k] && c->first_invalid[k])
            j->first_invalid[k] = j->rows + c->first_invalid[k];
    int rc = j->g->gpu ? CS_OK : reduce_on_cpu(j, c);
    j->rows += c->nrows;
    return rc;
}

static void run_csv(job *j)
{
    engine *g = j->g;
    const input_file *f = j->file;
    size_t pos = 0;
    uint64_t line = j->first_line;
    while (pos < j->len) {
        chunk *c = next_chunk(j);
        if (!c) {
            cs_fail(&j->err, CS_EDATA, "", 0, "out of memory for chunks");
            return;
        }
        size_t used = 0;
        uint64_t lines = 0;
        double t0 = engine_now();
        int rc = csv_parse_block(&f->dialect, j->buf + pos, j->len - pos, line,
                                 f->map, f->nmap, g->o->strict, f->name, c,
                                 &used, &lines, &j->err);
        j->t_parse += engine_now() - t0;
        if (rc != CS_OK || finish_chunk(j, c) != CS_OK)
            return;
        if (used == 0) {
            cs_fail(&j->err, CS_EDATA, f->name, line,
                    "internal error: the CSV parser made no progress");
            return;
        }
        pos += used;
        line += lines;
    }
}

static void run_binary(job *j)
{
    engine *g = j->g;
    if (j->src) {
        double t0 = engine_now();
        if (source_pread(j->src, j->buf, j->len, j->off, &j->err) < 0)
            return;
        j->t_read += engine_now() - t0;
    }
    size_t rs = g->spec.record_size;
    size_t nrec = j->len / rs, done = 0;
    while (done < nrec) {
        chunk *c = next_chunk(j);
        if (!c) {
            cs_fail(&j->err, CS_EDATA, "", 0, "out of memory for chunks");
            return;
        }
        size_t k = nrec - done < c->cap ? nrec - done : c->cap;
        double t0 = engine_now();
        binary_decode(&g->spec, (const unsigned char *)j->buf + done * rs, k,
                      j->file->map, j->file->nmap, c);
        j->t_parse += engine_now() - t0;
        if (finish_chunk(j, c) != CS_OK)
            return;
        done += k;
    }
}

static void job_run(wq_item *it)
{
    job *j = (job *)it;
    if (j->g->binary)
        run_binary(j);
    else
        run_csv(j);
    if (j->g->gpu)
        stage_take(j->g, j);
}

static job *job_new(engine *g)
{
    job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->g = g;
    j->item.run = job_run;
    size_t n = (size_t)(g->ncols ? g->ncols : 1);
    j->first_invalid = calloc(n, sizeof *j->first_invalid);
    j->cks = calloc(1, sizeof *j->cks);
    int ok = j->first_invalid && j->cks;
    if (ok && !g->gpu) {
        j->nck_cap = j->ncks = 1;
        ok = chunk_init(&j->cks[0], g->ncols, CHUNK_ROWS(g), NULL) == 0;
        j->st = ok ? calloc(n, sizeof *j->st) : NULL;
        ok = j->st != NULL;
        if (ok && (g->what & STAT_HIST) && g->o->have_range) {
            j->h = calloc(n, sizeof *j->h);
            ok = j->h != NULL;
            for (int k = 0; ok && k < g->ncols; k++)
                ok = hist_init(&j->h[k], g->o->nbins, g->o->range_lo,
                               g->o->range_hi) == 0;
        } else if (ok && (g->what & STAT_HIST)) {
            j->keep = calloc(n, sizeof *j->keep);
            ok = j->keep != NULL;
        }
    } else if (ok) {
        j->nck_cap = 1;
    }
    if (!ok) {
        cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
        /* Partly built: the free path below copes with NULL members. */
        j->next = g->free_jobs;
        g->free_jobs = j;
        g->njobs++;
        return NULL;
    }
    return j;
}

static void job_reset(engine *g, job *j)
{
    memset(&j->err, 0, sizeof j->err);
    j->rows = 0;
    j->len = 0;
    j->src = NULL;
    j->ncks_used = 0;
    j->t_read = j->t_parse = j->t_reduce = j->t_turn = 0;
    j->pin = NULL;
    memset(j->first_invalid, 0, (size_t)g->ncols * sizeof *j->first_invalid);
    for (int k = 0; j->st && k < g->ncols; k++)
        stats_init(&j->st[k]);
    for (int k = 0; j->h && k < g->ncols; k++) {
        memset(j->h[k].bins, 0, (size_t)j->h[k].nbins * sizeof(uint64_t));
        j->h[k].underflow = j->h[k].overflow = 0;
    }
}

static int recycle_submitted(engine *g)
{
    job *j = g->submitted;
    g->nsubmitted--;
    g->submitted = j->next;
    if (!g->submitted)
        g->submitted_tail = NULL;
    int rc = CS_OK;
#ifdef COLSTAT_HAVE_GPU
    double t0 = engine_now();
    if (j->pin) {
        rc = gpu_chunk_wait(g->gpu, j->pin, g->e);
        stage_release(g, j, (int)(j->pin - g->stage));
    }
    for (int k = 0; k < j->ncks_used && rc == CS_OK; k++)
        rc = gpu_chunk_wait(g->gpu, &j->cks[k], g->e);
    g->t_wait += engine_now() - t0;
#endif
    j->next = g->free_jobs;
    g->free_jobs = j;
    return rc;
}

/* Retires, in order, the jobs the workers have already finished: the GPU
 * gets its chunks as soon as they exist, and memory returns early. */
static int retire_finished(engine *g)
{
    while (g->ring_n && workq_done(g->q, &g->ring[g->ring_head]->item))
        if (engine_retire_one(g))
            return -1;
    return 0;
}

job *job_get(engine *g)
{
    for (;;) {
        if (g->e->status || retire_finished(g))
            return NULL;
        if (g->free_jobs) {
            job *j = g->free_jobs;
            g->free_jobs = j->next;
            job_reset(g, j);
            return j;
        }
        if (g->njobs < g->max_jobs) {
            job *j = job_new(g);
            if (!j)
                return NULL;
            g->njobs++;
            job_reset(g, j);
            return j;
        }
        if (g->ring_n) {
            if (engine_retire_one(g))
                return NULL;
        } else if (g->submitted) {
            if (recycle_submitted(g))
                return NULL;
        } else {
            cs_fail(g->e, CS_EDATA, "", 0, "internal error: no free job");
            return NULL;
        }
    }
}

void job_put(engine *g, job *j)
{
    j->next = g->free_jobs;
    g->free_jobs = j;
}

int job_dispatch(engine *g, job *j)
{
    /* The staging ring is for rows the host parsed: made at first need,
     * since raw input does without it. */
    if (g->gpu && !g->stage_ready && stage_init(g) != CS_OK) {
        job_put(g, j);
        return g->e->status;
    }
    j->seq = g->next_seq++;
    g->ring[(g->ring_head + g->ring_n) % g->ring_cap] = j;
    g->ring_n++;
    workq_push(g->q, &j->item);
    return CS_OK;
}

static void note_invalid(engine *g, const job *j)
{
    for (int k = 0; k < g->ncols; k++) {
        if (!j->first_invalid[k] || g->inv_line[k])
            continue;
        const input_file *f = j->file;
        g->inv_line[k] = csv_line_of_row(&f->dialect, j->buf, j->len,
                                         j->first_line, j->first_invalid[k]);
        g->inv_file[k] = f->name;
    }
}

static int keep_values(engine *g, job *j)
{
    for (int k = 0; k < g->ncols; k++) {
        if (!j->keep[k].n)
            continue;
        if (g->nkept[k] == g->kept_cap[k]) {
            size_t cap = g->kept_cap[k] ? 2 * g->kept_cap[k] : 16;
            dvec *p = realloc(g->kept[k], cap * sizeof *p);
            if (!p)
                return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
            g->kept[k] = p;
            g->kept_cap[k] = cap;
        }
        g->kept[k][g->nkept[k]++] = j->keep[k];
        memset(&j->keep[k], 0, sizeof j->keep[k]);
    }
    return CS_OK;
}

static int merge_cpu(engine *g, job *j)
{
    for (int k = 0; k < g->ncols; k++) {
        stats_merge(&g->st[k], &j->st[k], g->rows);
        if (j->h)
            hist_merge(&g->h[k], &j->h[k]);
    }
    int rc = j->keep ? keep_values(g, j) : CS_OK;
    j->next = g->free_jobs;
    g->free_jobs = j;
    return rc;
}

static int submit_gpu(engine *g, job *j)
{
    uint64_t row = g->rows + 1;
    for (int k = 0; k < g->ncols; k++)
        if (!g->st[k].first_invalid_row && j->first_invalid[k])
            g->st[k].first_invalid_row = g->rows + j->first_invalid[k];
    for (int c = 0; c < j->ncks_used; c++)
        for (int k = 0; k < g->ncols; k++) {
            g->st[k].missing += j->cks[c].missing[k];
            g->st[k].invalid += j->cks[c].invalid[k];
            g->st[k].nan += j->cks[c].nan[k];
        }
    /* Rows staged in the pinned ring go in one copy; a job too large for a
     * slot goes from its own (pageable) chunks. */
    int rc = CS_OK;
    int n = j->pin ? 1 : j->ncks_used;
    for (int c = 0; c < n && rc == CS_OK; c++) {
        const chunk *ck = j->pin ? j->pin : &j->cks[c];
#ifdef COLSTAT_HAVE_GPU
        double t0 = engine_now();
        if (ck->nrows)
            rc = gpu_submit(g->gpu, ck, row, g->e);
        g->t_submit += engine_now() - t0;
#endif
        row += ck->nrows;
    }
    j->next = NULL;
    g->nsubmitted++;
    if (g->submitted_tail)
        g->submitted_tail->next = j;
    else
        g->submitted = j;
    g->submitted_tail = j;
    /* Bounded, so that the job now oldest finds its staging slot free. */
    while (rc == CS_OK && g->nsubmitted > GPU_INFLIGHT)
        rc = recycle_submitted(g);
    return rc;
}

int engine_retire_one(engine *g)
{
    job *j = g->ring[g->ring_head];
    double t0 = engine_now();
    workq_wait(g->q, &j->item);
    g->t_retire += engine_now() - t0;
    g->ring_head = (g->ring_head + 1) % g->ring_cap;
    g->ring_n--;
    if (g->e->status || j->err.status) {
        if (!g->e->status)
            *g->e = j->err;
        if (j->pin) /* staged, never submitted: nothing reads it */
            stage_release(g, j, (int)(j->pin - g->stage));
        j->next = g->free_jobs;
        g->free_jobs = j;
        return g->e->status;
    }
    g->t_read += j->t_read;
    g->t_turn += j->t_turn;
    g->t_parse += j->t_parse;
    g->t_reduce += j->t_reduce;
    if (!g->binary)
        note_invalid(g, j);
    int rc = g->gpu ? submit_gpu(g, j) : merge_cpu(g, j);
    g->rows += j->rows;
    return rc;
}

int engine_drain(engine *g)
{
    /* After an error the jobs still running must finish before their
     * memory goes; retiring them merges nothing once e is set. */
    while (g->ring_n) {
        /* After an error nothing more is submitted: free the slots the
         * remaining jobs wait for. */
        while (g->e->status && g->submitted)
            recycle_submitted(g);
        engine_retire_one(g);
    }
    while (g->submitted)
        recycle_submitted(g);
    return g->e->status;
}

static void job_free(engine *g, job *j)
{
    for (int c = 0; c < j->ncks; c++)
        chunk_free(&j->cks[c], NULL);
    free(j->cks);
    for (int k = 0; j->h && k < g->ncols; k++)
        hist_free(&j->h[k]);
    for (int k = 0; j->keep && k < g->ncols; k++)
        free(j->keep[k].v);
    free(j->h);
    free(j->keep);
    free(j->st);
    free(j->first_invalid);
    free(j->buf);
    free(j);
}

void engine_free_jobs(engine *g)
{
    while (g->free_jobs) {
        job *j = g->free_jobs;
        g->free_jobs = j->next;
        job_free(g, j);
    }
}
