/* Exit policy: what status a run ends with, and how it ends. */
#ifndef COLSTAT_SRC_CLI_EXIT_STATUS_H
#define COLSTAT_SRC_CLI_EXIT_STATUS_H

#include "io/base/error.h"

/* Standard output written whole, or the error; a reader that closed it
 * early (| head) is no error. */
int stdout_done(cs_error *e);

/* Whether to leave freeing to the kernel once the result is out. */
int fast_exit(void);

#endif
