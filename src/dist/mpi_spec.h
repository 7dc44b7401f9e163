/* --mpi: one rank's share through the engine without a planning pass
 * (speculate.h): its parts guessed when the engine asks for them, the
 * engine run at once, the guesses checked against every rank's quote-state
 * summary afterwards, and the share run again where a guess missed. */
#ifndef COLSTAT_SRC_DIST_MPI_SPEC_H
#define COLSTAT_SRC_DIST_MPI_SPEC_H

#include "io/base/error.h"
#include "src/engine/engine.h"

/* This rank in MPI_COMM_WORLD, and the threads its summary may use. */
typedef struct mpi_rank {
    int rank, n;
    int threads;
} mpi_rank;

/* The parts the run's engine reads until it is closed. */
typedef struct mpi_spec_parts {
    engine_part *guessed, *right;
} mpi_spec_parts;

/* Runs c (whose mpi the caller set up, less share, parts and collective)
 * over this rank's share; every rank calls it. *eng and *r are the run's
 * to close and free, whatever it returns, and then keep (mpi_spec_free);
 * *others is set where the first error in input order is another rank's.
 * -v says whether the guesses held. */
int mpi_spec_run(const engine_config *c, const engine_sink *says, mpi_rank me,
                 engine **eng, engine_result *r, int *others,
                 mpi_spec_parts *keep, cs_error *e);
void mpi_spec_free(mpi_spec_parts *keep);

#endif
