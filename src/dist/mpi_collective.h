/* --mpi: the engine's collective (engine.h) over MPI_COMM_WORLD, so that
 * the passes after the input (histogram edges without --range, exact
 * quantiles) run as one over every rank's values. Every exchange opens
 * with a round in which each rank says whether it is still well; a rank
 * that failed joins the next round once, saying so, and the others then
 * stop with an error that is not their own. */
#ifndef COLSTAT_SRC_DIST_MPI_COLLECTIVE_H
#define COLSTAT_SRC_DIST_MPI_COLLECTIVE_H

#include "io/base/error.h"
#include "src/engine/engine.h"

typedef struct mpi_collective {
    int stopped; /* a round said some rank failed (or this one) */
    int others;  /* this rank stopped for another rank's failure */
} mpi_collective;

/* The engine's view of c (which outlives the run). */
engine_collective mpi_collective_of(mpi_collective *c);

/* The closing round, every rank once after the engine, ok its success:
 * a rank that failed past its last exchange stops the others here, not
 * in a different collective. Sets c->others where another rank failed. */
void mpi_collective_close(mpi_collective *c, int ok);

#endif
