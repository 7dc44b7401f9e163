/* The backend interface: what the driver, the jobs and the feed call to
 * reduce rows into statistics. The CPU (cpu.c) and the GPU (gpu.c, with
 * gpu_pack.c and gpu_profile.c the only files that include gpu/gpu.h)
 * implement it.
 *
 * Rows reach a backend two ways. Rows the host parsed come in jobs: on a
 * worker thread each parsed row batch goes to batch_done and, after the last,
 * the job to job_done; on the main thread, in input order, to retire. A
 * backend that parses raw bytes itself also offers `bytes`: the feed
 * (rawfeed.c) sends it an input's bytes in order and continues on the host
 * from wherever it stops.
 *
 * After finish come the passes (passes.h) when statistics need every
 * value (quantiles; histograms without --range): a backend counts each
 * pass over the values it kept, or, when it could not keep them all
 * (past --memory, for input it can read again), over every input fed
 * once more: then batch_done counts each row batch into the job's tally and
 * retire adds it to the plan (tally.h). */
#ifndef COLSTAT_SRC_ENGINE_BACKEND_H
#define COLSTAT_SRC_ENGINE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"
#include "io/base/row_batch.h"
#include "io/binary/binary_reader.h"
#include "src/engine/account.h"
#include "src/engine/jobs.h"
#include "src/engine/tally.h"
#include "src/stats/profile.h"
#include "src/stats/quantile.h"
#include "src/stats/stats.h"

typedef struct backend backend;

/* One input as a backend that parses bytes sees it. */
typedef struct bytes_format {
    const binary_spec *spec; /* binary records, else CSV */
    char delim;
    int strict;            /* --strict: columns [0, strict) stop at an
                              invalid field */
    const num_format *num; /* CSV: how numbers are written; NULL: C locale */
    const int *map;        /* field -> column, or -1 */
    int nmap;
    const unsigned char *kinds; /* CSV: per column its kind
                                   (io/num/parse_kind.h); NULL: numbers */
    uint64_t size_hint;         /* bytes of the input when known, else 0 */
    double row_rate;    /* CSV: rows a byte, as its head shows; 0: unknown */
    const char *repeat; /* CSV: the header line (csv_dialect), or NULL */
    size_t repeat_len;
    /* --group-by: field -> key column or -1 (input.h's kmap), NULL
       without one */
    const int *kmap;
    int nkmap, nkeys;
} bytes_format;

typedef struct bytes_result {
    uint64_t rows;                 /* rows the backend reduced */
    uint64_t lines;                /* physical lines those rows span (CSV) */
    uint64_t consumed;             /* input bytes of those rows */
    int stopped;                   /* it stopped before the end of its input */
    char reason[96];               /* why, when stopped */
    uint64_t repeats, repeat_line; /* repeated headers skipped, the first */
    uint64_t *first_invalid_line;  /* per column, 0 when none (caller's) */
    char (*first_invalid_text)[CSV_SHOWN]; /* per column: that field, as
                                              csv_show_field shows it */
} bytes_result;

typedef struct backend_bytes_ops {
    /* Whether it parses this input itself (seekable: a plain file;
     * whitespace: -W text rather than CSV; kinds: its columns' kinds,
     * io/num/parse_kind.h, NULL while all hold plain numbers). */
    int (*wants)(backend *b, int binary, int seekable, int whitespace,
                 const unsigned char *kinds, int ncols);
    size_t (*slot_bytes)(backend *b); /* bytes of one submission */
    int (*begin)(backend *b, const bytes_format *f, uint64_t first_row,
                 uint64_t first_line, cs_error *e);
    /* Queues n bytes (memory from b->alloc); asynchronous. */
    int (*submit)(backend *b, const void *bytes, size_t n, cs_error *e);
    /* Until the bytes were taken in (their memory may be refilled);
     * *stopped: the backend has stopped somewhere so far. */
    int (*copied)(backend *b, const void *bytes, int *stopped, cs_error *e);
    /* Until the bytes were parsed; *stopped: at or before them. */
    int (*wait)(backend *b, const void *bytes, int *stopped, cs_error *e);
    /* Ends the input: what it parsed, and the bytes after r->consumed it
     * holds (*tail_len of them, at most slot_bytes) into tail. */
    int (*end)(backend *b, bytes_result *r, char *tail, size_t *tail_len,
               cs_error *e);
} backend_bytes_ops;

typedef struct backend_ops {
    /* A job's state: made once per job, reset before each use. */
    void *(*jstate_new)(backend *b);
    void (*jstate_reset)(backend *b, void *state);
    void (*jstate_free)(backend *b, void *state);
    /* Worker thread: row batch c of job j, whose first row is row j->rows + 1
     * of the job (j->jstate is the backend's). */
    int (*batch_done)(backend *b, job *j, const row_batch *c, cs_error *e);
    /* Worker thread: the job is parsed (e, the job's error, may be set
     * already). */
    int (*job_done)(backend *b, job *j, cs_error *e);
    /* Main thread, in input order: the job's rows are rows first_row...
     * With abandon (an error happened), nothing may be merged. */
    int (*retire)(backend *b, job *j, uint64_t first_row, int abandon,
                  cs_error *e);
    /* Main thread, once every job is retired. */
    int (*flush)(backend *b, cs_error *e);
    /* After the last input: the merged statistics into out[0..ncols)
     * (stats_init'ed by the caller) and, with STAT_HIST and --range, the
     * histograms into h (filled here, freed by the caller); without
     * --range the passes bin them. */
    int (*finish)(backend *b, col_stats *out, hist *h, cs_error *e);
    /* A pass: its plan, which the counting adds to until pass_end. */
    int (*pass_begin)(backend *b, pass_plan *p, cs_error *e);
    /* Counts the pass over the values the backend kept; *all 0: it does
     * not hold them all, and the driver feeds the inputs again. */
    int (*pass_kept)(backend *b, int *all, cs_error *e);
    /* Every sum of the pass is in the plan. */
    int (*pass_end)(backend *b, cs_error *e);
    /* After finish, with profiles (backend_params.kind): each column's
     * into out[0..ncols) (each the caller's to profile_free), its values
     * as the report shows them (st: finish's statistics: an integer
     * column's exact, else one value a double), with at least its k most
     * frequent; *over: the values passed --memory, and the caller counts
     * them by partitions (the CPU's, backend_cpu_profile_pass). */
    int (*profiles)(backend *b, const col_stats *st, size_t k, col_prof *out,
                    int *over, cs_error *e);
    void (*describe)(backend *b, account *acc); /* -v lines */
    void (*close)(backend *b);
} backend_ops;

