/* Values kept for statistics computed once the input ends (quantiles,
 * histogram edges from the final min and max; gpu.h), internal to gpu/:
 * one store per backend, whatever way the values came.
 *   - pieces: device memory of their own, for rows of value batches the
 *     host parsed and binary batches the arena could not take;
 *   - the arena: one device allocation, grown between inputs, that raw
 *     input appends to: CSV rows at places the device counts itself,
 *     binary inputs at places the host knows (spans);
 *   - the host store (src/stats/value_store.h): what does not fit the device's
 *     budget, and the numbers only the host can round (hard numbers),
 *     within the host's budget; past it spilled to a file, or dropped
 *     (then nothing is kept any more: the passes read the input again).
 * With quantiles every device range has a twin of corrections (int, the
 * same layout). gpu_store_visit hands every device range to one function,
 * so a pass over all kept values (binning, counting) is written once.
 * Column j of a range starts at col + j * ld. */
#ifndef COLSTAT_GPU_KEPT_CUH
#define COLSTAT_GPU_KEPT_CUH

#include <cuda_runtime.h>
#include <stddef.h>

struct gpu_backend;
struct value_store;

struct store_piece {
    double *d;
    int *c; /* corrections, or NULL */
    size_t n, ld;
};

struct store_span { /* one binary input's rows in the arena */
    unsigned long long at, n;
};

struct device_store {
    size_t budget, used; /* device bytes for kept values */
    size_t peak;         /* the most used held at once */
    bool corr;           /* corrections are kept too (quantiles) */
    bool dropped;        /* past the host's budget: nothing is value_store */
    store_piece *pieces;
    size_t npieces, cappieces;
    double *arena;
    int *carena; /* the arena's corrections, or NULL */
    size_t arena_ld;
    unsigned long long arena_used; /* rows, as the host last saw them */
    /* CSV: the device counts the arena's rows here; NULL: spans */
    const unsigned long long *arena_count;
    store_span *spans;
    int nspans;
    struct value_store *host; /* the host store, or NULL */
    double *hbuf;             /* host copies of device rows bound for it */
    int *hcbuf;
    size_t hrows;
    double **hv; /* hard numbers, per column, for a --range histogram */
    size_t *hn, *hcap;
};

/* Makes the host store when values are kept. */
int gpu_store_open(gpu_backend *g);

/* Bytes of the values the device holds: rows kept, not room taken. */
size_t gpu_store_values_bytes(const gpu_backend *g);

/* Whether values are kept (still: not dropped). */
bool gpu_store_on(const gpu_backend *g);

/* Where n rows of a batch's values go: a kept piece (*keep) when they fit
 * the device's budget, else buf; *host: they belong in the host store
 * (the caller hands them over: gpu_store_host_rows, gpu_store_host_device). */
int gpu_store_piece(gpu_backend *g, size_t n, cudaStream_t st, double *buf,
                    double **dst, store_piece **keep, bool *host);

/* n values of column col (corrections r, NULL: 0) into the host store. */
int gpu_store_host_rows(gpu_backend *g, int col, const double *d, const int *r,
                        size_t n);

/* n rows of every column from the device (values at d + j * ld,
 * corrections at c + j * cld) into the host store; waits for stream st. */
int gpu_store_host_device(gpu_backend *g, const double *d, size_t ld,
                          const int *c, size_t cld, size_t n, cudaStream_t st);

/* Room in the arena for rows more (0: a quarter of what the budget has
 * left); what it holds moves to the larger one. Short of device memory
 * the arena stays as it is: callers check arena_ld. */
int gpu_store_grow_arena(gpu_backend *g, size_t rows);

/* A binary input of rows rows: *in_arena when all of them fit the arena
 * (one allocation instead of one per batch), starting 16-byte aligned;
 * even_batches: every batch holds an even number of rows. */
int gpu_store_begin_span(gpu_backend *g, size_t rows, bool even_batches,
                         bool *in_arena);
/* The next n rows of the current span; *corr: their corrections (NULL
 * without). */
double *gpu_store_span_rows(gpu_backend *g, size_t n, size_t *ld, int **corr);

/* A value the host parsed (a hard number), for column col. */
int gpu_store_add_host(gpu_backend *g, int col, double v, int corr);
/* The hard numbers of column col (with STAT_HIST), for a --range
 * histogram. */
void gpu_store_host(const gpu_backend *g, int col, const double **v, size_t *n);

/* Calls fn for every device range: values col, corrections corr (NULL
 * without), ld; dn, when not NULL, is the range's row count in device
 * memory and n only bounds it. Stops at the first nonzero return. */
typedef int (*store_fn)(gpu_backend *g, const double *col, const int *corr,
                        size_t ld, size_t n, const unsigned long long *dn,
                        cudaStream_t st, void *ctx);
int gpu_store_visit(gpu_backend *g, cudaStream_t st, store_fn fn, void *ctx);

void gpu_store_release(gpu_backend *g);

#endif
