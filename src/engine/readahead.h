/* Read-ahead of a plain file: blocks at fixed offsets, pread by helper
 * threads into job buffers while the feed cuts the blocks before them.
 * The feed's one thread then only scans the bytes: on 16 cores and 16 GB
 * copying them out of the page cache was 2.2-3.0 s of that thread, as
 * much as its cutting, and the workers waited on it (bench/RESULTS.md).
 * It owns its threads; the jobs it holds come from and go back to js. */
#ifndef COLSTAT_SRC_ENGINE_READAHEAD_H
#define COLSTAT_SRC_ENGINE_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "src/engine/input.h"
#include "src/engine/jobs.h"

typedef struct readahead readahead;

/* threads readers; NULL when none can be started (read in order then). */
readahead *readahead_start(int threads);

/* Reads bytes [from, end) of in's source ahead, depth blocks at most in
 * flight: each of block bytes (the last fewer), at buf + front of a job
 * got from js. */
void readahead_begin(readahead *ra, jobs *js, input *in, uint64_t from,
                     uint64_t end, size_t front, size_t block, int depth);

/* The next block in file order, once read. Returns 1 with *j (its buffer
 * holding *n bytes at front, from file offset *off), 0 when all of
 * [from, end) was given, -1 on error (e filled). The job is the
 * caller's: dispatch it or jobs_put it. */
int readahead_next(readahead *ra, job **j, uint64_t *off, size_t *n,
                   cs_error *e);

/* Waits for every block still being read and puts its job back: after an
 * error, before the caller lets go of in. */
void readahead_cancel(readahead *ra);

/* Seconds of thread time the reads took, since the last call. */
double readahead_seconds(readahead *ra);

void readahead_stop(readahead *ra);

#endif
