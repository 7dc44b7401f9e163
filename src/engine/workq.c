#include "workq.h"

#include <pthread.h>
#include <stdlib.h>

struct workq {
    pthread_mutex_t mu;
    pthread_cond_t has_work, has_done;
    wq_item *head, *tail;
    int stopping;
    int nthreads;
    pthread_t *threads;
};

static wq_item *take(workq *q)
{
    pthread_mutex_lock(&q->mu);
    while (!q->head && !q->stopping)
        pthread_cond_wait(&q->has_work, &q->mu);
    wq_item *it = q->head;
    if (it) {
        q->head = it->next;
        if (!q->head)
            q->tail = NULL;
    }
    pthread_mutex_unlock(&q->mu);
    return it;
}

static void *worker(void *arg)
{
    workq *q = arg;
    wq_item *it;
    while ((it = take(q)) != NULL) {
        it->run(it);
        pthread_mutex_lock(&q->mu);
        it->done = 1;
        pthread_cond_broadcast(&q->has_done);
        pthread_mutex_unlock(&q->mu);
    }
    return NULL;
}

workq *workq_start(int nthreads)
{
    workq *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->threads = calloc((size_t)nthreads, sizeof *q->threads);
    if (!q->threads) {
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->has_work, NULL);
    pthread_cond_init(&q->has_done, NULL);
    for (int i = 0; i < nthreads; i++) {
        if (pthread_create(&q->threads[i], NULL, worker, q) != 0)
            break;
        q->nthreads++;
    }
    if (q->nthreads == 0) {
        workq_stop(q);
        return NULL;
    }
    return q;
}

void workq_push(workq *q, wq_item *it)
{
    it->next = NULL;
    it->done = 0;
    pthread_mutex_lock(&q->mu);
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    pthread_cond_signal(&q->has_work);
    pthread_mutex_unlock(&q->mu);
}

void workq_wait(workq *q, wq_item *it)
{
    pthread_mutex_lock(&q->mu);
    while (!it->done)
        pthread_cond_wait(&q->has_done, &q->mu);
    pthread_mutex_unlock(&q->mu);
}

int workq_done(workq *q, wq_item *it)
{
    pthread_mutex_lock(&q->mu);
    int done = it->done;
    pthread_mutex_unlock(&q->mu);
    return done;
}

void workq_stop(workq *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    q->stopping = 1;
    pthread_cond_broadcast(&q->has_work);
    pthread_mutex_unlock(&q->mu);
    for (int i = 0; i < q->nthreads; i++)
        pthread_join(q->threads[i], NULL);
    pthread_cond_destroy(&q->has_work);
    pthread_cond_destroy(&q->has_done);
    pthread_mutex_destroy(&q->mu);
    free(q->threads);
    free(q);
}
