/* Exit policy: a closed stdout is success; the teardown is skipped
 * where nothing checks it. */
#include "src/cli/exit_status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stdout_done(cs_error *e)
{
    int bad = fflush(stdout) != 0;
    bad |= ferror(stdout);
    if (bad && errno != EPIPE)
        return cs_fail(e, CS_EDATA, "", 0, "write error: %s", strerror(errno));
    return CS_OK;
}

/* Once the result is out, what is left is freeing memory the kernel takes
 * back anyway, and a GPU's teardown (about 0.1 s in the driver): skipped,
 * except in sanitizer builds, whose leak check must see every free.
 * COLSTAT_FULL_EXIT=1 tears down for measuring what this saves. */
int fast_exit(void)
{
#ifdef COLSTAT_SANITIZE
    return 0;
#else
    const char *v = getenv("COLSTAT_FULL_EXIT");
    return !(v && *v == '1');
#endif
}
