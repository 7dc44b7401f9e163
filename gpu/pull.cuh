/* Internal to gpu/: large device-to-host copies into fresh host memory.
 * cudaMemcpy into pageable memory runs at about 1.3 GB/s here (a million
 * groups' 1.7 GB of state took 1.3-1.4 s): the driver stages it through
 * one page-locked buffer and one thread, which also takes every first
 * touch of the fresh pages. pull_copies spreads the copies over a few
 * threads, each with its own page-locked stage and stream, so that the
 * bus and the host's memcpy and page faults overlap. */
#ifndef COLSTAT_GPU_PULL_CUH
#define COLSTAT_GPU_PULL_CUH

#include <cuda_runtime.h>
#include <stddef.h>

struct pull_copy {
    void *dst;       /* host */
    const void *src; /* device */
    size_t bytes;
};

/* Every copy done (the device's work before it finished), or the first
 * CUDA error. Small totals go through cudaMemcpy as they are; threads:
 * at most this many (0: the host's cores, at most 8). */
cudaError_t pull_copies(const pull_copy *c, int n, int threads);

#endif
