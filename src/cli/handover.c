/* colstat-mpi is the same program linked with MPI: without --mpi no
 * MPI library is loaded. */
#include "src/cli/handover.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* colstat hands --mpi over to colstat-mpi beside it (the same program,
 * linked with MPI), so that without --mpi no MPI library is loaded.
 * Returns only when there is none. */
void hand_over_mpi(char **argv)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 16);
    if (n <= 0)
        return;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    strcpy(slash ? slash + 1 : self, "colstat-mpi");
    execv(self, argv);
}

/* An error found before MPI starts (the command line) is printed by the
 * launcher's rank 0 alone, as its environment says. */
int launched_rank0(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v)
            return atoi(v) == 0;
    }
    return 1;
}
