/* Internal to gpu/: a CUDA call whose error the function returns as its
 * own (cudaError_t), for the steps whose caller reports it. */
#ifndef COLSTAT_GPU_CUDA_TRY_CUH
#define COLSTAT_GPU_CUDA_TRY_CUH

#include <cuda_runtime.h>

#define TRY(call)                                                              \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess)                                                 \
            return e_;                                                         \
    } while (0)

#endif
