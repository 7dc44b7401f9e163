/* gpu/gpu.h for a build without CUDA: opening says so, and nothing else
 * can be reached (every other call needs an open backend). */
#include "gpu/gpu.h"

#include <string.h>

static const char no_cuda[] = "this colstat was built without CUDA";

int gpu_built(void)
{
    return 0;
}

int gpu_prepare(cs_error *e)
{
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}

int gpu_open(const gpu_config *cfg, gpu_backend **out, cs_error *e)
{
    (void)cfg;
    *out = NULL;
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}

static int unreachable(cs_error *e)
{
    return cs_fail(e, CS_EDATA, "", 0, "internal error: %s", no_cuda);
}

const row_batch_alloc *gpu_row_batch_alloc(gpu_backend *g)
{
    (void)g;
    return NULL;
}

size_t gpu_batch_rows(const gpu_backend *g)
{
    (void)g;
    return 0;
}

int gpu_submit(gpu_backend *g, const row_batch *c, uint64_t first_row,
               cs_error *e)
{
    (void)g, (void)c, (void)first_row;
    return unreachable(e);
}

int gpu_batch_wait(gpu_backend *g, const row_batch *c, cs_error *e)
{
    (void)g, (void)c;
    return unreachable(e);
}

int gpu_finish(gpu_backend *g, col_stats *out, hist *hists, cs_error *e)
{
    (void)g, (void)out, (void)hists;
    return unreachable(e);
}

int gpu_store_all(const gpu_backend *g)
{
    (void)g;
    return 0;
}

const value_store *gpu_host_values(const gpu_backend *g)
{
    (void)g;
    return NULL;
}

int gpu_pass(gpu_backend *g, const gpu_pass_col *cols, cs_error *e)
{
    (void)g, (void)cols;
    return unreachable(e);
}

size_t gpu_raw_segment_bytes(const gpu_backend *g)
{
    (void)g;
    return 0;
}

int gpu_raw_begin(gpu_backend *g, const gpu_raw_format *f, uint64_t first_row,
                  uint64_t first_line, cs_error *e)
{
    (void)g, (void)f, (void)first_row, (void)first_line;
    return unreachable(e);
}

int gpu_raw_submit(gpu_backend *g, const void *bytes, size_t n, cs_error *e)
{
    (void)g, (void)bytes, (void)n;
    return unreachable(e);
}

int gpu_raw_wait(gpu_backend *g, const void *bytes, int *stopped, cs_error *e)
{
    (void)g, (void)bytes;
    *stopped = 0;
    return unreachable(e);
}

int gpu_raw_copied(gpu_backend *g, const void *bytes, int *stopped, cs_error *e)
{
    (void)g, (void)bytes;
    *stopped = 0;
    return unreachable(e);
}

int gpu_raw_end(gpu_backend *g, gpu_raw_result *r, char *tail, size_t *tail_len,
                cs_error *e)
{
    (void)g, (void)r, (void)tail;
    *tail_len = 0;
    return unreachable(e);
}

int gpu_parse_fields(const char *text, size_t text_len, const size_t *off,
                     const size_t *len, size_t n, const num_format *fmt,
                     int *kind, double *val, int32_t *corr, cs_error *e)
{
    (void)text, (void)text_len, (void)off, (void)len, (void)n, (void)fmt,
        (void)kind, (void)val, (void)corr;
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}

int gpu_parse_kind_fields(const char *text, size_t text_len, const size_t *off,
                          const size_t *len, size_t n, const num_format *fmt,
                          unsigned col_kind, int *kind, double *val,
                          int32_t *corr, cs_error *e)
{
    (void)col_kind;
    return gpu_parse_fields(text, text_len, off, len, n, fmt, kind, val, corr,
                            e);
}

void gpu_get_times(const gpu_backend *g, gpu_times *t)
{
    (void)g;
    memset(t, 0, sizeof *t);
}

void gpu_close(gpu_backend *g)
{
    (void)g;
}

int gpu_group_rows(const gpu_group_in *in, gpu_group_out *out, cs_error *e)
{
    (void)in;
    memset(out, 0, sizeof *out);
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}

void gpu_group_out_free(gpu_group_out *out)
{
    memset(out, 0, sizeof *out);
}

int gpu_raw_groups(gpu_backend *g, gpu_group_out *out, cs_error *e)
{
    (void)g;
    memset(out, 0, sizeof *out);
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}

int gpu_raw_group_sorted(gpu_backend *g, size_t n, int *sorted, cs_error *e)
{
    (void)g;
    (void)n;
    *sorted = 0;
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}

int gpu_raw_group_pick(gpu_backend *g, int col, size_t n, const uint64_t *pos,
                       size_t npos, double *d, int32_t *r, cs_error *e)
{
    (void)g;
    (void)col;
    (void)n;
    (void)pos;
    (void)npos;
    (void)d;
    (void)r;
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}

int gpu_raw_group_values(gpu_backend *g, int col, double *d, int32_t *r,
                         size_t n, cs_error *e)
{
    (void)g;
    (void)col;
    (void)d;
    (void)r;
    (void)n;
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}

int gpu_value_runs(gpu_backend *g, int col, int with_r, uint64_t *nruns,
                   cs_error *e)
{
    (void)g;
    (void)col;
    (void)with_r;
    *nruns = 0;
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}

int gpu_value_runs_top(gpu_backend *g, size_t k, double *d, int32_t *r,
                       uint64_t *count, size_t *n, cs_error *e)
{
    (void)g;
    (void)k;
    (void)d;
    (void)r;
    (void)count;
    *n = 0;
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}

int gpu_value_runs_get(gpu_backend *g, uint64_t from, size_t n, double *d,
                       int32_t *r, uint64_t *count, cs_error *e)
{
    (void)g;
    (void)from;
    (void)n;
    (void)d;
    (void)r;
    (void)count;
    return cs_fail(e, CS_EDATA, "", 0, "%s", no_cuda);
}
