#include "src/dist/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/dist/state.h"

/* One state file into *r and *info. */
static int read_one(const char *path, state_info *info, engine_result *r,
                    cs_error *e)
{
    int std = !strcmp(path, "-");
    const char *name = std ? "(standard input)" : path;
    FILE *f = std ? stdin : fopen(path, "rb");
    if (!f)
        return cs_fail(e, CS_EDATA, name, 0, "cannot open: %s",
                       strerror(errno));
    int rc = state_read(f, name, info, r, e);
    if (!std)
        fclose(f);
    return rc;
}

int merge_states(const char *const *paths, int n, engine_result *out,
                 unsigned *what, cs_error *e)
{
    state_info first = {0};
    int rc = read_one(paths[0], &first, out, e);
    *what = first.what;
    for (int i = 1; i < n && rc == CS_OK; i++) {
        state_info info;
        engine_result r;
        rc = read_one(paths[i], &info, &r, e);
        if (rc == CS_OK && strcmp(info.key, first.key))
            rc = cs_fail(e, CS_EDATA, paths[i], 0,
                         "a state of other options than %s's (%s against "
                         "%s)",
                         paths[0], info.key, first.key);
        if (rc == CS_OK)
            rc = state_merge(out, &r, e);
        free(info.key);
        engine_result_free(&r);
    }
    free(first.key);
    if (rc != CS_OK)
        engine_result_free(out);
    return rc;
}
