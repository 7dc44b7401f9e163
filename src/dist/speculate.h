/* --mpi without a planning pass, after Ge et al., "Speculative Distributed
 * CSV Data Parsing for Big Data Analytics" (SIGMOD 2019). A rank guesses
 * that the byte at each of its cuts is read outside quotes, in an unquoted
 * field: its share then begins after the first line end there, found in a
 * few bytes, and it parses at once while a thread summarises the quote
 * states of its last range (split_tail_make) for the ranks after it. Once
 * the ranks exchanged those summaries, each checks its own guesses over
 * the bytes between the cut and the guessed boundary: a guess held where
 * the right state at the boundary is between records, the parse from there
 * on being one process's. A guess is first looked for where it cannot
 * miss: the first record boundary that every state at the cut leads to.
 * Only where none is near (a quoted field longer than the window over the
 * cut, or quotes that never let the parses meet) is a state guessed, and
 * a missed guess (a cut inside a quoted field with a line end after it)
 * costs a parse again from the right boundaries. */
#ifndef COLSTAT_SRC_DIST_SPECULATE_H
#define COLSTAT_SRC_DIST_SPECULATE_H

#include <stdint.h>

#include "src/dist/split.h"

/* A guessed share starts its first input at physical line
 * SPEC_LINE_BASE + 1: the lines the engine reports from there are known
 * only after the check (spec_line), and stand out until then. */
#define SPEC_LINE_BASE ((uint64_t)1 << 40)

/* The bytes after a cut looked at for a boundary that holds whatever the
 * state at the cut (csv_common_record) before guessing one. */
#define SPEC_WINDOW ((size_t)1 << 20)

/* This rank's guessed part of every input (of the ranges x0, x1); window:
 * SPEC_WINDOW, or 0 to guess at once (a test hook's choice). */
int spec_guess(const char *const *paths, const split_input *in, int nin,
               const uint64_t *x0, const uint64_t *x1, size_t window,
               engine_part *parts, cs_error *e);

/* The summary of this rank's tail (split_tail_make) on a thread of its
 * own, started by spec_tail_start (the arguments must outlive it) and
 * joined by spec_tail_join, which returns its status. nthreads: the
 * threads it reads with. */
typedef struct spec_tail spec_tail;
int spec_tail_start(const char *const *paths, const split_input *in, int nin,
                    const uint64_t *x0, const uint64_t *x1, int nthreads,
                    spec_tail **out, cs_error *e);
int spec_tail_join(spec_tail *t, split_tail *tail, cs_error *e);

/* From every rank's tail, this rank's right parts (right[nin]): its
 * guesses where the right parse is between records there, else the
 * boundaries split_parts finds; *held where they are the guessed parts
 * (spec_guess), and *line the physical line its guessed first input
 * starts on (for spec_line). */
int spec_check(const char *const *paths, const split_input *in, int nin,
               const uint64_t *x0, const uint64_t *x1, const split_tail *tails,
               int rank, const engine_part *guessed, engine_part *right,
               int *held, uint64_t *line, cs_error *e);

/* A line the engine reported, with the guessed start at line first. */
uint64_t spec_line(uint64_t reported, uint64_t first);

#endif
