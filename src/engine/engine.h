/* The engine: the one way into src/engine/. It reads every input and
 * reduces it into per-column statistics, on the CPU or the GPU, and hands
 * the result back whole. It prints nothing: warnings, -v lines and
 * progress go to the caller's sink; errors come back in a cs_error. */
#ifndef COLSTAT_SRC_ENGINE_ENGINE_H
#define COLSTAT_SRC_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"
#include "io/num/parse_number.h"
#include "src/stats/group_table.h"
#include "src/stats/profile.h"
#include "src/stats/quantile.h"
#include "src/stats/stats.h"

typedef enum engine_device {
    ENGINE_AUTO,
    ENGINE_CPU,
    ENGINE_GPU
} engine_device;

/* Hooks for tests and benchmarks, read once by main from the environment
 * (ARCHITECTURE.md lists the variables); 0 means the default. */
typedef struct engine_hooks {
    int host_parse;         /* COLSTAT_GPU_PARSE=0: the host parses */
    size_t gpu_batch_rows;  /* COLSTAT_GPU_BATCH_ROWS */
    size_t gpu_raw_bytes;   /* COLSTAT_GPU_RAW_BYTES */
    int gpu_keep_set;       /* COLSTAT_GPU_KEEP_BYTES given: */
    size_t gpu_keep_bytes;  /*   device bytes for kept values */
    int gpu_terms;          /* COLSTAT_GPU_TERMS */
    int gpu_presence;       /* COLSTAT_GPU_PRESENT: 1 absent, 2 present */
    const char *mpi_cuts;   /* COLSTAT_MPI_CUTS: --mpi's rank boundaries */
    int mpi_guess_line;     /* COLSTAT_MPI_GUESS=line: no proven boundary */
    int qsel_bits;          /* COLSTAT_QSEL=BITS,CANDIDATES: the quantile */
    size_t qsel_candidates; /*   selection's bins and budget (0: default) */
    int spill;              /* COLSTAT_SPILL=1: files spill as streams do */
    size_t gzip_piece;      /* COLSTAT_GZIP_PIECE: compressed bytes a piece */
    int gzip_threads;       /* COLSTAT_GZIP_THREADS: threads inflating */
    size_t record_limit;    /* COLSTAT_RECORD_LIMIT: the longest record */
    int gpu_group_steps;    /* COLSTAT_GPU_GROUP=host: -g --device gpu runs
                               the device's steps on the host */
    size_t gpu_sort_bytes;  /* COLSTAT_GPU_SORT_BYTES: device bytes the
                               groups' values' sort may take */
    int cores;              /* COLSTAT_CORES: the cores there are, for
                               the thread counts that follow them */
    int readers;            /* COLSTAT_READERS: threads reading a plain
                               file ahead (-1: none, read in order) */
    size_t block_bytes;     /* COLSTAT_BLOCK_BYTES: text bytes a job */
} engine_hooks;

/* One process's share of an input (--mpi, src/dist/): bytes [lo, hi) of
 * a plain file, lo and hi between records (or whole binary records), lo on
 * physical line `line`; the file's head (dialect, header, names) is still
 * read from its start. hi = ENGINE_PART_END: to the end (the only share a
 * compressed file can have). lo == hi: none of it; the input is then
 * opened only while the columns are learned. */
typedef struct engine_part {
    uint64_t lo, hi, line;
} engine_part;
#define ENGINE_PART_END UINT64_MAX

/* --mpi (src/dist/): where this process's share of each input lies,
 * asked once the backend is chosen, so that finding it overlaps with a
 * GPU's opening on its own thread. Every process meets the others in
 * parts: the engine calls it on every run that gets as far as choosing,
 * well (1) or failed before it (0: only meet, no share); a caller whose
 * run ended before that calls it itself. On success *parts ([nfiles])
 * stays the caller's until the run is closed. */
typedef struct engine_share {
    int (*parts)(void *ctx, int well, const engine_part **parts, cs_error *e);
    void *ctx;
} engine_share;

struct pass_plan;

