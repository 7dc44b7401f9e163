/* The kept-values store (kept.cuh). */
extern "C" {
#include "src/stats/stats.h" /* the C headers carry no extern "C" */
}
#include "backend.cuh"

#include <stdlib.h>
#include <string.h>

namespace
{

constexpr size_t ARENA_MAX = 1ull << 31; /* rows kept per column */

bool keeping(const gpu_backend *g)
{
    return (g->cfg.what & STAT_HIST) && !g->cfg.have_range;
}

size_t row_bytes(const gpu_backend *g)
{
    return (size_t)g->cfg.ncols * sizeof(double);
}

/* Rows of device memory the budget still allows. */
size_t room(const gpu_backend *g)
{
    const kept_store *k = &g->kept;
    return k->budget > k->used ? (k->budget - k->used) / row_bytes(g) : 0;
}

kept_piece *new_piece(gpu_backend *g)
{
    kept_store *k = &g->kept;
    if (k->npieces == k->cappieces) {
        size_t cap = k->cappieces ? 2 * k->cappieces : 64;
        kept_piece *p =
            static_cast<kept_piece *>(realloc(k->pieces, cap * sizeof *p));
        if (!p)
            return NULL;
        k->pieces = p;
        k->cappieces = cap;
    }
    kept_piece *p = &k->pieces[k->npieces++];
    memset(p, 0, sizeof *p);
    return p;
}

} // namespace

int gpu_kept_piece(gpu_backend *g, size_t n, cudaStream_t st, double *buf,
                   double **dst, kept_piece **keep)
{
    kept_store *k = &g->kept;
    *dst = buf;
    *keep = NULL;
    if (!keeping(g))
        return 0;
    kept_piece *p = new_piece(g);
    if (!p)
        return failf(g, "GPU: out of host memory");
    p->n = n;
    p->ld = (n + 1) & ~(size_t)1;
    size_t bytes = (size_t)g->cfg.ncols * p->ld * sizeof(double);
    if (k->used + bytes <= k->budget) {
        if (cudaMallocAsync((void **)&p->d, bytes, st) == cudaSuccess) {
            k->used += bytes;
            *dst = p->d;
        } else {
            (void)cudaGetLastError(); /* out of memory: keep on the host */
            p->d = NULL;
            k->budget = k->used;
        }
    }
    if (!p->d && !(p->h = static_cast<double *>(malloc(bytes ? bytes : 1))))
        return failf(g, "GPU: out of host memory for histogram values");
    *keep = p;
    return 0;
}

int gpu_kept_grow_arena(gpu_backend *g, size_t rows)
{
    kept_store *k = &g->kept;
    size_t per_row = row_bytes(g), left = room(g);
    size_t want = rows ? rows : left / 4;
    if (want > left)
        want = left;
    want = k->arena_used + want;
    if (want > ARENA_MAX)
        want = ARENA_MAX;
    want = (want + 1) & ~(size_t)1; /* columns start 16-byte aligned */
    if (k->arena && want <= k->arena_ld)
        return 0;
    double *p = NULL;
    if (cudaMalloc((void **)&p, want * per_row) != cudaSuccess) {
        (void)cudaGetLastError(); /* keep the old one */
        return 0;
    }
    k->used += want * per_row;
    if (k->arena && k->arena_used) {
        CK(g, cudaMemcpy2DAsync(
                  p, want * sizeof(double), k->arena,
                  k->arena_ld * sizeof(double), k->arena_used * sizeof(double),
                  (size_t)g->cfg.ncols, cudaMemcpyDeviceToDevice, g->st[0]));
        CK(g, cudaStreamSynchronize(g->st[0]));
    }
    cudaFree(k->arena);
    k->used -= k->arena_ld * per_row;
    k->arena = p;
    k->arena_ld = want;
    return 0;
}

