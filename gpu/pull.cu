#include "pull.cuh"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "cuda_try.cuh"

namespace
{

constexpr size_t PULL_MIN = 16u << 20; /* below: cudaMemcpy as it is */
constexpr size_t CHUNK = 8u << 20;     /* one stage, one copy */
constexpr int MAX_THREADS = 8;

/* The copies as one run of chunks the threads take in turn. */
struct pull_work {
    const pull_copy *c;
    int n;
    pthread_mutex_t lock;
    int at;          /* copy */
    size_t off;      /* within it */
    cudaError_t err; /* the first */
};

/* The next chunk: 0, or -1 when none is left or a thread failed. */
int next_chunk(pull_work *w, pull_copy *out)
{
    pthread_mutex_lock(&w->lock);
    while (w->at < w->n && w->off >= w->c[w->at].bytes) {
        w->at++;
        w->off = 0;
    }
    int rc = -1;
    if (w->at < w->n && w->err == cudaSuccess) {
        const pull_copy &c = w->c[w->at];
        size_t len = c.bytes - w->off < CHUNK ? c.bytes - w->off : CHUNK;
        *out = pull_copy{static_cast<char *>(c.dst) + w->off,
                         static_cast<const char *>(c.src) + w->off, len};
        w->off += len;
        rc = 0;
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

void failed(pull_work *w, cudaError_t e)
{
    pthread_mutex_lock(&w->lock);
    if (w->err == cudaSuccess)
        w->err = e;
    pthread_mutex_unlock(&w->lock);
}

/* One thread's stage and stream: its copies in, memcpy'd out. */
cudaError_t pull_chunks(pull_work *w, void *stage, cudaStream_t s)
{
    pull_copy c;
    while (next_chunk(w, &c) == 0) {
        TRY(cudaMemcpyAsync(stage, c.src, c.bytes, cudaMemcpyDeviceToHost, s));
        TRY(cudaStreamSynchronize(s));
        memcpy(c.dst, stage, c.bytes);
    }
    return cudaSuccess;
}

/* A thread that cannot make its stage or stream (page-locked memory is
 * short) leaves the chunks to the others, or to the caller's plain
 * copies: a slower pull, not a failed run. */
void *pull_main(void *arg)
{
    pull_work *w = static_cast<pull_work *>(arg);
    void *stage = nullptr;
    cudaStream_t s = nullptr;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess &&
        cudaHostAlloc(&stage, CHUNK, cudaHostAllocDefault) == cudaSuccess) {
        cudaError_t e = pull_chunks(w, stage, s);
        if (e != cudaSuccess)
            failed(w, e);
    }
    if (stage)
        cudaFreeHost(stage);
    if (s)
        cudaStreamDestroy(s);
    return nullptr;
}

/* What no thread took, on the calling thread. */
cudaError_t pull_rest(pull_work *w)
{
    pull_copy c;
    while (next_chunk(w, &c) == 0)
        TRY(cudaMemcpy(c.dst, c.src, c.bytes, cudaMemcpyDeviceToHost));
    return cudaSuccess;
}

int thread_count(size_t total, int threads)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int t = threads > 0 ? threads : cores > 0 ? (int)cores : 1;
    if (t > MAX_THREADS)
        t = MAX_THREADS;
    size_t chunks = (total + CHUNK - 1) / CHUNK;
    return chunks < (size_t)t ? (int)chunks : t;
}

} // namespace

cudaError_t pull_copies(const pull_copy *c, int n, int threads)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += c[i].bytes;
    /* the device's earlier work (on any stream) done before the copies,
       which run on streams of their own */
    TRY(cudaDeviceSynchronize());
    int t = thread_count(total, threads);
    pull_work w = {c, n, PTHREAD_MUTEX_INITIALIZER, 0, 0, cudaSuccess};
    pthread_t th[MAX_THREADS];
    int started = 0;
    for (; total >= PULL_MIN && t >= 2 && started < t; started++)
        if (pthread_create(&th[started], nullptr, pull_main, &w))
            break;
    for (int i = 0; i < started; i++)
        pthread_join(th[i], nullptr);
    return w.err != cudaSuccess ? w.err : pull_rest(&w);
}
