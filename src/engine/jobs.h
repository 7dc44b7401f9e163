/* Jobs: record-aligned slices of an input that worker threads parse into
 * batches of rows for the backend, retired on the main thread in input
 * order, which is what numbers the rows and makes every result
 * independent of thread timing. Backend-neutral: what a backend does with
 * a job's rows goes through backend.h. */
#ifndef COLSTAT_SRC_ENGINE_JOBS_H
#define COLSTAT_SRC_ENGINE_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"
#include "io/base/row_batch.h"
#include "io/binary/binary_reader.h"
#include "src/engine/account.h"
#include "src/engine/input.h"
#include "src/engine/workq.h"

struct backend;

typedef struct jobs_params {
    struct backend *be;
    int nthreads;
    int ncols;
    const binary_spec *spec;  /* binary records, else CSV */
    const csv_strict *strict; /* --strict: its columns; NULL: none */
    account *acc;
} jobs_params;

typedef struct job {
    wq_item item; /* first: the work queue hands this back */
    const jobs_params *params;
    input *in; /* held while the job exists */
    /* the bytes: buf[skip, skip + len), or len bytes to pread at off
     * (by_range) into buf[0, len) */
    char *buf;
    size_t skip, len, cap;
    uint64_t off;
    int pread;
    uint64_t first_line; /* physical line of buf[0] */
    uint64_t seq;        /* position among all jobs, from 0 */
    /* what the worker made of them */
    cs_error err;
    uint64_t rows;
    uint64_t *first_invalid;       /* per column: 1-based row in the job, 0 */
    uint64_t repeats, repeat_line; /* repeated headers skipped, the first */
    row_batch *batches;            /* parsed rows */
    int nbatches, nbatches_cap, nbatches_used;
    void *jstate; /* the backend's state for this job */
    double t_read, t_parse, t_reduce, t_handoff; /* worker thread time */
    struct job *next_free;
} job;

typedef struct jobs jobs;

int jobs_start(const jobs_params *p, jobs **out, cs_error *e);

/* A free job for input in, its buffer holding at least bytes. Retires
 * the oldest job when every one is in flight. NULL on error (e). */
job *jobs_get(jobs *js, input *in, size_t bytes, cs_error *e);
int job_reserve(job *j, size_t bytes); /* keeps contents; -1: no memory */
void jobs_put(jobs *js, job *j);       /* unused: back to the free list */
/* How many jobs may exist at once: jobs held undispatched (read ahead)
 * must leave the workers theirs. */
int jobs_capacity(const jobs *js);
/* To a worker: buf[0, len), whose first byte is on line first_line. */
void jobs_dispatch(jobs *js, job *j, size_t len, uint64_t first_line);
/* The same for buf[skip, skip + len): a block read ahead into a job's
 * buffer behind room for the bytes carried from the block before. */
void jobs_dispatch_from(jobs *js, job *j, size_t skip, size_t len,
                        uint64_t first_line);
/* To a worker that preads len bytes of the input at off. */
void jobs_dispatch_range(jobs *js, job *j, uint64_t off, size_t len);

/* Retires every job in flight; returns e's status. After an error the
 * jobs still running finish, and nothing more is merged. The first error
 * in input order wins: a job's error replaces one the main thread put in
 * e after handing the job out. */
int jobs_drain(jobs *js, cs_error *e);

/* After jobs_drain: frees every job (their buffers, row batches and job
 * states), keeping what was retired; jobs_get makes new ones. */
void jobs_trim(jobs *js);

/* Rows retired so far, plus those the backend parsed itself. */
uint64_t jobs_rows(const jobs *js);
void jobs_add_rows(jobs *js, uint64_t n);

/* Repeated header lines skipped so far (io/csv/csv_reader.h, repeat), and
 * where the first was (file NULL: none); jobs_add_repeats adds those a
 * backend skipped itself. */
uint64_t jobs_repeats(const jobs *js, const char **file, uint64_t *line);
void jobs_add_repeats(jobs *js, uint64_t n, const char *file, uint64_t line);

/* For each column, the first invalid field retired so far (file, the line
 * of its record, its text as csv_show_field shows it); file NULL when
 * none. Valid until jobs_stop. */
const char *jobs_first_invalid(const jobs *js, int col, uint64_t *line,
                               const char **text);
void jobs_note_invalid(jobs *js, int col, const char *file, uint64_t line,
                       const char *text);

void jobs_stop(jobs *js); /* stops the workers, frees every job */

#endif