/* --mpi (src/dist/): what needs every process's values, the passes after
 * the input (histograms without --range, quantiles), runs as one over
 * all processes. whole is given this process's states of the columns it
 * reduces (the column table's order) and fills all[k] with what every
 * process's states merged hold: count, extremes with their corrections,
 * finite extremes and all_int (no sums, no rows); they set histogram
 * edges and bound the quantiles' first pass. sum turns a pass's quantile
 * counts, key extremes and candidates (not histogram bins: those merge
 * with the states) into every process's sums, so that each process
 * narrows its selections as one would. Every process makes the same
 * calls in the same order: whole once where a pass is needed, sum after
 * each pass. */
typedef struct engine_collective {
    int (*whole)(void *ctx, int ncols, const col_stats *st, col_stats *all,
                 cs_error *e);
    int (*sum)(void *ctx, struct pass_plan *plan, cs_error *e);
    void *ctx;
} engine_collective;

/* What only --mpi (src/dist/mpi_run.c) sets. */
typedef struct engine_mpi {
    const engine_part *parts;  /* [nfiles], or NULL: every input whole */
    const engine_share *share; /* non-NULL: parts from there instead */
    /* Processes using this process's GPU at once (the ranks of a node
     * that took the same one); its memory is divided among them. 0 or 1:
     * alone. */
    int gpu_sharers;
    /* The first invalid field of each column, the repeated header lines
     * and the columns left out go into the result instead of messages
     * (--mpi says them once, after merging: engine_warn_invalid,
     * engine_warn_repeats, engine_say_left) */
    int invalid_to_result;
    const engine_collective *collective; /* NULL: this process alone */
    /* Every tentative column is reported, marked, so that the rule
     * (engine_holds_numbers) is applied to every process's merged counts */
    int keep_tentative;
} engine_mpi;

typedef struct engine_config {
    const char *const *files; /* "-" is standard input */
    int nfiles;
    const char *columns;  /* -c LIST, NULL for the default */
    const char *group_by; /* -g LIST (-c's grammar), NULL: no groups */
    char delim;           /* 0: detect */
    int header;           /* 1, 0, -1 detect */
    char *const *names;   /* --names: the fields' names ([nnames]), or NULL */
    int nnames;
    const char *binary;     /* -b SPEC, NULL for CSV */
    unsigned what;          /* STAT_* bits */
    const qfrac *quantiles; /* with STAT_QUANTILES: the list, in order */
    size_t top;             /* with STAT_TOP: K, the values of --top K */
    int text_columns;       /* the default takes text columns too (-a) */
    /* A run over no data rows (inputs empty, or holding a header and
       blank lines alone) answers rows 0 and no columns, not an error: a
       part's state (--emit-state) of an engine's empty partition, which
       the other parts' states complete */
    int no_rows_ok;
    int keep_profiles; /* the profiles stay whole in the result
                          (held_raw: a partial state carries them);
                          past --memory they are an error */
    size_t nquantiles;
    int memory_set;     /* --memory given: */
    size_t memory;      /*   bytes of values kept in memory at most */
    const char *tmpdir; /* where values past memory spill (NULL: /tmp) */
    int nbins;
    int have_range;
    double range_lo, range_hi;
    engine_device device;
    int threads; /* 0: every core it may use (engine_cores) */
    int strict;
    int verbose;  /* -v lines to the sink */
    int progress; /* progress lines to the sink */
    engine_hooks hooks;
    const struct engine_mpi *mpi; /* NULL without --mpi: every input whole,
                                     this process alone */

    /* How the text is read: -W, and --null, --thousands, --decimal (NULL:
       empty fields are missing, numbers are in the C locale's form) */
    int whitespace;
    const num_format *num;
} engine_config;

typedef enum engine_msg {
    ENGINE_WARNING,     /* about the data: file and line locate it */
    ENGINE_VERBOSE,     /* -v: stages, timings, backend choices */
    ENGINE_PROGRESS,    /* how far the input is: replaces the last one */
    ENGINE_PROGRESS_END /* no more progress: clear it */
} engine_msg;

