#include "src/dist/part.h"

#include <stdlib.h>
#include <string.h>

#include "io/binary/binary_reader.h"
#include "src/dist/split.h"

typedef struct plan_mem {
    split_input *in;
    uint64_t *x0, *x1;
    split_tail *tails;
} plan_mem;

static int plan_alloc(plan_mem *m, int nfiles, int k, engine_part **parts)
{
    size_t n = (size_t)nfiles;
    m->in = calloc(n, sizeof *m->in);
    m->x0 = calloc(n, sizeof *m->x0);
    m->x1 = calloc(n, sizeof *m->x1);
    m->tails = calloc((size_t)k, sizeof *m->tails);
    *parts = calloc(n, sizeof **parts);
    return m->in && m->x0 && m->x1 && m->tails && *parts ? 0 : -1;
}

static void plan_free(plan_mem *m)
{
    free(m->in);
    free(m->x0);
    free(m->x1);
    free(m->tails);
}

static int probe_all(const engine_config *cfg, split_input *in, cs_error *e)
{
    binary_spec spec = {0};
    csv_dialect base = {.delim = cfg->delim,
                        .header = cfg->header,
                        .whitespace = cfg->whitespace,
                        .num = cfg->num};
    if (cfg->binary && binary_spec_parse(cfg->binary, &spec, e) != CS_OK)
        return CS_EDATA;
    for (int i = 0; i < cfg->nfiles; i++) {
        if (!strcmp(cfg->files[i], "-"))
            return cs_fail(e, CS_EUSAGE, "", 0,
                           "--part: standard input cannot be shared between "
                           "processes; give files");
        if (split_probe(cfg->files[i], spec.record_size, &base, &in[i], e))
            return CS_EDATA;
    }
    return CS_OK;
}

/* The tails of ranks 0..k-1 (each rank's last range, summarised): the
 * quote state at every boundary up to part k's end. */
static int tails_upto(const engine_config *cfg, plan_mem *m, int k, int n,
                      int nthreads, cs_error *e)
{
    for (int r = 0; r < k; r++) {
        split_ranges(m->in, cfg->nfiles, n, r, cfg->hooks.mpi_cuts, m->x0,
                     m->x1);
        if (split_tail_make(cfg->files, m->in, cfg->nfiles, m->x0, m->x1,
                            nthreads, &m->tails[r], e) != CS_OK)
            return CS_EDATA;
    }
    return CS_OK;
}

int dist_part_plan(const engine_config *cfg, int k, int n, int nthreads,
                   engine_part **parts, cs_error *e)
{
    plan_mem m;
    int rc = CS_OK;
    if (plan_alloc(&m, cfg->nfiles, k, parts))
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (rc == CS_OK)
        rc = probe_all(cfg, m.in, e);
    if (rc == CS_OK)
        rc = tails_upto(cfg, &m, k, n, nthreads, e);
    if (rc == CS_OK) /* the ranges of part k, left by tails_upto */
        rc = split_parts(cfg->files, m.in, cfg->nfiles, m.x0, m.x1, m.tails,
                         k - 1, *parts, e);
    plan_free(&m);
    if (rc != CS_OK) {
        free(*parts);
        *parts = NULL;
    }
    return rc;
}
