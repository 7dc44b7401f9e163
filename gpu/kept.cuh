/* Values kept on the device for statistics computed once the input ends
 * (histogram edges from the final min and max), internal to gpu/: one
 * store per backend, whatever way the values came.
 *   - pieces: device memory of their own, or host memory past the device
 *     budget; rows of value chunks the host parsed, and binary chunks the
 *     arena could not take;
 *   - the arena: one device allocation, grown between inputs, that raw
 *     input appends to: CSV rows at places the device counts itself,
 *     binary inputs at places the host knows (spans);
 *   - host values: the numbers only the host can round (hard numbers).
 * gpu_kept_visit hands every device range to one function, so a pass over
 * all kept values (binning) is written once. Column j of a range starts at
 * col + j * ld. */
#ifndef COLSTAT_GPU_KEPT_CUH
#define COLSTAT_GPU_KEPT_CUH

#include <cuda_runtime.h>
#include <stddef.h>

struct gpu_backend;

struct kept_piece {
    double *d, *h; /* device, or host (then d is NULL) */
    size_t n, ld;
};

struct kept_span { /* one binary input's rows in the arena */
    unsigned long long at, n;
};

struct kept_store {
    size_t budget, used; /* device bytes for kept values */
    kept_piece *pieces;
    size_t npieces, cappieces;
    double *arena;
    size_t arena_ld;
    unsigned long long arena_used; /* rows, as the host last saw them */
    /* CSV: the device counts the arena's rows here; NULL: spans */
    const unsigned long long *arena_count;
    kept_span *spans;
    int nspans;
    double **hv; /* host values, per column */
    size_t *hn, *hcap;
};

/* Where n rows of a chunk's values go: a kept piece (*keep) when values
 * are kept, else buf. A piece past the budget lives in host memory: the
 * caller then writes buf (*dst) and copies it to keep->h. */
int gpu_kept_piece(gpu_backend *g, size_t n, cudaStream_t st, double *buf,
                   double **dst, kept_piece **keep);

/* Room in the arena for rows more (0: a quarter of what the budget has
 * left); what it holds moves to the larger one. Short of device memory
 * the arena stays as it is: callers check arena_ld. */
int gpu_kept_grow_arena(gpu_backend *g, size_t rows);

/* A binary input of rows rows: *in_arena when all of them fit the arena
 * (one allocation instead of one per chunk), starting 16-byte aligned;
 * even_chunks: every chunk holds an even number of rows. */
int gpu_kept_begin_span(gpu_backend *g, size_t rows, bool even_chunks,
                        bool *in_arena);
/* The next n rows of the current span. */
double *gpu_kept_span_rows(gpu_backend *g, size_t n, size_t *ld);

/* A value the host parsed, for column col. */
int gpu_kept_add_host(gpu_backend *g, int col, double v);
void gpu_kept_host(const gpu_backend *g, int col, const double **v, size_t *n);

/* Calls fn for every device range (host pieces go through dbuf[0] first);
 * dn, when not NULL, is the range's row count in device memory and n only
 * bounds it. Stops at the first nonzero return. */
typedef int (*kept_fn)(gpu_backend *g, const double *col, size_t ld, size_t n,
                       const unsigned long long *dn, cudaStream_t st,
                       void *ctx);
int gpu_kept_visit(gpu_backend *g, cudaStream_t st, kept_fn fn, void *ctx);

void gpu_kept_release(gpu_backend *g);

#endif
