/* The GPU backend: the only way into gpu/. Plain C, no CUDA type. It
 * reduces batches on the device, two streams deep (the copy of one batch
 * overlaps the kernels of the previous one), and hands back the same
 * col_stats and hist the CPU backend makes, so results are bit-identical.
 * The engine keeps the missing/invalid/nan counters; the GPU computes the
 * value statistics (count, sum, sum of squares, min/max with row, int-ness,
 * the integer view of batches' corrections) and the histogram.
 *
 * Statistics that need every value once the input ended (quantiles,
 * histograms without a fixed range: stats_need_values) keep the values:
 * on the device within its memory (with their corrections when quantiles
 * are asked), and past it in a host store (src/stats/value_store.h) within the
 * host's budget, spilled to a file past it or dropped. gpu_pass counts a
 * pass of the selection over the device's values; the host store's are
 * the caller's to count. */
#ifndef COLSTAT_GPU_GPU_H
#define COLSTAT_GPU_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* the C headers carry no extern "C" of their own */
#endif

#include "io/base/error.h"
#include "io/base/row_batch.h"
#include "io/num/parse_number.h"
#include "src/stats/group_sum.h"
#include "src/stats/quantile.h"
#include "src/stats/stats.h"
#include "src/stats/value_store.h"

typedef struct gpu_backend gpu_backend;

typedef struct gpu_config {
    int ncols;
    unsigned what; /* STAT_* bits */
    int nbins;
    int have_range; /* else the histogram spans the true min and max */
    double lo, hi;
    /* For tests and benchmarks; 0 means the default. */
    size_t batch_rows; /* rows of a value batch on the device */
    size_t raw_bytes;  /* bytes of a raw row_batch */
    int keep_set;      /* keep_bytes given: */
    size_t keep_bytes; /*   device bytes for values kept to the end */
    int terms;         /* expansion terms of the exact sums (2, 3, 4) */
    size_t sort_bytes; /* device bytes -g's sort of kept values may take */
    /* the host store of kept values past the device's memory */
    size_t memory;      /* bytes in host memory at most */
    int spill;          /* past it: 1 spill to a file, 0 drop */
    const char *tmpdir; /* where the file goes */
    int sharers;        /* processes on this device at once (0, 1: alone): each
                           keeps values in its share of the device's memory */
} gpu_config;

/* Where opening spends its time (gpu_times.open_s). */
enum gpu_open_phase {
    GPU_OPEN_CONTEXT, /* finding the device, creating the CUDA context */
    GPU_OPEN_QUERY,   /* its multiprocessors and free memory */
    GPU_OPEN_BUFFERS, /* streams, device buffers, states */
    GPU_OPEN_EVENTS,  /* the events that time and order the work */
    GPU_OPEN_LAUNCH,  /* a first launch: loads the kernels it uses */
    GPU_OPEN_RAW,     /* the raw path's buffers, at its first input */
    GPU_OPEN_NPHASES
};

typedef struct gpu_times {
    double h2d_s, kernel_s, hist_s; /* device time, from events */
    uint64_t h2d_bytes;
    double context_s; /* of opening: creating the CUDA context */
    double open_s[GPU_OPEN_NPHASES];
    char device[128]; /* name of the device used */
    /* values kept to the end: device bytes, the host store's bytes in
       memory and in its file, and whether it dropped them */
    uint64_t kept_device, kept_host, kept_file;
    uint64_t kept_values; /* bytes of the values the device holds (of the
                             kept_device it took at most) */
    int kept_dropped;
    /* the device bytes values may take (this process's share), and the
       device's memory */
    uint64_t kept_room, device_memory;
} gpu_times;

/* 1 in a build with CUDA, 0 in one without (gpu/stub.c). */
int gpu_built(void);

/* Creates the CUDA context of the first device: the slow part of opening
 * (0.1 to 0.3 s), safe to run on a thread of its own while the caller
 * reads its input; gpu_open then finds it made. */
int gpu_prepare(cs_error *e);

/* Opens the first usable device. Returns CS_OK, or CS_EDATA with e
 * saying why (no device, no driver, too little memory, built without
 * CUDA...). Every other function returns CS_OK or CS_EDATA (e filled). */
int gpu_open(const gpu_config *cfg, gpu_backend **out, cs_error *e);

