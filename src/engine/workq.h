/* A fixed pool of worker threads running items in FIFO order. The engine
 * waits for items one by one in submission order, which is what makes the
 * merged results independent of how the threads were scheduled. */
#ifndef COLSTAT_SRC_WORKQ_H
#define COLSTAT_SRC_WORKQ_H

typedef struct wq_item {
    void (*run)(struct wq_item *it); /* called on a worker thread */
    struct wq_item *next;            /* queue link, private */
    int done;                        /* private: use workq_wait */
} wq_item;

typedef struct workq workq;

/* Returns NULL when threads cannot be started. */
workq *workq_start(int nthreads);
void workq_push(workq *q, wq_item *it);
void workq_wait(workq *q, wq_item *it); /* until it has run */
int workq_done(workq *q, wq_item *it);  /* has it run? (does not block) */
void workq_stop(workq *q);              /* runs what is queued, joins */

#endif
