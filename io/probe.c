#include "io/probe.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Magic bytes (RFC 1952; the zstd, xz and bzip2 formats' own). */
static probe_kind kind_of(const unsigned char *b, ssize_t n)
{
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return PROBE_GZIP;
    if ((n >= 4 && !memcmp(b, "\x28\xb5\x2f\xfd", 4)) ||
        (n >= 6 && !memcmp(b,
                           "\xfd"
                           "7zXZ\0",
                           6)) ||
        (n >= 3 && !memcmp(b, "BZh", 3)))
        return PROBE_COMPRESSED;
    return PROBE_PLAIN;
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
    unsigned char b[8];
    ssize_t n = read(fd, b, sizeof b);
    close(fd);
    out->kind = kind_of(b, n);
    out->bytes = (uint64_t)st.st_size;
}