/* Page-locked allocator for the batches g will be given. Its functions may
 * be called from several threads at once. */
const row_batch_alloc *gpu_row_batch_alloc(gpu_backend *g);

/* Rows per batch, chosen from the device's free memory. */
size_t gpu_batch_rows(const gpu_backend *g);

/* Starts reducing c, whose first row is first_row (1-based over the whole
 * input). Asynchronous: c must not be changed until gpu_batch_wait(g, c)
 * returns. */
int gpu_submit(gpu_backend *g, const row_batch *c, uint64_t first_row,
               cs_error *e);

/* Blocks until the device no longer reads c. */
int gpu_batch_wait(gpu_backend *g, const row_batch *c, cs_error *e);

/* Waits for all work, then merges each column's value statistics into
 * out[0..ncols) (stats_merge, rows already absolute) and, with STAT_HIST
 * and a fixed range, fills hists[0..ncols) (hist_init'ed by gpu_finish
 * itself, freed by the caller). Without a range, gpu_pass bins them. */
int gpu_finish(gpu_backend *g, col_stats *out, hist *hists, cs_error *e);

/* Whether every value is kept (on the device or in the host store, not
 * dropped past the host's budget). */
int gpu_store_all(const gpu_backend *g);

/* The host store of kept values (past the device's memory, and the
 * numbers only the host rounds), NULL when none is kept. */
const value_store *gpu_host_values(const gpu_backend *g);

/* One pass over the values kept on the device, after gpu_finish: per
 * column, the selection whose ranges it counts (NULL: none) into counts
 * (qsel_nbins of them, added to) and whose ranges' key extrema it folds
 * into kmin and kmax (qsel_add_extrema), the candidates it appends at
 * cand[*ncand...] (room in all; *ncand counts past room when there are
 * more), and the histogram (NULL, or edges set) whose bins it adds to. */
typedef struct gpu_pass_col {
    const qsel *sel;
    uint64_t *counts;
    uint64_t *kmin, *kmax;
    qnum *cand;
    size_t room;
    uint64_t *ncand;
    hist *h;
} gpu_pass_col;

int gpu_pass(gpu_backend *g, const gpu_pass_col *cols, cs_error *e);

/* Raw input: the device parses the bytes itself (CSV or binary records)
 * and feeds the same reductions, with no parsed values crossing the bus.
 * One input at a time, between gpu_raw_begin and gpu_raw_end; segments of
 * it go in input order. CSV segments may end anywhere: the device carries
 * an incomplete last record over to the next segment. Whatever the device
 * cannot parse exactly as the host would (a quote outside the RFC 4180
 * places, a bare CR, a blank line between records, a record longer than
 * the carry, an invalid field under --strict, ...) stops the device at
 * the start of the segment holding it: gpu_raw_end then says how far it got,
 * and the host parses the rest. */
typedef struct gpu_raw_format {
    int binary;     /* else CSV */
    char delim;     /* CSV */
    int strict;     /* CSV: an invalid field of a column below it stops the
                       device (--strict) */
    num_format num; /* CSV: how its numbers are written */
    /* binary: record size, and per field its type code and byte offset
       (io/binary/binary_reader.h's spec) */
    size_t record_size;
    const unsigned char *type;
    const unsigned short *offset;
    const int *map; /* field -> column, or -1 */
    int nmap;
    /* CSV: per column its kind (io/num/parse_kind.h: dates, units); NULL
       while every column holds plain numbers */
    const unsigned char *kinds;
    uint64_t size_hint; /* bytes of the input when known, else 0 */
    double row_rate;    /* CSV: rows a byte as its head shows (0: unknown): the
                           device sizes its room for kept values from it */
    /* CSV: the header line (io/csv/csv_reader.h's csv_dialect.repeat): a
       record identical to it is no row */
    const char *repeat;
    size_t repeat_len;
    /* CSV, --group-by (nkeys > 0): field -> key column or -1; the rows go
       into groups that live until gpu_close (gpu_raw_groups), and the
       statistics must be those group_gpu_can takes */
    const int *kmap;
    int nkmap, nkeys;
} gpu_raw_format;

#define GPU_FIELD_BYTES 96 /* gpu/raw.cuh's RAW_FIELD_BYTES */

