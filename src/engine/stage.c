#include "src/engine/stage.h"

#include <pthread.h>
#include <stdlib.h>

#include "src/engine/account.h"

struct stage {
    row_batch slot[STAGE_SLOTS];
    uint64_t owner[STAGE_SLOTS]; /* job seq that may fill each slot */
    const row_batch_alloc *alloc;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

int stage_open(int ncols, size_t rows, const row_batch_alloc *a, stage **out,
               cs_error *e)
{
    *out = NULL;
    stage *s = calloc(1, sizeof *s);
    if (!s)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    s->alloc = a;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    *out = s;
    for (int i = 0; i < STAGE_SLOTS; i++) {
        if (row_batch_init(&s->slot[i], ncols, rows, a))
            return cs_fail(e, CS_ENOMEM, "", 0,
                           "out of page-locked memory for the GPU");
        s->owner[i] = (uint64_t)i;
    }
    return CS_OK;
}

void stage_close(stage *s)
{
    if (!s)
        return;
    for (int i = 0; i < STAGE_SLOTS; i++)
        row_batch_free(&s->slot[i], s->alloc);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

static void copy_rows(row_batch *dst, const row_batch *batches, int n)
{
    row_batch_clear(dst);
    for (int c = 0; c < n; c++)
        row_batch_append_values(dst, &batches[c]);
}

row_batch *stage_take(stage *s, uint64_t seq, const row_batch *batches, int n,
                      uint64_t rows, int failed, double *waited)
{
    int k = (int)(seq % STAGE_SLOTS);
    double t0 = account_now();
    pthread_mutex_lock(&s->mu);
    while (s->owner[k] != seq)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    *waited = account_now() - t0;
    if (failed || rows > s->slot[k].cap) {
        stage_release(s, seq);
        return NULL;
    }
    copy_rows(&s->slot[k], batches, n);
    return &s->slot[k];
}

void stage_release(stage *s, uint64_t seq)
{
    pthread_mutex_lock(&s->mu);
    s->owner[seq % STAGE_SLOTS] = seq + STAGE_SLOTS;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}
