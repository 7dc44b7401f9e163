/* Feeding: read each input, learn its columns, and cut the byte stream
 * into record-aligned jobs for the workers. The bytes after the last cut
 * wait in g->carry for the next read. */
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "internal.h"
#include "io/source.h"

ssize_t fill(engine *g, struct source *src, char *buf, size_t n, int *eof)
{
    size_t got = 0;
    double t0 = engine_now();
    while (got < n) {
        ssize_t r = source_read(src, buf + got, n - got, g->e);
        if (r < 0)
            return -1;
        if (r == 0) {
            *eof = 1;
            break;
        }
        got += (size_t)r;
    }
    g->t_read += engine_now() - t0;
    g->bytes_in += got;
    return (ssize_t)got;
}

static int reserve_carry(engine *g, size_t n)
{
    if (g->carry_cap >= n)
        return 0;
    char *p = realloc(g->carry, n);
    if (!p)
        return -1;
    g->carry = p;
    g->carry_cap = n;
    return 0;
}

/* pos of size bytes of the current input are done (size 0: unknown). */
void show_progress(engine *g, const char *name, uint64_t pos, uint64_t size)
{
    double now = engine_now();
    /* Quick runs stay quiet: the line appears after the first second. */
    if (!g->progress || now - g->last_progress < 0.5 || now - g->t_start < 1.0)
        return;
    g->last_progress = now;
    double mb = (double)g->bytes_in / 1e6, dt = now - g->t_start;
    if (size)
        fprintf(g->err_out, "\rcolstat: %s %3.0f%%  %.0f MB  %.0f MB/s ", name,
                100.0 * (double)pos / (double)size, mb, dt > 0 ? mb / dt : 0.0);
    else
        fprintf(g->err_out, "\rcolstat: %s  %.0f MB  %.0f MB/s ", name, mb,
                dt > 0 ? mb / dt : 0.0);
    fflush(g->err_out);
}

/* Where a record-aligned prefix of buf ends: the CSV cutter, or whole
 * binary records. Returns (size_t)-1 on error. */
static size_t cut(engine *g, input_file *f, csv_cutter *c, const char *buf,
                  size_t len, int eof, uint64_t *records)
{
    if (!g->binary)
        return csv_cut(c, buf, len, eof, f->name, g->e);
    size_t rs = g->spec.record_size, n = len / rs * rs;
    if (eof && n != len) {
        cs_fail(g->e, CS_EDATA, f->name, 0,
                "%zu bytes left over after %llu whole records of %zu bytes",
                len - n, (unsigned long long)(*records + n / rs), rs);
        return (size_t)-1;
    }
    *records += n / rs;
    return n;
}

/* One job: the carried bytes plus as much new input as fits, cut at the
 * last record boundary. Returns 1 when the input is used up. */
/* Fills j with the carried bytes plus new input until it holds at least
 * one whole record (or the input ends); *n is where the cut falls. */
static int load_block(engine *g, source *src, input_file *f, csv_cutter *c,
                      job *j, size_t clen, int *eof, uint64_t *records,
                      size_t *len, size_t *n)
{
    size_t want = g->block_bytes > clen * 2 ? g->block_bytes : clen * 2;
    if (job_reserve(j, want))
        return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    memcpy(j->buf, g->carry, clen);
    *len = clen;
    for (;;) {
        if (!*eof) {
            ssize_t r = fill(g, src, j->buf + *len, j->cap - *len, eof);
            if (r < 0)
                return CS_EDATA;
            *len += (size_t)r;
        }
        *n = cut(g, f, c, j->buf, *len, *eof, records);
        if (*n == (size_t)-1)
            return CS_EDATA;
        if (*n > 0 || *eof)
            return CS_OK;
        /* A record longer than the buffer: grow it and read on. */
        if (job_reserve(j, j->cap * 2))
            return cs_fail(g->e, CS_EDATA, f->name, c->line,
                           "out of memory for a record");
    }
}

/* One job: the carried bytes plus as much new input as fits, cut at the
 * last record boundary. Returns 1 when the input is used up, -1 on error. */
static int feed_one(engine *g, source *src, input_file *f, csv_cutter *c,
                    size_t *clen, int *eof, uint64_t *records)
{
    job *j = job_get(g);
    if (!j)
        return -1;
    uint64_t line = c->line;
    size_t len = 0, n = 0;
    int rc = load_block(g, src, f, c, j, *clen, eof, records, &len, &n);
    if (rc == CS_OK && reserve_carry(g, len - n))
        rc = cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    if (rc != CS_OK) {
        job_put(g, j);
        return -1;
    }
    memcpy(g->carry, j->buf + n, len - n);
    *clen = len - n;
    j->len = n;
    j->first_line = line;
    j->file = f;
    if (n == 0)
        job_put(g, j);
    else
        job_dispatch(g, j);
    show_progress(g, f->name, source_raw_pos(src), source_file_size(src));
    return *eof && *clen == 0;
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    return p ? memcpy(p, s, n) : NULL;
}

/* Names "1", "2", ... for inputs without a header. */
static char **index_names(int n)
{
    char **names = calloc((size_t)(n ? n : 1), sizeof *names);
    for (int i = 0; names && i < n; i++) {
        names[i] = malloc(16);
        if (names[i])
            snprintf(names[i], 16, "%d", i + 1);
    }
    return names;
}

