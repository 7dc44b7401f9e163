/* colstat_gzcat: inflates a gzip file or standard input with colstat's
 * decoder (io/gzip/gzip.h) and throws the bytes away (or writes them
 * with -o), then prints how many bytes, the seconds and the GB/s of
 * inflated bytes, on one line. bench/run times it beside zlib, ISA-L's
 * igzip, pigz, rapidgzip and zcat; the tests use -o to compare bytes.
 *
 *   colstat_gzcat [-j THREADS] [-c PIECE] [-o OUT] [-v] FILE|-
 *
 * -j: decoding threads (default 1: the sequential inflater); -c: bytes
 * per piece (a test hook; k/M suffixes); -o OUT: write the bytes to OUT
 * ("-": standard output); -v: how the stream was decoded, on stderr.
 * Errors are one line, "colstat_gzcat: FILE: what", exit status 1; bad
 * usage exits 2. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/gzip/gzip.h"

#define BUF_SIZE ((size_t)4 << 20)

static int usage(void)
{
    fputs("usage: colstat_gzcat [-j THREADS] [-c PIECE] [-o OUT] [-v] "
          "FILE|-\n",
          stderr);
    return 2;
}

static int failed(const cs_error *e)
{
    fprintf(stderr, "colstat_gzcat: %s: %s\n", e->file, e->msg);
    return 1;
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'M')
        v <<= 20, end++;
    if (*end)
        return -1;
    *out = (size_t)v;
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads the two magic bytes (a pipe may give one at a time). */
static ssize_t sniff(int fd, unsigned char *head)
{
    size_t got = 0;
    while (got < 2) {
        ssize_t r = read(fd, head + got, 2 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static void report(gzp *g, double s, unsigned long long total)
{
    gzp_stats st;
    gzp_get_stats(g, &st);
    fprintf(stderr,
            "colstat_gzcat: %s%s%s, decoder %s, %u thread%s, %llu -> %llu "
            "bytes, %.3f s, %.3f GB/s",
            st.mode, st.why ? ": " : "", st.why ? st.why : "", st.decoder,
            st.threads, st.threads == 1 ? "" : "s",
            (unsigned long long)st.bytes_in, total, s,
            s > 0 ? (double)total / s / 1e9 : 0.0);
    if (st.parallel)
        fprintf(stderr,
                ", %llu pieces (%llu started at a member, %llu at a block, "
                "%llu decoded again)",
                (unsigned long long)st.pieces, (unsigned long long)st.at_member,
                (unsigned long long)st.at_block, (unsigned long long)st.redone);
    fprintf(stderr, ", %llu members\n", (unsigned long long)st.members);
}

int main(int argc, char **argv)
{
    gzp_config cfg = {.threads = 1};
    const char *out = NULL;
    int verbose = 0, opt;
    while ((opt = getopt(argc, argv, "j:c:o:v")) != -1) {
        size_t v;
        switch (opt) {
        case 'j':
            if (parse_size(optarg, &v) || v == 0 || v > 1024)
                return usage();
            cfg.threads = (unsigned)v;
            break;
        case 'c':
            if (parse_size(optarg, &v) || v < GZP_PIECE_MIN)
                return usage();
            cfg.piece_bytes = v;
            break;
        case 'o':
            out = optarg;
            break;
        case 'v':
            verbose = 1;
            break;
        default:
            return usage();
        }
    }
    if (optind != argc - 1)
        return usage();
    const char *path = argv[optind];
    int stdin_in = !strcmp(path, "-");
    const char *name = stdin_in ? "(standard input)" : path;
    int fd = stdin_in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    cs_error e = {0};
    if (fd < 0) {
        cs_fail(&e, CS_EDATA, name, 0, "cannot open: %s", strerror(errno));
        return failed(&e);
    }
    int ofd = -1;
    if (out) {
        ofd = !strcmp(out, "-") ? STDOUT_FILENO
                                : open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (ofd < 0) {
            cs_fail(&e, CS_EDATA, out, 0, "cannot open: %s", strerror(errno));
            return failed(&e);
        }
    }
    unsigned char head[2];
    double t0 = now();
    ssize_t h = sniff(fd, head);
    if (h < 0) {
        cs_fail(&e, CS_EDATA, name, 0, "cannot read: %s", strerror(errno));
        return failed(&e);
    }
    if (h < 2 || head[0] != 0x1f || head[1] != 0x8b) {
        cs_fail(&e, CS_EDATA, name, 0, "not in gzip format");
        return failed(&e);
    }
    gzp *g;
    if (gzp_open_fd(&g, fd, head, 2, name, &cfg, &e) != CS_OK)
        return failed(&e);
    unsigned char *buf = malloc(BUF_SIZE);
    unsigned long long total = 0;
    int rc = 0;
    for (;;) {
        ssize_t r = buf ? gzp_read(g, buf, BUF_SIZE, &e) : -1;
        if (!buf)
            cs_fail(&e, CS_ENOMEM, name, 0, "out of memory");
        if (r < 0) {
            rc = failed(&e);
            break;
        }
        if (r == 0)
            break;
        total += (unsigned long long)r;
        if (ofd >= 0 && write_all(ofd, buf, (size_t)r) != 0) {
            cs_fail(&e, CS_EDATA, out, 0, "cannot write: %s", strerror(errno));
            rc = failed(&e);
            break;
        }
    }
    double s = now() - t0;
    if (verbose)
        report(g, s, total);
    if (rc == 0 && ofd != STDOUT_FILENO)
        printf("%llu bytes %.3f s %.3f GB/s\n", total, s,
               s > 0 ? (double)total / s / 1e9 : 0.0);
    gzp_close(g);
    free(buf);
    if (ofd >= 0 && ofd != STDOUT_FILENO && close(ofd) != 0 && rc == 0) {
        cs_fail(&e, CS_EDATA, out, 0, "cannot write: %s", strerror(errno));
        rc = failed(&e);
    }
    if (!stdin_in)
        close(fd);
    return rc;
}
