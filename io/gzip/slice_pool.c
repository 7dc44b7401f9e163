/* The pool of output slices the parallel gzip decoder's pieces reuse
 * (io/gzip/internal.h): kept apart from the reader and the workers, which
 * both take and return slices. */
#include <pthread.h>

#include "io/gzip/internal.h"

gz_slice *gzp_slice_get(void *arg)
{
    gzp *g = arg;
    pthread_mutex_lock(&g->mu);
    gz_slice *s = g->pool;
    if (s) {
        g->pool = s->next;
        g->pool_len--;
    }
    pthread_mutex_unlock(&g->mu);
    if (!s)
        s = gzslice_new(g->slice_elems + DDEC_WINDOW);
    if (s)
        gzslice_reset(s);
    return s;
}

void gzp_slice_put(gzp *g, gz_slice *s)
{
    if (!s)
        return;
    /* Enough for every piece in flight to find one ready. */
    if (g->pool_len >= g->nslots) {
        gzslice_free(s);
        return;
    }
    s->next = g->pool;
    g->pool = s;
    g->pool_len++;
}