typedef struct gpu_raw_result {
    uint64_t rows;     /* rows the device reduced */
    uint64_t lines;    /* physical lines those rows span (CSV) */
    uint64_t consumed; /* input bytes of those rows, from the first row_batch */
    int stopped;       /* the device stopped before the end of its input */
    char reason[96];   /* why, when stopped */
    uint64_t repeats;  /* repeated header lines it skipped */
    uint64_t repeat_line; /* the first one's physical line */
    /* per column; missing/invalid/nan are added to the caller's arrays */
    uint64_t *missing, *invalid, *nan;
    uint64_t *first_invalid_line; /* per column: kept if set, else the
                                     device's first, 0 for none */
    /* per column, where the device set first_invalid_line: that field's
       first GPU_FIELD_BYTES bytes as the input has them (in quotes: the
       text inside, doubled quotes doubled), and its length (at most
       65535; bit 31: doubled quotes in it) */
    char *first_invalid_text; /* [ncols][GPU_FIELD_BYTES] */
    unsigned *first_invalid_len;
} gpu_raw_result;

/* Bytes each raw segment may hold (a multiple of a binary record). */
size_t gpu_raw_segment_bytes(const gpu_backend *g);

/* Starts an input whose first row is first_row (absolute, 1-based) and,
 * for CSV, whose first byte is on line first_line. */
int gpu_raw_begin(gpu_backend *g, const gpu_raw_format *f, uint64_t first_row,
                  uint64_t first_line, cs_error *e);

/* Queues n bytes (page-locked, from gpu_row_batch_alloc) of the input.
 * Asynchronous: bytes must stay until gpu_raw_copied or gpu_raw_wait(g,
 * bytes) returns. */
int gpu_raw_submit(gpu_backend *g, const void *bytes, size_t n, cs_error *e);

/* Blocks until the device no longer reads bytes; *stopped says whether
 * the device stopped at or before that segment (else the input up to its
 * end was parsed). */
int gpu_raw_wait(gpu_backend *g, const void *bytes, int *stopped, cs_error *e);

/* Waits (spinning: the copy engine must not wait for a thread to wake)
 * until the bytes are on the device, so that their buffer may be refilled;
 * *stopped says whether the device has stopped on any segment so far. For a
 * file, where the host can re-read from where the device stopped; a
 * stream needs gpu_raw_wait's exact answer. */
int gpu_raw_copied(gpu_backend *g, const void *bytes, int *stopped,
                   cs_error *e);

/* Ends the input: waits for the device and fills r. The bytes after
 * r->consumed that the device holds (the carried record, at most
 * gpu_raw_segment_bytes) go to tail, *tail_len of them; the caller has the
 * bytes of the segments it submitted after those. */
int gpu_raw_end(gpu_backend *g, gpu_raw_result *r, char *tail, size_t *tail_len,
                cs_error *e);

/* For tests: parses n fields (text + off[i], len[i] bytes) on the device
 * as parse_number_fmt would with format fmt; kind[i] gets a num_kind, or 4
 * where only the host's exact fallback can round it, val[i] the value and
 * corr[i] its integer correction (io/num/parse_number.h). */
int gpu_parse_fields(const char *text, size_t text_len, const size_t *off,
                     const size_t *len, size_t n, const num_format *fmt,
                     int *kind, double *val, int32_t *corr, cs_error *e);
/* The same for a column of kind col_kind (io/num/parse_kind.h: dates,
 * units), as parse_kind_fmt would. */
int gpu_parse_kind_fields(const char *text, size_t text_len, const size_t *off,
                          const size_t *len, size_t n, const num_format *fmt,
                          unsigned col_kind, int *kind, double *val,
                          int32_t *corr, cs_error *e);

/* Group-by on the device, rows already parsed: each row's key
 * (src/stats/group_core.h's encoding, keys + key_off[i], key_len[i]
 * bytes) found in a device hash table of at most max_groups groups and
 * arena_bytes of keys, the rows sorted by group (stable: rows in order)
 * and each column reduced per group (NaN skipped: the caller counts
 * the fields that did not enter). */
typedef struct gpu_group_in {
    size_t n;
    const char *keys;
    size_t keys_len;
    const size_t *key_off;
    const uint32_t *key_len;
    int ncols;
    const double *const *col;   /* [ncols][n] */
    const int32_t *const *corr; /* [ncols][n], or NULL entries */
    uint64_t first_row;         /* row i is first_row + i */
    uint32_t max_groups;
    size_t arena_bytes;
} gpu_group_in;