struct backend {
    const backend_ops *ops;
    const backend_bytes_ops *bytes; /* NULL: the host parses all */
    const char *name;               /* "cpu", "gpu" */
    size_t block_bytes;             /* input bytes per job */
    size_t batch_rows;              /* rows per parsed row_batch */
    int keeps_batches; /* a job keeps every row batch until job_done */
    const row_batch_alloc *alloc; /* memory it reads fastest (NULL: malloc) */
    size_t jstate_bytes; /* what one job's state holds, about (0: little) */
};

typedef struct backend_params {
    int ncols;
    unsigned what;
    int nbins;
    int have_range;
    double range_lo, range_hi;
    const binary_spec *spec; /* binary records, else CSV */
    int nthreads;
    size_t memory;      /* bytes of values kept in memory at most */
    int spill;          /* past memory, spill to a file (an input cannot
                           be read twice), else read the inputs again */
    const char *tmpdir; /* where the file goes */
    int gpu_sharers;    /* engine_mpi.gpu_sharers */
    int group_device;   /* --group-by: group_gpu.h's GROUP_ON_* */
    int group_auto;     /* --device auto chose the device: where it does not
                           open, the host groups (else that is an error) */
    const engine_hooks *hooks;
    account *acc;
    /* Profiles (src/stats/profile.h), CPU only: NULL when no column has
     * one; else per column its kind and, for a text column, which of the
     * row batch's keys (io/base/row_keys.h) holds its fields */
    const col_kind *kind;
    const int *text_key;
    int nkeys;
    /* --group-by: the row batch's keys [0, group_keys) are the group's;
       text columns' fields, if any, follow (text_key points there, or to
       a group key its column is) */
    int group_keys;
    /* --group-by: no state will carry the groups, so finish may leave a
       direct table's cells unflushed (group_cell_stats) */
    int group_lazy;
    /* the quantiles selected (the median first), for those the device
       selects per group */
    const qfrac *q;
    size_t nq;
} backend_params;

int backend_cpu_open(const backend_params *p, backend **out, cs_error *e);

/* Past --memory (a file: it can be read again) the distinct values are
 * counted by partitions of their hashes, a pass over the inputs each
 * (profiles' *over: the first reading passed it): a pass over partition part of
 * nparts begun (nparts 0: no more passes); after the pass, whether it
 * passed --memory too (the partition is then split) and the merged
 * profiles ([ncols]) whose values are the partition's. */
int backend_cpu_profile_pass(backend *b, uint32_t part, uint32_t nparts,
                             cs_error *e);
int backend_cpu_profile_pass_end(backend *b, col_prof **merged);
/* How the last reading of the inputs (the first, or a partition's pass)
 * filled --memory with values: the rows read (the run's count, from its
 * start) when they passed half of it and all of it, the bytes they held
 * then and the budget; zeros where it did not pass it, or where its
 * values came from a stream's temporary file. */
typedef struct profile_fill {
    uint64_t half_rows, over_rows;
    size_t over_bytes, budget;
} profile_fill;
profile_fill backend_cpu_profiles_filled(backend *b);
/* A stream past --memory: its values went to a temporary file instead,
 * and a partition's pass reads that file, not the inputs. */
int backend_cpu_profiles_spilled(backend *b);
int backend_cpu_profile_spill_pass(backend *b, uint32_t part, uint32_t nparts,
                                   cs_error *e);

/* --group-by on the CPU (group_cpu.c): rows by key into groups, each
 * column's statistics per group. Its groups (backend_group_table) are the
 * caller's to move out after finish; there are no passes. */
struct group_table;
int backend_group_open(const backend_params *p, backend **out, cs_error *e);
struct group_table *backend_group_table(backend *b);
/* Whether the groups keep their values (quantiles, histograms). */
int group_backend_keeps(const backend_params *p);

/* Whether a GPU can be used here, found without opening it: a build with
 * CUDA and the driver's device nodes (hooks->gpu_presence overrides). */
int backend_gpu_present(const engine_hooks *hooks);

/* Opens the GPU on a thread of its own, so that reading the first input
 * overlaps it (0.1 to 0.3 s). The opener is the caller's to free; freeing
 * it waits for the thread. */
typedef struct gpu_opener gpu_opener;
int backend_gpu_prepare(gpu_opener **out, cs_error *e);
void backend_gpu_opener_free(gpu_opener *o);

/* CS_EDATA with e saying why when there is no usable GPU. opener: from
 * backend_gpu_prepare (waited for here), or NULL. */
int backend_gpu_open(const backend_params *p, gpu_opener *opener, backend **out,
                     cs_error *e);

#endif
