#include "io/source/probe.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/codec/codec.h"
#include "io/codec/magic.h"

static probe_kind kind_of(const unsigned char *b, ssize_t n)
{
    size_t have = n > 0 ? (size_t)n : 0;
    const magic_format *m = magic_identify(b, have);
    /* a file cut inside a magic is no plain text: its open says so */
    if (!m && have < MAGIC_HEAD && magic_cut(b, have))
        return PROBE_COMPRESSED;
    if (!m)
        return PROBE_PLAIN;
    if (m->codec == &codec_gzip_ops)
        return PROBE_GZIP;
    return PROBE_COMPRESSED; /* or refused: its open will say so */
}

void probe_path(const char *path, probe_info *out)
{
    out->kind = PROBE_STREAM;
    out->bytes = 0;
    struct stat st;
    if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode))
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    unsigned char b[MAGIC_HEAD];
    ssize_t n = read(fd, b, sizeof b);
    close(fd);
    out->kind = kind_of(b, n);
    out->bytes = (uint64_t)st.st_size;
}
