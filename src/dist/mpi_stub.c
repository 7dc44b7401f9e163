/* --mpi in a build without MPI: refused. */
#include "src/dist/mpi_run.h"

#include <string.h>

int dist_mpi_run(const engine_config *cfg, const engine_sink *sink,
                 engine_result *out, int *root, cs_error *e)
{
    (void)cfg;
    (void)sink;
    memset(out, 0, sizeof *out);
    *root = 1;
    return cs_fail(e, CS_EUSAGE, "", 0,
                   "--mpi: this colstat was built without MPI (install "
                   "libopenmpi-dev and build again)");
}

void dist_mpi_end(void)
{
}
