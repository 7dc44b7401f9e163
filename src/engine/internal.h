/* Internals shared by engine.c (driver), engine_feed.c (inputs into jobs)
 * and engine_job.c (what a worker does with a job). Not a public header. */
#ifndef COLSTAT_SRC_ENGINE_IMPL_H
#define COLSTAT_SRC_ENGINE_IMPL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "io/binary_reader.h"
#include "io/chunk.h"
#include "io/csv_reader.h"
#include "io/error.h"
#include "src/options.h"
#include "src/stats/stats.h"
#include "workq.h"

#ifdef COLSTAT_HAVE_GPU
#include "gpu/gpu.h"
#else
typedef struct gpu_backend gpu_backend;
#endif

/* Retired jobs whose rows the GPU may still be copying: enough to keep
 * both streams busy while the reader and workers go on. */
#define GPU_INFLIGHT 2
/* Page-locked staging chunks: at least GPU_INFLIGHT + 2 (engine_stage.c
 * says why); STAGE_SLOTS - GPU_INFLIGHT jobs can be staged ahead of the
 * GPU, which is what lets the workers run ahead of the submissions. */
#define STAGE_SLOTS 8
/* Rows of the pageable chunks jobs parse into: for the CPU small enough
 * to stay in cache until reduced; for the GPU larger, fewer to stage. */
#define CHUNK_ROWS(g) ((g)->gpu ? 65536 : 8192)

/* One input file as the workers see it. */
typedef struct input_file {
    struct source *src; /* open until the engine ends: workers may pread */
    char *name;
    csv_dialect dialect;
    int *map; /* field -> output column, or -1 */
    int nmap;
} input_file;

/* A growable array of doubles: values kept to bin once min/max are known. */
typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;

/* A record-aligned slice of one input, parsed and reduced by a worker. */
typedef struct job {
    wq_item item; /* first: the work queue hands this back */
    struct engine *g;
    const input_file *file;
    char *buf;
    size_t len, cap;          /* bytes to parse; allocated */
    uint64_t first_line;      /* physical line of buf[0] */
    const struct source *src; /* set: the worker preads len bytes at off */
    uint64_t off;
    uint64_t seq; /* position in the input: orders the GPU staging slots */
    chunk *pin;   /* GPU: the staging slot holding its rows, or NULL */
    /* results */
    cs_error err;
    uint64_t rows;
    uint64_t *first_invalid; /* per column, 1-based row in this job */
    col_stats *st;           /* CPU backend */
    hist *h;                 /* CPU backend, --range */
    dvec *keep;              /* CPU backend, histogram without --range */
    chunk *cks;              /* parsed rows: GPU keeps all, CPU reuses [0] */
    int ncks, nck_cap, ncks_used;
    double t_read, t_parse, t_reduce, t_turn;
    struct job *next; /* free list / submitted list */
} job;

typedef struct engine {
    const options *o;
    unsigned what;
    int binary;
    binary_spec spec;
    /* output columns */
    int ncols;
    char **names;
    int *fields; /* 0-based field in the first file */
    int by_name; /* later files are matched by header name */
    /* workers and backend */
    int nthreads;
    workq *q;
    gpu_backend *gpu;
    const chunk_alloc *alloc; /* chunk memory: pinned for the GPU */
    size_t block_bytes;
    size_t stage_rows; /* GPU: rows a staging slot holds */
    /* jobs */
    job **ring; /* in flight, in input order */
    int ring_cap, ring_head, ring_n;
    job *free_jobs;
    job *submitted, *submitted_tail; /* GPU: retired, chunks in use */
    int nsubmitted;
    uint64_t next_seq;
    /* GPU staging ring (engine_stage.c) */
    chunk *stage;
    uint64_t stage_owner[STAGE_SLOTS]; /* job seq that may fill each slot */
    pthread_mutex_t stage_mu;
    pthread_cond_t stage_cv;
    int stage_ready;
    /* GPU raw input (engine_raw.c): page-locked slots of bytes */
    char **raw_slot;
    int njobs, max_jobs;
    /* feeding */
    char *carry;
    size_t carry_cap;
    /* merged results */
    uint64_t rows;
    col_stats *st;
    hist *h;
    dvec **kept; /* per column: arrays moved from retired jobs */
    size_t *nkept, *kept_cap;
    char **inv_file;
    uint64_t *inv_line;
    /* accounting for -v and --progress */
    uint64_t bytes_in, bytes_total;
    double t_start, t_read, t_parse, t_reduce, t_hist;
    double t_submit, t_wait; /* GPU: main thread in gpu_submit, waiting */
    double t_alloc;          /* GPU: page-locking the staging ring */
    double t_turn;           /* GPU: workers waiting for a staging slot */
    double t_retire;         /* main thread waiting for the oldest job */
    double t_open;           /* GPU: opening the device */
    double t_stream;         /* GPU: wall time of raw inputs, first read to
                                last kernel (after opening, page-locking) */
    uint64_t stream_bytes;
    double last_progress;
    int progress;
    FILE *err_out;
    cs_error *e;
} engine;

double engine_now(void);

/* engine_job.c */
job *job_get(engine *g);             /* a free job, retiring if needed */
int job_dispatch(engine *g, job *j); /* hand to a worker */
void job_put(engine *g, job *j);     /* back unused, to the free list */
int engine_retire_one(engine *g);    /* oldest job: wait and merge */
int engine_drain(engine *g);         /* retire everything in flight */
void engine_free_jobs(engine *g);
int job_reserve(job *j, size_t bytes); /* keeps contents */

/* engine_stage.c */
int stage_init(engine *g);
void stage_free(engine *g);
void stage_take(engine *g, job *j);              /* worker */
void stage_release(engine *g, job *j, int slot); /* main thread */

/* engine_raw.c: the GPU parses the bytes itself */
int raw_wanted(const engine *g, const input_file *f);
int raw_feed_binary(engine *g, input_file *f);
/* g->carry[0, *clen) holds the first data bytes, at offset data_off of
 * the file, on line *line; *eof: the source is used up. On return the
 * device has taken what it could: g->carry[0, *clen), on line *line, and
 * the rest of the source are the host's. */
int raw_feed_csv(engine *g, input_file *f, uint64_t data_off, size_t *clen,
                 int *eof, uint64_t *line);
void raw_free(engine *g);

/* engine_feed.c */
/* Reads up to n bytes (less only at the end: *eof), counting them for -v
 * and --progress. Returns the count, or -1 (g->e filled). */
ssize_t fill(engine *g, struct source *src, char *buf, size_t n, int *eof);
/* The --progress line: pos of size bytes of input name are done (size 0:
 * unknown); at most twice a second, and not in the first second. */
void show_progress(engine *g, const char *name, uint64_t pos, uint64_t size);
/* Feeds one input; *first: its columns define the table (cleared once a
 * file has shown them). The source stays open in f until engine_free. */
int feed_input(engine *g, input_file *f, const char *path, int *first);
int engine_start(engine *g); /* engine.c: once the columns are known */

#endif
