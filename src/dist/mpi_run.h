/* --mpi: this process is one rank of many under mpirun or srun. Each rank
 * reads its share of the inputs (split.h) with the engine, on its own GPU
 * where there are GPUs (the node-local rank modulo their count), and the
 * ranks' partial states (state.h) merge on rank 0, in rank order, into
 * what one process over all the inputs gives. */
#ifndef COLSTAT_SRC_DIST_MPI_RUN_H
#define COLSTAT_SRC_DIST_MPI_RUN_H

#include "io/base/error.h"
#include "src/engine/engine.h"

/* 1 where this program has MPI (colstat-mpi), 0 in colstat, which hands
 * --mpi over to colstat-mpi. */
int dist_mpi_built(void);

/* Initialises MPI and runs this rank's share of cfg. On rank 0 (*root
 * set) *out is the merged result and sink has had rank 0's -v lines and
 * the warnings one process gives; other ranks get an empty *out and say
 * nothing. Every rank returns the same status; rank 0's e holds the first
 * error in input order of any rank. Built without MPI: a usage error. */
int dist_mpi_run(const engine_config *cfg, const engine_sink *sink,
                 engine_result *out, int *root, cs_error *e);

/* After rank 0 wrote the result and any error: MPI ends (every rank
 * calls it, and waits for the others). */
void dist_mpi_end(void);

#endif
