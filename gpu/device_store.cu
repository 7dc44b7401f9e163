/* The kept-values store (device_store.cuh). */
#include "backend.cuh"

#include <stdlib.h>
#include <string.h>

namespace
{

constexpr size_t ARENA_MAX = 1ull << 31; /* rows kept per column */

bool keeping(const gpu_backend *g)
{
    return stats_need_values(g->cfg.what, g->cfg.have_range) != 0 ||
           (g->cfg.what & STAT_PROFILE) != 0;
}

/* Device bytes of one row of every column: values, corrections. */
size_t row_bytes(const gpu_backend *g)
{
    size_t per = sizeof(double) + (g->store.corr ? sizeof(int) : 0);
    return (size_t)g->cfg.ncols * per;
}

/* Rows of device memory the budget still allows. */
size_t room(const gpu_backend *g)
{
    const device_store *k = &g->store;
    return k->budget > k->used ? (k->budget - k->used) / row_bytes(g) : 0;
}

store_piece *new_piece(gpu_backend *g)
{
    device_store *k = &g->store;
    if (k->npieces == k->cappieces) {
        size_t cap = k->cappieces ? 2 * k->cappieces : 64;
        store_piece *p =
            static_cast<store_piece *>(realloc(k->pieces, cap * sizeof *p));
        if (!p)
            return NULL;
        k->pieces = p;
        k->cappieces = cap;
    }
    store_piece *p = &k->pieces[k->npieces++];
    memset(p, 0, sizeof *p);
    return p;
}

/* A device piece of n rows, or false when it does not fit (then the
 * budget closes: later pieces go to the host too). */
bool device_piece(gpu_backend *g, size_t n, cudaStream_t st, store_piece *p)
{
    device_store *k = &g->store;
    p->n = n;
    p->ld = (n + 1) & ~(size_t)1;
    size_t nv = (size_t)g->cfg.ncols * p->ld;
    size_t bytes = nv * sizeof(double) + (k->corr ? nv * sizeof(int) : 0);
    if (k->used + bytes > k->budget)
        return false;
    if (cudaMallocAsync((void **)&p->d, nv * sizeof(double), st) !=
            cudaSuccess ||
        (k->corr && cudaMallocAsync((void **)&p->c, nv * sizeof(int), st) !=
                        cudaSuccess)) {
        (void)cudaGetLastError(); /* out of memory: keep on the host */
        if (p->d)
            cudaFreeAsync(p->d, st);
        p->d = NULL;
        p->c = NULL;
        k->budget = k->used;
        return false;
    }
    k->used += bytes;
    if (k->used > k->peak)
        k->peak = k->used;
    return true;
}

/* The host store said it dropped its values: nothing is kept now. */
int host_status(gpu_backend *g, int rc, const cs_error *e)
{
    if (rc != CS_OK)
        return failf(g, "GPU: %s", e->msg);
    if (vstore_dropped(g->store.host))
        g->store.dropped = true;
    return 0;
}

} // namespace

int gpu_store_open(gpu_backend *g)
{
    device_store *k = &g->store;
    k->corr =
        (g->cfg.what & (STAT_MEDIAN | STAT_QUANTILES | STAT_PROFILE)) != 0;
    if (!keeping(g))
        return 0;
    /* the distinct values' counts need every value: past the host's
       budget they go to a file, never dropped */
    int spill = g->cfg.spill || (g->cfg.what & STAT_PROFILE);
    vstore_limits lim = {g->cfg.memory, spill, g->cfg.tmpdir};
    k->host = vstore_new(g->cfg.ncols, &lim);
    return k->host ? 0 : fail_nomem(g);
}

size_t gpu_store_values_bytes(const gpu_backend *g)
{
    const device_store *k = &g->store;
    size_t rows = k->arena ? (size_t)k->arena_used : 0;
    for (size_t i = 0; i < k->npieces; i++)
        rows += k->pieces[i].n;
    return rows * row_bytes(g);
}

bool gpu_store_on(const gpu_backend *g)
{
    return keeping(g) && !g->store.dropped;
}

