/* The engine's accounting: stage times and bytes for -v, the progress
 * line, and the messages the engine sends its sink (main prints them).
 * One per run, owned by the driver, written by the main thread only:
 * threads add up their own times and hand them over. */
#ifndef COLSTAT_SRC_ENGINE_ACCOUNT_H
#define COLSTAT_SRC_ENGINE_ACCOUNT_H

#include <stdint.h>

#include "src/engine/engine.h"

typedef enum acc_time {
    ACC_READ,    /* reading input, summed over readers */
    ACC_PARSE,   /* parsing, worker thread time */
    ACC_REDUCE,  /* reducing on the CPU, worker thread time */
    ACC_HIST,    /* binning values kept to the end */
    ACC_RETIRE,  /* main thread waiting for the oldest job */
    ACC_STREAM,  /* raw input on the device, wall time */
    ACC_HANDOFF, /* workers handing parsed jobs to the backend */
    ACC_FINISH,  /* the backend's states merged after the input */
    ACC_GROUPS,  /* --group-by: the groups put in order, their quantiles */
    ACC_PASSES,  /* the passes after the input (quantiles, histograms,
                    distinct values past --memory) */
    ACC_NTIMES
} acc_time;

typedef struct account {
    const engine_sink *sink;
    int verbose, progress;
    double t_start, last_progress;
    int progress_shown;
    double t[ACC_NTIMES];
    uint64_t bytes_in;     /* input bytes read (inflated for gzip) */
    uint64_t stream_bytes; /* of those, parsed on the device */
} account;

/* Monotonic seconds. */
double account_now(void);

void account_init(account *a, const engine_sink *sink, int verbose,
                  int progress);
void account_time(account *a, acc_time k, double seconds);
void account_bytes(account *a, uint64_t n);
/* An input the backend parsed itself: its wall time and bytes. */
void account_stream(account *a, double seconds, uint64_t bytes);

/* pos of size bytes of input name are done (size 0: unknown). At most
 * twice a second, and not in the first second. */
void account_progress(account *a, const char *name, uint64_t pos,
                      uint64_t size);
/* Clears the progress line if one was shown. */
void account_progress_end(account *a);

/* A -v line (nothing without -v). */
void account_say(account *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A warning about the data at file:line (line 0: the whole file). */
void account_warn(account *a, const char *file, uint64_t line, const char *fmt,
                  ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
