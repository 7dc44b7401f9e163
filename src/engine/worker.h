/* What a worker thread does with a job: reads its bytes when it holds only
 * a range, parses them into batches of rows and hands each row batch, then the
 * job, to the backend. Run through the work queue (jobs.c). */
#ifndef COLSTAT_SRC_ENGINE_WORKER_H
#define COLSTAT_SRC_ENGINE_WORKER_H

#include "src/engine/workq.h"

void worker_run(wq_item *it); /* it is a job */

#endif