int gpu_store_piece(gpu_backend *g, size_t n, cudaStream_t st, double *buf,
                    double **dst, store_piece **keep, bool *host)
{
    *dst = buf;
    *keep = NULL;
    *host = false;
    if (!gpu_store_on(g))
        return 0;
    store_piece *p = new_piece(g);
    if (!p)
        return fail_nomem(g);
    if (!device_piece(g, n, st, p)) {
        g->store.npieces--;
        *host = true;
        return 0;
    }
    *dst = p->d;
    *keep = p;
    return 0;
}

int gpu_store_host_rows(gpu_backend *g, int col, const double *d, const int *r,
                        size_t n)
{
    cs_error e = {};
    int rc = vstore_add(g->store.host, col, d, r, n, &e);
    return host_status(g, rc, &e);
}

int gpu_store_host_device(gpu_backend *g, const double *d, size_t ld,
                          const int *c, size_t cld, size_t n, cudaStream_t st)
{
    device_store *k = &g->store;
    size_t ncols = (size_t)g->cfg.ncols;
    if (k->hrows < n) {
        free(k->hbuf);
        free(k->hcbuf);
        k->hbuf = static_cast<double *>(malloc(ncols * n * sizeof(double)));
        k->hcbuf = static_cast<int *>(malloc(ncols * n * sizeof(int)));
        k->hrows = k->hbuf && k->hcbuf ? n : 0;
        if (!k->hrows)
            return fail_nomem(g);
    }
    CK(g, cudaMemcpy2DAsync(k->hbuf, n * sizeof(double), d, ld * sizeof(double),
                            n * sizeof(double), ncols, cudaMemcpyDeviceToHost,
                            st));
    if (c)
        CK(g, cudaMemcpy2DAsync(k->hcbuf, n * sizeof(int), c, cld * sizeof(int),
                                n * sizeof(int), ncols, cudaMemcpyDeviceToHost,
                                st));
    CK(g, cudaStreamSynchronize(st));
    for (size_t j = 0; j < ncols && !k->dropped; j++)
        if (gpu_store_host_rows(g, (int)j, k->hbuf + j * n,
                                c ? k->hcbuf + j * n : NULL, n))
            return -1;
    return 0;
}

int gpu_store_grow_arena(gpu_backend *g, size_t rows)
{
    device_store *k = &g->store;
    size_t ncols = (size_t)g->cfg.ncols, left = room(g);
    size_t want = rows ? rows : left / 4;
    want = k->arena_used + want;
    /* The new arena takes the old one's place in the budget: the old
     * lives only until its rows are copied, past the budget by its size
     * for that moment (a failed allocation keeps the old). Counting both
     * let an arena grown input by input reach only about two thirds of
     * the budget: 16 GB in 8 inputs stopped the device in the sixth. */
    if (k->arena)
        left += k->arena_ld;
    if (want > left)
        want = left;
    if (want > ARENA_MAX)
        want = ARENA_MAX;
    want = (want + 1) & ~(size_t)1; /* columns start 16-byte aligned */
    if (k->arena && want <= k->arena_ld)
        return 0;
    double *p = NULL;
    int *c = NULL;
    if (cudaMalloc((void **)&p, want * ncols * sizeof(double)) != cudaSuccess ||
        (k->corr &&
         cudaMalloc((void **)&c, want * ncols * sizeof(int)) != cudaSuccess)) {
        (void)cudaGetLastError(); /* keep the old one */
        cudaFree(p);
        return 0;
    }
    k->used += want * row_bytes(g);
    if (k->used > k->peak)
        k->peak = k->used;
    if (k->arena && k->arena_used) {
        CK(g, cudaMemcpy2DAsync(p, want * sizeof(double), k->arena,
                                k->arena_ld * sizeof(double),
                                k->arena_used * sizeof(double), ncols,
                                cudaMemcpyDeviceToDevice, g->st[0]));
        if (c)
            CK(g, cudaMemcpy2DAsync(c, want * sizeof(int), k->carena,
                                    k->arena_ld * sizeof(int),
                                    k->arena_used * sizeof(int), ncols,
                                    cudaMemcpyDeviceToDevice, g->st[0]));
        CK(g, cudaStreamSynchronize(g->st[0]));
    }
    cudaFree(k->arena);
    cudaFree(k->carena);
    k->used -= k->arena_ld * row_bytes(g);
    k->arena = p;
    k->carena = c;
    k->arena_ld = want;
    return 0;
}

