/* Raw input for a backend that parses bytes itself (backend.h, `bytes`):
 * an input's bytes go to it as they are, in order, through a ring of slots
 * in the backend's own memory (page-locked for the GPU). A plain file is
 * read by several threads at once, each pread-ing pieces of the slots (one
 * thread cannot keep up with a copy engine); a pipe or compressed stream by
 * the main thread, in order.
 *
 * When the backend stops early (input it cannot parse exactly as the host
 * would), the host takes over from the first byte it did not reduce: a
 * plain file is re-read from there; for a stream, the bytes the backend
 * held back and the slots not yet recycled are handed back, in order. */
#ifndef COLSTAT_SRC_ENGINE_RAWFEED_H
#define COLSTAT_SRC_ENGINE_RAWFEED_H

#include <stddef.h>
#include <stdint.h>

#include "src/engine/account.h"
#include "src/engine/backend.h"
#include "src/engine/input.h"
#include "src/engine/jobs.h"

typedef struct rawfeed {
    backend *be;
    jobs *js; /* drained before an input starts: rows stay in order */
    account *acc;
    int nthreads, ncols, strict;
    char **slot; /* the ring, made at first use */
    size_t slot_bytes;
} rawfeed;

/* Where the host goes on after the backend: *bytes (malloc'ed, the
 * caller's, len of them) come first, then the source from where it is;
 * the first of them is on physical line `line`. */
typedef struct raw_rest {
    char *bytes;
    size_t len;
    int eof; /* the source is used up */
    uint64_t line;
} raw_rest;

/* Whether the backend takes in's bytes itself. */
int rawfeed_wants(const rawfeed *rf, const input *in);

/* CSV: head[0, head_len) are the first data bytes (in->head). */
int rawfeed_csv(rawfeed *rf, input *in, raw_rest *rest, cs_error *e);

/* Binary records of a plain file, all of it. */
int rawfeed_binary(rawfeed *rf, input *in, cs_error *e);

void rawfeed_free(rawfeed *rf);

#endif
