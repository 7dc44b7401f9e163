/* The GPU backend's state and the helpers its files share, internal to
 * gpu/: gpu_backend.cu (value batches, the finish) and raw_input.cu (bytes
 * the device parses) drive the same streams, states and histograms. */
#ifndef COLSTAT_GPU_BACKEND_CUH
#define COLSTAT_GPU_BACKEND_CUH

#include "device_store.cuh"
#include "gpu.h"
#include "kernels.cuh"

constexpr int NSLOTS = 8;                  /* submissions in flight */
constexpr size_t TARGET_BYTES = 64u << 20; /* per column set, buffer */
constexpr size_t MIN_ROWS = 4096;
constexpr size_t RESERVE_BYTES = 512u << 20; /* left free on the device */
constexpr const char NO_GPU[] = "no usable GPU: ";

/* Events of one piece of work on one stream. c is set on the last piece
 * of a batch: gpu_batch_wait waits on its copy. */
struct slot {
    cudaEvent_t start, copied, reduced, binned;
    const row_batch *c;
    bool busy;
};

struct raw_input; /* raw_input.cu */

struct gpu_backend {
    gpu_config cfg;
    int nsm, nb2, maxblocks;
    char err[256]; /* the first error; later calls repeat it */
    bool failed;
    bool nomem; /* the failure was host memory running out */
    size_t rows, ld;
    size_t mem_total, kept_room; /* the device's memory; the kept values'
                                    budget as opened */
    cudaStream_t st[2];
    double *dbuf[2];
    int *dcorr[2];    /* the batches' corrections: [ncols][ld] */
    int *dcorr_on[2]; /* [ncols] */
    int *hcorr_on;    /* [ncols], host: the flags of a submission */
    dev_col *dstate[2];
    dev_ext *dpart[2];
    dev_iext *dipart[2];
    unsigned long long *dbins;
    hist_scale *dscales;
    slot slots[NSLOTS];
    int next_slot;
    unsigned long long nbatches;
    double h2d_ms, kernel_ms, hist_ms;
    double context_s;
    double open_s[GPU_OPEN_NPHASES];
    double open_t; /* clock at the end of the last phase */
    uint64_t h2d_bytes;
    device_store store; /* values kept to the end (device_store.cuh) */
    row_batch_alloc alloc;
    raw_input *raw;          /* NULL until the first raw input */
    struct value_runs *runs; /* the last gpu_value_runs' (value_runs.cu) */
    /* statistics of the values the host parsed for the device (hard
       numbers), per column; the values themselves go to value_store */
    col_stats *extra;
};

/* Records the first error (later ones are dropped); returns -1. */
int failf(gpu_backend *g, const char *fmt, ...);
/* failf for host memory that ran out: CS_ENOMEM once reported. */
int fail_nomem(gpu_backend *g);
int cuda_fail(gpu_backend *g, const char *what, cudaError_t e);
/* rc, with why filled from the first error when rc is not 0 */
int report(const gpu_backend *g, int rc, cs_error *e);

#define CK(g, call)                                                            \
    do {                                                                       \
        cudaError_t ck_ = (call);                                              \
        if (ck_ != cudaSuccess)                                                \
            return cuda_fail((g), #call, ck_);                                 \
    } while (0)

/* Opening's time by phase (gpu_times.open_s): a phase starts at the end of
 * the last one, or at gpu_open_phase_start. */
void gpu_open_phase_start(gpu_backend *g);
void gpu_open_phase_done(gpu_backend *g, int phase);

/* Synchronous copies on stream 0. */
int upload(gpu_backend *g, void *dst, const void *src, size_t bytes);
int download(gpu_backend *g, void *dst, const void *src, size_t bytes);

/* The next event slot, its previous work harvested for the timings. */
slot *take_slot(gpu_backend *g);
void harvest(gpu_backend *g, slot *sl);

/* Adds value v (correction corr, io/base/row_batch.h) of row (absolute) to
 * column col's host-parsed extras, merged with the device's statistics and
 * histograms by gpu_finish. */
int add_extra(gpu_backend *g, int col, double v, int32_t corr, uint64_t row);

/* raw_input.cu: frees what the raw path owns. */
void raw_release(gpu_backend *g);
/* value_runs.cu: frees the last gpu_value_runs' runs. */
extern "C" void gpu_value_runs_release(gpu_backend *g);

#endif
