/* Hooks are read here alone: nothing below main reads the environment
 * for them. */
#include "src/cli/hooks.h"

#include <stdlib.h>
#include <string.h>

void read_hooks(engine_hooks *h)
{
    const char *v;
    memset(h, 0, sizeof *h);
    if ((v = getenv("COLSTAT_GPU_PARSE")))
        h->host_parse = *v == '0';
    if ((v = getenv("COLSTAT_GPU_BATCH_ROWS")) && atol(v) > 0)
        h->gpu_batch_rows = (size_t)atol(v);
    if ((v = getenv("COLSTAT_GPU_RAW_BYTES")) && atoll(v) > 0)
        h->gpu_raw_bytes = (size_t)atoll(v);
    if ((v = getenv("COLSTAT_GPU_KEEP_BYTES"))) {
        h->gpu_keep_set = 1;
        h->gpu_keep_bytes = (size_t)strtoull(v, NULL, 10);
    }
    if ((v = getenv("COLSTAT_GPU_TERMS")))
        h->gpu_terms = atoi(v);
    if ((v = getenv("COLSTAT_GPU_SORT_BYTES")) && atoll(v) > 0)
        h->gpu_sort_bytes = (size_t)atoll(v);
    if ((v = getenv("COLSTAT_GPU_GROUP")))
        h->gpu_group_steps = !strcmp(v, "host");
    if ((v = getenv("COLSTAT_GPU_PRESENT")))
        h->gpu_presence = *v == '0' ? 1 : 2;
    h->mpi_cuts = getenv("COLSTAT_MPI_CUTS");
    if ((v = getenv("COLSTAT_MPI_GUESS")))
        h->mpi_guess_line = !strcmp(v, "line");
    if ((v = getenv("COLSTAT_QSEL"))) {
        char *end;
        h->qsel_bits = (int)strtol(v, &end, 10);
        h->qsel_candidates = *end == ',' ? strtoull(end + 1, NULL, 10) : 0;
    }
    if ((v = getenv("COLSTAT_SPILL")))
        h->spill = *v == '1';
    if ((v = getenv("COLSTAT_GZIP_PIECE")) && atoll(v) > 0)
        h->gzip_piece = (size_t)atoll(v);
    if ((v = getenv("COLSTAT_GZIP_THREADS")) && atoi(v) > 0)
        h->gzip_threads = atoi(v);
    if ((v = getenv("COLSTAT_RECORD_LIMIT")) && atoll(v) > 0)
        h->record_limit = (size_t)atoll(v);
    if ((v = getenv("COLSTAT_CORES")) && atoi(v) > 0)
        h->cores = atoi(v);
    if ((v = getenv("COLSTAT_READERS")))
        h->readers = atoi(v) > 0 ? atoi(v) : -1;
    if ((v = getenv("COLSTAT_BLOCK_BYTES")) && atoll(v) > 0)
        h->block_bytes = (size_t)atoll(v);
}
