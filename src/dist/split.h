/* --mpi's work split: the inputs, concatenated in order, are cut evenly by
 * bytes over the ranks, so that each rank's share is one contiguous run of
 * the input and the ranks' states merge in rank order as one run over the
 * whole. Plain CSV and binary files divide (CSV at record boundaries found
 * from the quote-state summaries of the ranges before, binary at whole
 * records); a compressed file or a stream goes whole to the rank its
 * middle falls in. Nothing here talks to MPI: mpi_run.c exchanges the
 * summaries. */
#ifndef COLSTAT_SRC_DIST_SPLIT_H
#define COLSTAT_SRC_DIST_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"
#include "io/csv/csv_reader.h"
#include "src/engine/engine.h"

typedef enum split_kind {
    SPLIT_CSV,    /* a plain CSV file: by byte ranges */
    SPLIT_BINARY, /* a plain binary file: by whole records */
    SPLIT_WHOLE   /* compressed, or not a regular file: whole to one rank */
} split_kind;

typedef struct split_input {
    split_kind kind;
    uint64_t size; /* bytes (compressed bytes when compressed) */
    size_t record; /* SPLIT_BINARY: bytes per record */
    csv_dialect d; /* SPLIT_CSV: its delimiter, detected as the engine does */
    uint64_t bom;  /* SPLIT_CSV: bytes of a UTF-8 byte-order mark */
} split_input;

/* Describes path: its kind, size and, for CSV, dialect and mark. record:
 * the binary record size, 0 for CSV; base: the dialect as the engine
 * starts from (-d, -W, number formats), detected from the file's head as
 * the engine does. */
int split_probe(const char *path, size_t record, const csv_dialect *base,
                split_input *in, cs_error *e);

/* Rank `rank` of `nranks`: the bytes [x0[i], x1[i]) of each input i it
 * starts from (empty: x0 == x1), before record boundaries are found. A
 * whole input is [0, ENGINE_PART_END) for its rank. cuts: NULL for even
 * shares, or (tests) "C1,C2,..." the byte offsets into the inputs'
 * concatenation where rank 1, 2, ... begin. */
void split_ranges(const split_input *in, int nin, int nranks, int rank,
                  const char *cuts, uint64_t *x0, uint64_t *x1);

/* The summary of the CSV bytes [x0, x1) of path (from the mark on), read
 * by nthreads threads at once. */
int split_summarize(const char *path, const split_input *in, uint64_t x0,
                    uint64_t x1, int nthreads, csv_summary *s, cs_error *e);

/* csv_summarize of one block, faster (for tests: it must equal it). */
void split_summarize_block(const csv_dialect *d, const char *buf, size_t n,
                           csv_summary *s);

/* The first place between records at or after x in path, whose byte x is
 * read in *state: *at, and the LFs in [x, *at) added to *lfs. The end of
 * the file when there is none, *state then the state the file ends in
 * (CSV_G_QUO: inside a quoted field that never closes). */
int split_boundary(const char *path, const split_input *in, uint64_t x,
                   int *state, uint64_t *at, uint64_t *lfs, cs_error *e);

/* The first place between records after x in path whatever the state
 * at x (csv_common_record), looked for in the window bytes after x:
 * *at, with *found set; *found 0 where the window holds none. */
int split_common_boundary(const char *path, const split_input *in, uint64_t x,
                          size_t window, uint64_t *at, int *found, cs_error *e);

/* What a rank tells the others: its last range's input when that is CSV
 * (-1 otherwise) and the summary of that range. Exchanged as bytes. */
typedef struct split_tail {
    int32_t input;
    csv_summary s;
} split_tail;

/* The input whose range this rank must summarise for the ranks after it
 * (its last range, when that is CSV and stops short of the file's end),
 * or -1. */
int split_tail_input(const split_input *in, int nin, const uint64_t *x0,
                     const uint64_t *x1);

/* This rank's tail (summarises its last range, the one read twice, by
 * nthreads threads). */
int split_tail_make(const char *const *paths, const split_input *in, int nin,
                    const uint64_t *x0, const uint64_t *x1, int nthreads,
                    split_tail *t, cs_error *e);

/* The state at the start of rank's range of input i, and the LFs before
 * it, from the ranges of the ranks before (tails[0, rank)): they tile the
 * input up to there, in rank order. */
void split_state_at(const split_tail *tails, int rank, int i, int *state,
                    uint64_t *lfs);

/* From every rank's tail (tails[0, nranks)), this rank's part of each
 * input: CSV ranges moved to the record boundaries at or after their ends
 * (each rank finds its own start and end, which the next rank finds as
 * its start), their first lines. */
int split_parts(const char *const *paths, const split_input *in, int nin,
                const uint64_t *x0, const uint64_t *x1, const split_tail *tails,
                int rank, engine_part *parts, cs_error *e);

#endif