int gpu_kept_begin_span(gpu_backend *g, size_t rows, bool even_chunks,
                        bool *in_arena)
{
    kept_store *k = &g->kept;
    *in_arena = false;
    if (!keeping(g) || rows == 0)
        return 0;
    unsigned long long at = (k->arena_used + 1) & ~1ull;
    size_t gap = (size_t)(at - k->arena_used);
    if (!even_chunks || rows + gap > room(g))
        return 0;
    if (gpu_kept_grow_arena(g, rows + gap))
        return -1;
    if (!k->arena || at + rows > k->arena_ld)
        return 0;
    kept_span *s = static_cast<kept_span *>(
        realloc(k->spans, (size_t)(k->nspans + 1) * sizeof *s));
    if (!s)
        return failf(g, "GPU: out of host memory");
    k->spans = s;
    k->spans[k->nspans++] = kept_span{at, 0};
    k->arena_used = at;
    *in_arena = true;
    return 0;
}

double *gpu_kept_span_rows(gpu_backend *g, size_t n, size_t *ld)
{
    kept_store *k = &g->kept;
    double *p = k->arena + k->arena_used;
    *ld = k->arena_ld;
    k->arena_used += n;
    k->spans[k->nspans - 1].n += n;
    return p;
}

int gpu_kept_add_host(gpu_backend *g, int col, double v)
{
    kept_store *k = &g->kept;
    size_t ncols = (size_t)g->cfg.ncols;
    if (!(g->cfg.what & STAT_HIST))
        return 0; /* only histograms look at the values again */
    if (!k->hv) {
        k->hv = static_cast<double **>(calloc(ncols, sizeof(double *)));
        k->hn = static_cast<size_t *>(calloc(ncols, sizeof(size_t)));
        k->hcap = static_cast<size_t *>(calloc(ncols, sizeof(size_t)));
        if (!k->hv || !k->hn || !k->hcap)
            return failf(g, "GPU: out of host memory");
    }
    if (k->hn[col] == k->hcap[col]) {
        size_t cap = k->hcap[col] ? 2 * k->hcap[col] : 16;
        double *p =
            static_cast<double *>(realloc(k->hv[col], cap * sizeof(double)));
        if (!p)
            return failf(g, "GPU: out of host memory");
        k->hv[col] = p;
        k->hcap[col] = cap;
    }
    k->hv[col][k->hn[col]++] = v;
    return 0;
}

void gpu_kept_host(const gpu_backend *g, int col, const double **v, size_t *n)
{
    const kept_store *k = &g->kept;
    *v = k->hv ? k->hv[col] : NULL;
    *n = k->hv ? k->hn[col] : 0;
}

int gpu_kept_visit(gpu_backend *g, cudaStream_t st, kept_fn fn, void *ctx)
{
    kept_store *k = &g->kept;
    size_t ncols = (size_t)g->cfg.ncols;
    for (size_t i = 0; i < k->npieces; i++) {
        kept_piece *p = &k->pieces[i];
        const double *src = p->d;
        if (!src) {
            size_t bytes = ncols * p->ld * sizeof(double);
            if (bytes > ncols * g->ld * sizeof(double)) /* pieces fit it */
                return failf(g, "GPU: internal: kept piece too large");
            CK(g, cudaMemcpyAsync(g->dbuf[0], p->h, bytes,
                                  cudaMemcpyHostToDevice, st));
            g->h2d_bytes += bytes;
            src = g->dbuf[0];
        }
        if (fn(g, src, p->ld, p->n, NULL, st, ctx))
            return -1;
    }
    if (!k->arena || !k->arena_used)
        return 0;
    if (k->arena_count)
        return fn(g, k->arena, k->arena_ld, k->arena_ld, k->arena_count, st,
                  ctx);
    for (int i = 0; i < k->nspans; i++)
        if (fn(g, k->arena + k->spans[i].at, k->arena_ld, k->spans[i].n, NULL,
               st, ctx))
            return -1;
    return 0;
}

void gpu_kept_release(gpu_backend *g)
{
    kept_store *k = &g->kept;
    for (size_t i = 0; i < k->npieces; i++) {
        cudaFree(k->pieces[i].d);
        free(k->pieces[i].h);
    }
    free(k->pieces);
    cudaFree(k->arena);
    free(k->spans);
    for (int j = 0; k->hv && j < g->cfg.ncols; j++)
        free(k->hv[j]);
    free(k->hv);
    free(k->hn);
    free(k->hcap);
    memset(k, 0, sizeof *k);
}
