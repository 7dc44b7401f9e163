/* colstat_open_bench: the bare floor of opening a GPU, cudaFree(0) in a
 * fresh process (the driver's cuInit and the primary context), for
 * bench/auto to set colstat's own opening against in the same run. */
#include <chrono>
#include <cstdio>

#include <cuda_runtime.h>

int main()
{
    auto t0 = std::chrono::steady_clock::now();
    cudaError_t e = cudaFree(0);
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    if (e != cudaSuccess) {
        std::printf("cudaFree(0) failed: %s\n", cudaGetErrorString(e));
        return 1;
    }
    std::printf("cudaFree(0) %.4f s\n", s);
    return 0;
}
