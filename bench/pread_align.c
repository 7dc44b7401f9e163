/* How fast the kernel copies page-cache bytes out (pread) as a function of
 * where the destination sits against the source modulo a page: on x86 the
 * copy is `rep movsb`, which some CPUs run far slower when the destination
 * is a few bytes past the source's page offset (src/dist/split.c reads at
 * the file offset's page offset for that reason). Usage:
 *   colstat_pread_bench FILE [MB]     # FILE in the page cache; MB read per
 *                                     # offset (default 1024) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLOCK ((size_t)4 << 20)
#define PAGE ((size_t)4096)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    static const size_t offs[] = {0, 1, 8, 16, 31, 32, 48, 64, 2048, 4064};
    if (argc < 2) {
        fprintf(stderr, "usage: colstat_pread_bench FILE [MB]\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    void *base = NULL;
    if (fd < 0 || fstat(fd, &st) || posix_memalign(&base, PAGE, BLOCK + PAGE)) {
        perror(argv[1]);
        return 1;
    }
    memset(base, 1, BLOCK + PAGE);
    size_t want = (argc > 2 ? (size_t)atol(argv[2]) : 1024) << 20;
    size_t n = (size_t)st.st_size < want ? (size_t)st.st_size : want;
    for (size_t i = 0; i < sizeof offs / sizeof *offs; i++) {
        char *to = (char *)base + offs[i];
        double t0 = now();
        for (size_t at = 0; at < n; at += BLOCK) {
            size_t k = n - at < BLOCK ? n - at : BLOCK;
            if (pread(fd, to, k, (off_t)at) != (ssize_t)k) {
                perror("pread");
                return 1;
            }
        }
        printf("destination %4zu bytes past the source's page offset: "
               "%6.2f GB/s\n",
               offs[i], (double)n / (now() - t0) / 1e9);
    }
    free(base);
    close(fd);
    return 0;
}
