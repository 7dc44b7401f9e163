/* The GPU's staging ring: a few page-locked chunks that parsed rows pass
 * through on their way to the device. Page-locking costs about as much as
 * copying (measured: ~0.4 s for the ~370 MB a chunk per job needed), so
 * the pinned memory is a fixed ring of STAGE_SLOTS chunks, not one per job.
 *
 * Job k may fill slot k % STAGE_SLOTS only after job k - STAGE_SLOTS has
 * released it (its copy to the device is done). Slots go in job order, so
 * a job only ever waits for an older one, and the main thread releases
 * slots in order as it retires jobs: with STAGE_SLOTS > GPU_INFLIGHT + 1
 * the wait always ends. */
#include <stdlib.h>

#include "internal.h"

int stage_init(engine *g)
{
    double t0 = engine_now();
    g->stage = calloc(STAGE_SLOTS, sizeof *g->stage);
    if (!g->stage)
        return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    for (int i = 0; i < STAGE_SLOTS; i++) {
        if (chunk_init(&g->stage[i], g->ncols, g->stage_rows, g->alloc))
            return cs_fail(g->e, CS_EDATA, "", 0,
                           "out of page-locked memory for the GPU");
        g->stage_owner[i] = (uint64_t)i;
    }
    pthread_mutex_init(&g->stage_mu, NULL);
    pthread_cond_init(&g->stage_cv, NULL);
    g->stage_ready = 1;
    g->t_alloc += engine_now() - t0;
    return CS_OK;
}

void stage_free(engine *g)
{
    for (int i = 0; g->stage && i < STAGE_SLOTS; i++)
        chunk_free(&g->stage[i], g->alloc);
    free(g->stage);
    g->stage = NULL;
    if (g->stage_ready) {
        pthread_cond_destroy(&g->stage_cv);
        pthread_mutex_destroy(&g->stage_mu);
        g->stage_ready = 0;
    }
}

static void copy_rows(chunk *dst, const job *j)
{
    chunk_clear(dst);
    for (int c = 0; c < j->ncks_used; c++)
        chunk_append_values(dst, &j->cks[c]);
}

/* Worker, after parsing j: waits for its slot and copies its rows in. A
 * failed job, or one with more rows than a slot holds, passes its turn on
 * at once (the latter is then copied from its own pageable chunks). */
void stage_take(engine *g, job *j)
{
    int slot = (int)(j->seq % STAGE_SLOTS);
    double t0 = engine_now();
    pthread_mutex_lock(&g->stage_mu);
    while (g->stage_owner[slot] != j->seq)
        pthread_cond_wait(&g->stage_cv, &g->stage_mu);
    pthread_mutex_unlock(&g->stage_mu);
    j->t_turn = engine_now() - t0;
    if (j->err.status || j->rows > g->stage[slot].cap) {
        j->pin = NULL;
        stage_release(g, j, slot);
        return;
    }
    t0 = engine_now();
    copy_rows(&g->stage[slot], j);
    j->t_parse += engine_now() - t0;
    j->pin = &g->stage[slot];
}

void stage_release(engine *g, job *j, int slot)
{
    pthread_mutex_lock(&g->stage_mu);
    g->stage_owner[slot] = j->seq + STAGE_SLOTS;
    pthread_cond_broadcast(&g->stage_cv);
    pthread_mutex_unlock(&g->stage_mu);
    j->pin = NULL;
}
