/* --device auto: which backend a run should use, decided before the first
 * byte is parsed from what is known then: the inputs' kinds and sizes
 * (io/source/probe.h), the statistics asked, the threads, and whether a GPU is
 * there at all. Each backend's time is estimated from throughputs and
 * fixed costs measured on the GPU host (bench/auto, bench/RESULTS.md);
 * the faster wins. A stream's size is unknown: it starts on the CPU. */
#ifndef COLSTAT_SRC_ENGINE_POLICY_H
#define COLSTAT_SRC_ENGINE_POLICY_H

#include <stdint.h>

#include "io/source/source.h"

typedef struct policy_params {
    int threads;     /* CPU worker threads */
    int gpu_present; /* a GPU can be opened (not opened yet) */
    int binary;      /* binary records, else CSV */
    unsigned what;   /* STAT_* bits */
    int have_range;  /* --range */
    int group;       /* --group-by (statistics the device reduces): the
                        device parses and groups CSV, the host binary */
} policy_params;

typedef struct policy_choice {
    int gpu;             /* use the GPU */
    double cpu_s, gpu_s; /* the estimates */
    char why[256];       /* for -v */
} policy_choice;

void policy_choose(const policy_params *p, const probe_info *in, int n,
                   policy_choice *out);

#endif
