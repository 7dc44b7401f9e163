/* colstat_gzread: the zlib-alone floor for gzip input. Inflates FILE with
 * gzopen/gzbuffer/gzread into one fixed buffer, parses nothing, and prints
 * the number of inflated bytes. bench/run times it beside colstat on the
 * same .gz file: colstat should take at most 1.1x its time.
 * Concatenated gzip members are read through, as gzread does. Errors (open
 * failure, corrupt data, truncated stream, input that is not gzip) are one
 * line, "colstat_gzread: FILE: what", and exit status 1. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

/* zlib's input buffer; its output buffer is twice as large. */
#define GZ_BUFFER (1u << 20)
/* A read of at least twice the gzbuffer size inflates straight into the
 * caller's buffer (no copy through zlib's own): zlib's fastest path. */
#define READ_SIZE (4u << 20)

static unsigned char buf[READ_SIZE];

static int fail(const char *path, const char *what)
{
    fprintf(stderr, "colstat_gzread: %s: %s\n", path, what);
    return 1;
}

/* gzerror's message, without the "PATH: " zlib puts in front of it. */
static const char *gz_message(gzFile g, const char *path, int *err)
{
    const char *m = gzerror(g, err);
    size_t n = strlen(path);
    if (!strncmp(m, path, n) && m[n] == ':' && m[n + 1] == ' ')
        m += n + 2;
    return m;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--version")) {
        printf("colstat_gzread (zlib %s)\n", zlibVersion());
        return 0;
    }
    if (argc != 2 || argv[1][0] == '\0') {
        fputs("usage: colstat_gzread FILE\n", stderr);
        return 2;
    }
    const char *path = argv[1];
    errno = 0;
    gzFile g = gzopen(path, "rb");
    if (!g)
        return fail(path, errno ? strerror(errno) : "out of memory");
    if (gzbuffer(g, GZ_BUFFER) != 0) {
        gzclose_r(g);
        return fail(path, "gzbuffer failed");
    }
    /* gzread copies input that is not gzip as it is: not for this tool. */
    if (gzdirect(g)) {
        int err;
        const char *m = gz_message(g, path, &err);
        if (err == Z_OK)
            m = "not in gzip format";
        int rc = fail(path, m); /* before gzclose_r frees the message */
        gzclose_r(g);
        return rc;
    }
    unsigned long long total = 0;
    int n;
    while ((n = gzread(g, buf, READ_SIZE)) > 0)
        total += (unsigned long long)n;
    int err;
    const char *m = gz_message(g, path, &err);
    if (n < 0 || err != Z_OK) {
        /* A stream that ends early is Z_BUF_ERROR: gzread returns the
         * data it had and then 0, so only gzerror tells. */
        fprintf(stderr, "colstat_gzread: %s: %s%s\n", path, m,
                err == Z_BUF_ERROR ? " (truncated gzip stream)" : "");
        gzclose_r(g);
        return 1;
    }
    int rc = gzclose_r(g);
    if (rc != Z_OK)
        return fail(path, rc == Z_BUF_ERROR ? "truncated gzip stream"
                                            : "error closing the file");
    printf("%llu\n", total);
    if (fflush(stdout) == EOF)
        return fail("(standard output)", strerror(errno));
    return 0;
}
