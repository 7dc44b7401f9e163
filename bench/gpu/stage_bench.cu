/* Each stage of colstat's raw input path alone, then together, on one file:
 * reading (threads pread-ing 1 MiB pieces of chunks into a ring of
 * page-locked slots), copying (the slots to device buffers on one stream),
 * both at once on separate slots (what the host's memory and the PCIe link
 * allow when neither waits for the other), and the two chained as colstat
 * chains them (a chunk is copied once all its pieces are read; its slot is
 * read again once copied). The ring's shape is colstat's
 * (src/engine/raw.c) unless given.
 * Usage: colstat_stage_bench FILE [readers] [slots] [chunk MiB] [runs] */
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "check.cuh"

namespace
{

constexpr int NBUF = 3; /* device buffers, as gpu/raw_input.cu */
constexpr size_t PIECE = (size_t)1 << 20; /* one pread, as src/engine/raw.c */

double now()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct ring {
    int fd, readers, slots;
    size_t chunk, size, nchunks, per_chunk; /* pieces a row_batch */
    std::vector<char *> slot;
    char *dbuf[NBUF];
    cudaStream_t cs;
    /* chained mode: chunk i is read into slot i % slots once chunk
     * i - slots has been copied; copied and read count chunks done */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next, copied;
    std::vector<size_t> done;   /* per slot: 1 + the chunk it holds */
    std::vector<size_t> pieces; /* per slot: pieces read */
    int first_slot, nslots;     /* the slots readers use */
};

size_t chunk_len(const ring *r, size_t i)
{
    size_t at = i * r->chunk;
    return r->size - at < r->chunk ? r->size - at : r->chunk;
}

/* Piece u (of chunk u / per_chunk) into the slot at dst. */
void read_piece(const ring *r, size_t u, char *dst)
{
    size_t i = u / r->per_chunk, off = u % r->per_chunk * PIECE;
    size_t len = chunk_len(r, i), n = off < len ? len - off : 0;
    n = n < PIECE ? n : PIECE;
    if (n && pread(r->fd, dst + off, n, (off_t)(i * r->chunk + off)) < 0)
        perror("pread");
}

/* Independent reading: every piece once, into the reader's slots. */
void *read_free(void *arg)
{
    ring *r = static_cast<ring *>(arg);
    for (;;) {
        pthread_mutex_lock(&r->mu);
        size_t u = r->next++;
        pthread_mutex_unlock(&r->mu);
        size_t i = u / r->per_chunk;
        if (i >= r->nchunks)
            return NULL;
        read_piece(r, u, r->slot[r->first_slot + (int)(i % (size_t)r->nslots)]);
    }
}

/* Chained reading: waits for chunk i's slot to have been copied. */
void *read_chained(void *arg)
{
    ring *r = static_cast<ring *>(arg);
    for (;;) {
        pthread_mutex_lock(&r->mu);
        size_t u = r->next++, i = u / r->per_chunk;
        while (i < r->nchunks && i >= r->copied + (size_t)r->slots)
            pthread_cond_wait(&r->cv, &r->mu);
        pthread_mutex_unlock(&r->mu);
        if (i >= r->nchunks)
            return NULL;
        int k = (int)(i % (size_t)r->slots);
        read_piece(r, u, r->slot[k]);
        pthread_mutex_lock(&r->mu);
        if (++r->pieces[k] == r->per_chunk) {
            r->pieces[k] = 0;
            r->done[k] = i + 1;
            pthread_cond_broadcast(&r->cv);
        }
        pthread_mutex_unlock(&r->mu);
    }
}

double run_readers(ring *r, void *(*body)(void *), double *t_end)
{
    std::vector<pthread_t> th((size_t)r->readers);
    double t0 = now();
    for (auto &t : th)
        pthread_create(&t, NULL, body, r);
    for (auto &t : th)
        pthread_join(t, NULL);
    *t_end = now();
    return *t_end - t0;
}

/* Copies nchunks chunks from slots [first, first + n) to the device. */
void copy_all(ring *r, int first, int n)
{
    for (size_t i = 0; i < r->nchunks; i++)
        CK(cudaMemcpyAsync(r->dbuf[i % NBUF],
                           r->slot[first + (int)(i % (size_t)n)],
                           chunk_len(r, i), cudaMemcpyHostToDevice, r->cs));
}

double copy_alone(ring *r)
{
    double t0 = now();
    copy_all(r, 0, r->slots);
    CK(cudaStreamSynchronize(r->cs));
    return now() - t0;
}

double read_alone(ring *r)
{
    double t;
    r->next = 0;
    r->first_slot = 0;
    r->nslots = r->slots;
    return run_readers(r, read_free, &t);
}

/* Both at once, on disjoint slots: readers use the first slots - 4, the
 * copies cycle over the last 4. Prints each one's own wall time. */
void both_free(ring *r, double *t_read, double *t_copy, double *t_all)
{
    r->next = 0;
    r->first_slot = 0;
    r->nslots = r->slots - 4;
    std::vector<pthread_t> th((size_t)r->readers);
    double t0 = now(), t_r = 0;
    for (auto &t : th)
        pthread_create(&t, NULL, read_free, r);
    copy_all(r, r->slots - 4, 4);
    CK(cudaStreamSynchronize(r->cs));
    double t_c = now();
    for (auto &t : th)
        pthread_join(t, NULL);
    t_r = now();
    *t_read = t_r - t0;
    *t_copy = t_c - t0;
    *t_all = std::max(t_r, t_c) - t0;
}

/* Chained: the main thread copies chunk i once read, and hands its slot
 * back once the copy is done (spinning on the event, no sleeping). */
double chained(ring *r, int inflight)
{
    std::vector<cudaEvent_t> ev((size_t)r->slots);
    for (auto &e : ev)
        CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    r->next = 0;
    r->copied = 0;
    std::fill(r->done.begin(), r->done.end(), 0);
    std::vector<pthread_t> th((size_t)r->readers);
    double t0 = now();
    for (auto &t : th)
        pthread_create(&t, NULL, read_chained, r);
    for (size_t i = 0; i < r->nchunks; i++) {
        int k = (int)(i % (size_t)r->slots);
        pthread_mutex_lock(&r->mu);
        while (r->done[k] != i + 1)
            pthread_cond_wait(&r->cv, &r->mu);
        pthread_mutex_unlock(&r->mu);
        CK(cudaMemcpyAsync(r->dbuf[i % NBUF], r->slot[k], chunk_len(r, i),
                           cudaMemcpyHostToDevice, r->cs));
        CK(cudaEventRecord(ev[(size_t)k], r->cs));
        while (r->copied + (size_t)inflight <= i) {
            int j = (int)(r->copied % (size_t)r->slots);
            while (cudaEventQuery(ev[(size_t)j]) == cudaErrorNotReady)
                ;
            pthread_mutex_lock(&r->mu);
            r->copied++;
            pthread_cond_broadcast(&r->cv);
            pthread_mutex_unlock(&r->mu);
        }
    }
    CK(cudaStreamSynchronize(r->cs));
    double t = now() - t0;
    pthread_mutex_lock(&r->mu);
    r->copied = r->nchunks;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    for (auto &x : th)
        pthread_join(x, NULL);
    for (auto &e : ev)
        CK(cudaEventDestroy(e));
    return t;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: colstat_stage_bench FILE [readers] [slots] "
                        "[chunk MiB] [runs]\n");
        return 2;
    }
    ring r{};
    r.fd = open(argv[1], O_RDONLY);
    struct stat sb;
    if (r.fd < 0 || fstat(r.fd, &sb) != 0) {
        perror(argv[1]);
        return 1;
    }
    r.readers = argc > 2 ? atoi(argv[2]) : 12;
    r.slots = argc > 3 ? atoi(argv[3]) : 12;
    r.chunk = (size_t)(argc > 4 ? atoi(argv[4]) : 16) << 20;
    int runs = argc > 5 ? atoi(argv[5]) : 5;
    if (r.readers < 1 || r.slots < 6 || r.chunk == 0 || runs < 1) {
        fprintf(stderr, "colstat_stage_bench: bad arguments\n");
        return 2;
    }
    r.size = (size_t)sb.st_size;
    r.nchunks = (r.size + r.chunk - 1) / r.chunk;
    r.per_chunk = (r.chunk + PIECE - 1) / PIECE;
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    r.done.assign((size_t)r.slots, 0);
    r.pieces.assign((size_t)r.slots, 0);
    CK(cudaFree(0));
    r.slot.resize((size_t)r.slots);
    for (auto &p : r.slot)
        CK(cudaHostAlloc((void **)&p, r.chunk, cudaHostAllocDefault));
    for (auto &b : r.dbuf)
        CK(cudaMalloc((void **)&b, r.chunk));
    CK(cudaStreamCreateWithFlags(&r.cs, cudaStreamNonBlocking));
    const int inflight[] = {2, 4, 8};
    std::vector<double> tr, tc, fr, fc, fa, ch[3];
    for (int i = 0; i < runs; i++) {
        tr.push_back(read_alone(&r));
        tc.push_back(copy_alone(&r));
        double a, b, c;
        both_free(&r, &a, &b, &c);
        fr.push_back(a);
        fc.push_back(b);
        fa.push_back(c);
        for (int k = 0; k < 3; k++)
            ch[k].push_back(chained(&r, inflight[k]));
    }
    double gb = (double)r.size / 1e9, slow = std::max(median(tr), median(tc));
    printf("stage bench: %s, %.3f GB, %d readers, %d slots of %zu MiB, "
           "medians of %d\n",
           argv[1], gb, r.readers, r.slots, r.chunk >> 20, runs);
    printf("  read alone        %.4f s  %6.1f GB/s\n", median(tr),
           gb / median(tr));
    printf("  copy alone        %.4f s  %6.1f GB/s\n", median(tc),
           gb / median(tc));
    printf("  both, unchained   %.4f s  (read %.4f s, copy %.4f s)\n",
           median(fa), median(fr), median(fc));
    for (int k = 0; k < 3; k++)
        printf("  chained, %d copies in flight  %.4f s  %.2fx the slower "
               "stage\n",
               inflight[k], median(ch[k]), median(ch[k]) / slow);
    for (auto p : r.slot)
        CK(cudaFreeHost(p));
    for (auto b : r.dbuf)
        CK(cudaFree(b));
    CK(cudaStreamDestroy(r.cs));
    close(r.fd);
    return 0;
}
