/* --mpi's hand-over from colstat to colstat-mpi. */
#ifndef COLSTAT_SRC_CLI_HANDOVER_H
#define COLSTAT_SRC_CLI_HANDOVER_H

/* Runs colstat-mpi beside this program with argv; returns only when
 * there is none. */
void hand_over_mpi(char **argv);

/* Whether this process is the launcher's rank 0 (1 without a launcher). */
int launched_rank0(void);

#endif
