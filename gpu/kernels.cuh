/* Device kernels of the GPU backend, internal to gpu/ (CUDA types allowed
 * here, never in gpu.h). The reduction state on the device mirrors
 * col_stats: the exact sums use sacc's digit layout (exact.h), so the host
 * merges them with the same code as the CPU backend. */
#ifndef COLSTAT_GPU_KERNELS_CUH
#define COLSTAT_GPU_KERNELS_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* the C headers carry no extern "C" of their own */
extern "C" {
#include "src/stats/exact.h"
#include "src/stats/stats.h"
}
#include "src/stats/hist_bin.h"

/* Row of an empty extremum: compares after every real row. */
#define DEV_NO_ROW 0xffffffffffffffffull

/* One column's running state on the device. Between launches every digit
 * is within (-2^33, 2^33): the finish kernel carries once per launch, and
 * one launch adds at most 2^27 values (2^28 terms of the squares'
 * corrections) of magnitude < 2^32 to a digit. The integer view's fields
 * are col_stats's (src/stats/stats.h). */
struct dev_col {
    long long sum[SACC_DIGITS];
    long long sumsq[SACC_DIGITS];
    long long sumsq_corr[SACC_DIGITS];
    unsigned long long count, pos_inf, neg_inf, sq_inf;
    double min, max;
    double fmin, fmax; /* finite extremes: +inf, -inf while none */
    unsigned long long min_row, max_row; /* DEV_NO_ROW when empty */
    unsigned long long min_row_int, max_row_int;
    long long sum_r;
    int min_corr, max_corr;
    int all_int, pad;
};

/* One block's extrema for one column, and its finite extremes. */
struct dev_ext {
    double mn, mx;
    unsigned long long mnr, mxr;
    double fmn, fmx;
};

/* One block's extrema of one column in the integer view: (value,
 * correction) ordered, then the row. */
struct dev_iext {
    double mn, mx;
    int mnc, mxc;
    unsigned long long mnr, mxr;
};

/* Values a launch may give one column: keeps digits inside int64. */
#define DEV_MAX_ROWS_PER_LAUNCH (1ull << 27)

/* Blocks per column of the corrections' kernel: it runs only on batches
 * that carry corrections, and otherwise returns at once. */
#define DEV_CORR_BLOCKS 128

struct reduce_args {
    const double *col; /* column j starts at col + j * ld */
    size_t ld;         /* even, so 16-byte loads stay aligned */
    size_t n;          /* values per column */
    unsigned long long first_row;
    int sums, squares; /* STAT_SUM|MEAN|STD, STAT_STD */
    dev_col *state;    /* [ncols] */
    dev_ext *part;     /* [ncols][nblocks] */
    int nblocks;       /* blocks per column (grid x) */
    /* device {n, first_row} that replace n and first_row when set: the
       rows of a batch the device parsed are unknown to the host (n is
       then only the bound the grid is sized for) */
    const unsigned long long *dyn;
    /* corrections (io/base/row_batch.h), NULL when the batch can carry none:
       column j's at corr + j * corr_ld, used where corr_on[j] (device memory)
       is set; the kernels leave both zero, so a parser writes only nonzero
       corrections */
    int *corr;
    size_t corr_ld;
    int *corr_on;    /* [ncols] */
    dev_iext *ipart; /* [ncols][DEV_CORR_BLOCKS] */
    int terms;       /* expansion terms (2, 3, 4; -2, -3 ordered), 0: default */
};

/* Blocks per column for n values on a device of nsm multiprocessors. */
int reduce_grid(int nsm, size_t n);

/* The fused pass (count, exact sums, extrema, integrality), with
 * a->corr the corrections' pass (their sum, the squares' cross terms, the
 * integer view's extrema), then the small kernel that folds the block
 * extrema into the state and carries the digits. a->nblocks must come from
 * reduce_grid (an upper bound: the launch uses fewer blocks when fewer fit
 * on the device at once). */
cudaError_t reduce_launch(const reduce_args *a, int ncols, cudaStream_t s);

/* The same with an expansion of terms (2, 3 or 4) doubles per thread; the
 * result is identical, only the speed differs (for the benchmark). */
cudaError_t reduce_launch_terms(const reduce_args *a, int ncols, cudaStream_t s,
                                int terms);

/* Sets every state to empty (host side, then copied by the caller). */
void dev_col_empty(dev_col *c);

/* Adds n values of each of ncols columns (column j at col + j * ld, ld
 * even) to bins[j * (nbins + 2) ...]: underflow, the nbins bins, overflow.
 * d_scales[j] (device memory) is column j's scale. Shared-memory counters
 * when nbins fits, else global atomics. With d_n (device memory), *d_n
 * values are binned and n only bounds them. */
cudaError_t hist_launch(const double *col, size_t ld, size_t n, int ncols,
                        int nbins, const hist_scale *d_scales,
                        unsigned long long *bins, int nsm, cudaStream_t s,
                        const unsigned long long *d_n = nullptr);

#endif
