/* Opening an input and reading its head. */
#include "src/engine/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_names(char **names, int n)
{
    for (int i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

static void input_free(input *in)
{
    if (in->src)
        source_close(in->src);
    free(in->name);
    free(in->head);
    free_names(in->names, in->nfields);
    free(in->numeric);
    free(in->map);
    free(in);
}

void input_hold(input *in)
{
    in->refs++;
}

void input_release(input *in)
{
    if (in && --in->refs == 0)
        input_free(in);
}

/* Binary records name their fields "1", "2", ... and all hold numbers. */
static int binary_fields(input *in, cs_error *e)
{
    int n = in->spec->nfields;
    in->names = calloc((size_t)n, sizeof *in->names);
    in->numeric = malloc((size_t)n);
    if (!in->names || !in->numeric)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    in->nfields = n;
    memset(in->numeric, 1, (size_t)n);
    for (int i = 0; i < n; i++) {
        in->names[i] = malloc(16);
        if (!in->names[i])
            return cs_fail(e, CS_EDATA, "", 0, "out of memory");
        snprintf(in->names[i], 16, "%d", i + 1);
    }
    return CS_OK;
}

/* Reads up to n bytes, fewer only at the end (head_eof). */
static int read_head(input *in, size_t n, account *acc, cs_error *e)
{
    in->head = malloc(n ? n : 1);
    if (!in->head)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    double t0 = account_now();
    while (in->head_len < n) {
        ssize_t r =
            source_read(in->src, in->head + in->head_len, n - in->head_len, e);
        if (r < 0)
            return CS_EDATA;
        if (r == 0) {
            in->head_eof = 1;
            break;
        }
        in->head_len += (size_t)r;
    }
    account_time(acc, ACC_READ, account_now() - t0);
    account_bytes(acc, in->head_len);
    return CS_OK;
}

/* The dialect, the header and the sample of a CSV head; the header bytes
 * are dropped from the head. An empty input shows no fields. */
static int csv_fields(input *in, cs_error *e)
{
    if (in->head_len == 0 && in->head_eof)
        return CS_OK;
    csv_detect(in->head, in->head_len, in->head_eof, &in->dialect);
    csv_head h;
    int rc = csv_read_head(in->head, in->head_len, in->head_eof, &in->dialect,
                           in->name, &h, e);
    if (rc != CS_OK)
        return rc;
    in->nfields = h.nfields;
    in->names = h.names;
    in->numeric = h.numeric;
    in->named = in->dialect.header == 1;
    in->head_len -= h.skip_bytes;
    memmove(in->head, in->head + h.skip_bytes, in->head_len);
    in->data_off = h.skip_bytes;
    in->first_line = h.skip_lines + 1;
    return CS_OK;
}

/* The data of the input is the part only: the head's bytes are dropped
 * and the source reads [lo, hi) of the file, never the header. */
static int apply_part(input *in, const engine_part *p, cs_error *e)
{
    uint64_t lo = p->lo, line = p->line;
    if (p->lo == p->hi) {
        in->none = 1;
        return CS_OK;
    }
    if (lo <= in->data_off) { /* the part begins with the data */
        lo = in->data_off;
        line = in->first_line;
    }
    if (p->hi == ENGINE_PART_END && lo == in->data_off)
        return CS_OK;
    if (!source_can_pread(in->src))
        return cs_fail(e, CS_EDATA, in->name, 0,
                       "only a plain file can be read in parts");
    uint64_t hi = p->hi < lo ? lo : p->hi;
    in->head_len = 0;
    in->head_eof = hi == lo;
    in->data_off = lo;
    in->first_line = line;
    return source_window(in->src, lo, hi, e);
}

int input_open(const char *path, const binary_spec *spec, csv_dialect dialect,
               size_t head_bytes, const engine_part *part, account *acc,
               input **out, cs_error *e)
{
    *out = NULL;
    input *in = calloc(1, sizeof *in);
    if (!in)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    in->refs = 1;
    in->spec = spec;
    in->dialect = dialect;
    in->first_line = 1;
    int rc = source_open(path, &in->src, e);
    if (rc == CS_OK && !(in->name = strdup(source_name(in->src))))
        rc = cs_fail(e, CS_EDATA, "", 0, "out of memory");
    if (rc == CS_OK && spec)
        in->by_range =
            source_can_pread(in->src) && source_file_size(in->src) > 0;
    if (rc == CS_OK && !in->by_range)
        rc = read_head(in, head_bytes, acc, e);
    if (rc == CS_OK)
        rc = spec ? binary_fields(in, e) : csv_fields(in, e);
    if (rc == CS_OK && part)
        rc = apply_part(in, part, e);
    if (rc != CS_OK) {
        input_free(in);
        return e->status;
    }
    *out = in;
    return CS_OK;
}

int input_map(input *in, const col_table *t, cs_error *e)
{
    int nmap = in->nfields;
    for (int k = 0; k < t->ncols; k++)
        if (t->fields[k] + 1 > nmap)
            nmap = t->fields[k] + 1;
    in->nmap = nmap;
    in->map = malloc((size_t)(nmap ? nmap : 1) * sizeof *in->map);
    if (!in->map)
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    return columns_map(t->names, t->fields, t->ncols, t->by_name && in->named,
                       in->names, in->nfields, in->name, nmap, in->map, e);
}