/* The groups (ids dense, in the device's order: the host orders them)
 * and the pieces of their columns' state; the host merges every piece
 * of a group (stats_part_merge, group_sum_merge) into its group. full:
 * the groups did not fit the table or the device's memory (nothing else
 * filled); inexact: a sum needs the host's csum (group_sum.h); the caller
 * then reduces these rows on the host.
 * gpu_group_out_free frees what gpu_group_rows filled. */
typedef struct gpu_group_out {
    int full, inexact;
    uint32_t ngroups;
    char *arena;
    uint64_t *key_off, *first_row;
    uint32_t *key_len;
    uint32_t *row_group; /* [n]: each row's group */
    uint64_t *rows;      /* gpu_raw_groups: [ngroups], each group's rows */
    size_t npieces;
    uint32_t *piece_group; /* [npieces]; UINT32_MAX: an empty piece */
    col_part *part;        /* [npieces * ncols] */
    group_sum *sum;        /* [npieces * ncols] */
} gpu_group_out;

/* For tests, and the first step of group-by on the device: synchronous
 * and self-contained (its own buffers, the default stream, nothing
 * kept). n == 0 probes for a device. */
int gpu_group_rows(const gpu_group_in *in, gpu_group_out *out, cs_error *e);
void gpu_group_out_free(gpu_group_out *out);

/* --group-by over raw CSV: the groups of every input so far
 * (gpu_raw_format.nkeys), one piece each (piece_group NULL: piece g is
 * group g), with their rows; after gpu_raw_end. Rows are absolute; the
 * columns' missing, invalid and NaN fields are counted in the pieces. */
int gpu_raw_groups(gpu_backend *g, gpu_group_out *out, cs_error *e);
/* With values kept (median, quantiles): held column col's values of
 * those groups, n in all (the sum of their rows), into d and r (their
 * corrections): group after group in gpu_raw_groups' order, each
 * group's rows[g] values ascending by (value, correction) as
 * src/stats/qsel_key.h orders them, then its NaNs (fields that did not
 * enter). After gpu_raw_groups. */
int gpu_raw_group_values(gpu_backend *g, int col, double *d, int32_t *r,
                         size_t n, cs_error *e);
/* Whether the device sorts those n values (else its memory did not hold
 * the sort, or COLSTAT_GPU_SORT_BYTES: gpu_raw_group_values then hands
 * each group's values unsorted, its NaNs last, ordered by the host). */
int gpu_raw_group_sorted(gpu_backend *g, size_t n, int *sorted, cs_error *e);
/* Where sorted, the same layout's places pos[0, npos) alone into d and
 * r (the order statistics of the groups' quantiles). */
int gpu_raw_group_pick(gpu_backend *g, int col, size_t n, const uint64_t *pos,
                       size_t npos, double *d, int32_t *r, cs_error *e);

/* --distinct, --mode, --top (STAT_PROFILE in cfg.what: every value is
 * kept with its correction, on the device or in the host store, never
 * dropped): after gpu_finish, column col's values kept on the device
 * sorted and cut into runs of one value each (with_r: one (value,
 * correction) pair each, an integer column's exact integers; else one
 * double each), -0 as 0, NaN left out; *nruns of them, kept until the
 * next call or gpu_close. The host store's values are the caller's to
 * count (gpu_host_values). */
int gpu_value_runs(gpu_backend *g, int col, int with_r, uint64_t *nruns,
                   cs_error *e);
/* The k most frequent of those runs (all when fewer), most frequent
 * first, ties by the smaller value: *n of them into d, r and count. */
int gpu_value_runs_top(gpu_backend *g, size_t k, double *d, int32_t *r,
                       uint64_t *count, size_t *n, cs_error *e);
/* Runs [from, from + n), ascending by value, into d, r and count. */
int gpu_value_runs_get(gpu_backend *g, uint64_t from, size_t n, double *d,
                       int32_t *r, uint64_t *count, cs_error *e);

void gpu_get_times(const gpu_backend *g, gpu_times *t);

/* Frees every device and pinned resource g owns. */
void gpu_close(gpu_backend *g);

#ifdef __cplusplus
}
#endif

#endif
