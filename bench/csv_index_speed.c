/* Micro-benchmark, not a test: the CSV structural index (io/csv/csv_simd.h)
 * alone over a file, in the reader's batches (64 KiB, cut at the last LF),
 * with each kernel the CPU has, in CPU seconds and GB/s; beside it a walk
 * that also visits every field end (what the reader does before parsing
 * numbers). Build and run by hand:
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -I. bench/csv_index_speed.c \
 *       io/csv/csv_simd.c -o /tmp/csv_index_speed
 *   /tmp/csv_index_speed FILE [delim]
 */
#include "io/csv/csv_simd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH ((size_t)1 << 16)

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return buf;
}

/* One pass; returns the field ends seen (and refused batches in *refused). */
static size_t pass(csv_simd_index *ix, const char *buf, size_t n, char delim,
                   int walk, size_t *refused, uint64_t *sink)
{
    size_t at = 0, ends = 0;
    *refused = 0;
    while (at < n) {
        size_t w = n - at < BATCH ? n - at : BATCH;
        const char *nl = memrchr(buf + at, '\n', w);
        size_t len = nl ? (size_t)(nl - buf) + 1 - at : w;
        if (csv_simd_scan(ix, buf + at, len, (unsigned char)delim)) {
            ends += ix->n;
            for (size_t k = 0; walk && k < ix->n; k++)
                *sink += (unsigned char)buf[at + ix->end[k]];
        } else {
            ++*refused;
        }
        at += len;
    }
    return ends;
}

int main(int argc, char **argv)
{
    size_t n;
    char *buf = argc > 1 ? slurp(argv[1], &n) : NULL;
    if (!buf) {
        fputs("usage: csv_index_speed FILE [delim]\n", stderr);
        return 2;
    }
    char delim = argc > 2 ? argv[2][0] : ',';
    csv_simd_index ix;
    if (csv_simd_init(&ix, BATCH) != 0)
        return 1;
    uint64_t sink = 0;
    for (int k = 0; k <= 2; k++) {
        csv_simd_force(k);
        for (int walk = 0; walk <= 1; walk++) {
            double best = 1e30;
            size_t ends = 0, refused = 0;
            for (int rep = 0; rep < 5; rep++) {
                double t0 = cpu_now();
                ends = pass(&ix, buf, n, delim, walk, &refused, &sink);
                double t = cpu_now() - t0;
                best = t < best ? t : best;
            }
            printf("%-6s %-12s %zu bytes %zu field ends %zu refused batches "
                   "%.3f s %.2f GB/s\n",
                   csv_simd_kernel(), walk ? "index+walk" : "index", n, ends,
                   refused, best, (double)n / best / 1e9);
        }
    }
    csv_simd_free(&ix);
    free(buf);
    return sink == 42 ? 1 : 0;
}