/* Where messages go. file is "" and line 0 where none applies. */
typedef struct engine_sink {
    void (*say)(void *ctx, engine_msg kind, const char *file, uint64_t line,
                const char *text);
    void *ctx;
} engine_sink;

typedef struct engine_column {
    char *name;
    int index;   /* 1-based field of the input */
    char *label; /* as messages name it: 'name', or 'name' (#index) */
    const col_stats *st;
    col_summary sum; /* st finalized, once every merge is done: what a
                        report shows (engine_result_finalize) */
    const hist *h;   /* with STAT_HIST; bins NULL otherwise */
    const qres *q;   /* engine_result.nq quantiles, or NULL */
    /* where its first invalid field is, and the field (malloc'ed; NULL
       when none): with invalid_to_result, the caller warns */
    char *invalid_file;
    uint64_t invalid_line;
    char *invalid_text;
    int tentative; /* with keep_tentative: the sample saw no value in it */
    /* io/num/parse_kind.h: KIND_NUMBER, a date, a unit; or COL_TEXT */
    unsigned char kind;
    const char *unit;         /* a number column's unit ("ms"), or NULL */
    const prof_summary *prof; /* a text column's, or with STAT_PROFILE; else
                                 NULL */
    int held;                 /* its place among engine_result's held columns */
} engine_column;

/* --group-by: one group, its key and its columns' statistics, each array
 * in the held columns' order (engine_column.held). */
typedef struct engine_group {
    uint64_t rows;
    const char **key;      /* [nkeys]: the key fields' texts, NULL: missing */
    const size_t *key_len; /* [nkeys] */
    const col_stats *st;   /* [nheld]: engine_group_finalize finalizes it;
                              NULL: made then from the table's group id */
    size_t id;             /* the group's id in engine_groups.table */
    const hist *h;         /* [nheld] with STAT_HIST, else NULL */
    const qres *q;         /* [nheld * nq], or NULL */
    const col_prof *prof;  /* [nheld] (engine_group_profiles), or NULL */
} engine_group;

/* The groups in the answer's order: ascending by key, key column by key
 * column (numerically where every key of the column is a number, else
 * bytewise), the missing key last. */
typedef struct engine_groups {
    int nkeys;
    char **names; /* the key columns' names */
    size_t n;
    engine_group *g;
    size_t nq;
    group_table table; /* what the pointers point into */
    const char **keys;
    size_t *key_lens;
    hist *h;
    qres *q;
    int nheld;
    /* with profiles (a text column, --distinct, --mode, --top): per held
       column whether it is text, and the top values wanted; else NULL */
    unsigned char *text;
    size_t top;
} engine_groups;

/* Group i's held columns finalized, into out[0..nheld): the report makes
 * them a group at a time, so that a million groups' summaries never
 * exist at once. -1: no memory. */
int engine_group_finalize(const engine_groups *gs, size_t i, col_summary *out);
/* Group i's held columns' profiles summarized into out[0..nheld) (each
 * the caller's to profile_summary_free; their texts point into gs), its
 * columns' summaries sum (engine_group_finalize's) saying which are
 * integer columns. Nothing when gs keeps no profiles. -1: no memory. */
int engine_group_profiles(const engine_groups *gs, size_t i,
                          const col_summary *sum, prof_summary *out);

/* Groups made elsewhere (--merge, --mpi: their table and histograms,
 * in the table's order) put in the answer's order, as a run puts its
 * own, numeric keys read as num says. CS_ENOMEM when out of memory. */
int engine_groups_arrange(engine_groups *gs, const num_format *num,
                          cs_error *e);

/* A column of the input that the answer leaves out, and why. */
typedef struct engine_left {
    char *label; /* as messages name it */
    int index;   /* 1-based field of the input */
    char *why;   /* "text", "numbers with a unit '%'"... (hint.h) */
} engine_left;

