/* The GPU backend: the only way into gpu/. Plain C, no CUDA type. It
 * reduces chunks on the device, two streams deep (the copy of one chunk
 * overlaps the kernels of the previous one), and hands back the same
 * col_stats and hist the CPU backend makes, so results are bit-identical.
 * The engine keeps the missing/invalid/nan counters; the GPU computes the
 * value statistics (count, sum, sum of squares, min/max with row, int-ness)
 * and the histogram. */
#ifndef COLSTAT_GPU_GPU_H
#define COLSTAT_GPU_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "../io/chunk.h"
#include "../src/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_backend gpu_backend;

typedef struct gpu_config {
    int ncols;
    unsigned what; /* STAT_* bits */
    int nbins;
    int have_range; /* else the histogram spans the true min and max */
    double lo, hi;
} gpu_config;

typedef struct gpu_times {
    double h2d_s, kernel_s, hist_s; /* device time, from events */
    uint64_t h2d_bytes;
    char device[128]; /* name of the device used */
} gpu_times;

/* Opens the first usable device. Returns 0, or -1 with why filled (no
 * device, no driver, too little memory...). */
int gpu_open(const gpu_config *cfg, gpu_backend **out, char *why, size_t n);

/* Page-locked allocator for the chunks g will be given. Its functions may
 * be called from several threads at once. */
const chunk_alloc *gpu_chunk_alloc(gpu_backend *g);

/* Rows per chunk, chosen from the device's free memory. */
size_t gpu_chunk_rows(const gpu_backend *g);

/* Starts reducing c, whose first row is first_row (1-based over the whole
 * input). Asynchronous: c must not be changed until gpu_chunk_wait(g, c)
 * returns. Returns 0, or -1 with why filled. */
int gpu_submit(gpu_backend *g, const chunk *c, uint64_t first_row, char *why,
               size_t n);

/* Blocks until the device no longer reads c. Returns 0 or -1 (why). */
int gpu_chunk_wait(gpu_backend *g, const chunk *c, char *why, size_t n);

/* Waits for all work, then merges each column's value statistics into
 * out[0..ncols) (stats_merge, rows already absolute) and, with STAT_HIST,
 * fills hists[0..ncols) (hist_init'ed by gpu_finish itself, freed by the
 * caller). Returns 0 or -1 (why). */
int gpu_finish(gpu_backend *g, col_stats *out, hist *hists, char *why,
               size_t n);

void gpu_get_times(const gpu_backend *g, gpu_times *t);

/* Frees every device and pinned resource g owns. */
void gpu_close(gpu_backend *g);

#ifdef __cplusplus
}
#endif

#endif