static int set_columns(engine *g, char **names, const unsigned char *numeric,
                       int nfields, const char *file, int by_name)
{
    int rc = columns_select(g->o->columns, names, numeric, nfields, file,
                            &g->fields, &g->ncols, g->e);
    if (rc != CS_OK)
        return rc;
    g->names = calloc((size_t)(g->ncols ? g->ncols : 1), sizeof *g->names);
    if (!g->names)
        return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    for (int k = 0; k < g->ncols; k++)
        if (!(g->names[k] = dup_string(names[g->fields[k]])))
            return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    g->by_name = by_name;
    return engine_start(g);
}

static int map_file(engine *g, input_file *f, char **names, int nfields,
                    int has_header)
{
    int nmap = nfields;
    for (int k = 0; k < g->ncols; k++)
        if (g->fields[k] + 1 > nmap)
            nmap = g->fields[k] + 1;
    f->nmap = nmap;
    f->map = malloc((size_t)(nmap ? nmap : 1) * sizeof *f->map);
    if (!f->map)
        return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    return columns_map(g->names, g->fields, g->ncols, g->by_name && has_header,
                       names, nfields, f->name, nmap, f->map, g->e);
}

static void free_names(char **names, int n)
{
    for (int i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* Learns the columns of a file from its first bytes (g->carry[0, len)).
 * Returns CS_OK with *skip the bytes and *lines the lines before data. */
static int read_head(engine *g, input_file *f, size_t len, int eof, int first,
                     size_t *skip, uint64_t *lines)
{
    int rc;
    if (g->binary) {
        char **names = index_names(g->spec.nfields);
        unsigned char *num = malloc((size_t)g->spec.nfields + 1);
        if (!names || !num)
            rc = cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
        else {
            memset(num, 1, (size_t)g->spec.nfields);
            rc = first ? set_columns(g, names, num, g->spec.nfields, f->name, 0)
                       : CS_OK;
            if (rc == CS_OK)
                rc = map_file(g, f, names, g->spec.nfields, 0);
        }
        free(num);
        free_names(names, g->spec.nfields);
        *skip = 0;
        *lines = 0;
        return rc;
    }
    f->dialect.delim = g->o->delim;
    f->dialect.header = g->o->header;
    csv_detect(g->carry, len, eof, &f->dialect);
    csv_head h;
    memset(&h, 0, sizeof h);
    rc = csv_read_head(g->carry, len, eof, &f->dialect, f->name, &h, g->e);
    if (rc == CS_OK && first)
        rc = set_columns(g, h.names, h.numeric, h.nfields, f->name,
                         f->dialect.header == 1);
    if (rc == CS_OK)
        rc = map_file(g, f, h.names, h.nfields, f->dialect.header == 1);
    *skip = h.skip_bytes;
    *lines = h.skip_lines;
    csv_head_free(&h);
    return rc;
}

/* Binary records of a plain file: every worker preads its own range, so
 * reading scales with the threads instead of one reader's speed. */
static int feed_ranges(engine *g, input_file *f)
{
    uint64_t size = source_file_size(f->src), rs = g->spec.record_size;
    if (size % rs)
        return cs_fail(g->e, CS_EDATA, f->name, 0,
                       "%llu bytes left over after %llu whole records of %llu "
                       "bytes",
                       (unsigned long long)(size % rs),
                       (unsigned long long)(size / rs), (unsigned long long)rs);
    if (raw_wanted(g, f))
        return raw_feed_binary(g, f);
    uint64_t step = g->block_bytes / rs * rs;
    if (step == 0)
        step = rs;
    for (uint64_t off = 0; off < size; off += step) {
        job *j = job_get(g);
        if (!j)
            return g->e->status;
        size_t len = (size_t)(size - off < step ? size - off : step);
        if (job_reserve(j, len)) {
            job_put(g, j);
            return cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
        }
        j->len = len;
        j->src = f->src;
        j->off = off;
        j->file = f;
        g->bytes_in += len;
        job_dispatch(g, j);
        show_progress(g, f->name, off + len, size);
    }
    return CS_OK;
}

int feed_input(engine *g, input_file *f, const char *path, int *first)
{
    source *src = NULL;
    int rc = source_open(path, &src, g->e);
    if (rc != CS_OK)
        return rc;
    f->src = src;
    f->name = dup_string(source_name(src));
    size_t skip = 0;
    uint64_t lines = 0;
    if (f->name && g->binary && source_can_pread(src) &&
        source_file_size(src) > 0) {
        rc = read_head(g, f, 0, 1, *first, &skip, &lines);
        *first = 0;
        return rc == CS_OK ? feed_ranges(g, f) : rc;
    }
    int eof = 0;
    ssize_t len = -1;
    if (!f->name || reserve_carry(g, g->block_bytes))
        rc = cs_fail(g->e, CS_EDATA, "", 0, "out of memory");
    else if ((len = fill(g, src, g->carry, g->block_bytes, &eof)) < 0)
        rc = g->e->status;
    /* An empty file says nothing about the columns: the next one will. */
    if (rc == CS_OK && len == 0 && eof && !g->binary)
        return CS_OK;
    if (rc == CS_OK) {
        rc = read_head(g, f, (size_t)len, eof, *first, &skip, &lines);
        *first = 0;
    }
    if (rc == CS_OK) {
        size_t clen = (size_t)len - skip;
        memmove(g->carry, g->carry + skip, clen);
        uint64_t line = lines + 1;
        if (!g->binary && raw_wanted(g, f))
            rc = raw_feed_csv(g, f, skip, &clen, &eof, &line);
        csv_cutter c;
        csv_cutter_init(&c, &f->dialect, line);
        uint64_t records = 0;
        int done = rc == CS_OK ? 0 : -1;
        while (done == 0)
            done = feed_one(g, src, f, &c, &clen, &eof, &records);
        rc = done < 0 ? g->e->status : CS_OK;
    }
    return rc;
}
