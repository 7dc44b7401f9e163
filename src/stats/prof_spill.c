#include "prof_spill.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct prof_spill {
    FILE *f;
    char *buf; /* a record's bytes while read back */
    size_t room;
};

typedef struct rec_head {
    uint32_t col, len;
    uint64_t count;
} rec_head;

int prof_spill_open(prof_spill **out, const char *tmpdir, cs_error *e)
{
    const char *dir = tmpdir && *tmpdir ? tmpdir : "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/colstat-XXXXXX", dir);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path); /* gone when colstat ends, however it ends */
    if (fd < 0 || !((*out)->f = fdopen(fd, "w+b"))) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        free(*out);
        *out = NULL;
        return cs_fail(e, CS_EDATA, "", 0,
                       "cannot make a temporary file in %s: %s (TMPDIR "
                       "says where)",
                       dir, strerror(err));
    }
    return CS_OK;
}

void prof_spill_close(prof_spill *s)
{
    if (!s)
        return;
    fclose(s->f);
    free(s->buf);
    free(s);
}

static int write_failed(cs_error *e)
{
    return cs_fail(e, CS_EDATA, "", 0,
                   "cannot write the temporary file of distinct values: %s",
                   strerror(errno));
}

int prof_spill_put(prof_spill *s, int col, const vcount *t, cs_error *e)
{
    if (fseek(s->f, 0, SEEK_END))
        return write_failed(e);
    for (size_t i = 0; i < vcount_size(t); i++) {
        size_t len;
        const char *k = vcount_key(t, i, &len);
        rec_head h = {(uint32_t)col, (uint32_t)len, vcount_count(t, i)};
        if (fwrite(&h, sizeof h, 1, s->f) != 1 ||
            (len && fwrite(k, len, 1, s->f) != 1))
            return write_failed(e);
    }
    return CS_OK;
}

static int read_failed(cs_error *e)
{
    return cs_fail(e, CS_EDATA, "", 0,
                   "cannot read the temporary file of distinct values back");
}

int prof_spill_scan(prof_spill *s, prof_spill_fn fn, void *ctx, int *stopped,
                    cs_error *e)
{
    *stopped = 0;
    if (fflush(s->f) || fseek(s->f, 0, SEEK_SET))
        return read_failed(e);
    rec_head h;
    while (fread(&h, sizeof h, 1, s->f) == 1) {
        if (h.len > s->room) {
            char *b = realloc(s->buf, h.len);
            if (!b)
                return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
            s->buf = b;
            s->room = h.len;
        }
        if (h.len && fread(s->buf, h.len, 1, s->f) != 1)
            return read_failed(e);
        if ((*stopped = fn(ctx, (int)h.col, s->buf, h.len, h.count)) != 0)
            return CS_OK;
    }
    return ferror(s->f) ? read_failed(e) : CS_OK;
}