int gpu_store_begin_span(gpu_backend *g, size_t rows, bool even_batches,
                         bool *in_arena)
{
    device_store *k = &g->store;
    *in_arena = false;
    if (!gpu_store_on(g) || rows == 0)
        return 0;
    unsigned long long at = (k->arena_used + 1) & ~1ull;
    size_t gap = (size_t)(at - k->arena_used);
    if (!even_batches || rows + gap > room(g))
        return 0;
    if (gpu_store_grow_arena(g, rows + gap))
        return -1;
    if (!k->arena || at + rows > k->arena_ld)
        return 0;
    store_span *s = static_cast<store_span *>(
        realloc(k->spans, (size_t)(k->nspans + 1) * sizeof *s));
    if (!s)
        return fail_nomem(g);
    k->spans = s;
    k->spans[k->nspans++] = store_span{at, 0};
    k->arena_used = at;
    *in_arena = true;
    return 0;
}

double *gpu_store_span_rows(gpu_backend *g, size_t n, size_t *ld, int **corr)
{
    device_store *k = &g->store;
    double *p = k->arena + k->arena_used;
    *corr = k->carena ? k->carena + k->arena_used : NULL;
    *ld = k->arena_ld;
    k->arena_used += n;
    k->spans[k->nspans - 1].n += n;
    return p;
}

int gpu_store_add_host(gpu_backend *g, int col, double v, int corr)
{
    device_store *k = &g->store;
    size_t ncols = (size_t)g->cfg.ncols;
    if (gpu_store_on(g) && gpu_store_host_rows(g, col, &v, &corr, 1))
        return -1;
    if (!(g->cfg.what & STAT_HIST) || !g->cfg.have_range)
        return 0; /* a --range histogram bins these at the end */
    if (!k->hv) {
        k->hv = static_cast<double **>(calloc(ncols, sizeof(double *)));
        k->hn = static_cast<size_t *>(calloc(ncols, sizeof(size_t)));
        k->hcap = static_cast<size_t *>(calloc(ncols, sizeof(size_t)));
        if (!k->hv || !k->hn || !k->hcap)
            return fail_nomem(g);
    }
    if (k->hn[col] == k->hcap[col]) {
        size_t cap = k->hcap[col] ? 2 * k->hcap[col] : 16;
        double *p =
            static_cast<double *>(realloc(k->hv[col], cap * sizeof(double)));
        if (!p)
            return fail_nomem(g);
        k->hv[col] = p;
        k->hcap[col] = cap;
    }
    k->hv[col][k->hn[col]++] = v;
    return 0;
}

void gpu_store_host(const gpu_backend *g, int col, const double **v, size_t *n)
{
    const device_store *k = &g->store;
    *v = k->hv ? k->hv[col] : NULL;
    *n = k->hv ? k->hn[col] : 0;
}

int gpu_store_visit(gpu_backend *g, cudaStream_t st, store_fn fn, void *ctx)
{
    device_store *k = &g->store;
    for (size_t i = 0; i < k->npieces; i++) {
        store_piece *p = &k->pieces[i];
        if (fn(g, p->d, p->c, p->ld, p->n, NULL, st, ctx))
            return -1;
    }
    if (!k->arena || !k->arena_used)
        return 0;
    if (k->arena_count)
        return fn(g, k->arena, k->carena, k->arena_ld, k->arena_ld,
                  k->arena_count, st, ctx);
    for (int i = 0; i < k->nspans; i++) {
        unsigned long long at = k->spans[i].at;
        if (fn(g, k->arena + at, k->carena ? k->carena + at : NULL, k->arena_ld,
               k->spans[i].n, NULL, st, ctx))
            return -1;
    }
    return 0;
}

void gpu_store_release(gpu_backend *g)
{
    device_store *k = &g->store;
    for (size_t i = 0; i < k->npieces; i++) {
        cudaFree(k->pieces[i].d);
        cudaFree(k->pieces[i].c);
    }
    free(k->pieces);
    cudaFree(k->arena);
    cudaFree(k->carena);
    free(k->spans);
    vstore_free(k->host);
    free(k->hbuf);
    free(k->hcbuf);
    for (int j = 0; k->hv && j < g->cfg.ncols; j++)
        free(k->hv[j]);
    free(k->hv);
    free(k->hn);
    free(k->hcap);
    memset(k, 0, sizeof *k);
}