typedef struct engine_result {
    uint64_t rows;
    int ncols;
    engine_column *cols;
    size_t nq; /* quantiles per column: the median first (STAT_MEDIAN),
                  then cfg->quantiles (STAT_QUANTILES) */
    /* where st, h and q point: one of each a column the engine reduced
       (nq quantiles each), the reported ones among them */
    int nheld;
    col_stats *held_st;
    hist *held_h;
    qres *held_q;
    prof_summary *held_prof; /* [nheld], or NULL: no column profiled */
    /* keep_profiles, and states read back: the profiles whole ([nheld], or
       NULL), held_prof made from them by engine_result_finalize (their
       texts point into these), prof_top values each */
    col_prof *held_raw;
    size_t prof_top;
    cs_error none; /* the error should no column be reported */
    /* the columns the default left out (not those -c left out) */
    int nleft;
    engine_left *left;
    /* repeated header lines skipped, and where the first is (malloc'ed;
       NULL when none or unknown) */
    uint64_t repeats;
    char *repeat_file;
    uint64_t repeat_line;
    engine_groups *groups; /* --group-by, else NULL */
} engine_result;

/* The cores this process may run on, at least 1: its CPU affinity (as
 * taskset, a cpuset or an MPI launcher's binding set it), else every
 * online core. Threads without -j. */
int engine_cores(void);

/* The memory for kept values without --memory: a quarter of the
 * machine's. */
size_t engine_default_memory(void);

typedef struct engine engine;

/* Reads every input of cfg. Returns CS_OK with *out filled (free it with
 * engine_result_free), or the status of e (*out is then empty). The run
 * stays open, its backend too, until engine_close: the caller writes the
 * result first, so that whoever reads it never waits for a GPU's teardown.
 * *handle is the caller's to close, also after an error. */
int engine_run(const engine_config *cfg, const engine_sink *sink,
               engine **handle, engine_result *out, cs_error *e);
void engine_close(engine *eng); /* NULL does nothing */

/* --list-columns: the field names of the first input that shows fields,
 * as a run names them (after the header is detected: "1", "2"... without
 * one), every field, in order. Reads only the input's head. Returns CS_OK
 * with *names ([*n], NULL-terminated, each malloc'ed; free with
 * engine_names_free), or the status of e. */
int engine_list_columns(const engine_config *cfg, const engine_sink *sink,
                        char ***names, int *n, cs_error *e);
void engine_names_free(char **names, int n);

/* Whether a tentative column is reported: it held numbers (or NaN),
 * more than invalid fields. */
int engine_holds_numbers(const col_stats *s);

/* The warning a run gives for each column of r holding invalid fields,
 * from r's first invalid fields (invalid_to_result). */
void engine_warn_invalid(const engine_result *r, const engine_sink *sink);

/* A tentative column (label, 1-based index) not reported: added to r's
 * left, with why from its statistics and first invalid field (NULL when
 * none). Returns CS_OK, or CS_ENOMEM when out of memory. */
int engine_leave_out(engine_result *r, const char *label, int index,
                     const col_stats *st, const char *invalid, cs_error *e);

/* One note naming every column r leaves out, with why, in field order:
 * "note: left out: 'a' (its fields are mostly 'NA': try --null NA),
 * 'host', 'os' (text)"; nothing when none. */
void engine_say_left(const engine_result *r, const engine_sink *sink);

/* The warning for r's repeated header lines, if any. */
void engine_warn_repeats(const engine_result *r, const engine_sink *sink);
void engine_result_free(engine_result *r);

/* Finalizes every column's statistics into its sum (and, from held_raw,
 * its profile). engine_run, and what merges results (--merge, --mpi),
 * call it last, before handing the result back. CS_ENOMEM when out of
 * memory for the profiles. */
int engine_result_finalize(engine_result *r, cs_error *e);

/* Keeps the columns of r that the -c list selects (columns.h's grammar:
 * indices are the input's fields, as engine_column.index), in the list's
 * order; --merge's -c. Fields the list selects that are none of r's
 * columns are passed over. CS_EUSAGE when an item does not resolve or no
 * column of r is left. */
int engine_select_columns(engine_result *r, const char *list, cs_error *e);

/* want[k] = whether the -c list selects r's column k (r->ncols bytes), as
 * engine_select_columns would keep it; its errors but for none left. */
int engine_columns_wanted(const engine_result *r, const char *list,
                          unsigned char *want, cs_error *e);

#endif
