/* --mpi where MPI is not linked: refused (main hands --mpi over to
 * colstat-mpi first, where there is one). */
#include "src/dist/mpi_run.h"

#include <string.h>

int dist_mpi_built(void)
{
    return 0;
}

int dist_mpi_run(const engine_config *cfg, const engine_sink *sink,
                 engine_result *out, int *root, cs_error *e)
{
    (void)cfg;
    (void)sink;
    memset(out, 0, sizeof *out);
    *root = 1;
    return cs_fail(e, CS_EUSAGE, "", 0,
                   "--mpi: this colstat was built without MPI, or its "
                   "colstat-mpi is not beside it (install libopenmpi-dev "
                   "and build again)");
}

void dist_mpi_end(void)
{
}
