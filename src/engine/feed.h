/* The feed: one input's bytes into record-aligned jobs for the workers, or
 * to a backend that parses bytes itself (rawfeed.h) and then, from
 * wherever that one stops, into jobs. It knows no GPU, only backend.h. */
#ifndef COLSTAT_SRC_ENGINE_FEED_H
#define COLSTAT_SRC_ENGINE_FEED_H

#include <stddef.h>

#include "src/engine/input.h"
#include "src/engine/jobs.h"
#include "src/engine/rawfeed.h"
#include "src/engine/readahead.h"

typedef struct feed {
    jobs *js;
    account *acc;
    size_t block; /* input bytes per job */
    int readers;  /* threads reading plain files ahead; 0: read in order */
    int nthreads;
    rawfeed raw;
    readahead *ra; /* started by the first file read ahead */
    /* bytes read past the last cut, waiting for the next job */
    char *carry;
    size_t carry_len, carry_cap;
} feed;

/* strict: the columns [0, strict) in which an invalid field is an error.
 * block and readers may be changed before the first feed_input. */
void feed_init(feed *f, jobs *js, backend *be, account *acc, int nthreads,
               int ncols, int strict);

/* Feeds all of in (its map set). Returns CS_OK or e's status. */
int feed_input(feed *f, input *in, cs_error *e);

void feed_free(feed *f);

#endif
